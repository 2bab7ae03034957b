// EncoderAudio: linear PCM in any layout Apple's stream descriptions name → packets of AAC, Apple
// Lossless, FLAC, Opus, µ-law, A-law, or linear PCM in another layout. Every conversion (rate,
// channels, sample type, bit depth, byte order, interleaving) goes through the AudioResampler;
// compressed codecs are fed whole encoder frames with send/receive.
internal import CFFmpeg
import CoreMedia
import Foundation

/// Encodes a stream of linear PCM.
///
/// Samples arrive as bytes in the input `AudioPCMFormat` (an appended sample buffer's ASBD:
/// interleaved or not, any sample type, byte order and channel order). When the input already is
/// the linear PCM asked for, the bytes become packets as they are. Otherwise the resampler
/// converts them to the encoder's sample format, rate and channel layout and buffers them; each
/// whole encoder frame (`frameSize`: 1024 for AAC, 4096 for ALAC, 4608 for FLAC, 960 for Opus)
/// is sent to libavcodec, and the last, shorter one at `finish()` (the codecs pad it themselves
/// and give its packet the true duration). Linear PCM output is read from the resampler as
/// Apple-layout bytes (24-bit, big-endian and signed 8-bit included), one packet per append.
///
/// Packet timestamps count in 1/`sampleRate` from `firstPTS`; codecs with encoder delay (AAC:
/// 1024 frames of priming, Opus: its pre-skip) start before it, so the muxer writes an edit list
/// that hides the priming. Not thread-safe: one thread at a time.
package final class EncoderAudio: EncoderContext, @unchecked Sendable {
    /// The formats the engine encodes audio to.
    package enum Codec: Sendable, Equatable, CustomStringConvertible {
        /// MPEG-4 AAC Low Complexity (FFmpeg's native encoder).
        case aac
        /// Apple Lossless (16 or 24 bits per sample).
        case appleLossless
        /// FLAC (16 or 24 bits per sample).
        case flac
        /// Opus with libopus (8, 12, 16, 24 or 48 kHz).
        case opus
        /// G.711 µ-law.
        case muLaw
        /// G.711 A-law.
        case aLaw
        /// Apple's IMA 4:1 ADPCM ('ima4', FFmpeg's adpcm_ima_qt: 64 frames per packet).
        case appleIMA4
        /// Linear PCM in this layout.
        case linearPCM(MuxerStreamFormat.PCMLayout)

        /// libavcodec's encoder name; nil for linear PCM (written as bytes).
        var encoderName: String? {
            switch self {
            case .aac: return "aac"
            case .appleLossless: return "alac"
            case .flac: return "flac"
            case .opus: return "libopus"
            case .muLaw: return "pcm_mulaw"
            case .aLaw: return "pcm_alaw"
            case .appleIMA4: return "adpcm_ima_qt"
            case .linearPCM: return nil
            }
        }

        package var description: String {
            switch self {
            case .aac: return "AAC"
            case .appleLossless: return "Apple Lossless"
            case .flac: return "FLAC"
            case .opus: return "Opus"
            case .muLaw: return "µ-law"
            case .aLaw: return "A-law"
            case .appleIMA4: return "IMA 4:1"
            case .linearPCM(let layout): return "\(layout) linear PCM"
            }
        }

        /// Whether this FFmpeg build has the encoder.
        package var isAvailable: Bool {
            guard let name = encoderName else { return true }
            MediaEngine.configure()
            return avcodec_find_encoder_by_name(name) != nil
        }
    }

    /// What to encode to.
    package struct Settings: Sendable, Equatable {
        package var codec: Codec
        /// Output frames per second.
        package var sampleRate: Int
        /// Output channels (positions from `AVChannelLayoutKey`, or a count).
        package var channels: AudioChannelSet
        /// Bits per second for the whole stream (AAC, Opus); nil: the codec's default for the
        /// rate and channel count.
        package var bitRate: Int?
        /// Variable bit rate (AAC: quality-driven, Opus: unconstrained VBR); false: constant
        /// (AAC: average) bit rate.
        package var variableBitRate = false
        /// `AVAudioQuality` raw value (0…127): AAC's VBR quality, FLAC's compression level.
        package var quality: Int?
        /// Bits per sample kept by lossless codecs (16 or 24; 20 and 32 are stored as 24).
        package var bitDepth: Int?
        /// The sample rate converter's quality.
        package var resamplerQuality: AudioResampler.Quality = .medium
        /// Where each output channel comes from (`AudioResampler.channelMap`); nil: mixed.
        package var channelMap: [Int]?
        /// Triangular dither when reducing the bit depth.
        package var dither = false

        package init(codec: Codec, sampleRate: Int, channels: AudioChannelSet) {
            self.codec = codec
            self.sampleRate = sampleRate
            self.channels = channels
        }
    }

    package let settings: Settings
    /// The layout of the bytes `append` takes.
    package let input: AudioPCMFormat
    /// Packet timestamps count in 1/sampleRate.
    var timeBase: AVRational { AVRational(num: 1, den: Int32(settings.sampleRate)) }
    /// Frames per encoder frame (0: any number).
    package let frameSize: Int
    /// Frames of encoder delay before the first appended frame (AAC 1024, Opus its pre-skip).
    package var priming: Int { Int(max(0, context?.pointee.initial_padding ?? 0)) }
    /// The linear PCM stored, for `.linearPCM` (its stream description is the track's).
    package let outputPCM: AudioPCMFormat?
    /// Input frames appended so far.
    package private(set) var appendedFrameCount: Int64 = 0

    private var context: UnsafeMutablePointer<AVCodecContext>?
    private let resampler: AudioResampler?
    private let firstPTS: Int64
    private var nextPCMPTS: Int64
    private var finished = false
    private let name: String

    /// An encoder of `input` PCM to `settings`, its first frame at `firstPTS` (1/sampleRate).
    /// Throws `MediaError.invalidArgument` for settings the codec refuses, `.other` with
    /// `Encoder.encoderNotFoundCode` when FFmpeg lacks the encoder.
    package init(input: AudioPCMFormat, settings: Settings, firstPTS: Int64 = 0) throws(MediaError) {
        MediaEngine.configure()
        if let problem = input.problem { throw MediaError.invalidArgument(message: "input audio: \(problem)") }
        guard settings.sampleRate > 0, settings.sampleRate <= 768_000, (1...64).contains(settings.channels.count) else {
            throw MediaError.invalidArgument(message: "cannot encode \(settings.channels.count) channels at \(settings.sampleRate) Hz")
        }
        self.input = input
        self.settings = settings
        self.firstPTS = firstPTS
        nextPCMPTS = firstPTS
        name = settings.codec.encoderName ?? "linear PCM"
        guard let encoderName = settings.codec.encoderName else {
            guard case .linearPCM(let layout) = settings.codec else { preconditionFailure() }
            let output = AudioPCMFormat(sampleRate: settings.sampleRate, channels: settings.channels,
                                        sampleType: layout.isFloat ? .float : (layout.isSigned ? .signedInteger : .unsignedInteger),
                                        bitsPerSample: layout.bits, isBigEndian: layout.isBigEndian, isInterleaved: !layout.isNonInterleaved)
            if let problem = output.problem { throw MediaError.invalidArgument(message: "output audio: \(problem)") }
            outputPCM = output
            frameSize = 0
            // The same layout, rate and channels: the bytes are stored as they come.
            let mapsChannels = settings.channelMap.map { $0 != Array(0..<$0.count) } ?? false
            resampler = EncoderAudio.isSamePCM(input, output) && !mapsChannels ? nil
                : try AudioResampler(input: input, output: output, quality: settings.resamplerQuality,
                                     channelMap: settings.channelMap, dither: settings.dither)
            return
        }
        outputPCM = nil
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw MediaError.other(code: Encoder.encoderNotFoundCode, message: "this FFmpeg has no \(encoderName) encoder")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory") }
        var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
        do throws(MediaError) {
            try EncoderAudio.configure(ctx, codec: codec, settings: settings, input: input)
            let opened = avcodec_open2(ctx, codec, nil)
            if opened < 0 {
                throw MediaError.invalidArgument(message: "\(encoderName) refused \(settings.channels.count) channels at \(settings.sampleRate) Hz"
                                                 + (settings.bitRate.map { ", \($0) bit/s" } ?? "") + ": \(MediaError.ffmpegMessage(opened))")
            }
            guard let encoded = AudioPCMFormat(sampleFormat: ctx.pointee.sample_fmt, sampleRate: ctx.pointee.sample_rate,
                                               layout: ctx.pointee.ch_layout) else {
                throw MediaError.invalidArgument(message: "\(encoderName) takes samples the converter cannot make")
            }
            let variable = codec.pointee.capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE != 0
            frameSize = variable ? 0 : Int(ctx.pointee.frame_size)
            resampler = try AudioResampler(input: input, output: encoded, quality: settings.resamplerQuality,
                                           channelMap: settings.channelMap, dither: settings.dither)
        } catch {
            avcodec_free_context(&owned)
            throw error
        }
        context = ctx
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// Whether `a` bytes are `b` bytes (so no conversion is needed).
    private static func isSamePCM(_ a: AudioPCMFormat, _ b: AudioPCMFormat) -> Bool {
        guard a.sampleRate == b.sampleRate, a.channelCount == b.channelCount, a.sampleType == b.sampleType,
              a.bitsPerSample == b.bitsPerSample, a.isInterleaved == b.isInterleaved else { return false }
        guard a.bitsPerSample == 8 || a.isBigEndian == b.isBigEndian else { return false }
        // Count-only channels are taken to be in the other side's order.
        return a.channels.positions == nil || b.channels.positions == nil || a.channels == b.channels
    }

    private static func configure(_ ctx: UnsafeMutablePointer<AVCodecContext>, codec: UnsafePointer<AVCodec>, settings s: Settings,
                                  input: AudioPCMFormat) throws(MediaError) {
        let rate = Int32(s.sampleRate)
        ctx.pointee.sample_rate = rate
        ctx.pointee.time_base = AVRational(num: 1, den: rate)
        av_channel_layout_uninit(&ctx.pointee.ch_layout)
        ctx.pointee.ch_layout = s.channels.nativeLayout()
        // The codec's channel layouts, when it lists them: keep ours if listed, else take the
        // listed layout of the same count (the resampler maps the positions).
        if let layouts = codec.pointee.ch_layouts {
            var i = 0, match: Int?, sameCount: Int?
            while layouts[i].nb_channels != 0 {
                var candidate = layouts[i]
                if av_channel_layout_compare(&candidate, &ctx.pointee.ch_layout) == 0 { match = i }
                if sameCount == nil && candidate.nb_channels == ctx.pointee.ch_layout.nb_channels { sameCount = i }
                i += 1
            }
            if match == nil {
                guard let sameCount else {
                    throw MediaError.invalidArgument(message: "\(String(cString: codec.pointee.name)) cannot encode \(s.channels.count) channels")
                }
                av_channel_layout_uninit(&ctx.pointee.ch_layout)
                var listed = layouts[sameCount]
                av_channel_layout_copy(&ctx.pointee.ch_layout, &listed)
            }
        }
        // Sample format: the codec's first, or for the lossless codecs the one of the bit depth.
        guard let formats = codec.pointee.sample_fmts, formats[0] != AV_SAMPLE_FMT_NONE else {
            throw MediaError.invalidArgument(message: "\(String(cString: codec.pointee.name)) lists no sample format")
        }
        var format = formats[0]
        let wantedDepth = lossless(s.codec) ? losslessBitDepth(hint: s.bitDepth, input: input) : 16
        if lossless(s.codec) {
            var i = 0
            while formats[i] != AV_SAMPLE_FMT_NONE {
                let bytes = av_get_bytes_per_sample(formats[i])
                if (wantedDepth > 16 && bytes == 4) || (wantedDepth <= 16 && bytes == 2) { format = formats[i]; break }
                i += 1
            }
            ctx.pointee.bits_per_raw_sample = Int32(wantedDepth > 16 ? 24 : 16)
        } else if s.codec == .opus {
            // libopus takes 16-bit or float samples: float keeps the source's precision.
            var i = 0
            while formats[i] != AV_SAMPLE_FMT_NONE {
                if formats[i] == AV_SAMPLE_FMT_FLT { format = formats[i] }
                i += 1
            }
        }
        ctx.pointee.sample_fmt = format
        let priv = ctx.pointee.priv_data
        switch s.codec {
        case .aac:
            if s.variableBitRate, s.bitRate == nil {
                // FFmpeg's quality scale 0.1…2 (about 40…250 kb/s stereo) from AVAudioQuality 0…127.
                let q = 0.1 + 1.9 * Double(min(max(s.quality ?? 0x60, 0), 127)) / 127
                ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
                ctx.pointee.global_quality = Int32((q * Double(FF_QP2LAMBDA)).rounded())
            } else {
                ctx.pointee.bit_rate = Int64(s.bitRate ?? defaultBitRate(s.codec, sampleRate: s.sampleRate, channels: s.channels.count))
            }
        case .opus:
            ctx.pointee.bit_rate = Int64(s.bitRate ?? defaultBitRate(s.codec, sampleRate: s.sampleRate, channels: s.channels.count))
            if let priv { av_opt_set(priv, "vbr", s.variableBitRate ? "on" : "constrained", 0) }
        case .flac:
            if let q = s.quality, let priv {
                av_opt_set_int(priv, "compression_level", Int64(min(max(q, 0), 127) * 12 / 127), 0)
            }
        default:
            break
        }
    }

    /// Whether `codec` is lossless with a bit depth (ALAC, FLAC).
    private static func lossless(_ codec: Codec) -> Bool { codec == .appleLossless || codec == .flac }

    /// The bits per sample a lossless codec keeps: the hint, but no more than the source has
    /// (float sources count as 24 bits, as Apple's encoder takes them), 16 or 24.
    package static func losslessBitDepth(hint: Int?, input: AudioPCMFormat) -> Int {
        let source = input.sampleType == .float ? 24 : input.bitsPerSample
        let depth = min(hint ?? source, source)
        return depth > 16 ? 24 : 16
    }

    /// The bit rate used when none is given: 64 kb/s per channel for AAC (32 below 32 kHz),
    /// 48 kb/s per channel for Opus (capped at its maximum).
    package static func defaultBitRate(_ codec: Codec, sampleRate: Int, channels: Int) -> Int {
        switch codec {
        case .aac: return (sampleRate < 32_000 ? 32_000 : 64_000) * channels
        case .opus: return min(48_000 * channels, 510_000)
        default: return 0
        }
    }

    /// The bit rates (bits per second, whole stream) the codec takes for the rate and channel
    /// count; nil for codecs without a bit rate setting.
    package static func bitRateRange(_ codec: Codec, sampleRate: Int, channels: Int) -> ClosedRange<Int>? {
        switch codec {
        case .aac:
            // FFmpeg caps AAC at 6144 bits per 1024-frame channel frame.
            let perChannelMax = min(sampleRate * 6, 320_000)
            let perChannelMin = sampleRate < 16_000 ? 8_000 : 16_000
            return perChannelMin * channels ... max(perChannelMin, perChannelMax) * channels
        case .opus:
            return 6_000 * channels ... min(256_000 * channels, 510_000 * max(1, channels / 2))
        default:
            return nil
        }
    }

    /// The sample rates the codec takes (nil: any).
    package static func sampleRates(_ codec: Codec) -> [Int]? {
        switch codec {
        case .aac: return [8000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000]
        case .opus: return [8000, 12_000, 16_000, 24_000, 48_000]
        default: return nil
        }
    }

    /// The channel counts the codec takes.
    package static func channelCounts(_ codec: Codec) -> ClosedRange<Int> {
        switch codec {
        case .aac, .appleLossless, .flac, .opus: return 1...8
        case .muLaw, .aLaw, .appleIMA4: return 1...2
        case .linearPCM: return 1...64
        }
    }

    // MARK: Stream

    /// The codec context, for what every encoder shares (`EncoderContext`).
    var codecContext: UnsafeMutablePointer<AVCodecContext>? { context }

    // MARK: Encoding

    /// Encodes `frameCount` frames of `bytes` in the `input` layout (non-interleaved: each
    /// channel's buffer after the other). Returns the packets ready so far.
    package func append(bytes: UnsafeRawBufferPointer, frameCount: Int) throws(MediaError) -> [EncodedPacket] {
        guard !finished else { throw MediaError.invalidArgument(message: "the \(name) encoder is finished") }
        guard frameCount > 0 else { return [] }
        let needed = frameCount * input.bytesPerFrame * input.bufferCount
        guard bytes.count >= needed else {
            throw MediaError.invalidArgument(message: "\(bytes.count) bytes cannot hold \(frameCount) frames of \(input)")
        }
        appendedFrameCount += Int64(frameCount)
        guard let resampler else {
            // Stored as they come.
            let packet = try EncodedPacket(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<needed]), pts: nextPCMPTS, dts: nextPCMPTS,
                                           duration: Int64(frameCount), isKeyframe: true, timeBase: timeBase)
            nextPCMPTS += Int64(frameCount)
            return [packet]
        }
        try resampler.append(bytes: bytes, frameCount: frameCount)
        return try drain(final: false)
    }

    /// Ends the stream: converts what the resampler holds back, encodes the last (short) frame
    /// and drains the encoder. Returns the remaining packets.
    package func finish() throws(MediaError) -> [EncodedPacket] {
        guard !finished else { return [] }
        finished = true
        guard let resampler else { return [] }
        if appendedFrameCount > 0 { try resampler.finish() }
        var packets = try drain(final: true)
        if let context {
            let result = avcodec_send_frame(context, nil)
            if result < 0 && result != cffmpeg_averror_eof() {
                throw MediaError.other(code: result, message: "\(name) failed: \(MediaError.ffmpegMessage(result))")
            }
            packets += try receivePackets()
        }
        return packets
    }

    private func drain(final: Bool) throws(MediaError) -> [EncodedPacket] {
        guard let resampler else { return [] }
        guard let context else {
            // Linear PCM: whatever is converted becomes one packet.
            let n = resampler.bufferedFrameCount
            guard n > 0 else { return [] }
            let data = resampler.read(frameCount: n)
            let pts = nextPCMPTS
            nextPCMPTS += Int64(n)
            let made: Result<EncodedPacket, MediaError> = data.withUnsafeBytes { raw in
                Result { () throws(MediaError) in
                    try EncodedPacket(copying: raw, pts: pts, dts: pts, duration: Int64(n), isKeyframe: true, timeBase: timeBase)
                }
            }
            return [try made.get()]
        }
        var packets: [EncodedPacket] = []
        let size = frameSize > 0 ? frameSize : 4096
        while resampler.bufferedFrameCount >= size || (final && resampler.bufferedFrameCount > 0)
                || (frameSize == 0 && resampler.bufferedFrameCount > 0) {
            guard let frame = try resampler.readFrame(frameCount: size) else { break }
            frame.frame.pointee.pts = firstPTS.saturatingAdding(frame.frame.pointee.pts)  // firstPTS may come from a file's times
            let result = avcodec_send_frame(context, frame.frame)
            if result < 0 {
                throw MediaError.other(code: result, message: "\(name) failed: \(MediaError.ffmpegMessage(result))")
            }
            packets += try receivePackets()
        }
        return packets
    }

    private func receivePackets() throws(MediaError) -> [EncodedPacket] {
        let frameSize = self.frameSize
        return try readyPackets(timeBase: timeBase, codecName: name) { packet in
            if packet.pointee.duration <= 0, frameSize > 0 { packet.pointee.duration = Int64(frameSize) }
        }
    }
}
