import CoreGraphics
import Foundation
import Testing

@Suite struct CGContextEffectsTests {
    @Test(arguments: [true, false]) func clipToEllipse(bgraLayout: Bool) {
        let c = context(20, 20, bgraLayout: bgraLayout)
        c.addEllipse(in: CGRect(x: 0, y: 0, width: 20, height: 20))
        c.clip()
        #expect(c.boundingBoxOfClipPath == CGRect(x: 0, y: 0, width: 20, height: 20))
        c.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 20))
        #expect(pixel(c, 10, 10) == [255, 255, 255, 255])
        #expect(pixel(c, 0, 0) == [0, 0, 0, 0])
        #expect(pixel(c, 19, 19) == [0, 0, 0, 0])
        // Save/restore brings the unclipped state back.
        c.saveGState()
        c.clip(to: CGRect(x: 0, y: 0, width: 5, height: 5))
        #expect(c.boundingBoxOfClipPath == CGRect(x: 0, y: 0, width: 5, height: 5))
        c.restoreGState()
        c.resetClip()
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(pixel(c, 0, 0) == [255, 255, 255, 255])
    }

    @Test func clipToGreyMaskUsesLuma() throws {
        // A 2×1 grey mask: black on the left, white on the right.
        let bytes: [UInt8] = [0, 255, 0, 0]
        let provider = try #require(CGDataProvider(data: Data(bytes) as CFData))
        let mask = try #require(CGImage(width: 2, height: 1, bitsPerComponent: 8, bitsPerPixel: 8, bytesPerRow: 4,
                                        space: CGColorSpaceCreateDeviceGray(), bitmapInfo: CGBitmapInfo(rawValue: 0),
                                        provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent))
        let c = context(20, 10)
        c.clip(to: CGRect(x: 0, y: 0, width: 20, height: 10), mask: mask)
        c.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 10))
        #expect(pixel(c, 3, 5) == [0, 0, 0, 0])
        #expect(pixel(c, 16, 5) == [255, 0, 0, 255])
    }

    @Test func multiplyBlendMode() {
        let c = context(4, 4)
        c.setFillColor(red: 1, green: 0.5, blue: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 4, height: 4))
        c.setBlendMode(.multiply)
        c.setFillColor(red: 0.5, green: 1, blue: 0, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 2, height: 4))
        let p = pixel(c, 0, 0)
        #expect(abs(p[0] - 128) <= 1 && abs(p[1] - 128) <= 1 && p[2] == 0 && p[3] == 255)
        #expect(pixel(c, 3, 0)[2] == 255)
    }

    @Test func shadowOffsetAndBlur() {
        let sharp = context(40, 40), blurred = context(40, 40)
        for c in [sharp, blurred] { c.setFillColor(red: 1, green: 1, blue: 1, alpha: 1) }
        // Offset (10, -10) in base space: right and down. The CTM does not move the shadow.
        sharp.translateBy(x: 0, y: 0)
        sharp.scaleBy(x: 2, y: 2)
        sharp.setShadow(offset: CGSize(width: 10, height: -10), blur: 0,
                        color: CGColor(colorSpace: CGColorSpaceCreateDeviceRGB(), components: [1, 0, 0, 1]))
        sharp.fill(CGRect(x: 5, y: 10, width: 5, height: 5))   // device 10..<20, 20..<30
        #expect(pixel(sharp, 15, 25) == [255, 255, 255, 255])
        #expect(pixel(sharp, 25, 12) == [255, 0, 0, 255])      // shadow at 20..<30, 10..<20
        #expect(pixel(sharp, 25, 25) == [0, 0, 0, 0])
        blurred.setShadow(offset: CGSize(width: 0, height: 0), blur: 8)
        blurred.fill(CGRect(x: 15, y: 15, width: 10, height: 10))
        // The default shadow is black at 1/3 alpha, spreading beyond the shape and fading out.
        let near = pixel(blurred, 13, 20)[3], far = pixel(blurred, 9, 20)[3]
        #expect(near > 0 && near < 85)
        #expect(far < near)
        #expect(pixel(blurred, 0, 0)[3] == 0)
        #expect(pixel(blurred, 20, 20) == [255, 255, 255, 255])
    }

    @Test func transparencyLayerHasGroupOpacity() {
        let c = context(30, 10)
        c.setAlpha(0.5)
        c.beginTransparencyLayer(auxiliaryInfo: nil)
        c.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 10))
        c.fillEllipse(in: CGRect(x: 10, y: 0, width: 20, height: 10))
        c.endTransparencyLayer()
        // The overlap is no darker than the rest: the layer is composited once at alpha 0.5.
        let overlap = pixel(c, 15, 5), single = pixel(c, 5, 5)
        #expect(overlap == single)
        #expect(abs(single[3] - 128) <= 1)
        // Without the layer, overlapping translucent shapes double up.
        let d = context(30, 10)
        d.setAlpha(0.5)
        d.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
        d.fill(CGRect(x: 0, y: 0, width: 20, height: 10))
        d.fillEllipse(in: CGRect(x: 10, y: 0, width: 20, height: 10))
        #expect(pixel(d, 15, 5)[3] > 180)
    }

    @Test func clippedImageDraw() throws {
        let src = context(2, 2)
        src.setFillColor(red: 0, green: 1, blue: 0, alpha: 1)
        src.fill(CGRect(x: 0, y: 0, width: 2, height: 2))
        let image = try #require(src.makeImage())
        let c = context(10, 10, bgraLayout: false)
        c.clip(to: CGRect(x: 0, y: 0, width: 5, height: 10))
        c.draw(image, in: CGRect(x: 0, y: 0, width: 10, height: 10))
        #expect(pixel(c, 2, 2) == [0, 255, 0, 255])
        #expect(pixel(c, 7, 2) == [0, 0, 0, 0])
        c.clear(CGRect(x: 0, y: 0, width: 10, height: 5))
        #expect(pixel(c, 2, 2) == [0, 0, 0, 0])
        #expect(pixel(c, 2, 7) == [0, 255, 0, 255])
    }

    @Test(arguments: [true, false]) func blendModesStayInsideTheShape(bgraLayout: Bool) {
        let c = context(20, 10, bgraLayout: bgraLayout)
        c.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 20, height: 10))
        // .clear punches a hole; .sourceIn recolours inside the shape only.
        c.setBlendMode(.clear)
        c.fillEllipse(in: CGRect(x: 0, y: 0, width: 10, height: 10))
        c.setBlendMode(.sourceIn)
        c.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        c.fill(CGRect(x: 12, y: 0, width: 4, height: 10))
        #expect(pixel(c, 5, 5) == [0, 0, 0, 0])
        #expect(pixel(c, 0, 0) == [255, 255, 255, 255])   // corner outside the ellipse
        #expect(pixel(c, 13, 5) == [255, 0, 0, 255])
        #expect(pixel(c, 18, 5) == [255, 255, 255, 255])
    }

    @Test func offsetClipOnAnRGBAContextKeepsTheRest() {
        // RGBA draws through a scratch the size of the clip: pixels outside stay untouched.
        let c = context(30, 30, bgraLayout: false)
        c.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 30, height: 30))
        c.clip(to: CGRect(x: 10, y: 5, width: 10, height: 10))
        c.setFillColor(red: 1, green: 0, blue: 0, alpha: 0.5)
        c.fillEllipse(in: CGRect(x: 0, y: 0, width: 30, height: 30))
        #expect(pixel(c, 15, 10) == [128, 0, 127, 255])
        #expect(pixel(c, 15, 20) == [0, 0, 255, 255])
        #expect(pixel(c, 5, 10) == [0, 0, 255, 255])
    }
}
