// CATransaction: grouping of layer changes, with the values implicit animations use (duration,
// timing function, disabled actions) and completion blocks.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Groups layer changes and sets how implicit animations made by them run.
///
/// Implicit animations run only in a layer tree hosted by a live renderer (see
/// `CALayer.hostsLiveRendering`); elsewhere property changes take effect at once, as in an
/// offline render. Each thread has its own transactions, as on Apple platforms.
/// A completion block runs when the outermost transaction commits, on the committing thread
/// (Apple runs it on the main thread once the transaction's animations complete, or at once
/// when it added none; animations are not tracked here).
open class CATransaction: NSObject {
    // Sendable to live in the Mutex: `values` and `completion` are only touched with the lock
    // held (a completion block is taken out and called after the lock is released).
    private struct Frame: Sendable {
        nonisolated(unsafe) var values: [String: Any] = [:]
        nonisolated(unsafe) var completion: (() -> Void)?
    }

    private struct State: Sendable {
        var stack: [Frame] = []
        /// The implicit (outermost) transaction's values when no explicit one is open.
        var implicit = Frame()
    }

    /// Each thread's transactions, by thread (pthread_self), as Apple keeps them per thread.
    private static let threads = Mutex([UInt: State]())

    /// Runs `body` on the calling thread's transaction state (dropped again when empty).
    private static func withState<R>(_ body: (inout State) -> R) -> R {
        let id = UInt(pthread_self())
        nonisolated(unsafe) var result: R?
        threads.withLock { all in
            var st = all[id] ?? State()
            result = body(&st)
            if st.stack.isEmpty && st.implicit.values.isEmpty && st.implicit.completion == nil {
                all[id] = nil
            } else {
                all[id] = st
            }
        }
        return result!
    }
    /// The lock `lock()` and `unlock()` hand out: Apple's API takes and releases it in separate
    /// calls (and recursively), which a scoped `Mutex` cannot express; it guards no state of ours
    /// (the transactions' state is in `threads`, a Mutex).
    private static let lockMutex = NSRecursiveLock()

    /// Begins a transaction (nested in the current one).
    open class func begin() { withState { $0.stack.append(Frame()) } }

    /// Commits the current transaction; the completion block runs when the outermost one
    /// commits.
    open class func commit() {
        nonisolated(unsafe) var completion: (() -> Void)?
        withState { s in
            guard let top = s.stack.popLast() else {
                completion = s.implicit.completion
                s.implicit = Frame()
                return
            }
            if s.stack.isEmpty { completion = top.completion; return }
            // A nested transaction's completion waits for the enclosing one.
            if let c = top.completion {
                let outer = s.stack[s.stack.count - 1].completion
                s.stack[s.stack.count - 1].completion = { outer?(); c() }
            }
        }
        completion?()
    }

    /// Commits the implicit transaction (changes are already applied: nothing else to do).
    open class func flush() {
        nonisolated(unsafe) var c: (() -> Void)?
        withState { s in
            guard s.stack.isEmpty else { return }
            c = s.implicit.completion
            s.implicit = Frame()
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
    open class func completionBlock() -> (() -> Void)? {
        nonisolated(unsafe) var c: (() -> Void)?
        withState { s in c = s.stack.last?.completion ?? s.implicit.completion }
        return c
    }

    /// Sets the block run when the transaction commits.
    open class func setCompletionBlock(_ block: (() -> Void)?) {
        nonisolated(unsafe) let block = block
        withState { s in
            if s.stack.isEmpty { s.implicit.completion = block } else { s.stack[s.stack.count - 1].completion = block }
        }
    }

    /// The value under `key` in the current transaction or an enclosing one.
    open class func value(forKey key: String) -> Any? {
        withState { s -> Any? in
            for f in s.stack.reversed() { if let v = f.values[key] { nonisolated(unsafe) let r = v; return r } }
            nonisolated(unsafe) let r = s.implicit.values[key]
            return r
        }
    }

    /// Sets a value in the current transaction.
    open class func setValue(_ anObject: Any?, forKey key: String) {
        nonisolated(unsafe) let v = anObject
        withState { s in
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
