// Media types, codec types and pixel-format types: the four-character codes of CMFormatDescription.h.

/// The kind of media a format description describes ('vide', 'soun', …).
public typealias CMMediaType = FourCharCode
/// A video codec ('avc1', 'hvc1', …); uncompressed video uses its pixel format here.
public typealias CMVideoCodecType = FourCharCode
/// A pixel format of uncompressed video.
public typealias CMPixelFormatType = FourCharCode
/// An audio codec (an `AudioFormatID`).
public typealias CMAudioCodecType = FourCharCode

/// Video media, 'vide'.
public let kCMMediaType_Video: CMMediaType = FourCharCode(fourCC: "vide")
/// Audio media, 'soun'.
public let kCMMediaType_Audio: CMMediaType = FourCharCode(fourCC: "soun")
/// Muxed media, 'muxx'.
public let kCMMediaType_Muxed: CMMediaType = FourCharCode(fourCC: "muxx")
/// Text media, 'text'.
public let kCMMediaType_Text: CMMediaType = FourCharCode(fourCC: "text")
/// Closed-caption media, 'clcp'.
public let kCMMediaType_ClosedCaption: CMMediaType = FourCharCode(fourCC: "clcp")
/// Subtitle media, 'sbtl'.
public let kCMMediaType_Subtitle: CMMediaType = FourCharCode(fourCC: "sbtl")
/// Time-code media, 'tmcd'.
public let kCMMediaType_TimeCode: CMMediaType = FourCharCode(fourCC: "tmcd")
/// Metadata media, 'meta'.
public let kCMMediaType_Metadata: CMMediaType = FourCharCode(fourCC: "meta")
/// Tagged buffer group media, 'tbgr'.
public let kCMMediaType_TaggedBufferGroup: CMMediaType = FourCharCode(fourCC: "tbgr")
/// Auxiliary picture media, 'auxv'.
public let kCMMediaType_AuxiliaryPicture: CMMediaType = FourCharCode(fourCC: "auxv")

/// A text format (the media subtype of text media).
public typealias CMTextFormatType = FourCharCode
/// QuickTime text, 'text'.
public let kCMTextFormatType_QTText: CMTextFormatType = FourCharCode(fourCC: "text")
/// 3GPP timed text, 'tx3g'.
public let kCMTextFormatType_3GText: CMTextFormatType = FourCharCode(fourCC: "tx3g")
/// A subtitle format (the media subtype of subtitle media).
public typealias CMSubtitleFormatType = FourCharCode
/// 3GPP timed text as subtitles, 'tx3g'.
public let kCMSubtitleFormatType_3GText: CMSubtitleFormatType = FourCharCode(fourCC: "tx3g")
/// WebVTT in ISO/IEC 14496-30 samples, 'wvtt'.
public let kCMSubtitleFormatType_WebVTT: CMSubtitleFormatType = FourCharCode(fourCC: "wvtt")
/// A closed-caption format (the media subtype of closed-caption media).
public typealias CMClosedCaptionFormatType = FourCharCode
/// CEA-608 captions, 'c608'.
public let kCMClosedCaptionFormatType_CEA608: CMClosedCaptionFormatType = FourCharCode(fourCC: "c608")
/// CEA-708 captions, 'c708'.
public let kCMClosedCaptionFormatType_CEA708: CMClosedCaptionFormatType = FourCharCode(fourCC: "c708")
/// ATSC/52 part 4 captions, 'atcc'.
public let kCMClosedCaptionFormatType_ATSC: CMClosedCaptionFormatType = FourCharCode(fourCC: "atcc")

/// Y'CbCr 8-bit 4:2:2 ordered Cb Y'0 Cr Y'1, '2vuy'.
public let kCMVideoCodecType_422YpCbCr8: CMVideoCodecType = FourCharCode(fourCC: "2vuy")
/// Apple Animation, 'rle '.
public let kCMVideoCodecType_Animation: CMVideoCodecType = FourCharCode(fourCC: "rle ")
/// Cinepak, 'cvid'.
public let kCMVideoCodecType_Cinepak: CMVideoCodecType = FourCharCode(fourCC: "cvid")
/// JPEG, 'jpeg'.
public let kCMVideoCodecType_JPEG: CMVideoCodecType = FourCharCode(fourCC: "jpeg")
/// JPEG with OpenDML extensions, 'dmb1'.
public let kCMVideoCodecType_JPEG_OpenDML: CMVideoCodecType = FourCharCode(fourCC: "dmb1")
/// JPEG XL, 'jxl '.
public let kCMVideoCodecType_JPEG_XL: CMVideoCodecType = FourCharCode(fourCC: "jxl ")
/// Sorenson video, 'SVQ1'.
public let kCMVideoCodecType_SorensonVideo: CMVideoCodecType = FourCharCode(fourCC: "SVQ1")
/// Sorenson 3 video, 'SVQ3'.
public let kCMVideoCodecType_SorensonVideo3: CMVideoCodecType = FourCharCode(fourCC: "SVQ3")
/// ITU-T H.263, 'h263'.
public let kCMVideoCodecType_H263: CMVideoCodecType = FourCharCode(fourCC: "h263")
/// ITU-T H.264 / AVC, 'avc1'.
public let kCMVideoCodecType_H264: CMVideoCodecType = FourCharCode(fourCC: "avc1")
/// HEVC / H.265, 'hvc1'.
public let kCMVideoCodecType_HEVC: CMVideoCodecType = FourCharCode(fourCC: "hvc1")
/// HEVC with alpha, 'muxa'.
public let kCMVideoCodecType_HEVCWithAlpha: CMVideoCodecType = FourCharCode(fourCC: "muxa")
/// Dolby Vision HEVC, 'dvh1'.
public let kCMVideoCodecType_DolbyVisionHEVC: CMVideoCodecType = FourCharCode(fourCC: "dvh1")
/// MPEG-4 Part 2 video, 'mp4v'.
public let kCMVideoCodecType_MPEG4Video: CMVideoCodecType = FourCharCode(fourCC: "mp4v")
/// MPEG-2 video, 'mp2v'.
public let kCMVideoCodecType_MPEG2Video: CMVideoCodecType = FourCharCode(fourCC: "mp2v")
/// MPEG-1 video, 'mp1v'.
public let kCMVideoCodecType_MPEG1Video: CMVideoCodecType = FourCharCode(fourCC: "mp1v")
/// VP9, 'vp09'.
public let kCMVideoCodecType_VP9: CMVideoCodecType = FourCharCode(fourCC: "vp09")
/// AV1, 'av01'.
public let kCMVideoCodecType_AV1: CMVideoCodecType = FourCharCode(fourCC: "av01")
/// DV NTSC, 'dvc '.
public let kCMVideoCodecType_DVCNTSC: CMVideoCodecType = FourCharCode(fourCC: "dvc ")
/// DV PAL, 'dvcp'.
public let kCMVideoCodecType_DVCPAL: CMVideoCodecType = FourCharCode(fourCC: "dvcp")
/// Panasonic DVCPro PAL, 'dvpp'.
public let kCMVideoCodecType_DVCProPAL: CMVideoCodecType = FourCharCode(fourCC: "dvpp")
/// Panasonic DVCPro-50 NTSC, 'dv5n'.
public let kCMVideoCodecType_DVCPro50NTSC: CMVideoCodecType = FourCharCode(fourCC: "dv5n")
/// Panasonic DVCPro-50 PAL, 'dv5p'.
public let kCMVideoCodecType_DVCPro50PAL: CMVideoCodecType = FourCharCode(fourCC: "dv5p")
/// Panasonic DVCPro-HD 720p60, 'dvhp'.
public let kCMVideoCodecType_DVCPROHD720p60: CMVideoCodecType = FourCharCode(fourCC: "dvhp")
/// Panasonic DVCPro-HD 720p50, 'dvhq'.
public let kCMVideoCodecType_DVCPROHD720p50: CMVideoCodecType = FourCharCode(fourCC: "dvhq")
/// Panasonic DVCPro-HD 1080i60, 'dvh6'.
public let kCMVideoCodecType_DVCPROHD1080i60: CMVideoCodecType = FourCharCode(fourCC: "dvh6")
/// Panasonic DVCPro-HD 1080i50, 'dvh5'.
public let kCMVideoCodecType_DVCPROHD1080i50: CMVideoCodecType = FourCharCode(fourCC: "dvh5")
/// Panasonic DVCPro-HD 1080p30, 'dvh3'.
public let kCMVideoCodecType_DVCPROHD1080p30: CMVideoCodecType = FourCharCode(fourCC: "dvh3")
/// Panasonic DVCPro-HD 1080p25, 'dvh2'.
public let kCMVideoCodecType_DVCPROHD1080p25: CMVideoCodecType = FourCharCode(fourCC: "dvh2")
/// Apple ProRes 4444 XQ, 'ap4x'.
public let kCMVideoCodecType_AppleProRes4444XQ: CMVideoCodecType = FourCharCode(fourCC: "ap4x")
/// Apple ProRes 4444, 'ap4h'.
public let kCMVideoCodecType_AppleProRes4444: CMVideoCodecType = FourCharCode(fourCC: "ap4h")
/// Apple ProRes 422 HQ, 'apch'.
public let kCMVideoCodecType_AppleProRes422HQ: CMVideoCodecType = FourCharCode(fourCC: "apch")
/// Apple ProRes 422, 'apcn'.
public let kCMVideoCodecType_AppleProRes422: CMVideoCodecType = FourCharCode(fourCC: "apcn")
/// Apple ProRes 422 LT, 'apcs'.
public let kCMVideoCodecType_AppleProRes422LT: CMVideoCodecType = FourCharCode(fourCC: "apcs")
/// Apple ProRes 422 Proxy, 'apco'.
public let kCMVideoCodecType_AppleProRes422Proxy: CMVideoCodecType = FourCharCode(fourCC: "apco")
/// Apple ProRes RAW, 'aprn'.
public let kCMVideoCodecType_AppleProResRAW: CMVideoCodecType = FourCharCode(fourCC: "aprn")
/// Apple ProRes RAW HQ, 'aprh'.
public let kCMVideoCodecType_AppleProResRAWHQ: CMVideoCodecType = FourCharCode(fourCC: "aprh")

/// 32-bit ARGB (the value 32).
public let kCMPixelFormat_32ARGB: CMPixelFormatType = 32
/// 32-bit BGRA, 'BGRA'.
public let kCMPixelFormat_32BGRA: CMPixelFormatType = FourCharCode(fourCC: "BGRA")
/// 24-bit RGB (the value 24).
public let kCMPixelFormat_24RGB: CMPixelFormatType = 24
/// 16-bit big-endian 5-5-5 (the value 16).
public let kCMPixelFormat_16BE555: CMPixelFormatType = 16
/// 16-bit big-endian 5-6-5, 'B565'.
public let kCMPixelFormat_16BE565: CMPixelFormatType = FourCharCode(fourCC: "B565")
/// 16-bit little-endian 5-5-5, 'L555'.
public let kCMPixelFormat_16LE555: CMPixelFormatType = FourCharCode(fourCC: "L555")
/// 16-bit little-endian 5-6-5, 'L565'.
public let kCMPixelFormat_16LE565: CMPixelFormatType = FourCharCode(fourCC: "L565")
/// 16-bit little-endian 5-5-5-1, '5551'.
public let kCMPixelFormat_16LE5551: CMPixelFormatType = FourCharCode(fourCC: "5551")
/// Y'CbCr 8-bit 4:2:2 (Cb Y'0 Cr Y'1), '2vuy'.
public let kCMPixelFormat_422YpCbCr8: CMPixelFormatType = FourCharCode(fourCC: "2vuy")
/// Y'CbCr 8-bit 4:2:2 (Y'0 Cb Y'1 Cr), 'yuvs'.
public let kCMPixelFormat_422YpCbCr8_yuvs: CMPixelFormatType = FourCharCode(fourCC: "yuvs")
/// Y'CbCr 8-bit 4:4:4, 'v308'.
public let kCMPixelFormat_444YpCbCr8: CMPixelFormatType = FourCharCode(fourCC: "v308")
/// Y'CbCrA 8-bit 4:4:4:4, 'v408'.
public let kCMPixelFormat_4444YpCbCrA8: CMPixelFormatType = FourCharCode(fourCC: "v408")
/// Y'CbCr 16-bit 4:2:2, 'v216'.
public let kCMPixelFormat_422YpCbCr16: CMPixelFormatType = FourCharCode(fourCC: "v216")
/// Y'CbCr 10-bit 4:2:2, 'v210'.
public let kCMPixelFormat_422YpCbCr10: CMPixelFormatType = FourCharCode(fourCC: "v210")
/// Y'CbCr 10-bit 4:4:4, 'v410'.
public let kCMPixelFormat_444YpCbCr10: CMPixelFormatType = FourCharCode(fourCC: "v410")
/// 8-bit indexed gray, white is zero (the value 0x28).
public let kCMPixelFormat_8IndexedGray_WhiteIsZero: CMPixelFormatType = 0x0000_0028

/// AAC LC with protected content, 'paac'.
public let kCMAudioCodecType_AAC_LCProtected: CMAudioCodecType = FourCharCode(fourCC: "paac")
/// AAC Audible protected, 'aaac'.
public let kCMAudioCodecType_AAC_AudibleProtected: CMAudioCodecType = FourCharCode(fourCC: "aaac")
