// AVCaptureDevice: a camera or microphone as the backends describe it (DeviceDirectory), with
// Apple's class methods to find devices, its formats, the active format and frame durations,
// and the configuration lock.
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// A capture device: a camera (V4L2 or virtual) or a microphone.
///
/// One device object per unique ID: `default(for:)`, `DiscoverySession.devices` and the
/// deprecated `devices()` always return the same object for the same device. `init?(uniqueID:)`
/// (an initializer in Swift, so it cannot return that object) returns another object that shares
/// all of its state and compares equal to it (`isEqual`, `hash`); observe the shared object
/// when observing with key paths.
///
/// Devices come from `AVFOUNDATION_VIRTUAL_CAMERAS` (test patterns and media files played in a
/// loop, read at each query) and the other backends as they join; see docs/CAPTURE.md.
open class AVCaptureDevice: NSObject, @unchecked Sendable {
    let core: CaptureDeviceCore

    init(core: CaptureDeviceCore) {
        self.core = core
        super.init()
    }

    /// The device with this unique ID, or nil when no backend lists it.
    public convenience init?(uniqueID deviceUniqueID: String) {
        guard let device = DeviceDirectory.shared.device(uniqueID: deviceUniqueID) else { return nil }
        self.init(core: device.core)
        core.addHandle(self)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVCaptureDevice else { return false }
        return other.core === core
    }

    open override var hash: Int { core.uniqueID.hashValue }

    open override var description: String {
        "<AVCaptureDevice: [\(localizedName)][\(uniqueID)]>"
    }

    // MARK: Finding devices

    /// The default device for `mediaType` (`.video`: the first connected camera; `.audio`: the
    /// first connected microphone), or nil.
    open class func `default`(for mediaType: AVMediaType) -> AVCaptureDevice? {
        DeviceDirectory.shared.connectedDevices().first { $0.hasMediaType(mediaType) }
    }

    /// The default device of `deviceType` for `mediaType` (nil: any) at `position`
    /// (`.unspecified`: any), or nil.
    open class func `default`(_ deviceType: AVCaptureDevice.DeviceType, for mediaType: AVMediaType?,
                              position: AVCaptureDevice.Position) -> AVCaptureDevice? {
        DiscoverySession(deviceTypes: [deviceType], mediaType: mediaType, position: position).devices.first
    }

    /// Every connected device.
    @available(*, deprecated, message: "Use AVCaptureDevice.DiscoverySession instead.")
    open class func devices() -> [AVCaptureDevice] {
        DeviceDirectory.shared.connectedDevices()
    }

    /// Every connected device with `mediaType`.
    @available(*, deprecated, message: "Use AVCaptureDevice.DiscoverySession instead.")
    open class func devices(for mediaType: AVMediaType) -> [AVCaptureDevice] {
        DeviceDirectory.shared.connectedDevices().filter { $0.hasMediaType(mediaType) }
    }

    // MARK: Identity

    /// Stable across runs and processes (`virtual:testsrc:640x480@30`, `virtual:/path/clip.mov`…).
    open var uniqueID: String { core.uniqueID }
    /// The model (`virtual` for virtual cameras).
    open var modelID: String { core.descriptor.modelID }
    /// The name to show.
    open var localizedName: String { core.descriptor.localizedName }
    /// Who made the device.
    open var manufacturer: String { core.descriptor.manufacturer }
    /// `.external` for USB and virtual cameras, `.builtInWideAngleCamera` for built-in cameras,
    /// `.microphone` for sound sources.
    open var deviceType: AVCaptureDevice.DeviceType { core.deviceType }
    /// Where the camera faces: from the camera's `V4L2_CID_CAMERA_ORIENTATION` (or a virtual
    /// camera's `position=` option); `.unspecified` when it does not say, as most USB cameras.
    open var position: AVCaptureDevice.Position { core.withControls { $0.position } }

    /// Whether the device captures `mediaType` (`.video` for cameras, `.audio` for microphones).
    open func hasMediaType(_ mediaType: AVMediaType) -> Bool {
        switch core.descriptor.deviceKind {
        case .camera, .screen: return mediaType == .video
        case .microphone: return mediaType == .audio
        }
    }

    /// Whether the device can deliver now (a file camera: while its file exists). Observable.
    open var isConnected: Bool { core.isConnected }
    /// Whether the device is suspended (a lens cover closed): always false here.
    open var isSuspended: Bool { false }
    /// Whether another application uses the device exclusively: false (known only when starting).
    open var isInUseByAnotherApplication: Bool { false }

    /// Whether a session may use `preset` with this device (its formats reach the preset's size).
    open func supportsSessionPreset(_ preset: AVCaptureSession.Preset) -> Bool {
        guard hasMediaType(.video) else { return true }
        return preset.choose(from: core.liveFormats()) != nil
    }

    // MARK: Formats

    /// The formats the device offers (video: pixel format, size, frame-rate range).
    open var formats: [AVCaptureDevice.Format] { core.formats() }

    /// The format in use. Setting it needs `lockForConfiguration()`; a format not in `formats`
    /// raises. Sessions set it from their preset; setting it yourself switches the sessions
    /// using the device to `.inputPriority` and applies at once. Observable.
    open var activeFormat: AVCaptureDevice.Format {
        get {
            guard let format = core.activeFormat() else {
                CaptureException.raise("AVCaptureDevice", "activeFormat", "The device \(uniqueID) has no formats (not connected)")
            }
            return format
        }
        set {
            guard core.isLocked else { CaptureException.notLocked("setActiveFormat:") }
            guard core.formats().contains(newValue) else {
                CaptureException.raise("AVCaptureDevice", "setActiveFormat:", "Unsupported format (\(newValue))")
            }
            let changed = core.activeFormat() != newValue
            core.setActiveFormat(newValue)
            if changed { AVCaptureSession.deviceConfigurationChanged(core, formatChanged: true) }
        }
    }

    /// The shortest time between frames (1 / the highest frame rate), within one of the active
    /// format's ranges; default the format's shortest. Setting `.invalid` restores the default;
    /// setting needs `lockForConfiguration()`; a value outside the ranges raises.
    open var activeVideoMinFrameDuration: CMTime {
        get { core.frameDurations().min }
        set {
            guard core.isLocked else { CaptureException.notLocked("setActiveVideoMinFrameDuration:") }
            guard !newValue.isValid || core.activeFormat()?.supports(frameDuration: newValue) == true else {
                CaptureException.raise("AVCaptureDevice", "setActiveVideoMinFrameDuration:",
                                       "Unsupported frame duration - use -activeFormat.videoSupportedFrameRateRanges to discover valid ranges")
            }
            core.setFrameDurations(min: newValue.isValid ? newValue : nil, max: nil, changeMax: false)
            AVCaptureSession.deviceConfigurationChanged(core, formatChanged: false)
        }
    }

    /// The longest time between frames (1 / the lowest frame rate); default the same as
    /// `activeVideoMinFrameDuration` (a constant rate). Rules as for the minimum.
    open var activeVideoMaxFrameDuration: CMTime {
        get { core.frameDurations().max }
        set {
            guard core.isLocked else { CaptureException.notLocked("setActiveVideoMaxFrameDuration:") }
            guard !newValue.isValid || core.activeFormat()?.supports(frameDuration: newValue) == true else {
                CaptureException.raise("AVCaptureDevice", "setActiveVideoMaxFrameDuration:",
                                       "Unsupported frame duration - use -activeFormat.videoSupportedFrameRateRanges to discover valid ranges")
            }
            core.setFrameDurations(min: nil, max: newValue.isValid ? newValue : nil, changeMax: true)
        }
    }

    // MARK: Configuration lock

    /// Takes the device's configuration lock (needed to set formats, frame durations and
    /// controls). Throws `AVError(.deviceNotConnected)` when the device is gone. Calls nest: the
    /// lock is held until as many `unlockForConfiguration()` calls.
    open func lockForConfiguration() throws {
        guard isConnected else {
            throw AVError(.deviceNotConnected, userInfo: [NSLocalizedDescriptionKey: "Cannot Use \(localizedName)",
                                                          NSLocalizedFailureReasonErrorKey: "The device is not connected.",
                                                          AVErrorDeviceKey: self])
        }
        core.lockForConfiguration()
    }

    /// Gives back the configuration lock.
    open func unlockForConfiguration() {
        core.unlockForConfiguration()
    }

    // MARK: Notifications

    /// Posted when a device becomes available (object: the device). Using the name (to observe
    /// it) starts the device watcher, as the first device query does.
    public static let wasConnectedNotification: NSNotification.Name = {
        HotPlug.startSoon()
        return NSNotification.Name("AVCaptureDeviceWasConnectedNotification")
    }()
    /// Posted when a device goes away (object: the device). Using the name starts the watcher.
    public static let wasDisconnectedNotification: NSNotification.Name = {
        HotPlug.startSoon()
        return NSNotification.Name("AVCaptureDeviceWasDisconnectedNotification")
    }()
    /// Posted when the scene in front of a camera changed a lot (when monitoring is enabled).
    public static let subjectAreaDidChangeNotification = NSNotification.Name("AVCaptureDeviceSubjectAreaDidChangeNotification")
}

extension AVCaptureDevice {
    /// Where a camera faces.
    public enum Position: Int, Sendable {
        case unspecified = 0
        case back = 1
        case front = 2
    }

    /// The kind of a device, for discovery.
    public struct DeviceType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        /// A built-in camera (Linux: a V4L2 camera on a fixed, non-removable port).
        public static let builtInWideAngleCamera = DeviceType("AVCaptureDeviceTypeBuiltInWideAngleCamera")
        public static let builtInUltraWideCamera = DeviceType("AVCaptureDeviceTypeBuiltInUltraWideCamera")
        public static let builtInTelephotoCamera = DeviceType("AVCaptureDeviceTypeBuiltInTelephotoCamera")
        public static let builtInDualCamera = DeviceType("AVCaptureDeviceTypeBuiltInDualCamera")
        public static let builtInDualWideCamera = DeviceType("AVCaptureDeviceTypeBuiltInDualWideCamera")
        public static let builtInTripleCamera = DeviceType("AVCaptureDeviceTypeBuiltInTripleCamera")
        public static let builtInTrueDepthCamera = DeviceType("AVCaptureDeviceTypeBuiltInTrueDepthCamera")
        public static let builtInLiDARDepthCamera = DeviceType("AVCaptureDeviceTypeBuiltInLiDARDepthCamera")
        public static let continuityCamera = DeviceType("AVCaptureDeviceTypeContinuityCamera")
        public static let deskViewCamera = DeviceType("AVCaptureDeviceTypeDeskViewCamera")
        /// An external camera (USB, virtual) or microphone.
        public static let external = DeviceType("AVCaptureDeviceTypeExternal")
        /// A microphone (Linux: every PulseAudio source).
        public static let microphone = DeviceType("AVCaptureDeviceTypeMicrophone")
        /// A built-in microphone (matches the same devices as `.microphone`).
        @available(*, deprecated, renamed: "microphone")
        public static let builtInMicrophone = DeviceType("AVCaptureDeviceTypeBuiltInMicrophone")
        /// An external device of unknown kind.
        @available(*, deprecated, renamed: "external")
        public static let externalUnknown = DeviceType("AVCaptureDeviceTypeExternalUnknown")

        /// Whether a device of type `type` is found by discovery for this type (the deprecated
        /// names find what their replacements find).
        func matches(_ type: DeviceType) -> Bool {
            switch rawValue {
            case "AVCaptureDeviceTypeBuiltInMicrophone": return type.rawValue == "AVCaptureDeviceTypeMicrophone"
            case "AVCaptureDeviceTypeExternalUnknown": return type.rawValue == "AVCaptureDeviceTypeExternal"
            default: return self == type
            }
        }
    }
}

/// The state every object of one device shares (see `AVCaptureDevice`).
// Invariant: `primary` is set once, in `init` (it needs `self`); everything mutable after is in `state`.
final class CaptureDeviceCore: @unchecked Sendable {
    let uniqueID: String
    private struct State {
        var descriptor: any LiveDeviceDescriptor
        var connectedOverride: Bool?
        /// The connection state last reported to observers and in notifications.
        var reportedConnected: Bool
        var cachedFormats: [AVCaptureDevice.Format] = []
        var activeIndex: Int?
        var minDuration: CMTime?
        var maxDuration: CMTime?
        var lockCount = 0
        var handles: [WeakDevice] = []
        /// Device controls (focus, exposure, white balance, zoom, torch): what the backend offers
        /// and their current values. Read from the backend at first use (`loadControls`).
        var controls = CaptureDeviceControls()
        /// The backend's controls, once loaded (nil: the device has none).
        var cameraControls: (any LiveCameraControls)?
        var controlsLoaded = false
    }
    private let state: Mutex<State>
    /// The device object the class methods return (set once, in `init`).
    private(set) var primary: AVCaptureDevice!

    private struct WeakDevice { weak var device: AVCaptureDevice? }

    init(descriptor: any LiveDeviceDescriptor) {
        uniqueID = descriptor.uniqueID
        state = Mutex(State(descriptor: descriptor, reportedConnected: descriptor.isConnected))
        let device = AVCaptureDevice(core: self)
        primary = device
        state.withLock { $0.handles = [WeakDevice(device: device)] }
    }

    var descriptor: any LiveDeviceDescriptor { state.withLock { $0.descriptor } }

    var deviceType: AVCaptureDevice.DeviceType {
        let d = descriptor
        switch d.deviceKind {
        case .microphone: return .microphone
        case .camera, .screen: return d.isExternal ? .external : .builtInWideAngleCamera
        }
    }

    func addHandle(_ device: AVCaptureDevice) {
        state.withLock { state in
            state.handles.removeAll { $0.device == nil }
            state.handles.append(WeakDevice(device: device))
        }
    }

    /// Every live object of the device (to notify observers).
    var allHandles: [AVCaptureDevice] { state.withLock { $0.handles.compactMap(\.device) } }

    /// Tells observers of every object of the device that `keyPath` changed from `old`.
    func notify<Value>(_ keyPath: KeyPath<AVCaptureDevice, Value>, old: Value) {
        for handle in allHandles { KVORegistry.shared.didChange(handle, keyPath, old: old) }
    }

    /// A fresh descriptor from the backend. `isConnected` follows it at once; observers and
    /// notifications hear of a change only from the device watcher (`setConnected`), which
    /// compares with the state last reported — so a query made between a device's arrival and
    /// the watcher's event does not swallow the notification.
    func update(_ descriptor: any LiveDeviceDescriptor) {
        state.withLock { state in
            state.descriptor = descriptor
            state.connectedOverride = nil
        }
    }

    var isConnected: Bool {
        let (override, d) = state.withLock { state in (state.connectedOverride, state.descriptor) }
        return override ?? d.isConnected
    }

    /// Records what a device watcher saw; true when the connection state changed. A camera
    /// plugged in again has its controls opened afresh at the next control access (the modes
    /// set before are kept while it still offers them).
    func setConnected(_ connected: Bool) -> Bool {
        let old = state.withLock { state -> Bool in
            let was = state.reportedConnected
            state.connectedOverride = connected
            state.reportedConnected = connected
            if connected, !was, state.cameraControls != nil {
                state.cameraControls = nil
                state.controlsLoaded = false
            }
            return was
        }
        guard old != connected else { return false }
        notify(\.isConnected, old: old)
        return true
    }

    /// The backend's video formats (read once while the device has any).
    func liveFormats() -> [LiveVideoFormat] { formats().map(\.live) }

    func formats() -> [AVCaptureDevice.Format] {
        if let cached = state.withLock({ $0.cachedFormats.isEmpty ? nil : $0.cachedFormats }) { return cached }
        let d = descriptor
        let made: [AVCaptureDevice.Format] = d.videoFormats.map { AVCaptureDevice.Format(live: $0) }
            + d.audioFormats.map { AVCaptureDevice.Format(audio: $0) }
        return state.withLock { state in
            if state.cachedFormats.isEmpty { state.cachedFormats = made }
            return state.cachedFormats
        }
    }

    func activeFormat() -> AVCaptureDevice.Format? {
        let all = formats()
        guard !all.isEmpty else { return nil }
        let index = state.withLock { state in state.activeIndex } ?? 0
        return all[min(index, all.count - 1)]
    }

    /// Makes `format` active (no lock check: sessions call it for their preset); resets the
    /// frame durations to the format's defaults.
    func setActiveFormat(_ format: AVCaptureDevice.Format) {
        guard let index = formats().firstIndex(of: format) else { return }
        let old = activeFormat()
        let oldDurations = frameDurations()
        state.withLock { state in
            state.activeIndex = index
            state.minDuration = nil
            state.maxDuration = nil
        }
        if let old, old != format { notify(\.activeFormat, old: old) }
        let durations = frameDurations()
        if durations.min != oldDurations.min { notify(\.activeVideoMinFrameDuration, old: oldDurations.min) }
        if durations.max != oldDurations.max { notify(\.activeVideoMaxFrameDuration, old: oldDurations.max) }
    }

    /// The active frame durations: set values, else the format's shortest for both.
    func frameDurations() -> (min: CMTime, max: CMTime) {
        let format = activeFormat()
        let defaultDuration = format?.live.minFrameDuration ?? .invalid
        return state.withLock { state in
            let lo = state.minDuration ?? defaultDuration
            var hi = state.maxDuration ?? defaultDuration
            if lo.isValid, hi.isValid, hi < lo { hi = lo }
            return (lo, hi)
        }
    }

    func setFrameDurations(min newMin: CMTime?, max newMax: CMTime?, changeMax: Bool) {
        let old = frameDurations()
        state.withLock { state in
            if changeMax { state.maxDuration = newMax } else { state.minDuration = newMin }
        }
        let now = frameDurations()
        if now.min != old.min { notify(\.activeVideoMinFrameDuration, old: old.min) }
        if now.max != old.max { notify(\.activeVideoMaxFrameDuration, old: old.max) }
    }

    func lockForConfiguration() { state.withLock { $0.lockCount += 1 } }
    func unlockForConfiguration() { state.withLock { state in state.lockCount = max(0, state.lockCount - 1) } }
    var isLocked: Bool { state.withLock { $0.lockCount > 0 } }

    /// Runs `body` on the controls under the lock.
    func withControls<R: Sendable>(_ body: (inout CaptureDeviceControls) -> R) -> R {
        loadControls()
        return state.withLock { body(&$0.controls) }
    }

    /// The backend's controls (nil: none), loaded at first use.
    var backendControls: (any LiveCameraControls)? {
        loadControls()
        return state.withLock { $0.cameraControls }
    }

    /// Opens the backend's controls once: what they offer and the modes the camera is in
    /// become the device's; their reports (adjusting, a one-shot mode finished) update the
    /// device and tell its observers.
    private func loadControls() {
        let (loaded, descriptor) = state.withLock { state in (state.controlsLoaded, state.descriptor) }
        guard !loaded else { return }
        let made = descriptor.deviceKind == .camera ? descriptor.makeCameraControls() : nil
        let installed = state.withLock { state -> Bool in
            guard !state.controlsLoaded else { return false }
            state.controlsLoaded = true
            state.cameraControls = made
            if let made { state.controls.adopt(made.capabilities) }
            return made != nil
        }
        guard installed, let made else { return }
        made.setEventHandler { [weak self] event in self?.handle(event) }
    }

    /// A one-shot mode that finished: the device is locked now (unless the mode was changed meanwhile).
    private func finishOneShot<Mode: Equatable>(_ mode: WritableKeyPath<CaptureDeviceControls, Mode>, from oneShot: Mode, to locked: Mode,
                                                observed keyPath: KeyPath<AVCaptureDevice, Mode>) {
        let finished = state.withLock { state -> Bool in
            guard state.controls[keyPath: mode] == oneShot else { return false }
            state.controls[keyPath: mode] = locked
            return true
        }
        if finished { notify(keyPath, old: oneShot) }
    }

    /// A report of the backend's controls.
    private func handle(_ event: CameraControlEvent) {
        switch event {
        case .adjusting(let activity, let now):
            let was = state.withLock { state -> Bool in
                let was = state.controls.adjusting.contains(activity)
                if now { state.controls.adjusting.insert(activity) } else { state.controls.adjusting.remove(activity) }
                return was
            }
            guard was != now else { return }
            switch activity {
            case .focus: notify(\.isAdjustingFocus, old: was)
            case .exposure: notify(\.isAdjustingExposure, old: was)
            case .whiteBalance: notify(\.isAdjustingWhiteBalance, old: was)
            }
        case .oneShotFinished(.focus):
            finishOneShot(\.focusMode, from: .autoFocus, to: .locked, observed: \.focusMode)
        case .oneShotFinished(.exposure):
            finishOneShot(\.exposureMode, from: .autoExpose, to: .locked, observed: \.exposureMode)
        case .oneShotFinished(.whiteBalance):
            finishOneShot(\.whiteBalanceMode, from: .autoWhiteBalance, to: .locked, observed: \.whiteBalanceMode)
        }
    }
}
