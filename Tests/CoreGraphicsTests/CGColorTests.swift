import Foundation
import Testing
import CoreGraphics

@Suite struct CGColorTests {
    @Test func rgbColourComponents() throws {
        let c = CGColor(red: 0.2, green: 0.4, blue: 0.6, alpha: 0.8)
        #expect(c.components == [0.2, 0.4, 0.6, 0.8])
        #expect(c.numberOfComponents == 4)
        #expect(c.alpha == 0.8)
        let space = try #require(c.colorSpace)
        #expect(space.model == .rgb && space.numberOfComponents == 3)
    }

    @Test func srgbAndGrayInitialisers() {
        let s = CGColor(srgbRed: 1, green: 0.5, blue: 0, alpha: 1)
        #expect(s.colorSpace?.name == CGColorSpace.sRGB)
        #expect(s.components == [1, 0.5, 0, 1])
        let g = CGColor(gray: 0.5, alpha: 0.25)
        #expect(g.components == [0.5, 0.25] && g.numberOfComponents == 2)
        #expect(g.colorSpace?.model == .monochrome)
        let g22 = CGColor(genericGrayGamma2_2Gray: 0.3, alpha: 1)
        #expect(g22.colorSpace?.name == CGColorSpace.genericGrayGamma2_2)
        let cmyk = CGColor(genericCMYKCyan: 1, magenta: 0, yellow: 0, black: 0.5, alpha: 1)
        #expect(cmyk.numberOfComponents == 5 && cmyk.colorSpace?.model == .cmyk)
    }

    @Test func componentsInitialiserClampsAndReadsAlpha() throws {
        let rgb = CGColorSpaceCreateDeviceRGB()
        let c = try #require(CGColor(colorSpace: rgb, components: [2, -1, 0.5, 0.7]))
        #expect(c.components == [1, 0, 0.5, 0.7])
        let gray = try #require(CGColor(colorSpace: CGColorSpaceCreateDeviceGray(), components: [0.1, 1]))
        #expect(gray.components == [0.1, 1])
    }

    @Test func constantColours() {
        #expect(CGColor.black.components == [0, 1])
        #expect(CGColor.white.components == [1, 1])
        #expect(CGColor.clear.components == [0, 0])
        #expect(CGColorGetConstantColor(kCGColorBlack) == .black)
        #expect(CGColorGetConstantColor(kCGColorWhite) == .white)
        #expect(CGColorGetConstantColor(kCGColorClear) == .clear)
        #expect(CGColorGetConstantColor("nonsense") == nil)
    }

    @Test func copiesAndEquality() throws {
        let c = CGColor(red: 0.1, green: 0.2, blue: 0.3, alpha: 1)
        let copy = try #require(c.copy())
        #expect(copy == c && copy !== c)
        let faded = try #require(c.copy(alpha: 0.5))
        #expect(faded.components == [0.1, 0.2, 0.3, 0.5])
        #expect(faded != c)
        #expect(CGColor(gray: 1, alpha: 1) != CGColor(red: 1, green: 1, blue: 1, alpha: 1))
        #expect(CGColor(red: 0.1, green: 0.2, blue: 0.3, alpha: 1) == c)
    }

    @Test func conversionBetweenGrayAndRGB() throws {
        let rgb = try #require(CGColorSpace(name: CGColorSpace.sRGB))
        let gray = try #require(CGColorSpace(name: CGColorSpace.genericGrayGamma2_2))
        let fromGray = try #require(CGColor(gray: 0.5, alpha: 0.5).converted(to: rgb, intent: .defaultIntent, options: nil))
        #expect(fromGray.components == [0.5, 0.5, 0.5, 0.5])
        #expect(fromGray.colorSpace == rgb)
        let white = try #require(CGColor(red: 1, green: 1, blue: 1, alpha: 1).converted(to: gray, intent: .perceptual, options: nil))
        #expect(close(white.components![0], 1) && white.components![1] == 1)
        let black = try #require(CGColor(red: 0, green: 0, blue: 0, alpha: 1).converted(to: gray, intent: .defaultIntent, options: nil))
        #expect(black.components == [0, 1])
        let red = try #require(CGColor(red: 1, green: 0, blue: 0, alpha: 1).converted(to: gray, intent: .defaultIntent, options: nil))
        let green = try #require(CGColor(red: 0, green: 1, blue: 0, alpha: 1).converted(to: gray, intent: .defaultIntent, options: nil))
        #expect(red.components![0] < green.components![0])
        let cmyk = CGColor(genericCMYKCyan: 0, magenta: 0, yellow: 0, black: 1, alpha: 1)
        #expect(cmyk.converted(to: rgb, intent: .defaultIntent, options: nil) == nil)
    }

    @Test func cFunctions() throws {
        let c = CGColorCreateGenericRGB(0.25, 0.5, 0.75, 1)
        let pointer = try #require(CGColorGetComponents(c))
        #expect(pointer[0] == 0.25 && pointer[1] == 0.5 && pointer[2] == 0.75 && pointer[3] == 1)
        #expect(CGColorGetNumberOfComponents(c) == 4 && CGColorGetAlpha(c) == 1)
        #expect(CGColorGetColorSpace(c)?.model == .rgb)
        #expect(CGColorCreateCopyWithAlpha(c, 0.1)?.alpha == 0.1)
        #expect(CGColorEqualToColor(c, CGColorCreateGenericRGB(0.25, 0.5, 0.75, 1)))
        #expect(!CGColorEqualToColor(c, nil))
        #expect(CGColorCreateGenericGray(0.5, 1).components == [0.5, 1])
        #expect(CGColorCreateSRGB(1, 0, 0, 1).colorSpace?.name == CGColorSpace.sRGB)
        #expect(CGColorCreate(CGColorSpaceCreateDeviceRGB(), [0, 1, 0, 1])?.components == [0, 1, 0, 1])
        #expect(CGColorCreate(nil, nil) == nil)
    }
}

@Suite struct CGColorSpaceTests {
    @Test func namedSpacesCarryModelAndComponents() throws {
        let srgb = try #require(CGColorSpace(name: CGColorSpace.sRGB))
        #expect(srgb.model == .rgb && srgb.numberOfComponents == 3 && srgb.name == CGColorSpace.sRGB)
        let gray = try #require(CGColorSpace(name: CGColorSpace.linearGray))
        #expect(gray.model == .monochrome && gray.numberOfComponents == 1)
        let cmyk = try #require(CGColorSpace(name: CGColorSpace.genericCMYK))
        #expect(cmyk.model == .cmyk && cmyk.numberOfComponents == 4)
        #expect(CGColorSpace(name: "not a colour space") == nil)
        #expect(CGColorSpaceCreateDeviceRGB().name == nil)
    }

    @Test func wideGamutAndOutputSupport() throws {
        #expect(CGColorSpace(name: CGColorSpace.displayP3)?.isWideGamutRGB == true)
        #expect(CGColorSpace(name: CGColorSpace.itur_2020)?.isWideGamutRGB == true)
        #expect(CGColorSpace(name: CGColorSpace.sRGB)?.isWideGamutRGB == false)
        #expect(CGColorSpace(name: CGColorSpace.itur_709)?.isWideGamutRGB == false)
        #expect(CGColorSpaceCreateDeviceRGB().supportsOutput && CGColorSpaceCreateDeviceGray().supportsOutput)
        #expect(CGColorSpace(name: CGColorSpace.genericLab)?.supportsOutput == false)
        #expect(CGColorSpaceCreateDeviceRGB().baseColorSpace == nil)
    }

    @Test func indexedSpace() throws {
        let table: [UInt8] = [255, 0, 0, 0, 0, 255]
        let indexed = try #require(CGColorSpace(indexedBaseSpace: CGColorSpaceCreateDeviceRGB(), last: 1, colorTable: table))
        #expect(indexed.model == .indexed && indexed.numberOfComponents == 1)
        #expect(indexed.colorTableCount == 2 && indexed.colorTable == table)
        #expect(indexed.baseColorSpace?.model == .rgb)
        #expect(CGColorSpace(indexedBaseSpace: CGColorSpaceCreateDeviceRGB(), last: 300, colorTable: table) == nil)
        let blue = try #require(CGColor(colorSpace: indexed, components: [1, 1]))
        let converted = try #require(blue.converted(to: CGColorSpaceCreateDeviceRGB(), intent: .defaultIntent, options: nil))
        #expect(converted.components == [0, 0, 1, 1])
        var out = [UInt8](repeating: 0, count: 6)
        CGColorSpaceGetColorTable(indexed, &out)
        #expect(out == table)
    }

    @Test func cFunctions() throws {
        let p3 = try #require(CGColorSpaceCreateWithName(CGColorSpace.displayP3))
        #expect(CGColorSpaceGetModel(p3) == .rgb)
        #expect(CGColorSpaceGetNumberOfComponents(p3) == 3)
        #expect(CGColorSpaceCopyName(p3) == CGColorSpace.displayP3)
        #expect(CGColorSpaceIsWideGamutRGB(p3) && CGColorSpaceSupportsOutput(p3))
        #expect(CGColorSpaceGetModel(nil) == .unknown)
        #expect(CGColorSpaceGetColorTableCount(p3) == 0 && CGColorSpaceGetBaseColorSpace(p3) == nil)
    }
}
