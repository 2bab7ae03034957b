// LayerContentPainter: what CATextLayer, CAShapeLayer and CAGradientLayer draw inside their
// bounds, for the LayerRenderer — text laid out by CoreGraphics' TextLayout (Pango), paths filled
// and stroked through CGContext (Cairo; strokeStart/strokeEnd trim the stroke along the path's
// length), and axial, radial and conic CGGradients over the unit square of the bounds.
import CoreGraphics
import Foundation

enum LayerContentPainter {
    /// Draws a shape layer's path: `p` (affine) maps the layer's bounds space to `context`'s
    /// device space.
    static func drawShape(_ shape: RenderShape, _ p: LayerProjection, in context: CGContext, alpha: CGFloat) {
        guard let path = shape.path, !path.elements.isEmpty else { return }
        let start = min(max(shape.strokeStart.isFinite ? shape.strokeStart : 0, 0), 1)
        let end = min(max(shape.strokeEnd.isFinite ? shape.strokeEnd : 1, 0), 1)
        context.saveGState()
        defer { context.restoreGState() }
        setLayerCTM(context, p)
        context.setAlpha(alpha)
        if let fill = shape.fillColor, fill.alpha > 0 {
            context.addPath(path)
            context.setFillColor(fill)
            context.fillPath(using: shape.fillRule == "even-odd" ? .evenOdd : .winding)
        }
        guard end > start, let stroke = shape.strokeColor, stroke.alpha > 0,
              shape.lineWidth > 0, shape.lineWidth.isFinite else { return }
        context.addPath(start > 0 || end < 1 ? trim(path, from: start, to: end) : path)
        context.setStrokeColor(stroke)
        context.setLineWidth(shape.lineWidth)
        context.setLineCap(shape.lineCap == "round" ? .round : shape.lineCap == "square" ? .square : .butt)
        context.setLineJoin(shape.lineJoin == "round" ? .round : shape.lineJoin == "bevel" ? .bevel : .miter)
        context.setMiterLimit(shape.miterLimit)
        if !shape.lineDashPattern.isEmpty {
            context.setLineDash(phase: shape.lineDashPhase, lengths: shape.lineDashPattern)
        }
        context.strokePath()
    }

    /// Draws a gradient layer's gradient over its bounds. Unit-square points: (0, 0) is the
    /// bounds' origin corner in the layer's own space.
    static func drawGradient(_ gradient: RenderGradient, bounds: CGRect, _ p: LayerProjection, in context: CGContext,
                             alpha: CGFloat) {
        guard bounds.width > 0, bounds.height > 0, !gradient.colors.isEmpty else { return }
        var locations = gradient.locations.flatMap { $0.count == gradient.colors.count ? $0 : nil }
        locations = locations?.map { $0.isFinite ? $0 : 0 }
        let made: CGGradient? = locations.map { given in
            given.withUnsafeBufferPointer {
                CGGradient(colorsSpace: nil, colors: NSArray(array: gradient.colors), locations: $0.baseAddress)
            }
        } ?? CGGradient(colorsSpace: nil, colors: NSArray(array: gradient.colors), locations: nil)
        guard let cgGradient = made else { return }
        let s = gradient.startPoint, e = gradient.endPoint
        guard s.x.isFinite, s.y.isFinite, e.x.isFinite, e.y.isFinite else { return }
        func point(_ u: CGPoint) -> CGPoint {
            CGPoint(x: bounds.minX + u.x * bounds.width, y: bounds.minY + u.y * bounds.height)
        }
        context.saveGState()
        defer { context.restoreGState() }
        setLayerCTM(context, p)
        context.setAlpha(alpha)
        context.clip(to: bounds)
        let extend: CGGradientDrawingOptions = [.drawsBeforeStartLocation, .drawsAfterEndLocation]
        switch gradient.type {
        case "radial":
            // An ellipse centred on startPoint reaching endPoint's x and y distances.
            let rx = abs(e.x - s.x) * bounds.width, ry = abs(e.y - s.y) * bounds.height
            let sx = rx > 1e-9 ? rx : ry, sy = ry > 1e-9 ? ry : rx
            guard sx > 1e-9, sy > 1e-9 else { return }
            let centre = point(s)
            context.translateBy(x: centre.x, y: centre.y)
            context.scaleBy(x: sx, y: sy)
            context.drawRadialGradient(cgGradient, startCenter: .zero, startRadius: 0, endCenter: .zero, endRadius: 1,
                                       options: .drawsAfterEndLocation)
        case "conic":
            // Around startPoint, from the direction of endPoint.
            let centre = point(s), towards = point(e)
            context.drawConicGradient(cgGradient, center: centre, angle: atan2(towards.y - centre.y, towards.x - centre.x))
        default:
            context.drawLinearGradient(cgGradient, start: point(s), end: point(e), options: extend)
        }
    }

    /// The size a text layer's text takes: its widest line by its lines' height, wrapped at
    /// `maxWidth` when given.
    static func textSize(_ text: RenderText, maxWidth: CGFloat?) -> CGSize {
        let runs = text.runs.filter { !$0.text.isEmpty }.map {
            TextLayout.Run(text: $0.text, fontName: $0.fontName, fontSize: $0.fontSize, color: $0.color,
                           underline: $0.underline, strikethrough: $0.strikethrough, kern: $0.kern)
        }
        guard !runs.isEmpty else { return .zero }
        return TextLayout(runs: runs, maxWidth: maxWidth, wraps: maxWidth != nil).size
    }

    /// Draws a text layer's text in its bounds, upright on screen: from the bounds' top edge
    /// down, the top being maxY in the layer's space, or minY when its contents are flipped.
    static func drawText(_ text: RenderText, bounds: CGRect, flipped: Bool, _ p: LayerProjection, in context: CGContext,
                         alpha: CGFloat) {
        guard bounds.width > 0, bounds.height > 0 else { return }
        let runs = text.runs.filter { !$0.text.isEmpty }.map {
            TextLayout.Run(text: $0.text, fontName: $0.fontName, fontSize: $0.fontSize, color: $0.color,
                           underline: $0.underline, strikethrough: $0.strikethrough, kern: $0.kern)
        }
        guard !runs.isEmpty else { return }
        let alignment: TextLayout.Alignment = switch text.alignment {
        case "left": .left
        case "right": .right
        case "center": .center
        case "justified": .justified
        default: .natural
        }
        let truncation: TextLayout.Truncation = switch text.truncation {
        case "start": .start
        case "middle": .middle
        case "end": .end
        default: .none
        }
        let layout = TextLayout(runs: runs, maxWidth: bounds.width, wraps: text.isWrapped, alignment: alignment,
                                truncation: truncation)
        context.saveGState()
        defer { context.restoreGState() }
        setLayerCTM(context, p)
        if flipped {
            context.translateBy(x: 0, y: bounds.minY + bounds.maxY)
            context.scaleBy(x: 1, y: -1)
        }
        context.setAlpha(alpha)
        layout.draw(in: context, in: bounds)
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
