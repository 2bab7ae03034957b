// The other common shape of status observation, in a file that imports AVFoundation alone: a
// main-actor model that hops back to the main actor from the (Sendable) change handler.
import AVFoundation

@MainActor
final class ExportViewModel: NSObject {
    private(set) var status: AVAssetExportSession.Status = .unknown
    private var observation: NSKeyValueObservation?

    func watch(_ session: AVAssetExportSession) {
        observation = session.observe(\.status, options: [.new]) { [weak self] _, change in
            guard let status = change.newValue else { return }
            Task { @MainActor in self?.status = status }
        }
    }

    func stop() {
        observation?.invalidate()
        observation = nil
    }
}
