// Stream → CMFormatDescription: Apple's media type, codec FourCC / audio format ID, and the
// description (dimensions + sample-description atoms + colour, or ASBD + layout + cookie),
// built with CoreMedia's public functions.
internal import CFFmpeg
import CoreAudioTypes
import CoreMedia
import Foundation

extension StreamInfo {
    /// Apple's media type for a stream.
    static func appleMediaType(kind: Kind, codecID: AVCodecID, codecTag: FourCharCode, handler: String?) -> CMMediaType {
        switch kind {
        case .video: return kCMMediaType_Video
        case .audio: return kCMMediaType_Audio
        case .subtitle:
            switch codecID {
            case AV_CODEC_ID_EIA_608: return kCMMediaType_ClosedCaption
            case AV_CODEC_ID_MOV_TEXT where codecTag == FourCharCode(fourCC: "text"): return kCMMediaType_Text
            default: return kCMMediaType_Subtitle
            }
        case .data:
            if codecTag == FourCharCode(fourCC: "tmcd") || handler?.lowercased().contains("timecode") == true {
                return kCMMediaType_TimeCode
            }
            return kCMMediaType_Metadata
        case .attachment, .unknown:
            return kCMMediaType_Metadata
        }
    }

    /// Apple's media subtype: the video codec type or the audio format ID.
    static func appleSubType(codecID: AVCodecID, kind: Kind, codecTag: FourCharCode, profile: Int32) -> FourCharCode {
        switch codecID {
        case AV_CODEC_ID_H264: return kCMVideoCodecType_H264
        case AV_CODEC_ID_HEVC: return codecTag == FourCharCode(fourCC: "hev1") ? codecTag : kCMVideoCodecType_HEVC
        case AV_CODEC_ID_MPEG4: return kCMVideoCodecType_MPEG4Video
        case AV_CODEC_ID_MPEG2VIDEO: return kCMVideoCodecType_MPEG2Video
        case AV_CODEC_ID_MPEG1VIDEO: return kCMVideoCodecType_MPEG1Video
        case AV_CODEC_ID_H263: return kCMVideoCodecType_H263
        case AV_CODEC_ID_MJPEG: return kCMVideoCodecType_JPEG
        case AV_CODEC_ID_VP9: return kCMVideoCodecType_VP9
        case AV_CODEC_ID_AV1: return kCMVideoCodecType_AV1
        case AV_CODEC_ID_PRORES: return codecTag != 0 ? codecTag : kCMVideoCodecType_AppleProRes422
        case AV_CODEC_ID_AAC:
            switch profile {
            case 4: return kAudioFormatMPEG4AAC_HE           // FF_PROFILE_AAC_HE
            case 28: return kAudioFormatMPEG4AAC_HE_V2       // FF_PROFILE_AAC_HE_V2
            case 22: return kAudioFormatMPEG4AAC_LD          // FF_PROFILE_AAC_LD
            case 38: return kAudioFormatMPEG4AAC_ELD         // FF_PROFILE_AAC_ELD
            default: return kAudioFormatMPEG4AAC
            }
        case AV_CODEC_ID_MP3: return kAudioFormatMPEGLayer3
        case AV_CODEC_ID_MP2: return kAudioFormatMPEGLayer2
        case AV_CODEC_ID_MP1: return kAudioFormatMPEGLayer1
        case AV_CODEC_ID_AC3: return kAudioFormatAC3
        case AV_CODEC_ID_EAC3: return kAudioFormatEnhancedAC3
        case AV_CODEC_ID_ALAC: return kAudioFormatAppleLossless
        case AV_CODEC_ID_FLAC: return kAudioFormatFLAC
        case AV_CODEC_ID_OPUS: return kAudioFormatOpus
        case AV_CODEC_ID_AMR_NB: return kAudioFormatAMR
        case AV_CODEC_ID_AMR_WB: return kAudioFormatAMR_WB
        case AV_CODEC_ID_PCM_ALAW: return kAudioFormatALaw
        case AV_CODEC_ID_PCM_MULAW: return kAudioFormatULaw
        case AV_CODEC_ID_ADPCM_IMA_QT: return kAudioFormatAppleIMA4
        case AV_CODEC_ID_GSM_MS: return kAudioFormatMicrosoftGSM
        case AV_CODEC_ID_VORBIS: return FourCharCode(fourCC: "vorb")
        case AV_CODEC_ID_MOV_TEXT: return FourCharCode(fourCC: "tx3g")
        case AV_CODEC_ID_WEBVTT: return FourCharCode(fourCC: "wvtt")
        case AV_CODEC_ID_EIA_608: return FourCharCode(fourCC: "c608")
        default:
            if pcmLayout(codecID) != nil { return kAudioFormatLinearPCM }
            if codecTag != 0 { return codecTag }
            return 0
        }
    }

    /// Linear PCM layouts: (bits, float, big-endian, signed).
    static func pcmLayout(_ id: AVCodecID) -> (bits: UInt32, float: Bool, bigEndian: Bool, signed: Bool)? {
        switch id {
        case AV_CODEC_ID_PCM_U8: return (8, false, false, false)
        case AV_CODEC_ID_PCM_S8: return (8, false, false, true)
        case AV_CODEC_ID_PCM_S16LE: return (16, false, false, true)
        case AV_CODEC_ID_PCM_S16BE: return (16, false, true, true)
        case AV_CODEC_ID_PCM_S24LE: return (24, false, false, true)
        case AV_CODEC_ID_PCM_S24BE: return (24, false, true, true)
        case AV_CODEC_ID_PCM_S32LE: return (32, false, false, true)
        case AV_CODEC_ID_PCM_S32BE: return (32, false, true, true)
        case AV_CODEC_ID_PCM_F32LE: return (32, true, false, true)
        case AV_CODEC_ID_PCM_F32BE: return (32, true, true, true)
        case AV_CODEC_ID_PCM_F64LE: return (64, true, false, true)
        case AV_CODEC_ID_PCM_F64BE: return (64, true, true, true)
        default: return nil
        }
    }

    func makeFormatDescription(codecID: AVCodecID, format: Int32) -> CMFormatDescription? {
        switch kind {
        case .video where !isAttachedPicture || width > 0:
            return makeVideoDescription(codecID: codecID)
        case .audio:
            return makeAudioDescription(codecID: codecID)
        case .subtitle, .data:
            guard mediaSubType != 0 else { return nil }
            var out: CMFormatDescription?
            CMFormatDescriptionCreate(allocator: nil, mediaType: mediaType, mediaSubType: mediaSubType,
                                      extensions: nil, formatDescriptionOut: &out)
            return out
        default:
            return nil
        }
    }

    private func makeVideoDescription(codecID: AVCodecID) -> CMFormatDescription? {
        let ext = NSMutableDictionary()
        var atoms: [String: Data] = [:]
        if !extradata.isEmpty {
            switch codecID {
            case AV_CODEC_ID_H264 where extradata.first == 1: atoms["avcC"] = extradata
            case AV_CODEC_ID_HEVC where extradata.first == 1: atoms["hvcC"] = extradata
            case AV_CODEC_ID_AV1 where (extradata.first ?? 0) & 0x80 != 0: atoms["av1C"] = extradata
            default: break
            }
        }
        if !atoms.isEmpty {
            let dict = NSMutableDictionary()
            for (k, v) in atoms { dict[k] = NSData(data: v) }
            ext[kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms] = dict
        }
        if let name = videoFormatName(codecID) { ext[kCMFormatDescriptionExtension_FormatName] = name }
        ext[kCMFormatDescriptionExtension_Depth] = NSNumber(value: 24)
        if let sar = sampleAspectRatio {
            ext[kCMFormatDescriptionExtension_PixelAspectRatio] = NSDictionary(dictionary: [
                kCMFormatDescriptionKey_PixelAspectRatioHorizontalSpacing: NSNumber(value: sar.horizontal),
                kCMFormatDescriptionKey_PixelAspectRatioVerticalSpacing: NSNumber(value: sar.vertical)])
        }
        switch colorPrimaries {
        case AVCOL_PRI_BT709.rawValue: ext[kCMFormatDescriptionExtension_ColorPrimaries] = kCMFormatDescriptionColorPrimaries_ITU_R_709_2
        case AVCOL_PRI_BT470BG.rawValue: ext[kCMFormatDescriptionExtension_ColorPrimaries] = kCMFormatDescriptionColorPrimaries_EBU_3213
        case AVCOL_PRI_SMPTE170M.rawValue, AVCOL_PRI_SMPTE240M.rawValue:
            ext[kCMFormatDescriptionExtension_ColorPrimaries] = kCMFormatDescriptionColorPrimaries_SMPTE_C
        case AVCOL_PRI_BT2020.rawValue: ext[kCMFormatDescriptionExtension_ColorPrimaries] = kCMFormatDescriptionColorPrimaries_ITU_R_2020
        case AVCOL_PRI_SMPTE432.rawValue: ext[kCMFormatDescriptionExtension_ColorPrimaries] = kCMFormatDescriptionColorPrimaries_P3_D65
        case AVCOL_PRI_SMPTE431.rawValue: ext[kCMFormatDescriptionExtension_ColorPrimaries] = kCMFormatDescriptionColorPrimaries_DCI_P3
        default: break
        }
        switch colorTransfer {
        case AVCOL_TRC_BT709.rawValue, AVCOL_TRC_SMPTE170M.rawValue:
            ext[kCMFormatDescriptionExtension_TransferFunction] = kCMFormatDescriptionTransferFunction_ITU_R_709_2
        case AVCOL_TRC_SMPTE240M.rawValue:
            ext[kCMFormatDescriptionExtension_TransferFunction] = kCMFormatDescriptionTransferFunction_SMPTE_240M_1995
        case AVCOL_TRC_SMPTE2084.rawValue: ext[kCMFormatDescriptionExtension_TransferFunction] = "SMPTE_ST_2084_PQ"
        case AVCOL_TRC_ARIB_STD_B67.rawValue: ext[kCMFormatDescriptionExtension_TransferFunction] = "ITU_R_2100_HLG"
        case AVCOL_TRC_IEC61966_2_1.rawValue: ext[kCMFormatDescriptionExtension_TransferFunction] = "IEC_sRGB"
        default: break
        }
        switch colorSpace {
        case AVCOL_SPC_BT709.rawValue: ext[kCMFormatDescriptionExtension_YCbCrMatrix] = "ITU_R_709_2"
        case AVCOL_SPC_BT470BG.rawValue, AVCOL_SPC_SMPTE170M.rawValue: ext[kCMFormatDescriptionExtension_YCbCrMatrix] = "ITU_R_601_4"
        case AVCOL_SPC_SMPTE240M.rawValue: ext[kCMFormatDescriptionExtension_YCbCrMatrix] = "SMPTE_240M_1995"
        case AVCOL_SPC_BT2020_NCL.rawValue, AVCOL_SPC_BT2020_CL.rawValue: ext[kCMFormatDescriptionExtension_YCbCrMatrix] = "ITU_R_2020"
        default: break
        }
        if colorRange == AVCOL_RANGE_JPEG.rawValue { ext[kCMFormatDescriptionExtension_FullRangeVideo] = NSNumber(value: true) }
        var out: CMFormatDescription?
        let subtype = mediaSubType != 0 ? mediaSubType : FourCharCode(fourCC: "????")
        let status = CMVideoFormatDescriptionCreate(allocator: nil, codecType: subtype, width: Int32(clamping: width),
                                                    height: Int32(clamping: height), extensions: ext, formatDescriptionOut: &out)
        return status == noErr ? out : nil
    }

    private func videoFormatName(_ id: AVCodecID) -> String? {
        switch id {
        case AV_CODEC_ID_H264: return "H.264"
        case AV_CODEC_ID_HEVC: return "HEVC"
        case AV_CODEC_ID_MPEG4: return "MPEG-4 Video"
        case AV_CODEC_ID_MJPEG: return "Photo - JPEG"
        case AV_CODEC_ID_MPEG1VIDEO: return "MPEG-1 Video"
        case AV_CODEC_ID_MPEG2VIDEO: return "MPEG-2 Video"
        case AV_CODEC_ID_H263: return "H.263"
        case AV_CODEC_ID_VP9: return "VP9"
        case AV_CODEC_ID_AV1: return "AV1"
        default: return nil
        }
    }

    private func makeAudioDescription(codecID: AVCodecID) -> CMFormatDescription? {
        guard mediaSubType != 0 else { return nil }
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = Float64(sampleRate)
        asbd.mFormatID = mediaSubType
        asbd.mChannelsPerFrame = UInt32(clamping: channelCount)
        var cookie = Data()
        if let pcm = StreamInfo.pcmLayout(codecID) {
            guard channelCount > 0 else { return nil }
            var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
            if pcm.float { flags |= kAudioFormatFlagIsFloat } else if pcm.signed { flags |= kAudioFormatFlagIsSignedInteger }
            if pcm.bigEndian && pcm.bits > 8 { flags |= kAudioFormatFlagIsBigEndian }
            asbd.mFormatFlags = flags
            asbd.mBitsPerChannel = pcm.bits
            asbd.mBytesPerFrame = pcm.bits / 8 * UInt32(channelCount)
            asbd.mFramesPerPacket = 1
            asbd.mBytesPerPacket = asbd.mBytesPerFrame
        } else {
            switch codecID {
            case AV_CODEC_ID_PCM_ALAW, AV_CODEC_ID_PCM_MULAW:
                asbd.mBitsPerChannel = 8
                asbd.mBytesPerFrame = UInt32(channelCount)
                asbd.mFramesPerPacket = 1
                asbd.mBytesPerPacket = asbd.mBytesPerFrame
            case AV_CODEC_ID_AAC:
                asbd.mFramesPerPacket = UInt32(samplesPerPacket > 0 ? samplesPerPacket : 1024)
                if !extradata.isEmpty { cookie = StreamInfo.esds(audioSpecificConfig: extradata, bitRate: bitRate) }
            case AV_CODEC_ID_MP3, AV_CODEC_ID_MP2:
                asbd.mFramesPerPacket = UInt32(samplesPerPacket > 0 ? samplesPerPacket : 1152)
            case AV_CODEC_ID_MP1:
                asbd.mFramesPerPacket = 384
            case AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3:
                asbd.mFramesPerPacket = 1536
            case AV_CODEC_ID_FLAC, AV_CODEC_ID_ALAC:
                // kAppleLosslessFormatFlag_16/20/24/32BitSourceData
                switch bitsPerSample { case 16: asbd.mFormatFlags = 1; case 20: asbd.mFormatFlags = 2
                case 24: asbd.mFormatFlags = 3; case 32: asbd.mFormatFlags = 4; default: break }
                asbd.mFramesPerPacket = UInt32(samplesPerPacket)
                cookie = extradata
            default:
                asbd.mFramesPerPacket = UInt32(samplesPerPacket)
                cookie = extradata
            }
        }
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = channelLayoutTag()
        if layout.mChannelLayoutTag == kAudioChannelLayoutTag_UseChannelBitmap {
            layout.mChannelBitmap = AudioChannelBitmap(rawValue: UInt32(truncatingIfNeeded: channelMask & 0x3FFFF))
        }
        let hasLayout = layout.mChannelLayoutTag != 0
        var out: CMFormatDescription?
        let status: OSStatus = withUnsafePointer(to: &asbd) { asbdPtr in
            withUnsafePointer(to: &layout) { layoutPtr in
                cookie.withUnsafeBytes { cookieBytes in
                    CMAudioFormatDescriptionCreate(allocator: nil, asbd: asbdPtr,
                                                   layoutSize: hasLayout ? MemoryLayout<AudioChannelLayout>.size : 0,
                                                   layout: hasLayout ? layoutPtr : nil,
                                                   magicCookieSize: cookie.count,
                                                   magicCookie: cookie.isEmpty ? nil : cookieBytes.baseAddress,
                                                   extensions: nil, formatDescriptionOut: &out)
                }
            }
        }
        return status == noErr ? out : nil
    }

    /// Apple's layout tag for the stream's channel layout; 0 when it has none.
    func channelLayoutTag() -> AudioChannelLayoutTag {
        let FL: UInt64 = 0x1, FR: UInt64 = 0x2, FC: UInt64 = 0x4, LFE: UInt64 = 0x8, BL: UInt64 = 0x10, BR: UInt64 = 0x20
        let SL: UInt64 = 0x200, SR: UInt64 = 0x400
        switch channelMask {
        case FC: return kAudioChannelLayoutTag_Mono
        case FL | FR: return kAudioChannelLayoutTag_Stereo
        case FL | FR | FC: return kAudioChannelLayoutTag_MPEG_3_0_A
        case FL | FR | FC | BL | BR, FL | FR | FC | SL | SR: return kAudioChannelLayoutTag_MPEG_5_0_A
        case FL | FR | FC | LFE | BL | BR, FL | FR | FC | LFE | SL | SR: return kAudioChannelLayoutTag_MPEG_5_1_A
        case 0:
            switch channelCount {
            case 1: return kAudioChannelLayoutTag_Mono
            case 2: return kAudioChannelLayoutTag_Stereo
            default: return 0
            }
        default:
            return channelMask & ~0x3FFFF == 0 ? kAudioChannelLayoutTag_UseChannelBitmap : 0
        }
    }

    /// An MPEG-4 ES descriptor (the 'esds' payload, Apple's AAC magic cookie) around an
    /// AudioSpecificConfig.
    package static func esds(audioSpecificConfig asc: Data, bitRate: Int) -> Data {
        func descriptor(_ tag: UInt8, _ body: Data) -> Data {
            var d = Data([tag])
            let n = body.count
            d.append(contentsOf: [UInt8(0x80 | (n >> 21 & 0x7F)), UInt8(0x80 | (n >> 14 & 0x7F)),
                                  UInt8(0x80 | (n >> 7 & 0x7F)), UInt8(n & 0x7F)])
            d.append(body)
            return d
        }
        let rate = UInt32(clamping: bitRate)
        var config = Data([0x40, 0x15, 0x00, 0x00, 0x00])  // MPEG-4 audio, audio stream, buffer size 0
        for v in [rate, rate] { config.append(contentsOf: [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]) }
        config.append(descriptor(0x05, asc))
        var es = Data([0x00, 0x00, 0x00])  // ES_ID 0, no flags
        es.append(descriptor(0x04, config))
        es.append(descriptor(0x06, Data([0x02])))
        return descriptor(0x03, es)
    }
}
