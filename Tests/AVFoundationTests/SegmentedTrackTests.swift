// A track made of segments from two files (one segment scaled 2×, one empty) read, thumbnailed
// and exported through the public reader, image generator and export session; every frame
// checked at its target time against ffmpeg's decode of the source frame.
@testable import AVFoundation
import CoreMedia
import CoreVideo
import Foundation
import Testing

/// Two 3 s, 10 fps, 64×64 H.264 clips (B-frames, a keyframe each second, an edit list for the
/// B-frame delay) whose frames each have their own flat colour, and ffmpeg's decode of them.
enum SegmentMedia {
    static let size = 64
    static let a: URL? = try? AssetFixtures.generate("a.mp4", clip(lum: "30+N*6", cb: "128+40*sin(N*1.3)", cr: "128+40*cos(N*0.9)"))
    static let b: URL? = try? AssetFixtures.generate("b.mp4", clip(lum: "210-N*6", cb: "128+40*cos(N*1.1)", cr: "128+40*sin(N*0.8)"))

    static func clip(lum: String, cb: String, cr: String) -> [String] {
        ["-f", "lavfi", "-i", "nullsrc=s=\(size)x\(size):r=10:d=3,format=yuv444p,geq=lum='\(lum)':cb='\(cb)':cr='\(cr)',format=yuv420p",
         "-c:v", "libx264", "-g", "10", "-bf", "2", "-crf", "10"]
    }

    /// The mean B, G, R of each frame as ffmpeg decodes it, in presentation order.
    static func referenceColours(_ url: URL) throws -> [[Double]] {
        let data = [UInt8](AudioReaderMedia.ffmpeg(["-i", url.path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "bgra", "-"]))
        let frame = size * size * 4
        return stride(from: 0, to: data.count - frame + 1, by: frame).map { start in
            mean(data[start..<(start + frame)].withUnsafeBufferPointer { $0 }, rowBytes: size * 4, width: size, height: size)
        }
    }

    /// The mean of the first three bytes of each 4-byte pixel.
    static func mean(_ bytes: UnsafeBufferPointer<UInt8>, rowBytes: Int, width: Int, height: Int) -> [Double] {
        var sums = [0.0, 0.0, 0.0]
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { sums[c] += Double(bytes[y * rowBytes + x * 4 + c]) }
            }
        }
        return sums.map { $0 / Double(width * height) }
    }

    static func seconds(_ s: Double) -> CMTime { CMTime(value: Int64((s * 1000).rounded()), timescale: 1000) }
    static func range(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: seconds(start), end: seconds(end)) }
}

/// One frame the segmented track must show: its target time and duration and the source frame.
struct ExpectedFrame: CustomStringConvertible {
    var time: Double
    var duration: Double
    var file: Int  // 0: A, 1: B
    var frame: Int
    var description: String { "\(["A", "B"][file])\(frame) at \(time)+\(duration)" }
}

@Suite("Tracks made of segments", .serialized)
struct SegmentedTrackTests {
    /// The timeline: A [0.55, 1.55) at [0, 1) (the edit cuts frames 5 and 15), B [1, 1.5)
    /// scaled 2× at [1, 2), nothing at [2, 2.5), A [0, 0.5) at [2.5, 3).
    static func makeAsset() async throws -> (AVAsset, [[[Double]]]) {
        let a = try #require(SegmentMedia.a), b = try #require(SegmentMedia.b)
        let trackA = try #require(try await AVURLAsset(url: a).loadTracks(withMediaType: .video).first)
        let trackB = try #require(try await AVURLAsset(url: b).loadTracks(withMediaType: .video).first)
        let r = SegmentMedia.range
        let segments = [
            MediaSegment(fileTrack: trackA, sourceRange: r(0.55, 1.55), targetRange: r(0, 1)),
            MediaSegment(fileTrack: trackB, sourceRange: r(1, 1.5), targetRange: r(1, 2)),
            MediaSegment(emptyTargetRange: r(2, 2.5)),
            MediaSegment(fileTrack: trackA, sourceRange: r(0, 0.5), targetRange: r(2.5, 3)),
        ]
        let asset = AVAsset(segmentedTracks: [(trackID: 1, segments: segments)])
        return (asset, [try SegmentMedia.referenceColours(a), try SegmentMedia.referenceColours(b)])
    }

    /// Every frame the timeline shows, in order.
    static let expected: [ExpectedFrame] = {
        var frames = [ExpectedFrame(time: 0, duration: 0.05, file: 0, frame: 5)]
        frames += (6...14).map { ExpectedFrame(time: 0.05 + 0.1 * Double($0 - 6), duration: 0.1, file: 0, frame: $0) }
        frames.append(ExpectedFrame(time: 0.95, duration: 0.05, file: 0, frame: 15))
        frames += (10...14).map { ExpectedFrame(time: 1 + 0.2 * Double($0 - 10), duration: 0.2, file: 1, frame: $0) }
        frames += (0...4).map { ExpectedFrame(time: 2.5 + 0.1 * Double($0), duration: 0.1, file: 0, frame: $0) }
        return frames
    }()

    /// Expects `colour` to be the source frame's (within codec loss) and nearer to it than to any
    /// other frame of its file.
    static func expectShows(_ colour: [Double], _ frame: ExpectedFrame, _ references: [[[Double]]],
                            sourceLocation: SourceLocation = #_sourceLocation) {
        func distance(_ x: [Double], _ y: [Double]) -> Double { zip(x, y).map { abs($0 - $1) }.max()! }
        let frames = references[frame.file]
        let nearest = frames.indices.min { distance(colour, frames[$0]) < distance(colour, frames[$1]) }
        #expect(nearest == frame.frame, "\(frame): the picture is nearest to frame \(nearest ?? -1)", sourceLocation: sourceLocation)
        #expect(distance(colour, frames[frame.frame]) < 6, "\(frame): colour \(colour) vs \(frames[frame.frame])",
                sourceLocation: sourceLocation)
    }

    @Test("the asset reports the segments' duration, time range and format")
    func assetProperties() async throws {
        let (asset, _) = try await Self.makeAsset()
        #expect(asset.duration.seconds == 3)
        let track = try #require(asset.tracks(withMediaType: .video).first)
        #expect(track.timeRange == SegmentMedia.range(0, 3))
        #expect(track.naturalSize == CGSize(width: 64, height: 64))
        #expect(track.nominalFrameRate == 10)
        #expect(track.formatDescriptions.count == 1)
        #expect(track.segments.count == 4 && track.segments[2].isEmpty)
        #expect(asset.isReadable && asset.isExportable && asset.isPlayable)
        #expect(asset.naturalSize == CGSize(width: 64, height: 64))
    }

    @Test("decoded reading gives every frame at its target time, cut at edits, scaled 2×, nothing in the gap")
    func decodedReading() async throws {
        let (asset, references) = try await Self.makeAsset()
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: try #require(asset.tracks.first),
                                              outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        reader.add(output)
        #expect(reader.startReading())
        var seen: [(CMTime, CMTime, [Double])] = []
        while let sample = output.copyNextSampleBuffer() {
            let buffer = try #require(CMSampleBufferGetImageBuffer(sample))
            CVPixelBufferLockBaseAddress(buffer, .readOnly)
            let base = try #require(CVPixelBufferGetBaseAddress(buffer)).assumingMemoryBound(to: UInt8.self)
            let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
            let colour = SegmentMedia.mean(UnsafeBufferPointer(start: base, count: rowBytes * 64), rowBytes: rowBytes, width: 64, height: 64)
            CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
            seen.append((CMSampleBufferGetPresentationTimeStamp(sample), CMSampleBufferGetDuration(sample), colour))
        }
        #expect(reader.status == .completed)
        try #require(seen.count == Self.expected.count, "\(seen.map { $0.0.seconds })")
        for (got, frame) in zip(seen, Self.expected) {
            #expect(abs(got.0.seconds - frame.time) < 1e-6 && abs(got.1.seconds - frame.duration) < 1e-6,
                    "\(frame): read at \(got.0.seconds)+\(got.1.seconds)")
            Self.expectShows(got.2, frame, references)
        }
    }

    @Test("a reader time range inside the timeline reads only the frames it overlaps")
    func decodedReadingOfARange() async throws {
        let (asset, references) = try await Self.makeAsset()
        let reader = try AVAssetReader(asset: asset)
        reader.timeRange = SegmentMedia.range(0.9, 2.6)
        let output = AVAssetReaderTrackOutput(track: try #require(asset.tracks.first),
                                              outputSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        reader.add(output)
        #expect(reader.startReading())
        var times: [Double] = []
        while let sample = output.copyNextSampleBuffer() {
            times.append((CMSampleBufferGetPresentationTimeStamp(sample).seconds * 1000).rounded() / 1000)
            if times.count == 1, let buffer = CMSampleBufferGetImageBuffer(sample) {
                CVPixelBufferLockBaseAddress(buffer, .readOnly)
                let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
                let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
                let colour = SegmentMedia.mean(UnsafeBufferPointer(start: base, count: rowBytes * 64), rowBytes: rowBytes, width: 64, height: 64)
                CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
                Self.expectShows(colour, Self.expected[9], references)
            }
        }
        #expect(times == [0.85, 0.95, 1.0, 1.2, 1.4, 1.6, 1.8, 2.5])
    }

    @Test("passthrough reading retimes stored samples by each segment; samples only needed for decoding are marked not to display")
    func passthroughReading() async throws {
        let (asset, _) = try await Self.makeAsset()
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: try #require(asset.tracks.first), outputSettings: nil)
        reader.add(output)
        #expect(reader.startReading())
        var shown: [Double] = []
        var hidden = 0
        var scaledDurations: [Double] = []
        while let sample = output.copyNextSampleBuffer() {
            #expect(CMSampleBufferGetDataBuffer(sample) != nil)
            let pts = CMSampleBufferGetPresentationTimeStamp(sample).seconds
            let attachments = CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: false) as? [NSDictionary]
            if (attachments?.first?[kCMSampleAttachmentKey_DoNotDisplay] as? NSNumber)?.boolValue == true {
                hidden += 1
                continue
            }
            shown.append((pts * 1000).rounded() / 1000)
            if pts >= 1 && pts < 2 { scaledDurations.append(CMSampleBufferGetDuration(sample).seconds) }
        }
        #expect(reader.status == .completed)
        // Segment 1 starts mid-frame: frame 5 keeps its mapped time (stored samples are not cut).
        var want: [Double] = [-0.05]
        for k in 6...15 { want.append(0.05 + 0.1 * Double(k - 6)) }
        for k in 10...14 { want.append(1 + 0.2 * Double(k - 10)) }
        for k in 0...4 { want.append(2.5 + 0.1 * Double(k)) }
        let rounded = want.map { ($0 * 1000).rounded() / 1000 }
        #expect(shown.sorted() == rounded)
        #expect(hidden > 0, "the keyframe lead-in of segments 1 and 2 is read for decoding")
        #expect(scaledDurations.count == 5 && scaledDurations.allSatisfy { abs($0 - 0.2) < 1e-6 })
    }

    @Test("exact thumbnails on either side of each edit show the right source frame at the right target time")
    func exactThumbnails() async throws {
        let (asset, references) = try await Self.makeAsset()
        let generator = AVAssetImageGenerator(asset: asset)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        // Requested time → expected frame (by its index in `expected`).
        let cases: [(Double, Int)] = [(0, 0), (0.049, 0), (0.05, 1), (0.5, 5), (0.999, 10), (1.0, 11), (1.3, 12), (1.999, 15),
                                      (2.5, 16), (2.55, 16), (2.999, 20)]
        for (t, n) in cases {
            var actual = CMTime.invalid
            let image = try generator.copyCGImage(at: SegmentMedia.seconds(t), actualTime: &actual)
            let frame = Self.expected[n]
            #expect(abs(actual.seconds - frame.time) < 1e-6, "at \(t): actual \(actual.seconds), expected \(frame)")
            let data = [UInt8](image.dataProvider!.data! as Data)
            let colour = data.withUnsafeBufferPointer {
                SegmentMedia.mean($0, rowBytes: image.bytesPerRow, width: image.width, height: image.height)
            }
            Self.expectShows(colour, frame, references)
        }
        // A time in the empty segment has no image at zero tolerance.
        for t in [2.0, 2.3, 2.499] {
            #expect {
                try generator.copyCGImage(at: SegmentMedia.seconds(t), actualTime: nil)
            } throws: { error in
                (error as? AVError)?.code == .noImageAtTime
            }
        }
        // With tolerance, the nearest frame of a neighbouring segment.
        generator.requestedTimeToleranceBefore = SegmentMedia.seconds(0.2)
        generator.requestedTimeToleranceAfter = SegmentMedia.seconds(0.2)
        var actual = CMTime.invalid
        _ = try generator.copyCGImage(at: SegmentMedia.seconds(2.05), actualTime: &actual)
        #expect(abs(actual.seconds - 1.8) < 1e-6)
        _ = try generator.copyCGImage(at: SegmentMedia.seconds(2.4), actualTime: &actual)
        #expect(abs(actual.seconds - 2.5) < 1e-6)
    }

    @Test("a re-encoding export writes every frame at its target time")
    func reencodingExport() async throws {
        let (asset, references) = try await Self.makeAsset()
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetHighestQuality))
        let out = try AssetFixtures.tempDirectory().appendingPathComponent("segments.mp4")
        session.outputURL = out
        session.outputFileType = .mp4
        await session.export()
        try #require(session.status == .completed, "\(String(describing: session.error))")
        // ffmpeg's view of the output: each frame's time and colour.
        let times = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time",
                                                      "-of", "csv=p=0", out.path]).output
            .split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        let colours = try SegmentMedia.referenceColours(out)
        try #require(times.count == Self.expected.count && colours.count == Self.expected.count, "\(times)")
        for ((time, colour), frame) in zip(zip(times, colours), Self.expected) {
            #expect(abs(time - frame.time) < 0.001, "\(frame): written at \(time)")
            Self.expectShows(colour, frame, references)
        }
        // The movie and its stream last 3 s for ffmpeg and for AVURLAsset: the frame before the
        // gap is shown through it, the last one until 3 s (the media's sample durations add up to
        // the whole presentation, not 2.95 s as the encoder's reorder delay left them).
        let durations = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries",
                                                          "stream=duration:format=duration", "-of", "csv=p=0", out.path]).output
            .split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        #expect(durations.count == 2 && durations.allSatisfy { abs($0 - 3) < 0.001 }, "\(durations)")
        let written = AVURLAsset(url: out)
        let writtenDuration = try await written.load(.duration)
        #expect(writtenDuration.seconds == 3)
        let track = try #require(try await written.loadTracks(withMediaType: .video).first)
        let timeRange = try await track.load(.timeRange)
        #expect(timeRange == CMTimeRange(start: .zero, duration: writtenDuration), "\(timeRange.start.seconds)+\(timeRange.duration.seconds)")
        let segments = try await track.load(.segments)
        #expect(segments.count == 1 && segments.first?.timeMapping.target.duration.seconds == 3, "\(segments.map(\.timeMapping))")
    }
}

@Suite("Audio tracks made of segments")
struct SegmentedAudioTests {
    /// Two mono 48 kHz PCM files of 2 s: 300 Hz and a 50 Hz tone with an offset.
    static let a = AudioReaderMedia.make("seg-a.wav", ["-f", "lavfi", "-i", "aevalsrc=0.4*sin(2*PI*300*t):s=48000:d=2", "-c:a", "pcm_s16le"])
    static let b = AudioReaderMedia.make("seg-b.wav", ["-f", "lavfi", "-i", "aevalsrc=0.1+0.4*sin(2*PI*50*t):s=48000:d=2",
                                                       "-c:a", "pcm_s16le"])

    /// Track 1 of both tests: A [0.5, 1) at [0, 0.5), a gap, B [0, 0.25) at [0.75, 1).
    static func firstTrack() async throws -> [MediaSegment] {
        let trackA = try #require(try await AVURLAsset(url: a).loadTracks(withMediaType: .audio).first)
        let trackB = try #require(try await AVURLAsset(url: b).loadTracks(withMediaType: .audio).first)
        let r = SegmentMedia.range
        return [MediaSegment(fileTrack: trackA, sourceRange: r(0.5, 1), targetRange: r(0, 0.5)),
                MediaSegment(emptyTargetRange: r(0.5, 0.75)),
                MediaSegment(fileTrack: trackB, sourceRange: r(0, 0.25), targetRange: r(0.75, 1))]
    }

    /// A PCM buffer's start (in 1/48000 s) and its float samples.
    static func floats(_ buffer: CMSampleBuffer) throws -> (Int64, [Float]) {
        let start = CMTimeConvertScale(CMSampleBufferGetPresentationTimeStamp(buffer), timescale: 48000, method: .default).value
        let block = try #require(CMSampleBufferGetDataBuffer(buffer))
        var floats = [Float](repeating: 0, count: CMBlockBufferGetDataLength(block) / 4)
        floats.withUnsafeMutableBytes { _ = CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
        return (start, floats)
    }

    /// Reads `tracks` of `asset` mixed, as float mono: the samples placed by their buffers' times.
    static func mixed(_ asset: AVAsset, _ tracks: [AVAssetTrack], frames: Int,
                      algorithm: AVAudioTimePitchAlgorithm = .spectral) throws -> (samples: [Float], starts: [Int64]) {
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: nil)
        output.audioTimePitchAlgorithm = algorithm
        reader.add(output)
        #expect(reader.startReading())
        var samples = [Float](repeating: .nan, count: frames)
        var starts: [Int64] = []
        while let buffer = output.copyNextSampleBuffer() {
            let (start, floats) = try Self.floats(buffer)
            starts.append(start)
            for (i, v) in floats.enumerated() where Int(start) + i < frames && start + Int64(i) >= 0 { samples[Int(start) + i] = v }
        }
        #expect(reader.status == .completed)
        return (samples, starts)
    }

    @Test("two segmented tracks mix sample-exactly at their edits; a 2× segment is resampled to twice its length (Varispeed)")
    func mixedSegments() async throws {
        let trackB = try #require(try await AVURLAsset(url: Self.b).loadTracks(withMediaType: .audio).first)
        // Track 2: B [1, 1.25) at [0.5, 1), played at half speed.
        let slowB = MediaSegment(fileTrack: trackB, sourceRange: SegmentMedia.range(1, 1.25), targetRange: SegmentMedia.range(0.5, 1))
        let asset = AVAsset(segmentedTracks: [(trackID: 1, segments: try await Self.firstTrack()), (trackID: 2, segments: [slowB])])
        #expect(asset.duration.seconds == 1)
        let sourceA = AssetReaderAudioMixTests.source(Self.a, stream: 0), sourceB = AssetReaderAudioMixTests.source(Self.b, stream: 0)
        try #require(sourceA.count == 96000 && sourceB.count == 96000)
        let (mix, _) = try Self.mixed(asset, asset.tracks, frames: 48000, algorithm: .varispeed)
        // Where only unscaled segments play, the mix is the source samples exactly.
        for i in 0..<24000 { if mix[i] != sourceA[24000 + i] { Issue.record("sample \(i): \(mix[i]) ≠ A[\(24000 + i)]"); break } }
        // Half speed: target sample i of track 2 is source position 48000 + (i - 24000) / 2.
        var worst: Float = 0
        for i in 24000..<48000 {
            let p = Double(i - 24000) / 2, k = Int(p), f = Float(p - Double(k))
            let slow = sourceB[48000 + k] * (1 - f) + sourceB[48000 + k + 1] * f
            let unscaled: Float = i >= 36000 ? sourceB[i - 36000] : 0
            worst = max(worst, abs(mix[i] - (slow + unscaled)))
        }
        #expect(worst < 0.01, "largest difference \(worst)")
        // The second file's samples start exactly at 0.75 s: the sample before is silence in track 1.
        let slowAt = { (i: Int) -> Float in sourceB[48000 + (i - 24000) / 2] }
        #expect(abs(mix[36000] - (sourceB[0] + slowAt(36000))) < 0.01 && abs(mix[35999] - slowAt(35999)) < 0.01)
    }

    @Test("one segmented track through a track output: blocks placed sample-exactly, nothing for the gap")
    func trackOutputSegments() async throws {
        let asset = AVAsset(segmentedTracks: [(trackID: 1, segments: try await Self.firstTrack())])
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: try #require(asset.tracks.first), outputSettings: AudioReaderMedia.pcm(bits: 32, float: true))
        reader.add(output)
        #expect(reader.startReading())
        var placed: [(Int64, [Float])] = []
        while let buffer = output.copyNextSampleBuffer() { placed.append(try Self.floats(buffer)) }
        #expect(reader.status == .completed)
        let sourceA = AssetReaderAudioMixTests.source(Self.a, stream: 0), sourceB = AssetReaderAudioMixTests.source(Self.b, stream: 0)
        let first = placed.filter { $0.0 < 24000 }, second = placed.filter { $0.0 >= 24000 }
        #expect(first.first?.0 == 0 && second.first?.0 == 36000)
        #expect(first.flatMap(\.1) == Array(sourceA[24000..<48000]))
        #expect(second.flatMap(\.1) == Array(sourceB[0..<12000]))
    }

    /// Reads `asset`'s first track as float mono through a track output; `afterFirst` runs once
    /// the first buffer is in.
    static func trackFloats(_ asset: AVAsset, afterFirst: () throws -> Void = {}) throws -> [(Int64, [Float])] {
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: try #require(asset.tracks.first), outputSettings: AudioReaderMedia.pcm(bits: 32, float: true))
        reader.add(output)
        #expect(reader.startReading())
        var placed: [(Int64, [Float])] = []
        while let buffer = output.copyNextSampleBuffer() {
            placed.append(try Self.floats(buffer))
            if placed.count == 1 { try afterFirst() }
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        return placed
    }

    @Test("one stream in several segments is read by one reader, repositioned at each: reading goes on after its file is removed, and an AAC piece read after a reposition is the piece read fresh")
    func oneStreamRepositionedNotReopened() async throws {
        let dir = try AssetFixtures.tempDirectory()
        let wav = dir.appendingPathComponent("reused.wav"), m4a = dir.appendingPathComponent("reused.m4a")
        try FileManager.default.copyItem(at: Self.a, to: wav)
        try FileManager.default.copyItem(at: AudioReaderMedia.aacChirp, to: m4a)
        let r = SegmentMedia.range
        // A [0.5, 1) at [0, 0.5), then A [0.1, 0.35) at [0.5, 0.75): the file is gone by then.
        let trackA = try #require(try await AVURLAsset(url: wav).loadTracks(withMediaType: .audio).first)
        let asset = AVAsset(segmentedTracks: [(trackID: 1, segments: [
            MediaSegment(fileTrack: trackA, sourceRange: r(0.5, 1), targetRange: r(0, 0.5)),
            MediaSegment(fileTrack: trackA, sourceRange: r(0.1, 0.35), targetRange: r(0.5, 0.75)),
        ])])
        let placed = try Self.trackFloats(asset) { try FileManager.default.removeItem(at: wav) }
        let sourceA = AssetReaderAudioMixTests.source(Self.a, stream: 0)
        let firstPiece = placed.filter { $0.0 < 24000 }.flatMap(\.1), secondPiece = placed.filter { $0.0 >= 24000 }.flatMap(\.1)
        #expect((firstPiece == Array(sourceA[24000..<48000])) as Bool, "the first piece: \(firstPiece.count) frames")
        #expect(placed.first { $0.0 >= 24000 }?.0 == 24000)
        #expect((secondPiece == Array(sourceA[4800..<16800])) as Bool, "the second piece: \(secondPiece.count) frames")

        // AAC (priming, overlapping transforms): [1.5, 2) after [0.2, 0.7) of the same stream
        // equals [1.5, 2) read by a reader of its own.
        let trackC = try #require(try await AVURLAsset(url: m4a).loadTracks(withMediaType: .audio).first)
        let both = AVAsset(segmentedTracks: [(trackID: 1, segments: [
            MediaSegment(fileTrack: trackC, sourceRange: r(0.2, 0.7), targetRange: r(0, 0.5)),
            MediaSegment(fileTrack: trackC, sourceRange: r(1.5, 2), targetRange: r(0.5, 1)),
        ])])
        let alone = AVAsset(segmentedTracks: [(trackID: 1, segments: [
            MediaSegment(fileTrack: trackC, sourceRange: r(1.5, 2), targetRange: r(0.5, 1)),
        ])])
        let second = try Self.trackFloats(both).filter { $0.0 >= 22050 }.flatMap(\.1)
        let fresh = try Self.trackFloats(alone).flatMap(\.1)
        #expect((second.count == 22050 && second == fresh) as Bool, "\(second.count) frames, \(fresh.count) read fresh")
    }
}
