// How keys travel: four-character codes as NSNumber, strings as NSString, and both as the
// percent-encoded second half of an identifier ("itsk/%A9nam", "id3/%00TT2").
import Foundation
internal import MediaEngine

enum MetadataKeyCoding {
    /// The key spaces whose keys are four-character codes (NSNumber keys).
    static func usesFourCharCodes(_ keySpace: AVMetadataKeySpace) -> Bool {
        keySpace == .iTunes || keySpace == .quickTimeUserData || keySpace == .isoUserData || keySpace == .id3
    }

    /// The identifier prefix of a key space (Apple shortens two of them).
    static func identifierPrefix(for keySpace: AVMetadataKeySpace) -> String {
        switch keySpace {
        case .common: return "common"
        case .id3: return "id3"
        default: return keySpace.rawValue
        }
    }

    /// The key space an identifier prefix stands for.
    static func keySpace(forIdentifierPrefix prefix: String) -> AVMetadataKeySpace {
        switch prefix {
        case "common": return .common
        case "id3": return .id3
        default: return AVMetadataKeySpace(prefix)
        }
    }

    /// The NSNumber key of a four-character code, stored as Apple does: the code's bits as a
    /// signed 32-bit integer (so `©nam` reads back as -1452383891).
    static func numberKey(_ code: UInt32) -> NSNumber { NSNumber(value: Int32(bitPattern: code)) }

    /// The four-character code of a key string of up to four Latin-1 characters ("©nam",
    /// "TT2" → 0x00545432), or nil.
    static func fourCharCode(_ string: String) -> UInt32? { FourCC.code(exactly: string) }

    /// The four bytes of a code, big-endian.
    static func bytes(_ code: UInt32) -> [UInt8] { BoxBytes.be32(code) }

    /// A code as text: its bytes as Latin-1, leading zero bytes dropped ("©nam", "TT2").
    static func string(_ code: UInt32) -> String {
        var bytes = bytes(code)
        while bytes.first == 0 && bytes.count > 1 { bytes.removeFirst() }
        return MetadataText.latin1(bytes)
    }

    /// The code of an NSNumber key, reading its bits as 32-bit.
    static func code(ofNumber number: NSNumber) -> UInt32 { UInt32(truncatingIfNeeded: number.int64Value) }

    /// Percent-encodes bytes for the key half of an identifier.
    static func percentEncode(_ bytes: [UInt8]) -> String {
        var out = ""
        for byte in bytes {
            if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "%") && byte != UInt8(ascii: "/") {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Undoes `percentEncode`, returning the bytes (nil on a malformed escape).
    static func percentDecode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count,
                      let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
                else { return nil }
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// The identifier's key half for a key: a code's four bytes, or a string's UTF-8.
    static func encodedKey(_ key: Any, keySpace: AVMetadataKeySpace) -> String? {
        if let number = key as? NSNumber, !(key is NSString) {
            return percentEncode(bytes(code(ofNumber: number)))
        }
        let string: String
        if let text = key as? String { string = text } else if let text = key as? NSString { string = text as String }
        else if let metadataKey = key as? AVMetadataKey { string = metadataKey.rawValue } else { return nil }
        if usesFourCharCodes(keySpace), let code = fourCharCode(string) {
            return percentEncode(bytes(code))
        }
        return percentEncode(Array(string.utf8))
    }

    /// A readable form of a key: a code's characters, or the string itself.
    static func displayString(forKey key: Any) -> String {
        if let string = key as? NSString { return string as String }
        if let number = key as? NSNumber { return string(code(ofNumber: number)) }
        return String(describing: key)
    }

    /// Normalises a key for comparison: ("code", n) for codes and short Latin-1 strings in a
    /// code key space, ("string", s) otherwise.
    static func comparable(_ key: Any, keySpace: AVMetadataKeySpace?) -> String? {
        if let number = key as? NSNumber, !(key is NSString) { return "#\(code(ofNumber: number))" }
        let string: String
        if let text = key as? String { string = text } else if let text = key as? NSString { string = text as String }
        else if let metadataKey = key as? AVMetadataKey { string = metadataKey.rawValue } else { return nil }
        if let keySpace, usesFourCharCodes(keySpace), let code = fourCharCode(string) { return "#\(code)" }
        return "$" + string
    }
}
