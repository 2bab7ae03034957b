// FrameImage.reorient (pixman through CoreGraphics' PixelRemap) against the definition of each
// of the eight quarter-turn/mirror orientations, pixel for pixel.
import Foundation
import Testing
@testable import MediaEngine

@Suite struct FrameReorientTests {
    @Test(arguments: [false, true])
    func everyOrientationMovesEachPixelWhereItsDefinitionSays(swapsAxes: Bool) throws {
        let (width, height) = (5, 3)
        var source = Data(count: width * height * 4)
        source.withUnsafeMutableBytes { raw in
            let p = raw.bindMemory(to: UInt32.self)
            for i in 0..<(width * height) { p[i] = 0x1000_0000 | UInt32(i) }
        }
        for mirrorsX in [false, true] {
            for mirrorsY in [false, true] {
                let orientation = PixelOrientation(swapsAxes: swapsAxes, mirrorsX: mirrorsX, mirrorsY: mirrorsY)
                let (ow, oh) = orientation.orientedSize(width: width, height: height)
                let out = try FrameImage.reorient(source, width: width, height: height, orientation: orientation)
                var expected = [UInt32]()
                for y in 0..<oh {
                    for x in 0..<ow {
                        // After any swap, mirrored columns run right to left and rows bottom to top.
                        let xx = mirrorsX ? ow - 1 - x : x, yy = mirrorsY ? oh - 1 - y : y
                        let (sx, sy) = swapsAxes ? (yy, xx) : (xx, yy)
                        expected.append(0x1000_0000 | UInt32(sy * width + sx))
                    }
                }
                let got = out.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
                #expect(got == expected, "swap \(swapsAxes) mirrorX \(mirrorsX) mirrorY \(mirrorsY)")
            }
        }
    }
}
