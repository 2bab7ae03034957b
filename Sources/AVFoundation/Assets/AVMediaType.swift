// AVMediaType: the media type of a track, Apple's four-character strings.

/// The type of media a track carries (`"vide"`, `"soun"`, …).
public struct AVMediaType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The four-character string.
    public let rawValue: String
    /// A media type from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A media type from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The string.
    public var description: String { rawValue }

    /// Video ("vide").
    public static let video = AVMediaType("vide")
    /// Audio ("soun").
    public static let audio = AVMediaType("soun")
    /// Text ("text").
    public static let text = AVMediaType("text")
    /// Closed captions ("clcp").
    public static let closedCaption = AVMediaType("clcp")
    /// Subtitles ("sbtl").
    public static let subtitle = AVMediaType("sbtl")
    /// Timecode ("tmcd").
    public static let timecode = AVMediaType("tmcd")
    /// Timed metadata ("meta").
    public static let metadata = AVMediaType("meta")
    /// Muxed audio and video ("muxx").
    public static let muxed = AVMediaType("muxx")
    /// Haptics ("hapt").
    public static let haptic = AVMediaType("hapt")
    /// Depth data ("dpth").
    public static let depthData = AVMediaType("dpth")
    /// Metadata objects ("mobj").
    public static let metadataObject = AVMediaType("mobj")
    /// Auxiliary pictures ("auxv").
    public static let auxiliaryPicture = AVMediaType("auxv")
}
