// Where a compositor layer lands: its crop in whole source pixels, its opacity in 1/255, the
// destination pixels it draws, and whether it is a whole-pixel translation or covers the frame.
import CoreGraphics
import CoreVideo
import Foundation

/// A layer checked and measured for one render. Nil from `init` when it draws nothing.
struct PlacedLayer {
    let image: CVPixelBuffer
    let storage: CVPixelStorage
    let layout: CVPixelFormatLayout
    /// The part of the source shown, in whole source pixels (inside the image, not empty).
    let crop: PixelRect
    let transform: CGAffineTransform
    /// Opacity in 1/255 (1…255).
    let alpha: UInt8
    /// The destination pixels drawn, inside the frame: for axis-aligned placements those whose
    /// centres fall inside the transformed crop, for rotated ones its bounding box.
    let box: PixelRect
    /// The offset when the transform moves by whole pixels and nothing else.
    let translation: (x: Int, y: Int)?
    /// Whether the transform keeps edges horizontal and vertical (scales, quarter turns, mirrors).
    let axisAligned: Bool
    /// Where the crop lands when the transform only scales (by positive factors) and moves it
    /// onto whole pixels, even ones at the top-left, inside the frame, from a crop starting on even
    /// pixels in a layout libswscale reads in place: it can be scaled by libswscale.
    let scaledDestination: PixelRect?
    /// Opaque (a format without alpha, opacity 1) over the whole frame: nothing behind shows.
    let coversCanvas: Bool

    /// The Y'CbCr matrix of the source (its attachment, else the default for its height).
    let matrix: PixelFormatColor.Matrix

    /// Whether the planes path can draw it on a canvas of `canvasMatrix`: Y'CbCr of that matrix
    /// (libswscale converts ranges and layouts between Y'CbCr formats, not matrices), moved by a
    /// whole, even number of pixels.
    func suitsPlanes(_ canvasMatrix: PixelFormatColor.Matrix) -> Bool {
        guard layout.isYCbCr, matrix == canvasMatrix else { return false }
        if let shift = translation { return shift.x % 2 == 0 && shift.y % 2 == 0 }
        return scaledDestination != nil
    }

    init?(_ layer: CompositorLayer, canvas: PixelRect) throws(PixelConversionError) {
        guard let storage = layer.image.storage, storage.width > 0, storage.height > 0, !storage.planes.isEmpty else {
            throw .invalidBuffer
        }
        guard let layout = CVPixelFormatLayout.layout(for: storage.pixelFormat) else {
            throw .unsupportedPixelFormat(storage.pixelFormat)
        }
        let opacity = layer.opacity.isNaN ? 0 : min(max(layer.opacity, 0), 1)
        let alpha = UInt8((opacity * 255).rounded())
        guard alpha > 0 else { return nil }

        let whole = PixelRect(x: 0, y: 0, width: storage.width, height: storage.height)
        var crop = whole
        if let rect = layer.cropRectangle {
            guard rect.origin.x.isFinite, rect.origin.y.isFinite, rect.size.width.isFinite, rect.size.height.isFinite
            else { return nil }
            let r = rect.standardized
            let x0 = Self.clamped(r.minX.rounded(), 0, storage.width), x1 = Self.clamped(r.maxX.rounded(), 0, storage.width)
            let y0 = Self.clamped(r.minY.rounded(), 0, storage.height), y1 = Self.clamped(r.maxY.rounded(), 0, storage.height)
            crop = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            guard !crop.isEmpty else { return nil }
        }

        let t = layer.transform
        guard [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite), abs(t.a * t.d - t.b * t.c) > 1e-9 else { return nil }
        let tiny: CGFloat = 1e-6
        let axisAligned = (abs(t.b) < tiny && abs(t.c) < tiny) || (abs(t.a) < tiny && abs(t.d) < tiny)
        var translation: (x: Int, y: Int)?
        if abs(t.a - 1) < tiny, abs(t.d - 1) < tiny, abs(t.b) < tiny, abs(t.c) < tiny,
           abs(t.tx - t.tx.rounded()) < 1e-3, abs(t.ty - t.ty.rounded()) < 1e-3, abs(t.tx) < 1e9, abs(t.ty) < 1e9 {
            translation = (Int(t.tx.rounded()), Int(t.ty.rounded()))
        }

        var scaledDestination: PixelRect?
        var box: PixelRect
        if let shift = translation {
            box = PixelRect(x: crop.x + shift.x, y: crop.y + shift.y, width: crop.width, height: crop.height).intersection(canvas)
        } else {
            let corners = [CGPoint(x: crop.x, y: crop.y), CGPoint(x: crop.maxX, y: crop.y),
                           CGPoint(x: crop.x, y: crop.maxY), CGPoint(x: crop.maxX, y: crop.maxY)].map { Self.snapped($0.applying(t)) }
            let minX = corners.map(\.x).min()!, maxX = corners.map(\.x).max()!
            let minY = corners.map(\.y).min()!, maxY = corners.map(\.y).max()!
            let whole = [minX, maxX, minY, maxY].allSatisfy { abs($0) < 1e6 && abs($0 - $0.rounded()) < 1e-3 }
            if whole, t.a > 0, t.d > 0, abs(t.b) < tiny, abs(t.c) < tiny, crop.x % 2 == 0, crop.y % 2 == 0,
               PixelFormat.mapping(for: storage.pixelFormat) != nil {
                let d = PixelRect(x: Int(minX.rounded()), y: Int(minY.rounded()), width: Int((maxX - minX).rounded()),
                                  height: Int((maxY - minY).rounded()))
                if d.x % 2 == 0, d.y % 2 == 0, !d.isEmpty, d.intersection(canvas) == d { scaledDestination = d }
            }
            if axisAligned {
                // The pixels whose centres are inside.
                let x0 = Self.clamped((minX - 0.5).rounded(.up), 0, canvas.width)
                let x1 = Self.clamped((maxX - 0.5).rounded(.up), 0, canvas.width)
                let y0 = Self.clamped((minY - 0.5).rounded(.up), 0, canvas.height)
                let y1 = Self.clamped((maxY - 0.5).rounded(.up), 0, canvas.height)
                box = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            } else {
                let x0 = Self.clamped(minX.rounded(.down), 0, canvas.width), x1 = Self.clamped(maxX.rounded(.up), 0, canvas.width)
                let y0 = Self.clamped(minY.rounded(.down), 0, canvas.height)
                let y1 = Self.clamped(maxY.rounded(.up), 0, canvas.height)
                box = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            }
        }
        guard !box.isEmpty else { return nil }

        self.image = layer.image
        self.matrix = PixelFormatColor.attachedMatrix(of: layer.image) ?? .defaultMatrix(height: storage.height)
        self.storage = storage
        self.layout = layout
        self.crop = crop
        self.transform = t
        self.alpha = alpha
        self.box = box
        self.translation = translation
        self.axisAligned = axisAligned
        self.scaledDestination = scaledDestination
        self.coversCanvas = !layout.hasAlpha && alpha == 255 && axisAligned && box == canvas
    }

    /// `point` on pixman's 16.16 fixed-point grid, the precision it samples with. Edges that meet
    /// in exact arithmetic but differ by rounding (a layer's right edge at 1920·(2/3) − 639.5 =
    /// 640.4999999999998, the next one's left edge at 640.5) then fall on the same side of a
    /// pixel centre: abutting layers share their boundary pixel instead of both leaving it to the
    /// background, and a lone edge does not move by a pixel for a rounding error.
    private static func snapped(_ point: CGPoint) -> CGPoint {
        func snap(_ v: CGFloat) -> CGFloat { abs(v) < 1e9 ? (v * 65536).rounded() / 65536 : v }
        return CGPoint(x: snap(point.x), y: snap(point.y))
    }

    /// `value` as an Int within `lo…hi` (NaN: `lo`).
    private static func clamped(_ value: CGFloat, _ lo: Int, _ hi: Int) -> Int {
        value.isNaN ? lo : Int(min(max(value, CGFloat(lo)), CGFloat(hi)))
    }
}
