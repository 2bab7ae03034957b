// CAKeyframeAnimation: an animation through a list of values (or along a path) at key times.
import CoreGraphics
import Foundation

/// How a keyframe animation computes the values between its keyframes.
public struct CAAnimationCalculationMode: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a mode from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Straight-line interpolation between keyframes (the default).
    public static let linear = CAAnimationCalculationMode(rawValue: "linear")
    /// No interpolation: each value holds until the next key time.
    public static let discrete = CAAnimationCalculationMode(rawValue: "discrete")
    /// Linear at an even pace: key times and timing functions are ignored.
    public static let paced = CAAnimationCalculationMode(rawValue: "paced")
    /// A smooth Catmull-Rom spline through the keyframes (tension, continuity, bias adjust it).
    public static let cubic = CAAnimationCalculationMode(rawValue: "cubic")
    /// A cubic spline at an even pace.
    public static let cubicPaced = CAAnimationCalculationMode(rawValue: "cubicPaced")
}

/// Whether an animation along a path rotates the layer to follow the path's tangent.
public struct CAAnimationRotationMode: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a mode from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Rotates along the tangent.
    public static let rotateAuto = CAAnimationRotationMode(rawValue: "auto")
    /// Rotates along the tangent plus 180°.
    public static let rotateAutoReverse = CAAnimationRotationMode(rawValue: "autoReverse")
}

/// An animation through a sequence of values.
open class CAKeyframeAnimation: CAPropertyAnimation {
    /// The keyframe values.
    open var values: [Any]?
    /// A path for point properties: the layer moves along it (its element end points are the
    /// keyframes); it overrides `values`.
    open var path: CGPath?
    /// When each keyframe is reached, as fractions of the duration (0…1, ascending, one per
    /// value; ignored when invalid, and for paced modes).
    open var keyTimes: [NSNumber]?
    /// The pacing of each segment (one fewer than the values).
    open var timingFunctions: [CAMediaTimingFunction]?
    /// How values between keyframes are computed (default `.linear`).
    open var calculationMode: CAAnimationCalculationMode = .linear
    /// Cubic mode: the tightness of the curve at each keyframe.
    open var tensionValues: [NSNumber]?
    /// Cubic mode: the sharpness of the corners at each keyframe.
    open var continuityValues: [NSNumber]?
    /// Cubic mode: where the curve overshoots at each keyframe.
    open var biasValues: [NSNumber]?
    /// Whether a layer moving along `path` rotates to follow it (nil: it does not).
    open var rotationMode: CAAnimationRotationMode?

    override package func makeEmptyCopy() -> CAAnimation { CAKeyframeAnimation() }

    override package func copyValues(to c: CAAnimation) {
        super.copyValues(to: c)
        guard let c = c as? CAKeyframeAnimation else { return }
        c.values = values; c.path = path; c.keyTimes = keyTimes; c.timingFunctions = timingFunctions
        c.calculationMode = calculationMode; c.tensionValues = tensionValues
        c.continuityValues = continuityValues; c.biasValues = biasValues; c.rotationMode = rotationMode
    }

    override package func makeSpec() -> AnimationSpec? {
        guard let kp = effectiveKeyPath else { return nil }
        var k = KeyframeSpec()
        if let path, !path.elements.isEmpty {
            k.loadPath(path)
            k.isPath = true
        } else {
            guard let values, !values.isEmpty else { return nil }
            for v in values {
                // A value that cannot be animated makes the whole animation unusable.
                guard let c = AnimValue(v) else { return nil }
                k.values.append(c)
            }
        }
        guard !k.values.isEmpty else { return nil }
        k.keyTimes = keyTimes?.map { $0.doubleValue }
        k.functions = timingFunctions?.map { $0.curve }
        k.mode = calculationMode.rawValue
        k.tension = tensionValues?.map { $0.doubleValue } ?? []
        k.continuity = continuityValues?.map { $0.doubleValue } ?? []
        k.bias = biasValues?.map { $0.doubleValue } ?? []
        switch rotationMode {
        case .rotateAuto?: k.rotate = 1
        case .rotateAutoReverse?: k.rotate = -1
        default: k.rotate = 0
        }
        return AnimationSpec(timing: timingValues, curve: timingFunction?.curve,
                             kind: .property(PropertySpec(keyPath: kp, additive: isAdditive, cumulative: isCumulative,
                                                          mode: .keyframe(k))))
    }
}
