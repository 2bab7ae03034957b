// CGPath and CGMutablePath: Quartz paths as values — subpaths of lines, quadratic and cubic Bézier
// curves, kept as Swift elements in user space; Cairo rasterises them when a context fills,
// strokes or clips (CGContext+Paths.swift). Geometry (bounds, hit testing, flattening, stroking
// and dashing outlines) lives in CGPath+Geometry.swift and PathGeometry.swift, per point.
import Foundation
import Synchronization

/// An immutable graphics path: a sequence of subpaths in user space.
public class CGPath: @unchecked Sendable, Equatable, CustomStringConvertible {
    // @unchecked Sendable: its one mutable value, `storage`, is a Mutex (unchecked only because the class is not final: CGMutablePath extends it).

    /// One stored element: its kind and up to three points.
    package enum Element: Equatable, Sendable {
        case move(CGPoint)
        case line(CGPoint)
        case quad(CGPoint, CGPoint)
        case cubic(CGPoint, CGPoint, CGPoint)
        case close
    }

    /// The elements, in order (only CGMutablePath changes them, through `storage`).
    let storage: Mutex<[Element]>

    /// The elements, in order.
    package var elements: [Element] { storage.withLock { $0 } }

    package init(elements: [Element]) { storage = Mutex(elements) }

    /// An empty path.
    init() { storage = Mutex([]) }

    /// A closed rectangle path (`transform` applied to its points when given).
    public convenience init(rect: CGRect, transform: UnsafePointer<CGAffineTransform>?) {
        let path = CGMutablePath()
        path.addRect(rect, transform: transform?.pointee ?? .identity)
        self.init(elements: path.elements)
    }

    /// A closed ellipse path inscribed in `rect` (`transform` applied when given).
    public convenience init(ellipseIn rect: CGRect, transform: UnsafePointer<CGAffineTransform>?) {
        let path = CGMutablePath()
        path.addEllipse(in: rect, transform: transform?.pointee ?? .identity)
        self.init(elements: path.elements)
    }

    /// A closed rounded-rectangle path (`transform` applied when given). Corner sizes are clamped
    /// to half the rectangle's sides.
    public convenience init(roundedRect rect: CGRect, cornerWidth: CGFloat, cornerHeight: CGFloat,
                            transform: UnsafePointer<CGAffineTransform>?) {
        let path = CGMutablePath()
        path.addRoundedRect(in: rect, cornerWidth: cornerWidth, cornerHeight: cornerHeight,
                            transform: transform?.pointee ?? .identity)
        self.init(elements: path.elements)
    }

    public static func == (lhs: CGPath, rhs: CGPath) -> Bool { lhs === rhs || lhs.elements == rhs.elements }

    public var description: String { "<CGPath \(elements.count) elements>" }

    // MARK: Copies

    /// An immutable copy.
    public func copy() -> CGPath? { CGPath(elements: elements) }

    /// An immutable copy with `transform` applied to every point (nil: unchanged).
    public func copy(using transform: UnsafePointer<CGAffineTransform>?) -> CGPath? {
        CGPath(elements: transformed(transform?.pointee ?? .identity))
    }

    /// A mutable copy.
    public func mutableCopy() -> CGMutablePath? { CGMutablePath(elements: elements) }

    /// A mutable copy with `transform` applied to every point (nil: unchanged).
    public func mutableCopy(using transform: UnsafePointer<CGAffineTransform>?) -> CGMutablePath? {
        CGMutablePath(elements: transformed(transform?.pointee ?? .identity))
    }

    /// The elements with `t` applied to every point.
    package func transformed(_ t: CGAffineTransform) -> [Element] {
        t.isIdentity ? elements : elements.map { $0.applying(t) }
    }

    // MARK: Queries

    /// Whether the path has no elements.
    public var isEmpty: Bool { elements.isEmpty }

    /// The point where the next element would start: the last element's end point, or the start
    /// of the last subpath after a close; `.zero` for an empty path.
    public var currentPoint: CGPoint { PathGeometry.currentPoint(elements) ?? .zero }

    /// The smallest rectangle containing every point of the path, control points included;
    /// `.null` for an empty path.
    public var boundingBox: CGRect {
        var box = CGRect.null
        for element in elements {
            for p in element.points { box = box.union(CGRect(origin: p, size: .zero)) }
        }
        return box
    }

    /// The smallest rectangle containing the path's curves themselves (curve extrema solved
    /// exactly, control points off the curve excluded); `.null` for an empty path.
    public var boundingBoxOfPath: CGRect { PathGeometry.exactBounds(elements) }

    /// Whether `point` is inside the path under `rule` (open subpaths are implicitly closed),
    /// the path's points mapped by `transform` first.
    public func contains(_ point: CGPoint, using rule: CGPathFillRule = .winding,
                         transform: CGAffineTransform = .identity) -> Bool {
        guard point.x.isFinite, point.y.isFinite else { return false }
        let polygons = PathGeometry.flatten(transformed(transform), tolerance: 0.01)
        let winding = PathGeometry.winding(of: point, in: polygons.map(\.points))
        return rule == .winding ? winding != 0 : winding % 2 != 0
    }

    /// Whether the path is one axis-aligned rectangle (move and three or four lines, optionally
    /// closed); writes it to `rect` when it is.
    public func isRect(_ rect: UnsafeMutablePointer<CGRect>?) -> Bool {
        var points: [CGPoint] = []
        for (index, element) in elements.enumerated() {
            switch element {
            case .move(let p) where index == 0: points.append(p)
            case .line(let p) where index > 0: points.append(p)
            case .close where index == elements.count - 1: break
            default: return false
            }
        }
        if points.count == 5, points[4] == points[0] { points.removeLast() }
        guard points.count == 4 else { return false }
        for i in 0..<4 {
            let a = points[i], b = points[(i + 1) % 4]
            guard a.x == b.x || a.y == b.y else { return false }
        }
        let horizontalFirst = points[0].y == points[1].y
        for i in 0..<4 {
            let a = points[i], b = points[(i + 1) % 4]
            let horizontal = (i % 2 == 0) == horizontalFirst
            guard horizontal ? (a.y == b.y) : (a.x == b.x) else { return false }
        }
        let xs = points.map(\.x), ys = points.map(\.y)
        let r = CGRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
        rect?.pointee = r
        return true
    }

    // MARK: Iteration

    /// Calls `block` with each element in order.
    public func applyWithBlock(_ block: (UnsafePointer<CGPathElement>) -> Void) {
        let points = UnsafeMutablePointer<CGPoint>.allocate(capacity: 3)
        defer { points.deallocate() }
        points.initialize(repeating: .zero, count: 3)
        for element in elements {
            let type: CGPathElementType
            switch element {
            case .move(let p): type = .moveToPoint; points[0] = p
            case .line(let p): type = .addLineToPoint; points[0] = p
            case .quad(let c, let p): type = .addQuadCurveToPoint; points[0] = c; points[1] = p
            case .cubic(let c1, let c2, let p): type = .addCurveToPoint; points[0] = c1; points[1] = c2; points[2] = p
            case .close: type = .closeSubpath
            }
            var e = CGPathElement(type: type, points: points)
            block(&e)
        }
    }

    /// Calls `function` with `info` and each element in order.
    public func apply(info: UnsafeMutableRawPointer?, function: CGPathApplierFunction) {
        applyWithBlock { function(info, $0) }
    }

    // MARK: Derived paths

    /// The outline of the path stroked with `lineWidth`, `lineCap`, `lineJoin` and `miterLimit`
    /// (`transform` applied to the path first), as a path to fill with the winding rule:
    /// a union of per-segment quadrilaterals, join and cap pieces, all wound the same way.
    public func copy(strokingWithWidth lineWidth: CGFloat, lineCap: CGLineCap, lineJoin: CGLineJoin,
                     miterLimit: CGFloat, transform: CGAffineTransform = .identity) -> CGPath {
        CGPath(elements: PathGeometry.strokeOutline(transformed(transform), width: lineWidth, cap: lineCap,
                                                    join: lineJoin, miterLimit: miterLimit))
    }

    /// The path cut into dashes: `lengths` alternate painted and unpainted lengths, starting
    /// `phase` into the pattern (`transform` applied to the path first). Curves are flattened.
    /// An empty or all-zero `lengths` gives the path unchanged.
    public func copy(dashingWithPhase phase: CGFloat, lengths: [CGFloat],
                     transform: CGAffineTransform = .identity) -> CGPath {
        CGPath(elements: PathGeometry.dash(transformed(transform), phase: phase, lengths: lengths))
    }
}

extension CGPath.Element {
    /// The element's points: control points then end point.
    package var points: [CGPoint] {
        switch self {
        case .move(let p), .line(let p): [p]
        case .quad(let c, let p): [c, p]
        case .cubic(let c1, let c2, let p): [c1, c2, p]
        case .close: []
        }
    }

    /// The element with `t` applied to its points.
    package func applying(_ t: CGAffineTransform) -> Self {
        switch self {
        case .move(let p): .move(p.applying(t))
        case .line(let p): .line(p.applying(t))
        case .quad(let c, let p): .quad(c.applying(t), p.applying(t))
        case .cubic(let c1, let c2, let p): .cubic(c1.applying(t), c2.applying(t), p.applying(t))
        case .close: .close
        }
    }

    /// Whether every point is finite.
    package var isFinite: Bool { points.allSatisfy { $0.x.isFinite && $0.y.isFinite } }
}
