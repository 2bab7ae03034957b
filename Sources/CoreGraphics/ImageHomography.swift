import Foundation

/// A 3×3 projective matrix in row-vector form: a point (x, y) maps to
/// ([x y 1]·H).xy / ([x y 1]·H).z. Used by `CGContext.draw(_:projecting:)` to map image pixel
/// coordinates (x right, y down from the first row, pixel corners on integers) to user space.
package struct ImageHomography: Sendable, Equatable {
    package var m11: CGFloat, m12: CGFloat, m13: CGFloat
    package var m21: CGFloat, m22: CGFloat, m23: CGFloat
    package var m31: CGFloat, m32: CGFloat, m33: CGFloat

    /// The matrix from its rows.
    package init(_ m11: CGFloat, _ m12: CGFloat, _ m13: CGFloat,
                 _ m21: CGFloat, _ m22: CGFloat, _ m23: CGFloat,
                 _ m31: CGFloat, _ m32: CGFloat, _ m33: CGFloat) {
        (self.m11, self.m12, self.m13) = (m11, m12, m13)
        (self.m21, self.m22, self.m23) = (m21, m22, m23)
        (self.m31, self.m32, self.m33) = (m31, m32, m33)
    }

    /// The affine transform as a homography.
    package init(_ t: CGAffineTransform) {
        self.init(t.a, t.b, 0, t.c, t.d, 0, t.tx, t.ty, 1)
    }

    /// self · other (apply self, then other).
    package func concatenating(_ o: ImageHomography) -> ImageHomography {
        ImageHomography(m11 * o.m11 + m12 * o.m21 + m13 * o.m31, m11 * o.m12 + m12 * o.m22 + m13 * o.m32,
                        m11 * o.m13 + m12 * o.m23 + m13 * o.m33,
                        m21 * o.m11 + m22 * o.m21 + m23 * o.m31, m21 * o.m12 + m22 * o.m22 + m23 * o.m32,
                        m21 * o.m13 + m22 * o.m23 + m23 * o.m33,
                        m31 * o.m11 + m32 * o.m21 + m33 * o.m31, m31 * o.m12 + m32 * o.m22 + m33 * o.m32,
                        m31 * o.m13 + m32 * o.m23 + m33 * o.m33)
    }

    /// The inverse; nil when singular or not finite.
    package func inverted() -> ImageHomography? {
        let c11 = m22 * m33 - m23 * m32, c12 = m23 * m31 - m21 * m33, c13 = m21 * m32 - m22 * m31
        let det = m11 * c11 + m12 * c12 + m13 * c13
        guard det != 0, det.isFinite else { return nil }
        let inv = 1 / det
        return ImageHomography(c11 * inv, (m13 * m32 - m12 * m33) * inv, (m12 * m23 - m13 * m22) * inv,
                               c12 * inv, (m11 * m33 - m13 * m31) * inv, (m13 * m21 - m11 * m23) * inv,
                               c13 * inv, (m12 * m31 - m11 * m32) * inv, (m11 * m22 - m12 * m21) * inv)
    }

    /// Where (x, y) maps, with its homogeneous w.
    package func apply(_ x: CGFloat, _ y: CGFloat) -> (x: CGFloat, y: CGFloat, w: CGFloat) {
        let w = x * m13 + y * m23 + m33
        return ((x * m11 + y * m21 + m31) / w, (x * m12 + y * m22 + m32) / w, w)
    }
}
