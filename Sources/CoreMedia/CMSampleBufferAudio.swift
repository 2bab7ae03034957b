// Audio sample buffers: creation from packet descriptions, AudioBufferList access and PCM copies.

/// Creates an audio sample buffer. For constant-size formats (linear PCM) each sample is one
/// frame of `mBytesPerFrame` bytes lasting 1/sampleRate; for compressed formats each sample is
/// a packet described by `packetDescriptions`, lasting framesPerPacket/sampleRate.
@discardableResult
public func CMAudioSampleBufferCreateWithPacketDescriptions(
    allocator: CFAllocator?, dataBuffer: CMBlockBuffer?, dataReady: Bool,
    makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?, refcon: UnsafeMutableRawPointer?,
    formatDescription: CMFormatDescription, sampleCount numSamples: CMItemCount, presentationTimeStamp: CMTime,
    packetDescriptions: UnsafePointer<AudioStreamPacketDescription>?,
    sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    sampleBufferOut.pointee = nil
    guard formatDescription.mediaTypeCode == kCMMediaType_Audio, let asbd = formatDescription.asbdStorage?.pointee else {
        return kCMSampleBufferError_InvalidMediaTypeForOperation
    }
    guard numSamples > 0 else { return kCMSampleBufferError_InvalidEntryCount }
    guard asbd.mSampleRate > 0, asbd.mSampleRate <= Double(Int32.max), asbd.mSampleRate == asbd.mSampleRate.rounded() else {
        return kCMSampleBufferError_InvalidMediaFormat
    }
    let rate = Int32(asbd.mSampleRate)
    var packets: [AudioStreamPacketDescription]?
    var sizes: [Int]
    var timing: [CMSampleTimingInfo]
    let constantSize = asbd.mBytesPerPacket > 0 && asbd.mFramesPerPacket > 0
    if constantSize && packetDescriptions == nil {
        sizes = [Int(asbd.mBytesPerPacket)]
        timing = [CMSampleTimingInfo(duration: CMTime(value: Int64(asbd.mFramesPerPacket), timescale: rate, flags: .valid, epoch: 0),
                                     presentationTimeStamp: presentationTimeStamp, decodeTimeStamp: SampleTime.invalid)]
    } else {
        guard let packetDescriptions else { return kCMSampleBufferError_RequiredParameterMissing }
        let list = Array(UnsafeBufferPointer(start: packetDescriptions, count: numSamples))
        packets = list
        sizes = list.map { Int($0.mDataByteSize) }
        if let dataBuffer {
            let length = Int64(dataBuffer.length)
            guard list.allSatisfy({ $0.mStartOffset >= 0 && $0.mStartOffset + Int64($0.mDataByteSize) <= length }) else {
                return kCMSampleBufferError_InvalidSampleData
            }
        }
        var pts = presentationTimeStamp
        timing = []
        for p in list {
            let frames = asbd.mFramesPerPacket > 0 ? Int64(asbd.mFramesPerPacket) : Int64(p.mVariableFramesInPacket)
            let duration = CMTime(value: frames, timescale: rate, flags: .valid, epoch: 0)
            timing.append(CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: SampleTime.invalid))
            pts = SampleTime.add(pts, duration) ?? SampleTime.invalid
        }
        if asbd.mFramesPerPacket > 0, let first = timing.first {
            timing = [first]
        }
    }
    if let dataBuffer, packets == nil, sizes[0] * numSamples > dataBuffer.length { return kCMSampleBufferError_InvalidSampleData }
    sampleBufferOut.pointee = CMSampleBuffer(dataBuffer: dataBuffer, imageBuffer: nil, formatDescription: formatDescription,
                                             numSamples: numSamples, timing: timing, sizes: sizes, packetDescriptions: packets,
                                             dataReady: dataReady, makeDataReady: makeDataReadyCallback, refcon: refcon)
    return noErr
}

/// Creates a ready audio sample buffer.
@discardableResult
public func CMAudioSampleBufferCreateReadyWithPacketDescriptions(
    allocator: CFAllocator?, dataBuffer: CMBlockBuffer, formatDescription: CMFormatDescription, sampleCount numSamples: CMItemCount,
    presentationTimeStamp: CMTime, packetDescriptions: UnsafePointer<AudioStreamPacketDescription>?,
    sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>) -> OSStatus {
    CMAudioSampleBufferCreateWithPacketDescriptions(allocator: allocator, dataBuffer: dataBuffer, dataReady: true,
                                                    makeDataReadyCallback: nil, refcon: nil, formatDescription: formatDescription,
                                                    sampleCount: numSamples, presentationTimeStamp: presentationTimeStamp,
                                                    packetDescriptions: packetDescriptions, sampleBufferOut: sampleBufferOut)
}

/// The packet descriptions of a compressed audio sample buffer.
@discardableResult
public func CMSampleBufferGetAudioStreamPacketDescriptions(_ sbuf: CMSampleBuffer, entryCount packetDescriptionsSize: Int,
                                                           arrayToFill packetDescriptionsOut: UnsafeMutablePointer<AudioStreamPacketDescription>?,
                                                           entriesNeededOut packetDescriptionsSizeNeededOut: UnsafeMutablePointer<Int>?) -> OSStatus {
    guard sbuf.formatDescriptionStorage?.mediaTypeCode == kCMMediaType_Audio else { return kCMSampleBufferError_InvalidMediaTypeForOperation }
    let list = sbuf.packetDescriptions ?? []
    packetDescriptionsSizeNeededOut?.pointee = list.count * MemoryLayout<AudioStreamPacketDescription>.stride
    guard let out = packetDescriptionsOut else { return noErr }
    guard packetDescriptionsSize >= list.count * MemoryLayout<AudioStreamPacketDescription>.stride else { return kCMSampleBufferError_ArrayTooSmall }
    for (i, p) in list.enumerated() { out[i] = p }
    return noErr
}

/// How the buffers of an audio sample buffer's data are laid out.
private func audioLayout(_ sbuf: CMSampleBuffer) -> (buffers: Int, channelsPerBuffer: UInt32, asbd: AudioStreamBasicDescription)? {
    guard sbuf.formatDescriptionStorage?.mediaTypeCode == kCMMediaType_Audio, let asbd = sbuf.formatDescriptionStorage?.asbdStorage?.pointee else {
        return nil
    }
    if asbd.mFormatID == kAudioFormatLinearPCM, asbd.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0 {
        return (Int(asbd.mChannelsPerFrame), 1, asbd)
    }
    return (1, asbd.mChannelsPerFrame, asbd)
}

/// Fills `bufferListOut` with buffers pointing into the sample buffer's data (made contiguous
/// when needed) and returns in `blockBufferOut` the block buffer that keeps that memory alive.
/// Non-interleaved PCM yields one buffer per channel, each holding every frame of that channel.
@discardableResult
public func CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(
    _ sbuf: CMSampleBuffer, bufferListSizeNeededOut: UnsafeMutablePointer<Int>?, bufferListOut: UnsafeMutablePointer<AudioBufferList>?,
    bufferListSize: Int, blockBufferAllocator: CFAllocator?, blockBufferMemoryAllocator: CFAllocator?, flags: UInt32,
    blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>?) -> OSStatus {
    guard let layout = audioLayout(sbuf) else { return kCMSampleBufferError_InvalidMediaTypeForOperation }
    let needed = AudioBufferList.sizeInBytes(maximumBuffers: layout.buffers)
    bufferListSizeNeededOut?.pointee = needed
    guard let bufferListOut else { return noErr }
    guard bufferListSize >= needed else { return kCMSampleBufferError_ArrayTooSmall }
    guard CMSampleBufferDataIsReady(sbuf) else { return kCMSampleBufferError_BufferNotReady }
    guard let data = CMSampleBufferGetDataBuffer(sbuf), data.length > 0 else { return kCMSampleBufferError_BufferHasNoSampleSizes }
    let total = data.length
    var contiguous: CMBlockBuffer?
    let status = CMBlockBufferCreateContiguous(allocator: blockBufferAllocator, sourceBuffer: data, blockAllocator: blockBufferMemoryAllocator,
                                               customBlockSource: nil, offsetToData: 0, dataLength: total, flags: 0, blockBufferOut: &contiguous)
    guard status == noErr, let contiguous else { return status }
    var base: UnsafeMutablePointer<CChar>?
    let pointerStatus = CMBlockBufferGetDataPointer(contiguous, atOffset: 0, lengthAtOffsetOut: nil, totalLengthOut: nil, dataPointerOut: &base)
    guard pointerStatus == noErr, let base else { return pointerStatus }
    let list = UnsafeMutableAudioBufferListPointer(bufferListOut)
    list.count = layout.buffers
    let perBuffer = total / layout.buffers
    for i in 0..<layout.buffers {
        list[i] = AudioBuffer(mNumberChannels: layout.channelsPerBuffer, mDataByteSize: UInt32(perBuffer),
                              mData: UnsafeMutableRawPointer(base) + i * perBuffer)
    }
    blockBufferOut?.pointee = contiguous
    return noErr
}

/// Copies `frameCount` PCM frames starting at `frameOffset` into the caller's buffers, which
/// must match the format's buffer layout and be large enough.
@discardableResult
public func CMSampleBufferCopyPCMDataIntoAudioBufferList(_ sbuf: CMSampleBuffer, at frameOffset: Int32, frameCount numFrames: Int32,
                                                         into bufferList: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
    guard let layout = audioLayout(sbuf), layout.asbd.mFormatID == kAudioFormatLinearPCM else {
        return kCMSampleBufferError_InvalidMediaTypeForOperation
    }
    guard frameOffset >= 0, numFrames >= 0, Int(frameOffset) + Int(numFrames) <= sbuf.sampleCount else {
        return kCMSampleBufferError_SampleIndexOutOfRange
    }
    guard let data = CMSampleBufferGetDataBuffer(sbuf) else { return kCMSampleBufferError_BufferNotReady }
    let list = UnsafeMutableAudioBufferListPointer(bufferList)
    guard list.count == layout.buffers else { return kCMSampleBufferError_InvalidEntryCount }
    let frameBytes = Int(layout.asbd.mBytesPerFrame)
    let bytes = Int(numFrames) * frameBytes
    let planeBytes = sbuf.sampleCount * frameBytes
    for i in 0..<layout.buffers {
        guard let dest = list[i].mData, Int(list[i].mDataByteSize) >= bytes else { return kCMSampleBufferError_ArrayTooSmall }
        let status = CMBlockBufferCopyDataBytes(data, atOffset: i * planeBytes + Int(frameOffset) * frameBytes, dataLength: bytes, destination: dest)
        guard status == noErr else { return status }
        list[i].mDataByteSize = UInt32(bytes)
    }
    return noErr
}

/// Copies the buffers of `bufferList` (one after another) into a new block buffer and makes it
/// the sample buffer's data.
@discardableResult
public func CMSampleBufferSetDataBufferFromAudioBufferList(_ sbuf: CMSampleBuffer, blockBufferAllocator: CFAllocator?,
                                                           blockBufferMemoryAllocator: CFAllocator?, flags: UInt32,
                                                           bufferList: UnsafePointer<AudioBufferList>) -> OSStatus {
    guard let layout = audioLayout(sbuf) else { return kCMSampleBufferError_InvalidMediaTypeForOperation }
    guard CMSampleBufferGetDataBuffer(sbuf) == nil else { return kCMSampleBufferError_AlreadyHasDataBuffer }
    let list = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: bufferList))
    guard list.count == layout.buffers else { return kCMSampleBufferError_InvalidEntryCount }
    let total = list.reduce(0) { $0 + Int($1.mDataByteSize) }
    guard total > 0 else { return kCMSampleBufferError_RequiredParameterMissing }
    var block: CMBlockBuffer?
    let status = CMBlockBufferCreateWithMemoryBlock(allocator: blockBufferAllocator, memoryBlock: nil, blockLength: total,
                                                    blockAllocator: blockBufferMemoryAllocator, customBlockSource: nil, offsetToData: 0,
                                                    dataLength: total, flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
    guard status == noErr, let block else { return status }
    var offset = 0
    for buffer in list {
        guard let src = buffer.mData else { return kCMSampleBufferError_RequiredParameterMissing }
        let s = CMBlockBufferReplaceDataBytes(with: src, blockBuffer: block, offsetIntoDestination: offset, dataLength: Int(buffer.mDataByteSize))
        guard s == noErr else { return s }
        offset += Int(buffer.mDataByteSize)
    }
    let set = CMSampleBufferSetDataBuffer(sbuf, newValue: block)
    guard set == noErr else { return set }
    return CMSampleBufferSetDataReady(sbuf)
}
