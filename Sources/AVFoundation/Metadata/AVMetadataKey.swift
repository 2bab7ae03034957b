// AVMetadataKey: the string-enum type that names metadata keys, as Apple's AVMetadataFormat.h
// declares it (NS_STRING_ENUM / NS_EXTENSIBLE_STRING_ENUM). Its constants are in
// AVMetadataKey+Constants.swift.
import Foundation

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
