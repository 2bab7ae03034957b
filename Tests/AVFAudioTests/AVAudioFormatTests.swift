// AVAudioFormat, AVAudioChannelLayout, AVAudioPCMBuffer, AVAudioTime as Apple documents them.
import AVFAudio
import Foundation
import Testing

@Suite struct AVAudioFormatTests {
    @Test func theStandardFormatIsDeinterleavedFloat32() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        #expect(format.isStandard && format.commonFormat == .pcmFormatFloat32 && !format.isInterleaved)
        #expect(format.sampleRate == 44_100 && format.channelCount == 2 && format.channelLayout == nil)
        let d = format.streamDescription.pointee
        #expect(d.mFormatID == kAudioFormatLinearPCM && d.mBitsPerChannel == 32 && d.mBytesPerFrame == 4 && d.mBytesPerPacket == 4)
        #expect(d.mFramesPerPacket == 1 && d.mChannelsPerFrame == 2)
        #expect(d.mFormatFlags == kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved)
        // More than two channels need a layout.
        #expect(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 6) == nil)
        #expect(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 0, interleaved: true) == nil)
        let layout = try #require(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A))
        #expect(layout.channelCount == 6 && layout.layoutTag == kAudioChannelLayoutTag_MPEG_5_1_A)
        let surround = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: layout)
        #expect(surround.channelCount == 6 && surround.channelLayout == layout)
    }

    @Test func commonFormatsAndTheirSettings() throws {
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 22_050, channels: 2, interleaved: true))
        #expect(int16.commonFormat == .pcmFormatInt16 && int16.isInterleaved && !int16.isStandard)
        #expect(int16.streamDescription.pointee.mBytesPerFrame == 4)
        let settings = int16.settings
        #expect(settings[AVFormatIDKey] as? NSNumber == NSNumber(value: kAudioFormatLinearPCM))
        #expect((settings[AVSampleRateKey] as? NSNumber)?.doubleValue == 22_050)
        #expect((settings[AVNumberOfChannelsKey] as? NSNumber)?.intValue == 2)
        #expect((settings[AVLinearPCMBitDepthKey] as? NSNumber)?.intValue == 16)
        #expect((settings[AVLinearPCMIsFloatKey] as? NSNumber)?.boolValue == false)
        #expect((settings[AVLinearPCMIsNonInterleaved] as? NSNumber)?.boolValue == false)
        // The settings make the same format again; so does its format description.
        #expect(AVAudioFormat(settings: settings) == int16)
        #expect(AVAudioFormat(cmAudioFormatDescription: int16.formatDescription) == int16)
        #expect(int16 != AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 22_050, channels: 2, interleaved: true))
        // A compressed format from settings.
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 1]))
        #expect(aac.commonFormat == .otherFormat && aac.streamDescription.pointee.mFramesPerPacket == 1024)
        #expect(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatLinearPCM]) == nil)
        // Mono is interleaved whatever was asked.
        #expect(AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 1)?.isInterleaved == true)
    }

    @Test func pcmBuffersHoldTheirChannelsAsTheFormatSays() throws {
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512))
        #expect(buffer.frameCapacity == 512 && buffer.frameLength == 0 && buffer.stride == 1)
        let channels = try #require(buffer.floatChannelData)
        #expect(buffer.int16ChannelData == nil && buffer.int32ChannelData == nil)
        channels[1][10] = 0.5
        buffer.frameLength = 100
        let list = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
        #expect(list.count == 2 && list[0].mDataByteSize == 400 && list[1].mDataByteSize == 400)
        #expect(list[1].mData!.assumingMemoryBound(to: Float.self)[10] == 0.5)

        let interleaved = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true))
        let packed = try #require(AVAudioPCMBuffer(pcmFormat: interleaved, frameCapacity: 64))
        #expect(packed.stride == 2 && packed.floatChannelData == nil)
        let samples = try #require(packed.int16ChannelData)
        samples[1][3 * packed.stride] = 7   // frame 3, right channel
        packed.frameLength = 4
        let one = UnsafeMutableAudioBufferListPointer(packed.mutableAudioBufferList)
        #expect(one.count == 1 && one[0].mNumberChannels == 2 && one[0].mDataByteSize == 16)
        #expect(one[0].mData!.assumingMemoryBound(to: Int16.self)[7] == 7)
        // Compressed formats have no PCM buffer.
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2]))
        #expect(AVAudioPCMBuffer(pcmFormat: aac, frameCapacity: 10) == nil)
        let compressed = AVAudioCompressedBuffer(format: aac, packetCapacity: 8, maximumPacketSize: 1536)
        #expect(compressed.byteCapacity == 8 * 1536 && compressed.packetDescriptions != nil && compressed.packetCount == 0)
    }

    @Test func audioTimesConvertBetweenHostAndSampleTime() throws {
        #expect(AVAudioTime.hostTime(forSeconds: 1.5) == 1_500_000_000)
        #expect(AVAudioTime.seconds(forHostTime: 250_000_000) == 0.25)
        let anchor = AVAudioTime(hostTime: 10_000_000_000, sampleTime: 48_000, atRate: 48_000)
        #expect(anchor.isHostTimeValid && anchor.isSampleTimeValid)
        let later = try #require(AVAudioTime(hostTime: 10_500_000_000).extrapolateTime(fromAnchor: anchor))
        #expect(later.sampleTime == 72_000 && later.sampleRate == 48_000)
        let sample = try #require(AVAudioTime(sampleTime: 96_000, atRate: 48_000).extrapolateTime(fromAnchor: anchor))
        #expect(sample.hostTime == 11_000_000_000)
        #expect(AVAudioTime(hostTime: 5).extrapolateTime(fromAnchor: AVAudioTime(hostTime: 1)) == nil)
    }
}
