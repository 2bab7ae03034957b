import QuartzCore
import Testing

@Suite struct CATransform3DTests {
    @Test func identityHasOnesOnTheDiagonal() {
        let t = CATransform3DIdentity
        #expect([t.m11, t.m22, t.m33, t.m44] == [1, 1, 1, 1])
        #expect([t.m12, t.m34, t.m41, t.m43] == [0, 0, 0, 0])
        #expect(CATransform3D() != t)
    }
}
