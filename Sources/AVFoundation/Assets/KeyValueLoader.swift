// KeyValueLoader: the per-object key status bookkeeping behind AVAsynchronousKeyValueLoading,
// shared by the classic (loadValuesAsynchronously/statusOfValue) and modern (load(_:)) APIs.
import Dispatch
import Foundation
internal import MediaEngine

/// Tracks the `AVKeyValueStatus` of each key of one asset or track and runs loads on a
/// background queue. The actual work for a key is `resolve`, which must be idempotent (the
/// owner caches what it loads); cancellation reaches FFmpeg through the `DemuxerCancellation`.
final class KeyValueLoader: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [String: AVKeyValueStatus] = [:]
    private var errors: [String: any Error] = [:]
    private var cancellation = DemuxerCancellation()
    private let resolve: @Sendable (String, DemuxerCancellation) throws -> Void
    private static let queue = DispatchQueue(label: "AVFoundation.KeyValueLoading", qos: .userInitiated, attributes: .concurrent)

    init(resolve: @escaping @Sendable (String, DemuxerCancellation) throws -> Void) {
        self.resolve = resolve
    }

    /// The status of a key and, when it failed or was cancelled, the error.
    func status(forKey key: String) -> (AVKeyValueStatus, (any Error)?) {
        lock.lock(); defer { lock.unlock() }
        return (statuses[key] ?? .unknown, errors[key])
    }

    /// Loads the keys that are not loaded yet on a background queue and calls `completion`
    /// exactly once, on that queue, when all of them are loaded, failed or cancelled.
    func loadAsynchronously(keys: [String], completion: (@Sendable () -> Void)?) {
        lock.lock()
        let token = cancellation
        var pending: [String] = []
        for key in Set(keys) where statuses[key] != .loaded && statuses[key] != .loading {
            statuses[key] = .loading
            errors[key] = nil
            pending.append(key)
        }
        let toRun = pending.sorted()
        let waiting = keys.filter { statuses[$0] == .loading && !pending.contains($0) }
        lock.unlock()
        KeyValueLoader.queue.async {
            for key in toRun { self.run(key: key, token: token) }
            // Keys another request is loading: wait for them to settle so this handler sees a final status.
            for key in waiting { _ = try? self.loadSynchronously(key: key) }
            completion?()
        }
    }

    /// Loads one key on the calling thread (blocking), as Apple's synchronous properties do.
    func loadSynchronously(key: String) throws {
        lock.lock()
        if statuses[key] == .loaded { lock.unlock(); return }
        let token = cancellation
        if statuses[key] != .loading { statuses[key] = .loading; errors[key] = nil }
        lock.unlock()
        run(key: key, token: token)
        let (status, error) = self.status(forKey: key)
        if status == .loaded { return }
        throw error ?? AVError(.unknown)
    }

    private func run(key: String, token: DemuxerCancellation) {
        var outcome: (AVKeyValueStatus, (any Error)?)
        do {
            try resolve(key, token)
            outcome = (.loaded, nil)
        } catch {
            outcome = token.isCancelled ? (.cancelled, AVError(.operationCancelled)) : (.failed, error)
        }
        lock.lock()
        if token.isCancelled && outcome.0 != .loaded { outcome = (.cancelled, AVError(.operationCancelled)) }
        if statuses[key] != .cancelled || token === cancellation {
            statuses[key] = outcome.0
            errors[key] = outcome.1
        }
        lock.unlock()
    }

    /// Cancels loads in progress: their keys become `.cancelled` and their handlers run.
    /// Later requests start afresh.
    func cancel() {
        lock.lock()
        cancellation.cancel()
        cancellation = DemuxerCancellation()
        for (key, status) in statuses where status == .loading {
            statuses[key] = .cancelled
            errors[key] = AVError(.operationCancelled)
        }
        lock.unlock()
    }
}

/// A value computed once, on first demand, by whichever thread asks first; other threads wait
/// for it. Failures are not cached when the computation was cancelled, so it can be retried.
final class LoadOnce<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<Value, any Error>?
    private var running = false

    /// The value, computing it with `compute` if nobody has yet.
    func get(cancellation: DemuxerCancellation, _ compute: () throws -> Value) throws -> Value {
        condition.lock()
        while true {
            if let result { condition.unlock(); return try result.get() }
            if !running { break }
            condition.wait()
        }
        running = true
        condition.unlock()
        let outcome = Result { try compute() }
        condition.lock()
        running = false
        if case .failure = outcome, cancellation.isCancelled {
            // Not cached: a later request may succeed.
        } else {
            result = outcome
        }
        condition.broadcast()
        condition.unlock()
        return try outcome.get()
    }

    /// The value if it was computed successfully.
    var cachedValue: Value? {
        condition.lock(); defer { condition.unlock() }
        return try? result?.get()
    }
}
