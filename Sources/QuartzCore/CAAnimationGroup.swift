// CAAnimationGroup: animations that run together under the group's own timing.
import Foundation

/// A group of animations whose times are the group's local time: a child's begin time is
/// measured from the group's start, and children are cut off where the group's duration ends.
open class CAAnimationGroup: CAAnimation {
    /// The grouped animations.
    open var animations: [CAAnimation]?

    override package func makeEmptyCopy() -> CAAnimation { CAAnimationGroup() }

    override package func copyValues(to c: CAAnimation) {
        super.copyValues(to: c)
        guard let c = c as? CAAnimationGroup else { return }
        c.animations = animations?.map { $0.copy() as? CAAnimation ?? $0 }
    }

    override package func makeSpec() -> AnimationSpec? {
        let children = (animations ?? []).compactMap { $0.makeSpec() }
        guard !children.isEmpty else { return nil }
        return AnimationSpec(timing: timingValues, curve: timingFunction?.curve, kind: .group(children))
    }
}
