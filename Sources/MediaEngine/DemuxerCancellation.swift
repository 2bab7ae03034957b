// DemuxerCancellation: a flag and deadline FFmpeg's I/O polls, so opening or scanning a file can
// be cancelled from another thread and can never hang.
import Foundation
import Synchronization

/// A cancellation flag with an optional deadline, polled by FFmpeg's interrupt callback during
/// every blocking read of the demuxers that share it. Thread-safe.
package final class DemuxerCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    private let deadlineNanoseconds: UInt64?

    /// A flag that is not cancelled, optionally expiring `timeout` seconds from now.
    package init(timeout: Double? = nil) {
        if let timeout, timeout.isFinite, timeout >= 0 {
            deadlineNanoseconds = DispatchTime.now().uptimeNanoseconds &+ UInt64(timeout * 1e9)
        } else {
            deadlineNanoseconds = nil
        }
    }

    /// Asks every operation using this flag to stop as soon as it can.
    package func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Whether `cancel()` was called.
    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Whether the operation must stop: cancelled, or past the deadline.
    package var shouldStop: Bool {
        if isCancelled { return true }
        if let deadlineNanoseconds { return DispatchTime.now().uptimeNanoseconds > deadlineNanoseconds }
        return false
    }
}
