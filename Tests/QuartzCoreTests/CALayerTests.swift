import Foundation
import QuartzCore
import Testing

/// A client subclass with its own stored `var`s, an initializer chain and a drawing override:
/// it must compile in Swift 6 mode with no diagnostics (CALayer is not Sendable, so nothing has
/// to be restated).
final class CountingLayer: CALayer {
    var draws = 0
    var label = "counting"
    var tint: CGColor = CGColor(red: 1, green: 0, blue: 0, alpha: 1)

    override init() { super.init() }

    override init(layer: Any) {
        if let other = layer as? CountingLayer { label = other.label }
        super.init(layer: layer)
    }

    required init?(coder: NSCoder) { super.init(coder: coder) }

    override func draw(in ctx: CGContext) {
        draws += 1
        ctx.setFillColor(tint)
        ctx.fill(bounds)
    }

    override class func defaultValue(forKey key: String) -> Any? {
        key == "cornerRadius" ? 8 : super.defaultValue(forKey: key)
    }
}

/// A non-final client subclass with mutable state.
class BadgeLayer: CALayer {
    var count = 0
    var names: [String] = []
}

/// A delegate that draws.
final class Painter: CALayerDelegate {
    var calls = 0
    func draw(_ layer: CALayer, in ctx: CGContext) {
        calls += 1
        ctx.setFillColor(CGColor(red: 0, green: 0, blue: 1, alpha: 1))
        ctx.fill(layer.bounds)
    }
}

@Suite struct CALayerTests {
    @Test func appleDefaults() {
        let l = CALayer()
        #expect(l.bounds == .zero && l.position == .zero)
        #expect(l.anchorPoint == CGPoint(x: 0.5, y: 0.5))
        #expect(l.opacity == 1 && !l.isHidden && !l.masksToBounds)
        #expect(l.borderColor == CGColor.black && l.borderWidth == 0)
        #expect(l.shadowOffset == CGSize(width: 0, height: -3) && l.shadowRadius == 3 && l.shadowOpacity == 0)
        #expect(l.contentsRect == CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(l.contentsGravity == .resize && l.contentsScale == 1)
        #expect(l.maskedCorners == [.layerMinXMinYCorner, .layerMaxXMinYCorner, .layerMinXMaxYCorner, .layerMaxXMaxYCorner])
        #expect(l.isDoubleSided && l.allowsGroupOpacity && !l.allowsEdgeAntialiasing)
        let s = CAShapeLayer()
        #expect(s.fillColor == CGColor.black && s.strokeColor == nil && s.lineWidth == 1 && s.miterLimit == 10)
        #expect(s.strokeStart == 0 && s.strokeEnd == 1 && s.lineCap == .butt && s.lineJoin == .miter && s.fillRule == .nonZero)
        let t = CATextLayer()
        #expect(t.fontSize == 36 && t.foregroundColor == CGColor.white && t.alignmentMode == .natural)
        let g = CAGradientLayer()
        #expect(g.startPoint == CGPoint(x: 0.5, y: 0) && g.endPoint == CGPoint(x: 0.5, y: 1) && g.type == .axial)
        #expect(CAReplicatorLayer().instanceCount == 1)
        #expect(CountingLayer().cornerRadius == 8)
    }

    @Test func frameBoundsAndPosition() {
        let l = CALayer()
        l.bounds = CGRect(x: 0, y: 0, width: 100, height: 50)
        l.position = CGPoint(x: 100, y: 100)
        #expect(l.frame == CGRect(x: 50, y: 75, width: 100, height: 50))
        l.anchorPoint = .zero
        #expect(l.frame == CGRect(x: 100, y: 100, width: 100, height: 50))
        l.frame = CGRect(x: 10, y: 20, width: 30, height: 40)
        #expect(l.position == CGPoint(x: 10, y: 20) && l.bounds.size == CGSize(width: 30, height: 40))
        l.anchorPoint = CGPoint(x: 0.5, y: 0.5)
        l.frame = CGRect(x: 0, y: 0, width: 100, height: 50)
        l.transform = CATransform3DMakeRotation(.pi / 2, 0, 0, 1)
        let f = l.frame
        #expect(close(f.minX, 25) && close(f.minY, -25) && close(f.width, 50) && close(f.height, 100))
        l.setAffineTransform(CGAffineTransform(scaleX: 2, y: 2))
        #expect(l.affineTransform() == CGAffineTransform(scaleX: 2, y: 2))
        #expect(l.frame == CGRect(x: -50, y: -25, width: 200, height: 100))
    }

    @Test func hierarchy() {
        let root = CALayer(), a = CALayer(), b = CALayer(), c = CALayer(), d = CALayer()
        root.addSublayer(a)
        root.addSublayer(b)
        root.insertSublayer(c, at: 0)
        #expect(root.sublayers?.map { ObjectIdentifier($0) } == [c, a, b].map { ObjectIdentifier($0) })
        root.insertSublayer(d, above: a)
        #expect(root.sublayers?.map { ObjectIdentifier($0) } == [c, a, d, b].map { ObjectIdentifier($0) })
        root.insertSublayer(d, below: c)
        #expect(root.sublayers?.map { ObjectIdentifier($0) } == [d, c, a, b].map { ObjectIdentifier($0) })
        let e = CALayer()
        root.replaceSublayer(a, with: e)
        #expect(a.superlayer == nil && e.superlayer === root)
        #expect(root.sublayers?.map { ObjectIdentifier($0) } == [d, c, e, b].map { ObjectIdentifier($0) })
        b.removeFromSuperlayer()
        #expect(b.superlayer == nil && root.sublayers?.count == 3)
        // Moving a layer removes it from its old parent.
        e.addSublayer(c)
        #expect(root.sublayers?.count == 2 && c.superlayer === e)
        // A layer cannot contain its ancestor.
        c.addSublayer(root)
        #expect(root.superlayer == nil)
        root.sublayers = nil
        #expect(e.superlayer == nil && root.sublayers == nil)
    }

    @Test func convertBetweenLayers() {
        let root = CALayer()
        root.bounds = CGRect(x: 0, y: 0, width: 400, height: 400)
        let a = CALayer()
        a.frame = CGRect(x: 100, y: 100, width: 100, height: 100)
        root.addSublayer(a)
        let b = CALayer()
        b.frame = CGRect(x: 10, y: 10, width: 20, height: 20)
        a.addSublayer(b)
        #expect(root.convert(CGPoint(x: 0, y: 0), from: b) == CGPoint(x: 110, y: 110))
        #expect(b.convert(CGPoint(x: 110, y: 110), from: root) == .zero)
        #expect(b.convert(CGPoint(x: 5, y: 5), to: root) == CGPoint(x: 115, y: 115))
        #expect(root.convert(b.bounds, from: b) == CGRect(x: 110, y: 110, width: 20, height: 20))
        // Scale a by 2 about its centre (150, 150).
        a.transform = CATransform3DMakeScale(2, 2, 1)
        let p = root.convert(CGPoint(x: 0, y: 0), from: b)
        #expect(close(p.x, 70) && close(p.y, 70))
        let back = b.convert(p, from: root)
        #expect(close(back.x, 0) && close(back.y, 0))
        // A geometry-flipped parent mirrors its sublayers' y inside its bounds.
        a.transform = CATransform3DIdentity
        a.isGeometryFlipped = true
        let q = root.convert(CGPoint(x: 0, y: 0), from: b)
        #expect(close(q.x, 110) && close(q.y, 190))
        #expect(b.contentsAreFlipped() && !root.contentsAreFlipped())
    }

    @Test func hitTestFindsTheFrontmostDescendant() {
        let root = CALayer()
        root.bounds = CGRect(x: 0, y: 0, width: 400, height: 400)
        root.position = CGPoint(x: 200, y: 200)
        let back = CALayer()
        back.frame = CGRect(x: 0, y: 0, width: 200, height: 200)
        let front = CALayer()
        front.frame = CGRect(x: 100, y: 100, width: 200, height: 200)
        root.addSublayer(back)
        root.addSublayer(front)
        #expect(root.hitTest(CGPoint(x: 50, y: 50)) === back)
        #expect(root.hitTest(CGPoint(x: 150, y: 150)) === front)
        #expect(root.hitTest(CGPoint(x: 350, y: 50)) === root)
        #expect(root.hitTest(CGPoint(x: 450, y: 50)) == nil)
        back.zPosition = 1
        #expect(root.hitTest(CGPoint(x: 150, y: 150)) === back)
        back.isHidden = true
        #expect(root.hitTest(CGPoint(x: 150, y: 150)) === front)
        #expect(front.contains(CGPoint(x: 10, y: 10)) && !front.contains(CGPoint(x: -1, y: 10)))
    }

    @Test func renderTreeCarriesValuesSortedSublayersAndOverrides() throws {
        let root = CALayer()
        root.bounds = CGRect(x: 0, y: 0, width: 100, height: 100)
        root.isGeometryFlipped = true
        let a = CALayer(), b = CALayer(), c = CALayer()
        a.zPosition = 2
        c.isHidden = true
        c.opacity = 0
        root.sublayers = [a, b, c]
        var out: CVPixelBuffer?
        CVPixelBufferCreate(nil, 2, 2, kCVPixelFormatType_32BGRA, nil, &out)
        let pixels = try #require(out)
        let tree = root.renderTree(at: nil, contentsOverrides: [ObjectIdentifier(b): .pixelBuffer(pixels)])
        #expect(tree.sublayers.map(\.id) == [b, c, a].map { ObjectIdentifier($0) })
        #expect(tree.sublayers[0].contents == .pixelBuffer(pixels))
        #expect(tree.sublayers[1].isHidden && tree.sublayers[1].opacity == 0)
        #expect(tree.contentsAreFlipped && tree.sublayers.allSatisfy(\.contentsAreFlipped))
        // Equal trees for unchanged layers.
        #expect(root.renderTree(at: nil) == root.renderTree(at: nil))
    }

    @Test func drawnLayersAreDrawnOnceUntilSetNeedsDisplay() throws {
        let l = CountingLayer()
        l.bounds = CGRect(x: 0, y: 0, width: 4, height: 3)
        l.contentsScale = 2
        #expect(evaluated(l, at: nil).contents == nil)
        l.setNeedsDisplay()
        let first = evaluated(l, at: nil)
        guard case .image(let image)? = first.contents else { Issue.record("no backing store"); return }
        #expect(image.width == 8 && image.height == 6)
        #expect(l.draws == 1)
        _ = evaluated(l, at: 1)
        #expect(l.draws == 1)
        l.setNeedsDisplay()
        _ = evaluated(l, at: 1)
        #expect(l.draws == 2)
        // A delegate that draws.
        let painter = Painter()
        let d = CALayer()
        d.bounds = CGRect(x: 0, y: 0, width: 2, height: 2)
        d.delegate = painter
        d.setNeedsDisplay()
        d.displayIfNeeded()
        #expect(painter.calls == 1 && d.contents is CGImage && !d.needsDisplay())
    }

    @Test func textShapeGradientAndReplicatorContent() {
        let t = CATextLayer()
        t.string = "Hello"
        guard case .text(let text) = evaluated(t, at: nil).content else { Issue.record("no text"); return }
        #expect(text.runs == [RenderTextRun(text: "Hello", fontName: "Helvetica", fontSize: 36, color: .white)])
        let attributed = NSMutableAttributedString(string: "AB")
        attributed.addAttribute(NSAttributedString.Key("NSFont"), value: "GillSans-Bold", range: NSRange(location: 0, length: 1))
        attributed.addAttribute(NSAttributedString.Key("NSColor"), value: CGColor.white, range: NSRange(location: 0, length: 2))
        t.string = attributed
        t.fontSize = 64
        guard case .text(let runs) = evaluated(t, at: nil).content else { Issue.record("no text"); return }
        #expect(runs.runs.map(\.text) == ["A", "B"])
        #expect(runs.runs.map(\.fontName) == ["GillSans-Bold", "Helvetica"])
        #expect(runs.runs.allSatisfy { $0.color == .white && $0.fontSize == 64 })

        let s = CAShapeLayer()
        s.path = CGPath(elements: [.move(.zero), .line(CGPoint(x: 10, y: 0))])
        s.strokeColor = CGColor.white
        s.lineDashPattern = [4, 2]
        let a = CABasicAnimation(keyPath: "strokeEnd")
        a.fromValue = 0
        a.toValue = 1
        a.duration = 2
        a.beginTime = beginAtZero
        s.add(a, forKey: nil)
        guard case .shape(let shape) = evaluated(s, at: 0.5).content else { Issue.record("no shape"); return }
        #expect(shape.strokeEnd == 0.25 && shape.lineDashPattern == [4, 2] && shape.strokeColor == .white)

        let g = CAGradientLayer()
        g.colors = [CGColor.black, CGColor.white]
        g.locations = [0, 1]
        guard case .gradient(let gradient) = evaluated(g, at: nil).content else { Issue.record("no gradient"); return }
        #expect(gradient.colors == [.black, .white] && gradient.locations == [0, 1])

        let r = CAReplicatorLayer()
        r.instanceCount = 3
        r.instanceDelay = 0.5
        r.instanceTransform = CATransform3DMakeTranslation(10, 0, 0)
        let dot = CALayer()
        let fade = CABasicAnimation(keyPath: "opacity")
        fade.fromValue = 0
        fade.toValue = 1
        fade.duration = 2
        fade.beginTime = beginAtZero
        dot.add(fade, forKey: nil)
        r.addSublayer(dot)
        let node = evaluated(r, at: 1.5)
        guard case .replicator(let rep) = node.content else { Issue.record("no replicator"); return }
        #expect(rep.instances.count == 3 && node.sublayers.isEmpty)
        #expect(rep.instances.map { Double($0[0].opacity) } == [0.75, 0.5, 0.25])
        #expect(rep.instanceTransform == CATransform3DMakeTranslation(10, 0, 0))
    }

    @Test func keyValueCodingForAnimatableKeys() {
        let l = CALayer()
        l.setValue(0.5, forKey: "opacity")
        l.setValue(CGPoint(x: 3, y: 4), forKey: "position")
        l.setValue(true, forKey: "hidden")
        l.setValue(12, forKeyPath: "position.x")
        #expect(l.opacity == 0.5 && l.position == CGPoint(x: 12, y: 4) && l.isHidden)
        #expect(l.value(forKey: "opacity") as? Float == 0.5)
        #expect(l.value(forKeyPath: "position.y") as? Double == 4)
        l.transform = CATransform3DMakeRotation(0.5, 0, 0, 1)
        #expect(close(l.value(forKeyPath: "transform.rotation.z") as? Double ?? 0, 0.5))
        l.setValue(2, forKeyPath: "transform.scale")
        #expect(close(l.value(forKeyPath: "transform.scale") as? Double ?? 0, 2))
        l.setValue("custom", forKey: "userKey")
        #expect(l.value(forKey: "userKey") as? String == "custom")
        #expect(l.value(forKey: "nothing") == nil)
    }

    @Test func presentationHoldsTheAnimatedValues() throws {
        let l = CALayer()
        l.opacity = 1
        let a = CABasicAnimation(keyPath: "opacity")
        a.fromValue = 0.5
        a.toValue = 0.5
        a.duration = 1000
        l.add(a, forKey: nil)
        let p = try #require(l.presentation())
        #expect(p.opacity == 0.5)
        #expect(p.model() === l)
        #expect(l.model() === l)
    }

    @Test func implicitActionsOnlyInLiveTrees() throws {
        let standalone = CALayer()
        standalone.opacity = 0.5
        #expect(standalone.animationKeys() == nil)

        let root = CALayer()
        root.hostsLiveRendering = true
        let child = CALayer()
        root.addSublayer(child)
        CATransaction.begin()
        CATransaction.setAnimationDuration(2)
        child.opacity = 0.5
        CATransaction.commit()
        let anim = try #require(child.animation(forKey: "opacity") as? CABasicAnimation)
        #expect(anim.duration == 2)
        #expect(AnimValue(anim.fromValue) == .scalar(1))
        // Disabled actions make none.
        CATransaction.begin()
        CATransaction.setDisableActions(true)
        child.position = CGPoint(x: 5, y: 5)
        CATransaction.commit()
        #expect(child.animation(forKey: "position") == nil)
        // An NSNull action disables the key.
        child.actions = ["bounds": NSNull()]
        child.bounds = CGRect(x: 0, y: 0, width: 5, height: 5)
        #expect(child.animation(forKey: "bounds") == nil)
    }

    @Test func transactionValues() {
        #expect(CATransaction.animationDuration() == 0.25)
        #expect(!CATransaction.disableActions())
        CATransaction.begin()
        CATransaction.setDisableActions(true)
        CATransaction.begin()
        #expect(CATransaction.disableActions())
        CATransaction.setValue(3.0, forKey: kCATransactionAnimationDuration)
        #expect(CATransaction.animationDuration() == 3)
        CATransaction.commit()
        #expect(CATransaction.animationDuration() == 0.25)
        CATransaction.commit()
        #expect(!CATransaction.disableActions())
    }
}
