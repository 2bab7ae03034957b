// The C API of CMBlockBuffer.

private func makeMemory(_ memoryBlock: UnsafeMutableRawPointer?, _ blockLength: Int, _ blockAllocator: CFAllocator?,
                        _ customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?, _ offsetToData: Int,
                        _ dataLength: Int, _ flags: CMBlockBufferFlags) -> (CMBlockBufferSegment?, OSStatus) {
    guard blockLength > 0 else { return (nil, kCMBlockBufferBadLengthParameterErr) }
    guard offsetToData >= 0, offsetToData <= blockLength else { return (nil, kCMBlockBufferBadOffsetParameterErr) }
    guard dataLength >= 0, offsetToData + dataLength <= blockLength else { return (nil, kCMBlockBufferBadLengthParameterErr) }
    let source: CMBlockBufferMemory.Source
    if let custom = customBlockSource?.pointee {
        guard custom.version == kCMBlockBufferCustomBlockSourceVersion,
              memoryBlock != nil || custom.AllocateBlock != nil else { return (nil, kCMBlockBufferBadCustomBlockSourceErr) }
        source = .custom(custom)
    } else if blockAllocator.isNullAllocator {
        guard memoryBlock != nil else { return (nil, kCMBlockBufferBadCustomBlockSourceErr) }
        source = .none
    } else {
        source = .system
    }
    let memory = CMBlockBufferMemory(pointer: memoryBlock, capacity: blockLength, source: source)
    if flags & kCMBlockBufferAssureMemoryNowFlag != 0 {
        let status = memory.assure()
        if status != noErr { return (nil, status) }
    }
    return (CMBlockBufferSegment(memory: memory, offset: offsetToData, length: dataLength), noErr)
}

private func referenceSegments(_ target: CMBlockBuffer, _ offsetToData: Int, _ dataLength: Int,
                               _ flags: CMBlockBufferFlags) -> ([CMBlockBufferSegment]?, OSStatus) {
    let total = target.length
    if total == 0 {
        guard flags & kCMBlockBufferPermitEmptyReferenceFlag != 0 else { return (nil, kCMBlockBufferEmptyBBufErr) }
        guard offsetToData == 0, dataLength == 0 else { return (nil, kCMBlockBufferBadLengthParameterErr) }
        return ([], noErr)
    }
    guard offsetToData >= 0, offsetToData <= total else { return (nil, kCMBlockBufferBadOffsetParameterErr) }
    guard dataLength >= 0, offsetToData + dataLength <= total else { return (nil, kCMBlockBufferBadLengthParameterErr) }
    let pieces = target.segments(in: offsetToData, dataLength)
    if flags & kCMBlockBufferAssureMemoryNowFlag != 0 {
        for p in pieces {
            let status = p.memory.assure()
            if status != noErr { return (nil, status) }
        }
    }
    return (pieces, noErr)
}

/// Creates an empty block buffer, to which memory blocks and references can be appended.
@discardableResult
public func CMBlockBufferCreateEmpty(allocator structureAllocator: CFAllocator?, capacity subBlockCapacity: UInt32,
                                     flags: CMBlockBufferFlags, blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    blockBufferOut.pointee = CMBlockBuffer()
    return kCMBlockBufferNoErr
}

/// Creates a block buffer over one memory block. With a nil `memoryBlock` the block is allocated
/// on demand (or now, with kCMBlockBufferAssureMemoryNowFlag); a given block is freed with free()
/// when the buffer goes away unless `blockAllocator` is kCFAllocatorNull; a custom block source
/// allocates and frees instead.
@discardableResult
public func CMBlockBufferCreateWithMemoryBlock(allocator structureAllocator: CFAllocator?, memoryBlock: UnsafeMutableRawPointer?,
                                               blockLength: Int, blockAllocator: CFAllocator?,
                                               customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?,
                                               offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags,
                                               blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    let (segment, status) = makeMemory(memoryBlock, blockLength, blockAllocator, customBlockSource, offsetToData, dataLength, flags)
    guard let segment else {
        blockBufferOut.pointee = nil
        return status
    }
    blockBufferOut.pointee = CMBlockBuffer(segments: [segment])
    return kCMBlockBufferNoErr
}

/// Creates a block buffer referring to a range of another.
@discardableResult
public func CMBlockBufferCreateWithBufferReference(allocator structureAllocator: CFAllocator?, referenceBuffer bufferReference: CMBlockBuffer,
                                                   offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags,
                                                   blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    let (pieces, status) = referenceSegments(bufferReference, offsetToData, dataLength, flags)
    guard let pieces else {
        blockBufferOut.pointee = nil
        return status
    }
    blockBufferOut.pointee = CMBlockBuffer(segments: pieces)
    return kCMBlockBufferNoErr
}

/// Produces a block buffer whose range `offsetToData..<offsetToData+dataLength` of `sourceBuffer`
/// is contiguous: a reference when it already is (unless kCMBlockBufferAlwaysCopyDataFlag), else a
/// copy into a new block. A `dataLength` of 0 means through the end of the source.
@discardableResult
public func CMBlockBufferCreateContiguous(allocator structureAllocator: CFAllocator?, sourceBuffer: CMBlockBuffer,
                                         blockAllocator: CFAllocator?, customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?,
                                         offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags,
                                         blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>) -> OSStatus {
    let total = sourceBuffer.length
    guard total > 0 else { return kCMBlockBufferEmptyBBufErr }
    guard offsetToData >= 0, offsetToData < total else { return kCMBlockBufferBadOffsetParameterErr }
    let length = dataLength == 0 ? total - offsetToData : dataLength
    guard length > 0, offsetToData + length <= total else { return kCMBlockBufferBadLengthParameterErr }
    let pieces = sourceBuffer.segments(in: offsetToData, length)
    if flags & kCMBlockBufferAlwaysCopyDataFlag == 0, pieces.count == 1, pieces[0].memory.address != nil {
        blockBufferOut.pointee = CMBlockBuffer(segments: pieces)
        return kCMBlockBufferNoErr
    }
    let status = sourceBuffer.assureAll()
    guard status == noErr else { return status }
    let (segment, makeStatus) = makeMemory(nil, length, blockAllocator, customBlockSource, 0, length, kCMBlockBufferAssureMemoryNowFlag)
    guard let segment, let dest = segment.memory.address else { return makeStatus == noErr ? kCMBlockBufferBlockAllocationFailedErr : makeStatus }
    let copyStatus = sourceBuffer.forEachPiece(offsetToData, length) { p, n, at in (dest + at).copyMemory(from: p, byteCount: n) }
    guard copyStatus == noErr else { return copyStatus }
    blockBufferOut.pointee = CMBlockBuffer(segments: [segment])
    return kCMBlockBufferNoErr
}

/// Appends a memory block (same ownership rules as CMBlockBufferCreateWithMemoryBlock).
@discardableResult
public func CMBlockBufferAppendMemoryBlock(_ theBuffer: CMBlockBuffer, memoryBlock: UnsafeMutableRawPointer?, length blockLength: Int,
                                           blockAllocator: CFAllocator?, customBlockSource: UnsafePointer<CMBlockBufferCustomBlockSource>?,
                                           offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags) -> OSStatus {
    let (segment, status) = makeMemory(memoryBlock, blockLength, blockAllocator, customBlockSource, offsetToData, dataLength, flags)
    guard let segment else { return status }
    theBuffer.append([segment])
    return kCMBlockBufferNoErr
}

/// Appends a reference to a range of another block buffer.
@discardableResult
public func CMBlockBufferAppendBufferReference(_ theBuffer: CMBlockBuffer, targetBBuf: CMBlockBuffer, offsetToData: Int,
                                               dataLength: Int, flags: CMBlockBufferFlags) -> OSStatus {
    let (pieces, status) = referenceSegments(targetBBuf, offsetToData, dataLength, flags)
    guard let pieces else { return status }
    theBuffer.append(pieces)
    return kCMBlockBufferNoErr
}

/// Allocates every memory block that has not been allocated yet.
@discardableResult
public func CMBlockBufferAssureBlockMemory(_ theBuffer: CMBlockBuffer) -> OSStatus {
    theBuffer.assureAll()
}

/// Points at `length` bytes at `offset`: directly into the buffer when contiguous, otherwise
/// copied into `temporaryBlock` (which must hold `length` bytes).
@discardableResult
public func CMBlockBufferAccessDataBytes(_ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int,
                                         temporaryBlock: UnsafeMutableRawPointer,
                                         returnedPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> OSStatus {
    let total = theBuffer.length
    guard offset >= 0, offset <= total else { return kCMBlockBufferBadOffsetParameterErr }
    guard length >= 0, offset + length <= total else { return kCMBlockBufferBadLengthParameterErr }
    let pieces = theBuffer.segments(in: offset, length)
    if pieces.count == 1, let base = pieces[0].memory.address {
        returnedPointerOut.pointee = (base + pieces[0].offset).assumingMemoryBound(to: CChar.self)
        return kCMBlockBufferNoErr
    }
    let status = theBuffer.forEachPiece(offset, length) { p, n, at in (temporaryBlock + at).copyMemory(from: p, byteCount: n) }
    guard status == noErr else { return status }
    returnedPointerOut.pointee = temporaryBlock.assumingMemoryBound(to: CChar.self)
    return kCMBlockBufferNoErr
}

/// Copies `dataLength` bytes at `offsetToData` into `destination`, across block boundaries.
@discardableResult
public func CMBlockBufferCopyDataBytes(_ theSourceBuffer: CMBlockBuffer, atOffset offsetToData: Int, dataLength: Int,
                                       destination: UnsafeMutableRawPointer) -> OSStatus {
    let total = theSourceBuffer.length
    guard offsetToData >= 0, offsetToData <= total else { return kCMBlockBufferBadOffsetParameterErr }
    guard dataLength >= 0, offsetToData + dataLength <= total else { return kCMBlockBufferBadLengthParameterErr }
    return theSourceBuffer.forEachPiece(offsetToData, dataLength) { p, n, at in (destination + at).copyMemory(from: p, byteCount: n) }
}

/// Replaces `dataLength` bytes at `offsetIntoDestination` with `sourceBytes`, allocating blocks
/// first; on error nothing is changed.
@discardableResult
public func CMBlockBufferReplaceDataBytes(with sourceBytes: UnsafeRawPointer, blockBuffer destinationBuffer: CMBlockBuffer,
                                          offsetIntoDestination: Int, dataLength: Int) -> OSStatus {
    let status = prepareForWriting(destinationBuffer, offset: offsetIntoDestination, length: dataLength)
    guard status == noErr else { return status }
    return destinationBuffer.forEachPiece(offsetIntoDestination, dataLength) { p, n, at in p.copyMemory(from: sourceBytes + at, byteCount: n) }
}

/// Fills `dataLength` bytes at `offsetIntoDestination` with `fillByte`, allocating blocks first.
@discardableResult
public func CMBlockBufferFillDataBytes(with fillByte: CChar, blockBuffer destinationBuffer: CMBlockBuffer,
                                       offsetIntoDestination: Int, dataLength: Int) -> OSStatus {
    let status = prepareForWriting(destinationBuffer, offset: offsetIntoDestination, length: dataLength)
    guard status == noErr else { return status }
    return destinationBuffer.forEachPiece(offsetIntoDestination, dataLength) { p, n, _ in
        memset(p, Int32(UInt8(bitPattern: fillByte)), n)
    }
}

/// A pointer to the byte at `offset`, how many bytes are contiguous there, and the total length.
@discardableResult
public func CMBlockBufferGetDataPointer(_ theBuffer: CMBlockBuffer, atOffset offset: Int,
                                        lengthAtOffsetOut: UnsafeMutablePointer<Int>?, totalLengthOut: UnsafeMutablePointer<Int>?,
                                        dataPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> OSStatus {
    let total = theBuffer.length
    guard offset >= 0, offset < total else { return kCMBlockBufferBadOffsetParameterErr }
    guard let piece = theBuffer.segments(in: offset, total - offset).first else { return kCMBlockBufferBadOffsetParameterErr }
    guard let base = piece.memory.address else { return kCMBlockBufferUnallocatedBlockErr }
    lengthAtOffsetOut?.pointee = piece.length
    totalLengthOut?.pointee = total
    dataPointerOut?.pointee = (base + piece.offset).assumingMemoryBound(to: CChar.self)
    return kCMBlockBufferNoErr
}

/// The total data length.
@discardableResult
public func CMBlockBufferGetDataLength(_ theBuffer: CMBlockBuffer) -> Int {
    theBuffer.length
}

/// Whether `length` bytes at `offset` lie in one memory block (0 length means through the end).
@discardableResult
public func CMBlockBufferIsRangeContiguous(_ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int) -> Bool {
    let total = theBuffer.length
    let n = length == 0 ? total - offset : length
    guard offset >= 0, n > 0, offset + n <= total else { return false }
    return theBuffer.segments(in: offset, n).count == 1
}

/// Whether the buffer has no data.
@discardableResult
public func CMBlockBufferIsEmpty(_ theBuffer: CMBlockBuffer) -> Bool {
    theBuffer.length == 0
}

/// Checks that `offset ..< offset + length` lies inside `buffer` and makes every block's memory
/// exist, as the writing functions must before touching bytes.
private func prepareForWriting(_ buffer: CMBlockBuffer, offset: Int, length: Int) -> OSStatus {
    let total = buffer.length
    guard offset >= 0, offset <= total else { return kCMBlockBufferBadOffsetParameterErr }
    guard length >= 0, offset + length <= total else { return kCMBlockBufferBadLengthParameterErr }
    return buffer.assureAll()
}
