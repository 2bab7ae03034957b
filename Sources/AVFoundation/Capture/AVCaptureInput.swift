// AVCaptureInput: the abstract source of a capture session, with its ports.
import Foundation

/// The abstract base of capture session inputs (`AVCaptureDeviceInput`): one port per stream
/// the input provides.
open class AVCaptureInput: NSObject, @unchecked Sendable {
    let inputLock = NSLock()
    var portList: [AVCaptureInput.Port] = []

    override init() {
        super.init()
    }

    /// The input's ports (one per media type it provides).
    open var ports: [AVCaptureInput.Port] { inputLock.withLock { portList } }
}
