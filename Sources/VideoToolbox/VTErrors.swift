// VideoToolbox result codes (VTErrors.h), with Apple's values.

/// A property key the session does not support.
public let kVTPropertyNotSupportedErr: OSStatus = -12900
/// A property that cannot be set.
public let kVTPropertyReadOnlyErr: OSStatus = -12901
/// A parameter is invalid (a missing pointer, a value of the wrong type, an empty buffer).
public let kVTParameterErr: OSStatus = -12902
/// The session was invalidated.
public let kVTInvalidSessionErr: OSStatus = -12903
/// Memory could not be allocated.
public let kVTAllocationFailedErr: OSStatus = -12904
/// The pixel transfer between these buffers is not supported.
public let kVTPixelTransferNotSupportedErr: OSStatus = -12905
/// No decoder for the format description.
public let kVTCouldNotFindVideoDecoderErr: OSStatus = -12906
/// A codec instance could not be created.
public let kVTCouldNotCreateInstanceErr: OSStatus = -12907
/// No encoder for the requested codec.
public let kVTCouldNotFindVideoEncoderErr: OSStatus = -12908
/// The decoder found the data corrupt.
public let kVTVideoDecoderBadDataErr: OSStatus = -12909
/// The decoder does not support this data.
public let kVTVideoDecoderUnsupportedDataFormatErr: OSStatus = -12910
/// The decoder failed.
public let kVTVideoDecoderMalfunctionErr: OSStatus = -12911
/// The encoder failed.
public let kVTVideoEncoderMalfunctionErr: OSStatus = -12912
/// The decoder is temporarily unavailable.
public let kVTVideoDecoderNotAvailableNowErr: OSStatus = -12913
/// Image rotation is not supported.
public let kVTImageRotationNotSupportedErr: OSStatus = -12914
/// Pixel rotation is not supported.
public let kVTPixelRotationNotSupportedErr: OSStatus = -12914
/// The encoder is temporarily unavailable.
public let kVTVideoEncoderNotAvailableNowErr: OSStatus = -12915
/// The session cannot change format description mid-stream.
public let kVTFormatDescriptionChangeNotSupportedErr: OSStatus = -12916
/// The source lacks the colour information a conversion needs.
public let kVTInsufficientSourceColorDataErr: OSStatus = -12917
/// Colour correction data could not be created.
public let kVTCouldNotCreateColorCorrectionDataErr: OSStatus = -12918
/// A ColorSync transform failed.
public let kVTColorSyncTransformConvertFailedErr: OSStatus = -12919
/// The decoder is not authorised.
public let kVTVideoDecoderAuthorizationErr: OSStatus = -12210
/// The encoder is not authorised.
public let kVTVideoEncoderAuthorizationErr: OSStatus = -12211
/// A colour-corrected pixel transfer failed.
public let kVTColorCorrectionPixelTransferFailedErr: OSStatus = -12212
/// The multi-pass storage identifier does not match.
public let kVTMultiPassStorageIdentifierMismatchErr: OSStatus = -12213
/// The multi-pass storage is invalid.
public let kVTMultiPassStorageInvalidErr: OSStatus = -12214
/// A frame silo time stamp is invalid.
public let kVTFrameSiloInvalidTimeStampErr: OSStatus = -12215
/// A frame silo time range is invalid.
public let kVTFrameSiloInvalidTimeRangeErr: OSStatus = -12216
/// No temporal filter was found.
public let kVTCouldNotFindTemporalFilterErr: OSStatus = -12217
/// The pixel transfer is not permitted.
public let kVTPixelTransferNotPermittedErr: OSStatus = -12218
/// Colour correction of an image rotation failed.
public let kVTColorCorrectionImageRotationFailedErr: OSStatus = -12219
/// The decoder was removed.
public let kVTVideoDecoderRemovedErr: OSStatus = -17690
/// The session malfunctioned.
public let kVTSessionMalfunctionErr: OSStatus = -17691
/// The decoder needs Rosetta.
public let kVTVideoDecoderNeedsRosettaErr: OSStatus = -17692
/// The encoder needs Rosetta.
public let kVTVideoEncoderNeedsRosettaErr: OSStatus = -17693
/// A reference frame the decoder needs is missing.
public let kVTVideoDecoderReferenceMissingErr: OSStatus = -17694
/// The decoder's callback messaging failed.
public let kVTVideoDecoderCallbackMessagingErr: OSStatus = -17695
/// The decoder failed for an unknown reason.
public let kVTVideoDecoderUnknownErr: OSStatus = -17696
