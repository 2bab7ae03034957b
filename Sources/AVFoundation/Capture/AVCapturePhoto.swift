// AVCapturePhoto: one photo a photo output delivers — its JPEG or HEVC picture (encoded once)
// or pixel buffer, its metadata, and the file made from both on request.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import ImageIO
internal import MediaEngine

/// A photo delivered to `photoOutput(_:didFinishProcessingPhoto:error:)`.
///
/// A JPEG or HEVC photo holds the compressed picture and its metadata separately:
/// `fileDataRepresentation()` writes the metadata (the output's `{Exif}` and `{TIFF}`, merged
/// with the settings' `metadata`) without recompressing the picture — as an Exif segment into
/// the JPEG, or as the Exif item of a HEIC file around the HEVC picture. An uncompressed photo
/// holds a `pixelBuffer` and has no file representation here.
open class AVCapturePhoto: NSObject, @unchecked Sendable {
    private let _timestamp: CMTime
    private let _pixelBuffer: CVPixelBuffer?
    private let jpeg: Data?
    private let hevc: HeifPicture?
    private let _metadata: [String: Any]
    private let _resolvedSettings: AVCaptureResolvedPhotoSettings
    private let _sourceDeviceType: AVCaptureDevice.DeviceType?

    init(timestamp: CMTime, pixelBuffer: CVPixelBuffer?, jpeg: Data?, hevc: HeifPicture? = nil, metadata: [String: Any],
         resolvedSettings: AVCaptureResolvedPhotoSettings, sourceDeviceType: AVCaptureDevice.DeviceType?) {
        _timestamp = timestamp
        _pixelBuffer = pixelBuffer
        self.jpeg = jpeg
        self.hevc = hevc
        _metadata = metadata
        _resolvedSettings = resolvedSettings
        _sourceDeviceType = sourceDeviceType
        super.init()
    }

    /// The capture time of the frame the photo was taken from (host time clock).
    open var timestamp: CMTime { _timestamp }
    /// Whether the photo is RAW: never.
    open var isRawPhoto: Bool { false }
    /// The picture of an uncompressed photo; nil for a JPEG or HEVC one.
    open var pixelBuffer: CVPixelBuffer? { _pixelBuffer }
    /// Preview pictures are not delivered: nil.
    open var previewPixelBuffer: CVPixelBuffer? { nil }
    /// The photo's metadata as ImageIO property dictionaries: `{Exif}`, `{TIFF}` and `Orientation`.
    open var metadata: [String: Any] { _metadata }
    /// The settings the capture resolved to.
    open var resolvedSettings: AVCaptureResolvedPhotoSettings { _resolvedSettings }
    /// Which photo of the request this is: 1.
    open var photoCount: Int { 1 }
    /// The type of the camera the photo came from.
    open var sourceDeviceType: AVCaptureDevice.DeviceType? { _sourceDeviceType }

    /// The photo as a file with its metadata: a JPEG with an Exif segment, or a HEIC file with an
    /// Exif item; nil for an uncompressed photo.
    open func fileDataRepresentation() -> Data? {
        let exif = StillCapture.dictionary(_metadata[kCGImagePropertyExifDictionary as String])
        let tiff = StillCapture.dictionary(_metadata[kCGImagePropertyTIFFDictionary as String]) ?? [:]
        if let hevc { return StillCapture.heic(hevc, tiff: tiff, exif: exif) }
        guard let jpeg else { return nil }
        return StillCapture.withExif(jpeg, tiff: tiff, exif: exif)
    }

    /// The photo's picture as a `CGImage` (the JPEG or HEIC decoded, or the pixel buffer converted).
    open func cgImageRepresentation() -> CGImage? {
        if let hevc, let file = HeifWriter.file(hevc) { return ImageCodec.decode(file) }
        if let jpeg { return ImageCodec.decode(jpeg) }
        if let _pixelBuffer { return try? PixelConverter.shared.makeCGImage(from: _pixelBuffer) }
        return nil
    }

    /// Preview pictures are not delivered: nil.
    open func previewCGImageRepresentation() -> CGImage? { nil }
}
