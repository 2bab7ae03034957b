// Text decoding shared by the box and ID3 readers: never fails, never traps.
import Foundation

enum MetadataText {
    /// UTF-8, invalid sequences replaced.
    static func utf8(_ bytes: some Collection<UInt8>) -> String { String(decoding: Array(bytes), as: UTF8.self) }

    /// ISO-8859-1: each byte is the code point.
    static func latin1(_ bytes: some Collection<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(UnicodeScalar(byte)) }
        return String(scalars)
    }

    /// UTF-16 with an optional BOM (default big-endian, or `littleEndianDefault`), an odd
    /// trailing byte dropped, unpaired surrogates replaced.
    static func utf16(_ input: some Collection<UInt8>, littleEndianDefault: Bool = false) -> String {
        var bytes = Array(input)
        var littleEndian = littleEndianDefault
        if bytes.count >= 2 {
            if bytes[0] == 0xFF && bytes[1] == 0xFE { littleEndian = true; bytes.removeFirst(2) }
            else if bytes[0] == 0xFE && bytes[1] == 0xFF { littleEndian = false; bytes.removeFirst(2) }
        }
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = 0
        while index + 1 < bytes.count {
            let pair = littleEndian ? UInt16(bytes[index + 1]) << 8 | UInt16(bytes[index])
                                    : UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            units.append(pair)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// Drops trailing NUL characters.
    static func trimmingNULs(_ string: String) -> String {
        var result = string
        while result.hasSuffix("\0") { result.removeLast() }
        return result
    }
}
