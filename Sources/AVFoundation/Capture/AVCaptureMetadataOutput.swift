// AVCaptureMetadataOutput: reads barcodes and QR codes in captured frames (MediaEngine's
// CodeScanner over zbar, on the camera's luma plane in place) and hands them to a delegate as
// AVMetadataMachineReadableCodeObjects.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine

/// Detects machine-readable codes in the frames of a session's video input and delivers them to
/// a delegate.
///
/// Scanning runs on the output's own serial queue, one frame at a time: frames arriving while
/// a scan (or the delegate call it leads to) is under way are skipped. Objects are
/// `AVMetadataMachineReadableCodeObject`s whose `time` is the frame's capture time and whose
/// `bounds` and `corners` are normalised to the unrotated picture the session delivers (the
/// preset's crop, narrowed by the device's zoom), top-left origin. The delegate is called for
/// every scanned frame with at least one object, and once with an empty array when they are gone.
///
/// On Linux the output is fed by the input's video port (its connection's input port is of type
/// `.video`; Apple's has a `.metadataObject` port).
open class AVCaptureMetadataOutput: AVCaptureOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var delegate: (any AVCaptureMetadataOutputObjectsDelegate)?
    private var callbackQueue: DispatchQueue?
    private var types: [AVMetadataObject.ObjectType] = []
    private var interest = CGRect(x: 0, y: 0, width: 1, height: 1)
    private var accepting = false
    private var busy = false
    private var generation = 0
    private var reportedObjects = false
    private var scanner: CodeScanner?
    private let scanQueue = DispatchQueue(label: "com.avfoundation.capture.metadata-scan")
    /// Scans and delegate calls under way (stopping waits for them).
    private let inFlight = DispatchGroup()

    public override init() {
        super.init()
    }

    // MARK: Delegate

    /// Sets the delegate and the serial queue it is called on (nil delegate: nothing is
    /// delivered). A delegate without a queue raises. The delegate is held strongly.
    open func setMetadataObjectsDelegate(_ objectsDelegate: (any AVCaptureMetadataOutputObjectsDelegate)?,
                                         queue objectsCallbackQueue: DispatchQueue?) {
        if objectsDelegate != nil, objectsCallbackQueue == nil {
            CaptureException.raise("AVCaptureMetadataOutput", "setMetadataObjectsDelegate:queue:",
                                   "objectsCallbackQueue must not be NULL when objectsDelegate is non-nil")
        }
        lock.withLock {
            delegate = objectsDelegate
            callbackQueue = objectsDelegate == nil ? nil : objectsCallbackQueue
            generation += 1
            reportedObjects = false
        }
    }

    /// The delegate.
    open var metadataObjectsDelegate: (any AVCaptureMetadataOutputObjectsDelegate)? { lock.withLock { delegate } }
    /// The delegate's queue.
    open var metadataObjectsCallbackQueue: DispatchQueue? { lock.withLock { callbackQueue } }

    // MARK: Types and region

    /// The types the output can detect: none until it is connected to a video input, then the
    /// codes zbar reads (QR, EAN-8, EAN-13, UPC-E, Code 39, Code 39 mod 43, Code 93, Code 128,
    /// Interleaved 2 of 5, ITF-14, Codabar, GS1 DataBar, GS1 DataBar Expanded). No faces, Aztec,
    /// Data Matrix, PDF417, Micro QR, MicroPDF417 or DataBar Limited.
    open var availableMetadataObjectTypes: [AVMetadataObject.ObjectType] {
        guard connection(with: .video) != nil else { return [] }
        return CodeScanner.Symbology.available.map { AVMetadataObject.ObjectType(rawValue: $0.rawValue) }
    }

    /// The types reported (default none). Each must be in `availableMetadataObjectTypes`, or
    /// setting raises; nil means none.
    open var metadataObjectTypes: [AVMetadataObject.ObjectType]! {
        get { lock.withLock { types } }
        set {
            let wanted = newValue ?? []
            let available = Set(availableMetadataObjectTypes)
            guard wanted.allSatisfy(available.contains) else {
                CaptureException.raise("AVCaptureMetadataOutput", "setMetadataObjectTypes:",
                                       "Unsupported type found - use -availableMetadataObjectTypes")
            }
            var unique: [AVMetadataObject.ObjectType] = []
            for type in wanted where !unique.contains(type) { unique.append(type) }
            lock.withLock {
                types = unique
                scanner = nil
            }
        }
    }

    /// The part of the picture searched, normalised to the unrotated picture (top-left origin);
    /// default the whole picture. Codes outside it are not reported.
    open var rectOfInterest: CGRect {
        get { lock.withLock { interest } }
        set { lock.withLock { interest = newValue.standardized } }
    }

    // MARK: Sink

    override func connectionLimit(for mediaType: AVMediaType) -> Int { mediaType == .video ? 1 : 0 }

    override func captureWillStart() {
        lock.withLock {
            accepting = true
            generation += 1
            reportedObjects = false
        }
    }

    override func captureDidStop() {
        lock.withLock {
            accepting = false
            generation += 1
        }
        // Waits for a scan, and for a delegate call already under way — not for calls still
        // queued (they see the stop and make no call), so a client queue that is the caller's own
        // (the main queue, say) cannot deadlock. Inside a delegate call (stopRunning called from
        // the callback) there is nothing to wait for.
        if !Self.isDelivering { inFlight.wait() }
    }

    /// One scan: what it needs, taken under the lock.
    private struct Job: @unchecked Sendable {
        let delegate: any AVCaptureMetadataOutputObjectsDelegate
        let queue: DispatchQueue
        let scanner: CodeScanner
        let rect: CGRect
        let generation: Int
    }

    override func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
        let job = lock.withLock { () -> Job? in
            guard accepting, !busy, let delegate, let callbackQueue, !types.isEmpty else { return nil }
            let scanner: CodeScanner
            if let current = self.scanner {
                scanner = current
            } else {
                scanner = CodeScanner(symbologies: Set(types.compactMap { CodeScanner.Symbology(rawValue: $0.rawValue) }))
                self.scanner = scanner
            }
            busy = true
            return Job(delegate: delegate, queue: callbackQueue, scanner: scanner, rect: interest, generation: generation)
        }
        guard let job else { return }
        inFlight.enter()
        scanQueue.async { [self] in
            let objects = scan(frame, geometry: geometry, job: job)
            // The camera's buffer is let go before the delegate is called.
            let report = lock.withLock { () -> Bool in
                guard generation == job.generation else { return false }
                // Frames with objects are reported; the first frame without, once.
                if objects.isEmpty {
                    defer { reportedObjects = false }
                    return reportedObjects
                }
                reportedObjects = true
                return true
            }
            guard report else {
                finish(leaving: true)
                return
            }
            job.queue.async { [self] in
                // A call begins only while capture runs; stopping waits for one that began.
                let begins = lock.withLock { () -> Bool in
                    guard accepting, generation == job.generation else { return false }
                    inFlight.enter()
                    return true
                }
                defer { finish(leaving: begins) }
                guard begins else { return }
                Thread.current.threadDictionary[Self.deliveringKey] = true
                job.delegate.metadataOutput(self, didOutput: objects, from: connection)
                Thread.current.threadDictionary[Self.deliveringKey] = nil
            }
            // The scan is over (the delegate call, if any, is tracked on its own).
            inFlight.leave()
        }
    }

    /// The scan (and its delegate call) is over: the next frame may be scanned.
    private func finish(leaving: Bool) {
        lock.withLock { busy = false }
        if leaving { inFlight.leave() }
    }

    private static let deliveringKey = "AVCaptureMetadataOutput.delivering"

    /// Whether the current thread is inside a delegate call of a metadata output.
    static var isDelivering: Bool { Thread.current.threadDictionary[deliveringKey] != nil }

    /// The codes in `frame` inside the rect of interest, in the delivered picture's normalised
    /// coordinates.
    private func scan(_ frame: LiveFrame, geometry: CaptureVideoGeometry, job: Job) -> [AVMetadataObject] {
        let buffer = frame.pixelBuffer
        let sw = CGFloat(CVPixelBufferGetWidth(buffer)), sh = CGFloat(CVPixelBufferGetHeight(buffer))
        guard sw > 0, sh > 0 else { return [] }
        // The delivered picture's part of the camera frame (preset crop, zoom), normalised.
        let c = geometry.zoomedCrop
        let crop = CGRect(x: CGFloat(c.x) / sw, y: CGFloat(c.y) / sh, width: CGFloat(c.width) / sw, height: CGFloat(c.height) / sh)
            .intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
        guard !crop.isNull, crop.width > 0, crop.height > 0 else { return [] }
        let roi = job.rect.intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
        guard !roi.isNull, roi.width > 0, roi.height > 0 else { return [] }
        let region = CGRect(x: crop.minX + roi.minX * crop.width, y: crop.minY + roi.minY * crop.height,
                            width: roi.width * crop.width, height: roi.height * crop.height)
        guard let symbols = try? job.scanner.scan(buffer, rectOfInterest: region) else { return [] }
        func toPicture(_ p: CGPoint) -> CGPoint {
            CGPoint(x: min(max((p.x - crop.minX) / crop.width, 0), 1), y: min(max((p.y - crop.minY) / crop.height, 0), 1))
        }
        return symbols.compactMap { symbol -> AVMetadataObject? in
            let corners = symbol.corners.map(toPicture)
            guard !corners.isEmpty else { return nil }
            let xs = corners.map(\.x), ys = corners.map(\.y)
            let bounds = CGRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
            // Codes outside the rect of interest are not reported (zbar may find a code that
            // only touches the scanned region).
            guard bounds.intersects(roi) || roi.contains(bounds.origin) else { return nil }
            return AVMetadataMachineReadableCodeObject(type: AVMetadataObject.ObjectType(rawValue: symbol.symbology.rawValue),
                                                       time: frame.pts, duration: frame.duration, bounds: bounds,
                                                       corners: corners, stringValue: symbol.stringValue)
        }
    }
}
