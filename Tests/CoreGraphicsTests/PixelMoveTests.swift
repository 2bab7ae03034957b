// The pixel moves pixman makes for CGImage and the other modules (PixelRemap) against their
// definitions computed here bit by bit: sub-byte crops, and the rows CVPixelBuffer pads with.
import Foundation
import Testing
import CoreGraphics

@Suite struct PixelMoveTests {
    /// Deterministic bytes (a linear congruential sequence).
    static func noise(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0 ..< count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    /// The crop's rows as the definition says: bit by bit, most significant bit first.
    static func referenceCrop(_ bytes: [UInt8], bytesPerRow: Int, bitsPerPixel: Int,
                              x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
        let rowBytes = (width * bitsPerPixel + 7) / 8
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        for row in 0 ..< height {
            for bit in 0 ..< width * bitsPerPixel {
                let s = x * bitsPerPixel + bit
                if bytes[(y + row) * bytesPerRow + s / 8] >> (7 - UInt8(s % 8)) & 1 != 0 {
                    out[row * rowBytes + bit / 8] |= 1 << (7 - UInt8(bit % 8))
                }
            }
        }
        return out
    }

    @Test("sub-byte crops copy each row's bits from the crop's first pixel", arguments: [1, 2, 4])
    func subByteCrop(bitsPerPixel: Int) throws {
        let gray = CGColorSpaceCreateDeviceGray()
        for (width, height, bytesPerRow) in [(37, 5, 5), (37, 5, 7), (64, 3, 9), (13, 4, 2)]
            where bytesPerRow * 8 >= width * bitsPerPixel {
            let bytes = Self.noise(bytesPerRow * height, seed: UInt32(width * bitsPerPixel))
            let image = try #require(CGImage(width: width, height: height, bitsPerComponent: bitsPerPixel,
                                             bitsPerPixel: bitsPerPixel, bytesPerRow: bytesPerRow, space: gray,
                                             bitmapInfo: CGBitmapInfo(rawValue: 0),
                                             provider: CGDataProvider(data: Data(bytes) as CFData)!, decode: nil,
                                             shouldInterpolate: false, intent: .defaultIntent))
            for (x, y, w, h) in [(0, 0, width, height), (1, 1, width - 1, height - 2), (3, 0, 5, 2),
                                 (width - 1, height - 1, 1, 1), (7, 2, width - 9, 2)] where y + h <= height && x + w <= width {
                let crop = try #require(image.cropping(to: CGRect(x: x, y: y, width: w, height: h)))
                #expect(crop.width == w && crop.height == h && crop.bytesPerRow == (w * bitsPerPixel + 7) / 8)
                #expect(pixels(crop) == Self.referenceCrop(bytes, bytesPerRow: bytesPerRow, bitsPerPixel: bitsPerPixel,
                                                           x: x, y: y, width: w, height: h),
                        "\(bitsPerPixel)-bit \(width)×\(height) row \(bytesPerRow): crop \(x),\(y) \(w)×\(h)")
            }
        }
    }
}
