/// Which points are inside a path when it is filled or clipped.
public enum CGPathFillRule: Int, Sendable {
    /// Non-zero winding number.
    case winding = 0
    /// Odd number of crossings.
    case evenOdd = 1
}
