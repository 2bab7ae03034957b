// CVPixelBufferFillExtendedPixels against its definition — every padding pixel is the nearest
// image pixel (the edge replicated outward) — for pixels of 1, 3, 4 and 8 bytes, with rows
// aligned as usual and rows of any length.
import CoreVideo
import Foundation
import Testing

@Suite struct ExtendedPixelTests {
    @Test("every padding pixel is the nearest image pixel",
          arguments: [(kCVPixelFormatType_OneComponent8, 1), (kCVPixelFormatType_24RGB, 3),
                      (kCVPixelFormatType_32BGRA, 4), (kCVPixelFormatType_64ARGB, 8)])
    func edgesReplicate(format: OSType, bytesPerPixel: Int) throws {
        let (width, height) = (7, 5)
        let (left, right, top, bottom) = (3, 5, 2, 3)
        for alignment in [1, 64] {
            let buffer = try #require(makeBuffer(width, height, format, [
                kCVPixelBufferExtendedPixelsLeftKey as String: left, kCVPixelBufferExtendedPixelsRightKey as String: right,
                kCVPixelBufferExtendedPixelsTopKey as String: top, kCVPixelBufferExtendedPixelsBottomKey as String: bottom,
                kCVPixelBufferBytesPerRowAlignmentKey as String: alignment,
            ]).buffer)
            _ = CVPixelBufferLockBaseAddress(buffer, [])
            defer { _ = CVPixelBufferUnlockBaseAddress(buffer, []) }
            let base = try #require(CVPixelBufferGetBaseAddress(buffer))
            let bytesPerRow = CVPixelBufferGetBytesPerRow(buffer)
            var state: UInt32 = 12345
            for y in 0 ..< height {
                for i in 0 ..< width * bytesPerPixel {
                    state = state &* 1_664_525 &+ 1_013_904_223
                    base.storeBytes(of: UInt8(truncatingIfNeeded: state >> 24), toByteOffset: y * bytesPerRow + i, as: UInt8.self)
                }
            }
            #expect(CVPixelBufferFillExtendedPixels(buffer) == kCVReturnSuccess)
            func pixel(_ x: Int, _ y: Int) -> [UInt8] {
                (0 ..< bytesPerPixel).map { base.load(fromByteOffset: y * bytesPerRow + x * bytesPerPixel + $0, as: UInt8.self) }
            }
            var wrong = 0
            for y in -top ..< height + bottom {
                for x in -left ..< width + right where pixel(x, y) != pixel(min(max(x, 0), width - 1), min(max(y, 0), height - 1)) {
                    wrong += 1
                }
            }
            #expect(wrong == 0, "\(bytesPerPixel)-byte pixels, \(bytesPerRow) bytes per row: \(wrong) padding pixels wrong")
        }
    }
}
