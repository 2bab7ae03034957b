/// How stroked segments meet at corners.
public enum CGLineJoin: Int32, Sendable {
    /// Sharp corners (bevelled beyond the miter limit).
    case miter = 0
    /// Rounded corners.
    case round = 1
    /// Squared-off corners.
    case bevel = 2
}
