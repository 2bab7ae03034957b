import CoreGraphics
import CoreVideo
import Foundation
import Testing
@testable import MediaEngine

/// A CGImage layout under test: its bitmap info and how one (r, g, b, a) pixel is laid out.
struct ImageLayout: Sendable, CustomStringConvertible {
    var name: String
    var bitsPerComponent: Int
    var bitsPerPixel: Int
    var alpha: CGImageAlphaInfo
    var order: CGBitmapInfo
    var grey = false
    /// Bytes of one pixel; `a` is what the alpha byte holds (garbage for skipped alpha).
    var bytes: @Sendable (_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8) -> [UInt8]
    var description: String { name }

    static let all: [ImageLayout] = [
        ImageLayout(name: "RGBA last", bitsPerComponent: 8, bitsPerPixel: 32, alpha: .last, order: []) { [$0, $1, $2, $3] },
        ImageLayout(name: "RGBA premultipliedLast", bitsPerComponent: 8, bitsPerPixel: 32, alpha: .premultipliedLast,
                    order: .byteOrder32Big) { [$0, $1, $2, $3] },
        ImageLayout(name: "RGBX noneSkipLast", bitsPerComponent: 8, bitsPerPixel: 32, alpha: .noneSkipLast, order: []) {
            r, g, b, _ in [r, g, b, 7]
        },
        ImageLayout(name: "BGRA little premultipliedFirst", bitsPerComponent: 8, bitsPerPixel: 32, alpha: .premultipliedFirst,
                    order: .byteOrder32Little) { r, g, b, a in [b, g, r, a] },
        ImageLayout(name: "BGRX little noneSkipFirst", bitsPerComponent: 8, bitsPerPixel: 32, alpha: .noneSkipFirst,
                    order: .byteOrder32Little) { r, g, b, _ in [b, g, r, 9] },
        ImageLayout(name: "ABGR little last", bitsPerComponent: 8, bitsPerPixel: 32, alpha: .last,
                    order: .byteOrder32Little) { r, g, b, a in [a, b, g, r] },
        ImageLayout(name: "ARGB big first", bitsPerComponent: 8, bitsPerPixel: 32, alpha: .first, order: .byteOrder32Big) {
            r, g, b, a in [a, r, g, b]
        },
        ImageLayout(name: "RGB24", bitsPerComponent: 8, bitsPerPixel: 24, alpha: .none, order: []) { r, g, b, _ in [r, g, b] },
        ImageLayout(name: "Gray8", bitsPerComponent: 8, bitsPerPixel: 8, alpha: .none, order: [], grey: true) { r, _, _, _ in [r] },
        ImageLayout(name: "RGBA16 big", bitsPerComponent: 16, bitsPerPixel: 64, alpha: .last, order: []) { r, g, b, a in
            [r, r, g, g, b, b, a, a]
        },
    ]

    /// A `width`×`height` image of `colour(x, y)`, rows padded by 12 bytes.
    func image(width: Int, height: Int, colour: (Int, Int) -> (UInt8, UInt8, UInt8)) -> CGImage? {
        let bytesPerRow = width * bitsPerPixel / 8 + 12
        var data = Data(count: bytesPerRow * height)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = colour(x, y)
                let px = bytes(r, g, b, 255)
                data.replaceSubrange((y * bytesPerRow + x * px.count)..<(y * bytesPerRow + (x + 1) * px.count), with: px)
            }
        }
        let space = grey ? CGColorSpaceCreateDeviceGray() : CGColorSpaceCreateDeviceRGB()
        return CGImage(width: width, height: height, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
                       bytesPerRow: bytesPerRow, space: space,
                       bitmapInfo: CGBitmapInfo(rawValue: order.rawValue | alpha.rawValue),
                       provider: CGDataProvider(data: data as CFData)!, decode: nil, shouldInterpolate: false,
                       intent: .defaultIntent)
    }
}

@Suite("CGImage ↔ CVPixelBuffer")
struct PixelCGImageTests {
    @Test("every common CGImage layout reads into BGRA and 420v", arguments: ImageLayout.all)
    func imageToPixelBuffer(_ layout: ImageLayout) throws {
        let colour: (Int, Int) -> (UInt8, UInt8, UInt8) = { x, _ in
            layout.grey ? (x < 16 ? (60, 60, 60) : (190, 190, 190)) : (x < 16 ? (200, 40, 90) : (30, 160, 220))
        }
        let image = try #require(layout.image(width: 32, height: 16, colour: colour))
        let bgra = try PixelConverter.shared.makePixelBuffer(from: image, pixelFormat: TestFormat.bgra.osType)
        for x in [3, 28] {
            let (r, g, b) = colour(x, 0)
            let p = PixelFixtures.samples(bgra, .bgra, x: x, y: 9)
            #expect(p == [Double(r), Double(g), Double(b), 255], "\(layout) at \(x): \(p)")
        }
        let yuv = try PixelConverter.shared.makePixelBuffer(from: image, pixelFormat: TestFormat.nv12v.osType)
        let (r, g, b) = colour(4, 0)
        let expected = PixelFixtures.ycbcr(RGB(r: Double(r), g: Double(g), b: Double(b)), fullRange: false)
        let s = PixelFixtures.samples(yuv, .nv12v, x: 4, y: 8)
        #expect(abs(s[0] - expected.y) <= 1.5 && abs(s[1] - expected.cb) <= 1.5 && abs(s[2] - expected.cr) <= 1.5,
                "\(layout): \(s) vs \(expected)")
    }

    @Test("unsupported CGImage layouts are reported")
    func unsupportedLayout() throws {
        let data = Data(count: 64)
        let image = try #require(CGImage(width: 4, height: 4, bitsPerComponent: 4, bitsPerPixel: 16, bytesPerRow: 8,
                                         space: CGColorSpaceCreateDeviceRGB(),
                                         bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipFirst.rawValue),
                                         provider: CGDataProvider(data: data as CFData)!, decode: nil,
                                         shouldInterpolate: false, intent: .defaultIntent))
        #expect(throws: PixelConversionError.unsupportedImageLayout) {
            _ = try PixelConverter.shared.makePixelBuffer(from: image, pixelFormat: TestFormat.bgra.osType)
        }
        #expect(PixelConversionError.unsupportedImageLayout.osStatus == -12905)
    }

    @Test("pixel buffers of every format become BGRA CGImages", arguments: TestFormat.allCases)
    func pixelBufferToImage(_ format: TestFormat) throws {
        let grey = format == .gray
        let buffer = PixelFixtures.make(format, width: 64, height: 32, colour: PixelFixtures.bars(grey: grey))
        let image = try PixelConverter.shared.makeCGImage(from: buffer)
        #expect(image.width == 64 && image.height == 32 && image.bitsPerPixel == 32 && image.byteOrderInfo == .order32Little)
        #expect(image.alphaInfo == (format.layout.hasAlpha ? .premultipliedFirst : .noneSkipFirst))
        let bytes = image.bytes
        let expected = PixelFixtures.bars(grey: grey)(40, 16)
        let o = 16 * image.bytesPerRow + 40 * 4
        let got = [Double(bytes[o + 2]), Double(bytes[o + 1]), Double(bytes[o])]
        for (u, v) in zip(got, [expected.r, expected.g, expected.b]) { #expect(abs(u - v) <= 2, "\(format): \(got)") }
        #expect(bytes[o + 3] == 255)
    }
}
