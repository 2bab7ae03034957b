import Testing
import CoreVideo

/// What the release callbacks saw, reached through the refCon.
struct ReleaseRecord {
    var calls = 0
    var baseAddress: UnsafeRawPointer?
    var dataSize = 0
    var planeCount = 0
    var firstPlane: UnsafeRawPointer?
}

@Suite("CVPixelBufferCreateWithBytes / WithPlanarBytes")
struct PixelBufferWithBytesTests {
    @Test("wraps the caller's memory and releases it exactly once, after the last reference")
    func wrapsAndReleasesOnce() throws {
        let bytesPerRow = 40 * 4 + 16
        let memory = UnsafeMutableRawPointer.allocate(byteCount: bytesPerRow * 30, alignment: 16)
        defer { memory.deallocate() }
        let record = UnsafeMutablePointer<ReleaseRecord>.allocate(capacity: 1)
        record.initialize(to: ReleaseRecord())
        defer { record.deallocate() }

        var pb: CVPixelBuffer?
        let status = CVPixelBufferCreateWithBytes(nil, 40, 30, kCVPixelFormatType_32BGRA, memory, bytesPerRow, { refCon, base in
            let r = refCon!.assumingMemoryBound(to: ReleaseRecord.self)
            r.pointee.calls += 1
            r.pointee.baseAddress = base
        }, record, nil, &pb)
        #expect(status == kCVReturnSuccess)
        do {
            let buffer = try #require(pb)
            #expect(CVPixelBufferGetBaseAddress(buffer) == memory)
            #expect(CVPixelBufferGetBytesPerRow(buffer) == bytesPerRow)
            #expect(CVPixelBufferGetWidth(buffer) == 40)
            #expect(CVPixelBufferGetDataSize(buffer) == bytesPerRow * 30)
        }
        var second: CVPixelBuffer? = pb
        pb = nil
        withExtendedLifetime(second) { #expect(record.pointee.calls == 0) }
        second = nil
        #expect(record.pointee.calls == 1)
        #expect(record.pointee.baseAddress == UnsafeRawPointer(memory))
    }

    @Test("a nil release callback is allowed")
    func nilCallback() throws {
        var storage = [UInt8](repeating: 7, count: 16 * 4 * 4)
        try storage.withUnsafeMutableBytes { raw in
            var pb: CVPixelBuffer?
            #expect(CVPixelBufferCreateWithBytes(nil, 16, 4, kCVPixelFormatType_32BGRA, raw.baseAddress!, 64, nil, nil, nil,
                                                 &pb) == kCVReturnSuccess)
            let buffer = try #require(pb)
            #expect(CVPixelBufferGetBaseAddress(buffer)!.load(as: UInt8.self) == 7)
        }
    }

    @Test("rejects short rows, planar and unknown formats, bad sizes; the callback is not called")
    func rejects() {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: 16)
        defer { memory.deallocate() }
        let record = UnsafeMutablePointer<ReleaseRecord>.allocate(capacity: 1)
        record.initialize(to: ReleaseRecord())
        defer { record.deallocate() }
        let callback: CVPixelBufferReleaseBytesCallback = { refCon, _ in
            refCon!.assumingMemoryBound(to: ReleaseRecord.self).pointee.calls += 1
        }
        var pb: CVPixelBuffer?
        #expect(CVPixelBufferCreateWithBytes(nil, 16, 4, kCVPixelFormatType_32BGRA, memory, 32, callback, record, nil, &pb)
            == kCVReturnInvalidArgument)
        #expect(CVPixelBufferCreateWithBytes(nil, 16, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, memory, 64,
                                             callback, record, nil, &pb) == kCVReturnInvalidPixelFormat)
        #expect(CVPixelBufferCreateWithBytes(nil, 16, 4, kCVPixelFormatType_48RGB, memory, 128, callback, record, nil, &pb)
            == kCVReturnInvalidPixelFormat)
        #expect(CVPixelBufferCreateWithBytes(nil, 0, 4, kCVPixelFormatType_32BGRA, memory, 64, callback, record, nil, &pb)
            == kCVReturnInvalidArgument)
        #expect(pb == nil)
        #expect(record.pointee.calls == 0)
    }

    @Test("planar bytes: planes are the caller's, the callback gets every argument back once")
    func planarBytes() throws {
        let w = 20, h = 10
        let yRow = 32, cRow = 32
        let block = UnsafeMutableRawPointer.allocate(byteCount: yRow * h + cRow * (h / 2), alignment: 16)
        defer { block.deallocate() }
        var addresses: [UnsafeMutableRawPointer?] = [block, block + yRow * h]
        var widths = [w, w / 2], heights = [h, h / 2], rows = [yRow, cRow]
        let record = UnsafeMutablePointer<ReleaseRecord>.allocate(capacity: 1)
        record.initialize(to: ReleaseRecord())
        defer { record.deallocate() }
        var pb: CVPixelBuffer?
        let status = CVPixelBufferCreateWithPlanarBytes(nil, w, h, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, nil, 0, 2,
                                                        &addresses, &widths, &heights, &rows,
                                                        { refCon, _, dataSize, planes, planeAddresses in
            let r = refCon!.assumingMemoryBound(to: ReleaseRecord.self)
            r.pointee.calls += 1
            r.pointee.dataSize = dataSize
            r.pointee.planeCount = planes
            r.pointee.firstPlane = planeAddresses?[0]
        }, record, nil, &pb)
        #expect(status == kCVReturnSuccess)
        var buffer = pb
        pb = nil
        #expect(CVPixelBufferGetPlaneCount(buffer!) == 2)
        #expect(CVPixelBufferGetBaseAddressOfPlane(buffer!, 1) == block + yRow * h)
        #expect(CVPixelBufferGetBytesPerRowOfPlane(buffer!, 1) == cRow)
        #expect(CVPixelBufferGetWidthOfPlane(buffer!, 1) == 10)
        #expect(CVPixelBufferGetBaseAddress(buffer!) == nil)
        #expect(record.pointee.calls == 0)
        buffer = nil
        #expect(record.pointee.calls == 1)
        #expect(record.pointee.planeCount == 2)
        #expect(record.pointee.firstPlane == UnsafeRawPointer(block))
    }

    @Test("planar bytes with the wrong plane count or a nil plane fail")
    func planarBytesRejects() {
        let block = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 16)
        defer { block.deallocate() }
        var addresses: [UnsafeMutableRawPointer?] = [block, nil, nil]
        var widths = [8, 4, 4], heights = [8, 4, 4], rows = [16, 16, 16]
        var pb: CVPixelBuffer?
        #expect(CVPixelBufferCreateWithPlanarBytes(nil, 8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, 0, 3,
                                                   &addresses, &widths, &heights, &rows, nil, nil, nil, &pb)
            == kCVReturnInvalidArgument)
        #expect(CVPixelBufferCreateWithPlanarBytes(nil, 8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, 0, 2,
                                                   &addresses, &widths, &heights, &rows, nil, nil, nil, &pb)
            == kCVReturnInvalidArgument)
        #expect(CVPixelBufferCreateWithPlanarBytes(nil, 8, 8, kCVPixelFormatType_32BGRA, nil, 0, 1,
                                                   &addresses, &widths, &heights, &rows, nil, nil, nil, &pb)
            == kCVReturnInvalidPixelFormat)
        #expect(pb == nil)
    }
}

@Suite("Base address locking")
struct LockTests {
    @Test("lock then unlock succeeds; locks nest")
    func nested() throws {
        let buffer = try #require(makeBuffer(4, 4, kCVPixelFormatType_32BGRA).buffer)
        #expect(CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)
        #expect(CVPixelBufferLockBaseAddress(buffer, []) == kCVReturnSuccess)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, []) == kCVReturnSuccess)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnError)
    }

    @Test("unlocking a buffer that was never locked returns kCVReturnError")
    func unbalancedUnlock() throws {
        let buffer = try #require(makeBuffer(4, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange).buffer)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, []) == kCVReturnError)
        #expect(CVPixelBufferLockFlags.readOnly.rawValue == 1)
    }
}
