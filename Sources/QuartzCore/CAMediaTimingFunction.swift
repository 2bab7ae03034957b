// CAMediaTimingFunction: a cubic Bézier from (0,0) to (1,1) mapping an animation's elapsed
// fraction to its progress, solved exactly (Newton's method with a bisection fallback).
import Foundation

/// The names of Core Animation's predefined timing functions.
public struct CAMediaTimingFunctionName: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a name from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Linear pacing: (0, 0, 1, 1).
    public static let linear = CAMediaTimingFunctionName(rawValue: "linear")
    /// Ease in: (0.42, 0, 1, 1).
    public static let easeIn = CAMediaTimingFunctionName(rawValue: "easeIn")
    /// Ease out: (0, 0, 0.58, 1).
    public static let easeOut = CAMediaTimingFunctionName(rawValue: "easeOut")
    /// Ease in and out: (0.42, 0, 0.58, 1).
    public static let easeInEaseOut = CAMediaTimingFunctionName(rawValue: "easeInEaseOut")
    /// The system default: (0.25, 0.1, 0.25, 1).
    public static let `default` = CAMediaTimingFunctionName(rawValue: "default")
}

/// A function that maps an animation's elapsed fraction to its progress: a cubic Bézier curve
/// from (0, 0) to (1, 1) with two control points.
open class CAMediaTimingFunction: NSObject {
    /// The curve, as a value the evaluation (on any thread) uses.
    package let curve: TimingCurve

    /// A predefined timing function (an unknown name gives the default function).
    public convenience init(name: CAMediaTimingFunctionName) {
        switch name {
        case .linear: self.init(controlPoints: 0, 0, 1, 1)
        case .easeIn: self.init(controlPoints: 0.42, 0, 1, 1)
        case .easeOut: self.init(controlPoints: 0, 0, 0.58, 1)
        case .easeInEaseOut: self.init(controlPoints: 0.42, 0, 0.58, 1)
        default: self.init(controlPoints: 0.25, 0.1, 0.25, 1)
        }
    }

    /// A timing function with control points (c1x, c1y) and (c2x, c2y); x values are clamped to
    /// [0, 1] and non-finite values replaced by the linear function's.
    public init(controlPoints c1x: Float, _ c1y: Float, _ c2x: Float, _ c2y: Float) {
        func clean(_ v: Float, _ fallback: Double) -> Double { v.isFinite ? Double(v) : fallback }
        curve = TimingCurve(c1x: min(max(clean(c1x, 0), 0), 1), c1y: clean(c1y, 0),
                            c2x: min(max(clean(c2x, 1), 0), 1), c2y: clean(c2y, 1))
        super.init()
    }

    /// Control point `idx` (0: (0,0), 1 and 2: the control points, 3: (1,1)) written to
    /// `ptr[0]`, `ptr[1]`; an out-of-range index writes nothing.
    open func getControlPoint(at idx: Int, values ptr: UnsafeMutablePointer<Float>) {
        let p: (Double, Double)
        switch idx {
        case 0: p = (0, 0)
        case 1: p = (curve.c1x, curve.c1y)
        case 2: p = (curve.c2x, curve.c2y)
        case 3: p = (1, 1)
        default: return
        }
        ptr[0] = Float(p.0)
        ptr[1] = Float(p.1)
    }
}

/// A timing function's cubic Bézier as a value.
package struct TimingCurve: Sendable, Equatable {
    package var c1x: Double, c1y: Double, c2x: Double, c2y: Double

    package init(c1x: Double, c1y: Double, c2x: Double, c2y: Double) {
        self.c1x = c1x; self.c1y = c1y; self.c2x = c2x; self.c2y = c2y
    }

    /// The progress at elapsed fraction `x` (clamped to [0, 1]).
    package func evaluate(_ x: Double) -> Double {
        guard x.isFinite else { return x > 0 ? 1 : 0 }
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        if c1x == c1y && c2x == c2y { return x }
        return bezier(solveT(x), c1y, c2y)
    }

    private func bezier(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
    }

    private func derivative(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        let u = 1 - t
        return 3 * u * u * p1 + 6 * u * t * (p2 - p1) + 3 * t * t * (1 - p2)
    }

    /// The curve parameter whose x is `x`: Newton's method, then bisection if it strays.
    private func solveT(_ x: Double) -> Double {
        var t = x
        for _ in 0..<8 {
            let err = bezier(t, c1x, c2x) - x
            if abs(err) < 1e-12 { return t }
            let d = derivative(t, c1x, c2x)
            if abs(d) < 1e-9 { break }
            t -= err / d
            if t < 0 || t > 1 { break }
        }
        var lo = 0.0, hi = 1.0
        t = x
        for _ in 0..<64 {
            let v = bezier(t, c1x, c2x)
            if abs(v - x) < 1e-12 { return t }
            if v < x { lo = t } else { hi = t }
            t = (lo + hi) / 2
        }
        return t
    }
}
