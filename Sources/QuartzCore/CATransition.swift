// CATransition: an animated change of a layer's whole rendering (fade, push, move in, reveal).
import Foundation

/// The kinds of transition.
public struct CATransitionType: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a type from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The old content fades out as the new fades in.
    public static let fade = CATransitionType(rawValue: "fade")
    /// The new content slides in over the old.
    public static let moveIn = CATransitionType(rawValue: "moveIn")
    /// The new content pushes the old out.
    public static let push = CATransitionType(rawValue: "push")
    /// The old content slides away, revealing the new.
    public static let reveal = CATransitionType(rawValue: "reveal")
}

/// The direction of a transition.
public struct CATransitionSubtype: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a subtype from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// From the right side.
    public static let fromRight = CATransitionSubtype(rawValue: "fromRight")
    /// From the left side.
    public static let fromLeft = CATransitionSubtype(rawValue: "fromLeft")
    /// From the top.
    public static let fromTop = CATransitionSubtype(rawValue: "fromTop")
    /// From the bottom.
    public static let fromBottom = CATransitionSubtype(rawValue: "fromBottom")
}

/// An animated transition of a layer from how it rendered when the transition was added to how
/// it renders now.
///
/// Evaluated into the presentation tree as two copies of the layer: the old rendering (captured
/// when the transition is added) and the new one; `fade` cross-fades their opacities, `push`,
/// `moveIn` and `reveal` offset their positions by the progress times the layer's width or
/// height. Add the transition before changing the layer (Apple captures the previous rendering
/// itself at commit; here it is captured at `add(_:forKey:)`).
open class CATransition: CAAnimation {
    /// The kind of transition (default `.fade`).
    open var type: CATransitionType = .fade
    /// The direction (nil: from the left for push, move in and reveal).
    open var subtype: CATransitionSubtype?
    /// Where the transition starts, as a fraction of its progress (default 0).
    open var startProgress: Float = 0
    /// Where it ends (default 1).
    open var endProgress: Float = 1

    override package func makeEmptyCopy() -> CAAnimation { CATransition() }

    override package func copyValues(to c: CAAnimation) {
        super.copyValues(to: c)
        guard let c = c as? CATransition else { return }
        c.type = type; c.subtype = subtype; c.startProgress = startProgress; c.endProgress = endProgress
        c.capturedTree = capturedTree
    }

    /// The layer's rendering when the transition was added.
    package var capturedTree: RenderLayer?

    override package func makeSpec() -> AnimationSpec? {
        let s = startProgress.isFinite ? Double(startProgress) : 0
        let e = endProgress.isFinite ? Double(endProgress) : 1
        return AnimationSpec(timing: timingValues, curve: timingFunction?.curve,
                             kind: .transition(TransitionSpec(type: type.rawValue, subtype: subtype?.rawValue,
                                                              start: s, end: e, old: capturedTree,
                                                              oldID: ObjectIdentifier(self))))
    }
}
