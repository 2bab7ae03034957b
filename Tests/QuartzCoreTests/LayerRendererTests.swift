import CoreGraphics
import CoreVideo
import Foundation
@testable import QuartzCore
import Testing

/// The root most tests draw into: a clear layer covering a `width`×`height` canvas.
private func root(_ marker: LayerMarker, _ width: Int, _ height: Int, _ sublayers: [RenderLayer]) -> RenderLayer {
    var layer = RenderLayer(id: ObjectIdentifier(marker), bounds: CGRect(x: 0, y: 0, width: width, height: height),
                            position: CGPoint(x: Double(width) / 2, y: Double(height) / 2))
    layer.sublayers = sublayers
    return layer
}

private func rotation(_ angle: CGFloat, x: CGFloat, y: CGFloat, z: CGFloat) -> CATransform3D {
    // Core Animation's rotation (row vectors) about a unit axis.
    let c = cos(angle), s = sin(angle), t = 1 - c
    return CATransform3D(m11: t * x * x + c, m12: t * x * y + z * s, m13: t * x * z - y * s, m14: 0,
                         m21: t * x * y - z * s, m22: t * y * y + c, m23: t * y * z + x * s, m24: 0,
                         m31: t * x * z + y * s, m32: t * y * z - x * s, m33: t * z * z + c, m34: 0,
                         m41: 0, m42: 0, m43: 0, m44: 1)
}

@Suite struct LayerRendererGeometryTests {
    let markers = (0..<8).map { _ in LayerMarker() }

    @Test func backgroundIsPlacedByPositionAndAnchorToThePixel() {
        let canvas = Canvas(100, 80)
        let centred = solidLayer(markers[1], CGRect(x: 20, y: 15, width: 20, height: 10), red)
        var corner = solidLayer(markers[2], CGRect(x: 0, y: 0, width: 20, height: 10), blue)
        corner.anchorPoint = .zero
        corner.position = CGPoint(x: 60, y: 50)
        LayerRenderer().draw(root(markers[0], 100, 80, [centred, corner]), in: canvas.context)
        canvas.dump("placement")
        #expect(canvas.pixel(20, 15) == redPixel)
        #expect(canvas.pixel(39, 24) == redPixel)
        #expect(canvas.pixel(19, 15) == .clear)
        #expect(canvas.pixel(40, 24) == .clear)
        #expect(canvas.pixel(20, 14) == .clear)
        #expect(canvas.pixel(20, 25) == .clear)
        #expect(canvas.pixel(60, 50) == bluePixel)
        #expect(canvas.pixel(79, 59) == bluePixel)
        #expect(canvas.pixel(80, 59) == .clear)
        #expect(canvas.pixel(60, 60) == .clear)
    }

    @Test func laterSublayersAreDrawnOnTop() {
        let canvas = Canvas(60, 40)
        let back = solidLayer(markers[1], CGRect(x: 0, y: 0, width: 40, height: 40), red)
        let front = solidLayer(markers[2], CGRect(x: 20, y: 0, width: 40, height: 40), blue)
        LayerRenderer().draw(root(markers[0], 60, 40, [back, front]), in: canvas.context)
        #expect(canvas.pixel(10, 20) == redPixel)
        #expect(canvas.pixel(30, 20) == bluePixel)
        #expect(canvas.pixel(50, 20) == bluePixel)
    }

    @Test func geometryFlippedLaysSublayersOutFromTheTop() {
        let canvas = Canvas(100, 80)
        var child = solidLayer(markers[1], CGRect(x: 0, y: 0, width: 10, height: 10), red)
        child.anchorPoint = .zero
        child.position = .zero
        var flipped = root(markers[0], 100, 80, [child])
        flipped.isGeometryFlipped = true
        LayerRenderer().draw(flipped, in: canvas.context)
        canvas.dump("flipped")
        #expect(canvas.pixel(0, 79) == redPixel)
        #expect(canvas.pixel(9, 70) == redPixel)
        #expect(canvas.pixel(0, 69) == .clear)
        #expect(canvas.pixel(0, 0) == .clear)
    }

    @Test func rotationTurnsAboutTheAnchorPoint() {
        let canvas = Canvas(100, 80)
        var layer = solidLayer(markers[1], CGRect(x: 30, y: 30, width: 40, height: 20), white)
        // A marked 5×5 square in the layer's minX/minY corner.
        var mark = solidLayer(markers[2], CGRect(x: 0, y: 0, width: 5, height: 5), red)
        mark.anchorPoint = .zero
        mark.position = .zero
        layer.sublayers = [mark]
        layer.transform = rotation(.pi / 2, x: 0, y: 0, z: 1)
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: canvas.context)
        canvas.dump("rotation")
        // (−20, −10) from the anchor turns a quarter counter-clockwise to (10, −20): the mark lies
        // at x 55…60, y 20…25 around the anchor (50, 40).
        #expect(canvas.pixel(57, 22).isClose(to: redPixel))
        #expect(canvas.pixel(42, 22).isClose(to: whitePixel))
        #expect(canvas.pixel(42, 57).isClose(to: whitePixel))
        #expect(canvas.pixel(35, 40) == .clear)   // the layer is 20 wide after turning
        #expect(canvas.pixel(50, 58).isClose(to: whitePixel))
        #expect(canvas.pixel(50, 61) == .clear)           // and 40 tall
    }

    /// The x where a point `x` from the card's centre lands after rotation.y `angle` under a
    /// parent's perspective m34 = −1/1000 (Core Animation's row-vector maths).
    private func projectedX(_ x: CGFloat, _ angle: CGFloat) -> CGFloat {
        let w = 1 + (-x * sin(angle)) * (-1.0 / 1000)
        return x * cos(angle) / w
    }

    private func card(angle: CGFloat, doubleSided: Bool = true) -> (Canvas, RenderLayer) {
        let canvas = Canvas(400, 200)
        var card = solidLayer(markers[1], CGRect(x: 100, y: 50, width: 200, height: 100), red)
        card.transform = rotation(angle, x: 0, y: 1, z: 0)
        card.isDoubleSided = doubleSided
        var scene = root(markers[0], 400, 200, [card])
        scene.sublayerTransform.m34 = -1.0 / 1000
        return (canvas, scene)
    }

    @Test func perspectiveRotationAboutYShrinksTheFarEdge() {
        let (canvas, scene) = card(angle: .pi / 3)
        LayerRenderer().draw(scene, in: canvas.context)
        canvas.dump("perspective60")
        let left = 200 + projectedX(-100, .pi / 3), right = 200 + projectedX(100, .pi / 3)
        // Rotating +60° about y swings the right edge away (z < 0): it is the shorter one.
        #expect(abs((right - 200) - 46.0) < 0.5 && abs((200 - left) - 54.7) < 0.5)
        #expect(canvas.pixel(Int(left) + 2, 100) == redPixel)
        #expect(canvas.pixel(Int(left) - 2, 100) == .clear)
        #expect(canvas.pixel(Int(right) - 2, 100) == redPixel)
        #expect(canvas.pixel(Int(right) + 2, 100) == .clear)
        // Heights: 100 / w at each edge: the near (left) edge is taller than the far one.
        let s = sin(CGFloat.pi / 3)
        let nearHalf = 50 / (1 - 100 * s / 1000), farHalf = 50 / (1 + 100 * s / 1000)
        #expect(canvas.pixel(Int(left) + 1, 100 + Int(nearHalf) - 2) == redPixel)
        #expect(canvas.pixel(Int(right) - 1, 100 + Int(farHalf) + 2) == .clear)
        #expect(canvas.pixel(Int(right) - 1, 100 + Int(farHalf) - 2) == redPixel)
    }

    @Test func hugeCardInPerspectiveDrawsItsVisiblePart() {
        // 16384 points wide: its far half reaches behind the eye (w < 0); what the canvas shows
        // is in front and drawn from a surface the size of that part.
        let canvas = Canvas(400, 200)
        var card = solidLayer(markers[1], CGRect(x: 200 - 8192, y: 100 - 8192, width: 16384, height: 16384), red)
        card.transform = rotation(.pi / 6, x: 0, y: 1, z: 0)
        var scene = root(markers[0], 400, 200, [card])
        scene.sublayerTransform.m34 = -1.0 / 1000
        LayerRenderer().draw(scene, in: canvas.context)
        #expect(canvas.pixel(200, 100) == redPixel)
        #expect(canvas.pixel(2, 2) == redPixel && canvas.pixel(397, 197) == redPixel)
    }

    @Test func edgeOnCardDrawsNothing() {
        let (canvas, scene) = card(angle: .pi / 2)
        LayerRenderer().draw(scene, in: canvas.context)
        #expect(canvas.bytes.allSatisfy { $0 == 0 })
    }

    @Test func singleSidedCardTurnedAwayDrawsNothing() {
        let (canvas, scene) = card(angle: .pi, doubleSided: false)
        LayerRenderer().draw(scene, in: canvas.context)
        #expect(canvas.bytes.allSatisfy { $0 == 0 })
        let (shown, doubleSided) = card(angle: .pi)
        LayerRenderer().draw(doubleSided, in: shown.context)
        #expect(shown.pixel(200, 100) == redPixel)
    }
}

@Suite struct LayerRendererAppearanceTests {
    let markers = (0..<8).map { _ in LayerMarker() }

    @Test func opacityAppliesToTheLayerAndItsSublayersAsOneGroup() {
        let canvas = Canvas(100, 60)
        var parent = solidLayer(markers[1], CGRect(x: 0, y: 0, width: 100, height: 60), nil)
        parent.opacity = 0.5
        parent.sublayers = [solidLayer(markers[2], CGRect(x: 10, y: 10, width: 50, height: 40), red),
                            solidLayer(markers[3], CGRect(x: 40, y: 10, width: 50, height: 40), red)]
        LayerRenderer().draw(root(markers[0], 100, 60, [parent]), in: canvas.context)
        let alone = canvas.pixel(20, 30), overlap = canvas.pixel(50, 30)
        #expect(alone.isClose(to: Pixel(r: 128, g: 0, b: 0, a: 128), tolerance: 1))
        #expect(overlap == alone)
    }

    @Test func masksToBoundsClipsToTheRoundedBounds() {
        let canvas = Canvas(100, 80)
        var layer = solidLayer(markers[1], CGRect(x: 30, y: 20, width: 40, height: 40), nil)
        layer.masksToBounds = true
        layer.cornerRadius = 10
        layer.sublayers = [solidLayer(markers[2], CGRect(x: -20, y: -20, width: 80, height: 80), green)]
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: canvas.context)
        canvas.dump("rounded")
        #expect(canvas.pixel(30, 20) == .clear)          // the rounded-off corner
        #expect(canvas.pixel(69, 59) == .clear)
        #expect(canvas.pixel(50, 40) == greenPixel)       // the centre
        #expect(canvas.pixel(30, 40) == greenPixel)       // the straight edge
        #expect(canvas.pixel(25, 40) == .clear)           // the sublayer outside the bounds
        #expect(canvas.pixel(50, 62) == .clear)
    }

    @Test func borderIsDrawnInsideTheBounds() {
        let canvas = Canvas(100, 80)
        var layer = solidLayer(markers[1], CGRect(x: 30, y: 20, width: 40, height: 40), white)
        layer.borderWidth = 4
        layer.borderColor = blue
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: canvas.context)
        #expect(canvas.pixel(29, 40) == .clear)
        #expect(canvas.pixel(30, 40) == bluePixel)
        #expect(canvas.pixel(33, 40) == bluePixel)
        #expect(canvas.pixel(34, 40) == whitePixel)
        #expect(canvas.pixel(50, 59) == bluePixel)
        #expect(canvas.pixel(50, 55) == whitePixel)
        #expect(canvas.pixel(50, 60) == .clear)
    }

    @Test func roundedBorderFollowsTheCorners() {
        let canvas = Canvas(100, 80)
        var layer = solidLayer(markers[1], CGRect(x: 30, y: 20, width: 40, height: 40), nil)
        layer.borderWidth = 3
        layer.borderColor = blue
        layer.cornerRadius = 12
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: canvas.context)
        canvas.dump("roundedborder")
        #expect(canvas.pixel(30, 20) == .clear)
        #expect(canvas.pixel(31, 40) == bluePixel)
        #expect(canvas.pixel(50, 40) == .clear)
    }

    @Test func maskLayerAlphaMasksTheLayer() {
        let canvas = Canvas(100, 80)
        var layer = solidLayer(markers[1], CGRect(x: 30, y: 20, width: 40, height: 40), red)
        var mask = solidLayer(markers[2], CGRect(x: 0, y: 0, width: 20, height: 40), CGColor(gray: 0, alpha: 1))
        mask.anchorPoint = .zero
        mask.position = .zero
        var half = solidLayer(markers[3], CGRect(x: 20, y: 0, width: 20, height: 40), CGColor(gray: 0, alpha: 0.5))
        half.anchorPoint = .zero
        half.position = CGPoint(x: 20, y: 0)
        layer.mask = [mask]
        layer.sublayers = []
        var second = layer
        second.mask = [mask, half]
        second.id = ObjectIdentifier(markers[4])
        second.position.y += 0
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: canvas.context)
        #expect(canvas.pixel(35, 40) == redPixel)
        #expect(canvas.pixel(60, 40) == .clear)
        let other = Canvas(100, 80)
        LayerRenderer().draw(root(markers[0], 100, 80, [second]), in: other.context)
        #expect(other.pixel(35, 40) == redPixel)
        #expect(other.pixel(60, 40).isClose(to: Pixel(r: 128, g: 0, b: 0, a: 128), tolerance: 1))
    }

    @Test func shadowFallsBelowByTheOffset() {
        let canvas = Canvas(100, 80)
        var layer = solidLayer(markers[1], CGRect(x: 40, y: 40, width: 20, height: 20), white)
        layer.shadowOpacity = 1
        layer.shadowColor = CGColor(gray: 0, alpha: 1)
        layer.shadowOffset = CGSize(width: 0, height: -10)
        layer.shadowRadius = 0
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: canvas.context)
        #expect(canvas.pixel(50, 35) == Pixel(r: 0, g: 0, b: 0, a: 255))   // shadow below the layer
        #expect(canvas.pixel(50, 45) == whitePixel)                        // the layer over it
        #expect(canvas.pixel(50, 29) == .clear)
        #expect(canvas.pixel(50, 62) == .clear)
        // Blurred: soft around the edge, darkest well inside.
        let soft = Canvas(100, 80)
        layer.shadowRadius = 3
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: soft.context)
        soft.dump("shadow")
        #expect(soft.pixel(50, 31).a > 40 && soft.pixel(50, 31).a < 215)
        #expect(soft.pixel(50, 36).a > 230)
        #expect(soft.pixel(50, 19).a == 0)                                 // beyond 3σ
        // A wide blur (σ 12, computed at a reduced scale): a 20-point square blurred by a
        // Gaussian of σ 12 keeps erf(10/(12√2)) · ½erf(20/(12√2)) ≈ 0.27 of its alpha 10 points
        // below its centre.
        let wide = Canvas(100, 80)
        layer.shadowRadius = 12
        LayerRenderer().draw(root(markers[0], 100, 80, [layer]), in: wide.context)
        wide.dump("wideshadow")
        #expect(abs(wide.pixel(50, 30).a - 69) <= 8, "\(wide.pixel(50, 30))")
        #expect(abs(wide.pixel(30, 40).a - 30) <= 8, "\(wide.pixel(30, 40))")   // 20 to the side: 0.595 · 0.197
        #expect(wide.pixel(50, 45) == whitePixel)
    }
}

@Suite struct LayerRendererContentsTests {
    let markers = (0..<8).map { _ in LayerMarker() }

    private func imageLayer(_ image: CGImage, gravity: String, frame: CGRect = CGRect(x: 20, y: 20, width: 60, height: 60))
        -> RenderLayer {
        var layer = solidLayer(markers[1], frame, nil)
        layer.contents = .image(image)
        layer.contentsGravity = gravity
        return layer
    }

    private func draw(_ layer: RenderLayer) -> Canvas {
        let canvas = Canvas(100, 100)
        LayerRenderer().draw(root(markers[0], 100, 100, [layer]), in: canvas.context)
        return canvas
    }

    @Test func gravityPlacesTheContents() {
        // 20×10: red left half, blue right half.
        let image = splitImage(width: 20, height: 10, vertical: false, red, blue)
        let fit = draw(imageLayer(image, gravity: "resizeAspect"))
        fit.dump("aspect")
        // Scaled 3×: 60×30, centred: bars above and below.
        #expect(fit.pixel(25, 50) == redPixel && fit.pixel(75, 50) == bluePixel)
        #expect(fit.pixel(50, 30) == .clear && fit.pixel(50, 70) == .clear)
        #expect(fit.pixel(25, 36) == redPixel && fit.pixel(25, 63) == redPixel)
        let fill = draw(imageLayer(image, gravity: "resizeAspectFill"))
        // Scaled 6×: 120×60 centred, spilling left and right (no clip without masksToBounds).
        #expect(fill.pixel(25, 25) == redPixel && fill.pixel(75, 75) == bluePixel && fill.pixel(15, 50) == redPixel)
        let stretch = draw(imageLayer(image, gravity: "resize"))
        #expect(stretch.pixel(21, 21) == redPixel && stretch.pixel(78, 78) == bluePixel && stretch.pixel(50, 19) == .clear)
        let expectations: [(String, (Int, Int))] = [   // the contents' bottom-left pixel
            ("center", (40, 45)), ("top", (40, 70)), ("bottom", (40, 20)), ("left", (20, 45)), ("right", (60, 45)),
            ("topLeft", (20, 70)), ("topRight", (60, 70)), ("bottomLeft", (20, 20)), ("bottomRight", (60, 20)),
        ]
        for (gravity, (x, y)) in expectations {
            let canvas = draw(imageLayer(image, gravity: gravity))
            #expect(canvas.pixel(x, y) == redPixel, "\(gravity)")
            #expect(canvas.pixel(x + 19, y + 9) == bluePixel, "\(gravity)")
            #expect(canvas.pixel(x - 1, y) == .clear, "\(gravity)")
            #expect(canvas.pixel(x, y - 1) == .clear, "\(gravity)")
        }
    }

    @Test func contentsRectShowsPartOfTheImage() {
        let image = splitImage(width: 20, height: 10, vertical: false, red, blue)
        var left = imageLayer(image, gravity: "resize")
        left.contentsRect = CGRect(x: 0, y: 0, width: 0.5, height: 1)
        let l = draw(left)
        #expect(l.pixel(25, 50) == redPixel && l.pixel(75, 50) == redPixel)
        var right = imageLayer(image, gravity: "resize")
        right.contentsRect = CGRect(x: 0.5, y: 0, width: 0.5, height: 1)
        let r = draw(right)
        #expect(r.pixel(25, 50) == bluePixel && r.pixel(75, 50) == bluePixel)
        // Beyond the image: the part of the rectangle outside 0…1 stays empty.
        var wide = imageLayer(image, gravity: "resize")
        wide.contentsRect = CGRect(x: 0, y: 0, width: 2, height: 1)
        let w = draw(wide)
        #expect(w.pixel(25, 50) == redPixel && w.pixel(45, 50) == bluePixel && w.pixel(60, 50) == .clear)
    }

    @Test func contentsAreFlippedDrawsTheImageUpsideDown() {
        // Red over its first (top) rows, blue below.
        let image = splitImage(width: 10, height: 10, vertical: true, red, blue)
        let upright = draw(imageLayer(image, gravity: "resize"))
        #expect(upright.pixel(50, 75) == redPixel && upright.pixel(50, 25) == bluePixel)
        var layer = imageLayer(image, gravity: "resize")
        layer.contentsAreFlipped = true
        let flipped = draw(layer)
        #expect(flipped.pixel(50, 75) == bluePixel && flipped.pixel(50, 25) == redPixel)
    }

    @Test func pixelBufferContentsAreDrawn() throws {
        var buffer: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 8, 8, kCVPixelFormatType_32BGRA, nil, &buffer) == kCVReturnSuccess)
        let pixels = try #require(buffer)
        CVPixelBufferLockBaseAddress(pixels, [])
        let base = CVPixelBufferGetBaseAddress(pixels)!
        let stride = CVPixelBufferGetBytesPerRow(pixels)
        for y in 0..<8 {
            for x in 0..<8 {
                let p = base.advanced(by: y * stride + x * 4).assumingMemoryBound(to: UInt8.self)
                (p[0], p[1], p[2], p[3]) = (0, 255, 0, 255)   // green, B G R A
            }
        }
        CVPixelBufferUnlockBaseAddress(pixels, [])
        var layer = solidLayer(markers[1], CGRect(x: 20, y: 20, width: 60, height: 60), nil)
        layer.contents = .pixelBuffer(pixels)
        let canvas = draw(layer)
        #expect(canvas.pixel(50, 50) == greenPixel && canvas.pixel(10, 10) == .clear)
    }
}

@Suite struct LayerRendererCacheTests {
    let markers = (0..<8).map { _ in LayerMarker() }

    @Test func staticSubtreeIsDrawnOnceThenComposited() {
        let image = splitImage(width: 20, height: 10, vertical: false, red, blue)
        var watermark = solidLayer(markers[1], CGRect(x: 10, y: 10, width: 40, height: 20), nil)
        watermark.contents = .image(image)
        var scene = root(markers[0], 100, 60, [watermark, solidLayer(markers[2], CGRect(x: 60, y: 10, width: 20, height: 20), green)])
        scene.backgroundColor = CGColor(gray: 0.2, alpha: 1)
        let renderer = LayerRenderer()
        let first = Canvas(100, 60), second = Canvas(100, 60), direct = Canvas(100, 60)
        renderer.draw(scene, in: first.context)
        #expect(renderer.cacheStatistics == .init(rendered: 1, reused: 0))
        renderer.draw(scene, in: second.context)
        #expect(renderer.cacheStatistics == .init(rendered: 1, reused: 1))
        #expect(first.bytes == second.bytes)
        #expect(first.pixel(15, 20) == redPixel)
        // The same pixels as drawing without the cache.
        LayerRenderer(cachesStaticSubtrees: false).draw(scene, in: direct.context)
        #expect(direct.bytes == second.bytes)
        // A change redraws the subtree; the old surface is not reused.
        scene.sublayers[0].opacity = 0.5
        renderer.draw(scene, in: Canvas(100, 60).context)
        #expect(renderer.cacheStatistics.reused == 1)
    }
}

@Suite struct LayerRendererRobustnessTests {
    let markers = (0..<8).map { _ in LayerMarker() }

    @Test func hugeAndNonFiniteLayersDoNotCrash() {
        let canvas = Canvas(64, 48)
        var huge = solidLayer(markers[1], CGRect(x: -8000, y: -8000, width: 16384, height: 16384), red)
        huge.opacity = 0.5
        huge.masksToBounds = true
        huge.cornerRadius = 30
        huge.shadowOpacity = 1
        huge.shadowColor = CGColor(gray: 0, alpha: 1)
        huge.sublayers = [solidLayer(markers[2], CGRect(x: 0, y: 0, width: 16384, height: 16384), blue)]
        var nan = solidLayer(markers[3], CGRect(x: 0, y: 0, width: 10, height: 10), green)
        nan.position = CGPoint(x: CGFloat.nan, y: 5)
        var infinite = solidLayer(markers[4], CGRect(x: 0, y: 0, width: 10, height: 10), green)
        infinite.bounds.size.width = .infinity
        var singular = solidLayer(markers[5], CGRect(x: 0, y: 0, width: 10, height: 10), green)
        singular.transform = CATransform3D()
        var zero = solidLayer(markers[6], CGRect(x: 0, y: 0, width: 0, height: 0), green)
        zero.masksToBounds = true
        zero.opacity = 0.5
        zero.sublayers = [solidLayer(markers[7], CGRect(x: 0, y: 0, width: 10, height: 10), green)]
        LayerRenderer().draw(root(markers[0], 64, 48, [huge, nan, infinite, singular, zero]), in: canvas.context)
        // The huge layer covers the canvas at half opacity; the broken ones draw nothing.
        #expect(canvas.pixel(32, 24).isClose(to: Pixel(r: 0, g: 0, b: 128, a: 191), tolerance: 1))   // over its half-opaque shadow
    }
}

@Suite struct LayerRendererReplicatorTests {
    let markers = (0..<4).map { _ in LayerMarker() }

    @Test func copiesAreTransformedAndTinted() {
        let canvas = Canvas(100, 40)
        var replicator = solidLayer(markers[1], CGRect(x: 0, y: 0, width: 100, height: 40), nil)
        var square = solidLayer(markers[2], CGRect(x: 5, y: 15, width: 10, height: 10), white)
        square.anchorPoint = .zero
        square.position = CGPoint(x: 5, y: 15)
        var r = RenderReplicator()
        r.instanceTransform.m41 = 30   // each copy 30 points right of the one before
        r.instances = [[square], [square], [square]]
        r.instanceColor = CGColor(red: 1, green: 1, blue: 1, alpha: 1)
        r.instanceRedOffset = -0.5     // copy k: red 1 − k/2
        replicator.content = .replicator(r)
        var scene = solidLayer(markers[0], CGRect(x: 0, y: 0, width: 100, height: 40), nil)
        scene.sublayers = [replicator]
        LayerRenderer().draw(scene, in: canvas.context)
        #expect(canvas.pixel(10, 20) == whitePixel)
        #expect(canvas.pixel(40, 20).isClose(to: Pixel(r: 128, g: 255, b: 255, a: 255), tolerance: 1))
        #expect(canvas.pixel(70, 20).isClose(to: Pixel(r: 0, g: 255, b: 255, a: 255), tolerance: 1))
        #expect(canvas.pixel(25, 20) == .clear && canvas.pixel(90, 20) == .clear)
    }
}

@Suite struct LayerRendererWatermarkTests {
    let markers = (0..<4).map { _ in LayerMarker() }

    @Test func staticWatermarkOverVideoIsCompositedFromItsSurface() throws {
        var buffer: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 16, 16, kCVPixelFormatType_32BGRA, nil, &buffer) == kCVReturnSuccess)
        let frame = try #require(buffer)
        var video = solidLayer(markers[1], CGRect(x: 0, y: 0, width: 160, height: 90), nil)
        video.contents = .pixelBuffer(frame)
        var watermark = solidLayer(markers[2], CGRect(x: 100, y: 10, width: 50, height: 20), nil)
        watermark.content = .text(RenderText(runs: [RenderTextRun(text: "AV", fontName: "Helvetica", fontSize: 16,
                                                                  color: white)]))
        var scene = solidLayer(markers[0], CGRect(x: 0, y: 0, width: 160, height: 90), nil)
        scene.sublayers = [video, watermark]
        let renderer = LayerRenderer()
        var frames: [Data] = []
        for _ in 0..<4 {
            let canvas = Canvas(160, 90)
            renderer.draw(scene, in: canvas.context)
            frames.append(canvas.bytes)
        }
        // The text was laid out and drawn once, then composited from its surface three times;
        // the video layer (new pixels every frame) is never cached.
        #expect(renderer.cacheStatistics == .init(rendered: 1, reused: 3))
        #expect(frames.allSatisfy { $0 == frames[0] })
        #expect(frames[0].contains { $0 != 0 })
    }
}
