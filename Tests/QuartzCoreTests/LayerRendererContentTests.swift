import CoreGraphics
import Foundation
@testable import QuartzCore
import Testing

@Suite struct LayerRendererContentTests {
    let markers = (0..<4).map { _ in LayerMarker() }

    private func draw(_ content: RenderLayer.Content, frame: CGRect = CGRect(x: 0, y: 0, width: 100, height: 100),
                      configure: (inout RenderLayer) -> Void = { _ in }) -> Canvas {
        let canvas = Canvas(100, 100)
        var layer = solidLayer(markers[1], frame, nil)
        layer.content = content
        configure(&layer)
        var root = solidLayer(markers[0], CGRect(x: 0, y: 0, width: 100, height: 100), nil)
        root.sublayers = [layer]
        LayerRenderer().draw(root, in: canvas.context)
        return canvas
    }

    private func line(strokeEnd: CGFloat) -> RenderShape {
        var shape = RenderShape()
        shape.path = CGPath(elements: [.move(CGPoint(x: 10, y: 50)), .line(CGPoint(x: 90, y: 50))])
        shape.strokeColor = red
        shape.lineWidth = 4
        shape.strokeEnd = strokeEnd
        return shape
    }

    @Test func shapeStrokeCoversTheLine() {
        let canvas = draw(.shape(line(strokeEnd: 1)))
        canvas.dump("stroke")
        #expect(canvas.pixel(30, 49) == redPixel && canvas.pixel(70, 50) == redPixel)
        #expect(canvas.pixel(30, 52) == .clear && canvas.pixel(30, 47) == .clear)
        #expect(canvas.pixel(5, 50) == .clear && canvas.pixel(95, 50) == .clear)
    }

    @Test func strokeEndHalfDrawsHalfTheLength() {
        let canvas = draw(.shape(line(strokeEnd: 0.5)))
        #expect(canvas.pixel(30, 50) == redPixel && canvas.pixel(48, 50) == redPixel)
        #expect(canvas.pixel(52, 50) == .clear && canvas.pixel(70, 50) == .clear)
    }

    @Test func shapeFillUsesTheFillRule() {
        var shape = RenderShape()
        // Two nested squares: even-odd leaves the inner one empty, non-zero (same winding) fills it.
        shape.path = CGPath(elements: [
            .move(CGPoint(x: 10, y: 10)), .line(CGPoint(x: 90, y: 10)), .line(CGPoint(x: 90, y: 90)),
            .line(CGPoint(x: 10, y: 90)), .close,
            .move(CGPoint(x: 30, y: 30)), .line(CGPoint(x: 70, y: 30)), .line(CGPoint(x: 70, y: 70)),
            .line(CGPoint(x: 30, y: 70)), .close,
        ])
        shape.fillColor = green
        let nonZero = draw(.shape(shape))
        #expect(nonZero.pixel(20, 20) == greenPixel && nonZero.pixel(50, 50) == greenPixel && nonZero.pixel(5, 5) == .clear)
        shape.fillRule = "even-odd"
        let evenOdd = draw(.shape(shape))
        #expect(evenOdd.pixel(20, 20) == greenPixel && evenOdd.pixel(50, 50) == .clear)
    }

    @Test func axialGradientRunsFromStartToEnd() {
        var gradient = RenderGradient(colors: [red, blue])
        gradient.type = "axial"
        let canvas = draw(.gradient(gradient))
        canvas.dump("gradient")
        // Default start (0.5, 0) is the bounds' minimum y: red at the bottom, blue at the top.
        let bottom = canvas.pixel(50, 0), top = canvas.pixel(50, 99), middle = canvas.pixel(50, 50)
        #expect(bottom.r > 245 && bottom.b < 10)
        #expect(top.b > 245 && top.r < 10)
        #expect(abs(middle.r - 127) <= 3 && abs(middle.b - 128) <= 3 && middle.a == 255)
        // Locations move the midpoint.
        gradient.locations = [0, 0.5]
        let squeezed = draw(.gradient(gradient))
        #expect(squeezed.pixel(50, 25).isClose(to: Pixel(r: 127, g: 0, b: 128, a: 255), tolerance: 4))
        #expect(squeezed.pixel(50, 75) == bluePixel)
    }

    @Test func radialGradientGrowsFromTheStartPoint() {
        var gradient = RenderGradient(colors: [white, blue])
        gradient.type = "radial"
        gradient.startPoint = CGPoint(x: 0.5, y: 0.5)
        gradient.endPoint = CGPoint(x: 1, y: 1)
        let canvas = draw(.gradient(gradient))
        #expect(canvas.pixel(50, 50).isClose(to: whitePixel, tolerance: 6))
        #expect(canvas.pixel(99, 50).isClose(to: bluePixel, tolerance: 6))
        let halfway = canvas.pixel(75, 50)
        #expect(abs(halfway.r - 128) <= 6 && halfway.b == 255)
    }

    @Test func gradientStaysInsideTheBounds() {
        var gradient = RenderGradient(colors: [red, red])
        gradient.type = "axial"
        let canvas = draw(.gradient(gradient), frame: CGRect(x: 20, y: 20, width: 40, height: 40))
        #expect(canvas.pixel(20, 20) == redPixel && canvas.pixel(59, 59) == redPixel)
        #expect(canvas.pixel(19, 30) == .clear && canvas.pixel(60, 30) == .clear && canvas.pixel(30, 60) == .clear)
    }
}

@Suite struct LayerRendererTextTests {
    let markers = (0..<4).map { _ in LayerMarker() }

    /// Rows (y up) of the canvas with ink, and the ink in each.
    private func inkRows(_ canvas: Canvas) -> [Int: Int] {
        var rows: [Int: Int] = [:]
        for y in 0..<canvas.height {
            for x in 0..<canvas.width where canvas.pixel(x, y).a > 128 { rows[y, default: 0] += 1 }
        }
        return rows
    }

    private func drawT(flipped: Bool) -> Canvas {
        let canvas = Canvas(120, 120)
        var layer = solidLayer(markers[1], CGRect(x: 20, y: 20, width: 80, height: 80), nil)
        layer.content = .text(RenderText(runs: [RenderTextRun(text: "T", fontName: "Helvetica", fontSize: 60,
                                                              color: CGColor(gray: 0, alpha: 1))]))
        layer.contentsAreFlipped = flipped
        var root = solidLayer(markers[0], CGRect(x: 0, y: 0, width: 120, height: 120), nil)
        root.isGeometryFlipped = flipped
        root.sublayers = [layer]
        LayerRenderer().draw(root, in: canvas.context)
        return canvas
    }

    @Test(arguments: [false, true]) func textIsDrawnUprightInsideTheBounds(flipped: Bool) throws {
        let canvas = drawT(flipped: flipped)
        canvas.dump("text-\(flipped)")
        let rows = inkRows(canvas)
        let top = try #require(rows.keys.max()), bottom = try #require(rows.keys.min())
        #expect(top < 100 && bottom >= 20)
        #expect(top > 70)   // from the top edge of the bounds
        // A 'T': its bar (top rows) holds more ink than its stem's foot.
        let quarter = max(1, (top - bottom) / 4)
        let upper = (top - quarter...top).reduce(0) { $0 + rows[$1, default: 0] }
        let lower = (bottom...bottom + quarter).reduce(0) { $0 + rows[$1, default: 0] }
        #expect(upper > lower * 2)
        // Nothing left of the bounds.
        #expect((0..<120).allSatisfy { canvas.pixel(19, $0).a == 0 })
    }
}
