import Foundation
import Testing
import CoreGraphics

func close(_ a: CGFloat, _ b: CGFloat, _ tolerance: CGFloat = 1e-9) -> Bool { abs(a - b) <= tolerance }
func close(_ t: CGAffineTransform, _ u: CGAffineTransform, _ tolerance: CGFloat = 1e-9) -> Bool {
    close(t.a, u.a, tolerance) && close(t.b, u.b, tolerance) && close(t.c, u.c, tolerance)
        && close(t.d, u.d, tolerance) && close(t.tx, u.tx, tolerance) && close(t.ty, u.ty, tolerance)
}
func close(_ p: CGPoint, _ q: CGPoint) -> Bool { close(p.x, q.x) && close(p.y, q.y) }
func close(_ r: CGRect, _ s: CGRect) -> Bool {
    close(r.minX, s.minX) && close(r.minY, s.minY) && close(r.width, s.width) && close(r.height, s.height)
}

@Suite struct CGAffineTransformTests {
    @Test func plainInitIsAllZeroNotIdentity() {
        let t = CGAffineTransform()
        #expect(t.a == 0 && t.b == 0 && t.c == 0 && t.d == 0 && t.tx == 0 && t.ty == 0)
        #expect(!t.isIdentity)
        #expect(CGAffineTransform.identity.isIdentity)
        #expect(CGAffineTransform.identity == CGAffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0))
        #expect(CGAffineTransformIdentity == .identity)
        #expect(CGAffineTransform(1, 2, 3, 4, 5, 6) == CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6))
    }

    @Test func translationScaleRotationMapPoints() {
        #expect(CGPoint(x: 1, y: 2).applying(CGAffineTransform(translationX: 3, y: 4)) == CGPoint(x: 4, y: 6))
        #expect(CGPoint(x: 1, y: 2).applying(CGAffineTransform(scaleX: 2, y: 3)) == CGPoint(x: 2, y: 6))
        let r = CGAffineTransform(rotationAngle: .pi / 2)
        #expect(close(r.a, 0) && r.b == 1 && r.c == -1 && close(r.d, 0))
        #expect(close(CGPoint(x: 1, y: 0).applying(r), CGPoint(x: 0, y: 1)))
        #expect(close(CGPoint(x: 0, y: 1).applying(r), CGPoint(x: -1, y: 0)))
    }

    @Test func generalMatrixFollowsRowVectorConvention() {
        // x' = a·x + c·y + tx, y' = b·x + d·y + ty
        let t = CGAffineTransform(a: 2, b: 3, c: 5, d: 7, tx: 11, ty: 13)
        #expect(CGPoint(x: 1, y: 10).applying(t) == CGPoint(x: 2 + 50 + 11, y: 3 + 70 + 13))
    }

    @Test func translatedByPutsTheTranslationFirst() {
        let s = CGAffineTransform(scaleX: 2, y: 3)
        let t = s.translatedBy(x: 1, y: 1)
        #expect(t == CGAffineTransform(a: 2, b: 0, c: 0, d: 3, tx: 2, ty: 3))
        #expect(t == CGAffineTransform(translationX: 1, y: 1).concatenating(s))
        #expect(CGPoint.zero.applying(t) == CGPoint(x: 2, y: 3))
    }

    @Test func scaledByPutsTheScaleFirst() {
        let t = CGAffineTransform(translationX: 10, y: 20).scaledBy(x: 2, y: 2)
        #expect(t == CGAffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 10, ty: 20))
        #expect(CGPoint(x: 1, y: 1).applying(t) == CGPoint(x: 12, y: 22))
    }

    @Test func rotatedByPutsTheRotationFirst() {
        let t = CGAffineTransform(translationX: 10, y: 0).rotated(by: .pi / 2)
        #expect(close(CGPoint(x: 1, y: 0).applying(t), CGPoint(x: 10, y: 1)))
        #expect(close(t, CGAffineTransform(rotationAngle: .pi / 2).concatenating(CGAffineTransform(translationX: 10, y: 0))))
    }

    @Test func concatenationAppliesReceiverThenArgument() {
        let translate = CGAffineTransform(translationX: 1, y: 0)
        let scale = CGAffineTransform(scaleX: 2, y: 2)
        #expect(CGPoint.zero.applying(translate.concatenating(scale)) == CGPoint(x: 2, y: 0))
        #expect(CGPoint.zero.applying(scale.concatenating(translate)) == CGPoint(x: 1, y: 0))
        let t1 = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        let t2 = CGAffineTransform(a: 7, b: 8, c: 9, d: 10, tx: 11, ty: 12)
        // Row-vector product t1 × t2, computed by hand.
        #expect(t1.concatenating(t2) == CGAffineTransform(a: 25, b: 28, c: 57, d: 64, tx: 100, ty: 112))
    }

    @Test func invertedMatchesHandComputedInverse() {
        let t = CGAffineTransform(a: 2, b: 1, c: 1, d: 1, tx: 3, ty: 4)
        let i = t.inverted()
        #expect(i == CGAffineTransform(a: 1, b: -1, c: -1, d: 2, tx: 1, ty: -5))
        #expect(CGPoint(x: 5, y: 7).applying(t).applying(i) == CGPoint(x: 5, y: 7))
        #expect(t.concatenating(i).isIdentity)
    }

    @Test func singularMatrixInvertsToItself() {
        let singular = CGAffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 5, ty: 6)
        #expect(singular.inverted() == singular)
        #expect(CGAffineTransform(scaleX: 0, y: 1).inverted() == CGAffineTransform(scaleX: 0, y: 1))
    }

    @Test func sizeIgnoresTranslation() {
        let t = CGAffineTransform(a: 2, b: 0, c: 0, d: 3, tx: 100, ty: 100)
        #expect(CGSize(width: 2, height: 3).applying(t) == CGSize(width: 4, height: 9))
    }

    @Test func rectBoundingBoxOfRotatedCorners() {
        let r = CGRect(x: 0, y: 0, width: 2, height: 2).applying(CGAffineTransform(rotationAngle: .pi / 4))
        let s = 2.0.squareRoot()
        #expect(close(r, CGRect(x: -s, y: 0, width: 2 * s, height: 2 * s)))
        let scaled = CGRect(x: 1, y: 2, width: 3, height: 4).applying(CGAffineTransform(a: -2, b: 0, c: 0, d: 1, tx: 1, ty: 1))
        #expect(scaled == CGRect(x: -7, y: 3, width: 6, height: 4))
    }

    @Test func nullAndInfiniteRectsPassThrough() {
        let t = CGAffineTransform(translationX: 5, y: 5)
        #expect(CGRect.null.applying(t).isNull)
        #expect(CGRect.infinite.applying(t).isInfinite)
    }

    @Test func phoneVideoRotationMapsLandscapeRectToPortraitAtOrigin() {
        // A portrait iPhone recording: 1920×1080 pixels with a 90° preferredTransform.
        let preferred = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0)
        let display = CGRect(x: 0, y: 0, width: 1920, height: 1080).applying(preferred)
        #expect(display == CGRect(x: 0, y: 0, width: 1080, height: 1920))
        let size = CGSize(width: 1920, height: 1080).applying(preferred)
        #expect(abs(size.width) == 1080 && abs(size.height) == 1920)
        // Rotation 90° built from components, then the same translation.
        let built = CGAffineTransform(rotationAngle: .pi / 2).concatenating(CGAffineTransform(translationX: 1080, y: 0))
        #expect(close(built, preferred))
        // 180° (upside-down) keeps the size and stays at the origin.
        let upsideDown = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: 1920, ty: 1080)
        #expect(CGRect(x: 0, y: 0, width: 1920, height: 1080).applying(upsideDown) == CGRect(x: 0, y: 0, width: 1920, height: 1080))
    }

    @Test func cFunctionsMatchMethods() {
        let t = CGAffineTransformMake(1, 2, 3, 4, 5, 6)
        #expect(t == CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6))
        #expect(CGAffineTransformMakeTranslation(1, 2) == CGAffineTransform(translationX: 1, y: 2))
        #expect(CGAffineTransformMakeScale(3, 4) == CGAffineTransform(scaleX: 3, y: 4))
        #expect(CGAffineTransformMakeRotation(0.5) == CGAffineTransform(rotationAngle: 0.5))
        #expect(CGAffineTransformTranslate(t, 1, 1) == t.translatedBy(x: 1, y: 1))
        #expect(CGAffineTransformScale(t, 2, 3) == t.scaledBy(x: 2, y: 3))
        #expect(CGAffineTransformRotate(t, 0.3) == t.rotated(by: 0.3))
        #expect(CGAffineTransformInvert(t) == t.inverted())
        #expect(CGAffineTransformConcat(t, t) == t.concatenating(t))
        #expect(CGAffineTransformIsIdentity(CGAffineTransformIdentity))
        #expect(CGAffineTransformEqualToTransform(t, t) && !CGAffineTransformEqualToTransform(t, .identity))
        #expect(CGPointApplyAffineTransform(CGPoint(x: 1, y: 1), t) == CGPoint(x: 9, y: 12))
        #expect(CGSizeApplyAffineTransform(CGSize(width: 1, height: 1), t) == CGSize(width: 4, height: 6))
        #expect(CGRectApplyAffineTransform(CGRect(x: 0, y: 0, width: 1, height: 1), t) == CGRect(x: 5, y: 6, width: 4, height: 6))
    }

    @Test func decomposeAndRebuild() {
        let components = CGAffineTransformComponents(scale: CGSize(width: 2, height: 3), horizontalShear: 0.5,
                                                     rotation: 0.3, translation: CGVector(dx: 5, dy: 6))
        let t = CGAffineTransform(components)
        let back = t.decomposed()
        #expect(close(back.scale.width, 2) && close(back.scale.height, 3))
        #expect(close(back.horizontalShear, 0.5) && close(back.rotation, 0.3))
        #expect(back.translation == CGVector(dx: 5, dy: 6))
        #expect(close(CGAffineTransform(back), t))
        #expect(CGAffineTransform(CGAffineTransformComponents(scale: CGSize(width: 1, height: 1))) == .identity)
        let quarter = CGAffineTransform(rotationAngle: .pi / 2).decomposed()
        #expect(close(quarter.rotation, .pi / 2) && close(quarter.scale.width, 1) && close(quarter.scale.height, 1))
        let mirror = CGAffineTransform(scaleX: 1, y: -1).decomposed()
        #expect(mirror.scale == CGSize(width: 1, height: -1))
        #expect(close(CGAffineTransformMakeWithComponents(CGAffineTransformDecompose(t)), t))
    }

    @Test func codableHashableAndDescription() throws {
        let t = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        let data = try JSONEncoder().encode(t)
        #expect(try JSONDecoder().decode(CGAffineTransform.self, from: data) == t)
        #expect(Set([t, t, .identity]).count == 2)
        #expect(t.description == "CGAffineTransform(a: 1.0, b: 2.0, c: 3.0, d: 4.0, tx: 5.0, ty: 6.0)")
        #expect(CGVector(dx: 1, dy: 2) == CGVectorMake(1, 2) && CGVector.zero == CGVector())
    }
}
