// UTType: Apple's Uniform Type Identifier value type: identifiers, tags and conformance.
import Foundation

/// A structure that represents a type of data to load, send, or receive, as Apple's
/// `UniformTypeIdentifiers.UTType`: an identifier such as `"public.png"`, its filename-extension
/// and MIME-type tags, and its conformance to other types.
public struct UTType: Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The type's identifier, for example `"public.jpeg"`.
    public let identifier: String

    /// A type known to be valid (a declared or dynamic identifier), without lookups.
    init(validIdentifier: String) { self.identifier = validIdentifier }

    /// Creates a type from an identifier; nil when the system does not know the identifier.
    public init?(_ identifier: String) {
        if let declaration = UTTypeRegistry.shared.declaration(identifier) {
            self.identifier = declaration.identifier
        } else if UTType.dynamicPayload(identifier) != nil {
            self.identifier = identifier
        } else {
            return nil
        }
    }

    /// Creates a type for a filename extension that conforms to `supertype`. When no declared type
    /// matches, returns a dynamic type (`isDynamic` true); nil for an invalid (empty) extension.
    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        self.init(tag: filenameExtension, tagClass: .filenameExtension, conformingTo: supertype)
    }

    /// Creates a type for a MIME type that conforms to `supertype`. When no declared type
    /// matches, returns a dynamic type; nil for an invalid (empty) MIME type.
    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        self.init(tag: mimeType, tagClass: .mimeType, conformingTo: supertype)
    }

    /// Creates a type for a tag of the given class conforming to `supertype` (any type when nil).
    public init?(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) {
        guard let first = UTType.types(tag: tag, tagClass: tagClass, conformingTo: supertype).first else { return nil }
        self = first
    }

    /// Declares (if needed) and returns a type your program owns, as `UTType(exportedAs:)` does
    /// for an Info.plist declaration. Run-time declarations have no tags.
    public init(exportedAs identifier: String, conformingTo parentType: UTType? = nil) {
        UTTypeRegistry.shared.declare(UTTypeDeclaration(identifier: identifier,
                                                        conformsTo: parentType.map { [$0.identifier] } ?? ["public.data"],
                                                        isSystem: false))
        self.identifier = UTTypeRegistry.shared.declaration(identifier)?.identifier ?? identifier
    }

    /// Declares (if needed) and returns a type another party owns, as `UTType(importedAs:)` does.
    public init(importedAs identifier: String, conformingTo parentType: UTType? = nil) {
        self.init(exportedAs: identifier, conformingTo: parentType)
    }

    /// All types that carry `tag` in `tagClass` and conform to `supertype`; a single dynamic type
    /// when none is declared; empty for an empty tag.
    public static func types(tag: String, tagClass: UTTagClass, conformingTo supertype: UTType?) -> [UTType] {
        guard !tag.isEmpty, tagClass == .filenameExtension || tagClass == .mimeType else { return [] }
        var tag = tag
        if tagClass == .filenameExtension, tag.hasPrefix(".") { tag.removeFirst() }
        guard !tag.isEmpty else { return [] }
        let found = UTTypeRegistry.shared.declarations(tag: tag, tagClass: tagClass)
            .map { UTType(validIdentifier: $0.identifier) }
            .filter { supertype == nil || $0.conforms(to: supertype!) }
        if !found.isEmpty { return found }
        return [UTType.dynamic(tag: tag.lowercased(), tagClass: tagClass, conformingTo: supertype ?? .data)]
    }

    // MARK: Tags

    /// Every tag of the type, by class.
    public var tags: [UTTagClass: [String]] {
        if let d = UTTypeRegistry.shared.declaration(identifier) {
            var out: [UTTagClass: [String]] = [:]
            if !d.extensions.isEmpty { out[.filenameExtension] = d.extensions }
            if !d.mimeTypes.isEmpty { out[.mimeType] = d.mimeTypes }
            return out
        }
        if let (tagClass, tag, _) = UTType.dynamicPayload(identifier) { return [tagClass: [tag]] }
        return [:]
    }

    /// The preferred filename extension, for example `"jpeg"` for `.jpeg`.
    public var preferredFilenameExtension: String? { tags[.filenameExtension]?.first }

    /// The preferred MIME type, for example `"image/png"` for `.png`.
    public var preferredMIMEType: String? { tags[.mimeType]?.first }

    /// A short human-readable description (English; wording may differ from Apple's).
    public var localizedDescription: String? { UTTypeRegistry.shared.declaration(identifier)?.description }

    // MARK: Kind of declaration

    /// Whether the type is declared (not dynamic).
    public var isDeclared: Bool { UTTypeRegistry.shared.declaration(identifier) != nil }
    /// Whether the system declares the type.
    public var isSystemDeclared: Bool { UTTypeRegistry.shared.declaration(identifier)?.isSystem == true }
    /// Whether the type is dynamic: synthesised for a tag no declared type carries.
    public var isDynamic: Bool { identifier.lowercased().hasPrefix("dyn.") }
    /// Whether the type is in the reserved `public.` domain.
    public var isPublic: Bool { identifier.lowercased().hasPrefix("public.") }

    // MARK: Conformance

    /// Every type this type conforms to, directly or indirectly (the type itself excluded).
    public var supertypes: Set<UTType> {
        var seen = Set<String>()
        var queue = UTType.directSupertypes(of: identifier)
        var out = Set<UTType>()
        while let next = queue.popLast() {
            guard seen.insert(next.lowercased()).inserted else { continue }
            out.insert(UTType(validIdentifier: UTTypeRegistry.shared.declaration(next)?.identifier ?? next))
            queue += UTType.directSupertypes(of: next)
        }
        out.remove(self)
        return out
    }

    /// Whether this type is `type` or conforms to it through its supertypes.
    public func conforms(to type: UTType) -> Bool { self == type || supertypes.contains(type) }

    /// Whether this type conforms to `type` and is not `type` itself.
    public func isSubtype(of type: UTType) -> Bool { self != type && conforms(to: type) }

    /// Whether `type` conforms to this type and is not this type itself.
    public func isSupertype(of type: UTType) -> Bool { type.isSubtype(of: self) }

    private static func directSupertypes(of identifier: String) -> [String] {
        if let d = UTTypeRegistry.shared.declaration(identifier) { return d.conformsTo }
        if let (_, _, parent) = dynamicPayload(identifier) { return [parent] }
        return []
    }

    // MARK: Equality, coding, description

    public static func == (lhs: UTType, rhs: UTType) -> Bool {
        lhs.identifier.lowercased() == rhs.identifier.lowercased()
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(identifier.lowercased()) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let identifier = try container.decode(String.self)
        guard !identifier.isEmpty else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "empty type identifier")
        }
        self.identifier = UTTypeRegistry.shared.declaration(identifier)?.identifier ?? identifier
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }

    /// The identifier, as Apple's `description` gives it.
    public var description: String { identifier }

    public var debugDescription: String {
        "\(identifier) (\(isDynamic ? "dynamic" : isDeclared ? "declared" : "undeclared"))"
    }

    // MARK: Dynamic identifiers

    /// Dynamic identifiers are `dyn.a` followed by the base-32 encoding of
    /// "<class>=<tag>:<parent identifier>". (Apple's own dynamic encoding differs in detail.)
    private static let alphabet = Array("abcdefghkmnpqrstuvwxyz0123456789".utf8)

    private static func dynamic(tag: String, tagClass: UTTagClass, conformingTo parent: UTType) -> UTType {
        let code = tagClass == .mimeType ? "m" : "e"
        let payload = Array("\(code)=\(tag):\(parent.identifier)".utf8)
        var bits = 0, value = 0
        var out = Array("dyn.a".utf8)
        for byte in payload {
            value = value << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(alphabet[(value >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(alphabet[(value << (5 - bits)) & 31]) }
        return UTType(validIdentifier: String(decoding: out, as: UTF8.self))
    }

    private static func dynamicPayload(_ identifier: String) -> (UTTagClass, String, String)? {
        let lower = identifier.lowercased()
        guard lower.hasPrefix("dyn.a") else { return nil }
        var bits = 0, value = 0
        var bytes: [UInt8] = []
        for ch in lower.utf8.dropFirst(5) {
            guard let v = alphabet.firstIndex(of: ch) else { return nil }
            value = (value << 5 | v) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((value >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.count >= 4, let colon = text.firstIndex(of: ":") else { return nil }
        let head = text[..<colon], parent = String(text[text.index(after: colon)...])
        guard head.hasPrefix("e=") || head.hasPrefix("m="), !parent.isEmpty else { return nil }
        return (head.hasPrefix("m") ? .mimeType : .filenameExtension, String(head.dropFirst(2)), parent)
    }
}

// MARK: - System-declared types

extension UTType {
    public static let item = UTType(validIdentifier: "public.item")
    public static let content = UTType(validIdentifier: "public.content")
    public static let compositeContent = UTType(validIdentifier: "public.composite-content")
    public static let data = UTType(validIdentifier: "public.data")
    public static let directory = UTType(validIdentifier: "public.directory")
    public static let folder = UTType(validIdentifier: "public.folder")
    public static let archive = UTType(validIdentifier: "public.archive")
    public static let zip = UTType(validIdentifier: "public.zip-archive")

    public static let image = UTType(validIdentifier: "public.image")
    public static let png = UTType(validIdentifier: "public.png")
    public static let jpeg = UTType(validIdentifier: "public.jpeg")
    public static let tiff = UTType(validIdentifier: "public.tiff")
    public static let gif = UTType(validIdentifier: "com.compuserve.gif")
    public static let bmp = UTType(validIdentifier: "com.microsoft.bmp")
    public static let ico = UTType(validIdentifier: "com.microsoft.ico")
    public static let heic = UTType(validIdentifier: "public.heic")
    public static let heif = UTType(validIdentifier: "public.heif")
    public static let webP = UTType(validIdentifier: "org.webmproject.webp")
    public static let svg = UTType(validIdentifier: "public.svg-image")

    public static let audiovisualContent = UTType(validIdentifier: "public.audiovisual-content")
    public static let movie = UTType(validIdentifier: "public.movie")
    public static let video = UTType(validIdentifier: "public.video")
    public static let audio = UTType(validIdentifier: "public.audio")
    public static let quickTimeMovie = UTType(validIdentifier: "com.apple.quicktime-movie")
    public static let mpeg4Movie = UTType(validIdentifier: "public.mpeg-4")
    public static let appleProtectedMPEG4Audio = UTType(validIdentifier: "com.apple.protected-mpeg-4-audio")
    public static let mpeg4Audio = UTType(validIdentifier: "public.mpeg-4-audio")
    public static let mp3 = UTType(validIdentifier: "public.mp3")
    public static let wav = UTType(validIdentifier: "com.microsoft.waveform-audio")
    public static let aiff = UTType(validIdentifier: "public.aiff-audio")
    public static let mpeg2TransportStream = UTType(validIdentifier: "public.mpeg-2-transport-stream")
    public static let mpeg2Video = UTType(validIdentifier: "public.mpeg-2-video")
    public static let mpeg = UTType(validIdentifier: "public.mpeg")
    public static let avi = UTType(validIdentifier: "public.avi")
    public static let appleProtectedMPEG4Video = UTType(validIdentifier: "com.apple.protected-mpeg-4-video")
    public static let midi = UTType(validIdentifier: "public.midi-audio")
    public static let playlist = UTType(validIdentifier: "public.playlist")
    public static let m3uPlaylist = UTType(validIdentifier: "public.m3u-playlist")

    public static let text = UTType(validIdentifier: "public.text")
    public static let plainText = UTType(validIdentifier: "public.plain-text")
    public static let utf8PlainText = UTType(validIdentifier: "public.utf8-plain-text")
    public static let json = UTType(validIdentifier: "public.json")
    public static let xml = UTType(validIdentifier: "public.xml")
    public static let html = UTType(validIdentifier: "public.html")
    public static let pdf = UTType(validIdentifier: "com.adobe.pdf")
}
