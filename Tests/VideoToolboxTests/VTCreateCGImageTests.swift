import Foundation
import Testing
import VideoToolbox

@Suite("VTCreateCGImageFromCVPixelBuffer")
struct VTCreateCGImageTests {
    @Test("BGRA buffers give premultipliedFirst, little-endian images with the same bytes")
    func bgra() throws {
        let buffer = Pixels.bgraImage(5, 3) { x, y in (UInt8(x * 40), UInt8(y * 60), 7) }
        var image: CGImage?
        #expect(VTCreateCGImageFromCVPixelBuffer(buffer, options: nil, imageOut: &image) == noErr)
        let cg = try #require(image)
        #expect(cg.width == 5 && cg.height == 3 && cg.bitsPerComponent == 8 && cg.bitsPerPixel == 32)
        #expect(cg.bitmapInfo == CGBitmapInfo(rawValue: CGBitmapInfo.byteOrder32Little.rawValue
                                                  | CGImageAlphaInfo.premultipliedFirst.rawValue))
        #expect(cg.alphaInfo == .premultipliedFirst && cg.byteOrderInfo == .order32Little)
        let data = try #require(cg.dataProvider?.data) as Data
        for (x, y) in [(0, 0), (4, 2), (2, 1)] {
            let o = y * cg.bytesPerRow + x * 4
            #expect(Array(data[o..<o + 4]) == [7, UInt8(y * 60), UInt8(x * 40), 255])
        }
    }

    @Test("Y'CbCr buffers are converted and opaque (noneSkipFirst)")
    func ycbcr() throws {
        let buffer = Pixels.make(Pixels.nv12, 8, 8)
        let s = buffer.storage!
        for y in 0..<8 { memset(s.planes[0].baseAddress + y * s.planes[0].bytesPerRow, 81, 8) }
        for y in 0..<4 {
            for x in 0..<4 {
                (s.planes[1].baseAddress + y * s.planes[1].bytesPerRow + 2 * x).storeBytes(of: UInt8(90), as: UInt8.self)
                (s.planes[1].baseAddress + y * s.planes[1].bytesPerRow + 2 * x + 1).storeBytes(of: UInt8(240), as: UInt8.self)
            }
        }
        var image: CGImage?
        #expect(VTCreateCGImageFromCVPixelBuffer(buffer, options: nil, imageOut: &image) == noErr)
        let cg = try #require(image)
        #expect(cg.alphaInfo == .noneSkipFirst && cg.byteOrderInfo == .order32Little)
        let data = try #require(cg.dataProvider?.data) as Data
        // Memory order B, G, R, X: pure red.
        let pixel = Array(data[(3 * cg.bytesPerRow + 12)..<(3 * cg.bytesPerRow + 16)]).map(Int.init)
        #expect(Pixels.close(pixel, [0, 0, 255, 255], 2), "\(pixel)")
    }

    @Test("buffers without pixels are rejected")
    func errors() {
        var image: CGImage?
        #expect(VTCreateCGImageFromCVPixelBuffer(CVBuffer(storage: nil), options: nil, imageOut: &image) == kVTParameterErr)
        #expect(image == nil)
    }
}
