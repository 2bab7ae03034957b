import Foundation
import Testing
import CoreGraphics

let premultipliedFirst = CGImageAlphaInfo.premultipliedFirst.rawValue
let little32 = CGBitmapInfo.byteOrder32Little.rawValue

func makeContext(_ width: Int, _ height: Int, info: UInt32 = rgba,
                 space: CGColorSpace = CGColorSpaceCreateDeviceRGB()) -> CGContext? {
    CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0, space: space,
              bitmapInfo: info)
}

func bytes(_ context: CGContext) -> [UInt8] {
    [UInt8](UnsafeRawBufferPointer(start: context.data, count: context.bytesPerRow * context.height))
}

@Suite struct CGContextTests {
    @Test func createsWithComputedRowsAndZeroedMemory() throws {
        let c = try #require(makeContext(5, 3))
        #expect(c.width == 5 && c.height == 3 && c.bytesPerRow == 20 && c.bitsPerComponent == 8 && c.bitsPerPixel == 32)
        #expect(c.alphaInfo == .premultipliedLast && c.colorSpace?.model == .rgb && c.bitmapInfo.rawValue == rgba)
        #expect(bytes(c).allSatisfy { $0 == 0 })
        #expect(c.ctm == .identity && c.interpolationQuality == .default)
        let gray = try #require(makeContext(5, 3, info: CGImageAlphaInfo.none.rawValue, space: CGColorSpaceCreateDeviceGray()))
        #expect(gray.bytesPerRow == 5 && gray.bitsPerPixel == 8)
    }

    @Test func rejectsUnsupportedLayouts() {
        let rgb = CGColorSpaceCreateDeviceRGB()
        #expect(makeContext(2, 2, info: CGImageAlphaInfo.last.rawValue) == nil)    // non-premultiplied
        #expect(makeContext(2, 2, info: CGImageAlphaInfo.none.rawValue) == nil)    // 24-bit RGB
        #expect(makeContext(2, 2, info: rgba, space: CGColorSpaceCreateDeviceGray()) == nil)
        #expect(makeContext(0, 2) == nil)
        #expect(CGContext(data: nil, width: 2, height: 2, bitsPerComponent: 16, bytesPerRow: 0, space: rgb, bitmapInfo: rgba) == nil)
        #expect(CGContext(data: nil, width: 4, height: 2, bitsPerComponent: 8, bytesPerRow: 15, space: rgb, bitmapInfo: rgba) == nil)
        #expect(CGContext(data: nil, width: Int.max / 2, height: 2, bitsPerComponent: 8, bytesPerRow: 0, space: rgb,
                          bitmapInfo: rgba) == nil)
    }

    @Test(arguments: [
        (rgba, [UInt8]([255, 102, 51, 255])),                                          // RGBA
        (premultipliedFirst | little32, [51, 102, 255, 255]),                          // BGRA
        (premultipliedFirst, [255, 255, 102, 51]),                                     // ARGB
        (rgba | little32, [255, 51, 102, 255]),                                        // ABGR
        (rgba | CGBitmapInfo.byteOrder32Big.rawValue, [255, 102, 51, 255]),            // RGBA, explicit big
        (CGImageAlphaInfo.noneSkipLast.rawValue, [255, 102, 51, 255]),                 // RGBX
        (CGImageAlphaInfo.noneSkipFirst.rawValue | little32, [51, 102, 255, 255]),     // BGRX
        (CGImageAlphaInfo.noneSkipFirst.rawValue, [255, 255, 102, 51]),                // XRGB
    ])
    func fillWritesExactBytesInEachLayout(info: UInt32, expected: [UInt8]) throws {
        let c = try #require(makeContext(2, 2, info: info))
        c.setFillColor(red: 1, green: 0.4, blue: 0.2, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 2, height: 2))
        let image = try #require(c.makeImage())
        #expect(pixels(image) == Array([[UInt8]](repeating: expected, count: 4).joined()))
        #expect(image.bitmapInfo.rawValue == info && image.bytesPerRow == 8)
    }

    @Test func grayAndAlphaOnlyFills() throws {
        let gray = try #require(makeContext(2, 1, info: CGImageAlphaInfo.none.rawValue, space: CGColorSpaceCreateDeviceGray()))
        gray.setFillColor(gray: 0.4, alpha: 1)
        gray.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(gray) == [102, 0])
        gray.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
        gray.fill(CGRect(x: 1, y: 0, width: 1, height: 1))
        #expect(bytes(gray) == [102, 255])
        let mask = try #require(CGContext(data: nil, width: 1, height: 1, bitsPerComponent: 8, bytesPerRow: 0, space: nil,
                                          bitmapInfo: CGBitmapInfo(alpha: .alphaOnly)))
        mask.setFillColor(CGColor(gray: 0.3, alpha: 0.5))
        mask.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(mask) == [128])
        let maskImage = try #require(mask.makeImage())
        #expect(maskImage.colorSpace == nil && maskImage.alphaInfo == .alphaOnly)
    }

    @Test func originIsBottomLeft() throws {
        let c = try #require(makeContext(3, 3, info: CGImageAlphaInfo.none.rawValue, space: CGColorSpaceCreateDeviceGray()))
        c.setFillColor(gray: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 3, height: 1))
        #expect(bytes(c) == [0, 0, 0, 0, 0, 0, 255, 255, 255])
        c.setFillColor(gray: 0.2, alpha: 1)
        c.fill(CGRect(x: 2, y: 2, width: 1, height: 1))
        #expect(bytes(c) == [0, 0, 51, 0, 0, 0, 255, 255, 255])
    }

    @Test func ctmTranslateScaleRotatePlacePixels() throws {
        let gray = CGColorSpaceCreateDeviceGray(), none = CGImageAlphaInfo.none.rawValue
        let c = try #require(makeContext(4, 4, info: none, space: gray))
        c.setFillColor(gray: 1, alpha: 1)
        c.translateBy(x: 2, y: 1)
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(c.ctm == CGAffineTransform(translationX: 2, y: 1))
        // Device (2, 1) is memory row 4 - 1 - 1 = 2.
        #expect(bytes(c) == [0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 255, 0,  0, 0, 0, 0])

        let s = try #require(makeContext(4, 4, info: none, space: gray))
        s.setFillColor(gray: 1, alpha: 1)
        s.scaleBy(x: 2, y: 2)
        s.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(s) == [0, 0, 0, 0,  0, 0, 0, 0,  255, 255, 0, 0,  255, 255, 0, 0])

        let r = try #require(makeContext(4, 4, info: none, space: gray))
        r.setFillColor(gray: 1, alpha: 1)
        r.translateBy(x: 4, y: 0)
        r.rotate(by: .pi / 2)
        // User (0...1, 0...2) → rotate: (-y, x) → translate: x 2...4, y 0...1.
        r.fill(CGRect(x: 0, y: 0, width: 1, height: 2))
        #expect(bytes(r) == [0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 0, 0,  0, 0, 255, 255])
    }

    @Test func concatenateAndGStateStack() throws {
        let c = try #require(makeContext(2, 2))
        c.saveGState()
        c.concatenate(CGAffineTransform(scaleX: 2, y: 3))
        c.translateBy(x: 1, y: 1)
        #expect(c.ctm == CGAffineTransform(a: 2, b: 0, c: 0, d: 3, tx: 2, ty: 3))
        c.setAlpha(0.5)
        c.interpolationQuality = .none
        c.restoreGState()
        #expect(c.ctm == .identity && c.interpolationQuality == .default)
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        // Alpha restored to 1 and fill colour is opaque black by default.
        #expect(Array(bytes(c)[8..<12]) == [0, 0, 0, 255])
        c.restoreGState() // unbalanced restore: no effect, no crash
        #expect(c.ctm == .identity)
    }

    @Test func sourceOverAlphaAndPartialCoverage() throws {
        let c = try #require(makeContext(3, 1))
        c.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 3, height: 1))
        c.setFillColor(red: 0, green: 0, blue: 1, alpha: 0.5)
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        // The half-transparent blue is stored as premultiplied 8-bit (0, 0, 128, 128), which
        // leaves 127/255 of the red: round(255 × 127 / 255) = 127 (8-bit compositing, as an 8-bit
        // bitmap context composites; the old float blend gave 128 from an unquantised 0.5).
        #expect(Array(bytes(c)[0..<4]) == [127, 0, 128, 255])
        c.clear(CGRect(x: 1, y: 0, width: 2, height: 1))
        c.setAlpha(0.5)
        c.setFillColor(CGColor.white)
        c.fill(CGRect(x: 1, y: 0, width: 1, height: 1))
        #expect(Array(bytes(c)[4..<8]) == [128, 128, 128, 128])
        c.setAlpha(1)
        c.fill(CGRect(x: 2, y: 0, width: 0.5, height: 1))   // half a pixel
        #expect(Array(bytes(c)[8..<12]) == [128, 128, 128, 128])
    }

    @Test func fillingRectsPaintsOverlapsOnce() throws {
        let c = try #require(makeContext(3, 1))
        c.setFillColor(red: 0, green: 0, blue: 0, alpha: 0.5)
        c.fill([CGRect(x: 0, y: 0, width: 2, height: 1), CGRect(x: 1, y: 0, width: 2, height: 1)])
        #expect(bytes(c).enumerated().filter { $0.offset % 4 == 3 }.map(\.element) == [128, 128, 128])
    }

    @Test func clearMakesTransparent() throws {
        let c = try #require(makeContext(2, 1))
        c.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 2, height: 1))
        c.clear(CGRect(x: 1, y: 0, width: 1, height: 1))
        #expect(bytes(c) == [255, 255, 255, 255, 0, 0, 0, 0])
    }

    @Test func makeImageIsASnapshot() throws {
        let c = try #require(makeContext(1, 1))
        let before = try #require(c.makeImage())
        c.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(pixels(before) == [0, 0, 0, 0])
        #expect(try pixels(#require(c.makeImage())) == [255, 0, 0, 255])
    }

    @Test func drawsIntoCallerMemory() throws {
        var memory = [UInt8](repeating: 9, count: 12)   // 2 pixels + 4 bytes of row padding
        memory.withUnsafeMutableBytes { buffer in
            let c = CGContext(data: buffer.baseAddress, width: 2, height: 1, bitsPerComponent: 8, bytesPerRow: 12,
                              space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: rgba)
            c?.setFillColor(red: 0, green: 1, blue: 0, alpha: 1)
            c?.fill(CGRect(x: 0, y: 0, width: 2, height: 1))
            #expect(c?.data == buffer.baseAddress)
        }
        #expect(memory == [0, 255, 0, 255, 0, 255, 0, 255, 9, 9, 9, 9])
    }
}

@Suite struct CGContextImageDrawingTests {
    let source: [UInt8] = [
        255, 0, 0, 255,   0, 128, 0, 128,   0, 0, 0, 0,
        10, 20, 30, 40,   1, 2, 3, 255,     200, 100, 50, 250,
    ]

    @Test func oneToOneDrawReproducesTheImage() throws {
        let image = try #require(makeImage(source, width: 3, height: 2))
        let c = try #require(makeContext(3, 2))
        c.draw(image, in: CGRect(x: 0, y: 0, width: 3, height: 2))
        #expect(bytes(c) == source)
        #expect(try pixels(#require(c.makeImage())) == source)
    }

    @Test func drawingConvertsRGBAToBGRA() throws {
        let image = try #require(makeImage(source, width: 3, height: 2))
        let c = try #require(makeContext(3, 2, info: premultipliedFirst | little32))
        c.draw(image, in: CGRect(x: 0, y: 0, width: 3, height: 2))
        var expected = [UInt8]()
        for p in stride(from: 0, to: source.count, by: 4) {
            expected += [source[p + 2], source[p + 1], source[p], source[p + 3]]
        }
        #expect(bytes(c) == expected)
    }

    @Test func draws24BitRGBAndGrayImages() throws {
        let rgb = try #require(makeImage([10, 20, 30, 40, 50, 60], width: 2, height: 1, bitsPerPixel: 24,
                                         info: CGImageAlphaInfo.none.rawValue))
        let c = try #require(makeContext(2, 1))
        c.draw(rgb, in: CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(bytes(c) == [10, 20, 30, 255, 40, 50, 60, 255])

        let grayImage = try #require(makeImage([0, 77, 255], width: 3, height: 1, bitsPerPixel: 8,
                                               space: CGColorSpaceCreateDeviceGray(), info: 0))
        let g = try #require(makeContext(3, 1, info: 0, space: CGColorSpaceCreateDeviceGray()))
        g.draw(grayImage, in: CGRect(x: 0, y: 0, width: 3, height: 1))
        #expect(bytes(g) == [0, 77, 255])
        let onRGB = try #require(makeContext(3, 1))
        onRGB.draw(grayImage, in: CGRect(x: 0, y: 0, width: 3, height: 1))
        #expect(bytes(onRGB) == [0, 0, 0, 255, 77, 77, 77, 255, 255, 255, 255, 255])
    }

    @Test func nonPremultipliedSourceIsPremultiplied() throws {
        let image = try #require(makeImage([255, 255, 255, 128], width: 1, height: 1, info: CGImageAlphaInfo.last.rawValue))
        let c = try #require(makeContext(1, 1))
        c.draw(image, in: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(c) == [128, 128, 128, 128])
    }

    @Test func imageAppearsUprightInMemory() throws {
        // Row 0 (top) red, row 1 (bottom) blue.
        let image = try #require(makeImage([255, 0, 0, 255, 0, 0, 255, 255], width: 1, height: 2))
        let c = try #require(makeContext(1, 4))
        c.draw(image, in: CGRect(x: 0, y: 0, width: 1, height: 2))   // the bottom half of the context
        #expect(bytes(c) == [0, 0, 0, 0,  0, 0, 0, 0,  255, 0, 0, 255,  0, 0, 255, 255])
    }

    @Test func nearestNeighbourDoublingDuplicatesPixels() throws {
        let image = try #require(makeImage([10, 20, 30, 40], width: 2, height: 2, bitsPerPixel: 8,
                                           space: CGColorSpaceCreateDeviceGray(), info: 0))
        let c = try #require(makeContext(4, 4, info: 0, space: CGColorSpaceCreateDeviceGray()))
        c.interpolationQuality = .none
        c.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(bytes(c) == [10, 10, 20, 20,  10, 10, 20, 20,  30, 30, 40, 40,  30, 30, 40, 40])
        // An image that asks not to be interpolated is sampled the same way at default quality.
        let crisp = try #require(makeImage([10, 20, 30, 40], width: 2, height: 2, bitsPerPixel: 8,
                                           space: CGColorSpaceCreateDeviceGray(), info: 0, interpolate: false))
        let d = try #require(makeContext(4, 4, info: 0, space: CGColorSpaceCreateDeviceGray()))
        d.draw(crisp, in: CGRect(x: 0, y: 0, width: 4, height: 4))
        #expect(bytes(d) == bytes(c))
    }

    @Test func bilinearUpscaleBlendsNeighbours() throws {
        let image = try #require(makeImage([0, 255], width: 2, height: 1, bitsPerPixel: 8,
                                           space: CGColorSpaceCreateDeviceGray(), info: 0))
        let c = try #require(makeContext(4, 1, info: 0, space: CGColorSpaceCreateDeviceGray()))
        c.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 1))
        let out = bytes(c)
        #expect(out.first == 0 && out.last == 255)
        #expect(out[0] < out[1] && out[1] < out[2] && out[2] < out[3])
        #expect(out[1] > 0 && out[2] < 255)
    }

    @Test func drawingFollowsTheCTM() throws {
        let image = try #require(makeImage([200], width: 1, height: 1, bitsPerPixel: 8,
                                           space: CGColorSpaceCreateDeviceGray(), info: 0))
        let c = try #require(makeContext(3, 3, info: 0, space: CGColorSpaceCreateDeviceGray()))
        c.translateBy(x: 1, y: 1)
        c.draw(image, in: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(c) == [0, 0, 0, 0, 200, 0, 0, 0, 0])
        // Flip vertically (the usual UIKit-style flip): the image lands upside down in memory.
        let two = try #require(makeImage([10, 20], width: 1, height: 2, bitsPerPixel: 8,
                                         space: CGColorSpaceCreateDeviceGray(), info: 0))
        let f = try #require(makeContext(1, 2, info: 0, space: CGColorSpaceCreateDeviceGray()))
        f.translateBy(x: 0, y: 2)
        f.scaleBy(x: 1, y: -1)
        f.draw(two, in: CGRect(x: 0, y: 0, width: 1, height: 2))
        #expect(bytes(f) == [20, 10])
    }

    @Test func globalAlphaAndTiling() throws {
        let image = try #require(makeImage([255], width: 1, height: 1, bitsPerPixel: 8,
                                           space: CGColorSpaceCreateDeviceGray(), info: 0))
        let c = try #require(makeContext(2, 2))
        c.setAlpha(0.5)
        c.draw(image, in: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(Array(bytes(c)[8..<12]) == [128, 128, 128, 128])
        let t = try #require(makeContext(2, 2, info: 0, space: CGColorSpaceCreateDeviceGray()))
        t.draw(image, in: CGRect(x: 0, y: 0, width: 1, height: 1), byTiling: true)
        #expect(bytes(t) == [255, 255, 255, 255])
    }

    @Test func cFunctions() throws {
        let c = try #require(CGBitmapContextCreate(nil, 2, 2, 8, 0, CGColorSpaceCreateDeviceRGB(), rgba))
        #expect(CGBitmapContextGetWidth(c) == 2 && CGBitmapContextGetHeight(c) == 2 && CGBitmapContextGetBytesPerRow(c) == 8)
        #expect(CGBitmapContextGetData(c) == c.data && CGBitmapContextGetAlphaInfo(c) == .premultipliedLast)
        CGContextSetRGBFillColor(c, 0, 0, 1, 1)
        CGContextTranslateCTM(c, 1, 0)
        CGContextScaleCTM(c, 1, 2)
        CGContextFillRect(c, CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(CGContextGetCTM(c) == CGAffineTransform(a: 1, b: 0, c: 0, d: 2, tx: 1, ty: 0))
        CGContextConcatCTM(c, CGAffineTransform(scaleX: 1, y: 0.5))
        CGContextRotateCTM(c, 0)
        CGContextClearRect(c, CGRect(x: 0, y: 1, width: 1, height: 1))
        let image = try #require(CGBitmapContextCreateImage(c))
        // Filled device x 1..<2, y 0..<2; then cleared device y 1..<2: only the bottom-right pixel
        // (last row in memory) stays blue.
        #expect(pixels(image) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255])
        let d = try #require(CGBitmapContextCreate(nil, 2, 2, 8, 0, CGColorSpaceCreateDeviceRGB(), rgba))
        CGContextDrawImage(d, CGRect(x: 0, y: 0, width: 2, height: 2), image)
        #expect(bytes(d) == pixels(image))
    }
}
