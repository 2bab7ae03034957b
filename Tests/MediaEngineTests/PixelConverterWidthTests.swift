// Fast BGRA → 4:2:0 at widths that are not a multiple of 16 (a region of a frame, an odd-sized
// clip): every column must be converted, the last ones included.
import CoreVideo
import Foundation
@testable import MediaEngine
import Testing

@Suite struct PixelConverterWidthTests {
    @Test(arguments: [200, 200 + 2, 200 + 6, 200 + 10, 630, 1270, 1280])
    func fastBGRATo420vConvertsTheLastColumns(width: Int) throws {
        let height = 64
        var made: CVPixelBuffer?
        CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &made)
        let bgra = try #require(made)
        CVPixelBufferLockBaseAddress(bgra, [])
        let base = try #require(CVPixelBufferGetBaseAddress(bgra))
        let stride = CVPixelBufferGetBytesPerRow(bgra)
        for y in 0..<height {
            let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width { row[4 * x] = 0; row[4 * x + 1] = 0; row[4 * x + 2] = 255; row[4 * x + 3] = 255 }  // red
        }
        CVPixelBufferUnlockBaseAddress(bgra, [])
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &out)
        let nv12 = try #require(out)
        var options = PixelConverter.Options()
        options.fast = true
        try PixelConverter.shared.transfer(from: bgra, to: nv12, options: options)
        CVPixelBufferLockBaseAddress(nv12, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(nv12, .readOnly) }
        let luma = try #require(CVPixelBufferGetBaseAddressOfPlane(nv12, 0)).assumingMemoryBound(to: UInt8.self)
        let chroma = try #require(CVPixelBufferGetBaseAddressOfPlane(nv12, 1)).assumingMemoryBound(to: UInt8.self)
        let ls = CVPixelBufferGetBytesPerRowOfPlane(nv12, 0), cs = CVPixelBufferGetBytesPerRowOfPlane(nv12, 1)
        // Red in BT.601 video range: Y ≈ 81, Cb ≈ 90, Cr ≈ 240 — in the first and the last columns.
        for x in [0, width / 2, width - 2, width - 1] {
            #expect(abs(Int(luma[10 * ls + x]) - 81) <= 3, "luma at column \(x) of \(width): \(luma[10 * ls + x])")
        }
        for x in [0, width / 2 - 1, width / 2 - 1] {
            let cr = Int(chroma[5 * cs + 2 * x + 1])
            #expect(abs(cr - 240) <= 4, "Cr at chroma column \(x) of \(width / 2): \(cr)")
        }
        let lastCr = Int(chroma[5 * cs + 2 * (width / 2 - 1) + 1])
        #expect(abs(lastCr - 240) <= 4, "Cr at the last chroma column of \(width): \(lastCr)")
    }
}
