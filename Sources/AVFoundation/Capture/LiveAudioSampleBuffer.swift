// LiveAudioSampleBuffer: a captured chunk of sound as Core Media sees it — one linear PCM
// (Float32, interleaved) sample buffer whose time is the chunk's capture time.
import CoreMedia
import Foundation
internal import MediaEngine

extension LiveAudioChunk {
    /// The chunk as a ready sample buffer: `frameCount` packets of interleaved Float32 linear PCM
    /// at the chunk's rate and channel count, presented at its capture time (the sample rate as
    /// timescale). Nil for an empty chunk or when Core Media cannot make the buffer.
    func makeSampleBuffer() -> CMSampleBuffer? {
        let channels = format.channelCount
        guard frameCount > 0, channels > 0, format.sampleRate > 0, samples.count >= frameCount * channels * 4 else { return nil }
        let bytesPerFrame = UInt32(4 * channels)
        var asbd = AudioStreamBasicDescription(mSampleRate: format.sampleRate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: bytesPerFrame, mFramesPerPacket: 1, mBytesPerFrame: bytesPerFrame,
                                               mChannelsPerFrame: UInt32(channels), mBitsPerChannel: 32, mReserved: 0)
        var description: CMAudioFormatDescription?
        guard CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                             magicCookie: nil, extensions: nil, formatDescriptionOut: &description) == noErr,
              let description else { return nil }
        let length = frameCount * channels * 4
        var block: CMBlockBuffer?
        guard CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: length, blockAllocator: nil,
                                                 customBlockSource: nil, offsetToData: 0, dataLength: length,
                                                 flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block) == noErr,
              let block else { return nil }
        let copied = samples.withUnsafeBytes { raw -> OSStatus in
            guard let base = raw.baseAddress else { return -1 }
            return CMBlockBufferReplaceDataBytes(with: base, blockBuffer: block, offsetIntoDestination: 0, dataLength: length)
        }
        guard copied == noErr else { return nil }
        var sample: CMSampleBuffer?
        guard CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: block, formatDescription: description,
                                                                   sampleCount: frameCount, presentationTimeStamp: pts,
                                                                   packetDescriptions: nil, sampleBufferOut: &sample) == noErr
        else { return nil }
        return sample
    }
}
