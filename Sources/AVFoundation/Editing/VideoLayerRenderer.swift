// VideoLayerRenderer: the built-in compositor's bridge to the engine's `FrameCompositor` —
// layers in Core Graphics terms in, one composed pixel buffer out (or a source frame that hides
// everything, passed through without a copy).
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine

/// Renders the layers of one render context: one `FrameCompositor` (pixman and libswscale)
/// at the context's size in the output format. Thread-safe: requests render concurrently.
final class VideoLayerRenderer: @unchecked Sendable {
    /// One layer: a source frame placed by `transform` (source pixels → frame pixels, top-left
    /// origin), cropped first to `crop` (source pixels; nil: whole), at `opacity`.
    struct Layer {
        var buffer: CVPixelBuffer
        var transform: CGAffineTransform
        var crop: CGRect?
        var opacity: Float
    }

    /// The source formats the built-in compositor asks for: the decoder's planar 4:2:0 (no
    /// conversion when decoding H.264/HEVC 8-bit), NV12, BGRA.
    static let sourceFormats: [OSType] = [kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                          kCVPixelFormatType_32BGRA]
    /// The formats the engine composites in place.
    static let renderedFormats: [OSType] = [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_32BGRA]

    private let compositor: FrameCompositor
    /// Formats a source frame may be passed on in (the consumer's).
    private let acceptedFormats: [OSType]

    init(width: Int, height: Int, format: OSType, acceptedFormats: [OSType]) throws {
        do {
            compositor = try FrameCompositor(renderWidth: width, renderHeight: height, pixelFormat: format)
        } catch {
            throw VideoCompositionSession.invalid("The built-in compositor cannot render \(width)×\(height) frames (\(error)).")
        }
        self.acceptedFormats = acceptedFormats.isEmpty ? [format] : acceptedFormats
    }

    /// `layers` (front first) over `background` (nil: black) — or the front layer's own frame
    /// when it is opaque, untransformed, uncropped and the frame's size.
    func compose(_ layers: [Layer], background: CGColor?) throws -> CVPixelBuffer {
        let engineLayers = layers.map { CompositorLayer(image: $0.buffer, transform: $0.transform, cropRectangle: $0.crop, opacity: $0.opacity) }
        if let frame = FrameCompositor.passthroughImage(layers: engineLayers, renderWidth: compositor.renderWidth,
                                                        renderHeight: compositor.renderHeight, acceptedPixelFormats: acceptedFormats) {
            return frame
        }
        do {
            return try compositor.render(layers: engineLayers, backgroundColor: Self.color(background))
        } catch {
            throw AVError(.invalidVideoComposition, userInfo: [NSLocalizedDescriptionKey: "Cannot Complete Action",
                                                               NSLocalizedFailureReasonErrorKey: "A frame cannot be composed (\(error))."])
        }
    }

    /// A Core Graphics colour as straight RGBA components (grey as R = G = B); nil: opaque black.
    static func color(_ color: CGColor?) -> FrameCompositor.Color {
        guard let color, let c = color.components else { return (0, 0, 0, 1) }
        switch c.count {
        case 2: return (Float(c[0]), Float(c[0]), Float(c[0]), Float(c[1]))
        case 4...: return (Float(c[0]), Float(c[1]), Float(c[2]), Float(c[3]))
        default: return (0, 0, 0, 1)
        }
    }
}
