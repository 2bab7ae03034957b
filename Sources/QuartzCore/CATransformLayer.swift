// CATransformLayer: a layer whose sublayers keep their 3D positions (no flattening).
import Foundation

/// A layer that only groups its sublayers in 3D: it draws nothing of its own (no background,
/// border or contents) and its sublayers are not flattened into its plane. The renderer draws
/// it as a plain container (flattened, as `RenderLayer` has no 3D grouping).
open class CATransformLayer: CALayer {
    /// A transform layer hit-tests nothing of its own: only its sublayers.
    open override func hitTest(_ p: CGPoint) -> CALayer? {
        guard let hit = super.hitTest(p) else { return nil }
        return hit === self ? nil : hit
    }
}
