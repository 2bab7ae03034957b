// UTTagClass: the kinds of tag (filename extension, MIME type) that identify a type elsewhere.

/// A class of tags that map to type identifiers, such as filename extensions and MIME types.
public struct UTTagClass: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The filename extension tag class (`"public.filename-extension"`).
    public static let filenameExtension = UTTagClass(rawValue: "public.filename-extension")
    /// The MIME type tag class (`"public.mime-type"`).
    public static let mimeType = UTTagClass(rawValue: "public.mime-type")

    public var description: String { rawValue }
}
