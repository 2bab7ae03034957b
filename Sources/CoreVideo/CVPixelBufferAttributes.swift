// Pixel buffer attribute keys (kCVPixelBuffer*Key) with the string values Apple's CoreVideo
// exports, and the tolerant reader that turns an attributes dictionary into allocation settings.

/// A single number or an array of numbers (OSTypes): the pixel formats a buffer may have.
nonisolated(unsafe) public let kCVPixelBufferPixelFormatTypeKey: CFString = "PixelFormatType"
/// The allocator for the pixel memory (ignored on Linux: the system allocator is always used).
nonisolated(unsafe) public let kCVPixelBufferMemoryAllocatorKey: CFString = "MemoryAllocator"
/// The width in pixels (a number).
nonisolated(unsafe) public let kCVPixelBufferWidthKey: CFString = "Width"
/// The height in pixels (a number).
nonisolated(unsafe) public let kCVPixelBufferHeightKey: CFString = "Height"
/// Extra columns of padding on the left of the image (a number).
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsLeftKey: CFString = "ExtendedPixelsLeft"
/// Extra rows of padding above the image (a number).
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsTopKey: CFString = "ExtendedPixelsTop"
/// Extra columns of padding on the right of the image (a number).
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsRightKey: CFString = "ExtendedPixelsRight"
/// Extra rows of padding below the image (a number).
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsBottomKey: CFString = "ExtendedPixelsBottom"
/// The alignment, in bytes, of each row (a number).
nonisolated(unsafe) public let kCVPixelBufferBytesPerRowAlignmentKey: CFString = "BytesPerRowAlignment"
/// Whether the buffer must be usable with CGBitmapContext (a Boolean; every buffer here is).
nonisolated(unsafe) public let kCVPixelBufferCGBitmapContextCompatibilityKey: CFString = "CGBitmapContextCompatibility"
/// Whether the buffer must be usable with CGImage (a Boolean; every buffer here is).
nonisolated(unsafe) public let kCVPixelBufferCGImageCompatibilityKey: CFString = "CGImageCompatibility"
/// Whether the buffer must be usable with OpenGL (a Boolean; accepted and ignored).
nonisolated(unsafe) public let kCVPixelBufferOpenGLCompatibilityKey: CFString = "OpenGLCompatibility"
/// The alignment, in bytes, of the start of each plane (a number).
nonisolated(unsafe) public let kCVPixelBufferPlaneAlignmentKey: CFString = "PlaneAlignment"
/// IOSurface properties (a dictionary; accepted and ignored: buffers live in main memory).
nonisolated(unsafe) public let kCVPixelBufferIOSurfacePropertiesKey: CFString = "IOSurfaceProperties"
/// Whether the buffer must be usable with OpenGL ES (a Boolean; accepted and ignored).
nonisolated(unsafe) public let kCVPixelBufferOpenGLESCompatibilityKey: CFString = "OpenGLESCompatibility"
/// Whether the buffer must be usable with Metal (a Boolean; accepted and ignored).
nonisolated(unsafe) public let kCVPixelBufferMetalCompatibilityKey: CFString = "MetalCompatibility"
/// Whether the buffer must be usable with an OpenGL texture cache (a Boolean; ignored).
nonisolated(unsafe) public let kCVPixelBufferOpenGLTextureCacheCompatibilityKey: CFString = "OpenGLTextureCacheCompatibility"
/// Whether the buffer must be usable with an OpenGL ES texture cache (a Boolean; ignored).
nonisolated(unsafe) public let kCVPixelBufferOpenGLESTextureCacheCompatibilityKey: CFString = "OpenGLESTextureCacheCompatibility"

/// Allocation settings read from a pixel buffer attributes dictionary.
///
/// Reading is tolerant, as Core Foundation's number handling is: a number may arrive as `Int`,
/// `Int32`, `UInt32`/`OSType`, `Double`, `Bool` or `NSNumber`, and the pixel format key may hold
/// one number or an array of them. Keys may be `String` or `NSString`.
package struct CVPixelBufferAttributeReader: Sendable {
    /// The pixel formats listed under `kCVPixelBufferPixelFormatTypeKey`, in order.
    package var pixelFormats: [OSType] = []
    /// `kCVPixelBufferWidthKey`, if present.
    package var width: Int?
    /// `kCVPixelBufferHeightKey`, if present.
    package var height: Int?
    /// `kCVPixelBufferBytesPerRowAlignmentKey`, if present and positive.
    package var bytesPerRowAlignment: Int?
    /// `kCVPixelBufferPlaneAlignmentKey`, if present and positive.
    package var planeAlignment: Int?
    /// The four `kCVPixelBufferExtendedPixels*Key` values (0 when absent).
    package var extendedPixels: (left: Int, right: Int, top: Int, bottom: Int) = (0, 0, 0, 0)
    /// False when a known key held a value of the wrong kind or a negative size.
    package var isValid = true

    /// Reads `attributes`; nil reads as no attributes.
    package init(_ attributes: NSDictionary?) {
        guard let attributes else { return }
        let values = CVPixelBufferAttributeReader.stringKeyed(attributes)
        if let f = values[(kCVPixelBufferPixelFormatTypeKey as String)] {
            if let n = CVPixelBufferAttributeReader.integer(f) {
                pixelFormats = [OSType(truncatingIfNeeded: n)]
            } else if let list = CVPixelBufferAttributeReader.array(f) {
                let numbers = list.compactMap(CVPixelBufferAttributeReader.integer)
                if numbers.count != list.count { isValid = false }
                pixelFormats = numbers.map { OSType(truncatingIfNeeded: $0) }
            } else {
                isValid = false
            }
        }
        func read(_ key: String) -> Int? {
            guard let v = values[key] else { return nil }
            guard let n = CVPixelBufferAttributeReader.integer(v) else { isValid = false; return nil }
            return n
        }
        width = read((kCVPixelBufferWidthKey as String))
        height = read((kCVPixelBufferHeightKey as String))
        if let w = width, w < 0 { isValid = false }
        if let h = height, h < 0 { isValid = false }
        if let a = read((kCVPixelBufferBytesPerRowAlignmentKey as String)), a > 0 { bytesPerRowAlignment = a }
        if let a = read((kCVPixelBufferPlaneAlignmentKey as String)), a > 0 { planeAlignment = a }
        let l = read((kCVPixelBufferExtendedPixelsLeftKey as String)) ?? 0
        let r = read((kCVPixelBufferExtendedPixelsRightKey as String)) ?? 0
        let t = read((kCVPixelBufferExtendedPixelsTopKey as String)) ?? 0
        let b = read((kCVPixelBufferExtendedPixelsBottomKey as String)) ?? 0
        if l < 0 || r < 0 || t < 0 || b < 0 { isValid = false }
        extendedPixels = (max(l, 0), max(r, 0), max(t, 0), max(b, 0))
    }

    /// The row alignment to allocate with: the requested one, else the default.
    package var effectiveRowAlignment: Int { bytesPerRowAlignment ?? CVPixelStorage.defaultBytesPerRowAlignment }
    /// The plane alignment to allocate with: the requested one, else the row alignment.
    package var effectivePlaneAlignment: Int { planeAlignment ?? effectiveRowAlignment }

    /// The dictionary's entries under their string keys (non-string keys are skipped).
    package static func stringKeyed(_ dictionary: NSDictionary) -> [String: Any] {
        var out: [String: Any] = [:]
        for (k, v) in dictionary {
            if let key = k as? String { out[key] = v }
        }
        return out
    }

    /// A number as `Int`, from any of the forms a CFNumber takes in Swift; nil otherwise.
    /// Floating-point values are truncated toward zero, as CFNumberGetValue does.
    package static func integer(_ value: Any) -> Int? {
        switch value {
        case let v as Int: return v
        case let v as Int32: return Int(v)
        case let v as UInt32: return Int(v)
        case let v as Int64: return Int(truncatingIfNeeded: v)
        case let v as UInt64: return Int(truncatingIfNeeded: v)
        case let v as Int16: return Int(v)
        case let v as UInt16: return Int(v)
        case let v as Int8: return Int(v)
        case let v as UInt8: return Int(v)
        case let v as UInt: return Int(truncatingIfNeeded: v)
        case let v as Bool: return v ? 1 : 0
        case let v as Double: return v.isFinite && abs(v) < 9e18 ? Int(v) : nil
        case let v as Float: return v.isFinite && abs(v) < 9e18 ? Int(v) : nil
        case let v as NSNumber:
            let d = v.doubleValue
            return d.isFinite && abs(d) < 9e18 ? v.intValue : nil
        default: return nil
        }
    }

    /// A number as `Double`, from any of the forms a CFNumber takes in Swift; nil otherwise.
    package static func double(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as NSNumber: return v.doubleValue
        default: return integer(value).map(Double.init)
        }
    }

    /// An array value (`[Any]` or `NSArray`) as `[Any]`; nil for anything else.
    package static func array(_ value: Any) -> [Any]? {
        if let a = value as? [Any] { return a }
        if let a = value as? NSArray { return a.map { $0 } }
        return nil
    }

    /// A dictionary value (`[String: Any]` or `NSDictionary`) as `[String: Any]`; nil otherwise.
    package static func dictionary(_ value: Any) -> [String: Any]? {
        if let d = value as? NSDictionary { return stringKeyed(d) }
        if let d = value as? [String: Any] { return d }
        return nil
    }
}
