// CASpringAnimation: a basic animation whose progress follows a damped spring.
import Foundation

/// An animation whose progress from the start to the end value follows a damped harmonic
/// oscillator (mass, stiffness, damping, initial velocity) rather than a timing curve.
open class CASpringAnimation: CABasicAnimation {
    /// The mass on the spring (default 1).
    open var mass: CGFloat = 1
    /// The spring's stiffness (default 100).
    open var stiffness: CGFloat = 100
    /// The damping coefficient (default 10).
    open var damping: CGFloat = 10
    /// The initial velocity, in units of the whole change per second (default 0).
    open var initialVelocity: CGFloat = 0
    /// Whether the spring may overshoot the end value (no effect: the physics decide).
    open var allowsOverdamping = false

    /// The time the spring takes to come to rest: from then on its distance from the end value
    /// stays within 0.1 % of the change (sampled at 240 Hz).
    open var settlingDuration: CFTimeInterval {
        let s = springValues
        let step = 1.0 / 240
        var settled = 0.0
        var t = 0.0
        // The first sample after the last one outside the band (looked for until the spring
        // has stayed inside it for 2 s, or 1000 s).
        while t < 1000 {
            if abs(1 - s.progress(t)) > 0.001 { settled = t + step }
            t += step
            if t - settled > 2 { break }
        }
        return settled
    }

    override package func makeEmptyCopy() -> CAAnimation { CASpringAnimation() }

    override package func copyValues(to c: CAAnimation) {
        super.copyValues(to: c)
        guard let c = c as? CASpringAnimation else { return }
        c.mass = mass; c.stiffness = stiffness; c.damping = damping; c.initialVelocity = initialVelocity
        c.allowsOverdamping = allowsOverdamping
    }

    package var springValues: SpringValues {
        SpringValues(mass: Double(mass), stiffness: Double(stiffness), damping: Double(damping),
                     velocity: Double(initialVelocity))
    }

    override package func makeSpec() -> AnimationSpec? {
        guard let kp = effectiveKeyPath, let v = convertedValues else { return nil }
        return AnimationSpec(timing: timingValues, curve: nil,
                             kind: .property(PropertySpec(keyPath: kp, additive: isAdditive, cumulative: isCumulative,
                                                          mode: .spring(from: v.from, to: v.to, by: v.by, springValues))))
    }
}

/// A damped spring's parameters and its closed-form progress.
package struct SpringValues: Sendable, Equatable {
    package var mass: Double, stiffness: Double, damping: Double, velocity: Double

    /// The progress (0 at rest at the start, 1 at the end value) `t` seconds after release:
    /// x(t) = 1 − e^(−ζω₀t)(cos ω_d t + (ζω₀ − v₀)/ω_d · sin ω_d t) when under-damped, and the
    /// critically or over-damped forms otherwise. Invalid parameters give 1 (the end value).
    package func progress(_ t: Double) -> Double {
        let m = mass, k = stiffness, c = damping, v0 = velocity
        guard m > 0, k > 0, c >= 0, m.isFinite, k.isFinite, c.isFinite, v0.isFinite, t.isFinite else { return 1 }
        if t <= 0 { return 0 }
        let w0 = (k / m).squareRoot()
        let zeta = c / (2 * (k * m).squareRoot())
        if zeta < 1 {
            let wd = w0 * (1 - zeta * zeta).squareRoot()
            let a = (zeta * w0 - v0) / wd
            return 1 - exp(-zeta * w0 * t) * (cos(wd * t) + a * sin(wd * t))
        } else if zeta == 1 {
            return 1 - exp(-w0 * t) * (1 + (w0 - v0) * t)
        } else {
            let s = w0 * (zeta * zeta - 1).squareRoot()
            let r1 = -zeta * w0 + s, r2 = -zeta * w0 - s
            // x = 1 + A e^(r1 t) + B e^(r2 t), x(0) = 0, x'(0) = v0.
            let b = (v0 + r1) / (r2 - r1)
            let a = -1 - b
            return 1 + a * exp(r1 * t) + b * exp(r2 * t)
        }
    }
}
