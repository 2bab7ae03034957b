// AVMetadataFormat: the string-enum type that names metadata formats, as Apple's
// AVMetadataFormat.h declares it (NS_STRING_ENUM / NS_EXTENSIBLE_STRING_ENUM).
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
