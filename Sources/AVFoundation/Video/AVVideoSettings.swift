// Video settings keys and values for output settings dictionaries (AVAssetWriterInput,
// AVOutputSettingsAssistant), with Apple's string values. The compression property keys are
// Video Toolbox's property names, as in Apple's SDK.
import Foundation

/// A video codec, identified by its QuickTime sample entry type.
public struct AVVideoCodecType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The four-character code as a string ("avc1").
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// H.264 ('avc1').
    public static let h264 = AVVideoCodecType("avc1")
    /// HEVC ('hvc1').
    public static let hevc = AVVideoCodecType("hvc1")
    /// HEVC with an alpha layer ('muxa'). Not available here: `canApply` answers false.
    public static let hevcWithAlpha = AVVideoCodecType("muxa")
    /// Photo JPEG ('jpeg').
    public static let jpeg = AVVideoCodecType("jpeg")
    /// Apple ProRes 4444 ('ap4h').
    public static let proRes4444 = AVVideoCodecType("ap4h")
    /// Apple ProRes 4444 XQ ('ap4x').
    public static let proRes4444XQ = AVVideoCodecType("ap4x")
    /// Apple ProRes 422 ('apcn').
    public static let proRes422 = AVVideoCodecType("apcn")
    /// Apple ProRes 422 HQ ('apch').
    public static let proRes422HQ = AVVideoCodecType("apch")
    /// Apple ProRes 422 LT ('apcs').
    public static let proRes422LT = AVVideoCodecType("apcs")
    /// Apple ProRes 422 Proxy ('apco').
    public static let proRes422Proxy = AVVideoCodecType("apco")
}

/// The video codec (an `AVVideoCodecType` or its raw string).
public let AVVideoCodecKey: String = "AVVideoCodecKey"
/// H.264 (deprecated name of `AVVideoCodecType.h264`).
@available(*, deprecated, renamed: "AVVideoCodecType.h264")
public let AVVideoCodecH264: String = "avc1"
/// JPEG (deprecated name of `AVVideoCodecType.jpeg`).
@available(*, deprecated, renamed: "AVVideoCodecType.jpeg")
public let AVVideoCodecJPEG: String = "jpeg"
/// ProRes 422 (deprecated name of `AVVideoCodecType.proRes422`).
@available(*, deprecated, renamed: "AVVideoCodecType.proRes422")
public let AVVideoCodecAppleProRes422: String = "apcn"
/// ProRes 4444 (deprecated name of `AVVideoCodecType.proRes4444`).
@available(*, deprecated, renamed: "AVVideoCodecType.proRes4444")
public let AVVideoCodecAppleProRes4444: String = "ap4h"

/// The encoded width in pixels.
public let AVVideoWidthKey: String = "AVVideoWidthKey"
/// The encoded height in pixels.
public let AVVideoHeightKey: String = "AVVideoHeightKey"

/// How source pictures of another size are fitted to the encoded size.
public let AVVideoScalingModeKey: String = "AVVideoScalingModeKey"
/// Crop to remove edge processing region, then scale to fit (not supported by asset writer inputs, as on Apple).
public let AVVideoScalingModeFit: String = "AVVideoScalingModeFit"
/// Stretch to fill, ignoring the aspect ratio.
public let AVVideoScalingModeResize: String = "AVVideoScalingModeResize"
/// Fit inside, preserving the aspect ratio, with black bars.
public let AVVideoScalingModeResizeAspect: String = "AVVideoScalingModeResizeAspect"
/// Fill, preserving the aspect ratio, cropping the excess.
public let AVVideoScalingModeResizeAspectFill: String = "AVVideoScalingModeResizeAspectFill"

/// Pixel aspect ratio: a dictionary with the two spacing keys.
public let AVVideoPixelAspectRatioKey: String = "AVVideoPixelAspectRatioKey"
/// Pixel aspect ratio: horizontal spacing.
public let AVVideoPixelAspectRatioHorizontalSpacingKey: String = "HorizontalSpacing"
/// Pixel aspect ratio: vertical spacing.
public let AVVideoPixelAspectRatioVerticalSpacingKey: String = "VerticalSpacing"

/// The encoder's settings: a dictionary with the compression property keys below.
public let AVVideoCompressionPropertiesKey: String = "AVVideoCompressionPropertiesKey"
/// Long-term average bit rate in bits per second.
public let AVVideoAverageBitRateKey: String = "AverageBitRate"
/// Quality from 0.0 (lowest) to 1.0 (highest), for constant-quality encoding and JPEG.
public let AVVideoQualityKey: String = "Quality"
/// The most frames from one keyframe to the next (1: every frame is a keyframe).
public let AVVideoMaxKeyFrameIntervalKey: String = "MaxKeyFrameInterval"
/// The longest time in seconds from one keyframe to the next.
public let AVVideoMaxKeyFrameIntervalDurationKey: String = "MaxKeyFrameIntervalDuration"
/// Whether frames may be reordered (B-frames).
public let AVVideoAllowFrameReorderingKey: String = "AllowFrameReordering"
/// The expected frame rate of the source, in frames per second.
public let AVVideoExpectedSourceFrameRateKey: String = "ExpectedFrameRate"
/// The profile and level of the encoded stream.
public let AVVideoProfileLevelKey: String = "ProfileLevel"
/// The average rate of frames that are not droppable (I and P frames), in frames per second:
/// below the frame rate, the encoder puts droppable B-frames between them.
public let AVVideoAverageNonDroppableFrameRateKey: String = "AverageNonDroppableFrameRate"
/// The H.264 entropy coder.
public let AVVideoH264EntropyModeKey: String = "H264EntropyMode"
/// CAVLC entropy coding.
public let AVVideoH264EntropyModeCAVLC: String = "CAVLC"
/// CABAC entropy coding.
public let AVVideoH264EntropyModeCABAC: String = "CABAC"

/// H.264 Baseline profile, level 3.0.
public let AVVideoProfileLevelH264Baseline30: String = "H264_Baseline_3_0"
/// H.264 Baseline profile, level 3.1.
public let AVVideoProfileLevelH264Baseline31: String = "H264_Baseline_3_1"
/// H.264 Baseline profile, level 4.1.
public let AVVideoProfileLevelH264Baseline41: String = "H264_Baseline_4_1"
/// H.264 Baseline profile, level chosen by the encoder.
public let AVVideoProfileLevelH264BaselineAutoLevel: String = "H264_Baseline_AutoLevel"
/// H.264 Main profile, level 3.0.
public let AVVideoProfileLevelH264Main30: String = "H264_Main_3_0"
/// H.264 Main profile, level 3.1.
public let AVVideoProfileLevelH264Main31: String = "H264_Main_3_1"
/// H.264 Main profile, level 3.2.
public let AVVideoProfileLevelH264Main32: String = "H264_Main_3_2"
/// H.264 Main profile, level 4.1.
public let AVVideoProfileLevelH264Main41: String = "H264_Main_4_1"
/// H.264 Main profile, level chosen by the encoder.
public let AVVideoProfileLevelH264MainAutoLevel: String = "H264_Main_AutoLevel"
/// H.264 High profile, level 4.0.
public let AVVideoProfileLevelH264High40: String = "H264_High_4_0"
/// H.264 High profile, level 4.1.
public let AVVideoProfileLevelH264High41: String = "H264_High_4_1"
/// H.264 High profile, level chosen by the encoder.
public let AVVideoProfileLevelH264HighAutoLevel: String = "H264_High_AutoLevel"

/// Colour tags for the encoded video: a dictionary with the three keys below.
public let AVVideoColorPropertiesKey: String = "AVVideoColorPropertiesKey"
/// Colour primaries.
public let AVVideoColorPrimariesKey: String = "ColorPrimaries"
/// Transfer function.
public let AVVideoTransferFunctionKey: String = "TransferFunction"
/// Y'CbCr matrix.
public let AVVideoYCbCrMatrixKey: String = "YCbCrMatrix"
/// ITU-R BT.709 primaries.
public let AVVideoColorPrimaries_ITU_R_709_2: String = "ITU_R_709_2"
/// EBU 3213 primaries.
public let AVVideoColorPrimaries_EBU_3213: String = "EBU_3213"
/// SMPTE C primaries.
public let AVVideoColorPrimaries_SMPTE_C: String = "SMPTE_C"
/// Display P3 (D65) primaries.
public let AVVideoColorPrimaries_P3_D65: String = "P3_D65"
/// ITU-R BT.2020 primaries.
public let AVVideoColorPrimaries_ITU_R_2020: String = "ITU_R_2020"
/// ITU-R BT.709 transfer function.
public let AVVideoTransferFunction_ITU_R_709_2: String = "ITU_R_709_2"
/// SMPTE 240M transfer function.
public let AVVideoTransferFunction_SMPTE_240M_1995: String = "SMPTE_240M_1995"
/// SMPTE ST 2084 (PQ) transfer function.
public let AVVideoTransferFunction_SMPTE_ST_2084_PQ: String = "SMPTE_ST_2084_PQ"
/// ITU-R BT.2100 HLG transfer function.
public let AVVideoTransferFunction_ITU_R_2100_HLG: String = "ITU_R_2100_HLG"
/// Linear transfer function.
public let AVVideoTransferFunction_Linear: String = "Linear"
/// sRGB transfer function.
public let AVVideoTransferFunction_IEC_sRGB: String = "IEC_sRGB"
/// ITU-R BT.709 matrix.
public let AVVideoYCbCrMatrix_ITU_R_709_2: String = "ITU_R_709_2"
/// ITU-R BT.601 matrix.
public let AVVideoYCbCrMatrix_ITU_R_601_4: String = "ITU_R_601_4"
/// SMPTE 240M matrix.
public let AVVideoYCbCrMatrix_SMPTE_240M_1995: String = "SMPTE_240M_1995"
/// ITU-R BT.2020 matrix.
public let AVVideoYCbCrMatrix_ITU_R_2020: String = "ITU_R_2020"
