// LiveDevice: how every capture backend (virtual cameras, V4L2 cameras, PulseAudio sources, X11
// screens) describes a device to the capture layer, and the audio side of live sources. No C types.
import CoreGraphics
import CoreMedia
import Foundation

/// What kind of device a descriptor stands for.
package enum LiveDeviceKind: Sendable, Hashable {
    /// A camera (V4L2 or virtual): video.
    case camera
    /// A sound source (PulseAudio microphone or monitor): audio.
    case microphone
    /// A screen (X11): video, made by `AVCaptureScreenInput`, not listed among devices.
    case screen
}

/// The audio format a live audio source delivers: 32-bit float samples, interleaved, at
/// `sampleRate` with `channelCount` channels.
package struct LiveAudioFormat: Sendable, Hashable, CustomStringConvertible {
    package var sampleRate: Double
    package var channelCount: Int

    package init(sampleRate: Double, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    package var description: String { "Float32 \(channelCount) ch @ \(Int(sampleRate)) Hz" }
}

/// One chunk of captured sound: interleaved Float32 samples, when the first of them was captured
/// (on the source's clock; exact, timescale = the sample rate) and whether it follows the previous
/// chunk without a gap.
package struct LiveAudioChunk: Sendable {
    /// `frameCount × channelCount` interleaved Float32 samples (native byte order).
    package let samples: Data
    package let frameCount: Int
    package let format: LiveAudioFormat
    /// Capture time of the first frame.
    package let pts: CMTime
    /// True when this chunk does not continue the previous one (first chunk, re-anchored clock,
    /// lost samples).
    package let isDiscontinuity: Bool

    package init(samples: Data, frameCount: Int, format: LiveAudioFormat, pts: CMTime, isDiscontinuity: Bool) {
        self.samples = samples
        self.frameCount = frameCount
        self.format = format
        self.pts = pts
        self.isDiscontinuity = isDiscontinuity
    }
}

/// A source of live sound (microphones, monitors of outputs). The same contract as `LiveSource`:
/// `start` delivers chunks on a thread of the source's own; `failed` at most once when the source
/// stops on its own; `stop()` blocks until no `deliver` runs and none will; restartable.
package protocol LiveAudioSource: AnyObject, Sendable {
    /// The formats the source can deliver (its native rate and channel count first).
    var formats: [LiveAudioFormat] { get }
    func start(format: LiveAudioFormat, clock: CMClock,
               deliver: @escaping @Sendable (LiveAudioChunk) -> Void,
               failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError)
    func stop()
}

/// A device as a backend describes it, without opening it: what `AVCaptureDevice` shows and how
/// to make its source.
package protocol LiveDeviceDescriptor: Sendable {
    /// Stable across runs and processes (`virtual:testsrc:640x480@30`, `v4l2:usb-0000:00:14.0-1`,
    /// `pulse:alsa_input.pci-…`, `x11::0.0`).
    var uniqueID: String { get }
    var modelID: String { get }
    var localizedName: String { get }
    var manufacturer: String { get }
    var deviceKind: LiveDeviceKind { get }
    /// External (USB, virtual) rather than built in: decides `AVCaptureDevice.DeviceType.external`.
    var isExternal: Bool { get }
    /// Video formats (empty for microphones).
    var videoFormats: [LiveVideoFormat] { get }
    /// Audio formats (empty for cameras and screens).
    var audioFormats: [LiveAudioFormat] { get }
    /// Whether the device can deliver now.
    var isConnected: Bool { get }
    /// A video source (nil for microphones); nothing is opened until it starts.
    func makeVideoSource() -> (any LiveSource)?
    /// An audio source (nil for cameras and screens); nothing is opened until it starts.
    func makeAudioSource() -> (any LiveAudioSource)?
    /// The camera's controls (nil for devices without any); opened when made.
    func makeCameraControls() -> (any LiveCameraControls)?
}

extension VirtualCamera: LiveDeviceDescriptor {
    package var deviceKind: LiveDeviceKind { .camera }
    package var isExternal: Bool { true }
    /// A pattern's formats; a file camera's from its file (empty while the file is missing).
    package var videoFormats: [LiveVideoFormat] {
        switch kind {
        case .testPattern: return formats
        case .file(let url): return (try? FileLoopReader.formats(of: url)) ?? []
        }
    }
    package var audioFormats: [LiveAudioFormat] { [] }
    package func makeVideoSource() -> (any LiveSource)? { makeSource() }
    package func makeAudioSource() -> (any LiveAudioSource)? { nil }
    /// A test pattern camera's pretend controls, when its entry names any.
    package func makeCameraControls() -> (any LiveCameraControls)? {
        guard case .testPattern = kind, options != Options() else { return nil }
        return VirtualCameraControls(capabilities: options.capabilities, lightKey: options.torch ? uniqueID : nil)
    }
}

// MARK: Camera controls

/// Apple's focus modes (raw values as `AVCaptureDevice.FocusMode`).
package enum CameraFocusMode: Int, Sendable, CaseIterable { case locked = 0, autoFocus = 1, continuousAutoFocus = 2 }
/// Apple's exposure modes (raw values as `AVCaptureDevice.ExposureMode`; `custom` is not mapped).
package enum CameraExposureMode: Int, Sendable, CaseIterable { case locked = 0, autoExpose = 1, continuousAutoExposure = 2 }
/// Apple's white balance modes (raw values as `AVCaptureDevice.WhiteBalanceMode`).
package enum CameraWhiteBalanceMode: Int, Sendable, CaseIterable { case locked = 0, autoWhiteBalance = 1, continuousAutoWhiteBalance = 2 }
/// Apple's device positions (raw values as `AVCaptureDevice.Position`).
package enum CameraPosition: Int, Sendable { case unspecified = 0, back = 1, front = 2 }

/// What a camera's controls offer, in Apple's terms, and the modes it is in when opened.
package struct LiveCameraCapabilities: Sendable, Equatable {
    package var focusModes: Set<CameraFocusMode> = [.locked]
    package var exposureModes: Set<CameraExposureMode> = [.locked]
    package var whiteBalanceModes: Set<CameraWhiteBalanceMode> = [.locked]
    /// Whether focus and exposure can be aimed at a point (`…PointOfInterestSupported`).
    package var focusPointOfInterest = false
    package var exposurePointOfInterest = false
    package var hasTorch = false
    package var hasFlash = false
    package var position: CameraPosition = .unspecified
    /// The modes the camera is in now.
    package var focusMode: CameraFocusMode = .locked
    package var exposureMode: CameraExposureMode = .locked
    package var whiteBalanceMode: CameraWhiteBalanceMode = .locked

    package init() {}
}

/// A camera activity that can be "adjusting" (`isAdjustingFocus`, …).
package enum CameraActivity: Sendable, Hashable { case focus, exposure, whiteBalance }

/// What a camera's controls report on their own.
package enum CameraControlEvent: Sendable, Equatable {
    /// The camera began (`true`) or finished (`false`) adjusting.
    case adjusting(CameraActivity, Bool)
    /// A one-shot mode (`autoFocus`, `autoExpose`, `autoWhiteBalance`) finished: the camera is
    /// locked now, as Apple's devices switch to `.locked` after one scan.
    case oneShotFinished(CameraActivity)
}

/// A camera's controls: setting Apple's modes, points of interest and the torch on the device,
/// and hearing when it adjusts. Calls may come from any thread; `events` is called on a thread
/// of the controls' own, never while a setter runs on the caller's thread.
package protocol LiveCameraControls: AnyObject, Sendable {
    var capabilities: LiveCameraCapabilities { get }
    /// Where reports go (set once, before the first setter).
    func setEventHandler(_ handler: @escaping @Sendable (CameraControlEvent) -> Void)
    func setFocus(_ mode: CameraFocusMode, pointOfInterest: CGPoint) throws(LiveSourceError)
    func setExposure(_ mode: CameraExposureMode, pointOfInterest: CGPoint) throws(LiveSourceError)
    func setWhiteBalance(_ mode: CameraWhiteBalanceMode) throws(LiveSourceError)
    /// Turns the torch on at `level` (0 < level ≤ 1) or off (0).
    func setTorch(level: Float) throws(LiveSourceError)
}

extension LiveDeviceDescriptor {
    /// No controls: fixed focus, exposure and white balance, no torch.
    package func makeCameraControls() -> (any LiveCameraControls)? { nil }
}
