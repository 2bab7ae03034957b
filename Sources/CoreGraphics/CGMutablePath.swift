import Foundation

/// A path that can be built up. Every `transform` argument maps the given points (and arc
/// geometry) before they are stored.
public final class CGMutablePath: CGPath, @unchecked Sendable {
    // @unchecked Sendable: as CGPath (its elements are in the Mutex `storage`).

    /// An empty mutable path.
    public override init() { super.init() }

    package override init(elements: [Element]) { super.init(elements: elements) }

    /// Appends one element.
    private func append(_ element: Element) { storage.withLock { $0.append(element) } }

    /// Starts a new subpath at `point`.
    public func move(to point: CGPoint, transform: CGAffineTransform = .identity) {
        append(.move(point.applying(transform)))
    }

    /// Adds a line from the current point to `point` (a move when the path is empty).
    public func addLine(to point: CGPoint, transform: CGAffineTransform = .identity) {
        let p = point.applying(transform)
        storage.withLock { $0.append($0.isEmpty ? .move(p) : .line(p)) }
    }

    /// Starts a subpath at the first point and adds lines through the others.
    public func addLines(between points: [CGPoint], transform: CGAffineTransform = .identity) {
        guard let first = points.first else { return }
        storage.withLock { $0.reserveCapacity($0.count + points.count) }
        append(.move(first.applying(transform)))
        for p in points.dropFirst() { append(.line(p.applying(transform))) }
    }

    /// Adds a quadratic Bézier curve to `end` with one control point.
    public func addQuadCurve(to end: CGPoint, control: CGPoint, transform: CGAffineTransform = .identity) {
        if elements.isEmpty { append(.move(control.applying(transform))) }
        append(.quad(control.applying(transform), end.applying(transform)))
    }

    /// Adds a cubic Bézier curve to `end` with two control points.
    public func addCurve(to end: CGPoint, control1: CGPoint, control2: CGPoint,
                         transform: CGAffineTransform = .identity) {
        if elements.isEmpty { append(.move(control1.applying(transform))) }
        append(.cubic(control1.applying(transform), control2.applying(transform), end.applying(transform)))
    }

    /// Adds a closed rectangle subpath: (minX, minY), (maxX, minY), (maxX, maxY), (minX, maxY).
    public func addRect(_ rect: CGRect, transform: CGAffineTransform = .identity) {
        let r = rect.standardized
        guard !r.isNull else { return }
        append(.move(CGPoint(x: r.minX, y: r.minY).applying(transform)))
        append(.line(CGPoint(x: r.maxX, y: r.minY).applying(transform)))
        append(.line(CGPoint(x: r.maxX, y: r.maxY).applying(transform)))
        append(.line(CGPoint(x: r.minX, y: r.maxY).applying(transform)))
        append(.close)
    }

    /// Adds one closed subpath per rectangle.
    public func addRects(_ rects: [CGRect], transform: CGAffineTransform = .identity) {
        for r in rects { addRect(r, transform: transform) }
    }

    /// Adds a closed rounded rectangle; corners are quarter ellipses `cornerWidth` by
    /// `cornerHeight` (clamped to half the sides; negative or non-finite sizes give square corners).
    public func addRoundedRect(in rect: CGRect, cornerWidth: CGFloat, cornerHeight: CGFloat,
                               transform: CGAffineTransform = .identity) {
        let r = rect.standardized
        guard !r.isNull else { return }
        let cw = cornerWidth.isFinite ? min(max(cornerWidth, 0), r.width / 2) : 0
        let ch = cornerHeight.isFinite ? min(max(cornerHeight, 0), r.height / 2) : 0
        guard cw > 0, ch > 0 else { return addRect(r, transform: transform) }
        let k: CGFloat = 0.5522847498307936
        func p(_ x: CGFloat, _ y: CGFloat) -> CGPoint { CGPoint(x: x, y: y).applying(transform) }
        append(.move(p(r.minX + cw, r.minY)))
        append(.line(p(r.maxX - cw, r.minY)))
        append(.cubic(p(r.maxX - cw + cw * k, r.minY), p(r.maxX, r.minY + ch - ch * k), p(r.maxX, r.minY + ch)))
        append(.line(p(r.maxX, r.maxY - ch)))
        append(.cubic(p(r.maxX, r.maxY - ch + ch * k), p(r.maxX - cw + cw * k, r.maxY), p(r.maxX - cw, r.maxY)))
        append(.line(p(r.minX + cw, r.maxY)))
        append(.cubic(p(r.minX + cw - cw * k, r.maxY), p(r.minX, r.maxY - ch + ch * k), p(r.minX, r.maxY - ch)))
        append(.line(p(r.minX, r.minY + ch)))
        append(.cubic(p(r.minX, r.minY + ch - ch * k), p(r.minX + cw - cw * k, r.minY), p(r.minX + cw, r.minY)))
        append(.close)
    }

    /// Adds a closed ellipse inscribed in `rect`: four cubic curves starting at the rightmost
    /// point, going clockwise in Core Graphics' y-up space.
    public func addEllipse(in rect: CGRect, transform: CGAffineTransform = .identity) {
        let r = rect.standardized
        guard !r.isNull else { return }
        let rx = r.width / 2, ry = r.height / 2, cx = r.midX, cy = r.midY
        let k: CGFloat = 0.5522847498307936
        func p(_ x: CGFloat, _ y: CGFloat) -> CGPoint { CGPoint(x: cx + x, y: cy + y).applying(transform) }
        append(.move(p(rx, 0)))
        append(.cubic(p(rx, -ry * k), p(rx * k, -ry), p(0, -ry)))
        append(.cubic(p(-rx * k, -ry), p(-rx, -ry * k), p(-rx, 0)))
        append(.cubic(p(-rx, ry * k), p(-rx * k, ry), p(0, ry)))
        append(.cubic(p(rx * k, ry), p(rx, ry * k), p(rx, 0)))
        append(.close)
    }

    /// Adds an arc of the circle around `center`, from `startAngle` to `endAngle` (radians,
    /// measured from the positive x axis towards positive y), `clockwise` meaning decreasing
    /// angles in Core Graphics' y-up space (so counter-clockwise on a flipped, y-down screen).
    /// A line joins the current point to the arc's start; without one the arc starts a subpath.
    /// A span of 2π or more draws the whole circle.
    public func addArc(center: CGPoint, radius: CGFloat, startAngle: CGFloat, endAngle: CGFloat, clockwise: Bool,
                       transform: CGAffineTransform = .identity) {
        guard startAngle.isFinite, endAngle.isFinite else { return }
        let twoPi = 2 * CGFloat.pi
        var delta = endAngle - startAngle
        if clockwise {
            if delta <= -twoPi { delta = -twoPi } else if delta > 0 {
                delta = delta.truncatingRemainder(dividingBy: twoPi) - twoPi
                if delta <= -twoPi { delta = 0 }
            }
        } else {
            if delta >= twoPi { delta = twoPi } else if delta < 0 {
                delta = delta.truncatingRemainder(dividingBy: twoPi) + twoPi
                if delta >= twoPi { delta = 0 }
            }
        }
        addRelativeArc(center: center, radius: radius, startAngle: startAngle, delta: delta, transform: transform)
    }

    /// Adds an arc of the circle around `center` starting at `startAngle` and sweeping `delta`
    /// radians (positive: counter-clockwise in y-up space).
    public func addRelativeArc(center: CGPoint, radius: CGFloat, startAngle: CGFloat, delta: CGFloat,
                               transform: CGAffineTransform = .identity) {
        guard radius.isFinite, startAngle.isFinite, delta.isFinite, center.x.isFinite, center.y.isFinite else { return }
        let r = abs(radius)
        func point(_ angle: CGFloat) -> CGPoint {
            CGPoint(x: center.x + r * cos(angle), y: center.y + r * sin(angle))
        }
        let start = point(startAngle).applying(transform)
        append(elements.isEmpty || PathGeometry.currentPoint(elements) == nil ? .move(start) : .line(start))
        let pieces = max(1, Int((abs(delta) / (CGFloat.pi / 2)).rounded(.up)))
        let step = delta / CGFloat(pieces)
        let k = 4.0 / 3.0 * tan(step / 4)
        for i in 0..<pieces {
            let a0 = startAngle + step * CGFloat(i), a1 = a0 + step
            let p0 = point(a0), p1 = point(a1)
            let c1 = CGPoint(x: p0.x - k * r * sin(a0), y: p0.y + k * r * cos(a0))
            let c2 = CGPoint(x: p1.x + k * r * sin(a1), y: p1.y - k * r * cos(a1))
            if delta == 0 { break }
            append(.cubic(c1.applying(transform), c2.applying(transform), p1.applying(transform)))
        }
    }

    /// Adds an arc of `radius` tangent to the line from the current point to `tangent1End` and to
    /// the line from `tangent1End` to `tangent2End`, preceded by a line from the current point to
    /// the arc's start. Degenerate input (no current point, collinear points, zero radius) adds a
    /// line to `tangent1End`.
    public func addArc(tangent1End: CGPoint, tangent2End: CGPoint, radius: CGFloat,
                       transform: CGAffineTransform = .identity) {
        guard tangent1End.x.isFinite, tangent1End.y.isFinite, tangent2End.x.isFinite, tangent2End.y.isFinite,
              radius.isFinite else { return }
        // The current point is in the path's (transformed) space: work there on transformed points.
        guard let current = PathGeometry.currentPoint(elements) else {
            move(to: tangent1End, transform: transform)
            return
        }
        let inverse = transform.inverted()
        let p0 = current.applying(inverse), p1 = tangent1End, p2 = tangent2End
        let v1 = CGPoint(x: p0.x - p1.x, y: p0.y - p1.y), v2 = CGPoint(x: p2.x - p1.x, y: p2.y - p1.y)
        let l1 = hypot(v1.x, v1.y), l2 = hypot(v2.x, v2.y)
        let cross = v1.x * v2.y - v1.y * v2.x
        guard radius > 0, l1 > 0, l2 > 0, abs(cross) > 1e-12 * l1 * l2 else {
            addLine(to: tangent1End, transform: transform)
            return
        }
        let cosTheta = (v1.x * v2.x + v1.y * v2.y) / (l1 * l2)
        let theta = acos(min(max(cosTheta, -1), 1))
        let distance = radius / tan(theta / 2)
        let t1 = CGPoint(x: p1.x + v1.x / l1 * distance, y: p1.y + v1.y / l1 * distance)
        let t2 = CGPoint(x: p1.x + v2.x / l2 * distance, y: p1.y + v2.y / l2 * distance)
        // The centre: along the bisector, radius / sin(theta / 2) from the corner.
        let bx = v1.x / l1 + v2.x / l2, by = v1.y / l1 + v2.y / l2
        let bl = hypot(bx, by)
        let d = radius / sin(theta / 2)
        let center = CGPoint(x: p1.x + bx / bl * d, y: p1.y + by / bl * d)
        let a0 = atan2(t1.y - center.y, t1.x - center.x), a1 = atan2(t2.y - center.y, t2.x - center.x)
        var delta = a1 - a0
        if delta > .pi { delta -= 2 * .pi } else if delta < -.pi { delta += 2 * .pi }
        addLine(to: t1, transform: transform)
        let count = elements.count
        addRelativeArc(center: center, radius: radius, startAngle: a0, delta: delta, transform: transform)
        storage.withLock { elements in
            if count < elements.count, case .line = elements[count] { elements.remove(at: count) }
        }
    }

    /// Appends `path`'s elements, mapped by `transform`.
    public func addPath(_ path: CGPath, transform: CGAffineTransform = .identity) {
        let added = path.transformed(transform)
        storage.withLock { $0.append(contentsOf: added) }
    }

    /// Closes the current subpath (a line back to its start).
    public func closeSubpath() {
        guard let last = elements.last, last != .close else { return }
        append(.close)
    }
}
