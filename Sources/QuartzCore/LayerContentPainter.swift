// LayerContentPainter: what CAShapeLayer and CAGradientLayer draw inside their bounds, for the
// LayerRenderer — paths filled and stroked (strokeStart/strokeEnd trimming the stroke along the
// path's length) and axial, radial and conic gradients in the unit square of the bounds. The
// pixels are CoreGraphics' (Cairo for paths, pixman for gradients), on a layer surface: a
// destination of another layout gets a temporary surface over the part it shows.
import CoreGraphics

enum LayerContentPainter {
    /// Draws a shape layer's path: `p` (affine) maps the layer's bounds space to `context`'s
    /// device space; `visible` bounds what is rasterised.
    static func drawShape(_ shape: RenderShape, _ p: LayerProjection, in context: CGContext, visible: CGRect,
                          alpha: CGFloat) {
        guard let path = shape.path, !path.elements.isEmpty else { return }
        let start = min(max(shape.strokeStart.isFinite ? shape.strokeStart : 0, 0), 1)
        let end = min(max(shape.strokeEnd.isFinite ? shape.strokeEnd : 1, 0), 1)
        let stroke = end > start ? shape.strokeColor : nil
        guard shape.fillColor != nil || stroke != nil else { return }
        var style = LayerStrokeStyle()
        style.width = shape.lineWidth
        style.cap = shape.lineCap
        style.join = shape.lineJoin
        style.miterLimit = shape.miterLimit
        style.dashes = shape.lineDashPattern
        style.dashPhase = shape.lineDashPhase
        let trimmed = start > 0 || end < 1 ? trim(path, from: start, to: end) : nil
        onLayerSurface(context, visible: visible) { surface, offset in
            surface.drawLayerPath(path, transform: p.concatenating(offset).affine, fill: shape.fillColor,
                                  evenOdd: shape.fillRule == "even-odd", stroke: stroke, style: style,
                                  strokePath: trimmed, alpha: alpha)
        }
    }

    /// Draws a gradient layer's gradient over its bounds.
    static func drawGradient(_ gradient: RenderGradient, bounds: CGRect, _ p: LayerProjection, in context: CGContext,
                             visible: CGRect, alpha: CGFloat) {
        guard bounds.width > 0, bounds.height > 0, !gradient.colors.isEmpty,
              let toLayer = p.inverted(), toLayer.isAffine else { return }
        let colors = gradient.colors.compactMap(\.layerRGBA)
        guard colors.count == gradient.colors.count else { return }
        var locations: [CGFloat]
        if let given = gradient.locations, given.count == colors.count {
            locations = given
        } else {
            locations = colors.count == 1 ? [0] : (0..<colors.count).map { CGFloat($0) / CGFloat(colors.count - 1) }
        }
        locations = locations.map { $0.isFinite ? $0 : 0 }
        let stops = zip(locations, colors).map { (location: $0, red: $1.red, green: $1.green, blue: $1.blue, alpha: $1.alpha) }
            .sorted { $0.location < $1.location }
        let s = gradient.startPoint, e = gradient.endPoint
        guard s.x.isFinite, s.y.isFinite, e.x.isFinite, e.y.isFinite else { return }
        // Device → layer → the unit square of the bounds.
        let toUnit = toLayer.affine.concatenating(CGAffineTransform(translationX: -bounds.minX, y: -bounds.minY))
            .concatenating(CGAffineTransform(scaleX: 1 / bounds.width, y: 1 / bounds.height))
        let kind: LayerGradient.Kind
        var toGradient = toUnit
        switch gradient.type {
        case "radial":
            // An ellipse centred on startPoint reaching endPoint's x and y distances.
            let rx = abs(e.x - s.x), ry = abs(e.y - s.y)
            let sx = rx > 1e-9 ? rx : ry, sy = ry > 1e-9 ? ry : rx
            guard sx > 1e-9, sy > 1e-9 else { return }
            toGradient = toUnit.concatenating(CGAffineTransform(translationX: -s.x, y: -s.y))
                .concatenating(CGAffineTransform(scaleX: 1 / sx, y: 1 / sy))
            kind = .radial(center: .zero, radius: 1)
        case "conic":
            // Around startPoint, from the direction of endPoint, turning towards +y (in points).
            let toPoints = toUnit.concatenating(CGAffineTransform(translationX: -s.x, y: -s.y))
                .concatenating(CGAffineTransform(scaleX: bounds.width, y: -bounds.height))
            toGradient = toPoints.concatenating(CGAffineTransform(scaleX: 1 / max(bounds.width, bounds.height),
                                                                  y: 1 / max(bounds.width, bounds.height)))
            let angle = atan2((e.y - s.y) * bounds.height, (e.x - s.x) * bounds.width) * 180 / .pi
            kind = .conic(center: .zero, angle: angle)
        default:
            kind = .axial(start: s, end: e)
        }
        let corners = [CGPoint(x: bounds.minX, y: bounds.minY), CGPoint(x: bounds.maxX, y: bounds.minY),
                       CGPoint(x: bounds.maxX, y: bounds.maxY), CGPoint(x: bounds.minX, y: bounds.maxY)]
        var area = CGRect.null
        for c in corners { area = area.union(CGRect(origin: p.apply(c), size: .zero)) }
        onLayerSurface(context, visible: visible.intersection(area.insetBy(dx: -1, dy: -1))) { surface, offset in
            let points = corners.map { p.concatenating(offset).apply($0) }
            let back = CGAffineTransform(translationX: -CGFloat(offset.m31), y: -CGFloat(offset.m32))
            surface.fillLayerPolygon(points, gradient: LayerGradient(kind: kind, stops: stops),
                                     deviceToGradient: back.concatenating(toGradient), alpha: alpha)
        }
    }

    /// Draws a text layer's text in its bounds, upright on screen: from the bounds' top edge
    /// down, the top being maxY in the layer's space, or minY when its contents are flipped.
    static func drawText(_ text: RenderText, bounds: CGRect, flipped: Bool, _ p: LayerProjection, in context: CGContext,
                         visible: CGRect, alpha: CGFloat) {
        guard bounds.width > 0, bounds.height > 0 else { return }
        let runs = text.runs.compactMap { run -> LayerTextRun? in
            guard !run.text.isEmpty else { return nil }
            let color = run.color?.layerRGBA ?? (1, 1, 1, 1)   // CATextLayer's default foreground: white
            var r = LayerTextRun(text: run.text, fontName: run.fontName, fontSize: run.fontSize, color: color)
            r.underline = run.underline
            r.strikethrough = run.strikethrough
            r.kern = run.kern
            return r
        }
        guard !runs.isEmpty else { return }
        let toLayer = flipped ? CGAffineTransform(translationX: bounds.minX, y: bounds.minY)
            : CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: bounds.minX, ty: bounds.maxY)
        var area = CGRect.null
        for c in [CGPoint(x: bounds.minX, y: bounds.minY), CGPoint(x: bounds.maxX, y: bounds.minY),
                  CGPoint(x: bounds.maxX, y: bounds.maxY), CGPoint(x: bounds.minX, y: bounds.maxY)] {
            area = area.union(CGRect(origin: p.apply(c), size: .zero))
        }
        onLayerSurface(context, visible: visible.intersection(area.insetBy(dx: -1, dy: -1))) { surface, offset in
            surface.drawLayerText(runs, size: bounds.size, textToDevice: toLayer.concatenating(p.concatenating(offset).affine),
                                  wrapped: text.isWrapped, alignment: text.alignment, truncation: text.truncation,
                                  alpha: alpha)
        }
    }

    /// Runs `body` on `context` when it is laid out as a layer surface (offset: identity), or on
    /// a temporary surface over `visible` composited afterwards (offset: device → surface).
    private static func onLayerSurface(_ context: CGContext, visible: CGRect,
                                       _ body: (CGContext, LayerProjection) -> Void) {
        if context.isLayerSurfaceLayout {
            body(context, .identity)
            return
        }
        let box = visible.intersection(CGRect(x: 0, y: 0, width: context.width, height: context.height)).integral
        guard !box.isNull, box.width >= 1, box.height >= 1,
              let surface = CGContext.makeLayerSurface(width: Int(box.width), height: Int(box.height)) else { return }
        let offset = LayerProjection(CGAffineTransform(translationX: -box.minX, y: -box.minY))
        body(surface, offset)
        context.compositeLayerSurface(surface, projection: LayerProjection(CGAffineTransform(translationX: box.minX, y: box.minY)),
                                      alpha: 1)
    }

    /// The part of `path` between fractions `start` and `end` of its length (all subpaths in
    /// order, curves flattened, a closed subpath's closing segment included).
    static func trim(_ path: CGPath, from start: CGFloat, to end: CGFloat) -> CGPath {
        // Polylines, one per subpath.
        var polylines: [[CGPoint]] = []
        var current: [CGPoint] = []
        var point = CGPoint.zero, subpathStart = CGPoint.zero
        func finish() {
            if current.count > 1 { polylines.append(current) }
            current = []
        }
        for element in path.elements {
            switch element {
            case .move(let p):
                finish()
                current = [p]
                point = p
                subpathStart = p
            case .line(let p):
                if current.isEmpty { current = [point] }
                current.append(p)
                point = p
            case .quad(let c, let p):
                if current.isEmpty { current = [point] }
                for i in 1...16 {
                    let t = CGFloat(i) / 16, u = 1 - t
                    current.append(CGPoint(x: u * u * point.x + 2 * u * t * c.x + t * t * p.x,
                                           y: u * u * point.y + 2 * u * t * c.y + t * t * p.y))
                }
                point = p
            case .cubic(let c1, let c2, let p):
                if current.isEmpty { current = [point] }
                for i in 1...24 {
                    let t = CGFloat(i) / 24, u = 1 - t
                    let a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t
                    current.append(CGPoint(x: a * point.x + b * c1.x + c * c2.x + d * p.x,
                                           y: a * point.y + b * c1.y + c * c2.y + d * p.y))
                }
                point = p
            case .close:
                if !current.isEmpty { current.append(subpathStart) }
                finish()
                point = subpathStart
            }
        }
        finish()
        func distance(_ a: CGPoint, _ b: CGPoint) -> CGFloat { hypot(b.x - a.x, b.y - a.y) }
        let total = polylines.reduce(0) { sum, line in
            sum + zip(line, line.dropFirst()).reduce(0) { $0 + distance($1.0, $1.1) }
        }
        guard total > 0, total.isFinite else { return CGPath(elements: []) }
        let from = start * total, to = end * total
        var elements: [CGPath.Element] = []
        var walked: CGFloat = 0
        for line in polylines {
            var open = false
            for (a, b) in zip(line, line.dropFirst()) {
                let length = distance(a, b)
                let s = walked, e = walked + length
                walked = e
                guard length > 0, e > from, s < to else {
                    open = false
                    continue
                }
                let t0 = max(0, (from - s) / length), t1 = min(1, (to - s) / length)
                let p0 = CGPoint(x: a.x + (b.x - a.x) * t0, y: a.y + (b.y - a.y) * t0)
                let p1 = CGPoint(x: a.x + (b.x - a.x) * t1, y: a.y + (b.y - a.y) * t1)
                if !open { elements.append(.move(p0)) }
                elements.append(.line(p1))
                open = true
            }
        }
        return CGPath(elements: elements)
    }
}
