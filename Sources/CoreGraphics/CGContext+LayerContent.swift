// CGContext+LayerContent: what Core Animation's shape and gradient layers paint, as package
// primitives for QuartzCore's LayerRenderer — a path filled and stroked by Cairo (fill rule, line
// width, caps, joins, miter limit, dashes), and an axial, radial or conic gradient by pixman, both
// straight onto a layer surface (32-bit BGRA premultiplied, Cairo's ARGB32) in device space.
internal import CCairo
internal import CPixman

/// A gradient in its own space (see `CGContext.fillLayerPolygon(_:gradient:deviceToGradient:alpha:)`).
package struct LayerGradient: Sendable {
    /// The geometry: axial from `start` to `end`; radial from `center` out to `radius`; conic
    /// around `center` starting at `angle` (degrees).
    package enum Kind: Sendable {
        case axial(start: CGPoint, end: CGPoint)
        case radial(center: CGPoint, radius: CGFloat)
        case conic(center: CGPoint, angle: CGFloat)
    }
    package var kind: Kind
    /// Stops: location 0…1 and an unpremultiplied device RGB colour.
    package var stops: [(location: CGFloat, red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat)]

    package init(kind: Kind, stops: [(location: CGFloat, red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat)]) {
        self.kind = kind
        self.stops = stops
    }
}

/// How a layer path is stroked.
package struct LayerStrokeStyle: Sendable {
    package var width: CGFloat = 1
    /// "butt", "round", "square".
    package var cap = "butt"
    /// "miter", "round", "bevel".
    package var join = "miter"
    package var miterLimit: CGFloat = 10
    package var dashes: [CGFloat] = []
    package var dashPhase: CGFloat = 0
    package init() {}
}

extension CGContext {
    /// Whether this bitmap is laid out as a layer surface (Cairo's ARGB32: BGRA premultiplied).
    package var isLayerSurfaceLayout: Bool {
        bitsPerPixel == 32 && colorSpace?.model == .rgb
            && bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue == CGImageAlphaInfo.premultipliedFirst.rawValue
            && bitmapInfo.rawValue & CGBitmapInfo.byteOrderMask.rawValue == CGBitmapInfo.byteOrder32Little.rawValue
            && bytesPerRow % 4 == 0 && data.map { Int(bitPattern: $0) % 4 == 0 } == true
    }

    /// Fills the convex polygon `points` (device space) with `gradient`: `deviceToGradient` maps
    /// device space (y up) to the gradient's space; colours pad beyond the ends.
    package func fillLayerPolygon(_ points: [CGPoint], gradient: LayerGradient, deviceToGradient: CGAffineTransform,
                                  alpha: CGFloat) {
        guard points.count >= 3, alpha > 0, gradient.stops.count >= 1, isLayerSurfaceLayout, let data,
              let target = PixmanImage(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: data,
                                       bytesPerRow: bytesPerRow) else { return }
        var stops = gradient.stops.map { stop -> pixman_gradient_stop_t in
            func c(_ v: CGFloat) -> UInt16 { UInt16((min(max(v.isNaN ? 0 : v, 0), 1) * 65535).rounded()) }
            return pixman_gradient_stop_t(x: pixman_fixed_t((min(max(stop.location, 0), 1) * 65536).rounded()),
                                          color: pixman_color_t(red: c(stop.red), green: c(stop.green),
                                                                blue: c(stop.blue), alpha: c(stop.alpha)))
        }
        if stops.count == 1 { stops.append(stops[0]) }
        func fixed(_ v: CGFloat) -> pixman_fixed_t { pixman_fixed_t(min(max(v * 65536, -2e9), 2e9).rounded()) }
        func point(_ p: CGPoint) -> pixman_point_fixed_t { pixman_point_fixed_t(x: fixed(p.x), y: fixed(p.y)) }
        // Gradient geometry is given in a space scaled by 256 so 16.16 fixed point keeps it exact.
        let k: CGFloat = 256
        let created: OpaquePointer?
        switch gradient.kind {
        case .axial(let start, let end):
            var p1 = point(CGPoint(x: start.x * k, y: start.y * k)), p2 = point(CGPoint(x: end.x * k, y: end.y * k))
            created = pixman_image_create_linear_gradient(&p1, &p2, &stops, Int32(stops.count))
        case .radial(let center, let radius):
            var c = point(CGPoint(x: center.x * k, y: center.y * k))
            created = pixman_image_create_radial_gradient(&c, &c, 0, fixed(radius * k), &stops, Int32(stops.count))
        case .conic(let center, let angle):
            var c = point(CGPoint(x: center.x * k, y: center.y * k))
            created = pixman_image_create_conical_gradient(&c, fixed(angle), &stops, Int32(stops.count))
        }
        guard let created else { return }
        let source = PixmanImage(created)
        // Target pixels → device → gradient space (scaled).
        let toGradient = CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: CGFloat(height))
            .concatenating(deviceToGradient).concatenating(CGAffineTransform(scaleX: k, y: k))
        var f = pixman_f_transform()
        f.m = ((Double(toGradient.a), Double(toGradient.c), Double(toGradient.tx)),
               (Double(toGradient.b), Double(toGradient.d), Double(toGradient.ty)), (0, 0, 1))
        var transform = pixman_transform()
        guard pixman_transform_from_pixman_f_transform(&transform, &f) != 0,
              pixman_image_set_transform(source.pointer, &transform) != 0 else { return }
        pixman_image_set_repeat(source.pointer, PIXMAN_REPEAT_PAD)
        let pixels = points.map { CGPoint(x: $0.x, y: CGFloat(height) - $0.y) }
        guard pixels.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return }
        let xs = pixels.map(\.x), ys = pixels.map(\.y)
        let x0 = max(0, Int(max(xs.min()!, -1).rounded(.down))), y0 = max(0, Int(max(ys.min()!, -1).rounded(.down)))
        let x1 = min(width, Int(min(xs.max()!, CGFloat(width) + 1).rounded(.up)))
        let y1 = min(height, Int(min(ys.max()!, CGFloat(height) + 1).rounded(.up)))
        guard x1 > x0, y1 > y0,
              let mask = PixmanImage(format: PIXMAN_a8, width: x1 - x0, height: y1 - y0, bits: nil,
                                     bytesPerRow: (x1 - x0 + 3) & ~3) else { return }
        var triangles: [pixman_triangle_t] = []
        for i in 1..<(pixels.count - 1) {
            triangles.append(pixman_triangle_t(p1: point(pixels[0]), p2: point(pixels[i]), p3: point(pixels[i + 1])))
        }
        pixman_add_triangles(mask.pointer, Int32(-x0), Int32(-y0), Int32(triangles.count), &triangles)
        if alpha < 1 {
            let fade = PixmanImage(alpha: Float(alpha))
            pixman_image_composite32(PIXMAN_OP_IN, fade.pointer, nil, mask.pointer, 0, 0, 0, 0, 0, 0,
                                     Int32(x1 - x0), Int32(y1 - y0))
        }
        pixmanComposite(PIXMAN_OP_OVER, source, mask: mask, onto: target,
                        box: PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0), maskOrigin: (x0, y0))
    }

    /// Fills then strokes `path` (its space maps to device space through `transform`) with
    /// Cairo: `fill` with the non-zero or even-odd rule, then `stroke` in `style` along
    /// `strokePath` (the path itself when nil: a trimmed copy for strokeStart/strokeEnd). Both
    /// faded by `alpha`. Only on a layer surface layout.
    package func drawLayerPath(_ path: CGPath, transform: CGAffineTransform, fill: CGColor?, evenOdd: Bool,
                               stroke: CGColor?, style: LayerStrokeStyle, strokePath: CGPath? = nil, alpha: CGFloat) {
        guard isLayerSurfaceLayout, let data, alpha > 0 else { return }
        let t = transform.concatenating(CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: CGFloat(height)))
        guard [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite), t.a * t.d - t.b * t.c != 0 else { return }
        guard let surface = cairo_image_surface_create_for_data(data.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32,
                                                                 Int32(width), Int32(height), Int32(bytesPerRow))
        else { return }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { return }
        defer { cairo_destroy(cr) }
        var matrix = cairo_matrix_t(xx: Double(t.a), yx: Double(t.b), xy: Double(t.c), yy: Double(t.d),
                                    x0: Double(t.tx), y0: Double(t.ty))
        cairo_set_matrix(cr, &matrix)
        func setColor(_ color: CGColor) -> Bool {
            guard let space = color.colorSpace, let components = color.components,
                  let rgb = ColorConversion.convert(components, from: space, to: CGColorSpace(name: nil, model: .rgb))
            else { return false }
            cairo_set_source_rgba(cr, Double(rgb[0]), Double(rgb[1]), Double(rgb[2]), Double(color.alpha * alpha))
            return color.alpha > 0
        }
        func addPath(_ path: CGPath) {
            cairo_new_path(cr)
            for element in path.elements {
                let ok: Bool
                switch element {
                case .move(let p):
                    ok = p.x.isFinite && p.y.isFinite
                    if ok { cairo_move_to(cr, Double(p.x), Double(p.y)) }
                case .line(let p):
                    ok = p.x.isFinite && p.y.isFinite
                    if ok { cairo_line_to(cr, Double(p.x), Double(p.y)) }
                case .quad(let c, let p):
                    ok = c.x.isFinite && c.y.isFinite && p.x.isFinite && p.y.isFinite
                    if ok {
                        var x0 = 0.0, y0 = 0.0
                        if cairo_has_current_point(cr) != 0 { cairo_get_current_point(cr, &x0, &y0) }
                        let cx = Double(c.x), cy = Double(c.y), px = Double(p.x), py = Double(p.y)
                        cairo_curve_to(cr, x0 + 2 / 3 * (cx - x0), y0 + 2 / 3 * (cy - y0),
                                       px + 2 / 3 * (cx - px), py + 2 / 3 * (cy - py), px, py)
                    }
                case .cubic(let c1, let c2, let p):
                    ok = [c1.x, c1.y, c2.x, c2.y, p.x, p.y].allSatisfy(\.isFinite)
                    if ok {
                        cairo_curve_to(cr, Double(c1.x), Double(c1.y), Double(c2.x), Double(c2.y), Double(p.x), Double(p.y))
                    }
                case .close:
                    ok = true
                    cairo_close_path(cr)
                }
                if !ok { continue }
            }
        }
        if let fill, setColor(fill) {
            addPath(path)
            cairo_set_fill_rule(cr, evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            cairo_fill(cr)
        }
        if let stroke, style.width > 0, style.width.isFinite, setColor(stroke) {
            addPath(strokePath ?? path)
            cairo_set_line_width(cr, Double(style.width))
            cairo_set_line_cap(cr, style.cap == "round" ? CAIRO_LINE_CAP_ROUND
                               : style.cap == "square" ? CAIRO_LINE_CAP_SQUARE : CAIRO_LINE_CAP_BUTT)
            cairo_set_line_join(cr, style.join == "round" ? CAIRO_LINE_JOIN_ROUND
                                : style.join == "bevel" ? CAIRO_LINE_JOIN_BEVEL : CAIRO_LINE_JOIN_MITER)
            cairo_set_miter_limit(cr, Double(style.miterLimit.isFinite ? max(style.miterLimit, 1) : 10))
            let dashes = style.dashes.map { Double($0) }
            if !dashes.isEmpty, dashes.allSatisfy({ $0.isFinite && $0 >= 0 }), dashes.contains(where: { $0 > 0 }) {
                cairo_set_dash(cr, dashes, Int32(dashes.count), Double(style.dashPhase.isFinite ? style.dashPhase : 0))
            }
            cairo_stroke(cr)
        }
        cairo_surface_flush(surface)
    }
}

extension CGColor {
    /// The colour as unpremultiplied device RGB and alpha; nil when it cannot be converted
    /// (pattern colours, unsupported spaces).
    package var layerRGBA: (red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat)? {
        guard let space = colorSpace, let components,
              let rgb = ColorConversion.convert(components, from: space, to: CGColorSpace(name: nil, model: .rgb)),
              rgb.count >= 3 else { return nil }
        return (CGFloat(rgb[0]), CGFloat(rgb[1]), CGFloat(rgb[2]), alpha)
    }
}
