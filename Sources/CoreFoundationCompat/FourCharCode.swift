// Four-character codes: the media type, codec and pixel-format identifiers Apple's media APIs
// use everywhere ('vide', 'avc1', 'BGRA', '420v').

extension UInt32 {
    /// Builds a four-character code from its four ASCII characters, e.g. `FourCharCode(fourCC: "avc1")`.
    package init(fourCC string: StaticString) {
        precondition(string.utf8CodeUnitCount == 4, "a four-character code has four characters")
        var value: UInt32 = 0
        string.withUTF8Buffer { for byte in $0 { value = value << 8 | UInt32(byte) } }
        self = value
    }

    /// Builds a four-character code from a string of four ASCII characters; nil otherwise.
    package init?(fourCCString string: String) {
        let bytes = Array(string.utf8)
        guard bytes.count == 4 else { return nil }
        self = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The code as four characters (`'avc1'` → `"avc1"`); unprintable codes are shown in hex.
    package var fourCCString: String {
        let bytes = [UInt8(self >> 24 & 0xFF), UInt8(self >> 16 & 0xFF), UInt8(self >> 8 & 0xFF), UInt8(self & 0xFF)]
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return "0x" + String(self, radix: 16, uppercase: false)
    }
}
