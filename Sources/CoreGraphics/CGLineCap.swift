/// How the ends of stroked open subpaths are drawn.
public enum CGLineCap: Int32, Sendable {
    /// Squared off at the end point.
    case butt = 0
    /// A half circle of the line width's diameter around the end point.
    case round = 1
    /// Squared off half the line width beyond the end point.
    case square = 2
}
