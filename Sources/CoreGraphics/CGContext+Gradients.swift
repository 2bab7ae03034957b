// Gradients: Cairo linear and radial patterns (stops converted to the context's model), and
// conic gradients as a Cairo mesh pattern of thin sectors (Cairo has no conic gradient).
internal import CCairo
import Foundation

extension CGContext {
    /// Fills the clip with a linear gradient from `start` to `end` (user space). Without
    /// options nothing is painted before the start or after the end.
    public func drawLinearGradient(_ gradient: CGGradient, start: CGPoint, end: CGPoint,
                                   options: CGGradientDrawingOptions) {
        guard start.x.isFinite, start.y.isFinite, end.x.isFinite, end.y.isFinite, start != end,
              let pattern = cairo_pattern_create_linear(Double(start.x), Double(start.y), Double(end.x), Double(end.y))
        else { return }
        defer { cairo_pattern_destroy(pattern) }
        addStops(gradient, to: pattern)
        let before = options.contains(.drawsBeforeStartLocation), after = options.contains(.drawsAfterEndLocation)
        cairo_pattern_set_extend(pattern, before || after ? CAIRO_EXTEND_PAD : CAIRO_EXTEND_NONE)
        // One side only: pad both ways, then clip away the side that must stay empty.
        let dx = end.x - start.x, dy = end.y - start.y
        let length = hypot(dx, dy)
        let big = userReach(from: start) + length
        let ux = dx / length, uy = dy / length
        var halfPlane: [CGPoint] = []
        if before != after {
            // The strip along the axis from -big to the end (before) or from the start to +big (after).
            let (lo, hi): (CGFloat, CGFloat) = before ? (-big, length) : (0, length + big)
            func p(_ t: CGFloat, _ s: CGFloat) -> CGPoint {
                CGPoint(x: start.x + ux * t - uy * s, y: start.y + uy * t + ux * s)
            }
            halfPlane = [p(lo, -big), p(hi, -big), p(hi, big), p(lo, big)]
        }
        paintPattern(pattern, clipPolygon: halfPlane)
    }

    /// Fills the clip with a radial gradient between two circles (user space). Without options
    /// only the area swept between the circles is painted. With exactly one option the extended
    /// side is approximated by clipping to (or out of) the circle (exact for nested circles).
    public func drawRadialGradient(_ gradient: CGGradient, startCenter: CGPoint, startRadius: CGFloat,
                                   endCenter: CGPoint, endRadius: CGFloat, options: CGGradientDrawingOptions) {
        guard startCenter.x.isFinite, startCenter.y.isFinite, endCenter.x.isFinite, endCenter.y.isFinite,
              startRadius.isFinite, endRadius.isFinite, startRadius >= 0, endRadius >= 0,
              startRadius > 0 || endRadius > 0,
              let pattern = cairo_pattern_create_radial(Double(startCenter.x), Double(startCenter.y), Double(startRadius),
                                                        Double(endCenter.x), Double(endCenter.y), Double(endRadius))
        else { return }
        defer { cairo_pattern_destroy(pattern) }
        addStops(gradient, to: pattern)
        let before = options.contains(.drawsBeforeStartLocation), after = options.contains(.drawsAfterEndLocation)
        cairo_pattern_set_extend(pattern, before || after ? CAIRO_EXTEND_PAD : CAIRO_EXTEND_NONE)
        var clip: [CGPath.Element] = []
        var rule = CGPathFillRule.winding
        if before && !after {
            let path = CGMutablePath()
            path.addEllipse(in: CGRect(x: endCenter.x - endRadius, y: endCenter.y - endRadius,
                                       width: 2 * endRadius, height: 2 * endRadius))
            clip = path.elements
        } else if after && !before && startRadius > 0 {
            let big = userReach(from: startCenter)
            let path = CGMutablePath()
            path.addRect(CGRect(x: startCenter.x - big, y: startCenter.y - big, width: 2 * big, height: 2 * big))
            path.addEllipse(in: CGRect(x: startCenter.x - startRadius, y: startCenter.y - startRadius,
                                       width: 2 * startRadius, height: 2 * startRadius))
            clip = path.elements
            rule = .evenOdd
        }
        paintPattern(pattern, clipElements: clip, rule: rule)
    }

    /// Fills the clip with a conic (angular) gradient around `center`: location 0 at `angle`
    /// (radians from the positive x axis), increasing counter-clockwise in user space (y up) to
    /// location 1 after a full turn. Drawn as 360 mesh sectors.
    public func drawConicGradient(_ gradient: CGGradient, center: CGPoint, angle: CGFloat) {
        guard center.x.isFinite, center.y.isFinite, angle.isFinite, let pattern = cairo_pattern_create_mesh()
        else { return }
        defer { cairo_pattern_destroy(pattern) }
        let colors = gradient.stops.map { (location: $0.location, color: cairoColor(modelColor($0.color) ?? SIMD4(0, 0, 0, 0))) }
        func color(at t: CGFloat) -> (r: Double, g: Double, b: Double, a: Double) {
            guard let first = colors.first, let last = colors.last else { return (0, 0, 0, 0) }
            if t <= first.location { return first.color }
            if t >= last.location { return last.color }
            for i in 1..<colors.count where t <= colors[i].location {
                let a = colors[i - 1], b = colors[i]
                let span = b.location - a.location
                let f = span > 0 ? Double((t - a.location) / span) : 1
                // Interpolate premultiplied, as Cairo's gradients do.
                let alpha = a.color.a + (b.color.a - a.color.a) * f
                func mix(_ x: Double, _ y: Double) -> Double {
                    guard alpha > 0 else { return 0 }
                    return (x * a.color.a + (y * b.color.a - x * a.color.a) * f) / alpha
                }
                return (mix(a.color.r, b.color.r), mix(a.color.g, b.color.g), mix(a.color.b, b.color.b), alpha)
            }
            return last.color
        }
        let radius = Double(userReach(from: center))
        let sectors = 360
        for i in 0..<sectors {
            let t0 = CGFloat(i) / CGFloat(sectors), t1 = CGFloat(i + 1) / CGFloat(sectors)
            // Overlap each sector slightly into the next to leave no seams.
            let a0 = Double(angle + t0 * 2 * .pi), a1 = Double(angle + t1 * 2 * .pi) + (i + 1 < sectors ? 0.002 : 0)
            let c0 = color(at: t0), c1 = color(at: t1)
            cairo_mesh_pattern_begin_patch(pattern)
            cairo_mesh_pattern_move_to(pattern, Double(center.x), Double(center.y))
            cairo_mesh_pattern_line_to(pattern, Double(center.x) + radius * cos(a0), Double(center.y) + radius * sin(a0))
            cairo_mesh_pattern_line_to(pattern, Double(center.x) + radius * cos(a1), Double(center.y) + radius * sin(a1))
            cairo_mesh_pattern_line_to(pattern, Double(center.x), Double(center.y))
            cairo_mesh_pattern_set_corner_color_rgba(pattern, 0, c0.r, c0.g, c0.b, c0.a)
            cairo_mesh_pattern_set_corner_color_rgba(pattern, 1, c0.r, c0.g, c0.b, c0.a)
            cairo_mesh_pattern_set_corner_color_rgba(pattern, 2, c1.r, c1.g, c1.b, c1.a)
            cairo_mesh_pattern_set_corner_color_rgba(pattern, 3, c1.r, c1.g, c1.b, c1.a)
            cairo_mesh_pattern_end_patch(pattern)
        }
        paintPattern(pattern, clipPolygon: [])
    }

    /// Adds the gradient's stops to a Cairo gradient pattern.
    private func addStops(_ gradient: CGGradient, to pattern: OpaquePointer) {
        for stop in gradient.stops {
            let c = cairoColor(modelColor(stop.color) ?? SIMD4(0, 0, 0, 0))
            cairo_pattern_add_color_stop_rgba(pattern, Double(stop.location), c.r, c.g, c.b, c.a)
        }
    }

    /// A user-space distance from `point` that reaches past every corner of the bitmap.
    private func userReach(from point: CGPoint) -> CGFloat {
        let inverse = state.ctm.inverted()
        let corners = [CGPoint(x: 0, y: 0), CGPoint(x: width, y: 0), CGPoint(x: 0, y: height),
                       CGPoint(x: width, y: height)].map { $0.applying(inverse) }
        let reach = corners.map { hypot($0.x - point.x, $0.y - point.y) }.max() ?? 0
        return reach.isFinite ? min(reach + 1, 1e7) : 1e7
    }

    private func paintPattern(_ pattern: OpaquePointer, clipPolygon: [CGPoint]) {
        var elements: [CGPath.Element] = []
        if let first = clipPolygon.first {
            elements = [.move(first)] + clipPolygon.dropFirst().map { .line($0) } + [.close]
        }
        paintPattern(pattern, clipElements: elements, rule: .winding)
    }

    /// Paints `pattern` (user-space coordinates) over the clip, optionally clipped further by
    /// user-space `clipElements`.
    private func paintPattern(_ pattern: OpaquePointer, clipElements: [CGPath.Element], rule: CGPathFillRule) {
        let t = state.ctm
        let determinant = t.a * t.d - t.b * t.c
        guard determinant != 0, determinant.isFinite else { return }
        let user = userMatrix
        render { cr in
            var m = user
            cairo_set_matrix(cr, &m)
            if !clipElements.isEmpty {
                Self.addCairoPath(cr, clipElements)
                cairo_set_fill_rule(cr, rule == .evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
                cairo_clip(cr)
            }
            cairo_set_source(cr, pattern)
            cairo_paint(cr)
        }
    }
}
