// Core Foundation type identifiers of the Core Graphics types: `CFGetTypeID(image) ==
// CGImageGetTypeID()` holds as on Apple platforms.

private enum CGTypeIDs {
    static let image = CFTypeIDRegistry.register("CGImage")
    static let color = CFTypeIDRegistry.register("CGColor")
    static let colorSpace = CFTypeIDRegistry.register("CGColorSpace")
    static let context = CFTypeIDRegistry.register("CGContext")
    static let dataProvider = CFTypeIDRegistry.register("CGDataProvider")
}

/// The type identifier of images.
public func CGImageGetTypeID() -> CFTypeID { CGTypeIDs.image }
/// The type identifier of colours.
public func CGColorGetTypeID() -> CFTypeID { CGTypeIDs.color }
/// The type identifier of colour spaces.
public func CGColorSpaceGetTypeID() -> CFTypeID { CGTypeIDs.colorSpace }
/// The type identifier of drawing contexts.
public func CGContextGetTypeID() -> CFTypeID { CGTypeIDs.context }
/// The type identifier of data providers.
public func CGDataProviderGetTypeID() -> CFTypeID { CGTypeIDs.dataProvider }

extension CGImage: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CGImageGetTypeID() }
}

extension CGColor: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CGColorGetTypeID() }
}

extension CGColorSpace: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CGColorSpaceGetTypeID() }
}

extension CGContext: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CGContextGetTypeID() }
}

extension CGDataProvider: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CGDataProviderGetTypeID() }
}
