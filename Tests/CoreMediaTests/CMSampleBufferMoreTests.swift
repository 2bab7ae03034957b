import Testing
@testable import CoreVideo
import CoreMedia

private func t(_ v: Int64, _ s: Int32) -> CMTime { CMTime(value: v, timescale: s, flags: .valid, epoch: 0) }

@Suite struct CMSampleBufferMoreTests {
    @Test func sampleAttachmentsArrayCreatedOnlyWhenAsked() throws {
        let s = try CMSampleBuffer(dataBuffer: nil, formatDescription: nil, numSamples: 2, sampleTimings: [], sampleSizes: [])
        #expect(CMSampleBufferGetSampleAttachmentsArray(s, createIfNecessary: false) == nil)
        let array = try #require(CMSampleBufferGetSampleAttachmentsArray(s, createIfNecessary: true))
        #expect(array.count == 2)
        s.sampleAttachments[1][.dependsOnOthers] = false
        #expect(s.sampleAttachments[1][.dependsOnOthers] as? Bool == false)
        #expect(s.sampleAttachments[0][.dependsOnOthers] == nil)
    }

    @Test func outputDecodeTimeShiftsWithOutputPTS() throws {
        let s = try CMSampleBuffer(dataBuffer: nil, formatDescription: nil, numSamples: 1,
                                   sampleTimings: [CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(3, 30), decodeTimeStamp: t(1, 30))],
                                   sampleSizes: [])
        try s.setOutputPresentationTimeStamp(t(10, 30))
        #expect(s.outputDecodeTimeStamp.value * 30 == 8 * Int64(s.outputDecodeTimeStamp.timescale))
        #expect(s.decodeTimeStamp.value == 1)
    }

    @Test func setDataReadinessOverlay() throws {
        var sb: CMSampleBuffer?
        _ = CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: false, makeDataReadyCallback: nil, refcon: nil, formatDescription: nil,
                                 sampleCount: 0, sampleTimingEntryCount: 0, sampleTimingArray: nil, sampleSizeEntryCount: 0, sampleSizeArray: nil,
                                 sampleBufferOut: &sb)
        let s = try #require(sb)
        try s.setDataReadiness(.ready)
        #expect(CMSampleBufferDataIsReady(s))
        try s.setDataReadiness(.failed(kCMSampleBufferError_DataFailed))
        #expect(s.dataReadiness == .failed(-16750))
    }

    @Test func invalidatedBufferRejectsChanges() throws {
        let s = try CMSampleBuffer(dataBuffer: nil, formatDescription: nil, numSamples: 1, sampleTimings: [], sampleSizes: [])
        #expect(CMSampleBufferInvalidate(s) == noErr)
        #expect(CMSampleBufferSetOutputPresentationTimeStamp(s, newValue: t(1, 1)) == kCMSampleBufferError_Invalidated)
        #expect(CMSampleBufferSetInvalidateHandler(s, handler: { _ in }) == kCMSampleBufferError_Invalidated)
        #expect(throws: NSError.self) { try CMSampleBuffer(copy: s) }
    }

    @Test func imageBufferBuffersCannotBeSubdivided() throws {
        let pb = makeBGRA()
        let fd = try CMFormatDescription(imageBuffer: pb)
        let s = try CMSampleBuffer(imageBuffer: pb, formatDescription: fd,
                                   sampleTiming: CMSampleTimingInfo(duration: t(1, 30), presentationTimeStamp: t(0, 30), decodeTimeStamp: CMTime()))
        #expect(Array(try s.singleSampleBuffers()).first === s)
        #expect(CMSampleBufferSetDataBuffer(s, newValue: CMBlockBuffer(wrapping: malloc(1)!, length: 1, release: {})) ==
                kCMSampleBufferError_AlreadyHasDataBuffer)
    }

    @Test func blockBufferIsAnAttachmentBearer() {
        var bb: CMBlockBuffer?
        _ = CMBlockBufferCreateEmpty(allocator: nil, capacity: 0, flags: 0, blockBufferOut: &bb)
        CMSetAttachment(bb!, key: "A" as CFString, value: NSNumber(value: 5), attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
        var mode: CMAttachmentMode = 9
        #expect((CMGetAttachment(bb!, key: "A" as CFString, attachmentModeOut: &mode) as? NSNumber)?.intValue == 5)
        #expect(mode == kCMAttachmentMode_ShouldNotPropagate)
        CMSetAttachment(bb!, key: "A" as CFString, value: nil, attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
        #expect(CMGetAttachment(bb!, key: "A" as CFString, attachmentModeOut: nil) == nil)
    }

    @Test func mediaSubTypeOverlay() {
        #expect(CMFormatDescription.MediaSubType.h264.rawValue == kCMVideoCodecType_H264)
        #expect(CMFormatDescription.MediaSubType.mpeg4AAC.description == "aac ")
        #expect(CMFormatDescription.MediaSubType("hvc1") == .hevc)
        #expect(CMFormatDescription.MediaType.video.rawValue == kCMMediaType_Video)
        #expect(CMFormatDescription.MediaType.closedCaption.description == "clcp")
    }

    @Test func extensionsOverlay() throws {
        var e = CMFormatDescription.Extensions()
        e[kCMFormatDescriptionExtension_FormatName] = "Name" as NSString
        let d = try CMFormatDescription(mediaType: .video, mediaSubType: .jpeg, extensions: e)
        #expect(d.extensions[kCMFormatDescriptionExtension_FormatName] as? String == "Name")
        #expect(d.extensions.propertyListRepresentation.count == 1)
        #expect(CMFormatDescriptionGetExtensions(try CMFormatDescription(mediaType: .video, mediaSubType: .jpeg)) == nil)
    }

    @Test func hevcGetterRejectsH264Descriptions() throws {
        let d = try CMFormatDescription(h264ParameterSets: [Data(mainSPS), Data(mainPPS)], nalUnitHeaderLength: 4)
        var count = 0
        #expect(CMVideoFormatDescriptionGetHEVCParameterSetAtIndex(d, parameterSetIndex: 0, parameterSetPointerOut: nil, parameterSetSizeOut: nil,
                                                                   parameterSetCountOut: &count, nalUnitHeaderLengthOut: nil)
                == kCMFormatDescriptionError_InvalidParameter)
    }

    @Test func blockBufferOverlay() throws {
        var bb: CMBlockBuffer?
        _ = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 8, blockAllocator: nil, customBlockSource: nil,
                                               offsetToData: 2, dataLength: 4, flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &bb)
        let b = try #require(bb)
        #expect(b.dataLength == 4)
        #expect(!b.isEmpty)
        #expect(b.isContiguous(atOffset: 0, length: 4))
        #expect(!b.isContiguous(atOffset: 2, length: 4))
        #expect(CMBlockBufferFillDataBytes(with: 1, blockBuffer: b, offsetIntoDestination: 0, dataLength: 4) == noErr)
        #expect(try b.dataBytes() == Data([1, 1, 1, 1]))
    }
}
