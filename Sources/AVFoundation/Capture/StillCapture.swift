// StillCapture: what the still image and photo outputs share — one captured frame rendered at
// the session's delivered size (preset crop, zoom, turn, mirror), encoded once as JPEG by
// ImageIO's encoder (libavcodec mjpeg) or as HEVC (libx265, boxed as HEIC by HeifWriter), and
// its Exif and TIFF metadata.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import ImageIO
internal import MediaEngine

enum StillCapture {
    /// The JPEG quality of captured stills and photos.
    static let jpegQuality = 0.9

    /// `frame` converted into a new buffer of `pixelFormat` at the delivered size (after turning):
    /// cropped by the preset and the zoom, scaled, turned and mirrored as the connection says.
    static func render(_ frame: LiveFrame, connection: AVCaptureConnection, geometry: CaptureVideoGeometry,
                       pixelFormat: OSType) throws -> CVPixelBuffer {
        let (angle, mirrored) = connection.videoSettingsSnapshot
        let turned = angle % 180 != 0
        let upright = (width: geometry.width, height: geometry.height)
        let size = turned ? (width: upright.height, height: upright.width) : upright
        var options = PixelConverter.Options()
        options.sourceRect = geometry.zoomedCrop
        if angle == 0 && !mirrored {
            let output = try makeBuffer(pixelFormat, size.width, size.height)
            try PixelConverter.shared.transfer(from: frame.pixelBuffer, to: output, options: options)
            return output
        }
        // Turning and mirroring move 32-bit pixels with pixman (the video data output's remap).
        let bgra = kCVPixelFormatType_32BGRA
        let uprightBuffer = try makeBuffer(bgra, upright.width, upright.height)
        try PixelConverter.shared.transfer(from: frame.pixelBuffer, to: uprightBuffer, options: options)
        let turnedBuffer = try makeBuffer(bgra, size.width, size.height)
        guard AVCaptureVideoDataOutput.remap(uprightBuffer, into: turnedBuffer, angle: angle, mirrored: mirrored) else {
            throw AVError(.outOfMemory)
        }
        if pixelFormat == bgra { return turnedBuffer }
        let output = try makeBuffer(pixelFormat, size.width, size.height)
        try PixelConverter.shared.transfer(from: turnedBuffer, to: output, options: PixelConverter.Options())
        return output
    }

    private static func makeBuffer(_ format: OSType, _ width: Int, _ height: Int) throws -> CVPixelBuffer {
        var buffer: CVPixelBuffer?
        guard CVPixelBufferCreate(nil, width, height, format, nil, &buffer) == kCVReturnSuccess, let buffer else {
            throw AVError(.outOfMemory)
        }
        return buffer
    }

    /// `buffer` as a baseline JPEG (no Exif segment), at `quality` (0…1).
    static func jpeg(_ buffer: CVPixelBuffer, quality: Double = jpegQuality) throws -> Data {
        let image = try PixelConverter.shared.makeCGImage(from: buffer)
        guard let data = ImageCodec.encode(image, as: .jpeg, quality: quality) else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The picture could not be encoded as JPEG."])
        }
        return data
    }

    /// The HEVC quality of captured photos (as JPEG's).
    static let heicQuality = 0.9

    /// `buffer` coded with HEVC (libx265, one intra picture) at `quality` (0…1), ready to be
    /// boxed into a HEIC file with its metadata.
    static func hevc(_ buffer: CVPixelBuffer, quality: Double = heicQuality) throws -> HeifPicture {
        let image = try PixelConverter.shared.makeCGImage(from: buffer)
        guard let picture = ImageCodec.encodeHEVCPicture(image, quality: quality) else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The picture could not be encoded as HEVC."])
        }
        return picture
    }

    /// A HEIC file of `picture` with an Exif item made from `tiff` and `exif`.
    static func heic(_ picture: HeifPicture, tiff: [String: Any], exif: [String: Any]?) -> Data? {
        HeifWriter.file(picture, exifTIFF: ExifWriter.tiffStructure(tiff: tiff, exif: exif))
    }

    /// The capture's `{Exif}` dictionary: size, capture date (local time, Exif's format) and offset.
    static func exif(width: Int, height: Int, date: Date) -> NSMutableDictionary {
        let (stamp, subsec, offset) = dateParts(date)
        return NSMutableDictionary(dictionary: [
            kCGImagePropertyExifPixelXDimension as String: NSNumber(value: width),
            kCGImagePropertyExifPixelYDimension as String: NSNumber(value: height),
            kCGImagePropertyExifDateTimeOriginal as String: stamp,
            kCGImagePropertyExifDateTimeDigitized as String: stamp,
            "SubsecTimeOriginal": subsec,
            "SubsecTimeDigitized": subsec,
            "OffsetTimeOriginal": offset,
            "OffsetTimeDigitized": offset,
        ])
    }

    /// The capture's `{TIFF}` dictionary: the camera's maker and model, the date, upright orientation.
    static func tiff(device: AVCaptureDevice?, date: Date) -> NSMutableDictionary {
        let dictionary = NSMutableDictionary(dictionary: [
            kCGImagePropertyTIFFDateTime as String: dateParts(date).stamp,
            kCGImagePropertyTIFFOrientation as String: NSNumber(value: 1),
        ])
        if let device {
            dictionary[kCGImagePropertyTIFFMake as String] = device.manufacturer
            dictionary[kCGImagePropertyTIFFModel as String] = device.localizedName
        }
        return dictionary
    }

    /// "yyyy:MM:dd HH:mm:ss" in local time, milliseconds, and the offset "+hh:mm".
    private static func dateParts(_ date: Date) -> (stamp: String, subsec: String, offset: String) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy:MM:dd HH:mm:ss"
        let seconds = TimeZone.current.secondsFromGMT(for: date)
        let offset = (seconds < 0 ? "-" : "+") + String(format: "%02d:%02d", abs(seconds) / 3600, abs(seconds) % 3600 / 60)
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down)) % 1000
        return (formatter.string(from: date), String(format: "%03d", millis), offset)
    }

    /// Plain `[String: Any]` of an attachment dictionary (NSDictionary or Swift dictionary).
    static func dictionary(_ value: Any?) -> [String: Any]? {
        if let d = value as? [String: Any] { return d }
        if let d = value as? NSDictionary {
            var out: [String: Any] = [:]
            for (k, v) in d { if let key = k as? String { out[key] = v } else if let key = k as? NSString { out[String(key)] = v } }
            return out
        }
        return nil
    }

    /// `jpeg` with an Exif APP1 segment made from `tiff` and `exif` (nothing else changes).
    static func withExif(_ jpeg: Data, tiff: [String: Any], exif: [String: Any]?) -> Data? {
        try? ExifWriter.settingExif(tiff: tiff, exif: exif, in: jpeg)
    }

    /// The device a connection's first input port comes from.
    static func device(of connection: AVCaptureConnection) -> AVCaptureDevice? {
        connection.inputPorts.first?.input.sourceDevice
    }
}
