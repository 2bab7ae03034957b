// AVCapturePhotoCaptureDelegate: what a photo output tells about one capture, in Apple's order.
import Foundation

/// The methods a photo output calls for one capture request, in this order, on an internal
/// serial queue: `willBeginCaptureFor`, `willCapturePhotoFor`, `didCapturePhotoFor`,
/// `didFinishProcessingPhoto`, `didFinishCaptureFor` (a failed capture skips to
/// `didFinishProcessingPhoto`'s error, when there is a photo to report, and `didFinishCaptureFor`'s).
///
/// Every method is optional on Apple platforms; Swift on Linux has no `@objc optional`, so they
/// have default implementations (doing nothing) in an extension.
public protocol AVCapturePhotoCaptureDelegate: NSObjectProtocol {
    /// The capture's settings are resolved; nothing was captured yet.
    func photoOutput(_ output: AVCapturePhotoOutput, willBeginCaptureFor resolvedSettings: AVCaptureResolvedPhotoSettings)
    /// The picture is about to be taken (the next frame).
    func photoOutput(_ output: AVCapturePhotoOutput, willCapturePhotoFor resolvedSettings: AVCaptureResolvedPhotoSettings)
    /// The picture was taken.
    func photoOutput(_ output: AVCapturePhotoOutput, didCapturePhotoFor resolvedSettings: AVCaptureResolvedPhotoSettings)
    /// The photo is ready (or `error` says why not).
    func photoOutput(_ output: AVCapturePhotoOutput, didFinishProcessingPhoto photo: AVCapturePhoto, error: (any Error)?)
    /// The capture is over (the last call for the request).
    func photoOutput(_ output: AVCapturePhotoOutput, didFinishCaptureFor resolvedSettings: AVCaptureResolvedPhotoSettings,
                     error: (any Error)?)
}

extension AVCapturePhotoCaptureDelegate {
    public func photoOutput(_ output: AVCapturePhotoOutput, willBeginCaptureFor resolvedSettings: AVCaptureResolvedPhotoSettings) {}
    public func photoOutput(_ output: AVCapturePhotoOutput, willCapturePhotoFor resolvedSettings: AVCaptureResolvedPhotoSettings) {}
    public func photoOutput(_ output: AVCapturePhotoOutput, didCapturePhotoFor resolvedSettings: AVCaptureResolvedPhotoSettings) {}
    public func photoOutput(_ output: AVCapturePhotoOutput, didFinishProcessingPhoto photo: AVCapturePhoto, error: (any Error)?) {}
    public func photoOutput(_ output: AVCapturePhotoOutput, didFinishCaptureFor resolvedSettings: AVCaptureResolvedPhotoSettings,
                            error: (any Error)?) {}
}
