// AVMetadataItem values → the bytes of ISO base media metadata: iTunes / QuickTime metadata
// `data` atoms (32-bit well-known type, 32-bit locale, value), QuickTime user data international
// text (16-bit length, 16-bit packed language, UTF-8) and iTunes freeform (`----`) entries.
import Foundation
internal import MediaEngine

enum ISOBMFFMetadataEncoding {
    // Well-known data types (QuickTime File Format, "Well-known types").
    static let implicitType: UInt32 = 0
    static let utf8Type: UInt32 = 1
    static let gifType: UInt32 = 12
    static let jpegType: UInt32 = 13
    static let pngType: UInt32 = 14
    static let signedIntegerType: UInt32 = 21
    static let unsignedIntegerType: UInt32 = 22
    static let float32Type: UInt32 = 23
    static let float64Type: UInt32 = 24
    static let bmpType: UInt32 = 27

    /// A `data` atom with locale 0.
    static func dataAtom(type: UInt32, _ payload: [UInt8]) -> [UInt8] {
        BoxBytes.box("data", BoxBytes.be32(type) + BoxBytes.be32(0) + payload)
    }

    // MARK: iTunes

    /// iTunes atoms holding integers, with their width in bytes (type 21, signed big-endian).
    static let iTunesIntegerWidths: [String: Int] = [
        "tmpo": 2, "cpil": 1, "pgap": 1, "hdvd": 1, "pcst": 1, "stik": 1, "rtng": 1, "akID": 1, "shwm": 1,
        "tvsn": 4, "tves": 4, "cnID": 4, "atID": 4, "geID": 4, "sfID": 4, "cmID": 4, "plID": 8,
    ]

    /// iTunes atoms without © that hold text.
    static let iTunesTextAtoms: Set<String> = ["desc", "ldes", "cprt", "aART", "sonm", "soar", "soaa", "soal", "soco",
                                                "sosn", "tvsh", "tven", "tvnt", "tvnn", "purd", "catg", "keyw", "purl",
                                                "egid", "apID", "xid "]

    /// The data atom of an iTunes item stored under `atom`, or nil when the value cannot be
    /// stored there (text for an integer atom, no value…).
    static func iTunesData(atom: String, _ item: AVMetadataItem) -> [UInt8]? {
        switch atom {
        case "trkn", "disk":
            guard let (number, total) = pair(item) else { return nil }
            let payload = [0, 0] + BoxBytes.be16(number) + BoxBytes.be16(total) + (atom == "trkn" ? [0, 0] : [])
            return dataAtom(type: implicitType, payload)
        case "gnre":
            guard let number = integer(item), (1...Int64(UInt16.max)).contains(number) else { return nil }
            return dataAtom(type: implicitType, BoxBytes.be16(UInt16(number)))
        case "covr":
            guard let data = item.dataValue else { return nil }
            return dataAtom(type: imageType(data, dataType: item.dataType) ?? implicitType, [UInt8](data))
        default:
            break
        }
        if let width = iTunesIntegerWidths[atom] {
            guard let number = integer(item) else { return nil }
            return dataAtom(type: signedIntegerType, signed(number, width: width))
        }
        let isText = atom.unicodeScalars.first?.value == 0xA9 || iTunesTextAtoms.contains(atom)
        if !isText {
            if let data = item.dataValue { return dataAtom(type: binaryType(data, dataType: item.dataType), [UInt8](data)) }
            if let number = item.value as? NSNumber, let whole = wholeNumber(number) {
                return dataAtom(type: signedIntegerType, signed(whole, width: minimalWidth(whole)))
            }
        }
        guard let text = text(item) else { return nil }
        return dataAtom(type: utf8Type, Array(text.utf8))
    }

    /// An iTunes freeform entry (`----`: mean, name, data) for a key "mean.name" (a key without
    /// a dot gets Apple's "com.apple.iTunes" mean).
    static func iTunesFreeform(key: String, _ item: AVMetadataItem) -> [UInt8]? {
        let (mean, name) = freeformParts(key)
        let data: [UInt8]
        if let bytes = item.dataValue { data = dataAtom(type: binaryType(bytes, dataType: item.dataType), [UInt8](bytes)) }
        else if let text = text(item) { data = dataAtom(type: utf8Type, Array(text.utf8)) }
        else { return nil }
        return BoxBytes.box("----", BoxBytes.box("mean", [0, 0, 0, 0] + Array(mean.utf8))
                                    + BoxBytes.box("name", [0, 0, 0, 0] + Array(name.utf8)) + data)
    }

    /// Splits a freeform key "com.apple.iTunes.NAME" at its last dot.
    static func freeformParts(_ key: String) -> (mean: String, name: String) {
        guard let dot = key.lastIndex(of: "."), dot != key.startIndex, key.index(after: dot) != key.endIndex else {
            return ("com.apple.iTunes", key)
        }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }

    // MARK: QuickTime metadata

    /// The data atom of a QuickTime metadata (`mdta`) item.
    static func quickTimeData(_ item: AVMetadataItem) -> [UInt8]? {
        switch item.value {
        case let data as NSData:
            let bytes = data as Data
            return dataAtom(type: binaryType(bytes, dataType: item.dataType), [UInt8](bytes))
        case let number as NSNumber:
            switch item.dataType.map({ NSString(string: $0) }) {
            case kCMMetadataBaseDataType_SInt8?: return dataAtom(type: signedIntegerType, signed(number.int64Value, width: 1))
            case kCMMetadataBaseDataType_SInt16?: return dataAtom(type: signedIntegerType, signed(number.int64Value, width: 2))
            case kCMMetadataBaseDataType_SInt32?: return dataAtom(type: signedIntegerType, signed(number.int64Value, width: 4))
            case kCMMetadataBaseDataType_SInt64?: return dataAtom(type: signedIntegerType, signed(number.int64Value, width: 8))
            case kCMMetadataBaseDataType_UInt8?: return dataAtom(type: unsignedIntegerType, [number.uint8Value])
            case kCMMetadataBaseDataType_UInt16?: return dataAtom(type: unsignedIntegerType, BoxBytes.be16(number.uint16Value))
            case kCMMetadataBaseDataType_UInt32?: return dataAtom(type: unsignedIntegerType, BoxBytes.be32(number.uint32Value))
            case kCMMetadataBaseDataType_UInt64?: return dataAtom(type: unsignedIntegerType, BoxBytes.be64(number.uint64Value))
            case kCMMetadataBaseDataType_Float32?:
                return dataAtom(type: float32Type, BoxBytes.be32(number.floatValue.bitPattern))
            case kCMMetadataBaseDataType_Float64?:
                return dataAtom(type: float64Type, BoxBytes.be64(number.doubleValue.bitPattern))
            default:
                if let whole = wholeNumber(number) {
                    return dataAtom(type: signedIntegerType, signed(whole, width: minimalWidth(whole)))
                }
                return dataAtom(type: float64Type, BoxBytes.be64(number.doubleValue.bitPattern))
            }
        default:
            guard let text = text(item) else { return nil }
            return dataAtom(type: utf8Type, Array(text.utf8))
        }
    }

    // MARK: QuickTime user data

    /// One international text entry: 16-bit length, 16-bit packed ISO 639-2/T language ("und"
    /// when the item has none: a value below 0x400 would be a Macintosh language code, whose text
    /// readers decode as Mac Roman), UTF-8 text.
    static func userDataText(_ item: AVMetadataItem) -> [UInt8]? {
        guard let text = text(item) else { return nil }
        let bytes = Array(text.utf8)
        guard bytes.count <= Int(UInt16.max) else { return nil }
        return BoxBytes.be16(UInt16(bytes.count)) + BoxBytes.be16(packedLanguage(item.extendedLanguageTag)) + bytes
    }

    /// A user data box's payload for items of one type: text entries, or a data value as is.
    static func userDataPayload(_ items: [AVMetadataItem]) -> [UInt8]? {
        if items.count == 1, let data = items[0].dataValue { return [UInt8](data) }
        let entries = items.compactMap(userDataText)
        return entries.isEmpty ? nil : entries.flatMap { $0 }
    }

    /// The packed form of a BCP 47 tag's ISO 639-2/T code: three 5-bit letters (each − 0x60).
    static func packedLanguage(_ tag: String?) -> UInt16 {
        let fallback: UInt16 = 0x55C4 // "und"
        guard let tag, !tag.isEmpty else { return fallback }
        let language = String(tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "").lowercased()
        var code = language
        if language.count == 2 {
            code = Locale.LanguageCode(language).identifier(.alpha3) ?? ""
        }
        let letters = Array(code.utf8)
        guard letters.count == 3, letters.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) else { return fallback }
        return letters.reduce(UInt16(0)) { $0 << 5 | UInt16($1 - 0x60) }
    }

    // MARK: Values

    /// An item's value as text: a string, a number's decimal form, a date in ISO 8601.
    static func text(_ item: AVMetadataItem) -> String? {
        switch item.value {
        case let string as NSString: return string as String
        case let date as NSDate: return MetadataValueCoercion.iso8601String(date as Date)
        case let number as NSNumber: return number.stringValue
        case let data as NSData:
            let kind = item.dataType
            if kind == (kCMMetadataBaseDataType_UTF8 as String) { return String(decoding: data as Data, as: UTF8.self) }
            if kind == (kCMMetadataBaseDataType_UTF16 as String) { return MetadataText.utf16([UInt8](data as Data)) }
            return nil
        default: return nil
        }
    }

    /// An item's value as a whole number (numbers, numeric strings, "true"/"false").
    static func integer(_ item: AVMetadataItem) -> Int64? {
        if let number = item.value as? NSNumber { return wholeNumber(number) }
        if let string = item.value as? NSString {
            switch (string as String).trimmingCharacters(in: .whitespaces).lowercased() {
            case "true", "yes": return 1
            case "false", "no": return 0
            default: break
            }
        }
        return item.numberValue.flatMap(wholeNumber)
    }

    /// A number that has no fraction, as an integer.
    static func wholeNumber(_ number: NSNumber) -> Int64? {
        let double = number.doubleValue
        guard double.isFinite, double == double.rounded(), abs(double) < 9.2e18 else { return nil }
        return number.int64Value
    }

    /// A track or disc number: 8 or 6 raw bytes (Apple's value), "N", "N/M" or "N of M", or a number.
    static func pair(_ item: AVMetadataItem) -> (UInt16, UInt16)? {
        if let data = item.dataValue, data.count >= 6 {
            let b = [UInt8](data)
            return (UInt16(b[2]) << 8 | UInt16(b[3]), UInt16(b[4]) << 8 | UInt16(b[5]))
        }
        if let number = item.value as? NSNumber, let whole = wholeNumber(number), (0...Int64(UInt16.max)).contains(whole) {
            return (UInt16(whole), 0)
        }
        guard let text = item.value as? NSString else { return nil }
        let parts = (text as String).lowercased().replacingOccurrences(of: " of ", with: "/")
            .split(separator: "/", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (1...2).contains(parts.count), let number = UInt16(parts[0]) else { return nil }
        if parts.count == 2 {
            guard let total = UInt16(parts[1].isEmpty ? "0" : parts[1]) else { return nil }
            return (number, total)
        }
        return (number, 0)
    }

    /// Two's complement big-endian bytes of `width` (1, 2, 4 or 8).
    static func signed(_ value: Int64, width: Int) -> [UInt8] {
        let bits = UInt64(bitPattern: value)
        return (0..<width).map { UInt8((bits >> (8 * UInt64(width - 1 - $0))) & 0xFF) }
    }

    /// The fewest of 1, 2, 4, 8 bytes that hold a signed value.
    static func minimalWidth(_ value: Int64) -> Int {
        if Int64(Int8.min)...Int64(Int8.max) ~= value { return 1 }
        if Int64(Int16.min)...Int64(Int16.max) ~= value { return 2 }
        if Int64(Int32.min)...Int64(Int32.max) ~= value { return 4 }
        return 8
    }

    /// The well-known type of image bytes: from the item's data type, else the bytes' signature.
    static func imageType(_ data: Data, dataType: String?) -> UInt32? {
        switch dataType.map({ NSString(string: $0) }) {
        case kCMMetadataBaseDataType_JPEG?: return jpegType
        case kCMMetadataBaseDataType_PNG?: return pngType
        case kCMMetadataBaseDataType_BMP?: return bmpType
        case kCMMetadataBaseDataType_GIF?: return gifType
        default: break
        }
        let head = [UInt8](data.prefix(8))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return jpegType }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return pngType }
        if head.starts(with: Array("GIF8".utf8)) { return gifType }
        if head.starts(with: Array("BM".utf8)) { return bmpType }
        return nil
    }

    /// The well-known type of a data value: an image type, UTF-8 text, else implicit (0).
    static func binaryType(_ data: Data, dataType: String?) -> UInt32 {
        if dataType == (kCMMetadataBaseDataType_UTF8 as String) { return utf8Type }
        return imageType(data, dataType: dataType) ?? implicitType
    }
}
