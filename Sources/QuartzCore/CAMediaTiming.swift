// CAMediaTiming: the timing model shared by layers and animations (a hierarchy of local times),
// its fill modes, and CACurrentMediaTime().
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The timing of a layer or an animation: where it starts in its parent's time, how fast its
/// time runs, how long one iteration lasts and how often it repeats.
public protocol CAMediaTiming {
    /// When the object starts, in its parent's time (seconds).
    var beginTime: CFTimeInterval { get set }
    /// The length of one iteration, in seconds (0 for an animation means 0.25).
    var duration: CFTimeInterval { get set }
    /// How fast time runs relative to the parent's (2: twice as fast).
    var speed: Float { get set }
    /// An offset added to the object's local time.
    var timeOffset: CFTimeInterval { get set }
    /// How many times the object repeats (may be fractional; `.infinity` or
    /// `.greatestFiniteMagnitude` mean forever).
    var repeatCount: Float { get set }
    /// For how long the object repeats, in seconds (instead of `repeatCount`).
    var repeatDuration: CFTimeInterval { get set }
    /// Whether each iteration plays forwards then backwards.
    var autoreverses: Bool { get set }
    /// What the object shows outside its active time.
    var fillMode: CAMediaTimingFillMode { get set }
}

/// What a timed object shows before it starts and after it ends.
public struct CAMediaTimingFillMode: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a fill mode from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Removed from the presentation outside its active time (the default).
    public static let removed = CAMediaTimingFillMode(rawValue: "removed")
    /// Holds its final state after it ends.
    public static let forwards = CAMediaTimingFillMode(rawValue: "forwards")
    /// Shows its initial state before it starts.
    public static let backwards = CAMediaTimingFillMode(rawValue: "backwards")
    /// Both forwards and backwards.
    public static let both = CAMediaTimingFillMode(rawValue: "both")
}

/// The current absolute time in seconds: the system's monotonic clock (CLOCK_MONOTONIC), as
/// Apple's is mach_absolute_time.
public func CACurrentMediaTime() -> CFTimeInterval {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// One object's timing values, as a value (read from a layer's or animation's state), and the
/// local-time arithmetic Core Animation does with them.
package struct TimingValues: Sendable, Equatable {
    package var beginTime: Double = 0
    package var duration: Double = 0
    package var speed: Double = 1
    package var timeOffset: Double = 0
    package var repeatCount: Double = 0
    package var repeatDuration: Double = 0
    package var autoreverses = false
    package var fillMode: CAMediaTimingFillMode = .removed
    package init() {}

    /// The begin time the arithmetic uses: 0 for a non-finite one, and 0 for the tiny positive
    /// value `AVCoreAnimationBeginTimeAtZero` (1e-100) stands for — it means movie time zero,
    /// so an animation with it is in effect at frame 0.
    private var begin: Double {
        beginTime.isFinite && abs(beginTime) >= 1e-50 ? beginTime : 0
    }

    /// A parent time converted to this object's local time.
    package func localTime(_ parent: Double) -> Double {
        let s = speed.isFinite ? speed : 1
        let o = timeOffset.isFinite ? timeOffset : 0
        return (parent - begin) * s + o
    }

    /// A local time converted back to the parent's time (the inverse of `localTime`; `parent`
    /// itself when speed is 0).
    package func parentTime(_ local: Double) -> Double {
        let s = speed.isFinite ? speed : 1
        guard s != 0 else { return begin }
        return (local - (timeOffset.isFinite ? timeOffset : 0)) / s + begin
    }

    /// Where an animation is within one iteration, at parent time `parent`: the iteration time
    /// in [0, d] (after autoreverse), the iteration index and `d`; nil when the animation has
    /// no effect then (outside its active time and not filled). `defaultDuration` replaces a
    /// zero or invalid duration (0.25 for animations).
    package func iteration(atParent parent: Double, defaultDuration: Double = 0.25)
        -> (time: Double, index: Int, duration: Double)? {
        let d = (duration.isFinite && duration > 0) ? duration : defaultDuration
        guard d > 0, parent.isFinite else { return nil }
        var t = localTime(parent)
        guard t.isFinite else { return nil }
        let cycle = autoreverses ? 2 * d : d
        let active: Double
        if repeatDuration.isFinite && repeatDuration > 0 {
            active = repeatDuration
        } else if repeatCount.isNaN || repeatCount <= 0 {
            active = cycle
        } else if repeatCount.isInfinite || repeatCount >= Double(Float.greatestFiniteMagnitude) {
            active = .infinity
        } else {
            active = cycle * repeatCount
        }
        if t < 0 {
            guard fillMode == .backwards || fillMode == .both else { return nil }
            t = 0
        }
        var index: Int
        var tt: Double
        if t >= active {
            guard fillMode == .forwards || fillMode == .both else { return nil }
            // The end state: the end of the last (possibly partial) iteration.
            let n = (active / cycle).rounded(.up) - 1
            index = Int(max(n, 0))
            tt = active - Double(index) * cycle
        } else {
            let n = (t / cycle).rounded(.down)
            index = n < Double(Int.max) ? Int(n) : Int.max
            tt = t - n * cycle
            if tt < 0 { tt = 0 }
        }
        if autoreverses && tt > d { tt = 2 * d - tt }
        return (min(max(tt, 0), d), index, d)
    }
}
