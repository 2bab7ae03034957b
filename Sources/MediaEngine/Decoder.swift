// Decoder: one libavcodec decoder for one stream, driven with send/receive.
internal import CFFmpeg
import CoreMedia
import CoreVideo
import Foundation

/// Decodes the packets of one stream with libavcodec's send/receive API.
///
/// Created from a stream's codec parameters and time base. Frame and slice threading are on,
/// with one thread per core. Output frames carry their exact presentation time
/// (`best_effort_timestamp` in the stream time base, as a `CMTime`) and become pixel buffers
/// without copying (`VideoFrame.makePixelBuffer(from:)`).
///
/// A seek is `flush()` followed by packets from a keyframe. While a caller decodes towards a
/// frame it wants, it may set `skipMode` before sending a packet whose frame cannot be wanted:
/// the decoder then drops that packet's picture if no other picture refers to it
/// (`AVDISCARD_NONREF`), which saves its decoding and never breaks later pictures, or — when the
/// caller has proven it safe — also a reference picture made of B slices (`AVDISCARD_BIDIR`).
///
/// Not thread-safe: use one decoder from one thread at a time.
package final class Decoder: @unchecked Sendable {
    /// What `receive()` found.
    package enum Output {
        /// A decoded frame.
        case frame(DecodedFrame)
        /// The decoder needs more packets before it can output a frame.
        case needsInput
        /// Every frame has been output after `sendEndOfStream()`; `flush()` to decode again.
        case endOfStream
    }

    /// The stream's time base, in which packet and frame timestamps count.
    let timeBase: AVRational
    /// The codec's short name (e.g. "h264").
    package let codecName: String
    /// Whether the decoder is draining (after `sendEndOfStream()`, until `flush()`).
    package private(set) var isDraining = false

    private(set) var context: UnsafeMutablePointer<AVCodecContext>?

    /// Opens a decoder for `parameters` (copied), timestamps in `timeBase`. `threads` 0 means
    /// one per core. Throws `AVERROR_DECODER_NOT_FOUND` when FFmpeg has no decoder for the codec.
    init(parameters: UnsafePointer<AVCodecParameters>, timeBase: AVRational, threads: Int = 0)
        throws(FFmpegError) {
        MediaEngine.configure()
        guard let codec = avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw FFmpegError(code: Decoder.decoderNotFound)
        }
        guard let context = avcodec_alloc_context3(codec) else { throw .outOfMemory }
        let result = avcodec_parameters_to_context(context, parameters)
        if result < 0 {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw FFmpegError(code: result)
        }
        context.pointee.pkt_timebase = timeBase
        context.pointee.thread_count = Int32(threads > 0 ? threads : max(1, ProcessInfo.processInfo.activeProcessorCount))
        context.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
        let opened = avcodec_open2(context, codec, nil)
        if opened < 0 {
            var owned: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&owned)
            throw FFmpegError(code: opened)
        }
        self.timeBase = timeBase
        self.codecName = String(cString: codec.pointee.name)
        self.context = context
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// A decoder for a codec outside any container (a camera's MJPEG): FFmpeg's decoder named
    /// `codecName` for `width`×`height` pictures, timestamps in nanoseconds.
    package convenience init(codecName: String, width: Int, height: Int, threads: Int = 1) throws(FFmpegError) {
        MediaEngine.configure()
        guard let codec = avcodec_find_decoder_by_name(codecName) else { throw FFmpegError(code: Decoder.decoderNotFound) }
        guard let parameters = avcodec_parameters_alloc() else { throw .outOfMemory }
        var owned: UnsafeMutablePointer<AVCodecParameters>? = parameters
        defer { avcodec_parameters_free(&owned) }
        parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        parameters.pointee.codec_id = codec.pointee.id
        parameters.pointee.width = Int32(clamping: width)
        parameters.pointee.height = Int32(clamping: height)
        try self.init(parameters: parameters, timeBase: AVRational(num: 1, den: 1_000_000_000), threads: threads)
    }

    /// `AVERROR_DECODER_NOT_FOUND` (FFERRTAG(0xF8,'D','E','C')).
    package static let decoderNotFound: Int32 = -Int32(bitPattern: UInt32(0xF8) | UInt32(UInt8(ascii: "D")) << 8
                                                           | UInt32(UInt8(ascii: "E")) << 16 | UInt32(UInt8(ascii: "C")) << 24)

    /// Which pictures of the packets sent from now on are dropped undecoded.
    package enum SkipMode: Sendable {
        /// None: every picture is decoded (`AVDISCARD_DEFAULT`).
        case none
        /// Pictures no other picture refers to (`AVDISCARD_NONREF`): never breaks later pictures.
        case nonReference
        /// Those, and every picture made only of B slices (`AVDISCARD_BIDIR`): the caller must
        /// have proven nothing it wants refers to them (see `H264ReferencePlanner`).
        case bidirectional
    }

    /// Which pictures of the packets sent from now on are dropped. Set it only while every
    /// such picture is unwanted.
    package var skipMode: SkipMode {
        get {
            switch context?.pointee.skip_frame {
            case AVDISCARD_NONREF: return .nonReference
            case AVDISCARD_BIDIR: return .bidirectional
            default: return .none
            }
        }
        set {
            switch newValue {
            case .none: context?.pointee.skip_frame = AVDISCARD_DEFAULT
            case .nonReference: context?.pointee.skip_frame = AVDISCARD_NONREF
            case .bidirectional: context?.pointee.skip_frame = AVDISCARD_BIDIR
            }
        }
    }

    /// Whether pictures no other picture refers to are dropped (`skip_frame = AVDISCARD_NONREF`)
    /// for the packets sent from now on. Set it only while every such picture is unwanted.
    package var skipsNonReferenceFrames: Bool {
        get { skipMode == .nonReference }
        set { skipMode = newValue ? .nonReference : .none }
    }

    /// Sends `packet`; false when the decoder refused it because it has frames to give first
    /// (`receive()` them, then send it again).
    @discardableResult
    package func send(_ packet: DemuxerPacket) throws(FFmpegError) -> Bool {
        try send(packet.pointer)
    }

    @discardableResult
    func send(_ packet: UnsafePointer<AVPacket>) throws(FFmpegError) -> Bool {
        guard let context else { throw .invalidArgument }
        let result = avcodec_send_packet(context, packet)
        if result == cffmpeg_averror_eagain() { return false }
        if result == cffmpeg_averror_eof() { throw .endOfFile }
        try FFmpegError.check(result)
        return true
    }

    /// Tells the decoder no more packets follow, so that `receive()` returns the frames it holds
    /// back and then `.endOfStream`.
    package func sendEndOfStream() throws(FFmpegError) {
        guard let context else { throw .invalidArgument }
        guard !isDraining else { return }
        let result = avcodec_send_packet(context, nil)
        if result < 0 && result != cffmpeg_averror_eof() { throw FFmpegError(code: result) }
        isDraining = true
    }

    /// The next decoded frame, or why there is none.
    package func receive() throws(FFmpegError) -> Output {
        guard let context else { throw .invalidArgument }
        guard let frame = av_frame_alloc() else { throw .outOfMemory }
        let result = avcodec_receive_frame(context, frame)
        if result >= 0 { return .frame(DecodedFrame(taking: frame, timeBase: timeBase)) }
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
        if result == cffmpeg_averror_eagain() { return .needsInput }
        if result == cffmpeg_averror_eof() { return .endOfStream }
        throw FFmpegError(code: result)
    }

    /// Drops every buffered packet and frame (for a seek) and leaves the draining state; the
    /// next packet sent should start at a keyframe.
    package func flush() {
        guard let context else { return }
        avcodec_flush_buffers(context)
        isDraining = false
    }
}

/// One decoded picture, owning its `AVFrame` reference.
package final class DecodedFrame: @unchecked Sendable {
    /// The frame (owned; freed with this object).
    let frame: UnsafeMutablePointer<AVFrame>
    /// The stream time base.
    let timeBase: AVRational

    init(taking frame: UnsafeMutablePointer<AVFrame>, timeBase: AVRational) {
        self.frame = frame
        self.timeBase = timeBase
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
    }

    /// The presentation timestamp in the stream time base (`best_effort_timestamp`, else
    /// `pts`), nil when the decoder knows none.
    package var timestamp: Int64? {
        let nopts = cffmpeg_nopts()
        if frame.pointee.best_effort_timestamp != nopts { return frame.pointee.best_effort_timestamp }
        if frame.pointee.pts != nopts { return frame.pointee.pts }
        return nil
    }

    /// The presentation time, exactly (`timestamp` × time base); invalid when unknown.
    package var presentationTime: CMTime {
        guard let ts = timestamp else { return .invalid }
        return Decoder.time(ts, timeBase: timeBase)
    }

    /// Picture width in pixels.
    package var width: Int { Int(frame.pointee.width) }
    /// Picture height in pixels.
    package var height: Int { Int(frame.pointee.height) }
    /// Whether the picture is a keyframe.
    package var isKeyframe: Bool { frame.pointee.key_frame != 0 }
    /// Whether the decoder flagged the picture as damaged (`AV_FRAME_FLAG_CORRUPT`).
    package var isCorrupt: Bool { frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 }

    /// A pixel buffer over the frame's planes (zero-copy when the format allows).
    package func makePixelBuffer() throws(PixelConversionError) -> CVPixelBuffer {
        try VideoFrame.makePixelBuffer(from: frame)
    }
}

extension Decoder {
    /// A timestamp in `timeBase` as an exact `CMTime` (`ts × num / den`).
    static func time(_ ts: Int64, timeBase: AVRational) -> CMTime {
        guard timeBase.den > 0, timeBase.num > 0 else { return .invalid }
        let (product, overflow) = ts.multipliedReportingOverflow(by: Int64(timeBase.num))
        if !overflow { return CMTime(value: product, timescale: timeBase.den) }
        return CMTimeMultiplyByRatio(CMTime(value: ts, timescale: timeBase.den), multiplier: timeBase.num, divisor: 1)
    }
}
