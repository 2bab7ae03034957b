// The capture notifications under the names Apple's SDK still compiles beside the class
// properties: `NSNotification.Name.AVCaptureSessionRuntimeError` is the same name as
// `AVCaptureSession.runtimeErrorNotification`. Published capture code uses both.
import Foundation

extension NSNotification.Name {
    /// `AVCaptureSession.runtimeErrorNotification`.
    public static let AVCaptureSessionRuntimeError = AVCaptureSession.runtimeErrorNotification
    /// `AVCaptureSession.didStartRunningNotification`.
    public static let AVCaptureSessionDidStartRunning = AVCaptureSession.didStartRunningNotification
    /// `AVCaptureSession.didStopRunningNotification`.
    public static let AVCaptureSessionDidStopRunning = AVCaptureSession.didStopRunningNotification
    /// `AVCaptureSession.wasInterruptedNotification`.
    public static let AVCaptureSessionWasInterrupted = AVCaptureSession.wasInterruptedNotification
    /// `AVCaptureSession.interruptionEndedNotification`.
    public static let AVCaptureSessionInterruptionEnded = AVCaptureSession.interruptionEndedNotification
    /// `AVCaptureDevice.wasConnectedNotification`.
    public static let AVCaptureDeviceWasConnected = AVCaptureDevice.wasConnectedNotification
    /// `AVCaptureDevice.wasDisconnectedNotification`.
    public static let AVCaptureDeviceWasDisconnected = AVCaptureDevice.wasDisconnectedNotification
    /// `AVCaptureDevice.subjectAreaDidChangeNotification`.
    public static let AVCaptureDeviceSubjectAreaDidChange = AVCaptureDevice.subjectAreaDidChangeNotification
    /// `AVCaptureInput.Port.formatDescriptionDidChangeNotification`.
    public static let AVCaptureInputPortFormatDescriptionDidChange = AVCaptureInput.Port.formatDescriptionDidChangeNotification
}
