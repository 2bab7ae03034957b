// Video Toolbox's compression property keys and values, with Apple's raw strings. Apple code
// passes them in AVAssetWriterInput's AVVideoCompressionPropertiesKey dictionary (most have an
// AVVideo…Key twin with the same string); the writer honours them where FFmpeg's encoders can
// (see docs/COMPATIBILITY.md, AVAssetWriterInput).

// MARK: Compression property keys

/// The number of frames the encoder holds (read-only).
nonisolated(unsafe) public let kVTCompressionPropertyKey_NumberOfPendingFrames: CFString = "NumberOfPendingFrames"
/// The most frames from one keyframe to the next (1: every frame is a keyframe).
nonisolated(unsafe) public let kVTCompressionPropertyKey_MaxKeyFrameInterval: CFString = "MaxKeyFrameInterval"
/// The longest time in seconds from one keyframe to the next.
nonisolated(unsafe) public let kVTCompressionPropertyKey_MaxKeyFrameIntervalDuration: CFString = "MaxKeyFrameIntervalDuration"
/// Whether frames may depend on other frames (false: every frame is a keyframe).
nonisolated(unsafe) public let kVTCompressionPropertyKey_AllowTemporalCompression: CFString = "AllowTemporalCompression"
/// Whether frames may be reordered (B-frames).
nonisolated(unsafe) public let kVTCompressionPropertyKey_AllowFrameReordering: CFString = "AllowFrameReordering"
/// Whether open groups of pictures are allowed.
nonisolated(unsafe) public let kVTCompressionPropertyKey_AllowOpenGOP: CFString = "AllowOpenGOP"
/// Long-term average bit rate in bits per second.
nonisolated(unsafe) public let kVTCompressionPropertyKey_AverageBitRate: CFString = "AverageBitRate"
/// Hard limits on the data rate: an array of byte counts and durations in seconds, in pairs.
nonisolated(unsafe) public let kVTCompressionPropertyKey_DataRateLimits: CFString = "DataRateLimits"
/// Quality from 0.0 (lowest) to 1.0 (highest).
nonisolated(unsafe) public let kVTCompressionPropertyKey_Quality: CFString = "Quality"
/// A constant bit rate in bits per second.
nonisolated(unsafe) public let kVTCompressionPropertyKey_ConstantBitRate: CFString = "ConstantBitRate"
/// The profile and level of the encoded bitstream (a `kVTProfileLevel_…` value).
nonisolated(unsafe) public let kVTCompressionPropertyKey_ProfileLevel: CFString = "ProfileLevel"
/// The H.264 entropy coder (`kVTH264EntropyMode_CAVLC` or `kVTH264EntropyMode_CABAC`).
nonisolated(unsafe) public let kVTCompressionPropertyKey_H264EntropyMode: CFString = "H264EntropyMode"
/// The pixel depth of the encoded video.
nonisolated(unsafe) public let kVTCompressionPropertyKey_Depth: CFString = "Depth"
/// The most frames the encoder may hold before it emits one.
nonisolated(unsafe) public let kVTCompressionPropertyKey_MaxFrameDelayCount: CFString = "MaxFrameDelayCount"
/// The largest H.264 slice in bytes.
nonisolated(unsafe) public let kVTCompressionPropertyKey_MaxH264SliceBytes: CFString = "MaxH264SliceBytes"
/// Whether encoding runs in real time (favours speed).
nonisolated(unsafe) public let kVTCompressionPropertyKey_RealTime: CFString = "RealTime"
/// Whether the encoder favours power efficiency.
nonisolated(unsafe) public let kVTCompressionPropertyKey_MaximizePowerEfficiency: CFString = "MaximizePowerEfficiency"
/// Whether the encoder favours speed over quality.
nonisolated(unsafe) public let kVTCompressionPropertyKey_PrioritizeEncodingSpeedOverQuality: CFString = "PrioritizeEncodingSpeedOverQuality"
/// The number of source frames, when known.
nonisolated(unsafe) public let kVTCompressionPropertyKey_SourceFrameCount: CFString = "SourceFrameCount"
/// The expected frame rate of the source, in frames per second.
nonisolated(unsafe) public let kVTCompressionPropertyKey_ExpectedFrameRate: CFString = "ExpectedFrameRate"
/// The fraction of frames in the base temporal layer.
nonisolated(unsafe) public let kVTCompressionPropertyKey_BaseLayerFrameRateFraction: CFString = "BaseLayerFrameRateFraction"
/// The expected duration of the source, in seconds.
nonisolated(unsafe) public let kVTCompressionPropertyKey_ExpectedDuration: CFString = "ExpectedDuration"
/// The clean aperture of the encoded video.
nonisolated(unsafe) public let kVTCompressionPropertyKey_CleanAperture: CFString = "CleanAperture"
/// The pixel aspect ratio of the encoded video.
nonisolated(unsafe) public let kVTCompressionPropertyKey_PixelAspectRatio: CFString = "PixelAspectRatio"
/// The number of fields per frame.
nonisolated(unsafe) public let kVTCompressionPropertyKey_FieldCount: CFString = "FieldCount"
/// The field order of interlaced video.
nonisolated(unsafe) public let kVTCompressionPropertyKey_FieldDetail: CFString = "FieldDetail"
/// The colour primaries the encoded video is tagged with.
nonisolated(unsafe) public let kVTCompressionPropertyKey_ColorPrimaries: CFString = "ColorPrimaries"
/// The transfer function the encoded video is tagged with.
nonisolated(unsafe) public let kVTCompressionPropertyKey_TransferFunction: CFString = "TransferFunction"
/// The Y'CbCr matrix the encoded video is tagged with.
nonisolated(unsafe) public let kVTCompressionPropertyKey_YCbCrMatrix: CFString = "YCbCrMatrix"
/// The ICC profile the encoded video is tagged with.
nonisolated(unsafe) public let kVTCompressionPropertyKey_ICCProfile: CFString = "ICCProfile"
/// The gamma level the encoded video is tagged with.
nonisolated(unsafe) public let kVTCompressionPropertyKey_GammaLevel: CFString = "GammaLevel"
/// SMPTE ST 2086 mastering display colour volume (24 bytes, big-endian).
nonisolated(unsafe) public let kVTCompressionPropertyKey_MasteringDisplayColorVolume: CFString = "MasteringDisplayColorVolume"
/// CEA-861.3 content light level information (4 bytes, big-endian).
nonisolated(unsafe) public let kVTCompressionPropertyKey_ContentLightLevelInfo: CFString = "ContentLightLevelInfo"
/// Whether HDR metadata is written into the bitstream (`kVTHDRMetadataInsertionMode_…`).
nonisolated(unsafe) public let kVTCompressionPropertyKey_HDRMetadataInsertionMode: CFString = "HDRMetadataInsertionMode"
/// The lowest quantisation parameter a frame may use.
nonisolated(unsafe) public let kVTCompressionPropertyKey_MinAllowedFrameQP: CFString = "MinAllowedFrameQP"
/// The highest quantisation parameter a frame may use.
nonisolated(unsafe) public let kVTCompressionPropertyKey_MaxAllowedFrameQP: CFString = "MaxAllowedFrameQP"
/// The quality of the alpha channel (HEVC with alpha).
nonisolated(unsafe) public let kVTCompressionPropertyKey_TargetQualityForAlpha: CFString = "TargetQualityForAlpha"
/// The highest frame rate the encoder must keep up with in real time.
nonisolated(unsafe) public let kVTCompressionPropertyKey_MaximumRealTimeFrameRate: CFString = "MaximumRealTimeFrameRate"
/// Whether a hardware encoder is in use (read-only).
nonisolated(unsafe) public let kVTCompressionPropertyKey_UsingHardwareAcceleratedVideoEncoder: CFString = "UsingHardwareAcceleratedVideoEncoder"
/// The number of reference frames the encoder may keep.
nonisolated(unsafe) public let kVTCompressionPropertyKey_ReferenceBufferCount: CFString = "ReferenceBufferCount"
/// How much the quantiser adapts across the picture.
nonisolated(unsafe) public let kVTCompressionPropertyKey_SpatialAdaptiveQPLevel: CFString = "SpatialAdaptiveQPLevel"
/// Whether dynamic HDR metadata of the source is carried over.
nonisolated(unsafe) public let kVTCompressionPropertyKey_PreserveDynamicHDRMetadata: CFString = "PreserveDynamicHDRMetadata"
/// How alpha is stored (HEVC with alpha).
nonisolated(unsafe) public let kVTCompressionPropertyKey_AlphaChannelMode: CFString = "AlphaChannelMode"
/// A variable bit rate in bits per second.
nonisolated(unsafe) public let kVTCompressionPropertyKey_VariableBitRate: CFString = "VariableBitRate"
/// The peak bit rate of the video buffering verifier, in bits per second.
nonisolated(unsafe) public let kVTCompressionPropertyKey_VBVMaxBitRate: CFString = "VBVMaxBitRate"
/// The duration the video buffering verifier's buffer holds, in seconds.
nonisolated(unsafe) public let kVTCompressionPropertyKey_VBVBufferDuration: CFString = "VBVBufferDuration"

// MARK: H.264 entropy modes

/// Context-adaptive variable-length coding.
nonisolated(unsafe) public let kVTH264EntropyMode_CAVLC: CFString = "CAVLC"
/// Context-adaptive binary arithmetic coding.
nonisolated(unsafe) public let kVTH264EntropyMode_CABAC: CFString = "CABAC"

// MARK: HDR metadata insertion

/// No HDR metadata in the bitstream.
nonisolated(unsafe) public let kVTHDRMetadataInsertionMode_None: CFString = "None"
/// HDR metadata in the bitstream when the colour tags call for it.
nonisolated(unsafe) public let kVTHDRMetadataInsertionMode_Auto: CFString = "Auto"
/// As `Auto`, asking the encoder to keep SDR range in the metadata it generates.
nonisolated(unsafe) public let kVTHDRMetadataInsertionMode_RequestSDRRangePreservation: CFString = "RequestSDRRangePreservation"

// MARK: Profiles and levels

/// H.264 Baseline profile, level 1.3.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_1_3: CFString = "H264_Baseline_1_3"
/// H.264 Baseline profile, level 3.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_3_0: CFString = "H264_Baseline_3_0"
/// H.264 Baseline profile, level 3.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_3_1: CFString = "H264_Baseline_3_1"
/// H.264 Baseline profile, level 3.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_3_2: CFString = "H264_Baseline_3_2"
/// H.264 Baseline profile, level 4.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_4_0: CFString = "H264_Baseline_4_0"
/// H.264 Baseline profile, level 4.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_4_1: CFString = "H264_Baseline_4_1"
/// H.264 Baseline profile, level 4.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_4_2: CFString = "H264_Baseline_4_2"
/// H.264 Baseline profile, level 5.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_5_0: CFString = "H264_Baseline_5_0"
/// H.264 Baseline profile, level 5.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_5_1: CFString = "H264_Baseline_5_1"
/// H.264 Baseline profile, level 5.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_5_2: CFString = "H264_Baseline_5_2"
/// H.264 Baseline profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_H264_Baseline_AutoLevel: CFString = "H264_Baseline_AutoLevel"
/// H.264 Main profile, level 3.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_3_0: CFString = "H264_Main_3_0"
/// H.264 Main profile, level 3.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_3_1: CFString = "H264_Main_3_1"
/// H.264 Main profile, level 3.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_3_2: CFString = "H264_Main_3_2"
/// H.264 Main profile, level 4.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_4_0: CFString = "H264_Main_4_0"
/// H.264 Main profile, level 4.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_4_1: CFString = "H264_Main_4_1"
/// H.264 Main profile, level 4.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_4_2: CFString = "H264_Main_4_2"
/// H.264 Main profile, level 5.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_5_0: CFString = "H264_Main_5_0"
/// H.264 Main profile, level 5.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_5_1: CFString = "H264_Main_5_1"
/// H.264 Main profile, level 5.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_5_2: CFString = "H264_Main_5_2"
/// H.264 Main profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_H264_Main_AutoLevel: CFString = "H264_Main_AutoLevel"
/// H.264 Extended profile, level 5.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_Extended_5_0: CFString = "H264_Extended_5_0"
/// H.264 Extended profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_H264_Extended_AutoLevel: CFString = "H264_Extended_AutoLevel"
/// H.264 High profile, level 3.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_3_0: CFString = "H264_High_3_0"
/// H.264 High profile, level 3.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_3_1: CFString = "H264_High_3_1"
/// H.264 High profile, level 3.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_3_2: CFString = "H264_High_3_2"
/// H.264 High profile, level 4.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_4_0: CFString = "H264_High_4_0"
/// H.264 High profile, level 4.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_4_1: CFString = "H264_High_4_1"
/// H.264 High profile, level 4.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_4_2: CFString = "H264_High_4_2"
/// H.264 High profile, level 5.0.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_5_0: CFString = "H264_High_5_0"
/// H.264 High profile, level 5.1.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_5_1: CFString = "H264_High_5_1"
/// H.264 High profile, level 5.2.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_5_2: CFString = "H264_High_5_2"
/// H.264 High profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_H264_High_AutoLevel: CFString = "H264_High_AutoLevel"
/// H.264 Constrained Baseline profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_H264_ConstrainedBaseline_AutoLevel: CFString = "H264_ConstrainedBaseline_AutoLevel"
/// H.264 Constrained High profile (High without B-frames), level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_H264_ConstrainedHigh_AutoLevel: CFString = "H264_ConstrainedHigh_AutoLevel"
/// HEVC Main profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_HEVC_Main_AutoLevel: CFString = "HEVC_Main_AutoLevel"
/// HEVC Main 10 profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_HEVC_Main10_AutoLevel: CFString = "HEVC_Main10_AutoLevel"
/// HEVC Main 4:2:2 10 profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_HEVC_Main42210_AutoLevel: CFString = "HEVC_Main42210_AutoLevel"
/// HEVC Monochrome profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_HEVC_Monochrome_AutoLevel: CFString = "HEVC_Monochrome_AutoLevel"
/// HEVC Monochrome 10 profile, level chosen by the encoder.
nonisolated(unsafe) public let kVTProfileLevel_HEVC_Monochrome10_AutoLevel: CFString = "HEVC_Monochrome10_AutoLevel"
