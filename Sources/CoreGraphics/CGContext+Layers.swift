// CGContext+Layers: the raster primitives Core Animation's renderer (QuartzCore's LayerRenderer)
// needs beyond Quartz 2D's public API — offscreen layer surfaces, projective compositing of one
// surface onto another (3D layers flattened to a homography), masking a surface by another's
// alpha, convex-polygon fills (rounded rectangles, borders) and a Gaussian-blurred shadow. All
// per-pixel work runs in pixman; package API, drawn in device space (y up), ignoring the CTM.
internal import CPixman
import Foundation

/// A 3×3 projective transform in Core Graphics' row-vector convention: a point maps as
/// [x y 1] · M, then x and y are divided by the third component. `m13`, `m23` hold the
/// perspective terms; an affine transform has them 0 and `m33` 1.
package struct LayerProjection: Equatable, Sendable {
    package var m11: Double, m12: Double, m13: Double
    package var m21: Double, m22: Double, m23: Double
    package var m31: Double, m32: Double, m33: Double

    package init(m11: Double, m12: Double, m13: Double, m21: Double, m22: Double, m23: Double,
                 m31: Double, m32: Double, m33: Double) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13
        self.m21 = m21; self.m22 = m22; self.m23 = m23
        self.m31 = m31; self.m32 = m32; self.m33 = m33
    }

    /// The projection of an affine transform.
    package init(_ t: CGAffineTransform) {
        self.init(m11: Double(t.a), m12: Double(t.b), m13: 0, m21: Double(t.c), m22: Double(t.d), m23: 0,
                  m31: Double(t.tx), m32: Double(t.ty), m33: 1)
    }

    /// The identity.
    package static let identity = LayerProjection(CGAffineTransform.identity)

    /// `self` then `other` (a point maps through `self` first).
    package func concatenating(_ o: LayerProjection) -> LayerProjection {
        LayerProjection(
            m11: m11 * o.m11 + m12 * o.m21 + m13 * o.m31, m12: m11 * o.m12 + m12 * o.m22 + m13 * o.m32,
            m13: m11 * o.m13 + m12 * o.m23 + m13 * o.m33,
            m21: m21 * o.m11 + m22 * o.m21 + m23 * o.m31, m22: m21 * o.m12 + m22 * o.m22 + m23 * o.m32,
            m23: m21 * o.m13 + m22 * o.m23 + m23 * o.m33,
            m31: m31 * o.m11 + m32 * o.m21 + m33 * o.m31, m32: m31 * o.m12 + m32 * o.m22 + m33 * o.m32,
            m33: m31 * o.m13 + m32 * o.m23 + m33 * o.m33)
    }

    /// The determinant.
    package var determinant: Double {
        m11 * (m22 * m33 - m23 * m32) - m12 * (m21 * m33 - m23 * m31) + m13 * (m21 * m32 - m22 * m31)
    }

    /// The inverse; nil when singular or not finite.
    package func inverted() -> LayerProjection? {
        let d = determinant
        guard d.isFinite, abs(d) > 1e-300 else { return nil }
        let r = LayerProjection(
            m11: (m22 * m33 - m23 * m32) / d, m12: (m13 * m32 - m12 * m33) / d, m13: (m12 * m23 - m13 * m22) / d,
            m21: (m23 * m31 - m21 * m33) / d, m22: (m11 * m33 - m13 * m31) / d, m23: (m13 * m21 - m11 * m23) / d,
            m31: (m21 * m32 - m22 * m31) / d, m32: (m12 * m31 - m11 * m32) / d, m33: (m11 * m22 - m12 * m21) / d)
        return r.isFinite ? r : nil
    }

    /// Whether every entry is finite.
    package var isFinite: Bool {
        [m11, m12, m13, m21, m22, m23, m31, m32, m33].allSatisfy(\.isFinite)
    }

    /// Whether the projection is affine (no perspective terms, relative to `m33`).
    package var isAffine: Bool {
        let scale = max(abs(m11), abs(m12), abs(m21), abs(m22), 1e-12)
        return abs(m13) <= 1e-12 * scale && abs(m23) <= 1e-12 * scale && abs(m33) > 1e-12
    }

    /// The affine transform (valid when `isAffine`).
    package var affine: CGAffineTransform {
        CGAffineTransform(a: CGFloat(m11 / m33), b: CGFloat(m12 / m33), c: CGFloat(m21 / m33),
                          d: CGFloat(m22 / m33), tx: CGFloat(m31 / m33), ty: CGFloat(m32 / m33))
    }

    /// The homogeneous image of (x, y): (x', y', w) before the division.
    package func homogeneous(_ x: Double, _ y: Double) -> (x: Double, y: Double, w: Double) {
        (x * m11 + y * m21 + m31, x * m12 + y * m22 + m32, x * m13 + y * m23 + m33)
    }

    /// The image of `p` (not finite when `p` maps to infinity).
    package func apply(_ p: CGPoint) -> CGPoint {
        let h = homogeneous(Double(p.x), Double(p.y))
        return CGPoint(x: h.x / h.w, y: h.y / h.w)
    }
}

extension CGContext {
    /// A layer surface: a transparent 32-bit BGRA premultiplied bitmap (`premultipliedFirst`,
    /// 32-bit little byte order, pixman's a8r8g8b8). Nil for sizes pixman cannot address.
    package static func makeLayerSurface(width: Int, height: Int) -> CGContext? {
        guard width > 0, height > 0, width <= 32767, height <= 32767 else { return nil }
        return CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                         space: CGColorSpace(name: nil, model: .rgb),
                         bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedFirst.rawValue
                                                  | CGBitmapInfo.byteOrder32Little.rawValue))
    }

    /// Whether the layer primitives below can draw into this context (32-bit RGB layouts).
    package var supportsLayerCompositing: Bool { layerFormat != nil }

    /// The pixman format of a 32-bit RGB bitmap; nil for other layouts.
    private var layerFormat: pixman_format_code_t? {
        guard bitsPerPixel == 32, colorSpace?.model == .rgb,
              let alpha = CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue)
        else { return nil }
        let first = alpha == .premultipliedFirst || alpha == .noneSkipFirst
        let little = bitmapInfo.rawValue & CGBitmapInfo.byteOrderMask.rawValue == CGBitmapInfo.byteOrder32Little.rawValue
        guard [.premultipliedFirst, .premultipliedLast, .noneSkipFirst, .noneSkipLast].contains(alpha) else { return nil }
        return PixmanFormats.rgb32(alphaFirst: first, littleOrder: little, opaque: false)
    }

    /// pixman's view of the bitmap (no copy); nil for other layouts or unaligned memory.
    private func layerImage() -> PixmanImage? {
        guard let format = layerFormat, let data, Int(bitPattern: data) % 4 == 0, bytesPerRow % 4 == 0 else { return nil }
        return PixmanImage(format: format, width: width, height: height, bits: data, bytesPerRow: bytesPerRow)
    }

    /// Device space (y up) to pixman's pixel space (y down) of this bitmap.
    private var deviceToPixels: LayerProjection {
        LayerProjection(m11: 1, m12: 0, m13: 0, m21: 0, m22: -1, m23: 0, m31: 0, m32: Double(height), m33: 1)
    }

    /// Composites `surface` (a layer surface, see `makeLayerSurface`) source-over onto this
    /// context: `projection` maps the surface's device space (y up) to this context's device
    /// space, `alpha` fades it, `nearest` samples without filtering. Parts that project behind
    /// the eye (w ≤ 0 at a corner) are not drawn. Only what falls inside this bitmap is touched.
    package func compositeLayerSurface(_ surface: CGContext, projection: LayerProjection, alpha: CGFloat,
                                       nearest: Bool = false) {
        guard alpha > 0, let target = layerImage(), let source = surface.layerImage() else { return }
        // Surface pixels → surface device → device → target pixels.
        let forward = surface.deviceToPixels.concatenating(projection).concatenating(deviceToPixels)
        let sw = Double(surface.width), sh = Double(surface.height)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (x, y) in [(0.0, 0.0), (sw, 0), (sw, sh), (0, sh)] {
            let h = forward.homogeneous(x, y)
            guard h.w > 1e-9 else { return }
            let px = h.x / h.w, py = h.y / h.w
            guard px.isFinite, py.isFinite else { return }
            minX = min(minX, px); maxX = max(maxX, px); minY = min(minY, py); maxY = max(maxY, py)
        }
        let x0 = max(0, Int(max(minX, -1).rounded(.down))), y0 = max(0, Int(max(minY, -1).rounded(.down)))
        let x1 = min(width, Int(min(maxX, Double(width) + 1).rounded(.up)))
        let y1 = min(height, Int(min(maxY, Double(height) + 1).rounded(.up)))
        guard x1 > x0, y1 > y0, var inverse = forward.inverted() else { return }
        // A pure integer translation composites directly; anything else samples through pixman's
        // (projective) transform, its coefficients scaled up so 16.16 fixed point keeps the
        // perspective terms precise (homogeneous matrices are scale-invariant).
        let integral = forward.isAffine && forward.m11 == 1 && forward.m22 == 1 && forward.m12 == 0 && forward.m21 == 0
            && forward.m33 == 1 && forward.m31 == forward.m31.rounded() && forward.m32 == forward.m32.rounded()
        if !integral {
            let largest = max(abs(inverse.m11), abs(inverse.m12), abs(inverse.m13), abs(inverse.m21), abs(inverse.m22),
                              abs(inverse.m23), abs(inverse.m31), abs(inverse.m32), abs(inverse.m33))
            let scale = largest > 0 ? 1024 / largest : 1
            let pixelScale = max(abs(inverse.m31), abs(inverse.m32)) * scale
            let k = pixelScale > 16000 ? scale * 16000 / pixelScale : scale
            var f = pixman_f_transform()
            inverse = LayerProjection(m11: inverse.m11 * k, m12: inverse.m12 * k, m13: inverse.m13 * k,
                                      m21: inverse.m21 * k, m22: inverse.m22 * k, m23: inverse.m23 * k,
                                      m31: inverse.m31 * k, m32: inverse.m32 * k, m33: inverse.m33 * k)
            // pixman: column vectors, [x' y' w']ᵀ = m · [x y 1]ᵀ.
            f.m = ((inverse.m11, inverse.m21, inverse.m31), (inverse.m12, inverse.m22, inverse.m32),
                   (inverse.m13, inverse.m23, inverse.m33))
            var fixed = pixman_transform()
            guard pixman_transform_from_pixman_f_transform(&fixed, &f) != 0,
                  pixman_image_set_transform(source.pointer, &fixed) != 0 else { return }
            _ = pixman_image_set_filter(source.pointer, nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0)
            pixman_image_set_repeat(source.pointer, PIXMAN_REPEAT_NONE)
        }
        let box = PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        let fade = alpha < 1 ? PixmanImage(alpha: Float(alpha)) : nil
        let origin = integral ? (x: Int(forward.m31), y: Int(forward.m32)) : (x: 0, y: 0)
        pixmanComposite(PIXMAN_OP_OVER, source, mask: fade, onto: target, box: box, sourceOrigin: origin)
    }

    /// Multiplies this layer surface by `mask`'s alpha (a surface of the same size, pixel for
    /// pixel): what the mask leaves transparent disappears.
    package func applyLayerMask(_ mask: CGContext) {
        guard let target = layerImage(), let source = mask.layerImage() else { return }
        let box = PixelBox(x: 0, y: 0, width: min(width, mask.width), height: min(height, mask.height))
        pixmanComposite(PIXMAN_OP_IN_REVERSE, source, mask: nil, onto: target, box: box)
        // Outside the mask's extent nothing survives.
        if mask.width < width || mask.height < height {
            let clear = PixmanImage(alpha: 1)
            if mask.width < width {
                pixmanComposite(PIXMAN_OP_OUT_REVERSE, clear, mask: nil, onto: target,
                                box: PixelBox(x: mask.width, y: 0, width: width - mask.width, height: height))
            }
            if mask.height < height {
                pixmanComposite(PIXMAN_OP_OUT_REVERSE, clear, mask: nil, onto: target,
                                box: PixelBox(x: 0, y: mask.height, width: width, height: height - mask.height))
            }
        }
    }

    /// Fills the convex polygon `points` (device space, y up) with `color` faded by `alpha`,
    /// antialiased, minus the convex polygon `hole` when given (a border ring).
    package func fillLayerPolygon(_ points: [CGPoint], hole: [CGPoint]? = nil, color: CGColor, alpha: CGFloat) {
        guard points.count >= 3, alpha > 0, let target = layerImage(),
              let space = color.colorSpace, let components = color.components,
              let rgb = ColorConversion.convert(components, from: space, to: CGColorSpace(name: nil, model: .rgb))
        else { return }
        let a = Float(min(max(color.alpha * alpha, 0), 1))
        guard a > 0 else { return }
        let pixels = points.map { CGPoint(x: $0.x, y: CGFloat(height) - $0.y) }
        guard pixels.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return }
        let xs = pixels.map(\.x), ys = pixels.map(\.y)
        let x0 = max(0, Int(max(xs.min()!, -1).rounded(.down))), y0 = max(0, Int(max(ys.min()!, -1).rounded(.down)))
        let x1 = min(width, Int(min(xs.max()!, CGFloat(width) + 1).rounded(.up)))
        let y1 = min(height, Int(min(ys.max()!, CGFloat(height) + 1).rounded(.up)))
        guard x1 > x0, y1 > y0 else { return }
        let box = PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        guard let coverage = Self.coverage(of: pixels, box: box) else { return }
        if let hole, hole.count >= 3,
           let inner = Self.coverage(of: hole.map { CGPoint(x: $0.x, y: CGFloat(height) - $0.y) }, box: box) {
            pixman_image_composite32(PIXMAN_OP_OUT_REVERSE, inner.pointer, nil, coverage.pointer, 0, 0, 0, 0, 0, 0,
                                     Int32(box.width), Int32(box.height))
        }
        let paint = PixmanImage(red: Float(rgb[0]) * a, green: Float(rgb[1]) * a, blue: Float(rgb[2]) * a, alpha: a)
        pixmanComposite(PIXMAN_OP_OVER, paint, mask: coverage, onto: target, box: box, maskOrigin: (box.x, box.y))
    }

    /// An a8 coverage mask of the convex polygon `pixels` (pixman space) over `box`.
    private static func coverage(of pixels: [CGPoint], box: PixelBox) -> PixmanImage? {
        guard pixels.count >= 3, pixels.allSatisfy({ $0.x.isFinite && $0.y.isFinite }),
              let mask = PixmanImage(format: PIXMAN_a8, width: box.width, height: box.height, bits: nil,
                                     bytesPerRow: (box.width + 3) & ~3) else { return nil }
        func fixed(_ v: CGFloat) -> pixman_fixed_t { pixman_fixed_t(min(max(v * 65536, -2e9), 2e9).rounded()) }
        func point(_ p: CGPoint) -> pixman_point_fixed_t { pixman_point_fixed_t(x: fixed(p.x), y: fixed(p.y)) }
        var triangles: [pixman_triangle_t] = []
        for i in 1..<(pixels.count - 1) {
            triangles.append(pixman_triangle_t(p1: point(pixels[0]), p2: point(pixels[i]), p3: point(pixels[i + 1])))
        }
        pixman_add_triangles(mask.pointer, Int32(-box.x), Int32(-box.y), Int32(triangles.count), &triangles)
        return mask
    }

    /// A new layer surface the size of this one holding the shadow of its pixels: `color`
    /// (premultiplied by its alpha and `opacity`) where this surface has alpha, blurred by a
    /// Gaussian of standard deviation `sigma` pixels (0: sharp).
    package func layerShadow(color: CGColor, opacity: CGFloat, sigma: CGFloat) -> CGContext? {
        guard let source = layerImage(), let space = color.colorSpace, let components = color.components,
              let rgb = ColorConversion.convert(components, from: space, to: CGColorSpace(name: nil, model: .rgb)),
              let shadow = Self.makeLayerSurface(width: width, height: height), let target = shadow.layerImage()
        else { return nil }
        let a = Float(min(max(color.alpha * opacity, 0), 1))
        let paint = PixmanImage(red: Float(rgb[0]) * a, green: Float(rgb[1]) * a, blue: Float(rgb[2]) * a, alpha: a)
        let all = PixelBox(x: 0, y: 0, width: width, height: height)
        pixmanComposite(PIXMAN_OP_SRC, paint, mask: source, onto: target, box: all)
        guard sigma.isFinite, sigma >= 0.3 else { return shadow }
        // Wide blurs run on a copy scaled down by d (box-filtered), blurred by σ/d and scaled back
        // up bilinearly: the kernel stays about 13 taps whatever the radius.
        let d = sigma > 3 ? min(Int(sigma / 2), 64) : 1
        guard d > 1 else {
            Self.blur(target, width: width, height: height, sigma: sigma)
            return shadow
        }
        let sw = (width + d - 1) / d, sh = (height + d - 1) / d
        guard let small = Self.makeLayerSurface(width: sw, height: sh), let reduced = small.layerImage() else { return shadow }
        var scale = pixman_transform()
        pixman_transform_init_scale(&scale, pixman_fixed_t(d) << 16, pixman_fixed_t(d) << 16)
        _ = pixman_image_set_transform(target.pointer, &scale)
        var count: Int32 = 0
        if let params = pixman_filter_create_separable_convolution(&count, pixman_fixed_t(d) << 16, pixman_fixed_t(d) << 16,
                                                                   PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX,
                                                                   PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, 0, 0) {
            _ = pixman_image_set_filter(target.pointer, PIXMAN_FILTER_SEPARABLE_CONVOLUTION, params, count)
            free(params)
        } else {
            _ = pixman_image_set_filter(target.pointer, PIXMAN_FILTER_BILINEAR, nil, 0)
        }
        pixman_image_set_repeat(target.pointer, PIXMAN_REPEAT_NONE)
        pixmanComposite(PIXMAN_OP_SRC, target, mask: nil, onto: reduced, box: PixelBox(x: 0, y: 0, width: sw, height: sh))
        Self.blur(reduced, width: sw, height: sh, sigma: sigma / CGFloat(d))
        var grow = pixman_transform()
        pixman_transform_init_scale(&grow, 65536 / pixman_fixed_t(d), 65536 / pixman_fixed_t(d))
        _ = pixman_image_set_transform(reduced.pointer, &grow)
        _ = pixman_image_set_filter(reduced.pointer, PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(reduced.pointer, PIXMAN_REPEAT_NONE)
        pixmanComposite(PIXMAN_OP_SRC, reduced, mask: nil, onto: target, box: all)
        return shadow
    }

    /// Blurs `image` in place by a Gaussian of standard deviation `sigma` pixels: two separable
    /// passes (horizontal, vertical), each a 1-D kernel of 6σ + 1 taps.
    private static func blur(_ image: PixmanImage, width: Int, height: Int, sigma: CGFloat) {
        let radius = min(Int((3 * sigma).rounded(.up)), 256)
        guard radius > 0 else { return }
        var kernel = (-radius...radius).map { exp(-Double($0 * $0) / (2 * Double(sigma * sigma))) }
        let sum = kernel.reduce(0, +)
        kernel = kernel.map { $0 / sum }
        let taps = kernel.map { pixman_fixed_t(($0 * 65536).rounded()) }
        guard let scratch = makeLayerSurface(width: width, height: height), let middle = scratch.layerImage() else { return }
        let all = PixelBox(x: 0, y: 0, width: width, height: height)
        let one = pixman_fixed_t(65536)
        func pass(_ from: PixmanImage, _ to: PixmanImage, horizontal: Bool) {
            let n = pixman_fixed_t(taps.count) << 16
            var params: [pixman_fixed_t] = horizontal ? [n, one, 0, 0] + taps + [one] : [one, n, 0, 0] + [one] + taps
            _ = pixman_image_set_filter(from.pointer, PIXMAN_FILTER_SEPARABLE_CONVOLUTION, &params, Int32(params.count))
            var identity = pixman_transform()
            pixman_transform_init_identity(&identity)
            _ = pixman_image_set_transform(from.pointer, &identity)
            pixman_image_set_repeat(from.pointer, PIXMAN_REPEAT_NONE)
            pixmanComposite(PIXMAN_OP_SRC, from, mask: nil, onto: to, box: all)
            _ = pixman_image_set_filter(from.pointer, PIXMAN_FILTER_NEAREST, nil, 0)
            _ = pixman_image_set_transform(from.pointer, nil)
        }
        pass(image, middle, horizontal: true)
        pass(middle, image, horizontal: false)
    }

    /// Multiplies every pixel of this layer surface by (`red`, `green`, `blue`, `alpha`)
    /// (premultiplied components scale alike): a replicator instance's colour.
    package func multiplyLayerSurface(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        guard let target = layerImage() else { return }
        let all = PixelBox(x: 0, y: 0, width: width, height: height)
        func c(_ v: CGFloat) -> Float { Float(min(max(v.isNaN ? 0 : v, 0), 1)) }
        // destination × (source alpha × mask), per channel with a component-alpha mask.
        let factors = PixmanImage(red: c(red) * c(alpha), green: c(green) * c(alpha), blue: c(blue) * c(alpha), alpha: c(alpha))
        pixman_image_set_component_alpha(factors.pointer, 1)
        pixmanComposite(PIXMAN_OP_IN_REVERSE, PixmanImage(alpha: 1), mask: factors, onto: target, box: all)
    }
}
