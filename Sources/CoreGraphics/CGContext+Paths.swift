// CGContext's current path and its painting: fills and strokes rasterised by Cairo (see
// CairoCanvas.swift), with the stroke style, dashes and antialiasing of the graphics state.
internal import CCairo
import Foundation

extension CGContext {
    // MARK: Building the current path (points mapped by the CTM as they are added)

    /// Discards the current path.
    public func beginPath() { currentPath.storage.withLock { $0.removeAll(keepingCapacity: true) } }

    /// Starts a new subpath at `point`.
    public func move(to point: CGPoint) { currentPath.move(to: point, transform: state.ctm) }

    /// Adds a line from the current point to `point`.
    public func addLine(to point: CGPoint) { currentPath.addLine(to: point, transform: state.ctm) }

    /// Starts a subpath at the first point and adds lines through the others.
    public func addLines(between points: [CGPoint]) { currentPath.addLines(between: points, transform: state.ctm) }

    /// Adds a cubic Bézier curve from the current point.
    public func addCurve(to end: CGPoint, control1: CGPoint, control2: CGPoint) {
        currentPath.addCurve(to: end, control1: control1, control2: control2, transform: state.ctm)
    }

    /// Adds a quadratic Bézier curve from the current point.
    public func addQuadCurve(to end: CGPoint, control: CGPoint) {
        currentPath.addQuadCurve(to: end, control: control, transform: state.ctm)
    }

    /// Adds a circular arc (see `CGMutablePath.addArc(center:radius:startAngle:endAngle:clockwise:transform:)`).
    public func addArc(center: CGPoint, radius: CGFloat, startAngle: CGFloat, endAngle: CGFloat, clockwise: Bool) {
        currentPath.addArc(center: center, radius: radius, startAngle: startAngle, endAngle: endAngle,
                           clockwise: clockwise, transform: state.ctm)
    }

    /// Adds an arc tangent to two lines (see `CGMutablePath.addArc(tangent1End:tangent2End:radius:transform:)`).
    public func addArc(tangent1End: CGPoint, tangent2End: CGPoint, radius: CGFloat) {
        currentPath.addArc(tangent1End: tangent1End, tangent2End: tangent2End, radius: radius, transform: state.ctm)
    }

    /// Adds a closed rectangle subpath.
    public func addRect(_ rect: CGRect) { currentPath.addRect(rect, transform: state.ctm) }

    /// Adds one closed subpath per rectangle.
    public func addRects(_ rects: [CGRect]) { currentPath.addRects(rects, transform: state.ctm) }

    /// Adds a closed ellipse inscribed in `rect`.
    public func addEllipse(in rect: CGRect) { currentPath.addEllipse(in: rect, transform: state.ctm) }

    /// Adds `path` (in user space) to the current path.
    public func addPath(_ path: CGPath) { currentPath.addPath(path, transform: state.ctm) }

    /// Closes the current subpath.
    public func closePath() { currentPath.closeSubpath() }

    /// Whether the current path is empty.
    public var isPathEmpty: Bool { currentPath.isEmpty }

    /// The current point of the path in user space; `.zero` when the path is empty.
    public var currentPointOfPath: CGPoint {
        guard let p = PathGeometry.currentPoint(currentPath.elements) else { return .zero }
        return p.applying(state.ctm.inverted())
    }

    /// The bounding box of the current path in user space, control points included; `.null` when
    /// the path is empty.
    public var boundingBoxOfPath: CGRect {
        guard !currentPath.isEmpty else { return .null }
        return CGPath(elements: currentPath.transformed(state.ctm.inverted())).boundingBox
    }

    /// A copy of the current path in user space; nil when it is empty.
    public var path: CGPath? {
        guard !currentPath.isEmpty else { return nil }
        return CGPath(elements: currentPath.transformed(state.ctm.inverted()))
    }

    // MARK: Stroke style

    /// Sets the stroke colour (converted to the context's model; CMYK and Lab colours are ignored).
    public func setStrokeColor(_ color: CGColor) {
        if let c = modelColor(color) { state.stroke = c }
    }

    /// Sets the stroke colour to a device RGB colour.
    public func setStrokeColor(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        if let color = CGColor(colorSpace: CGColorSpace(name: nil, model: .rgb), components: [red, green, blue, alpha]) {
            setStrokeColor(color)
        }
    }

    /// Sets the stroke colour to a device grey colour.
    public func setStrokeColor(gray: CGFloat, alpha: CGFloat) {
        if let color = CGColor(colorSpace: CGColorSpace(name: nil, model: .monochrome), components: [gray, alpha]) {
            setStrokeColor(color)
        }
    }

    /// `color` in the context's model (unpremultiplied, alpha last); nil when it cannot convert.
    func modelColor(_ color: CGColor) -> SIMD4<Float>? {
        guard let space = color.colorSpace, let components = color.components else { return nil }
        let alpha = Float(color.alpha.isNaN ? 0 : min(max(color.alpha, 0), 1))
        switch model {
        case .alphaOnly:
            return SIMD4(0, 0, 0, alpha)
        case .rgb:
            guard let v = ColorConversion.convert(components, from: space, to: CGColorSpace(name: nil, model: .rgb))
            else { return nil }
            return SIMD4(Float(v[0]), Float(v[1]), Float(v[2]), alpha)
        case .gray:
            guard let v = ColorConversion.convert(components, from: space, to: CGColorSpace(name: nil, model: .monochrome))
            else { return nil }
            return SIMD4(Float(v[0]), 0, 0, alpha)
        }
    }

    /// Sets the stroke width in user space (negative or non-finite values are ignored).
    public func setLineWidth(_ width: CGFloat) {
        if width.isFinite, width >= 0 { state.lineWidth = width }
    }

    /// Sets how open subpaths end when stroked.
    public func setLineCap(_ cap: CGLineCap) { state.lineCap = cap }

    /// Sets how stroked segments meet.
    public func setLineJoin(_ join: CGLineJoin) { state.lineJoin = join }

    /// Sets the miter limit (ratio of miter length to line width beyond which joins are bevelled).
    public func setMiterLimit(_ limit: CGFloat) {
        if limit.isFinite { state.miterLimit = max(limit, 1) }
    }

    /// Sets the dash pattern: painted and unpainted lengths in user space, starting `phase` in.
    /// An empty array (or all zeros) draws solid lines.
    public func setLineDash(phase: CGFloat, lengths: [CGFloat]) {
        let clean = lengths.map { $0.isFinite ? max($0, 0) : 0 }
        state.dashLengths = clean.contains { $0 > 0 } ? clean : []
        state.dashPhase = phase.isFinite ? phase : 0
    }

    /// Sets the flatness (accuracy of curves). Cairo flattens curves to its own tolerance, well
    /// under a device pixel, so the value is recorded only.
    public func setFlatness(_ flatness: CGFloat) {
        if flatness.isFinite, flatness > 0 { state.flatness = flatness }
    }

    /// Whether antialiasing is allowed at all; it is used when this and `setShouldAntialias`
    /// are both on.
    public func setAllowsAntialiasing(_ allowsAntialiasing: Bool) { state.allowsAntialiasing = allowsAntialiasing }

    // MARK: Painting the path

    /// Fills the current path with the fill colour under `rule`, then clears the path.
    public func fillPath(using rule: CGPathFillRule = .winding) {
        let elements = currentPath.elements
        beginPath()
        fillDeviceElements(elements, rule: rule)
    }

    /// Strokes the current path with the stroke colour and style, then clears the path.
    public func strokePath() {
        let elements = currentPath.elements
        beginPath()
        strokeDeviceElements(elements)
    }

    /// Paints the current path as `mode` says, then clears it.
    public func drawPath(using mode: CGPathDrawingMode) {
        let elements = currentPath.elements
        beginPath()
        switch mode {
        case .fill: fillDeviceElements(elements, rule: .winding)
        case .eoFill: fillDeviceElements(elements, rule: .evenOdd)
        case .stroke: strokeDeviceElements(elements)
        case .fillStroke:
            fillDeviceElements(elements, rule: .winding)
            strokeDeviceElements(elements)
        case .eoFillStroke:
            fillDeviceElements(elements, rule: .evenOdd)
            strokeDeviceElements(elements)
        }
    }

    /// Fills the ellipse inscribed in `rect` (the current path is untouched).
    public func fillEllipse(in rect: CGRect) {
        let path = CGMutablePath()
        path.addEllipse(in: rect, transform: state.ctm)
        fillDeviceElements(path.elements, rule: .winding)
    }

    /// Strokes the ellipse inscribed in `rect` (the current path is untouched).
    public func strokeEllipse(in rect: CGRect) {
        let path = CGMutablePath()
        path.addEllipse(in: rect, transform: state.ctm)
        strokeDeviceElements(path.elements)
    }

    /// Strokes `rect` (the current path is untouched).
    public func stroke(_ rect: CGRect) {
        let path = CGMutablePath()
        path.addRect(rect, transform: state.ctm)
        strokeDeviceElements(path.elements)
    }

    /// Strokes `rect` with line width `width` (the current path and line width are untouched).
    public func stroke(_ rect: CGRect, width: CGFloat) {
        let saved = state.lineWidth
        setLineWidth(width)
        stroke(rect)
        state.lineWidth = saved
    }

    /// Strokes the segments between consecutive pairs of points (0–1, 2–3, …).
    public func strokeLineSegments(between points: [CGPoint]) {
        let path = CGMutablePath()
        var i = 0
        while i + 1 < points.count {
            path.move(to: points[i], transform: state.ctm)
            path.addLine(to: points[i + 1], transform: state.ctm)
            i += 2
        }
        strokeDeviceElements(path.elements)
    }

    /// Replaces the current path with the outline of its stroke (current line width, cap, join,
    /// miter limit and dash), to fill with the winding rule.
    public func replacePathWithStrokedPath() {
        let inverse = state.ctm.inverted()
        var user = currentPath.transformed(inverse)
        if !state.dashLengths.isEmpty {
            user = PathGeometry.dash(user, phase: state.dashPhase, lengths: state.dashLengths)
        }
        let outline = PathGeometry.strokeOutline(user, width: state.lineWidth, cap: state.lineCap,
                                                 join: state.lineJoin, miterLimit: state.miterLimit)
        let stroked = outline.map { $0.applying(state.ctm) }
        currentPath.storage.withLock { $0 = stroked }
    }

    // MARK: Rasterising paths

    /// Fills device-space `elements` with the fill colour.
    func fillDeviceElements(_ elements: [CGPath.Element], rule: CGPathFillRule) {
        guard !elements.isEmpty else { return }
        let color = cairoColor(state.fill)
        let alpha = Double(state.alpha)
        let flip = flipMatrix
        let bounds = PathGeometry.exactBounds(elements.filter(\.isFinite)).applying(deviceToTarget)
        // Cairo's IN, OUT, DEST_IN and DEST_ATOP reach beyond the shape; Quartz's blend modes
        // stay inside it: clip to the shape and paint.
        let unbounded: Set<CGBlendMode> = [.sourceIn, .sourceOut, .destinationIn, .destinationAtop]
        let clipToShape = unbounded.contains(state.blendMode)
        render(foldsAlpha: true, bounds: bounds) { cr in
            var m = flip
            cairo_set_matrix(cr, &m)
            Self.addCairoPath(cr, elements)
            cairo_set_fill_rule(cr, rule == .evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            cairo_set_source_rgba(cr, color.r, color.g, color.b, color.a * alpha)
            if clipToShape {
                cairo_clip(cr)
                cairo_paint(cr)
            } else {
                cairo_fill(cr)
            }
        }
    }

    /// Strokes device-space `elements` with the stroke colour and style (widths in user space).
    func strokeDeviceElements(_ elements: [CGPath.Element]) {
        guard !elements.isEmpty, state.lineWidth > 0 else { return }
        let t = state.ctm
        let determinant = t.a * t.d - t.b * t.c
        guard determinant != 0, determinant.isFinite else { return }
        let color = cairoColor(state.stroke)
        let alpha = Double(state.alpha)
        let flip = flipMatrix, user = userMatrix
        let s = state
        let scale = max(abs(t.a) + abs(t.c), abs(t.b) + abs(t.d))
        let reach = s.lineWidth / 2 * scale * (s.lineJoin == .miter ? max(s.miterLimit, 1.5) : 1.5) + 2
        let bounds = PathGeometry.exactBounds(elements.filter(\.isFinite)).applying(deviceToTarget)
            .insetBy(dx: -reach, dy: -reach)
        render(foldsAlpha: true, bounds: bounds) { cr in
            var m = flip
            cairo_set_matrix(cr, &m)
            Self.addCairoPath(cr, elements)
            var u = user
            cairo_set_matrix(cr, &u)
            cairo_set_line_width(cr, Double(s.lineWidth))
            cairo_set_line_cap(cr, s.lineCap == .round ? CAIRO_LINE_CAP_ROUND
                                   : s.lineCap == .square ? CAIRO_LINE_CAP_SQUARE : CAIRO_LINE_CAP_BUTT)
            cairo_set_line_join(cr, s.lineJoin == .round ? CAIRO_LINE_JOIN_ROUND
                                    : s.lineJoin == .bevel ? CAIRO_LINE_JOIN_BEVEL : CAIRO_LINE_JOIN_MITER)
            cairo_set_miter_limit(cr, Double(s.miterLimit))
            if !s.dashLengths.isEmpty {
                let dashes = s.dashLengths.map(Double.init)
                cairo_set_dash(cr, dashes, Int32(dashes.count), Double(s.dashPhase))
            }
            cairo_set_source_rgba(cr, color.r, color.g, color.b, color.a * alpha)
            cairo_stroke(cr)
        }
    }
}
