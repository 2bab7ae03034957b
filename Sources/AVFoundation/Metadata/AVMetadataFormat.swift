// The string-enum types that name metadata formats, key spaces, keys and extra attributes, as
// Apple's AVMetadataFormat.h declares them (NS_STRING_ENUM / NS_EXTENSIBLE_STRING_ENUM).
import Foundation

/// A metadata format: the container-level vocabulary a set of metadata items comes from.
public struct AVMetadataFormat: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The format's identifying string, e.g. `"com.apple.itunes"`.
    public let rawValue: String
    /// Creates a format from its identifying string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a format from its identifying string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }

    /// QuickTime user data (`moov/udta` entries), `"com.apple.quicktime.udta"`.
    public static let quickTimeUserData = AVMetadataFormat("com.apple.quicktime.udta")
    /// ISO (MPEG-4) user data, `"org.mp4ra"`.
    public static let isoUserData = AVMetadataFormat("org.mp4ra")
    /// QuickTime metadata (`meta` with an `mdta` handler), `"com.apple.quicktime.mdta"`.
    public static let quickTimeMetadata = AVMetadataFormat("com.apple.quicktime.mdta")
    /// iTunes metadata (`moov/udta/meta/ilst`), `"com.apple.itunes"`.
    public static let iTunesMetadata = AVMetadataFormat("com.apple.itunes")
    /// ID3 metadata, `"org.id3"`.
    public static let id3Metadata = AVMetadataFormat("org.id3")
    /// Icecast/SHOUTcast metadata, `"icy"`.
    public static let icyMetadata = AVMetadataFormat("icy")
    /// HTTP Live Streaming metadata, `"com.apple.quicktime.HLS"`.
    public static let hlsMetadata = AVMetadataFormat("com.apple.quicktime.HLS")
    /// A format not otherwise identified, `"UNKNOWN"`.
    public static let unknown = AVMetadataFormat("UNKNOWN")
}

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

/// A metadata key within a key space (a common key, an iTunes atom name, an ID3 frame ID, …).
public struct AVMetadataKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The key's string, e.g. `"title"` or `"©nam"`.
    public let rawValue: String
    /// Creates a key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a key from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }
}

/// A key of `AVMetadataItem.extraAttributes`.
public struct AVMetadataExtraAttributeKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The attribute's name.
    public let rawValue: String
    /// Creates an attribute key from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates an attribute key from its name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }

    /// The URI of the item's value, `"valueURI"`.
    public static let valueURI = AVMetadataExtraAttributeKey("valueURI")
    /// The base URI of the item's value, `"baseURI"`.
    public static let baseURI = AVMetadataExtraAttributeKey("baseURI")
    /// Additional information: the content descriptor of ID3 frames that carry one (COMM,
    /// TXXX, USLT, APIC, …), `"info"`.
    public static let info = AVMetadataExtraAttributeKey("info")
}
