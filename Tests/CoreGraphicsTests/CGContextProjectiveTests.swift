@testable import CoreGraphics
import Foundation
import Testing

@Suite struct CGContextProjectiveTests {
    func greenImage() -> CGImage {
        let src = context(4, 4)
        src.setFillColor(red: 0, green: 1, blue: 0, alpha: 1)
        src.fill(CGRect(x: 0, y: 0, width: 4, height: 4))
        return src.makeImageSharingMemory()!
    }

    @Test func affineHomographyMatchesAScaledDraw() {
        let c = context(20, 20)
        // Image pixels (y down) → user space: scale 2, flip y, place the image at (4, 4)–(12, 12).
        let h = ImageHomography(2, 0, 0, 0, -2, 0, 4, 12, 1)
        c.draw(greenImage(), projecting: h)
        #expect(pixel(c, 5, 5) == [0, 255, 0, 255])
        #expect(pixel(c, 10, 10) == [0, 255, 0, 255])
        // The last pixel inside fades (bilinear against transparent outside the image).
        #expect(pixel(c, 11, 11)[1] > 100 && pixel(c, 11, 11)[1] < 255)
        #expect(pixel(c, 2, 2) == [0, 0, 0, 0])
        #expect(pixel(c, 14, 14) == [0, 0, 0, 0])
    }

    @Test func perspectiveNarrowsTheFarEdge() {
        let c = context(40, 40)
        // w grows with the image's y: rows further down the image shrink towards the origin.
        let h = ImageHomography(8, 0, 0, 0, -8, 0.25, 4, 36, 1)
        c.draw(greenImage(), projecting: h)
        // Top image row (y = 0, w = 1) spans x 4…36; bottom row (y = 4, w = 2) spans 2…18.
        #expect(pixel(c, 25, 30)[1] > 200)
        #expect(pixel(c, 25, 8)[3] == 0)   // outside the narrowed bottom edge
        #expect(pixel(c, 30, 2)[3] == 0)
        #expect(pixel(c, 8, 3)[1] > 200)
    }

    @Test func sharedImageSeesTheContextMemory() {
        let src = context(2, 2)
        let image = src.makeImageSharingMemory()!
        src.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        src.fill(CGRect(x: 0, y: 0, width: 2, height: 2))
        let dst = context(2, 2)
        dst.draw(image, in: CGRect(x: 0, y: 0, width: 2, height: 2))
        #expect(pixel(dst, 0, 0) == [255, 0, 0, 255])
    }
}
