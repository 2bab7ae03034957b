// AVMetadataExtraAttributeKey: the string-enum type that names extra attributes of metadata
// items, as Apple's AVMetadataFormat.h declares it (NS_STRING_ENUM / NS_EXTENSIBLE_STRING_ENUM).
import Foundation

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
