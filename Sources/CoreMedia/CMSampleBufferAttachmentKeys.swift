// Sample-level and buffer-level attachment keys, with the strings Apple's Core Media uses.

/// Per-sample: the sample is not a sync sample (CFBoolean).
nonisolated(unsafe) public let kCMSampleAttachmentKey_NotSync: CFString = "NotSync"
/// Per-sample: the sample is a partial sync sample.
nonisolated(unsafe) public let kCMSampleAttachmentKey_PartialSync: CFString = "PartialSync"
/// Per-sample: the sample has redundant coding.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HasRedundantCoding: CFString = "HasRedundantCoding"
/// Per-sample: other samples depend on this one.
nonisolated(unsafe) public let kCMSampleAttachmentKey_IsDependedOnByOthers: CFString = "IsDependedOnByOthers"
/// Per-sample: the sample depends on others.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DependsOnOthers: CFString = "DependsOnOthers"
/// Per-sample: following samples may have earlier display times.
nonisolated(unsafe) public let kCMSampleAttachmentKey_EarlierDisplayTimesAllowed: CFString = "EarlierDisplayTimesAllowed"
/// Per-sample: display the sample immediately.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DisplayImmediately: CFString = "DisplayImmediately"
/// Per-sample: decode but do not display the sample.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DoNotDisplay: CFString = "DoNotDisplay"
/// Per-sample: HEVC temporal level information.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCTemporalLevelInfo: CFString = "HEVCTemporalLevelInfo"
/// Per-sample: HEVC temporal sub-layer access picture.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCTemporalSubLayerAccess: CFString = "HEVCTemporalSubLayerAccess"
/// Per-sample: HEVC stepwise temporal sub-layer access picture.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCStepwiseTemporalSubLayerAccess: CFString = "HEVCStepwiseTemporalSubLayerAccess"
/// Per-sample: HEVC sync sample NAL unit type.
nonisolated(unsafe) public let kCMSampleAttachmentKey_HEVCSyncSampleNALUnitType: CFString = "HEVCSyncSampleNALUnitType"
/// Per-sample: audio independent sample decoder refresh count.
nonisolated(unsafe) public let kCMSampleAttachmentKey_AudioIndependentSampleDecoderRefreshCount: CFString = "AudioIndependentSampleDecoderRefreshCount"

/// Buffer: reset the decoder before decoding this buffer.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_ResetDecoderBeforeDecoding: CFString = "ResetDecoderBeforeDecoding"
/// Buffer: drain the decoder after decoding this buffer.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_DrainAfterDecoding: CFString = "DrainAfterDecoding"
/// Buffer: post a notification with this dictionary when consumed.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_PostNotificationWhenConsumed: CFString = "PostNotificationWhenConsumed"
/// Buffer: resume output after a discontinuity.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_ResumeOutput: CFString = "ResumeOutput"
/// Buffer: identifies a transition.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_TransitionID: CFString = "TransitionID"
/// Buffer: duration to trim from the start (a CMTime dictionary).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_TrimDurationAtStart: CFString = "TrimDurationAtStart"
/// Buffer: duration to trim from the end (a CMTime dictionary).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_TrimDurationAtEnd: CFString = "TrimDurationAtEnd"
/// Buffer: playback speed multiplier.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_SpeedMultiplier: CFString = "SpeedMultiplier"
/// Buffer: play in reverse.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_Reverse: CFString = "Reverse"
/// Buffer: fill gaps with silence.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_FillDiscontinuitiesWithSilence: CFString = "FillDiscontinuitiesWithSilence"
/// Buffer: marks empty media.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_EmptyMedia: CFString = "EmptyMedia"
/// Buffer: marks permanently empty media.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_PermanentEmptyMedia: CFString = "PermanentEmptyMedia"
/// Buffer: display empty media immediately.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_DisplayEmptyMediaImmediately: CFString = "DisplayEmptyMediaImmediately"
/// Buffer: ends the previous sample's duration.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_EndsPreviousSampleDuration: CFString = "EndsPreviousSampleDuration"
/// Buffer: URL of the sample's data (sample reference buffers).
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_SampleReferenceURL: CFString = "SampleReferenceURL"
/// Buffer: byte offset of the sample's data in its URL.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_SampleReferenceByteOffset: CFString = "SampleReferenceByteOffset"
/// Buffer: gradual decoder refresh count.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_GradualDecoderRefresh: CFString = "GradualDecoderRefresh"
/// Buffer: why a frame was dropped.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_DroppedFrameReason: CFString = "DroppedFrameReason"
/// Buffer: more information about a dropped frame.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_DroppedFrameReasonInfo: CFString = "DroppedFrameReasonInfo"
/// Buffer: force the encoder to produce a key frame.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_ForceKeyFrame: CFString = "ForceKeyFrame"
/// Buffer: camera intrinsic matrix.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_CameraIntrinsicMatrix: CFString = "CameraIntrinsicMatrix"
/// Buffer: lens stabilization info of a still image.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_StillImageLensStabilizationInfo: CFString = "StillImageLensStabilizationInfo"

/// Dropped frame reason: the frame was late.
nonisolated(unsafe) public let kCMSampleBufferDroppedFrameReason_FrameWasLate: CFString = "FrameWasLate"
/// Dropped frame reason: out of buffers.
nonisolated(unsafe) public let kCMSampleBufferDroppedFrameReason_OutOfBuffers: CFString = "OutOfBuffers"
/// Dropped frame reason: a discontinuity.
nonisolated(unsafe) public let kCMSampleBufferDroppedFrameReason_Discontinuity: CFString = "Discontinuity"
/// Dropped frame reason info: the camera switched modes.
nonisolated(unsafe) public let kCMSampleBufferDroppedFrameReasonInfo_CameraModeSwitch: CFString = "CameraModeSwitch"
