// What every encoder that owns a libavcodec context shares: describing its stream to the muxer
// and its codec configuration bytes.
internal import CFFmpeg
import Foundation

/// An encoder (video or audio) built on one `AVCodecContext`.
protocol EncoderContext: AnyObject {
    /// The open codec context; nil once released.
    var codecContext: UnsafeMutablePointer<AVCodecContext>? { get }
}

extension EncoderContext {
    /// Copies the encoder's stream parameters (codec, size or rate and layout, extradata…) into `par`.
    func copyParameters(to par: UnsafeMutablePointer<AVCodecParameters>) -> Int32 {
        guard let context = codecContext else { return cffmpeg_averror(EINVAL) }
        return avcodec_parameters_from_context(par, context)
    }

    /// The codec configuration bytes (Annex B SPS/PPS for libx264, AAC AudioSpecificConfig, ALAC
    /// atom, FLAC STREAMINFO, OpusHead…); empty when the codec has none.
    var codecExtradata: Data {
        guard let c = codecContext?.pointee, let data = c.extradata, c.extradata_size > 0 else { return Data() }
        return Data(bytes: data, count: Int(c.extradata_size))
    }

    /// Every packet the encoder has ready (empty when it needs more input or is done), in
    /// `timeBase`; `adjust` may complete a packet first. Failures name `codecName`.
    func readyPackets(timeBase: AVRational, codecName: String,
                      adjust: (UnsafeMutablePointer<AVPacket>) -> Void = { _ in }) throws(MediaError) -> [EncodedPacket] {
        guard let context = codecContext else { return [] }
        var out: [EncodedPacket] = []
        while true {
            guard let packet = av_packet_alloc() else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
            let result = avcodec_receive_packet(context, packet)
            if result >= 0 {
                adjust(packet)
                out.append(EncodedPacket(taking: packet, timeBase: timeBase))
                continue
            }
            var doomed: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&doomed)
            if result == cffmpeg_averror_eagain() || result == cffmpeg_averror_eof() { return out }
            throw MediaError.other(code: result, message: "\(codecName) failed: \(MediaError.ffmpegMessage(result))")
        }
    }
}

extension Encoder {
    /// The codec configuration bytes (see `EncoderContext`); empty when the codec has none.
    package var extradata: Data { codecExtradata }
}

extension EncoderAudio {
    /// The codec configuration bytes (see `EncoderContext`); empty when the codec has none.
    package var extradata: Data { codecExtradata }
}
