// CGImageSource: reads images and their properties out of image files (Apple's ImageIO API).
import Foundation
internal import MediaEngine

/// An opaque type that reads image data from a URL, a data object or a data provider, as
/// Apple's `CGImageSource`. Files are recognised by their signature; PNG, JPEG, TIFF, GIF, BMP
/// and WebP are decoded with FFmpeg; HEIC with our own HEIF box reader and FFmpeg's hevc decoder.
public final class CGImageSource: @unchecked Sendable, CustomStringConvertible {
    private let lock = NSLock()
    private var data: Data
    private var isFinal: Bool
    private var header: ImageHeader?
    private var cache: [Int: CGImage] = [:]
    private var failedIndices: Set<Int> = []
    private let typeHint: String?

    init(data: Data, isFinal: Bool, options: CFDictionary?) {
        self.data = data
        self.isFinal = isFinal
        self.typeHint = ImageIOOptions(options).string((kCGImageSourceTypeIdentifierHint as String))
        self.header = ImageHeader(data: data)
    }

    func update(_ newData: Data, final: Bool) {
        lock.lock(); defer { lock.unlock() }
        data = newData
        isFinal = final
        header = ImageHeader(data: newData)
        cache.removeAll()
        failedIndices.removeAll()
    }

    private func snapshot() -> (Data, ImageHeader?, Bool) {
        lock.lock(); defer { lock.unlock() }
        return (data, header, isFinal)
    }

    /// The type identifier of the data, e.g. `"public.png"`.
    var typeIdentifier: String? { snapshot().1?.format.typeIdentifier }

    /// Number of images.
    var count: Int {
        guard let header = snapshot().1, header.format.canDecode else { return 0 }
        if header.width == nil && (!header.isComplete || header.format == .heic) { return 0 }
        return header.frameCount
    }

    var status: CGImageSourceStatus {
        let (data, header, isFinal) = snapshot()
        guard let header else {
            if data.count < 16 && !isFinal { return .statusReadingHeader }
            return data.isEmpty && !isFinal ? .statusReadingHeader : .statusUnknownType
        }
        if header.format == .heic && header.isComplete && header.width == nil { return .statusInvalidData }
        if !header.isComplete || header.width == nil && [.png, .jpeg, .gif].contains(header.format) {
            return isFinal ? .statusUnexpectedEOF : .statusIncomplete
        }
        lock.lock(); defer { lock.unlock() }
        return failedIndices.contains(0) ? .statusInvalidData : .statusComplete
    }

    func status(at index: Int) -> CGImageSourceStatus {
        let overall = status
        guard overall == .statusComplete else { return overall }
        guard index >= 0, index < count else { return .statusInvalidData }
        lock.lock(); defer { lock.unlock() }
        return failedIndices.contains(index) ? .statusInvalidData : .statusComplete
    }

    /// The decoded image at `index`, cached unless `cache` is false.
    func image(at index: Int, cache useCache: Bool = true) -> CGImage? {
        let (data, header, _) = snapshot()
        guard let header, index >= 0, index < max(count, 1) else { return nil }
        lock.lock()
        if let cached = cache[index] { lock.unlock(); return cached }
        lock.unlock()
        let image = ImageCodec.decode(data, header: header, index: index)
        lock.lock(); defer { lock.unlock() }
        if let image {
            if useCache { cache[index] = image }
        } else {
            failedIndices.insert(index)
        }
        return image
    }

    /// Properties of image `index`, in Apple's keys.
    func properties(at index: Int) -> [String: Any]? {
        let (data, header, _) = snapshot()
        guard let header, index >= 0, index < count else { return nil }
        var hasAlpha = header.hasAlpha
        var depth = header.depth
        var model = header.colorModel
        var width = header.width, height = header.height
        if hasAlpha == nil || width == nil || header.format == .bmp {
            // The headers leave something open: learn it from the decoded image.
            guard let image = image(at: index) else { return nil }
            hasAlpha = image.alphaInfo != .none && image.alphaInfo != .noneSkipLast && image.alphaInfo != .noneSkipFirst
            depth = image.bitsPerComponent
            model = image.colorSpace?.model == .monochrome ? .gray : .rgb
            width = image.width
            height = image.height
        }
        var p: [String: Any] = [:]
        p[(kCGImagePropertyPixelWidth as String)] = width
        p[(kCGImagePropertyPixelHeight as String)] = height
        p[(kCGImagePropertyDepth as String)] = depth
        if hasAlpha == true { p[(kCGImagePropertyHasAlpha as String)] = true }
        if header.isIndexed { p[(kCGImagePropertyIsIndexed as String)] = true }
        switch model {
        case .gray?: p[(kCGImagePropertyColorModel as String)] = kCGImagePropertyColorModelGray
        case .cmyk?: p[(kCGImagePropertyColorModel as String)] = kCGImagePropertyColorModelCMYK
        case .rgb?: p[(kCGImagePropertyColorModel as String)] = kCGImagePropertyColorModelRGB
        case nil: break
        }
        if let o = header.orientation { p[(kCGImagePropertyOrientation as String)] = o }
        if let x = header.dpiWidth, let y = header.dpiHeight {
            p[(kCGImagePropertyDPIWidth as String)] = x
            p[(kCGImagePropertyDPIHeight as String)] = y
        }
        switch header.format {
        case .png:
            var png: [String: Any] = [(kCGImagePropertyPNGInterlaceType as String): header.isInterlaced ? 1 : 0]
            if let ppm = header.pixelsPerMeter {
                png[(kCGImagePropertyPNGXPixelsPerMeter as String)] = ppm.x
                png[(kCGImagePropertyPNGYPixelsPerMeter as String)] = ppm.y
            }
            p[(kCGImagePropertyPNGDictionary as String)] = png
        case .jpeg:
            if let j = header.jfif {
                p[(kCGImagePropertyJFIFDictionary as String)] = [
                    kCGImagePropertyJFIFVersion: [j.major, j.minor / 10, j.minor % 10],
                    kCGImagePropertyJFIFXDensity: j.x, kCGImagePropertyJFIFYDensity: j.y,
                    kCGImagePropertyJFIFDensityUnit: j.unit,
                    kCGImagePropertyJFIFIsProgressive: header.isInterlaced,
                ] as [String: Any]
            }
        case .gif:
            var gif: [String: Any] = [:]
            if index < header.gifDelays.count {
                gif[(kCGImagePropertyGIFDelayTime as String)] = max(header.gifDelays[index], 0.1)
                gif[(kCGImagePropertyGIFUnclampedDelayTime as String)] = header.gifDelays[index]
            }
            if let loops = header.gifLoopCount { gif[(kCGImagePropertyGIFLoopCount as String)] = loops }
            p[(kCGImagePropertyGIFDictionary as String)] = gif
        default:
            break
        }
        let tiff = Self.mapped(header.tiffTags, Self.tiffKeys)
        if !tiff.isEmpty { p[(kCGImagePropertyTIFFDictionary as String)] = tiff }
        let exif = Self.mapped(header.exifTags, Self.exifKeys)
        if !exif.isEmpty { p[(kCGImagePropertyExifDictionary as String)] = exif }
        _ = data
        return p
    }

    /// Container-level properties.
    var containerProperties: [String: Any] {
        let (data, header, _) = snapshot()
        var p: [String: Any] = [(kCGImagePropertyFileSize as String): data.count]
        if let header, header.format == .heic, header.width != nil {
            p[(kCGImagePropertyPrimaryImage as String)] = 0
            p[(kCGImagePropertyImageCount as String)] = header.frameCount
        }
        if let header, header.format == .gif {
            var gif: [String: Any] = [:]
            if let loops = header.gifLoopCount { gif[(kCGImagePropertyGIFLoopCount as String)] = loops }
            if data.count > 10 { gif[(kCGImagePropertyGIFHasGlobalColorMap as String)] = data[data.startIndex + 10] & 0x80 != 0 }
            gif[(kCGImagePropertyGIFCanvasPixelWidth as String)] = header.width
            gif[(kCGImagePropertyGIFCanvasPixelHeight as String)] = header.height
            p[(kCGImagePropertyGIFDictionary as String)] = gif
        }
        return p
    }

    private static let tiffKeys: [Int: String] = [
        259: (kCGImagePropertyTIFFCompression as String), 262: (kCGImagePropertyTIFFPhotometricInterpretation as String),
        270: (kCGImagePropertyTIFFImageDescription as String), 271: (kCGImagePropertyTIFFMake as String), 272: (kCGImagePropertyTIFFModel as String),
        274: (kCGImagePropertyTIFFOrientation as String), 282: (kCGImagePropertyTIFFXResolution as String),
        283: (kCGImagePropertyTIFFYResolution as String), 296: (kCGImagePropertyTIFFResolutionUnit as String),
        305: (kCGImagePropertyTIFFSoftware as String), 306: (kCGImagePropertyTIFFDateTime as String), 315: (kCGImagePropertyTIFFArtist as String),
        33432: (kCGImagePropertyTIFFCopyright as String),
    ]

    private static let exifKeys: [Int: String] = [
        33434: (kCGImagePropertyExifExposureTime as String), 33437: (kCGImagePropertyExifFNumber as String),
        34855: (kCGImagePropertyExifISOSpeedRatings as String), 36867: (kCGImagePropertyExifDateTimeOriginal as String),
        36868: (kCGImagePropertyExifDateTimeDigitized as String), 37386: (kCGImagePropertyExifFocalLength as String),
        40961: (kCGImagePropertyExifColorSpace as String), 40962: (kCGImagePropertyExifPixelXDimension as String),
        40963: (kCGImagePropertyExifPixelYDimension as String), 42036: (kCGImagePropertyExifLensModel as String),
    ]

    private static func mapped(_ tags: [Int: ImageHeader.TIFFValue], _ keys: [Int: String]) -> [String: Any] {
        var out: [String: Any] = [:]
        for (tag, value) in tags {
            guard let key = keys[tag] else { continue }
            switch value {
            case .int(let v): out[key] = tag == 34855 ? [v] : v
            case .double(let v): out[key] = v
            case .string(let v): out[key] = v
            case .ints(let v): out[key] = v
            }
        }
        return out
    }

    public var description: String {
        "<CGImageSource \(typeIdentifier ?? "unknown type") count=\(count) status=\(status)>"
    }
}

// MARK: - Creating sources

/// Creates an image source that reads from a file URL; nil when the file cannot be read.
@discardableResult
public func CGImageSourceCreateWithURL(_ url: CFURL, _ options: CFDictionary?) -> CGImageSource? {
    guard let path = url.path, let data = FileManager.default.contents(atPath: path) else { return nil }
    return CGImageSource(data: data, isFinal: true, options: options)
}

/// Creates an image source that reads from a data object (the bytes are copied).
@discardableResult
public func CGImageSourceCreateWithData(_ data: CFData, _ options: CFDictionary?) -> CGImageSource? {
    CGImageSource(data: Data(bytes: data.bytes, count: data.length), isFinal: true, options: options)
}

/// Creates an image source that reads from a data provider.
@discardableResult
public func CGImageSourceCreateWithDataProvider(_ provider: CGDataProvider, _ options: CFDictionary?) -> CGImageSource? {
    guard let data = provider.data else { return nil }
    return CGImageSource(data: Data(bytes: data.bytes, count: data.length), isFinal: true, options: options)
}

/// Creates an empty image source to which data is added with `CGImageSourceUpdateData`.
@discardableResult
public func CGImageSourceCreateIncremental(_ options: CFDictionary?) -> CGImageSource {
    CGImageSource(data: Data(), isFinal: false, options: options)
}

/// Replaces an incremental source's data with `data` (all bytes so far); `final` marks the end.
public func CGImageSourceUpdateData(_ isrc: CGImageSource, _ data: CFData, _ final: Bool) {
    isrc.update(Data(bytes: data.bytes, count: data.length), final: final)
}

/// Replaces an incremental source's data with the provider's bytes.
public func CGImageSourceUpdateDataProvider(_ isrc: CGImageSource, _ provider: CGDataProvider, _ final: Bool) {
    guard let data = provider.data else { return }
    isrc.update(Data(bytes: data.bytes, count: data.length), final: final)
}

// MARK: - Inspecting sources

/// The Core Foundation type identifier of image sources.
@discardableResult
public func CGImageSourceGetTypeID() -> CFTypeID { ImageIOTypeIDs.source }

/// The type identifiers image sources can read.
@discardableResult
public func CGImageSourceCopyTypeIdentifiers() -> CFArray {
    NSArray(array: ImageFormat.decodable.map { NSString(string: $0.typeIdentifier) })
}

/// The uniform type identifier of the source's data; nil when the type is not recognised.
@discardableResult
public func CGImageSourceGetType(_ isrc: CGImageSource) -> CFString? { isrc.typeIdentifier as CFString? }

/// The number of images in the source (GIF frames; 1 for other files; 0 for unreadable data).
@discardableResult
public func CGImageSourceGetCount(_ isrc: CGImageSource) -> Int { isrc.count }

/// The index of the primary image (always 0).
@discardableResult
public func CGImageSourceGetPrimaryImageIndex(_ isrc: CGImageSource) -> Int { 0 }

/// The status of the source.
@discardableResult
public func CGImageSourceGetStatus(_ isrc: CGImageSource) -> CGImageSourceStatus { isrc.status }

/// The status of image `index`.
@discardableResult
public func CGImageSourceGetStatusAtIndex(_ isrc: CGImageSource, _ index: Int) -> CGImageSourceStatus {
    isrc.status(at: index)
}

/// Properties of the file as a whole (file size; GIF loop count).
@discardableResult
public func CGImageSourceCopyProperties(_ isrc: CGImageSource, _ options: CFDictionary?) -> CFDictionary? {
    NSDictionary(dictionary: isrc.containerProperties)
}

/// Properties of image `index`: size, depth, alpha, colour model, orientation, resolution and
/// the format dictionaries ({PNG}, {JFIF}, {GIF}, {TIFF}, {Exif}) the file carries.
@discardableResult
public func CGImageSourceCopyPropertiesAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CFDictionary? {
    isrc.properties(at: index).map { NSDictionary(dictionary: $0) }
}

// MARK: - Creating images

/// Decodes image `index`. Returns nil for unreadable, truncated or corrupt data.
/// Options: `kCGImageSourceShouldCache` (default true).
@discardableResult
public func CGImageSourceCreateImageAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    let o = ImageIOOptions(options)
    return isrc.image(at: index, cache: o.bool((kCGImageSourceShouldCache as String)) ?? true)
}

/// A thumbnail of image `index`: the embedded one (HEIC thumbnail items; other formats' embedded
/// thumbnails are not read) unless `kCGImageSourceCreateThumbnailFromImageAlways` is true;
/// otherwise one made from the full image when `kCGImageSourceCreateThumbnailFromImageIfAbsent`
/// or `…FromImageAlways` is true (nil otherwise, as Apple's is for a file without an embedded
/// thumbnail). `kCGImageSourceThumbnailMaxPixelSize` bounds the larger
/// side (keeping aspect, never enlarging); `kCGImageSourceCreateThumbnailWithTransform` applies
/// the image's EXIF orientation first.
@discardableResult
public func CGImageSourceCreateThumbnailAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? {
    let o = ImageIOOptions(options)
    let always = o.bool((kCGImageSourceCreateThumbnailFromImageAlways as String)) == true
    var image: CGImage
    if !always, let embedded = isrc.embeddedThumbnail(at: index) {
        image = embedded
    } else {
        guard o.bool((kCGImageSourceCreateThumbnailFromImageIfAbsent as String)) == true || always,
              let full = isrc.image(at: index, cache: o.bool((kCGImageSourceShouldCache as String)) ?? true) else { return nil }
        image = full
    }
    if o.bool((kCGImageSourceCreateThumbnailWithTransform as String)) == true,
       let orientation = isrc.properties(at: index)?[(kCGImagePropertyOrientation as String)] as? Int {
        guard let turned = ImageTransform.applyingOrientation(orientation, to: image) else { return nil }
        image = turned
    }
    if let maxSize = o.int((kCGImageSourceThumbnailMaxPixelSize as String)), maxSize > 0, max(image.width, image.height) > maxSize {
        let scale = Double(maxSize) / Double(max(image.width, image.height))
        let w = max(1, min(maxSize, Int((Double(image.width) * scale).rounded())))
        let h = max(1, min(maxSize, Int((Double(image.height) * scale).rounded())))
        return ImageCodec.resized(image, width: w, height: h)
    }
    return image
}

/// Drops the cached decoded image at `index`.
public func CGImageSourceRemoveCacheAtIndex(_ isrc: CGImageSource, _ index: Int) {
    isrc.removeCache(at: index)
}

extension CGImageSource {
    /// The thumbnail image `index` carries (HEIF 'thmb' items), decoded.
    func embeddedThumbnail(at index: Int) -> CGImage? {
        let (data, header, _) = snapshot()
        guard let header, index >= 0, index < count else { return nil }
        return ImageCodec.decodeEmbeddedThumbnail(data, header: header, index: index)
    }

    func removeCache(at index: Int) {
        lock.lock(); defer { lock.unlock() }
        cache[index] = nil
    }
}
