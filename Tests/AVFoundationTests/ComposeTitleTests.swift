// `avtool compose` titles and watermark (book §12.4, A15) end to end: a 10 s timeline of two
// red 640×360 clips with three titles — the book's fade over an image and text, an image that
// spins about y, an image that pops — and a white image watermark, exported by the tool and
// judged by ffmpeg's own decode (pixel values and the image's ink extent along its row); one
// frame written with `--frame` and read back with ImageIO; `--dump`; a missing image, an empty
// text and an unknown font.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct ComposeTitleTests {
    static let width = 640, height = 360
    /// The title image: 100×60 white. The watermark: 40×40 white.
    static let imageWidth = 100

    /// The clips of ComposeToolTests plus the two images.
    static let media: URL? = {
        guard let dir = ComposeToolTests.media else { return nil }
        for (name, size) in [("title.png", "100x60"), ("mark.png", "40x40")] {
            let r = try? TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "color=c=white:s=\(size)",
                                                  "-frames:v", "1", dir.appendingPathComponent(name).path])
            guard r?.status == 0 else { return nil }
        }
        return dir
    }()

    /// Title 1 (fade, image + text) over [0.6, 2.1); title 2 (spin only, no fade) over [2.5, 6.5):
    /// the spin runs 2.7–4.3 s; title 3 (pop only, no fade) over [6.8, 8.8): the pop runs
    /// 7.3–8.0 s, at 1.3× at 7.65 s. The watermark in the bottom-right corner at opacity 0.8.
    static let titles = """
      "titles": [
        {"text": "Hello titles", "image": "title.png", "start": 0.6, "duration": 1.5},
        {"text": "", "image": "title.png", "start": 2.5, "duration": 4, "fade": false, "spin": true},
        {"text": "", "image": "title.png", "start": 6.8, "duration": 2, "fade": false, "pop": true}
      ],
      "watermark": {"image": "mark.png"}
    """

    static func timeline(_ name: String, in dir: URL, extra: String) throws -> URL {
        let url = dir.appendingPathComponent("titles-\(name).json")
        try Data("""
        {
          "videos": [ {"file": "red.mp4"}, {"file": "red.mp4"} ],
          "renderSize": [640, 360], "frameRate": 30,
          \(extra)
        }
        """.utf8).write(to: url)
        return url
    }

    /// The RGB rows of the frame at `seconds`, decoded by ffmpeg.
    static func frame(_ movie: URL, at seconds: Double) throws -> Data {
        let (status, data) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-ss", String(seconds), "-i", movie.path,
                                                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return status == 0 && data.count >= width * height * 3 ? data : Data()
    }

    static func rgb(_ frame: Data, x: Int, y: Int) -> (Int, Int, Int) {
        guard frame.count >= width * height * 3 else { return (-1, -1, -1) }
        let i = (y * width + x) * 3
        return (Int(frame[i]), Int(frame[i + 1]), Int(frame[i + 2]))
    }

    /// The title image's ink along row `y`: from the first to the last pixel whose green channel
    /// (0 in the red video, 255 in the white image) is over half.
    static func inkWidth(_ frame: Data, y: Int) -> Int {
        let lit = (0..<width).filter { rgb(frame, x: $0, y: y).1 > 128 }
        guard let first = lit.first, let last = lit.last else { return 0 }
        return last - first + 1
    }

    /// Core Animation's ease-in-ease-out (the cubic Bézier (0.42, 0, 0.58, 1)) at `x`.
    static func easeInOut(_ x: Double) -> Double {
        func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
            3 * (1 - s) * (1 - s) * s * p1 + 3 * (1 - s) * s * s * p2 + s * s * s
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<60 {
            let mid = (lo + hi) / 2
            if bezier(mid, 0.42, 0.58) < x { lo = mid } else { hi = mid }
        }
        return bezier((lo + hi) / 2, 0, 1)
    }

    @Test func titlesFadeSpinAndPopAndTheWatermarkIsInEveryFrame() throws {
        guard let dir = Self.media, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        let out = dir.appendingPathComponent("titles.mp4")
        let run = try ComposeToolTests.compose(avtool, [try Self.timeline("all", in: dir, extra: Self.titles).path, "-o", out.path,
                                                        "-p", "Preset640x480", "--dump", "--replace", "--quiet"])
        #expect(run.finished && run.status == 0, "\(run.output)\(run.errors)")
        for line in ["titles: 3", "title 1 [0.600, 2.100)", "fade: opacity [0, 1, 1, 0] at [0, 0.2, 0.8, 1], begins 0.600 s, lasts 1.500 s",
                     "spin: rotation.y to −4π, begins 2.700 s, lasts 1.600 s", "pop: scale to 1.3, begins 7.300 s, lasts 0.350 s, autoreverses",
                     "watermark: bottom-right, opacity 0.80, [576, 296, 40×40] from the top left, image mark.png 40×40"] {
            #expect(run.output.contains(line), "the dump shows \(line)\n\(run.output)")
        }
        #expect(Double(try TestTools.probe(out, "format=duration").value).map { abs($0 - 10) < 0.1 } ?? false)

        // Title 1's image (100×60 at (310, 135) from the top: the book's (midX − 20, 270) at half
        // size) fades [0, 1, 1, 0] at [0, 0.2, 0.8, 1] of [0.6, 2.1): 0.5 at 0.6 + 0.5 × 0.2 × 1.5.
        for (t, want) in [(0.1, 0.0), (0.75, 0.5), (1.35, 1.0), (2.3, 0.0)] {
            let seen = Double(Self.rgb(try Self.frame(out, at: t), x: 310, y: 135).1) / 255
            #expect(abs(seen - want) <= 0.08, "title 1's opacity \(seen) at \(t) s, expected \(want)")
        }
        // Outside the titles the video is untouched.
        #expect(ComposeToolTests.close(Self.rgb(try Self.frame(out, at: 1.35), x: 60, y: 60), (255, 0, 0)))

        // The watermark (white at 0.8 over red: (255, 204, 204)) at (576…616, 296…336) in the
        // first, a middle and the last frame.
        for t in [0.0, 5.0, 9.9] {
            let mark = Self.rgb(try Self.frame(out, at: t), x: 596, y: 316)
            #expect(ComposeToolTests.close(mark, (255, 204, 204), 14), "the watermark at \(t) s: \(mark)")
            let beside = Self.rgb(try Self.frame(out, at: t), x: 560, y: 316)
            #expect(ComposeToolTests.close(beside, (255, 0, 0)), "beside the watermark at \(t) s: \(beside)")
        }

        // Title 2 spins about y over [2.7, 4.3): θ = −4π·easeInOut((t − 2.7) / 1.6); the image's
        // width along its middle row is about |cos θ| of its own (perspective aside).
        let unrotated = Self.inkWidth(try Self.frame(out, at: 2.6), y: 135)
        #expect(abs(unrotated - Self.imageWidth) <= 3, "the unrotated image is \(unrotated) px wide")
        let frames = (0..<48).map { 2.7 + Double($0) / 30 }
        let edgeOn = frames.min { a, b in
            abs(cos(4 * .pi * Self.easeInOut((a - 2.7) / 1.6))) < abs(cos(4 * .pi * Self.easeInOut((b - 2.7) / 1.6)))
        }!
        let narrow = Self.inkWidth(try Self.frame(out, at: edgeOn), y: 135)
        let cosine = abs(cos(4 * .pi * Self.easeInOut((edgeOn - 2.7) / 1.6)))
        #expect(narrow <= Int(Double(unrotated) * (cosine + 0.15)), "at \(edgeOn) s (|cos θ| \(cosine)) the image is \(narrow) px wide")
        #expect(Double(narrow) < 0.35 * Double(unrotated))
        let quarter = 2.7 + 0.3 * 1.6  // a partly turned image lies between
        let q = abs(cos(4 * .pi * Self.easeInOut(0.3)))
        let partWidth = Double(Self.inkWidth(try Self.frame(out, at: quarter), y: 135))
        #expect(abs(partWidth / Double(unrotated) - q) <= 0.15, "at \(quarter) s the width is \(partWidth) (|cos θ| \(q))")
        // After the spin (two whole turns) it is back to its width.
        #expect(abs(Self.inkWidth(try Self.frame(out, at: 5.0), y: 135) - unrotated) <= 3)

        // Title 3 pops: scale to 1.3 over [7.3, 7.65), back by 8.0 (autoreverses).
        let before = Self.inkWidth(try Self.frame(out, at: 7.0), y: 135)
        let peak = Self.inkWidth(try Self.frame(out, at: 7.6667), y: 135)
        let after = Self.inkWidth(try Self.frame(out, at: 8.3), y: 135)
        #expect(abs(before - unrotated) <= 3 && abs(after - unrotated) <= 3, "before \(before), after \(after)")
        #expect(abs(Double(peak) / Double(unrotated) - 1.3) <= 0.05, "at the pop's peak the image is \(peak) px wide (\(unrotated) unscaled)")
        // Gone after its end.
        #expect(Self.inkWidth(try Self.frame(out, at: 9.5), y: 135) == 0)
    }

    @Test func frameWritesOneRenderedFrameAsAPNG() throws {
        guard let dir = Self.media, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        let png = dir.appendingPathComponent("title-frame.png")
        try? FileManager.default.removeItem(at: png)
        let run = try ComposeToolTests.compose(avtool, [try Self.timeline("frame", in: dir, extra: Self.titles).path, "--frame", "1.35",
                                                        "-o", png.path, "--quiet"])
        #expect(run.finished && run.status == 0, "\(run.output)\(run.errors)")
        let source = try #require(CGImageSourceCreateWithURL(png as CFURL, nil))
        #expect(CGImageSourceGetType(source).map { $0 as String } == UTType.png.identifier)
        let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        #expect(image.width == Self.width && image.height == Self.height)
        let rgba = Self.pixels(image)
        func at(_ x: Int, _ y: Int) -> (Int, Int, Int) { let i = (y * Self.width + x) * 4; return (Int(rgba[i]), Int(rgba[i + 1]), Int(rgba[i + 2])) }
        #expect(ComposeToolTests.close(at(310, 135), (255, 255, 255), 8), "the title's image at full opacity: \(at(310, 135))")
        #expect(ComposeToolTests.close(at(60, 60), (255, 0, 0), 8))
        #expect(ComposeToolTests.close(at(596, 316), (255, 204, 204), 8), "the watermark: \(at(596, 316))")
        // Outside the timeline: an error, nothing written.
        let late = dir.appendingPathComponent("late.png")
        let bad = try ComposeToolTests.compose(avtool, [try Self.timeline("frame", in: dir, extra: Self.titles).path, "--frame", "12",
                                                        "-o", late.path, "--quiet"])
        #expect(bad.status == 1 && bad.errors.contains("outside the timeline"), "\(bad.errors)")
        #expect(!FileManager.default.fileExists(atPath: late.path))
    }

    /// A PNG read back with ImageIO.
    static func read(_ url: URL) throws -> CGImage {
        let source = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        return try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
    }

    /// RGBA bytes of an image, drawn into a bitmap context.
    static func pixels(_ image: CGImage) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: image.width * image.height * 4)
        bytes.withUnsafeMutableBytes { raw in
            let context = CGContext(data: raw.baseAddress, width: image.width, height: image.height, bitsPerComponent: 8,
                                    bytesPerRow: image.width * 4, space: CGColorSpaceCreateDeviceRGB(),
                                    bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
            context?.draw(image, in: CGRect(x: 0, y: 0, width: image.width, height: image.height))
        }
        return bytes
    }

    @Test func aMissingImageIsAnErrorNamingTheFile() throws {
        guard let dir = Self.media, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        for (name, extra, reason) in [
            ("noimage", #""titles": [ {"text": "x", "image": "nowhere/logo.png", "start": 1, "duration": 2} ]"#, "nowhere/logo.png: no such file"),
            ("nomark", #""watermark": {"image": "gone.png"}"#, "gone.png: no such file"),
            ("notimage", #""titles": [ {"text": "x", "image": "red.mp4", "start": 1, "duration": 2} ]"#, "not a PNG or JPEG"),
            ("badcolour", #""titles": [ {"text": "x", "color": "red", "start": 1, "duration": 2} ]"#, "#RRGGBB"),
            ("late", #""titles": [ {"text": "x", "start": 11, "duration": 2} ]"#, "after the end of the video"),
            ("corner", #""watermark": {"text": "x", "position": "middle"}"#, "top-left, top-right"),
        ] {
            let out = dir.appendingPathComponent("titles-\(name).mp4")
            let run = try ComposeToolTests.compose(avtool, [try Self.timeline(name, in: dir, extra: extra).path, "-o", out.path, "--quiet"])
            #expect(run.finished && run.exited && run.status == 1, "\(name) exits 1: \(run.errors)")
            #expect(run.errors.contains(reason), "\(name) says why: \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test func anEmptyTextDrawsNothingAndAnUnknownFontFallsBack() throws {
        guard let dir = Self.media, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        // An empty title: the frame is the plain video.
        let empty = dir.appendingPathComponent("empty-title.png")
        var run = try ComposeToolTests.compose(avtool, [try Self.timeline("empty", in: dir, extra: #""titles": [ {"text": "", "start": 0, "duration": 3} ]"#).path,
                                                        "--frame", "1.5", "-o", empty.path, "--replace", "--quiet"])
        #expect(run.finished && run.status == 0, "\(run.output)\(run.errors)")
        let plain = Self.pixels(try Self.read(empty))
        let notRed = stride(from: 0, to: plain.count, by: 4).filter { plain[$0] < 200 || plain[$0 + 1] > 40 || plain[$0 + 2] > 40 }.count
        #expect(notRed == 0, "\(notRed) pixels differ from the red video")

        // Text in a font the machine does not have still draws (a fallback face): white ink in
        // the text's row band (235 ± 30 from the top at half size) and a title starting at 0.
        let text = dir.appendingPathComponent("font-title.png")
        run = try ComposeToolTests.compose(avtool, [try Self.timeline("font", in: dir, extra:
            #""titles": [ {"text": "Fallback font", "font": "NoSuchFont-Bold", "start": 0, "duration": 3, "fade": false} ]"#).path,
                                                    "--frame", "0", "-o", text.path, "--replace", "--quiet"])
        #expect(run.finished && run.status == 0, "\(run.output)\(run.errors)")
        let drawn = Self.pixels(try Self.read(text))
        var ink = 0
        for y in 205..<265 { for x in 0..<Self.width where drawn[(y * Self.width + x) * 4 + 1] > 128 { ink += 1 } }
        #expect(ink > 300, "the text's ink: \(ink) px")
    }
}
