// Picture memory goes back to the system when pictures are freed: a player or reader that makes
// and frees large buffers all the time must not keep them resident in malloc's arenas.
import CoreVideo
import Foundation
import Testing

@Suite struct PixelMemoryTests {
    /// Whether the page at `address` is mapped in this process (`mincore` fails with ENOMEM
    /// for an unmapped one).
    private func isMapped(_ address: UInt) -> Bool {
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        var vector: UInt8 = 0
        return mincore(UnsafeMutableRawPointer(bitPattern: address / page * page), Int(page), &vector) == 0
    }

    /// A freed 1080p picture's memory is gone from the process at once (not kept by malloc, whose
    /// arenas held ~150 MB of freed pictures in a player); a small one's stays with malloc.
    @Test func freedPicturesGoBackToTheSystem() {
        // Made, written and dropped inside a function: nothing else holds it afterwards.
        func writeOnePicture() -> (address: UInt, size: Int)? {
            var made: CVPixelBuffer?
            guard CVPixelBufferCreate(nil, 1920, 1080, kCVPixelFormatType_32BGRA, nil, &made) == kCVReturnSuccess,
                  let buffer = made else { return nil }
            CVPixelBufferLockBaseAddress(buffer, [])
            defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
            let size = CVPixelBufferGetDataSize(buffer)
            guard let base = CVPixelBufferGetBaseAddress(buffer) else { return nil }
            memset(base, 0x7F, size)
            #expect(isMapped(UInt(bitPattern: base) + UInt(size) / 2))
            return (UInt(bitPattern: base), size)
        }
        let picture = writeOnePicture()
        #expect(picture != nil)
        if let picture {
            #expect(!isMapped(picture.address + UInt(picture.size) / 2), "the freed picture's memory is still mapped")
        }
        // Pool buffers are recycled while the pool lives, then go back too.
        var pool: CVPixelBufferPool?
        let attributes = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
                          kCVPixelBufferWidthKey as String: 1920, kCVPixelBufferHeightKey as String: 1080] as NSDictionary
        #expect(CVPixelBufferPoolCreate(nil, nil, attributes, &pool) == kCVReturnSuccess)
        var pooled: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool!, &pooled) == kCVReturnSuccess)
        CVPixelBufferLockBaseAddress(pooled!, .readOnly)
        let pooledAddress = UInt(bitPattern: CVPixelBufferGetBaseAddress(pooled!))
        CVPixelBufferUnlockBaseAddress(pooled!, .readOnly)
        pooled = nil
        #expect(isMapped(pooledAddress + 4096))
        CVPixelBufferPoolFlush(pool!, .excessBuffers)
        #expect(!isMapped(pooledAddress + 4096), "the pool's freed block is still mapped")
    }

    @Test func largeBuffersStartZeroed() {
        var made: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 1280, 720, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &made) == kCVReturnSuccess)
        guard let buffer = made else { return }
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        for plane in 0..<2 {
            let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane)!.assumingMemoryBound(to: UInt8.self)
            let size = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane) * CVPixelBufferGetHeightOfPlane(buffer, plane)
            #expect(UnsafeBufferPointer(start: base, count: size).allSatisfy { $0 == 0 })
        }
    }
}
