// Format description extension keys and values, with the strings Apple's Core Media uses.
// Keys shared with CVImageBuffer attachments have the CV attachment key's string.

/// A human-readable name of the format.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_FormatName: CFString = "FormatName"
/// Pixel depth (e.g. 24 or 32).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_Depth: CFString = "Depth"
/// 1 for progressive, 2 for interlaced video.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_FieldCount: CFString = "CVFieldCount"
/// Field order of interlaced video.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_FieldDetail: CFString = "CVFieldDetail"
/// Pixel aspect ratio: a dictionary of HorizontalSpacing and VerticalSpacing.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_PixelAspectRatio: CFString = "CVPixelAspectRatio"
/// The clean aperture: a dictionary of Width, Height, HorizontalOffset, VerticalOffset.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_CleanAperture: CFString = "CVCleanAperture"
/// The colour primaries.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ColorPrimaries: CFString = "CVImageBufferColorPrimaries"
/// The transfer function.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_TransferFunction: CFString = "CVImageBufferTransferFunction"
/// The gamma level, with the UseGamma transfer function.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_GammaLevel: CFString = "CVImageBufferGammaLevel"
/// The Y'CbCr to RGB conversion matrix.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_YCbCrMatrix: CFString = "CVImageBufferYCbCrMatrix"
/// Chroma siting of the top field (or frame).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ChromaLocationTopField: CFString = "CVImageBufferChromaLocationTopField"
/// Chroma siting of the bottom field.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ChromaLocationBottomField: CFString = "CVImageBufferChromaLocationBottomField"
/// An ICC profile (Data).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ICCProfile: CFString = "CVImageBufferICCProfile"
/// SMPTE ST 2086 mastering display colour volume (24 bytes of Data).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_MasteringDisplayColorVolume: CFString = "MasteringDisplayColorVolume"
/// CEA-861.3 content light level information (4 bytes of Data).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ContentLightLevelInfo: CFString = "ContentLightLevelInfo"
/// True when Y'CbCr uses the full 0–255 range.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_FullRangeVideo: CFString = "FullRangeVideo"
/// Extra sample description atoms by four-character key, e.g. "avcC" or "hvcC" codec configuration as Data.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms: CFString = "SampleDescriptionExtensionAtoms"
/// The QuickTime sample description this format came from, verbatim (Data).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_VerbatimSampleDescription: CFString = "VerbatimSampleDescription"
/// The ISO sample entry this format came from, verbatim (Data).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_VerbatimISOSampleEntry: CFString = "VerbatimISOSampleEntry"
/// The vendor code (e.g. 'appl') of the encoder.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_Vendor: CFString = "Vendor"
/// The version of the encoder.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_Version: CFString = "Version"
/// The revision level of the encoder.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_RevisionLevel: CFString = "RevisionLevel"
/// Spatial quality of the encoding (0–1024).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_SpatialQuality: CFString = "SpatialQuality"
/// Temporal quality of the encoding (0–1024).
nonisolated(unsafe) public let kCMFormatDescriptionExtension_TemporalQuality: CFString = "TemporalQuality"
/// Bytes per row of uncompressed video.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_BytesPerRow: CFString = "CVBytesPerRow"
/// The compression settings the media was made with.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_OriginalCompressionSettings: CFString = "OriginalCompressionSettings"
/// The MPEG-2 video profile the stream conforms to.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ConformsToMPEG2VideoProfile: CFString = "ConformsToMPEG2VideoProfile"
/// Whether alpha is straight or premultiplied.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_AlphaChannelMode: CFString = "AlphaChannelMode"
/// Whether the video has an alpha channel.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ContainsAlphaChannel: CFString = "ContainsAlphaChannel"
/// Bits per colour component.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_BitsPerComponent: CFString = "BitsPerComponent"

/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: Width.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureWidth: CFString = "Width"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: Height.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureHeight: CFString = "Height"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HorizontalOffset.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureHorizontalOffset: CFString = "HorizontalOffset"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: VerticalOffset.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureVerticalOffset: CFString = "VerticalOffset"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: WidthRational.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureWidthRational: CFString = "WidthRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HeightRational.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureHeightRational: CFString = "HeightRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HorizontalOffsetRational.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureHorizontalOffsetRational: CFString = "HorizontalOffsetRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: VerticalOffsetRational.
nonisolated(unsafe) public let kCMFormatDescriptionKey_CleanApertureVerticalOffsetRational: CFString = "VerticalOffsetRational"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: HorizontalSpacing.
nonisolated(unsafe) public let kCMFormatDescriptionKey_PixelAspectRatioHorizontalSpacing: CFString = "HorizontalSpacing"
/// Sub-key of a clean-aperture or pixel-aspect-ratio dictionary: VerticalSpacing.
nonisolated(unsafe) public let kCMFormatDescriptionKey_PixelAspectRatioVerticalSpacing: CFString = "VerticalSpacing"

/// FieldDetail value TemporalTopFirst.
nonisolated(unsafe) public let kCMFormatDescriptionFieldDetail_TemporalTopFirst: CFString = "TemporalTopFirst"
/// FieldDetail value TemporalBottomFirst.
nonisolated(unsafe) public let kCMFormatDescriptionFieldDetail_TemporalBottomFirst: CFString = "TemporalBottomFirst"
/// FieldDetail value SpatialFirstLineEarly.
nonisolated(unsafe) public let kCMFormatDescriptionFieldDetail_SpatialFirstLineEarly: CFString = "SpatialFirstLineEarly"
/// FieldDetail value SpatialFirstLineLate.
nonisolated(unsafe) public let kCMFormatDescriptionFieldDetail_SpatialFirstLineLate: CFString = "SpatialFirstLineLate"
/// ColorPrimaries value ITU_R_709_2.
nonisolated(unsafe) public let kCMFormatDescriptionColorPrimaries_ITU_R_709_2: CFString = "ITU_R_709_2"
/// ColorPrimaries value EBU_3213.
nonisolated(unsafe) public let kCMFormatDescriptionColorPrimaries_EBU_3213: CFString = "EBU_3213"
/// ColorPrimaries value SMPTE_C.
nonisolated(unsafe) public let kCMFormatDescriptionColorPrimaries_SMPTE_C: CFString = "SMPTE_C"
/// ColorPrimaries value DCI_P3.
nonisolated(unsafe) public let kCMFormatDescriptionColorPrimaries_DCI_P3: CFString = "DCI_P3"
/// ColorPrimaries value P3_D65.
nonisolated(unsafe) public let kCMFormatDescriptionColorPrimaries_P3_D65: CFString = "P3_D65"
/// ColorPrimaries value ITU_R_2020.
nonisolated(unsafe) public let kCMFormatDescriptionColorPrimaries_ITU_R_2020: CFString = "ITU_R_2020"
/// ColorPrimaries value P22.
nonisolated(unsafe) public let kCMFormatDescriptionColorPrimaries_P22: CFString = "P22"
/// TransferFunction value ITU_R_709_2.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_ITU_R_709_2: CFString = "ITU_R_709_2"
/// TransferFunction value SMPTE_240M_1995.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// TransferFunction value UseGamma.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_UseGamma: CFString = "UseGamma"
/// TransferFunction value ITU_R_2020.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_ITU_R_2020: CFString = "ITU_R_2020"
/// TransferFunction value SMPTE_ST_428_1.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_SMPTE_ST_428_1: CFString = "SMPTE_ST_428_1"
/// TransferFunction value SMPTE_ST_2084_PQ.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_SMPTE_ST_2084_PQ: CFString = "SMPTE_ST_2084_PQ"
/// TransferFunction value ITU_R_2100_HLG.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG: CFString = "ITU_R_2100_HLG"
/// TransferFunction value Linear.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_Linear: CFString = "Linear"
/// YCbCrMatrix value ITU_R_709_2.
nonisolated(unsafe) public let kCMFormatDescriptionYCbCrMatrix_ITU_R_709_2: CFString = "ITU_R_709_2"
/// YCbCrMatrix value ITU_R_601_4.
nonisolated(unsafe) public let kCMFormatDescriptionYCbCrMatrix_ITU_R_601_4: CFString = "ITU_R_601_4"
/// YCbCrMatrix value SMPTE_240M_1995.
nonisolated(unsafe) public let kCMFormatDescriptionYCbCrMatrix_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// YCbCrMatrix value ITU_R_2020.
nonisolated(unsafe) public let kCMFormatDescriptionYCbCrMatrix_ITU_R_2020: CFString = "ITU_R_2020"
/// ChromaLocation value Left.
nonisolated(unsafe) public let kCMFormatDescriptionChromaLocation_Left: CFString = "Left"
/// ChromaLocation value Center.
nonisolated(unsafe) public let kCMFormatDescriptionChromaLocation_Center: CFString = "Center"
/// ChromaLocation value TopLeft.
nonisolated(unsafe) public let kCMFormatDescriptionChromaLocation_TopLeft: CFString = "TopLeft"
/// ChromaLocation value Top.
nonisolated(unsafe) public let kCMFormatDescriptionChromaLocation_Top: CFString = "Top"
/// ChromaLocation value BottomLeft.
nonisolated(unsafe) public let kCMFormatDescriptionChromaLocation_BottomLeft: CFString = "BottomLeft"
/// ChromaLocation value Bottom.
nonisolated(unsafe) public let kCMFormatDescriptionChromaLocation_Bottom: CFString = "Bottom"
/// TransferFunction value for sRGB.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_sRGB: CFString = "IEC_sRGB"
/// ChromaLocation value for DV 4:2:0 siting.
nonisolated(unsafe) public let kCMFormatDescriptionChromaLocation_DV420: CFString = "DV 4:2:0"
/// Vendor value for Apple.
nonisolated(unsafe) public let kCMFormatDescriptionVendor_Apple: CFString = "appl"

