// AVCaptureDevice torch and flash: Linux cameras seldom have either (V4L2 flash controls join
// with that backend); without them every query says so and setting a mode other than off raises.
import Foundation

extension AVCaptureDevice {
    /// The torch (continuous light) mode.
    public enum TorchMode: Int, Sendable {
        case off = 0
        case on = 1
        case auto = 2
    }

    /// The flash mode.
    public enum FlashMode: Int, Sendable {
        case off = 0
        case on = 1
        case auto = 2
    }

    /// The brightest torch level (1.0).
    public static let maxAvailableTorchLevel: Float = 1.0

    /// Whether the device has a torch (false here).
    public var hasTorch: Bool { false }
    /// Whether the torch may be used now. Observable.
    public var isTorchAvailable: Bool { false }
    /// Whether the torch is on.
    public var isTorchActive: Bool { false }
    /// The torch's brightness, 0…1. Observable.
    public var torchLevel: Float { 0 }

    /// Whether `torchMode` is offered: `.off` always, others only with a torch.
    public func isTorchModeSupported(_ torchMode: AVCaptureDevice.TorchMode) -> Bool {
        torchMode == .off || hasTorch
    }

    /// The torch mode (`.off`). Setting needs the lock; an unsupported mode raises.
    public var torchMode: AVCaptureDevice.TorchMode {
        get { .off }
        set {
            guard core.isLocked else { CaptureException.notLocked("setTorchMode:") }
            guard isTorchModeSupported(newValue) else {
                CaptureException.raise("AVCaptureDevice", "setTorchMode:",
                                       "Torch mode \(newValue.rawValue) is not supported by this device. Use isTorchModeSupported:")
            }
        }
    }

    /// Turns the torch on at `torchLevel` (0 < level ≤ 1). Needs the lock; raises without a torch.
    public func setTorchModeOn(level torchLevel: Float) throws {
        guard core.isLocked else { CaptureException.notLocked("setTorchModeOnWithLevel:error:") }
        guard hasTorch else {
            CaptureException.raise("AVCaptureDevice", "setTorchModeOnWithLevel:error:",
                                   "Torch mode 1 is not supported by this device. Use isTorchModeSupported:")
        }
    }

    /// Whether the device has a flash (false here).
    public var hasFlash: Bool { false }
    /// Whether the flash may be used now.
    public var isFlashAvailable: Bool { false }

    /// Whether `flashMode` is offered: `.off` always, others only with a flash.
    @available(*, deprecated, message: "Use AVCapturePhotoOutput's supportedFlashModes instead")
    public func isFlashModeSupported(_ flashMode: AVCaptureDevice.FlashMode) -> Bool {
        flashMode == .off || hasFlash
    }

    /// The flash mode (`.off`). Setting needs the lock; an unsupported mode raises.
    @available(*, deprecated, message: "Use AVCapturePhotoSettings.flashMode instead")
    public var flashMode: AVCaptureDevice.FlashMode {
        get { .off }
        set {
            guard core.isLocked else { CaptureException.notLocked("setFlashMode:") }
            guard newValue == .off || hasFlash else {
                CaptureException.raise("AVCaptureDevice", "setFlashMode:",
                                       "Flash mode \(newValue.rawValue) is not supported by this device. Use isFlashModeSupported:")
            }
        }
    }
}
