// ImageMetadataWriter: stamps EXIF metadata (orientation, {TIFF}/{Exif} dictionaries) and
// resolution into encoded PNG and JPEG files.
import Foundation

/// Adds metadata to files the encoder produced: EXIF orientation (JPEG APP1 / PNG eXIf) and
/// resolution (JPEG JFIF density / PNG pHYs). Files of other formats are returned unchanged.
package enum ImageMetadataWriter {
    /// `data` with EXIF orientation `orientation` (1…8) recorded.
    package static func settingOrientation(_ orientation: Int, in data: Data, format: ImageFormat) -> Data {
        guard (1 ... 8).contains(orientation) else { return data }
        // A TIFF structure holding IFD0 with the single Orientation (0x0112) tag (ExifWriter).
        return settingExif(tiff: ["Orientation": orientation], exif: nil, in: data, format: format)
    }

    /// `data` with Exif metadata made from ImageIO's `{TIFF}` and `{Exif}` dictionaries
    /// (`ExifWriter`): a JPEG APP1 segment or a PNG eXIf chunk. (HEIC files get theirs as an
    /// Exif item when they are written.)
    package static func settingExif(tiff: [String: Any], exif: [String: Any]?, in data: Data, format: ImageFormat) -> Data {
        switch format {
        case .jpeg:
            return (try? ExifWriter.settingExif(tiff: tiff, exif: exif, in: data)) ?? data
        case .png:
            return insertingPNGChunk(type: "eXIf", body: ExifWriter.tiffStructure(tiff: tiff, exif: exif), into: data)
        default:
            return data
        }
    }

    /// `data` with a resolution of `dpiX`×`dpiY` dots per inch recorded.
    package static func settingResolution(dpiX: Double, dpiY: Double, in data: Data, format: ImageFormat) -> Data {
        guard dpiX > 0, dpiY > 0, dpiX < 65536, dpiY < 65536 else { return data }
        switch format {
        case .png:
            let x = UInt32((dpiX / 0.0254).rounded()), y = UInt32((dpiY / 0.0254).rounded())
            let body = be32(x) + be32(y) + [1]
            return insertingPNGChunk(type: "pHYs", body: body, into: data)
        case .jpeg:
            var bytes = [UInt8](data)
            // Patch the JFIF APP0 segment the encoder writes right after SOI.
            guard bytes.count > 18, bytes[2] == 0xFF, bytes[3] == 0xE0, Array(bytes[6 ..< 11]) == Array("JFIF\0".utf8)
            else { return data }
            let x = UInt16(dpiX.rounded()), y = UInt16(dpiY.rounded())
            bytes[13] = 1
            bytes[14] = UInt8(x >> 8); bytes[15] = UInt8(x & 0xFF)
            bytes[16] = UInt8(y >> 8); bytes[17] = UInt8(y & 0xFF)
            return Data(bytes)
        default:
            return data
        }
    }

    /// Inserts a chunk right after IHDR (before any image data, as the PNG spec requires for
    /// pHYs and eXIf).
    private static func insertingPNGChunk(type: String, body: [UInt8], into data: Data) -> Data {
        let bytes = [UInt8](data)
        let at = 8 + 8 + 13 + 4
        guard bytes.count > at, Array(bytes[12 ..< 16]) == Array("IHDR".utf8) else { return data }
        let typeBytes = Array(type.utf8)
        let chunk = be32(UInt32(body.count)) + typeBytes + body + be32(crc32(typeBytes + body))
        return Data(bytes[..<at] + chunk + bytes[at...])
    }

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0 ..< 256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0 ..< 8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 PNG chunks carry.
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
