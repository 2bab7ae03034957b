// AVCaptureScreenInput: a screen (an X11 screen: display ID = screen number + 1) as a capture
// session input, with one video port fed by MediaEngine's X11ScreenSource.
import CoreGraphics
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// Captures what a screen shows (macOS API; on Linux an X11 screen of the `DISPLAY` server).
///
/// One video port; frames are BGRA at the captured area's size times `scaleFactor` (session
/// presets do not scale them), on the host time clock, at most one per `minFrameDuration`.
/// `cropRect`, `scaleFactor` and `minFrameDuration` take effect when the session next starts or
/// commits a configuration; `capturesCursor`, `capturesMouseClicks` and
/// `removesDuplicateFrames` at once.
open class AVCaptureScreenInput: AVCaptureInput, @unchecked Sendable {
    private let screen: X11ScreenDevice?
    /// The options and the internal device made for them.
    private struct State {
        var options = ScreenCaptureConfiguration()
        var device: AVCaptureDevice
    }
    private let state: Mutex<State>
    private let sources = ScreenSources()

    /// An input capturing the display `displayID`; nil when that display cannot be opened (no X
    /// server at `DISPLAY`, or no such screen).
    public convenience init?(displayID: CGDirectDisplayID) {
        self.init(displayID: displayID, display: ProcessInfo.processInfo.environment["DISPLAY"])
    }

    /// An input capturing the main display (`CGMainDisplayID()`). When it cannot be opened the
    /// input has its port but no frames: the session reports a runtime error when it starts.
    public override init() {
        let display = ProcessInfo.processInfo.environment["DISPLAY"]
        let id = X11ScreenDevice.mainDisplayID(display: display)
        screen = X11ScreenDevice.screen(displayID: id, display: display)
        state = Mutex(State(device: Self.makeDevice(screen: screen, displayID: id, options: ScreenCaptureConfiguration(),
                                                    sources: sources)))
        super.init()
        makePort()
    }

    /// An input for `displayID` on the X display `display` (nil or empty: none); nil when it
    /// cannot be opened.
    convenience init?(displayID: CGDirectDisplayID, display: String?) {
        guard let screen = X11ScreenDevice.screen(displayID: displayID, display: display) else { return nil }
        self.init(screen: screen, displayID: displayID)
    }

    private init(screen: X11ScreenDevice?, displayID: CGDirectDisplayID) {
        self.screen = screen
        let options = ScreenCaptureConfiguration()
        state = Mutex(State(options: options,
                            device: Self.makeDevice(screen: screen, displayID: displayID, options: options, sources: sources)))
        super.init()
        makePort()
    }

    private func makePort() {
        let port = AVCaptureInput.Port(input: self, mediaType: .video, deviceType: nil, position: .unspecified) { [weak self] in
            self?.captureDevice.core.activeFormat()?.formatDescription
        }
        portList.withLock { $0 = [port] }
    }

    // MARK: Options

    /// The area captured, in screen pixels with the origin at the bottom-left corner; `.null`
    /// or an empty rectangle (the default: `.null`) captures the whole screen.
    open var cropRect: CGRect {
        get { state.withLock { $0.options.cropRect } }
        set { change { $0.cropRect = newValue } }
    }

    /// Whether the pointer is drawn into the frames (default true).
    open var capturesCursor: Bool {
        get { state.withLock { $0.options.capturesCursor } }
        set { change { $0.capturesCursor = newValue } }
    }

    /// Whether a ring is drawn around the pointer while a mouse button is down (default false).
    open var capturesMouseClicks: Bool {
        get { state.withLock { $0.options.capturesMouseClicks } }
        set { change { $0.capturesMouseClicks = newValue } }
    }

    /// The shortest time between frames (default 1/60 s). An invalid or non-positive time
    /// restores the default.
    open var minFrameDuration: CMTime {
        get { state.withLock { $0.options.minFrameDuration } }
        set {
            let value = newValue.isNumeric && newValue.seconds > 0 ? newValue : CMTime(value: 1, timescale: 60)
            change { $0.minFrameDuration = value }
        }
    }

    /// How much frames are scaled (default 1; 0.5 halves each side). Values that are not
    /// positive and finite are ignored.
    open var scaleFactor: CGFloat {
        get { state.withLock { $0.options.scaleFactor } }
        set {
            guard newValue.isFinite, newValue > 0 else { return }
            change { $0.scaleFactor = newValue }
        }
    }

    /// Whether a frame equal to the one before it is left out (default false).
    open var removesDuplicateFrames: Bool {
        get { state.withLock { $0.options.removesDuplicateFrames } }
        set { change { $0.removesDuplicateFrames = newValue } }
    }

    /// Applies a change: the running sources get the options at once (those they apply live);
    /// the area, scale and rate make a new internal device, used from the next start or commit.
    private func change(_ body: (inout ScreenCaptureConfiguration) -> Void) {
        let updated = state.withLock { state -> ScreenCaptureConfiguration in
            let old = state.options
            body(&state.options)
            let now = state.options
            if old.cropRect != now.cropRect || old.scaleFactor != now.scaleFactor || old.minFrameDuration != now.minFrameDuration {
                state.device = Self.makeDevice(screen: screen, displayID: screen?.displayID ?? 0, options: now, sources: sources)
            }
            return now
        }
        sources.update(updated)
    }

    // MARK: Capture

    /// The internal device the session's graph runs (not listed among devices).
    var captureDevice: AVCaptureDevice { state.withLock { $0.device } }

    private static func makeDevice(screen: X11ScreenDevice?, displayID: CGDirectDisplayID, options: ScreenCaptureConfiguration,
                                   sources: ScreenSources) -> AVCaptureDevice {
        let core = CaptureDeviceCore(descriptor: ScreenInputDescriptor(screen: screen, displayID: displayID, options: options,
                                                                       sources: sources))
        core.setFrameDurations(min: options.minFrameDuration, max: nil, changeMax: false)
        return core.primary
    }

    open override var description: String {
        "<AVCaptureScreenInput: display \(screen?.displayID ?? 0)>"
    }
}

/// The screen sources an input made (weakly), to pass live options on.
final class ScreenSources: Sendable {
    private struct Weak { weak var source: X11ScreenSource? }
    private let list = Mutex<[Weak]>([])

    func add(_ source: X11ScreenSource) {
        list.withLock { list in
            list.removeAll { $0.source == nil }
            list.append(Weak(source: source))
        }
    }

    func update(_ options: ScreenCaptureConfiguration) {
        for source in list.withLock({ $0.compactMap(\.source) }) { source.configuration = options }
    }
}

/// A screen input's source as a device descriptor: the one BGRA format at the captured area's
/// scaled size, with the input's frame duration; sources made with the input's options.
struct ScreenInputDescriptor: LiveDeviceDescriptor {
    let screen: X11ScreenDevice?
    let displayID: CGDirectDisplayID
    let options: ScreenCaptureConfiguration
    let sources: ScreenSources

    var uniqueID: String { screen?.uniqueID ?? "x11:display-\(displayID)" }
    var modelID: String { "x11-screen" }
    var localizedName: String { screen?.localizedName ?? "Display \(displayID)" }
    var manufacturer: String { screen?.manufacturer ?? "X11" }
    var deviceKind: LiveDeviceKind { .screen }
    var isExternal: Bool { false }
    var videoFormats: [LiveVideoFormat] {
        guard let screen, let region = options.captureRegion(screenWidth: screen.width, screenHeight: screen.height),
              let size = options.outputSize(for: region) else { return [] }
        // The screen source's one format (1/120 s to 60 s per frame); the input's rate is the
        // device's active frame duration.
        return [LiveVideoFormat(pixelFormat: kCVPixelFormatType_32BGRA, width: size.width, height: size.height,
                                minFrameDuration: CMTime(value: 1, timescale: 120), maxFrameDuration: CMTime(value: 60, timescale: 1))]
    }
    var audioFormats: [LiveAudioFormat] { [] }
    var isConnected: Bool { screen != nil }
    func makeVideoSource() -> (any LiveSource)? {
        guard let screen else { return nil }
        let source = X11ScreenSource(device: screen, configuration: options)
        sources.add(source)
        return source
    }
    func makeAudioSource() -> (any LiveAudioSource)? { nil }
}

extension AVCaptureInput {
    /// The device whose source feeds the input's ports: a device input's device, a screen
    /// input's internal one; nil for other inputs.
    var sourceDevice: AVCaptureDevice? {
        if let deviceInput = self as? AVCaptureDeviceInput { return deviceInput.device }
        if let screenInput = self as? AVCaptureScreenInput { return screenInput.captureDevice }
        return nil
    }
}

extension SessionConfiguration {
    /// The inputs the graph runs, each with the device whose source feeds its ports: device
    /// inputs and screen inputs (whose device is internal), in input order.
    var sourceInputs: [(input: AVCaptureInput, device: AVCaptureDevice)] {
        inputs.compactMap { input in input.sourceDevice.map { (input, $0) } }
    }
}
