import Foundation
import ImageIO
import Testing
import UniformTypeIdentifiers

/// Reading files through CGImageSource: files written by ffmpeg and by CGImageDestination.
@Suite("CGImageSource")
final class ImageSourceTests {
    let dir = makeTempDirectory()
    deinit { try? FileManager.default.removeItem(at: dir) }

    private func source(_ data: Data) throws -> CGImageSource {
        try #require(CGImageSourceCreateWithData(data as CFData, nil))
    }

    private func properties(_ src: CGImageSource) -> [String: Any] {
        var out: [String: Any] = [:]
        if let d = CGImageSourceCopyPropertiesAtIndex(src, 0, nil) {
            for (k, v) in d { if let k = k as? String { out[k] = v } }
        }
        return out
    }

    @Test func pngRoundTripGivesPixelsBackExactly() throws {
        let px = gradientRGBA(width: 33, height: 17)
        let image = try #require(makeImage(width: 33, height: 17, bitsPerPixel: 32, bitmapInfo: CGBitmapInfo(alpha: .last), bytes: px))
        let png = try #require(encode(image, type: "public.png"))
        let src = try source(png)
        #expect(CGImageSourceGetType(src) == "public.png")
        #expect(CGImageSourceGetCount(src) == 1)
        #expect(CGImageSourceGetStatus(src) == .statusComplete)
        #expect(CGImageSourceGetStatusAtIndex(src, 0) == .statusComplete)
        let decoded = try #require(CGImageSourceCreateImageAtIndex(src, 0, nil))
        #expect(decoded.width == 33 && decoded.height == 17)
        #expect(decoded.alphaInfo == .last && decoded.bitsPerComponent == 8 && decoded.bitsPerPixel == 32)
        #expect(rgbaPixels(of: decoded) == px)
    }

    @Test func opaqueAndGreyPNGDecodeToAppleLayouts() throws {
        let rgb = gradientRGB(width: 10, height: 6)
        let opaque = try #require(makeImage(width: 10, height: 6, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: rgb))
        let opaquePNG = try #require(encode(opaque, type: "public.png"))
        let a = try #require(CGImageSourceCreateImageAtIndex(try source(opaquePNG), 0, nil))
        #expect(a.bitsPerPixel == 24 && a.alphaInfo == .none && a.colorSpace?.model == .rgb)
        #expect([UInt8](a.dataProvider!.data! as Data) == rgb)
        let grey = (0 ..< 60).map { UInt8($0 * 4) }
        let g = try #require(makeImage(width: 10, height: 6, bitsPerPixel: 8, space: CGColorSpaceCreateDeviceGray(),
                                       bitmapInfo: CGBitmapInfo(alpha: .none), bytes: grey))
        let greyPNG = try #require(encode(g, type: "public.png"))
        let b = try #require(CGImageSourceCreateImageAtIndex(try source(greyPNG), 0, nil))
        #expect(b.bitsPerPixel == 8 && b.colorSpace?.model == .monochrome && b.alphaInfo == .none)
        #expect([UInt8](b.dataProvider!.data! as Data) == grey)
    }

    @Test func ffmpegWrittenPNGEqualsFFmpegsOwnDecode() throws {
        let url = dir.appendingPathComponent("testsrc.png")
        #expect(ffmpegMake(["-f", "lavfi", "-i", "testsrc2=s=64x48", "-frames:v", "1", url.path]))
        let src = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        let image = try #require(CGImageSourceCreateImageAtIndex(src, 0, nil))
        #expect(image.width == 64 && image.height == 48)
        #expect(rgbaPixels(of: image) == ffmpegDecode(url))
    }

    /// The lavfi test pattern itself, as raw RGBA, to judge lossy decodes against.
    private func testPattern(_ size: String) -> [UInt8]? {
        runTool("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=\(size)", "-frames:v", "1",
                                    "-f", "rawvideo", "-pix_fmt", "rgba", "-"]).map { [UInt8]($0) }
    }

    @Test(arguments: [("a.jpg", ["-q:v", "2"]), ("yuv.tiff", ["-pix_fmt", "yuv420p"])])
    func lossyFilesDecodeAsWellAsFFmpegDoes(name: String, extra: [String]) throws {
        let url = dir.appendingPathComponent(name)
        #expect(ffmpegMake(["-f", "lavfi", "-i", "testsrc2=s=80x60", "-frames:v", "1"] + extra + [url.path]))
        let src = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        let image = try #require(CGImageSourceCreateImageAtIndex(src, 0, nil))
        #expect(image.width == 80 && image.height == 60)
        #expect(image.bitsPerPixel == 32 && image.alphaInfo == .noneSkipLast)
        let original = try #require(testPattern("80x60"))
        let theirs = psnr(try #require(ffmpegDecode(url)), original)
        let ours = psnr(rgbaPixels(of: image), original)
        #expect(ours > 25 && ours >= theirs - 1, "ours \(ours) dB, ffmpeg \(theirs) dB")
    }

    @Test(arguments: [("a.gif", [String]()), ("rgb.tiff", ["-pix_fmt", "rgb24"]), ("rgba.tiff", ["-pix_fmt", "rgba"]),
                      ("a.bmp", []), ("a.webp", ["-c:v", "libwebp", "-lossless", "1"])])
    func losslessFilesDecodeExactlyLikeFFmpeg(name: String, extra: [String]) throws {
        let url = dir.appendingPathComponent(name)
        #expect(ffmpegMake(["-f", "lavfi", "-i", "testsrc2=s=40x30", "-frames:v", "1"] + extra + [url.path]))
        let src = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        let image = try #require(CGImageSourceCreateImageAtIndex(src, 0, nil))
        #expect(image.width == 40 && image.height == 30)
        #expect(rgbaPixels(of: image) == ffmpegDecode(url))
    }

    @Test func animatedGIFCountsAndDecodesEveryFrame() throws {
        let url = dir.appendingPathComponent("anim.gif")
        #expect(ffmpegMake(["-f", "lavfi", "-i", "testsrc2=s=32x24:r=10", "-frames:v", "3", url.path]))
        let src = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        #expect(CGImageSourceGetType(src) == "com.compuserve.gif")
        #expect(CGImageSourceGetCount(src) == 3)
        for i in 0 ..< 3 {
            let frame = try #require(CGImageSourceCreateImageAtIndex(src, i, nil))
            #expect(frame.width == 32 && frame.height == 24)
        }
        #expect(CGImageSourceCreateImageAtIndex(src, 3, nil) == nil)
        let gif = properties(src)[(kCGImagePropertyGIFDictionary as String)] as? [String: Any]
        #expect(gif?[(kCGImagePropertyGIFDelayTime as String)] as? Double == 0.1)
    }

    @Test func pngPropertiesUseApplesKeys() throws {
        let px = gradientRGBA(width: 12, height: 5)
        let image = try #require(makeImage(width: 12, height: 5, bitsPerPixel: 32, bitmapInfo: CGBitmapInfo(alpha: .last), bytes: px))
        let png = try #require(encode(image, type: "public.png", properties: [(kCGImagePropertyDPIWidth as String): 144, (kCGImagePropertyDPIHeight as String): 144]))
        let p = properties(try source(png))
        #expect(p["PixelWidth"] as? Int == 12 && p["PixelHeight"] as? Int == 5)
        #expect(p[(kCGImagePropertyDepth as String)] as? Int == 8)
        #expect(p[(kCGImagePropertyHasAlpha as String)] as? Bool == true)
        #expect(p[(kCGImagePropertyColorModel as String)] as? String == kCGImagePropertyColorModelRGB as String)
        #expect(p[(kCGImagePropertyDPIWidth as String)] as? Double == 144)
        let pngDict = try #require(p[(kCGImagePropertyPNGDictionary as String)] as? [String: Any])
        #expect(pngDict[(kCGImagePropertyPNGInterlaceType as String)] as? Int == 0)
        #expect(pngDict[(kCGImagePropertyPNGXPixelsPerMeter as String)] as? Int == 5669)
        let container = try #require(CGImageSourceCopyProperties(try source(png), nil))
        #expect(container[kCGImagePropertyFileSize] as? Int == png.count)
    }

    @Test func jpegOrientationIsRecordedReadAndAppliedToThumbnails() throws {
        let rgb = gradientRGB(width: 40, height: 20)
        let image = try #require(makeImage(width: 40, height: 20, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: rgb))
        let jpeg = try #require(encode(image, type: "public.jpeg",
                                       properties: [(kCGImagePropertyOrientation as String): CGImagePropertyOrientation.right.rawValue]))
        let src = try source(jpeg)
        let p = properties(src)
        #expect(p[(kCGImagePropertyOrientation as String)] as? Int == 6)
        #expect((p[(kCGImagePropertyTIFFDictionary as String)] as? [String: Any])?[(kCGImagePropertyTIFFOrientation as String)] as? Int == 6)
        #expect(p[(kCGImagePropertyJFIFDictionary as String)] != nil && p[(kCGImagePropertyHasAlpha as String)] == nil)
        let full = try #require(CGImageSourceCreateImageAtIndex(src, 0, nil))
        #expect(full.width == 40 && full.height == 20)  // pixels are stored unrotated
        let thumb = try #require(CGImageSourceCreateThumbnailAtIndex(src, 0, [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
        ] as CFDictionary))
        #expect(thumb.width == 20 && thumb.height == 40)
        // ffprobe sees the EXIF orientation too.
        let url = dir.appendingPathComponent("rot.jpg")
        try jpeg.write(to: url)
        let probe = runTool("/usr/bin/ffprobe", ["-v", "error", "-show_frames", "-of", "default=nw=1", url.path])
        #expect(probe.map { String(decoding: $0, as: UTF8.self).contains("Orientation=6") || String(decoding: $0, as: UTF8.self).contains("rotation") } == true)
    }

    @Test func thumbnailMaxPixelSizeKeepsAspect() throws {
        let image = try #require(makeImage(width: 300, height: 120, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none),
                                           bytes: gradientRGB(width: 300, height: 120)))
        let png = try #require(encode(image, type: "public.png"))
        let src = try source(png)
        let options = [kCGImageSourceCreateThumbnailFromImageIfAbsent: true, kCGImageSourceThumbnailMaxPixelSize: 100] as CFDictionary
        let thumb = try #require(CGImageSourceCreateThumbnailAtIndex(src, 0, options))
        #expect(thumb.width == 100 && thumb.height == 40)
        // Never enlarged; nil without a "from image" option (no embedded thumbnail).
        let big = try #require(CGImageSourceCreateThumbnailAtIndex(src, 0, [kCGImageSourceCreateThumbnailFromImageAlways: true,
                                                                             kCGImageSourceThumbnailMaxPixelSize: 1000] as CFDictionary))
        #expect(big.width == 300 && big.height == 120)
        #expect(CGImageSourceCreateThumbnailAtIndex(src, 0, [kCGImageSourceThumbnailMaxPixelSize: 100] as CFDictionary) == nil)
    }

    @Test func emptyDataIsAnErrorWithoutImages() throws {
        let src = try source(Data())
        #expect(CGImageSourceGetType(src) == nil)
        #expect(CGImageSourceGetCount(src) == 0)
        #expect(CGImageSourceGetStatus(src).rawValue < 0)
        #expect(CGImageSourceCreateImageAtIndex(src, 0, nil) == nil)
        #expect(CGImageSourceCopyPropertiesAtIndex(src, 0, nil) == nil)
    }

    @Test func truncatedPNGAndJPEGAreUnexpectedEOF() throws {
        let image = try #require(makeImage(width: 64, height: 64, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none),
                                           bytes: gradientRGB(width: 64, height: 64)))
        for type in ["public.png", "public.jpeg"] {
            let full = try #require(encode(image, type: type))
            for cut in [full.count / 2, full.count - 3, 30] {
                let src = try source(full.prefix(cut))
                #expect(CGImageSourceGetStatus(src) == .statusUnexpectedEOF, "\(type) cut at \(cut)")
                #expect(CGImageSourceCreateImageAtIndex(src, 0, nil) == nil)
            }
        }
    }

    @Test func randomBytesAndTextAreUnknownType() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0 ..< 5 {
            let noise = Data((0 ..< 2048).map { _ in UInt8.random(in: 0 ... 255, using: &rng) })
            let src = try source(noise)
            #expect(CGImageSourceCreateImageAtIndex(src, 0, nil) == nil)
            #expect(CGImageSourceGetStatus(src) != .statusComplete)
        }
        let url = dir.appendingPathComponent("notes.txt")
        try Data("This is a text file, not an image.\n".utf8).write(to: url)
        let src = try #require(CGImageSourceCreateWithURL(url as CFURL, nil))
        #expect(CGImageSourceGetStatus(src) == .statusUnknownType)
        #expect(CGImageSourceCreateImageAtIndex(src, 0, nil) == nil)
        #expect(CGImageSourceCreateWithURL(dir.appendingPathComponent("missing.png") as CFURL, nil) == nil)
    }

    @Test func corruptImageDataNeverCrashes() throws {
        let image = try #require(makeImage(width: 48, height: 32, bitsPerPixel: 32, bitmapInfo: CGBitmapInfo(alpha: .last),
                                           bytes: gradientRGBA(width: 48, height: 32)))
        var rng = SystemRandomNumberGenerator()
        for type in ["public.png", "public.jpeg", "public.tiff", "com.microsoft.bmp"] {
            let good = try #require(encode(image, type: type))
            for _ in 0 ..< 8 {
                var bad = good
                for _ in 0 ..< 12 {
                    let i = Int.random(in: 8 ..< bad.count, using: &rng)
                    bad[i] = UInt8.random(in: 0 ... 255, using: &rng)
                }
                let src = try source(bad)
                if let decoded = CGImageSourceCreateImageAtIndex(src, 0, nil) {
                    #expect(decoded.width > 0 && decoded.height > 0)
                } else {
                    #expect(CGImageSourceGetStatusAtIndex(src, 0) != .statusComplete)
                }
            }
        }
    }

    @Test func incrementalSourceCompletesWhenFinal() throws {
        let image = try #require(makeImage(width: 16, height: 16, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none),
                                           bytes: gradientRGB(width: 16, height: 16)))
        let png = try #require(encode(image, type: "public.png"))
        let src = CGImageSourceCreateIncremental(nil)
        #expect(CGImageSourceGetStatus(src) == .statusReadingHeader)
        CGImageSourceUpdateData(src, png.prefix(png.count - 20) as CFData, false)
        #expect(CGImageSourceGetStatus(src) == .statusIncomplete)
        #expect(CGImageSourceCreateImageAtIndex(src, 0, nil) == nil)
        CGImageSourceUpdateData(src, png as CFData, true)
        #expect(CGImageSourceGetStatus(src) == .statusComplete)
        #expect(CGImageSourceCreateImageAtIndex(src, 0, nil)?.width == 16)
    }

    @Test func addImageFromSourceConvertsPNGToJPEG() throws {
        let rgb = gradientRGB(width: 24, height: 12)
        let image = try #require(makeImage(width: 24, height: 12, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: rgb))
        let png = try #require(encode(image, type: "public.png"))
        let src = try source(png)
        let out = NSMutableData()
        let dest = try #require(CGImageDestinationCreateWithData(out, kUTTypeJPEG, 1, nil))
        CGImageDestinationAddImageFromSource(dest, src, 0, [kCGImageDestinationLossyCompressionQuality: 1.0] as CFDictionary)
        #expect(CGImageDestinationFinalize(dest))
        let back = try source(out as Data)
        #expect(CGImageSourceGetType(back) == "public.jpeg")
        let decoded = try #require(CGImageSourceCreateImageAtIndex(back, 0, nil))
        #expect(decoded.width == 24 && decoded.height == 12)
    }

    @Test func dataProviderInitialisersDecodeTheirFormatOnly() throws {
        let rgb = gradientRGB(width: 8, height: 8)
        let image = try #require(makeImage(width: 8, height: 8, bitsPerPixel: 24, bitmapInfo: CGBitmapInfo(alpha: .none), bytes: rgb))
        let png = try #require(encode(image, type: "public.png"))
        let provider = try #require(CGDataProvider(data: png as CFData))
        let fromPNG = try #require(CGImage(pngDataProviderSource: provider, decode: nil, shouldInterpolate: false, intent: .perceptual))
        #expect(fromPNG.width == 8 && fromPNG.renderingIntent == .perceptual && fromPNG.shouldInterpolate == false)
        #expect(rgbaPixels(of: fromPNG) == rgbaPixels(of: image))
        #expect(CGImage(jpegDataProviderSource: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent) == nil)
        let jpeg = try #require(encode(image, type: "public.jpeg"))
        let jp = try #require(CGDataProvider(data: jpeg as CFData))
        #expect(CGImage(jpegDataProviderSource: jp, decode: nil, shouldInterpolate: true, intent: .defaultIntent)?.height == 8)
        let junk = try #require(CGDataProvider(data: Data("nope".utf8) as CFData))
        #expect(CGImage(pngDataProviderSource: junk, decode: nil, shouldInterpolate: true, intent: .defaultIntent) == nil)
    }

    @Test func propertyKeysHaveApplesStrings() {
        #expect(kCGImagePropertyPixelWidth == "PixelWidth" && kCGImagePropertyPixelHeight == "PixelHeight")
        #expect(kCGImagePropertyOrientation == "Orientation" && kCGImagePropertyHasAlpha == "HasAlpha")
        #expect(kCGImagePropertyPNGDictionary == "{PNG}" && kCGImagePropertyExifDictionary == "{Exif}")
        #expect(kCGImagePropertyTIFFDictionary == "{TIFF}" && kCGImagePropertyJFIFDictionary == "{JFIF}")
        #expect(kCGImageDestinationLossyCompressionQuality == "kCGImageDestinationLossyCompressionQuality")
        #expect(kCGImageSourceThumbnailMaxPixelSize == "kCGImageSourceThumbnailMaxPixelSize")
        #expect(CGImageSourceStatus.statusUnexpectedEOF.rawValue == -5 && CGImageSourceStatus.statusComplete.rawValue == 0)
        #expect(CGImagePropertyOrientation.left.rawValue == 8)
    }
}
