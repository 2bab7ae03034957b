// Exporting compositions: the book's cuts-only "15 Seconds" export (A11) re-encoded, judged by
// ffprobe and ffmpeg's decode; and the passthrough of a cuts-only composition with a gap, written
// with a multi-entry edit list — ffprobe and our reader agree on every frame time, and every
// packet written is a source packet byte for byte.
@testable import AVFoundation
import CoreMedia
import Foundation
import Testing

/// Clips for passthrough: 320×240 30 fps H.264, a keyframe every 0.5 s, no B-frames (timescale
/// 600) and AAC audio, the same encoder settings, different pictures, so every packet differs.
enum PassthroughMedia {
    static func clip(_ name: String, _ source: String, _ tone: Int) -> URL? {
        try? AssetFixtures.generate(name, [
            "-f", "lavfi", "-i", "\(source)=s=320x240:r=30:d=6", "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=44100:duration=6",
            "-c:v", "libx264", "-preset", "veryfast", "-g", "15", "-bf", "0", "-pix_fmt", "yuv420p", "-video_track_timescale", "600",
            "-c:a", "aac", "-b:a", "96k", "-shortest",
        ])
    }

    static let a = clip("pass-a.mp4", "testsrc2", 440)
    static let b = clip("pass-b.mp4", "testsrc", 880)

    /// ffprobe's view of a stream: one line per packet or frame with the asked entries.
    static func probe(_ url: URL, stream: String, _ args: [String]) throws -> [String] {
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", stream] + args + ["-of", "csv=p=0", url.path]).output
        return out.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ", ")) }.filter { !$0.isEmpty }
    }

    /// The MD5 of each packet of a stream.
    static func packetHashes(_ url: URL, stream: String) throws -> [String] {
        try probe(url, stream: stream, ["-show_data_hash", "MD5", "-show_entries", "packet=data_hash"])
    }

    /// The presentation times of the decoded frames of the video, as ffprobe gives them (ms).
    static func ffprobeFrameTimes(_ url: URL) throws -> [Int] {
        try probe(url, stream: "v:0", ["-show_entries", "frame=best_effort_timestamp_time"]).compactMap { Double($0) }
            .map { Int(($0 * 1000).rounded()) }
    }

    /// The presentation times of the decoded frames of the first video track through our reader (ms).
    static func readerFrameTimes(_ asset: AVAsset) async throws -> [Int] {
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        reader.add(output)
        #expect(reader.startReading())
        var times: [Int] = []
        while let buffer = output.copyNextSampleBuffer() {
            times.append(Int((CMSampleBufferGetPresentationTimeStamp(buffer).seconds * 1000).rounded()))
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        return times
    }
}

@Suite("Composition export", .serialized)
struct CompositionExportTests {
    typealias M = CompositionMedia

    /// Exports `asset` and watches its progress.
    static func export(_ asset: AVAsset, preset: String, to url: URL) async throws -> (AVAssetExportSession, [Float]) {
        let session = try #require(AVAssetExportSession(asset: asset, presetName: preset))
        session.outputURL = url
        session.outputFileType = .mp4
        let seen = ValueLog()
        let watcher = Task.detached {
            while !Task.isCancelled {
                seen.append(session.progress)
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
        }
        await session.export()
        watcher.cancel()
        _ = await watcher.value
        seen.append(session.progress)
        return (session, seen.values)
    }

    /// The colour (R, G, B) ffmpeg decodes at `time` from the middle of the picture.
    static func decodedColour(_ url: URL, at time: Double) throws -> [Double] {
        let data = AudioReaderMedia.ffmpeg(["-v", "error", "-ss", String(time), "-i", url.path, "-frames:v", "1",
                                             "-vf", "scale=16:9", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let centre = (4 * 16 + 8) * 3
        guard data.count >= centre + 3 else { return [] }
        return (0..<3).map { Double(data[data.startIndex + centre + $0]) }
    }

    // MARK: A11

    @Test func cutsOnlyFifteenSecondsExportsByReencoding() async throws {
        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let voiceOver = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        let music = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        var cursor = CMTime.zero
        for clip in [M.red, M.green, M.blue] {
            try video.insertTimeRange(M.range(0, 5), of: try await M.track(clip, .video), at: cursor)
            cursor = cursor + M.seconds(5)
        }
        try voiceOver.insertTimeRange(M.range(0, 3), of: try await M.track(M.voiceOver, .audio), at: M.seconds(2))
        try music.insertTimeRange(M.range(0, 15), of: try await M.track(M.music, .audio), at: .zero)
        #expect(composition.tracks.count == 3)
        #expect(composition.duration == M.seconds(15))
        #expect(M.ranges(voiceOver) == ["empty 0.0-2.0", "0.0-3.0→2.0-5.0"])

        let out = try ExportFixtures.output("Masterpiece-.m4v")
        let (session, progress) = try await Self.export(try #require(composition.copy() as? AVComposition),
                                                        preset: AVAssetExportPresetHighestQuality, to: out)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(progress == progress.sorted())
        #expect(progress.last == 1)
        let duration = try #require(Double(try AssetFixtures.probe(out, "format=duration")))
        #expect(abs(duration - 15) <= 1.0 / 30 + 0.001)
        let streams = try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", out.path]).output
        #expect(streams.split(separator: "\n").sorted() == ["audio", "video"])
        // ffmpeg decodes the export where each clip shows as it decodes the clip itself (and
        // the clip's own colour dominates).
        for (time, clip, channel) in [(2.5, M.red, 0), (7.5, M.green, 1), (12.5, M.blue, 2)] {
            let written = try Self.decodedColour(out, at: time), source = try Self.decodedColour(try #require(clip), at: 2.5)
            #expect(written.count == 3 && zip(written, source).allSatisfy { abs($0 - $1) <= 8 }, "at \(time) s: \(written) vs \(source)")
            #expect(written.indices.allSatisfy { $0 == channel ? written[$0] > 100 : written[$0] < 30 }, "at \(time) s: \(written)")
        }
    }

    // MARK: Passthrough

    @Test func passthroughOfACutsOnlyCompositionCopiesPacketsWithEditLists() async throws {
        let a = AVURLAsset(url: try #require(PassthroughMedia.a)), b = AVURLAsset(url: try #require(PassthroughMedia.b))
        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let audio = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        let va = try #require(try await a.loadTracks(withMediaType: .video).first), vb = try #require(try await b.loadTracks(withMediaType: .video).first)
        let aa = try #require(try await a.loadTracks(withMediaType: .audio).first), ab = try #require(try await b.loadTracks(withMediaType: .audio).first)
        // A from mid-GOP, a gap of 0.5 s, B, and A again: cuts on frame boundaries, not on keyframes.
        try video.insertTimeRange(M.range(0.5, 2), of: va, at: .zero)
        try video.insertTimeRange(M.range(1, 2.5), of: vb, at: M.seconds(2))
        try video.insertTimeRange(M.range(3, 4), of: va, at: M.seconds(3.5))
        try audio.insertTimeRange(M.range(0.5, 2), of: aa, at: .zero)
        try audio.insertTimeRange(M.range(1, 2.5), of: ab, at: M.seconds(2))
        #expect(M.ranges(video) == ["0.5-2.0→0.0-1.5", "empty 1.5-2.0", "1.0-2.5→2.0-3.5", "3.0-4.0→3.5-4.5"])

        #expect(AVAssetExportSession.exportPresets(compatibleWith: composition).contains(AVAssetExportPresetPassthrough))
        let out = try ExportFixtures.output("composition-passthrough.mp4")
        let (session, progress) = try await Self.export(composition, preset: AVAssetExportPresetPassthrough, to: out)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(progress.last == 1)

        // Every frame where the composition shows it: 45 of A, the gap, 45 of B, 30 of A.
        let frames = { (start: Double, count: Int) in (0..<count).map { Int(((start + Double($0) / 30) * 1000).rounded()) } }
        let expected = frames(0, 45) + frames(2, 45) + frames(3.5, 30)
        // ffprobe and our reader of the file agree on every frame time, and every frame of the
        // composition is there at its time. (FFmpeg 5.1's mov demuxer, under both, plays media
        // through an empty edit that is not the first: the frames it shows inside the gap
        // [1.5, 2) are left out of the comparison with the composition.)
        let probed = try PassthroughMedia.ffprobeFrameTimes(out)
        let read = try await PassthroughMedia.readerFrameTimes(AVURLAsset(url: out))
        #expect(read == probed)
        let outsideGap = probed.filter { $0 < 1500 || $0 >= 2000 }
        #expect(outsideGap.count == expected.count)
        #expect(zip(outsideGap, expected).allSatisfy { abs($0 - $1) <= 1 }, "\(probed)")
        #expect(try await PassthroughMedia.readerFrameTimes(composition).count == expected.count)
        let duration = try #require(Double(try AssetFixtures.probe(out, "format=duration")))
        #expect(abs(duration - 4.5) < 0.001)

        // Packets copied, not decoded: each one is a source packet byte for byte.
        for stream in ["v:0", "a:0"] {
            let source = Set(try PassthroughMedia.packetHashes(try #require(PassthroughMedia.a), stream: stream)
                             + PassthroughMedia.packetHashes(try #require(PassthroughMedia.b), stream: stream))
            let written = try PassthroughMedia.packetHashes(out, stream: stream)
            #expect(!written.isEmpty)
            #expect(written.allSatisfy(source.contains), "stream \(stream)")
        }
        // The edit list: a media edit per piece and an empty edit for the gap.
        // The edit list: a media edit per piece, an empty edit for the gap; the media is the
        // pieces one after another (keyframe-aligned here, so each starts where the last ended).
        let segments = try #require(try await AVURLAsset(url: out).loadTracks(withMediaType: .video).first).segments
        #expect(segments.map(\.isEmpty) == [false, true, false, false])
        #expect(segments.map { $0.timeMapping.target.duration.seconds } == [1.5, 0.5, 1.5, 1.0])
        #expect(segments.filter { !$0.isEmpty }.map { $0.timeMapping.source.start.seconds } == [0, 1.5, 3])
    }

    @Test func passthroughRefusesSegmentsFromIncompatibleSources() async throws {
        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try video.insertTimeRange(M.range(0, 1), of: try await M.track(M.red, .video), at: .zero)
        try video.insertTimeRange(M.range(0, 1), of: try await M.track(PassthroughMedia.a, .video), at: M.seconds(1))
        let out = try ExportFixtures.output("mixed-passthrough.mp4")
        let (session, _) = try await Self.export(composition, preset: AVAssetExportPresetPassthrough, to: out)
        #expect(session.status == .failed)
        let error = try #require(session.error as? AVError)
        #expect(error.code == .operationNotSupportedForPreset)
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
