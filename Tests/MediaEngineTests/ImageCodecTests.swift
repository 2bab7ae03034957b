import CoreGraphics
import Foundation
import Testing
@testable import MediaEngine
import TestSupport

/// Runs a command-line tool and returns its standard output (nil on a non-zero exit).
private func runTool(_ path: String, _ arguments: [String]) -> Data? {
    guard let (status, output) = try? TestTools.run(path, arguments), status == 0 else { return nil }
    return output
}

private func tempDirectory() -> URL {
    TestTools.makeTemporaryDirectory("imagecodec")
}

/// An RGBA gradient with varying alpha, straight (non-premultiplied) alpha.
private func gradientRGBA(width: Int, height: Int) -> (CGImage, [UInt8]) {
    var px = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0 ..< height {
        for x in 0 ..< width {
            let i = (y * width + x) * 4
            px[i] = UInt8(x * 255 / max(width - 1, 1))
            px[i + 1] = UInt8(y * 255 / max(height - 1, 1))
            px[i + 2] = UInt8((x + y) % 256)
            px[i + 3] = UInt8(255 - (x * 7 + y * 3) % 256)
        }
    }
    let image = CGImage(width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
                        space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(alpha: .last),
                        provider: CGDataProvider(bytes: Data(px)), decode: nil, shouldInterpolate: true,
                        intent: .defaultIntent)!
    return (image, px)
}

@Suite("ImageCodec")
struct ImageCodecTests {
    @Test func sniffsFormatsByMagicBytes() {
        #expect(ImageFormat(sniffing: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])) == .png)
        #expect(ImageFormat(sniffing: Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
        #expect(ImageFormat(sniffing: Data("GIF89a....".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0])) == .tiff)
        #expect(ImageFormat(sniffing: Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat(sniffing: Data("hello world, not an image".utf8)) == nil)
        #expect(ImageFormat(sniffing: Data()) == nil)
    }

    @Test func pngRoundTripIsExactAndHeaderReadsSize() throws {
        let (image, px) = gradientRGBA(width: 37, height: 23)
        let png = try #require(ImageCodec.encode(image, as: .png))
        let header = try #require(ImageHeader(data: png))
        #expect(header.format == .png)
        #expect(header.width == 37 && header.height == 23)
        #expect(header.hasAlpha == true && header.depth == 8)
        let decoded = try #require(ImageCodec.decode(png))
        #expect(decoded.width == 37 && decoded.height == 23)
        #expect(decoded.alphaInfo == .last && decoded.bitsPerPixel == 32)
        #expect([UInt8](decoded.bytes) == px)
    }

    @Test func decodesFFmpegWrittenPNGLikeFFmpeg() throws {
        let dir = tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.png").path
        _ = try #require(runTool("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=64x48",
                                                      "-frames:v", "1", path]))
        let reference = try #require(runTool("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo",
                                                                  "-pix_fmt", "rgba", "-"]))
        let data = try #require(FileManager.default.contents(atPath: path))
        let image = try #require(ImageCodec.decode(data))
        #expect(image.width == 64 && image.height == 48)
        let ours = rgba(of: image)
        #expect(ours == [UInt8](reference))
    }

    @Test func jpegHeaderAndDecode() throws {
        let (image, _) = gradientRGBA(width: 40, height: 30)
        let jpeg = try #require(ImageCodec.encode(image, as: .jpeg, quality: 0.9))
        let header = try #require(ImageHeader(data: jpeg))
        #expect(header.format == .jpeg && header.width == 40 && header.height == 30 && header.isComplete)
        let decoded = try #require(ImageCodec.decode(jpeg))
        #expect(decoded.width == 40 && decoded.height == 30)
        #expect(decoded.alphaInfo == .noneSkipLast && decoded.bitsPerPixel == 32)
    }

    @Test func badBytesDecodeToNil() {
        #expect(ImageCodec.decode(Data()) == nil)
        #expect(ImageCodec.decode(Data("just some text".utf8)) == nil)
        var random = SystemRandomNumberGenerator()
        let noise = Data((0 ..< 4096).map { _ in UInt8.random(in: 0 ... 255, using: &random) })
        #expect(ImageCodec.decode(noise) == nil)
        let (image, _) = gradientRGBA(width: 16, height: 16)
        if let png = ImageCodec.encode(image, as: .png) {
            #expect(ImageCodec.decode(png.prefix(png.count / 2)) == nil)
            var corrupt = png
            for i in 40 ..< min(80, corrupt.count) { corrupt[i] ^= 0x5A }
            _ = ImageCodec.decode(corrupt)  // must not crash
        }
    }

    @Test func orientationTransformRotates() throws {
        // 2×1 image: red then green. Orientation 6 (rotate 90° clockwise) gives a 1×2 image, red on top.
        let px: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255]
        let image = try #require(CGImage(width: 2, height: 1, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 8,
                                         space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(alpha: .last),
                                         provider: CGDataProvider(bytes: Data(px)), decode: nil,
                                         shouldInterpolate: true, intent: .defaultIntent))
        let rotated = try #require(ImageTransform.applyingOrientation(6, to: image))
        #expect(rotated.width == 1 && rotated.height == 2)
        #expect([UInt8](rotated.bytes) == px)
        let left = try #require(ImageTransform.applyingOrientation(8, to: image))
        #expect([UInt8](left.bytes) == [0, 255, 0, 255, 255, 0, 0, 255])
        let mirrored = try #require(ImageTransform.applyingOrientation(2, to: image))
        #expect([UInt8](mirrored.bytes) == [0, 255, 0, 255, 255, 0, 0, 255])
    }
}

/// The image's pixels as RGBA8 (alpha 255 added for opaque layouts).
private func rgba(of image: CGImage) -> [UInt8] {
    let bytes = [UInt8](image.bytes)
    var out: [UInt8] = []
    out.reserveCapacity(image.width * image.height * 4)
    let bpp = image.bitsPerPixel / 8
    for y in 0 ..< image.height {
        for x in 0 ..< image.width {
            let i = y * image.bytesPerRow + x * bpp
            switch bpp {
            case 1: out += [bytes[i], bytes[i], bytes[i], 255]
            case 3: out += [bytes[i], bytes[i + 1], bytes[i + 2], 255]
            default: out += [bytes[i], bytes[i + 1], bytes[i + 2], image.alphaInfo == .last ? bytes[i + 3] : 255]
            }
        }
    }
    return out
}
