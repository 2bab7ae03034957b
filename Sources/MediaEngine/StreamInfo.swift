// StreamInfo: everything the container and codec parameters say about one stream, as plain values.
internal import CFFmpeg
import CoreGraphics
import CoreMedia
import Foundation

/// A description of one stream of a demuxed file, copied out of FFmpeg's `AVStream` and
/// `AVCodecParameters` when the demuxer opens (so it is a plain `Sendable` value).
package struct StreamInfo: Sendable {
    /// The kind of media a stream carries.
    package enum Kind: String, Sendable {
        case video, audio, subtitle, data, attachment, unknown
    }

    /// Stream flags from the container (`AV_DISPOSITION_*`).
    package struct Disposition: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        /// The stream is the default of its kind.
        package static let `default` = Disposition(rawValue: AV_DISPOSITION_DEFAULT)
        /// Forced subtitles.
        package static let forced = Disposition(rawValue: AV_DISPOSITION_FORCED)
        /// A cover picture (a single-frame "video" stream).
        package static let attachedPicture = Disposition(rawValue: AV_DISPOSITION_ATTACHED_PIC)
        /// For the hearing impaired.
        package static let hearingImpaired = Disposition(rawValue: AV_DISPOSITION_HEARING_IMPAIRED)
        /// For the visually impaired.
        package static let visualImpaired = Disposition(rawValue: AV_DISPOSITION_VISUAL_IMPAIRED)
        /// Commentary.
        package static let comment = Disposition(rawValue: AV_DISPOSITION_COMMENT)
        /// Original language.
        package static let original = Disposition(rawValue: AV_DISPOSITION_ORIGINAL)
        /// Dubbed.
        package static let dub = Disposition(rawValue: AV_DISPOSITION_DUB)
        /// Captions.
        package static let captions = Disposition(rawValue: AV_DISPOSITION_CAPTIONS)
        /// Descriptions.
        package static let descriptions = Disposition(rawValue: AV_DISPOSITION_DESCRIPTIONS)
        /// Timed thumbnails.
        package static let timedThumbnails = Disposition(rawValue: AV_DISPOSITION_TIMED_THUMBNAILS)
    }

    /// The FFmpeg stream index.
    package var index: Int
    /// The persistent track ID: the `tkhd` track ID for QuickTime/MP4, else index + 1.
    package var trackID: CMPersistentTrackID
    /// The container's stream ID (`AVStream.id`: tkhd ID, PID, Matroska track number…).
    package var containerID: Int32
    /// The kind of media.
    package var kind: Kind
    /// Apple's media type for the stream ('vide', 'soun', 'sbtl', 'text', 'clcp', 'tmcd', 'meta').
    package var mediaType: CMMediaType
    /// FFmpeg's codec ID (`AVCodecID` raw value).
    package var codecID: UInt32
    /// FFmpeg's codec name ("h264", "aac", …).
    package var codecName: String
    /// The container's codec tag as a FourCharCode ('avc1'), 0 when none.
    package var codecTag: FourCharCode
    /// Apple's media subtype (codec FourCC or audio format ID) for the stream.
    package var mediaSubType: FourCharCode
    /// The codec profile's name ("High", "LC"), if known.
    package var profileName: String?
    /// The codec profile number (`FF_PROFILE_*`), or nil when unknown.
    package var profile: Int32?
    /// Whether this FFmpeg build has a decoder for the codec.
    package var hasDecoder: Bool
    /// The stream's time base as (numerator, denominator).
    var timeBase: AVRational
    /// The number of time base units in a second when the time base is 1/n (else the whole
    /// units in a second); 0 when the stream has no usable time base.
    package var timeScale: Int32 {
        guard timeBase.num > 0, timeBase.den > 0 else { return 0 }
        return timeBase.num == 1 ? timeBase.den : max(1, timeBase.den / timeBase.num)
    }
    /// The stream's first presentation time; `.invalid` when unknown.
    package var startTime: CMTime
    /// The stream's duration; `.invalid` when unknown.
    package var duration: CMTime
    /// Audio: the frames the encoder was given, when the file says (an MP3's LAME tag, an MP4's
    /// iTunSMPB; see GaplessInfo) — `duration` then also counts the priming and padding.
    package var gaplessFrameCount: Int64?

    /// Audio: the stream's length in frames — the gapless count when the file gives one, else
    /// the duration at the sample rate (0 when unknown).
    package var frameLength: Int64 {
        if let gaplessFrameCount { return gaplessFrameCount }
        guard duration.isNumeric, sampleRate > 0 else { return 0 }
        return Int64((duration.seconds * Double(sampleRate)).rounded())
    }
    /// The number of frames the container declares; 0 when unknown.
    package var frameCount: Int64
    /// The average frame rate (frames per second), 0 when unknown.
    package var averageFrameRate: Double
    /// The lowest frame rate that represents all timestamps exactly (`r_frame_rate`), 0 when unknown.
    package var realFrameRate: Double
    /// Coded picture size in pixels (0 for non-video).
    package var width: Int
    /// Coded picture height in pixels (0 for non-video).
    package var height: Int
    /// Sample (pixel) aspect ratio as (horizontal, vertical); nil when unknown, square or
    /// implausible (see `plausibleAspectRatio`).
    package var sampleAspectRatio: (horizontal: Int, vertical: Int)?
    /// The display matrix (tkhd matrix) as Apple's `preferredTransform`; identity when none.
    package var transform: CGAffineTransform
    /// Audio sample rate in Hz (0 for non-audio).
    package var sampleRate: Int
    /// Audio channel count (0 for non-audio).
    package var channelCount: Int
    /// FFmpeg's description of the channel layout ("stereo", "5.1(side)"), if known.
    package var channelLayoutName: String?
    /// The native channel mask (`AV_CH_*` bits), 0 when the order is not native.
    package var channelMask: UInt64
    /// Bits per coded or raw sample, 0 when unknown.
    package var bitsPerSample: Int
    /// Audio samples per packet (`frame_size`), 0 when variable or unknown.
    package var samplesPerPacket: Int
    /// The stream's language tag (ISO 639-2, as the container gives it), if any.
    package var language: String?
    /// The stream's bit rate in bits per second; 0 when unknown.
    package var bitRate: Int
    /// Container flags.
    package var disposition: Disposition
    /// Tags in file order ("language", "handler_name", "title", …).
    package var tags: [(key: String, value: String)]
    /// The peak bit rate (BANDWIDTH) of the HTTP Live Streaming variant the stream belongs to;
    /// nil outside a multivariant playlist.
    package var variantBitRate: Int? {
        tags.first { $0.key == "variant_bitrate" }.flatMap { Int($0.value) }.flatMap { $0 > 0 ? $0 : nil }
    }
    /// The codec's configuration bytes (avcC, hvcC, AudioSpecificConfig, STREAMINFO…).
    package var extradata: Data
    /// Colour primaries / transfer / matrix / range as FFmpeg enums (raw values).
    package var colorPrimaries: UInt32, colorTransfer: UInt32, colorSpace: UInt32, colorRange: UInt32
    /// Whether the stream's samples are encrypted (Common Encryption side data or an 'encv'/'enca' entry).
    package var isEncrypted: Bool
    /// The stream's format description built with CoreMedia's public functions; nil when the
    /// stream has no Apple-style description (data, attachments).
    package var formatDescription: CMFormatDescription?

    init(stream: UnsafeMutablePointer<AVStream>, index: Int, useContainerID: Bool) {
        let st = stream.pointee
        let par = st.codecpar.pointee
        self.index = index
        containerID = st.id
        trackID = useContainerID && st.id > 0 ? CMPersistentTrackID(st.id) : CMPersistentTrackID(index + 1)
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        case AVMEDIA_TYPE_SUBTITLE: kind = .subtitle
        case AVMEDIA_TYPE_DATA: kind = .data
        case AVMEDIA_TYPE_ATTACHMENT: kind = .attachment
        default: kind = .unknown
        }
        codecID = par.codec_id.rawValue
        codecName = String(cString: avcodec_get_name(par.codec_id))
        let tag = par.codec_tag
        codecTag = tag == 0 ? 0 : (tag & 0xFF) << 24 | (tag >> 8 & 0xFF) << 16 | (tag >> 16 & 0xFF) << 8 | tag >> 24
        profile = par.profile >= 0 ? par.profile : nil
        profileName = avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) }
        hasDecoder = avcodec_find_decoder(par.codec_id) != nil
        timeBase = st.time_base
        startTime = st.start_time != cffmpeg_nopts() ? StreamInfo.time(st.start_time, st.time_base) : .invalid
        duration = st.duration != cffmpeg_nopts() && st.duration >= 0 ? StreamInfo.time(st.duration, st.time_base) : .invalid
        frameCount = max(0, st.nb_frames)
        averageFrameRate = StreamInfo.rate(st.avg_frame_rate)
        realFrameRate = StreamInfo.rate(st.r_frame_rate)
        width = kind == .video ? Int(max(0, par.width)) : 0
        height = kind == .video ? Int(max(0, par.height)) : 0
        let sar = st.sample_aspect_ratio.num > 0 ? st.sample_aspect_ratio : par.sample_aspect_ratio
        sampleAspectRatio = StreamInfo.plausibleAspectRatio(Int(sar.num), Int(sar.den))
        transform = StreamInfo.displayMatrix(stream) ?? .identity
        sampleRate = kind == .audio ? Int(max(0, par.sample_rate)) : 0
        channelCount = kind == .audio ? Int(max(0, par.ch_layout.nb_channels)) : 0
        var layout = par.ch_layout
        if kind == .audio, layout.nb_channels > 0 {
            var name = [CChar](repeating: 0, count: 64)
            channelLayoutName = av_channel_layout_describe(&layout, &name, name.count) >= 0
                ? name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) } : nil
            channelMask = layout.order == AV_CHANNEL_ORDER_NATIVE ? layout.u.mask : 0
        } else {
            channelLayoutName = nil
            channelMask = 0
        }
        bitsPerSample = Int(max(0, par.bits_per_raw_sample > 0 ? par.bits_per_raw_sample : par.bits_per_coded_sample))
        samplesPerPacket = Int(max(0, par.frame_size))
        tags = Demuxer.dictionary(st.metadata)
        let lang = tags.first { $0.key.lowercased() == "language" }?.value
        language = lang.flatMap { $0.isEmpty ? nil : $0 }
        bitRate = par.bit_rate > 0 ? Int(par.bit_rate) : 0
        disposition = Disposition(rawValue: st.disposition)
        if let data = par.extradata, par.extradata_size > 0 {
            extradata = Data(bytes: data, count: Int(par.extradata_size))
        } else {
            extradata = Data()
        }
        colorPrimaries = par.color_primaries.rawValue
        colorTransfer = par.color_trc.rawValue
        colorSpace = par.color_space.rawValue
        colorRange = par.color_range.rawValue
        var encSize: Int = 0
        isEncrypted = av_stream_get_side_data(stream, AV_PKT_DATA_ENCRYPTION_INIT_INFO, &encSize) != nil
            || codecTag == FourCharCode(fourCC: "encv") || codecTag == FourCharCode(fourCC: "enca")
        mediaType = 0
        mediaSubType = 0
        formatDescription = nil
        let handler = tags.first { $0.key == "handler_name" }?.value
        mediaType = StreamInfo.appleMediaType(kind: kind, codecID: par.codec_id, codecTag: codecTag, handler: handler)
        mediaSubType = StreamInfo.appleSubType(codecID: par.codec_id, kind: kind, codecTag: codecTag, profile: par.profile)
        formatDescription = makeFormatDescription(codecID: par.codec_id, format: par.format)
    }

    /// Whether the stream is a cover picture rather than a video track.
    package var isAttachedPicture: Bool { disposition.contains(.attachedPicture) }

    /// Converts a CMTime to a timestamp in this stream's time base (rounding toward −∞).
    package func timestamp(for time: CMTime) -> Int64 {
        guard time.isNumeric, timeBase.num > 0, timeBase.den > 0 else { return 0 }
        let scaled = CMTimeConvertScale(time, timescale: timeBase.den, method: .roundTowardNegativeInfinity)
        guard scaled.isNumeric else { return time < .zero ? .min : .max }
        let num = Int64(timeBase.num)
        let q = scaled.value / num
        return scaled.value < 0 && scaled.value % num != 0 ? q - 1 : q
    }

    /// An exact CMTime for `value` units of `base`.
    static func time(_ value: Int64, _ base: AVRational) -> CMTime {
        guard base.den > 0, base.num > 0 else { return .invalid }
        if base.num == 1 { return CMTime(value: value, timescale: base.den) }
        let (product, overflow) = value.multipliedReportingOverflow(by: Int64(base.num))
        if !overflow { return CMTime(value: product, timescale: base.den) }
        return CMTime(seconds: Double(value) * Double(base.num) / Double(base.den), preferredTimescale: base.den)
    }

    static func rate(_ r: AVRational) -> Double {
        r.num > 0 && r.den > 0 ? Double(r.num) / Double(r.den) : 0
    }

    /// The stream's display matrix side data as an affine transform (16.16 fixed point a, b, c, d,
    /// tx, ty — the tkhd matrix Apple reports as `preferredTransform`).
    static func displayMatrix(_ stream: UnsafeMutablePointer<AVStream>) -> CGAffineTransform? {
        var size: Int = 0
        guard let raw = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return nil }
        var m = [Int32](repeating: 0, count: 9)
        for i in 0..<9 { m[i] = UnsafeRawPointer(raw).loadUnaligned(fromByteOffset: i * 4, as: Int32.self) }
        let f = { (v: Int32) in CGFloat(Double(v) / 65536) }
        return CGAffineTransform(a: f(m[0]), b: f(m[1]), c: f(m[3]), d: f(m[4]), tx: f(m[6]), ty: f(m[7]))
    }
}

extension StreamInfo {
    /// How much wider (or taller) than square a pixel read from a file may be. Every ratio in use
    /// is far inside it (H.264's table tops out at 32:11 (2.9), anamorphic lenses at 2:1); a file
    /// claiming more (a 'pasp' box or a bitstream saying 684:1) would make a picture hundreds of
    /// times wider than its decoded frame, so the ratio is dropped (square pixels), as FFmpeg's
    /// decoders drop a ratio they cannot use.
    package static let maximumPixelAspectRatio = 4

    /// `horizontal:vertical` as a pixel aspect ratio: nil when either is not positive, when they
    /// are equal (square pixels) or when the ratio is beyond `maximumPixelAspectRatio` either way.
    package static func plausibleAspectRatio(_ horizontal: Int, _ vertical: Int) -> (horizontal: Int, vertical: Int)? {
        guard horizontal > 0, vertical > 0, horizontal != vertical,
              horizontal <= vertical.saturatingMultiplying(maximumPixelAspectRatio),
              vertical <= horizontal.saturatingMultiplying(maximumPixelAspectRatio) else { return nil }
        return (horizontal, vertical)
    }
}
