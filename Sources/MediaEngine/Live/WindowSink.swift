// WindowSink: a window on the desktop showing pixel buffers (SDL2) — the capture preview layer's
// display, and later the player layer's. One render thread owns every SDL call.
internal import CPixman
internal import CSDL2
import CoreGraphics
import CoreVideo
import Foundation

/// Shows pictures in a window: the newest `CVPixelBuffer` given to `show(_:sourceRect:)` — the
/// whole buffer or a rectangle of it (a capture preset's crop) — is drawn at the place a
/// placement function computes from the window and picture sizes (the caller's video gravity,
/// rotation and mirroring), with black around it. The window keeps showing the last picture
/// until another comes or it is closed.
///
/// All SDL work happens on one process-wide render thread, whatever thread calls the sink:
/// windows are created and destroyed there, frames uploaded and presented there, events pumped
/// there (every 10 ms while a window is open). SDL2 itself is loaded with `dlopen` at the first
/// window, so processes that never show one do not load it.
///
/// `'420v'`/`'420f'` (NV12) buffers are uploaded as NV12 textures (SDL converts with the
/// buffer's matrix: full range as JPEG, else BT.709 from 720 lines up or when tagged 709, BT.601
/// below); `'BGRA'` as 32-bit textures; other formats are converted to `'BGRA'` first.
///
/// An overlay (`setOverlay(_:)`: a premultiplied 32-bit BGRA picture of the window's size — the
/// preview layer's sublayers) is drawn over the picture, stretched to the window, source-over.
/// SDL's software renderer has no premultiplied blend mode, so the overlay goes on in two
/// passes of its standard ones: the destination is multiplied by (1 − α) (`MOD` with an opaque
/// texture of 1 − α, made by pixman once per overlay), then the premultiplied colours are added
/// (`ADD` with the overlay uploaded as opaque RGB888, so SDL does not multiply by α again).
///
/// Without a display — no `DISPLAY` or `WAYLAND_DISPLAY`, `AVFOUNDATION_PREVIEW=off`, SDL2
/// missing, or SDL failing to start or to make the window — the sink is `.headless` with the
/// reason and counts the frames it is given; it never fails otherwise. Closing the window (the
/// window manager's close button) makes it headless too. `close()` destroys the window.
///
/// Its state is under an `NSCondition`: `waitUntilPresented` waits for the count to grow.
// Invariant: owns an SDL window (`window`, touched only on the render thread); the rest only under `lock`.
package final class WindowSink: @unchecked Sendable {
    /// Where the picture goes in the window (window pixels, top-left origin): the rectangle of
    /// the *unrotated* picture, turned `angle` degrees clockwise about its centre after being
    /// flipped left to right when `flipHorizontally` (SDL's `RenderCopyEx` convention).
    package struct Placement: Sendable, Equatable {
        package var destination: CGRect
        package var angle: Int
        package var flipHorizontally: Bool

        package init(destination: CGRect, angle: Int = 0, flipHorizontally: Bool = false) {
            self.destination = destination
            self.angle = angle
            self.flipHorizontally = flipHorizontally
        }

        /// The picture stretched over the whole window.
        package static func fill(window: CGSize, picture: CGSize) -> Placement {
            Placement(destination: CGRect(origin: .zero, size: window))
        }
    }

    /// Computes the placement from the window's size and the picture's (both in pixels; the
    /// picture's is the size of the part of the buffer shown).
    package typealias Placer = @Sendable (_ window: CGSize, _ picture: CGSize) -> Placement

    /// What the sink is doing.
    package enum State: Sendable, Equatable {
        /// A window is open and shows the frames.
        case showing
        /// No window: frames are counted and dropped. The text says why.
        case headless(String)
        /// `close()` was called.
        case closed
    }

    private let lock = NSCondition()
    private var _state: State = .headless("opening")
    private var pending: (buffer: CVPixelBuffer, source: CGRect?)?
    /// An overlay not yet uploaded (`.some(nil)`: remove the overlay).
    private var pendingOverlay: CVPixelBuffer??
    private var _presented = 0
    private var _received = 0
    private var _placer: Placer
    private var _windowSize: CGSize = .zero
    private var _eventHandler: (@Sendable (Event) -> Void)?
    /// The render thread's record of this sink's window (touched only on the render thread).
    fileprivate var window: SDLWindow?

    /// Opens a `width`×`height` window titled `title` at `position` (screen pixels; centred
    /// when nil), or goes headless with the reason. Returns once the window exists (or not).
    package init(title: String, width: Int, height: Int, position: (x: Int, y: Int)? = nil,
                 placement: @escaping Placer = Placement.fill, firstPicture: CVPixelBuffer? = nil) {
        _placer = placement
        // A first picture is drawn as the window opens (no black frame first: it costs a
        // whole-window present before the picture a player is waiting to show).
        if let firstPicture {
            pending = (firstPicture, nil)
            _received = 1
        }
        let outcome = SDLRenderThread.shared.open(self, title: title, width: max(1, width), height: max(1, height),
                                                   position: position)
        lock.withLock { _state = outcome }
    }

    deinit { SDLRenderThread.shared.closeWithoutWaiting(window) }

    /// `.showing`, `.headless(why)` or `.closed`.
    package var state: State { lock.withLock { _state } }

    /// How many frames were drawn and presented in the window.
    package var presentedCount: Int { lock.withLock { _presented } }

    /// How many frames `show` was given (drawn, replaced by a newer one, or dropped headless).
    package var receivedCount: Int { lock.withLock { _received } }

    /// The window's drawable size in pixels (zero when headless).
    package var windowSize: CGSize { lock.withLock { _windowSize } }

    /// Changes how the picture is placed (gravity, rotation, mirroring); redrawn at once.
    package func setPlacement(_ placement: @escaping Placer) {
        lock.withLock { _placer = placement }
        SDLRenderThread.shared.wake(redraw: self)
    }

    /// Shows `pixelBuffer` next — only its `sourceRect` (buffer pixels, top-left origin; nil:
    /// all of it) — replacing any frame not yet drawn (the newest wins, nothing queues). The
    /// buffer is read on the render thread and released after the upload; the caller's thread
    /// only takes a lock and signals.
    package func show(_ pixelBuffer: CVPixelBuffer, sourceRect: CGRect? = nil) {
        let showing = lock.withLock { () -> Bool in
            _received += 1
            guard _state == .showing else { return false }
            pending = (pixelBuffer, sourceRect)
            return true
        }
        if showing { SDLRenderThread.shared.wake(redraw: nil) }
    }

    /// Draws `overlay` — a premultiplied 32-bit BGRA picture, stretched over the window — on top
    /// of the picture from now on (nil removes it); the window is redrawn at once. The buffer is
    /// read on the render thread.
    package func setOverlay(_ overlay: CVPixelBuffer?) {
        let showing = lock.withLock { () -> Bool in
            guard _state == .showing else { return false }
            pendingOverlay = .some(overlay)
            return true
        }
        if showing { SDLRenderThread.shared.wake(redraw: self) }
    }

    /// What a person did in the window.
    package enum Event: Sendable, Equatable {
        /// A key: its character for printable keys ("a", " ", ",", "["…), else "left", "right",
        /// "up", "down", "escape", "return", "f11", "pageup", "pagedown"; `shift` when a shift key was held.
        case key(String, shift: Bool)
        /// A mouse click at window pixels (top-left origin), the window then being `size`.
        case click(x: Int, y: Int, size: CGSize)
        /// The mouse moved over the window.
        case pointerMoved
        /// The window was closed by its close button.
        case closed
    }

    /// Receives the window's events (on a queue of its own, in order; nil stops).
    package func setEventHandler(_ handler: (@Sendable (Event) -> Void)?) {
        lock.withLock { _eventHandler = handler }
    }

    fileprivate func post(_ event: Event) {
        guard let handler = lock.withLock({ _eventHandler }) else { return }
        WindowSink.events.async { handler(event) }
    }

    private static let events = DispatchQueue(label: "com.avfoundation.window.events")

    /// Makes the window fill the screen (true) or go back to its size (false). Returns at once.
    package func setFullScreen(_ on: Bool) {
        guard lock.withLock({ _state == .showing }) else { return }
        SDLRenderThread.shared.setFullScreen(self, on)
    }

    /// Gets SDL2 ready in the background (loaded, video started) when a display is there, so a
    /// window made soon after opens faster. Returns at once.
    package static func prewarm() { SDLRenderThread.shared.prewarm() }

    /// Changes the window's title. Returns at once.
    package func setTitle(_ title: String) {
        guard lock.withLock({ _state == .showing }) else { return }
        SDLRenderThread.shared.retitle(self, title)
    }

    /// Resizes the window to `width`×`height` pixels and moves it to `position` (screen pixels;
    /// nil: where it is), then redraws the last picture in it. Returns at once.
    package func setFrame(width: Int, height: Int, position: (x: Int, y: Int)?) {
        guard lock.withLock({ _state == .showing }) else { return }
        SDLRenderThread.shared.resize(self, width: max(1, width), height: max(1, height), position: position)
    }

    /// Waits until at least `count` frames were presented, the sink stops showing, or `timeout`
    /// seconds pass; true when `count` were presented.
    @discardableResult
    package func waitUntilPresented(count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while _presented < count, _state == .showing {
            if !lock.wait(until: deadline) { break }
        }
        return _presented >= count
    }

    /// Destroys the window (waiting for the render thread to do so); the sink is `.closed`.
    package func close() {
        let wasOpen = lock.withLock { () -> Bool in
            defer { _state = .closed; pending = nil; lock.broadcast() }
            return _state != .closed
        }
        if wasOpen { SDLRenderThread.shared.close(self) }
    }

    // MARK: Render-thread side

    fileprivate func takePendingOverlay() -> CVPixelBuffer?? {
        lock.withLock {
            let overlay = pendingOverlay
            pendingOverlay = nil
            return overlay
        }
    }

    fileprivate func takePending() -> (buffer: CVPixelBuffer, source: CGRect?)? {
        lock.withLock {
            let frame = pending
            pending = nil
            return frame
        }
    }

    /// The current placement function.
    fileprivate var placer: Placer { lock.withLock { _placer } }

    fileprivate func didPresent(windowSize: CGSize, counted: Bool) {
        lock.withLock {
            _windowSize = windowSize
            if counted { _presented += 1 }
            lock.broadcast()
        }
    }

    fileprivate func becameHeadless(_ why: String) {
        lock.withLock {
            if _state == .showing { _state = .headless(why) }
            pending = nil
            _windowSize = .zero
            lock.broadcast()
        }
    }
}

/// A window, its renderer and texture (render thread only).
fileprivate final class SDLWindow {
    let window: OpaquePointer
    let renderer: OpaquePointer
    let id: UInt32
    var texture: OpaquePointer?
    var textureFormat: OSType = 0
    var textureSize = (width: 0, height: 0)
    /// The part of the texture shown (texture pixels).
    var lastSource: CGRect = .zero
    /// The overlay's two passes: 1 − α as an opaque picture (MOD), and the premultiplied colours
    /// as opaque RGB (ADD).
    var overlayInverseAlpha: OpaquePointer?
    var overlayColour: OpaquePointer?
    var overlaySize = (width: 0, height: 0)
    weak var sink: WindowSink?

    init(window: OpaquePointer, renderer: OpaquePointer, id: UInt32, sink: WindowSink) {
        self.window = window
        self.renderer = renderer
        self.id = id
        self.sink = sink
    }
}

/// The one thread that makes SDL calls. Its queue of commands is under an `NSCondition`: the
/// thread waits on it for work.
// Invariant: owns SDL (`api`, the windows: render thread only); `commands`, `wakeups`, `started` only under `lock`.
private final class SDLRenderThread: @unchecked Sendable {
    static let shared = SDLRenderThread()

    private let lock = NSCondition()
    private var commands: [() -> Void] = []
    private var wakeups = 0
    private var started = false
    // Render-thread state.
    private var api: avf_sdl_api?
    private var videoStarted = false
    private var windows: [SDLWindow] = []
    private var redraw: Set<ObjectIdentifier> = []
    private let converter = PixelConverter(capacity: 2, threads: 1)

    /// Runs `work` on the render thread and waits for its result.
    private func sync<T>(_ work: @escaping () -> T) -> T {
        if Thread.current.name == "com.avfoundation.sdl-render" { return work() }
        let done = NSCondition()
        var result: T?
        enqueue {
            let value = work()
            done.withLock { result = value; done.signal() }
        }
        done.lock()
        while result == nil { done.wait() }
        done.unlock()
        return result!
    }

    private func enqueue(_ work: @escaping () -> Void) {
        lock.withLock {
            commands.append(work)
            if !started {
                started = true
                let thread = Thread { [unowned self] in self.run() }
                thread.name = "com.avfoundation.sdl-render"
                thread.start()
            }
            lock.signal()
        }
    }

    /// Asks the thread to look for new frames (and redraw `sink`'s window when given).
    func wake(redraw sink: WindowSink?) {
        lock.withLock {
            wakeups += 1
            if let sink { commands.append { [weak self, weak sink] in
                guard let self, let window = sink?.window else { return }
                self.redraw.insert(ObjectIdentifier(window))
            } }
            lock.signal()
        }
    }

    func open(_ sink: WindowSink, title: String, width: Int, height: Int, position: (x: Int, y: Int)?) -> WindowSink.State {
        let environment = ProcessInfo.processInfo.environment
        if environment["AVFOUNDATION_PREVIEW"]?.lowercased() == "off" {
            return .headless("no display: AVFOUNDATION_PREVIEW=off")
        }
        if (environment["DISPLAY"] ?? "").isEmpty && (environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            return .headless("no display: neither DISPLAY nor WAYLAND_DISPLAY is set")
        }
        return sync { self.create(sink, title: title, width: width, height: height, position: position) }
    }

    /// Loads SDL2 and starts its video subsystem on the render thread now, so that the first
    /// window opens without that wait (a layer that will show pictures calls it at creation).
    func prewarm() {
        let environment = ProcessInfo.processInfo.environment
        guard environment["AVFOUNDATION_PREVIEW"]?.lowercased() != "off",
              !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else { return }
        enqueue { [weak self] in _ = self?.startVideo() }
    }

    func retitle(_ sink: WindowSink, _ title: String) {
        enqueue { [weak self, weak sink] in
            guard let self, let api = self.api, let window = sink?.window else { return }
            api.SetWindowTitle(window.window, title)
        }
    }

    func resize(_ sink: WindowSink, width: Int, height: Int, position: (x: Int, y: Int)?) {
        enqueue { [weak self, weak sink] in
            guard let self, let api = self.api, let window = sink?.window else { return }
            api.SetWindowSize(window.window, Int32(clamping: width), Int32(clamping: height))
            if let position { api.SetWindowPosition(window.window, Int32(clamping: position.x), Int32(clamping: position.y)) }
            self.redraw.insert(ObjectIdentifier(window))
        }
    }

    func setFullScreen(_ sink: WindowSink, _ on: Bool) {
        enqueue { [weak self, weak sink] in
            guard let self, let api = self.api, let window = sink?.window else { return }
            _ = api.SetWindowFullscreen(window.window, on ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
            self.redraw.insert(ObjectIdentifier(window))
        }
    }

    func close(_ sink: WindowSink) {
        _ = sync { () -> Bool in
            if let window = sink.window { self.destroy(window) }
            sink.window = nil
            return true
        }
    }

    /// From a sink's deinit: the window (if any) is destroyed later on the thread.
    func closeWithoutWaiting(_ window: SDLWindow?) {
        guard let window else { return }
        enqueue { [weak self] in self?.destroy(window) }
    }

    // MARK: The thread

    private func run() {
        while true {
            lock.lock()
            if commands.isEmpty && wakeups == 0 {
                if windows.isEmpty {
                    lock.wait()
                } else {
                    _ = lock.wait(until: Date().addingTimeInterval(0.010))
                }
            }
            let work = commands
            commands.removeAll()
            wakeups = 0
            lock.unlock()
            for item in work { item() }
            guard let api else { continue }
            pumpEvents(api)
            for window in windows { render(window, api) }
        }
    }

    private func message(_ api: avf_sdl_api) -> String {
        api.GetError().map { String(cString: $0) } ?? "unknown SDL error"
    }

    private func startVideo() -> String? {
        if videoStarted { return nil }
        if api == nil {
            guard let loaded = avf_sdl_load() else {
                return "no display: " + String(cString: avf_sdl_load_error())
            }
            api = loaded.pointee
        }
        guard let api else { return "no display: SDL2 not loaded" }
        // SDL must not take SIGINT/SIGTERM (avtool's recorder stops on them), nor bypass the
        // compositor; the software renderer works everywhere (Xvfb, VMs, remote X) and the
        // SDL_RENDER_DRIVER environment variable still overrides it.
        _ = api.SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        _ = api.SetHint(SDL_HINT_VIDEO_X11_NET_WM_BYPASS_COMPOSITOR, "0")
        _ = api.SetHint(SDL_HINT_RENDER_DRIVER, "software")
        // The software renderer's window surface straight to the X server (MIT-SHM), not through
        // an OpenGL framebuffer: without a GPU that is Mesa's llvmpipe, whose loading alone took
        // ~70 ms of the first picture and whose copies ~40 % of a core at 1080p30 (measured:
        // first picture 215 → 100 ms, 9.4 → 5.1 CPU s per 10 s of 1080p). SDL_FRAMEBUFFER_ACCELERATION
        // in the environment still overrides it.
        _ = api.SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        // X only, unless a Wayland compositor is named (SDL would otherwise try Wayland first
        // and print libwayland's complaints); the SDL_VIDEODRIVER variable still overrides it.
        if (ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] ?? "").isEmpty {
            _ = api.SetHint(SDL_HINT_VIDEODRIVER, "x11")
        }
        if api.InitSubSystem(UInt32(SDL_INIT_VIDEO)) != 0 {
            return "no display: SDL could not start its video subsystem: \(message(api))"
        }
        // With no X server or compositor to talk to, SDL falls back to its "offscreen" driver
        // (windows nobody sees): that is no display.
        let driver = api.GetCurrentVideoDriver().map { String(cString: $0) } ?? ""
        if driver.isEmpty || driver == "offscreen" || driver == "dummy" {
            api.QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            return "no display: SDL found no display server (video driver '\(driver.isEmpty ? "none" : driver)')"
        }
        videoStarted = true
        return nil
    }

    private func stopVideoIfIdle() {
        guard windows.isEmpty, videoStarted, let api else { return }
        api.QuitSubSystem(UInt32(SDL_INIT_VIDEO))
        videoStarted = false
    }

    private func create(_ sink: WindowSink, title: String, width: Int, height: Int,
                        position: (x: Int, y: Int)?) -> WindowSink.State {
        if let why = startVideo() { return .headless(why) }
        guard let api else { return .headless("no display: SDL2 not loaded") }
        let centred = Int32(bitPattern: UInt32(SDL_WINDOWPOS_CENTERED_MASK))
        let x = position.map { Int32(clamping: $0.x) } ?? centred
        let y = position.map { Int32(clamping: $0.y) } ?? centred
        guard let window = api.CreateWindow(title, x, y, Int32(clamping: width), Int32(clamping: height),
                                            UInt32(SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_SHOWN.rawValue)) else {
            let why = "no display: SDL could not make a window: \(message(api))"
            stopVideoIfIdle()
            return .headless(why)
        }
        guard let renderer = api.CreateRenderer(window, -1, 0) else {
            let why = "no display: SDL could not make a renderer: \(message(api))"
            api.DestroyWindow(window)
            stopVideoIfIdle()
            return .headless(why)
        }
        let record = SDLWindow(window: window, renderer: renderer, id: api.GetWindowID(window), sink: sink)
        sink.window = record
        windows.append(record)
        // The first picture when there is one already, else a black window until it comes.
        if let frame = sink.takePending(), upload(frame.buffer, source: frame.source, to: record, api) {
            draw(record, api, counted: true)
        } else {
            draw(record, api, counted: false)
        }
        return .showing
    }

    private func destroy(_ window: SDLWindow) {
        guard let api, let index = windows.firstIndex(where: { $0 === window }) else { return }
        windows.remove(at: index)
        redraw.remove(ObjectIdentifier(window))
        if let texture = window.texture { api.DestroyTexture(texture) }
        if let texture = window.overlayInverseAlpha { api.DestroyTexture(texture) }
        if let texture = window.overlayColour { api.DestroyTexture(texture) }
        api.DestroyRenderer(window.renderer)
        api.DestroyWindow(window.window)
        stopVideoIfIdle()
    }

    private func pumpEvents(_ api: avf_sdl_api) {
        var event = SDL_Event()
        // Windows that gained the keyboard focus in this pass: SDL then reports the keys the X
        // server believes are down as pressed, which no one pressed in this window.
        var justFocused: Set<UInt32> = []
        while api.PollEvent(&event) == 1 {
            let type = avf_sdl_event_type(&event)
            if type == SDL_KEYDOWN.rawValue {
                let id = avf_sdl_key_window(&event)
                // A key held down repeats; only keys that act step by step (seek, frame step,
                // volume) act again — a held q or space does not quit or toggle over and over.
                if !justFocused.contains(id), let window = windows.first(where: { $0.id == id }),
                   let key = Self.keyName(avf_sdl_key_code(&event)),
                   avf_sdl_key_repeat(&event) == 0 || Self.repeatingKeys.contains(key) {
                    let shift = avf_sdl_key_modifiers(&event) & UInt16(KMOD_SHIFT.rawValue) != 0
                    window.sink?.post(.key(key, shift: shift))
                }
                continue
            }
            if type == SDL_MOUSEBUTTONDOWN.rawValue {
                let id = avf_sdl_button_window(&event)
                if let window = windows.first(where: { $0.id == id }), let sink = window.sink {
                    sink.post(.click(x: Int(avf_sdl_button_x(&event)), y: Int(avf_sdl_button_y(&event)), size: sink.windowSize))
                }
                continue
            }
            if type == SDL_MOUSEMOTION.rawValue {
                let id = avf_sdl_motion_window(&event)
                windows.first(where: { $0.id == id })?.sink?.post(.pointerMoved)
                continue
            }
            guard type == SDL_WINDOWEVENT.rawValue else { continue }
            let id = avf_sdl_window_event_id(&event)
            guard let window = windows.first(where: { $0.id == id }) else { continue }
            switch UInt32(avf_sdl_window_event(&event)) {
            case SDL_WINDOWEVENT_FOCUS_GAINED.rawValue:
                justFocused.insert(id)
            case SDL_WINDOWEVENT_CLOSE.rawValue:
                window.sink?.becameHeadless("no display: the window was closed")
                window.sink?.post(.closed)
                window.sink?.window = nil
                destroy(window)
                return
            case SDL_WINDOWEVENT_EXPOSED.rawValue, SDL_WINDOWEVENT_SIZE_CHANGED.rawValue, SDL_WINDOWEVENT_RESIZED.rawValue:
                redraw.insert(ObjectIdentifier(window))
            default:
                break
            }
        }
    }

    /// Keys whose auto-repeat is passed on (holding them keeps acting).
    private static let repeatingKeys: Set<String> = ["left", "right", "up", "down", ",", ".", "9", "0"]

    /// The name of an SDL key code (see `WindowSink.Event.key`); nil for keys not named.
    private static func keyName(_ code: Int32) -> String? {
        if (32...126).contains(code), let scalar = Unicode.Scalar(UInt32(code)) { return String(Character(scalar)) }
        switch code {
        case Int32(SDLK_LEFT.rawValue): return "left"
        case Int32(SDLK_RIGHT.rawValue): return "right"
        case Int32(SDLK_UP.rawValue): return "up"
        case Int32(SDLK_DOWN.rawValue): return "down"
        case Int32(SDLK_ESCAPE.rawValue): return "escape"
        case Int32(SDLK_RETURN.rawValue): return "return"
        case Int32(SDLK_F11.rawValue): return "f11"
        case Int32(SDLK_PAGEUP.rawValue): return "pageup"
        case Int32(SDLK_PAGEDOWN.rawValue): return "pagedown"
        default: return nil
        }
    }

    private func render(_ window: SDLWindow, _ api: avf_sdl_api) {
        guard let sink = window.sink else { return }
        if let overlay = sink.takePendingOverlay() {
            uploadOverlay(overlay, to: window, api)
            redraw.insert(ObjectIdentifier(window))
        }
        if let frame = sink.takePending() {
            // A frame that cannot be uploaded (a format the converter does not read) is dropped;
            // the window keeps the previous picture.
            if upload(frame.buffer, source: frame.source, to: window, api) { draw(window, api, counted: true) }
        } else if redraw.remove(ObjectIdentifier(window)) != nil {
            draw(window, api, counted: false)
        }
    }

    /// Puts the picture in the window's texture (made or remade for its format and size) and
    /// remembers the part of it to show (`source`, clamped to the picture; nil: all).
    private func upload(_ buffer: CVPixelBuffer, source: CGRect?, to window: SDLWindow, _ api: avf_sdl_api) -> Bool {
        var picture = buffer
        var format = CVPixelBufferGetPixelFormatType(buffer)
        let nv12: Set<OSType> = [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange]
        if !nv12.contains(format) && format != kCVPixelFormatType_32BGRA {
            guard let converted = try? converter.makePixelBuffer(from: buffer, pixelFormat: kCVPixelFormatType_32BGRA) else {
                return false
            }
            picture = converted
            format = kCVPixelFormatType_32BGRA
        }
        let width = CVPixelBufferGetWidth(picture), height = CVPixelBufferGetHeight(picture)
        let isNV12 = nv12.contains(format)
        let sdlFormat = isNV12 ? UInt32(SDL_PIXELFORMAT_NV12.rawValue) : UInt32(SDL_PIXELFORMAT_ARGB8888.rawValue)
        if window.texture == nil || window.textureFormat != format || window.textureSize != (width, height) {
            if let old = window.texture { api.DestroyTexture(old) }
            window.texture = api.CreateTexture(window.renderer, sdlFormat, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                               Int32(width), Int32(height))
            window.textureFormat = format
            window.textureSize = (width, height)
        }
        guard let texture = window.texture,
              CVPixelBufferLockBaseAddress(picture, .readOnly) == kCVReturnSuccess else { return false }
        defer { CVPixelBufferUnlockBaseAddress(picture, .readOnly) }
        let status: Int32
        if isNV12 {
            guard let y = CVPixelBufferGetBaseAddressOfPlane(picture, 0), let uv = CVPixelBufferGetBaseAddressOfPlane(picture, 1) else {
                return false
            }
            let mode: SDL_YUV_CONVERSION_MODE
            if format == kCVPixelFormatType_420YpCbCr8BiPlanarFullRange {
                mode = SDL_YUV_CONVERSION_JPEG
            } else {
                let matrix = CVBufferCopyAttachment(picture, kCVImageBufferYCbCrMatrixKey, nil) as? String
                if matrix == (kCVImageBufferYCbCrMatrix_ITU_R_709_2 as String) {
                    mode = SDL_YUV_CONVERSION_BT709
                } else if matrix == (kCVImageBufferYCbCrMatrix_ITU_R_601_4 as String) {
                    mode = SDL_YUV_CONVERSION_BT601
                } else {
                    mode = height >= 720 ? SDL_YUV_CONVERSION_BT709 : SDL_YUV_CONVERSION_BT601
                }
            }
            api.SetYUVConversionMode(mode)
            status = api.UpdateNVTexture(texture, nil, y.assumingMemoryBound(to: UInt8.self),
                                         Int32(CVPixelBufferGetBytesPerRowOfPlane(picture, 0)),
                                         uv.assumingMemoryBound(to: UInt8.self),
                                         Int32(CVPixelBufferGetBytesPerRowOfPlane(picture, 1)))
        } else {
            guard let base = CVPixelBufferGetBaseAddress(picture) else { return false }
            status = api.UpdateTexture(texture, nil, base, Int32(CVPixelBufferGetBytesPerRow(picture)))
        }
        let whole = CGRect(x: 0, y: 0, width: width, height: height)
        let shown = source.map { $0.standardized.intersection(whole) } ?? whole
        window.lastSource = shown.isNull || shown.isEmpty ? whole : shown
        return status == 0
    }

    /// Makes (or removes, for nil) the window's overlay textures from a premultiplied BGRA
    /// picture.
    private func uploadOverlay(_ overlay: CVPixelBuffer?, to window: SDLWindow, _ api: avf_sdl_api) {
        guard let overlay, CVPixelBufferGetPixelFormatType(overlay) == kCVPixelFormatType_32BGRA,
              CVPixelBufferLockBaseAddress(overlay, .readOnly) == kCVReturnSuccess else {
            if let texture = window.overlayInverseAlpha { api.DestroyTexture(texture) }
            if let texture = window.overlayColour { api.DestroyTexture(texture) }
            window.overlayInverseAlpha = nil
            window.overlayColour = nil
            return
        }
        defer { CVPixelBufferUnlockBaseAddress(overlay, .readOnly) }
        let width = CVPixelBufferGetWidth(overlay), height = CVPixelBufferGetHeight(overlay)
        let stride = CVPixelBufferGetBytesPerRow(overlay)
        guard let base = CVPixelBufferGetBaseAddress(overlay), width > 0, height > 0, stride % 4 == 0 else { return }
        if window.overlayColour == nil || window.overlaySize != (width, height) {
            if let texture = window.overlayInverseAlpha { api.DestroyTexture(texture) }
            if let texture = window.overlayColour { api.DestroyTexture(texture) }
            let access = Int32(SDL_TEXTUREACCESS_STREAMING.rawValue)
            window.overlayInverseAlpha = api.CreateTexture(window.renderer, UInt32(SDL_PIXELFORMAT_RGB888.rawValue), access,
                                                           Int32(width), Int32(height))
            window.overlayColour = api.CreateTexture(window.renderer, UInt32(SDL_PIXELFORMAT_RGB888.rawValue), access,
                                                     Int32(width), Int32(height))
            window.overlaySize = (width, height)
            if let texture = window.overlayInverseAlpha { _ = api.SetTextureBlendMode(texture, SDL_BLENDMODE_MOD) }
            if let texture = window.overlayColour { _ = api.SetTextureBlendMode(texture, SDL_BLENDMODE_ADD) }
        }
        guard let inverse = window.overlayInverseAlpha, let colour = window.overlayColour else { return }
        // 1 − α in every channel: white, then OUT_REVERSE by the overlay (dst × (1 − α)).
        let inverseStride = width * 4
        let bits = UnsafeMutableRawPointer.allocate(byteCount: inverseStride * height, alignment: 16)
        defer { bits.deallocate() }
        let source = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(width), Int32(height),
                                              base.assumingMemoryBound(to: UInt32.self), Int32(stride))
        let target = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(width), Int32(height),
                                              bits.assumingMemoryBound(to: UInt32.self), Int32(inverseStride))
        if let source, let target {
            var white = pixman_color_t(red: 0xFFFF, green: 0xFFFF, blue: 0xFFFF, alpha: 0xFFFF)
            var all = pixman_rectangle16_t(x: 0, y: 0, width: UInt16(clamping: width), height: UInt16(clamping: height))
            pixman_image_fill_rectangles(PIXMAN_OP_SRC, target, &white, 1, &all)
            pixman_image_composite32(PIXMAN_OP_OUT_REVERSE, source, nil, target, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
            _ = api.UpdateTexture(inverse, nil, bits, Int32(inverseStride))
            _ = api.UpdateTexture(colour, nil, base, Int32(stride))
        }
        if let source { pixman_image_unref(source) }
        if let target { pixman_image_unref(target) }
    }

    /// Clears the window to black, draws the texture at its placement and presents.
    private func draw(_ window: SDLWindow, _ api: avf_sdl_api, counted: Bool) {
        var w: Int32 = 0, h: Int32 = 0
        _ = api.GetRendererOutputSize(window.renderer, &w, &h)
        let size = CGSize(width: Int(w), height: Int(h))
        _ = api.SetRenderDrawColor(window.renderer, 0, 0, 0, 255)
        _ = api.RenderClear(window.renderer)
        if let texture = window.texture, let sink = window.sink, window.lastSource.width > 0 {
            let s = window.lastSource
            let placement = sink.placer(size, s.size)
            let d = placement.destination.standardized
            var rect = SDL_Rect(x: Int32(clamping: Int(d.minX.rounded())), y: Int32(clamping: Int(d.minY.rounded())),
                                w: Int32(clamping: Int(d.width.rounded())), h: Int32(clamping: Int(d.height.rounded())))
            var source = SDL_Rect(x: Int32(clamping: Int(s.minX)), y: Int32(clamping: Int(s.minY)),
                                  w: Int32(clamping: Int(s.width)), h: Int32(clamping: Int(s.height)))
            let flip = placement.flipHorizontally ? SDL_FLIP_HORIZONTAL : SDL_FLIP_NONE
            _ = api.RenderCopyEx(window.renderer, texture, &source, &rect, Double(placement.angle), nil, flip)
        }
        if let inverse = window.overlayInverseAlpha, let colour = window.overlayColour {
            // Premultiplied source-over in two passes: dst × (1 − α), then + colour.
            _ = api.RenderCopyEx(window.renderer, inverse, nil, nil, 0, nil, SDL_FLIP_NONE)
            _ = api.RenderCopyEx(window.renderer, colour, nil, nil, 0, nil, SDL_FLIP_NONE)
        }
        api.RenderPresent(window.renderer)
        window.sink?.didPresent(windowSize: size, counted: counted)
    }
}
