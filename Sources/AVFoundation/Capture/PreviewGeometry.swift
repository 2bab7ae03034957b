// PreviewGeometry: where a preview layer (later the player layer) draws the picture, and the
// conversions between layer coordinates and the capture device's normalised coordinates.
// Pure arithmetic on CGFloat: no state, no display, tested headless.
import CoreGraphics
import Foundation

/// The placement of a picture in a layer and the conversions Apple's
/// `AVCaptureVideoPreviewLayer` offers (`captureDevicePointConverted(fromLayerPoint:)`,
/// `layerPointConverted(fromCaptureDevicePoint:)`, `metadataOutputRectConverted(fromLayerRect:)`,
/// `layerRectConverted(fromMetadataOutputRect:)`, `transformedMetadataObject(for:)`).
///
/// Coordinate spaces:
/// - **capture device** (also metadata output) space: normalised to the *unrotated* picture the
///   device delivers, (0, 0) its top-left corner and (1, 1) its bottom-right — Apple's definition
///   for `focusPointOfInterest`, `rectOfInterest` and metadata object bounds;
/// - **layer** space: points in the layer's bounds, top-left origin, y down (iOS's layer geometry).
///
/// The picture is turned `rotation` degrees clockwise (0, 90, 180 or 270: the connection's
/// `videoRotationAngle`), then mirrored left to right when `mirrored`, then placed by `gravity`:
/// `.resize` stretches it over the bounds, `.resizeAspect` fits it inside (centred, bars on two
/// sides), `.resizeAspectFill` covers the bounds (centred, cropped on two sides).
package struct PreviewGeometry: Sendable, Equatable {
    /// The unrotated picture's size in pixels (e.g. 640×480).
    package var sourceSize: CGSize
    /// The layer's bounds.
    package var layerBounds: CGRect
    package var gravity: AVLayerVideoGravity
    /// Clockwise quarter turns in degrees: 0, 90, 180 or 270 (others are rounded to the nearest).
    package var rotation: Int
    package var mirrored: Bool

    package init(sourceSize: CGSize, layerBounds: CGRect, gravity: AVLayerVideoGravity = .resizeAspect,
                 rotation: Int = 0, mirrored: Bool = false) {
        self.sourceSize = sourceSize
        self.layerBounds = layerBounds
        self.gravity = gravity
        self.rotation = PreviewGeometry.quarterTurn(rotation)
        self.mirrored = mirrored
    }

    /// `degrees` as 0, 90, 180 or 270.
    package static func quarterTurn(_ degrees: Int) -> Int {
        let d = ((degrees % 360) + 360) % 360
        return ((d + 45) / 90 % 4) * 90
    }

    /// Whether the turn swaps width and height.
    private var swapsSides: Bool { rotation == 90 || rotation == 270 }

    /// The picture's size as shown (after the turn).
    package var displayedSize: CGSize {
        swapsSides ? CGSize(width: sourceSize.height, height: sourceSize.width) : sourceSize
    }

    /// Where the shown picture lies in layer coordinates (extends past the bounds with
    /// `.resizeAspectFill`). Empty when the source or the layer has no area.
    package var videoRect: CGRect {
        let shown = displayedSize
        guard shown.width > 0, shown.height > 0, layerBounds.width > 0, layerBounds.height > 0 else {
            return CGRect(x: layerBounds.midX, y: layerBounds.midY, width: 0, height: 0)
        }
        let sx = layerBounds.width / shown.width, sy = layerBounds.height / shown.height
        let size: CGSize
        if gravity == .resizeAspect {
            let s = min(sx, sy)
            size = CGSize(width: shown.width * s, height: shown.height * s)
        } else if gravity == .resizeAspectFill {
            let s = max(sx, sy)
            size = CGSize(width: shown.width * s, height: shown.height * s)
        } else {  // .resize, and unknown gravities as Apple's default stretch
            size = layerBounds.size
        }
        return CGRect(x: layerBounds.midX - size.width / 2, y: layerBounds.midY - size.height / 2,
                      width: size.width, height: size.height)
    }

    /// The bars `.resizeAspect` leaves: the parts of the bounds the picture does not cover (none
    /// for the other gravities, or when the aspects match).
    package var letterboxBars: [CGRect] {
        let video = videoRect.intersection(layerBounds)
        guard !video.isNull, !video.isEmpty else { return [layerBounds] }
        var bars: [CGRect] = []
        if video.minX > layerBounds.minX {
            bars.append(CGRect(x: layerBounds.minX, y: layerBounds.minY, width: video.minX - layerBounds.minX,
                               height: layerBounds.height))
        }
        if video.maxX < layerBounds.maxX {
            bars.append(CGRect(x: video.maxX, y: layerBounds.minY, width: layerBounds.maxX - video.maxX,
                               height: layerBounds.height))
        }
        if video.minY > layerBounds.minY {
            bars.append(CGRect(x: layerBounds.minX, y: layerBounds.minY, width: layerBounds.width,
                               height: video.minY - layerBounds.minY))
        }
        if video.maxY < layerBounds.maxY {
            bars.append(CGRect(x: layerBounds.minX, y: video.maxY, width: layerBounds.width,
                               height: layerBounds.maxY - video.maxY))
        }
        return bars
    }

    // MARK: Points

    /// A capture device point (normalised, unrotated) as a point in the shown picture, normalised.
    private func shown(fromDevice p: CGPoint) -> CGPoint {
        var u: CGFloat, v: CGFloat
        switch rotation {
        case 90: (u, v) = (1 - p.y, p.x)
        case 180: (u, v) = (1 - p.x, 1 - p.y)
        case 270: (u, v) = (p.y, 1 - p.x)
        default: (u, v) = (p.x, p.y)
        }
        if mirrored { u = 1 - u }
        return CGPoint(x: u, y: v)
    }

    /// The inverse of `shown(fromDevice:)`.
    private func device(fromShown q: CGPoint) -> CGPoint {
        let u = mirrored ? 1 - q.x : q.x, v = q.y
        switch rotation {
        case 90: return CGPoint(x: v, y: 1 - u)
        case 180: return CGPoint(x: 1 - u, y: 1 - v)
        case 270: return CGPoint(x: 1 - v, y: u)
        default: return CGPoint(x: u, y: v)
        }
    }

    /// `layerPointConverted(fromCaptureDevicePoint:)`: a capture device point in the layer.
    package func layerPoint(fromDevicePoint p: CGPoint) -> CGPoint {
        let video = videoRect
        let q = shown(fromDevice: p)
        return CGPoint(x: video.minX + q.x * video.width, y: video.minY + q.y * video.height)
    }

    /// `captureDevicePointConverted(fromLayerPoint:)`: a layer point in capture device
    /// coordinates (outside [0, 1] for points outside the picture, e.g. in a letterbox bar).
    /// The zero point when the picture has no area.
    package func devicePoint(fromLayerPoint p: CGPoint) -> CGPoint {
        let video = videoRect
        guard video.width > 0, video.height > 0 else { return .zero }
        let q = CGPoint(x: (p.x - video.minX) / video.width, y: (p.y - video.minY) / video.height)
        return device(fromShown: q)
    }

    // MARK: Rectangles

    /// `layerRectConverted(fromMetadataOutputRect:)`: a normalised device rectangle in the layer.
    package func layerRect(fromDeviceRect r: CGRect) -> CGRect {
        Self.boundingRect(of: Self.corners(of: r).map(layerPoint(fromDevicePoint:)))
    }

    /// `metadataOutputRectConverted(fromLayerRect:)`: a layer rectangle in normalised device
    /// coordinates.
    package func deviceRect(fromLayerRect r: CGRect) -> CGRect {
        Self.boundingRect(of: Self.corners(of: r).map(devicePoint(fromLayerPoint:)))
    }

    private static func corners(of r: CGRect) -> [CGPoint] {
        let s = r.standardized
        return [CGPoint(x: s.minX, y: s.minY), CGPoint(x: s.maxX, y: s.minY),
                CGPoint(x: s.maxX, y: s.maxY), CGPoint(x: s.minX, y: s.maxY)]
    }

    private static func boundingRect(of points: [CGPoint]) -> CGRect {
        let xs = points.map(\.x), ys = points.map(\.y)
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return .null }
        return CGRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    // MARK: Metadata objects

    /// `transformedMetadataObject(for:)`: the object with its bounds and corners in layer
    /// coordinates (faces also get their roll turned and roll/yaw mirrored).
    package func layerObject(for object: AVMetadataObject) -> AVMetadataObject {
        object.transformed(rect: layerRect(fromDeviceRect:), point: layerPoint(fromDevicePoint:),
                           rotationDegrees: rotation, mirrored: mirrored)
    }

    // MARK: Drawing

    /// How a renderer that rotates about the destination's centre (SDL's `RenderCopyEx`) draws
    /// the unrotated picture: the destination rectangle of the unrotated picture (same centre as
    /// `videoRect`, sides swapped for quarter turns), the clockwise angle, and whether to flip the
    /// picture left to right first. Mirroring after a turn of r equals a flip before a turn of −r.
    package var drawing: (destination: CGRect, angle: Int, flipHorizontally: Bool) {
        let video = videoRect
        let size = swapsSides ? CGSize(width: video.height, height: video.width) : video.size
        let destination = CGRect(x: video.midX - size.width / 2, y: video.midY - size.height / 2,
                                 width: size.width, height: size.height)
        return (destination, mirrored ? (360 - rotation) % 360 : rotation, mirrored)
    }
}
