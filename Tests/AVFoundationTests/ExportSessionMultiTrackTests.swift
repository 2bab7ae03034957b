// Exports of assets with several video and audio tracks, as Apple's export treats them without a
// video composition: the enabled video tracks through the compositor stage (the front-most track
// with media shown at each time), every enabled audio track mixed; and the compositor stage
// itself on frames it can be checked against exactly.
@testable import AVFoundation
import Foundation
import Testing

enum MultiTrackFixtures {
    /// Two enabled video tracks: track 1 white for 1 s (in front), track 2 black for 2 s; 25 fps.
    static let twoVideoTracks: URL? = try? AssetFixtures.generate("two-video-tracks.mov", [
        "-f", "lavfi", "-i", "color=white:size=320x240:rate=25:duration=1",
        "-f", "lavfi", "-i", "color=black:size=320x240:rate=25:duration=2",
        "-map", "0:v", "-map", "1:v", "-c:v", "libx264", "-preset", "ultrafast",
        "-disposition:v:0", "default", "-disposition:v:1", "default",
    ])

    /// The same, with track 2 disabled (only track 1 is marked default, so only it is enabled).
    static let secondVideoTrackDisabled: URL? = try? AssetFixtures.generate("second-video-disabled.mov", [
        "-f", "lavfi", "-i", "color=white:size=320x240:rate=25:duration=1",
        "-f", "lavfi", "-i", "color=black:size=320x240:rate=25:duration=2",
        "-map", "0:v", "-map", "1:v", "-c:v", "libx264", "-preset", "ultrafast",
        "-disposition:v:0", "default", "-disposition:v:1", "0",
    ])

    /// Two enabled audio tracks of 1 s: a mono 440 Hz tone at 22.05 kHz and a stereo one at 48 kHz.
    static let twoAudioTracks: URL? = try? AssetFixtures.generate("two-audio-tracks.m4a", [
        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050:duration=1",
        "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=1",
        "-map", "0:a", "-map", "1:a", "-ac:a:1", "2", "-c:a", "aac",
        "-disposition:a:0", "default", "-disposition:a:1", "default",
    ])

    /// The mean luma of every decoded frame of `url`'s first video track, with its time (ffmpeg's
    /// signalstats, so the judge is not our own reader).
    static func lumaByFrame(_ url: URL) throws -> [(time: Double, luma: Double)] {
        let out = try AssetFixtures.run("ffprobe", [
            "-v", "error", "-f", "lavfi", "-i", "movie=\(url.path),signalstats",
            "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0",
        ]).output
        return out.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",").compactMap { Double($0) }
            return fields.count == 2 ? (fields[0], fields[1]) : nil
        }
    }

    /// The RMS level (dB) of `url`'s audio in a narrow band around `frequency`, over the whole file.
    static func bandLevel(_ url: URL, frequency: Int) throws -> Double? {
        let out = try AssetFixtures.run("ffprobe", [
            "-v", "error", "-f", "lavfi",
            "-i", "amovie=\(url.path),pan=mono|c0=0.5*c0+0.5*c1,bandpass=f=\(frequency):width_type=h:w=40,astats=metadata=1:reset=0",
            "-show_entries", "frame_tags=lavfi.astats.Overall.RMS_level", "-of", "csv=p=0",
        ]).output
        return out.split(separator: "\n").compactMap { Double($0) }.last
    }

    /// Frames of `count` pixel buffers (their own, so identity can be checked) every `step`
    /// (in 1/600 s) from `start`, each lasting `step`.
    static func frames(start: Int64, step: Int64, count: Int) throws -> [CMSampleBuffer] {
        try (0..<count).map { i in
            var buffer: CVPixelBuffer?
            #expect(CVPixelBufferCreate(nil, 16, 16, kCVPixelFormatType_32BGRA, nil, &buffer) == kCVReturnSuccess)
            let pixels = try #require(buffer)
            var format: CMVideoFormatDescription?
            CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pixels, formatDescriptionOut: &format)
            var timing = CMSampleTimingInfo(duration: CMTime(value: step, timescale: 600),
                                            presentationTimeStamp: CMTime(value: start + Int64(i) * step, timescale: 600),
                                            decodeTimeStamp: .invalid)
            var sample: CMSampleBuffer?
            CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: pixels, formatDescription: try #require(format),
                                                     sampleTiming: &timing, sampleBufferOut: &sample)
            return try #require(sample)
        }
    }

    /// Every frame the compositor stage gives for two tracks shown as Apple shows them without a
    /// composition, `front` in front of `back` (whose range is the output's).
    static func compose(front: ([CMSampleBuffer], CMTimeRange), back: ([CMSampleBuffer], CMTimeRange)) -> [CMSampleBuffer] {
        let sources = [(1, front), (2, back)].map { id, track in
            var remaining = track.0[...]
            return VideoCompositorStage.Source(trackID: CMPersistentTrackID(id), timeRange: track.1, next: { remaining.popFirst() })
        }
        let stage = VideoCompositorStage(sources: sources, instructions: VideoCompositorStage.frontMostInstructions(
            ranges: [front.1, back.1], within: back.1))
        var out: [CMSampleBuffer] = []
        while let sample = stage.copyNextSampleBuffer() { out.append(sample) }
        return out
    }

    static func t(_ value: Int64) -> CMTime { CMTime(value: value, timescale: 600) }
}

@Suite(.serialized) struct ExportSessionMultiTrackTests {
    typealias F = MultiTrackFixtures

    // MARK: The compositor stage

    @Test func withoutACompositionTheFrontMostTrackWithMediaIsShown() {
        // Track 1 (in front) has media over 1…1.9 s, track 2 over 0…3.2 s.
        let ranges = [CMTimeRange(start: F.t(600), end: F.t(1140)), CMTimeRange(start: F.t(0), end: F.t(1920))]
        let instructions = VideoCompositorStage.frontMostInstructions(ranges: ranges,
                                                                      within: CMTimeRange(start: .zero, duration: .positiveInfinity))
        #expect(instructions == [
            .init(timeRange: CMTimeRange(start: F.t(0), end: F.t(600)), passthroughSource: 1),
            .init(timeRange: CMTimeRange(start: F.t(600), end: F.t(1140)), passthroughSource: 0),
            .init(timeRange: CMTimeRange(start: F.t(1140), end: F.t(1920)), passthroughSource: 1),
        ])
        // Within an export range of 0.5…1.5 s: only what shows there.
        let trimmed = VideoCompositorStage.frontMostInstructions(ranges: ranges, within: CMTimeRange(start: F.t(300), end: F.t(900)))
        #expect(trimmed == [
            .init(timeRange: CMTimeRange(start: F.t(300), end: F.t(600)), passthroughSource: 1),
            .init(timeRange: CMTimeRange(start: F.t(600), end: F.t(900)), passthroughSource: 0),
        ])
        // A track wholly behind another is never shown.
        let hidden = VideoCompositorStage.frontMostInstructions(ranges: [ranges[1], ranges[0]], within: ranges[1])
        #expect(hidden.map(\.passthroughSource) == [0])
    }

    @Test func theStagePassesTheShownFramesThroughAndCutsThoseCrossingAnEdge() throws {
        // Front: 3 frames of 0.3 s from 1 s (to 1.9 s). Back: 8 frames of 0.4 s from 0 (to 3.2 s).
        let front = try F.frames(start: 600, step: 180, count: 3)
        let back = try F.frames(start: 0, step: 240, count: 8)
        let out = F.compose(front: (front, CMTimeRange(start: F.t(600), end: F.t(1140))),
                            back: (back, CMTimeRange(start: F.t(0), end: F.t(1920))))
        // (pts, duration, the frame whose pixels it shows)
        let expected: [(Int64, Int64, CMSampleBuffer)] = [
            (0, 240, back[0]), (240, 240, back[1]),
            (480, 120, back[2]),                      // 0.8…1.2 s cut at 1 s, where track 1 begins
            (600, 180, front[0]), (780, 180, front[1]), (960, 180, front[2]),
            (1140, 60, back[4]),                      // 1.6…2.0 s shown from 1.9 s, where track 1 ends
            (1200, 240, back[5]), (1440, 240, back[6]), (1680, 240, back[7]),
        ]
        #expect(out.count == expected.count)
        for (sample, (pts, duration, source)) in zip(out, expected) {
            #expect(CMSampleBufferGetPresentationTimeStamp(sample) == F.t(pts))
            #expect(CMSampleBufferGetDuration(sample) == F.t(duration))
            // No pixel is copied: the output shows the source's own buffer.
            #expect(CMSampleBufferGetImageBuffer(sample) === CMSampleBufferGetImageBuffer(source))
        }
        // Frames wholly inside their instruction are the source's sample buffers themselves.
        #expect(out[3] === front[0] && out[0] === back[0] && out[9] === back[7])
    }

    @Test func aFrameOutlastingATrackInFrontIsShownOnBothSidesOfIt() throws {
        // One back frame over 0…3 s; the front track covers 1…2 s with two frames.
        let back = try F.frames(start: 0, step: 1800, count: 1)
        let front = try F.frames(start: 600, step: 300, count: 2)
        let out = F.compose(front: (front, CMTimeRange(start: F.t(600), end: F.t(1200))),
                            back: (back, CMTimeRange(start: F.t(0), end: F.t(1800))))
        #expect(out.map(CMSampleBufferGetPresentationTimeStamp) == [F.t(0), F.t(600), F.t(900), F.t(1200)])
        #expect(out.map(CMSampleBufferGetDuration) == [F.t(600), F.t(300), F.t(300), F.t(600)])
    }

    // MARK: Exports

    @Test func aReencodingExportShowsTheFrontTrackThenTheTrackBehindIt() async throws {
        let source = try #require(F.twoVideoTracks)
        let tracks = try await AVURLAsset(url: source).loadTracks(withMediaType: .video)
        #expect(tracks.count == 2 && tracks.allSatisfy(\.isEnabled))
        let url = try ExportFixtures.output("two-video-tracks-out.mp4")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPreset640x480, to: url, type: .mp4)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        // One video track, 2 s long: white (track 1) for the first second, black (track 2) after.
        let exported = try await AVURLAsset(url: url).loadTracks(withMediaType: .video)
        #expect(exported.count == 1)
        let frames = try F.lumaByFrame(url)
        #expect(frames.count == 50)
        for frame in frames {
            if frame.time < 0.99 {
                #expect(frame.luma > 200, "frame at \(frame.time) s should be track 1's white")
            } else if frame.time > 1.01 {
                #expect(frame.luma < 40, "frame at \(frame.time) s should be track 2's black")
            }
        }
        #expect(abs((frames.last?.time ?? 0) - 1.96) < 0.01)
    }

    @Test func aTimeRangeAcrossTheEdgeExportsBothTracksParts() async throws {
        let source = try #require(F.twoVideoTracks)
        let url = try ExportFixtures.output("two-video-tracks-range.mov")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPreset640x480, to: url, type: .mov) {
            $0.timeRange = CMTimeRange(start: CMTime(value: 1, timescale: 2), duration: CMTime(value: 1, timescale: 1))
        }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        // 0.5…1.5 s of 25 fps frames at multiples of 0.04 s: track 1's frame of 0.48 s shown from
        // 0.5 s (movie time 0), its frames to 0.96 s, then track 2's from 1 s to 1.48 s.
        let frames = try F.lumaByFrame(url)
        #expect(frames.count == 26)
        #expect(frames.prefix(13).allSatisfy { $0.luma > 200 } && frames.suffix(13).allSatisfy { $0.luma < 40 })
        #expect(frames.first?.time == 0 && abs((frames.dropFirst(13).first?.time ?? 0) - 0.5) < 0.001)
    }

    @Test func aDisabledVideoTrackIsLeftOut() async throws {
        let source = try #require(F.secondVideoTrackDisabled)
        let tracks = try await AVURLAsset(url: source).loadTracks(withMediaType: .video)
        #expect(tracks.map(\.isEnabled) == [true, false])
        let url = try ExportFixtures.output("second-video-disabled-out.mp4")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPreset640x480, to: url, type: .mp4)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let frames = try F.lumaByFrame(url)
        #expect(frames.count == 25 && frames.allSatisfy { $0.luma > 200 })
    }

    @Test func passthroughCopiesEveryTrack() async throws {
        let source = try #require(F.twoVideoTracks)
        let url = try ExportFixtures.output("two-video-tracks-copy.mov")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: url, type: .mov)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let exported = try await AVURLAsset(url: url).loadTracks(withMediaType: .video)
        #expect(exported.count == 2)
        #expect(exported.map { $0.timeRange.duration.seconds.rounded() } == [1, 2])
    }

    @Test(arguments: [(AVAssetExportPreset640x480, "subme=6"), (AVAssetExportPresetHighestQuality, "subme=7")])
    func thePresetsEncoderSpeedReachesTheEncoder(preset: String, option: String) async throws {
        // "fast" and "medium" differ in x264's subpixel refinement, which x264 records in the
        // stream's options SEI; the writer's default without a preset would be medium's.
        let source = try #require(F.twoVideoTracks)
        let url = try ExportFixtures.output("speed.mp4")
        let session = try await ExportFixtures.export(source, preset: preset, to: url, type: .mp4)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let bytes = try Data(contentsOf: url)
        let options = try #require(bytes.range(of: Data("x264 - core".utf8)).map { String(decoding: bytes[$0.lowerBound...].prefix(2000), as: UTF8.self) })
        #expect(options.contains(" \(option) "), "\(options.prefix(400))")
    }

    @Test func everyEnabledAudioTrackIsMixedAtTheRichestFormat() async throws {
        let source = try #require(F.twoAudioTracks)
        let url = try ExportFixtures.output("two-audio-tracks-out.m4a")
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetAppleM4A, to: url, type: .m4a)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let probe = try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,sample_rate,channels",
                                                      "-of", "csv=p=0", url.path]).output
        // One audio track: 48 kHz stereo (the stereo track's format, not the first track's mono 22.05 kHz).
        #expect(probe.split(separator: "\n").map(String.init) == ["audio,48000,2"])
        // Both tones are in it (the mix), and little else: a band away from both is quiet.
        let tone1 = try #require(try F.bandLevel(url, frequency: 440))
        let tone2 = try #require(try F.bandLevel(url, frequency: 660))
        let elsewhere = try #require(try F.bandLevel(url, frequency: 2000))
        #expect(tone1 > -30 && tone2 > -30, "\(tone1) dB, \(tone2) dB")
        #expect(elsewhere < min(tone1, tone2) - 20, "\(elsewhere) dB")
    }
}
