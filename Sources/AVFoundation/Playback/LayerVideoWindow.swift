// LayerVideoWindow: the desktop window a video layer (AVPlayerLayer, AVSampleBufferDisplayLayer)
// shows its pictures in — MediaEngine's SDL2 WindowSink sized and placed by the layer's frame,
// the picture fitted by the layer's video gravity.
import CoreGraphics
import CoreVideo
import Foundation
import Synchronization
internal import MediaEngine
import QuartzCore

/// What a person did in a video layer's window (for avtool's player).
package enum VideoWindowEvent: Sendable, Equatable {
    /// A key: its character for printable keys ("a", " ", ",", "["…), else "left", "right",
    /// "up", "down", "escape", "return", "f11", "pageup", "pagedown".
    case key(String, shift: Bool)
    /// A click at window pixels (top-left origin) in a window `width`×`height` pixels.
    case click(x: Int, y: Int, width: Int, height: Int)
    /// The pointer moved over the window.
    case pointerMoved
    /// The window's close button.
    case closed
}

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
        var overlayQueued = false
        var events: (@Sendable (VideoWindowEvent) -> Void)?
        var fullScreen = false
        /// The legible text drawn over the picture.
        var captions: [LegiblePresenter.Cue] = []
        /// Space kept free at the bottom of the window for the text (an app's controls).
        var captionInset: CGFloat = 0
    }

    /// Draws the layer's sublayers over the picture.
    private let overlay = WindowOverlay()
    private static let overlayQueue = DispatchQueue(label: "com.avfoundation.player-layer.overlay")

    /// The layer, weakly. @unchecked Sendable: CALayer keeps all its values in one Mutex, and only those are read here.
    struct LayerReference: @unchecked Sendable {
        weak var layer: CALayer?
    }

    private let state = Mutex(State())

    /// SDL2 starts loading at once in the background: the layer exists before its first picture.
    init() { WindowSink.prewarm() }

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

    /// The window's drawable size in pixels (zero before it opens).
    var windowSize: CGSize { state.withLock { $0.window }?.windowSize ?? .zero }

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
            queueOverlayRefresh()
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
                              }, firstPicture: pixelBuffer)
        let kept = state.withLock { s -> (events: (@Sendable (VideoWindowEvent) -> Void)?, fullScreen: Bool)? in
            guard s.window == nil, !s.closed else { return nil }
            s.window = made
            return (s.events, s.fullScreen)
        }
        guard let kept else {
            made.close()
            return
        }
        made.setEventHandler(kept.events.map(Self.translating))
        if kept.fullScreen { made.setFullScreen(true) }
        tick()
    }

    /// Sublayers change while the picture stands still (a paused player's controls): they are
    /// looked at ten times a second while the window is open, and redrawn when they changed.
    private func tick() {
        Self.overlayQueue.asyncAfter(deadline: .now() + 0.1) { [weak self] in
            guard let self, self.state.withLock({ $0.window != nil }) else { return }
            self.refreshOverlay()
            self.tick()
        }
    }

    private static func translating(_ handler: @escaping @Sendable (VideoWindowEvent) -> Void) -> @Sendable (WindowSink.Event) -> Void {
        { event in
            switch event {
            case .key(let key, let shift): handler(.key(key, shift: shift))
            case .click(let x, let y, let size): handler(.click(x: x, y: y, width: Int(size.width), height: Int(size.height)))
            case .pointerMoved: handler(.pointerMoved)
            case .closed: handler(.closed)
            }
        }
    }

    /// Receives what a person does in the window (keys, clicks, closing it).
    func setEventHandler(_ handler: (@Sendable (VideoWindowEvent) -> Void)?) {
        let window = state.withLock { s -> WindowSink? in
            s.events = handler
            return s.window
        }
        window?.setEventHandler(handler.map(Self.translating))
    }

    func setFullScreen(_ on: Bool) {
        let window = state.withLock { s -> WindowSink? in
            s.fullScreen = on
            return s.window
        }
        window?.setFullScreen(on)
    }

    /// Draws `cues` over the picture from now on (empty: no text).
    func setCaptions(_ cues: [LegiblePresenter.Cue]) {
        let changed = state.withLock { s -> Bool in
            guard s.captions != cues else { return false }
            s.captions = cues
            return true
        }
        if changed { queueOverlayRefresh() }
    }

    /// Keeps the bottom `inset` pixels of the window free of text (controls shown there).
    func setCaptionInset(_ inset: CGFloat) {
        let changed = state.withLock { s -> Bool in
            guard s.captionInset != inset else { return false }
            s.captionInset = inset
            return !s.captions.isEmpty
        }
        if changed { queueOverlayRefresh() }
    }

    /// The caption box for `cues` in a window of `size`: white text at 5 % of the video's height
    /// on a translucent black box, centred at the bottom of the video rectangle (the default
    /// caption style), above `bottomLimit`. Coordinates from the window's top-left corner.
    static func captionLayer(_ cues: [LegiblePresenter.Cue], videoRect: CGRect, bottomLimit: CGFloat = .infinity) -> CALayer? {
        guard !cues.isEmpty, videoRect.width > 0, videoRect.height > 0 else { return nil }
        let fontSize = max(12, (videoRect.height * 0.05).rounded())
        let text = CATextLayer()
        text.string = LegiblePresenter.layerString(cues, fontSize: fontSize)
        text.fontSize = fontSize
        text.isWrapped = true
        text.alignmentMode = .center
        text.bounds = CGRect(x: 0, y: 0, width: videoRect.width * 0.9, height: videoRect.height)
        let size = text.preferredFrameSize()
        guard size.width > 0, size.height > 0 else { return nil }
        let padding = (fontSize * 0.3).rounded()
        let box = CALayer()
        box.backgroundColor = CGColor(red: 0, green: 0, blue: 0, alpha: 0.75)
        box.cornerRadius = padding / 2
        let boxSize = CGSize(width: size.width + 2 * padding, height: size.height + padding)
        let bottom = min(videoRect.maxY - videoRect.height * 0.05, bottomLimit)
        box.frame = CGRect(x: (videoRect.midX - boxSize.width / 2).rounded(), y: (bottom - boxSize.height).rounded(),
                           width: boxSize.width, height: boxSize.height)
        text.frame = CGRect(x: padding, y: padding / 2, width: size.width, height: size.height)
        box.addSublayer(text)
        return box
    }

    /// Why no window shows the pictures (nil while one does, or before the first picture).
    var problem: String? {
        guard let state = state.withLock({ $0.window?.state }) else { return nil }
        if case .headless(let why) = state { return why }
        return nil
    }

    private func queueOverlayRefresh() {
        let queue = state.withLock { s -> Bool in
            guard !s.overlayQueued, s.window != nil else { return false }
            s.overlayQueued = true
            return true
        }
        if queue { Self.overlayQueue.async { [weak self] in self?.refreshOverlay() } }
    }

    /// Draws the layer's sublayers over the window when they changed (the overlay queue).
    private func refreshOverlay() {
        let window = state.withLock { s -> WindowSink? in
            s.overlayQueued = false
            return s.window
        }
        guard let window, window.state == .showing, let layer else { return }
        var size = window.windowSize
        if size.width < 1 || size.height < 1 {
            let layout = windowLayout(picture: pictureSize)
            size = CGSize(width: layout.width, height: layout.height)
        }
        let (captions, picture, gravity, inset) = state.withLock { ($0.captions, $0.pictureSize, $0.gravity, $0.captionInset) }
        let videoRect = picture.width > 0 && picture.height > 0
            ? PreviewGeometry(sourceSize: picture, layerBounds: CGRect(origin: .zero, size: size), gravity: gravity).videoRect : .zero
        overlay.refresh(layer, window: window, width: Int(size.width), height: Int(size.height),
                        adding: Self.captionLayer(captions, videoRect: videoRect, bottomLimit: size.height - inset))
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
