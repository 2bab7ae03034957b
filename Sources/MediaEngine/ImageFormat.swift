// ImageFormat: the still-image file formats the engine recognises, told apart by their magic bytes.
import Foundation

/// A still-image file format, identified by the leading bytes of its data.
package enum ImageFormat: String, Sendable, CaseIterable {
    case png
    case jpeg
    case tiff
    case gif
    case bmp
    case webp
    case heic

    /// The format whose signature starts `data`; nil when no known signature matches.
    package init?(sniffing data: Data) {
        let b = [UInt8](data.prefix(16))
        func starts(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + sig.count && Array(b[offset ..< offset + sig.count]) == sig
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("BM".utf8)) && b.count >= 16 {
            self = .bmp
        } else if starts(Array("ftyp".utf8), at: 4), b.count >= 12,
                  ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"]
                    .contains(String(decoding: b[8 ..< 12], as: UTF8.self)) {
            self = .heic
        } else {
            return nil
        }
    }

    /// The format's Uniform Type Identifier, as Apple's ImageIO reports it.
    package var typeIdentifier: String {
        switch self {
        case .png: return "public.png"
        case .jpeg: return "public.jpeg"
        case .tiff: return "public.tiff"
        case .gif: return "com.compuserve.gif"
        case .bmp: return "com.microsoft.bmp"
        case .webp: return "org.webmproject.webp"
        case .heic: return "public.heic"
        }
    }

    /// The format with the given type identifier; nil for identifiers of no known image format.
    package init?(typeIdentifier: String) {
        guard let match = ImageFormat.allCases.first(where: { $0.typeIdentifier == typeIdentifier }) else {
            return nil
        }
        self = match
    }

    /// Whether the engine can decode the format's pixels (HEIC: our own box reader, FFmpeg 5.1
    /// having no HEIF demuxer, and libavcodec's hevc decoder).
    package var canDecode: Bool { true }

    /// Whether the engine can write the format (HEIC: libx265 in our own boxes).
    package var canEncode: Bool { [.png, .jpeg, .tiff, .bmp, .heic].contains(self) }

    /// The formats the engine decodes, in the order `CGImageSourceCopyTypeIdentifiers` lists them.
    package static var decodable: [ImageFormat] { allCases.filter(\.canDecode) }

    /// The formats the engine encodes, in the order `CGImageDestinationCopyTypeIdentifiers` lists them.
    package static var encodable: [ImageFormat] { allCases.filter(\.canEncode) }
}
