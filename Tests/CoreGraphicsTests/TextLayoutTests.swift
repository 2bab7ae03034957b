@testable import CoreGraphics
import Foundation
import Testing

/// Whether pango-view (pango1.0-tools, installed by scripts/setup.sh) is on this machine.
let hasPangoView = FileManager.default.isExecutableFile(atPath: "/usr/bin/pango-view")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")

@Suite struct TextLayoutTests {
    /// Inked pixels (alpha ≥ 128) with their device coordinates.
    func ink(_ c: CGContext) -> [(x: Int, y: Int)] {
        var points: [(x: Int, y: Int)] = []
        for y in 0..<c.height { for x in 0..<c.width where pixel(c, x, y)[3] >= 128 { points.append((x, y)) } }
        return points
    }

    @Test(arguments: [("Hello, world", "Helvetica"), ("日本語のタイトル", "HelveticaNeue-Light"),
                      ("مرحبا بالعالم", "Arial-BoldMT")])
    func scriptsShapeWithoutMissingGlyphs(text: String, font: String) {
        let layout = TextLayout(runs: [.init(text: text, fontName: font, fontSize: 32)])
        #expect(layout.unknownGlyphCount == 0)
        #expect(layout.lineCount == 1)
        #expect(layout.size.width > 60 && layout.size.height > 30 && layout.size.height < 60)
        #expect(layout.baseline > 20 && layout.baseline < layout.size.height)
        let c = context(400, 100)
        layout.draw(in: c, in: CGRect(x: 0, y: 0, width: 400, height: 100))
        let points = ink(c)
        #expect(points.count > 100)
        // Every inked pixel inside the layout's box at the top of the rect (y up: 100 − height…100).
        let top = 100 - Int(layout.size.height.rounded(.up))
        #expect(points.allSatisfy { $0.y >= top - 1 })
        let xs = points.map(\.x)
        #expect(xs.max()! - xs.min()! <= Int(layout.size.width) + 1)
        // The default colour is opaque white.
        #expect(points.contains { pixel(c, $0.x, $0.y) == [255, 255, 255, 255] })
    }

    @Test func rightToLeftTextGoesRightUnderNaturalAlignment() {
        let arabic = TextLayout(runs: [.init(text: "مرحبا بالعالم", fontSize: 20)])
        let latin = TextLayout(runs: [.init(text: "Hello world", fontSize: 20)])
        let a = context(400, 40), l = context(400, 40)
        arabic.draw(in: a, in: CGRect(x: 0, y: 0, width: 400, height: 40))
        latin.draw(in: l, in: CGRect(x: 0, y: 0, width: 400, height: 40))
        let arabicXs = ink(a).map(\.x), latinXs = ink(l).map(\.x)
        #expect(arabicXs.min()! > 250 && arabicXs.max()! > 390)
        #expect(latinXs.max()! < 150)
        // Explicit right alignment moves Latin text right too.
        let right = TextLayout(runs: [.init(text: "Hello world", fontSize: 20)], alignment: .right)
        let r = context(400, 40)
        right.draw(in: r, in: CGRect(x: 0, y: 0, width: 400, height: 40))
        #expect(ink(r).map(\.x).min()! > 250)
    }

    @Test func wrappingAddsLines() {
        let text = "The quick brown fox jumps over the lazy dog"
        let one = TextLayout(runs: [.init(text: text, fontSize: 16)])
        let wrapped = TextLayout(runs: [.init(text: text, fontSize: 16)], maxWidth: 100, wraps: true)
        #expect(one.lineCount == 1)
        #expect(wrapped.lineCount > 2)
        #expect(wrapped.size.width <= 100)
        #expect(wrapped.size.height > one.size.height * 2)
    }

    @Test func endTruncationShortensToTheWidth() {
        let text = "The quick brown fox jumps over the lazy dog"
        let full = TextLayout(runs: [.init(text: text, fontSize: 16)])
        let cut = TextLayout(runs: [.init(text: text, fontSize: 16)], maxWidth: 100, truncation: .end)
        #expect(full.size.width > 200)
        #expect(cut.size.width <= 100 && cut.size.width > 50)
        #expect(cut.lineCount == 1 && cut.isTruncated)
    }

    @Test func emptyTextHasNoSize() {
        let layout = TextLayout(runs: [.init(text: "", fontSize: 20)])
        #expect(layout.size == .zero && layout.lineCount == 0 && layout.baseline == 0)
        let none = TextLayout(runs: [])
        #expect(none.size == .zero)
        let c = context(10, 10)
        layout.draw(in: c, in: CGRect(x: 0, y: 0, width: 10, height: 10))
        #expect(ink(c).isEmpty)
        // Hostile sizes neither crash nor hang.
        let odd = TextLayout(runs: [.init(text: "x", fontName: "", fontSize: .nan), .init(text: "y", fontSize: -5)],
                             maxWidth: .infinity, wraps: true)
        #expect(odd.lineCount == 1)
    }

    @Test func colouredRunsAndUnknownFontNames() {
        let layout = TextLayout(runs: [
            .init(text: "AAA", fontName: "NoSuchFont-Bold", fontSize: 30, color: CGColor(red: 1, green: 0, blue: 0, alpha: 1)),
            .init(text: "BBB", fontName: "Avenir-Heavy", fontSize: 30, color: CGColor(red: 0, green: 0, blue: 1, alpha: 1)),
        ])
        #expect(layout.unknownGlyphCount == 0)
        let c = context(200, 40)
        layout.draw(in: c, in: CGRect(x: 0, y: 0, width: 200, height: 40))
        let points = ink(c)
        #expect(points.contains { pixel(c, $0.x, $0.y) == [255, 0, 0, 255] })
        #expect(points.contains { pixel(c, $0.x, $0.y) == [0, 0, 255, 255] })
    }

    @Test func fontNamesMapToFaces() {
        #expect(FontSubstitution.face(for: "Helvetica-Bold") == FontFace(family: "Liberation Sans", weight: 700, italic: false))
        #expect(FontSubstitution.face(for: "Arial-BoldMT") == FontFace(family: "Liberation Sans", weight: 700, italic: false))
        #expect(FontSubstitution.face(for: "HelveticaNeue-Light").weight == 300)
        #expect(FontSubstitution.face(for: "AvenirNext-DemiBold") == FontFace(family: "Noto Sans", weight: 600, italic: false))
        #expect(FontSubstitution.face(for: "TimesNewRomanPSMT") == FontFace(family: "Liberation Serif", weight: 400, italic: false))
        #expect(FontSubstitution.face(for: "Menlo-Regular").family == "DejaVu Sans Mono")
        #expect(FontSubstitution.face(for: "Courier").family == "Liberation Mono")
        #expect(FontSubstitution.face(for: ".SFUI-Regular").family == "Noto Sans")
        #expect(FontSubstitution.face(for: "Helvetica-BoldOblique") == FontFace(family: "Liberation Sans", weight: 700, italic: true))
        #expect(FontSubstitution.face(for: "Georgia-Italic").italic)
        #expect(FontSubstitution.face(for: "Futura-Medium").weight == 500)
        #expect(FontSubstitution.face(for: "GillSans-Bold").weight == 700)
        #expect(FontSubstitution.face(for: "Avenir-Black").weight == 900)
        #expect(FontSubstitution.face(for: "System").family == "Noto Sans")
    }

    @Test(.enabled(if: hasPangoView)) func coverageMatchesPangoView() throws {
        // The same text, font and size through pango-view: inked pixel counts agree within 5 %.
        let text = "Quartz text 123"
        let layout = TextLayout(runs: [.init(text: text, fontName: "Helvetica", fontSize: 40)])
        let w = Int(layout.size.width.rounded(.up)), h = Int(layout.size.height.rounded(.up))
        let c = context(w, h)
        layout.draw(in: c, in: CGRect(x: 0, y: 0, width: w, height: h))
        let ours = inked(c)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cg-pango-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("ref.png").path, raw = dir.appendingPathComponent("ref.raw").path
        func run(_ args: [String]) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: args[0])
            p.arguments = Array(args.dropFirst())
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
        }
        try run(["/usr/bin/pango-view", "-q", "--pixels", "--font=Liberation Sans 40px", "--hinting=none",
                 "--hint-metrics=off", "--antialias=gray", "--margin=0", "--background=transparent",
                 "--foreground=#ffffff", "--text=\(text)", "-o", png])
        try run(["/usr/bin/ffmpeg", "-y", "-loglevel", "error", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgba", raw])
        let reference = try Data(contentsOf: URL(fileURLWithPath: raw))
        var theirs = 0
        for i in stride(from: 3, to: reference.count, by: 4) where reference[i] >= 128 { theirs += 1 }
        #expect(theirs > 500)
        #expect(abs(ours - theirs) * 100 <= theirs * 5, "ours \(ours), pango-view \(theirs)")
    }
}
