// Language codes: ISO 639-2 (three letters, as ID3 COMM, ISO user data and mdhd pack them) and
// Macintosh language codes (QuickTime user data) to the BCP 47 tags AVMetadataItem reports.
import Foundation

enum ISO639 {
    /// The ISO 639-1 code for an ISO 639-2 (B or T) code, or nil when there is none in the table.
    static func twoLetter(_ code: String) -> String? {
        if code.count == 2 { return code }
        return table[code]
    }

    /// The BCP 47 tag for a three-letter code: its two-letter form where one exists, the code
    /// itself otherwise, nil for "und", blanks or garbage.
    static func tag(fromThreeLetter code: String) -> String? {
        let lower = code.lowercased()
        guard lower.count == 3, lower.allSatisfy({ $0 >= "a" && $0 <= "z" }), lower != "und" else { return nil }
        return table[lower] ?? lower
    }

    /// Decodes the 16-bit language field of mdhd, ISO user data and QuickTime user data: a
    /// Macintosh language code below 0x400, else three 5-bit letters (each + 0x60).
    static func tag(fromPacked value: UInt16) -> String? {
        if value < 0x400 { return macintosh[Int(value)] }
        if value == 0x7FFF { return nil }
        let letters = [(value >> 10) & 0x1F, (value >> 5) & 0x1F, value & 0x1F].map { UInt8($0) + 0x60 }
        return tag(fromThreeLetter: String(decoding: letters, as: UTF8.self))
    }

    private static let macintosh: [Int: String] = [
        0: "en", 1: "fr", 2: "de", 3: "it", 4: "nl", 5: "sv", 6: "es", 7: "da", 8: "pt", 9: "nb",
        10: "he", 11: "ja", 12: "ar", 13: "fi", 14: "el", 15: "is", 16: "mt", 17: "tr", 18: "hr",
        19: "zh-Hant", 20: "ur", 21: "hi", 22: "th", 23: "ko", 24: "lt", 25: "pl", 26: "hu", 27: "et",
        28: "lv", 29: "se", 30: "fo", 31: "fa", 32: "ru", 33: "zh-Hans", 34: "nl-BE", 35: "ga",
        36: "sq", 37: "ro", 38: "cs", 39: "sk", 40: "sl", 41: "yi", 42: "sr", 43: "mk", 44: "bg",
        45: "uk", 46: "be", 47: "uz", 48: "kk",
    ]

    private static let table: [String: String] = [
        "eng": "en", "fre": "fr", "fra": "fr", "ger": "de", "deu": "de", "ita": "it", "spa": "es",
        "por": "pt", "dut": "nl", "nld": "nl", "swe": "sv", "dan": "da", "nor": "no", "nob": "nb",
        "nno": "nn", "fin": "fi", "ice": "is", "isl": "is", "gre": "el", "ell": "el", "tur": "tr",
        "rus": "ru", "ukr": "uk", "bel": "be", "pol": "pl", "cze": "cs", "ces": "cs", "slo": "sk",
        "slk": "sk", "slv": "sl", "hrv": "hr", "srp": "sr", "bos": "bs", "mac": "mk", "mkd": "mk",
        "bul": "bg", "rum": "ro", "ron": "ro", "hun": "hu", "est": "et", "lav": "lv", "lit": "lt",
        "alb": "sq", "sqi": "sq", "ara": "ar", "heb": "he", "per": "fa", "fas": "fa", "urd": "ur",
        "hin": "hi", "ben": "bn", "tam": "ta", "tel": "te", "tha": "th", "vie": "vi", "ind": "id",
        "may": "ms", "msa": "ms", "chi": "zh", "zho": "zh", "jpn": "ja", "kor": "ko", "gle": "ga",
        "wel": "cy", "cym": "cy", "baq": "eu", "eus": "eu", "cat": "ca", "glg": "gl", "lat": "la",
        "epo": "eo", "afr": "af", "swa": "sw", "geo": "ka", "kat": "ka", "arm": "hy", "hye": "hy",
        "kaz": "kk", "uzb": "uz", "mlt": "mt", "yid": "yi", "fil": "fil", "tgl": "tl",
    ]
}
