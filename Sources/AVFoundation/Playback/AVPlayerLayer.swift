// AVPlayerLayer: the layer a player's video shows in — a desktop window through the window sink
// (placed and sized by the layer's frame, the picture fitted by its video gravity).
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import QuartzCore
import Synchronization
internal import MediaEngine

/// A layer that shows the video of a player's current item.
///
/// Of the layers attached to one player, the most recently attached shows the pictures (as on
/// Apple platforms). The pictures go to a desktop window (see `LayerVideoWindow`: the layer's
/// frame, `name` and `videoGravity`) when a display is there; `isReadyForDisplay` becomes true
/// (observable) with the first picture; `videoRect` is where the picture is drawn in the layer's
/// bounds; `displayedPixelBuffer()` is the picture shown, in `pixelBufferAttributes`' format.
open class AVPlayerLayer: CALayer, @unchecked Sendable {
    // @unchecked Sendable: owns its window (a C handle through WindowSink); its values are in `state` (a Mutex) and CALayer's.
    private struct State {
        var player: AVPlayer?
        var gravity = AVLayerVideoGravity.resizeAspect
        var ready = false
        var attributes = Attributes(values: nil)
        var shown: CMSampleBuffer?
    }

    /// Pixel buffer attributes. @unchecked Sendable: an immutable dictionary of property-list values.
    private struct Attributes: @unchecked Sendable {
        let values: [String: Any]?
    }

    private let state = Mutex(State())
    let window = LayerVideoWindow()

    public override init() {
        super.init()
        hostsLiveRendering = true
        window.setLayer(self)
    }

    public override init(layer: Any) {
        super.init(layer: layer)
    }

    public required init?(coder: NSCoder) { return nil }

    /// A layer showing `player`'s video.
    public convenience init(player: AVPlayer?) {
        self.init()
        self.player = player
    }

    deinit {
        window.close(forGood: true)
    }

    /// The player whose video the layer shows.
    open var player: AVPlayer? {
        get { state.withLock { $0.player } }
        set {
            let old = state.withLock { s -> AVPlayer? in
                defer { s.player = newValue }
                return s.player
            }
            guard old !== newValue else { return }
            old?.removeLayer(self)
            newValue?.addLayer(self)
        }
    }

    /// How the video fits the bounds (default `.resizeAspect`).
    open var videoGravity: AVLayerVideoGravity {
        get { state.withLock { $0.gravity } }
        set {
            state.withLock { $0.gravity = newValue }
            window.gravity = newValue
        }
    }

    /// Whether the layer shows a picture (observable).
    open var isReadyForDisplay: Bool { state.withLock { $0.ready } }

    /// Where the picture is drawn in the layer's bounds (zero before the first picture).
    open var videoRect: CGRect { window.videoRect(in: bounds) }

    /// The attributes of `displayedPixelBuffer()`'s buffers (nil: the decoder's format).
    open var pixelBufferAttributes: [String: Any]? {
        get { state.withLock { $0.attributes }.values }
        set {
            let value = Attributes(values: newValue)
            state.withLock { $0.attributes = value }
        }
    }

    /// The picture shown now, in `pixelBufferAttributes`' pixel format.
    open func displayedPixelBuffer() -> CVPixelBuffer? {
        let (frame, box) = state.withLock { ($0.shown, $0.attributes) }
        let attributes = box.values
        guard let image = frame?.imageBuffer else { return nil }
        let format = (attributes?[kCVPixelBufferPixelFormatTypeKey as String] as? NSNumber)?.uint32Value
            ?? (attributes?[kCVPixelBufferPixelFormatTypeKey as String] as? Int).map { OSType(truncatingIfNeeded: $0) }
        guard let format, format != CVPixelBufferGetPixelFormatType(image) else { return image }
        return try? PixelConverter.shared.makePixelBuffer(from: image, pixelFormat: format)
    }

    open override var bounds: CGRect {
        didSet { window.layerChanged() }
    }

    open override var position: CGPoint {
        didSet { window.layerChanged() }
    }

    open override var name: String? {
        didSet { window.layerChanged() }
    }

    // MARK: For avtool (package): the window's events and full screen

    /// Receives what a person does in the layer's window: keys, clicks, closing it.
    package func setWindowEventHandler(_ handler: (@Sendable (VideoWindowEvent) -> Void)?) {
        window.setEventHandler(handler)
    }

    /// Makes the layer's window fill the screen, or go back.
    package func setWindowFullScreen(_ on: Bool) { window.setFullScreen(on) }

    /// Why no window shows the pictures (no display, closed), nil while one does.
    package var windowProblem: String? { window.problem }

    /// The layer's window size in pixels (zero before it opens).
    package var windowSize: CGSize { window.windowSize }

    /// Keeps the bottom `inset` pixels of the layer's window free of subtitles (an AV Kit-style
    /// player lifts the text above its controls while they show).
    package func setCaptionInset(_ inset: CGFloat) { window.setCaptionInset(max(0, inset)) }

    /// Shows the player's legible text over the picture (none: no text).
    func showCaptions(_ cues: [LegiblePresenter.Cue]) {
        window.setCaptions(cues)
    }

    /// Shows a picture of the player (on the presenting thread).
    func show(_ frame: CMSampleBuffer) {
        let wasReady = state.withLock { s -> Bool in
            defer {
                s.ready = true
                s.shown = frame
            }
            return s.ready
        }
        if let image = frame.imageBuffer { window.show(image) }
        if !wasReady { KVORegistry.shared.didChange(self, \AVPlayerLayer.isReadyForDisplay, old: false) }
    }
}
