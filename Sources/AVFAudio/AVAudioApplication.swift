// AVAudioApplication: the app-level audio object Apple added in iOS 17 / macOS 14 — here its
// record permission, answered from the sound server as AVAudioSession's is.
import Foundation

/// An object that manages the app's audio sessions: on Linux, record permission.
public final class AVAudioApplication: NSObject, Sendable {
    private static let sharedApplication = AVAudioApplication()

    /// The shared audio application.
    public class var shared: AVAudioApplication { sharedApplication }

    private override init() { super.init() }

    /// The app's permission to record audio.
    public enum recordPermission: Int, Sendable {
        /// 'undt'
        case undetermined = 0x756E_6474
        /// 'deny'
        case denied = 0x6465_6E79
        /// 'grnt'
        case granted = 0x6772_6E74
    }

    /// `.granted` when the sound server has a source to record, else `.denied` (no prompt on Linux).
    public var recordPermission: AVAudioApplication.recordPermission {
        AVAudioSession.sharedInstance().isInputAvailable ? .granted : .denied
    }

    /// Calls `response` on a global queue with whether recording is possible.
    public class func requestRecordPermission(completionHandler response: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async { response(shared.recordPermission == .granted) }
    }

    /// Whether recording is possible.
    public class func requestRecordPermission() async -> Bool {
        await withCheckedContinuation { continuation in
            requestRecordPermission { continuation.resume(returning: $0) }
        }
    }
}
