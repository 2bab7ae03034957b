// Core Foundation type identifiers of the Core Video types: `CFGetTypeID(buffer) ==
// CVPixelBufferGetTypeID()` holds as on Apple platforms.

private enum CVTypeIDs {
    static let pixelBuffer = CFTypeIDRegistry.register("CVPixelBuffer")
    static let pixelBufferPool = CFTypeIDRegistry.register("CVPixelBufferPool")
}

/// The type identifier of pixel buffers.
public func CVPixelBufferGetTypeID() -> CFTypeID { CVTypeIDs.pixelBuffer }
/// The type identifier of pixel buffer pools.
public func CVPixelBufferPoolGetTypeID() -> CFTypeID { CVTypeIDs.pixelBufferPool }

extension CVBuffer: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CVPixelBufferGetTypeID() }
}

extension CVPixelBufferPool: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CVPixelBufferPoolGetTypeID() }
}
