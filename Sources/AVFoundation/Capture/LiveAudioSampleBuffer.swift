// LiveAudioSampleBuffer: a captured chunk of sound as Core Media sees it — one linear PCM sample
// buffer whose time is the chunk's capture time — in the device's own format (Float32,
// interleaved) or converted to an audio data output's `audioSettings` (CaptureAudioConverter, over
// MediaEngine's AudioResampler), with an audio connection's channel volumes applied first (VOLK).
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization
internal import CVolk
internal import MediaEngine

extension LiveAudioChunk {
    /// The chunk as a ready sample buffer: `frameCount` packets of interleaved Float32 linear PCM
    /// at the chunk's rate and channel count, presented at its capture time (the sample rate as
    /// timescale). Nil for an empty chunk or when Core Media cannot make the buffer.
    func makeSampleBuffer() -> CMSampleBuffer? {
        let channels = format.channelCount
        guard frameCount > 0, channels > 0, format.sampleRate > 0, samples.count >= frameCount * channels * 4,
              let description = LiveAudioFormatDescriptions.shared.description(of: format) else { return nil }
        return PCMSampleBuffers.sampleBuffer(samples.prefix(frameCount * channels * 4), frameCount: frameCount,
                                                        description: description, pts: pts)
    }

    /// The chunk with channel `c`'s samples multiplied by `gains[c]` (channels beyond `gains`
    /// keep theirs): one VOLK multiply over the interleaved samples by a gain pattern repeated
    /// frame after frame (the pattern is doubled with `memcpy`, not filled sample by sample), or
    /// one VOLK scale when every channel has the same gain; all-zero gains give silence.
    func applyingGains(_ gains: [Float]) -> LiveAudioChunk {
        let channels = format.channelCount
        let count = frameCount * channels
        guard count > 0, samples.count >= count * 4, !gains.isEmpty else { return self }
        let perChannel = (0..<channels).map { $0 < gains.count ? gains[$0] : 1 }
        if perChannel.allSatisfy({ $0 == 1 }) { return self }
        var out = Data(count: count * 4)
        if perChannel.allSatisfy({ $0 == 0 }) {
            return LiveAudioChunk(samples: out, frameCount: frameCount, format: format, pts: pts, isDiscontinuity: isDiscontinuity)
        }
        out.withUnsafeMutableBytes { outRaw in
            samples.withUnsafeBytes { inRaw in
                let dst = outRaw.baseAddress!.assumingMemoryBound(to: Float.self)
                let src = inRaw.baseAddress!.assumingMemoryBound(to: Float.self)
                if perChannel.allSatisfy({ $0 == perChannel[0] }) {
                    avf_volk_scale(dst, src, perChannel[0], UInt32(count))
                    return
                }
                // The pattern g0 g1 … gN-1 g0 g1 …, `count` long, built by doubling copies.
                let pattern = UnsafeMutablePointer<Float>.allocate(capacity: count)
                defer { pattern.deallocate() }
                perChannel.withUnsafeBufferPointer { pattern.update(from: $0.baseAddress!, count: channels) }
                var filled = channels
                while filled < count {
                    let n = min(filled, count - filled)
                    (pattern + filled).update(from: pattern, count: n)
                    filled += n
                }
                avf_volk_multiply(dst, src, pattern, UInt32(count))
            }
        }
        return LiveAudioChunk(samples: out, frameCount: frameCount, format: format, pts: pts, isDiscontinuity: isDiscontinuity)
    }
}

/// One format description per live audio format, made once and shared by every buffer of that
/// format (as a capture source's buffers share theirs on Apple's platforms).
final class LiveAudioFormatDescriptions: Sendable {
    static let shared = LiveAudioFormatDescriptions()
    private let made = Mutex<[LiveAudioFormat: CMAudioFormatDescription]>([:])

    /// LPCM Float32, interleaved, packed, native endian, at the format's rate and channel count.
    func description(of format: LiveAudioFormat) -> CMAudioFormatDescription? {
        if let known = made.withLock({ $0[format] }) { return known }
        let bytesPerFrame = UInt32(4 * format.channelCount)
        var asbd = AudioStreamBasicDescription(mSampleRate: format.sampleRate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagsNativeFloatPacked,
                                               mBytesPerPacket: bytesPerFrame, mFramesPerPacket: 1, mBytesPerFrame: bytesPerFrame,
                                               mChannelsPerFrame: UInt32(format.channelCount), mBitsPerChannel: 32, mReserved: 0)
        var description: CMAudioFormatDescription?
        guard CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                             magicCookie: nil, extensions: nil, formatDescriptionOut: &description) == noErr,
              let description else { return nil }
        made.withLock { $0[format] = description }
        return description
    }

}

/// Converts a sound source's chunks to one linear PCM format (an audio data output's
/// `audioSettings`) with MediaEngine's `AudioResampler` (libswresample: rate, channels, sample
/// type, byte order, interleaving), stamping the output on the session clock exactly.
///
/// Times: a run of contiguous chunks is anchored at its first chunk's capture time (rounded to
/// the output rate's ticks); output frame k of the run is presented at anchor + k / output rate —
/// sample counts, so no drift and no gap. libswresample holds back its filter's delay; that tail
/// comes out when the run ends: at a discontinuity (a chunk that does not continue the one
/// before, or a change of the source's format) before the new run's first buffer, and at
/// `flush()` when capture stops. So the output of a run holds exactly as many frames as its
/// input lasted at the output rate (rounded).
///
/// Not thread-safe: one source thread converts (the output serialises).
final class CaptureAudioConverter {
    /// What is delivered.
    let output: AudioPCMFormat
    private let description: CMAudioFormatDescription
    private var resampler: AudioResampler?
    private var input: LiveAudioFormat?
    /// The run's first output frame on the session clock, in output-rate ticks.
    private var anchor: CMTimeValue = 0

    /// A converter to `output`, whose sample buffers carry `layout` (AudioChannelLayout bytes).
    init?(output: AudioPCMFormat, layout: Data) {
        guard output.problem == nil, let description = PCMSampleBuffers.formatDescription(output, layout: layout) else { return nil }
        self.output = output
        self.description = description
    }

    /// The format description every converted buffer carries.
    var formatDescription: CMAudioFormatDescription { description }

    /// The buffers `chunk` completes (usually one; none while the converter fills; two when it
    /// starts a new run: the old run's tail, then the new run's start).
    func convert(_ chunk: LiveAudioChunk) -> [CMSampleBuffer] {
        guard chunk.frameCount > 0, chunk.format.channelCount > 0, chunk.format.sampleRate > 0 else { return [] }
        var out: [CMSampleBuffer] = []
        if resampler == nil || chunk.isDiscontinuity || chunk.format != input {
            if let tail = flush() { out.append(tail) }
            let source = AudioPCMFormat(sampleRate: Int(chunk.format.sampleRate.rounded()),
                                        channels: AudioChannelSet(count: chunk.format.channelCount).resolved,
                                        sampleType: .float, bitsPerSample: 32)
            guard let made = try? AudioResampler(input: source, output: output) else { return out }
            resampler = made
            input = chunk.format
            anchor = CMTimeConvertScale(chunk.pts, timescale: Int32(output.sampleRate), method: .roundHalfAwayFromZero).value
        }
        guard let resampler else { return out }
        let appended: Bool = chunk.samples.withUnsafeBytes { raw in
            (try? resampler.append(bytes: raw, frameCount: chunk.frameCount)) != nil
        }
        if appended, let buffer = take(from: resampler) { out.append(buffer) }
        return out
    }

    /// Ends the run: what the converter holds back comes out (nil when nothing does). The next
    /// chunk starts a new run at its own time.
    func flush() -> CMSampleBuffer? {
        guard let resampler else { return nil }
        defer { self.resampler = nil; input = nil }
        guard (try? resampler.finish()) != nil else { return nil }
        return take(from: resampler)
    }

    /// Everything `resampler` has ready, as one buffer at its place in the run.
    private func take(from resampler: AudioResampler) -> CMSampleBuffer? {
        let frames = resampler.bufferedFrameCount
        guard frames > 0 else { return nil }
        let pts = CMTime(value: anchor + CMTimeValue(resampler.consumedFrameCount), timescale: Int32(output.sampleRate))
        let bytes = resampler.read(frameCount: frames)
        return PCMSampleBuffers.sampleBuffer(bytes, frameCount: frames, description: description, pts: pts)
    }
}
