// DropLateQueue: the bounded hand-over between a live source and a slow consumer — one delivery in
// flight, order kept, and what does not fit dropped with a reason instead of blocking the source.
import Dispatch
import Foundation

/// Hands items to a consumer on a dispatch queue, one at a time and in order, without ever
/// blocking the producer: while a delivery is running, new items wait in a bounded buffer and
/// what does not fit is dropped with a reason.
///
/// Policies (the two settings of `AVCaptureVideoDataOutput.alwaysDiscardsLateVideoFrames`):
/// - `.keepNewest(n)` (discards late frames, Apple's default): the `n` newest items wait; an
///   item arriving when `n` are waiting pushes the oldest waiting one out, which is dropped as
///   `frameWasLate`. With `n` = 1 the consumer, when it returns, always gets the newest frame.
/// - `.fifo(n)` (keeps late frames): up to `n` items wait; an item arriving when `n` are waiting
///   is itself dropped as `outOfBuffers` (the buffers it would need are all held).
///
/// `deliver` and `drop` are called on `queue`, which should be serial (a delegate's queue):
/// drops are reported in the order they happen, after the delivery that was running. At most one
/// `deliver` call runs at a time, so callbacks never overlap even on a concurrent queue.
/// Thread-safe. Its state is under an `NSCondition`: `drain` waits for the queue to empty.
// Invariant: the closures run only on `queue`, one at a time; every other stored `var` only under `lock`.
package final class DropLateQueue<T: Sendable>: @unchecked Sendable {
    /// How many items may wait, and which one goes when one more comes.
    package enum Policy: Sendable, Equatable {
        case keepNewest(Int)
        case fifo(Int)
    }

    /// Why an item was dropped (the `kCMSampleBufferDroppedFrameReason_…` values).
    package enum DropReason: String, Sendable, Equatable {
        /// Pushed out by a newer item while the consumer was busy.
        case frameWasLate = "FrameWasLate"
        /// No room left in the buffer.
        case outOfBuffers = "OutOfBuffers"
        /// Waiting when the queue was closed (`close(dropPending: true)`).
        case discontinuity = "Discontinuity"
    }

    package let policy: Policy
    package let queue: DispatchQueue
    private let deliver: (T) -> Void
    private let drop: (T, DropReason) -> Void
    private let lock = NSCondition()
    private var waiting: [T] = []
    private var waitingHead = 0
    private var inFlight = false
    private var scheduledDrops = 0
    private var closed = false
    private var _delivered = 0
    private var _dropped: [DropReason: Int] = [:]
    private var _maximumInFlight = 0
    private var running = 0

    /// A queue handing items to `deliver` on `queue` under `policy` (capacities below 1 count
    /// as 1); `drop` is told of each item dropped and why.
    package init(policy: Policy, queue: DispatchQueue, deliver: @escaping (T) -> Void,
                 drop: @escaping (T, DropReason) -> Void = { _, _ in }) {
        switch policy {
        case .keepNewest(let n): self.policy = .keepNewest(max(1, n))
        case .fifo(let n): self.policy = .fifo(max(1, n))
        }
        self.queue = queue
        self.deliver = deliver
        self.drop = drop
    }

    /// How many items were delivered.
    package var deliveredCount: Int { lock.withLock { _delivered } }
    /// How many items were dropped for `reason`.
    package func droppedCount(_ reason: DropReason) -> Int { lock.withLock { _dropped[reason] ?? 0 } }
    /// The most deliveries ever running at once (1 unless the queue is broken).
    package var maximumInFlight: Int { lock.withLock { _maximumInFlight } }
    /// How many items wait for delivery.
    package var waitingCount: Int { lock.withLock { waiting.count - waitingHead } }

    /// Hands `item` over: delivered now if the consumer is free, else kept or dropped by the
    /// policy. Never blocks on the consumer. Items given after `close` are dropped as
    /// `discontinuity`.
    package func enqueue(_ item: T) {
        lock.lock()
        if closed {
            lock.unlock()
            report(item, .discontinuity)
            return
        }
        if !inFlight {
            inFlight = true
            lock.unlock()
            dispatch(item)
            return
        }
        let count = waiting.count - waitingHead
        switch policy {
        case .keepNewest(let capacity):
            waiting.append(item)
            if count + 1 > capacity {
                let pushedOut = waiting[waitingHead]
                waitingHead += 1
                compact()
                lock.unlock()
                report(pushedOut, .frameWasLate)
                return
            }
        case .fifo(let capacity):
            if count >= capacity {
                lock.unlock()
                report(item, .outOfBuffers)
                return
            }
            waiting.append(item)
        }
        lock.unlock()
    }

    /// Stops taking items; with `dropPending` the waiting ones are dropped as `discontinuity`,
    /// else they are still delivered. Then waits until no delivery or drop report is running or
    /// scheduled. Must not be called on `queue`.
    package func close(dropPending: Bool) {
        lock.lock()
        closed = true
        var pushedOut: [T] = []
        if dropPending {
            pushedOut = Array(waiting[waitingHead...])
            waiting.removeAll()
            waitingHead = 0
        }
        lock.unlock()
        for item in pushedOut { report(item, .discontinuity) }
        waitUntilIdle()
    }

    /// Opens a closed queue again (a session restarting).
    package func reopen() { lock.withLock { closed = false } }

    /// Waits until nothing waits, no delivery runs and every drop was reported. Must not be
    /// called on `queue`.
    package func waitUntilIdle() {
        lock.lock()
        while inFlight || scheduledDrops > 0 || waiting.count > waitingHead { lock.wait() }
        lock.unlock()
    }

    private func dispatch(_ item: T) {
        queue.async { [self] in
            lock.withLock {
                running += 1
                _maximumInFlight = max(_maximumInFlight, running)
            }
            deliver(item)
            lock.lock()
            running -= 1
            _delivered += 1
            if waiting.count > waitingHead {
                let next = waiting[waitingHead]
                waitingHead += 1
                compact()
                lock.unlock()
                dispatch(next)
            } else {
                inFlight = false
                lock.broadcast()
                lock.unlock()
            }
        }
    }

    private func report(_ item: T, _ reason: DropReason) {
        lock.withLock {
            _dropped[reason, default: 0] += 1
            scheduledDrops += 1
        }
        queue.async { [self] in
            drop(item, reason)
            lock.withLock {
                scheduledDrops -= 1
                lock.broadcast()
            }
        }
    }

    /// Drops the delivered prefix of `waiting` once it dominates (called with the lock held).
    private func compact() {
        if waitingHead > 32, waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
    }
}
