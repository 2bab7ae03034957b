// AnimationSpec: an animation as a Sendable value (made when it is added to a layer) and its
// evaluation at a time onto a layer's presentation values.
import CoreGraphics
import Foundation

/// An animation frozen as a value.
package struct AnimationSpec: Sendable {
    package var timing: TimingValues
    /// The animation's timing function; nil is linear.
    package var curve: TimingCurve?
    package var kind: Kind

    package enum Kind: Sendable {
        case property(PropertySpec)
        case group([AnimationSpec])
        case transition(TransitionSpec)
    }

    package init(timing: TimingValues, curve: TimingCurve?, kind: Kind) {
        self.timing = timing
        self.curve = curve
        self.kind = kind
    }

    /// Whether the animation has finished by parent time `t` (its active duration is over).
    package func isFinished(atParent t: Double) -> Bool {
        var open = timing
        open.fillMode = .both
        guard let it = open.iteration(atParent: t) else { return false }
        var plain = timing
        plain.fillMode = .backwards
        return plain.iteration(atParent: t) == nil && it.duration > 0
    }

    /// Applies the animation at parent time `t` (the layer's local time) to `p`.
    package func apply(to p: inout Presentation, at t: Double) {
        guard let it = timing.iteration(atParent: t) else { return }
        var f = it.duration > 0 ? it.time / it.duration : 1
        if let curve { f = curve.evaluate(f) }
        switch kind {
        case .property(let ps):
            ps.apply(to: &p, fraction: f, iteration: it.index, seconds: it.time)
        case .group(let children):
            let childTime = f * it.duration
            for c in children { c.apply(to: &p, at: childTime) }
        case .transition(let ts):
            p.transition = (ts, ts.start + (ts.end - ts.start) * f)
        }
    }
}

/// A transition's values.
package struct TransitionSpec: Sendable {
    package var type: String
    package var subtype: String?
    package var start: Double
    package var end: Double
    package var old: RenderLayer?
    /// The id the old rendering carries in the tree (the transition's).
    package var oldID: ObjectIdentifier
}

/// A property animation's values.
package struct PropertySpec: Sendable {
    package var keyPath: String
    package var additive: Bool
    package var cumulative: Bool
    package var mode: Mode

    package enum Mode: Sendable {
        case basic(from: AnimValue?, to: AnimValue?, by: AnimValue?)
        case spring(from: AnimValue?, to: AnimValue?, by: AnimValue?, SpringValues)
        case keyframe(KeyframeSpec)
    }

    /// The start and end values of a basic or spring animation given the current value.
    private func endpoints(_ from: AnimValue?, _ to: AnimValue?, _ by: AnimValue?, current: AnimValue)
        -> (AnimValue, AnimValue)? {
        // With isAdditive the values are offsets from the model: "current" is then zero-ish.
        switch (from, to, by) {
        case (let f?, let t?, _): return (f, t)
        case (let f?, nil, let b?): return AnimValue.add(f, b).map { (f, $0) }
        case (nil, let t?, let b?): return AnimValue.subtract(t, b).map { ($0, t) }
        case (let f?, nil, nil): return (f, current)
        case (nil, let t?, nil): return (current, t)
        case (nil, nil, let b?): return AnimValue.add(current, b).map { (current, $0) }
        default: return nil
        }
    }

    /// Sets the animated value at elapsed fraction `f` (after the timing function) of
    /// iteration `iteration` (`seconds` into it, for springs).
    package func apply(to p: inout Presentation, fraction f: Double, iteration: Int, seconds: Double) {
        guard let current = p.value(forKeyPath: keyPath) else { return }
        var value: AnimValue
        var span: (AnimValue, AnimValue)
        switch mode {
        case .basic(let from, let to, let by):
            guard let (a, b) = endpoints(from, to, by, current: current) else { return }
            span = (a, b)
            guard let v = Self.mix(a, b, f, keyPath: keyPath) else { return }
            value = v
        case .spring(let from, let to, let by, let spring):
            guard let (a, b) = endpoints(from, to, by, current: current) else { return }
            span = (a, b)
            guard let v = Self.mix(a, b, spring.progress(seconds), keyPath: keyPath) else { return }
            value = v
        case .keyframe(let k):
            guard let v = k.value(at: f, keyPath: keyPath) else { return }
            value = v
            span = (k.values[0], k.values[k.values.count - 1])
            if k.rotate != 0, let angle = k.tangentAngle(at: f) {
                let a = k.rotate > 0 ? angle : angle + .pi
                p.layer.transform = CATransform3DRotate(p.layer.transform, CGFloat(a), 0, 0, 1)
            }
        }
        if cumulative && iteration > 0,
           let delta = AnimValue.subtract(span.1, span.0)?.scaled(Double(iteration)),
           let v = AnimValue.add(value, delta) {
            value = v
        }
        if additive {
            guard let v = AnimValue.add(current, value) else { return }
            value = v
        }
        p.setValue(value, forKeyPath: keyPath)
    }

    /// The value between a and b at f; discrete properties and values that cannot be
    /// interpolated switch at the midpoint.
    static func mix(_ a: AnimValue, _ b: AnimValue, _ f: Double, keyPath: String) -> AnimValue? {
        if Presentation.discreteKeys.contains(keyPath) { return f < 0.5 ? a : b }
        if let v = AnimValue.interpolate(a, b, f) { return v }
        switch (a, b) {
        case (.path, .path), (.contents, .contents): return f < 0.5 ? a : b
        default: return nil
        }
    }
}

/// A keyframe animation's values.
package struct KeyframeSpec: Sendable {
    package var values: [AnimValue] = []
    package var keyTimes: [Double]?
    package var functions: [TimingCurve]?
    package var mode = "linear"
    package var tension: [Double] = []
    package var continuity: [Double] = []
    package var bias: [Double] = []
    /// 1: rotate along the tangent; −1: along it plus π; 0: no rotation.
    package var rotate = 0
    package var isPath = false
    /// For a path: the polyline from keyframe i to i + 1 (curves flattened).
    package var segments: [[CGPoint]] = []

    package init() {}

    /// A path's keyframes (its elements' end points) and, in `segments`, the polylines between
    /// them.
    static func pathKeyframes(_ path: CGPath) -> [CGPoint] {
        var spec = KeyframeSpec()
        spec.loadPath(path)
        return spec.values.compactMap { if case .point(let p) = $0 { return p } else { return nil } }
    }

    mutating func loadPath(_ path: CGPath) {
        var points: [CGPoint] = []
        var segs: [[CGPoint]] = []
        var start = CGPoint.zero
        func add(_ poly: [CGPoint]) {
            guard let last = points.last else { points.append(poly.last ?? .zero); return }
            segs.append([last] + poly)
            points.append(poly.last ?? last)
        }
        for e in path.elements {
            switch e {
            case .move(let p):
                start = p
                if points.isEmpty { points.append(p) } else { add([p]) }
            case .line(let p): add([p])
            case .quad(let c, let p):
                let a = points.last ?? .zero
                add((1...16).map { i -> CGPoint in
                    let t = CGFloat(i) / 16, u = 1 - t
                    return CGPoint(x: u * u * a.x + 2 * u * t * c.x + t * t * p.x, y: u * u * a.y + 2 * u * t * c.y + t * t * p.y)
                })
            case .cubic(let c1, let c2, let p):
                let a = points.last ?? .zero
                add((1...16).map { i -> CGPoint in
                    let t = CGFloat(i) / 16, u = 1 - t
                    let x = u * u * u * a.x + 3 * u * u * t * c1.x + 3 * u * t * t * c2.x + t * t * t * p.x
                    let y = u * u * u * a.y + 3 * u * u * t * c1.y + 3 * u * t * t * c2.y + t * t * t * p.y
                    return CGPoint(x: x, y: y)
                })
            case .close: add([start])
            }
        }
        values = points.map { .point($0) }
        segments = segs
    }

    /// The key times in use: the given ones when valid (one per value, ascending from 0 to 1,
    /// finite) and the mode uses them; paced modes space by distance; otherwise evenly spaced.
    func effectiveKeyTimes() -> [Double] {
        let n = values.count
        if mode == "paced" || mode == "cubicPaced" {
            var lengths: [Double] = []
            for i in 0..<(n - 1) { lengths.append(segmentLength(i)) }
            let total = lengths.reduce(0, +)
            if total > 0 && total.isFinite {
                var acc = 0.0
                return [0] + lengths.map { acc += $0; return acc / total }
            }
        } else if let kt = keyTimes, kt.allSatisfy({ $0.isFinite }), zip(kt, kt.dropFirst()).allSatisfy({ $0 <= $1 }),
                  (kt.count == n || (mode == "discrete" && kt.count == n + 1)) {
            return kt
        }
        if mode == "discrete" { return (0..<n).map { Double($0) / Double(n) } }
        return n == 1 ? [0] : (0..<n).map { Double($0) / Double(n - 1) }
    }

    private func segmentLength(_ i: Int) -> Double {
        if isPath, i < segments.count { return Self.polylineLength(segments[i]) }
        return AnimValue.distance(values[i], values[i + 1])
    }

    static func polylineLength(_ poly: [CGPoint]) -> Double {
        zip(poly, poly.dropFirst()).map { Double(hypot($1.x - $0.x, $1.y - $0.y)) }.reduce(0, +)
    }

    /// The segment and its local fraction at elapsed fraction f.
    private func locate(_ f: Double) -> (Int, Double) {
        let kt = effectiveKeyTimes()
        let n = values.count
        if n == 1 { return (0, 0) }
        if f <= kt[0] { return (0, 0) }
        if f >= kt[n - 1] { return (n - 2, 1) }
        var i = 0
        while i < n - 2 && f >= kt[i + 1] { i += 1 }
        let span = kt[i + 1] - kt[i]
        var u = span > 0 ? (f - kt[i]) / span : 1
        if mode != "paced" && mode != "cubicPaced", let fs = functions, i < fs.count { u = fs[i].evaluate(u) }
        return (i, u)
    }

    /// The value at elapsed fraction f.
    func value(at f: Double, keyPath: String) -> AnimValue? {
        let n = values.count
        guard n > 0 else { return nil }
        if n == 1 { return values[0] }
        if mode == "discrete" {
            let kt = effectiveKeyTimes()
            var i = 0
            while i + 1 < kt.count && f >= kt[i + 1] { i += 1 }
            return values[min(i, n - 1)]
        }
        let (i, u) = locate(f)
        if isPath, i < segments.count {
            return .point(Self.point(along: segments[i], u))
        }
        if mode == "cubic" || mode == "cubicPaced", let v = cubic(i, u) { return v }
        return PropertySpec.mix(values[i], values[i + 1], u, keyPath: keyPath)
    }

    /// The point a fraction u of the way along a polyline (by length).
    static func point(along poly: [CGPoint], _ u: Double) -> CGPoint {
        guard poly.count > 1 else { return poly.first ?? .zero }
        let total = polylineLength(poly)
        guard total > 0 else { return poly[poly.count - 1] }
        var remaining = u * total
        for (a, b) in zip(poly, poly.dropFirst()) {
            let l = Double(hypot(b.x - a.x, b.y - a.y))
            if remaining <= l && l > 0 {
                let k = CGFloat(remaining / l)
                return CGPoint(x: a.x + (b.x - a.x) * k, y: a.y + (b.y - a.y) * k)
            }
            remaining -= l
        }
        return poly[poly.count - 1]
    }

    /// The tangent's angle at elapsed fraction f (radians, atan2(dy, dx)).
    func tangentAngle(at f: Double) -> Double? {
        let (i, u) = locate(f)
        var a: CGPoint, b: CGPoint
        if isPath, i < segments.count, segments[i].count > 1 {
            let poly = segments[i]
            let total = Self.polylineLength(poly)
            var remaining = u * total
            var k = 0
            while k < poly.count - 2 {
                let l = Double(hypot(poly[k + 1].x - poly[k].x, poly[k + 1].y - poly[k].y))
                if remaining <= l { break }
                remaining -= l
                k += 1
            }
            a = poly[k]; b = poly[k + 1]
        } else if case .point(let p) = values[i], case .point(let q) = values[i + 1] {
            a = p; b = q
        } else {
            return nil
        }
        guard a != b else { return nil }
        return atan2(Double(b.y - a.y), Double(b.x - a.x))
    }

    /// Kochanek–Bartels (TCB) spline between keyframes i and i + 1 at u, for numbers, points
    /// and sizes; nil for other kinds.
    private func cubic(_ i: Int, _ u: Double) -> AnimValue? {
        func comps(_ v: AnimValue) -> [Double]? {
            switch v {
            case .scalar(let d): return [d]
            case .point(let p): return [Double(p.x), Double(p.y)]
            case .size(let s): return [Double(s.width), Double(s.height)]
            default: return nil
            }
        }
        let n = values.count
        guard let p1 = comps(values[i]), let p2 = comps(values[i + 1]),
              let p0 = comps(values[max(i - 1, 0)]), let p3 = comps(values[min(i + 2, n - 1)]),
              p0.count == p1.count, p3.count == p1.count, p2.count == p1.count else { return nil }
        func param(_ a: [Double], _ k: Int) -> Double { k < a.count && a[k].isFinite ? a[k] : 0 }
        let t1 = param(tension, i), c1 = param(continuity, i), b1 = param(bias, i)
        let t2 = param(tension, i + 1), c2 = param(continuity, i + 1), b2 = param(bias, i + 1)
        var out: [Double] = []
        for k in 0..<p1.count {
            // Outgoing tangent at i, incoming tangent at i + 1.
            let d0 = (1 - t1) * (1 + b1) * (1 + c1) / 2 * (p1[k] - p0[k]) + (1 - t1) * (1 - b1) * (1 - c1) / 2 * (p2[k] - p1[k])
            let d1 = (1 - t2) * (1 + b2) * (1 - c2) / 2 * (p2[k] - p1[k]) + (1 - t2) * (1 - b2) * (1 + c2) / 2 * (p3[k] - p2[k])
            let u2 = u * u, u3 = u2 * u
            let h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2
            out.append(h00 * p1[k] + h10 * d0 + h01 * p2[k] + h11 * d1)
        }
        switch values[i] {
        case .scalar: return .scalar(out[0])
        case .point: return .point(CGPoint(x: out[0], y: out[1]))
        default: return .size(CGSize(width: out[0], height: out[1]))
        }
    }
}
