// CGInterpolationQuality: how much smoothing drawing a scaled image applies.

/// Levels of interpolation quality for rendering an image.
public enum CGInterpolationQuality: Int32, Sendable {
    /// The context's default quality (bilinear filtering here).
    case `default` = 0
    /// No interpolation: nearest-neighbour sampling.
    case none = 1
    /// Low quality, fast interpolation (bilinear here).
    case low = 2
    /// High quality, slower interpolation (bilinear here).
    case high = 3
    /// Medium quality (bilinear here).
    case medium = 4
}
