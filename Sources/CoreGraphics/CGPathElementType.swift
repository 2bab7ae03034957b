/// The kind of one path element.
public enum CGPathElementType: Int32, Sendable {
    /// Starts a new subpath at one point.
    case moveToPoint = 0
    /// A straight line to one point.
    case addLineToPoint = 1
    /// A quadratic Bézier curve: control point, end point.
    case addQuadCurveToPoint = 2
    /// A cubic Bézier curve: two control points, end point.
    case addCurveToPoint = 3
    /// Closes the current subpath.
    case closeSubpath = 4
}
