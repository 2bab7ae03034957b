// What every encoder that owns a libavcodec context shares: describing its stream to the muxer
// and its codec configuration bytes.
import CFFmpeg
import Foundation

/// An encoder (video or audio) built on one `AVCodecContext`.
package protocol EncoderContext: AnyObject {
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
    package var extradata: Data {
        guard let c = codecContext?.pointee, let data = c.extradata, c.extradata_size > 0 else { return Data() }
        return Data(bytes: data, count: Int(c.extradata_size))
    }
}
