// CaptureDelivery: the delegate side every capture data output shares (video, audio, metadata) —
// the delegate and its serial queue, whether capture runs, a generation that retires work queued
// for an old delegate or an old run, the count of hand-overs waiting on the queue and of delegate
// calls under way, and stopping that waits for them on a condition variable (not a poll).
import Dispatch
import Foundation

/// The delegate, its queue and the calls in flight of one capture data output.
///
/// Work is handed to the delegate's queue with the generation current then (`target`); on the
/// queue, `deliver` calls the delegate only while capture runs and the generation is still
/// current, so setting another delegate, stopping or starting again retires everything queued
/// before. `stop` waits, on the condition, for what was handed over to be delivered (when asked,
/// up to a limit) and for a delegate call under way to end — never for a call the current thread
/// is making (stopRunning from the callback), and never for the main queue from the main thread.
///
/// Not Sendable: owned by its output (whose closures carry it to the queues). Its state is
/// guarded by an `NSCondition`, because waiting for the counts to fall is the point.
final class CaptureDelivery<Delegate> {
    /// Where and with what to deliver one piece of work.
    struct Target {
        let delegate: Delegate
        let queue: DispatchQueue
        let generation: Int
    }

    private let condition = NSCondition()
    private var currentDelegate: Delegate?
    private var currentQueue: DispatchQueue?
    private var accepting = false
    private var generation = 0
    /// Hand-overs on the delegate's queue not yet begun or dropped.
    private var queued = 0
    /// Delegate calls under way.
    private var inFlight = 0
    /// The thread-dictionary key marking a delegate call of this delivery on the current thread.
    private let deliveringKey = "CaptureDelivery.\(UUID().uuidString)"

    private func locked<R>(_ body: () -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// Sets the delegate and its queue (nil delegate: no queue); retires what was queued.
    func setDelegate(_ delegate: Delegate?, queue: DispatchQueue?) {
        locked {
            currentDelegate = delegate
            currentQueue = delegate == nil ? nil : queue
            generation += 1
        }
    }

    /// The delegate.
    var delegate: Delegate? { locked { currentDelegate } }
    /// The delegate's queue.
    var queue: DispatchQueue? { locked { currentQueue } }
    /// Whether capture runs and there is a delegate to deliver to.
    var isAccepting: Bool { locked { accepting && currentDelegate != nil && currentQueue != nil } }

    /// Capture starts: work handed over from now on is delivered.
    func start() {
        locked {
            accepting = true
            generation += 1
        }
    }

    /// Whether the current thread is inside a delegate call of this delivery.
    var isDeliveringHere: Bool { Thread.current.threadDictionary[deliveringKey] != nil }

    /// Capture stops. With `drainLimit`, what was already handed to the queue is delivered first
    /// (waiting at most that long — unless the caller is this delivery's delegate call or the
    /// main thread with the main queue as the delegate's, which cannot wait for the queue). Then
    /// nothing more is delivered, and a delegate call under way is waited for (unless it is the
    /// caller's own).
    func stop(drainLimit: TimeInterval? = nil) {
        let here = isDeliveringHere
        condition.lock()
        defer { condition.unlock() }
        if let drainLimit, !here, !(currentQueue === DispatchQueue.main && Thread.isMainThread) {
            let deadline = Date().addingTimeInterval(drainLimit)
            while queued > 0, condition.wait(until: deadline) {}
        }
        accepting = false
        generation += 1
        guard !here else { return }
        while inFlight > 0 { condition.wait() }
    }

    /// The delegate, queue and generation to hand work to while capture runs (nil otherwise),
    /// counting `handingOver` pieces as queued (each must then reach `deliver(handedOver: true)`).
    func target(handingOver count: Int = 0) -> Target? {
        locked {
            guard accepting, let currentDelegate, let currentQueue else { return nil }
            queued += count
            return Target(delegate: currentDelegate, queue: currentQueue, generation: generation)
        }
    }

    /// The delegate when `generation` is still current and capture runs (for work that calls
    /// it more than once, or reads it without calling).
    func current(_ generation: Int) -> Delegate? {
        locked { accepting && self.generation == generation ? currentDelegate : nil }
    }

    /// On the delegate's queue: calls `call` with the delegate when `generation` is still
    /// current and capture runs, marked as under way (stop waits for it). `handedOver`: this was
    /// counted by `target(handingOver:)`. Returns whether the delegate was called.
    @discardableResult
    func deliver(generation: Int, handedOver: Bool = false, _ call: (Delegate) -> Void) -> Bool {
        let delegate = locked { () -> Delegate? in
            if handedOver { queued -= 1 }
            guard accepting, self.generation == generation, let currentDelegate else {
                condition.broadcast()
                return nil
            }
            inFlight += 1
            return currentDelegate
        }
        guard let delegate else { return false }
        let nested = isDeliveringHere
        Thread.current.threadDictionary[deliveringKey] = true
        call(delegate)
        if !nested { Thread.current.threadDictionary[deliveringKey] = nil }
        locked {
            inFlight -= 1
            condition.broadcast()
        }
        return true
    }

    /// Counts a delegate call under way that began elsewhere (`deliver` counts its own): stop
    /// waits until `end()`.
    func begin(generation: Int) -> Bool {
        locked {
            guard accepting, self.generation == generation else { return false }
            inFlight += 1
            return true
        }
    }

    /// Ends what `begin` counted.
    func end() {
        locked {
            inFlight -= 1
            condition.broadcast()
        }
    }
}
