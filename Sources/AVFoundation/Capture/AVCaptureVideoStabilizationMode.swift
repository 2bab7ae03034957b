// AVCaptureVideoStabilizationMode: the stabilization a connection asks for and gets.

/// Video stabilization modes (cameras here offer none: the active mode is always `.off`).
public enum AVCaptureVideoStabilizationMode: Int, Sendable {
    case off = 0
    case standard = 1
    case cinematic = 2
    case cinematicExtended = 3
    case previewOptimized = 4
    case cinematicExtendedEnhanced = 5
    case auto = -1
}
