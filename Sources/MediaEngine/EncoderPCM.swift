// EncoderPCM: linear PCM in one sample layout → packets of the layout the file stores, with
// libavcodec's PCM decoders and encoders (pcm_s16le/be, s24, s32, f32, f64, u8, s8).
import CFFmpeg
import CoreMedia
import Foundation

/// Turns interleaved linear PCM bytes into packets of the output layout.
///
/// When the input layout is the output layout the bytes are copied into packets as they are.
/// Otherwise the input codec's PCM decoder and the output codec's PCM encoder run back to back;
/// that works whenever the decoder's samples are the encoder's input format: byte-order changes,
/// 24 ↔ 32-bit integers (the low byte is dropped going to 24 bits) and signed ↔ unsigned 8-bit.
/// Conversions that need a resampler (integer ↔ float, 16 ↔ 24/32 bits, other rates or channel
/// counts, non-interleaved input) are refused at `init`.
package final class EncoderPCM: @unchecked Sendable {
    /// The layout samples arrive in.
    package let input: MuxerStreamFormat.PCMLayout
    /// The layout packets carry.
    package let output: MuxerStreamFormat.PCMLayout
    /// Channels per frame.
    package let channels: Int
    /// Frames per second; packet timestamps count in 1/`sampleRate`.
    package let sampleRate: Int32
    /// FFmpeg's codec of the output packets.
    package let codecID: AVCodecID

    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?

    /// Whether `input` can become `output` without a resampler.
    package static func canConvert(_ input: MuxerStreamFormat.PCMLayout, to output: MuxerStreamFormat.PCMLayout) -> Bool {
        guard !input.isNonInterleaved, !output.isNonInterleaved,
              let from = input.codecID, let to = output.codecID else { return false }
        if from == to { return true }
        return decodedFormat(from) == encodedFormat(to)
    }

    /// The sample format a PCM decoder of `id` produces.
    private static func decodedFormat(_ id: AVCodecID) -> AVSampleFormat? {
        switch id {
        case AV_CODEC_ID_PCM_U8, AV_CODEC_ID_PCM_S8: return AV_SAMPLE_FMT_U8
        case AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S16BE: return AV_SAMPLE_FMT_S16
        case AV_CODEC_ID_PCM_S24LE, AV_CODEC_ID_PCM_S24BE, AV_CODEC_ID_PCM_S32LE, AV_CODEC_ID_PCM_S32BE: return AV_SAMPLE_FMT_S32
        case AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_F32BE: return AV_SAMPLE_FMT_FLT
        case AV_CODEC_ID_PCM_F64LE, AV_CODEC_ID_PCM_F64BE: return AV_SAMPLE_FMT_DBL
        default: return nil
        }
    }

    /// The sample format a PCM encoder of `id` takes (the same table).
    private static func encodedFormat(_ id: AVCodecID) -> AVSampleFormat? { decodedFormat(id) }

    /// A converter from `input` to `output` for `channels` channels at `sampleRate`. Throws
    /// `MediaError.invalidArgument` when the conversion needs a resampler.
    package init(input: MuxerStreamFormat.PCMLayout, output: MuxerStreamFormat.PCMLayout, channels: Int,
                 sampleRate: Int32) throws(MediaError) {
        MediaEngine.configure()
        guard channels > 0, channels <= 64, sampleRate > 0 else {
            throw MediaError.invalidArgument(message: "invalid PCM format: \(channels) channels at \(sampleRate) Hz")
        }
        guard EncoderPCM.canConvert(input, to: output), let outputCodec = output.codecID, let inputCodec = input.codecID else {
            throw MediaError.invalidArgument(message: "converting \(input) samples to \(output) needs a sample format converter")
        }
        self.input = input
        self.output = output
        self.channels = channels
        self.sampleRate = sampleRate
        codecID = outputCodec
        if inputCodec != outputCodec {
            decoder = try EncoderPCM.open(inputCodec, encoder: false, channels: channels, sampleRate: sampleRate)
            do {
                encoder = try EncoderPCM.open(outputCodec, encoder: true, channels: channels, sampleRate: sampleRate)
            } catch {
                avcodec_free_context(&decoder)
                throw error
            }
        }
    }

    deinit {
        avcodec_free_context(&decoder)
        avcodec_free_context(&encoder)
    }

    private static func open(_ id: AVCodecID, encoder isEncoder: Bool, channels: Int, sampleRate: Int32)
        throws(MediaError) -> UnsafeMutablePointer<AVCodecContext> {
        guard let codec = isEncoder ? avcodec_find_encoder(id) : avcodec_find_decoder(id) else {
            throw MediaError.other(code: Encoder.encoderNotFoundCode, message: "no \(String(cString: avcodec_get_name(id))) codec")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
        ctx.pointee.sample_rate = sampleRate
        av_channel_layout_default(&ctx.pointee.ch_layout, Int32(channels))
        ctx.pointee.time_base = AVRational(num: 1, den: sampleRate)
        if isEncoder, let format = encodedFormat(id) { ctx.pointee.sample_fmt = format }
        let opened = avcodec_open2(ctx, codec, nil)
        if opened < 0 {
            var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
            avcodec_free_context(&owned)
            throw MediaError.invalidArgument(message: "cannot open \(String(cString: codec.pointee.name)): \(MediaError.ffmpegMessage(opened))")
        }
        return ctx
    }

    /// Bytes per input frame (all channels).
    package var inputBytesPerFrame: Int { input.bytesPerSample * channels }

    /// One packet holding `bytes` (whole input frames) in the output layout, at `pts` (in
    /// 1/sampleRate).
    package func packet(_ bytes: UnsafeRawBufferPointer, pts: Int64) throws(MediaError) -> EncodedPacket {
        let frames = bytes.count / inputBytesPerFrame
        guard frames > 0, frames * inputBytesPerFrame == bytes.count else {
            throw MediaError.invalidArgument(message: "PCM data of \(bytes.count) bytes is not a whole number of \(inputBytesPerFrame)-byte frames")
        }
        let timeBase = AVRational(num: 1, den: sampleRate)
        guard let decoder, let encoder else {
            return try EncodedPacket(copying: bytes, pts: pts, dts: pts, duration: Int64(frames), isKeyframe: true, timeBase: timeBase)
        }
        let source = try EncodedPacket(copying: bytes, pts: pts, dts: pts, duration: Int64(frames), isKeyframe: true, timeBase: timeBase)
        var result = avcodec_send_packet(decoder, source.pointer)
        guard result >= 0 else { throw MediaError.other(code: result, message: "PCM decoding failed: \(MediaError.ffmpegMessage(result))") }
        guard let frame = av_frame_alloc() else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&owned) }
        var collected = Data()
        while true {
            result = avcodec_receive_frame(decoder, frame)
            if result == cffmpeg_averror_eagain() || result == cffmpeg_averror_eof() { break }
            guard result >= 0 else { throw MediaError.other(code: result, message: "PCM decoding failed: \(MediaError.ffmpegMessage(result))") }
            result = avcodec_send_frame(encoder, frame)
            av_frame_unref(frame)
            guard result >= 0 else { throw MediaError.other(code: result, message: "PCM encoding failed: \(MediaError.ffmpegMessage(result))") }
            try drain(encoder, into: &collected)
        }
        let expected = frames * output.bytesPerSample * channels
        guard collected.count == expected else {
            throw MediaError.other(code: MediaError.invalidDataCode, message: "PCM conversion produced \(collected.count) bytes, expected \(expected)")
        }
        let made: Result<EncodedPacket, MediaError> = collected.withUnsafeBytes { raw in
            Result { () throws(MediaError) in
                try EncodedPacket(copying: raw, pts: pts, dts: pts, duration: Int64(frames), isKeyframe: true, timeBase: timeBase)
            }
        }
        return try made.get()
    }

    private func drain(_ encoder: UnsafeMutablePointer<AVCodecContext>, into data: inout Data) throws(MediaError) {
        guard let packet = av_packet_alloc() else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
        var owned: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&owned) }
        while true {
            let result = avcodec_receive_packet(encoder, packet)
            if result == cffmpeg_averror_eagain() || result == cffmpeg_averror_eof() { return }
            guard result >= 0 else { throw MediaError.other(code: result, message: "PCM encoding failed: \(MediaError.ffmpegMessage(result))") }
            if let d = packet.pointee.data, packet.pointee.size > 0 { data.append(d, count: Int(packet.pointee.size)) }
            av_packet_unref(packet)
        }
    }
}
