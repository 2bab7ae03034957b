// The engine's per-pixel passes that run in pixman and VOLK, against their definitions computed
// here pixel by pixel: EXIF turns of every pixel size, the opaque-alpha pass of FrameImage and
// the un-premultiplication before PNG/TIFF.
import CoreGraphics
import CoreVideo
import Foundation
import Testing
@testable import MediaEngine

@Suite struct PixelPassTests {
    static func noise(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0 ..< count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test("EXIF orientations move whole pixels of any size where their definition says",
          arguments: [8, 16, 24, 32, 48, 64, 96, 128])
    func orientations(bitsPerPixel: Int) throws {
        let bytesPerPixel = bitsPerPixel / 8
        let (w, h) = (5, 3)
        for bytesPerRow in [w * bytesPerPixel, w * bytesPerPixel + 3] {
            let bytes = Self.noise(bytesPerRow * h, seed: UInt32(bitsPerPixel + bytesPerRow))
            // The layout only needs to be valid; the bytes move as they are.
            let (bpc, space, info): (Int, CGColorSpace, UInt32) = switch bitsPerPixel {
            case 8: (8, CGColorSpaceCreateDeviceGray(), CGImageAlphaInfo.none.rawValue)
            case 16: (16, CGColorSpaceCreateDeviceGray(), CGImageAlphaInfo.none.rawValue)
            case 24: (8, CGColorSpaceCreateDeviceRGB(), CGImageAlphaInfo.none.rawValue)
            case 32: (8, CGColorSpaceCreateDeviceRGB(), CGImageAlphaInfo.premultipliedLast.rawValue)
            case 48: (16, CGColorSpaceCreateDeviceRGB(), CGImageAlphaInfo.none.rawValue)
            case 64: (16, CGColorSpaceCreateDeviceRGB(), CGImageAlphaInfo.last.rawValue)
            case 96: (32, CGColorSpaceCreateDeviceRGB(), CGImageAlphaInfo.none.rawValue | CGBitmapInfo.floatComponents.rawValue)
            default: (32, CGColorSpaceCreateDeviceRGB(), CGImageAlphaInfo.last.rawValue | CGBitmapInfo.floatComponents.rawValue)
            }
            let image = try #require(CGImage(width: w, height: h, bitsPerComponent: bpc, bitsPerPixel: bitsPerPixel,
                                             bytesPerRow: bytesPerRow, space: space, bitmapInfo: CGBitmapInfo(rawValue: info),
                                             provider: CGDataProvider(data: Data(bytes) as CFData)!, decode: nil,
                                             shouldInterpolate: true, intent: .defaultIntent))
            for orientation in 2 ... 8 {
                let turned = try #require(ImageTransform.applyingOrientation(orientation, to: image))
                let swaps = orientation >= 5
                let (ow, oh) = swaps ? (h, w) : (w, h)
                #expect(turned.width == ow && turned.height == oh && turned.bytesPerRow == ow * bytesPerPixel)
                var expected: [UInt8] = []
                for dy in 0 ..< oh {
                    for dx in 0 ..< ow {
                        let (sx, sy): (Int, Int) = switch orientation {
                        case 2: (w - 1 - dx, dy)
                        case 3: (w - 1 - dx, h - 1 - dy)
                        case 4: (dx, h - 1 - dy)
                        case 5: (dy, dx)
                        case 6: (dy, h - 1 - dx)
                        case 7: (w - 1 - dy, h - 1 - dx)
                        default: (w - 1 - dy, dx)
                        }
                        expected += bytes[(sy * bytesPerRow + sx * bytesPerPixel)...].prefix(bytesPerPixel)
                    }
                }
                #expect([UInt8](turned.bytes) == expected, "\(bitsPerPixel)-bit, \(bytesPerRow) bytes per row, orientation \(orientation)")
            }
        }
    }

    @Test("a picture with alpha becomes an opaque CGImage with its colours unchanged")
    func opaquePass() throws {
        let (w, h) = (13, 7)
        var buffer: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, w, h, kCVPixelFormatType_32BGRA, nil, &buffer) == kCVReturnSuccess)
        let pixelBuffer = try #require(buffer)
        let bytes = Self.noise(w * h * 4, seed: 99)
        CVPixelBufferLockBaseAddress(pixelBuffer, [])
        let base = try #require(CVPixelBufferGetBaseAddress(pixelBuffer))
        let rowStride = CVPixelBufferGetBytesPerRow(pixelBuffer)
        for y in 0 ..< h {
            for i in 0 ..< w * 4 { base.storeBytes(of: bytes[y * w * 4 + i], toByteOffset: y * rowStride + i, as: UInt8.self) }
        }
        CVPixelBufferUnlockBaseAddress(pixelBuffer, [])
        let image = try FrameImage.makeCGImage(from: pixelBuffer, width: w, height: h)
        var expected = bytes
        for i in stride(from: 3, to: expected.count, by: 4) { expected[i] = 255 }
        #expect([UInt8](image.bytes) == expected)
    }

    /// The integer definition: a == 0 ? 0 : min(M, (c·M + a/2) / a).
    static func straight(_ c: UInt32, _ a: UInt32, max m: UInt32) -> UInt32 { a == 0 ? 0 : min(m, (c * m + a / 2) / a) }

    @Test("un-premultiplying 8-bit samples gives the integer definition for every colour and alpha",
          arguments: [2, 4])
    func unpremultiply8(components: Int) throws {
        // Every (colour, alpha) pair, in rows of 256 pixels whose colours are all c and alphas 0…255.
        let width = 256, height = 256
        let linesize = width * components + 12
        var rows = [UInt8](repeating: 0, count: linesize * height)
        for c in 0 ..< 256 {
            for a in 0 ..< 256 {
                let p = c * linesize + a * components
                for k in 0 ..< components - 1 { rows[p + k] = UInt8((c + k * 85) % 256) }
                rows[p + components - 1] = UInt8(a)
            }
        }
        let original = rows
        let done = rows.withUnsafeMutableBytes {
            AlphaUnpremultiply.unpremultiply($0.baseAddress!, width: width, height: height, linesize: linesize,
                                             components: components, is16Bit: false)
        }
        #expect(done)
        var wrong = 0
        for y in 0 ..< height {
            for x in 0 ..< width {
                let p = y * linesize + x * components
                let a = UInt32(original[p + components - 1])
                for k in 0 ..< components - 1 where UInt32(rows[p + k]) != Self.straight(UInt32(original[p + k]), a, max: 255) {
                    wrong += 1
                }
                if rows[p + components - 1] != original[p + components - 1] { wrong += 1 }
            }
            for pad in y * linesize + width * components ..< (y + 1) * linesize where rows[pad] != 0 { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test("un-premultiplying 16-bit big-endian samples gives the integer definition")
    func unpremultiply16() throws {
        let components = 4, width = 1000, height = 70
        let linesize = width * components * 2
        let noise = Self.noise(width * height * 8, seed: 7)
        var rows = [UInt8](repeating: 0, count: linesize * height)
        var state: UInt32 = 5
        for i in 0 ..< width * height {
            state = state &* 1_664_525 &+ 1_013_904_223
            // Alphas across the range, small ones often; colours at most alpha, some above.
            let a: UInt32 = switch i % 5 {
            case 0: state >> 16
            case 1: state >> 28
            case 2: 65535
            case 3: 0
            default: (state >> 16) | 1
            }
            for k in 0 ..< 3 {
                let r = UInt32(noise[i * 8 + k * 2]) << 8 | UInt32(noise[i * 8 + k * 2 + 1])
                let c = i % 7 == 0 ? r : (a == 0 ? 0 : r % (a + 1))
                rows[i * 8 + k * 2] = UInt8(c >> 8)
                rows[i * 8 + k * 2 + 1] = UInt8(c & 0xFF)
            }
            rows[i * 8 + 6] = UInt8(a >> 8)
            rows[i * 8 + 7] = UInt8(a & 0xFF)
        }
        // Exact halves: c·65535/a = k + ½ (a even), which must round up.
        rows[0 ..< 8] = [0x00, 0x01, 0x00, 0x03, 0x7F, 0xFF, 0x00, 0x02][...]
        let original = rows
        let done = rows.withUnsafeMutableBytes {
            AlphaUnpremultiply.unpremultiply($0.baseAddress!, width: width, height: height, linesize: linesize,
                                             components: components, is16Bit: true)
        }
        #expect(done)
        func sample(_ bytes: [UInt8], _ i: Int) -> UInt32 { UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1]) }
        var wrong = 0
        for i in 0 ..< width * height {
            let a = sample(original, i * 8 + 6)
            for k in 0 ..< 3 where sample(rows, i * 8 + k * 2) != Self.straight(sample(original, i * 8 + k * 2), a, max: 65535) {
                wrong += 1
            }
            if sample(rows, i * 8 + 6) != a { wrong += 1 }
        }
        #expect(wrong == 0)
        #expect(sample(rows, 0) == 32768 && sample(rows, 2) == 65535)
    }
}
