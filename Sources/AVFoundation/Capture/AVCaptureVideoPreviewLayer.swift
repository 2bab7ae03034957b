// AVCaptureVideoPreviewLayer: a capture session's live picture — the layer's connection to one
// video input port (formed greedily by the session, or added by hand), the geometry of the
// picture in the layer (PreviewGeometry), and, when a display is there, a desktop window showing
// the frames (MediaEngine's SDL2 WindowSink) fed by the session's one source for that camera.
import CoreGraphics
import CoreVideo
import Foundation
import Synchronization
internal import MediaEngine
import QuartzCore

/// A capture session's preview: its connection, layer geometry, coordinate conversions and the
/// picture shown in a window.
///
/// A `CALayer`: its `bounds`, `position`/`frame` and `name` place, size and title the window,
/// and sublayers an app adds (the outline of a detected code, a focus box, a recording dot) are
/// drawn over the picture in the window, refreshed with the camera's frames — in the layer's
/// coordinates with the origin at the top-left corner, as on iOS, where
/// `layerPointConverted(fromCaptureDevicePoint:)` and `layerRectConverted(fromMetadataOutputRect:)`
/// place them. Implicit animations run on its sublayers (the tree is live, as a view's layers
/// are on Apple platforms): disable them with `CATransaction.setDisableActions(true)` for
/// outlines that jump. The layer holds its session strongly; the session holds the layer weakly
/// (releasing the layer removes its connection).
///
/// Connection: `init(session:)` and setting `session` connect the layer to the session's first
/// video input port (and, while it has none, to the first video port of an input added later —
/// so removing one camera's input and adding another's switches the preview).
/// `init(sessionWithNoConnection:)` and `setSessionWithNoConnection(_:)` connect nothing: add an
/// `AVCaptureConnection(inputPort:videoPreviewLayer:)` with the session's `addConnection(_:)`.
/// Removing the input, or setting `session` to nil or another session, removes the connection.
///
/// Picture: while the session runs with the layer's connection enabled, the frames of the
/// camera the session already runs for its outputs (no second capture of the device) are shown
/// in a window of the layer's `bounds` size in pixels (the picture's size when the bounds are
/// empty) at the layer's `frame` origin on the screen, titled with `name` (default: the
/// process's name). The newest frame is drawn, placed by `videoGravity` and turned and mirrored
/// by the connection's `videoRotationAngle` and `isVideoMirrored`; changes to any of them, and
/// to the bounds, show from the next frame (the window is resized and moved). Frames never wait
/// for the window: one newer than the one being drawn replaces it. When the session stops, the
/// window keeps the last frame (the preview stops updating, as on Apple platforms); it closes
/// when the layer is released or leaves its session.
///
/// Without a display — neither `DISPLAY` nor `WAYLAND_DISPLAY`, `AVFOUNDATION_PREVIEW=off`,
/// SDL2 missing or failing — no window opens and nothing fails; frames still reach the layer
/// (`isPreviewing`).
open class AVCaptureVideoPreviewLayer: CALayer, @unchecked Sendable {
    // @unchecked Sendable: it owns the preview window (through `previewSink`); its values are behind `state` and CALayer's Mutex.
    private struct State {
        var session: AVCaptureSession?
        var connection: AVCaptureConnection?
        var gravity = AVLayerVideoGravity.resizeAspect
        /// Whether the session connects the layer by itself (`session =`), or only by hand.
        var connectsAutomatically = true
        /// `isPreviewing`: the value last announced to observers.
        var announcedPreviewing = false
    }
    private let state = Mutex(State())
    /// Where the session's graph hands the layer's frames.
    let previewSink = CapturePreviewSink()

    /// Announces `isPreviewing` changes off the capture threads.
    static let events = DispatchQueue(label: "com.avfoundation.capture.preview-layer")

    /// A layer without a session.
    public override init() {
        super.init()
        previewSink.layer = self
        hostsLiveRendering = true
    }

    /// Decoding is not supported: nil (as for every layer here).
    public required init?(coder: NSCoder) { return nil }

    /// A layer previewing `session`, connected to its first video input port.
    public convenience init(session: AVCaptureSession) {
        self.init()
        self.session = session
    }

    /// A layer previewing `session` without connecting it to the session's inputs (add a
    /// connection with `AVCaptureSession.addConnection(_:)`).
    public convenience init(sessionWithNoConnection session: AVCaptureSession) {
        self.init()
        setSessionWithNoConnection(session)
    }

    deinit {
        let (session, connection) = state.withLock { ($0.session, $0.connection) }
        session?.previewLayerWentAway(connection)
        previewSink.close()
    }

    /// The session previewed (held strongly). Setting it connects the layer to the session's
    /// first video input port; setting nil (or another session) removes the connection and
    /// closes the window.
    open var session: AVCaptureSession? {
        get { state.withLock { $0.session } }
        set { associate(newValue, connecting: true) }
    }

    /// Previews `session` without connecting it to the session's inputs.
    open func setSessionWithNoConnection(_ session: AVCaptureSession) {
        associate(session, connecting: false)
    }

    private func associate(_ session: AVCaptureSession?, connecting: Bool) {
        let (old, unchanged) = state.withLock { state -> (AVCaptureSession?, Bool) in
            // The same session the same way (a view setting it again) keeps the connection and
            // its settings.
            let old = state.session
            let unchanged = old === session && state.connectsAutomatically == connecting
            state.session = session
            state.connectsAutomatically = connecting
            return (old, unchanged)
        }
        guard !unchanged else { return }
        if let old {
            old.detach(self)
            if old !== session { previewSink.close() }
        }
        session?.attach(self, connecting: connecting)
    }

    /// The connection from a video input port of the session to the layer; nil when there is
    /// none (no video input, a layer set with no connection, or no session).
    open var connection: AVCaptureConnection? { state.withLock { $0.connection } }

    /// Whether the layer is showing frames: the session runs, the layer's connection is
    /// enabled, and frames have reached the layer since the session started (with or without a
    /// window). Observable: it changes on an internal queue, a moment after what changes it
    /// (the first frame, the connection's `isEnabled`, the session stopping), and observers are
    /// told of each change in order.
    open var isPreviewing: Bool { state.withLock { $0.announcedPreviewing } }

    /// How the picture fits the bounds (default `.resizeAspect`).
    open var videoGravity: AVLayerVideoGravity {
        get { state.withLock { $0.gravity } }
        set {
            state.withLock { $0.gravity = newValue }
            previewSink.setGravity(newValue)
        }
    }

    /// The layer's own coordinate space; the picture is placed in it, and its size is the
    /// window's. Changing it keeps the layer's centre (`position`) where it is.
    open override var bounds: CGRect {
        didSet { previewSink.layerFrameChanged() }
    }

    /// The layer's centre in its superlayer's coordinates (anchor point at the centre); the
    /// superlayer of a window is the screen.
    open override var position: CGPoint {
        didSet { previewSink.layerFrameChanged() }
    }

    /// The layer's rectangle in its superlayer's coordinates: setting it sets `position` to its
    /// centre and the size of `bounds`. The window is put at its origin.
    open override var frame: CGRect {
        didSet { previewSink.layerFrameChanged() }
    }

    /// The layer's name (default nil); the window's title when set.
    open override var name: String? {
        didSet { previewSink.titleChanged() }
    }

    // MARK: Session side

    /// The session recorded `connection` as the layer's (under the session's lock).
    func setConnectionRecord(_ connection: AVCaptureConnection) {
        state.withLock { $0.connection = connection }
        previewSink.setConnection(connection)
    }

    /// The session removed `connection`.
    func removeConnectionRecord(_ connection: AVCaptureConnection) {
        let removed = state.withLock { state -> Bool in
            guard state.connection === connection else { return false }
            state.connection = nil
            return true
        }
        guard removed else { return }
        previewSink.setConnection(nil)
    }

    /// The connection was enabled or disabled.
    func previewFlowChanged() { previewSink.previewingMayHaveChanged() }

    /// Sets `isPreviewing` to `now` and tells observers (on the event queue; the values arrive
    /// in the order of the changes, so none is lost, and observers read the value announced).
    func announcePreviewing(_ now: Bool) {
        let old = state.withLock { state -> Bool in
            defer { state.announcedPreviewing = now }
            return state.announcedPreviewing
        }
        if old != now { KVORegistry.shared.didChange(self, \AVCaptureVideoPreviewLayer.isPreviewing, old: old) }
    }

    /// The window's title, size and place for a picture of `picture` pixels (as shown).
    func windowLayout(picture: CGSize) -> (title: String, width: Int, height: Int, x: Int, y: Int) {
        let (bounds, position, name) = (self.bounds, self.position, self.name)
        let size = bounds.width >= 1 && bounds.height >= 1 ? bounds.size : picture
        let origin = CGPoint(x: position.x - bounds.width / 2, y: position.y - bounds.height / 2)
        let process = ProcessInfo.processInfo.processName
        let title = name ?? (process.isEmpty ? "AVCaptureVideoPreviewLayer" : process)
        return (title, max(1, Int(size.width.rounded())), max(1, Int(size.height.rounded())),
                Int(origin.x.rounded()), Int(origin.y.rounded()))
    }

    /// The shown picture's size now (after the connection's turn), for a window opened with
    /// empty bounds.
    var displayedPictureSize: CGSize { geometry.displayedSize }

    /// Why no window shows the picture (no display, the window closed), or nil when one does or
    /// none was asked for yet: for tools that tell their users (avtool's `record --preview`).
    package var windowProblem: String? { previewSink.windowProblem }

    /// Whether a window shows the picture.
    package var hasWindow: Bool { previewSink.hasWindow }

    // MARK: Conversions

    /// The picture's placement now: the session's picture size in the layer's bounds, turned
    /// and mirrored by the layer's connection.
    var geometry: PreviewGeometry {
        let bounds = self.bounds
        let (session, gravity, connection) = state.withLock { ($0.session, $0.gravity, $0.connection) }
        let (angle, mirrored) = connection?.videoSettingsSnapshot ?? (0, false)
        return PreviewGeometry(sourceSize: Self.pictureSize(of: session, connection: connection), layerBounds: bounds,
                               gravity: gravity, rotation: angle, mirrored: mirrored)
    }

    /// The unrotated size of the session's picture: the connection's device (else the first
    /// video device input) at the preset's size (zero without one).
    static func pictureSize(of session: AVCaptureSession?, connection: AVCaptureConnection? = nil) -> CGSize {
        guard let session else { return .zero }
        let connected = connection?.inputPorts.first.flatMap { $0.input as? AVCaptureDeviceInput }
        for input in (connected.map { [$0] } ?? []) + session.inputs {
            guard let device = (input as? AVCaptureDeviceInput)?.device, device.hasMediaType(.video),
                  let choice = CaptureGraph.videoChoice(for: device, preset: session.sessionPreset) else { continue }
            return CGSize(width: choice.width, height: choice.height)
        }
        return .zero
    }

    /// A point in the layer as a point in the capture device's normalised coordinates (what
    /// `focusPointOfInterest` and `exposurePointOfInterest` take), taking the gravity and the
    /// connection's turn and mirroring into account.
    open func captureDevicePointConverted(fromLayerPoint pointInLayer: CGPoint) -> CGPoint {
        geometry.devicePoint(fromLayerPoint: pointInLayer)
    }

    /// A point in the capture device's normalised coordinates as a point in the layer.
    open func layerPointConverted(fromCaptureDevicePoint captureDevicePointOfInterest: CGPoint) -> CGPoint {
        geometry.layerPoint(fromDevicePoint: captureDevicePointOfInterest)
    }

    /// A rectangle in the layer as a rectangle in a metadata output's coordinates (what
    /// `AVCaptureMetadataOutput.rectOfInterest` takes).
    open func metadataOutputRectConverted(fromLayerRect rectInLayerCoordinates: CGRect) -> CGRect {
        geometry.deviceRect(fromLayerRect: rectInLayerCoordinates)
    }

    /// A rectangle in a metadata output's coordinates as a rectangle in the layer.
    open func layerRectConverted(fromMetadataOutputRect rectInMetadataOutputCoordinates: CGRect) -> CGRect {
        geometry.layerRect(fromDeviceRect: rectInMetadataOutputCoordinates)
    }

    /// `metadataObject` with its bounds (and a code's corners) in the layer's coordinates.
    open func transformedMetadataObject(for metadataObject: AVMetadataObject) -> AVMetadataObject? {
        geometry.layerObject(for: metadataObject)
    }
}

/// The preview layer's end of the session's graph: one more consumer of the camera's frames,
/// beside the outputs. Each frame is handed to the layer's window as it is — the camera's own
/// buffer and the preset's (and zoom's) crop rectangle, no conversion on the capture thread —
/// where the newest replaces any not yet drawn; the window's render thread uploads, crops,
/// scales, turns and mirrors it (SDL). Holds what drawing needs (gravity, connection) itself, so
/// the render thread never touches the layer.
// Invariant: owns the preview window; `layer` is set once, before the sink is handed to a session; the rest is in `state`.
final class CapturePreviewSink: CaptureSink, @unchecked Sendable {
    weak var layer: AVCaptureVideoPreviewLayer?
    private struct State {
        var window: WindowSink?
        var running = false
        var receiving = false
        var gravity = AVLayerVideoGravity.resizeAspect
        weak var connection: AVCaptureConnection?
        /// Whether an overlay refresh is queued on the layer's event queue.
        var overlayQueued = false

        /// What the layer's `isPreviewing` is to become: frames reached the sink since the session
        /// started, it has not stopped, and the connection is enabled.
        var previewing: Bool { receiving && (connection?.isEnabled ?? false) }
    }
    private let state = Mutex(State())
    /// Draws the layer's sublayers over the window.
    private let overlay = WindowOverlay()

    /// Computes `isPreviewing` and queues its announcement, under the lock so that the values
    /// queue in the order of the changes (the capture thread never holds the layer: its release
    /// there would stop the source from inside the source's own delivery).
    func previewingMayHaveChanged() {
        state.withLock { queueAnnouncement($0.previewing) }
    }

    /// Queues the announcement of `now` (called under the lock).
    private func queueAnnouncement(_ now: Bool) {
        AVCaptureVideoPreviewLayer.events.async { [weak self] in self?.layer?.announcePreviewing(now) }
    }

    var hasWindow: Bool { state.withLock { $0.window }?.state == .showing }

    var windowProblem: String? {
        guard let state = state.withLock({ $0.window })?.state else { return nil }
        if case .headless(let why) = state { return why }
        return nil
    }

    func setGravity(_ value: AVLayerVideoGravity) { state.withLock { $0.gravity = value } }
    func setConnection(_ value: AVCaptureConnection?) {
        state.withLock { $0.connection = value }
        previewingMayHaveChanged()
    }

    /// Where the picture (`picture` pixels, unturned) goes in a window of `window` pixels.
    private func placement(window: CGSize, picture: CGSize) -> WindowSink.Placement {
        let (gravity, connection) = state.withLock { ($0.gravity, $0.connection) }
        let (angle, mirrored) = connection?.videoSettingsSnapshot ?? (0, false)
        let drawing = PreviewGeometry(sourceSize: picture, layerBounds: CGRect(origin: .zero, size: window), gravity: gravity,
                                      rotation: angle, mirrored: mirrored).drawing
        return WindowSink.Placement(destination: drawing.destination, angle: drawing.angle, flipHorizontally: drawing.flipHorizontally)
    }

    // MARK: CaptureSink

    /// Preview layers are connected by the session's layer rules, not by output limits.
    func connectionLimit(for mediaType: AVMediaType) -> Int { 0 }

    /// Opens the window (or keeps the one showing the last run's last frame, fitted to the
    /// layer's frame now). Runs on the thread starting or reconfiguring the session.
    func captureWillStart() {
        if let layer {
            let layout = layer.windowLayout(picture: layer.displayedPictureSize)
            let existing = state.withLock { $0.window }
            if let existing, existing.state == .showing {
                existing.setFrame(width: layout.width, height: layout.height, position: (layout.x, layout.y))
                existing.setTitle(layout.title)
            } else {
                existing?.close()
                let made = WindowSink(title: layout.title, width: layout.width, height: layout.height,
                                      position: (layout.x, layout.y), placement: { [weak self] window, picture in
                                          self?.placement(window: window, picture: picture) ?? .fill(window: window, picture: picture)
                                      })
                state.withLock { $0.window = made }
            }
        }
        state.withLock {
            $0.running = true
            $0.receiving = false
        }
    }

    func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
        let window = state.withLock { state -> WindowSink? in
            guard state.running else { return nil }
            if !state.receiving {
                // The first frame of the run: announced in the same step, so a change right
                // after (the connection disabled) is announced after it.
                state.receiving = true
                queueAnnouncement(state.previewing)
            }
            return state.window
        }
        if let window {
            let crop = geometry.zoomedCrop
            window.show(frame.pixelBuffer, sourceRect: CGRect(x: crop.x, y: crop.y, width: crop.width, height: crop.height))
            queueOverlayRefresh()
        }
    }

    /// Queues one refresh of the sublayers' overlay on the layer's event queue (the capture
    /// thread never holds the layer); a refresh already queued covers this one.
    private func queueOverlayRefresh() {
        let queue = state.withLock { state -> Bool in
            guard !state.overlayQueued else { return false }
            state.overlayQueued = true
            return true
        }
        if queue { AVCaptureVideoPreviewLayer.events.async { [weak self] in self?.refreshOverlay() } }
    }

    /// Evaluates the layer's sublayers now and, when they look different from the last time (or
    /// the window changed size), draws them into a window-sized premultiplied BGRA picture for
    /// the window's overlay; no sublayers remove it. Runs on the layer's event queue.
    private func refreshOverlay() {
        let window = state.withLock { state -> WindowSink? in
            state.overlayQueued = false
            return state.window
        }
        guard let window, window.state == .showing, let layer else { return }
        let layout = layer.windowLayout(picture: layer.displayedPictureSize)
        overlay.refresh(layer, window: window, width: layout.width, height: layout.height)
    }

    func receive(audio chunk: LiveAudioChunk, from connection: AVCaptureConnection) {}

    /// The session stopped (or the layer left it): no frame comes; the window keeps the last.
    func captureDidStop() {
        state.withLock {
            $0.running = false
            $0.receiving = false
        }
        previewingMayHaveChanged()
    }

    // MARK: Layer side

    /// The layer's frame changed: the window follows (from its next drawing).
    func layerFrameChanged() {
        guard let layer, let window = state.withLock({ $0.window }), window.state == .showing else { return }
        let layout = layer.windowLayout(picture: layer.displayedPictureSize)
        window.setFrame(width: layout.width, height: layout.height, position: (layout.x, layout.y))
    }

    func titleChanged() {
        guard let layer, let window = state.withLock({ $0.window }), window.state == .showing else { return }
        window.setTitle(layer.windowLayout(picture: .zero).title)
    }

    /// Closes the window (the layer is released or left its session).
    func close() {
        let window = state.withLock { state -> WindowSink? in
            defer { state.window = nil }
            return state.window
        }
        window?.close()
    }
}
