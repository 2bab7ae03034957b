// CGColorRenderingIntent: how colours outside a destination gamut are mapped.

/// How colours outside a destination gamut are mapped.
public enum CGColorRenderingIntent: Int32, Sendable {
    /// The context's default intent.
    case defaultIntent = 0
    /// Map out-of-gamut colours to the nearest reproducible colour, keeping the white point.
    case absoluteColorimetric = 1
    /// Map out-of-gamut colours to the nearest reproducible colour, adapting the white point.
    case relativeColorimetric = 2
    /// Compress the gamut to keep relationships between colours (photographs).
    case perceptual = 3
    /// Keep saturation (business graphics).
    case saturation = 4
}
