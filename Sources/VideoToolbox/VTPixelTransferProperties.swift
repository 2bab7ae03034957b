// Pixel transfer session property keys and values (VTPixelTransferProperties.h), with Apple's
// string values.

/// How images are scaled (`kVTScalingMode_*`); default `kVTScalingMode_Normal`.
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_ScalingMode: CFString = "ScalingMode"
/// The whole source is stretched to the whole destination.
nonisolated(unsafe) public let kVTScalingMode_Normal: CFString = "Normal"
/// The source's clean aperture is scaled to the destination clean aperture.
nonisolated(unsafe) public let kVTScalingMode_CropSourceToCleanAperture: CFString = "CropSourceToCleanAperture"
/// The source's clean aperture is fitted inside the destination clean aperture, preserving its
/// aspect ratio; the rest of the destination is filled with black.
nonisolated(unsafe) public let kVTScalingMode_Letterbox: CFString = "Letterbox"
/// The source's clean aperture is scaled to fill the destination clean aperture, preserving its
/// aspect ratio; the overflow is trimmed.
nonisolated(unsafe) public let kVTScalingMode_Trim: CFString = "Trim"

/// The destination clean aperture: a dictionary with the keys of `kCVImageBufferCleanApertureKey`
/// (`Width`, `Height`, `HorizontalOffset`, `VerticalOffset`).
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_DestinationCleanAperture: CFString = "DestinationCleanAperture"
/// The destination pixel aspect ratio: a dictionary with the keys of
/// `kCVImageBufferPixelAspectRatioKey` (`HorizontalSpacing`, `VerticalSpacing`).
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_DestinationPixelAspectRatio: CFString = "DestinationPixelAspectRatio"

/// How images are reduced (`kVTDownsamplingMode_*`); default `kVTDownsamplingMode_Decimate`.
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_DownsamplingMode: CFString = "DownsamplingMode"
/// Default downsampling.
nonisolated(unsafe) public let kVTDownsamplingMode_Decimate: CFString = "Decimate"
/// Downsampling that averages the pixels each destination pixel covers.
nonisolated(unsafe) public let kVTDownsamplingMode_Average: CFString = "Average"

/// The colour primaries to tag destination buffers with (`kCVImageBufferColorPrimaries_*`).
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_DestinationColorPrimaries: CFString = "DestinationColorPrimaries"
/// The transfer function to tag destination buffers with (`kCVImageBufferTransferFunction_*`).
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_DestinationTransferFunction: CFString = "DestinationTransferFunction"
/// An ICC profile for destination buffers (not supported here).
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_DestinationICCProfile: CFString = "DestinationICCProfile"
/// The Y'CbCr matrix of Y'CbCr destination buffers (`kCVImageBufferYCbCrMatrix_*`).
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_DestinationYCbCrMatrix: CFString = "DestinationYCbCrMatrix"
/// Whether the session is used for real-time work (a Boolean, default false). When true,
/// conversions favour speed over exact rounding and chroma interpolation.
nonisolated(unsafe) public let kVTPixelTransferPropertyKey_RealTime: CFString = "RealTime"
