import Testing
@testable import CoreVideo
import CoreMedia

private func t(_ v: Int64, _ s: Int32) -> CMTime { CMTime(value: v, timescale: s, flags: .valid, epoch: 0) }
private func sameInstant(_ a: CMTime, _ b: CMTime) -> Bool {
    a.flags.contains(.valid) && b.flags.contains(.valid) && Int128(a.value) * Int128(b.timescale) == Int128(b.value) * Int128(a.timescale)
}

private func pcmFormat(channels: UInt32 = 2, nonInterleaved: Bool = false) throws -> CMFormatDescription {
    let bytesPerFrame: UInt32 = nonInterleaved ? 2 : 2 * channels
    let asbd = AudioStreamBasicDescription(mSampleRate: 48000, mFormatID: kAudioFormatLinearPCM,
                                           mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked
                                               | (nonInterleaved ? kAudioFormatFlagIsNonInterleaved : 0),
                                           mBytesPerPacket: bytesPerFrame, mFramesPerPacket: 1, mBytesPerFrame: bytesPerFrame,
                                           mChannelsPerFrame: channels, mBitsPerChannel: 16, mReserved: 0)
    return try CMFormatDescription(audioStreamBasicDescription: asbd)
}

private func blockBuffer(_ bytes: [UInt8]) -> CMBlockBuffer {
    var bb: CMBlockBuffer?
    _ = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: bytes.count, blockAllocator: nil, customBlockSource: nil,
                                           offsetToData: 0, dataLength: bytes.count, flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &bb)
    _ = bytes.withUnsafeBytes { CMBlockBufferReplaceDataBytes(with: $0.baseAddress!, blockBuffer: bb!, offsetIntoDestination: 0, dataLength: bytes.count) }
    return bb!
}

private func videoSample() throws -> (CMSampleBuffer, CVPixelBuffer) {
    let pb = makeBGRA()
    var fd: CMVideoFormatDescription?
    _ = CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pb, formatDescriptionOut: &fd)
    var timing = CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(1, 30), decodeTimeStamp: CMTime())
    var sb: CMSampleBuffer?
    let status = CMSampleBufferCreateReadyWithImageBuffer(allocator: kCFAllocatorDefault, imageBuffer: pb, formatDescription: fd!,
                                                          sampleTiming: &timing, sampleBufferOut: &sb)
    #expect(status == noErr)
    return (try #require(sb), pb)
}

@Suite struct CMSampleBufferTests {
    @Test func errorCodes() {
        #expect(kCMSampleBufferError_AllocationFailed == -12730)
        #expect(kCMSampleBufferError_InvalidMediaFormat == -12743)
        #expect(kCMSampleBufferError_Invalidated == -12744)
        #expect(kCMSampleBufferError_DataFailed == -16750)
        #expect(kCMSampleBufferError_DataCanceled == -16751)
        #expect(CMSampleBuffer.Error.invalidated.code == -12744)
        #expect(CMSampleBuffer.Error.invalidated.domain == NSOSStatusErrorDomain)
    }

    @Test func attachmentKeyStrings() {
        #expect(kCMSampleAttachmentKey_NotSync == "NotSync")
        #expect(kCMSampleAttachmentKey_DependsOnOthers == "DependsOnOthers")
        #expect(kCMSampleBufferAttachmentKey_TrimDurationAtStart == "TrimDurationAtStart")
        #expect(kCMSampleBufferAttachmentKey_DroppedFrameReason == "DroppedFrameReason")
        #expect(kCMSampleBufferDroppedFrameReason_FrameWasLate == "FrameWasLate")
        #expect(kCMAttachmentMode_ShouldPropagate == 1)
    }

    // AT-M1
    @Test func imageBufferSampleBuffer() throws {
        let (sb, pb) = try videoSample()
        let fd = try #require(CMSampleBufferGetFormatDescription(sb))
        #expect(CMFormatDescriptionGetMediaSubType(fd) == OSType(fourCC: "BGRA"))
        #expect(CMVideoFormatDescriptionGetDimensions(fd) == CMVideoDimensions(width: 64, height: 48))
        #expect(CMSampleBufferGetImageBuffer(sb) === pb)
        #expect(sb.imageBuffer === pb)
        #expect(sameInstant(CMSampleBufferGetPresentationTimeStamp(sb), t(1, 30)))
        #expect(sb.presentationTimeStamp.value == 1 && sb.presentationTimeStamp.timescale == 30)
        #expect(!CMSampleBufferGetDecodeTimeStamp(sb).flags.contains(.valid))
        #expect(CMSampleBufferGetNumSamples(sb) == 1)
        #expect(CMSampleBufferGetDataBuffer(sb) == nil)
        #expect(CMSampleBufferDataIsReady(sb))
        #expect(sb.dataReadiness == .ready)
    }

    // AT-M1
    @Test func metadataAttachmentOnSampleBufferAndPixelBuffer() throws {
        let (sb, pb) = try videoSample()
        let value: NSDictionary = ["Key": "Value", "Number": 42]
        for bearer in [sb as CMAttachmentBearer, pb as CMAttachmentBearer] {
            CMSetAttachment(bearer, key: "MetadataDictionary" as CFString, value: value, attachmentMode: kCMAttachmentMode_ShouldPropagate)
            var mode: CMAttachmentMode = 99
            let got = CMGetAttachment(bearer, key: "MetadataDictionary" as CFString, attachmentModeOut: &mode)
            #expect(got === value)
            #expect(mode == kCMAttachmentMode_ShouldPropagate)
            #expect(CMCopyDictionaryOfAttachments(allocator: nil, target: bearer, attachmentMode: kCMAttachmentMode_ShouldPropagate)?.count == 1)
            #expect(CMCopyDictionaryOfAttachments(allocator: nil, target: bearer, attachmentMode: kCMAttachmentMode_ShouldNotPropagate) == nil)
            CMRemoveAttachment(bearer, key: "MetadataDictionary" as CFString)
            #expect(CMGetAttachment(bearer, key: "MetadataDictionary" as CFString, attachmentModeOut: nil) == nil)
        }
        // The pixel buffer keeps it in its CoreVideo attachment storage.
        CMSetAttachment(pb, key: "K" as CFString, value: "V" as NSString, attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
        #expect(pb.attachmentsByMode[.shouldNotPropagate]?["K"] as? String == "V")
    }

    @Test func propagateAndRemoveAll() throws {
        let (a, _) = try videoSample()
        let (b, _) = try videoSample()
        CMSetAttachments(a, attachments: ["P": 1, "Q": 2] as NSDictionary, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        CMSetAttachment(a, key: "N" as CFString, value: NSNumber(value: 3), attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
        CMPropagateAttachments(a, destination: b)
        #expect((CMGetAttachment(b, key: "P" as CFString, attachmentModeOut: nil) as? NSNumber)?.intValue == 1)
        #expect(CMGetAttachment(b, key: "N" as CFString, attachmentModeOut: nil) == nil)
        CMRemoveAllAttachments(a)
        #expect(CMGetAttachment(a, key: "Q" as CFString, attachmentModeOut: nil) == nil)
    }

    @Test func mismatchedFormatDescriptionIsRejected() throws {
        let pb = makeBGRA()
        var fd: CMVideoFormatDescription?
        _ = CMVideoFormatDescriptionCreate(allocator: nil, codecType: OSType(fourCC: "BGRA"), width: 32, height: 48, extensions: nil, formatDescriptionOut: &fd)
        var timing = CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(0, 30), decodeTimeStamp: CMTime())
        var sb: CMSampleBuffer?
        #expect(CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: pb, formatDescription: fd!, sampleTiming: &timing,
                                                         sampleBufferOut: &sb) == kCMSampleBufferError_InvalidMediaFormat)
        #expect(sb == nil)
        #expect(throws: NSError.self) { try CMSampleBuffer(imageBuffer: pb, formatDescription: fd!, sampleTiming: timing) }
    }

    // AT-M1: 1024 PCM frames, one timing entry.
    @Test func pcmSampleBufferTimingSizesAndBufferList() throws {
        let frames = 1024
        let bytes = (0..<frames * 4).map { UInt8($0 & 0xFF) }
        let fd = try pcmFormat()
        var sb: CMSampleBuffer?
        #expect(CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: blockBuffer(bytes), formatDescription: fd,
                                                                     sampleCount: frames, presentationTimeStamp: t(48000, 48000),
                                                                     packetDescriptions: nil, sampleBufferOut: &sb) == noErr)
        let s = try #require(sb)
        #expect(CMSampleBufferGetNumSamples(s) == 1024)
        #expect(CMSampleBufferGetTotalSampleSize(s) == 4096)
        #expect(CMSampleBufferGetSampleSize(s, at: 1023) == 4)
        #expect(CMSampleBufferGetSampleSize(s, at: 1024) == 0)
        #expect(sameInstant(s.duration, t(1024, 48000)))
        var info = CMSampleTimingInfo()
        #expect(CMSampleBufferGetSampleTimingInfo(s, at: 10, timingInfoOut: &info) == noErr)
        #expect(sameInstant(info.presentationTimeStamp, t(48010, 48000)))
        #expect(sameInstant(info.duration, t(1, 48000)))
        #expect(CMSampleBufferGetSampleTimingInfo(s, at: 1024, timingInfoOut: &info) == kCMSampleBufferError_SampleIndexOutOfRange)
        var needed = 0
        #expect(CMSampleBufferGetSampleTimingInfoArray(s, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed) == noErr)
        #expect(needed == 1)
        let all = try s.sampleTimingInfos()
        #expect(all.count == 1024)
        #expect(sameInstant(all[1023].presentationTimeStamp, t(48000 + 1023, 48000)))
        let extracted: [UInt8] = try s.withAudioBufferList { list, _ in
            #expect(list.count == 1)
            #expect(list[0].mNumberChannels == 2)
            return Array(UnsafeRawBufferPointer(start: list[0].mData, count: Int(list[0].mDataByteSize)))
        }
        #expect(extracted == bytes)
    }

    @Test func copySampleBufferForRange() throws {
        let frames = 1024
        let bytes = (0..<frames * 4).map { UInt8($0 & 0xFF) }
        var sb: CMSampleBuffer?
        #expect(CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: blockBuffer(bytes), formatDescription: try pcmFormat(),
                                                                     sampleCount: frames, presentationTimeStamp: t(48000, 48000),
                                                                     packetDescriptions: nil, sampleBufferOut: &sb) == noErr)
        let s = try #require(sb)
        var part: CMSampleBuffer?
        #expect(CMSampleBufferCopySampleBufferForRange(allocator: nil, sampleBuffer: s,
                                                       sampleRange: CFRangeMake(100, 10), sampleBufferOut: &part) == noErr)
        let p = try #require(part)
        #expect(CMSampleBufferGetNumSamples(p) == 10)
        #expect(sameInstant(CMSampleBufferGetPresentationTimeStamp(p), t(48100, 48000)))
        #expect(sameInstant(CMSampleBufferGetDuration(p), t(10, 48000)))
        let data = try #require(CMSampleBufferGetDataBuffer(p))
        var copied = [UInt8](repeating: 0, count: 40)
        #expect(CMBlockBufferCopyDataBytes(data, atOffset: 0, dataLength: 40, destination: &copied) == noErr)
        #expect(copied == Array(bytes[400..<440]))
        #expect(CMSampleBufferCopySampleBufferForRange(allocator: nil, sampleBuffer: s,
                                                       sampleRange: CFRange(location: 1020, length: 5), sampleBufferOut: &part)
                == kCMSampleBufferError_SampleIndexOutOfRange)
        #expect(part == nil)
    }

    @Test func audioBufferListRetainedBlockBufferSizes() throws {
        let fd = try pcmFormat(channels: 2, nonInterleaved: true)
        let bytes = (0..<16).map { UInt8($0) }  // 4 frames × 2 channels × 2 bytes, channel-planar
        var sb: CMSampleBuffer?
        _ = CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: blockBuffer(bytes), formatDescription: fd,
                                                                 sampleCount: 4, presentationTimeStamp: t(0, 48000), packetDescriptions: nil,
                                                                 sampleBufferOut: &sb)
        let s = try #require(sb)
        #expect(CMSampleBufferGetTotalSampleSize(s) == 8)  // per-sample size is one channel's frame in planar PCM
        var needed = 0
        #expect(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(s, bufferListSizeNeededOut: &needed, bufferListOut: nil, bufferListSize: 0,
                                                                        blockBufferAllocator: nil, blockBufferMemoryAllocator: nil, flags: 0,
                                                                        blockBufferOut: nil) == noErr)
        #expect(needed == AudioBufferList.sizeInBytes(maximumBuffers: 2))
        let list = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(list.unsafeMutablePointer) }
        #expect(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(s, bufferListSizeNeededOut: nil, bufferListOut: list.unsafeMutablePointer,
                                                                        bufferListSize: 8, blockBufferAllocator: nil, blockBufferMemoryAllocator: nil,
                                                                        flags: 0, blockBufferOut: nil) == kCMSampleBufferError_ArrayTooSmall)
        var block: CMBlockBuffer?
        #expect(CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer(s, bufferListSizeNeededOut: nil, bufferListOut: list.unsafeMutablePointer,
                                                                        bufferListSize: needed, blockBufferAllocator: nil, blockBufferMemoryAllocator: nil,
                                                                        flags: 0, blockBufferOut: &block) == noErr)
        #expect(block != nil)
        #expect(list.count == 2)
        #expect(Array(UnsafeRawBufferPointer(start: list[1].mData, count: Int(list[1].mDataByteSize))) == Array(8..<16).map { UInt8($0) })
    }

    @Test func copyPCMAndSetFromAudioBufferList() throws {
        let fd = try pcmFormat(channels: 1)
        var sb: CMSampleBuffer?
        #expect(CMAudioSampleBufferCreateWithPacketDescriptions(allocator: nil, dataBuffer: nil, dataReady: false, makeDataReadyCallback: nil,
                                                                refcon: nil, formatDescription: fd, sampleCount: 4,
                                                                presentationTimeStamp: t(0, 48000), packetDescriptions: nil,
                                                                sampleBufferOut: &sb) == noErr)
        let s = try #require(sb)
        #expect(!CMSampleBufferDataIsReady(s))
        var source: [Int16] = [10, 20, 30, 40]
        try source.withUnsafeMutableBufferPointer { buf in
            var abl = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(buf, numberOfChannels: 1))
            try s.setDataBuffer(fromAudioBufferList: &abl)
        }
        #expect(CMSampleBufferDataIsReady(s))
        var dest: [Int16] = [0, 0]
        try dest.withUnsafeMutableBufferPointer { buf in
            var abl = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(buf, numberOfChannels: 1))
            try s.copyPCMData(fromRange: 1..<3, into: &abl)
        }
        #expect(dest == [20, 30])
        var again = AudioBufferList()
        #expect(CMSampleBufferSetDataBufferFromAudioBufferList(s, blockBufferAllocator: nil, blockBufferMemoryAllocator: nil, flags: 0,
                                                               bufferList: &again) == kCMSampleBufferError_AlreadyHasDataBuffer)
    }

    @Test func compressedAudioWithPacketDescriptions() throws {
        let asbd = AudioStreamBasicDescription(mSampleRate: 44100, mFormatID: kAudioFormatMPEG4AAC, mFormatFlags: 0, mBytesPerPacket: 0,
                                               mFramesPerPacket: 1024, mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 0, mReserved: 0)
        let fd = try CMFormatDescription(audioStreamBasicDescription: asbd)
        let packets = [AudioStreamPacketDescription(mStartOffset: 0, mVariableFramesInPacket: 0, mDataByteSize: 100),
                       AudioStreamPacketDescription(mStartOffset: 100, mVariableFramesInPacket: 0, mDataByteSize: 150)]
        var sb: CMSampleBuffer?
        #expect(CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: blockBuffer([UInt8](repeating: 1, count: 250)),
                                                                     formatDescription: fd, sampleCount: 2, presentationTimeStamp: t(0, 44100),
                                                                     packetDescriptions: packets, sampleBufferOut: &sb) == noErr)
        let s = try #require(sb)
        #expect(try s.sampleSizes() == [100, 150])
        #expect(sameInstant(s.duration, t(2048, 44100)))
        #expect(try s.audioStreamPacketDescriptions() == packets)
        #expect(CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: blockBuffer([1]), formatDescription: fd,
                                                                     sampleCount: 2, presentationTimeStamp: t(0, 44100), packetDescriptions: nil,
                                                                     sampleBufferOut: &sb) == kCMSampleBufferError_RequiredParameterMissing)
        let singles = Array(try s.singleSampleBuffers())
        #expect(singles.count == 2)
        #expect(CMBlockBufferGetDataLength(singles[1].dataBuffer!) == 150)
        #expect(sameInstant(singles[1].presentationTimeStamp, t(1024, 44100)))
    }

    @Test func perSampleTimingMinimumPTSAndDecodeTimes() throws {
        // Out-of-display-order frames: I0 P3 B1 B2.
        let timings = [CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(1, 30), decodeTimeStamp: t(0, 30)),
                       CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(4, 30), decodeTimeStamp: t(1, 30)),
                       CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(2, 30), decodeTimeStamp: t(2, 30)),
                       CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(3, 30), decodeTimeStamp: t(3, 30))]
        let s = try CMSampleBuffer(dataBuffer: blockBuffer([UInt8](repeating: 0, count: 10)), formatDescription: nil, numSamples: 4,
                                   sampleTimings: timings, sampleSizes: [1, 2, 3, 4])
        #expect(sameInstant(s.presentationTimeStamp, t(1, 30)))
        #expect(sameInstant(s.decodeTimeStamp, t(0, 30)))
        #expect(sameInstant(s.duration, t(4, 30)))
        #expect(sameInstant(try s.sampleTimingInfo(at: 1).presentationTimeStamp, t(4, 30)))
        #expect(s.totalSampleSize == 10)
        var sizes = [Int](repeating: 0, count: 2)
        #expect(CMSampleBufferGetSampleSizeArray(s, entryCount: 2, arrayToFill: &sizes, entriesNeededOut: nil) == kCMSampleBufferError_ArrayTooSmall)
    }

    @Test func invalidCreateParameters() {
        var sb: CMSampleBuffer?
        let timings = [CMSampleTimingInfo(), CMSampleTimingInfo()]
        #expect(CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                                     formatDescription: nil, sampleCount: 3, sampleTimingEntryCount: 2, sampleTimingArray: timings,
                                     sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &sb) == kCMSampleBufferError_InvalidEntryCount)
        #expect(CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                                     formatDescription: nil, sampleCount: 1, sampleTimingEntryCount: 1, sampleTimingArray: nil,
                                     sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &sb) == kCMSampleBufferError_RequiredParameterMissing)
        #expect(CMSampleBufferCreateReady(allocator: nil, dataBuffer: blockBuffer([1, 2]), formatDescription: nil, sampleCount: 1,
                                          sampleTimingEntryCount: 0, sampleTimingArray: nil, sampleSizeEntryCount: 1, sampleSizeArray: [3],
                                          sampleBufferOut: &sb) == kCMSampleBufferError_InvalidSampleData)
        // No timing at all: invalid times and the documented errors.
        #expect(CMSampleBufferCreateReady(allocator: nil, dataBuffer: nil, formatDescription: nil, sampleCount: 0, sampleTimingEntryCount: 0,
                                          sampleTimingArray: nil, sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &sb) == noErr)
        #expect(!CMSampleBufferGetPresentationTimeStamp(sb!).flags.contains(.valid))
        #expect(throws: NSError.self) { try sb!.sampleTimingInfos() }
        #expect(throws: NSError.self) { try sb!.sampleSizes() }
    }

    @Test func outputTimingFollowsTrimsAndExplicitPTS() throws {
        let s = try CMSampleBuffer(dataBuffer: blockBuffer([UInt8](repeating: 0, count: 4)), formatDescription: nil, numSamples: 1,
                                   sampleTimings: [CMSampleTimingInfo(duration: t(1024, 44100), presentationTimeStamp: t(0, 44100),
                                                                      decodeTimeStamp: CMTime())],
                                   sampleSizes: [4])
        let trim: NSDictionary = ["value": 100, "timescale": 44100, "flags": 1, "epoch": 0]
        CMSetAttachment(s, key: kCMSampleBufferAttachmentKey_TrimDurationAtStart, value: trim, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        #expect(sameInstant(s.outputPresentationTimeStamp, t(100, 44100)))
        #expect(sameInstant(s.outputDuration, t(924, 44100)))
        try s.setOutputPresentationTimeStamp(t(5, 1))
        #expect(sameInstant(s.outputPresentationTimeStamp, t(5, 1)))
        #expect(sameInstant(try s.outputSampleTimingInfos()[0].presentationTimeStamp, t(5, 1)))
    }

    @Test func invalidateCallsHandlerOnce() throws {
        let (sb, _) = try videoSample()
        final class Box: @unchecked Sendable { var calls = 0 }
        let box = Box()
        #expect(CMSampleBufferSetInvalidateHandler(sb, handler: { _ in box.calls += 1 }) == noErr)
        #expect(sb.isValid)
        try sb.invalidate()
        #expect(!sb.isValid)
        #expect(CMSampleBufferInvalidate(sb) == noErr)
        #expect(box.calls == 1)
        #expect(!CMSampleBufferIsValid(sb))
        var copy: CMSampleBuffer?
        #expect(CMSampleBufferCreateCopy(allocator: nil, sampleBuffer: sb, sampleBufferOut: &copy) == kCMSampleBufferError_Invalidated)
    }

    @Test func dataReadinessAndMakeDataReady() throws {
        let data = blockBuffer([1, 2, 3])
        var sb: CMSampleBuffer?
        #expect(CMSampleBufferCreate(allocator: nil, dataBuffer: data, dataReady: false, makeDataReadyCallback: { _, _ in noErr }, refcon: nil,
                                     formatDescription: nil, sampleCount: 1, sampleTimingEntryCount: 0, sampleTimingArray: nil,
                                     sampleSizeEntryCount: 1, sampleSizeArray: [3], sampleBufferOut: &sb) == noErr)
        let s = try #require(sb)
        #expect(s.dataReadiness == .notReady)
        try s.makeDataReady()
        #expect(s.dataReadiness == .ready)
        var plain: CMSampleBuffer?
        _ = CMSampleBufferCreate(allocator: nil, dataBuffer: data, dataReady: false, makeDataReadyCallback: nil, refcon: nil, formatDescription: nil,
                                 sampleCount: 1, sampleTimingEntryCount: 0, sampleTimingArray: nil, sampleSizeEntryCount: 1, sampleSizeArray: [3],
                                 sampleBufferOut: &plain)
        #expect(CMSampleBufferMakeDataReady(plain!) == kCMSampleBufferError_BufferNotReady)
        #expect(CMSampleBufferSetDataFailed(plain!, status: kCMSampleBufferError_DataCanceled) == noErr)
        var status: OSStatus = 0
        #expect(CMSampleBufferHasDataFailed(plain!, statusOut: &status))
        #expect(status == kCMSampleBufferError_DataCanceled)
        #expect(plain!.dataReadiness == .failed(kCMSampleBufferError_DataCanceled))
    }

    @Test func copiesAndSampleAttachments() throws {
        let (sb, pb) = try videoSample()
        sb.sampleAttachments[0][.notSync] = true
        let array = CMSampleBufferGetSampleAttachmentsArray(sb, createIfNecessary: false)
        #expect((array?[0] as? NSDictionary)?[kCMSampleAttachmentKey_NotSync] as? Bool == true)
        CMSetAttachment(sb, key: "Propagates" as CFString, value: NSNumber(value: 1), attachmentMode: kCMAttachmentMode_ShouldPropagate)
        let copy = try CMSampleBuffer(copy: sb)
        #expect(copy.imageBuffer === pb)
        #expect(CMGetAttachment(copy, key: "Propagates" as CFString, attachmentModeOut: nil) != nil)
        #expect(copy.sampleAttachments[0][.notSync] as? Bool == true)
        var retimed: CMSampleBuffer?
        var timing = CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(7, 30), decodeTimeStamp: CMTime())
        #expect(CMSampleBufferCreateCopyWithNewTiming(allocator: nil, sampleBuffer: sb, sampleTimingEntryCount: 1, sampleTimingArray: &timing,
                                                      sampleBufferOut: &retimed) == noErr)
        #expect(sameInstant(retimed!.presentationTimeStamp, t(7, 30)))
        #expect(sameInstant(sb.presentationTimeStamp, t(1, 30)))
    }

    @Test func setDataBufferAndCallForEachSample() throws {
        var sb: CMSampleBuffer?
        _ = CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: false, makeDataReadyCallback: nil, refcon: nil, formatDescription: nil,
                                 sampleCount: 3, sampleTimingEntryCount: 1,
                                 sampleTimingArray: [CMSampleTimingInfo(duration: t(1, 10), presentationTimeStamp: t(0, 10), decodeTimeStamp: CMTime())],
                                 sampleSizeEntryCount: 3, sampleSizeArray: [1, 2, 3], sampleBufferOut: &sb)
        let s = try #require(sb)
        try s.setDataBuffer(blockBuffer([1, 2, 2, 3, 3, 3]))
        #expect(throws: NSError.self) { try s.setDataBuffer(blockBuffer([0])) }
        var seen: [(Int, Int, Int64)] = []
        #expect(CMSampleBufferCallBlockForEachSample(s) { single, index in
            seen.append((index, CMBlockBufferGetDataLength(single.dataBuffer!), single.presentationTimeStamp.value))
            return noErr
        } == noErr)
        #expect(seen.map(\.0) == [0, 1, 2])
        #expect(seen.map(\.1) == [1, 2, 3])
        #expect(seen.map(\.2) == [0, 1, 2])
    }
}
