import Testing
import CoreVideo

@Suite("CVPixelBufferCreate geometry")
struct PixelBufferCreationTests {
    @Test("every supported format at even, odd and 1×1 sizes", arguments: expectedFormats, [(64, 48), (33, 17), (1, 1)])
    func geometry(_ expected: ExpectedFormat, _ size: (Int, Int)) throws {
        let (w, h) = size
        let (status, pb) = makeBuffer(w, h, expected.format)
        #expect(status == kCVReturnSuccess)
        let buffer = try #require(pb)
        #expect(CVPixelBufferGetWidth(buffer) == w)
        #expect(CVPixelBufferGetHeight(buffer) == h)
        #expect(CVPixelBufferGetPixelFormatType(buffer) == expected.format)
        let planes = expected.planes(w, h)
        #expect(CVPixelBufferIsPlanar(buffer) == (planes.count > 1))
        #expect(CVPixelBufferGetPlaneCount(buffer) == (planes.count > 1 ? planes.count : 0))
        #expect(CVPixelBufferGetBaseAddress(buffer) != nil)
        if planes.count == 1 {
            let bpr = CVPixelBufferGetBytesPerRow(buffer)
            #expect(bpr >= planes[0].minRowBytes)
            #expect(bpr % 16 == 0)
            #expect(CVPixelBufferGetDataSize(buffer) >= bpr * h)
            // Non-planar buffers answer the plane queries with 0 / nil, as Apple documents.
            #expect(CVPixelBufferGetWidthOfPlane(buffer, 0) == 0)
            #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, 0) == nil)
        } else {
            var total = 0
            for (i, plane) in planes.enumerated() {
                #expect(CVPixelBufferGetWidthOfPlane(buffer, i) == plane.width, "plane \(i) width")
                #expect(CVPixelBufferGetHeightOfPlane(buffer, i) == plane.height, "plane \(i) height")
                let bpr = CVPixelBufferGetBytesPerRowOfPlane(buffer, i)
                #expect(bpr >= plane.minRowBytes)
                #expect(bpr % 16 == 0)
                #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, i) != nil)
                total += bpr * plane.height
            }
            #expect(CVPixelBufferGetDataSize(buffer) >= total)
            #expect(CVPixelBufferGetBytesPerRow(buffer) * h >= total)
            #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, planes.count) == nil)
        }
    }

    @Test("planes do not overlap: filling each plane leaves the others intact", arguments: expectedFormats)
    func planesAreDisjoint(_ expected: ExpectedFormat) throws {
        let buffer = try #require(makeBuffer(31, 9, expected.format).buffer)
        #expect(CVPixelBufferLockBaseAddress(buffer, []) == kCVReturnSuccess)
        defer { _ = CVPixelBufferUnlockBaseAddress(buffer, []) }
        let count = max(1, CVPixelBufferGetPlaneCount(buffer))
        func region(_ i: Int) -> UnsafeMutableRawBufferPointer {
            if CVPixelBufferIsPlanar(buffer) {
                let base = CVPixelBufferGetBaseAddressOfPlane(buffer, i)!
                return UnsafeMutableRawBufferPointer(start: base, count: CVPixelBufferGetBytesPerRowOfPlane(buffer, i)
                    * CVPixelBufferGetHeightOfPlane(buffer, i))
            }
            return UnsafeMutableRawBufferPointer(start: CVPixelBufferGetBaseAddress(buffer)!,
                                                 count: CVPixelBufferGetBytesPerRow(buffer) * CVPixelBufferGetHeight(buffer))
        }
        for i in 0..<count { region(i).initializeMemory(as: UInt8.self, repeating: UInt8(i + 1)) }
        for i in 0..<count { #expect(region(i).allSatisfy { $0 == UInt8(i + 1) }, "plane \(i)") }
    }

    @Test("a 64×48 BGRA buffer has at least 256 bytes per row and is zeroed")
    func bgra64x48() throws {
        let buffer = try #require(makeBuffer(64, 48, kCVPixelFormatType_32BGRA).buffer)
        #expect(CVPixelBufferGetBytesPerRow(buffer) >= 256)
        let bytes = UnsafeRawBufferPointer(start: CVPixelBufferGetBaseAddress(buffer),
                                           count: CVPixelBufferGetBytesPerRow(buffer) * 48)
        #expect(bytes.allSatisfy { $0 == 0 })
    }

    @Test("420v has two planes with chroma w/2 × h/2")
    func biplanar420v() throws {
        let buffer = try #require(makeBuffer(1920, 1080, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange).buffer)
        #expect(CVPixelBufferGetPlaneCount(buffer) == 2)
        #expect(CVPixelBufferGetWidthOfPlane(buffer, 0) == 1920)
        #expect(CVPixelBufferGetHeightOfPlane(buffer, 0) == 1080)
        #expect(CVPixelBufferGetWidthOfPlane(buffer, 1) == 960)
        #expect(CVPixelBufferGetHeightOfPlane(buffer, 1) == 540)
        #expect(CVPixelBufferGetBytesPerRowOfPlane(buffer, 1) >= 1920)
    }

    @Test("the planar header holds big-endian offsets and row bytes that point at the planes",
          arguments: [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
                      kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8Planar])
    func planarHeader(_ format: OSType) throws {
        let buffer = try #require(makeBuffer(63, 35, format).buffer)
        let base = try #require(CVPixelBufferGetBaseAddress(buffer))
        for i in 0..<CVPixelBufferGetPlaneCount(buffer) {
            let info = base.load(fromByteOffset: i * 8, as: CVPlanarComponentInfo.self)
            #expect(base + Int(Int32(bigEndian: info.offset)) == CVPixelBufferGetBaseAddressOfPlane(buffer, i))
            #expect(Int(UInt32(bigEndian: info.rowBytes)) == CVPixelBufferGetBytesPerRowOfPlane(buffer, i))
        }
    }

    @Test("the bi-planar header reads through CVPlanarPixelBufferInfo_YCbCrBiPlanar")
    func biPlanarStruct() throws {
        let buffer = try #require(makeBuffer(16, 16, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange).buffer)
        let base = try #require(CVPixelBufferGetBaseAddress(buffer))
        let info = base.assumingMemoryBound(to: CVPlanarPixelBufferInfo_YCbCrBiPlanar.self).pointee
        #expect(base + Int(info.componentInfoCbCr.offset.bigEndian) == CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
        #expect(Int(info.componentInfoY.rowBytes.bigEndian) == CVPixelBufferGetBytesPerRowOfPlane(buffer, 0))
        #expect(MemoryLayout<CVPlanarPixelBufferInfo_YCbCrPlanar>.size == 24)
        #expect(MemoryLayout<CVPlanarComponentInfo>.size == 8)
    }

    @Test("declared-only formats fail with kCVReturnInvalidPixelFormat",
          arguments: [kCVPixelFormatType_1Monochrome, kCVPixelFormatType_422YpCbCr10, kCVPixelFormatType_64RGBAHalf,
                      kCVPixelFormatType_DepthFloat32, kCVPixelFormatType_Lossless_32BGRA, OSType(0x1234_5678)])
    func unsupportedFormat(_ format: OSType) {
        let (status, buffer) = makeBuffer(16, 16, format)
        #expect(status == kCVReturnInvalidPixelFormat)
        #expect(buffer == nil)
    }

    @Test("zero and negative sizes fail with kCVReturnInvalidArgument; absurd ones with kCVReturnInvalidSize",
          arguments: [(0, 10, kCVReturnInvalidArgument), (10, 0, kCVReturnInvalidArgument),
                      (-5, 10, kCVReturnInvalidArgument), (10, -1, kCVReturnInvalidArgument),
                      (70_000, 10, kCVReturnInvalidSize), (10, 1 << 20, kCVReturnInvalidSize)])
    func badSizes(_ w: Int, _ h: Int, _ expected: CVReturn) {
        let (status, buffer) = makeBuffer(w, h, kCVPixelFormatType_32BGRA)
        #expect(status == expected)
        #expect(buffer == nil)
    }

    @Test("each buffer is its own object, with its own memory")
    func distinctBuffers() throws {
        let a = try #require(makeBuffer(8, 8, kCVPixelFormatType_32BGRA).buffer)
        let b = try #require(makeBuffer(8, 8, kCVPixelFormatType_32BGRA).buffer)
        #expect(a != b)
        #expect(CVPixelBufferGetBaseAddress(a) != CVPixelBufferGetBaseAddress(b))
        #expect(a.description.contains("BGRA"))
    }
}
