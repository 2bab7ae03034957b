// CoreAnimationRendering: the video composition's Core Animation tool at work for one consumer —
// after the compositor, the tool's layer tree is evaluated at the frame's movie time (the composed
// frame as the video layers' contents) and drawn by QuartzCore's LayerRenderer into a new 32-bit
// BGRA frame; in the additional-layer form, the tree drawn alone is a source track's frame.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine
import QuartzCore

/// Renders an `AVVideoCompositionCoreAnimationTool`'s layers for one consumer (one export, reader
/// output or image generator). Used from the consumer's one thread.
final class CoreAnimationRendering {
    let tool: AVVideoCompositionCoreAnimationTool
    let width: Int
    let height: Int
    /// Draws the trees; keeps unchanged subtrees (a watermark, a title between its animations)
    /// as surfaces from one frame to the next.
    private let renderer = LayerRenderer()
    private let pool: CVPixelBufferPool
    /// Where composed frames in another format are converted to BGRA for the video layers.
    private var bgraPool: (pool: CVPixelBufferPool, width: Int, height: Int)?

    /// The tool's renderer for frames of `width`×`height` (the render context's size).
    init(tool: AVVideoCompositionCoreAnimationTool, width: Int, height: Int) throws {
        self.tool = tool
        self.width = width
        self.height = height
        pool = try Self.makePool(width: width, height: height)
    }

    /// The track ID of the additional layer's frames (nil in the post-processing form).
    var additionalTrackID: CMPersistentTrackID? {
        tool.additionalLayer != nil && tool.additionalTrackID != kCMPersistentTrackID_Invalid ? tool.additionalTrackID : nil
    }

    /// The output frame for the composed frame `composed` at movie time `time`: the animation
    /// layer's tree drawn over black with `composed` in the video layers. Without an animation
    /// layer (the additional-layer form) the frame is `composed` itself.
    func postProcess(_ composed: CVPixelBuffer, at time: CMTime) throws -> CVPixelBuffer {
        guard let root = tool.animationLayer else { return composed }
        let frame = try bgra(composed)
        var overrides: [ObjectIdentifier: RenderLayer.Contents] = [:]
        for layer in tool.videoLayers { overrides[ObjectIdentifier(layer)] = .pixelBuffer(frame) }
        return try draw(root.renderTree(at: Self.seconds(time), contentsOverrides: overrides))
    }

    /// The additional layer drawn alone at movie time `time` (transparent where it draws
    /// nothing), as its track's frame.
    func additionalFrame(at time: CMTime) throws -> CVPixelBuffer? {
        guard let layer = tool.additionalLayer else { return nil }
        return try draw(layer.renderTree(at: Self.seconds(time)), over: false)
    }

    /// Movie time in seconds, as layer time.
    static func seconds(_ time: CMTime) -> CFTimeInterval {
        time.isNumeric ? time.seconds : 0
    }

    /// `tree` drawn into a new frame (over opaque black when `over`, else over transparent).
    private func draw(_ tree: RenderLayer, over black: Bool = true) throws -> CVPixelBuffer {
        var made: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made) == kCVReturnSuccess, let out = made else {
            throw VideoCompositionSession.invalid("Cannot allocate a frame for the Core Animation tool.")
        }
        CVPixelBufferLockBaseAddress(out, [])
        defer { CVPixelBufferUnlockBaseAddress(out, []) }
        guard let base = CVPixelBufferGetBaseAddress(out),
              let context = CGContext(data: base, width: width, height: height, bitsPerComponent: 8,
                                      bytesPerRow: CVPixelBufferGetBytesPerRow(out), space: CGColorSpaceCreateDeviceRGB(),
                                      bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        else { throw VideoCompositionSession.invalid("Cannot draw into a frame for the Core Animation tool.") }
        let all = CGRect(x: 0, y: 0, width: width, height: height)
        if black {
            context.setFillColor(gray: 0, alpha: 1)
            context.fill(all)
        } else {
            context.clear(all)
        }
        renderer.draw(tree, in: context)
        return out
    }

    /// `buffer` as 32-bit BGRA: itself when it is, else converted (once per frame, into a pool).
    private func bgra(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        guard CVPixelBufferGetPixelFormatType(buffer) != kCVPixelFormatType_32BGRA else { return buffer }
        let w = CVPixelBufferGetWidth(buffer), h = CVPixelBufferGetHeight(buffer)
        if bgraPool.map({ $0.width != w || $0.height != h }) ?? true {
            bgraPool = (try Self.makePool(width: w, height: h), w, h)
        }
        var made: CVPixelBuffer?
        guard let pool = bgraPool?.pool, CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made) == kCVReturnSuccess, let out = made else {
            throw VideoCompositionSession.invalid("Cannot allocate a frame for the Core Animation tool.")
        }
        do {
            var options = PixelConverter.Options()
            options.fast = true
            try PixelConverter.shared.transfer(from: buffer, to: out, options: options)
        } catch {
            throw VideoCompositionSession.invalid("Cannot convert a composed frame for the Core Animation tool (\(error)).")
        }
        return out
    }

    private static func makePool(width: Int, height: Int) throws -> CVPixelBufferPool {
        var made: CVPixelBufferPool?
        let attributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32BGRA),
                                         kCVPixelBufferWidthKey as String: NSNumber(value: width),
                                         kCVPixelBufferHeightKey as String: NSNumber(value: height)]
        guard CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &made) == kCVReturnSuccess, let made else {
            throw VideoCompositionSession.invalid("Cannot allocate \(width)×\(height) frames for the Core Animation tool.")
        }
        return made
    }
}
