// CAAnimation: the abstract animation class — timing (CAMediaTiming), a timing function, a
// delegate, removal on completion — and the CAAction protocol animations answer.
import Foundation

/// An object that responds to a layer's action (a property change with implicit animations).
public protocol CAAction {
    /// Runs the action named `event` on `anObject` (a CALayer for layer actions).
    func run(forKey event: String, object anObject: Any, arguments dict: [AnyHashable: Any]?)
}

/// The methods an animation's delegate may implement.
///
/// Called on live layers (a tree hosted by a live renderer, with times from
/// CACurrentMediaTime()): `animationDidStart(_:)` when the animation is added and
/// `animationDidStop(_:finished:)` when it is removed (`finished` false) or, if
/// `isRemovedOnCompletion`, when a live evaluation finds it finished. Offline rendering (movie
/// time, export) makes no calls.
public protocol CAAnimationDelegate: AnyObject {
    /// The animation started.
    func animationDidStart(_ anim: CAAnimation)
    /// The animation stopped: it finished its active duration (`flag` true) or was removed.
    func animationDidStop(_ anim: CAAnimation, finished flag: Bool)
}

extension CAAnimationDelegate {
    /// Does nothing.
    public func animationDidStart(_ anim: CAAnimation) {}
    /// Does nothing.
    public func animationDidStop(_ anim: CAAnimation, finished flag: Bool) {}
}

/// The abstract superclass of Core Animation's animations.
open class CAAnimation: NSObject, NSCopying, CAMediaTiming, CAAction {
    /// When the animation starts, in its layer's local time; 0 when added means "now"
    /// (`add(_:forKey:)` sets the copy's begin time to the layer's current time).
    open var beginTime: CFTimeInterval = 0
    /// One iteration's length; 0 means 0.25 s.
    open var duration: CFTimeInterval = 0
    /// How fast the animation's time runs.
    open var speed: Float = 1
    /// An offset into the animation's local time.
    open var timeOffset: CFTimeInterval = 0
    /// How many times it repeats (`.infinity` or `.greatestFiniteMagnitude`: forever).
    open var repeatCount: Float = 0
    /// For how long it repeats, in seconds.
    open var repeatDuration: CFTimeInterval = 0
    /// Whether each iteration plays forwards then backwards.
    open var autoreverses = false
    /// What it shows outside its active time (default `.removed`).
    open var fillMode: CAMediaTimingFillMode = .removed
    /// The pacing of each iteration; nil is linear.
    open var timingFunction: CAMediaTimingFunction?
    /// The delegate (held strongly, as Apple's).
    open var delegate: (any CAAnimationDelegate)?
    /// Whether the animation is removed from its layer when it finishes (default true).
    open var isRemovedOnCompletion = true

    /// A new animation.
    public override init() { super.init() }

    /// Decoding is not supported: nil.
    public required init?(coder: NSCoder) { return nil }

    /// The default value of a property (nil: the property's own initial value).
    open class func defaultValue(forKey key: String) -> Any? { nil }

    /// Whether the property named `key` is archived (all are).
    open func shouldArchiveValue(forKey key: String) -> Bool { true }

    /// A copy of the animation with the same class and values.
    open func copy(with zone: NSZone? = nil) -> Any {
        let c = makeEmptyCopy()
        copyValues(to: c)
        return c
    }

    /// Adds the animation to `anObject` (a CALayer) under `event`.
    open func run(forKey event: String, object anObject: Any, arguments dict: [AnyHashable: Any]?) {
        (anObject as? CALayer)?.add(self, forKey: event)
    }

    /// An empty instance of the same class for `copy()`.
    package func makeEmptyCopy() -> CAAnimation { CAAnimation() }

    /// Copies this animation's values into `c` (each subclass adds its own).
    package func copyValues(to c: CAAnimation) {
        c.beginTime = beginTime; c.duration = duration; c.speed = speed; c.timeOffset = timeOffset
        c.repeatCount = repeatCount; c.repeatDuration = repeatDuration; c.autoreverses = autoreverses
        c.fillMode = fillMode; c.timingFunction = timingFunction; c.delegate = delegate
        c.isRemovedOnCompletion = isRemovedOnCompletion
    }

    /// The animation's timing as a value.
    package var timingValues: TimingValues {
        var t = TimingValues()
        t.beginTime = beginTime; t.duration = duration; t.speed = Double(speed); t.timeOffset = timeOffset
        t.repeatCount = Double(repeatCount); t.repeatDuration = repeatDuration; t.autoreverses = autoreverses
        t.fillMode = fillMode
        return t
    }

    /// The animation as a Sendable value the evaluation uses; nil when it cannot animate
    /// anything (the abstract class, unusable values).
    package func makeSpec() -> AnimationSpec? { nil }
}
