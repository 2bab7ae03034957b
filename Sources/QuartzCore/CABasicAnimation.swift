// CABasicAnimation: a single-keyframe animation between a from, to and by value.
import Foundation

/// An animation of a key path from one value to another, set by any two (or one) of
/// `fromValue`, `toValue` and `byValue`, as Apple's eight combinations say.
open class CABasicAnimation: CAPropertyAnimation {
    /// The start value (nil: the current presentation value, or `toValue − byValue`).
    open var fromValue: Any?
    /// The end value (nil: the current presentation value, or `fromValue + byValue`).
    open var toValue: Any?
    /// The relative change.
    open var byValue: Any?

    override package func makeEmptyCopy() -> CAAnimation { CABasicAnimation() }

    override package func copyValues(to c: CAAnimation) {
        super.copyValues(to: c)
        guard let c = c as? CABasicAnimation else { return }
        c.fromValue = fromValue; c.toValue = toValue; c.byValue = byValue
    }

    /// The three values converted; nil when a set value cannot be animated (NaN, an unknown
    /// type): the animation is then ignored.
    package var convertedValues: (from: AnimValue?, to: AnimValue?, by: AnimValue?)? {
        let f = AnimValue(fromValue), t = AnimValue(toValue), b = AnimValue(byValue)
        if (fromValue != nil && f == nil) || (toValue != nil && t == nil) || (byValue != nil && b == nil) { return nil }
        if f == nil && t == nil && b == nil { return nil }
        return (f, t, b)
    }

    override package func makeSpec() -> AnimationSpec? {
        guard let kp = effectiveKeyPath, let v = convertedValues else { return nil }
        return AnimationSpec(timing: timingValues, curve: timingFunction?.curve,
                             kind: .property(PropertySpec(keyPath: kp, additive: isAdditive, cumulative: isCumulative,
                                                          mode: .basic(from: v.from, to: v.to, by: v.by))))
    }
}
