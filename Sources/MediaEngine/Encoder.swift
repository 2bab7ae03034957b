// Encoder: one libavcodec video encoder fed with Core Video pixel buffers (send/receive).
internal import CFFmpeg
import CoreMedia
import CoreVideo
import Foundation

/// Encodes pixel buffers with libavcodec: libx264 (H.264), libx265 (HEVC), prores_ks (ProRes)
/// or mjpeg (JPEG).
///
/// Pictures reach the encoder without a copy when their layout is one it reads ('420v'/'420f'
/// NV12 and 'y420'/'f420' planar 4:2:0 for libx264, 'y420' for libx265): the frame's planes are
/// the buffer's planes (`VideoFrame.makeFrame(referencing:)`). Other formats and sizes are
/// converted (and scaled) by libswscale through `PixelConverter` into pooled buffers first.
///
/// Timestamps count in 1/`timescale`; packets come out in decode order with exact pts/dts.
/// Not thread-safe: one thread at a time (the codec runs its own threads).
package final class Encoder: EncoderContext, @unchecked Sendable {
    /// The video codecs the engine encodes.
    package enum VideoCodec: Sendable, Equatable {
        /// H.264 with libx264.
        case h264
        /// HEVC with libx265 (written with the 'hvc1' sample entry).
        case hevc
        /// Apple ProRes with prores_ks; profile 0 Proxy, 1 LT, 2 422, 3 HQ, 4 4444, 5 4444 XQ.
        case proRes(profile: Int32)
        /// Motion JPEG with FFmpeg's mjpeg encoder.
        case jpeg

        /// The QuickTime sample entry type written for the codec.
        package var sampleEntry: FourCharCode {
            switch self {
            case .h264: return FourCharCode(fourCC: "avc1")
            case .hevc: return FourCharCode(fourCC: "hvc1")
            case .jpeg: return FourCharCode(fourCC: "jpeg")
            case .proRes(let profile):
                let tags: [FourCharCode] = [0x6170_636F, 0x6170_6373, 0x6170_636E, 0x6170_6368, 0x6170_3468, 0x6170_3478]
                return tags[Int(max(0, min(5, profile)))]  // apco apcs apcn apch ap4h ap4x
            }
        }
    }

    /// How the picture is resized when the source size differs from the encoded size.
    package enum Scaling: Sendable, Equatable {
        /// Stretch to fill.
        case resize
        /// Fit inside, preserving the aspect ratio, with black bars.
        case resizeAspect
        /// Fill, preserving the aspect ratio, cropping the excess.
        case resizeAspectFill
    }

    /// Everything an encoder is opened with.
    package struct VideoSettings: Sendable {
        package var codec: VideoCodec
        /// Encoded width and height in pixels.
        package var width: Int
        package var height: Int
        /// Timestamps count in 1/`timescale`.
        package var timescale: Int32
        /// The Core Video format of the pixel buffers that will be sent.
        package var sourcePixelFormat: OSType
        /// Long-term average bit rate in bits per second (nil: the codec's constant quality).
        package var averageBitRate: Int?
        /// 0…1: libx264/libx265 constant rate factor (1 best), JPEG quantiser.
        package var quality: Double?
        /// The most frames from one keyframe to the next (1: every frame a keyframe).
        package var maxKeyFrameInterval: Int?
        /// The longest time from one keyframe to the next, in seconds.
        package var maxKeyFrameIntervalDuration: Double?
        /// False: no B-frames (frames come out in presentation order).
        package var allowFrameReordering: Bool?
        /// H.264/HEVC profile ("baseline", "main", "high"; "main" or "main10" for HEVC, 10-bit 4:2:0).
        package var profile: String?
        /// H.264 level × 10 (31 for 3.1); nil: automatic.
        package var level: Int32?
        /// The expected frame rate (rate control and the keyframe interval duration).
        package var expectedFrameRate: Double?
        /// Colour tags for the bitstream (nil fields: the source buffers' attachments).
        package var color = EncoderColor()
        /// Favour speed (real-time sources): libx264/libx265 "veryfast".
        package var realTime = false
        /// libx264/libx265 speed preset ("fast", "medium"…); nil: `realTime` decides.
        package var speedPreset: String?
        /// Codec threads (0: the codec's automatic choice).
        package var threads = 0
        /// Configuration in extradata (avcC/hvcC), as MP4 and QuickTime need.
        package var globalHeader = true
        /// How a source of another size is fitted.
        package var scaling: Scaling = .resizeAspect
        /// H.264: CABAC (true) or CAVLC (false) entropy coding; nil: the profile's default.
        package var entropyCABAC: Bool?
        /// Pixel aspect ratio (horizontal, vertical spacing); nil: square.
        package var pixelAspect: (horizontal: Int32, vertical: Int32)?
        /// Peak bit rate (bits per second) over a buffer of `bufferBits` (VBV); nil: no cap.
        package var dataRateLimit: (bitsPerSecond: Int, bufferBits: Int)?
        /// The most B-frames in a row (nil: the encoder's choice; `allowFrameReordering` false: 0).
        package var maxBFrames: Int?
        /// Quantiser bounds (H.264/HEVC QP).
        package var minQP: Int?
        package var maxQP: Int?
        /// Constant bit rate (`averageBitRate` every second, `dataRateLimit` its buffer): x264
        /// writes CBR HRD parameters and pads, x265 keeps strictly to it.
        package var constantBitRate = false
        /// Open groups of pictures (nil: the encoder's default).
        package var openGOP: Bool?
        /// HEVC HDR10 SEI messages: SMPTE ST 2086 mastering display colour volume (24 bytes,
        /// big-endian: G, B, R and white point x/y in 0.00002 units, max/min luminance in 0.0001
        /// cd/m²) and CEA-861.3 content light level (MaxCLL, MaxFALL).
        package var masteringDisplay: Data?
        package var contentLightLevel: Data?

        package init(codec: VideoCodec, width: Int, height: Int, timescale: Int32, sourcePixelFormat: OSType) {
            self.codec = codec
            self.width = width
            self.height = height
            self.timescale = timescale
            self.sourcePixelFormat = sourcePixelFormat
        }
    }

    /// The settings the encoder was opened with.
    package let settings: VideoSettings
    /// FFmpeg's encoder name ("libx264").
    package let codecName: String
    /// The pixel format frames are encoded in.
    let pixelFormat: AVPixelFormat
    /// The time base of frame and packet timestamps.
    let timeBase: AVRational
    /// Frames sent so far.
    package private(set) var framesSent = 0
    /// Source frames that reached the encoder without a conversion.
    package private(set) var framesSentWithoutCopy = 0

    private var context: UnsafeMutablePointer<AVCodecContext>?
    private let converter: PixelConverter
    private var conversionPool: CVPixelBufferPool?
    private var scalingPool: CVPixelBufferPool?
    private let conversionFormat: OSType?   // a Core Video format the encoder reads, when one exists
    private var draining = false
    /// Decode times (see `normaliseDecodeTime`): the presentation times sent and not yet matched
    /// to a packet, in the order sent; the first time sent; the reorder delay once known; the
    /// last time sent; the last decode time handed out.
    private var unmatchedTimes: [Int64] = []
    private var firstTimeSent: Int64?
    private var lastTimeSent: Int64?
    private var reorderDelay: Int64?
    private var lastDecodeTime: Int64?

    /// Opens an encoder. Throws `MediaError.decoderNotFound`-style `.other` errors when FFmpeg lacks
    /// the encoder, `.invalidArgument` for settings it refuses.
    package init(video requested: VideoSettings, converter: PixelConverter = .shared) throws(MediaError) {
        MediaEngine.configure()
        let settings = requested
        guard settings.width > 0, settings.height > 0, settings.width < 1 << 16, settings.height < 1 << 16 else {
            throw MediaError.invalidArgument(message: "invalid video size \(settings.width)×\(settings.height)")
        }
        guard settings.timescale > 0 else { throw MediaError.invalidArgument(message: "invalid timescale") }
        self.settings = settings
        self.converter = converter
        let encoderName: String
        let format: AVPixelFormat
        var conversion: OSType?
        let source = PixelFormat.mapping(for: settings.sourcePixelFormat)
        let sourceFull = source?.fullRange ?? false
        switch settings.codec {
        case .h264:
            encoderName = "libx264"
            if source?.avFormat == AV_PIX_FMT_NV12 {
                format = AV_PIX_FMT_NV12
                conversion = sourceFull ? OSType(fourCC: "420f") : OSType(fourCC: "420v")
            } else {
                // Other sources become planar 4:2:0, as ffmpeg's CLI converts them: libswscale
                // writes it faster than NV12, and x264 interleaves chroma cheaply.
                format = AV_PIX_FMT_YUV420P
                conversion = sourceFull && PixelFormat.isYCbCr(settings.sourcePixelFormat) ? OSType(fourCC: "f420") : OSType(fourCC: "y420")
            }
        case .hevc:
            encoderName = "libx265"
            if settings.profile == "main10" {
                format = AV_PIX_FMT_YUV420P10LE
            } else if settings.profile == "main422-10" {
                format = AV_PIX_FMT_YUV422P10LE
            } else {
                format = AV_PIX_FMT_YUV420P
                conversion = sourceFull && PixelFormat.isYCbCr(settings.sourcePixelFormat) ? OSType(fourCC: "f420") : OSType(fourCC: "y420")
            }
        case .proRes(let profile):
            encoderName = "prores_ks"
            if profile >= 4 {
                format = Encoder.hasAlpha(settings.sourcePixelFormat) ? AV_PIX_FMT_YUVA444P10LE : AV_PIX_FMT_YUV444P10LE
            } else {
                format = AV_PIX_FMT_YUV422P10LE
            }
        case .jpeg:
            encoderName = "mjpeg"
            format = AV_PIX_FMT_YUV420P
            conversion = OSType(fourCC: "f420")
        }
        guard let codec = avcodec_find_encoder_by_name(encoderName) else {
            throw MediaError.other(code: Encoder.encoderNotFoundCode, message: "this FFmpeg has no \(encoderName) encoder")
        }
        guard let ctx = avcodec_alloc_context3(codec) else {
            throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory")
        }
        codecName = encoderName
        pixelFormat = format
        conversionFormat = conversion
        timeBase = AVRational(num: 1, den: settings.timescale)
        do {
            try Encoder.configure(ctx, settings: settings, pixelFormat: format)
        } catch {
            var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
            avcodec_free_context(&owned)
            throw error
        }
        let opened = avcodec_open2(ctx, codec, nil)
        if opened < 0 {
            var owned: UnsafeMutablePointer<AVCodecContext>? = ctx
            avcodec_free_context(&owned)
            throw MediaError.invalidArgument(message: "\(encoderName) refused the settings: \(MediaError.ffmpegMessage(opened))")
        }
        context = ctx
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// `AVERROR_ENCODER_NOT_FOUND` (FFERRTAG(0xF8,'E','N','C')).
    package static let encoderNotFoundCode: Int32 = -Int32(bitPattern: UInt32(0xF8) | UInt32(UInt8(ascii: "E")) << 8
                                                              | UInt32(UInt8(ascii: "N")) << 16 | UInt32(UInt8(ascii: "C")) << 24)

    /// Whether buffers of `pixelFormat` carry alpha.
    static func hasAlpha(_ pixelFormat: OSType) -> Bool {
        [OSType(fourCC: "BGRA"), 0x20, OSType(fourCC: "RGBA"), OSType(fourCC: "ABGR"), OSType(fourCC: "b64a")].contains(pixelFormat)
    }

    private static func configure(_ ctx: UnsafeMutablePointer<AVCodecContext>, settings s: VideoSettings,
                                  pixelFormat: AVPixelFormat) throws(MediaError) {
        ctx.pointee.width = Int32(s.width)
        ctx.pointee.height = Int32(s.height)
        ctx.pointee.pix_fmt = pixelFormat
        ctx.pointee.time_base = AVRational(num: 1, den: s.timescale)
        ctx.pointee.pkt_timebase = ctx.pointee.time_base
        if let aspect = s.pixelAspect, aspect.horizontal > 0, aspect.vertical > 0 {
            ctx.pointee.sample_aspect_ratio = AVRational(num: aspect.horizontal, den: aspect.vertical)
        } else if case .jpeg = s.codec {
            // Square pixels, so that the encoder writes a JFIF header.
            ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        }
        if let fps = s.expectedFrameRate, fps > 0, fps.isFinite {
            ctx.pointee.framerate = av_d2q(fps, 1_000_000)
        }
        if s.globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        ctx.pointee.thread_count = Int32(max(0, s.threads))
        ctx.pointee.color_primaries = s.color.avPrimaries
        ctx.pointee.color_trc = s.color.avTransfer
        ctx.pointee.colorspace = s.color.avMatrix
        if let bitRate = s.averageBitRate, bitRate > 0 { ctx.pointee.bit_rate = Int64(bitRate) }
        // Keyframe interval: the tighter of the frame count and duration limits.
        var keyint: Int?
        if let n = s.maxKeyFrameInterval, n > 0 { keyint = n }
        if let seconds = s.maxKeyFrameIntervalDuration, seconds > 0, seconds.isFinite {
            let fps = s.expectedFrameRate.flatMap { $0 > 0 ? $0 : nil } ?? 30
            let frames = max(1, Int((seconds * fps).rounded(.down)))
            keyint = min(keyint ?? frames, frames)
        }
        if let keyint { ctx.pointee.gop_size = Int32(clamping: keyint) }
        if let b = s.maxBFrames { ctx.pointee.max_b_frames = Int32(clamping: min(max(b, 0), 16)) }
        if s.allowFrameReordering == false || keyint == 1 { ctx.pointee.max_b_frames = 0 }
        if let limit = s.dataRateLimit, limit.bitsPerSecond > 0, limit.bufferBits > 0 {
            ctx.pointee.rc_max_rate = Int64(limit.bitsPerSecond)
            ctx.pointee.rc_buffer_size = Int32(clamping: limit.bufferBits)
        }
        if let q = s.minQP { ctx.pointee.qmin = Int32(clamping: q) }
        if let q = s.maxQP { ctx.pointee.qmax = Int32(clamping: q) }
        let priv = ctx.pointee.priv_data
        func set(_ key: String, _ value: String) throws(MediaError) {
            let r = av_opt_set(priv, key, value, 0)
            if r < 0 { throw MediaError.invalidArgument(message: "cannot set \(key)=\(value): \(MediaError.ffmpegMessage(r))") }
        }
        switch s.codec {
        case .h264:
            try set("preset", s.speedPreset ?? (s.realTime ? "veryfast" : "medium"))
            if let profile = s.profile { try set("profile", profile) }
            if let level = s.level { ctx.pointee.level = level }
            if let q = s.quality, s.averageBitRate == nil { try set("crf", String(Encoder.crf(quality: q))) }
            if keyint == 1 { ctx.pointee.keyint_min = 1 }
            if let cabac = s.entropyCABAC { try set("coder", cabac ? "cabac" : "cavlc") }
            if let open = s.openGOP { try set("x264-params", "open-gop=\(open ? 1 : 0)") }
            if s.constantBitRate { try set("nal-hrd", "cbr") }
        case .hevc:
            try set("preset", s.speedPreset ?? (s.realTime ? "veryfast" : "medium"))
            var params = ["log-level=none"]
            if let q = s.quality, s.averageBitRate == nil { try set("crf", String(Encoder.crf(quality: q))) }
            if let profile = s.profile { try set("profile", profile) }
            if keyint == 1 { params.append("keyint=1:min-keyint=1") }
            if let q = s.minQP { params.append("qpmin=\(q)") }
            if let q = s.maxQP { params.append("qpmax=\(q)") }
            if let open = s.openGOP { params.append(open ? "open-gop=1" : "no-open-gop=1") }
            if s.constantBitRate { params.append("strict-cbr=1") }
            if let d = s.masteringDisplay, d.count == 24 {
                let bytes = [UInt8](d)
                func big(_ offset: Int, _ count: Int) -> Int {
                    var value = 0
                    for i in 0..<count { value = value << 8 | Int(bytes[offset + i]) }
                    return value
                }
                let v = (0..<8).map { big($0 * 2, 2) } + [big(16, 4), big(20, 4)]
                params.append("master-display=G(\(v[0]),\(v[1]))B(\(v[2]),\(v[3]))R(\(v[4]),\(v[5]))WP(\(v[6]),\(v[7]))L(\(v[8]),\(v[9]))")
            }
            if let d = s.contentLightLevel, d.count == 4 {
                let b = [UInt8](d)
                let cll = Int(b[0]) << 8 | Int(b[1]), fall = Int(b[2]) << 8 | Int(b[3])
                params.append("max-cll=\(cll),\(fall)")
            }
            try set("x265-params", params.joined(separator: ":"))
        case .proRes(let profile):
            try set("profile", String(profile))
            try set("vendor", "apl0")
            ctx.pointee.thread_type = FF_THREAD_SLICE
        case .jpeg:
            let q = min(max(s.quality ?? 0.75, 0), 1)
            let qscale = Int32((1 + (1 - q) * 30).rounded())
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = qscale * FF_QP2LAMBDA
            ctx.pointee.qmin = 1
            ctx.pointee.qmax = 31
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
        }
    }

    /// The constant rate factor for a 0…1 quality: 1 → 10, 0.5 → 25, 0 → 40 (linear).
    package static func crf(quality: Double) -> Int {
        let q = quality.isFinite ? min(max(quality, 0), 1) : 0.5
        return Int((40 - 30 * q).rounded())
    }

    /// The codec context, for what every encoder shares (`EncoderContext`).
    var codecContext: UnsafeMutablePointer<AVCodecContext>? { context }

    /// Sends one picture shown at `pts` (in 1/timescale). Pictures must come in presentation
    /// order. Converts and scales when the encoder cannot read the buffer as it is.
    package func encode(_ pixelBuffer: CVPixelBuffer, pts: Int64) throws(MediaError) {
        guard let context, !draining else { throw MediaError.invalidArgument(message: "the encoder is finished") }
        let frame: UnsafeMutablePointer<AVFrame>
        do {
            frame = try makeFrame(pixelBuffer)
        } catch {
            throw MediaError.invalidArgument(message: "cannot convert the pixel buffer for \(codecName): \(error)")
        }
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        defer { av_frame_free(&owned) }
        frame.pointee.pts = pts
        if case .jpeg = settings.codec { frame.pointee.quality = context.pointee.global_quality }
        let result = avcodec_send_frame(context, frame)
        if result < 0 {
            throw MediaError.other(code: result, message: "\(codecName) failed: \(MediaError.ffmpegMessage(result))")
        }
        framesSent += 1
        unmatchedTimes.append(pts)
        if firstTimeSent == nil { firstTimeSent = pts }
        lastTimeSent = pts
        // The encoder's reorder depth (libx264/libx265 set it: 2 with B-pyramid, 1 with plain
        // B-frames, 0 without): decode times run that many pictures behind presentation.
        let depth = Int(max(0, context.pointee.has_b_frames))
        if reorderDelay == nil, framesSent == depth + 1, let first = firstTimeSent { reorderDelay = pts.saturatingSubtracting(first) }
    }

    /// Tells the encoder no more pictures follow; `receive()` then returns what it holds back.
    package func finish() throws(MediaError) {
        guard let context, !draining else { return }
        let result = avcodec_send_frame(context, nil)
        if result < 0 && result != cffmpeg_averror_eof() {
            throw MediaError.other(code: result, message: "\(codecName) failed: \(MediaError.ffmpegMessage(result))")
        }
        draining = true
    }

    /// Every packet the encoder has ready (empty when it needs more pictures or is done).
    package func receivePackets() throws(MediaError) -> [EncodedPacket] {
        try readyPackets(timeBase: timeBase, codecName: codecName) { normaliseDecodeTime($0) }
    }

    /// Makes a packet's decode time one the muxer takes: at or before its presentation time,
    /// after the previous packet's, and not further back than the whole encode spans. libx265
    /// computes decode times from the presentation time of the picture its B-frame delay waits
    /// for, which an encode of fewer pictures never sends: the decode times of a two-frame HEVC
    /// movie were whatever its memory held, and the muxer refused them ("pts/dts pair
    /// unsupported"). Such a time is replaced by the one the encoder means: the k-th
    /// presentation time sent less the reorder delay. Right decode times are left as they are.
    private func normaliseDecodeTime(_ packet: UnsafeMutablePointer<AVPacket>) {
        let pts = packet.pointee.pts, dts = packet.pointee.dts
        let sent = unmatchedTimes.isEmpty ? nil : unmatchedTimes.removeFirst()
        guard pts != cffmpeg_nopts(), let sent, let first = firstTimeSent, let last = lastTimeSent else { return }
        let delay = reorderDelay ?? last.saturatingSubtracting(first)
        let earliest = first.saturatingSubtracting(last.saturatingSubtracting(first))
        var fixed = dts
        if dts == cffmpeg_nopts() || dts > pts || dts < earliest || lastDecodeTime.map({ dts <= $0 }) == true {
            fixed = min(pts, sent.saturatingSubtracting(delay))
            if let previous = lastDecodeTime, fixed <= previous { fixed = previous.saturatingAdding(1) }
            // Still impossible (the previous time is past this picture): leave it to the muxer's own check.
            if fixed > pts { fixed = dts }
        }
        packet.pointee.dts = fixed
        lastDecodeTime = fixed
    }

    // MARK: Frames

    /// A frame for `buffer`: its own planes when the encoder reads them, else a converted copy.
    private func makeFrame(_ buffer: CVPixelBuffer) throws -> UnsafeMutablePointer<AVFrame> {
        var source = buffer
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        if width != settings.width || height != settings.height {
            source = try scaled(buffer)
        }
        let sourceFormat = CVPixelBufferGetPixelFormatType(source)
        if let mapping = PixelFormat.mapping(for: sourceFormat), mapping.avFormat == pixelFormat,
           !(pixelFormat == AV_PIX_FMT_YUV420P && settings.codec == .jpeg && !mapping.fullRange) {
            let frame = try VideoFrame.makeFrame(referencing: source)
            if source === buffer { framesSentWithoutCopy += 1 }
            if settings.codec == .jpeg { frame.pointee.color_range = AVCOL_RANGE_JPEG }
            return frame
        }
        if let conversionFormat {
            let target = try pooledBuffer(&conversionPool, format: conversionFormat, width: settings.width, height: settings.height)
            var options = PixelConverter.Options()
            options.fast = true
            options.destinationMatrix = matrixForOutput()
            try converter.transfer(from: source, to: target, options: options)
            let frame = try VideoFrame.makeFrame(referencing: target)
            if settings.codec == .jpeg { frame.pointee.color_range = AVCOL_RANGE_JPEG }
            return frame
        }
        // Formats Core Video has no buffer for (10-bit planar): convert into an FFmpeg frame.
        guard let frame = av_frame_alloc() else { throw PixelConversionError.allocationFailed }
        frame.pointee.format = pixelFormat.rawValue
        frame.pointee.width = Int32(settings.width)
        frame.pointee.height = Int32(settings.height)
        if av_frame_get_buffer(frame, 64) < 0 {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw PixelConversionError.allocationFailed
        }
        let matrix = matrixForOutput() ?? PixelFormatColor.attachedMatrix(of: source) ?? .defaultMatrix(height: settings.height)
        let image = PixelImage(format: pixelFormat, width: settings.width, height: settings.height, fullRange: false,
                               matrix: matrix, data: VideoFrame.dataPointers(frame), linesize: VideoFrame.lineSizes(frame))
        do {
            try converter.convert(source, into: image)
        } catch {
            var owned: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&owned)
            throw error
        }
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        frame.pointee.colorspace = matrix.avColorSpace
        return frame
    }

    /// The matrix the encoded stream is tagged with, when the settings name one.
    private func matrixForOutput() -> PixelFormatColor.Matrix? {
        settings.color.matrix.flatMap { PixelFormatColor.Matrix(rawValue: $0) }
    }

    /// `buffer` resized to the encoded size (same pixel format) as the scaling mode says.
    private func scaled(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        let format = CVPixelBufferGetPixelFormatType(buffer)
        let target = try pooledBuffer(&scalingPool, format: format, width: settings.width, height: settings.height)
        var options = PixelConverter.Options()
        options.fast = true
        let sw = Double(CVPixelBufferGetWidth(buffer)), sh = Double(CVPixelBufferGetHeight(buffer))
        let dw = Double(settings.width), dh = Double(settings.height)
        switch settings.scaling {
        case .resize:
            break
        case .resizeAspect:
            let scale = min(dw / sw, dh / sh)
            let w = min(settings.width, max(2, Int((sw * scale).rounded()) & ~1))
            let h = min(settings.height, max(2, Int((sh * scale).rounded()) & ~1))
            options.destinationRect = PixelConverter.Rect(x: ((settings.width - w) / 2) & ~1, y: ((settings.height - h) / 2) & ~1,
                                                          width: w, height: h)
        case .resizeAspectFill:
            let scale = max(dw / sw, dh / sh)
            let w = min(Int(sw), max(2, Int((dw / scale).rounded()) & ~1))
            let h = min(Int(sh), max(2, Int((dh / scale).rounded()) & ~1))
            options.sourceRect = PixelConverter.Rect(x: ((Int(sw) - w) / 2) & ~1, y: ((Int(sh) - h) / 2) & ~1, width: w, height: h)
        }
        try converter.transfer(from: buffer, to: target, options: options)
        return target
    }

    private func pooledBuffer(_ pool: inout CVPixelBufferPool?, format: OSType, width: Int, height: Int) throws -> CVPixelBuffer {
        if pool == nil {
            let attributes: [String: Any] = [(kCVPixelBufferPixelFormatTypeKey as String): NSNumber(value: format),
                                             (kCVPixelBufferWidthKey as String): NSNumber(value: width),
                                             (kCVPixelBufferHeightKey as String): NSNumber(value: height)]
            var created: CVPixelBufferPool?
            CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &created)
            pool = created
        }
        guard let pool else { throw PixelConversionError.unsupportedPixelFormat(format) }
        var buffer: CVPixelBuffer?
        CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer)
        guard let buffer else { throw PixelConversionError.allocationFailed }
        return buffer
    }
}
