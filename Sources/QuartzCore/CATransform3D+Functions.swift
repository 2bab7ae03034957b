// Core Animation's CATransform3D functions (row vectors: a point is [x y z 1] · M, so
// `CATransform3DConcat(a, b)` applies a then b), NSValue boxing, and the decomposition Core
// Animation interpolates matrices through (translation, scale, skew, perspective, quaternion).
import CoreGraphics
import Foundation

/// Whether `t` is the identity transform.
public func CATransform3DIsIdentity(_ t: CATransform3D) -> Bool { t == CATransform3DIdentity }

/// Whether two transforms are exactly equal.
public func CATransform3DEqualToTransform(_ a: CATransform3D, _ b: CATransform3D) -> Bool { a == b }

/// A transform that translates by (tx, ty, tz).
public func CATransform3DMakeTranslation(_ tx: CGFloat, _ ty: CGFloat, _ tz: CGFloat) -> CATransform3D {
    var t = CATransform3DIdentity
    t.m41 = tx; t.m42 = ty; t.m43 = tz
    return t
}

/// A transform that scales by (sx, sy, sz).
public func CATransform3DMakeScale(_ sx: CGFloat, _ sy: CGFloat, _ sz: CGFloat) -> CATransform3D {
    var t = CATransform3DIdentity
    t.m11 = sx; t.m22 = sy; t.m33 = sz
    return t
}

/// A transform that rotates by `angle` radians about the vector (x, y, z); the identity when the
/// vector has zero length, as Apple's.
public func CATransform3DMakeRotation(_ angle: CGFloat, _ x: CGFloat, _ y: CGFloat, _ z: CGFloat) -> CATransform3D {
    let len = (x * x + y * y + z * z).squareRoot()
    guard len > 0, len.isFinite, angle.isFinite else { return CATransform3DIdentity }
    let (x, y, z) = (x / len, y / len, z / len)
    let c = cos(angle), s = sin(angle), k = 1 - c
    return CATransform3D(m11: x * x * k + c, m12: x * y * k + z * s, m13: x * z * k - y * s, m14: 0,
                         m21: y * x * k - z * s, m22: y * y * k + c, m23: y * z * k + x * s, m24: 0,
                         m31: z * x * k + y * s, m32: z * y * k - x * s, m33: z * z * k + c, m34: 0,
                         m41: 0, m42: 0, m43: 0, m44: 1)
}

/// `t` with a translation applied first: `Translation · t`.
public func CATransform3DTranslate(_ t: CATransform3D, _ tx: CGFloat, _ ty: CGFloat, _ tz: CGFloat) -> CATransform3D {
    CATransform3DConcat(CATransform3DMakeTranslation(tx, ty, tz), t)
}

/// `t` with a scale applied first: `Scale · t`.
public func CATransform3DScale(_ t: CATransform3D, _ sx: CGFloat, _ sy: CGFloat, _ sz: CGFloat) -> CATransform3D {
    CATransform3DConcat(CATransform3DMakeScale(sx, sy, sz), t)
}

/// `t` with a rotation applied first: `Rotation · t`.
public func CATransform3DRotate(_ t: CATransform3D, _ angle: CGFloat, _ x: CGFloat, _ y: CGFloat,
                                _ z: CGFloat) -> CATransform3D {
    CATransform3DConcat(CATransform3DMakeRotation(angle, x, y, z), t)
}

/// `a` then `b`: the matrix product a · b.
public func CATransform3DConcat(_ a: CATransform3D, _ b: CATransform3D) -> CATransform3D {
    let x = a.rows, y = b.rows
    var r = [[CGFloat]](repeating: [0, 0, 0, 0], count: 4)
    for i in 0..<4 {
        for j in 0..<4 {
            r[i][j] = x[i][0] * y[0][j] + x[i][1] * y[1][j] + x[i][2] * y[2][j] + x[i][3] * y[3][j]
        }
    }
    return CATransform3D(rows: r)
}

/// The inverse of `t`, or `t` unchanged when it has none, as Apple's.
public func CATransform3DInvert(_ t: CATransform3D) -> CATransform3D {
    var a = t.rows
    var inv: [[CGFloat]] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    for col in 0..<4 {
        var pivot = col
        for r in col..<4 where abs(a[r][col]) > abs(a[pivot][col]) { pivot = r }
        guard abs(a[pivot][col]) > 1e-12, a[pivot][col].isFinite else { return t }
        a.swapAt(col, pivot); inv.swapAt(col, pivot)
        let p = a[col][col]
        for j in 0..<4 { a[col][j] /= p; inv[col][j] /= p }
        for r in 0..<4 where r != col {
            let f = a[r][col]
            if f == 0 { continue }
            for j in 0..<4 { a[r][j] -= f * a[col][j]; inv[r][j] -= f * inv[col][j] }
        }
    }
    return CATransform3D(rows: inv)
}

/// The 3D transform that does what the affine transform `m` does in the plane.
public func CATransform3DMakeAffineTransform(_ m: CGAffineTransform) -> CATransform3D {
    CATransform3D(m11: m.a, m12: m.b, m13: 0, m14: 0,
                  m21: m.c, m22: m.d, m23: 0, m24: 0,
                  m31: 0, m32: 0, m33: 1, m34: 0,
                  m41: m.tx, m42: m.ty, m43: 0, m44: 1)
}

/// Whether `t` is an affine transform of the plane (no z, no perspective).
public func CATransform3DIsAffine(_ t: CATransform3D) -> Bool {
    t.m13 == 0 && t.m14 == 0 && t.m23 == 0 && t.m24 == 0 && t.m31 == 0 && t.m32 == 0 && t.m33 == 1
        && t.m34 == 0 && t.m43 == 0 && t.m44 == 1
}

/// The affine part of `t` (its x–y terms and translation).
public func CATransform3DGetAffineTransform(_ t: CATransform3D) -> CGAffineTransform {
    CGAffineTransform(a: t.m11, b: t.m12, c: t.m21, d: t.m22, tx: t.m41, ty: t.m42)
}

extension CATransform3D {
    /// The matrix as rows.
    package var rows: [[CGFloat]] {
        [[m11, m12, m13, m14], [m21, m22, m23, m24], [m31, m32, m33, m34], [m41, m42, m43, m44]]
    }

    package init(rows r: [[CGFloat]]) {
        self.init(m11: r[0][0], m12: r[0][1], m13: r[0][2], m14: r[0][3],
                  m21: r[1][0], m22: r[1][1], m23: r[1][2], m24: r[1][3],
                  m31: r[2][0], m32: r[2][1], m33: r[2][2], m34: r[2][3],
                  m41: r[3][0], m42: r[3][1], m43: r[3][2], m44: r[3][3])
    }

    /// Whether every element is finite.
    package var isFinite: Bool { rows.allSatisfy { $0.allSatisfy(\.isFinite) } }

    /// A point through the transform, projected (divided by w).
    package func apply(to p: CGPoint, z: CGFloat = 0) -> CGPoint {
        let x = p.x * m11 + p.y * m21 + z * m31 + m41
        let y = p.x * m12 + p.y * m22 + z * m32 + m42
        let w = p.x * m14 + p.y * m24 + z * m34 + m44
        guard w != 0, w.isFinite else { return CGPoint(x: x, y: y) }
        return CGPoint(x: x / w, y: y / w)
    }
}

/// A transform taken apart as Core Animation interpolates it: translation, scale, skew
/// (xy, xz, yz), perspective and a rotation quaternion.
package struct DecomposedTransform: Equatable, Sendable {
    package var translation: [Double] = [0, 0, 0]
    package var scale: [Double] = [1, 1, 1]
    package var skew: [Double] = [0, 0, 0]
    package var perspective: [Double] = [0, 0, 0, 1]
    package var quaternion: [Double] = [0, 0, 0, 1]

    /// Takes `t` apart (the "unmatrix" of Graphics Gems II, row-vector form); nil when it is
    /// singular.
    package init?(_ t: CATransform3D) {
        var m = t.rows.map { $0.map { Double($0) } }
        guard m[3][3] != 0, t.isFinite else { return nil }
        for i in 0..<4 { for j in 0..<4 { m[i][j] /= m[3][3] } }
        // Perspective.
        if m[0][3] != 0 || m[1][3] != 0 || m[2][3] != 0 {
            var pm = m
            for i in 0..<3 { pm[i][3] = 0 }
            pm[3][3] = 1
            let inv = CATransform3DInvert(CATransform3D(rows: pm.map { $0.map { CGFloat($0) } }))
            guard inv != CATransform3D(rows: pm.map { $0.map { CGFloat($0) } }) || pm == [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]] else { return nil }
            let r = [m[0][3], m[1][3], m[2][3], m[3][3]]
            // perspective = r · (inverse(pm))ᵀ
            let it = inv.rows.map { $0.map { Double($0) } }
            var p = [0.0, 0, 0, 0]
            for i in 0..<4 { p[i] = r[0] * it[i][0] + r[1] * it[i][1] + r[2] * it[i][2] + r[3] * it[i][3] }
            perspective = p
            for i in 0..<3 { m[i][3] = 0 }
            m[3][3] = 1
        }
        translation = [m[3][0], m[3][1], m[3][2]]
        var row = [[m[0][0], m[0][1], m[0][2]], [m[1][0], m[1][1], m[1][2]], [m[2][0], m[2][1], m[2][2]]]
        func len(_ v: [Double]) -> Double { (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).squareRoot() }
        func dot(_ a: [Double], _ b: [Double]) -> Double { a[0] * b[0] + a[1] * b[1] + a[2] * b[2] }
        func comb(_ a: [Double], _ b: [Double], _ sa: Double, _ sb: Double) -> [Double] {
            [a[0] * sa + b[0] * sb, a[1] * sa + b[1] * sb, a[2] * sa + b[2] * sb]
        }
        scale[0] = len(row[0])
        guard scale[0] > 0 else { return nil }
        row[0] = row[0].map { $0 / scale[0] }
        skew[0] = dot(row[0], row[1])
        row[1] = comb(row[1], row[0], 1, -skew[0])
        scale[1] = len(row[1])
        guard scale[1] > 0 else { return nil }
        row[1] = row[1].map { $0 / scale[1] }
        skew[0] /= scale[1]
        skew[1] = dot(row[0], row[2])
        row[2] = comb(row[2], row[0], 1, -skew[1])
        skew[2] = dot(row[1], row[2])
        row[2] = comb(row[2], row[1], 1, -skew[2])
        scale[2] = len(row[2])
        guard scale[2] > 0 else { return nil }
        row[2] = row[2].map { $0 / scale[2] }
        skew[1] /= scale[2]
        skew[2] /= scale[2]
        let cross = [row[1][1] * row[2][2] - row[1][2] * row[2][1],
                     row[1][2] * row[2][0] - row[1][0] * row[2][2],
                     row[1][0] * row[2][1] - row[1][1] * row[2][0]]
        if dot(row[0], cross) < 0 {
            for i in 0..<3 { scale[i] = -scale[i]; row[i] = row[i].map { -$0 } }
        }
        // Quaternion from the rotation rows (row-vector matrix = transpose of the column form).
        let r = row
        let trace = r[0][0] + r[1][1] + r[2][2]
        var q = [0.0, 0, 0, 1]
        if trace > 0 {
            let s = 0.5 / (trace + 1).squareRoot()
            q = [(r[1][2] - r[2][1]) * s, (r[2][0] - r[0][2]) * s, (r[0][1] - r[1][0]) * s, 0.25 / s]
        } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
            let s = 2 * (1 + r[0][0] - r[1][1] - r[2][2]).squareRoot()
            q = [0.25 * s, (r[1][0] + r[0][1]) / s, (r[2][0] + r[0][2]) / s, (r[1][2] - r[2][1]) / s]
        } else if r[1][1] > r[2][2] {
            let s = 2 * (1 + r[1][1] - r[0][0] - r[2][2]).squareRoot()
            q = [(r[1][0] + r[0][1]) / s, 0.25 * s, (r[2][1] + r[1][2]) / s, (r[2][0] - r[0][2]) / s]
        } else {
            let s = 2 * (1 + r[2][2] - r[0][0] - r[1][1]).squareRoot()
            q = [(r[2][0] + r[0][2]) / s, (r[2][1] + r[1][2]) / s, 0.25 * s, (r[0][1] - r[1][0]) / s]
        }
        quaternion = q
    }

    /// The transform these parts make.
    package var transform: CATransform3D {
        var m: [[Double]] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
        func mul(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
            var r = [[Double]](repeating: [0, 0, 0, 0], count: 4)
            for i in 0..<4 { for j in 0..<4 { for k in 0..<4 { r[i][j] += a[i][k] * b[k][j] } } }
            return r
        }
        // Perspective, translation, rotation, skew, scale (applied to a point in reverse order).
        var pm: [[Double]] = [[1, 0, 0, perspective[0]], [0, 1, 0, perspective[1]], [0, 0, 1, perspective[2]],
                              [0, 0, 0, perspective[3]]]
        pm[3][3] = perspective[3]
        m = pm
        var tm: [[Double]] = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
        tm[3][0] = translation[0]; tm[3][1] = translation[1]; tm[3][2] = translation[2]
        m = mul(tm, m)
        let (x, y, z, w) = (quaternion[0], quaternion[1], quaternion[2], quaternion[3])
        let rm: [[Double]] = [[1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0],
                              [2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0],
                              [2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0],
                              [0, 0, 0, 1]]
        m = mul(rm, m)
        if skew[2] != 0 { var s = ident4(); s[2][1] = skew[2]; m = mul(s, m) }
        if skew[1] != 0 { var s = ident4(); s[2][0] = skew[1]; m = mul(s, m) }
        if skew[0] != 0 { var s = ident4(); s[1][0] = skew[0]; m = mul(s, m) }
        var sm = ident4()
        sm[0][0] = scale[0]; sm[1][1] = scale[1]; sm[2][2] = scale[2]
        m = mul(sm, m)
        return CATransform3D(rows: m.map { $0.map { CGFloat($0) } })
    }

    /// The parts between `a` (t = 0) and `b` (t = 1): linear for all but the rotation, which is
    /// spherically interpolated along the shorter arc.
    package static func interpolate(_ a: DecomposedTransform, _ b: DecomposedTransform, _ t: Double) -> DecomposedTransform {
        var r = a
        func lerp(_ x: [Double], _ y: [Double]) -> [Double] { zip(x, y).map { $0 + ($1 - $0) * t } }
        r.translation = lerp(a.translation, b.translation)
        r.scale = lerp(a.scale, b.scale)
        r.skew = lerp(a.skew, b.skew)
        r.perspective = lerp(a.perspective, b.perspective)
        var qb = b.quaternion
        var d = zip(a.quaternion, qb).map { $0 * $1 }.reduce(0, +)
        if d < 0 { qb = qb.map { -$0 }; d = -d }
        if d > 0.9995 {
            let q = lerp(a.quaternion, qb)
            let n = q.map { $0 * $0 }.reduce(0, +).squareRoot()
            r.quaternion = q.map { $0 / n }
        } else {
            let theta = acos(min(d, 1))
            let s = sin(theta)
            let wa = sin((1 - t) * theta) / s, wb = sin(t * theta) / s
            r.quaternion = zip(a.quaternion, qb).map { $0 * wa + $1 * wb }
        }
        return r
    }
}

private func ident4() -> [[Double]] { [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]] }

extension NSValue {
    /// A value holding a `CATransform3D`.
    public convenience init(caTransform3D t: CATransform3D) {
        var v = t
        self.init(bytes: &v, objCType: NSValue.caTransform3DEncoding)
    }

    /// The `CATransform3D` this value holds; the zero matrix when it holds something else.
    public var caTransform3DValue: CATransform3D {
        guard String(cString: objCType) == NSValue.caTransform3DEncoding else { return CATransform3D() }
        var t = CATransform3D()
        getValue(&t)
        return t
    }

    // swift-corelibs-foundation's NSValue cannot hold struct encodings, so the bytes are stored
    // as a byte array whose length identifies the type (as NSValue+CMTime does).
    package static let caTransform3DEncoding = "[\(MemoryLayout<CATransform3D>.size)C]"
}
