// SpeechText: the text an utterance hands the speech engine, and the map from the engine's word
// positions back to character ranges of the utterance's speechString.
import Foundation

/// What an utterance gives the engine, and how the engine's positions map back.
struct SpeechText: Sendable {
    /// The text the engine reads (SSML kept as SSML).
    let engineText: String
    let isSSML: Bool
    /// The text as `AVSpeechUtterance.speechString` shows it (SSML: the character data).
    let speechString: String
    /// For each Unicode scalar of `engineText`, and one past the end: the index of the Unicode
    /// scalar of `speechString` it stands for (markup maps to where the next character goes).
    private let offsets: [Int]
    /// For each Unicode scalar of `speechString`, and one past the end: its UTF-16 offset.
    private let utf16Offsets: [Int]

    /// Plain text: read as it is.
    init(plain text: String) {
        engineText = text
        isSSML = false
        speechString = text
        offsets = Array(0...text.unicodeScalars.count)
        utf16Offsets = Self.utf16Offsets(text.unicodeScalars)
    }

    /// SSML: nil unless `ssml` is a well-formed document whose root element is `speak`.
    init?(ssml: String) {
        let scalars = Array(ssml.unicodeScalars)
        var plain = String.UnicodeScalarView()
        var offsets: [Int] = []
        offsets.reserveCapacity(scalars.count + 1)
        var plainCount = 0  // scalars of plain text so far
        var open: [String] = []
        var sawRoot = false
        var i = 0
        func isSpace(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\n" || s == "\t" || s == "\r" }
        while i < scalars.count {
            let c = scalars[i]
            if c == "<" {
                // Markup up to the closing '>' (comments and declarations included).
                let start = i
                let isComment = i + 3 < scalars.count && scalars[i + 1] == "!" && scalars[i + 2] == "-" && scalars[i + 3] == "-"
                var end = i + 1
                if isComment {
                    while end + 2 < scalars.count && !(scalars[end] == "-" && scalars[end + 1] == "-" && scalars[end + 2] == ">") { end += 1 }
                    guard end + 2 < scalars.count else { return nil }
                    end += 2
                } else {
                    var quote: Unicode.Scalar?
                    while end < scalars.count {
                        let s = scalars[end]
                        if let q = quote { if s == q { quote = nil } } else if s == "\"" || s == "'" { quote = s } else if s == ">" { break }
                        end += 1
                    }
                    guard end < scalars.count else { return nil }
                }
                let inner = String(String.UnicodeScalarView(scalars[(start + 1)..<end]))
                if !isComment, !inner.hasPrefix("?"), !inner.hasPrefix("!") {
                    let closing = inner.hasPrefix("/")
                    let selfClosing = inner.hasSuffix("/")
                    let body = inner.dropFirst(closing ? 1 : 0).dropLast(selfClosing ? 1 : 0)
                    let name = String(body.prefix { !isSpace($0.unicodeScalars.first!) && $0 != "/" })
                    guard !name.isEmpty else { return nil }
                    if closing {
                        guard open.last == name else { return nil }
                        open.removeLast()
                    } else {
                        if open.isEmpty {
                            guard !sawRoot, name == "speak" else { return nil }
                            sawRoot = true
                        }
                        if !selfClosing { open.append(name) }
                    }
                }
                for _ in start...end { offsets.append(plainCount) }
                i = end + 1
                continue
            }
            guard !open.isEmpty else {
                // Only white space may stand outside the root element.
                guard isSpace(c) else { return nil }
                offsets.append(plainCount)
                i += 1
                continue
            }
            if c == "&" {
                var end = i + 1
                while end < scalars.count, end - i <= 10, scalars[end] != ";" { end += 1 }
                guard end < scalars.count, scalars[end] == ";" else { return nil }
                let name = String(String.UnicodeScalarView(scalars[(i + 1)..<end]))
                guard let decoded = Self.entity(name) else { return nil }
                for _ in i...end { offsets.append(plainCount) }
                plain.append(decoded)
                plainCount += 1
                i = end + 1
                continue
            }
            offsets.append(plainCount)
            plain.append(c)
            plainCount += 1
            i += 1
        }
        guard sawRoot, open.isEmpty else { return nil }
        offsets.append(plainCount)
        engineText = ssml
        isSSML = true
        speechString = String(plain)
        self.offsets = offsets
        utf16Offsets = Self.utf16Offsets(plain)
    }

    private static func utf16Offsets(_ scalars: String.UnicodeScalarView) -> [Int] {
        var offsets: [Int] = []
        offsets.reserveCapacity(scalars.count + 1)
        var utf16 = 0
        for scalar in scalars {
            offsets.append(utf16)
            utf16 += scalar.utf16.count
        }
        offsets.append(utf16)
        return offsets
    }

    private static func entity(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init)
        }
    }

    /// The range of `speechString` (UTF-16) the engine's word covers; nil when it covers nothing.
    func range(of word: SpeechWord) -> NSRange? {
        // The position counts scalars of the engine's text, the length scalars of the words read.
        guard word.textPosition >= 0, word.textPosition < offsets.count - 1 else { return nil }
        let first = offsets[word.textPosition]
        let last = min(first + max(word.length, 1), utf16Offsets.count - 1)
        let start = utf16Offsets[first], end = utf16Offsets[last]
        guard end > start else { return nil }
        return NSRange(location: start, length: end - start)
    }
}
