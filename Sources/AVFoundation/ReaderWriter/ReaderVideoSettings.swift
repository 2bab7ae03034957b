// Video output settings of a reader track output: the Core Video pixel buffer attributes that ask
// for decoded pictures (format, size, row alignment…), checked when the output is created.
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine

/// A dictionary of decompression properties for a video decoder (accepted; FFmpeg's decoders
/// take none of VideoToolbox's).
public let AVVideoDecompressionPropertiesKey: String = "DecompressionProperties"

/// What a video track output's settings ask for, validated.
struct ReaderVideoSettings: @unchecked Sendable {
    /// The pixel formats asked for, in order of preference; empty: the decoder's own format.
    var pixelFormats: [OSType] = []
    /// The picture size asked for; nil keeps the decoded size.
    var width: Int?
    var height: Int?
    /// Attributes that change the buffers' memory layout (row and plane alignment, extended
    /// pixels): the decoder's own buffers cannot be handed out as they are.
    var needsOwnLayout = false
    /// The attributes every vended buffer is allocated with (pool attributes).
    var bufferAttributes: [String: Any] = [:]
    /// Colour asked for by `AVVideoColorPropertiesKey`: the Y'CbCr matrix, primaries and transfer
    /// function strings (Core Video's attachment values).
    var matrix: String?
    var primaries: String?
    var transferFunction: String?

    /// Whether the decoded pictures must be converted or copied whatever their format.
    var forcesConversion: Bool { needsOwnLayout || matrix != nil || primaries != nil || transferFunction != nil }

    /// Core Video attribute keys a reader output accepts.
    static let pixelBufferKeys: Set<String> = [
        (kCVPixelBufferPixelFormatTypeKey as String), (kCVPixelBufferMemoryAllocatorKey as String), (kCVPixelBufferWidthKey as String), (kCVPixelBufferHeightKey as String),
        (kCVPixelBufferExtendedPixelsLeftKey as String), (kCVPixelBufferExtendedPixelsTopKey as String), (kCVPixelBufferExtendedPixelsRightKey as String),
        (kCVPixelBufferExtendedPixelsBottomKey as String), (kCVPixelBufferBytesPerRowAlignmentKey as String), (kCVPixelBufferCGBitmapContextCompatibilityKey as String),
        (kCVPixelBufferCGImageCompatibilityKey as String), (kCVPixelBufferOpenGLCompatibilityKey as String), (kCVPixelBufferPlaneAlignmentKey as String),
        (kCVPixelBufferIOSurfacePropertiesKey as String), (kCVPixelBufferOpenGLESCompatibilityKey as String), (kCVPixelBufferMetalCompatibilityKey as String),
        (kCVPixelBufferOpenGLTextureCacheCompatibilityKey as String), (kCVPixelBufferOpenGLESTextureCacheCompatibilityKey as String),
    ]
    /// Keys that change the memory layout of the buffers.
    static let layoutKeys: Set<String> = [
        (kCVPixelBufferExtendedPixelsLeftKey as String), (kCVPixelBufferExtendedPixelsTopKey as String), (kCVPixelBufferExtendedPixelsRightKey as String),
        (kCVPixelBufferExtendedPixelsBottomKey as String), (kCVPixelBufferBytesPerRowAlignmentKey as String), (kCVPixelBufferPlaneAlignmentKey as String),
    ]
    /// AVVideoSettings keys Apple accepts in uncompressed settings besides Core Video's: decompression
    /// properties (`AVVideoDecompressionPropertiesKey`), wide colour (`AVVideoAllowWideColorKey`) and
    /// colour properties (`AVVideoColorPropertiesKey`).
    static let decompressionKey = AVVideoDecompressionPropertiesKey
    static let allowWideColorKey = "AllowWideColor"
    static let colorPropertiesKey = "ColorProperties"
    /// Uncompressed-video keys a track output does not support (Apple: clean aperture, pixel
    /// aspect ratio, scaling mode).
    static let unsupportedKeys: Set<String> = ["CleanAperture", "PixelAspectRatio", "ScalingMode"]
    /// Keys that ask for compressed output (AVVideoSettings.h).
    static let compressionKeys: Set<String> = [
        "AVVideoCodecKey", "AVVideoWidthKey", "AVVideoHeightKey", "AVVideoCompressionPropertiesKey",
    ]

    /// Why `settings` cannot be used, or the parsed settings.
    static func parse(_ settings: [String: Any]) -> Result<ReaderVideoSettings, ReaderSettingsProblem> {
        var parsed = ReaderVideoSettings()
        let compressed = settings.keys.filter { compressionKeys.contains($0) }
        if !compressed.isEmpty { return .failure(.compressedOutput) }
        let invalid = settings.keys.filter {
            !pixelBufferKeys.contains($0) && $0 != decompressionKey && $0 != allowWideColorKey && $0 != colorPropertiesKey
        }.sorted()
        if !invalid.isEmpty {
            let unsupported = invalid.filter { unsupportedKeys.contains($0) }
            return .failure(unsupported.isEmpty ? .invalidKeys(invalid) : .unsupportedKeys(unsupported))
        }
        for (key, value) in settings where pixelBufferKeys.contains(key) || key == colorPropertiesKey {
            parsed.bufferAttributes[key] = value
        }
        parsed.bufferAttributes[colorPropertiesKey] = nil
        if let value = settings[(kCVPixelBufferPixelFormatTypeKey as String)] {
            guard let formats = pixelFormats(value) else { return .failure(.invalidValue((kCVPixelBufferPixelFormatTypeKey as String))) }
            let supported = formats.filter { CVPixelFormatLayout.layout(for: $0) != nil }
            guard !supported.isEmpty else { return .failure(.unsupportedPixelFormats(formats)) }
            parsed.pixelFormats = supported
        }
        for key in [kCVPixelBufferWidthKey, kCVPixelBufferHeightKey] {
            guard let value = settings[(key as String)] else { continue }
            guard let n = integer(value), n > 0, n < 65536 else { return .failure(.invalidValue((key as String))) }
            if key == kCVPixelBufferWidthKey { parsed.width = n } else { parsed.height = n }
        }
        for key in layoutKeys where settings[key] != nil {
            guard let n = integer(settings[key]!), n >= 0, n <= 4096 else { return .failure(.invalidValue(key)) }
            if n > 0 { parsed.needsOwnLayout = true }
        }
        if let value = settings[colorPropertiesKey] {
            guard let colour = dictionary(value) else { return .failure(.invalidValue(colorPropertiesKey)) }
            for (key, item) in colour {
                guard let text = (item as? String) ?? (item as? NSString).map({ String($0) }) else {
                    return .failure(.invalidValue("\(colorPropertiesKey).\(key)"))
                }
                switch key {
                case "YCbCrMatrix":
                    guard PixelFormatColor.Matrix(rawValue: text) != nil else { return .failure(.invalidValue("\(colorPropertiesKey).\(key)")) }
                    parsed.matrix = text
                case "ColorPrimaries": parsed.primaries = text
                case "TransferFunction": parsed.transferFunction = text
                default: return .failure(.invalidValue("\(colorPropertiesKey).\(key)"))
                }
            }
        }
        return .success(parsed)
    }

    /// An OSType, or an array of them, given as any integer type, NSNumber or a four-character string.
    static func pixelFormats(_ value: Any) -> [OSType]? {
        if let list = value as? [Any] { let formats = list.compactMap(pixelFormat); return formats.count == list.count && !list.isEmpty ? formats : nil }
        if let list = value as? NSArray { return pixelFormats(list.map { $0 }) }
        return pixelFormat(value).map { [$0] }
    }

    private static func pixelFormat(_ value: Any) -> OSType? {
        if let n = integer(value), let code = OSType(exactly: n) { return code }
        if let s = (value as? String) ?? (value as? NSString).map({ String($0) }), s.utf8.count == 4 {
            return s.utf8.reduce(0) { $0 << 8 | OSType($1) }
        }
        return nil
    }

    static func integer(_ value: Any) -> Int? {
        switch value {
        case let n as Int: return n
        case let n as OSType: return Int(n)
        case let n as Int32: return Int(n)
        case let n as Int64: return Int(exactly: n)
        case let n as UInt: return Int(exactly: n)
        case let n as Double: return n.rounded() == n && n.isFinite && abs(n) < 1e15 ? Int(n) : nil
        case let n as Float: return n.rounded() == n && n.isFinite ? Int(exactly: n) : nil
        case let n as NSNumber: return n.intValue
        default: return nil
        }
    }

    private static func dictionary(_ value: Any) -> [String: Any]? {
        if let d = value as? [String: Any] { return d }
        if let d = value as? NSDictionary {
            var out: [String: Any] = [:]
            for (k, v) in d { guard let k = k as? String ?? (k as? NSString).map({ String($0) }) else { return nil }; out[k] = v }
            return out
        }
        return nil
    }
}

/// Why output settings cannot be used; each becomes the exception Apple raises.
enum ReaderSettingsProblem: Error, Equatable {
    case compressedOutput
    case invalidKeys([String])
    case unsupportedKeys([String])
    case invalidValue(String)
    case unsupportedPixelFormats([OSType])

    /// Apple's reason text after the method name.
    var reason: String {
        switch self {
        case .compressedOutput:
            return "AVAssetReaderTrackOutput does not currently support compressed output"
        case .invalidKeys(let keys):
            return "Output settings dictionary contains one or more invalid keys: \(keys.joined(separator: ", "))"
        case .unsupportedKeys(let keys):
            return "AVAssetReaderTrackOutput does not support the output settings keys \(keys.joined(separator: ", "))"
        case .invalidValue(let key):
            return "Output settings dictionary contains an invalid value for the key \(key)"
        case .unsupportedPixelFormats(let formats):
            let names = formats.map { code in
                let chars = (0..<4).map { Character(UnicodeScalar(UInt8(truncatingIfNeeded: code >> (24 - 8 * $0)))) }
                return chars.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " ") } ? "'\(String(chars))'" : "\(code)"
            }
            return "Output settings ask for pixel formats this platform cannot produce: \(names.joined(separator: ", "))"
        }
    }
}
