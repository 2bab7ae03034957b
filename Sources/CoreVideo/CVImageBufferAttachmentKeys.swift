// Image buffer attachment keys and values (kCVImageBuffer*), with the strings Apple's CoreVideo
// exports, so dictionaries exchanged with ported code and files match Apple's.

/// Attachment key: the buffer's colour space (a `CGColorSpace`).
public let kCVImageBufferCGColorSpaceKey: CFString = "CGColorSpace"
/// Attachment key: the clean aperture (a dictionary of Width, Height, HorizontalOffset, VerticalOffset).
public let kCVImageBufferCleanApertureKey: CFString = "CVCleanAperture"
/// Clean aperture key: width in pixels (a number).
public let kCVImageBufferCleanApertureWidthKey: CFString = "Width"
/// Clean aperture key: height in pixels (a number).
public let kCVImageBufferCleanApertureHeightKey: CFString = "Height"
/// Clean aperture key: horizontal offset of the aperture's centre from the image's centre (a number).
public let kCVImageBufferCleanApertureHorizontalOffsetKey: CFString = "HorizontalOffset"
/// Clean aperture key: vertical offset of the aperture's centre from the image's centre (a number).
public let kCVImageBufferCleanApertureVerticalOffsetKey: CFString = "VerticalOffset"
/// Attachment key: the preferred clean aperture (same dictionary form as the clean aperture).
public let kCVImageBufferPreferredCleanApertureKey: CFString = "CVPreferredCleanAperture"
/// Attachment key: the number of fields (a number, 1 or 2).
public let kCVImageBufferFieldCountKey: CFString = "CVFieldCount"
/// Attachment key: the field order of interlaced content (one of the FieldDetail values).
public let kCVImageBufferFieldDetailKey: CFString = "CVFieldDetail"
/// Field detail: fields are in temporal order, top field first.
public let kCVImageBufferFieldDetailTemporalTopFirst: CFString = "TemporalTopFirst"
/// Field detail: fields are in temporal order, bottom field first.
public let kCVImageBufferFieldDetailTemporalBottomFirst: CFString = "TemporalBottomFirst"
/// Field detail: fields are in spatial order, first line early.
public let kCVImageBufferFieldDetailSpatialFirstLineEarly: CFString = "SpatialFirstLineEarly"
/// Field detail: fields are in spatial order, first line late.
public let kCVImageBufferFieldDetailSpatialFirstLineLate: CFString = "SpatialFirstLineLate"
/// Attachment key: the pixel aspect ratio (a dictionary of HorizontalSpacing and VerticalSpacing).
public let kCVImageBufferPixelAspectRatioKey: CFString = "CVPixelAspectRatio"
/// Pixel aspect ratio key: horizontal spacing (a number).
public let kCVImageBufferPixelAspectRatioHorizontalSpacingKey: CFString = "HorizontalSpacing"
/// Pixel aspect ratio key: vertical spacing (a number).
public let kCVImageBufferPixelAspectRatioVerticalSpacingKey: CFString = "VerticalSpacing"
/// Attachment key: the display dimensions (a dictionary of Width and Height).
public let kCVImageBufferDisplayDimensionsKey: CFString = "CVDisplayDimensions"
/// Display dimensions key: display width (a number).
public let kCVImageBufferDisplayWidthKey: CFString = "Width"
/// Display dimensions key: display height (a number).
public let kCVImageBufferDisplayHeightKey: CFString = "Height"
/// Attachment key: the gamma level, used with kCVImageBufferTransferFunction_UseGamma (a number).
public let kCVImageBufferGammaLevelKey: CFString = "CVImageBufferGammaLevel"
/// Attachment key: an ICC profile (data).
public let kCVImageBufferICCProfileKey: CFString = "CVImageBufferICCProfile"
/// Attachment key: the Y'CbCr to RGB conversion matrix (one of the YCbCrMatrix values).
public let kCVImageBufferYCbCrMatrixKey: CFString = "CVImageBufferYCbCrMatrix"
/// Y'CbCr matrix: ITU-R BT.709-2.
public let kCVImageBufferYCbCrMatrix_ITU_R_709_2: CFString = "ITU_R_709_2"
/// Y'CbCr matrix: ITU-R BT.601-4.
public let kCVImageBufferYCbCrMatrix_ITU_R_601_4: CFString = "ITU_R_601_4"
/// Y'CbCr matrix: SMPTE 240M-1995.
public let kCVImageBufferYCbCrMatrix_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// Y'CbCr matrix: ITU-R BT.2020.
public let kCVImageBufferYCbCrMatrix_ITU_R_2020: CFString = "ITU_R_2020"
/// Y'CbCr matrix: DCI P3.
public let kCVImageBufferYCbCrMatrix_DCI_P3: CFString = "DCI_P3"
/// Y'CbCr matrix: P3 D65.
public let kCVImageBufferYCbCrMatrix_P3_D65: CFString = "P3_D65"
/// Attachment key: the colour primaries (one of the ColorPrimaries values).
public let kCVImageBufferColorPrimariesKey: CFString = "CVImageBufferColorPrimaries"
/// Colour primaries: ITU-R BT.709-2.
public let kCVImageBufferColorPrimaries_ITU_R_709_2: CFString = "ITU_R_709_2"
/// Colour primaries: EBU 3213 (PAL).
public let kCVImageBufferColorPrimaries_EBU_3213: CFString = "EBU_3213"
/// Colour primaries: SMPTE C (NTSC).
public let kCVImageBufferColorPrimaries_SMPTE_C: CFString = "SMPTE_C"
/// Colour primaries: P22 phosphors.
public let kCVImageBufferColorPrimaries_P22: CFString = "P22"
/// Colour primaries: DCI P3.
public let kCVImageBufferColorPrimaries_DCI_P3: CFString = "DCI_P3"
/// Colour primaries: P3 with a D65 white point.
public let kCVImageBufferColorPrimaries_P3_D65: CFString = "P3_D65"
/// Colour primaries: ITU-R BT.2020.
public let kCVImageBufferColorPrimaries_ITU_R_2020: CFString = "ITU_R_2020"
/// Attachment key: the transfer function (one of the TransferFunction values).
public let kCVImageBufferTransferFunctionKey: CFString = "CVImageBufferTransferFunction"
/// Transfer function: ITU-R BT.709-2.
public let kCVImageBufferTransferFunction_ITU_R_709_2: CFString = "ITU_R_709_2"
/// Transfer function: SMPTE 240M-1995.
public let kCVImageBufferTransferFunction_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// Transfer function: a pure gamma given by kCVImageBufferGammaLevelKey.
public let kCVImageBufferTransferFunction_UseGamma: CFString = "UseGamma"
/// Transfer function: ITU-R BT.2020 (same curve as BT.709).
public let kCVImageBufferTransferFunction_ITU_R_2020: CFString = "ITU_R_2020"
/// Transfer function: SMPTE ST 428-1.
public let kCVImageBufferTransferFunction_SMPTE_ST_428_1: CFString = "SMPTE_ST_428_1"
/// Transfer function: SMPTE ST 2084 (PQ).
public let kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ: CFString = "SMPTE_ST_2084_PQ"
/// Transfer function: ITU-R BT.2100 hybrid log-gamma.
public let kCVImageBufferTransferFunction_ITU_R_2100_HLG: CFString = "ITU_R_2100_HLG"
/// Transfer function: linear.
public let kCVImageBufferTransferFunction_Linear: CFString = "Linear"
/// Transfer function: IEC 61966-2-1 sRGB.
public let kCVImageBufferTransferFunction_sRGB: CFString = "IEC_sRGB"
/// Attachment key: chroma siting of the top field (one of the ChromaLocation values).
public let kCVImageBufferChromaLocationTopFieldKey: CFString = "CVImageBufferChromaLocationTopField"
/// Attachment key: chroma siting of the bottom field (one of the ChromaLocation values).
public let kCVImageBufferChromaLocationBottomFieldKey: CFString = "CVImageBufferChromaLocationBottomField"
/// Chroma location: left (MPEG-2 / H.264 default).
public let kCVImageBufferChromaLocation_Left: CFString = "Left"
/// Chroma location: centre (MPEG-1 / JPEG).
public let kCVImageBufferChromaLocation_Center: CFString = "Center"
/// Chroma location: top left (co-sited).
public let kCVImageBufferChromaLocation_TopLeft: CFString = "TopLeft"
/// Chroma location: top.
public let kCVImageBufferChromaLocation_Top: CFString = "Top"
/// Chroma location: bottom left.
public let kCVImageBufferChromaLocation_BottomLeft: CFString = "BottomLeft"
/// Chroma location: bottom.
public let kCVImageBufferChromaLocation_Bottom: CFString = "Bottom"
/// Chroma location: DV 4:2:0 (Cb and Cr on alternate lines).
public let kCVImageBufferChromaLocation_DV420: CFString = "DV 4:2:0"
/// Attachment key: the chroma subsampling of the source (one of the ChromaSubsampling values).
public let kCVImageBufferChromaSubsamplingKey: CFString = "CVImageBufferChromaSubsampling"
/// Chroma subsampling 4:2:0.
public let kCVImageBufferChromaSubsampling_420: CFString = "4:2:0"
/// Chroma subsampling 4:2:2.
public let kCVImageBufferChromaSubsampling_422: CFString = "4:2:2"
/// Chroma subsampling 4:1:1.
public let kCVImageBufferChromaSubsampling_411: CFString = "4:1:1"
/// Attachment key: whether the alpha channel is fully opaque (a Boolean).
public let kCVImageBufferAlphaChannelIsOpaque: CFString = "AlphaChannelIsOpaque"
