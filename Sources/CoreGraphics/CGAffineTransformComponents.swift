// CGAffineTransformComponents: an affine transform as scale × shear × rotation × translation.

/// The components of an affine transform: the transform equals
/// scale · horizontal shear · rotation · translation, applied in that order.
public struct CGAffineTransformComponents: Sendable, Hashable {
    /// The initial scaling in x and y.
    public var scale: CGSize
    /// The shear along x applied after scaling (tan of the shear angle).
    public var horizontalShear: CGFloat
    /// The rotation in radians applied after the shear.
    public var rotation: CGFloat
    /// The final translation.
    public var translation: CGVector

    /// Components with every value zero, as the imported C structure's initialiser gives.
    public init() {
        scale = .zero
        horizontalShear = 0
        rotation = 0
        translation = .zero
    }

    /// Components with the given values; the defaults describe the identity.
    public init(scale: CGSize = CGSize(width: 1, height: 1), horizontalShear: CGFloat = 0,
                rotation: CGFloat = 0, translation: CGVector = .zero) {
        self.scale = scale
        self.horizontalShear = horizontalShear
        self.rotation = rotation
        self.translation = translation
    }
}

extension CGAffineTransform {
    /// The transform built from `components` (scale, then shear, then rotation, then translation).
    public init(_ components: CGAffineTransformComponents) {
        let sx = components.scale.width, sy = components.scale.height
        let shear = components.horizontalShear
        let cosine = cos(components.rotation), sine = sin(components.rotation)
        self.init(a: sx * cosine, b: sx * sine,
                  c: sy * (shear * cosine - sine), d: sy * (shear * sine + cosine),
                  tx: components.translation.dx, ty: components.translation.dy)
    }

    /// The receiver decomposed into scale, horizontal shear, rotation and translation, with a
    /// non-negative x scale (a reflection shows as a negative y scale).
    public func decomposed() -> CGAffineTransformComponents {
        let sx = (a * a + b * b).squareRoot()
        let rotation: CGFloat = sx == 0 ? 0 : atan2(b, a)
        let cosine = cos(rotation), sine = sin(rotation)
        let sy = d * cosine - c * sine
        let shear: CGFloat = sy == 0 ? 0 : (c * cosine + d * sine) / sy
        return CGAffineTransformComponents(scale: CGSize(width: sx, height: sy), horizontalShear: shear,
                                           rotation: rotation, translation: CGVector(dx: tx, dy: ty))
    }
}

/// The transform built from `components`.
@discardableResult
public func CGAffineTransformMakeWithComponents(_ components: CGAffineTransformComponents) -> CGAffineTransform {
    CGAffineTransform(components)
}
/// `transform` decomposed into scale, shear, rotation and translation.
@discardableResult
public func CGAffineTransformDecompose(_ transform: CGAffineTransform) -> CGAffineTransformComponents {
    transform.decomposed()
}
