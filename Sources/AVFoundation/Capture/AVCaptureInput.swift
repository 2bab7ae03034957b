// AVCaptureInput: the abstract source of a capture session, with its ports.
import Foundation
import Synchronization

/// The abstract base of capture session inputs (`AVCaptureDeviceInput`): one port per stream
/// the input provides.
open class AVCaptureInput: NSObject, @unchecked Sendable {
    /// The ports, set by the subclass when it is made.
    let portList = Mutex<[AVCaptureInput.Port]>([])

    override init() {
        super.init()
    }

    /// The input's ports (one per media type it provides).
    open var ports: [AVCaptureInput.Port] { portList.withLock { $0 } }
}
