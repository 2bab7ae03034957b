// AVCaptureDevice torch and flash: a V4L2 camera's torch is its `FLASH_LED_MODE` TORCH with
// `FLASH_TORCH_INTENSITY` as the level; virtual cameras have one with the `torch` option.
// Without one every query says so and setting a mode other than off raises.
import Foundation
internal import MediaEngine

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

    /// Whether the device has a torch.
    public var hasTorch: Bool { core.withControls { $0.hasTorch } }
    /// Whether the torch may be used now: whenever the device has one (Linux reports no
    /// overheating). Observable.
    public var isTorchAvailable: Bool { hasTorch }
    /// Whether the torch is lit.
    public var isTorchActive: Bool { core.withControls { $0.torchLevel > 0 } }
    /// The torch's brightness, 0…1 (0 while off). Observable.
    public var torchLevel: Float { core.withControls { $0.torchLevel } }

    /// Whether `torchMode` is offered: `.off` always, the others only with a torch. `.auto`
    /// lights the torch only in the dark; no Linux camera tells how dark the scene is, so here
    /// it leaves the torch off.
    public func isTorchModeSupported(_ torchMode: AVCaptureDevice.TorchMode) -> Bool {
        torchMode == .off || hasTorch
    }

    /// The torch mode (default `.off`). Setting needs the lock; an unsupported mode raises.
    /// `.on` lights it at full level. Observable.
    public var torchMode: AVCaptureDevice.TorchMode {
        get { core.withControls { $0.torchMode } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setTorchMode:") }
            guard isTorchModeSupported(newValue) else {
                CaptureException.raise("AVCaptureDevice", "setTorchMode:",
                                       "Torch mode \(newValue.rawValue) is not supported by this device. Use isTorchModeSupported:")
            }
            setTorch(mode: newValue, level: newValue == .on ? Self.maxAvailableTorchLevel : 0)
        }
    }

    /// Turns the torch on at `torchLevel` (0 < level ≤ 1, or `maxAvailableTorchLevel`). Needs the
    /// lock; raises without a torch or for a level out of range; throws when the camera refuses.
    public func setTorchModeOn(level torchLevel: Float) throws {
        guard core.isLocked else { CaptureException.notLocked("setTorchModeOnWithLevel:error:") }
        guard hasTorch else {
            CaptureException.raise("AVCaptureDevice", "setTorchModeOnWithLevel:error:",
                                   "Torch mode 1 is not supported by this device. Use isTorchModeSupported:")
        }
        guard torchLevel > 0, torchLevel <= Self.maxAvailableTorchLevel else {
            CaptureException.raise("AVCaptureDevice", "setTorchModeOnWithLevel:error:",
                                   "The torch level must be in the range (0.0, 1.0] or AVCaptureMaxAvailableTorchLevel")
        }
        if let error = setTorch(mode: .on, level: torchLevel) { throw error }
    }

    /// Sets the torch on the camera, then the mode and level observers see. Returns the
    /// camera's refusal, if any (the mode and level are then unchanged).
    @discardableResult
    private func setTorch(mode: AVCaptureDevice.TorchMode, level: Float) -> AVError? {
        do {
            try core.backendControls?.setTorch(level: level)
        } catch {
            return AVError(.unknown, userInfo: [NSLocalizedDescriptionKey: "Cannot Use \(localizedName)",
                                                NSLocalizedFailureReasonErrorKey: "The torch could not be set: \(error)",
                                                AVErrorDeviceKey: self])
        }
        let (oldMode, oldLevel) = core.withControls { c -> (AVCaptureDevice.TorchMode, Float) in
            defer {
                c.torchMode = mode
                c.torchLevel = level
            }
            return (c.torchMode, c.torchLevel)
        }
        if oldMode != mode { core.notify(\.torchMode, old: oldMode) }
        if oldLevel != level {
            core.notify(\.torchLevel, old: oldLevel)
            if (oldLevel > 0) != (level > 0) { core.notify(\.isTorchActive, old: oldLevel > 0) }
        }
        return nil
    }

    /// Whether the device has a flash for stills (virtual cameras with the `flash` option).
    public var hasFlash: Bool { core.withControls { $0.hasFlash } }
    /// Whether the flash may be used now: whenever the device has one.
    public var isFlashAvailable: Bool { hasFlash }

    /// Whether `flashMode` is offered: `.off` always, others only with a flash.
    @available(*, deprecated, message: "Use AVCapturePhotoOutput's supportedFlashModes instead")
    public func isFlashModeSupported(_ flashMode: AVCaptureDevice.FlashMode) -> Bool {
        flashMode == .off || hasFlash
    }

    /// The flash mode for still images (default `.off`). Setting needs the lock; an
    /// unsupported mode raises.
    @available(*, deprecated, message: "Use AVCapturePhotoSettings.flashMode instead")
    public var flashMode: AVCaptureDevice.FlashMode {
        get { core.withControls { $0.flashMode } }
        set {
            guard core.isLocked else { CaptureException.notLocked("setFlashMode:") }
            guard newValue == .off || hasFlash else {
                CaptureException.raise("AVCaptureDevice", "setFlashMode:",
                                       "Flash mode \(newValue.rawValue) is not supported by this device. Use isFlashModeSupported:")
            }
            core.withControls { $0.flashMode = newValue }
        }
    }
}
