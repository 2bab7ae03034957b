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
        lock.withLock {
            if statusValue == .unknown { statusValue = .reading }
            if statusValue == .reading && isComplete { statusValue = .completed }
            return statusValue
        }
    }

    /// Fails the reading with `error` (the first failure wins; nothing changes once reading
    /// ended). The other outputs let their sources go at their next call.
    func fail(_ error: any Error) {
        lock.withLock {
            guard statusValue == .reading || statusValue == .unknown else { return }
            statusValue = .failed
            errorValue = error
        }
    }

    /// Cancels reading; sources are stopped (waiting for a sample in progress to finish).
    func cancel() {
        let outputs: [AVAssetReaderOutput] = lock.withLock {
            guard statusValue == .reading || statusValue == .unknown else { return [] }
            statusValue = .cancelled
            return members.compactMap(\.output)
        }
        for output in outputs { output.stopSource() }
    }

    /// Records that `output` returned nil; completes the reading when every output has.
    func outputExhausted(_ output: AVAssetReaderOutput, awaitsConfiguration: Bool) {
        update(output) {
            $0.exhausted = true
            $0.awaitsConfiguration = awaitsConfiguration
        }
    }

    /// Records that `output` was reset for more time ranges.
    func outputRestarted(_ output: AVAssetReaderOutput) {
        update(output) { $0.exhausted = false }
    }

    /// Records that `output`'s configuration is final.
    func outputConfigurationFinal(_ output: AVAssetReaderOutput) {
        update(output) { $0.awaitsConfiguration = false }
    }

    private func update(_ output: AVAssetReaderOutput, _ change: (inout Member) -> Void) {
        let id = ObjectIdentifier(output)
        lock.withLock {
            if let i = members.firstIndex(where: { $0.id == id }) { change(&members[i]) }
            if statusValue == .reading && isComplete { statusValue = .completed }
        }
    }

    /// Whether every live output has run out for good (under the lock). A reader without
    /// outputs never completes.
    private var isComplete: Bool {
        members.contains { $0.output != nil } && members.allSatisfy { $0.output == nil || ($0.exhausted && !$0.awaitsConfiguration) }
    }
}
