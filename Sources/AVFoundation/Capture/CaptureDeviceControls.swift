// The controls of a capture device (focus, exposure, white balance, zoom, torch): which modes
// the backend offers and their current values, shared by every object of the device.
import CoreGraphics
import CoreMedia
import Foundation

struct CaptureDeviceControls: Sendable {
    /// The zoom every camera has: a centre crop of the picture, scaled back to the output size.
    static let softwareMaxZoomFactor: CGFloat = 16

    // What the backend offers. Virtual cameras and cameras without controls: fixed focus,
    // exposure and white balance (only `.locked`), no torch or flash.
    var focusModes: Set<Int> = [AVCaptureDevice.FocusMode.locked.rawValue]
    var exposureModes: Set<Int> = [AVCaptureDevice.ExposureMode.locked.rawValue]
    var whiteBalanceModes: Set<Int> = [AVCaptureDevice.WhiteBalanceMode.locked.rawValue]
    var pointsOfInterest = false

    var focusMode = AVCaptureDevice.FocusMode.locked
    var exposureMode = AVCaptureDevice.ExposureMode.locked
    var whiteBalanceMode = AVCaptureDevice.WhiteBalanceMode.locked
    var focusPoint = CGPoint(x: 0.5, y: 0.5)
    var exposurePoint = CGPoint(x: 0.5, y: 0.5)
    var subjectAreaChangeMonitoring = false
    var smoothAutoFocus = false
    var autoFocusRangeRestriction = AVCaptureDevice.AutoFocusRangeRestriction.none

    var zoomFactor: CGFloat = 1
    /// The running ramp's generation (0: none); a new ramp or a cancel bumps `rampGeneration`.
    var rampGeneration: UInt64 = 0
    var isRamping = false
}
