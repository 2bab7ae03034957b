// Image buffer attachment keys and values (kCVImageBuffer*), with the strings Apple's CoreVideo
// exports, so dictionaries exchanged with ported code and files match Apple's.

/// Attachment key: the buffer's colour space (a `CGColorSpace`).
nonisolated(unsafe) public let kCVImageBufferCGColorSpaceKey: CFString = "CGColorSpace"
/// Attachment key: the clean aperture (a dictionary of Width, Height, HorizontalOffset, VerticalOffset).
nonisolated(unsafe) public let kCVImageBufferCleanApertureKey: CFString = "CVCleanAperture"
/// Clean aperture key: width in pixels (a number).
nonisolated(unsafe) public let kCVImageBufferCleanApertureWidthKey: CFString = "Width"
/// Clean aperture key: height in pixels (a number).
nonisolated(unsafe) public let kCVImageBufferCleanApertureHeightKey: CFString = "Height"
/// Clean aperture key: horizontal offset of the aperture's centre from the image's centre (a number).
nonisolated(unsafe) public let kCVImageBufferCleanApertureHorizontalOffsetKey: CFString = "HorizontalOffset"
/// Clean aperture key: vertical offset of the aperture's centre from the image's centre (a number).
nonisolated(unsafe) public let kCVImageBufferCleanApertureVerticalOffsetKey: CFString = "VerticalOffset"
/// Attachment key: the preferred clean aperture (same dictionary form as the clean aperture).
nonisolated(unsafe) public let kCVImageBufferPreferredCleanApertureKey: CFString = "CVPreferredCleanAperture"
/// Attachment key: the number of fields (a number, 1 or 2).
nonisolated(unsafe) public let kCVImageBufferFieldCountKey: CFString = "CVFieldCount"
/// Attachment key: the field order of interlaced content (one of the FieldDetail values).
nonisolated(unsafe) public let kCVImageBufferFieldDetailKey: CFString = "CVFieldDetail"
/// Field detail: fields are in temporal order, top field first.
nonisolated(unsafe) public let kCVImageBufferFieldDetailTemporalTopFirst: CFString = "TemporalTopFirst"
/// Field detail: fields are in temporal order, bottom field first.
nonisolated(unsafe) public let kCVImageBufferFieldDetailTemporalBottomFirst: CFString = "TemporalBottomFirst"
/// Field detail: fields are in spatial order, first line early.
nonisolated(unsafe) public let kCVImageBufferFieldDetailSpatialFirstLineEarly: CFString = "SpatialFirstLineEarly"
/// Field detail: fields are in spatial order, first line late.
nonisolated(unsafe) public let kCVImageBufferFieldDetailSpatialFirstLineLate: CFString = "SpatialFirstLineLate"
/// Attachment key: the pixel aspect ratio (a dictionary of HorizontalSpacing and VerticalSpacing).
nonisolated(unsafe) public let kCVImageBufferPixelAspectRatioKey: CFString = "CVPixelAspectRatio"
/// Pixel aspect ratio key: horizontal spacing (a number).
nonisolated(unsafe) public let kCVImageBufferPixelAspectRatioHorizontalSpacingKey: CFString = "HorizontalSpacing"
/// Pixel aspect ratio key: vertical spacing (a number).
nonisolated(unsafe) public let kCVImageBufferPixelAspectRatioVerticalSpacingKey: CFString = "VerticalSpacing"
/// Attachment key: the display dimensions (a dictionary of Width and Height).
nonisolated(unsafe) public let kCVImageBufferDisplayDimensionsKey: CFString = "CVDisplayDimensions"
/// Display dimensions key: display width (a number).
nonisolated(unsafe) public let kCVImageBufferDisplayWidthKey: CFString = "Width"
/// Display dimensions key: display height (a number).
nonisolated(unsafe) public let kCVImageBufferDisplayHeightKey: CFString = "Height"
/// Attachment key: the gamma level, used with kCVImageBufferTransferFunction_UseGamma (a number).
nonisolated(unsafe) public let kCVImageBufferGammaLevelKey: CFString = "CVImageBufferGammaLevel"
/// Attachment key: an ICC profile (data).
nonisolated(unsafe) public let kCVImageBufferICCProfileKey: CFString = "CVImageBufferICCProfile"
/// Attachment key: the Y'CbCr to RGB conversion matrix (one of the YCbCrMatrix values).
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrixKey: CFString = "CVImageBufferYCbCrMatrix"
/// Y'CbCr matrix: ITU-R BT.709-2.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_ITU_R_709_2: CFString = "ITU_R_709_2"
/// Y'CbCr matrix: ITU-R BT.601-4.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_ITU_R_601_4: CFString = "ITU_R_601_4"
/// Y'CbCr matrix: SMPTE 240M-1995.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// Y'CbCr matrix: ITU-R BT.2020.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_ITU_R_2020: CFString = "ITU_R_2020"
/// Y'CbCr matrix: DCI P3.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_DCI_P3: CFString = "DCI_P3"
/// Y'CbCr matrix: P3 D65.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_P3_D65: CFString = "P3_D65"
/// Attachment key: the colour primaries (one of the ColorPrimaries values).
nonisolated(unsafe) public let kCVImageBufferColorPrimariesKey: CFString = "CVImageBufferColorPrimaries"
/// Colour primaries: ITU-R BT.709-2.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_ITU_R_709_2: CFString = "ITU_R_709_2"
/// Colour primaries: EBU 3213 (PAL).
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_EBU_3213: CFString = "EBU_3213"
/// Colour primaries: SMPTE C (NTSC).
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_SMPTE_C: CFString = "SMPTE_C"
/// Colour primaries: P22 phosphors.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_P22: CFString = "P22"
/// Colour primaries: DCI P3.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_DCI_P3: CFString = "DCI_P3"
/// Colour primaries: P3 with a D65 white point.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_P3_D65: CFString = "P3_D65"
/// Colour primaries: ITU-R BT.2020.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_ITU_R_2020: CFString = "ITU_R_2020"
/// Attachment key: the transfer function (one of the TransferFunction values).
nonisolated(unsafe) public let kCVImageBufferTransferFunctionKey: CFString = "CVImageBufferTransferFunction"
/// Transfer function: ITU-R BT.709-2.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_ITU_R_709_2: CFString = "ITU_R_709_2"
/// Transfer function: SMPTE 240M-1995.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// Transfer function: a pure gamma given by kCVImageBufferGammaLevelKey.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_UseGamma: CFString = "UseGamma"
/// Transfer function: ITU-R BT.2020 (same curve as BT.709).
nonisolated(unsafe) public let kCVImageBufferTransferFunction_ITU_R_2020: CFString = "ITU_R_2020"
/// Transfer function: SMPTE ST 428-1.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_SMPTE_ST_428_1: CFString = "SMPTE_ST_428_1"
/// Transfer function: SMPTE ST 2084 (PQ).
nonisolated(unsafe) public let kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ: CFString = "SMPTE_ST_2084_PQ"
/// Transfer function: ITU-R BT.2100 hybrid log-gamma.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_ITU_R_2100_HLG: CFString = "ITU_R_2100_HLG"
/// Transfer function: linear.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_Linear: CFString = "Linear"
/// Transfer function: IEC 61966-2-1 sRGB.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_sRGB: CFString = "IEC_sRGB"
/// Attachment key: chroma siting of the top field (one of the ChromaLocation values).
nonisolated(unsafe) public let kCVImageBufferChromaLocationTopFieldKey: CFString = "CVImageBufferChromaLocationTopField"
/// Attachment key: chroma siting of the bottom field (one of the ChromaLocation values).
nonisolated(unsafe) public let kCVImageBufferChromaLocationBottomFieldKey: CFString = "CVImageBufferChromaLocationBottomField"
/// Chroma location: left (MPEG-2 / H.264 default).
nonisolated(unsafe) public let kCVImageBufferChromaLocation_Left: CFString = "Left"
/// Chroma location: centre (MPEG-1 / JPEG).
nonisolated(unsafe) public let kCVImageBufferChromaLocation_Center: CFString = "Center"
/// Chroma location: top left (co-sited).
nonisolated(unsafe) public let kCVImageBufferChromaLocation_TopLeft: CFString = "TopLeft"
/// Chroma location: top.
nonisolated(unsafe) public let kCVImageBufferChromaLocation_Top: CFString = "Top"
/// Chroma location: bottom left.
nonisolated(unsafe) public let kCVImageBufferChromaLocation_BottomLeft: CFString = "BottomLeft"
/// Chroma location: bottom.
nonisolated(unsafe) public let kCVImageBufferChromaLocation_Bottom: CFString = "Bottom"
/// Chroma location: DV 4:2:0 (Cb and Cr on alternate lines).
nonisolated(unsafe) public let kCVImageBufferChromaLocation_DV420: CFString = "DV 4:2:0"
/// Attachment key: the chroma subsampling of the source (one of the ChromaSubsampling values).
nonisolated(unsafe) public let kCVImageBufferChromaSubsamplingKey: CFString = "CVImageBufferChromaSubsampling"
/// Chroma subsampling 4:2:0.
nonisolated(unsafe) public let kCVImageBufferChromaSubsampling_420: CFString = "4:2:0"
/// Chroma subsampling 4:2:2.
nonisolated(unsafe) public let kCVImageBufferChromaSubsampling_422: CFString = "4:2:2"
/// Chroma subsampling 4:1:1.
nonisolated(unsafe) public let kCVImageBufferChromaSubsampling_411: CFString = "4:1:1"
/// Attachment key: whether the alpha channel is fully opaque (a Boolean).
nonisolated(unsafe) public let kCVImageBufferAlphaChannelIsOpaque: CFString = "AlphaChannelIsOpaque"
