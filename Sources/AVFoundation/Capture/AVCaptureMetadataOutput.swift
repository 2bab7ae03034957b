// AVCaptureMetadataOutput: reads barcodes and QR codes in captured frames (MediaEngine's
// CodeScanner over zbar, on the camera's luma plane in place) and hands them to a delegate as
// AVMetadataMachineReadableCodeObjects.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Synchronization
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
    private let delivery = CaptureDelivery<any AVCaptureMetadataOutputObjectsDelegate>()
    /// What is scanned for, and where; whether a scan is under way.
    private struct Scanning {
        var types: [AVMetadataObject.ObjectType] = []
        var interest = CGRect(x: 0, y: 0, width: 1, height: 1)
        var scanner: CodeScanner?
        var busy = false
        /// The last frame reported had objects (the first frame without is reported once).
        var reportedObjects = false
    }
    private let scanning = Mutex(Scanning())
    private let scanQueue = DispatchQueue(label: "com.avfoundation.capture.metadata-scan")

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
        delivery.setDelegate(objectsDelegate, queue: objectsCallbackQueue)
        scanning.withLock { $0.reportedObjects = false }
    }

    /// The delegate.
    open var metadataObjectsDelegate: (any AVCaptureMetadataOutputObjectsDelegate)? { delivery.delegate }
    /// The delegate's queue.
    open var metadataObjectsCallbackQueue: DispatchQueue? { delivery.queue }

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
        get { scanning.withLock { $0.types } }
        set {
            let wanted = newValue ?? []
            let available = Set(availableMetadataObjectTypes)
            guard wanted.allSatisfy(available.contains) else {
                CaptureException.raise("AVCaptureMetadataOutput", "setMetadataObjectTypes:",
                                       "Unsupported type found - use -availableMetadataObjectTypes")
            }
            var unique: [AVMetadataObject.ObjectType] = []
            for type in wanted where !unique.contains(type) { unique.append(type) }
            scanning.withLock {
                $0.types = unique
                $0.scanner = nil
            }
        }
    }

    /// The part of the picture searched, normalised to the unrotated picture (top-left origin);
    /// default the whole picture. Codes outside it are not reported.
    open var rectOfInterest: CGRect {
        get { scanning.withLock { $0.interest } }
        set { scanning.withLock { $0.interest = newValue.standardized } }
    }

    // MARK: Sink

    override func connectionLimit(for mediaType: AVMediaType) -> Int { mediaType == .video ? 1 : 0 }

    override func captureWillStart() {
        scanning.withLock { $0.reportedObjects = false }
        delivery.start()
    }

    override func captureDidStop() {
        // Waits for a scan, and for a delegate call already under way — not for calls still
        // queued (they see the stop and make no call), so a client queue that is the caller's own
        // (the main queue, say) cannot deadlock. Inside a delegate call (stopRunning called from
        // the callback) there is nothing to wait for.
        delivery.stop()
    }

    /// One scan: what it needs, taken under the lock.
    private struct Job {
        let scanner: CodeScanner
        let rect: CGRect
    }

    override func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
        guard let target = delivery.target() else { return }
        let generation = target.generation
        let job = scanning.withLock { s -> Job? in
            guard !s.busy, !s.types.isEmpty else { return nil }
            let scanner = s.scanner ?? CodeScanner(symbologies: Set(s.types.compactMap { CodeScanner.Symbology(rawValue: $0.rawValue) }))
            s.scanner = scanner
            s.busy = true
            return Job(scanner: scanner, rect: s.interest)
        }
        guard let job else { return }
        // The scan counts as under way: stopping waits for it.
        guard delivery.begin(generation: generation) else {
            scanning.withLock { $0.busy = false }
            return
        }
        scanQueue.async { [self] in
            defer { delivery.end() }
            let objects = scan(frame, geometry: geometry, rect: job.rect, scanner: job.scanner)
            // The camera's buffer is let go before the delegate is called. Frames with objects
            // are reported; the first frame without, once.
            let report = delivery.current(generation) != nil && scanning.withLock { s -> Bool in
                if objects.isEmpty {
                    defer { s.reportedObjects = false }
                    return s.reportedObjects
                }
                s.reportedObjects = true
                return true
            }
            guard report, let queue = delivery.queue else {
                scanning.withLock { $0.busy = false }
                return
            }
            queue.async { [self] in
                // A call begins only while capture runs; stopping waits for one that began.
                delivery.deliver(generation: generation) { delegate in
                    delegate.metadataOutput(self, didOutput: objects, from: connection)
                }
                scanning.withLock { $0.busy = false }
            }
        }
    }

    /// The codes in `frame` inside the rect of interest, in the delivered picture's normalised
    /// coordinates.
    private func scan(_ frame: LiveFrame, geometry: CaptureVideoGeometry, rect: CGRect, scanner: CodeScanner) -> [AVMetadataObject] {
        let buffer = frame.pixelBuffer
        let sw = CGFloat(CVPixelBufferGetWidth(buffer)), sh = CGFloat(CVPixelBufferGetHeight(buffer))
        guard sw > 0, sh > 0 else { return [] }
        // The delivered picture's part of the camera frame (preset crop, zoom), normalised.
        let c = geometry.zoomedCrop
        let crop = CGRect(x: CGFloat(c.x) / sw, y: CGFloat(c.y) / sh, width: CGFloat(c.width) / sw, height: CGFloat(c.height) / sh)
            .intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
        guard !crop.isNull, crop.width > 0, crop.height > 0 else { return [] }
        let roi = rect.intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
        guard !roi.isNull, roi.width > 0, roi.height > 0 else { return [] }
        let region = CGRect(x: crop.minX + roi.minX * crop.width, y: crop.minY + roi.minY * crop.height,
                            width: roi.width * crop.width, height: roi.height * crop.height)
        guard let symbols = try? scanner.scan(buffer, rectOfInterest: region) else { return [] }
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
