// AVCaptureVideoDataOutput: delivers captured frames to a delegate — converted once (pixel
// format, preset size, zoom crop) by PixelConverter into a small pool, turned and mirrored by
// pixman, handed over through a DropLateQueue so late frames are dropped, not queued.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import ImageIO
import Synchronization
internal import MediaEngine

/// Delivers each captured frame to a delegate as a `CMSampleBuffer`.
///
/// Frames: the session preset's size (or `videoSettings`' width and height), in
/// `videoSettings`' pixel format (default `'420v'`), turned by the connection's
/// `videoRotationAngle` and mirrored by `isVideoMirrored`; time stamps are capture times on the
/// host time clock, durations the camera's frame interval. Buffers come from a pool of
/// `poolCapacity` (6): a delegate holding all of them gets no more frames (each is reported to
/// `didDrop` as `OutOfBuffers`) until it lets one go.
///
/// Late frames: the delegate is called on its queue one frame at a time. With
/// `alwaysDiscardsLateVideoFrames` (default true) a frame arriving while the delegate is busy
/// waits in a slot of one, and a newer one pushes it out (`didDrop`, `FrameWasLate`); with false
/// up to 8 frames wait, and more are dropped (`OutOfBuffers`).
open class AVCaptureVideoDataOutput: AVCaptureOutput, @unchecked Sendable {
    /// Buffers a delegate may hold at once.
    static let poolCapacity = 6
    /// Frames that wait for a busy delegate when late frames are kept.
    static let keptLateFrames = 8

    /// A frame on its way to the delegate. A frame about to be dropped lets go of the camera's
    /// buffer at once (`strip()`), so that frames waiting for their drop report on a busy
    /// delegate queue do not starve the camera's pool.
    final class Pending: Sendable {
        let pts: CMTime
        let duration: CMTime
        let connection: AVCaptureConnection
        let geometry: CaptureVideoGeometry
        /// The picture (nil once stripped or released) and whether delivery has begun.
        private let picture: Mutex<(frame: LiveFrame?, taken: Bool)>

        init(frame: LiveFrame, connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
            picture = Mutex((frame, false))
            pts = frame.pts
            duration = frame.duration
            self.connection = connection
            self.geometry = geometry
        }

        /// The frame for delivery (nil when it was stripped).
        func take() -> LiveFrame? {
            picture.withLock {
                $0.taken = true
                return $0.frame
            }
        }

        /// Drops the picture unless delivery has begun.
        func strip() {
            picture.withLock { if !$0.taken { $0.frame = nil } }
        }

        /// Lets go of the picture once it was converted (the hand-over queue may keep the
        /// object a while after delivery).
        func release() {
            picture.withLock { $0.frame = nil }
        }
    }

    /// What `videoSettings` asks for.
    struct Settings: Equatable {
        var pixelFormat: OSType = kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        var width: Int?
        var height: Int?
    }

    private let delivery = CaptureDelivery<any AVCaptureVideoDataOutputSampleBufferDelegate>()
    /// The settings, the late-frame policy, the hand-over queue of the current delegate and run,
    /// and the frame handed over last.
    private struct State {
        var settings = Settings()
        var discardsLate = true
        var handOver: DropLateQueue<Pending>?
        var lastPending: Pending?
    }
    private let state = Mutex(State())
    private let pools = BufferPools()

    public override init() {
        super.init()
    }

    // MARK: Delegate

    /// Sets the delegate and the serial queue it is called on (nil delegate: frames are no
    /// longer delivered). A delegate without a queue raises. The delegate is held strongly.
    open func setSampleBufferDelegate(_ sampleBufferDelegate: (any AVCaptureVideoDataOutputSampleBufferDelegate)?,
                                      queue sampleBufferCallbackQueue: DispatchQueue?) {
        if sampleBufferDelegate != nil, sampleBufferCallbackQueue == nil {
            CaptureException.raise("AVCaptureVideoDataOutput", "setSampleBufferDelegate:queue:",
                                   "sampleBufferCallbackQueue must not be NULL when sampleBufferDelegate is non-nil")
        }
        delivery.setDelegate(sampleBufferDelegate, queue: sampleBufferCallbackQueue)
        let old = state.withLock { replaceHandOver(&$0) }
        old?.close(dropPending: true, waiting: false)
    }

    /// The delegate.
    open var sampleBufferDelegate: (any AVCaptureVideoDataOutputSampleBufferDelegate)? { delivery.delegate }
    /// The delegate's queue.
    open var sampleBufferCallbackQueue: DispatchQueue? { delivery.queue }

    // MARK: Settings

    /// The pixel formats frames may be delivered in: `'420v'`, `'420f'`, `'BGRA'`, `'yuvs'`, `'2vuy'`.
    open var availableVideoPixelFormatTypes: [OSType] {
        [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
         kCVPixelFormatType_32BGRA, kCVPixelFormatType_422YpCbCr8_yuvs, kCVPixelFormatType_422YpCbCr8]
    }

    /// The compressed formats frames may be delivered in: none (frames are uncompressed).
    open var availableVideoCodecTypes: [AVVideoCodecType] { [] }

    /// The delivered frames' format: `kCVPixelBufferPixelFormatTypeKey` (one of
    /// `availableVideoPixelFormatTypes`; default `'420v'`), and optionally
    /// `kCVPixelBufferWidthKey` and `kCVPixelBufferHeightKey` (the delivered size, after
    /// turning). nil or empty restores the default. Other pixel formats raise.
    open var videoSettings: [String: Any]! {
        get {
            let s = state.withLock { $0.settings }
            var dictionary: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: s.pixelFormat)]
            if let w = s.width { dictionary[kCVPixelBufferWidthKey as String] = NSNumber(value: w) }
            if let h = s.height { dictionary[kCVPixelBufferHeightKey as String] = NSNumber(value: h) }
            return dictionary
        }
        set {
            var s = Settings()
            if let newValue {
                if let value = newValue[kCVPixelBufferPixelFormatTypeKey as String] {
                    guard let format = Self.integer(value).map({ OSType(truncatingIfNeeded: $0) }),
                          availableVideoPixelFormatTypes.contains(format) else {
                        CaptureException.raise("AVCaptureVideoDataOutput", "setVideoSettings:",
                                               "Unsupported pixel format type - use -availableVideoPixelFormatTypes")
                    }
                    s.pixelFormat = format
                }
                let w = newValue[kCVPixelBufferWidthKey as String].flatMap(Self.integer)
                let h = newValue[kCVPixelBufferHeightKey as String].flatMap(Self.integer)
                if w != nil || h != nil {
                    guard let w, let h, w > 0, h > 0, w % 2 == 0, h % 2 == 0 else {
                        CaptureException.raise("AVCaptureVideoDataOutput", "setVideoSettings:",
                                               "Width and height must be given together, positive and even")
                    }
                    s.width = w
                    s.height = h
                }
            }
            state.withLock { $0.settings = s }
        }
    }

    /// Whether frames arriving while the delegate is busy are dropped (default true).
    open var alwaysDiscardsLateVideoFrames: Bool {
        get { state.withLock { $0.discardsLate } }
        set {
            let old = state.withLock { s -> DropLateQueue<Pending>? in
                guard s.discardsLate != newValue else { return nil }
                s.discardsLate = newValue
                return replaceHandOver(&s)
            }
            old?.close(dropPending: false, waiting: false)
        }
    }

    /// Video settings for an `AVAssetWriterInput` writing what this output delivers: H.264 at
    /// the delivered size.
    open func recommendedVideoSettingsForAssetWriter(writingTo outputFileType: AVFileType) -> [String: Any]? {
        guard let (width, height) = deliveredSize() else { return nil }
        return [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: NSNumber(value: width), AVVideoHeightKey: NSNumber(value: height)]
    }

    /// Video codecs an asset writer can write from this output's frames into `outputFileType`.
    open func availableVideoCodecTypesForAssetWriter(writingTo outputFileType: AVFileType) -> [AVVideoCodecType] {
        [.h264, .hevc]
    }

    /// The delivered size (after turning) for the current session configuration, or nil.
    private func deliveredSize() -> (Int, Int)? {
        let s = state.withLock { $0.settings }
        guard let connection = connection(with: .video), let session = owningSession,
              let input = connection.inputPorts.first?.input as? AVCaptureDeviceInput,
              let choice = CaptureGraph.videoChoice(for: input.device, preset: session.sessionPreset) else { return nil }
        let turned = connection.videoSettingsSnapshot.angle % 180 != 0
        if let w = s.width, let h = s.height { return (w, h) }
        return turned ? (choice.height, choice.width) : (choice.width, choice.height)
    }

    private static func integer(_ value: Any) -> Int? {
        if let n = value as? NSNumber { return n.intValue }
        if let i = value as? Int { return i }
        if let u = value as? UInt32 { return Int(u) }
        if let i = value as? Int32 { return Int(i) }
        if let u = value as? UInt { return Int(u) }
        return nil
    }

    // MARK: Sink

    override func connectionLimit(for mediaType: AVMediaType) -> Int { mediaType == .video ? 1 : 0 }

    override func captureWillStart() {
        delivery.start()
        let old = state.withLock { replaceHandOver(&$0) }
        old?.close(dropPending: true, waiting: false)
    }

    override func captureDidStop() {
        // On the delegate's own thread (stopRunning called from a callback) waiting would never
        // end; the generation check keeps any later delivery from reaching the delegate.
        let waiting = !delivery.isDeliveringHere
        delivery.stop()
        let queue = state.withLock { s -> DropLateQueue<Pending>? in
            s.lastPending = nil
            defer { s.handOver = nil }
            return s.handOver
        }
        queue?.close(dropPending: true, waiting: waiting)
    }

    override func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
        let pending = Pending(frame: frame, connection: connection, geometry: geometry)
        let (queue, previous, keepNewest) = state.withLock { s -> (DropLateQueue<Pending>?, Pending?, Bool) in
            defer { s.lastPending = pending }
            return (s.handOver, s.lastPending, s.discardsLate)
        }
        guard let queue else { return }
        if keepNewest {
            // A waiting frame is pushed out by this one.
            previous?.strip()
        } else if queue.waitingCount >= Self.keptLateFrames {
            // This one will not fit.
            pending.strip()
        }
        queue.enqueue(pending)
    }

    /// A new hand-over queue for the current delegate, queue, run and policy (called with the
    /// state locked); returns the one it replaces.
    private func replaceHandOver(_ s: inout State) -> DropLateQueue<Pending>? {
        let old = s.handOver
        guard let target = delivery.target() else {
            s.handOver = nil
            return old
        }
        let generation = target.generation
        let policy: DropLateQueue<Pending>.Policy = s.discardsLate ? .keepNewest(1) : .fifo(Self.keptLateFrames)
        s.handOver = DropLateQueue<Pending>(policy: policy, queue: target.queue, deliver: { [weak self] pending in
            self?.deliver(pending, generation: generation)
        }, drop: { [weak self] pending, reason in
            guard reason != .discontinuity else { return }
            self?.reportDrop(pending, reason: reason, generation: generation)
        })
        return old
    }

    // MARK: Delivery (on the delegate's queue)

    /// The settings, when `generation`'s delegate is still the one to deliver to.
    private func current(_ generation: Int) -> Settings? {
        delivery.current(generation) == nil ? nil : state.withLock { $0.settings }
    }

    private func deliver(_ pending: Pending, generation: Int) {
        guard let settings = current(generation) else { return }
        let rendered: Result<CVPixelBuffer?, any Error>
        do {
            // The camera's buffer is let go before the delegate runs.
            guard let frame = pending.take() else {
                reportDrop(pending, reason: .frameWasLate, generation: generation)
                return
            }
            rendered = Result { try render(pending, frame: frame, settings: settings) }
            pending.release()
        }
        guard case .success(let converted) = rendered else { return }
        guard let buffer = converted else {
            reportDrop(pending, reason: .outOfBuffers, generation: generation)
            return
        }
        guard let sample = Self.sampleBuffer(buffer, pts: pending.pts, duration: pending.duration) else { return }
        delivery.deliver(generation: generation) { $0.captureOutput(self, didOutput: sample, from: pending.connection) }
    }

    private func reportDrop(_ pending: Pending, reason: DropLateQueue<Pending>.DropReason, generation: Int) {
        guard let settings = current(generation) else { return }
        let size = outputSize(pending, settings: settings)
        var format: CMVideoFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: settings.pixelFormat, width: Int32(size.width),
                                       height: Int32(size.height), extensions: nil, formatDescriptionOut: &format)
        var timing = CMSampleTimingInfo(duration: pending.duration, presentationTimeStamp: pending.pts,
                                        decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                             formatDescription: format, sampleCount: 1, sampleTimingEntryCount: 1, sampleTimingArray: &timing,
                             sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &sample)
        guard let sample else { return }
        let value: CFString = reason == .frameWasLate ? kCMSampleBufferDroppedFrameReason_FrameWasLate
                                                      : kCMSampleBufferDroppedFrameReason_OutOfBuffers
        CMSetAttachment(sample, key: kCMSampleBufferAttachmentKey_DroppedFrameReason, value: value,
                        attachmentMode: kCMAttachmentMode_ShouldPropagate)
        delivery.deliver(generation: generation) { $0.captureOutput(self, didDrop: sample, from: pending.connection) }
    }

    /// The delivered size (after turning).
    private func outputSize(_ pending: Pending, settings: Settings) -> (width: Int, height: Int) {
        if let w = settings.width, let h = settings.height { return (w, h) }
        let turned = pending.connection.videoSettingsSnapshot.angle % 180 != 0
        return turned ? (pending.geometry.height, pending.geometry.width) : (pending.geometry.width, pending.geometry.height)
    }

    /// The frame converted, cropped, scaled, turned and mirrored into a pooled buffer; nil when
    /// the delegate holds every buffer of the pool.
    private func render(_ pending: Pending, frame: LiveFrame, settings: Settings) throws -> CVPixelBuffer? {
        let (angle, mirrored) = pending.connection.videoSettingsSnapshot
        let size = outputSize(pending, settings: settings)
        let turned = angle % 180 != 0
        let upright = turned ? (width: size.height, height: size.width) : size
        var options = PixelConverter.Options()
        options.sourceRect = pending.geometry.zoomedCrop
        options.fast = true
        let source = frame.pixelBuffer
        guard let output = pools.make(settings.pixelFormat, size.width, size.height, limit: Self.poolCapacity) else { return nil }
        if angle == 0 && !mirrored {
            try PixelConverter.shared.transfer(from: source, to: output, options: options)
            return output
        }
        // Turning and mirroring move 32-bit pixels with pixman: scale into BGRA upright, move
        // into BGRA turned, then convert when another format is wanted.
        let bgra = kCVPixelFormatType_32BGRA
        guard let uprightBuffer = pools.make(bgra, upright.width, upright.height, limit: 2, role: 1) else { return nil }
        try PixelConverter.shared.transfer(from: source, to: uprightBuffer, options: options)
        let turnedBuffer: CVPixelBuffer
        if settings.pixelFormat == bgra {
            turnedBuffer = output
        } else {
            guard let scratch = pools.make(bgra, size.width, size.height, limit: 2, role: 2) else { return nil }
            turnedBuffer = scratch
        }
        guard Self.remap(uprightBuffer, into: turnedBuffer, angle: angle, mirrored: mirrored) else {
            throw PixelConversionError.allocationFailed
        }
        if turnedBuffer !== output {
            var plain = PixelConverter.Options()
            plain.fast = true
            try PixelConverter.shared.transfer(from: turnedBuffer, to: output, options: plain)
        }
        return output
    }

    /// Turns `source` (BGRA) clockwise by `angle` and mirrors it into `destination` (BGRA of the
    /// turned size), with pixman.
    static func remap(_ source: CVPixelBuffer, into destination: CVPixelBuffer, angle: Int, mirrored: Bool) -> Bool {
        let sw = CVPixelBufferGetWidth(source), sh = CVPixelBufferGetHeight(source)
        let dw = CVPixelBufferGetWidth(destination), dh = CVPixelBufferGetHeight(destination)
        // Destination pixel centre → source pixel centre: mirror (in the destination), then undo the turn.
        let mirror = CGAffineTransform(a: mirrored ? -1 : 1, b: 0, c: 0, d: 1, tx: mirrored ? CGFloat(dw) : 0, ty: 0)
        let unturn: CGAffineTransform
        switch angle {
        case 90: unturn = CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: CGFloat(sh))
        case 180: unturn = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: CGFloat(sw), ty: CGFloat(sh))
        case 270: unturn = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: CGFloat(sw), ty: 0)
        default: unturn = .identity
        }
        let toSource = mirror.concatenating(unturn)
        CVPixelBufferLockBaseAddress(source, .readOnly)
        CVPixelBufferLockBaseAddress(destination, [])
        defer {
            CVPixelBufferUnlockBaseAddress(destination, [])
            CVPixelBufferUnlockBaseAddress(source, .readOnly)
        }
        guard let from = CVPixelBufferGetBaseAddress(source), let to = CVPixelBufferGetBaseAddress(destination) else { return false }
        // pixman reads and writes the buffers' own rows (any stride that is a multiple of 4).
        return PixelRemap.remap32(source: from, width: sw, height: sh, bytesPerRow: CVPixelBufferGetBytesPerRow(source),
                                  into: to, width: dw, height: dh, bytesPerRow: CVPixelBufferGetBytesPerRow(destination),
                                  destinationToSource: toSource)
    }

    /// A sample buffer of `buffer` at `pts` for `duration`, with the `{Exif}` size attachment.
    static func sampleBuffer(_ buffer: CVPixelBuffer, pts: CMTime, duration: CMTime) -> CMSampleBuffer? {
        var format: CMVideoFormatDescription?
        guard CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: buffer, formatDescriptionOut: &format) == noErr,
              let format else { return nil }
        var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: .invalid)
        var sample: CMSampleBuffer?
        guard CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: buffer, formatDescription: format,
                                                       sampleTiming: &timing, sampleBufferOut: &sample) == noErr,
              let sample else { return nil }
        let exif: NSDictionary = [kCGImagePropertyExifPixelXDimension as String: NSNumber(value: CVPixelBufferGetWidth(buffer)),
                                  kCGImagePropertyExifPixelYDimension as String: NSNumber(value: CVPixelBufferGetHeight(buffer))]
        CMSetAttachment(sample, key: kCGImagePropertyExifDictionary, value: exif, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        return sample
    }
}

extension DropLateQueue {
    /// Closes the queue; without `waiting`, on another thread (the caller may be the queue's
    /// own consumer, which the wait would never see finish).
    func close(dropPending: Bool, waiting: Bool) {
        if waiting {
            close(dropPending: dropPending)
        } else {
            DispatchQueue.global().async { self.close(dropPending: dropPending) }
        }
    }
}

/// The output's buffer pools, one per (pixel format, size, role), bounded by an allocation threshold.
private final class BufferPools: Sendable {
    private struct Key: Hashable {
        let format: OSType
        let width: Int
        let height: Int
        let role: Int
    }

    private let pools = Mutex<[Key: CVPixelBufferPool]>([:])

    /// A buffer from the pool for the key, or nil when `limit` buffers are all held. Role 0:
    /// delivered buffers; 1 and 2: scratch buffers for turning.
    func make(_ format: OSType, _ width: Int, _ height: Int, limit: Int, role: Int = 0) -> CVPixelBuffer? {
        let key = Key(format: format, width: width, height: height, role: role)
        let pool: CVPixelBufferPool? = pools.withLock { pools in
            if let pool = pools[key] { return pool }
            // Each role uses one format and size at a time: forget the role's other pool.
            pools = pools.filter { $0.key.role != role }
            let made = CVPixelBufferPool.make(pixelFormat: format, width: width, height: height)
            pools[key] = made
            return made
        }
        guard let pool else { return nil }
        let aux: NSDictionary = [kCVPixelBufferPoolAllocationThresholdKey as String: NSNumber(value: limit)]
        var buffer: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &buffer) == kCVReturnSuccess else { return nil }
        return buffer
    }
}
