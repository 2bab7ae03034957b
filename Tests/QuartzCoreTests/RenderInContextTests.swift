// CALayer.render(in:) — the whole tree (rounded corners, borders, shapes, text) drawn by the
// layer renderer in the layer's own coordinate space from model values — and
// CATextLayer.preferredFrameSize(), the size of the text.
import CoreGraphics
import Foundation
import QuartzCore
import Testing

@Suite struct RenderInContextTests {
    @Test func renderInDrawsTheTreeInTheLayersOwnSpace() {
        let layer = CALayer()
        // Placed far away in its superlayer's space and rotated: render(in:) ignores both.
        layer.frame = CGRect(x: 500, y: 500, width: 100, height: 80)
        layer.transform = CATransform3DMakeRotation(.pi / 4, 0, 0, 1)
        layer.backgroundColor = red
        layer.cornerRadius = 20
        let bar = CAShapeLayer()
        bar.frame = CGRect(x: 0, y: 0, width: 100, height: 80)
        let path = CGMutablePath()
        path.addRect(CGRect(x: 40, y: 0, width: 20, height: 80))
        bar.path = path
        bar.fillColor = blue
        layer.addSublayer(bar)
        let fade = CABasicAnimation(keyPath: "opacity")
        fade.fromValue = 0.0
        fade.toValue = 0.0
        fade.duration = 100
        layer.add(fade, forKey: nil)  // animations are ignored by render(in:)
        let canvas = Canvas(100, 80)
        layer.render(in: canvas.context)
        #expect(canvas.pixel(10, 40) == redPixel)
        #expect(canvas.pixel(50, 40) == bluePixel)
        #expect(canvas.pixel(1, 1).a == 0, "the rounded corner is transparent")
        #expect(canvas.pixel(90, 40) == redPixel)
    }

    @Test func aTextLayersPreferredSizeIsItsTexts() {
        let text = CATextLayer()
        text.string = "Learning AV Foundation"
        text.fontSize = 40
        let one = text.preferredFrameSize()
        #expect(one.width > 300 && one.width < 700, "\(one)")
        #expect(one.height > 40 && one.height < 70, "\(one)")
        text.string = "Learning AV Foundation Learning AV Foundation"
        #expect(text.preferredFrameSize().width > one.width * 1.8)
        // Wrapped at its bounds' width: narrower and taller.
        text.isWrapped = true
        text.bounds = CGRect(x: 0, y: 0, width: 300, height: 10)
        let wrapped = text.preferredFrameSize()
        #expect(wrapped.width <= 300 && wrapped.height > one.height * 1.8, "\(wrapped)")
        text.string = ""
        #expect(text.preferredFrameSize() == .zero)
    }
}
