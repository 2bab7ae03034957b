// AVMutableComposition, AVMutableCompositionTrack, AVCompositionTrackSegment: the book's basic
// recipe (A10), every edit's segments checked exactly, track IDs, validation, copies and errors;
// frames judged by colour through the image generator, audio through the reader.
@testable import AVFoundation
import CoreGraphics
import CoreMedia
import Foundation
import Testing

/// Generated media for compositions: solid-colour 1280×720 30 fps H.264 clips with timescale 600
/// (6 s: the book trims 5 s of each), a 440 Hz "music" sine at amplitude 0.5 (16 s) and a 1 kHz
/// "voice-over" (3 s), both AAC.
enum CompositionMedia {
    static func clip(_ colour: String) -> URL? {
        try? AssetFixtures.generate("\(colour).mp4", [
            "-f", "lavfi", "-i", "color=c=\(colour):s=1280x720:r=30:d=6", "-vf", "scale=out_color_matrix=bt709,format=yuv420p",
            "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
            "-c:v", "libx264", "-preset", "ultrafast", "-video_track_timescale", "600",
        ])
    }

    static let red = clip("red")
    static let green = clip("green")
    static let blue = clip("blue")
    static let music: URL? = try? AssetFixtures.generate("music.m4a", [
        "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t):s=44100:d=16", "-c:a", "aac", "-b:a", "128k",
    ])
    static let voiceOver: URL? = try? AssetFixtures.generate("vo.m4a", [
        "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=44100:d=3", "-c:a", "aac", "-b:a", "128k",
    ])

    static func seconds(_ s: Double) -> CMTime { CMTime(value: Int64((s * 600).rounded()), timescale: 600) }
    static func range(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: seconds(start), end: seconds(end)) }

    static func track(_ url: URL?, _ type: AVMediaType) async throws -> AVAssetTrack {
        let url = try #require(url)
        return try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: type).first)
    }

    /// The mean colour (R, G, B, 0–255) of the middle of an image.
    static func colour(_ image: CGImage) -> [Double] {
        let w = 16, h = 9
        var pixels = [UInt8](repeating: 0, count: w * h * 4)
        pixels.withUnsafeMutableBytes { raw in
            let context = CGContext(data: raw.baseAddress, width: w, height: h, bitsPerComponent: 8, bytesPerRow: w * 4,
                                    space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
            context?.draw(image, in: CGRect(x: 0, y: 0, width: w, height: h))
        }
        let centre = ((h / 2) * w + w / 2) * 4
        return (0..<3).map { Double(pixels[centre + $0]) }
    }

    /// Whether `rgb` is the named primary within lossy tolerance.
    static func isColour(_ rgb: [Double], _ name: String) -> Bool {
        let want: [Double] = switch name {
        case "red": [255, 0, 0]
        case "green": [0, 128, 0]  // ffmpeg's "green" is #008000
        default: [0, 0, 255]
        }
        let ok = zip(rgb, want).allSatisfy { abs($0 - $1) <= 8 }
        if !ok { print("colour \(rgb) is not \(name)") }
        return ok
    }

    /// The composition's frame at `time` through the image generator.
    static func frameColour(_ asset: AVAsset, at time: Double) async throws -> [Double] {
        let generator = AVAssetImageGenerator(asset: asset)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let (image, _) = try await generator.image(at: seconds(time))
        return colour(image)
    }

    /// The RMS of a composition audio track per whole second, read as float PCM by the reader.
    static func rmsPerSecond(_ asset: AVAsset, track: AVAssetTrack) throws -> [Double] {
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
            AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true,
            AVLinearPCMIsBigEndianKey: false, AVLinearPCMIsNonInterleaved: false, AVNumberOfChannelsKey: 1, AVSampleRateKey: 44100,
        ])
        reader.add(output)
        #expect(reader.startReading())
        var sums: [Double] = [], counts: [Int] = []
        while let buffer = output.copyNextSampleBuffer() {
            let start = CMSampleBufferGetPresentationTimeStamp(buffer).seconds
            guard let block = CMSampleBufferGetDataBuffer(buffer) else { continue }
            var data = Data(count: CMBlockBufferGetDataLength(block))
            data.withUnsafeMutableBytes { _ = CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
            for (i, sample) in AudioReaderMedia.floats(data).enumerated() {
                let second = Int(start + Double(i) / 44100)
                while sums.count <= second { sums.append(0); counts.append(0) }
                sums[second] += Double(sample * sample)
                counts[second] += 1
            }
        }
        #expect(reader.status == .completed)
        return zip(sums, counts).map { $1 > 0 ? ($0 / Double($1)).squareRoot() : 0 }
    }

    /// The synchronous insertion of an asset (an async caller gets the async overload, as on Apple's SDK).
    static func insert(_ range: CMTimeRange, of asset: AVAsset, at time: CMTime, into composition: AVMutableComposition) throws {
        try composition.insertTimeRange(range, of: asset, at: time)
    }

    /// A segment's source and target ranges in seconds, for comparing timelines.
    static func ranges(_ track: AVAssetTrack) -> [String] {
        track.segments.map { segment in
            let m = segment.timeMapping
            let target = "\(m.target.start.seconds)-\(m.target.end.seconds)"
            return segment.isEmpty ? "empty \(target)" : "\(m.source.start.seconds)-\(m.source.end.seconds)→\(target)"
        }
    }
}

@Suite("Compositions", .serialized)
struct CompositionTests {
    typealias M = CompositionMedia

    // MARK: A10, the basic recipe

    @Test func basicRecipeHasTwoVideoSegmentsRedThenGreenAndAudioThroughout() async throws {
        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let audio = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        #expect(video.trackID == 1)
        #expect(audio.trackID == 2)
        let first = M.range(0, 5)
        try video.insertTimeRange(first, of: try await M.track(M.red, .video), at: .zero)
        try video.insertTimeRange(first, of: try await M.track(M.green, .video), at: M.seconds(5))
        try audio.insertTimeRange(CMTimeRange(start: .zero, duration: composition.duration), of: try await M.track(M.music, .audio), at: .zero)

        #expect(composition.duration == M.seconds(10))
        #expect(try await composition.load(.duration) == M.seconds(10))
        let tracks: [AVMutableCompositionTrack] = try await composition.load(.tracks)
        #expect(tracks.map(\.trackID) == [1, 2])
        #expect(composition.tracks(withMediaType: .video).count == 1)
        #expect(video.segments.count == 2)
        #expect(audio.segments.count == 1)
        #expect(M.ranges(video) == ["0.0-5.0→0.0-5.0", "0.0-5.0→5.0-10.0"])
        let segment = video.segments[1]
        #expect(segment.sourceURL == M.green)
        #expect(segment.sourceTrackID == 1)
        #expect(!segment.isEmpty)

        // What everything that takes an asset sees: the image generator and the reader.
        let snapshot = try #require(composition.copy() as? AVComposition)
        #expect(M.isColour(try await M.frameColour(snapshot, at: 2.5), "red"))
        #expect(M.isColour(try await M.frameColour(snapshot, at: 7.5), "green"))
        #expect(M.isColour(try await M.frameColour(composition, at: 7.5), "green"))
        let rms = try M.rmsPerSecond(snapshot, track: try #require(snapshot.track(withTrackID: 2)))
        #expect(rms.count == 10)
        for (second, value) in rms.enumerated() {
            #expect(abs(value - 0.5 / 2.0.squareRoot()) < 0.03, "second \(second): RMS \(value)")
        }
    }

    // MARK: Apple's types

    /// Code written against Apple's SDK uses the composition's own track and segment types
    /// without casts: `tracks`, `tracks(withMediaType:)`, `loadTracks(withMediaType:)` give
    /// mutable tracks on a mutable composition and composition tracks on a snapshot; `segments`
    /// gives `AVCompositionTrackSegment`s and is settable on a mutable track. Seen as an
    /// `AVAsset`, the same tracks come back as `AVAssetTrack`s.
    @Test func tracksAndSegmentsHaveApplesTypes() async throws {
        let composition = AVMutableComposition()
        let added = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try added.insertTimeRange(M.range(0, 2), of: try await M.track(M.red, .video), at: .zero)
        let all: [AVMutableCompositionTrack] = composition.tracks
        let video: [AVMutableCompositionTrack] = composition.tracks(withMediaType: .video)
        let visual: [AVMutableCompositionTrack] = composition.tracks(withMediaCharacteristic: .visual)
        let loaded: [AVMutableCompositionTrack] = try await composition.loadTracks(withMediaType: .video)
        #expect(all.count == 1 && video.count == 1 && visual.count == 1 && loaded.count == 1)
        #expect(all[0] === added && loaded[0] === added)
        let track = try #require(composition.tracks(withMediaType: .video).first)
        let segments: [AVCompositionTrackSegment] = track.segments
        #expect(segments.map(\.sourceURL) == [M.red])
        // Set segments: the same media twice, laid end to end.
        let again = AVCompositionTrackSegment(url: try #require(M.red), trackID: 1, sourceTimeRange: M.range(0, 2), targetTimeRange: M.range(2, 4))
        track.segments = segments + [again]
        #expect(track.segments.count == 2)
        #expect(composition.duration == M.seconds(4))

        let snapshot = try #require(composition.copy() as? AVComposition)
        let snapshotTracks: [AVCompositionTrack] = snapshot.tracks(withMediaType: .video)
        let snapshotSegments: [AVCompositionTrackSegment] = try #require(snapshotTracks.first).segments
        #expect(snapshotSegments.count == 2)
        let loadedSegments: [AVCompositionTrackSegment] = try await #require(snapshotTracks.first).load(.segments)
        #expect(loadedSegments.count == 2)
        let loadedSnapshot: [AVCompositionTrack] = try await snapshot.loadTracks(withMediaType: .video)
        #expect(loadedSnapshot.count == 1)

        // Through the base class: the same tracks, as AVAssetTracks.
        let asset: AVAsset = composition
        let assetTracks: [AVAssetTrack] = asset.tracks(withMediaType: .video)
        #expect(assetTracks.first === added)
        #expect(asset.tracks.count == 1)
        let baseSegments: [AVAssetTrackSegment] = try #require(assetTracks.first).segments
        #expect(baseSegments.count == 2 && baseSegments[1] is AVCompositionTrackSegment)
        let done = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            composition.loadTracks(withMediaType: .video) { tracks, _ in continuation.resume(returning: tracks?.count ?? -1) }
        }
        #expect(done == 1)
    }

    // MARK: Track IDs

    @Test func trackIDsAreAssignedInCreationOrderAndPreferredOnesHonoured() throws {
        let composition = AVMutableComposition()
        let a = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let b = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: 7))
        let c = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: 7))  // in use: a new ID
        let d = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        #expect([a, b, c, d].map(\.trackID) == [1, 7, 8, 9])
        #expect(composition.track(withTrackID: 7) === b)
        #expect(composition.tracks.count == 4)

        composition.removeTrack(b)
        #expect(composition.track(withTrackID: 7) == nil)
        #expect(composition.tracks.map(\.trackID) == [1, 8, 9])
        let e = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        #expect(e.trackID == 10)
        #expect(composition.tracks(withMediaType: .audio).map(\.trackID) == [8])
    }

    @Test func mutableTrackCompatibleWithFindsATrackOfTheMediaType() async throws {
        let composition = AVMutableComposition()
        let music = try await M.track(M.music, .audio)
        #expect(composition.mutableTrack(compatibleWith: music) == nil)
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let audio = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        #expect(composition.mutableTrack(compatibleWith: music) === audio)
        #expect(composition.mutableTrack(compatibleWith: try await M.track(M.red, .video)) === video)
    }

    @Test func emptyTracksHaveNoMediaAndTheDefaultProperties() async throws {
        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        #expect(video.segments.isEmpty)
        #expect(video.formatDescriptions.isEmpty)
        #expect(video.naturalSize == .zero)
        #expect(video.naturalTimeScale == 600)
        #expect(video.isEnabled)
        #expect(video.preferredTransform == .identity)
        #expect(video.timeRange == .zero)
        #expect(composition.duration == .zero)
        #expect(try await video.load(.naturalSize) == .zero)

        try video.insertTimeRange(M.range(0, 1), of: try await M.track(M.red, .video), at: .zero)
        #expect(video.naturalSize == CGSize(width: 1280, height: 720))
        #expect(composition.naturalSize == CGSize(width: 1280, height: 720))
        #expect(video.formatDescriptions.count == 1)
        #expect(video.naturalTimeScale == 600)
        #expect(video.preferredTransform == .identity)  // not the source's: set it explicitly
        video.preferredTransform = CGAffineTransform(rotationAngle: .pi / 2)
        video.isEnabled = false
        video.languageCode = "eng"
        video.naturalTimeScale = 30000
        #expect(video.preferredTransform == CGAffineTransform(rotationAngle: .pi / 2))
        #expect(!video.isEnabled)
        #expect(video.languageCode == "eng")
        #expect(video.naturalTimeScale == 30000)
        composition.naturalSize = CGSize(width: 640, height: 360)
        #expect(composition.naturalSize == CGSize(width: 640, height: 360))
        composition.naturalSize = .zero
        #expect(composition.naturalSize == CGSize(width: 1280, height: 720))
    }

    // MARK: Edits on a track

    @Test func trackEditsPushCloseAndRetimeExactly() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let red = try await M.track(M.red, .video), green = try await M.track(M.green, .video)

        // Inserting past the end leaves an empty segment before the media.
        try track.insertTimeRange(M.range(1, 3), of: red, at: M.seconds(2))
        #expect(M.ranges(track) == ["empty 0.0-2.0", "1.0-3.0→2.0-4.0"])
        // Inserting inside a segment splits it and pushes the rest back.
        try track.insertTimeRange(M.range(0, 1), of: green, at: M.seconds(3))
        #expect(M.ranges(track) == ["empty 0.0-2.0", "1.0-2.0→2.0-3.0", "0.0-1.0→3.0-4.0", "2.0-3.0→4.0-5.0"])
        #expect(composition.duration == M.seconds(5))
        // An empty range pushes later media back.
        track.insertEmptyTimeRange(M.range(3, 3.5))
        #expect(M.ranges(track) == ["empty 0.0-2.0", "1.0-2.0→2.0-3.0", "empty 3.0-3.5", "0.0-1.0→3.5-4.5", "2.0-3.0→4.5-5.5"])
        // Removing closes the gap; neighbouring empty segments merge.
        track.removeTimeRange(M.range(1.5, 3.5))
        #expect(M.ranges(track) == ["empty 0.0-1.5", "0.0-1.0→1.5-2.5", "2.0-3.0→2.5-3.5"])
        // Scaling retimes the segments in the range (their sources stay) and moves what follows.
        track.scaleTimeRange(M.range(1.5, 2.5), toDuration: M.seconds(2))
        #expect(M.ranges(track) == ["empty 0.0-1.5", "0.0-1.0→1.5-3.5", "2.0-3.0→3.5-4.5"])
        #expect(composition.duration == M.seconds(4.5))
        // A scaled range cut in two keeps each part's share of the source.
        track.removeTimeRange(M.range(2.5, 3))
        #expect(M.ranges(track) == ["empty 0.0-1.5", "0.0-0.5→1.5-2.5", "0.75-1.0→2.5-3.0", "2.0-3.0→3.0-4.0"])
        // Inserting several ranges one after another.
        try track.insertTimeRanges([NSValue(timeRange: M.range(0, 0.5)), NSValue(timeRange: M.range(5, 5.5))], of: [red, green], at: .zero)
        #expect(M.ranges(track).prefix(3) == ["0.0-0.5→0.0-0.5", "5.0-5.5→0.5-1.0", "empty 1.0-2.5"])
        // Removing everything leaves no segments.
        track.removeTimeRange(CMTimeRange(start: .zero, duration: composition.duration))
        #expect(track.segments.isEmpty)
        #expect(composition.duration == .zero)
    }

    @Test func compositionEditsApplyToEveryTrackAndAssetsFillCompatibleTracks() async throws {
        let composition = AVMutableComposition()
        let red = AVURLAsset(url: try #require(M.red)), music = AVURLAsset(url: try #require(M.music))
        try M.insert(M.range(0, 2), of: red, at: .zero, into: composition)
        try await composition.insertTimeRange(M.range(0, 3), of: music, at: .zero)
        // The music went into a new audio track; the video track was pushed back by 3 s.
        #expect(composition.tracks.map(\.mediaType) == [.video, .audio])
        let video = try #require(composition.track(withTrackID: 1)), audio = try #require(composition.track(withTrackID: 2))
        #expect(M.ranges(video) == ["empty 0.0-3.0", "0.0-2.0→3.0-5.0"])
        #expect(M.ranges(audio) == ["0.0-3.0→0.0-3.0"])
        // A second asset with video fills the existing video track.
        try M.insert(M.range(1, 2), of: red, at: M.seconds(1), into: composition)
        #expect(composition.tracks.count == 2)
        #expect(M.ranges(video) == ["empty 0.0-1.0", "1.0-2.0→1.0-2.0", "empty 2.0-4.0", "0.0-2.0→4.0-6.0"])
        #expect(M.ranges(audio) == ["0.0-1.0→0.0-1.0", "empty 1.0-2.0", "1.0-3.0→2.0-4.0"])
        composition.insertEmptyTimeRange(M.range(0, 1))
        composition.removeTimeRange(M.range(5, 6))
        composition.scaleTimeRange(M.range(1, 2), toDuration: M.seconds(0.5))
        #expect(M.ranges(video) == ["empty 0.0-1.5", "1.0-2.0→1.5-2.5", "empty 2.5-4.5", "1.0-2.0→4.5-5.5"])
        #expect(M.ranges(audio) == ["empty 0.0-1.0", "0.0-1.0→1.0-1.5", "empty 1.5-2.5", "1.0-3.0→2.5-4.5"])
        #expect(composition.duration == M.seconds(5.5))
    }

    @Test func segmentLookupAndSamplePresentationTimes() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try track.insertTimeRange(M.range(2, 4), of: try await M.track(M.red, .video), at: M.seconds(1))
        let hit = try #require(track.segment(forTrackTime: M.seconds(1.5)))
        #expect(!hit.isEmpty)
        #expect(hit.timeMapping.source == M.range(2, 4))
        #expect(try #require(track.segment(forTrackTime: M.seconds(0.5))).isEmpty)
        #expect(try #require(track.segment(forTrackTime: M.seconds(9))).timeMapping.target == M.range(1, 3))
        // The sample shown at 1.51 s is the source frame starting at 2.5 s (30 fps frames, source time).
        #expect(track.samplePresentationTime(forTrackTime: CMTime(value: 151, timescale: 100)) == M.seconds(2.5))
        #expect(!track.samplePresentationTime(forTrackTime: M.seconds(0.5)).isValid)
    }

    // MARK: Segments set directly

    @Test func segmentsCanBeSetAndAreValidatedAsApplesAre() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let red = try #require(M.red)
        let good = [
            AVCompositionTrackSegment(timeRange: M.range(0, 1)),
            AVCompositionTrackSegment(url: red, trackID: 1, sourceTimeRange: M.range(0, 2), targetTimeRange: M.range(1, 2)),
        ]
        try track.validateSegments(good)
        track.segments = good
        #expect(M.ranges(track) == ["empty 0.0-1.0", "0.0-2.0→1.0-2.0"])
        #expect(composition.duration == M.seconds(2))
        #expect(track.naturalSize == CGSize(width: 1280, height: 720))
        #expect(M.isColour(try await M.frameColour(composition, at: 1.5), "red"))

        func code(_ segments: [AVCompositionTrackSegment]) -> AVError.Code? {
            do { try track.validateSegments(segments); return nil } catch { return (error as? AVError)?.code }
        }
        let media = { (source: CMTimeRange, target: CMTimeRange) in
            AVCompositionTrackSegment(url: red, trackID: 1, sourceTimeRange: source, targetTimeRange: target)
        }
        #expect(code([media(M.range(0, 1), M.range(0.5, 1.5))]) == .compositionTrackSegmentsNotContiguous)
        #expect(code([media(M.range(0, 1), M.range(0, 1)), media(M.range(0, 1), M.range(2, 3))]) == .compositionTrackSegmentsNotContiguous)
        #expect(code([media(M.range(0, 1), CMTimeRange(start: .zero, duration: .zero))]) == .invalidCompositionTrackSegmentDuration)
        #expect(code([media(CMTimeRange(start: .invalid, duration: M.seconds(1)), M.range(0, 1))]) == .invalidCompositionTrackSegmentSourceStartTime)
        #expect(code([media(CMTimeRange(start: .zero, duration: .zero), M.range(0, 1))]) == .invalidCompositionTrackSegmentSourceDuration)
        #expect(code([AVCompositionTrackSegment(url: red, trackID: 9, sourceTimeRange: M.range(0, 1), targetTimeRange: M.range(0, 1))])
                == .noSourceTrack)
        #expect(code([AVCompositionTrackSegment(url: try #require(M.music), trackID: 1, sourceTimeRange: M.range(0, 1),
                                                targetTimeRange: M.range(0, 1))]) == .incompatibleAsset)
        let missing = URL(fileURLWithPath: "/nonexistent/clip.mp4")
        // A missing file: its loading error, as Apple gives it (NSURLErrorFileDoesNotExist).
        #expect(throws: (any Error).self) {
            try track.validateSegments([AVCompositionTrackSegment(url: missing, trackID: 1, sourceTimeRange: M.range(0, 1),
                                                                  targetTimeRange: M.range(0, 1))])
        }
    }

    // MARK: Copies

    @Test func copiesAreSnapshotsLaterEditsDoNotChange() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try track.insertTimeRange(M.range(0, 2), of: try await M.track(M.red, .video), at: .zero)
        track.preferredTransform = CGAffineTransform(scaleX: -1, y: 1)

        let snapshot = try #require(composition.copy() as? AVComposition)
        #expect(!(snapshot is AVMutableComposition))
        #expect(snapshot.copy() as? AVComposition === snapshot)
        let editable = try #require(composition.mutableCopy() as? AVMutableComposition)
        #expect(editable !== composition)

        track.removeTimeRange(M.range(0, 1))
        track.preferredTransform = .identity
        _ = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid)

        #expect(composition.duration == M.seconds(1))
        #expect(snapshot.duration == M.seconds(2))
        #expect(snapshot.tracks.count == 1)
        let copied = try #require(snapshot.track(withTrackID: 1))
        #expect(!(copied is AVMutableCompositionTrack))
        #expect(copied.asset === snapshot)
        #expect(M.ranges(copied) == ["0.0-2.0→0.0-2.0"])
        #expect(copied.preferredTransform == CGAffineTransform(scaleX: -1, y: 1))
        let loaded: [AVCompositionTrack] = try await snapshot.load(.tracks)
        #expect(loaded.count == 1)

        let editableTrack = try #require(editable.track(withTrackID: 1))
        editableTrack.scaleTimeRange(M.range(0, 2), toDuration: M.seconds(4))
        #expect(editable.duration == M.seconds(4))
        #expect(snapshot.duration == M.seconds(2))
        #expect(composition.duration == M.seconds(1))
        // A reader of the snapshot reads the snapshot.
        #expect(M.isColour(try await M.frameColour(snapshot, at: 1.5), "red"))
    }

    // MARK: Errors

    @Test func insertionErrorsAreAVErrorsAndChangeNothing() async throws {
        let composition = AVMutableComposition()
        let video = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let red = try await M.track(M.red, .video), music = try await M.track(M.music, .audio)
        func code(_ body: () throws -> Void) -> AVError.Code? {
            do { try body(); return nil } catch {
                #expect((error as NSError).domain == AVFoundationErrorDomain)
                return (error as? AVError)?.code
            }
        }
        func fails(_ body: () throws -> Void) -> NSError? {
            do { try body(); return nil } catch { return error as NSError }
        }
        // A range past the end of the source.
        #expect(code { try video.insertTimeRange(M.range(5, 7), of: red, at: .zero) } == .invalidCompositionTrackSegmentSourceDuration)
        #expect(code { try video.insertTimeRange(M.range(6.5, 7), of: red, at: .zero) } == .invalidCompositionTrackSegmentSourceDuration)
        #expect(code { try video.insertTimeRange(CMTimeRange(start: M.seconds(-1), duration: M.seconds(1)), of: red, at: .zero) }
                == .invalidCompositionTrackSegmentSourceStartTime)
        // Media of another type.
        #expect(code { try video.insertTimeRange(M.range(0, 1), of: music, at: .zero) } == .incompatibleAsset)
        // A source without media: an empty composition track.
        let empty = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        #expect(code { try video.insertTimeRange(M.range(0, 1), of: empty, at: .zero) } == .noSourceTrack)
        // A missing file and a damaged one: their loading errors.
        let missing = AVURLAsset(url: URL(fileURLWithPath: "/nonexistent/clip.mp4"))
        let notFound = try #require(fails { try composition.insertTimeRange(M.range(0, 1), of: missing, at: .zero) })
        #expect(notFound.domain == NSURLErrorDomain && notFound.code == NSURLErrorFileDoesNotExist)
        let damaged = try AssetFixtures.tempDirectory().appendingPathComponent("damaged.mp4")
        try Data(repeating: 0x5A, count: 4096).write(to: damaged)
        #expect(code { try composition.insertTimeRange(M.range(0, 1), of: AVURLAsset(url: damaged), at: .zero) } == .fileFormatNotRecognized)
        // An asset range past its end.
        #expect(code { try composition.insertTimeRange(M.range(5, 9), of: AVURLAsset(url: try #require(M.red)), at: .zero) }
                == .invalidCompositionTrackSegmentSourceDuration)
        #expect(video.segments.isEmpty)
        #expect(composition.tracks.count == 2)
        #expect(composition.duration == .zero)
    }

    @Test func aCompositionOfACompositionReadsTheFilesUnderneath() async throws {
        let inner = AVMutableComposition()
        let innerTrack = try #require(inner.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try innerTrack.insertTimeRange(M.range(0, 1), of: try await M.track(M.red, .video), at: .zero)
        try innerTrack.insertTimeRange(M.range(0, 1), of: try await M.track(M.green, .video), at: M.seconds(2))
        let outer = AVMutableComposition()
        try await outer.insertTimeRange(M.range(0.5, 3), of: inner, at: .zero)
        let track = try #require(outer.track(withTrackID: 1))
        #expect(M.ranges(track) == ["0.5-1.0→0.0-0.5", "empty 0.5-1.5", "0.0-1.0→1.5-2.5"])
        let urls = track.segments.compactMap(\.sourceURL)
        #expect(urls == [M.red, M.green].compactMap { $0 })
        #expect(M.isColour(try await M.frameColour(outer, at: 2), "green"))
    }
}
