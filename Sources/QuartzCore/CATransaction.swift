// CATransaction: grouping of layer changes, with the values implicit animations use (duration,
// timing function, disabled actions) and completion blocks.
import Foundation
import Synchronization

/// Groups layer changes and sets how implicit animations made by them run.
///
/// Implicit animations run only in a layer tree hosted by a live renderer (see
/// `CALayer.hostsLiveRendering`); elsewhere property changes take effect at once, as in an
/// offline render. Transactions are process-wide here (Apple keeps one stack per thread).
/// A completion block runs when the outermost transaction commits.
open class CATransaction: NSObject {
    // Sendable to live in the Mutex: `values` is only touched with the lock held.
    private struct Frame: Sendable {
        nonisolated(unsafe) var values: [String: Any] = [:]
        var completion: (@Sendable () -> Void)?
    }

    private struct State: Sendable {
        var stack: [Frame] = []
        /// The implicit (outermost) transaction's values when no explicit one is open.
        var implicit = Frame()
    }

    private static let state = Mutex(State())
    private static let lockMutex = NSRecursiveLock()

    /// Begins a transaction (nested in the current one).
    open class func begin() { state.withLock { $0.stack.append(Frame()) } }

    /// Commits the current transaction; the completion block runs when the outermost one
    /// commits.
    open class func commit() {
        let completion = state.withLock { s -> (@Sendable () -> Void)? in
            guard let top = s.stack.popLast() else {
                let c = s.implicit.completion
                s.implicit = Frame()
                return c
            }
            if s.stack.isEmpty { return top.completion }
            // A nested transaction's completion waits for the enclosing one.
            if let c = top.completion {
                let outer = s.stack[s.stack.count - 1].completion
                s.stack[s.stack.count - 1].completion = { outer?(); c() }
            }
            return nil
        }
        completion?()
    }

    /// Commits the implicit transaction (changes are already applied: nothing else to do).
    open class func flush() {
        let c = state.withLock { s -> (@Sendable () -> Void)? in
            guard s.stack.isEmpty else { return nil }
            let c = s.implicit.completion
            s.implicit = Frame()
            return c
        }
        c?()
    }

    /// Takes the transaction lock (recursive).
    open class func lock() { lockMutex.lock() }

    /// Releases the transaction lock.
    open class func unlock() { lockMutex.unlock() }

    /// The duration of implicit animations (default 0.25 s).
    open class func animationDuration() -> CFTimeInterval {
        (value(forKey: kCATransactionAnimationDuration) as? Double).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? 0.25
    }

    /// Sets the duration of implicit animations.
    open class func setAnimationDuration(_ dur: CFTimeInterval) { setValue(dur, forKey: kCATransactionAnimationDuration) }

    /// The timing function of implicit animations (nil: default pacing).
    open class func animationTimingFunction() -> CAMediaTimingFunction? {
        value(forKey: kCATransactionAnimationTimingFunction) as? CAMediaTimingFunction
    }

    /// Sets the timing function of implicit animations.
    open class func setAnimationTimingFunction(_ function: CAMediaTimingFunction?) {
        setValue(function, forKey: kCATransactionAnimationTimingFunction)
    }

    /// Whether property changes make no implicit animations.
    open class func disableActions() -> Bool {
        (value(forKey: kCATransactionDisableActions) as? Bool) ?? false
    }

    /// Turns implicit animations off (or on) for this transaction.
    open class func setDisableActions(_ flag: Bool) { setValue(flag, forKey: kCATransactionDisableActions) }

    /// The block run when the transaction commits.
    open class func completionBlock() -> (@Sendable () -> Void)? {
        state.withLock { s in s.stack.last?.completion ?? s.implicit.completion }
    }

    /// Sets the block run when the transaction commits.
    open class func setCompletionBlock(_ block: (@Sendable () -> Void)?) {
        state.withLock { s in
            if s.stack.isEmpty { s.implicit.completion = block } else { s.stack[s.stack.count - 1].completion = block }
        }
    }

    /// The value under `key` in the current transaction or an enclosing one.
    open class func value(forKey key: String) -> Any? {
        state.withLock { s -> Any? in
            for f in s.stack.reversed() { if let v = f.values[key] { nonisolated(unsafe) let r = v; return r } }
            nonisolated(unsafe) let r = s.implicit.values[key]
            return r
        }
    }

    /// Sets a value in the current transaction.
    open class func setValue(_ anObject: Any?, forKey key: String) {
        nonisolated(unsafe) let v = anObject
        state.withLock { s in
            if s.stack.isEmpty { s.implicit.values[key] = v } else { s.stack[s.stack.count - 1].values[key] = v }
        }
    }
}

/// The transaction key of the implicit animations' duration.
public let kCATransactionAnimationDuration = "animationDuration"
/// The transaction key that disables implicit animations.
public let kCATransactionDisableActions = "disableActions"
/// The transaction key of the implicit animations' timing function.
public let kCATransactionAnimationTimingFunction = "animationTimingFunction"
/// The transaction key of the completion block.
public let kCATransactionCompletionBlock = "completionBlock"
/// The key of a layer's transition animation.
public let kCATransition = "transition"
