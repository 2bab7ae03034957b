// AVCapturePhotoSettings: what one photo request asks for (format, flash, size, metadata), with
// the unique identifier that keeps a settings object from being used twice.
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// The settings of one photo capture request, passed to
/// `AVCapturePhotoOutput.capturePhoto(with:delegate:)`.
///
/// Every object gets its own `uniqueID` (a copy made with `copy()` keeps it; `init(from:)`
/// makes a new one). Settings are checked when the capture is requested; a settings object
/// already used for a capture raises there.
open class AVCapturePhotoSettings: NSObject, NSCopying, @unchecked Sendable {
    private static let lastID = Mutex<Int64>(0)

    private static func nextID() -> Int64 {
        lastID.withLock {
            $0 += 1
            return $0
        }
    }

    private let _uniqueID: Int64
    private let _format: [String: Any]?
    /// The values a client sets, but the metadata.
    private struct Values {
        var flashMode: AVCaptureDevice.FlashMode = .off
        var maxPhotoDimensions = CMVideoDimensions()
    }
    private let values = Mutex(Values())
    /// The metadata set (its values in Sendable form).
    private let metadataValues = Mutex<[String: any Sendable]>([:])

    private init(uniqueID: Int64, format: [String: Any]?) {
        _uniqueID = uniqueID
        _format = format
        super.init()
    }

    /// Settings for a JPEG photo (`[AVVideoCodecKey: AVVideoCodecType.jpeg]`).
    public convenience override init() {
        self.init(uniqueID: Self.nextID(), format: [AVVideoCodecKey: AVVideoCodecType.jpeg])
    }

    /// Settings for a photo in `format`: `AVVideoCodecKey` (a compressed photo, one of the
    /// output's `availablePhotoCodecTypes`) or `kCVPixelBufferPixelFormatTypeKey` (an
    /// uncompressed one, one of `availablePhotoPixelFormatTypes`); nil means JPEG.
    public convenience init(format: [String: Any]?) {
        self.init(uniqueID: Self.nextID(), format: format ?? [AVVideoCodecKey: AVVideoCodecType.jpeg])
    }

    /// New settings (with a new `uniqueID`) copying every value of `photoSettings`.
    public convenience init(from photoSettings: AVCapturePhotoSettings) {
        self.init(uniqueID: Self.nextID(), format: photoSettings.format)
        copyValues(from: photoSettings)
    }

    private func copyValues(from other: AVCapturePhotoSettings) {
        let copied = other.values.withLock { $0 }
        values.withLock { $0 = copied }
        let metadata = other.metadataValues.withLock { $0 }
        metadataValues.withLock { $0 = metadata }
    }

    /// A copy with the same `uniqueID` (using it for a second capture raises too).
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVCapturePhotoSettings(uniqueID: _uniqueID, format: _format)
        copy.copyValues(from: self)
        return copy
    }

    /// This object's identifier, unique among settings objects (copies made with `copy()` share it).
    open var uniqueID: Int64 { _uniqueID }

    /// The photo's format, as given to `init(format:)`.
    open var format: [String: Any]? { _format }

    /// The file type of the processed photo: JPEG for JPEG photos, HEIC for HEVC ones, nil for
    /// uncompressed ones.
    open var processedFileType: AVFileType? {
        guard let codec = _format?[AVVideoCodecKey] else { return nil }
        switch Self.codecName(codec) {
        case AVVideoCodecType.jpeg.rawValue?: return .jpg
        case AVVideoCodecType.hevc.rawValue?: return .heic
        default: return nil
        }
    }

    /// The flash mode (default `.off`).
    open var flashMode: AVCaptureDevice.FlashMode {
        get { values.withLock { $0.flashMode } }
        set { values.withLock { $0.flashMode = newValue } }
    }

    /// The largest photo wanted; 0×0 (the default) takes the output's `maxPhotoDimensions`.
    open var maxPhotoDimensions: CMVideoDimensions {
        get { values.withLock { $0.maxPhotoDimensions } }
        set { values.withLock { $0.maxPhotoDimensions = newValue } }
    }

    /// Metadata written into the photo's file in addition to the output's (ImageIO property
    /// dictionaries, e.g. `kCGImagePropertyExifDictionary` or `kCGImagePropertyTIFFDictionary`).
    open var metadata: [String: Any] {
        get {
            let values: [String: any Sendable] = metadataValues.withLock { $0 }
            return values
        }
        set {
            let values = SendableDictionary.make(newValue)
            metadataValues.withLock { $0 = values }
        }
    }

    /// A codec value as its name ("jpeg", "hvc1"), from an `AVVideoCodecType` or a string.
    static func codecName(_ value: Any) -> String? {
        if let codec = value as? AVVideoCodecType { return codec.rawValue }
        if let text = value as? String { return text }
        if let text = value as? NSString { return String(text) }
        return nil
    }

    /// A pixel format value as an `OSType`.
    static func pixelFormat(_ value: Any) -> OSType? {
        if let n = value as? NSNumber { return n.uint32Value }
        if let u = value as? UInt32 { return u }
        if let i = value as? Int { return OSType(truncatingIfNeeded: i) }
        return nil
    }
}
