/// Whether a gradient's end colours extend beyond its start and end.
public struct CGGradientDrawingOptions: OptionSet, Sendable {
    public let rawValue: UInt32
    /// Options from their raw value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The start colour fills the area before the start point (or inside the start circle).
    public static let drawsBeforeStartLocation = CGGradientDrawingOptions(rawValue: 1)
    /// The end colour fills the area after the end point (or outside the end circle).
    public static let drawsAfterEndLocation = CGGradientDrawingOptions(rawValue: 2)
}
