// AVAssetImageGenerator: still images of an asset's video at requested times.
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine

/// The handler `generateCGImagesAsynchronously(forTimes:completionHandler:)` calls once per
/// requested time: the requested time, the image (nil unless succeeded), the time of the frame
/// the image shows, the outcome and, on failure, the error.
public typealias AVAssetImageGeneratorCompletionHandler =
    @Sendable (CMTime, CGImage?, CMTime, AVAssetImageGenerator.Result, (any Error)?) -> Void

/// An object that provides thumbnail or preview images of an asset independently of playback.
///
/// The generator uses the asset's first enabled video track. Creating one always succeeds, even
/// for an asset without video; requests then fail with `AVError.noImageAtTime`.
///
/// The image for a request shows a frame whose presentation time lies within
/// `[requestedTime − requestedTimeToleranceBefore, requestedTime + requestedTimeToleranceAfter]`:
/// with both tolerances zero, exactly the frame on screen at the requested time (the frame
/// whose presentation interval contains it; the first or last frame before the start or after
/// the end); with wider tolerances, the frame in that window that is cheapest to decode
/// (a keyframe if there is one). `actualTime` is always the presentation time of the frame shown.
///
/// Images are 8-bit BGRX (`byteOrder32Little | noneSkipFirst`): video is opaque. They are scaled once from
/// the decoded picture to their final size.
///
/// One decoder serves every request of a generator and moves forward through the track: times
/// inside one group of pictures cost one decoding pass, which makes batches
/// (`generateCGImagesAsynchronously(forTimes:completionHandler:)`, `images(for:)`) and ascending
/// single requests cheap. The generator is thread-safe and keeps itself alive until its
/// asynchronous requests have completed.
open class AVAssetImageGenerator: NSObject, @unchecked Sendable {
    /// The outcome of one image request.
    @frozen public enum Result: Int, @unchecked Sendable {
        /// The image was generated.
        case succeeded = 0
        /// Generation failed; the handler's error says why.
        case failed = 1
        /// The request was cancelled (`cancelAllCGImageGeneration()`).
        case cancelled = 2
    }

    /// Which part of the encoded picture an image shows, and with what pixel shape.
    public struct ApertureMode: Hashable, Equatable, RawRepresentable, @unchecked Sendable {
        /// The mode's name.
        public let rawValue: String
        /// A mode with the given name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The clean aperture (the picture's display region) with square pixels (the default).
        public static let cleanAperture = ApertureMode(rawValue: "CleanAperture")
        /// The full picture with square pixels (the pixel aspect ratio applied).
        public static let productionAperture = ApertureMode(rawValue: "ProductionAperture")
        /// The picture as encoded, pixel for pixel.
        public static let encodedPixels = ApertureMode(rawValue: "EncodedPixels")
    }

    /// The asset the generator was created with.
    public let asset: AVAsset

    private let session: ImageGenerationSession
    private let state = NSLock()
    private var settings = ImageGenerationSettings()
    private var cancelGeneration = 0
    private let queue = DispatchQueue(label: "AVAssetImageGenerator")

    /// Creates an image generator for `asset`. Succeeds even when the asset has no video track.
    public init(asset: AVAsset) {
        self.asset = asset
        self.session = ImageGenerationSession(asset: asset)
        super.init()
    }

    // MARK: Settings

    /// Whether images are turned and mirrored by the track's preferred transform (default
    /// false: images as encoded). Applied before `maximumSize`.
    open var appliesPreferredTrackTransform: Bool {
        get { state.withLock { settings.appliesPreferredTrackTransform } }
        set { state.withLock { settings.appliesPreferredTrackTransform = newValue } }
    }

    /// The largest size an image may have (default `.zero`: the video's own size). Images are
    /// scaled down to fit inside it with their aspect ratio kept, never up; a zero width or
    /// height leaves that dimension unconstrained.
    open var maximumSize: CGSize {
        get { state.withLock { settings.maximumSize } }
        set { state.withLock { settings.maximumSize = newValue } }
    }

    /// The aperture mode (default `.cleanAperture`).
    open var apertureMode: ApertureMode {
        get { state.withLock { settings.apertureMode } }
        set { state.withLock { settings.apertureMode = newValue } }
    }

    /// How much earlier than the requested time the frame shown may be (default +∞: any).
    /// Zero with a zero `requestedTimeToleranceAfter` requests the exact frame.
    open var requestedTimeToleranceBefore: CMTime {
        get { state.withLock { settings.toleranceBefore } }
        set { state.withLock { settings.toleranceBefore = newValue } }
    }

    /// How much later than the requested time the frame shown may be (default +∞: any).
    open var requestedTimeToleranceAfter: CMTime {
        get { state.withLock { settings.toleranceAfter } }
        set { state.withLock { settings.toleranceAfter = newValue } }
    }

    /// How the asset's video tracks are composed into the images (a copy is kept): with one,
    /// an image is the frame the composition makes at the `k·frameDuration` showing the
    /// requested time (its render size, fitted to `maximumSize`), and `actualTime` is that
    /// frame's time. nil: the first enabled video track's frames.
    open var videoComposition: AVVideoComposition? {
        get { state.withLock { settings.videoComposition } }
        set {
            let copy = newValue?.copy() as? AVVideoComposition
            state.withLock { settings.videoComposition = copy }
        }
    }

    /// The instance of the video composition's `customVideoCompositorClass` the generator uses
    /// (once an image has been asked for); nil with the built-in compositor.
    open var customVideoCompositor: (any AVVideoCompositing)? { session.customVideoCompositor }

    // MARK: Generating images

    /// Returns an image for the asset at or near `requestedTime`, synchronously. `actualTime`,
    /// when given, receives the presentation time of the frame the image shows.
    open func copyCGImage(at requestedTime: CMTime, actualTime: UnsafeMutablePointer<CMTime>?) throws -> CGImage {
        let settings = state.withLock { self.settings }
        let generated = try session.generate(at: requestedTime, settings: settings)
        actualTime?.pointee = generated.actualTime
        return generated.image
    }

    /// Generates an image for `time`; returns it with the time of the frame it shows.
    open func image(at time: CMTime) async throws -> (image: CGImage, actualTime: CMTime) {
        let settings = state.withLock { self.settings }
        let cancelled = CancellationFlag()
        let generated: GeneratedImage = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async { [self] in
                    continuation.resume(with: Swift.Result {
                        try session.generate(at: time, settings: settings, isCancelled: { cancelled.isSet })
                    })
                }
            }
        } onCancel: {
            cancelled.set()
        }
        return (generated.image, generated.actualTime)
    }

    /// Generates images for `times`, delivered as an asynchronous sequence in the order of
    /// `times`, one element per time.
    open func images(for times: [CMTime]) -> Images {
        Images(generator: self, times: times)
    }

    /// Generates an image for `requestedTime` in the background and calls `handler` with it (or
    /// the error) and the time of the frame it shows.
    open func generateCGImageAsynchronously(for requestedTime: CMTime,
                                            completionHandler handler: @escaping @Sendable (CGImage?, CMTime, (any Error)?) -> Void) {
        generateCGImagesAsynchronously(forTimes: [NSValue(time: requestedTime)]) { _, image, actual, _, error in
            handler(image, actual, error)
        }
    }

    /// Generates images for `requestedTimes` (NSValues holding CMTimes) in the background and
    /// calls `handler` exactly once per requested time. Requests are served in time order, so
    /// the handler sees ascending requested times; `cancelAllCGImageGeneration()` completes the
    /// ones not yet served with `.cancelled`. The generator stays alive until all are done.
    open func generateCGImagesAsynchronously(forTimes requestedTimes: [NSValue],
                                             completionHandler handler: @escaping AVAssetImageGeneratorCompletionHandler) {
        let times = requestedTimes.map(\.timeValue)
        let (settings, generation) = state.withLock { (self.settings, cancelGeneration) }
        queue.async { [self] in   // `self` is kept alive by this block until the batch ends.
            let isCancelled = { self.state.withLock { self.cancelGeneration != generation } }
            let left = session.generate(times, settings: settings, isCancelled: isCancelled) { i, outcome in
                switch outcome {
                case .success(let generated):
                    handler(times[i], generated.image, generated.actualTime, .succeeded, nil)
                case .failure(let error):
                    handler(times[i], nil, .invalid, .failed, error)
                }
            }
            for i in left.sorted() { handler(times[i], nil, .invalid, .cancelled, nil) }
        }
    }

    /// Cancels every request not yet served; each is completed with `.cancelled`.
    open func cancelAllCGImageGeneration() {
        state.withLock { cancelGeneration += 1 }
    }
}

/// A flag set once from any thread.
final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    /// Whether `set()` was called.
    var isSet: Bool { lock.withLock { value } }
    /// Raises the flag.
    func set() { lock.withLock { value = true } }
}
