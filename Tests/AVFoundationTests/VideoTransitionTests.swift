// Book scenario A13 (15 Seconds with transitions) and A14 (a gap in the instructions) through the
// built-in compositor: three 5 s clips (red, green, blue) staggered on tracks A and B with 1 s
// overlaps (13 s), dissolve / push / wipe between them; exported and judged by ffprobe and
// ffmpeg's decode, and read through AVAssetImageGenerator and AVAssetReaderVideoCompositionOutput.
// Faults: a gap renders black; a cancelled export and a missing source file leave no file.
@testable import AVFoundation
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Synchronization
import Testing

enum Transition: String, CaseIterable, Sendable {
    case dissolve, push, wipe
}

enum TransitionTimeline {
    typealias M = VideoCompositionMedia
    static let red = [255, 0, 0], green = [0, 255, 0], blue = [0, 0, 255]

    /// The book's staggered composition (§11.2): track A (1) red at [0, 5) and blue at [8, 13),
    /// track B (2) green at [4, 9), built with AVMutableComposition.
    static func asset() async throws -> AVAsset {
        let composition = AVMutableComposition()
        let a = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        let b = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try a.insertTimeRange(M.range(0, 5), of: try await M.videoTrack(M.clip("red")), at: .zero)
        try b.insertTimeRange(M.range(0, 5), of: try await M.videoTrack(M.clip("green")), at: M.t(4))
        try a.insertTimeRange(M.range(0, 5), of: try await M.videoTrack(M.clip("blue")), at: M.t(8))
        #expect(composition.duration == M.t(13))
        return composition
    }

    /// The book's instructions (§11.2): pass-through [0,4) A, [5,8) B, [9,13) A; transitions
    /// [4,5) A→B and [8,9) B→A, `from` first (in front), with `transition`'s ramps. `gap`
    /// leaves [4, 4.5) without an instruction (the first transition starts at 4.5).
    static func composition(_ asset: AVAsset, _ transition: Transition, gap: Bool = false) -> AVMutableVideoComposition {
        let tracks = asset.tracks.filter { $0.mediaType == .video }
        let w = CGFloat(M.width), h = CGFloat(M.height)
        func passThrough(_ range: CMTimeRange, _ track: AVAssetTrack) -> AVMutableVideoCompositionInstruction {
            let instruction = AVMutableVideoCompositionInstruction()
            instruction.timeRange = range
            instruction.layerInstructions = [AVMutableVideoCompositionLayerInstruction(assetTrack: track)]
            return instruction
        }
        func transitionInstruction(_ range: CMTimeRange, from: AVAssetTrack, to: AVAssetTrack) -> AVMutableVideoCompositionInstruction {
            let instruction = AVMutableVideoCompositionInstruction()
            instruction.timeRange = range
            let fromLayer = AVMutableVideoCompositionLayerInstruction(assetTrack: from)
            let toLayer = AVMutableVideoCompositionLayerInstruction(assetTrack: to)
            switch transition {
            case .dissolve:
                fromLayer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range)
            case .push:
                fromLayer.setTransformRamp(fromStart: .identity, toEnd: CGAffineTransform(translationX: -w, y: 0), timeRange: range)
                toLayer.setTransformRamp(fromStart: CGAffineTransform(translationX: w, y: 0), toEnd: .identity, timeRange: range)
            case .wipe:
                fromLayer.setCropRectangleRamp(fromStartCropRectangle: CGRect(x: 0, y: 0, width: w, height: h),
                                               toEndCropRectangle: CGRect(x: 0, y: h, width: w, height: 0), timeRange: range)
            }
            instruction.layerInstructions = [fromLayer, toLayer]
            return instruction
        }
        let a = tracks[0], b = tracks[1]
        let composition = AVMutableVideoComposition()
        composition.renderSize = CGSize(width: w, height: h)
        composition.frameDuration = M.frameDuration
        composition.instructions = [
            passThrough(M.range(0, 4), a),
            transitionInstruction(M.range(gap ? 4.5 : 4, 5), from: a, to: b),
            passThrough(M.range(5, 8), b),
            transitionInstruction(M.range(8, 9), from: b, to: a),
            passThrough(M.range(9, 13), a),
        ]
        return composition
    }

    /// The colours expected at 4.5 s at (x, y), and the pure frames.
    static func expectedMidTransition(_ transition: Transition, x: Int, y: Int) -> [Int] {
        switch transition {
        case .dissolve: return [128, 128, 0]
        case .push: return x < 640 ? red : green
        case .wipe: return y < 360 ? green : red
        }
    }

    /// Points probed in the transition's middle frame (away from the push/wipe edges, where
    /// filtering and chroma subsampling blend the two sides).
    static let probes = [(100, 100), (600, 300), (700, 500), (1200, 650), (620, 200), (660, 560)]
    static let pure: [(Double, [Int])] = [(2, red), (6.5, green), (11, blue)]

    /// A 1280×720 export session of `asset` through `composition` into a new MP4 `name`.
    static func exportSession(_ asset: AVAsset, _ composition: AVVideoComposition, name: String) throws -> (AVAssetExportSession, URL) {
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPreset1280x720))
        let url = try AssetFixtures.tempDirectory().appendingPathComponent(name)
        session.outputURL = url
        session.outputFileType = .mp4
        session.videoComposition = composition
        return (session, url)
    }
}

@Suite("Video transitions (A13, A14)", .serialized)
struct VideoTransitionTests {
    typealias M = VideoCompositionMedia
    typealias T = TransitionTimeline

    @Test(arguments: Transition.allCases)
    func exportedTransitionsAreJudgedByFFmpeg(_ transition: Transition) async throws {
        let asset = try await T.asset()
        let (session, url) = try T.exportSession(asset, T.composition(asset, transition), name: "a13-\(transition).mp4")
        await session.export()
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let duration = try #require(Double(try AssetFixtures.probe(url, "format=duration")))
        #expect(abs(duration - 13) <= 1.0 / 30 + 0.001, "duration \(duration)")
        #expect(try AssetFixtures.probe(url, "stream=r_frame_rate", stream: 0) == "30/1")
        #expect(try AssetFixtures.probe(url, "stream=width", stream: 0) == "1280")
        #expect(try AssetFixtures.probe(url, "stream=height", stream: 0) == "720")
        #expect(try AssetFixtures.probe(url, "stream=nb_frames", stream: 0) == "390")
        for (x, y) in T.probes {
            let rgb = M.ffmpegRGB(url, at: 4.5, x: x, y: y)
            #expect(M.close(rgb, T.expectedMidTransition(transition, x: x, y: y)), "\(transition) at 4.5 s (\(x),\(y)): \(rgb)")
        }
        for (time, colour) in T.pure {
            let rgb = M.ffmpegRGB(url, at: time, x: 640, y: 360)
            #expect(M.close(rgb, colour), "\(transition) at \(time) s: \(rgb)")
        }
    }

    @Test(arguments: Transition.allCases)
    func imagesThroughTheCompositionShowTheTransitions(_ transition: Transition) async throws {
        let asset = try await T.asset()
        let generator = AVAssetImageGenerator(asset: asset)
        generator.videoComposition = T.composition(asset, transition)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let (image, actual) = try await generator.image(at: M.t(4.5))
        #expect(actual == M.t(4.5))
        #expect(image.width == M.width && image.height == M.height)
        #expect(generator.customVideoCompositor == nil)
        for (x, y) in T.probes {
            let rgb = M.rgb(image, x: x, y: y)
            #expect(M.close(rgb, T.expectedMidTransition(transition, x: x, y: y)), "\(transition) at 4.5 s (\(x),\(y)): \(rgb)")
        }
        for (time, colour) in T.pure {
            let (pure, at) = try await generator.image(at: M.t(time))
            #expect(at == M.t(time))
            #expect(M.close(M.rgb(pure, x: 640, y: 360), colour), "\(transition) at \(time) s")
        }
        // Between frames: the frame at the k·frameDuration before.
        let (_, between) = try await generator.image(at: CMTime(value: 4_510, timescale: 1000))
        #expect(between == M.t(4.5))
    }

    /// The composed frame a generator shows for `requested`: the one at k·frameDuration at or
    /// before it (exact rational arithmetic).
    static func frameBefore(_ requested: CMTime, frameDuration: CMTime) -> CMTime {
        var k = Int32((requested.seconds / frameDuration.seconds).rounded(.down))
        while CMTimeMultiply(frameDuration, multiplier: k) > requested { k -= 1 }
        while CMTimeMultiply(frameDuration, multiplier: k + 1) <= requested { k += 1 }
        return CMTimeMultiply(frameDuration, multiplier: k)
    }

    /// The dissolve at composition time `t` (opacity 1 → 0 over [4, 5) on red over green):
    /// (5 − t)·red + (t − 4)·green.
    static func dissolveColour(at t: CMTime) -> [Int] {
        let f = min(max(t.seconds - 4, 0), 1)
        return [Int(((1 - f) * 255).rounded()), Int((f * 255).rounded()), 0]
    }

    static let offGridTimes: [CMTime] = [CMTime(value: 2730, timescale: 600), CMTime(value: 4551, timescale: 1000),
                                         CMTime(value: 2406, timescale: 600), CMTime(value: 4_777_777, timescale: 1_000_000),
                                         CMTime(value: 2994, timescale: 600), CMTime(value: 4210, timescale: 1000)]

    /// Times between composed frames (4.55 s, 4.551 s, 4.01 s, …) with the default (infinite)
    /// tolerances and with zero ones, at 30, 25 and 29.97 frames a second: each image is the
    /// composed frame at the k·frameDuration at or before the time, its `actualTime` that frame's
    /// time, and its pixels the dissolve's ramp evaluated there — blended, never one clip alone.
    @Test(arguments: [CMTime(value: 1, timescale: 30), CMTime(value: 1, timescale: 25), CMTime(value: 1001, timescale: 30000)])
    func imagesBetweenFramesAreTheFramesBeforeThem(_ frameDuration: CMTime) async throws {
        let asset = try await T.asset()
        for zero in [false, true] {
            let generator = AVAssetImageGenerator(asset: asset)
            let composition = T.composition(asset, .dissolve)
            composition.frameDuration = frameDuration
            generator.videoComposition = composition
            if zero {
                generator.requestedTimeToleranceBefore = .zero
                generator.requestedTimeToleranceAfter = .zero
            }
            for time in Self.offGridTimes {
                let (image, actual) = try await generator.image(at: time)
                let note = "\(time.value)/\(time.timescale) s at \(frameDuration.value)/\(frameDuration.timescale), zero tolerances: \(zero)"
                #expect(actual == Self.frameBefore(time, frameDuration: frameDuration), "\(note): actual \(actual.value)/\(actual.timescale)")
                let rgb = M.rgb(image, x: 640, y: 360), expected = Self.dissolveColour(at: actual)
                #expect(M.close(rgb, expected), "\(note): \(rgb), expected \(expected)")
            }
        }
    }

    /// The same times in a batch (`generateCGImagesAsynchronously(forTimes:)`, given out of
    /// order): one completion each, served in time order, each image the blend at its actual time.
    @Test func batchesBetweenFramesAreServedInTimeOrder() async throws {
        let asset = try await T.asset()
        let generator = AVAssetImageGenerator(asset: asset)
        generator.videoComposition = T.composition(asset, .dissolve)
        let times = Self.offGridTimes.map { NSValue(time: $0) }
        let results = Mutex<[(requested: CMTime, actual: CMTime, rgb: [Int])]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            generator.generateCGImagesAsynchronously(forTimes: times) { requested, image, actual, result, error in
                let count = results.withLock {
                    $0.append((requested, actual, result == .succeeded ? image.map { M.rgb($0, x: 640, y: 360) } ?? [] : []))
                    return $0.count
                }
                if count == times.count { done.resume() }
            }
        }
        let served = results.withLock { $0 }
        #expect(served.map(\.requested) == Self.offGridTimes.sorted())
        for (requested, actual, rgb) in served {
            #expect(actual == Self.frameBefore(requested, frameDuration: M.frameDuration))
            #expect(M.close(rgb, Self.dissolveColour(at: actual)), "\(requested.seconds) s: \(rgb) at \(actual.seconds) s")
        }
    }

    /// The push's seam in composed images: at 4.5 s the outgoing red clip ends at x = 639 and
    /// the incoming green one starts at 640 — no blended, black or background column between
    /// them; at 136/30 s (the seam at 597⅓ px) at 596 and 597; at render scale 0.5 at 319 and 320.
    /// The reader output's NV12 frames (the planes path) have the same seam in their luma.
    @Test func thePushHasNoSeam() async throws {
        let asset = try await T.asset()
        for (scale, seconds, last) in [(Float(1), 4.5, 639), (1, 136.0 / 30, 596), (0.5, 4.5, 319)] {
            let composition = T.composition(asset, .push)
            composition.renderScale = scale
            let generator = AVAssetImageGenerator(asset: asset)
            generator.videoComposition = composition
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            let (image, _) = try await generator.image(at: CMTime(seconds: seconds, preferredTimescale: 30))
            for y in [10, image.height / 2, image.height - 10] {
                let left = M.rgb(image, x: last, y: y), right = M.rgb(image, x: last + 1, y: y)
                #expect(M.close(left, T.red) && M.close(right, T.green), "scale \(scale), \(seconds) s, row \(y): \(left) | \(right)")
            }
        }
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderVideoCompositionOutput(videoTracks: asset.tracks.filter { $0.mediaType == .video },
                                                         videoSettings: [kCVPixelBufferPixelFormatTypeKey as String:
                                                                            kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])
        output.videoComposition = T.composition(asset, .push)
        reader.timeRange = CMTimeRange(start: M.t(4.5), duration: M.frameDuration)
        reader.add(output)
        #expect(reader.startReading())
        let frame = try #require(output.copyNextSampleBuffer().flatMap(CMSampleBufferGetImageBuffer))
        CVPixelBufferLockBaseAddress(frame, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(frame, .readOnly) }
        let luma = try #require(CVPixelBufferGetBaseAddressOfPlane(frame, 0)), stride = CVPixelBufferGetBytesPerRowOfPlane(frame, 0)
        let row = (0..<1280).map { Int(luma.load(fromByteOffset: 360 * stride + $0, as: UInt8.self)) }
        // BT.709 video range: red's luma 63, green's 173.
        #expect(row[0...639].allSatisfy { abs($0 - 63) <= 3 } && row[640...].allSatisfy { abs($0 - 173) <= 3 },
                "luma at 638…641: \(row[638...641])")
    }

    @Test func theReaderOutputComposesEveryFrame() async throws {
        let asset = try await T.asset()
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderVideoCompositionOutput(videoTracks: asset.tracks.filter { $0.mediaType == .video },
                                                         videoSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        output.alwaysCopiesSampleData = false
        output.videoComposition = T.composition(asset, .dissolve)
        reader.add(output)
        #expect(reader.startReading())
        var k = 0
        while let sample = output.copyNextSampleBuffer() {
            let time = CMSampleBufferGetPresentationTimeStamp(sample)
            #expect(time == CMTimeMultiply(M.frameDuration, multiplier: Int32(k)))
            let image = try #require(CMSampleBufferGetImageBuffer(sample))
            #expect(CVPixelBufferGetPixelFormatType(image) == kCVPixelFormatType_32BGRA)
            if k == 135 {  // 4.5 s
                #expect(M.close(M.rgb(image, x: 640, y: 360), [128, 128, 0]), "\(M.rgb(image, x: 640, y: 360))")
            }
            for (t, colour) in T.pure where k == Int(t * 30) {
                #expect(M.close(M.rgb(image, x: 640, y: 360), colour), "frame \(k)")
            }
            k += 1
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(k == 390)
    }

    @Test func theRenderScaleShrinksTheFramesAndTheirLayout() async throws {
        let asset = try await T.asset()
        let composition = T.composition(asset, .push)
        composition.renderScale = 0.5
        let generator = AVAssetImageGenerator(asset: asset)
        generator.videoComposition = composition
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let (image, _) = try await generator.image(at: M.t(4.5))
        #expect(image.width == M.width / 2 && image.height == M.height / 2)
        // The push's halves are at the scaled width's middle.
        for (x, y) in [(50, 50), (300, 300), (340, 50), (600, 300)] {
            #expect(M.close(M.rgb(image, x: x, y: y), x < 320 ? T.red : T.green), "(\(x),\(y)): \(M.rgb(image, x: x, y: y))")
        }
    }

    /// A portrait clip stored landscape (left half red, right half green, ffmpeg's 90° display
    /// matrix, which turns it counter-clockwise and has no translation):
    /// `videoComposition(withPropertiesOf:)` puts the track's preferred transform into the layer
    /// (moved onto the canvas), and the built-in compositor applies that transform once — the
    /// frame is upright as ffmpeg shows it (green on top), not turned twice (red at the bottom
    /// right, off the canvas).
    @Test func aRotatedTrackIsTurnedOnceByItsLayerTransform() async throws {
        let plain = M.dir.appendingPathComponent("halves-plain.mp4")
        let url = M.dir.appendingPathComponent("halves-rotated.mp4")
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = M.ffmpeg(["-y", "-f", "lavfi", "-i", "color=c=red:s=160x180:r=30:d=1", "-f", "lavfi", "-i", "color=c=lime:s=160x180:r=30:d=1",
                          "-filter_complex", "[0][1]hstack,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                          "-colorspace", "bt709", "-c:v", "libx264", "-preset", "ultrafast", plain.path])
            _ = M.ffmpeg(["-y", "-i", plain.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", url.path])
        }
        let asset = AVURLAsset(url: url)
        let composition = try await AVVideoComposition.videoComposition(withPropertiesOf: asset)
        #expect(composition.renderSize == CGSize(width: 180, height: 320))
        let generator = AVAssetImageGenerator(asset: asset)
        generator.videoComposition = composition
        let (image, _) = try await generator.image(at: M.t(0.5))
        #expect(image.width == 180 && image.height == 320)
        for (x, y) in [(90, 60), (90, 260)] {
            let ours = M.rgb(image, x: x, y: y), ffmpeg = M.ffmpegRGB(url, at: 0.5, x: x, y: y)
            #expect(M.close(ours, ffmpeg, 12), "(\(x),\(y)): ours \(ours), ffmpeg's \(ffmpeg)")
        }
        #expect(M.close(M.rgb(image, x: 90, y: 60), T.green, 12) && M.close(M.rgb(image, x: 90, y: 260), T.red, 12))
    }

    @Test func framesInAGapAreBlack() async throws {
        let asset = try await T.asset()
        let composition = T.composition(asset, .dissolve, gap: true)
        let generator = AVAssetImageGenerator(asset: asset)
        generator.videoComposition = composition
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let (black, at) = try await generator.image(at: M.t(4.25))
        #expect(at == CMTime(value: 127, timescale: 30))  // the frame at 127/30 s shows 4.25 s
        #expect(M.close(M.rgb(black, x: 640, y: 360), [0, 0, 0], 2))
        #expect(M.close(M.rgb(try await generator.image(at: M.t(3.9)).image, x: 640, y: 360), T.red))
        // Exported: black there too, the rest as before.
        let (session, url) = try T.exportSession(asset, composition, name: "a14-gap.mp4")
        session.timeRange = M.range(3, 6)
        await session.export()
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(M.close(M.ffmpegRGB(url, at: 1.25, x: 640, y: 360), [0, 0, 0], 8))
        #expect(M.close(M.ffmpegRGB(url, at: 0.5, x: 640, y: 360), T.red))
        #expect(M.close(M.ffmpegRGB(url, at: 2.5, x: 640, y: 360), T.green))
    }

    @Test func anInvalidCompositionFailsTheExportBeforeWriting() async throws {
        let asset = try await T.asset()
        let composition = T.composition(asset, .dissolve)
        composition.renderSize = .zero
        let (session, url) = try T.exportSession(asset, composition, name: "invalid.mp4")
        await session.export()
        #expect(session.status == .failed)
        #expect((session.error as? AVError)?.code == .invalidVideoComposition)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aCancelledExportLeavesNoFile() async throws {
        let asset = try await T.asset()
        let (session, url) = try T.exportSession(asset, T.composition(asset, .push), name: "cancelled.mp4")
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            session.exportAsynchronously { done.resume() }
            // Cancelled once it has made progress (or at once when it is already done).
            DispatchQueue.global().async {
                while session.progress < 0.1, session.status == .exporting || session.status == .waiting || session.status == .unknown {
                    usleep(5_000)
                }
                session.cancelExport()
            }
        }
        #expect(session.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aMissingSourceFileFailsTheExport() async throws {
        let copy = try AssetFixtures.tempDirectory().appendingPathComponent("green-copy.mp4")
        try FileManager.default.copyItem(at: M.clip("green"), to: copy)
        let asset = try await M.asset([
            [(M.clip("red"), M.range(0, 5), M.range(0, 5)), (M.clip("blue"), M.range(0, 5), M.range(8, 13))],
            [(copy, M.range(0, 5), M.range(4, 9))],
        ])
        try FileManager.default.removeItem(at: copy)
        let (session, url) = try T.exportSession(asset, T.composition(asset, .dissolve), name: "missing.mp4")
        await session.export()
        #expect(session.status == .failed)
        // The error opening the file gives everywhere (the asset's own: no such file).
        let error = try #require(session.error as NSError?)
        #expect(error.domain == NSURLErrorDomain && error.code == NSURLErrorFileDoesNotExist, "\(error)")
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
