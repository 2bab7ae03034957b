// HEIF inside the engine: a grid of HEVC tiles (as iPhone photos are) written by our writer's
// tile mode and composed back by our reader — compared with the source and with libheif's
// heif-convert, an independent reader; the eight orientations as irot/imir and back; the hvcC
// record filled from the encoder's SPS; damaged grids refused.
import CoreGraphics
import Foundation
@testable import MediaEngine
import Testing
import TestSupport

@Suite("HEIF grid and boxes")
struct HeifGridTests {
    static var hasLibheif: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-convert") }

    /// An opaque RGBX picture with gradients and a checkerboard.
    static func picture(width: Int, height: Int) -> CGImage {
        var px = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0 ..< height {
            for x in 0 ..< width {
                let i = (y * width + x) * 4
                px[i] = UInt8(x * 255 / max(width - 1, 1))
                px[i + 1] = UInt8(y * 255 / max(height - 1, 1))
                px[i + 2] = (x / 32 + y / 32) % 2 == 0 ? 30 : 220
            }
        }
        return CGImage(width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
                       space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(alpha: .noneSkipLast),
                       provider: CGDataProvider(data: Data(px) as CFData)!, decode: nil, shouldInterpolate: true,
                       intent: .defaultIntent)!
    }

    /// Packed RGB bytes of an 8-bit RGBX or RGB image.
    static func rgb(_ image: CGImage) -> [UInt8] {
        let bytes = [UInt8](image.dataProvider!.data! as Data)
        let bpp = image.bitsPerPixel / 8
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height * 3)
        for y in 0 ..< image.height {
            for x in 0 ..< image.width {
                let i = y * image.bytesPerRow + x * bpp
                out += [bytes[i], bytes[i + 1], bytes[i + 2]]
            }
        }
        return out
    }

    static func meanAbsoluteError(_ a: CGImage, _ b: CGImage) -> Double {
        let x = rgb(a), y = rgb(b)
        guard x.count == y.count, !x.isEmpty else { return .infinity }
        var sum = 0
        for i in 0 ..< x.count { sum += abs(Int(x[i]) - Int(y[i])) }
        return Double(sum) / Double(x.count)
    }

    /// heif-convert's picture of `data`, read back from its PNG by our PNG decoder.
    static func libheifDecode(_ data: Data) throws -> CGImage? {
        let dir = try TestTools.temporaryDirectory("heif-grid")
        defer { try? FileManager.default.removeItem(at: dir) }
        let heic = dir.appendingPathComponent("grid.heic"), png = dir.appendingPathComponent("grid.png")
        try data.write(to: heic)
        guard try TestTools.run("/usr/bin/heif-convert", [heic.path, png.path]).status == 0 else { return nil }
        return ImageCodec.decode(try Data(contentsOf: png))
    }

    @Test func gridOfTilesComposesBack() throws {
        // 300×200 in 128-pixel tiles: 3 columns × 2 rows, the last ones cut by the grid's output size.
        let image = Self.picture(width: 300, height: 200)
        let picture = try #require(ImageCodec.encodeHEVCPicture(image, quality: 0.9, tileSize: 128))
        #expect(picture.grid?.rows == 2 && picture.grid?.columns == 3 && picture.tiles.count == 6)
        #expect(picture.codedWidth == 128 && picture.codedHeight == 128)
        let data = try #require(HeifWriter.file(picture, exifTIFF: ExifWriter.tiffStructure(tiff: ["Model": "Grid"], exif: [:])))
        let header = try #require(ImageHeader(data: data))
        #expect(header.format == .heic && header.width == 300 && header.height == 200 && header.isComplete)
        let heif = try #require(header.heif)
        #expect(heif.item(heif.primaryID)?.type == "grid")
        #expect(heif.referenced(from: heif.primaryID, type: "dimg").count == 6)
        #expect(heif.items.filter { $0.type == "hvc1" }.allSatisfy { $0.isHidden })
        #expect(heif.topLevelImages == [heif.primaryID])
        #expect(header.tiffTags[0x0110] == .string("Grid"))
        let decoded = try #require(ImageCodec.decode(data))
        #expect(decoded.width == 300 && decoded.height == 200)
        let error = Self.meanAbsoluteError(decoded, image)
        #expect(error < 3.5, "mean absolute error \(error)")
        if Self.hasLibheif {
            let theirs = try #require(try Self.libheifDecode(data))
            #expect(theirs.width == 300 && theirs.height == 200)
            let difference = Self.meanAbsoluteError(decoded, theirs)
            #expect(difference < 1.5, "libheif and we differ by \(difference)")
        }
    }

    @Test func everyOrientationRoundTripsAsRotationAndMirror() throws {
        let picture = try #require(ImageCodec.encodeHEVCPicture(Self.picture(width: 64, height: 48), quality: 0.5))
        for orientation in 1 ... 8 {
            let data = try #require(HeifWriter.file(picture, orientation: orientation))
            let header = try #require(ImageHeader(data: data))
            #expect(header.orientation == orientation)
            #expect(header.width == 64 && header.height == 48)
        }
        #expect(HeifOrientation.transforms(forExif: 6).quarterTurns == 3)
        #expect(HeifOrientation.transforms(forExif: 8).quarterTurns == 1)
        #expect(HeifOrientation.transforms(forExif: 2).mirrorAxis == 0 && HeifOrientation.transforms(forExif: 4).mirrorAxis != nil)
    }

    @Test func orientationsMoveThirtyTwoBitPixelsAsTheByteLoopMovesOthers() throws {
        // The same 5×3 picture as RGBX (pixman path) and as RGB (byte loop): every orientation agrees.
        let w = 5, h = 3
        var rgbx: [UInt8] = [], rgb: [UInt8] = []
        for i in 0 ..< w * h {
            let p = [UInt8(i * 16), UInt8(255 - i * 9), UInt8(i * 5 % 256)]
            rgbx += p + [255]
            rgb += p
        }
        let space = CGColorSpaceCreateDeviceRGB()
        let a = try #require(CGImage(width: w, height: h, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: w * 4, space: space,
                                     bitmapInfo: CGBitmapInfo(alpha: .noneSkipLast), provider: CGDataProvider(bytes: Data(rgbx)),
                                     decode: nil, shouldInterpolate: true, intent: .defaultIntent))
        let b = try #require(CGImage(width: w, height: h, bitsPerComponent: 8, bitsPerPixel: 24, bytesPerRow: w * 3, space: space,
                                     bitmapInfo: CGBitmapInfo(alpha: .none), provider: CGDataProvider(bytes: Data(rgb)),
                                     decode: nil, shouldInterpolate: true, intent: .defaultIntent))
        for orientation in 1 ... 8 {
            let x = try #require(ImageTransform.applyingOrientation(orientation, to: a))
            let y = try #require(ImageTransform.applyingOrientation(orientation, to: b))
            #expect(x.width == y.width && x.height == y.height)
            #expect(Self.rgb(x) == Self.rgb(y), "orientation \(orientation)")
        }
    }

    @Test func rotatedGridMatchesLibheif() throws {
        // An iPhone-like photo: a tile grid turned by irot (orientation 6), with an Exif item.
        guard Self.hasLibheif else { return }
        let image = Self.picture(width: 260, height: 140)
        let picture = try #require(ImageCodec.encodeHEVCPicture(image, quality: 0.9, tileSize: 64))
        let data = try #require(HeifWriter.file(picture, orientation: 6,
                                                exifTIFF: ExifWriter.tiffStructure(tiff: ["Orientation": 6], exif: [:])))
        let header = try #require(ImageHeader(data: data))
        #expect(header.orientation == 6 && header.width == 260 && header.height == 140)
        let stored = try #require(ImageCodec.decode(data))
        let upright = try #require(ImageTransform.applyingOrientation(6, to: stored))
        let theirs = try #require(try Self.libheifDecode(data))
        #expect(theirs.width == 140 && theirs.height == 260)
        let difference = Self.meanAbsoluteError(upright, theirs)
        #expect(difference < 1.5, "libheif and we differ by \(difference)")
    }

    @Test func configurationRecordComesFromTheSPS() throws {
        let picture = try #require(ImageCodec.encodeHEVCPicture(Self.picture(width: 64, height: 64), quality: 0.5))
        let hvcC = picture.hvcC
        #expect(hvcC[0] == 1)                    // configurationVersion
        #expect(hvcC[1] & 0x1F == 1)             // Main profile
        #expect(hvcC[16] & 3 == 1)               // 4:2:0
        #expect(hvcC[17] & 7 == 0 && hvcC[18] & 7 == 0)  // 8-bit
        #expect(hvcC[21] & 3 == 3)               // 4-byte NAL lengths
        #expect(hvcC[22] == 3)                   // VPS, SPS, PPS arrays
        // Slices only, length-prefixed: the first unit is an IDR slice (type 19 or 20).
        let tile = picture.tiles[0]
        let length = Int(tile[0]) << 24 | Int(tile[1]) << 16 | Int(tile[2]) << 8 | Int(tile[3])
        #expect(length + 4 <= tile.count)
        #expect([19, 20].contains(Int(tile[4] >> 1 & 0x3F)))
    }

    @Test func damagedGridsAreRefused() throws {
        let picture = try #require(ImageCodec.encodeHEVCPicture(Self.picture(width: 200, height: 100), quality: 0.5, tileSize: 64))
        let data = try #require(HeifWriter.file(picture))
        // A grid whose tile list is one short: the dimg count byte lowered.
        var bytes = [UInt8](data)
        let dimg = Array("dimg".utf8)
        let at = try #require((0 ..< bytes.count - 4).first { Array(bytes[$0 ..< $0 + 4]) == dimg })
        bytes[at + 7] -= 1
        #expect(ImageCodec.decode(Data(bytes)) == nil)
        // A tile whose bytes are garbage.
        var scrambled = [UInt8](data)
        let mdat = try #require((0 ..< scrambled.count - 4).first { Array(scrambled[$0 ..< $0 + 4]) == Array("mdat".utf8) })
        for i in (mdat + 4) ..< min(scrambled.count, mdat + 300) { scrambled[i] = 0xFF }
        _ = ImageCodec.decode(Data(scrambled))  // nil, or a damaged picture; never a crash
        // An essential property of a kind the reader does not know: the image must not be shown.
        let small = try #require(ImageCodec.encodeHEVCPicture(Self.picture(width: 64, height: 48)))
        let single = try #require(HeifWriter.file(small))
        #expect(ImageCodec.decode(single) != nil)
        var unknown = [UInt8](single)
        let pixi = try #require((0 ..< unknown.count - 4).first { Array(unknown[$0 ..< $0 + 4]) == Array("pixi".utf8) })
        unknown.replaceSubrange(pixi ..< pixi + 4, with: Array("zzzz".utf8))
        #expect(ImageCodec.decode(Data(unknown)) != nil)  // not essential: ignored
        // ipma of the single picture: [hvcC|80, ispe, colr, pixi] — mark the fourth essential.
        let ipma = try #require((0 ..< unknown.count - 4).first { Array(unknown[$0 ..< $0 + 4]) == Array("ipma".utf8) })
        let entry = ipma + 4 + 4 + 4 + 2 + 1  // type, version/flags, count, item ID, association count
        #expect(unknown[entry + 3] == 4)
        unknown[entry + 3] |= 0x80
        #expect(ImageCodec.decode(Data(unknown)) == nil)
        #expect(ImageHeader(data: Data(unknown))?.width == nil)
        // A grid wider than its tiles cover.
        var wide = picture
        wide.width = 1000
        let tooWide = try #require(HeifWriter.file(wide))
        #expect(ImageCodec.decode(tooWide) == nil)
    }
}
