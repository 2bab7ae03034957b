// CGVector: a two-dimensional vector (Core Graphics geometry; swift-corelibs-foundation lacks it).

/// A structure that contains a two-dimensional vector.
public struct CGVector: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The x component of the vector.
    public var dx: CGFloat
    /// The y component of the vector.
    public var dy: CGFloat

    /// A vector whose components are both zero.
    public init() {
        dx = 0
        dy = 0
    }

    /// A vector with the given components.
    public init(dx: CGFloat, dy: CGFloat) {
        self.dx = dx
        self.dy = dy
    }

    /// A vector with the given components.
    public init(dx: Double, dy: Double) {
        self.init(dx: CGFloat(dx), dy: CGFloat(dy))
    }

    /// A vector with the given components.
    public init(dx: Int, dy: Int) {
        self.init(dx: CGFloat(dx), dy: CGFloat(dy))
    }

    /// The vector whose components are both zero.
    public static var zero: CGVector { CGVector() }

    /// A textual representation, as Apple's: `CGVector(dx: 1.0, dy: 2.0)`.
    public var description: String { "CGVector(dx: \(dx), dy: \(dy))" }
}

/// Returns a vector with the given components (`CGVectorMake`).
@discardableResult
public func CGVectorMake(_ dx: CGFloat, _ dy: CGFloat) -> CGVector { CGVector(dx: dx, dy: dy) }
