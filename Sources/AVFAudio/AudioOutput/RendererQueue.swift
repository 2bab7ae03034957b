// RendererQueue: the one bounded queue of sample buffers behind every renderer (the audio render
// core, the frame presenter, the sample-buffer display layer) — here in AVFAudio so that
// AVFAudio's players and engine play through the same renderer as AVFoundation's.
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// The queue of one renderer: sample buffers in enqueue order, bounded by a duration and a count,
/// with Apple's request-when-ready callbacks. Thread-safe.
///
/// Producers enqueue (the app, or a player's feeding thread); the renderer's consumer (a frame
/// presenter thread, the sound server's pull) takes from the front. `isReady` is true while less
/// than `capacity` is queued. A request-when-ready block runs on its queue when the renderer is
/// ready, one call at a time; it runs again after the consumer took something or a flush, while
/// still ready — never in a loop of its own when nothing changed. Waiting producers inside the
/// package use `waitUntilReady`, which a flush or `close` also wakes.
package final class RendererQueue: Sendable {
    package struct Capacity: Sendable {
        /// The most sample buffers held.
        package var count: Int
        /// The most media time held (seconds of presentation time from first to last).
        package var seconds: Double
        package init(count: Int, seconds: Double) {
            self.count = count
            self.seconds = seconds
        }
    }

    private struct Request {
        let queue: DispatchQueue
        let block: @Sendable () -> Void
        let id: Int
    }

    private struct State {
        var items: [CMSampleBuffer] = []
        var head = 0
        var request: Request?
        var requestCalls = 0
        var requestRunning = false
        var requestWanted = false
        /// Bumped by every flush: a producer that read it before may drop what it was about to add.
        var generation = 0
        var closed = false
        var enqueuedCount = 0
    }

    package let capacity: Capacity
    private let state = Mutex(State())
    /// Wakes producers blocked in `waitUntilReady`.
    private let producerWake = DispatchSemaphore(value: 0)
    private let waiters = Atomic<Int>(0)

    package init(capacity: Capacity) {
        self.capacity = capacity
    }

    package var count: Int { state.withLock { $0.items.count - $0.head } }
    package var generation: Int { state.withLock { $0.generation } }
    package var enqueuedCount: Int { state.withLock { $0.enqueuedCount } }

    /// Presentation-time span from the first queued buffer to the end of the last.
    package var queuedSeconds: Double { state.withLock { Self.span($0) } }

    private static func span(_ s: State) -> Double {
        guard s.head < s.items.count else { return 0 }
        let first = s.items[s.head].presentationTimeStamp
        let lastBuffer = s.items[s.items.count - 1]
        var end = lastBuffer.presentationTimeStamp
        if lastBuffer.duration.isNumeric { end = end + lastBuffer.duration }
        guard first.isNumeric, end.isNumeric else { return 0 }
        return max(0, (end - first).seconds)
    }

    private static func ready(_ s: State, _ c: Capacity) -> Bool {
        !s.closed && s.items.count - s.head < c.count && span(s) < c.seconds
    }

    package var isReady: Bool { state.withLock { Self.ready($0, capacity) } }

    /// Adds `buffer` at the back; false when `generation` (read before the buffer was made) is no
    /// longer current — a flush came in between — or the queue is closed.
    @discardableResult
    package func enqueue(_ buffer: CMSampleBuffer, generation: Int? = nil) -> Bool {
        state.withLock { s in
            guard !s.closed, generation == nil || generation == s.generation else { return false }
            s.items.append(buffer)
            s.enqueuedCount += 1
            return true
        }
    }

    /// The buffers queued, front first (a copy).
    package var snapshot: [CMSampleBuffer] { state.withLock { Array($0.items[$0.head...]) } }

    package var first: CMSampleBuffer? { state.withLock { $0.head < $0.items.count ? $0.items[$0.head] : nil } }

    /// Removes the `n` buffers at the front (fewer when fewer are queued).
    package func removeFirst(_ n: Int = 1) {
        guard n > 0 else { return }
        state.withLock { s in
            s.head = min(s.items.count, s.head + n)
            if s.head > 64 && s.head * 2 > s.items.count {
                s.items.removeFirst(s.head)
                s.head = 0
            }
        }
        consumed()
    }

    /// Removes everything; a new generation starts.
    package func flush() {
        state.withLock { s in
            s.items = []
            s.head = 0
            s.generation += 1
        }
        wakeProducers()
        consumed()
    }

    /// Stops taking buffers and wakes every waiting producer for good.
    package func close() {
        state.withLock { s in
            s.closed = true
            s.items = []
            s.head = 0
            s.request = nil
            s.generation += 1
        }
        wakeProducers()
    }

    // MARK: Producers inside the package

    /// Blocks until the queue is ready, was flushed since `generation`, or closed, or `timeout`
    /// passed. Returns whether it is ready in the same generation.
    package func waitUntilReady(generation: Int, timeout: Double) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while true {
            let (ready, current) = state.withLock { s -> (Bool, Bool) in
                (Self.ready(s, capacity), s.generation == generation && !s.closed)
            }
            if !current { return false }
            if ready { return true }
            waiters.add(1, ordering: .sequentiallyConsistent)
            // Re-check after announcing the wait, so a consumer's wake between the two is not lost.
            let recheck = state.withLock { Self.ready($0, capacity) || $0.generation != generation || $0.closed }
            if recheck {
                waiters.subtract(1, ordering: .sequentiallyConsistent)
                continue
            }
            let result = producerWake.wait(timeout: deadline)
            waiters.subtract(1, ordering: .sequentiallyConsistent)
            if result == .timedOut { return false }
        }
    }

    private func wakeProducers() {
        let n = waiters.load(ordering: .sequentiallyConsistent)
        for _ in 0..<max(n, 0) { producerWake.signal() }
    }

    // MARK: Request when ready

    package func requestWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.requestCalls += 1
            s.request = Request(queue: queue, block: block, id: s.requestCalls)
            s.requestWanted = true
        }
        scheduleRequestIfReady()
    }

    package func stopRequesting() {
        state.withLock { s in
            s.request = nil
            s.requestWanted = false
        }
    }

    /// The consumer took something (or a flush emptied the queue): producers may go on.
    private func consumed() {
        wakeProducers()
        state.withLock { $0.requestWanted = $0.request != nil }
        scheduleRequestIfReady()
    }

    private func scheduleRequestIfReady() {
        let job: Request? = state.withLock { s in
            guard let request = s.request, s.requestWanted, !s.requestRunning, Self.ready(s, capacity) else { return nil }
            s.requestRunning = true
            s.requestWanted = false
            return request
        }
        guard let job else { return }
        job.queue.async { [self] in
            let stillCurrent = state.withLock { $0.request?.id == job.id }
            if stillCurrent { job.block() }
            let again = state.withLock { s -> Bool in
                s.requestRunning = false
                // The block left the queue ready without adding anything: wait for a change.
                return s.requestWanted
            }
            if again { scheduleRequestIfReady() }
        }
    }
}
