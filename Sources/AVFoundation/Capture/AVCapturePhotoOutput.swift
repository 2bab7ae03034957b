// AVCapturePhotoOutput: photos on request — the next frame after the request, rendered at the
// session's size, encoded once as JPEG or HEVC (or kept uncompressed), reported to the request's
// delegate in Apple's order.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Synchronization
import ImageIO
internal import MediaEngine

/// Captures photos from a session's video input.
///
/// A request (`capturePhoto(with:delegate:)`) takes the next frame the camera delivers after
/// it, at the session's delivered size (the preset's, turned and mirrored as the connection
/// says). JPEG and HEVC photos are encoded once, at the format's `AVVideoQualityKey` (in it or
/// in its `AVVideoCompressionPropertiesKey` dictionary) or 0.9 (HEVC by libx265, one intra
/// picture); their metadata (`{Exif}`: size and capture date; `{TIFF}`: the camera's maker and
/// model) is written into the file — JPEG, or HEIC with an Exif item — by
/// `AVCapturePhoto.fileDataRepresentation()`. Uncompressed photos hold a pixel buffer. The
/// delegate is called on an internal serial queue, holding the delegate strongly until the
/// request is over. RAW, depth, live photos and bracketing are not available; a flash (virtual
/// cameras' `flash` option) is reported in the resolved settings and Exif but lights nothing.
open class AVCapturePhotoOutput: AVCaptureOutput, @unchecked Sendable {
    /// A request waiting for its frame.
    // Invariant: the delegate (not Sendable) is called only on `callbacks`.
    private struct Request: @unchecked Sendable {
        let settings: AVCapturePhotoSettings
        let resolved: AVCaptureResolvedPhotoSettings
        let pixelFormat: OSType?
        /// The codec of a compressed photo (ignored for an uncompressed one) and its quality (0…1).
        let codec: AVVideoCodecType
        let quality: Double
        let delegate: any AVCapturePhotoCaptureDelegate
    }

    /// The requests waiting, the settings IDs used, whether capture runs, the size limit set.
    private struct State {
        var requests: [Request] = []
        var usedIDs = Set<Int64>()
        var accepting = false
        var maxDimensions: CMVideoDimensions?
    }
    private let state = Mutex(State())
    /// Delegate calls, in request order.
    private let callbacks = DispatchQueue(label: "com.avfoundation.capture.photo")

    public override init() {
        super.init()
    }

    // MARK: Capabilities

    /// The codecs photos may be encoded with: HEVC and JPEG, in Apple's order.
    open var availablePhotoCodecTypes: [AVVideoCodecType] { [.hevc, .jpeg] }

    /// The pixel formats uncompressed photos may have: `'420v'`, `'420f'`, `'BGRA'`.
    open var availablePhotoPixelFormatTypes: [OSType] {
        [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, kCVPixelFormatType_32BGRA]
    }

    /// The file types photos may be written as: HEIC and JPEG.
    open var availablePhotoFileTypes: [AVFileType] { [.heic, .jpg] }

    /// The codecs photos of `fileType` may have: HEVC for `.heic`, JPEG for `.jpg`, none otherwise.
    open func supportedPhotoCodecTypes(for fileType: AVFileType) -> [AVVideoCodecType] {
        switch fileType {
        case .heic: return [.hevc]
        case .jpg: return [.jpeg]
        default: return []
        }
    }

    /// Flash modes: `.off`, `.on` and `.auto` when the connected camera has a flash
    /// (`hasFlash`: a virtual camera with the `flash` option), else `.off` only.
    open var supportedFlashModes: [AVCaptureDevice.FlashMode] {
        guard let connection = connection(with: .video), StillCapture.device(of: connection)?.hasFlash == true else { return [.off] }
        return [.off, .on, .auto]
    }

    /// RAW photos are not available: none.
    open var availableRawPhotoPixelFormatTypes: [OSType] { [] }

    /// The largest photo the output takes: by default the size the session delivers (0×0 when
    /// the output has no video connection). Photos are never larger than that size.
    open var maxPhotoDimensions: CMVideoDimensions {
        get { state.withLock { $0.maxDimensions } ?? deliveredDimensions() ?? CMVideoDimensions() }
        set { state.withLock { $0.maxDimensions = newValue } }
    }

    /// The photo size for the current configuration (after turning), or nil.
    private func deliveredDimensions() -> CMVideoDimensions? {
        guard let connection = connection(with: .video), let session = owningSession,
              let device = StillCapture.device(of: connection),
              let choice = CaptureGraph.videoChoice(for: device, preset: session.sessionPreset) else { return nil }
        let turned = connection.videoSettingsSnapshot.angle % 180 != 0
        return turned ? CMVideoDimensions(width: Int32(choice.height), height: Int32(choice.width))
                      : CMVideoDimensions(width: Int32(choice.width), height: Int32(choice.height))
    }

    // MARK: Capturing

    /// Takes a photo with `settings` and reports it to `delegate`. Raises (as Apple's does) when
    /// `settings` (or another object with its `uniqueID`) was used before, when the output has
    /// no active video connection, or when the settings ask for a format or flash mode the
    /// output does not offer. When the session is not running, the delegate gets
    /// `didFinishCaptureFor` with `AVError.sessionNotRunning`.
    open func capturePhoto(with settings: AVCapturePhotoSettings, delegate: any AVCapturePhotoCaptureDelegate) {
        let selector = "capturePhotoWithSettings:delegate:"
        let reused = state.withLock { !$0.usedIDs.insert(settings.uniqueID).inserted }
        if reused {
            CaptureException.raise("AVCapturePhotoOutput", selector, "Settings may not be re-used")
        }
        guard let connection = connection(with: .video), connection.isActive, connection.isEnabled else {
            CaptureException.raise("AVCapturePhotoOutput", selector, "No active and enabled video connection")
        }
        var pixelFormat: OSType?
        var codecType = AVVideoCodecType.jpeg
        var quality = StillCapture.jpegQuality
        let format = settings.format ?? [:]
        if let codec = format[AVVideoCodecKey] {
            guard let name = AVCapturePhotoSettings.codecName(codec), availablePhotoCodecTypes.contains(AVVideoCodecType(rawValue: name)) else {
                CaptureException.raise("AVCapturePhotoOutput", selector,
                                       "settings.format's AVVideoCodecKey must be present in -availablePhotoCodecTypes")
            }
            codecType = AVVideoCodecType(rawValue: name)
            // A compression level: AVVideoQualityKey in the format or in its compression properties.
            let properties = StillCapture.dictionary(format[AVVideoCompressionPropertiesKey]) ?? [:]
            if let value = (format[AVVideoQualityKey] ?? properties[AVVideoQualityKey]).flatMap(Self.number), value.isFinite {
                quality = min(max(value, 0), 1)
            }
        } else if let value = format[kCVPixelBufferPixelFormatTypeKey as String] {
            guard let type = AVCapturePhotoSettings.pixelFormat(value), availablePhotoPixelFormatTypes.contains(type) else {
                CaptureException.raise("AVCapturePhotoOutput", selector,
                                       "settings.format's kCVPixelBufferPixelFormatTypeKey must be present in -availablePhotoPixelFormatTypes")
            }
            pixelFormat = type
        } else {
            CaptureException.raise("AVCapturePhotoOutput", selector,
                                   "settings.format must contain AVVideoCodecKey or kCVPixelBufferPixelFormatTypeKey")
        }
        guard supportedFlashModes.contains(settings.flashMode) else {
            CaptureException.raise("AVCapturePhotoOutput", selector,
                                   "settings.flashMode must be set to a value present in the supportedFlashModes array")
        }
        let limit = maxPhotoDimensions
        let wanted = settings.maxPhotoDimensions
        if wanted.width > 0 || wanted.height > 0, limit.width > 0, wanted.width > limit.width || wanted.height > limit.height {
            CaptureException.raise("AVCapturePhotoOutput", selector,
                                   "settings.maxPhotoDimensions must be less than or equal to self.maxPhotoDimensions")
        }
        let dimensions = deliveredDimensions() ?? limit
        // `.auto` fires only in the dark, which no Linux camera reports: it does not fire.
        let resolved = AVCaptureResolvedPhotoSettings(uniqueID: settings.uniqueID, photoDimensions: dimensions,
                                                      isFlashEnabled: settings.flashMode == .on)
        let request = Request(settings: settings, resolved: resolved, pixelFormat: pixelFormat, codec: codecType,
                              quality: quality, delegate: delegate)
        let queued = state.withLock { state -> Bool in
            guard state.accepting else { return false }
            state.requests.append(request)
            return true
        }
        callbacks.async { [self] in
            request.delegate.photoOutput(self, willBeginCaptureFor: resolved)
            if !queued { request.delegate.photoOutput(self, didFinishCaptureFor: resolved, error: AVError(.sessionNotRunning)) }
        }
    }

    /// A number from a settings dictionary (NSNumber or a Swift number).
    private static func number(_ value: Any) -> Double? {
        switch value {
        case let n as NSNumber: return n.doubleValue
        case let d as Double: return d
        case let f as Float: return Double(f)
        case let i as Int: return Double(i)
        default: return nil
        }
    }

    // MARK: Sink

    override func connectionLimit(for mediaType: AVMediaType) -> Int { mediaType == .video ? 1 : 0 }

    override func captureWillStart() {
        state.withLock { $0.accepting = true }
    }

    override func captureDidStop() {
        let waiting = state.withLock { state -> [Request] in
            state.accepting = false
            defer { state.requests = [] }
            return state.requests
        }
        guard !waiting.isEmpty else { return }
        callbacks.async { [self] in
            for request in waiting {
                request.delegate.photoOutput(self, didFinishCaptureFor: request.resolved, error: AVError(.sessionNotRunning))
            }
        }
    }

    override func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
        let taken = state.withLock { state -> [Request] in
            defer { state.requests = [] }
            return state.requests
        }
        guard !taken.isEmpty else { return }
        let date = Date()
        let deviceType = StillCapture.device(of: connection)?.deviceType
        for request in taken {
            callbacks.async { [self] in
                request.delegate.photoOutput(self, willCapturePhotoFor: request.resolved)
                let result = Result { try makePhoto(frame, connection: connection, geometry: geometry, request: request,
                                                    date: date, deviceType: deviceType) }
                request.delegate.photoOutput(self, didCapturePhotoFor: request.resolved)
                switch result {
                case .success(let photo):
                    request.delegate.photoOutput(self, didFinishProcessingPhoto: photo, error: nil)
                    request.delegate.photoOutput(self, didFinishCaptureFor: request.resolved, error: nil)
                case .failure(let error):
                    request.delegate.photoOutput(self, didFinishCaptureFor: request.resolved, error: error)
                }
            }
        }
    }

    /// The photo of `frame` for `request`.
    private func makePhoto(_ frame: LiveFrame, connection: AVCaptureConnection, geometry: CaptureVideoGeometry, request: Request,
                           date: Date, deviceType: AVCaptureDevice.DeviceType?) throws -> AVCapturePhoto {
        let buffer = try StillCapture.render(frame, connection: connection, geometry: geometry,
                                             pixelFormat: request.pixelFormat ?? kCVPixelFormatType_32BGRA)
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        // The output's metadata, then the settings' on top (dictionaries merged key by key).
        var exif = StillCapture.dictionary(StillCapture.exif(width: width, height: height, date: date)) ?? [:]
        let device = StillCapture.device(of: connection)
        // Exif's Flash: fired (bit 0) and the mode (bits 3–4: 1 on, 2 off, 3 auto); 32: no flash.
        let flash: Int
        if device?.hasFlash == true {
            switch request.settings.flashMode {
            case .on: flash = 0b01001
            case .off: flash = 0b10000
            case .auto: flash = 0b11000
            }
        } else {
            flash = 0b100000
        }
        exif[kCGImagePropertyExifFlash as String] = NSNumber(value: flash)
        var tiff = StillCapture.dictionary(StillCapture.tiff(device: device, date: date)) ?? [:]
        var metadata: [String: Any] = [kCGImagePropertyOrientation as String: NSNumber(value: 1)]
        for (key, value) in request.settings.metadata {
            if key == kCGImagePropertyExifDictionary as String, let extra = StillCapture.dictionary(value) {
                exif.merge(extra) { _, new in new }
            } else if key == kCGImagePropertyTIFFDictionary as String, let extra = StillCapture.dictionary(value) {
                tiff.merge(extra) { _, new in new }
            } else {
                metadata[key] = value
            }
        }
        metadata[kCGImagePropertyExifDictionary as String] = exif
        metadata[kCGImagePropertyTIFFDictionary as String] = tiff
        let compressed = request.pixelFormat == nil
        let jpeg = compressed && request.codec == .jpeg ? try StillCapture.jpeg(buffer, quality: request.quality) : nil
        let hevc = compressed && request.codec == .hevc ? try StillCapture.hevc(buffer, quality: request.quality) : nil
        return AVCapturePhoto(timestamp: frame.pts, pixelBuffer: compressed ? nil : buffer, jpeg: jpeg, hevc: hevc,
                              metadata: metadata, resolvedSettings: request.resolved, sourceDeviceType: deviceType)
    }
}
