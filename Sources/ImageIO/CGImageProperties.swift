// Image property keys and values, with the strings Apple's ImageIO uses, and the option keys of
// image sources and destinations.

// MARK: Top-level image properties

/// Width of the image in pixels.
public let kCGImagePropertyPixelWidth: CFString = "PixelWidth"
/// Height of the image in pixels.
public let kCGImagePropertyPixelHeight: CFString = "PixelHeight"
/// Bits per component.
public let kCGImagePropertyDepth: CFString = "Depth"
/// EXIF orientation (1…8).
public let kCGImagePropertyOrientation: CFString = "Orientation"
/// Horizontal resolution in dots per inch.
public let kCGImagePropertyDPIWidth: CFString = "DPIWidth"
/// Vertical resolution in dots per inch.
public let kCGImagePropertyDPIHeight: CFString = "DPIHeight"
/// Whether the image has an alpha channel.
public let kCGImagePropertyHasAlpha: CFString = "HasAlpha"
/// The colour model (`kCGImagePropertyColorModelRGB`, …).
public let kCGImagePropertyColorModel: CFString = "ColorModel"
/// Whether components are floating point.
public let kCGImagePropertyIsFloat: CFString = "IsFloat"
/// Whether pixels are palette indices.
public let kCGImagePropertyIsIndexed: CFString = "IsIndexed"
/// The name of the embedded colour profile.
public let kCGImagePropertyProfileName: CFString = "ProfileName"
/// Size of the file in bytes (container property).
public let kCGImagePropertyFileSize: CFString = "FileSize"
/// The index of the primary image (container property).
public let kCGImagePropertyPrimaryImage: CFString = "PrimaryImage"
/// The number of images (container property).
public let kCGImagePropertyImageCount: CFString = "ImageCount"

/// RGB colour model.
public let kCGImagePropertyColorModelRGB: CFString = "RGB"
/// Grey colour model.
public let kCGImagePropertyColorModelGray: CFString = "Gray"
/// CMYK colour model.
public let kCGImagePropertyColorModelCMYK: CFString = "CMYK"
/// L*a*b* colour model.
public let kCGImagePropertyColorModelLab: CFString = "Lab"

// MARK: Format dictionaries

public let kCGImagePropertyTIFFDictionary: CFString = "{TIFF}"
public let kCGImagePropertyGIFDictionary: CFString = "{GIF}"
public let kCGImagePropertyJFIFDictionary: CFString = "{JFIF}"
public let kCGImagePropertyExifDictionary: CFString = "{Exif}"
public let kCGImagePropertyPNGDictionary: CFString = "{PNG}"
public let kCGImagePropertyIPTCDictionary: CFString = "{IPTC}"
public let kCGImagePropertyGPSDictionary: CFString = "{GPS}"
public let kCGImagePropertyWebPDictionary: CFString = "{WebP}"

// MARK: TIFF dictionary keys

public let kCGImagePropertyTIFFCompression: CFString = "Compression"
public let kCGImagePropertyTIFFPhotometricInterpretation: CFString = "PhotometricInterpretation"
public let kCGImagePropertyTIFFImageDescription: CFString = "ImageDescription"
public let kCGImagePropertyTIFFMake: CFString = "Make"
public let kCGImagePropertyTIFFModel: CFString = "Model"
public let kCGImagePropertyTIFFOrientation: CFString = "Orientation"
public let kCGImagePropertyTIFFXResolution: CFString = "XResolution"
public let kCGImagePropertyTIFFYResolution: CFString = "YResolution"
public let kCGImagePropertyTIFFResolutionUnit: CFString = "ResolutionUnit"
public let kCGImagePropertyTIFFSoftware: CFString = "Software"
public let kCGImagePropertyTIFFDateTime: CFString = "DateTime"
public let kCGImagePropertyTIFFArtist: CFString = "Artist"
public let kCGImagePropertyTIFFCopyright: CFString = "Copyright"

// MARK: Exif dictionary keys

public let kCGImagePropertyExifExposureTime: CFString = "ExposureTime"
public let kCGImagePropertyExifFNumber: CFString = "FNumber"
public let kCGImagePropertyExifISOSpeedRatings: CFString = "ISOSpeedRatings"
public let kCGImagePropertyExifDateTimeOriginal: CFString = "DateTimeOriginal"
public let kCGImagePropertyExifDateTimeDigitized: CFString = "DateTimeDigitized"
public let kCGImagePropertyExifFocalLength: CFString = "FocalLength"
public let kCGImagePropertyExifColorSpace: CFString = "ColorSpace"
public let kCGImagePropertyExifPixelXDimension: CFString = "PixelXDimension"
public let kCGImagePropertyExifPixelYDimension: CFString = "PixelYDimension"
public let kCGImagePropertyExifLensModel: CFString = "LensModel"

// MARK: JFIF dictionary keys

public let kCGImagePropertyJFIFVersion: CFString = "JFIFVersion"
public let kCGImagePropertyJFIFXDensity: CFString = "XDensity"
public let kCGImagePropertyJFIFYDensity: CFString = "YDensity"
public let kCGImagePropertyJFIFDensityUnit: CFString = "DensityUnit"
public let kCGImagePropertyJFIFIsProgressive: CFString = "IsProgressive"

// MARK: PNG dictionary keys

public let kCGImagePropertyPNGGamma: CFString = "Gamma"
public let kCGImagePropertyPNGInterlaceType: CFString = "InterlaceType"
public let kCGImagePropertyPNGXPixelsPerMeter: CFString = "XPixelsPerMeter"
public let kCGImagePropertyPNGYPixelsPerMeter: CFString = "YPixelsPerMeter"

// MARK: GIF dictionary keys

public let kCGImagePropertyGIFLoopCount: CFString = "LoopCount"
public let kCGImagePropertyGIFDelayTime: CFString = "DelayTime"
public let kCGImagePropertyGIFUnclampedDelayTime: CFString = "UnclampedDelayTime"
public let kCGImagePropertyGIFHasGlobalColorMap: CFString = "HasGlobalColorMap"
public let kCGImagePropertyGIFCanvasPixelWidth: CFString = "CanvasPixelWidth"
public let kCGImagePropertyGIFCanvasPixelHeight: CFString = "CanvasPixelHeight"

// MARK: Image source options

/// A type identifier hint for data without a recognisable signature.
public let kCGImageSourceTypeIdentifierHint: CFString = "kCGImageSourceTypeIdentifierHint"
/// Whether decoded images may use floating-point components (ignored: images are integer).
public let kCGImageSourceShouldAllowFloat: CFString = "kCGImageSourceShouldAllowFloat"
/// Whether decoded images are cached (default true).
public let kCGImageSourceShouldCache: CFString = "kCGImageSourceShouldCache"
/// Whether decoding happens at creation rather than first use (decoding is always at creation here).
public let kCGImageSourceShouldCacheImmediately: CFString = "kCGImageSourceShouldCacheImmediately"
/// Make a thumbnail from the full image when the file has no embedded thumbnail.
public let kCGImageSourceCreateThumbnailFromImageIfAbsent: CFString = "kCGImageSourceCreateThumbnailFromImageIfAbsent"
/// Always make the thumbnail from the full image.
public let kCGImageSourceCreateThumbnailFromImageAlways: CFString = "kCGImageSourceCreateThumbnailFromImageAlways"
/// The largest width or height of the thumbnail, in pixels.
public let kCGImageSourceThumbnailMaxPixelSize: CFString = "kCGImageSourceThumbnailMaxPixelSize"
/// Whether the thumbnail is rotated/mirrored per the image's orientation.
public let kCGImageSourceCreateThumbnailWithTransform: CFString = "kCGImageSourceCreateThumbnailWithTransform"
/// A subsampling factor (accepted, not applied).
public let kCGImageSourceSubsampleFactor: CFString = "kCGImageSourceSubsampleFactor"

// MARK: Image destination options

/// JPEG quality, 0 (most compression) … 1 (least).
public let kCGImageDestinationLossyCompressionQuality: CFString = "kCGImageDestinationLossyCompressionQuality"
/// Background colour for flattening alpha (accepted, not applied).
public let kCGImageDestinationBackgroundColor: CFString = "kCGImageDestinationBackgroundColor"
/// The largest width or height written; larger images are scaled down keeping aspect.
public let kCGImageDestinationImageMaxPixelSize: CFString = "kCGImageDestinationImageMaxPixelSize"
/// Whether to embed a thumbnail (accepted, not applied).
public let kCGImageDestinationEmbedThumbnail: CFString = "kCGImageDestinationEmbedThumbnail"
