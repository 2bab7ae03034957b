// AVLayerVideoGravity: how a layer places video in its bounds (preview layer; later the player layer).

/// How a video layer fits the picture into its bounds.
public struct AVLayerVideoGravity: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// Apple's string ("AVLayerVideoGravityResizeAspect", …).
    public let rawValue: String
    /// A gravity from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A gravity from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The string.
    public var description: String { rawValue }

    /// Stretch the picture to fill the bounds exactly (the aspect ratio may change).
    public static let resize = AVLayerVideoGravity("AVLayerVideoGravityResize")
    /// Keep the aspect ratio and fit inside the bounds (bars where the aspects differ).
    public static let resizeAspect = AVLayerVideoGravity("AVLayerVideoGravityResizeAspect")
    /// Keep the aspect ratio and fill the bounds (the picture is cropped where the aspects differ).
    public static let resizeAspectFill = AVLayerVideoGravity("AVLayerVideoGravityResizeAspectFill")
}
