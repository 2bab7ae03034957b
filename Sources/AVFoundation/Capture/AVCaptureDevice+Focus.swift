// AVCaptureDevice focus: modes, point of interest and range restriction, as the backend offers them.
import CoreGraphics
import Foundation
internal import MediaEngine

extension AVCaptureDevice {
    /// How a camera focuses.
    public enum FocusMode: Int, Sendable {
        case locked = 0
        case autoFocus = 1
        case continuousAutoFocus = 2
    }

    /// Which distances auto focus prefers.
    public enum AutoFocusRangeRestriction: Int, Sendable {
        case none = 0
        case near = 1
        case far = 2
    }

    /// Whether the camera offers `focusMode`: V4L2 cameras as their controls say
    /// (`FOCUS_AUTO`, `AUTO_FOCUS_START`); virtual cameras every mode with the `focus` option,
    /// else `.locked` only (fixed focus).
    public func isFocusModeSupported(_ focusMode: AVCaptureDevice.FocusMode) -> Bool {
        hasMediaType(.video) && core.withControls { $0.focusModes.contains(focusMode.rawValue) }
    }

    /// The focus mode. Setting needs `lockForConfiguration()`; an unsupported mode raises. Observable.
    public var focusMode: AVCaptureDevice.FocusMode {
        get { core.withControls { $0.focusMode } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setFocusMode:") }
            guard isFocusModeSupported(newValue) else {
                CaptureException.raise("AVCaptureDevice", "setFocusMode:", "Setting focusMode is not supported by this device. Use isFocusModeSupported:")
            }
            let (old, point) = core.withControls { c in
                defer {
                    c.focusMode = newValue
                    c.modesChanged = true
                }
                return (c.focusMode, c.focusPoint)
            }
            if old != newValue { core.notify(\.focusMode, old: old) }
            // Every setting starts the mode afresh (a new scan for auto focus) at the point of interest.
            if let mode = CameraFocusMode(rawValue: newValue.rawValue) {
                try? core.backendControls?.setFocus(mode, pointOfInterest: point)
            }
        }
    }

    /// Whether `focusPointOfInterest` may be set.
    public var isFocusPointOfInterestSupported: Bool { core.withControls { $0.focusPointOfInterest } }

    /// Where to focus, (0, 0) top left to (1, 1) bottom right of the unrotated picture; default
    /// (0.5, 0.5). Setting needs the lock and support, else raises; as on Apple's devices it
    /// takes effect when `focusMode` is next set.
    public var focusPointOfInterest: CGPoint {
        get { core.withControls { $0.focusPoint } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setFocusPointOfInterest:") }
            guard isFocusPointOfInterestSupported else {
                CaptureException.raise("AVCaptureDevice", "setFocusPointOfInterest:",
                                       "Setting focusPointOfInterest is not supported by this device. Use isFocusPointOfInterestSupported")
            }
            core.withControls { $0.focusPoint = newValue }
        }
    }

    /// Whether the camera is focusing now (an auto focus scan; never for fixed-focus cameras). Observable.
    public var isAdjustingFocus: Bool { core.withControls { $0.adjusting.contains(.focus) } }

    /// Whether smooth auto focus is offered (false).
    public var isSmoothAutoFocusSupported: Bool { false }

    /// Smooth auto focus; setting true where unsupported raises.
    public var isSmoothAutoFocusEnabled: Bool {
        get { core.withControls { $0.smoothAutoFocus } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setSmoothAutoFocusEnabled:") }
            guard !newValue || isSmoothAutoFocusSupported else {
                CaptureException.raise("AVCaptureDevice", "setSmoothAutoFocusEnabled:",
                                       "Setting smoothAutoFocusEnabled is not supported by this device. Use isSmoothAutoFocusSupported")
            }
            core.withControls { $0.smoothAutoFocus = newValue }
        }
    }

    /// Whether the auto focus range may be restricted (false).
    public var isAutoFocusRangeRestrictionSupported: Bool { false }

    /// The auto focus range restriction; default `.none`; other values where unsupported raise.
    public var autoFocusRangeRestriction: AVCaptureDevice.AutoFocusRangeRestriction {
        get { core.withControls { $0.autoFocusRangeRestriction } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setAutoFocusRangeRestriction:") }
            guard newValue == .none || isAutoFocusRangeRestrictionSupported else {
                CaptureException.raise("AVCaptureDevice", "setAutoFocusRangeRestriction:",
                                       "Setting autoFocusRangeRestriction is not supported by this device. Use isAutoFocusRangeRestrictionSupported")
            }
            core.withControls { $0.autoFocusRangeRestriction = newValue }
        }
    }

    /// Whether `subjectAreaDidChangeNotification` is posted (never here: no scene analysis).
    public var isSubjectAreaChangeMonitoringEnabled: Bool {
        get { core.withControls { $0.subjectAreaChangeMonitoring } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setSubjectAreaChangeMonitoringEnabled:") }
            core.withControls { $0.subjectAreaChangeMonitoring = newValue }
        }
    }
}
