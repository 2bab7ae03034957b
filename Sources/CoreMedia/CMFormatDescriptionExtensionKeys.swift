// Format description extension keys and values, with the strings Apple's Core Media uses.
// Keys shared with CVImageBuffer attachments have the CV attachment key's string.

/// A human-readable name of the format.
public let kCMFormatDescriptionExtension_FormatName: CFString = "FormatName"
/// Pixel depth (e.g. 24 or 32).
public let kCMFormatDescriptionExtension_Depth: CFString = "Depth"
/// 1 for progressive, 2 for interlaced video.
public let kCMFormatDescriptionExtension_FieldCount: CFString = "CVFieldCount"
/// Field order of interlaced video.
public let kCMFormatDescriptionExtension_FieldDetail: CFString = "CVFieldDetail"
/// Pixel aspect ratio: a dictionary of HorizontalSpacing and VerticalSpacing.
public let kCMFormatDescriptionExtension_PixelAspectRatio: CFString = "CVPixelAspectRatio"
/// The clean aperture: a dictionary of Width, Height, HorizontalOffset, VerticalOffset.
public let kCMFormatDescriptionExtension_CleanAperture: CFString = "CVCleanAperture"
/// The colour primaries.
public let kCMFormatDescriptionExtension_ColorPrimaries: CFString = "CVImageBufferColorPrimaries"
/// The transfer function.
public let kCMFormatDescriptionExtension_TransferFunction: CFString = "CVImageBufferTransferFunction"
/// The gamma level, with the UseGamma transfer function.
public let kCMFormatDescriptionExtension_GammaLevel: CFString = "CVImageBufferGammaLevel"
/// The Y'CbCr to RGB conversion matrix.
public let kCMFormatDescriptionExtension_YCbCrMatrix: CFString = "CVImageBufferYCbCrMatrix"
/// Chroma siting of the top field (or frame).
public let kCMFormatDescriptionExtension_ChromaLocationTopField: CFString = "CVImageBufferChromaLocationTopField"
/// Chroma siting of the bottom field.
public let kCMFormatDescriptionExtension_ChromaLocationBottomField: CFString = "CVImageBufferChromaLocationBottomField"
/// An ICC profile (Data).
public let kCMFormatDescriptionExtension_ICCProfile: CFString = "CVImageBufferICCProfile"
/// SMPTE ST 2086 mastering display colour volume (24 bytes of Data).
public let kCMFormatDescriptionExtension_MasteringDisplayColorVolume: CFString = "MasteringDisplayColorVolume"
/// CEA-861.3 content light level information (4 bytes of Data).
public let kCMFormatDescriptionExtension_ContentLightLevelInfo: CFString = "ContentLightLevelInfo"
/// True when Y'CbCr uses the full 0–255 range.
public let kCMFormatDescriptionExtension_FullRangeVideo: CFString = "FullRangeVideo"
/// Extra sample description atoms by four-character key, e.g. "avcC" or "hvcC" codec configuration as Data.
public let kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms: CFString = "SampleDescriptionExtensionAtoms"
/// The QuickTime sample description this format came from, verbatim (Data).
public let kCMFormatDescriptionExtension_VerbatimSampleDescription: CFString = "VerbatimSampleDescription"
/// The ISO sample entry this format came from, verbatim (Data).
public let kCMFormatDescriptionExtension_VerbatimISOSampleEntry: CFString = "VerbatimISOSampleEntry"
/// The vendor code (e.g. 'appl') of the encoder.
public let kCMFormatDescriptionExtension_Vendor: CFString = "Vendor"
/// The version of the encoder.
public let kCMFormatDescriptionExtension_Version: CFString = "Version"
/// The revision level of the encoder.
public let kCMFormatDescriptionExtension_RevisionLevel: CFString = "RevisionLevel"
/// Spatial quality of the encoding (0–1024).
public let kCMFormatDescriptionExtension_SpatialQuality: CFString = "SpatialQuality"
/// Temporal quality of the encoding (0–1024).
public let kCMFormatDescriptionExtension_TemporalQuality: CFString = "TemporalQuality"
/// Bytes per row of uncompressed video.
public let kCMFormatDescriptionExtension_BytesPerRow: CFString = "CVBytesPerRow"
/// The compression settings the media was made with.
public let kCMFormatDescriptionExtension_OriginalCompressionSettings: CFString = "OriginalCompressionSettings"
/// The MPEG-2 video profile the stream conforms to.
public let kCMFormatDescriptionExtension_ConformsToMPEG2VideoProfile: CFString = "ConformsToMPEG2VideoProfile"
/// Whether alpha is straight or premultiplied.
public let kCMFormatDescriptionExtension_AlphaChannelMode: CFString = "AlphaChannelMode"
/// Whether the video has an alpha channel.
public let kCMFormatDescriptionExtension_ContainsAlphaChannel: CFString = "ContainsAlphaChannel"
/// Bits per colour component.
public let kCMFormatDescriptionExtension_BitsPerComponent: CFString = "BitsPerComponent"

/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: Width.
public let kCMFormatDescriptionKey_CleanApertureWidth: CFString = "Width"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: Height.
public let kCMFormatDescriptionKey_CleanApertureHeight: CFString = "Height"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HorizontalOffset.
public let kCMFormatDescriptionKey_CleanApertureHorizontalOffset: CFString = "HorizontalOffset"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: VerticalOffset.
public let kCMFormatDescriptionKey_CleanApertureVerticalOffset: CFString = "VerticalOffset"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: WidthRational.
public let kCMFormatDescriptionKey_CleanApertureWidthRational: CFString = "WidthRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HeightRational.
public let kCMFormatDescriptionKey_CleanApertureHeightRational: CFString = "HeightRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HorizontalOffsetRational.
public let kCMFormatDescriptionKey_CleanApertureHorizontalOffsetRational: CFString = "HorizontalOffsetRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: VerticalOffsetRational.
public let kCMFormatDescriptionKey_CleanApertureVerticalOffsetRational: CFString = "VerticalOffsetRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HorizontalSpacing.
public let kCMFormatDescriptionKey_PixelAspectRatioHorizontalSpacing: CFString = "HorizontalSpacing"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: VerticalSpacing.
public let kCMFormatDescriptionKey_PixelAspectRatioVerticalSpacing: CFString = "VerticalSpacing"

/// FieldDetail value TemporalTopFirst.
public let kCMFormatDescriptionFieldDetail_TemporalTopFirst: CFString = "TemporalTopFirst"
/// FieldDetail value TemporalBottomFirst.
public let kCMFormatDescriptionFieldDetail_TemporalBottomFirst: CFString = "TemporalBottomFirst"
/// FieldDetail value SpatialFirstLineEarly.
public let kCMFormatDescriptionFieldDetail_SpatialFirstLineEarly: CFString = "SpatialFirstLineEarly"
/// FieldDetail value SpatialFirstLineLate.
public let kCMFormatDescriptionFieldDetail_SpatialFirstLineLate: CFString = "SpatialFirstLineLate"
/// ColorPrimaries value ITU_R_709_2.
public let kCMFormatDescriptionColorPrimaries_ITU_R_709_2: CFString = "ITU_R_709_2"
/// ColorPrimaries value EBU_3213.
public let kCMFormatDescriptionColorPrimaries_EBU_3213: CFString = "EBU_3213"
/// ColorPrimaries value SMPTE_C.
public let kCMFormatDescriptionColorPrimaries_SMPTE_C: CFString = "SMPTE_C"
/// ColorPrimaries value DCI_P3.
public let kCMFormatDescriptionColorPrimaries_DCI_P3: CFString = "DCI_P3"
/// ColorPrimaries value P3_D65.
public let kCMFormatDescriptionColorPrimaries_P3_D65: CFString = "P3_D65"
/// ColorPrimaries value ITU_R_2020.
public let kCMFormatDescriptionColorPrimaries_ITU_R_2020: CFString = "ITU_R_2020"
/// ColorPrimaries value P22.
public let kCMFormatDescriptionColorPrimaries_P22: CFString = "P22"
/// TransferFunction value ITU_R_709_2.
public let kCMFormatDescriptionTransferFunction_ITU_R_709_2: CFString = "ITU_R_709_2"
/// TransferFunction value SMPTE_240M_1995.
public let kCMFormatDescriptionTransferFunction_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// TransferFunction value UseGamma.
public let kCMFormatDescriptionTransferFunction_UseGamma: CFString = "UseGamma"
/// TransferFunction value ITU_R_2020.
public let kCMFormatDescriptionTransferFunction_ITU_R_2020: CFString = "ITU_R_2020"
/// TransferFunction value SMPTE_ST_428_1.
public let kCMFormatDescriptionTransferFunction_SMPTE_ST_428_1: CFString = "SMPTE_ST_428_1"
/// TransferFunction value SMPTE_ST_2084_PQ.
public let kCMFormatDescriptionTransferFunction_SMPTE_ST_2084_PQ: CFString = "SMPTE_ST_2084_PQ"
/// TransferFunction value ITU_R_2100_HLG.
public let kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG: CFString = "ITU_R_2100_HLG"
/// TransferFunction value Linear.
public let kCMFormatDescriptionTransferFunction_Linear: CFString = "Linear"
/// YCbCrMatrix value ITU_R_709_2.
public let kCMFormatDescriptionYCbCrMatrix_ITU_R_709_2: CFString = "ITU_R_709_2"
/// YCbCrMatrix value ITU_R_601_4.
public let kCMFormatDescriptionYCbCrMatrix_ITU_R_601_4: CFString = "ITU_R_601_4"
/// YCbCrMatrix value SMPTE_240M_1995.
public let kCMFormatDescriptionYCbCrMatrix_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// YCbCrMatrix value ITU_R_2020.
public let kCMFormatDescriptionYCbCrMatrix_ITU_R_2020: CFString = "ITU_R_2020"
/// ChromaLocation value Left.
public let kCMFormatDescriptionChromaLocation_Left: CFString = "Left"
/// ChromaLocation value Center.
public let kCMFormatDescriptionChromaLocation_Center: CFString = "Center"
/// ChromaLocation value TopLeft.
public let kCMFormatDescriptionChromaLocation_TopLeft: CFString = "TopLeft"
/// ChromaLocation value Top.
public let kCMFormatDescriptionChromaLocation_Top: CFString = "Top"
/// ChromaLocation value BottomLeft.
public let kCMFormatDescriptionChromaLocation_BottomLeft: CFString = "BottomLeft"
/// ChromaLocation value Bottom.
public let kCMFormatDescriptionChromaLocation_Bottom: CFString = "Bottom"
/// TransferFunction value for sRGB.
public let kCMFormatDescriptionTransferFunction_sRGB: CFString = "IEC_sRGB"
/// ChromaLocation value for DV 4:2:0 siting.
public let kCMFormatDescriptionChromaLocation_DV420: CFString = "DV 4:2:0"
/// Vendor value for Apple.
public let kCMFormatDescriptionVendor_Apple: CFString = "appl"

