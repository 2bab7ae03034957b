/// One element of a path, as `CGPath.applyWithBlock(_:)` hands it out: its type and its points
/// (1 for move and line, 2 for a quadratic curve — control point, end — 3 for a cubic curve, 0
/// for close).
public struct CGPathElement {
    /// The element's kind.
    public var type: CGPathElementType
    /// The element's points (valid only during the callback).
    public var points: UnsafeMutablePointer<CGPoint>
    /// An element of `type` with `points`.
    public init(type: CGPathElementType, points: UnsafeMutablePointer<CGPoint>) {
        self.type = type
        self.points = points
    }
}

/// The function `CGPath.apply(info:function:)` calls for each element. (A Swift function type
/// here: `CGPathElement` is a Swift struct, so not C-representable; non-capturing closures and
/// functions written for Apple's `@convention(c)` type pass unchanged.)
public typealias CGPathApplierFunction = (UnsafeMutableRawPointer?, UnsafePointer<CGPathElement>) -> Void
