// BuiltInVideoCompositor: the compositor a video composition uses when it names no custom class —
// an AVVideoCompositing conformer like any other, rendering AVVideoCompositionInstructions
// (layer transforms, crops, opacities over the background colour) with the engine's compositor.
import CoreGraphics
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
internal import MediaEngine
import Synchronization

/// Renders `AVVideoCompositionInstruction`s: for each request, the instruction's layers at the
/// composition time (front first), each source frame placed by the layer's transform (the whole
/// placement, as on Apple: a track's `preferredTransform` applies only when a layer instruction
/// sets it, as `init(propertiesOf:)` does), then the render scale, cropped and faded, blended over the
/// instruction's background colour (black by default) at the render context's size. A front
/// layer that is opaque, untransformed, uncropped and exactly the frame's size hides everything
/// behind it: its source frame is the composed frame, with no copy. Requests render on a
/// concurrent queue, several at once.
final class BuiltInVideoCompositor: NSObject, AVVideoCompositing, @unchecked Sendable {
    /// The format composed frames are rendered in.
    let outputFormat: OSType
    /// The formats the consumer takes (a source frame in one of them may be passed on).
    private let acceptedFormats: [OSType]
    private let queue = DispatchQueue(label: "AVVideoComposition.builtInCompositor", attributes: .concurrent)
    private let state = Mutex<(renderer: VideoLayerRenderer?, generation: Int)>((nil, 0))

    /// `outputFormats`: what the consumer takes, best first; the first the engine renders in
    /// place is chosen (BGRA when none is).
    init(outputFormats: [OSType]) {
        outputFormat = outputFormats.first { VideoLayerRenderer.renderedFormats.contains($0) } ?? kCVPixelFormatType_32BGRA
        acceptedFormats = outputFormats.isEmpty ? [outputFormat] : outputFormats
        super.init()
    }

    /// The protocol's `init()`: a compositor rendering BGRA.
    convenience override init() {
        self.init(outputFormats: [])
    }

    var sourcePixelBufferAttributes: [String: any Sendable]? {
        [kCVPixelBufferPixelFormatTypeKey as String: VideoLayerRenderer.sourceFormats.map { NSNumber(value: $0) }]
    }

    var requiredPixelBufferAttributesForRenderContext: [String: any Sendable] {
        [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: outputFormat)]
    }

    func renderContextChanged(_ newRenderContext: AVVideoCompositionRenderContext) {
        let size = newRenderContext.size
        let renderer = try? VideoLayerRenderer(width: Int(size.width), height: Int(size.height), format: outputFormat,
                                               acceptedFormats: acceptedFormats)
        state.withLock { $0.renderer = renderer }
    }

    func startRequest(_ request: AVAsynchronousVideoCompositionRequest) {
        let generation = state.withLock { $0.generation }
        queue.async { [self] in
            guard state.withLock({ $0.generation }) == generation else {
                request.finishCancelledRequest()
                return
            }
            do {
                request.finish(withComposedVideoFrame: try render(request))
            } catch {
                request.finish(with: error)
            }
        }
    }

    func cancelAllPendingVideoCompositionRequests() {
        state.withLock { $0.generation += 1 }
    }

    /// The composed frame for `request`.
    private func render(_ request: AVAsynchronousVideoCompositionRequest) throws -> CVPixelBuffer {
        guard let instruction = request.videoCompositionInstruction as? AVVideoCompositionInstruction else {
            throw VideoCompositionSession.invalid("The built-in compositor renders AVVideoCompositionInstruction objects; "
                                                  + "a custom instruction class needs a customVideoCompositorClass.")
        }
        guard let renderer = state.withLock({ $0.renderer }) else {
            let size = request.renderContext.size
            throw VideoCompositionSession.invalid("The built-in compositor cannot render \(Int(size.width))×\(Int(size.height)) frames.")
        }
        let scale = request.renderContext.renderTransform
        var layers: [VideoLayerRenderer.Layer] = []
        for state in instruction.layerStates(at: request.compositionTime) {
            guard let frame = request.sourceFrame(byTrackID: state.trackID) else { continue }
            let transform = state.transform.concatenating(scale)
            layers.append(VideoLayerRenderer.Layer(buffer: frame, transform: transform, crop: state.cropRectangle, opacity: state.opacity))
        }
        return try renderer.compose(layers, background: instruction.backgroundColor)
    }
}
