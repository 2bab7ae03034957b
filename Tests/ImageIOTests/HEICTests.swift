// HEIC through ImageIO: CGImageDestination writes "public.heic" (libx265 in our own HEIF boxes)
// and CGImageSource reads it back — size, pixels close to the source, {Exif}/{TIFF} from the
// Exif item, orientation as irot — judged also by independent readers: exiftool (EXIF, sizes,
// rotation) and libheif's heif-info / heif-convert (decodes our file to PNG; its pixels match
// ours). Files libheif's heif-enc writes (with a thumbnail item) read back through our reader.
// Damaged files give nil and a status, never a crash.
import Foundation
import ImageIO
import Testing
import TestSupport

@Suite("HEIC (ImageIO)")
struct HEICTests {
    static let heifConvert = "/usr/bin/heif-convert"
    static let heifInfo = "/usr/bin/heif-info"
    static let heifEnc = "/usr/bin/heif-enc"
    static var hasLibheif: Bool { FileManager.default.isExecutableFile(atPath: heifConvert) }
    static var hasExiftool: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") }

    /// A smooth opaque test picture (RGBX): gradients with a few hard edges.
    static func picture(width: Int, height: Int) -> CGImage {
        var px = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let i = (y * width + x) * 4
                px[i] = UInt8(x * 255 / max(width - 1, 1))
                px[i + 1] = UInt8(y * 255 / max(height - 1, 1))
                px[i + 2] = (x / 40 + y / 40) % 2 == 0 ? 40 : 200
            }
        }
        return makeImage(width: width, height: height, bitsPerPixel: 32,
                         bitmapInfo: CGBitmapInfo(alpha: .noneSkipLast), bytes: px)!
    }

    /// Mean absolute difference of the colour channels of two RGBA arrays.
    static func meanAbsoluteError(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return .infinity }
        var sum = 0, n = 0
        for i in 0 ..< a.count where i % 4 != 3 {
            sum += abs(Int(a[i]) - Int(b[i]))
            n += 1
        }
        return Double(sum) / Double(n)
    }

    static func decode(_ data: Data) -> CGImage? {
        guard let source = CGImageSourceCreateWithData(data as CFData, nil) else { return nil }
        return CGImageSourceCreateImageAtIndex(source, 0, nil)
    }

    /// heif-convert's decode of `data` (written to a .heic file) as an image read back from its PNG.
    static func libheifDecode(_ data: Data) throws -> CGImage? {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let heic = dir.appendingPathComponent("in.heic"), png = dir.appendingPathComponent("out.png")
        try data.write(to: heic)
        guard runTool(heifConvert, [heic.path, png.path]) != nil, let bytes = FileManager.default.contents(atPath: png.path)
        else { return nil }
        return decode(bytes)
    }

    /// exiftool's `-s -n` tags of `data` written as a .heic file.
    static func exiftool(_ data: Data) throws -> [String: String] {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.heic")
        try data.write(to: file)
        let text = String(decoding: runTool("/usr/bin/exiftool", ["-s", "-n", file.path]) ?? Data(), as: UTF8.self)
        var tags: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            tags[line[..<colon].trimmingCharacters(in: .whitespaces)] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return tags
    }

    /// A reference downscale through ImageIO itself (a thumbnail made from the image).
    enum ImageCodecLike {
        static func resize(_ image: CGImage, width: Int, height: Int) -> CGImage? {
            guard let png = encode(image, type: "public.png"), let source = CGImageSourceCreateWithData(png as CFData, nil) else { return nil }
            return CGImageSourceCreateThumbnailAtIndex(source, 0, [kCGImageSourceCreateThumbnailFromImageAlways: true,
                                                                   kCGImageSourceThumbnailMaxPixelSize: max(width, height)] as CFDictionary)
        }
    }

    @Test func heicIsListedForReadingAndWriting() {
        let writable = CGImageDestinationCopyTypeIdentifiers().compactMap { $0 as? String }
        let readable = CGImageSourceCopyTypeIdentifiers().compactMap { $0 as? String }
        #expect(writable.contains("public.heic") && readable.contains("public.heic"))
        #expect(CGImageDestinationCreateWithData(NSMutableData(), "public.heic" as CFString, 1, nil) != nil)
    }

    @Test func roundTripKeepsSizePixelsAndExif() throws {
        // Odd sizes: the coded picture is padded to even and cropped back by a clean aperture.
        let image = Self.picture(width: 333, height: 251)
        let properties: [String: Any] = [
            kCGImageDestinationLossyCompressionQuality as String: 0.9,
            kCGImagePropertyTIFFDictionary as String: [kCGImagePropertyTIFFMake as String: "Linux", kCGImagePropertyTIFFModel as String: "Test Camera"],
            kCGImagePropertyExifDictionary as String: [kCGImagePropertyExifDateTimeOriginal as String: "2026:11:26 04:00:00",
                                                       kCGImagePropertyExifPixelXDimension as String: 333],
        ]
        let data = try #require(encode(image, type: "public.heic", properties: properties))
        #expect(data.count > 100 && data.count < 333 * 251)
        #expect(String(decoding: data[4 ..< 12], as: UTF8.self) == "ftypheic")
        let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
        #expect(CGImageSourceGetType(source) as String? == "public.heic")
        #expect(CGImageSourceGetCount(source) == 1)
        #expect(CGImageSourceGetStatus(source) == .statusComplete)
        let p = try #require(CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any])
        #expect(p[kCGImagePropertyPixelWidth as String] as? Int == 333 && p[kCGImagePropertyPixelHeight as String] as? Int == 251)
        #expect(p[kCGImagePropertyDepth as String] as? Int == 8 && p[kCGImagePropertyOrientation as String] as? Int == 1)
        let tiff = try #require(p[kCGImagePropertyTIFFDictionary as String] as? [String: Any])
        #expect(tiff[kCGImagePropertyTIFFMake as String] as? String == "Linux")
        #expect(tiff[kCGImagePropertyTIFFModel as String] as? String == "Test Camera")
        let exif = try #require(p[kCGImagePropertyExifDictionary as String] as? [String: Any])
        #expect(exif[kCGImagePropertyExifDateTimeOriginal as String] as? String == "2026:11:26 04:00:00")
        #expect(exif[kCGImagePropertyExifPixelXDimension as String] as? Int == 333)
        let decoded = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        #expect(decoded.width == 333 && decoded.height == 251)
        let error = Self.meanAbsoluteError(rgbaPixels(of: decoded), rgbaPixels(of: image))
        #expect(error < 3.5, "mean absolute error \(error)")
        #expect(psnr(rgbaPixels(of: decoded), rgbaPixels(of: image)) > 30)
    }

    @Test func qualityTradesSizeForFidelity() throws {
        let image = Self.picture(width: 256, height: 192)
        let low = try #require(encode(image, type: "public.heic", properties: [kCGImageDestinationLossyCompressionQuality as String: 0.1]))
        let high = try #require(encode(image, type: "public.heic", properties: [kCGImageDestinationLossyCompressionQuality as String: 1.0]))
        #expect(low.count < high.count)
        let lowError = Self.meanAbsoluteError(rgbaPixels(of: try #require(Self.decode(low))), rgbaPixels(of: image))
        let highError = Self.meanAbsoluteError(rgbaPixels(of: try #require(Self.decode(high))), rgbaPixels(of: image))
        #expect(highError < lowError, "\(highError) vs \(lowError)")
    }

    @Test(.enabled(if: HEICTests.hasLibheif && HEICTests.hasExiftool))
    func independentReadersAgree() throws {
        let image = Self.picture(width: 320, height: 240)
        let data = try #require(encode(image, type: "public.heic", properties: [
            kCGImageDestinationLossyCompressionQuality as String: 0.9,
            kCGImagePropertyTIFFDictionary as String: [kCGImagePropertyTIFFModel as String: "Judged"],
            kCGImagePropertyExifDictionary as String: [kCGImagePropertyExifDateTimeOriginal as String: "2026:11:26 04:30:00"],
        ]))
        let tags = try Self.exiftool(data)
        #expect(tags["FileType"] == "HEIC", "\(tags)")
        #expect(tags["ImageWidth"] == "320" && tags["ImageHeight"] == "240", "\(tags)")
        #expect(tags["Model"] == "Judged" && tags["DateTimeOriginal"] == "2026:11:26 04:30:00", "\(tags)")
        #expect(tags["HEVCConfigurationVersion"] == "1" && tags["ChromaFormat"] == "1", "\(tags)")

        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("ours.heic")
        try data.write(to: file)
        let info = String(decoding: try #require(runTool(Self.heifInfo, [file.path])), as: UTF8.self)
        #expect(info.contains("320x240"), "\(info)")
        #expect(info.lowercased().contains("exif"), "\(info)")

        let theirs = try #require(try Self.libheifDecode(data))
        let ours = try #require(Self.decode(data))
        #expect(theirs.width == 320 && theirs.height == 240)
        let error = Self.meanAbsoluteError(rgbaPixels(of: theirs), rgbaPixels(of: ours))
        #expect(error < 1.5, "libheif and we differ by \(error) on average")
        #expect(Self.meanAbsoluteError(rgbaPixels(of: theirs), rgbaPixels(of: image)) < 3.5)
    }

    @Test(.enabled(if: HEICTests.hasLibheif && HEICTests.hasExiftool))
    func orientationIsWrittenAsRotation() throws {
        let image = Self.picture(width: 200, height: 120)
        let data = try #require(encode(image, type: "public.heic", properties: [kCGImagePropertyOrientation as String: 6]))
        // exiftool: the irot property (270° anticlockwise = 90° clockwise) and the Exif orientation.
        let tags = try Self.exiftool(data)
        #expect(tags["Rotation"] == "270" && tags["Orientation"] == "6", "\(tags)")
        // Our reader reports the stored picture with orientation 6, as ImageIO does.
        let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
        let p = try #require(CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any])
        #expect(p[kCGImagePropertyOrientation as String] as? Int == 6)
        #expect(p[kCGImagePropertyPixelWidth as String] as? Int == 200)
        // libheif applies irot: its picture is upright, and equals our thumbnail made with the transform.
        let theirs = try #require(try Self.libheifDecode(data))
        #expect(theirs.width == 120 && theirs.height == 200)
        let upright = try #require(CGImageSourceCreateThumbnailAtIndex(source, 0, [
            kCGImageSourceCreateThumbnailFromImageAlways: true, kCGImageSourceCreateThumbnailWithTransform: true,
        ] as CFDictionary))
        #expect(upright.width == 120 && upright.height == 200)
        #expect(Self.meanAbsoluteError(rgbaPixels(of: theirs), rgbaPixels(of: upright)) < 1.5)
    }

    @Test(.enabled(if: HEICTests.hasLibheif))
    func readsLibheifFilesWithThumbnails() throws {
        let dir = makeTempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("in.png"), heic = dir.appendingPathComponent("theirs.heic")
        let image = Self.picture(width: 400, height: 300)
        try #require(encode(image, type: "public.png")).write(to: png)
        try #require(runTool(Self.heifEnc, ["-q", "90", "-t", "96", png.path, "-o", heic.path]) != nil)
        let data = try Data(contentsOf: heic)
        let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
        #expect(CGImageSourceGetCount(source) == 1)
        let decoded = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
        #expect(decoded.width == 400 && decoded.height == 300)
        let theirs = try #require(try Self.libheifDecode(data))
        #expect(Self.meanAbsoluteError(rgbaPixels(of: decoded), rgbaPixels(of: theirs)) < 1.5)
        #expect(Self.meanAbsoluteError(rgbaPixels(of: decoded), rgbaPixels(of: image)) < 3)
        // The thumbnail item is what a plain thumbnail request returns.
        let thumbnail = try #require(CGImageSourceCreateThumbnailAtIndex(source, 0, nil))
        #expect(max(thumbnail.width, thumbnail.height) == 96)
        let made = try #require(CGImageSourceCreateThumbnailAtIndex(source, 0, [kCGImageSourceCreateThumbnailFromImageAlways: true] as CFDictionary))
        #expect(made.width == 400)
    }

    @Test func embeddedThumbnailIsAThumbnailItem() throws {
        let image = Self.picture(width: 800, height: 600)
        let data = try #require(encode(image, type: "public.heic", properties: [
            kCGImageDestinationEmbedThumbnail as String: true, kCGImagePropertyOrientation as String: 8,
        ]))
        let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
        #expect(CGImageSourceGetCount(source) == 1)  // the thumbnail is no image of its own
        let thumbnail = try #require(CGImageSourceCreateThumbnailAtIndex(source, 0, nil))
        #expect(thumbnail.width == 320 && thumbnail.height == 240)
        let small = try #require(ImageCodecLike.resize(image, width: 320, height: 240))
        #expect(Self.meanAbsoluteError(rgbaPixels(of: thumbnail), rgbaPixels(of: small)) < 4)
        if Self.hasLibheif {
            let dir = makeTempDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("thumb.heic")
            try data.write(to: file)
            let info = String(decoding: try #require(runTool(Self.heifInfo, [file.path])), as: UTF8.self)
            // libheif reports sizes turned by irot, the thumbnail's as the primary's.
            #expect(info.contains("image: 600x800") && info.contains("thumbnail: 240x320"), "\(info)")
            // libheif turns the primary image by its irot (orientation 8: a quarter turn anticlockwise).
            #expect(try Self.libheifDecode(data)?.width == 600)
        }
    }

    @Test func exifDictionariesReachJPEGAndPNGToo() throws {
        // The one metadata path: the {TIFF}/{Exif} dictionaries become Exif in every format that holds it.
        let image = Self.picture(width: 64, height: 48)
        for type in ["public.jpeg", "public.png", "public.heic"] {
            let data = try #require(encode(image, type: type, properties: [
                kCGImagePropertyOrientation as String: 3,
                kCGImagePropertyTIFFDictionary as String: [kCGImagePropertyTIFFModel as String: "Same Path"],
                kCGImagePropertyExifDictionary as String: [kCGImagePropertyExifDateTimeOriginal as String: "2026:11:26 05:00:00"],
            ]))
            let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
            let p = try #require(CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any])
            #expect(p[kCGImagePropertyOrientation as String] as? Int == 3, "\(type)")
            #expect((p[kCGImagePropertyTIFFDictionary as String] as? [String: Any])?[kCGImagePropertyTIFFModel as String] as? String == "Same Path", "\(type)")
            let exif = p[kCGImagePropertyExifDictionary as String] as? [String: Any]
            #expect(exif?[kCGImagePropertyExifDateTimeOriginal as String] as? String == "2026:11:26 05:00:00", "\(type)")
            #expect(CGImageSourceCreateImageAtIndex(source, 0, nil)?.width == 64, "\(type)")
        }
    }

    @Test func damagedFilesGiveNilNotACrash() throws {
        let data = try #require(encode(Self.picture(width: 96, height: 64), type: "public.heic"))
        // Truncated: the picture's bytes are missing.
        let truncated = data.prefix(data.count - 40)
        let cut = try #require(CGImageSourceCreateWithData(truncated as CFData, nil))
        #expect(CGImageSourceGetStatus(cut) == .statusUnexpectedEOF)
        #expect(CGImageSourceCreateImageAtIndex(cut, 0, nil) == nil)
        // Cut inside the meta box.
        let header = try #require(CGImageSourceCreateWithData(data.prefix(60) as CFData, nil))
        #expect(CGImageSourceGetCount(header) == 0 && CGImageSourceCreateImageAtIndex(header, 0, nil) == nil)
        // No hvcC: the box renamed.
        var bytes = [UInt8](data)
        let hvcC = Array("hvcC".utf8)
        let at = try #require((0 ..< bytes.count - 4).first { Array(bytes[$0 ..< $0 + 4]) == hvcC })
        bytes.replaceSubrange(at ..< at + 4, with: Array("xxxx".utf8))
        let noConfig = try #require(CGImageSourceCreateWithData(Data(bytes) as CFData, nil))
        #expect(CGImageSourceGetStatus(noConfig) == .statusInvalidData)
        #expect(CGImageSourceGetCount(noConfig) == 0)
        #expect(CGImageSourceCreateImageAtIndex(noConfig, 0, nil) == nil)
        // Garbage in place of the coded picture: the decoder refuses it, no image.
        var garbage = [UInt8](data)
        for i in (garbage.count - 30) ..< garbage.count { garbage[i] = UInt8(truncatingIfNeeded: i * 7) }
        let scrambled = try #require(CGImageSourceCreateWithData(Data(garbage) as CFData, nil))
        _ = CGImageSourceCreateImageAtIndex(scrambled, 0, nil)  // nil or a damaged picture; never a crash
        // Every prefix of the file is survived.
        for length in stride(from: 0, to: data.count, by: max(1, data.count / 40)) {
            if let s = CGImageSourceCreateWithData(data.prefix(length) as CFData, nil) {
                _ = CGImageSourceCopyPropertiesAtIndex(s, 0, nil)
                #expect(CGImageSourceCreateImageAtIndex(s, 0, nil) == nil)
            }
        }
    }
}
