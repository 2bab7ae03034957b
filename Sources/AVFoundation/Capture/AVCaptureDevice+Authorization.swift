// AVCaptureDevice authorization: Linux has no per-app capture permission; access to a device is
// decided by file permissions when it opens (AVCaptureDeviceInput(device:) throws then).
import Foundation

extension AVCaptureDevice {
    /// `.authorized` for `.video` and `.audio`: Linux asks no user for per-application consent
    /// (a device the user may not open fails when its input is made, with
    /// `AVError(.applicationIsNotAuthorizedToUseDevice)`); `.notDetermined` for other media types.
    public class func authorizationStatus(for mediaType: AVMediaType) -> AVAuthorizationStatus {
        mediaType == .video || mediaType == .audio ? .authorized : .notDetermined
    }

    /// Calls `handler` on a global queue with whether access is granted (see `authorizationStatus(for:)`).
    public class func requestAccess(for mediaType: AVMediaType, completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        let granted = authorizationStatus(for: mediaType) == .authorized
        DispatchQueue.global().async { handler(granted) }
    }

    /// Whether access is granted (see `authorizationStatus(for:)`).
    public class func requestAccess(for mediaType: AVMediaType) async -> Bool {
        authorizationStatus(for: mediaType) == .authorized
    }
}
