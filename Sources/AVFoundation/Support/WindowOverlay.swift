// WindowOverlay: a video layer's sublayers drawn over the picture in its desktop window — the
// capture preview layer's and the player layer's, as on Apple platforms where sublayers of a
// video layer sit on top of the video.
import CoreGraphics
import CoreVideo
import Foundation
import Synchronization
internal import MediaEngine
import QuartzCore

extension CALayer {
    /// The sublayers as a window's overlay at `time`, in a root of the window's size
    /// (`width`×`height` pixels) laid out from its top-left corner (the layer's coordinates as on
    /// iOS, where the conversions place things); nil without sublayers, or when none shows
    /// (all hidden or transparent: the window then draws no overlay at all). `extra` is drawn
    /// under the sublayers (the player's caption box, part of the video layer's own content as
    /// on Apple platforms), laid out in the same coordinates.
    func overlayTree(at time: CFTimeInterval, width: Int, height: Int, adding extra: CALayer? = nil) -> RenderLayer? {
        guard !(sublayers ?? []).isEmpty || extra != nil else { return nil }
        var tree = renderTree(at: time)
        if let extra { tree.sublayers.insert(extra.renderTree(at: time), at: 0) }
        guard tree.sublayers.contains(where: { !$0.isHidden && $0.opacity > 0 }) else { return nil }
        var root = RenderLayer(id: ObjectIdentifier(self),
                               bounds: CGRect(origin: tree.bounds.origin, size: CGSize(width: width, height: height)),
                               position: CGPoint(x: Double(width) / 2, y: Double(height) / 2))
        root.isGeometryFlipped = true
        root.sublayerTransform = tree.sublayerTransform
        // Under a flipped root every layer's contents flip once more (Core Animation's
        // contentsAreFlipped is the parity of the flips above a layer), so images stay upright.
        root.sublayers = tree.sublayers.map(Self.flippingContents)
        return root
    }

    private static func flippingContents(_ layer: RenderLayer) -> RenderLayer {
        var l = layer
        l.contentsAreFlipped.toggle()
        l.sublayers = l.sublayers.map(flippingContents)
        l.mask = l.mask.map(flippingContents)
        if case .replicator(var replicator) = l.content {
            replicator.instances = replicator.instances.map { $0.map(flippingContents) }
            l.content = .replicator(replicator)
        }
        return l
    }
}

/// Draws a layer's sublayers into its window's overlay, only when they look different from the
/// last time (or the window changed or was resized). Thread-safe; drawing is serialised.
final class WindowOverlay: Sendable {
    private struct State {
        /// Keeps unchanged subtrees as surfaces between refreshes.
        var renderer = LayerRenderer()
        /// The overlay last drawn, the window it went to and that window's size.
        var last: (tree: RenderLayer?, window: ObjectIdentifier, width: Int, height: Int)?
    }

    private let state = Mutex(State())

    /// Evaluates `layer`'s sublayers now and, when they changed, draws them into a window-sized
    /// premultiplied BGRA picture for `window`'s overlay; no sublayers remove it.
    func refresh(_ layer: CALayer, window: WindowSink, width: Int, height: Int, adding extra: CALayer? = nil) {
        let tree = layer.overlayTree(at: CACurrentMediaTime(), width: width, height: height, adding: extra)
        let picture: CVPixelBuffer?? = state.withLock { s in
            if let last = s.last, last.tree == tree, last.window == ObjectIdentifier(window), last.width == width,
               last.height == height { return .none }
            s.last = (tree, ObjectIdentifier(window), width, height)
            guard let tree else { return .some(nil) }
            var made: CVPixelBuffer?
            guard CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &made) == kCVReturnSuccess,
                  let overlay = made else { return .none }
            CVPixelBufferLockBaseAddress(overlay, [])
            if let context = CGContext(data: CVPixelBufferGetBaseAddress(overlay), width: width, height: height,
                                       bitsPerComponent: 8, bytesPerRow: CVPixelBufferGetBytesPerRow(overlay),
                                       space: CGColorSpaceCreateDeviceRGB(),
                                       bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue) {
                context.clear(CGRect(x: 0, y: 0, width: width, height: height))
                s.renderer.draw(tree, in: context)
            }
            CVPixelBufferUnlockBaseAddress(overlay, [])
            return .some(overlay)
        }
        if case .some(let overlay) = picture { window.setOverlay(overlay) }
    }
}
