// Core Foundation type identifiers of the ImageIO types, from the same registry as the Core
// Video, Core Media and Core Graphics ones: `CFGetTypeID(source) == CGImageSourceGetTypeID()`
// holds as on Apple platforms.

enum ImageIOTypeIDs {
    static let source = CFTypeIDRegistry.register("CGImageSource")
    static let destination = CFTypeIDRegistry.register("CGImageDestination")
}

extension CGImageSource: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CGImageSourceGetTypeID() }
}

extension CGImageDestination: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CGImageDestinationGetTypeID() }
}
