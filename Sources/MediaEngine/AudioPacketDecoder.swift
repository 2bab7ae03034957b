// AudioPacketDecoder: compressed audio packets outside any container — what AVAudioConverter gets
// in AVAudioCompressedBuffers — decoded by the shared Decoder (codec and configuration from the
// Core Media format description, as the muxer's passthrough describes them) and converted by an
// AudioResampler to one PCM format.
internal import CFFmpeg
import CoreMedia
import Foundation

/// Decodes packets of one audio stream described by a format description. Not thread-safe (one owner).
package final class AudioPacketDecoder: @unchecked Sendable {
    // @unchecked Sendable: owns the decoder and resampler (FFmpeg handles), used by one owner at a time.
    private let decoder: Decoder
    private let resampler: AudioResampler
    private var nextPTS: Int64 = 0
    private let timeBase: AVRational
    package let output: AudioPCMFormat

    /// A decoder for the packets `description` describes (AAC with its ES descriptor cookie,
    /// Apple Lossless, FLAC, Opus, MP3, µ-law, A-law, IMA4…), converting to `output`.
    package init(formatDescription description: CMAudioFormatDescription, output: AudioPCMFormat) throws(MediaError) {
        MediaEngine.configure()
        guard let parameters = avcodec_parameters_alloc() else { throw MediaError.other(code: -12, message: "out of memory") }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        defer { avcodec_parameters_free(&owned) }
        try MuxerStreamFormat.describe(description, into: parameters)
        let rate = max(1, parameters.pointee.sample_rate)
        timeBase = AVRational(num: 1, den: rate)
        do throws(FFmpegError) {
            decoder = try Decoder(parameters: parameters, timeBase: timeBase, threads: 1)
        } catch {
            throw MediaError.decoderNotFound(code: error.code, message: "no decoder for this audio format: \(error)")
        }
        self.output = output
        resampler = try AudioResampler(output: output)
    }

    /// Frames decoded and converted, waiting to be read.
    package var bufferedFrameCount: Int { resampler.bufferedFrameCount }

    /// Decodes one packet (its bytes); what it yields waits in the resampler.
    package func decode(_ bytes: UnsafeRawBufferPointer, frames: Int? = nil) throws(MediaError) {
        guard let packet = av_packet_alloc() else { throw MediaError.other(code: -12, message: "out of memory") }
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        guard av_new_packet(packet, Int32(bytes.count)) >= 0 else {
            av_packet_free(&owned)
            throw MediaError.other(code: -12, message: "out of memory")
        }
        if let base = bytes.baseAddress, bytes.count > 0 { packet.pointee.data.update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count) }
        packet.pointee.pts = nextPTS
        packet.pointee.dts = nextPTS
        if let frames { packet.pointee.duration = Int64(frames) }
        packet.pointee.flags |= AV_PKT_FLAG_KEY
        let wrapped = DemuxerPacket(taking: packet, timeBase: timeBase)
        do throws(FFmpegError) {
            try decoder.send(wrapped)
            try drain()
        } catch {
            throw MediaError.failedToParse(code: error.code, message: "the packet could not be decoded: \(error)")
        }
        nextPTS += Int64(frames ?? 0)
    }

    /// Drains the decoder at the end of the packets.
    package func finish() throws(MediaError) {
        do throws(FFmpegError) {
            try decoder.sendEndOfStream()
            try drain()
        } catch {
            throw MediaError.failedToParse(code: error.code, message: "the last packets could not be decoded: \(error)")
        }
        try resampler.finish()
    }

    /// Up to `frameCount` converted frames (the output format's buffers one after another).
    package func read(frameCount: Int) -> (data: Data, frames: Int) {
        let n = min(frameCount, resampler.bufferedFrameCount)
        return (resampler.read(frameCount: n), n)
    }

    /// Forgets everything decoded (a new stream of packets follows).
    package func reset() {
        decoder.flush()
        resampler.reset()
        nextPTS = 0
    }

    private func drain() throws(FFmpegError) {
        while true {
            switch try decoder.receive() {
            case .frame(let frame):
                do throws(MediaError) { try resampler.append(frame) } catch { throw FFmpegError(code: -1) }
            case .needsInput, .endOfStream:
                return
            }
        }
    }
}
