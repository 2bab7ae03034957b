// ReaderSession: the state one AVAssetReader shares with its outputs — status, error, and which
// outputs have run out — kept apart from the reader so outputs never keep it alive.
import CoreMedia
import Foundation

/// The reading state of one asset reader, shared by the reader and its outputs. Thread-safe.
///
/// Outputs hold the session strongly; the session holds its outputs weakly, so an output the
/// caller drops does not keep a reading alive (it no longer counts towards completion). Lock
/// order: an output's own lock may be held while calling into the session; the session calls
/// outputs only to cancel them, never while holding its lock. An output lets its source go as soon
/// as it has run out for good, or at its next call once reading has failed or completed.
final class ReaderSession: @unchecked Sendable {
    private let lock = NSLock()
    private var statusValue = AVAssetReader.Status.unknown
    private var errorValue: (any Error)?
    private var starting = false
    /// The reader whose `status` this is, to tell its observers of changes.
    private weak var reader: AVAssetReader?
    /// Every output added, weakly, with what completion needs to know about it.
    private var members: [Member] = []

    private struct Member {
        weak var output: AVAssetReaderOutput?
        var id: ObjectIdentifier
        /// The output returned nil since its last (re)start.
        var exhausted = false
        /// The output may still be reset (random access not marked final).
        var awaitsConfiguration = false
    }

    var status: AVAssetReader.Status { lock.withLock { statusValue } }

    /// A change of the status, which the reader's key-value observers are told of by `post()`
    /// once no lock is held (an output calls into the session with its own lock held).
    struct Change {
        let session: ReaderSession
        let before: AVAssetReader.Status

        func post() {
            guard let reader = session.lock.withLock({ session.reader }) else { return }
            KVORegistry.shared.didChange(reader, \AVAssetReader.status, old: before)
        }
    }

    /// Sets the reader the status belongs to (once, from its initialiser).
    func setReader(_ reader: AVAssetReader) {
        lock.withLock { self.reader = reader }
    }

    /// A change from `before` if the status is no longer `before` (under the lock).
    private func change(from before: AVAssetReader.Status) -> Change? {
        statusValue == before ? nil : Change(session: self, before: before)
    }
    var error: (any Error)? { lock.withLock { errorValue } }
    /// Whether `startReading()` was called (reading may since have ended).
    var hasStarted: Bool { lock.withLock { starting || statusValue != .unknown } }

    func add(_ output: AVAssetReaderOutput) {
        lock.withLock { members.append(Member(output: output, id: ObjectIdentifier(output))) }
    }

    /// Marks the start of `startReading()`; false when reading had already started.
    func beginStarting() -> Bool {
        lock.withLock {
            guard !starting, statusValue == .unknown else { return false }
            starting = true
            return true
        }
    }

    /// Ends `startReading()`: reading (unless it was cancelled or failed meanwhile). Returns the status.
    func finishStarting() -> AVAssetReader.Status {
        let (status, change): (AVAssetReader.Status, Change?) = lock.withLock {
            let before = statusValue
            if statusValue == .unknown { statusValue = .reading }
            if statusValue == .reading && isComplete { statusValue = .completed }
            return (statusValue, self.change(from: before))
        }
        change?.post()
        return status
    }

    /// Fails the reading with `error` (the first failure wins; nothing changes once reading
    /// ended). The other outputs let their sources go at their next call.
    /// Returns the change, to `post()` once no lock is held.
    @discardableResult
    func fail(_ error: any Error) -> Change? {
        lock.withLock {
            guard statusValue == .reading || statusValue == .unknown else { return nil }
            defer { statusValue = .failed }
            errorValue = error
            return Change(session: self, before: statusValue)
        }
    }

    /// Cancels reading; sources are stopped (waiting for a sample in progress to finish).
    func cancel() {
        let cancelled: (Change, [AVAssetReaderOutput])? = lock.withLock {
            guard statusValue == .reading || statusValue == .unknown else { return nil }
            defer { statusValue = .cancelled }
            return (Change(session: self, before: statusValue), members.compactMap(\.output))
        }
        guard let (change, outputs) = cancelled else { return }
        change.post()
        for output in outputs { output.stopSource() }
    }

    /// Records that `output` returned nil; completes the reading when every output has. Returns
    /// the change of status, to `post()` once no lock is held.
    func outputExhausted(_ output: AVAssetReaderOutput, awaitsConfiguration: Bool) -> Change? {
        update(output) {
            $0.exhausted = true
            $0.awaitsConfiguration = awaitsConfiguration
        }
    }

    /// Records that `output` was reset for more time ranges.
    @discardableResult
    func outputRestarted(_ output: AVAssetReaderOutput) -> Change? {
        update(output) { $0.exhausted = false }
    }

    /// Records that `output`'s configuration is final.
    func outputConfigurationFinal(_ output: AVAssetReaderOutput) -> Change? {
        update(output) { $0.awaitsConfiguration = false }
    }

    private func update(_ output: AVAssetReaderOutput, _ change: (inout Member) -> Void) -> Change? {
        let id = ObjectIdentifier(output)
        return lock.withLock {
            if let i = members.firstIndex(where: { $0.id == id }) { change(&members[i]) }
            guard statusValue == .reading && isComplete else { return nil }
            statusValue = .completed
            return Change(session: self, before: .reading)
        }
    }

    /// Whether every live output has run out for good (under the lock). A reader without
    /// outputs never completes.
    private var isComplete: Bool {
        members.contains { $0.output != nil } && members.allSatisfy { $0.output == nil || ($0.exhausted && !$0.awaitsConfiguration) }
    }
}
