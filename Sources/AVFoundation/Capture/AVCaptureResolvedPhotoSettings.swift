// AVCaptureResolvedPhotoSettings: what a photo capture will actually do, given to each delegate call.
import CoreMedia
import Foundation

/// The settings a photo capture resolved to: the request's `uniqueID`, the photo's size and
/// whether the flash fires. Made by the photo output; Apple declares no public initialiser.
open class AVCaptureResolvedPhotoSettings: NSObject, @unchecked Sendable {
    private let _uniqueID: Int64
    private let _photoDimensions: CMVideoDimensions
    private let _flashEnabled: Bool

    init(uniqueID: Int64, photoDimensions: CMVideoDimensions, isFlashEnabled: Bool) {
        _uniqueID = uniqueID
        _photoDimensions = photoDimensions
        _flashEnabled = isFlashEnabled
        super.init()
    }

    /// The `uniqueID` of the settings the capture was requested with.
    open var uniqueID: Int64 { _uniqueID }
    /// The photo's size in pixels (after turning).
    open var photoDimensions: CMVideoDimensions { _photoDimensions }
    /// Whether the flash fires: for `.on` on a camera with a flash (`.auto` never: no Linux
    /// camera reports a dark scene).
    open var isFlashEnabled: Bool { _flashEnabled }
    /// How many photos the request delivers: 1.
    open var expectedPhotoCount: Int { 1 }
    /// Preview pictures are not delivered: 0×0.
    open var previewDimensions: CMVideoDimensions { CMVideoDimensions() }
    /// Embedded thumbnails are not written: 0×0.
    open var embeddedThumbnailDimensions: CMVideoDimensions { CMVideoDimensions() }
    /// RAW photos are not captured: 0×0.
    open var rawPhotoDimensions: CMVideoDimensions { CMVideoDimensions() }
}
