// AVVideoCompositionRenderContext: the size, scale and buffer pool a compositor renders with.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation

/// The context a video compositor renders in: the size of the frames to compose, the render
/// transform and scale, and a pool of pixel buffers with the compositor's required attributes.
///
/// One context serves every request of a reader output, export or image generator; it is
/// given to the compositor by `renderContextChanged(_:)` before the first request.
open class AVVideoCompositionRenderContext: NSObject, @unchecked Sendable {
    private let composition: AVVideoComposition
    private let pixelSize: CGSize
    private let scale: Float
    private let pool: CVPixelBufferPool
    /// The pixel format of the pool's buffers.
    let pixelFormat: OSType

    /// A context for `composition` whose buffers have `attributes` (a compositor's required
    /// attributes: the pixel format, one or an array of them, and any others); the size is the
    /// composition's render size times its render scale. Throws an AVError when no pool can be
    /// made (no usable pixel format, or an allocation failure).
    init(composition: AVVideoComposition, attributes: [String: any Sendable]) throws {
        self.composition = composition
        scale = composition.renderScale
        let size = composition.renderSize
        let width = Int((Double(size.width) * Double(scale)).rounded())
        let height = Int((Double(size.height) * Double(scale)).rounded())
        pixelSize = CGSize(width: width, height: height)
        guard let format = Self.firstFormat(attributes[kCVPixelBufferPixelFormatTypeKey as String]) else {
            throw VideoCompositionSession.invalid("The compositor's requiredPixelBufferAttributesForRenderContext has no kCVPixelBufferPixelFormatTypeKey.")
        }
        pixelFormat = format
        var poolAttributes: [String: Any] = [:]
        for (key, value) in attributes { poolAttributes[key] = value }
        poolAttributes[kCVPixelBufferPixelFormatTypeKey as String] = NSNumber(value: format)
        poolAttributes[kCVPixelBufferWidthKey as String] = NSNumber(value: width)
        poolAttributes[kCVPixelBufferHeightKey as String] = NSNumber(value: height)
        var made: CVPixelBufferPool?
        let status = CVPixelBufferPoolCreate(nil, nil, poolAttributes as NSDictionary, &made)
        guard status == kCVReturnSuccess, let made else {
            throw VideoCompositionSession.invalid("Cannot make \(width)×\(height) pixel buffers of format \(format) for the compositor (\(status)).")
        }
        pool = made
        super.init()
    }

    /// The first pixel format of an attribute value (a number or an array of numbers).
    static func firstFormat(_ value: Any?) -> OSType? {
        if let formats = value as? [Any] { return formats.lazy.compactMap { firstFormat($0) }.first }
        if let number = value as? NSNumber { return number.uint32Value }
        if let format = value as? OSType { return format }
        if let format = value as? Int, let exact = OSType(exactly: format) { return exact }
        return nil
    }

    /// Every pixel format of an attribute value, in order.
    static func formats(_ value: Any?) -> [OSType] {
        if let formats = value as? [Any] { return formats.compactMap { firstFormat($0) } }
        return firstFormat(value).map { [$0] } ?? []
    }

    /// The width and height, in pixels, of the frames to compose (render size × render scale).
    open var size: CGSize { pixelSize }
    /// The transform from the composition's render coordinates to the frame's pixels (the
    /// render scale).
    open var renderTransform: CGAffineTransform {
        CGAffineTransform(scaleX: CGFloat(scale), y: CGFloat(scale))
    }
    /// The scale the frames are rendered at.
    open var renderScale: Float { scale }
    /// The pixel aspect ratio of the frames: square (1:1).
    open var pixelAspectRatio: AVPixelAspectRatio { AVPixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 1) }
    /// The widths of the edges processed around the frames: none.
    open var edgeWidths: AVEdgeWidths { AVEdgeWidths() }
    /// Whether rendering should favour quality over speed: true (no real-time playback here).
    open var highQualityRendering: Bool { true }
    /// The video composition being rendered.
    open var videoComposition: AVVideoComposition { composition }

    /// A buffer to render a frame into, from the context's pool (the size of `size`, with the
    /// compositor's required attributes); nil when none can be allocated.
    open func newPixelBuffer() -> CVPixelBuffer? {
        var buffer: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer) == kCVReturnSuccess else { return nil }
        return buffer
    }
}
