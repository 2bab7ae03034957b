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
        guard frameCount > 0, channels > 0, format.sampleRate > 0, samples.count >= frameCount * channels * 4,
              let description = LiveAudioFormatDescriptions.shared.description(of: format) else { return nil }
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

/// One format description per live audio format, made once and shared by every buffer of that
/// format (as a capture source's buffers share theirs on Apple's platforms).
final class LiveAudioFormatDescriptions: @unchecked Sendable {
    static let shared = LiveAudioFormatDescriptions()
    private let lock = NSLock()
    private var made: [LiveAudioFormat: CMAudioFormatDescription] = [:]

    /// LPCM Float32, interleaved, packed, native endian, at the format's rate and channel count.
    func description(of format: LiveAudioFormat) -> CMAudioFormatDescription? {
        if let known = lock.withLock({ made[format] }) { return known }
        let bytesPerFrame = UInt32(4 * format.channelCount)
        var asbd = AudioStreamBasicDescription(mSampleRate: format.sampleRate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagsNativeFloatPacked,
                                               mBytesPerPacket: bytesPerFrame, mFramesPerPacket: 1, mBytesPerFrame: bytesPerFrame,
                                               mChannelsPerFrame: UInt32(format.channelCount), mBitsPerChannel: 32, mReserved: 0)
        var description: CMAudioFormatDescription?
        guard CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                             magicCookie: nil, extensions: nil, formatDescriptionOut: &description) == noErr,
              let description else { return nil }
        lock.withLock { made[format] = description }
        return description
    }
}
