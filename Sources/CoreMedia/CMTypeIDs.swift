// Core Foundation type identifiers of the Core Media types: `CFGetTypeID(sample) ==
// CMSampleBufferGetTypeID()` holds as on Apple platforms.

private enum CMTypeIDs {
    static let sampleBuffer = CFTypeIDRegistry.register("CMSampleBuffer")
    static let formatDescription = CFTypeIDRegistry.register("CMFormatDescription")
    static let blockBuffer = CFTypeIDRegistry.register("CMBlockBuffer")
}

/// The type identifier of sample buffers.
public func CMSampleBufferGetTypeID() -> CFTypeID { CMTypeIDs.sampleBuffer }
/// The type identifier of format descriptions (video, audio and every other media type).
public func CMFormatDescriptionGetTypeID() -> CFTypeID { CMTypeIDs.formatDescription }
/// The type identifier of block buffers.
public func CMBlockBufferGetTypeID() -> CFTypeID { CMTypeIDs.blockBuffer }

extension CMSampleBuffer: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CMSampleBufferGetTypeID() }
}

extension CMFormatDescription: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CMFormatDescriptionGetTypeID() }
}

extension CMBlockBuffer: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CMBlockBufferGetTypeID() }
}
