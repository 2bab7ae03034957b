import Testing
@testable import CoreMedia

private func makeBlock(_ bytes: [UInt8]) -> CMBlockBuffer {
    var bb: CMBlockBuffer?
    let status = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: bytes.count, blockAllocator: nil,
                                                    customBlockSource: nil, offsetToData: 0, dataLength: bytes.count,
                                                    flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &bb)
    precondition(status == noErr)
    _ = bytes.withUnsafeBytes { CMBlockBufferReplaceDataBytes(with: $0.baseAddress!, blockBuffer: bb!, offsetIntoDestination: 0, dataLength: bytes.count) }
    return bb!
}

private func contents(_ b: CMBlockBuffer) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: CMBlockBufferGetDataLength(b))
    let s = out.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(b, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
    precondition(s == noErr)
    return out
}

/// Counts FreeBlock calls through the refCon.
private final class FreeCounter { var count = 0; var lastSize = 0 }

@Suite struct CMBlockBufferTests {
    @Test func errorCodesAndFlags() {
        #expect(kCMBlockBufferStructureAllocationFailedErr == -12700)
        #expect(kCMBlockBufferBadLengthParameterErr == -12704)
        #expect(kCMBlockBufferInsufficientSpaceErr == -12708)
        #expect(kCMBlockBufferPermitEmptyReferenceFlag == 8)
    }

    @Test func emptyBuffer() {
        var bb: CMBlockBuffer?
        #expect(CMBlockBufferCreateEmpty(allocator: nil, capacity: 0, flags: 0, blockBufferOut: &bb) == kCMBlockBufferNoErr)
        #expect(CMBlockBufferIsEmpty(bb!))
        #expect(CMBlockBufferGetDataLength(bb!) == 0)
        #expect(bb!.isEmpty)
    }

    @Test func copyAndReplaceAcrossAppendedBlocks() {
        var bb: CMBlockBuffer?
        _ = CMBlockBufferCreateEmpty(allocator: nil, capacity: 4, flags: 0, blockBufferOut: &bb)
        let buffer = bb!
        let a = makeBlock([1, 2, 3, 4]), b = makeBlock([5, 6, 7]), c = makeBlock([8, 9, 10, 11, 12])
        #expect(CMBlockBufferAppendBufferReference(buffer, targetBBuf: a, offsetToData: 0, dataLength: 4, flags: 0) == noErr)
        #expect(CMBlockBufferAppendBufferReference(buffer, targetBBuf: b, offsetToData: 0, dataLength: 3, flags: 0) == noErr)
        #expect(CMBlockBufferAppendBufferReference(buffer, targetBBuf: c, offsetToData: 1, dataLength: 3, flags: 0) == noErr)
        #expect(contents(buffer) == [1, 2, 3, 4, 5, 6, 7, 9, 10, 11])
        var mid = [UInt8](repeating: 0, count: 5)
        #expect(mid.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(buffer, atOffset: 2, dataLength: 5, destination: $0.baseAddress!) } == noErr)
        #expect(mid == [3, 4, 5, 6, 7])
        let patch: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
        #expect(patch.withUnsafeBytes { CMBlockBufferReplaceDataBytes(with: $0.baseAddress!, blockBuffer: buffer, offsetIntoDestination: 3, dataLength: 6) } == noErr)
        #expect(contents(buffer) == [1, 2, 3, 0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 11])
        // References share memory: the referenced block sees the replacement.
        #expect(contents(a) == [1, 2, 3, 0xA0])
        #expect(!CMBlockBufferIsRangeContiguous(buffer, atOffset: 2, length: 4))
        #expect(CMBlockBufferIsRangeContiguous(buffer, atOffset: 4, length: 3))
    }

    @Test func fillAccessAndDataPointer() {
        var bb: CMBlockBuffer?
        _ = CMBlockBufferCreateEmpty(allocator: nil, capacity: 2, flags: 0, blockBufferOut: &bb)
        #expect(CMBlockBufferAppendMemoryBlock(bb!, memoryBlock: nil, length: 4, blockAllocator: nil, customBlockSource: nil,
                                               offsetToData: 0, dataLength: 4, flags: 0) == noErr)
        #expect(CMBlockBufferAppendMemoryBlock(bb!, memoryBlock: nil, length: 4, blockAllocator: nil, customBlockSource: nil,
                                               offsetToData: 0, dataLength: 4, flags: 0) == noErr)
        // Not yet allocated.
        #expect(CMBlockBufferGetDataPointer(bb!, atOffset: 0, lengthAtOffsetOut: nil, totalLengthOut: nil, dataPointerOut: nil)
                == kCMBlockBufferUnallocatedBlockErr)
        #expect(CMBlockBufferFillDataBytes(with: 7, blockBuffer: bb!, offsetIntoDestination: 0, dataLength: 8) == noErr)
        #expect(contents(bb!) == [UInt8](repeating: 7, count: 8))
        var length = 0, total = 0
        var pointer: UnsafeMutablePointer<CChar>?
        #expect(CMBlockBufferGetDataPointer(bb!, atOffset: 5, lengthAtOffsetOut: &length, totalLengthOut: &total, dataPointerOut: &pointer) == noErr)
        #expect(length == 3 && total == 8 && pointer?.pointee == 7)
        let temp = UnsafeMutableRawPointer.allocate(byteCount: 4, alignment: 1)
        defer { temp.deallocate() }
        var returned: UnsafeMutablePointer<CChar>?
        #expect(CMBlockBufferAccessDataBytes(bb!, atOffset: 2, length: 4, temporaryBlock: temp, returnedPointerOut: &returned) == noErr)
        #expect(UnsafeMutableRawPointer(returned!) == temp)  // spans two blocks: copied
        #expect(CMBlockBufferAccessDataBytes(bb!, atOffset: 4, length: 2, temporaryBlock: temp, returnedPointerOut: &returned) == noErr)
        #expect(UnsafeMutableRawPointer(returned!) != temp)  // contiguous: direct
    }

    @Test func createContiguousCopiesSplitRanges() {
        var bb: CMBlockBuffer?
        _ = CMBlockBufferCreateEmpty(allocator: nil, capacity: 2, flags: 0, blockBufferOut: &bb)
        _ = CMBlockBufferAppendBufferReference(bb!, targetBBuf: makeBlock([1, 2, 3]), offsetToData: 0, dataLength: 3, flags: 0)
        _ = CMBlockBufferAppendBufferReference(bb!, targetBBuf: makeBlock([4, 5]), offsetToData: 0, dataLength: 2, flags: 0)
        var flat: CMBlockBuffer?
        #expect(CMBlockBufferCreateContiguous(allocator: nil, sourceBuffer: bb!, blockAllocator: nil, customBlockSource: nil,
                                              offsetToData: 1, dataLength: 0, flags: 0, blockBufferOut: &flat) == noErr)
        #expect(contents(flat!) == [2, 3, 4, 5])
        #expect(CMBlockBufferIsRangeContiguous(flat!, atOffset: 0, length: 4))
        #expect((try? flat!.dataBytes()) == Data([2, 3, 4, 5]))
    }

    @Test func nullAllocatorNeverFreesCallerMemory() {
        let size = 777
        let memory = malloc(size)!
        memset(memory, 0x5A, size)
        do {
            var bb: CMBlockBuffer?
            #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: memory, blockLength: size, blockAllocator: kCFAllocatorNull,
                                                       customBlockSource: nil, offsetToData: 0, dataLength: size, flags: 0,
                                                       blockBufferOut: &bb) == noErr)
            #expect(CMBlockBufferGetDataLength(bb!) == size)
        }
        // Still ours: intact, and glibc does not hand the same chunk out again.
        #expect(memory.load(fromByteOffset: size - 1, as: UInt8.self) == 0x5A)
        let other = malloc(size)!
        #expect(other != memory)
        free(other)
        free(memory)
    }

    @Test func defaultAllocatorTakesOwnershipAndFrees() {
        let size = 777
        let memory = malloc(size)!
        do {
            var bb: CMBlockBuffer?
            #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: memory, blockLength: size, blockAllocator: nil,
                                                       customBlockSource: nil, offsetToData: 0, dataLength: size, flags: 0,
                                                       blockBufferOut: &bb) == noErr)
        }
        // The block was freed: glibc's per-thread cache gives the same chunk back to the next malloc.
        let again = malloc(size)!
        #expect(again == memory)
        free(again)
    }

    @Test func customBlockSourceFreesExactlyOnce() {
        let counter = FreeCounter()
        var source = CMBlockBufferCustomBlockSource(
            version: kCMBlockBufferCustomBlockSourceVersion,
            AllocateBlock: { _, size in malloc(size) },
            FreeBlock: { refCon, block, size in
                let c = Unmanaged<FreeCounter>.fromOpaque(refCon!).takeUnretainedValue()
                c.count += 1
                c.lastSize = size
                free(block)
            },
            refCon: Unmanaged.passUnretained(counter).toOpaque())
        do {
            var bb: CMBlockBuffer?
            #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 64, blockAllocator: nil,
                                                       customBlockSource: &source, offsetToData: 0, dataLength: 64, flags: 0,
                                                       blockBufferOut: &bb) == noErr)
            #expect(CMBlockBufferAssureBlockMemory(bb!) == noErr)
            var ref: CMBlockBuffer?
            #expect(CMBlockBufferCreateWithBufferReference(allocator: nil, referenceBuffer: bb!, offsetToData: 8, dataLength: 8,
                                                           flags: 0, blockBufferOut: &ref) == noErr)
            bb = nil
            #expect(counter.count == 0)  // still referenced
            #expect(CMBlockBufferGetDataLength(ref!) == 8)
        }
        #expect(counter.count == 1)
        #expect(counter.lastSize == 64)
    }

    @Test func wrappingInitReleasesOnce() {
        let counter = FreeCounter()
        let memory = malloc(16)!
        let address = UInt(bitPattern: memory)
        nonisolated(unsafe) let c = counter
        do {
            let bb = CMBlockBuffer(wrapping: memory, length: 16) { c.count += 1; free(UnsafeMutableRawPointer(bitPattern: address)) }
            #expect(CMBlockBufferGetDataLength(bb) == 16)
        }
        #expect(counter.count == 1)
    }

    @Test func invalidParametersReturnCodes() {
        var bb: CMBlockBuffer?
        #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 0, blockAllocator: nil, customBlockSource: nil,
                                                   offsetToData: 0, dataLength: 0, flags: 0, blockBufferOut: &bb) == kCMBlockBufferBadLengthParameterErr)
        #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 8, blockAllocator: nil, customBlockSource: nil,
                                                   offsetToData: 9, dataLength: 0, flags: 0, blockBufferOut: &bb) == kCMBlockBufferBadOffsetParameterErr)
        #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 8, blockAllocator: nil, customBlockSource: nil,
                                                   offsetToData: 4, dataLength: 5, flags: 0, blockBufferOut: &bb) == kCMBlockBufferBadLengthParameterErr)
        var badSource = CMBlockBufferCustomBlockSource()
        badSource.version = 7
        #expect(CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 8, blockAllocator: nil, customBlockSource: &badSource,
                                                   offsetToData: 0, dataLength: 8, flags: 0, blockBufferOut: &bb) == kCMBlockBufferBadCustomBlockSourceErr)
        let block = makeBlock([1, 2, 3])
        var out = [UInt8](repeating: 0, count: 8)
        #expect(out.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(block, atOffset: 1, dataLength: 5, destination: $0.baseAddress!) }
                == kCMBlockBufferBadLengthParameterErr)
        #expect(CMBlockBufferGetDataPointer(block, atOffset: 3, lengthAtOffsetOut: nil, totalLengthOut: nil, dataPointerOut: nil)
                == kCMBlockBufferBadOffsetParameterErr)
        var empty: CMBlockBuffer?
        _ = CMBlockBufferCreateEmpty(allocator: nil, capacity: 0, flags: 0, blockBufferOut: &empty)
        #expect(CMBlockBufferCreateWithBufferReference(allocator: nil, referenceBuffer: empty!, offsetToData: 0, dataLength: 0, flags: 0,
                                                       blockBufferOut: &bb) == kCMBlockBufferEmptyBBufErr)
        #expect(CMBlockBufferCreateWithBufferReference(allocator: nil, referenceBuffer: empty!, offsetToData: 0, dataLength: 0,
                                                       flags: kCMBlockBufferPermitEmptyReferenceFlag, blockBufferOut: &bb) == noErr)
    }
}
