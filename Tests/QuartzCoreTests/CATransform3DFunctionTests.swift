import Foundation
import QuartzCore
import Testing

@Suite struct CATransform3DFunctionTests {
    @Test func makeFunctionsFillTheRowVectorMatrix() {
        let t = CATransform3DMakeTranslation(1, 2, 3)
        #expect([t.m41, t.m42, t.m43] == [1, 2, 3])
        #expect(CATransform3DIsIdentity(CATransform3DMakeTranslation(0, 0, 0)))
        let s = CATransform3DMakeScale(2, 3, 4)
        #expect([s.m11, s.m22, s.m33, s.m44] == [2, 3, 4, 1])
        let r = CATransform3DMakeRotation(.pi / 2, 0, 0, 1)
        // (1, 0) turns to (0, 1): counter-clockwise in y-up space.
        let p = r.apply(to: CGPoint(x: 1, y: 0))
        #expect(close(p.x, 0) && close(p.y, 1))
        #expect(CATransform3DMakeRotation(1, 0, 0, 0) == CATransform3DIdentity)
    }

    @Test func concatAppliesTheFirstThenTheSecond() {
        let a = CATransform3DMakeScale(2, 2, 1)
        let b = CATransform3DMakeTranslation(10, 0, 0)
        let p = CATransform3DConcat(a, b).apply(to: CGPoint(x: 1, y: 1))
        #expect(p == CGPoint(x: 12, y: 2))
        // Translate/Scale/Rotate apply their step before t.
        let q = CATransform3DTranslate(a, 10, 0, 0).apply(to: CGPoint(x: 1, y: 1))
        #expect(q == CGPoint(x: 22, y: 2))
        #expect(CATransform3DEqualToTransform(CATransform3DScale(CATransform3DIdentity, 2, 2, 1), a))
    }

    @Test func invertUndoesAndLeavesSingularMatricesAlone() {
        let t = CATransform3DRotate(CATransform3DMakeTranslation(5, -3, 2), 0.7, 1, 1, 0)
        #expect(close(CATransform3DConcat(t, CATransform3DInvert(t)), CATransform3DIdentity))
        let singular = CATransform3DMakeScale(0, 1, 1)
        #expect(CATransform3DInvert(singular) == singular)
    }

    @Test func affineRoundTrip() {
        let m = CGAffineTransform(a: 1, b: 2, c: 3, d: 4, tx: 5, ty: 6)
        let t = CATransform3DMakeAffineTransform(m)
        #expect(CATransform3DIsAffine(t))
        #expect(CATransform3DGetAffineTransform(t) == m)
        var p = t
        p.m34 = -1.0 / 1000
        #expect(!CATransform3DIsAffine(p))
    }

    @Test func nsValueHoldsATransform() {
        var t = CATransform3DMakeRotation(0.3, 0, 1, 0)
        t.m34 = -0.001
        let v = NSValue(caTransform3D: t)
        #expect(v.caTransform3DValue == t)
        #expect(NSValue(point: CGPoint(x: 1, y: 2)).caTransform3DValue == CATransform3D())
    }

    @Test func decompositionRecomposesTheMatrix() throws {
        var t = CATransform3DMakeScale(2, 3, 1)
        t = CATransform3DRotate(t, 0.5, 0, 0, 1)
        t = CATransform3DConcat(t, CATransform3DMakeTranslation(7, 8, 9))
        let d = try #require(DecomposedTransform(t))
        #expect(close(d.transform, t, 1e-9))
        // Halfway between identity and a z rotation of 1 rad is a rotation of 0.5 rad.
        let id = try #require(DecomposedTransform(CATransform3DIdentity))
        let r = try #require(DecomposedTransform(CATransform3DMakeRotation(1, 0, 0, 1)))
        #expect(close(DecomposedTransform.interpolate(id, r, 0.5).transform, CATransform3DMakeRotation(0.5, 0, 0, 1)))
    }
}
