// Core Media format descriptions → libavformat codec parameters, for streams whose samples are
// copied as they are (passthrough), and the linear PCM layouts an ASBD names.
internal import CFFmpeg
import CoreAudioTypes
import CoreMedia
import Foundation

/// Builds `AVCodecParameters` from `CMFormatDescription`s.
package enum MuxerStreamFormat {
    /// A linear PCM sample layout as an `AudioStreamBasicDescription` states it.
    package struct PCMLayout: Sendable, Equatable, CustomStringConvertible {
        /// Bits per sample (8, 16, 24, 32, 64).
        package var bits: Int
        /// IEEE float samples.
        package var isFloat: Bool
        /// Big-endian samples (irrelevant for 8 bits).
        package var isBigEndian: Bool
        /// Signed integers (8-bit samples may be unsigned).
        package var isSigned: Bool
        /// One buffer per channel.
        package var isNonInterleaved: Bool

        package init(bits: Int, isFloat: Bool, isBigEndian: Bool, isSigned: Bool = true, isNonInterleaved: Bool = false) {
            self.bits = bits
            self.isFloat = isFloat
            self.isBigEndian = isBigEndian && bits > 8
            self.isSigned = isFloat || isSigned
            self.isNonInterleaved = isNonInterleaved
        }

        /// The layout of a packed linear PCM stream description; nil for other formats or
        /// layouts without a byte-aligned FFmpeg codec (packed high/low aligned 20-bit…).
        package init?(_ asbd: AudioStreamBasicDescription) {
            guard asbd.mFormatID == kAudioFormatLinearPCM, asbd.mChannelsPerFrame > 0, asbd.mBitsPerChannel > 0 else { return nil }
            let flags = asbd.mFormatFlags
            let nonInterleaved = flags & kAudioFormatFlagIsNonInterleaved != 0
            let channelsPerBuffer = nonInterleaved ? 1 : asbd.mChannelsPerFrame
            let bits = Int(asbd.mBitsPerChannel)
            // Packed samples only: each sample fills its bytes.
            guard bits % 8 == 0, asbd.mBytesPerFrame == UInt32(bits / 8) * channelsPerBuffer else { return nil }
            self.init(bits: bits, isFloat: flags & kAudioFormatFlagIsFloat != 0,
                      isBigEndian: flags & kAudioFormatFlagIsBigEndian != 0,
                      isSigned: flags & kAudioFormatFlagIsSignedInteger != 0, isNonInterleaved: nonInterleaved)
            guard codecID != nil else { return nil }
        }

        /// FFmpeg's codec for the interleaved layout; nil when it has none.
        var codecID: AVCodecID? {
            switch (bits, isFloat, isBigEndian, isSigned) {
            case (8, false, _, false): return AV_CODEC_ID_PCM_U8
            case (8, false, _, true): return AV_CODEC_ID_PCM_S8
            case (16, false, false, true): return AV_CODEC_ID_PCM_S16LE
            case (16, false, true, true): return AV_CODEC_ID_PCM_S16BE
            case (24, false, false, true): return AV_CODEC_ID_PCM_S24LE
            case (24, false, true, true): return AV_CODEC_ID_PCM_S24BE
            case (32, false, false, true): return AV_CODEC_ID_PCM_S32LE
            case (32, false, true, true): return AV_CODEC_ID_PCM_S32BE
            case (32, true, false, _): return AV_CODEC_ID_PCM_F32LE
            case (32, true, true, _): return AV_CODEC_ID_PCM_F32BE
            case (64, true, false, _): return AV_CODEC_ID_PCM_F64LE
            case (64, true, true, _): return AV_CODEC_ID_PCM_F64BE
            default: return nil
            }
        }

        /// FFmpeg's name of the codec ("pcm_s16le").
        package var codecName: String { codecID.map { String(cString: avcodec_get_name($0)) } ?? "unknown" }

        /// Bytes of one sample of one channel.
        package var bytesPerSample: Int { bits / 8 }

        /// The stream description of `channels` interleaved channels at `sampleRate`.
        package func streamDescription(sampleRate: Double, channels: Int) -> AudioStreamBasicDescription {
            var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
            if isFloat { flags |= kAudioFormatFlagIsFloat } else if isSigned { flags |= kAudioFormatFlagIsSignedInteger }
            if isBigEndian { flags |= kAudioFormatFlagIsBigEndian }
            if isNonInterleaved { flags |= kAudioFormatFlagIsNonInterleaved }
            let frameBytes = UInt32(bytesPerSample * (isNonInterleaved ? 1 : channels))
            return AudioStreamBasicDescription(mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                               mBytesPerPacket: frameBytes, mFramesPerPacket: 1, mBytesPerFrame: frameBytes,
                                               mChannelsPerFrame: UInt32(channels), mBitsPerChannel: UInt32(bits), mReserved: 0)
        }

        package var description: String {
            "\(bits)-bit \(isFloat ? "float" : (isSigned ? "integer" : "unsigned integer"))"
                + (bits > 8 ? (isBigEndian ? " big-endian" : " little-endian") : "")
                + (isNonInterleaved ? " non-interleaved" : "")
        }
    }

    /// Fills `par` to describe samples of `description` copied unchanged. Throws
    /// `MediaError.invalidArgument` for formats (or missing configuration atoms) that cannot be.
    static func describe(_ description: CMFormatDescription, into par: UnsafeMutablePointer<AVCodecParameters>)
        throws(MediaError) {
        switch CMFormatDescriptionGetMediaType(description) {
        case kCMMediaType_Video: try describeVideo(description, into: par)
        case kCMMediaType_Audio: try describeAudio(description, into: par)
        default:
            throw MediaError.invalidArgument(message: "cannot pass through media of type \(fourCC(CMFormatDescriptionGetMediaType(description)))")
        }
    }

    /// The four characters of a code, for messages.
    package static func fourCC(_ code: FourCharCode) -> String {
        let bytes = [UInt8(code >> 24 & 0xFF), UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)]
        return bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } ? String(decoding: bytes, as: UTF8.self) : String(code)
    }

    /// The video codec a QuickTime sample entry type names, with the atom carrying its
    /// configuration; nil when passthrough of it is not supported.
    static func videoCodec(for subtype: FourCharCode) -> (id: AVCodecID, atom: String?)? {
        switch subtype {
        case FourCharCode(fourCC: "avc1"), FourCharCode(fourCC: "avc3"): return (AV_CODEC_ID_H264, "avcC")
        case FourCharCode(fourCC: "hvc1"), FourCharCode(fourCC: "hev1"): return (AV_CODEC_ID_HEVC, "hvcC")
        case FourCharCode(fourCC: "av01"): return (AV_CODEC_ID_AV1, "av1C")
        case FourCharCode(fourCC: "jpeg"): return (AV_CODEC_ID_MJPEG, nil)
        case FourCharCode(fourCC: "apco"), FourCharCode(fourCC: "apcs"), FourCharCode(fourCC: "apcn"),
             FourCharCode(fourCC: "apch"), FourCharCode(fourCC: "ap4h"), FourCharCode(fourCC: "ap4x"):
            return (AV_CODEC_ID_PRORES, nil)
        default: return nil
        }
    }

    /// The FFmpeg name of the video codec a QuickTime sample entry type names ("h264", "hevc",
    /// "av1", "mjpeg", "prores"); nil when passthrough of it is not supported.
    package static func videoCodecName(for subtype: FourCharCode) -> String? {
        videoCodec(for: subtype).map { String(cString: avcodec_get_name($0.id)) }
    }

    /// Whether libavformat's muxer `name` ("mp4", "ipod", "3gp", …) has a sample entry for the
    /// codec of a passed-through `description` (its codec tag table lists it): the header of a
    /// file it has none for fails ("could not find tag"), so such a passthrough is refused up
    /// front. Linear PCM is the caller's to judge (its entry depends on the layout); formats
    /// passthrough does not support at all answer false.
    package static func muxer(_ name: String, stores description: CMFormatDescription) -> Bool {
        let codec: AVCodecID?
        switch CMFormatDescriptionGetMediaType(description) {
        case kCMMediaType_Video: codec = videoCodec(for: CMFormatDescriptionGetMediaSubType(description))?.id
        case kCMMediaType_Audio:
            guard let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee else { return false }
            if asbd.mFormatID == kAudioFormatLinearPCM { return true }
            codec = audioCodec(for: asbd)
        default: codec = nil
        }
        guard let codec, let format = av_guess_format(name, nil, nil) else { return false }
        return avformat_query_codec(format, codec, FF_COMPLIANCE_NORMAL) == 1
    }

    /// Whether passthrough of audio in the format `asbd` describes is supported.
    package static func canPassThroughAudio(_ asbd: AudioStreamBasicDescription) -> Bool { audioCodec(for: asbd) != nil }

    /// The audio codec an audio format ID names; nil when passthrough of it is not supported.
    static func audioCodec(for asbd: AudioStreamBasicDescription) -> AVCodecID? {
        switch asbd.mFormatID {
        case kAudioFormatLinearPCM: return PCMLayout(asbd).flatMap { $0.isNonInterleaved ? nil : $0.codecID }
        case kAudioFormatMPEG4AAC, kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2, kAudioFormatMPEG4AAC_LD,
             kAudioFormatMPEG4AAC_ELD: return AV_CODEC_ID_AAC
        case kAudioFormatAppleLossless: return AV_CODEC_ID_ALAC
        case kAudioFormatMPEGLayer3: return AV_CODEC_ID_MP3
        case kAudioFormatMPEGLayer2: return AV_CODEC_ID_MP2
        case kAudioFormatAC3: return AV_CODEC_ID_AC3
        case kAudioFormatEnhancedAC3: return AV_CODEC_ID_EAC3
        case kAudioFormatULaw: return AV_CODEC_ID_PCM_MULAW
        case kAudioFormatALaw: return AV_CODEC_ID_PCM_ALAW
        default: return nil
        }
    }

    private static func describeVideo(_ description: CMFormatDescription, into par: UnsafeMutablePointer<AVCodecParameters>)
        throws(MediaError) {
        let subtype = CMFormatDescriptionGetMediaSubType(description)
        guard let codec = videoCodec(for: subtype) else {
            throw MediaError.invalidArgument(message: "cannot pass through video of type '\(fourCC(subtype))'")
        }
        let dimensions = CMVideoFormatDescriptionGetDimensions(description)
        guard dimensions.width > 0, dimensions.height > 0 else {
            throw MediaError.invalidArgument(message: "the video format description has no dimensions")
        }
        par.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        par.pointee.codec_id = codec.id
        par.pointee.width = dimensions.width
        par.pointee.height = dimensions.height
        let extensions = CMFormatDescriptionGetExtensions(description) as? [String: Any] ?? [:]
        if let atom = codec.atom {
            let atoms = extensions[(kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms as String)] as? [String: Any]
            let value = atoms?[atom]
            let data = (value as? Data) ?? (value as? NSData).map { Data(referencing: $0) }
            guard let data, !data.isEmpty else {
                throw MediaError.invalidArgument(message: "the '\(fourCC(subtype))' format description has no \(atom) atom")
            }
            try setExtradata(data, on: par)
        }
        if let aspect = extensions[(kCMFormatDescriptionExtension_PixelAspectRatio as String)] as? [String: Any],
           let h = (aspect[(kCMFormatDescriptionKey_PixelAspectRatioHorizontalSpacing as String)] as? NSNumber)?.int32Value,
           let v = (aspect[(kCMFormatDescriptionKey_PixelAspectRatioVerticalSpacing as String)] as? NSNumber)?.int32Value, h > 0, v > 0, h != v {
            par.pointee.sample_aspect_ratio = AVRational(num: h, den: v)
        }
        let color = EncoderColor(primaries: extensions[(kCMFormatDescriptionExtension_ColorPrimaries as String)] as? String,
                                 transferFunction: extensions[(kCMFormatDescriptionExtension_TransferFunction as String)] as? String,
                                 matrix: extensions[(kCMFormatDescriptionExtension_YCbCrMatrix as String)] as? String)
        par.pointee.color_primaries = color.avPrimaries
        par.pointee.color_trc = color.avTransfer
        par.pointee.color_space = color.avMatrix
        if (extensions[(kCMFormatDescriptionExtension_FullRangeVideo as String)] as? NSNumber)?.boolValue == true {
            par.pointee.color_range = AVCOL_RANGE_JPEG
        }
    }

    private static func describeAudio(_ description: CMFormatDescription, into par: UnsafeMutablePointer<AVCodecParameters>)
        throws(MediaError) {
        guard let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee else {
            throw MediaError.invalidArgument(message: "the audio format description has no stream description")
        }
        guard let codec = audioCodec(for: asbd) else {
            throw MediaError.invalidArgument(message: "cannot pass through audio of format '\(fourCC(asbd.mFormatID))'")
        }
        guard asbd.mSampleRate > 0, asbd.mSampleRate < Double(Int32.max), asbd.mChannelsPerFrame > 0 else {
            throw MediaError.invalidArgument(message: "the audio format description has no sample rate or channels")
        }
        par.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        par.pointee.codec_id = codec
        par.pointee.sample_rate = Int32(asbd.mSampleRate)
        av_channel_layout_uninit(&par.pointee.ch_layout)
        av_channel_layout_default(&par.pointee.ch_layout, Int32(asbd.mChannelsPerFrame))
        if let pcm = PCMLayout(asbd) {
            par.pointee.bits_per_coded_sample = Int32(pcm.bits)
            par.pointee.bits_per_raw_sample = Int32(pcm.bits)
            par.pointee.block_align = Int32(pcm.bytesPerSample * Int(asbd.mChannelsPerFrame))
            par.pointee.frame_size = 1
            return
        }
        if codec == AV_CODEC_ID_PCM_MULAW || codec == AV_CODEC_ID_PCM_ALAW {
            par.pointee.bits_per_coded_sample = 8
            par.pointee.block_align = Int32(asbd.mChannelsPerFrame)
            return
        }
        if asbd.mFramesPerPacket > 0 { par.pointee.frame_size = Int32(clamping: asbd.mFramesPerPacket) }
        var cookieSize = 0
        let cookie = CMAudioFormatDescriptionGetMagicCookie(description, sizeOut: &cookieSize)
            .map { Data(bytes: $0, count: cookieSize) } ?? Data()
        switch codec {
        case AV_CODEC_ID_AAC:
            guard let asc = audioSpecificConfig(fromESDS: cookie) ?? (cookie.count >= 2 && cookie.count <= 64 ? cookie : nil) else {
                throw MediaError.invalidArgument(message: "the AAC format description has no magic cookie (esds)")
            }
            try setExtradata(asc, on: par)
        case AV_CODEC_ID_ALAC:
            guard let config = alacExtradata(fromCookie: cookie) else {
                throw MediaError.invalidArgument(message: "the Apple Lossless format description has no magic cookie")
            }
            try setExtradata(config, on: par)
        default:
            break
        }
    }

    /// The AudioSpecificConfig inside an MPEG-4 ES descriptor (Apple's AAC magic cookie), or inside
    /// a whole 'esds' atom; nil when the bytes are not one.
    package static func audioSpecificConfig(fromESDS data: Data) -> Data? {
        var bytes = [UInt8](data)
        // A whole atom: size, 'esds', version/flags.
        if bytes.count > 12, bytes[4...7] == [0x65, 0x73, 0x64, 0x73] { bytes = Array(bytes[12...]) }
        var i = 0
        func readLength() -> Int? {
            var length = 0
            for _ in 0..<4 {
                guard i < bytes.count else { return nil }
                let b = bytes[i]
                i += 1
                length = length << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { return length }
            }
            return length
        }
        // ES_Descriptor
        guard i < bytes.count, bytes[i] == 0x03 else { return nil }
        i += 1
        guard readLength() != nil, i + 3 <= bytes.count else { return nil }
        let flags = bytes[i + 2]
        i += 3
        if flags & 0x80 != 0 { i += 2 }
        if flags & 0x40 != 0 { guard i < bytes.count else { return nil }; i += 1 + Int(bytes[i]) }
        if flags & 0x20 != 0 { i += 2 }
        // DecoderConfigDescriptor
        guard i < bytes.count, bytes[i] == 0x04 else { return nil }
        i += 1
        guard readLength() != nil else { return nil }
        i += 13
        // DecoderSpecificInfo
        guard i < bytes.count, bytes[i] == 0x05 else { return nil }
        i += 1
        guard let length = readLength(), length > 0, i + length <= bytes.count else { return nil }
        return Data(bytes[i ..< i + length])
    }

    /// FFmpeg's ALAC extradata (a 36-byte 'alac' atom) from Apple's magic cookie (the 24-byte
    /// ALACSpecificConfig, optionally wrapped in 'frma'/'alac' atoms).
    static func alacExtradata(fromCookie cookie: Data) -> Data? {
        let bytes = [UInt8](cookie)
        var config: ArraySlice<UInt8>?
        if bytes.count == 24 {
            config = bytes[0..<24]
        } else if let range = bytes.firstRange(of: [0x61, 0x6C, 0x61, 0x63]), range.lowerBound >= 4,
                  range.upperBound + 4 + 24 <= bytes.count {
            // size 'alac' version/flags config…
            config = bytes[(range.upperBound + 4)..<(range.upperBound + 28)]
        }
        guard let config else { return nil }
        var out: [UInt8] = [0, 0, 0, 36, 0x61, 0x6C, 0x61, 0x63, 0, 0, 0, 0]
        out += config
        return Data(out)
    }

    private static func setExtradata(_ data: Data, on par: UnsafeMutablePointer<AVCodecParameters>) throws(MediaError) {
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard let buffer = av_mallocz(data.count + padding)?.assumingMemoryBound(to: UInt8.self) else {
            throw MediaError.other(code: cffmpeg_averror(ENOMEM), message: "out of memory")
        }
        data.copyBytes(to: buffer, count: data.count)
        av_freep(&par.pointee.extradata)
        par.pointee.extradata = buffer
        par.pointee.extradata_size = Int32(data.count)
    }
}

/// Colour tags (Core Video / Core Media strings) as FFmpeg enums.
package struct EncoderColor: Sendable, Equatable {
    package var primaries: String?
    package var transferFunction: String?
    package var matrix: String?

    package init(primaries: String? = nil, transferFunction: String? = nil, matrix: String? = nil) {
        self.primaries = primaries
        self.transferFunction = transferFunction
        self.matrix = matrix
    }

    var avPrimaries: AVColorPrimaries { PixelFormatColor.avPrimaries(primaries) }
    var avTransfer: AVColorTransferCharacteristic { PixelFormatColor.avTransferFunction(transferFunction) }
    var avMatrix: AVColorSpace {
        switch matrix {
        case "ITU_R_709_2": return AVCOL_SPC_BT709
        case "ITU_R_601_4": return AVCOL_SPC_SMPTE170M
        case "SMPTE_240M_1995": return AVCOL_SPC_SMPTE240M
        case "ITU_R_2020": return AVCOL_SPC_BT2020_NCL
        default: return AVCOL_SPC_UNSPECIFIED
        }
    }
}
