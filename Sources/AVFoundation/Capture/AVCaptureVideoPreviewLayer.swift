// AVCaptureVideoPreviewLayer: the geometry of a capture preview — where the session's picture
// lies in a layer of a given size and gravity, and the conversions between layer points and the
// capture device's normalised coordinates (PreviewGeometry). No picture is drawn yet: the layer
// has no connection of its own in the session (see COMPATIBILITY).
import CoreGraphics
import Foundation

/// A capture session's preview: its layer geometry and coordinate conversions.
///
/// On Apple platforms this is a `CALayer` subclass; here it is an `NSObject` with the
/// `frame`/`bounds` subset of `CALayer`'s geometry until a Core Animation layer class exists.
/// The picture's size is the session's: the first device input's video at the session
/// preset's size. The layer holds its session strongly; the session does not hold the layer.
///
/// Not yet: the preview connection (`connection` is nil, so the picture is neither turned nor
/// mirrored by a connection's settings) and drawing the picture in a window.
open class AVCaptureVideoPreviewLayer: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var _session: AVCaptureSession?
    private var _gravity = AVLayerVideoGravity.resizeAspect
    private var _bounds = CGRect.zero
    private var _position = CGPoint.zero

    /// A layer without a session.
    public override init() {
        super.init()
    }

    /// A layer previewing `session`.
    public convenience init(session: AVCaptureSession) {
        self.init()
        self.session = session
    }

    /// A layer previewing `session` without connecting it to the session's inputs.
    public convenience init(sessionWithNoConnection session: AVCaptureSession) {
        self.init()
        setSessionWithNoConnection(session)
    }

    /// The session previewed (held strongly).
    open var session: AVCaptureSession? {
        get { lock.withLock { _session } }
        set { lock.withLock { _session = newValue } }
    }

    /// Previews `session` without connecting it to the session's inputs.
    open func setSessionWithNoConnection(_ session: AVCaptureSession) {
        lock.withLock { _session = session }
    }

    /// The connection from the session's video input to the layer: nil here (the session has no
    /// preview connection kind yet).
    open var connection: AVCaptureConnection? { nil }

    /// How the picture fits the bounds (default `.resizeAspect`).
    open var videoGravity: AVLayerVideoGravity {
        get { lock.withLock { _gravity } }
        set { lock.withLock { _gravity = newValue } }
    }

    /// The layer's own coordinate space (`CALayer.bounds`); the picture is placed in it.
    /// Changing it keeps the layer's centre (`position`) where it is.
    open var bounds: CGRect {
        get { lock.withLock { _bounds } }
        set { lock.withLock { _bounds = newValue.standardized } }
    }

    /// The layer's centre in its superlayer's coordinates (`CALayer.position`, anchor point at the centre).
    open var position: CGPoint {
        get { lock.withLock { _position } }
        set { lock.withLock { _position = newValue } }
    }

    /// The layer's rectangle in its superlayer's coordinates (`CALayer.frame`): setting it sets
    /// `position` to its centre and the size of `bounds`.
    open var frame: CGRect {
        get {
            lock.withLock {
                CGRect(x: _position.x - _bounds.width / 2, y: _position.y - _bounds.height / 2,
                       width: _bounds.width, height: _bounds.height)
            }
        }
        set {
            let r = newValue.standardized
            lock.withLock {
                _position = CGPoint(x: r.midX, y: r.midY)
                _bounds.size = r.size
            }
        }
    }

    // MARK: Conversions

    /// The picture's placement now: the session's picture size in the layer's bounds.
    var geometry: PreviewGeometry {
        let (session, gravity, bounds) = lock.withLock { (_session, _gravity, _bounds) }
        return PreviewGeometry(sourceSize: Self.pictureSize(of: session), layerBounds: bounds, gravity: gravity)
    }

    /// The unrotated size of the session's picture: its first video device input at the preset's
    /// size (zero without one).
    static func pictureSize(of session: AVCaptureSession?) -> CGSize {
        guard let session else { return .zero }
        for input in session.inputs {
            guard let device = (input as? AVCaptureDeviceInput)?.device, device.hasMediaType(.video),
                  let choice = CaptureGraph.videoChoice(for: device, preset: session.sessionPreset) else { continue }
            return CGSize(width: choice.width, height: choice.height)
        }
        return .zero
    }

    /// A point in the layer as a point in the capture device's normalised coordinates (what
    /// `focusPointOfInterest` and `exposurePointOfInterest` take).
    open func captureDevicePointConverted(fromLayerPoint pointInLayer: CGPoint) -> CGPoint {
        geometry.devicePoint(fromLayerPoint: pointInLayer)
    }

    /// A point in the capture device's normalised coordinates as a point in the layer.
    open func layerPointConverted(fromCaptureDevicePoint captureDevicePointOfInterest: CGPoint) -> CGPoint {
        geometry.layerPoint(fromDevicePoint: captureDevicePointOfInterest)
    }

    /// A rectangle in the layer as a rectangle in a metadata output's coordinates (what
    /// `AVCaptureMetadataOutput.rectOfInterest` takes).
    open func metadataOutputRectConverted(fromLayerRect rectInLayerCoordinates: CGRect) -> CGRect {
        geometry.deviceRect(fromLayerRect: rectInLayerCoordinates)
    }

    /// A rectangle in a metadata output's coordinates as a rectangle in the layer.
    open func layerRectConverted(fromMetadataOutputRect rectInMetadataOutputCoordinates: CGRect) -> CGRect {
        geometry.layerRect(fromDeviceRect: rectInMetadataOutputCoordinates)
    }

    /// `metadataObject` with its bounds (and a code's corners) in the layer's coordinates.
    open func transformedMetadataObject(for metadataObject: AVMetadataObject) -> AVMetadataObject? {
        geometry.layerObject(for: metadataObject)
    }
}
