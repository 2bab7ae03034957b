import Foundation
import ImageIO
import Testing
import UniformTypeIdentifiers

/// Files written through CGImageDestination, judged by the ffmpeg and ffprobe command-line tools.
@Suite("CGImageDestination, judged by ffmpeg")
final class ImageDestinationTests {
    let dir = makeTempDirectory()
    deinit { try? FileManager.default.removeItem(at: dir) }

    private func write(_ image: CGImage, _ name: String, type: String, properties: [String: Any]? = nil) throws -> URL {
        let url = dir.appendingPathComponent(name)
        let dest = try #require(CGImageDestinationCreateWithURL(url as CFURL, type as CFString, 1, nil))
        CGImageDestinationAddImage(dest, image, properties.map { NSDictionary(dictionary: $0) })
        #expect(CGImageDestinationFinalize(dest))
        return url
    }

    @Test func rgbaGradientPNGHasExactlyTheSamePixels() throws {
        let px = gradientRGBA(width: 61, height: 37)
        let image = try #require(makeImage(width: 61, height: 37, bitsPerPixel: 32, bitmapInfo: CGBitmapInfo(alpha: .last), bytes: px))
        let url = try write(image, "rgba.png", type: "public.png")
        let facts = ffprobe(url)
        #expect(facts["codec_name"] == "png" && facts["width"] == "61" && facts["height"] == "37")
        #expect(facts["pix_fmt"] == "rgba")
        #expect(ffmpegDecode(url) == px)
    }

    @Test func opaqueRGBPNGIsRGB24WithExactPixels() throws {
        let px = gradientRGB(width: 50, height: 20)
        let image = try #require(makeImage(width: 50, height: 20, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: px))
        let url = try write(image, "rgb.png", type: UTType.png.identifier)
        #expect(ffprobe(url)["pix_fmt"] == "rgb24")
        #expect(ffmpegDecode(url, pixFmt: "rgb24") == px)
    }

    @Test func greyPNGIsGray8WithExactPixels() throws {
        let px = (0 ..< 32 * 16).map { UInt8($0 % 256) }
        let image = try #require(makeImage(width: 32, height: 16, bitsPerPixel: 8, space: CGColorSpaceCreateDeviceGray(),
                                           bitmapInfo: CGBitmapInfo(alpha: .none), bytes: px))
        let url = try write(image, "grey.png", type: "public.png")
        #expect(ffprobe(url)["pix_fmt"] == "gray")
        #expect(ffmpegDecode(url, pixFmt: "gray") == px)
    }

    @Test func paddedRowsAndNoneSkipFirstWriteRGB() throws {
        // xRGB with 8 spare bytes per row.
        let w = 9, h = 7, bpr = w * 4 + 8
        var bytes = [UInt8](repeating: 0xEE, count: bpr * h)
        var expected: [UInt8] = []
        for y in 0 ..< h {
            for x in 0 ..< w {
                let (r, g, b) = (UInt8(x * 20), UInt8(y * 30), UInt8(x + y))
                bytes.replaceSubrange(y * bpr + x * 4 ..< y * bpr + x * 4 + 4, with: [0x12, r, g, b])
                expected += [r, g, b]
            }
        }
        let image = try #require(makeImage(width: w, height: h, bitsPerPixel: 32, bytesPerRow: bpr,
                                           bitmapInfo: CGBitmapInfo(alpha: .noneSkipFirst), bytes: bytes))
        let url = try write(image, "xrgb.png", type: "public.png")
        #expect(ffprobe(url)["pix_fmt"] == "rgb24")
        #expect(ffmpegDecode(url, pixFmt: "rgb24") == expected)
    }

    @Test func premultipliedLittleEndianBGRAIsUnpremultiplied() throws {
        // BGRA in memory (byteOrder32Little + premultipliedFirst), the layout of CVPixelBuffer-backed images.
        let w = 16, h = 4
        var bytes: [UInt8] = []
        var straight: [(UInt8, UInt8, UInt8, UInt8)] = []
        for y in 0 ..< h {
            for x in 0 ..< w {
                let a = y == 0 ? 255 : 64 + x * 12
                let (r, g, b) = (x * 16, 255 - x * 16, y * 60)
                let pm = { (c: Int) in UInt8((c * a + 127) / 255) }
                bytes += [pm(b), pm(g), pm(r), UInt8(a)]
                straight.append((UInt8(r), UInt8(g), UInt8(b), UInt8(a)))
            }
        }
        let info = CGBitmapInfo(rawValue: CGBitmapInfo.byteOrder32Little.rawValue | CGImageAlphaInfo.premultipliedFirst.rawValue)
        let image = try #require(makeImage(width: w, height: h, bitsPerPixel: 32, bitmapInfo: info, bytes: bytes))
        let url = try write(image, "pm.png", type: "public.png")
        let decoded = try #require(ffmpegDecode(url))
        #expect(decoded.count == w * h * 4)
        var worst = 0
        for (i, s) in straight.enumerated() {
            let got = decoded[i * 4 ..< i * 4 + 4].map { Int($0) }
            #expect(got[3] == Int(s.3))
            if s.3 == 255 {
                #expect(got[0] == Int(s.0) && got[1] == Int(s.1) && got[2] == Int(s.2))
            }
            worst = max(worst, abs(got[0] - Int(s.0)), abs(got[1] - Int(s.1)), abs(got[2] - Int(s.2)))
        }
        #expect(worst <= 2)
    }

    @Test func sixteenBitPNGKeepsDepth() throws {
        let w = 8, h = 4
        var bytes: [UInt8] = []
        for i in 0 ..< w * h {
            for c in 0 ..< 4 {
                let v = UInt16((i * 2000 + c * 9000) % 65536)
                bytes += [UInt8(v >> 8), UInt8(v & 0xFF)]
            }
        }
        let info = CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue | CGBitmapInfo.byteOrder16Big.rawValue)
        let image = try #require(makeImage(width: w, height: h, bitsPerComponent: 16, bitsPerPixel: 64, bitmapInfo: info, bytes: bytes))
        let url = try write(image, "deep.png", type: "public.png")
        #expect(ffprobe(url)["pix_fmt"] == "rgba64be")
        #expect(ffmpegDecode(url, pixFmt: "rgba64be") == bytes)
    }

    @Test func jpegAtQuality09HasPSNRAbove35dB() throws {
        let w = 96, h = 64
        let px = gradientRGB(width: w, height: h)
        let image = try #require(makeImage(width: w, height: h, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: px))
        let url = try write(image, "q90.jpg", type: "public.jpeg", properties: [(kCGImageDestinationLossyCompressionQuality as String): 0.9])
        let facts = ffprobe(url)
        #expect(facts["codec_name"] == "mjpeg" && facts["width"] == "96" && facts["height"] == "64")
        let decoded = try #require(ffmpegDecode(url, pixFmt: "rgb24"))
        #expect(decoded.count == px.count)
        #expect(psnr(decoded, px) > 35)
    }

    @Test func lowerJPEGQualityMakesSmallerFiles() throws {
        let w = 128, h = 96
        var px = gradientRGB(width: w, height: h)
        for i in stride(from: 0, to: px.count, by: 7) { px[i] = UInt8((i * 31) % 256) }  // some detail
        let image = try #require(makeImage(width: w, height: h, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: px))
        let low = try #require(encode(image, type: "public.jpeg", properties: [(kCGImageDestinationLossyCompressionQuality as String): 0.2]))
        let high = try #require(encode(image, type: "public.jpeg", properties: [(kCGImageDestinationLossyCompressionQuality as String): 1.0]))
        #expect(low.count < high.count)
    }

    @Test func tiffAndBMPAreDecodedExactlyByFFmpeg() throws {
        let px = gradientRGBA(width: 20, height: 10)
        let image = try #require(makeImage(width: 20, height: 10, bitsPerPixel: 32, bitmapInfo: CGBitmapInfo(alpha: .last), bytes: px))
        let tiff = try write(image, "a.tiff", type: UTType.tiff.identifier)
        #expect(ffprobe(tiff)["codec_name"] == "tiff")
        #expect(ffmpegDecode(tiff) == px)
        let rgb = gradientRGB(width: 20, height: 10)
        let opaque = try #require(makeImage(width: 20, height: 10, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: rgb))
        let bmp = try write(opaque, "a.bmp", type: UTType.bmp.identifier)
        #expect(ffprobe(bmp)["codec_name"] == "bmp")
        #expect(ffmpegDecode(bmp, pixFmt: "rgb24") == rgb)
    }

    @Test func unwritableDestinationFailsToFinalize() throws {
        let image = try #require(makeImage(width: 2, height: 2, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: [UInt8](repeating: 9, count: 12)))
        let url = URL(fileURLWithPath: "/nonexistent-dir-\(UUID().uuidString)/x.png")
        let dest = try #require(CGImageDestinationCreateWithURL(url as CFURL, kUTTypePNG, 1, nil))
        CGImageDestinationAddImage(dest, image, nil)
        #expect(CGImageDestinationFinalize(dest) == false)
    }

    @Test func imageCountMismatchAndDoubleFinalizeFail() throws {
        let image = try #require(makeImage(width: 2, height: 2, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: [UInt8](repeating: 9, count: 12)))
        let data = NSMutableData()
        let two = try #require(CGImageDestinationCreateWithData(data, "public.png" as CFString, 2, nil))
        CGImageDestinationAddImage(two, image, nil)
        #expect(CGImageDestinationFinalize(two) == false)
        #expect(data.length == 0)
        let none = try #require(CGImageDestinationCreateWithData(data, "public.png" as CFString, 1, nil))
        #expect(CGImageDestinationFinalize(none) == false)
        let one = try #require(CGImageDestinationCreateWithData(data, "public.png" as CFString, 1, nil))
        CGImageDestinationAddImage(one, image, nil)
        CGImageDestinationAddImage(one, image, nil)  // beyond the count: ignored
        #expect(CGImageDestinationFinalize(one))
        #expect(CGImageDestinationFinalize(one) == false)
        #expect(data.length > 0)
    }

    @Test func unsupportedTypesAreRefusedAndSupportedOnesListed() {
        #expect(CGImageDestinationCreateWithData(NSMutableData(), "public.plain-text" as CFString, 1, nil) == nil)
        #expect(CGImageDestinationCreateWithData(NSMutableData(), "org.webmproject.webp" as CFString, 1, nil) == nil)
        let types = CGImageDestinationCopyTypeIdentifiers().compactMap { $0 as? String }
        #expect(types.contains("public.png") && types.contains("public.jpeg") && types.contains("public.tiff"))
        let readable = CGImageSourceCopyTypeIdentifiers().compactMap { $0 as? String }
        #expect(readable.contains("com.compuserve.gif") && readable.contains("org.webmproject.webp"))
    }

    @Test func finalizeReplacesAnExistingFileAtomically() throws {
        let url = dir.appendingPathComponent("replace.png")
        try Data("old contents".utf8).write(to: url)
        let px = gradientRGB(width: 4, height: 4)
        let image = try #require(makeImage(width: 4, height: 4, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: px))
        _ = try write(image, "replace.png", type: "public.png")
        #expect(ffmpegDecode(url, pixFmt: "rgb24") == px)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("replace") }
        #expect(leftovers == ["replace.png"])
    }

    @Test func maxPixelSizeScalesDownKeepingAspect() throws {
        let px = gradientRGB(width: 200, height: 100)
        let image = try #require(makeImage(width: 200, height: 100, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: px))
        let url = try write(image, "small.png", type: "public.png", properties: [(kCGImageDestinationImageMaxPixelSize as String): 50])
        let facts = ffprobe(url)
        #expect(facts["width"] == "50" && facts["height"] == "25")
    }
}
