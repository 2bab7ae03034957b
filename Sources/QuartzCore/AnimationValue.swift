// The values animations interpolate, as Sendable values: what `fromValue`, `toValue`, `values`
// and the layers' animatable properties hold (Swift numbers, NSNumber, NSValue, CGPoint, CGSize,
// CGRect, CATransform3D, CGColor, CGPath, images, arrays) converted once when an animation is
// added, with the arithmetic Core Animation does on them.
import CoreGraphics
import CoreVideo
import Foundation

/// An animatable value.
package enum AnimValue: Sendable, Equatable {
    case scalar(Double)
    case point(CGPoint)
    case size(CGSize)
    case rect(CGRect)
    case transform(CATransform3D)
    /// A colour as RGBA components (generic RGB).
    case color(CGColor)
    case path(CGPath)
    /// Contents (an image or a pixel buffer) or nil contents: discrete.
    case contents(RenderLayer.Contents?)
    case array([AnimValue])

    /// `value` converted; nil for nil, non-finite numbers, and types no animatable property
    /// holds.
    package init?(_ value: Any?) {
        guard let value else { return nil }
        func finite(_ d: Double) -> AnimValue? { d.isFinite ? .scalar(d) : nil }
        switch value {
        case let v as AnimValue: self = v; return
        case let v as Double: guard let r = finite(v) else { return nil }; self = r
        case let v as CGFloat: guard let r = finite(Double(v)) else { return nil }; self = r
        case let v as Float: guard let r = finite(Double(v)) else { return nil }; self = r
        case let v as Int: self = .scalar(Double(v))
        case let v as Bool: self = .scalar(v ? 1 : 0)
        case let v as CGPoint:
            guard v.x.isFinite, v.y.isFinite else { return nil }
            self = .point(v)
        case let v as CGSize:
            guard v.width.isFinite, v.height.isFinite else { return nil }
            self = .size(v)
        case let v as CGRect:
            guard v.origin.x.isFinite, v.origin.y.isFinite, v.width.isFinite, v.height.isFinite else { return nil }
            self = .rect(v)
        case let v as CATransform3D:
            guard v.isFinite else { return nil }
            self = .transform(v)
        case let v as CGAffineTransform:
            let t = CATransform3DMakeAffineTransform(v)
            guard t.isFinite else { return nil }
            self = .transform(t)
        case let v as CGColor:
            guard (v.components ?? []).allSatisfy(\.isFinite) else { return nil }
            self = .color(v)
        case let v as CGPath:
            self = .path(v)
        case let v as CGImage:
            self = .contents(.image(v))
        case let v as CVBuffer:
            self = .contents(.pixelBuffer(v))
        case let v as NSNumber:
            guard let r = finite(v.doubleValue) else { return nil }
            self = r
        case let v as NSValue:
            let type = String(cString: v.objCType)
            if type == NSValue.caTransform3DEncoding {
                self.init(v.caTransform3DValue)
            } else if type.contains("Point") {
                self.init(v.pointValue)
            } else if type.contains("Size") {
                self.init(v.sizeValue)
            } else if type.contains("Rect") {
                self.init(v.rectValue)
            } else {
                return nil
            }
        case let v as [Any]:
            var out: [AnimValue] = []
            for e in v {
                guard let c = AnimValue(e) else { return nil }
                out.append(c)
            }
            self = .array(out)
        case let v as NSArray:
            self.init(v.map { $0 })
        default:
            return nil
        }
    }

    /// The value as an object for `value(forKeyPath:)`: numbers as NSNumber (as Apple boxes
    /// them), geometry as CGPoint/CGSize/CGRect/CATransform3D.
    package var object: Any? {
        switch self {
        case .scalar(let d): return NSNumber(value: d)
        case .point(let p): return p
        case .size(let s): return s
        case .rect(let r): return r
        case .transform(let t): return t
        case .color(let c): return c
        case .path(let p): return p
        case .contents(let c):
            switch c {
            case .image(let i)?: return i
            case .pixelBuffer(let b)?: return b
            case nil: return nil
            }
        case .array(let a): return a.map { $0.object as Any }
        }
    }

    package var scalar: Double? { if case .scalar(let d) = self { return d } else { return nil } }

    /// The value between `a` (t = 0) and `b` (t = 1); nil when they cannot be interpolated
    /// (different kinds, paths of different shapes, contents: the caller switches discretely).
    package static func interpolate(_ a: AnimValue, _ b: AnimValue, _ t: Double) -> AnimValue? {
        func l(_ x: CGFloat, _ y: CGFloat) -> CGFloat { x + (y - x) * CGFloat(t) }
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): return .scalar(x + (y - x) * t)
        case (.point(let p), .point(let q)): return .point(CGPoint(x: l(p.x, q.x), y: l(p.y, q.y)))
        case (.size(let p), .size(let q)): return .size(CGSize(width: l(p.width, q.width), height: l(p.height, q.height)))
        case (.rect(let p), .rect(let q)):
            return .rect(CGRect(x: l(p.origin.x, q.origin.x), y: l(p.origin.y, q.origin.y),
                                width: l(p.width, q.width), height: l(p.height, q.height)))
        case (.transform(let p), .transform(let q)):
            if t == 0 { return a }
            if t == 1 { return b }
            guard let dp = DecomposedTransform(p), let dq = DecomposedTransform(q) else { return t < 0.5 ? a : b }
            return .transform(DecomposedTransform.interpolate(dp, dq, t).transform)
        case (.color(let p), .color(let q)):
            let x = p.rgba, y = q.rgba
            return .color(CGColor(red: l(x[0], y[0]), green: l(x[1], y[1]), blue: l(x[2], y[2]), alpha: l(x[3], y[3])))
        case (.path(let p), .path(let q)):
            guard let r = CGPath.interpolate(p, q, t) else { return nil }
            return .path(r)
        case (.array(let p), .array(let q)):
            guard p.count == q.count else { return nil }
            var out: [AnimValue] = []
            for (x, y) in zip(p, q) {
                guard let v = interpolate(x, y, t) else { return nil }
                out.append(v)
            }
            return .array(out)
        default: return nil
        }
    }

    /// a + b (additive and cumulative animations, by-values); transforms concatenate (b after
    /// a's own: b · a).
    package static func add(_ a: AnimValue, _ b: AnimValue) -> AnimValue? {
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): return .scalar(x + y)
        case (.point(let p), .point(let q)): return .point(CGPoint(x: p.x + q.x, y: p.y + q.y))
        case (.size(let p), .size(let q)): return .size(CGSize(width: p.width + q.width, height: p.height + q.height))
        case (.rect(let p), .rect(let q)):
            return .rect(CGRect(x: p.origin.x + q.origin.x, y: p.origin.y + q.origin.y,
                                width: p.width + q.width, height: p.height + q.height))
        case (.transform(let p), .transform(let q)): return .transform(CATransform3DConcat(q, p))
        case (.color(let p), .color(let q)):
            let x = p.rgba, y = q.rgba
            return .color(CGColor(red: x[0] + y[0], green: x[1] + y[1], blue: x[2] + y[2], alpha: x[3] + y[3]))
        case (.array(let p), .array(let q)):
            guard p.count == q.count else { return nil }
            var out: [AnimValue] = []
            for (x, y) in zip(p, q) {
                guard let v = add(x, y) else { return nil }
                out.append(v)
            }
            return .array(out)
        default: return nil
        }
    }

    /// a − b (the inverse of `add`).
    package static func subtract(_ a: AnimValue, _ b: AnimValue) -> AnimValue? {
        switch (a, b) {
        case (.transform(let p), .transform(let q)): return .transform(CATransform3DConcat(p, CATransform3DInvert(q)))
        default:
            guard let nb = b.scaled(-1) else { return nil }
            return add(a, nb)
        }
    }

    /// k · self (cumulative repeats).
    package func scaled(_ k: Double) -> AnimValue? {
        let c = CGFloat(k)
        switch self {
        case .scalar(let x): return .scalar(x * k)
        case .point(let p): return .point(CGPoint(x: p.x * c, y: p.y * c))
        case .size(let s): return .size(CGSize(width: s.width * c, height: s.height * c))
        case .rect(let r): return .rect(CGRect(x: r.origin.x * c, y: r.origin.y * c, width: r.width * c, height: r.height * c))
        case .color(let col):
            let x = col.rgba
            return .color(CGColor(red: x[0] * c, green: x[1] * c, blue: x[2] * c, alpha: x[3] * c))
        case .transform(let t):
            guard let d = DecomposedTransform(t) else { return nil }
            let id = DecomposedTransform(CATransform3DIdentity)!
            return .transform(DecomposedTransform.interpolate(id, d, k).transform)
        case .array(let a):
            var out: [AnimValue] = []
            for v in a {
                guard let s = v.scaled(k) else { return nil }
                out.append(s)
            }
            return .array(out)
        default: return nil
        }
    }

    /// The distance between two values (paced keyframes): Euclidean for numbers, points, sizes
    /// and rects, the component distance for colours and the translation distance for
    /// transforms.
    package static func distance(_ a: AnimValue, _ b: AnimValue) -> Double {
        func h(_ v: [Double]) -> Double { v.map { $0 * $0 }.reduce(0, +).squareRoot() }
        switch (a, b) {
        case (.scalar(let x), .scalar(let y)): return abs(y - x)
        case (.point(let p), .point(let q)): return h([Double(q.x - p.x), Double(q.y - p.y)])
        case (.size(let p), .size(let q)): return h([Double(q.width - p.width), Double(q.height - p.height)])
        case (.rect(let p), .rect(let q)):
            return h([Double(q.origin.x - p.origin.x), Double(q.origin.y - p.origin.y),
                      Double(q.width - p.width), Double(q.height - p.height)])
        case (.color(let p), .color(let q)): return h(zip(p.rgba, q.rgba).map { Double($1 - $0) })
        case (.transform(let p), .transform(let q)):
            return h([Double(q.m41 - p.m41), Double(q.m42 - p.m42), Double(q.m43 - p.m43)])
        case (.array(let p), .array(let q)) where p.count == q.count:
            return h(zip(p, q).map { distance($0, $1) })
        default: return 0
        }
    }
}

extension CGColor {
    /// The colour as [r, g, b, a] (grey spread to all three; CMYK converted naively).
    package var rgba: [CGFloat] {
        let c = components ?? [0, 0, 0, 0]
        switch c.count {
        case 2: return [c[0], c[0], c[0], c[1]]
        case 4: return c
        case 5: return [(1 - c[0]) * (1 - c[3]), (1 - c[1]) * (1 - c[3]), (1 - c[2]) * (1 - c[3]), c[4]]
        case 3: return [c[0], c[1], c[2], 1]
        case 1: return [c[0], c[0], c[0], 1]
        default: return [0, 0, 0, c.last ?? 0]
        }
    }
}

extension CGPath {
    /// The path between `a` and `b` when both have the same element kinds in the same order
    /// (each point interpolated); nil otherwise.
    package static func interpolate(_ a: CGPath, _ b: CGPath, _ t: Double) -> CGPath? {
        guard a.elements.count == b.elements.count else { return nil }
        let k = CGFloat(t)
        func l(_ p: CGPoint, _ q: CGPoint) -> CGPoint { CGPoint(x: p.x + (q.x - p.x) * k, y: p.y + (q.y - p.y) * k) }
        var out: [Element] = []
        out.reserveCapacity(a.elements.count)
        for (x, y) in zip(a.elements, b.elements) {
            switch (x, y) {
            case (.move(let p), .move(let q)): out.append(.move(l(p, q)))
            case (.line(let p), .line(let q)): out.append(.line(l(p, q)))
            case (.quad(let p1, let p2), .quad(let q1, let q2)): out.append(.quad(l(p1, q1), l(p2, q2)))
            case (.cubic(let p1, let p2, let p3), .cubic(let q1, let q2, let q3)):
                out.append(.cubic(l(p1, q1), l(p2, q2), l(p3, q3)))
            case (.close, .close): out.append(.close)
            default: return nil
            }
        }
        return CGPath(elements: out)
    }
}
