// Image property keys and values, with the strings Apple's ImageIO uses, and the option keys of
// image sources and destinations.

// MARK: Top-level image properties

/// Width of the image in pixels.
nonisolated(unsafe) public let kCGImagePropertyPixelWidth: CFString = "PixelWidth"
/// Height of the image in pixels.
nonisolated(unsafe) public let kCGImagePropertyPixelHeight: CFString = "PixelHeight"
/// Bits per component.
nonisolated(unsafe) public let kCGImagePropertyDepth: CFString = "Depth"
/// EXIF orientation (1…8).
nonisolated(unsafe) public let kCGImagePropertyOrientation: CFString = "Orientation"
/// Horizontal resolution in dots per inch.
nonisolated(unsafe) public let kCGImagePropertyDPIWidth: CFString = "DPIWidth"
/// Vertical resolution in dots per inch.
nonisolated(unsafe) public let kCGImagePropertyDPIHeight: CFString = "DPIHeight"
/// Whether the image has an alpha channel.
nonisolated(unsafe) public let kCGImagePropertyHasAlpha: CFString = "HasAlpha"
/// The colour model (`kCGImagePropertyColorModelRGB`, …).
nonisolated(unsafe) public let kCGImagePropertyColorModel: CFString = "ColorModel"
/// Whether components are floating point.
nonisolated(unsafe) public let kCGImagePropertyIsFloat: CFString = "IsFloat"
/// Whether pixels are palette indices.
nonisolated(unsafe) public let kCGImagePropertyIsIndexed: CFString = "IsIndexed"
/// The name of the embedded colour profile.
nonisolated(unsafe) public let kCGImagePropertyProfileName: CFString = "ProfileName"
/// Size of the file in bytes (container property).
nonisolated(unsafe) public let kCGImagePropertyFileSize: CFString = "FileSize"
/// The index of the primary image (container property).
nonisolated(unsafe) public let kCGImagePropertyPrimaryImage: CFString = "PrimaryImage"
/// The number of images (container property).
nonisolated(unsafe) public let kCGImagePropertyImageCount: CFString = "ImageCount"

/// RGB colour model.
nonisolated(unsafe) public let kCGImagePropertyColorModelRGB: CFString = "RGB"
/// Grey colour model.
nonisolated(unsafe) public let kCGImagePropertyColorModelGray: CFString = "Gray"
/// CMYK colour model.
nonisolated(unsafe) public let kCGImagePropertyColorModelCMYK: CFString = "CMYK"
/// L*a*b* colour model.
nonisolated(unsafe) public let kCGImagePropertyColorModelLab: CFString = "Lab"

// MARK: Format dictionaries

nonisolated(unsafe) public let kCGImagePropertyTIFFDictionary: CFString = "{TIFF}"
nonisolated(unsafe) public let kCGImagePropertyGIFDictionary: CFString = "{GIF}"
nonisolated(unsafe) public let kCGImagePropertyJFIFDictionary: CFString = "{JFIF}"
nonisolated(unsafe) public let kCGImagePropertyExifDictionary: CFString = "{Exif}"
nonisolated(unsafe) public let kCGImagePropertyPNGDictionary: CFString = "{PNG}"
nonisolated(unsafe) public let kCGImagePropertyIPTCDictionary: CFString = "{IPTC}"
nonisolated(unsafe) public let kCGImagePropertyGPSDictionary: CFString = "{GPS}"
nonisolated(unsafe) public let kCGImagePropertyWebPDictionary: CFString = "{WebP}"

// MARK: TIFF dictionary keys

nonisolated(unsafe) public let kCGImagePropertyTIFFCompression: CFString = "Compression"
nonisolated(unsafe) public let kCGImagePropertyTIFFPhotometricInterpretation: CFString = "PhotometricInterpretation"
nonisolated(unsafe) public let kCGImagePropertyTIFFImageDescription: CFString = "ImageDescription"
nonisolated(unsafe) public let kCGImagePropertyTIFFMake: CFString = "Make"
nonisolated(unsafe) public let kCGImagePropertyTIFFModel: CFString = "Model"
nonisolated(unsafe) public let kCGImagePropertyTIFFOrientation: CFString = "Orientation"
nonisolated(unsafe) public let kCGImagePropertyTIFFXResolution: CFString = "XResolution"
nonisolated(unsafe) public let kCGImagePropertyTIFFYResolution: CFString = "YResolution"
nonisolated(unsafe) public let kCGImagePropertyTIFFResolutionUnit: CFString = "ResolutionUnit"
nonisolated(unsafe) public let kCGImagePropertyTIFFSoftware: CFString = "Software"
nonisolated(unsafe) public let kCGImagePropertyTIFFDateTime: CFString = "DateTime"
nonisolated(unsafe) public let kCGImagePropertyTIFFArtist: CFString = "Artist"
nonisolated(unsafe) public let kCGImagePropertyTIFFCopyright: CFString = "Copyright"

// MARK: Exif dictionary keys

nonisolated(unsafe) public let kCGImagePropertyExifExposureTime: CFString = "ExposureTime"
nonisolated(unsafe) public let kCGImagePropertyExifFNumber: CFString = "FNumber"
nonisolated(unsafe) public let kCGImagePropertyExifISOSpeedRatings: CFString = "ISOSpeedRatings"
nonisolated(unsafe) public let kCGImagePropertyExifDateTimeOriginal: CFString = "DateTimeOriginal"
nonisolated(unsafe) public let kCGImagePropertyExifDateTimeDigitized: CFString = "DateTimeDigitized"
nonisolated(unsafe) public let kCGImagePropertyExifFocalLength: CFString = "FocalLength"
nonisolated(unsafe) public let kCGImagePropertyExifFlash: CFString = "Flash"
nonisolated(unsafe) public let kCGImagePropertyExifColorSpace: CFString = "ColorSpace"
nonisolated(unsafe) public let kCGImagePropertyExifPixelXDimension: CFString = "PixelXDimension"
nonisolated(unsafe) public let kCGImagePropertyExifPixelYDimension: CFString = "PixelYDimension"
nonisolated(unsafe) public let kCGImagePropertyExifLensModel: CFString = "LensModel"

// MARK: JFIF dictionary keys

nonisolated(unsafe) public let kCGImagePropertyJFIFVersion: CFString = "JFIFVersion"
nonisolated(unsafe) public let kCGImagePropertyJFIFXDensity: CFString = "XDensity"
nonisolated(unsafe) public let kCGImagePropertyJFIFYDensity: CFString = "YDensity"
nonisolated(unsafe) public let kCGImagePropertyJFIFDensityUnit: CFString = "DensityUnit"
nonisolated(unsafe) public let kCGImagePropertyJFIFIsProgressive: CFString = "IsProgressive"

// MARK: PNG dictionary keys

nonisolated(unsafe) public let kCGImagePropertyPNGGamma: CFString = "Gamma"
nonisolated(unsafe) public let kCGImagePropertyPNGInterlaceType: CFString = "InterlaceType"
nonisolated(unsafe) public let kCGImagePropertyPNGXPixelsPerMeter: CFString = "XPixelsPerMeter"
nonisolated(unsafe) public let kCGImagePropertyPNGYPixelsPerMeter: CFString = "YPixelsPerMeter"

// MARK: GIF dictionary keys

nonisolated(unsafe) public let kCGImagePropertyGIFLoopCount: CFString = "LoopCount"
nonisolated(unsafe) public let kCGImagePropertyGIFDelayTime: CFString = "DelayTime"
nonisolated(unsafe) public let kCGImagePropertyGIFUnclampedDelayTime: CFString = "UnclampedDelayTime"
nonisolated(unsafe) public let kCGImagePropertyGIFHasGlobalColorMap: CFString = "HasGlobalColorMap"
nonisolated(unsafe) public let kCGImagePropertyGIFCanvasPixelWidth: CFString = "CanvasPixelWidth"
nonisolated(unsafe) public let kCGImagePropertyGIFCanvasPixelHeight: CFString = "CanvasPixelHeight"

// MARK: Image source options

/// A type identifier hint for data without a recognisable signature.
nonisolated(unsafe) public let kCGImageSourceTypeIdentifierHint: CFString = "kCGImageSourceTypeIdentifierHint"
/// Whether decoded images may use floating-point components (ignored: images are integer).
nonisolated(unsafe) public let kCGImageSourceShouldAllowFloat: CFString = "kCGImageSourceShouldAllowFloat"
/// Whether decoded images are cached (default true).
nonisolated(unsafe) public let kCGImageSourceShouldCache: CFString = "kCGImageSourceShouldCache"
/// Whether decoding happens at creation rather than first use (decoding is always at creation here).
nonisolated(unsafe) public let kCGImageSourceShouldCacheImmediately: CFString = "kCGImageSourceShouldCacheImmediately"
/// Make a thumbnail from the full image when the file has no embedded thumbnail.
nonisolated(unsafe) public let kCGImageSourceCreateThumbnailFromImageIfAbsent: CFString = "kCGImageSourceCreateThumbnailFromImageIfAbsent"
/// Always make the thumbnail from the full image.
nonisolated(unsafe) public let kCGImageSourceCreateThumbnailFromImageAlways: CFString = "kCGImageSourceCreateThumbnailFromImageAlways"
/// The largest width or height of the thumbnail, in pixels.
nonisolated(unsafe) public let kCGImageSourceThumbnailMaxPixelSize: CFString = "kCGImageSourceThumbnailMaxPixelSize"
/// Whether the thumbnail is rotated/mirrored per the image's orientation.
nonisolated(unsafe) public let kCGImageSourceCreateThumbnailWithTransform: CFString = "kCGImageSourceCreateThumbnailWithTransform"
/// A subsampling factor (accepted, not applied).
nonisolated(unsafe) public let kCGImageSourceSubsampleFactor: CFString = "kCGImageSourceSubsampleFactor"

// MARK: Image destination options

/// JPEG quality, 0 (most compression) … 1 (least).
nonisolated(unsafe) public let kCGImageDestinationLossyCompressionQuality: CFString = "kCGImageDestinationLossyCompressionQuality"
/// Background colour for flattening alpha (accepted, not applied).
nonisolated(unsafe) public let kCGImageDestinationBackgroundColor: CFString = "kCGImageDestinationBackgroundColor"
/// The largest width or height written; larger images are scaled down keeping aspect.
nonisolated(unsafe) public let kCGImageDestinationImageMaxPixelSize: CFString = "kCGImageDestinationImageMaxPixelSize"
/// Whether to embed a thumbnail (accepted, not applied).
nonisolated(unsafe) public let kCGImageDestinationEmbedThumbnail: CFString = "kCGImageDestinationEmbedThumbnail"
