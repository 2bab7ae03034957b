// AVVideoCompositing: the protocol of custom video compositors, and the value types its render
// context reports (AVPixelAspectRatio, AVEdgeWidths) and the render hint it may be given.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation

/// The methods a custom video compositor implements.
///
/// For each `AVAssetExportSession`, `AVAssetImageGenerator` or
/// `AVAssetReaderVideoCompositionOutput` whose `videoComposition` names a
/// `customVideoCompositorClass`, one instance of that class is made (`init()` of the
/// `NSObject` subclass) and given every frame to compose as an `AVAsynchronousVideoCompositionRequest`.
/// `startRequest(_:)` is called in composition-time order; the compositor may finish requests
/// on any thread and in any order (it usually renders on a queue of its own, several at once),
/// and the frames are delivered in order. Before the first request, `renderContextChanged(_:)`
/// gives the context whose `newPixelBuffer()` vends buffers with the attributes
/// `requiredPixelBufferAttributesForRenderContext` asks for; source frames arrive in one of the
/// formats `sourcePixelBufferAttributes` lists.
///
/// The protocol requires `init()`, which Apple's does not declare: Objective-C makes the class
/// with `[[cls alloc] init]`, and Swift on Linux can call an initializer through a class object
/// only when a protocol (or `required`) declares it. A `final` NSObject subclass meets it with
/// NSObject's `init()`; a class that is not final declares `required override init()`.
///
/// Apple's optional members (`cancelAllPendingVideoCompositionRequests()`,
/// `supportsWideColorSourceFrames`, …) have default implementations in an extension here: Swift
/// on Linux has no `@objc optional` requirements. A compositor implementing them is called as on
/// Apple platforms.
public protocol AVVideoCompositing: NSObjectProtocol, Sendable {
    /// Makes the compositor (once per reader output, export or image generator).
    init()

    /// The pixel buffer attributes the compositor accepts for source frames: a
    /// `kCVPixelBufferPixelFormatTypeKey` entry (one format or an array of them) and any other
    /// attributes it needs. nil: the engine chooses.
    var sourcePixelBufferAttributes: [String: any Sendable]? { get }

    /// The pixel buffer attributes of the buffers the compositor renders into (the render
    /// context's pool): a `kCVPixelBufferPixelFormatTypeKey` entry, required.
    var requiredPixelBufferAttributesForRenderContext: [String: any Sendable] { get }

    /// Tells the compositor the context it renders in (before the first request, and whenever
    /// it changes).
    func renderContextChanged(_ newRenderContext: AVVideoCompositionRenderContext)

    /// Asks the compositor to compose one frame; it finishes the request exactly once, with
    /// `finish(withComposedVideoFrame:)`, `finish(with:)` or `finishCancelledRequest()`.
    func startRequest(_ asyncVideoCompositionRequest: AVAsynchronousVideoCompositionRequest)

    /// Asks the compositor to finish every pending request soon, with `finishCancelledRequest()`
    /// where it has not rendered them yet. Optional on Apple platforms (default: nothing).
    func cancelAllPendingVideoCompositionRequests()

    /// Whether the compositor takes source frames with wide colour. Optional (default false).
    var supportsWideColorSourceFrames: Bool { get }

    /// Whether the compositor takes HDR source frames. Optional (default false).
    var supportsHDRSourceFrames: Bool { get }

    /// Whether the compositor can take source frames of any colour space and conform them.
    /// Optional (default false).
    var canConformColorOfSourceFrames: Bool { get }

    /// Whether the compositor takes tagged buffers as sources. Optional (default false).
    var supportsSourceTaggedBuffers: Bool { get }

    /// Tells the compositor which frames it is about to be asked for. Optional (default: nothing).
    func anticipateRendering(using renderHint: AVVideoCompositionRenderHint)

    /// Tells the compositor to get ready for the frames of a hint before they are asked for.
    /// Optional (default: nothing).
    func prerollForRendering(using renderHint: AVVideoCompositionRenderHint)
}

extension AVVideoCompositing {
    /// Default for Apple's optional requirement: nothing to cancel.
    public func cancelAllPendingVideoCompositionRequests() {}
    /// Default for Apple's optional requirement: false.
    public var supportsWideColorSourceFrames: Bool { false }
    /// Default for Apple's optional requirement: false.
    public var supportsHDRSourceFrames: Bool { false }
    /// Default for Apple's optional requirement: false.
    public var canConformColorOfSourceFrames: Bool { false }
    /// Default for Apple's optional requirement: false.
    public var supportsSourceTaggedBuffers: Bool { false }
    /// Default for Apple's optional requirement: nothing.
    public func anticipateRendering(using renderHint: AVVideoCompositionRenderHint) {}
    /// Default for Apple's optional requirement: nothing.
    public func prerollForRendering(using renderHint: AVVideoCompositionRenderHint) {}
}

/// The shape of a pixel: its horizontal and vertical spacing.
public struct AVPixelAspectRatio: Sendable, Equatable {
    /// The horizontal spacing.
    public var horizontalSpacing: Int
    /// The vertical spacing.
    public var verticalSpacing: Int

    public init() {
        horizontalSpacing = 0
        verticalSpacing = 0
    }

    public init(horizontalSpacing: Int, verticalSpacing: Int) {
        self.horizontalSpacing = horizontalSpacing
        self.verticalSpacing = verticalSpacing
    }
}

/// The widths of the edges of a frame (edge processing), in pixels.
public struct AVEdgeWidths: Sendable, Equatable {
    public var left: CGFloat
    public var top: CGFloat
    public var right: CGFloat
    public var bottom: CGFloat

    public init() {
        left = 0
        top = 0
        right = 0
        bottom = 0
    }

    public init(left: CGFloat, top: CGFloat, right: CGFloat, bottom: CGFloat) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }
}

/// Which frames a compositor will be asked for: the composition times from start to end.
open class AVVideoCompositionRenderHint: NSObject, @unchecked Sendable {
    private let start: CMTime
    private let end: CMTime

    init(startCompositionTime: CMTime, endCompositionTime: CMTime) {
        start = startCompositionTime
        end = endCompositionTime
        super.init()
    }

    /// The composition time of the first frame to come.
    open var startCompositionTime: CMTime { start }
    /// The composition time after the last frame to come.
    open var endCompositionTime: CMTime { end }
}
