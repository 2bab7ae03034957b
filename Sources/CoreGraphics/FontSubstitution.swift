// Apple font names onto the fonts this system has (fontconfig: DejaVu, Liberation, Noto, Noto
// CJK as setup installs them). A name is "Family-Style" (PostScript) or a family name; the
// family goes through the table below, the style suffix becomes a weight and slant. Unknown
// families go to fontconfig as they are (an installed font of that name is used; otherwise
// fontconfig's default sans). Scripts the chosen font lacks (Japanese, Arabic…) fall back per
// character through fontconfig (Noto Sans CJK, Noto Sans Arabic…).
//
// | Apple family                                             | here             |
// |----------------------------------------------------------|------------------|
// | Helvetica, Helvetica Neue, Arial, Arial MT               | Liberation Sans  |
// | System, .SFUI*, SF Pro*, Avenir, Avenir Next, Gill Sans,  | Noto Sans        |
// | Futura, Lucida Grande, Verdana, Trebuchet MS              |                  |
// | Times, Times New Roman, Georgia, Palatino, Baskerville    | Liberation Serif |
// | Courier, Courier New                                     | Liberation Mono  |
// | Menlo, Monaco, SF Mono                                   | DejaVu Sans Mono |
// | Hiragino*, PingFang*                                     | Noto Sans CJK JP / SC |
// | Geeza Pro, Damascus                                      | Noto Sans Arabic |
import Foundation

/// A resolved font: fontconfig family, CSS weight (100…900), italic or oblique slant.
struct FontFace: Equatable {
    var family: String
    var weight: Int
    var italic: Bool
}

enum FontSubstitution {
    private static let families: [(prefix: String, family: String)] = [
        ("helveticaneue", "Liberation Sans"), ("helvetica", "Liberation Sans"), ("arial", "Liberation Sans"),
        ("sfmono", "DejaVu Sans Mono"), ("sfui", "Noto Sans"), ("sfpro", "Noto Sans"), ("sfcompact", "Noto Sans"),
        ("system", "Noto Sans"), ("applesystem", "Noto Sans"), ("avenirnext", "Noto Sans"), ("avenir", "Noto Sans"),
        ("gillsans", "Noto Sans"), ("futura", "Noto Sans"), ("lucidagrande", "Noto Sans"), ("verdana", "Noto Sans"),
        ("trebuchet", "Noto Sans"), ("timesnewroman", "Liberation Serif"), ("times", "Liberation Serif"),
        ("georgia", "Liberation Serif"), ("palatino", "Liberation Serif"), ("baskerville", "Liberation Serif"),
        ("couriernew", "Liberation Mono"), ("courier", "Liberation Mono"), ("menlo", "DejaVu Sans Mono"),
        ("monaco", "DejaVu Sans Mono"), ("hiraginosans", "Noto Sans CJK JP"), ("hiraginokaku", "Noto Sans CJK JP"),
        ("hiragino", "Noto Sans CJK JP"), ("pingfang", "Noto Sans CJK SC"), ("geezapro", "Noto Sans Arabic"),
        ("damascus", "Noto Sans Arabic"),
    ]

    private static let weights: [(suffix: String, weight: Int)] = [
        ("ultralight", 200), ("extralight", 200), ("thin", 100), ("light", 300), ("book", 400), ("roman", 400),
        ("regular", 400), ("medium", 500), ("demibold", 600), ("semibold", 600), ("extrabold", 800),
        ("ultrabold", 800), ("bold", 700), ("heavy", 800), ("black", 900),
    ]

    /// The face for an Apple font name; never fails (empty or unknown names give a sans).
    static func face(for name: String) -> FontFace {
        var name = name.trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        guard !name.isEmpty else { return FontFace(family: "Noto Sans", weight: 400, italic: false) }
        var familyPart = name, stylePart = ""
        if let dash = name.lastIndex(of: "-") {
            familyPart = String(name[..<dash])
            stylePart = String(name[name.index(after: dash)...])
        }
        var key = familyPart.lowercased().filter { $0.isLetter || $0.isNumber }
        // Family names may carry the style ("Helvetica Bold", "ArialMT", "TimesNewRomanPSMT").
        for tail in ["psmt", "mt", "ps"] where key.hasSuffix(tail) && key.count > tail.count + 2 {
            key.removeLast(tail.count)
            break
        }
        var style = stylePart.lowercased().filter { $0.isLetter }
        for tail in ["psmt", "mt"] where style.hasSuffix(tail) { style.removeLast(tail.count); break }
        var italic = false
        for slant in ["italic", "oblique", "it"] where style.hasSuffix(slant) && (slant != "it" || style.count == 2) {
            italic = true
            style.removeLast(slant.count)
            break
        }
        var weight = 400
        for (suffix, w) in weights where style.hasSuffix(suffix) {
            weight = w
            break
        }
        if stylePart.isEmpty {
            // "Helvetica Bold" style words inside a family name.
            for (suffix, w) in weights where key.hasSuffix(suffix) && key.count > suffix.count {
                weight = w
                key.removeLast(suffix.count)
                break
            }
            for slant in ["italic", "oblique"] where key.hasSuffix(slant) {
                italic = true
                key.removeLast(slant.count)
            }
        }
        if let hit = families.first(where: { key.hasPrefix($0.prefix) }) {
            return FontFace(family: hit.family, weight: weight, italic: italic)
        }
        return FontFace(family: familyPart, weight: weight, italic: italic)
    }
}
