// LayerVideoWindow: the desktop window a video layer (AVPlayerLayer, AVSampleBufferDisplayLayer)
// shows its pictures in — MediaEngine's SDL2 WindowSink sized and placed by the layer's frame,
// the picture fitted by the layer's video gravity.
import CoreGraphics
import CoreVideo
import Foundation
import Synchronization
internal import MediaEngine
import QuartzCore

/// Shows a layer's pictures in a window. Thread-safe.
///
/// The window opens at the first picture: the layer's `bounds` size in pixels (the picture's
/// size when the bounds are empty) at its `frame` origin on the screen, titled with its `name`
/// (else the process's name). Without a display (no `DISPLAY`/`WAYLAND_DISPLAY`,
/// `AVFOUNDATION_PREVIEW=off`, no SDL2) nothing opens and nothing fails: pictures are counted.
final class LayerVideoWindow: Sendable {
    private struct State {
        var window: WindowSink?
        var gravity = AVLayerVideoGravity.resizeAspect
        var pictureSize = CGSize.zero
        var closed = false
        var shown = 0
        var layer = LayerReference()
    }

    /// The layer, weakly. @unchecked Sendable: CALayer keeps all its values in one Mutex, and only those are read here.
    struct LayerReference: @unchecked Sendable {
        weak var layer: CALayer?
    }

    private let state = Mutex(State())

    init() {}

    /// The layer whose frame and name place and title the window (held weakly).
    func setLayer(_ layer: CALayer) {
        let reference = LayerReference(layer: layer)
        state.withLock { $0.layer = reference }
    }

    private var layer: CALayer? { state.withLock { $0.layer }.layer }

    var gravity: AVLayerVideoGravity {
        get { state.withLock { $0.gravity } }
        set { state.withLock { $0.gravity = newValue } }
    }

    /// The size of the last picture shown (zero before one).
    var pictureSize: CGSize { state.withLock { $0.pictureSize } }

    /// Pictures given to `show` and pictures the window presented.
    var counts: (shown: Int, presented: Int) {
        state.withLock { ($0.shown, $0.window?.presentedCount ?? 0) }
    }

    var isShowingWindow: Bool { state.withLock { $0.window?.state == .showing } }

    /// Where the picture goes in the layer's bounds (the layer's `videoRect`).
    func videoRect(in bounds: CGRect) -> CGRect {
        let (size, gravity) = state.withLock { ($0.pictureSize, $0.gravity) }
        guard size.width > 0, size.height > 0 else { return .zero }
        return PreviewGeometry(sourceSize: size, layerBounds: bounds, gravity: gravity).videoRect
    }

    func show(_ pixelBuffer: CVPixelBuffer) {
        let size = CGSize(width: CVPixelBufferGetWidth(pixelBuffer), height: CVPixelBufferGetHeight(pixelBuffer))
        let (existing, closed) = state.withLock { s -> (WindowSink?, Bool) in
            s.pictureSize = size
            s.shown += 1
            return (s.window, s.closed)
        }
        guard !closed else { return }
        if let existing {
            existing.show(pixelBuffer)
            return
        }
        let layout = windowLayout(picture: size)
        let made = WindowSink(title: layout.title, width: layout.width, height: layout.height, position: layout.position,
                              placement: { [weak self] window, picture in
                                  guard let self else { return .fill(window: window, picture: picture) }
                                  let drawing = PreviewGeometry(sourceSize: picture, layerBounds: CGRect(origin: .zero, size: window),
                                                                gravity: self.gravity).drawing
                                  return WindowSink.Placement(destination: drawing.destination, angle: drawing.angle,
                                                              flipHorizontally: drawing.flipHorizontally)
                              })
        let keep = state.withLock { s -> Bool in
            guard s.window == nil, !s.closed else { return false }
            s.window = made
            return true
        }
        if keep { made.show(pixelBuffer) } else { made.close() }
    }

    /// The layer's frame or name changed: the window follows.
    func layerChanged() {
        guard let window = state.withLock({ $0.window }), window.state == .showing else { return }
        let layout = windowLayout(picture: pictureSize)
        window.setFrame(width: layout.width, height: layout.height, position: layout.position)
        window.setTitle(layout.title)
    }

    /// Closes the window (a later picture opens a new one unless `forGood`).
    func close(forGood: Bool = false) {
        let window = state.withLock { s -> WindowSink? in
            if forGood { s.closed = true }
            defer { s.window = nil }
            return s.window
        }
        window?.close()
    }

    private func windowLayout(picture: CGSize) -> (title: String, width: Int, height: Int, position: (x: Int, y: Int)?) {
        let layer = self.layer
        let bounds = layer?.bounds ?? .zero
        let position = layer?.position ?? .zero
        let size = bounds.width >= 1 && bounds.height >= 1 ? bounds.size : picture
        let title = layer?.name ?? ProcessInfo.processInfo.processName
        let hasFrame = bounds.width >= 1 && bounds.height >= 1
        let origin = (x: Int((position.x - bounds.width / 2).rounded()), y: Int((position.y - bounds.height / 2).rounded()))
        return (title, max(1, Int(size.width.rounded())), max(1, Int(size.height.rounded())), hasFrame ? origin : nil)
    }
}
