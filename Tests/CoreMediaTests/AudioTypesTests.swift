import Testing
import CoreMedia

@Suite struct AudioTypesTests {
    @Test func formatIDsAreApplesFourCharCodes() {
        #expect(kAudioFormatLinearPCM == 0x6C70636D)
        #expect(kAudioFormatMPEG4AAC.fourCCString == "aac ")
        #expect(kAudioFormatAppleLossless.fourCCString == "alac")
        #expect(kAudioFormatFLAC.fourCCString == "flac")
        #expect(kAudioFormatOpus.fourCCString == "opus")
        #expect(kAudioFormatMPEGLayer3.fourCCString == ".mp3")
        #expect(kAudioFormatEnhancedAC3.fourCCString == "ec-3")
    }

    @Test func flagValues() {
        #expect(kAudioFormatFlagIsFloat == 1)
        #expect(kAudioFormatFlagIsNonInterleaved == 32)
        #expect(kAudioFormatFlagsNativeEndian == 0)  // little-endian hosts
        #expect(kAudioFormatFlagsNativeFloatPacked == 9)
        #expect(kLinearPCMFormatFlagsSampleFractionMask == 0x1F80)
        #expect(kAppleLosslessFormatFlag_24BitSourceData == 3)
    }

    @Test func asbdInitAndEquality() {
        let a = AudioStreamBasicDescription(mSampleRate: 48000, mFormatID: kAudioFormatLinearPCM,
                                            mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                            mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4,
                                            mChannelsPerFrame: 2, mBitsPerChannel: 16, mReserved: 0)
        var b = AudioStreamBasicDescription()
        #expect(b.mSampleRate == 0 && b.mFormatID == 0)
        b = a
        #expect(a == b)
        #expect(MemoryLayout<AudioStreamBasicDescription>.size == 40)
    }

    @Test func channelLayoutTags() {
        #expect(kAudioChannelLayoutTag_Mono == (100 << 16) | 1)
        #expect(kAudioChannelLayoutTag_Stereo == 0x650002)
        #expect(kAudioChannelLayoutTag_MPEG_5_1_A == (121 << 16) | 6)
        #expect(kAudioChannelLayoutTag_AAC_5_1 == kAudioChannelLayoutTag_MPEG_5_1_D)
        #expect(AudioChannelLayoutTag_GetNumberOfChannels(kAudioChannelLayoutTag_MPEG_7_1_C) == 8)
        #expect(AudioChannelLayoutTag_GetNumberOfChannels(kAudioChannelLayoutTag_DiscreteInOrder | 5) == 5)
        #expect(kAudioChannelLayoutTag_Unknown == 0xFFFF0000)
    }

    @Test func channelLayoutShapeMatchesC() {
        #expect(MemoryLayout<AudioChannelDescription>.size == 20)
        #expect(MemoryLayout<AudioChannelLayout>.size == 32)
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = kAudioChannelLayoutTag_UseChannelBitmap
        layout.mChannelBitmap = [.bit_Left, .bit_Right]
        #expect(layout.mChannelBitmap.rawValue == 3)
        layout.mChannelDescriptions.mChannelLabel = kAudioChannelLabel_Center
        #expect(layout.mChannelDescriptions.mChannelLabel == 3)
    }

    @Test func bufferListAllocateAndCollection() {
        let abl = AudioBufferList.allocate(maximumBuffers: 3)
        defer { free(abl.unsafeMutablePointer) }
        #expect(abl.count == 3)
        #expect(abl.unsafePointer.pointee.mNumberBuffers == 3)
        var storage: [[Float]] = [[1, 2], [3, 4], [5, 6]]
        for i in 0..<3 {
            storage[i].withUnsafeMutableBufferPointer { abl[i] = AudioBuffer($0, numberOfChannels: 1) }
        }
        #expect(abl.map(\.mDataByteSize) == [8, 8, 8])
        #expect(abl[2].mNumberChannels == 1)
        abl.count = 2
        #expect(abl.count == 2 && abl.unsafeMutablePointer.pointee.mNumberBuffers == 2)
        #expect(AudioBufferList.sizeInBytes(maximumBuffers: 2) == 8 + 2 * 16)
    }

    @Test func packetDescriptionAndValueRange() {
        let p = AudioStreamPacketDescription(mStartOffset: 10, mVariableFramesInPacket: 0, mDataByteSize: 200)
        #expect(p.mStartOffset == 10 && p.mDataByteSize == 200)
        #expect(MemoryLayout<AudioStreamPacketDescription>.size == 16)
        let r = AudioValueRange(mMinimum: 8000, mMaximum: 48000)
        #expect(r.mMaximum - r.mMinimum == 40000)
    }
}
