// Custom video compositors (AVVideoCompositing) read through AVAssetReaderVideoCompositionOutput:
// one compositor instance per output, a render context before the first request, requests
// finished out of order on the compositor's own concurrent queue yet delivered in time order at
// exact k·frameDuration times, pixels painted from the source frames, and a request finished
// with an error failing the reader with that error.
@testable import AVFoundation
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
import Synchronization
import Testing

/// What the test compositors saw.
struct CompositorLog: Sendable {
    var instances = 0
    var contexts: [CGSize] = []
    var started: [CMTime] = []
    var finished: [CMTime] = []
    var sourceTrackIDs: [[Int32]] = []
}

/// A custom instruction (not Apple's class): every frame needs tracks 1 and 2.
final class PaintInstruction: NSObject, AVVideoCompositionInstructionProtocol, @unchecked Sendable {
    let timeRange: CMTimeRange
    let enablePostProcessing = false
    let containsTweening = true
    let requiredSourceTrackIDs: [NSValue]? = [NSNumber(value: 1), NSNumber(value: 2)]
    let passthroughTrackID = kCMPersistentTrackID_Invalid

    init(timeRange: CMTimeRange) {
        self.timeRange = timeRange
        super.init()
    }
}

/// Paints each frame one colour: the red of track 1's centre pixel, the blue of track 2's, and
/// a green that counts frames (4 × the frame index), so order and pixels can both be checked.
/// Requests are finished in pairs, the later one first, on the compositor's own queue.
final class PaintCompositor: NSObject, AVVideoCompositing, @unchecked Sendable {
    static let log = Mutex(CompositorLog())
    /// Frames at or after this time fail (nil: none).
    static let failsFrom = Mutex<CMTime?>(nil)
    private let queue = DispatchQueue(label: "PaintCompositor", attributes: .concurrent)
    private let held = Mutex<AVAsynchronousVideoCompositionRequest?>(nil)

    override init() {
        super.init()
        Self.log.withLock { $0.instances += 1 }
    }

    var sourcePixelBufferAttributes: [String: any Sendable]? {
        [kCVPixelBufferPixelFormatTypeKey as String: [NSNumber(value: kCVPixelFormatType_32BGRA)]]
    }

    var requiredPixelBufferAttributesForRenderContext: [String: any Sendable] {
        [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32BGRA)]
    }

    func renderContextChanged(_ newRenderContext: AVVideoCompositionRenderContext) {
        Self.log.withLock { $0.contexts.append(newRenderContext.size) }
    }

    func startRequest(_ request: AVAsynchronousVideoCompositionRequest) {
        Self.log.withLock {
            $0.started.append(request.compositionTime)
            $0.sourceTrackIDs.append(request.sourceTrackIDs.map(\.int32Value))
        }
        let earlier: AVAsynchronousVideoCompositionRequest? = held.withLock { held in
            defer { held = held == nil ? request : nil }
            return held
        }
        if let earlier {
            queue.async { [self] in
                render(request)
                render(earlier)
            }
        } else {
            // Alone (the last frame): finished after a while if no partner comes.
            queue.asyncAfter(deadline: .now() + 0.05) { [self] in
                let mine: Bool = held.withLock { held in
                    guard held === request else { return false }
                    held = nil
                    return true
                }
                if mine { render(request) }
            }
        }
    }

    private func render(_ request: AVAsynchronousVideoCompositionRequest) {
        let time = request.compositionTime
        Self.log.withLock { $0.finished.append(time) }
        if let from = Self.failsFrom.withLock({ $0 }), time >= from {
            request.finish(with: NSError(domain: "PaintCompositorTest", code: 42, userInfo: [NSLocalizedDescriptionKey: "painting failed"]))
            return
        }
        guard let out = request.renderContext.newPixelBuffer(), let a = request.sourceFrame(byTrackID: 1),
              let b = request.sourceFrame(byTrackID: 2) else {
            request.finish(with: NSError(domain: "PaintCompositorTest", code: 1))
            return
        }
        let k = Int((time.seconds * 30).rounded())
        let red = VideoCompositionMedia.rgb(a, x: 640, y: 360)[0], blue = VideoCompositionMedia.rgb(b, x: 640, y: 360)[2]
        VideoCompositionMedia.fill(out, red: red, green: (k * 4) % 256, blue: blue)
        request.finish(withComposedVideoFrame: out)
    }
}

@Suite("Custom video compositors", .serialized)
struct CustomVideoCompositorTests {
    typealias M = VideoCompositionMedia

    /// Tracks 1 (red) and 2 (blue), both over [0, 2 s), and a composition painting them.
    static func setUp() async throws -> (AVAsset, AVMutableVideoComposition) {
        let asset = try await M.asset([[(M.clip("red", seconds: 2), M.range(0, 2), M.range(0, 2))],
                                       [(M.clip("blue", seconds: 2), M.range(0, 2), M.range(0, 2))]])
        let composition = AVMutableVideoComposition()
        composition.customVideoCompositorClass = PaintCompositor.self
        composition.frameDuration = M.frameDuration
        composition.renderSize = CGSize(width: M.width, height: M.height)
        composition.instructions = [PaintInstruction(timeRange: M.range(0, 2))]
        PaintCompositor.log.withLock { $0 = CompositorLog() }
        PaintCompositor.failsFrom.withLock { $0 = nil }
        return (asset, composition)
    }

    static func output(_ asset: AVAsset, _ composition: AVVideoComposition) -> AVAssetReaderVideoCompositionOutput {
        let output = AVAssetReaderVideoCompositionOutput(videoTracks: asset.tracks.filter { $0.mediaType == .video },
                                                         videoSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        output.videoComposition = composition
        return output
    }

    @Test func framesAreComposedAtEachFrameDurationInOrder() async throws {
        let (asset, composition) = try await Self.setUp()
        let reader = try AVAssetReader(asset: asset)
        let output = Self.output(asset, composition)
        reader.add(output)
        #expect(output.customVideoCompositor == nil)
        #expect(reader.startReading())
        #expect(output.customVideoCompositor is PaintCompositor)
        var k = 0
        while let sample = output.copyNextSampleBuffer() {
            #expect(CMSampleBufferGetPresentationTimeStamp(sample) == CMTimeMultiply(M.frameDuration, multiplier: Int32(k)))
            #expect(CMSampleBufferGetDuration(sample) == M.frameDuration)
            let image = try #require(CMSampleBufferGetImageBuffer(sample))
            #expect(CVPixelBufferGetWidth(image) == M.width && CVPixelBufferGetHeight(image) == M.height)
            let rgb = M.rgb(image, x: 100, y: 600)
            #expect(rgb.count == 3 && rgb[1] == (k * 4) % 256, "frame \(k): \(rgb)")
            #expect(M.close(rgb, [255, (k * 4) % 256, 255]), "frame \(k): \(rgb)")
            k += 1
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(k == 60)  // 2 s / (1/30 s)
        let log = PaintCompositor.log.withLock { $0 }
        #expect(log.instances == 1)
        #expect(log.contexts == [CGSize(width: M.width, height: M.height)])
        #expect(log.started == (0..<60).map { CMTimeMultiply(M.frameDuration, multiplier: Int32($0)) })
        #expect(log.sourceTrackIDs.allSatisfy { $0 == [1, 2] })
        // Requests were in flight together and finished out of order, yet frames came in order.
        #expect(log.finished != log.started)
        #expect(Set(log.finished) == Set(log.started))
    }

    @Test func aRequestFinishedWithAnErrorFailsTheReaderWithIt() async throws {
        let (asset, composition) = try await Self.setUp()
        PaintCompositor.failsFrom.withLock { $0 = M.t(1) }
        let reader = try AVAssetReader(asset: asset)
        let output = Self.output(asset, composition)
        reader.add(output)
        #expect(reader.startReading())
        var count = 0
        while output.copyNextSampleBuffer() != nil { count += 1 }
        #expect(count == 30)
        #expect(reader.status == .failed)
        let error = try #require(reader.error as NSError?)
        #expect(error.domain == "PaintCompositorTest" && error.code == 42)
    }

    @Test func cancellingReadingStopsTheCompositor() async throws {
        let (asset, composition) = try await Self.setUp()
        let reader = try AVAssetReader(asset: asset)
        let output = Self.output(asset, composition)
        reader.add(output)
        #expect(reader.startReading())
        #expect(output.copyNextSampleBuffer() != nil)
        reader.cancelReading()
        #expect(reader.status == .cancelled)
        #expect(output.copyNextSampleBuffer() == nil)
    }

    @Test func exportsAndImagesRunTheCustomCompositor() async throws {
        let (asset, composition) = try await Self.setUp()
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPreset1280x720))
        let url = try AssetFixtures.tempDirectory().appendingPathComponent("painted.mp4")
        session.outputURL = url
        session.outputFileType = .mp4
        session.videoComposition = composition
        await session.export()
        #expect(session.status == .completed, "\(String(describing: session.error))")
        #expect(try AssetFixtures.probe(url, "stream=nb_frames", stream: 0) == "60")
        // Frame 30 (1 s): track 1's red, green 4 × 30, track 2's blue.
        let rgb = M.ffmpegRGB(url, at: 1.0, x: 640, y: 360)
        #expect(M.close(rgb, [255, 120, 255]), "\(rgb)")
        #expect(PaintCompositor.log.withLock { $0.instances } == 1)

        let generator = AVAssetImageGenerator(asset: asset)
        generator.videoComposition = composition
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        #expect(generator.customVideoCompositor == nil)
        let (image, actual) = try await generator.image(at: M.t(0.5))
        #expect(actual == M.t(0.5))
        #expect(generator.customVideoCompositor is PaintCompositor)
        #expect(M.close(M.rgb(image, x: 640, y: 360), [255, 60, 255]), "\(M.rgb(image, x: 640, y: 360))")
        #expect(PaintCompositor.log.withLock { $0.instances } == 2)
    }

    @Test func anInvalidCompositionFailsBeforeReading() async throws {
        let (asset, composition) = try await Self.setUp()
        for broken in [{ (c: AVMutableVideoComposition) in c.frameDuration = .invalid },
                       { (c: AVMutableVideoComposition) in c.renderSize = .zero }] {
            let copy = try #require(composition.mutableCopy() as? AVMutableVideoComposition)
            broken(copy)
            let reader = try AVAssetReader(asset: asset)
            reader.add(Self.output(asset, copy))
            #expect(!reader.startReading())
            #expect(reader.status == .failed)
            #expect((reader.error as? AVError)?.code == .invalidVideoComposition)
        }
    }
}
