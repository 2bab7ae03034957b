// AVCaptureDevice white balance: modes, as the backend offers them.
import Foundation
internal import MediaEngine

extension AVCaptureDevice {
    /// How a camera balances white.
    public enum WhiteBalanceMode: Int, Sendable {
        case locked = 0
        case autoWhiteBalance = 1
        case continuousAutoWhiteBalance = 2
    }

    /// Whether the camera offers `whiteBalanceMode`: V4L2 cameras as `AUTO_WHITE_BALANCE` and
    /// `DO_WHITE_BALANCE` allow; virtual cameras every mode with the `whitebalance` option,
    /// else `.locked` only.
    public func isWhiteBalanceModeSupported(_ whiteBalanceMode: AVCaptureDevice.WhiteBalanceMode) -> Bool {
        hasMediaType(.video) && core.withControls { $0.whiteBalanceModes.contains(whiteBalanceMode.rawValue) }
    }

    /// The white balance mode. Setting needs `lockForConfiguration()`; an unsupported mode raises.
    public var whiteBalanceMode: AVCaptureDevice.WhiteBalanceMode {
        get { core.withControls { $0.whiteBalanceMode } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setWhiteBalanceMode:") }
            guard isWhiteBalanceModeSupported(newValue) else {
                CaptureException.raise("AVCaptureDevice", "setWhiteBalanceMode:",
                                       "Setting whiteBalanceMode is not supported by this device. Use isWhiteBalanceModeSupported:")
            }
            let old = core.withControls { c in
                defer {
                    c.whiteBalanceMode = newValue
                    c.modesChanged = true
                }
                return c.whiteBalanceMode
            }
            if old != newValue { core.notify(\.whiteBalanceMode, old: old) }
            if let mode = CameraWhiteBalanceMode(rawValue: newValue.rawValue) {
                try? core.backendControls?.setWhiteBalance(mode)
            }
        }
    }

    /// Whether the camera is adjusting its white balance now. Observable.
    public var isAdjustingWhiteBalance: Bool { core.withControls { $0.adjusting.contains(.whiteBalance) } }
}
