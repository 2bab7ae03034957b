// CGImageDestination: writes images to files or data (Apple's ImageIO API).
import Foundation
internal import MediaEngine

/// An opaque type that writes image data to a URL or a mutable data object, as Apple's
/// `CGImageDestination`. PNG, JPEG, TIFF and BMP are written with FFmpeg's encoders; HEIC with
/// libx265 inside our own HEIF boxes.
public final class CGImageDestination: @unchecked Sendable, CustomStringConvertible {
    enum Target {
        case url(String)
        case data(NSMutableData)
    }

    private let lock = NSLock()
    private let target: Target
    private let format: ImageFormat
    private let capacity: Int
    private var images: [(CGImage, ImageIOOptions)] = []
    private var properties = ImageIOOptions(values: [:])
    private var finalized = false

    init?(target: Target, type: String, count: Int) {
        guard let format = ImageFormat(typeIdentifier: type), format.canEncode, count >= 1 else { return nil }
        self.target = target
        self.format = format
        self.capacity = count
    }

    func add(_ image: CGImage, _ options: ImageIOOptions) {
        lock.lock(); defer { lock.unlock() }
        // As Apple's, images beyond the declared count are ignored.
        guard !finalized, images.count < capacity else { return }
        images.append((image, options))
    }

    func setProperties(_ options: ImageIOOptions) {
        lock.lock(); defer { lock.unlock() }
        properties = properties.merging(options)
    }

    func finalize() -> Bool {
        lock.lock(); defer { lock.unlock() }
        // As Apple's: finalising twice, or with fewer images than declared, fails.
        guard !finalized, !images.isEmpty, images.count == capacity else { return false }
        finalized = true
        // The formats written hold one image; the first added is written.
        let (original, imageOptions) = images[0]
        let options = properties.merging(imageOptions)
        var image = original
        if let maxSize = options.int((kCGImageDestinationImageMaxPixelSize as String)), maxSize > 0,
           max(image.width, image.height) > maxSize {
            let scale = Double(maxSize) / Double(max(image.width, image.height))
            guard let scaled = ImageCodec.resized(image, width: max(1, Int((Double(image.width) * scale).rounded())),
                                                  height: max(1, Int((Double(image.height) * scale).rounded())))
            else { return false }
            image = scaled
        }
        let quality = options.double((kCGImageDestinationLossyCompressionQuality as String))
        // Exif metadata: the {TIFF} and {Exif} dictionaries, with the orientation in {TIFF}.
        let orientation = options.int((kCGImagePropertyOrientation as String)).flatMap { (1 ... 8).contains($0) ? $0 : nil }
        var tiff = options.dictionary((kCGImagePropertyTIFFDictionary as String))?.values ?? [:]
        let exif = options.dictionary((kCGImagePropertyExifDictionary as String))?.values
        let hasDictionaries = !tiff.isEmpty || exif != nil
        if let orientation { tiff[(kCGImagePropertyTIFFOrientation as String)] = orientation }
        var encoded: Data
        if format == .heic {
            // HEIC: the orientation becomes the primary image's irot/imir too, and the metadata an Exif item.
            let exifTIFF = tiff.isEmpty && exif == nil ? nil : ExifWriter.tiffStructure(tiff: tiff, exif: exif)
            // kCGImageDestinationEmbedThumbnail: a thumbnail item, 320 pixels a side at most (Apple's
            // photos carry 320×240 ones).
            let thumbnailSize = options.bool((kCGImageDestinationEmbedThumbnail as String)) == true ? 320 : nil
            guard let heic = ImageCodec.encodeHEIC(image, quality: quality, orientation: orientation ?? 1, exifTIFF: exifTIFF,
                                                   thumbnailSize: thumbnailSize)
            else { return false }
            encoded = heic
        } else {
            guard let data = ImageCodec.encode(image, as: format, quality: quality) else { return false }
            encoded = data
            if hasDictionaries {
                encoded = ImageMetadataWriter.settingExif(tiff: tiff, exif: exif, in: encoded, format: format)
            } else if let orientation, orientation != 1 {
                encoded = ImageMetadataWriter.settingOrientation(orientation, in: encoded, format: format)
            }
        }
        if let x = options.double((kCGImagePropertyDPIWidth as String)), let y = options.double((kCGImagePropertyDPIHeight as String)) {
            encoded = ImageMetadataWriter.settingResolution(dpiX: x, dpiY: y, in: encoded, format: format)
        }
        switch target {
        case .data(let data):
            data.append(encoded)
            return true
        case .url(let path):
            // Written to a temporary file beside the target, then renamed over it.
            do {
                try encoded.write(to: URL(fileURLWithPath: path), options: .atomic)
                return true
            } catch {
                return false
            }
        }
    }

    public var description: String { "<CGImageDestination \(format.typeIdentifier) count=\(capacity)>" }
}

/// The Core Foundation type identifier of image destinations.
@discardableResult
public func CGImageDestinationGetTypeID() -> CFTypeID { ImageIOTypeIDs.destination }

/// The type identifiers image destinations can write.
@discardableResult
public func CGImageDestinationCopyTypeIdentifiers() -> CFArray {
    NSArray(array: ImageFormat.encodable.map { NSString(string: $0.typeIdentifier) })
}

/// Creates a destination writing a `type` file of `count` images to a file URL; nil for a type
/// that cannot be written. An unwritable location is reported by `CGImageDestinationFinalize`.
@discardableResult
public func CGImageDestinationCreateWithURL(_ url: CFURL, _ type: CFString, _ count: Int, _ options: CFDictionary?) -> CGImageDestination? {
    guard url.isFileURL, let path = url.path else { return nil }
    return CGImageDestination(target: .url(path), type: (type as String), count: count)
}

/// Creates a destination appending a `type` file of `count` images to `data` when finalised.
@discardableResult
public func CGImageDestinationCreateWithData(_ data: CFMutableData, _ type: CFString, _ count: Int, _ options: CFDictionary?) -> CGImageDestination? {
    CGImageDestination(target: .data(data), type: (type as String), count: count)
}

/// Adds an image with optional properties: `kCGImageDestinationLossyCompressionQuality`,
/// `kCGImageDestinationImageMaxPixelSize`, `kCGImagePropertyOrientation` (recorded as EXIF in
/// JPEG and PNG, as irot/imir plus EXIF in HEIC; pixels are not rotated),
/// `kCGImagePropertyDPIWidth`/`DPIHeight` (JFIF density in JPEG, pHYs in PNG), and the `{TIFF}`
/// and `{Exif}` dictionaries (Exif metadata: an APP1 segment in JPEG, an eXIf chunk in PNG, an
/// Exif item in HEIC).
public func CGImageDestinationAddImage(_ idst: CGImageDestination, _ image: CGImage, _ properties: CFDictionary?) {
    idst.add(image, ImageIOOptions(properties))
}

/// Adds image `index` of `isrc`, keeping its orientation and resolution unless `properties`
/// override them. The image is decoded and re-encoded.
public func CGImageDestinationAddImageFromSource(_ idst: CGImageDestination, _ isrc: CGImageSource, _ index: Int,
                                                 _ properties: CFDictionary?) {
    guard let image = CGImageSourceCreateImageAtIndex(isrc, index, nil) else { return }
    var carried: [String: Any] = [:]
    if let p = isrc.properties(at: index) {
        for key in [kCGImagePropertyOrientation, kCGImagePropertyDPIWidth, kCGImagePropertyDPIHeight] {
            carried[(key as String)] = p[(key as String)]
        }
    }
    idst.add(image, ImageIOOptions(values: carried).merging(ImageIOOptions(properties)))
}

/// Sets properties applying to every image of the destination.
public func CGImageDestinationSetProperties(_ idst: CGImageDestination, _ properties: CFDictionary?) {
    idst.setProperties(ImageIOOptions(properties))
}

/// Encodes the images and writes the file (atomically: a temporary file renamed into place).
/// Returns false when an image cannot be encoded, fewer images were added than declared, the
/// destination was already finalised, or the file cannot be written.
@discardableResult
public func CGImageDestinationFinalize(_ idst: CGImageDestination) -> Bool { idst.finalize() }
