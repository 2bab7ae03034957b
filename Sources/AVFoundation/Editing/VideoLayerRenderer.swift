// VideoLayerRenderer: the built-in compositor's bridge to the engine's frame compositor — layers
// in Core Graphics terms in, one composed pixel buffer out.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine

enum VideoLayerRenderer {
    /// One layer: a source frame placed by `transform` (source pixels → frame pixels, top-left
    /// origin), cropped first to `crop` (source pixels; nil: whole), at `opacity`.
    struct Layer {
        var buffer: CVPixelBuffer
        var transform: CGAffineTransform
        var crop: CGRect?
        var opacity: Float
    }

    /// The source formats the engine composes from.
    static let sourceFormats: [OSType] = [kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                          kCVPixelFormatType_32BGRA]

    /// `layers` (front first) over `background` (nil: black) into a frame of the context's size
    /// in `format`. The front layer is the frame itself, with no copy, when it hides everything.
    static func compose(_ layers: [Layer], background: CGColor?, context: AVVideoCompositionRenderContext,
                        format: OSType) throws -> CVPixelBuffer {
        if let front = layers.first, covers(front, context.size) { return front.buffer }
        throw VideoCompositionSession.invalid("The engine compositor is not wired yet.")
    }

    /// Whether `layer` alone is the frame: opaque, untransformed, uncropped, the frame's size.
    static func covers(_ layer: Layer, _ size: CGSize) -> Bool {
        let width = CVPixelBufferGetWidth(layer.buffer), height = CVPixelBufferGetHeight(layer.buffer)
        guard layer.opacity >= 1, layer.transform == .identity, CGFloat(width) == size.width, CGFloat(height) == size.height else { return false }
        guard let crop = layer.crop else { return true }
        return crop.contains(CGRect(x: 0, y: 0, width: width, height: height))
    }
}
