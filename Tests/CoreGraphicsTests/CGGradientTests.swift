import CoreGraphics
import Foundation
import Testing

@Suite struct CGGradientTests {
    let space = CGColorSpaceCreateDeviceRGB()

    func redToBlue() -> CGGradient {
        let components: [CGFloat] = [1, 0, 0, 1, 0, 0, 1, 1]
        let locations: [CGFloat] = [0, 1]
        return CGGradient(colorSpace: space, colorComponents: components, locations: locations, count: 2)!
    }

    @Test(arguments: [true, false]) func linearMidpointIsTheAverage(bgraLayout: Bool) {
        let c = context(101, 4, bgraLayout: bgraLayout)
        c.drawLinearGradient(redToBlue(), start: CGPoint(x: 0.5, y: 0), end: CGPoint(x: 100.5, y: 0), options: [])
        let mid = pixel(c, 50, 2)
        #expect(abs(mid[0] - 128) <= 2 && abs(mid[2] - 128) <= 2 && mid[3] == 255)
        #expect(pixel(c, 1, 2)[0] >= 250 && pixel(c, 99, 2)[2] >= 250)
    }

    @Test func optionsExtendTheEnds() {
        let c = context(30, 2)
        let colors = [CGColor(red: 0, green: 1, blue: 0, alpha: 1), CGColor(red: 0, green: 0, blue: 1, alpha: 1)] as CFArray
        let gradient = CGGradient(colorsSpace: space, colors: colors, locations: nil)!
        c.drawLinearGradient(gradient, start: CGPoint(x: 10, y: 0), end: CGPoint(x: 20, y: 0),
                             options: .drawsAfterEndLocation)
        #expect(pixel(c, 5, 1) == [0, 0, 0, 0])          // before the start: empty
        #expect(pixel(c, 25, 1) == [0, 0, 255, 255])     // after the end: the end colour
        let both = context(30, 2)
        both.drawLinearGradient(gradient, start: CGPoint(x: 10, y: 0), end: CGPoint(x: 20, y: 0),
                                options: [.drawsBeforeStartLocation, .drawsAfterEndLocation])
        #expect(pixel(both, 2, 1) == [0, 255, 0, 255])
        let none = context(30, 2)
        none.drawLinearGradient(gradient, start: CGPoint(x: 10, y: 0), end: CGPoint(x: 20, y: 0), options: [])
        #expect(pixel(none, 25, 1) == [0, 0, 0, 0])
    }

    @Test func radialMidpoint() {
        let c = context(41, 41)
        c.drawRadialGradient(redToBlue(), startCenter: CGPoint(x: 20.5, y: 20.5), startRadius: 0,
                             endCenter: CGPoint(x: 20.5, y: 20.5), endRadius: 20, options: [])
        let mid = pixel(c, 30, 20)   // 10 pixels out: halfway
        #expect(abs(mid[0] - 128) <= 4 && abs(mid[2] - 128) <= 4)
        #expect(pixel(c, 0, 0) == [0, 0, 0, 0])           // outside the end circle
        #expect(pixel(c, 20, 20)[0] > 240)
    }

    @Test func conicSweepsAFullTurn() {
        let c = context(41, 41)
        c.drawConicGradient(redToBlue(), center: CGPoint(x: 20.5, y: 20.5), angle: 0)
        // A quarter turn counter-clockwise (straight up in y-up space): a quarter of the way.
        let up = pixel(c, 20, 35)
        #expect(abs(up[0] - 191) <= 6 && abs(up[2] - 64) <= 6 && up[3] == 255)
        let down = pixel(c, 20, 5)
        #expect(abs(down[0] - 64) <= 6 && abs(down[2] - 191) <= 6)
    }

    @Test func emptyGradientIsNil() {
        #expect(CGGradient(colorsSpace: space, colors: [] as CFArray, locations: nil) == nil)
    }
}
