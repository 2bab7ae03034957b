// AVCaptureDevice exposure: modes and point of interest, as the backend offers them.
import CoreGraphics
import Foundation
internal import MediaEngine

extension AVCaptureDevice {
    /// How a camera sets its exposure.
    public enum ExposureMode: Int, Sendable {
        case locked = 0
        case autoExpose = 1
        case continuousAutoExposure = 2
        case custom = 3
    }

    /// Whether the camera offers `exposureMode`: V4L2 cameras as `EXPOSURE_AUTO` allows
    /// (`.custom` never); virtual cameras `.locked`, `.autoExpose` and `.continuousAutoExposure`
    /// with the `exposure` option, else `.locked` only.
    public func isExposureModeSupported(_ exposureMode: AVCaptureDevice.ExposureMode) -> Bool {
        hasMediaType(.video) && core.withControls { $0.exposureModes.contains(exposureMode.rawValue) }
    }

    /// The exposure mode. Setting needs `lockForConfiguration()`; an unsupported mode raises. Observable.
    public var exposureMode: AVCaptureDevice.ExposureMode {
        get { core.withControls { $0.exposureMode } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setExposureMode:") }
            guard isExposureModeSupported(newValue) else {
                CaptureException.raise("AVCaptureDevice", "setExposureMode:",
                                       "Setting exposureMode is not supported by this device. Use isExposureModeSupported:")
            }
            let (old, point) = core.withControls { c in
                defer {
                    c.exposureMode = newValue
                    c.modesChanged = true
                }
                return (c.exposureMode, c.exposurePoint)
            }
            if old != newValue { core.notify(\.exposureMode, old: old) }
            if let mode = CameraExposureMode(rawValue: newValue.rawValue) {
                try? core.backendControls?.setExposure(mode, pointOfInterest: point)
            }
        }
    }

    /// Whether `exposurePointOfInterest` may be set.
    public var isExposurePointOfInterestSupported: Bool { core.withControls { $0.exposurePointOfInterest } }

    /// Where to meter exposure, (0, 0)–(1, 1) of the unrotated picture; default (0.5, 0.5).
    public var exposurePointOfInterest: CGPoint {
        get { core.withControls { $0.exposurePoint } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setExposurePointOfInterest:") }
            guard isExposurePointOfInterestSupported else {
                CaptureException.raise("AVCaptureDevice", "setExposurePointOfInterest:",
                                       "Setting exposurePointOfInterest is not supported by this device. Use isExposurePointOfInterestSupported")
            }
            core.withControls { $0.exposurePoint = newValue }
        }
    }

    /// Whether the camera is adjusting its exposure now. Observable.
    public var isAdjustingExposure: Bool { core.withControls { $0.adjusting.contains(.exposure) } }
}
