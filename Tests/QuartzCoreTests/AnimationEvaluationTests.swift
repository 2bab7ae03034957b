import Foundation
import QuartzCore
import Testing

/// Movie time zero for animations (AVFoundation's AVCoreAnimationBeginTimeAtZero).
let beginAtZero: CFTimeInterval = 1e-100

@Suite struct AnimationEvaluationTests {
    // A17: CoreAnimationExample — z rotation 0 → 2π every 3 s, forever.
    @Test func a17RotationRepeatsForever() {
        let layer = CALayer()
        layer.bounds = CGRect(x: 0, y: 0, width: 200, height: 200)
        let spin = CABasicAnimation(keyPath: "transform.rotation.z")
        spin.fromValue = 0
        spin.toValue = 2 * Double.pi
        spin.duration = 3
        spin.repeatCount = .infinity
        spin.beginTime = beginAtZero
        spin.isRemovedOnCompletion = false
        layer.add(spin, forKey: "spin")
        #expect(close(evaluated(layer, at: 0).transform, CATransform3DIdentity))
        #expect(close(evaluated(layer, at: 1.5).transform, CATransform3DMakeRotation(.pi, 0, 0, 1)))
        #expect(close(evaluated(layer, at: 3).transform, CATransform3DIdentity))
        #expect(close(evaluated(layer, at: 4.5).transform, CATransform3DMakeRotation(.pi, 0, 0, 1)))
        #expect(close(evaluated(layer, at: 0.75).transform, CATransform3DMakeRotation(.pi / 2, 0, 0, 1)))
        // HUGE_VALF and greatestFiniteMagnitude also mean forever.
        let layer2 = CALayer()
        let spin2 = spin.copy() as! CABasicAnimation
        spin2.repeatCount = .greatestFiniteMagnitude
        layer2.add(spin2, forKey: nil)
        #expect(close(evaluated(layer2, at: 3_000_001.5).transform, CATransform3DMakeRotation(.pi, 0, 0, 1), 1e-6))
    }

    /// The A15 title 1: a parent at opacity 0 faded in and out by a keyframe animation.
    func titleLayer() -> CALayer {
        let parent = CALayer()
        parent.frame = CGRect(x: 0, y: 0, width: 1280, height: 720)
        parent.opacity = 0
        let fade = CAKeyframeAnimation(keyPath: "opacity")
        fade.values = [0, 1, 1, 0]
        fade.keyTimes = [0, 0.2, 0.8, 1]
        fade.beginTime = 1.0
        fade.duration = 3
        fade.isRemovedOnCompletion = false
        parent.add(fade, forKey: nil)
        return parent
    }

    @Test func a15TitleFade() {
        let title = titleLayer()
        #expect(evaluated(title, at: 0.5).opacity == 0)
        #expect(close(Double(evaluated(title, at: 1.3).opacity), 0.5, 1e-6))
        for t in [1.6, 2.0, 2.5, 3.0, 3.4] { #expect(close(Double(evaluated(title, at: t).opacity), 1, 1e-6), "at \(t)") }
        #expect(close(Double(evaluated(title, at: 3.7).opacity), 0.5, 1e-6))
        #expect(evaluated(title, at: 4.0).opacity == 0)
        #expect(evaluated(title, at: 4.5).opacity == 0)
        // Model values without a time.
        #expect(evaluated(title, at: nil).opacity == 0)
    }

    /// The A15 title 2 image: spin about y to −4π from 5.7 s for 1.6 s, pop to 1.3 from 6.8 s.
    func spinningImage() -> CALayer {
        let image = CALayer()
        image.bounds = CGRect(x: 0, y: 0, width: 400, height: 300)
        let spin = CABasicAnimation(keyPath: "transform.rotation.y")
        spin.toValue = -4 * Double.pi
        spin.beginTime = 5.7
        spin.duration = 1.6
        spin.timingFunction = CAMediaTimingFunction(name: .easeInEaseOut)
        spin.isRemovedOnCompletion = false
        image.add(spin, forKey: nil)
        let pop = CABasicAnimation(keyPath: "transform.scale")
        pop.toValue = 1.3
        pop.beginTime = 5.7 + 1.6 - 0.5
        pop.duration = 0.35
        pop.autoreverses = true
        pop.timingFunction = CAMediaTimingFunction(name: .easeInEaseOut)
        pop.isRemovedOnCompletion = false
        image.add(pop, forKey: nil)
        return image
    }

    @Test func a15SpinFollowsEaseInOut() {
        let image = spinningImage()
        let ease = CAMediaTimingFunction(name: .easeInEaseOut).curve
        // Before the pop starts at 6.8 s the transform is the rotation alone.
        for t in [5.9, 6.1, 6.3, 6.7] {
            let theta = -4 * Double.pi * ease.evaluate((t - 5.7) / 1.6)
            #expect(close(evaluated(image, at: t).transform, CATransform3DMakeRotation(CGFloat(theta), 0, 1, 0), 1e-9), "at \(t)")
        }
        // The image's projected width is |cos θ|·w.
        let theta = -4 * Double.pi * ease.evaluate((6.1 - 5.7) / 1.6)
        #expect(close(Double(evaluated(image, at: 6.1).transform.m11), cos(theta)))
        #expect(close(evaluated(image, at: 5.0).transform, CATransform3DIdentity))
    }

    @Test func a15PopReachesItsPeakAndReturns() {
        let image = spinningImage()
        #expect(close(xScale(evaluated(image, at: 7.15).transform), 1.3, 1e-9))
        #expect(close(xScale(evaluated(image, at: 7.0).transform), 1.186470626908683, 1e-8))
        #expect(close(xScale(evaluated(image, at: 7.3).transform), 1.186470626908683, 1e-8))
        // While both run, the spin's rotation is scaled: y row length is the scale.
        let both = evaluated(image, at: 7.0).transform
        #expect(close(Double(both.m22), 1.186470626908683, 1e-8))
        #expect(close(xScale(evaluated(image, at: 7.5).transform), 1.0, 1e-9))
        #expect(close(xScale(evaluated(image, at: 6.5).transform), 1.0, 1e-9))
    }

    @Test func fillModes() {
        func layer(_ mode: CAMediaTimingFillMode, removed: Bool = false) -> CALayer {
            let l = CALayer()
            l.opacity = 0.25
            let a = CABasicAnimation(keyPath: "opacity")
            a.fromValue = 0
            a.toValue = 1
            a.beginTime = 2
            a.duration = 1
            a.fillMode = mode
            a.isRemovedOnCompletion = removed
            l.add(a, forKey: "fade")
            return l
        }
        #expect(evaluated(layer(.removed), at: 1).opacity == 0.25)
        #expect(evaluated(layer(.backwards), at: 1).opacity == 0)
        #expect(evaluated(layer(.both), at: 1).opacity == 0)
        #expect(evaluated(layer(.forwards), at: 1).opacity == 0.25)
        #expect(evaluated(layer(.removed), at: 4).opacity == 0.25)
        #expect(evaluated(layer(.forwards), at: 4).opacity == 1)
        #expect(evaluated(layer(.both), at: 4).opacity == 1)
        #expect(evaluated(layer(.backwards), at: 4).opacity == 0.25)
        // Removed on completion: once finished, the model value shows even with forwards fill.
        #expect(evaluated(layer(.forwards, removed: true), at: 4).opacity == 0.25)
        #expect(evaluated(layer(.forwards, removed: true), at: 2.5).opacity == 0.5)
    }

    @Test func autoreversesAndFractionalRepeats() {
        let l = CALayer()
        let a = CABasicAnimation(keyPath: "position.x")
        a.fromValue = 0
        a.toValue = 100
        a.duration = 1
        a.autoreverses = true
        a.repeatCount = 1.5
        a.beginTime = beginAtZero
        a.fillMode = .forwards
        a.isRemovedOnCompletion = false
        l.add(a, forKey: nil)
        #expect(close(evaluated(l, at: 0.25).position.x, 25))
        #expect(close(evaluated(l, at: 1.25).position.x, 75))
        #expect(close(evaluated(l, at: 2.5).position.x, 50))
        // Active 3 s (1.5 cycles of 2 s): ends at the top of the third forward pass.
        #expect(close(evaluated(l, at: 3.0).position.x, 100))
        #expect(close(evaluated(l, at: 10).position.x, 100))
    }

    @Test func repeatDurationBoundsTheActiveTime() {
        let l = CALayer()
        let a = CABasicAnimation(keyPath: "opacity")
        a.fromValue = 0
        a.toValue = 1
        a.duration = 1
        a.repeatDuration = 2.5
        a.beginTime = beginAtZero
        a.isRemovedOnCompletion = false
        l.add(a, forKey: nil)
        #expect(close(Double(evaluated(l, at: 2.25).opacity), 0.25, 1e-6))
        #expect(evaluated(l, at: 2.75).opacity == 1)
    }

    @Test func layerSpeedAndTimeOffset() {
        let parent = CALayer()
        let child = CALayer()
        parent.addSublayer(child)
        let a = CABasicAnimation(keyPath: "position.x")
        a.fromValue = 0
        a.toValue = 100
        a.duration = 10
        a.beginTime = beginAtZero
        a.isRemovedOnCompletion = false
        child.add(a, forKey: nil)
        #expect(close(evaluated(child, at: 1).position.x, 10))
        parent.speed = 2
        #expect(close(evaluated(child, at: 1).position.x, 20))
        child.timeOffset = 3
        #expect(close(evaluated(child, at: 1).position.x, 50))
        child.beginTime = 1
        // (1.5 − 0)·2 = 3 in the parent; (3 − 1)·1 + 3 = 5 for the child.
        #expect(close(evaluated(child, at: 1.5).position.x, 50))
        parent.speed = 0
        parent.timeOffset = 4
        #expect(close(evaluated(child, at: 100).position.x, 60))
        // convertTime follows the same chain.
        #expect(close(child.convertTime(100, from: nil), 6))
    }

    @Test func additiveAndCumulative() {
        let l = CALayer()
        l.position = CGPoint(x: 100, y: 0)
        let a = CABasicAnimation(keyPath: "position.x")
        a.fromValue = 0
        a.toValue = 10
        a.duration = 1
        a.isAdditive = true
        a.beginTime = beginAtZero
        l.add(a, forKey: "shake")
        #expect(close(evaluated(l, at: 0.5).position.x, 105))

        let c = CALayer()
        let b = CABasicAnimation(keyPath: "position.x")
        b.fromValue = 0
        b.toValue = 10
        b.duration = 1
        b.repeatCount = 3
        b.isCumulative = true
        b.beginTime = beginAtZero
        c.add(b, forKey: nil)
        #expect(close(evaluated(c, at: 0.5).position.x, 5))
        #expect(close(evaluated(c, at: 1.5).position.x, 15))
        #expect(close(evaluated(c, at: 2.5).position.x, 25))
    }

    @Test func fromToByCombinations() {
        func value(_ from: Any?, _ to: Any?, _ by: Any?) -> Double {
            let l = CALayer()
            l.position = CGPoint(x: 40, y: 0)
            let a = CABasicAnimation(keyPath: "position.x")
            a.fromValue = from
            a.toValue = to
            a.byValue = by
            a.duration = 1
            a.beginTime = beginAtZero
            l.add(a, forKey: nil)
            return Double(evaluated(l, at: 0.5).position.x)
        }
        #expect(value(0, 10, nil) == 5)
        #expect(value(0, nil, 10) == 5)
        #expect(value(nil, 10, 4) == 8)
        #expect(value(0, nil, nil) == 20)      // from → current (40)
        #expect(value(nil, 0, nil) == 20)      // current (40) → to
        #expect(value(nil, nil, 10) == 45)     // current → current + by
        #expect(value(nil, nil, nil) == 40)    // nothing set: no effect
        // NSNumber, Float, CGFloat and Int values all work.
        #expect(value(NSNumber(value: 0), Float(10), nil) == 5)
        #expect(value(CGFloat(0), Int(10), nil) == 5)
    }

    @Test func pointsSizesRectsAndColoursInterpolate() {
        let l = CALayer()
        let p = CABasicAnimation(keyPath: "position")
        p.fromValue = CGPoint(x: 0, y: 0)
        p.toValue = NSValue(point: CGPoint(x: 10, y: 20))
        p.duration = 1
        p.beginTime = beginAtZero
        l.add(p, forKey: "p")
        let b = CABasicAnimation(keyPath: "bounds.size")
        b.fromValue = CGSize(width: 0, height: 0)
        b.toValue = CGSize(width: 100, height: 50)
        b.duration = 1
        b.beginTime = beginAtZero
        l.add(b, forKey: "b")
        let c = CABasicAnimation(keyPath: "backgroundColor")
        c.fromValue = CGColor(red: 0, green: 0, blue: 0, alpha: 1)
        c.toValue = CGColor(red: 1, green: 0.5, blue: 0, alpha: 1)
        c.duration = 1
        c.beginTime = beginAtZero
        l.add(c, forKey: "c")
        let n = evaluated(l, at: 0.5)
        #expect(n.position == CGPoint(x: 5, y: 10))
        #expect(n.bounds.size == CGSize(width: 50, height: 25))
        #expect(n.backgroundColor?.rgba == [0.5, 0.25, 0, 1])
    }

    @Test func wholeTransformsInterpolateThroughDecomposition() {
        let l = CALayer()
        let a = CABasicAnimation(keyPath: "transform")
        a.fromValue = NSValue(caTransform3D: CATransform3DIdentity)
        a.toValue = NSValue(caTransform3D: CATransform3DConcat(CATransform3DMakeRotation(1, 0, 0, 1),
                                                               CATransform3DMakeTranslation(10, 0, 0)))
        a.duration = 1
        a.beginTime = beginAtZero
        l.add(a, forKey: nil)
        let expected = CATransform3DConcat(CATransform3DMakeRotation(0.5, 0, 0, 1), CATransform3DMakeTranslation(5, 0, 0))
        #expect(close(evaluated(l, at: 0.5).transform, expected))
    }

    @Test func keyframeModes() {
        func x(_ mode: CAAnimationCalculationMode, at t: Double, keyTimes: [NSNumber]? = nil) -> Double {
            let l = CALayer()
            let a = CAKeyframeAnimation(keyPath: "position")
            a.values = [CGPoint(x: 0, y: 0), CGPoint(x: 10, y: 0), CGPoint(x: 40, y: 0)]
            a.calculationMode = mode
            a.keyTimes = keyTimes
            a.duration = 1
            a.beginTime = beginAtZero
            l.add(a, forKey: nil)
            return Double(evaluated(l, at: t).position.x)
        }
        #expect(close(x(.linear, at: 0.5), 10))
        #expect(close(x(.linear, at: 0.75), 25))
        // Paced: 40 units in 1 s at an even speed.
        #expect(close(x(.paced, at: 0.5), 20))
        #expect(close(x(.paced, at: 0.125), 5))
        // Paced ignores key times.
        #expect(close(x(.paced, at: 0.5, keyTimes: [0, 0.9, 1]), 20))
        #expect(close(x(.linear, at: 0.45, keyTimes: [0, 0.9, 1]), 5))
        // Key times of the wrong size fall back to even spacing.
        #expect(close(x(.linear, at: 0.75, keyTimes: [0, 1]), 25))
        // Discrete: each value holds for a third.
        #expect(x(.discrete, at: 0.2) == 0)
        #expect(x(.discrete, at: 0.5) == 10)
        #expect(x(.discrete, at: 0.9) == 40)
        // Cubic passes through the keyframes.
        #expect(close(x(.cubic, at: 0.5), 10))
    }

    @Test func keyframeTimingFunctionsPaceEachSegment() {
        let l = CALayer()
        let a = CAKeyframeAnimation(keyPath: "opacity")
        a.values = [0, 1, 0]
        a.timingFunctions = [CAMediaTimingFunction(name: .easeIn), CAMediaTimingFunction(name: .linear)]
        a.duration = 2
        a.beginTime = beginAtZero
        l.add(a, forKey: nil)
        #expect(close(Double(evaluated(l, at: 0.5).opacity), 0.31535681257253945, 1e-6))
        #expect(close(Double(evaluated(l, at: 1.5).opacity), 0.5, 1e-6))
    }

    @Test func keyframePathMovesAlongThePath() {
        let l = CALayer()
        let path = CGPath(elements: [.move(CGPoint(x: 0, y: 0)), .line(CGPoint(x: 100, y: 0)), .line(CGPoint(x: 100, y: 100))])
        let a = CAKeyframeAnimation(keyPath: "position")
        a.path = path
        a.calculationMode = .paced
        a.rotationMode = .rotateAuto
        a.duration = 2
        a.beginTime = beginAtZero
        l.add(a, forKey: nil)
        let n = evaluated(l, at: 0.5)
        #expect(close(n.position.x, 50) && close(n.position.y, 0))
        #expect(close(n.transform, CATransform3DIdentity))
        let m = evaluated(l, at: 1.5)
        #expect(close(m.position.x, 100) && close(m.position.y, 50))
        #expect(close(m.transform, CATransform3DMakeRotation(.pi / 2, 0, 0, 1)))
    }

    @Test func springFollowsTheDampedOscillatorAndSettles() {
        let l = CALayer()
        let s = CASpringAnimation(keyPath: "position.x")
        s.fromValue = 0
        s.toValue = 100
        s.mass = 1
        s.stiffness = 100
        s.damping = 10
        s.duration = s.settlingDuration
        s.beginTime = beginAtZero
        s.fillMode = .forwards
        s.isRemovedOnCompletion = false
        l.add(s, forKey: nil)
        #expect(close(evaluated(l, at: 0.1).position.x, 34.029984660829826, 1e-9))
        #expect(s.settlingDuration > 0.5 && s.settlingDuration < 3)
        // From the settling duration on, it stays within 0.1 % of the change.
        for t in stride(from: s.settlingDuration, through: s.settlingDuration + 1, by: 0.05) {
            #expect(abs(Double(evaluated(l, at: t).position.x) - 100) <= 0.1, "at \(t)")
        }
        // Filled forwards, it holds its value at the end of its duration.
        #expect(abs(Double(evaluated(l, at: 100).position.x) - 100) <= 0.1)
    }

    @Test func groupChildrenRunOnTheGroupsTime() {
        let l = CALayer()
        let child = CABasicAnimation(keyPath: "opacity")
        child.fromValue = 0
        child.toValue = 1
        child.beginTime = 0.5
        child.duration = 1
        let other = CABasicAnimation(keyPath: "position.y")
        other.fromValue = 0
        other.toValue = 100
        other.duration = 4
        let g = CAAnimationGroup()
        g.animations = [child, other]
        g.beginTime = 1
        g.duration = 2
        l.add(g, forKey: "group")
        let n = evaluated(l, at: 2)
        #expect(close(Double(n.opacity), 0.5, 1e-6))
        #expect(close(n.position.y, 25))
        // Past the group's duration nothing applies.
        #expect(evaluated(l, at: 3.5).opacity == 1)
        #expect(evaluated(l, at: 3.5).position.y == 0)
    }

    @Test func beginTimeZeroMeansNowNotMovieTimeZero() throws {
        let l = CALayer()
        let a = CABasicAnimation(keyPath: "opacity")
        a.fromValue = 0
        a.toValue = 0.5
        a.duration = 10
        let before = CACurrentMediaTime()
        l.add(a, forKey: "fade")
        let added = try #require(l.animation(forKey: "fade"))
        #expect(added.beginTime >= before)
        #expect(a.beginTime == 0)
        // Never seen in a movie-time render.
        #expect(evaluated(l, at: 1).opacity == 1)
        // Seen live.
        #expect(evaluated(l, at: CACurrentMediaTime()).opacity < 0.5)
    }

    @Test func addCopiesTheAnimation() {
        let l = CALayer()
        let a = CABasicAnimation(keyPath: "opacity")
        a.fromValue = 0
        a.toValue = 1
        a.duration = 1
        a.beginTime = beginAtZero
        l.add(a, forKey: "fade")
        a.toValue = 0
        a.keyPath = "position.x"
        #expect(l.animation(forKey: "fade") !== a)
        #expect(close(Double(evaluated(l, at: 0.5).opacity), 0.5, 1e-6))
        #expect((l.animation(forKey: "fade") as? CABasicAnimation)?.toValue as? Int == 1)
    }

    @Test func badInputIsIgnored() {
        let l = CALayer()
        l.opacity = 0.75
        func add(_ keyPath: String?, _ to: Any?, duration: Double = 1) {
            let a = CABasicAnimation(keyPath: keyPath)
            a.fromValue = 0
            a.toValue = to
            a.duration = duration
            a.beginTime = beginAtZero
            l.add(a, forKey: nil)
        }
        add("no.such.key", 1)
        add("opacity", Double.nan)
        add("opacity", "a string")
        add("opacity", CGPoint(x: 1, y: 1))
        add(nil, 1)
        add("", 1)
        let k = CAKeyframeAnimation(keyPath: "opacity")
        k.values = []
        l.add(k, forKey: nil)
        let k2 = CAKeyframeAnimation(keyPath: "opacity")
        k2.values = [0, Double.infinity]
        l.add(k2, forKey: nil)
        let empty = CAAnimationGroup()
        l.add(empty, forKey: nil)
        #expect(evaluated(l, at: 0.5).opacity == 0.75)
        // A zero duration means 0.25 s.
        add("opacity", 1, duration: 0)
        #expect(close(Double(evaluated(l, at: 0.125).opacity), 0.5, 1e-6))
        // NaN geometry set directly is refused.
        l.position = CGPoint(x: CGFloat.nan, y: 0)
        #expect(l.position == .zero)
    }

    @Test func animationKeysAndRemoval() {
        let l = CALayer()
        let a = CABasicAnimation(keyPath: "opacity")
        a.toValue = 0
        l.add(a, forKey: "a")
        l.add(a, forKey: "b")
        l.add(a, forKey: nil)
        l.add(a, forKey: "a")
        #expect(l.animationKeys() == ["b", "a"])
        l.removeAnimation(forKey: "b")
        #expect(l.animationKeys() == ["a"])
        l.removeAllAnimations()
        #expect(l.animationKeys() == nil)
        #expect(l.animation(forKey: "a") == nil)
    }

    @Test func transitionCrossFadesTheOldAndNewRenderings() {
        let root = CALayer()
        let l = CALayer()
        l.bounds = CGRect(x: 0, y: 0, width: 100, height: 100)
        l.backgroundColor = CGColor(red: 1, green: 0, blue: 0, alpha: 1)
        root.addSublayer(l)
        let t = CATransition()
        t.type = .fade
        t.duration = 1
        t.beginTime = beginAtZero
        l.add(t, forKey: kCATransition)
        l.backgroundColor = CGColor(red: 0, green: 1, blue: 0, alpha: 1)
        let nodes = root.renderTree(at: 0.25).sublayers
        #expect(nodes.count == 2)
        #expect(nodes[0].backgroundColor?.rgba == [1, 0, 0, 1])
        #expect(close(Double(nodes[0].opacity), 0.75, 1e-6))
        #expect(close(Double(nodes[1].opacity), 0.25, 1e-6))
        #expect(nodes[1].id == ObjectIdentifier(l))
        let push = CATransition()
        push.type = .push
        push.subtype = .fromRight
        push.duration = 1
        push.beginTime = beginAtZero
        l.add(push, forKey: kCATransition)
        let pushed = root.renderTree(at: 0.5).sublayers
        #expect(pushed.count == 2)
        #expect(pushed[0].position.x == -50 && pushed[1].position.x == 50)
        #expect(root.renderTree(at: 2).sublayers.count == 1)
    }
}
