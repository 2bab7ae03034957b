// AVCaptureStillImageOutput: single pictures on request — the next frame after the request,
// rendered at the session's size and encoded once as JPEG (or handed over uncompressed), with a
// mutable {Exif} attachment that jpegStillImageNSDataRepresentation splices in without
// recompressing.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Synchronization
import ImageIO
internal import MediaEngine

/// Captures still pictures from a session's video input (deprecated on Apple platforms in favour
/// of `AVCapturePhotoOutput`; kept for the code that still uses it).
///
/// A request takes the next frame the camera delivers after it (never one captured earlier), at
/// the session preset's size, turned and mirrored as the connection says. JPEG stills (the
/// default) are encoded once at quality 0.9; the sample buffer holds the JPEG bytes in a
/// `CMBlockBuffer`, without an Exif segment, and carries the metadata as a mutable `{Exif}`
/// attachment (and a `{TIFF}` one): `jpegStillImageNSDataRepresentation(_:)` writes the
/// attachments as they are when it is called. Uncompressed stills hold a pixel buffer.
/// Completion handlers run on an internal queue.
open class AVCaptureStillImageOutput: AVCaptureOutput, @unchecked Sendable {
    /// A request waiting for its frame.
    private struct Request: Sendable {
        let connection: AVCaptureConnection
        let handler: @Sendable (CMSampleBuffer?, (any Error)?) -> Void
    }

    /// What the settings ask for: a JPEG or a pixel format.
    private enum Kind: Equatable {
        case jpeg
        case uncompressed(OSType)
    }

    /// The settings, the requests waiting, and whether capture runs.
    private struct State {
        var kind = Kind.jpeg
        var requests: [Request] = []
        var capturing = false
        var accepting = false
    }
    private let state = Mutex(State())
    private let work = DispatchQueue(label: "com.avfoundation.capture.still-image")

    public override init() {
        super.init()
    }

    // MARK: Settings

    /// The pixel formats uncompressed stills may have: `'420v'`, `'420f'`, `'BGRA'`.
    open var availableImageDataCVPixelFormatTypes: [NSNumber] {
        [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
         kCVPixelFormatType_32BGRA].map { NSNumber(value: $0) }
    }

    /// The codecs stills may be encoded with: JPEG.
    open var availableImageDataCodecTypes: [AVVideoCodecType] { [.jpeg] }

    /// The stills' format: `[AVVideoCodecKey: AVVideoCodecType.jpeg]` (the default) or
    /// `[kCVPixelBufferPixelFormatTypeKey: one of availableImageDataCVPixelFormatTypes]`. nil or
    /// empty restores the default; other codecs or pixel formats raise.
    open var outputSettings: [String: Any]! {
        get {
            switch state.withLock({ $0.kind }) {
            case .jpeg: return [AVVideoCodecKey: AVVideoCodecType.jpeg]
            case .uncompressed(let format): return [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: format)]
            }
        }
        set {
            var wanted = Kind.jpeg
            if let newValue, !newValue.isEmpty {
                if let codec = newValue[AVVideoCodecKey] {
                    let name = (codec as? AVVideoCodecType)?.rawValue ?? (codec as? String) ?? (codec as? NSString).map { String($0) }
                    guard let name, availableImageDataCodecTypes.contains(AVVideoCodecType(rawValue: name)) else {
                        CaptureException.raise("AVCaptureStillImageOutput", "setOutputSettings:",
                                               "Unsupported value for AVVideoCodecKey - use -availableImageDataCodecTypes")
                    }
                } else if let value = newValue[kCVPixelBufferPixelFormatTypeKey as String] {
                    let format = (value as? NSNumber)?.uint32Value ?? (value as? UInt32) ?? (value as? Int).map { UInt32(truncatingIfNeeded: $0) }
                    guard let format, availableImageDataCVPixelFormatTypes.contains(NSNumber(value: format)) else {
                        CaptureException.raise("AVCaptureStillImageOutput", "setOutputSettings:",
                                               "Unsupported value for kCVPixelBufferPixelFormatTypeKey - use -availableImageDataCVPixelFormatTypes")
                    }
                    wanted = .uncompressed(format)
                } else {
                    CaptureException.raise("AVCaptureStillImageOutput", "setOutputSettings:",
                                           "Either AVVideoCodecKey or kCVPixelBufferPixelFormatTypeKey must be specified")
                }
            }
            state.withLock { $0.kind = wanted }
        }
    }

    /// Whether a still is being captured (from the request until its picture is taken);
    /// observable with key-value observing.
    open var isCapturingStillImage: Bool { state.withLock { $0.capturing } }

    // MARK: Capturing

    /// Captures the next frame on `connection` (one of this output's active connections, else
    /// the call raises) and calls `handler` with the still, or with an error when the session
    /// is not running or stops first.
    open func captureStillImageAsynchronously(from connection: AVCaptureConnection,
                                              completionHandler handler: @escaping @Sendable (CMSampleBuffer?, (any Error)?) -> Void) {
        guard connections.contains(where: { $0 === connection }), connection.isActive, connection.isEnabled else {
            CaptureException.raise("AVCaptureStillImageOutput", "captureStillImageAsynchronouslyFromConnection:completionHandler:",
                                   "- inactive/invalid connection passed.")
        }
        // Observers see the capture begin before its frame can end it.
        let running = state.withLock { $0.accepting }
        if running { setCapturing(true) }
        let queued = running && state.withLock { state -> Bool in
            guard state.accepting else { return false }
            state.requests.append(Request(connection: connection, handler: handler))
            return true
        }
        guard queued else {
            if running, state.withLock({ $0.requests.isEmpty }) { setCapturing(false) }
            work.async { handler(nil, AVError(.sessionNotRunning)) }
            return
        }
    }

    /// The JPEG file of a still: the sample buffer's JPEG bytes with an Exif segment made from
    /// its `{TIFF}` and `{Exif}` attachments as they are now (the compressed picture is copied
    /// unchanged). Raises when the buffer holds no JPEG.
    open class func jpegStillImageNSDataRepresentation(_ jpegSampleBuffer: CMSampleBuffer) -> Data? {
        guard let format = CMSampleBufferGetFormatDescription(jpegSampleBuffer),
              CMFormatDescriptionGetMediaSubType(format) == kCMVideoCodecType_JPEG,
              let block = CMSampleBufferGetDataBuffer(jpegSampleBuffer) else {
            CaptureException.raise("AVCaptureStillImageOutput", "jpegStillImageNSDataRepresentation:", "Not a jpeg sample buffer")
        }
        let length = CMBlockBufferGetDataLength(block)
        var jpeg = Data(count: length)
        let status = jpeg.withUnsafeMutableBytes { raw in
            CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: length, destination: raw.baseAddress!)
        }
        guard status == kCMBlockBufferNoErr else { return nil }
        let exif = StillCapture.dictionary(CMGetAttachment(jpegSampleBuffer, key: kCGImagePropertyExifDictionary, attachmentModeOut: nil))
        let tiff = StillCapture.dictionary(CMGetAttachment(jpegSampleBuffer, key: kCGImagePropertyTIFFDictionary, attachmentModeOut: nil))
        guard exif != nil || tiff != nil else { return jpeg }
        return StillCapture.withExif(jpeg, tiff: tiff ?? [:], exif: exif)
    }

    private func setCapturing(_ value: Bool) {
        let old = state.withLock { state -> Bool? in
            guard state.capturing != value else { return nil }
            defer { state.capturing = value }
            return state.capturing
        }
        if let old { KVORegistry.shared.didChange(self, \AVCaptureStillImageOutput.isCapturingStillImage, old: old) }
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
        setCapturing(false)
        work.async {
            for request in waiting { request.handler(nil, AVError(.sessionNotRunning)) }
        }
    }

    override func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
        let (taken, kind) = state.withLock { state -> ([Request], Kind) in
            let mine = state.requests.filter { $0.connection === connection }
            guard !mine.isEmpty else { return ([], state.kind) }
            state.requests.removeAll { $0.connection === connection }
            return (mine, state.kind)
        }
        guard !taken.isEmpty else { return }
        let date = Date()
        work.async { [self] in
            let result = Result { try makeStill(frame, connection: connection, geometry: geometry, kind: kind, date: date) }
            // The picture is taken: no longer capturing unless other requests wait.
            if state.withLock({ $0.requests.isEmpty }) { setCapturing(false) }
            for request in taken {
                switch result {
                case .success(let sample): request.handler(sample, nil)
                case .failure(let error): request.handler(nil, error)
                }
            }
        }
    }

    /// The still of `frame`: a JPEG sample buffer or a pixel buffer one.
    private func makeStill(_ frame: LiveFrame, connection: AVCaptureConnection, geometry: CaptureVideoGeometry, kind: Kind,
                           date: Date) throws -> CMSampleBuffer {
        let pixelFormat: OSType
        switch kind {
        case .jpeg: pixelFormat = kCVPixelFormatType_32BGRA
        case .uncompressed(let format): pixelFormat = format
        }
        let buffer = try StillCapture.render(frame, connection: connection, geometry: geometry, pixelFormat: pixelFormat)
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        let exif = StillCapture.exif(width: width, height: height, date: date)
        let tiff = StillCapture.tiff(device: StillCapture.device(of: connection), date: date)
        let sample: CMSampleBuffer
        switch kind {
        case .uncompressed:
            guard let made = AVCaptureVideoDataOutput.sampleBuffer(buffer, pts: frame.pts, duration: frame.duration) else {
                throw AVError(.outOfMemory)
            }
            sample = made
        case .jpeg:
            sample = try Self.jpegSampleBuffer(StillCapture.jpeg(buffer), width: width, height: height, pts: frame.pts,
                                               duration: frame.duration)
        }
        CMSetAttachment(sample, key: kCGImagePropertyExifDictionary, value: exif, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        CMSetAttachment(sample, key: kCGImagePropertyTIFFDictionary, value: tiff, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        return sample
    }

    /// A sample buffer holding `jpeg` in a block buffer, described as a `'jpeg'` picture.
    static func jpegSampleBuffer(_ jpeg: Data, width: Int, height: Int, pts: CMTime, duration: CMTime) throws -> CMSampleBuffer {
        var block: CMBlockBuffer?
        var status = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: jpeg.count, blockAllocator: nil,
                                                        customBlockSource: nil, offsetToData: 0, dataLength: jpeg.count,
                                                        flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
        guard status == noErr, let block else { throw AVError(.outOfMemory) }
        status = jpeg.withUnsafeBytes { raw in
            CMBlockBufferReplaceDataBytes(with: raw.baseAddress!, blockBuffer: block, offsetIntoDestination: 0, dataLength: raw.count)
        }
        guard status == noErr else { throw AVError(.outOfMemory) }
        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_JPEG, width: Int32(width), height: Int32(height),
                                       extensions: nil, formatDescriptionOut: &format)
        var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: .invalid)
        var size = jpeg.count
        var sample: CMSampleBuffer?
        status = CMSampleBufferCreate(allocator: nil, dataBuffer: block, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                                      formatDescription: format, sampleCount: 1, sampleTimingEntryCount: 1, sampleTimingArray: &timing,
                                      sampleSizeEntryCount: 1, sampleSizeArray: &size, sampleBufferOut: &sample)
        guard status == noErr, let sample else { throw AVError(.outOfMemory) }
        return sample
    }
}
