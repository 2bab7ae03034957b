// CGPath and CGMutablePath: Quartz paths as values — subpaths of lines, quadratic and cubic Bézier
// curves, kept as Swift elements in user space; Cairo rasterises them when a context fills,
// strokes or clips (CGContext+Paths.swift).
import Foundation

/// The kind of one path element.
public enum CGPathElementType: Int32, Sendable {
    case moveToPoint = 0
    case addLineToPoint = 1
    case addQuadCurveToPoint = 2
    case addCurveToPoint = 3
    case closeSubpath = 4
}

/// One element of a path, as `CGPath.applyWithBlock(_:)` hands it out: its type and its points
/// (1 for move and line, 2 for a quadratic curve — control point, end — 3 for a cubic curve, 0
/// for close).
public struct CGPathElement {
    public var type: CGPathElementType
    public var points: UnsafeMutablePointer<CGPoint>
    public init(type: CGPathElementType, points: UnsafeMutablePointer<CGPoint>) {
        self.type = type
        self.points = points
    }
}

/// An immutable graphics path: a sequence of subpaths in user space.
public class CGPath: @unchecked Sendable, Equatable, CustomStringConvertible {
    // @unchecked Sendable: a CGPath's elements never change after it is made; only
    // CGMutablePath, which is not shared across threads while it is being built (as on Apple
    // platforms), appends to them.

    /// One stored element: its kind and up to three points.
    package enum Element: Equatable, Sendable {
        case move(CGPoint)
        case line(CGPoint)
        case quad(CGPoint, CGPoint)
        case cubic(CGPoint, CGPoint, CGPoint)
        case close
    }

    /// The elements, in order.
    package internal(set) var elements: [Element]

    package init(elements: [Element]) { self.elements = elements }

    /// An empty path.
    init() { elements = [] }

    public static func == (lhs: CGPath, rhs: CGPath) -> Bool { lhs === rhs || lhs.elements == rhs.elements }

    public var description: String { "<CGPath \(elements.count) elements>" }
}

/// A path that can be built up.
public final class CGMutablePath: CGPath {
    /// An empty mutable path.
    public override init() { super.init() }

    package override init(elements: [Element]) { super.init(elements: elements) }
}
