// Video compositions derived from assets (init(propertiesOf:), the async forms) and validated
// against them: the book's 15 Seconds transition layout, A13's instruction ranges, A14's gap and
// uncovered-range reports, overlaps, bad track IDs and invalid values.
@testable import AVFoundation
import CoreGraphics
import CoreMedia
import Foundation
import Testing

/// Generated media for composed assets: a 5 s 64×36 30 fps red clip and 15 s of a 440 Hz sine.
enum ComposedMedia {
    static let clip: URL? = try? AssetFixtures.generate("vc-clip.mp4", ["-f", "lavfi", "-i", "color=c=red:s=64x36:r=30:d=5",
                                                                        "-c:v", "libx264", "-pix_fmt", "yuv420p"])
    static let music: URL? = try? AssetFixtures.generate("vc-music.m4a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=15",
                                                                          "-c:a", "aac"])

    /// The 15 Seconds transition layout (book §11.2, T = 1 s): three 5 s clips on alternating
    /// video tracks A (ID 1) and B (ID 2), each starting 1 s before the previous one ends — A
    /// [0,5), B [4,9), A [8,13) — and music (ID 3) over [0, musicEnd).
    static func fifteenSeconds(musicEnd: Double = 13) async throws -> (AVAsset, AVAssetTrack) {
        let clipURL = try #require(clip), musicURL = try #require(music)
        let video = try #require(try await AVURLAsset(url: clipURL).loadTracks(withMediaType: .video).first)
        let audio = try #require(try await AVURLAsset(url: musicURL).loadTracks(withMediaType: .audio).first)
        let whole = VC.r(0, 5)
        let a = [MediaSegment(fileTrack: video, sourceRange: whole, targetRange: VC.r(0, 5)), MediaSegment(emptyTargetRange: VC.r(5, 8)),
                 MediaSegment(fileTrack: video, sourceRange: whole, targetRange: VC.r(8, 13))]
        let b = [MediaSegment(emptyTargetRange: VC.r(0, 4)), MediaSegment(fileTrack: video, sourceRange: whole, targetRange: VC.r(4, 9))]
        let music = [MediaSegment(fileTrack: audio, sourceRange: VC.r(0, musicEnd), targetRange: VC.r(0, musicEnd))]
        return (AVAsset(segmentedTracks: [(trackID: 1, segments: a), (trackID: 2, segments: b), (trackID: 3, segments: music)]), video)
    }
}

/// Records every report and answers `keepGoing`.
final class ValidationRecorder: NSObject, AVVideoCompositionValidationHandling, @unchecked Sendable {
    var keys: [String] = []
    var emptyRanges: [CMTimeRange] = []
    var invalidRanges: [CMTimeRange] = []
    var badTrackIDs: [CMPersistentTrackID] = []
    let keepGoing: Bool

    init(keepGoing: Bool = true) { self.keepGoing = keepGoing }

    var count: Int { keys.count + emptyRanges.count + invalidRanges.count + badTrackIDs.count }

    func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingInvalidValueForKey key: String) -> Bool {
        keys.append(key)
        return keepGoing
    }

    func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingEmptyTimeRange timeRange: CMTimeRange)
        -> Bool {
        emptyRanges.append(timeRange)
        return keepGoing
    }

    func videoComposition(_ videoComposition: AVVideoComposition,
                          shouldContinueValidatingAfterFindingInvalidTimeRangeIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol)
        -> Bool {
        invalidRanges.append(videoCompositionInstruction.timeRange)
        return keepGoing
    }

    func videoComposition(_ videoComposition: AVVideoComposition,
                          shouldContinueValidatingAfterFindingInvalidTrackIDIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol,
                          layerInstruction: AVVideoCompositionLayerInstruction, asset: AVAsset) -> Bool {
        badTrackIDs.append(layerInstruction.trackID)
        return keepGoing
    }
}

/// A delegate that implements none of the optional methods (the defaults keep validating).
final class SilentValidationDelegate: NSObject, AVVideoCompositionValidationHandling {}

@Suite("Video compositions from assets, and their validation", .serialized)
struct VideoCompositionValidationTests {
    static let all = CMTimeRange(start: .zero, duration: .positiveInfinity)

    /// The synchronous `isValid(for:timeRange:validationDelegate:)` (in an async function the
    /// asynchronous overload would be chosen).
    static func check(_ composition: AVVideoComposition, _ asset: AVAsset?, _ range: CMTimeRange = all,
                      _ delegate: (any AVVideoCompositionValidationHandling)? = nil) -> Bool {
        composition.isValid(for: asset, timeRange: range, validationDelegate: delegate)
    }

    /// The instructions' ranges and their layers' track IDs.
    static func layout(_ composition: AVVideoComposition) -> [(CMTimeRange, [CMPersistentTrackID])] {
        composition.instructions.map { ($0.timeRange, ($0 as? AVVideoCompositionInstruction)?.layerInstructions.map(\.trackID) ?? []) }
    }

    @Test("propertiesOf on the 15 Seconds layout: pass-through [0,4) [5,8) [9,13), transitions [4,5) [8,9) listing A then B")
    func fifteenSecondsLayout() async throws {
        let (asset, _) = try await ComposedMedia.fifteenSeconds()
        let composition = AVMutableVideoComposition(propertiesOf: asset)
        let layout = Self.layout(composition)
        #expect(layout.map(\.0) == [VC.r(0, 4), VC.r(4, 5), VC.r(5, 8), VC.r(8, 9), VC.r(9, 13)])
        #expect(layout.map(\.1) == [[1], [1, 2], [2], [1, 2], [1]])
        #expect(composition.instructions.allSatisfy { $0 is AVMutableVideoCompositionInstruction })
        #expect(composition.instructions.map(\.passthroughTrackID) == [1, kCMPersistentTrackID_Invalid, 2, kCMPersistentTrackID_Invalid, 1])
        #expect(composition.renderSize == CGSize(width: 64, height: 36))
        #expect(composition.frameDuration == CMTime(value: 1, timescale: 30))
        #expect(composition.sourceTrackIDForFrameTiming == kCMPersistentTrackID_Invalid)  // two video tracks
        #expect(composition.renderScale == 1 && composition.customVideoCompositorClass == nil)
        // The layers are mutable, as the book's builder relies on: a dissolve on the first transition.
        let transition = try #require(composition.instructions[1] as? AVMutableVideoCompositionInstruction)
        let from = try #require(transition.layerInstructions[0] as? AVMutableVideoCompositionLayerInstruction)
        from.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: transition.timeRange)
        #expect(transition.layerStates(at: VC.t(4.5)).map(\.opacity) == [0.5, 1])
        // With the music trimmed to the video, the composition is valid (A13's validate() is OK).
        let recorder = ValidationRecorder()
        #expect(Self.check(composition, asset, Self.all, recorder))
        #expect(recorder.count == 0)
    }

    @Test("propertiesOf on an AVMutableComposition with the 15 Seconds transitions; its naturalSize is the render size when set")
    func mutableCompositionLayout() async throws {
        let clipURL = try #require(ComposedMedia.clip), musicURL = try #require(ComposedMedia.music)
        let video = try #require(try await AVURLAsset(url: clipURL).loadTracks(withMediaType: .video).first)
        let audio = try #require(try await AVURLAsset(url: musicURL).loadTracks(withMediaType: .audio).first)
        let composition = AVMutableComposition()
        let a = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let b = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let music = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        try a.insertTimeRange(VC.r(0, 5), of: video, at: .zero)
        try b.insertTimeRange(VC.r(0, 5), of: video, at: VC.t(4))
        try a.insertTimeRange(VC.r(0, 5), of: video, at: VC.t(8))
        try music.insertTimeRange(VC.r(0, 13), of: audio, at: .zero)
        #expect(composition.duration == VC.t(13))

        let videoComposition = try await AVMutableVideoComposition.videoComposition(withPropertiesOf: composition)
        let layout = Self.layout(videoComposition)
        #expect(layout.map(\.0) == [VC.r(0, 4), VC.r(4, 5), VC.r(5, 8), VC.r(8, 9), VC.r(9, 13)])
        #expect(layout.map(\.1) == [[a.trackID], [a.trackID, b.trackID], [b.trackID], [a.trackID, b.trackID], [a.trackID]])
        #expect(videoComposition.renderSize == CGSize(width: 64, height: 36))
        #expect(videoComposition.frameDuration == CMTime(value: 1, timescale: 30))
        #expect(try await videoComposition.isValid(for: composition, timeRange: Self.all, validationDelegate: nil))

        composition.naturalSize = CGSize(width: 1280, height: 720)
        #expect(AVVideoComposition(propertiesOf: composition).renderSize == CGSize(width: 1280, height: 720))
        // A disabled track is not presented: track A alone, with a gap of no layers at [5, 8).
        b.isEnabled = false
        let withoutB = Self.layout(AVVideoComposition(propertiesOf: composition))
        #expect(withoutB.map(\.0) == [VC.r(0, 5), VC.r(5, 8), VC.r(8, 13)] && withoutB.map(\.1) == [[a.trackID], [], [a.trackID]])
        b.isEnabled = true
        // Music left at 15 s: [13, 15) is not covered.
        try music.insertTimeRange(VC.r(0, 2), of: audio, at: VC.t(13))
        let recorder = ValidationRecorder()
        #expect(!Self.check(videoComposition, composition, Self.all, recorder))
        #expect(recorder.emptyRanges == [VC.r(13, 15)] && recorder.count == 1)
    }

    @Test("propertiesOf on a file: one instruction, the track's timing, size and transform")
    func urlAsset() async throws {
        let clip = try #require(ComposedMedia.clip)
        let composition = try await AVVideoComposition.videoComposition(withPropertiesOf: AVURLAsset(url: clip))
        #expect(!(composition is AVMutableVideoComposition))
        #expect(Self.layout(composition).map(\.0) == [VC.r(0, 5)] && Self.layout(composition).map(\.1) == [[1]])
        #expect(composition.sourceTrackIDForFrameTiming == 1 && composition.frameDuration == CMTime(value: 1, timescale: 30))
        #expect(composition.renderSize == CGSize(width: 64, height: 36))
        #expect(composition.instructions.first?.passthroughTrackID == 1)

        // A rotated track: the layer's transform is the track's preferredTransform, moved onto the
        // canvas (ffmpeg's matrix has no translation); the render size is the rotated frame's.
        let rotated = clip.deletingLastPathComponent().appendingPathComponent("vc-rotated.mov")
        _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", clip.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated.path])
        let asset = AVURLAsset(url: rotated)
        let mutable = try await AVMutableVideoComposition.videoComposition(withPropertiesOf: asset)
        let transform = try #require(try await asset.loadTracks(withMediaType: .video).first).preferredTransform
        #expect(!transform.isIdentity)
        let layer = try #require((mutable.instructions.first as? AVVideoCompositionInstruction)?.layerInstructions.first)
        let placed = CGRect(x: 0, y: 0, width: 64, height: 36).applying(transform)
        #expect(layer.layerState(at: VC.t(1)).transform == transform.concatenating(CGAffineTransform(translationX: -placed.minX, y: -placed.minY)))
        #expect(CGRect(x: 0, y: 0, width: 64, height: 36).applying(layer.layerState(at: VC.t(1)).transform) == CGRect(x: 0, y: 0, width: 36, height: 64))
        #expect(mutable.renderSize == CGSize(width: 36, height: 64))
        #expect(mutable.instructions.first?.passthroughTrackID == kCMPersistentTrackID_Invalid)
    }

    @Test("propertiesOf: frame duration from the greatest nominal frame rate, 1/30 when none")
    func frameDurations() {
        #expect(AVVideoComposition.frameDuration(forRates: [0, 0]) == CMTime(value: 1, timescale: 30))
        #expect(AVVideoComposition.frameDuration(forRates: []) == CMTime(value: 1, timescale: 30))
        #expect(AVVideoComposition.frameDuration(forRates: [24, 60, 25]) == CMTime(value: 1, timescale: 60))
        #expect(AVVideoComposition.frameDuration(forRates: [30000.0 / 1001]) == CMTime(value: 1001, timescale: 30000))
        #expect(AVVideoComposition.frameDuration(forRates: [12.5]) == CMTime(value: 2, timescale: 25))
    }

    @Test("propertiesOf with a prototype instruction; on an asset without video")
    func prototypeAndNoVideo() async throws {
        let (asset, _) = try await ComposedMedia.fifteenSeconds()
        let prototype = AVMutableVideoCompositionInstruction()
        prototype.backgroundColor = CGColor(red: 0, green: 0, blue: 1, alpha: 1)
        prototype.enablePostProcessing = false
        let composition = try await AVMutableVideoComposition.videoComposition(withPropertiesOf: asset, prototypeInstruction: prototype)
        #expect(composition.instructions.count == 5)
        for case let instruction as AVVideoCompositionInstruction in composition.instructions {
            #expect(instruction.backgroundColor?.components == [0, 0, 1, 1] && !instruction.enablePostProcessing)
        }
        let music = AVURLAsset(url: try #require(ComposedMedia.music))
        let none = AVVideoComposition(propertiesOf: music)
        #expect(none.instructions.isEmpty && none.renderSize == .zero && none.frameDuration == CMTime(value: 1, timescale: 30))
    }

    @Test("propertiesOf on a missing file: the async forms give the loading error")
    func missingFile() async throws {
        let missing = AVURLAsset(url: URL(fileURLWithPath: "/nonexistent/vc-missing.mp4"))
        await #expect(throws: (any Error).self) { try await AVVideoComposition.videoComposition(withPropertiesOf: missing) }
        let (composition, failed) = await withCheckedContinuation { continuation in
            AVMutableVideoComposition.videoComposition(withPropertiesOf: missing) { composition, error in
                continuation.resume(returning: (composition, error != nil))
            }
        }
        #expect(composition == nil && failed)
        await #expect(throws: (any Error).self) {
            try await AVMutableVideoComposition().isValid(for: missing, timeRange: Self.all, validationDelegate: nil)
        }
    }

    @Test("A14: 13 s of video with 15 s of music — the uncovered [13,15) is reported")
    func uncoveredMusic() async throws {
        let (asset, _) = try await ComposedMedia.fifteenSeconds(musicEnd: 15)
        #expect(asset.duration == VC.t(15))
        let composition = AVMutableVideoComposition(propertiesOf: asset)
        let recorder = ValidationRecorder()
        #expect(!Self.check(composition, asset, Self.all, recorder))
        #expect(recorder.emptyRanges == [VC.r(13, 15)] && recorder.count == 1)
        let async = ValidationRecorder()
        #expect(try await !composition.isValid(for: asset, timeRange: Self.all, validationDelegate: async))
        #expect(async.emptyRanges == [VC.r(13, 15)])
        // Without an asset there is no duration to cover.
        #expect(Self.check(composition, nil))
        // Against the tracks and a duration.
        #expect(!composition.isValid(for: asset.tracks, assetDuration: VC.t(15), timeRange: Self.all, validationDelegate: nil))
        #expect(composition.isValid(for: asset.tracks, assetDuration: VC.t(13), timeRange: Self.all, validationDelegate: nil))
    }

    /// A hand-built composition over `asset`: one instruction per range, each layering `trackID`.
    static func handBuilt(_ ranges: [CMTimeRange], trackID: CMPersistentTrackID = 1) -> AVMutableVideoComposition {
        let composition = AVMutableVideoComposition()
        composition.frameDuration = CMTime(value: 1, timescale: 30)
        composition.renderSize = CGSize(width: 64, height: 36)
        composition.instructions = ranges.map { range in
            let instruction = AVMutableVideoCompositionInstruction()
            instruction.timeRange = range
            let layer = AVMutableVideoCompositionLayerInstruction()
            layer.trackID = trackID
            instruction.layerInstructions = [layer]
            return instruction
        }
        return composition
    }

    @Test("A14: a hand-built set with a 0.5 s gap — the gap is reported; overlaps and bad ranges too")
    func gapsAndOverlaps() async throws {
        let (asset, _) = try await ComposedMedia.fifteenSeconds()
        let gap = ValidationRecorder()
        #expect(!Self.check(Self.handBuilt([VC.r(0, 4), VC.r(4.5, 13)]), asset, Self.all, gap))
        #expect(gap.emptyRanges == [VC.r(4, 4.5)] && gap.count == 1)

        let late = ValidationRecorder()  // nothing before 1 s
        #expect(!Self.check(Self.handBuilt([VC.r(1, 13)]), asset, Self.all, late))
        #expect(late.emptyRanges == [VC.r(0, 1)])

        let overlap = ValidationRecorder()
        #expect(!Self.check(Self.handBuilt([VC.r(0, 5), VC.r(4, 13)]), asset, Self.all, overlap))
        #expect(overlap.invalidRanges == [VC.r(4, 13)] && overlap.emptyRanges.isEmpty)

        let disorder = ValidationRecorder()
        #expect(!Self.check(Self.handBuilt([VC.r(5, 13), VC.r(0, 5)]), asset, Self.all, disorder))
        #expect(disorder.emptyRanges == [VC.r(0, 5)] && disorder.invalidRanges == [VC.r(0, 5)])

        let invalid = ValidationRecorder()
        #expect(!Self.check(Self.handBuilt([VC.r(0, 13), .invalid]), asset, Self.all, invalid))
        #expect(invalid.invalidRanges.count == 1 && invalid.emptyRanges.isEmpty)

        // Only what overlaps the range asked about: the gap at [4, 4.5) is outside [5, 13).
        let window = ValidationRecorder()
        #expect(Self.check(Self.handBuilt([VC.r(0, 4), VC.r(4.5, 13)]), asset, VC.r(5, 13), window))
        #expect(window.count == 0)

        // The defaults of a delegate that implements nothing keep validating; no delegate is fine.
        #expect(!Self.check(Self.handBuilt([VC.r(0, 4), VC.r(4.5, 13)]), asset, Self.all, SilentValidationDelegate()))
        #expect(Self.check(Self.handBuilt([VC.r(0, 13)]), asset, Self.all, nil))
    }

    @Test("A bad track ID in a layer instruction is reported, with the asset")
    func badTrackID() async throws {
        let (asset, _) = try await ComposedMedia.fifteenSeconds()
        let recorder = ValidationRecorder()
        #expect(!Self.check(Self.handBuilt([VC.r(0, 13)], trackID: 9), asset, Self.all, recorder))
        #expect(recorder.badTrackIDs == [9] && recorder.count == 1)
        #expect(Self.check(Self.handBuilt([VC.r(0, 13)], trackID: 9), nil, Self.all, nil))
        #expect(asset.unusedTrackID() == 4)  // the tracks are 1, 2 and 3
        #expect(!Self.check(Self.handBuilt([VC.r(0, 13)], trackID: asset.unusedTrackID()), asset))
    }

    @Test("Invalid values are reported by key; a delegate returning false stops at the first problem")
    func invalidValuesAndStopping() async throws {
        let (asset, _) = try await ComposedMedia.fifteenSeconds()
        let composition = Self.handBuilt([VC.r(0, 4), VC.r(4.5, 13)], trackID: 9)
        composition.frameDuration = .invalid
        composition.renderSize = CGSize(width: 0, height: 36)
        composition.renderScale = 0
        let recorder = ValidationRecorder()
        #expect(!Self.check(composition, asset, Self.all, recorder))
        #expect(recorder.keys == ["frameDuration", "renderSize", "renderScale"])
        #expect(recorder.emptyRanges == [VC.r(4, 4.5)] && recorder.badTrackIDs == [9, 9])
        let stopper = ValidationRecorder(keepGoing: false)
        #expect(!Self.check(composition, asset, Self.all, stopper))
        #expect(stopper.count == 1 && stopper.keys == ["frameDuration"])

        let (valid, failed) = await withCheckedContinuation { continuation in
            composition.determineValidity(for: asset, timeRange: Self.all, validationDelegate: nil) { valid, error in
                continuation.resume(returning: (valid, error != nil))
            }
        }
        #expect(!valid && !failed)
    }
}
