// Path geometry done per point (never per pixel): current point, exact bounds, flattening into
// polylines, winding numbers, stroke outlines and dashes. Cairo does the rasterising.
import Foundation

/// One flattened subpath: its points and whether it was closed.
struct Polyline {
    var points: [CGPoint]
    var closed: Bool
}

enum PathGeometry {
    /// The current point after `elements`: the last end point, or the last subpath's start after
    /// a close; nil when empty.
    static func currentPoint(_ elements: [CGPath.Element]) -> CGPoint? {
        var start: CGPoint? = nil, current: CGPoint? = nil
        for element in elements {
            switch element {
            case .move(let p): start = p; current = p
            case .line(let p), .quad(_, let p), .cubic(_, _, let p): current = p
            case .close: current = start
            }
        }
        return current
    }

    /// The bounds of the curves themselves: end points plus the interior extrema of each curve.
    static func exactBounds(_ elements: [CGPath.Element]) -> CGRect {
        var minX = CGFloat.infinity, minY = CGFloat.infinity, maxX = -CGFloat.infinity, maxY = -CGFloat.infinity
        func add(_ p: CGPoint) {
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        var current = CGPoint.zero, start = CGPoint.zero
        for element in elements {
            switch element {
            case .move(let p):
                add(p); current = p; start = p
            case .line(let p):
                add(p); current = p
            case .quad(let c, let p):
                add(p)
                for t in quadExtrema(current.x, c.x, p.x) + quadExtrema(current.y, c.y, p.y) {
                    add(quadPoint(current, c, p, t))
                }
                current = p
            case .cubic(let c1, let c2, let p):
                add(p)
                for t in cubicExtrema(current.x, c1.x, c2.x, p.x) + cubicExtrema(current.y, c1.y, c2.y, p.y) {
                    add(cubicPoint(current, c1, c2, p, t))
                }
                current = p
            case .close:
                current = start
            }
        }
        guard minX <= maxX else { return .null }
        return CGRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    private static func quadExtrema(_ a: CGFloat, _ b: CGFloat, _ c: CGFloat) -> [CGFloat] {
        let d = a - 2 * b + c
        guard d != 0 else { return [] }
        let t = (a - b) / d
        return t > 0 && t < 1 ? [t] : []
    }

    private static func cubicExtrema(_ p0: CGFloat, _ p1: CGFloat, _ p2: CGFloat, _ p3: CGFloat) -> [CGFloat] {
        // Derivative / 3: a t² + b t + c.
        let a = -p0 + 3 * p1 - 3 * p2 + p3, b = 2 * (p0 - 2 * p1 + p2), c = p1 - p0
        var roots: [CGFloat] = []
        if abs(a) < 1e-12 {
            if b != 0 { roots = [-c / b] }
        } else {
            let disc = b * b - 4 * a * c
            if disc >= 0 {
                let s = disc.squareRoot()
                roots = [(-b + s) / (2 * a), (-b - s) / (2 * a)]
            }
        }
        return roots.filter { $0 > 0 && $0 < 1 }
    }

    static func quadPoint(_ p0: CGPoint, _ c: CGPoint, _ p1: CGPoint, _ t: CGFloat) -> CGPoint {
        let u = 1 - t
        return CGPoint(x: u * u * p0.x + 2 * u * t * c.x + t * t * p1.x, y: u * u * p0.y + 2 * u * t * c.y + t * t * p1.y)
    }

    static func cubicPoint(_ p0: CGPoint, _ c1: CGPoint, _ c2: CGPoint, _ p1: CGPoint, _ t: CGFloat) -> CGPoint {
        let u = 1 - t
        let a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t
        return CGPoint(x: a * p0.x + b * c1.x + c * c2.x + d * p1.x, y: a * p0.y + b * c1.y + c * c2.y + d * p1.y)
    }

    /// How many segments a curve with this control polygon needs to stay within `tolerance`.
    private static func segments(_ points: [CGPoint], tolerance: CGFloat) -> Int {
        var length: CGFloat = 0
        for i in 1..<points.count { length += hypot(points[i].x - points[i - 1].x, points[i].y - points[i - 1].y) }
        guard length.isFinite else { return 1 }
        return Int(min(max((length / max(tolerance, 1e-3)).squareRoot(), 1), 1024).rounded(.up))
    }

    /// The subpaths as polylines (curves subdivided; non-finite elements skipped).
    static func flatten(_ elements: [CGPath.Element], tolerance: CGFloat = 0.1) -> [Polyline] {
        var result: [Polyline] = []
        var current: Polyline? = nil
        var point = CGPoint.zero
        func finish() {
            if let c = current, !c.points.isEmpty { result.append(c) }
            current = nil
        }
        for element in elements where element.isFinite {
            switch element {
            case .move(let p):
                finish()
                current = Polyline(points: [p], closed: false)
                point = p
            case .line(let p):
                if current == nil { current = Polyline(points: [point], closed: false) }
                current!.points.append(p)
                point = p
            case .quad(let c, let p):
                if current == nil { current = Polyline(points: [point], closed: false) }
                let n = segments([point, c, p], tolerance: tolerance)
                for i in 1...n { current!.points.append(quadPoint(point, c, p, CGFloat(i) / CGFloat(n))) }
                point = p
            case .cubic(let c1, let c2, let p):
                if current == nil { current = Polyline(points: [point], closed: false) }
                let n = segments([point, c1, c2, p], tolerance: tolerance)
                for i in 1...n { current!.points.append(cubicPoint(point, c1, c2, p, CGFloat(i) / CGFloat(n))) }
                point = p
            case .close:
                if var c = current {
                    c.closed = true
                    point = c.points[0]
                    result.append(c)
                    current = nil
                }
            }
        }
        finish()
        return result
    }

    /// The winding number of `point` with respect to the closed polygons.
    static func winding(of point: CGPoint, in polygons: [[CGPoint]]) -> Int {
        var winding = 0
        for polygon in polygons where polygon.count > 1 {
            for i in 0..<polygon.count {
                let a = polygon[i], b = polygon[(i + 1) % polygon.count]
                if a.y <= point.y {
                    if b.y > point.y, (b.x - a.x) * (point.y - a.y) - (point.x - a.x) * (b.y - a.y) > 0 { winding += 1 }
                } else if b.y <= point.y, (b.x - a.x) * (point.y - a.y) - (point.x - a.x) * (b.y - a.y) < 0 {
                    winding -= 1
                }
            }
        }
        return winding
    }

    // MARK: Stroking

    /// A polygon as a closed subpath wound counter-clockwise (positive area), so that a union of
    /// pieces fills correctly under the winding rule.
    private static func appendPolygon(_ points: [CGPoint], to out: inout [CGPath.Element]) {
        guard points.count > 2 else { return }
        var area: CGFloat = 0
        for i in 0..<points.count {
            let a = points[i], b = points[(i + 1) % points.count]
            area += a.x * b.y - b.x * a.y
        }
        guard area != 0 else { return }
        let ordered = area > 0 ? points : points.reversed()
        out.append(.move(ordered[0]))
        for p in ordered.dropFirst() { out.append(.line(p)) }
        out.append(.close)
    }

    private static func circle(_ c: CGPoint, _ r: CGFloat) -> [CGPoint] {
        let n = max(8, min(64, Int((r * 4).rounded(.up))))
        return (0..<n).map { i in
            let a = CGFloat(i) / CGFloat(n) * 2 * .pi
            return CGPoint(x: c.x + r * cos(a), y: c.y + r * sin(a))
        }
    }

    /// The stroke outline of `elements` (see `CGPath.copy(strokingWithWidth:…)`).
    static func strokeOutline(_ elements: [CGPath.Element], width: CGFloat, cap: CGLineCap, join: CGLineJoin,
                              miterLimit: CGFloat) -> [CGPath.Element] {
        guard width.isFinite, width > 0 else { return [] }
        let h = width / 2
        var out: [CGPath.Element] = []
        for line in flatten(elements, tolerance: max(width / 50, 0.05)) {
            // Drop repeated points: they have no direction.
            var pts: [CGPoint] = []
            for p in line.points where pts.last.map({ hypot($0.x - p.x, $0.y - p.y) > 1e-9 }) ?? true { pts.append(p) }
            if line.closed, pts.count > 1, let f = pts.first, let l = pts.last, hypot(f.x - l.x, f.y - l.y) <= 1e-9 {
                pts.removeLast()
            }
            if pts.count == 1 {
                // A zero-length subpath: round and square caps still paint a dot.
                let p = pts[0]
                if cap == .round { appendPolygon(circle(p, h), to: &out) }
                if cap == .square {
                    appendPolygon([CGPoint(x: p.x - h, y: p.y - h), CGPoint(x: p.x + h, y: p.y - h),
                                   CGPoint(x: p.x + h, y: p.y + h), CGPoint(x: p.x - h, y: p.y + h)], to: &out)
                }
                continue
            }
            let count = line.closed ? pts.count : pts.count - 1
            func direction(_ i: Int) -> CGPoint {
                let a = pts[i % pts.count], b = pts[(i + 1) % pts.count]
                let l = hypot(b.x - a.x, b.y - a.y)
                return CGPoint(x: (b.x - a.x) / l, y: (b.y - a.y) / l)
            }
            for i in 0..<count {
                var a = pts[i], b = pts[(i + 1) % pts.count]
                let d = direction(i)
                let n = CGPoint(x: -d.y * h, y: d.x * h)
                if !line.closed && cap == .square {
                    if i == 0 { a = CGPoint(x: a.x - d.x * h, y: a.y - d.y * h) }
                    if i == count - 1 { b = CGPoint(x: b.x + d.x * h, y: b.y + d.y * h) }
                }
                appendPolygon([CGPoint(x: a.x + n.x, y: a.y + n.y), CGPoint(x: a.x - n.x, y: a.y - n.y),
                               CGPoint(x: b.x - n.x, y: b.y - n.y), CGPoint(x: b.x + n.x, y: b.y + n.y)], to: &out)
            }
            // Joins between consecutive segments.
            let joins = line.closed ? pts.count : pts.count - 2
            if joins > 0 {
                for j in 0..<joins {
                    let i = line.closed ? j : j + 1
                    let p = pts[i % pts.count]
                    let d0 = direction((i - 1 + pts.count) % pts.count), d1 = direction(i)
                    let cross = d0.x * d1.y - d0.y * d1.x
                    guard abs(cross) > 1e-9 || d0.x * d1.x + d0.y * d1.y < 0 else { continue }
                    if join == .round {
                        appendPolygon(circle(p, h), to: &out)
                        continue
                    }
                    // The outer side: where the segments' offsets leave a gap.
                    let s: CGFloat = cross > 0 ? -1 : 1
                    let o0 = CGPoint(x: p.x - d0.y * h * s, y: p.y + d0.x * h * s)
                    let o1 = CGPoint(x: p.x - d1.y * h * s, y: p.y + d1.x * h * s)
                    let cosTheta = -(d0.x * d1.x + d0.y * d1.y)
                    let miterRatio = 1 / max(sin(acos(min(max(cosTheta, -1), 1)) / 2), 1e-12)
                    if join == .miter, miterRatio <= miterLimit {
                        let mx = d0.x + d1.x, my = d0.y + d1.y
                        let ml = hypot(-my, mx)
                        if ml > 0 {
                            let bis = CGPoint(x: -my / ml * s, y: mx / ml * s)
                            let tip = CGPoint(x: p.x + bis.x * h * miterRatio, y: p.y + bis.y * h * miterRatio)
                            appendPolygon([p, o0, tip, o1], to: &out)
                            continue
                        }
                    }
                    appendPolygon([p, o0, o1], to: &out)
                }
            }
            if !line.closed && cap == .round {
                appendPolygon(circle(pts[0], h), to: &out)
                appendPolygon(circle(pts[pts.count - 1], h), to: &out)
            }
        }
        return out
    }

    // MARK: Dashing

    /// `elements` cut into dashes (see `CGPath.copy(dashingWithPhase:lengths:…)`).
    static func dash(_ elements: [CGPath.Element], phase: CGFloat, lengths: [CGFloat]) -> [CGPath.Element] {
        let pattern = lengths.map { $0.isFinite ? max($0, 0) : 0 }
        let total = pattern.reduce(0, +)
        guard !pattern.isEmpty, total > 0, phase.isFinite else { return elements }
        var out: [CGPath.Element] = []
        for line in flatten(elements) {
            var pts = line.points
            if line.closed, let first = pts.first { pts.append(first) }
            // Where in the pattern the subpath starts.
            var offset = phase.truncatingRemainder(dividingBy: total)
            if offset < 0 { offset += total }
            var index = 0
            while offset >= pattern[index] { offset -= pattern[index]; index = (index + 1) % pattern.count }
            var remaining = pattern[index] - offset
            var on = index % 2 == 0
            var pieces = 0
            if on { out.append(.move(pts[0])) }
            for i in 1..<max(pts.count, 1) {
                var a = pts[i - 1]
                let b = pts[i]
                var length = hypot(b.x - a.x, b.y - a.y)
                while length > remaining {
                    let t = remaining / length
                    let p = CGPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
                    out.append(on ? .line(p) : .move(p))
                    pieces += 1
                    if pieces > 1_000_000 { return out }
                    length -= remaining
                    a = p
                    on.toggle()
                    index = (index + 1) % pattern.count
                    remaining = pattern[index]
                }
                remaining -= length
                if on { out.append(.line(b)) }
            }
        }
        return out
    }
}
