// The controls of a capture device (focus, exposure, white balance, zoom, torch): which modes
// the backend offers and their current values, shared by every object of the device.
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine

struct CaptureDeviceControls: Sendable {
    /// The zoom every camera has: a centre crop of the picture, scaled back to the output size.
    static let softwareMaxZoomFactor: CGFloat = 16

    // What the backend offers. Cameras without controls (virtual cameras without options,
    // file cameras, screens): fixed focus, exposure and white balance (only `.locked`), no
    // torch or flash.
    var focusModes: Set<Int> = [AVCaptureDevice.FocusMode.locked.rawValue]
    var exposureModes: Set<Int> = [AVCaptureDevice.ExposureMode.locked.rawValue]
    var whiteBalanceModes: Set<Int> = [AVCaptureDevice.WhiteBalanceMode.locked.rawValue]
    var focusPointOfInterest = false
    var exposurePointOfInterest = false
    var hasTorch = false
    var hasFlash = false
    var position = AVCaptureDevice.Position.unspecified

    var focusMode = AVCaptureDevice.FocusMode.locked
    var exposureMode = AVCaptureDevice.ExposureMode.locked
    var whiteBalanceMode = AVCaptureDevice.WhiteBalanceMode.locked
    var focusPoint = CGPoint(x: 0.5, y: 0.5)
    var exposurePoint = CGPoint(x: 0.5, y: 0.5)
    var subjectAreaChangeMonitoring = false
    var smoothAutoFocus = false
    var autoFocusRangeRestriction = AVCaptureDevice.AutoFocusRangeRestriction.none
    /// What the camera reports it is adjusting now.
    var adjusting: Set<CameraActivity> = []
    var torchMode = AVCaptureDevice.TorchMode.off
    /// The torch's brightness now (0 while off).
    var torchLevel: Float = 0
    var flashMode = AVCaptureDevice.FlashMode.off

    var zoomFactor: CGFloat = 1
    /// The running ramp's generation (0: none); a new ramp or a cancel bumps `rampGeneration`.
    var rampGeneration: UInt64 = 0
    var isRamping = false
    /// Whether a mode was set through the device (kept when the camera is opened again).
    var modesChanged = false

    init() {}

    /// Takes what a camera's controls offer: the modes it offers, its points of interest,
    /// torch, flash and position. A mode set before (a camera opened again after being plugged
    /// back in) is kept while still offered; otherwise the camera's current mode is taken.
    mutating func adopt(_ capabilities: LiveCameraCapabilities) {
        focusModes = Set(capabilities.focusModes.map(\.rawValue))
        exposureModes = Set(capabilities.exposureModes.map(\.rawValue))
        whiteBalanceModes = Set(capabilities.whiteBalanceModes.map(\.rawValue))
        focusPointOfInterest = capabilities.focusPointOfInterest
        exposurePointOfInterest = capabilities.exposurePointOfInterest
        hasTorch = capabilities.hasTorch
        hasFlash = capabilities.hasFlash
        position = AVCaptureDevice.Position(rawValue: capabilities.position.rawValue) ?? .unspecified
        if !modesChanged || !focusModes.contains(focusMode.rawValue) {
            focusMode = AVCaptureDevice.FocusMode(rawValue: capabilities.focusMode.rawValue) ?? .locked
        }
        if !modesChanged || !exposureModes.contains(exposureMode.rawValue) {
            exposureMode = AVCaptureDevice.ExposureMode(rawValue: capabilities.exposureMode.rawValue) ?? .locked
        }
        if !modesChanged || !whiteBalanceModes.contains(whiteBalanceMode.rawValue) {
            whiteBalanceMode = AVCaptureDevice.WhiteBalanceMode(rawValue: capabilities.whiteBalanceMode.rawValue) ?? .locked
        }
        if !hasTorch {
            torchMode = .off
            torchLevel = 0
        }
    }
}
