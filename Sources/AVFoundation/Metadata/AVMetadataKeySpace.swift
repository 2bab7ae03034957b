// AVMetadataKeySpace: the string-enum type that names metadata key spaces, as Apple's
// AVMetadataFormat.h declares it (NS_STRING_ENUM / NS_EXTENSIBLE_STRING_ENUM).
import Foundation

/// A metadata key space: the vocabulary a metadata item's key belongs to.
public struct AVMetadataKeySpace: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The key space's identifying string, e.g. `"itsk"`.
    public let rawValue: String
    /// Creates a key space from its identifying string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a key space from its identifying string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }

    /// The common key space, `"comn"`: keys shared across formats.
    public static let common = AVMetadataKeySpace("comn")
    /// The QuickTime user data key space, `"udta"`.
    public static let quickTimeUserData = AVMetadataKeySpace("udta")
    /// The ISO user data key space, `"uiso"`.
    public static let isoUserData = AVMetadataKeySpace("uiso")
    /// The QuickTime metadata key space, `"mdta"`.
    public static let quickTimeMetadata = AVMetadataKeySpace("mdta")
    /// The iTunes key space, `"itsk"`.
    public static let iTunes = AVMetadataKeySpace("itsk")
    /// The ID3 key space, `"org.id3"`.
    public static let id3 = AVMetadataKeySpace("org.id3")
    /// The Icecast/SHOUTcast key space, `"icy"`.
    public static let icy = AVMetadataKeySpace("icy")
    /// The HTTP Live Streaming date-range key space, `"lsdr"`.
    public static let hlsDateRange = AVMetadataKeySpace("lsdr")
    /// The AudioToolbox audio file key space, `"caaf"`.
    public static let audioFile = AVMetadataKeySpace("caaf")
}
