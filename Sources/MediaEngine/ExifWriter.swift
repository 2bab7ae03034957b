// ExifWriter: builds Exif metadata (a TIFF structure: IFD0 and the Exif IFD) from ImageIO-style
// {TIFF} and {Exif} dictionaries, and splices it into a JPEG as its APP1 segment without touching
// the compressed picture. Backs still-image and photo capture output and ImageIO's orientation.
import Foundation

/// Writes Exif metadata.
///
/// Dictionaries use Apple's ImageIO key names (the raw strings of `kCGImagePropertyTIFF…` and
/// `kCGImagePropertyExif…`: "Make", "PixelXDimension", "UserComment", …); values may be Swift or
/// Foundation numbers, strings and arrays, as `CMGetAttachment` and `CGImageSource` give them.
/// Keys this writer does not know, and values of the wrong kind, are left out. The TIFF
/// structure is little-endian ("II"); entries are sorted by tag and values longer than four
/// bytes follow their IFD, word-aligned.
package enum ExifWriter {
    /// Why metadata could not be written.
    package enum WriteError: Error, Equatable, Sendable {
        /// The data is not a JPEG stream that can be walked up to its first SOS marker.
        case notJPEG
        /// The metadata does not fit in one APP1 segment (65 533 bytes).
        case tooLarge(Int)
    }

    /// TIFF field types.
    private enum FieldType: UInt16 {
        case byte = 1, ascii = 2, short = 3, long = 4, rational = 5, undefined = 7, slong = 9, srational = 10

        var size: Int {
            switch self {
            case .byte, .ascii, .undefined: return 1
            case .short: return 2
            case .long, .slong: return 4
            case .rational, .srational: return 8
            }
        }
    }

    /// How a key is written: its tag and field type.
    private struct Field {
        let tag: UInt16
        let type: FieldType
    }

    /// IFD0 (the {TIFF} dictionary).
    private static let tiffFields: [String: Field] = [
        "ImageDescription": Field(tag: 0x010E, type: .ascii), "Make": Field(tag: 0x010F, type: .ascii),
        "Model": Field(tag: 0x0110, type: .ascii), "Orientation": Field(tag: 0x0112, type: .short),
        "XResolution": Field(tag: 0x011A, type: .rational), "YResolution": Field(tag: 0x011B, type: .rational),
        "ResolutionUnit": Field(tag: 0x0128, type: .short), "Software": Field(tag: 0x0131, type: .ascii),
        "DateTime": Field(tag: 0x0132, type: .ascii), "Artist": Field(tag: 0x013B, type: .ascii),
        "HostComputer": Field(tag: 0x013C, type: .ascii), "YCbCrPositioning": Field(tag: 0x0213, type: .short),
        "Copyright": Field(tag: 0x8298, type: .ascii),
    ]

    /// The Exif IFD (the {Exif} dictionary).
    private static let exifFields: [String: Field] = [
        "ExposureTime": Field(tag: 0x829A, type: .rational), "FNumber": Field(tag: 0x829D, type: .rational),
        "ExposureProgram": Field(tag: 0x8822, type: .short), "ISOSpeedRatings": Field(tag: 0x8827, type: .short),
        "ExifVersion": Field(tag: 0x9000, type: .undefined), "DateTimeOriginal": Field(tag: 0x9003, type: .ascii),
        "DateTimeDigitized": Field(tag: 0x9004, type: .ascii), "OffsetTime": Field(tag: 0x9010, type: .ascii),
        "OffsetTimeOriginal": Field(tag: 0x9011, type: .ascii), "OffsetTimeDigitized": Field(tag: 0x9012, type: .ascii),
        "ShutterSpeedValue": Field(tag: 0x9201, type: .srational), "ApertureValue": Field(tag: 0x9202, type: .rational),
        "BrightnessValue": Field(tag: 0x9203, type: .srational), "ExposureBiasValue": Field(tag: 0x9204, type: .srational),
        "MaxApertureValue": Field(tag: 0x9205, type: .rational), "SubjectDistance": Field(tag: 0x9206, type: .rational),
        "MeteringMode": Field(tag: 0x9207, type: .short), "LightSource": Field(tag: 0x9208, type: .short),
        "Flash": Field(tag: 0x9209, type: .short), "FocalLength": Field(tag: 0x920A, type: .rational),
        "ComponentsConfiguration": Field(tag: 0x9101, type: .undefined),
        "SubjectArea": Field(tag: 0x9214, type: .short), "UserComment": Field(tag: 0x9286, type: .undefined),
        "FlashPixVersion": Field(tag: 0xA000, type: .undefined),
        "SubsecTime": Field(tag: 0x9290, type: .ascii), "SubsecTimeOriginal": Field(tag: 0x9291, type: .ascii),
        "SubsecTimeDigitized": Field(tag: 0x9292, type: .ascii), "ColorSpace": Field(tag: 0xA001, type: .short),
        "PixelXDimension": Field(tag: 0xA002, type: .long), "PixelYDimension": Field(tag: 0xA003, type: .long),
        "SensingMethod": Field(tag: 0xA217, type: .short), "SceneType": Field(tag: 0xA301, type: .undefined),
        "ExposureMode": Field(tag: 0xA402, type: .short), "WhiteBalance": Field(tag: 0xA403, type: .short),
        "DigitalZoomRatio": Field(tag: 0xA404, type: .rational), "FocalLenIn35mmFilm": Field(tag: 0xA405, type: .short),
        "SceneCaptureType": Field(tag: 0xA406, type: .short), "ImageUniqueID": Field(tag: 0xA420, type: .ascii),
        "CameraOwnerName": Field(tag: 0xA430, type: .ascii), "BodySerialNumber": Field(tag: 0xA431, type: .ascii),
        "LensSpecification": Field(tag: 0xA432, type: .rational), "LensMake": Field(tag: 0xA433, type: .ascii),
        "LensModel": Field(tag: 0xA434, type: .ascii), "LensSerialNumber": Field(tag: 0xA435, type: .ascii),
    ]

    /// The tag of the Exif IFD pointer in IFD0.
    private static let exifIFDPointer: UInt16 = 0x8769

    /// One encoded entry: tag, type, count and value bytes (little-endian).
    private struct Entry {
        let tag: UInt16
        let type: FieldType
        let count: Int
        let bytes: [UInt8]
    }

    /// A TIFF structure (the body of an Exif APP1 segment or a PNG eXIf chunk): IFD0 from `tiff`
    /// and, when `exif` is not nil, an Exif IFD from it. With an Exif IFD, the tags the Exif
    /// standard requires of a JPEG and the dictionaries lack get their usual values (72 dpi,
    /// centred chroma, Exif 2.32, Flashpix 1.0, components Y Cb Cr, sRGB).
    package static func tiffStructure(tiff: [String: Any], exif: [String: Any]?) -> [UInt8] {
        var ifd0Entries = entries(tiff, fields: tiffFields)
        var exifEntries = exif.map { entries($0, fields: exifFields) }
        if var list = exifEntries {
            func fill(_ list: inout [Entry], _ defaults: [Entry]) {
                for d in defaults where !list.contains(where: { $0.tag == d.tag }) { list.append(d) }
                list.sort { $0.tag < $1.tag }
            }
            fill(&ifd0Entries, [
                Entry(tag: 0x011A, type: .rational, count: 1, bytes: le32(72) + le32(1)),
                Entry(tag: 0x011B, type: .rational, count: 1, bytes: le32(72) + le32(1)),
                Entry(tag: 0x0128, type: .short, count: 1, bytes: le16(2)),
                Entry(tag: 0x0213, type: .short, count: 1, bytes: le16(1)),
            ])
            fill(&list, [
                Entry(tag: 0x9000, type: .undefined, count: 4, bytes: Array("0232".utf8)),
                Entry(tag: 0x9101, type: .undefined, count: 4, bytes: [1, 2, 3, 0]),
                Entry(tag: 0xA000, type: .undefined, count: 4, bytes: Array("0100".utf8)),
                Entry(tag: 0xA001, type: .short, count: 1, bytes: le16(1)),
            ])
            exifEntries = list
        }
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        var ifd0 = ifd0Entries
        if exifEntries != nil {
            // The pointer's value is patched once IFD0's size is known.
            ifd0.append(Entry(tag: exifIFDPointer, type: .long, count: 1, bytes: le32(0)))
            ifd0.sort { $0.tag < $1.tag }
        }
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + ifdSize(ifd0)
        if exifEntries != nil, let i = ifd0.firstIndex(where: { $0.tag == exifIFDPointer }) {
            ifd0[i] = Entry(tag: exifIFDPointer, type: .long, count: 1, bytes: le32(UInt32(exifOffset)))
        }
        out += ifdBytes(ifd0, at: ifd0Offset)
        if let exifEntries { out += ifdBytes(exifEntries, at: exifOffset) }
        return out
    }

    /// A JPEG APP1 segment (marker, length, "Exif\0\0", TIFF structure).
    package static func app1Segment(tiff: [String: Any], exif: [String: Any]?) throws(WriteError) -> [UInt8] {
        let body = tiffStructure(tiff: tiff, exif: exif)
        let length = 2 + 6 + body.count
        guard length <= 0xFFFF else { throw .tooLarge(length) }
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("Exif".utf8) + [0, 0] + body
    }

    /// `jpeg` with its Exif replaced by `tiff` / `exif`: every Exif APP1 segment before the
    /// first SOS is removed and the new one goes right after SOI and any APP0 (JFIF) segments.
    /// Everything else — other segments, and the bytes from SOS to EOI — is copied unchanged.
    package static func settingExif(tiff: [String: Any], exif: [String: Any]?, in jpeg: Data) throws(WriteError) -> Data {
        try splicing(app1: app1Segment(tiff: tiff, exif: exif), into: jpeg)
    }

    /// `jpeg` with `app1` (a whole Exif APP1 segment) in place of its Exif segments.
    package static func splicing(app1: [UInt8], into jpeg: Data) throws(WriteError) -> Data {
        let b = [UInt8](jpeg)
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { throw .notJPEG }
        var kept: [UInt8] = [0xFF, 0xD8]
        var inserted = false
        var p = 2
        while true {
            guard p + 4 <= b.count, b[p] == 0xFF else { throw .notJPEG }
            var q = p + 1
            while q < b.count, b[q] == 0xFF { q += 1 }  // fill bytes
            guard q < b.count else { throw .notJPEG }
            let marker = b[q]
            if marker == 0xDA || marker == 0xD9 {  // SOS (or an empty image's EOI): the rest as is
                if !inserted { kept += app1 }
                return Data(kept + b[p...])
            }
            guard q + 2 < b.count else { throw .notJPEG }
            let length = Int(b[q + 1]) << 8 | Int(b[q + 2])
            let end = q + 1 + length
            guard length >= 2, end <= b.count else { throw .notJPEG }
            let isExif = marker == 0xE1 && length >= 8 && Array(b[(q + 3) ..< (q + 9)]) == Array("Exif\0\0".utf8)
            if !inserted && marker != 0xE0 {
                kept += app1
                inserted = true
            }
            if !isExif { kept += b[p ..< end] }
            p = end
        }
    }

    // MARK: Encoding

    private static func ifdSize(_ entries: [Entry]) -> Int {
        2 + 12 * entries.count + 4 + entries.reduce(0) { $0 + ($1.bytes.count > 4 ? ($1.bytes.count + 1) & ~1 : 0) }
    }

    /// An IFD placed at `offset` in the TIFF structure, its long values right after it; no next IFD.
    private static func ifdBytes(_ entries: [Entry], at offset: Int) -> [UInt8] {
        var head: [UInt8] = le16(UInt16(entries.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + 12 * entries.count + 4
        for e in entries {
            head += le16(e.tag) + le16(e.type.rawValue) + le32(UInt32(e.count))
            if e.bytes.count <= 4 {
                head += e.bytes + [UInt8](repeating: 0, count: 4 - e.bytes.count)
            } else {
                head += le32(UInt32(dataStart + data.count))
                data += e.bytes
                if data.count % 2 == 1 { data.append(0) }
            }
        }
        return head + le32(0) + data
    }

    /// The entries of `dictionary` that `fields` knows and whose values fit, sorted by tag.
    private static func entries(_ dictionary: [String: Any], fields: [String: Field]) -> [Entry] {
        var out: [Entry] = []
        for (key, value) in dictionary {
            guard let field = fields[key], let entry = encode(value, key: key, field: field) else { continue }
            out.append(entry)
        }
        return out.sorted { $0.tag < $1.tag }
    }

    private static func encode(_ value: Any, key: String, field: Field) -> Entry? {
        switch field.type {
        case .ascii:
            guard let text = string(value) else { return nil }
            let bytes = Array(text.utf8) + [0]
            return Entry(tag: field.tag, type: .ascii, count: bytes.count, bytes: bytes)
        case .short:
            let values = numbers(value).map { Int($0.rounded()) }
            guard !values.isEmpty, values.allSatisfy({ (0 ... 0xFFFF).contains($0) }) else { return nil }
            return Entry(tag: field.tag, type: .short, count: values.count, bytes: values.flatMap { le16(UInt16($0)) })
        case .long:
            let values = numbers(value).map { Int($0.rounded()) }
            guard !values.isEmpty, values.allSatisfy({ (0 ... 0xFFFF_FFFF).contains($0) }) else { return nil }
            return Entry(tag: field.tag, type: .long, count: values.count, bytes: values.flatMap { le32(UInt32($0)) })
        case .rational, .srational:
            let signed = field.type == .srational
            let values = numbers(value)
            guard !values.isEmpty, values.allSatisfy({ $0.isFinite && (signed || $0 >= 0) }) else { return nil }
            var bytes: [UInt8] = []
            for v in values {
                let (n, d) = rational(v)
                guard d > 0, d <= Int64(UInt32.max) else { return nil }
                if signed {
                    guard let n32 = Int32(exactly: n) else { return nil }
                    bytes += le32(UInt32(bitPattern: n32)) + le32(UInt32(d))
                } else {
                    guard let n32 = UInt32(exactly: n) else { return nil }
                    bytes += le32(n32) + le32(UInt32(d))
                }
            }
            return Entry(tag: field.tag, type: field.type, count: values.count, bytes: bytes)
        case .undefined:
            let bytes: [UInt8]
            switch key {
            case "UserComment":
                // Character code then the text: ASCII when it is, else Unicode (UCS-2, our byte order).
                guard let text = string(value) else { return nil }
                if text.allSatisfy(\.isASCII) {
                    bytes = Array("ASCII\0\0\0".utf8) + Array(text.utf8)
                } else {
                    bytes = Array("UNICODE\0".utf8) + text.utf16.flatMap { le16($0) }
                }
            case "ComponentsConfiguration":
                let parts = numbers(value).map { Int($0) }
                guard parts.count == 4, parts.allSatisfy({ (0 ... 6).contains($0) }) else { return nil }
                bytes = parts.map { UInt8($0) }
            case "ExifVersion", "FlashPixVersion":
                // Apple gives [2, 3, 2]; the tag holds "0232".
                let parts = numbers(value).map { Int($0) }
                guard !parts.isEmpty, parts.allSatisfy({ (0 ... 9).contains($0) }) else { return nil }
                var digits = parts.map { UInt8(0x30 + $0) }
                if digits.count < 4 { digits = [UInt8](repeating: 0x30, count: 4 - digits.count) + digits }
                bytes = Array(digits.prefix(4))
            default:  // SceneType: one byte
                guard let n = numbers(value).first, (0 ... 255).contains(n) else { return nil }
                bytes = [UInt8(n)]
            }
            return Entry(tag: field.tag, type: .undefined, count: bytes.count, bytes: bytes)
        case .byte, .slong:
            return nil
        }
    }

    private static func string(_ value: Any) -> String? {
        if let s = value as? String { return s }
        if let s = value as? NSString { return s as String }
        return nil
    }

    /// A number or an array of numbers as Doubles (Swift numbers, NSNumber, numeric strings not).
    private static func numbers(_ value: Any) -> [Double] {
        if let array = value as? [Any] { return array.compactMap(number) }
        if let array = value as? NSArray { return array.compactMap(number) }
        return number(value).map { [$0] } ?? []
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let v as Bool: return v ? 1 : 0
        case let v as Int: return Double(v)
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as CGFloat: return Double(v)
        case let v as UInt32: return Double(v)
        case let v as Int32: return Double(v)
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    /// A fraction close to `v`: 1/n for exposure-style values, else a denominator of 10 000.
    private static func rational(_ v: Double) -> (Int64, Int64) {
        let magnitude = abs(v)
        guard magnitude < Double(UInt32.max) else { return (0, 0) }  // not representable: the entry is left out
        if magnitude > 0, magnitude < 1 {
            let inverse = 1 / magnitude
            if abs(inverse - inverse.rounded()) < 1e-6, inverse.rounded() <= Double(UInt32.max) {
                return (v < 0 ? -1 : 1, Int64(inverse.rounded()))
            }
        }
        if v == v.rounded(), magnitude <= Double(UInt32.max) { return (Int64(v), 1) }
        guard magnitude < 200_000 else { return (Int64(v.rounded()), 1) }
        var n = Int64((v * 10_000).rounded()), d: Int64 = 10_000
        let g = gcd(abs(n), d)
        if g > 1 { n /= g; d /= g }
        return (n, d)
    }

    private static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? max(a, 1) : gcd(b, a % b) }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
    }
}
