// Pixel values of the bitmap CGContext in every layout it supports, against values worked out
// here independently: nearest-neighbour scaling copies pixels, solid fills are premultiplied
// 8-bit values, source-over is src + round(dst × (255 − αsrc) / 255) per channel, bilinear
// scaling of 0 and 128 at quarter positions gives 32 and 96 exactly.
import Foundation
import Testing
import CoreGraphics

/// An 8-bit RGB context layout and where its channels sit in each 4-byte pixel.
struct RGBLayout: CustomStringConvertible, Sendable {
    let name: String
    let info: UInt32
    /// The channel letters in memory order: R, G, B, A (alpha) or X (skip).
    let order: [Character]

    var description: String { name }
    var hasAlpha: Bool { order.contains("A") }

    /// The 4 bytes in memory of a premultiplied pixel; the skip byte is `skip`.
    func encode(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8, skip: UInt8 = 255) -> [UInt8] {
        order.map { c -> UInt8 in
            switch c {
            case "R": r
            case "G": g
            case "B": b
            case "A": a
            default: skip
            }
        }
    }

    /// The bytes of `memory` with every skip byte replaced by 0 (Core Graphics ignores them).
    func meaningful(_ memory: [UInt8]) -> [UInt8] {
        guard let skip = order.firstIndex(of: "X") else { return memory }
        return memory.enumerated().map { $0.offset % 4 == skip ? 0 : $0.element }
    }
}

let rgbLayouts: [RGBLayout] = {
    let last = CGImageAlphaInfo.premultipliedLast.rawValue, first = CGImageAlphaInfo.premultipliedFirst.rawValue
    let skipLast = CGImageAlphaInfo.noneSkipLast.rawValue, skipFirst = CGImageAlphaInfo.noneSkipFirst.rawValue
    let big = CGBitmapInfo.byteOrder32Big.rawValue, little = CGBitmapInfo.byteOrder32Little.rawValue
    return [
        RGBLayout(name: "premultipliedLast", info: last, order: ["R", "G", "B", "A"]),
        RGBLayout(name: "premultipliedLast|32Big", info: last | big, order: ["R", "G", "B", "A"]),
        RGBLayout(name: "premultipliedLast|32Little", info: last | little, order: ["A", "B", "G", "R"]),
        RGBLayout(name: "premultipliedFirst", info: first, order: ["A", "R", "G", "B"]),
        RGBLayout(name: "premultipliedFirst|32Big", info: first | big, order: ["A", "R", "G", "B"]),
        RGBLayout(name: "premultipliedFirst|32Little", info: first | little, order: ["B", "G", "R", "A"]),
        RGBLayout(name: "noneSkipLast", info: skipLast, order: ["R", "G", "B", "X"]),
        RGBLayout(name: "noneSkipLast|32Little", info: skipLast | little, order: ["X", "B", "G", "R"]),
        RGBLayout(name: "noneSkipFirst", info: skipFirst, order: ["X", "R", "G", "B"]),
        RGBLayout(name: "noneSkipFirst|32Little", info: skipFirst | little, order: ["B", "G", "R", "X"]),
    ]
}()

/// round(a × b / 255), the 8-bit product compositing uses.
func mul255(_ a: Int, _ b: Int) -> Int { (a * b + 127) / 255 }

/// Premultiplied source-over of one channel.
func over(_ src: Int, _ srcAlpha: Int, _ dst: Int) -> UInt8 { UInt8(min(255, src + mul255(dst, 255 - srcAlpha))) }

private let grey = CGColorSpaceCreateDeviceGray()

@Suite struct CGContextLayoutTests {
    /// A 2×2 opaque image: red, green / blue, white (rows top to bottom).
    let quad: [UInt8] = [255, 0, 0, 255,  0, 255, 0, 255,
                         0, 0, 255, 255,  255, 255, 255, 255]

    @Test(arguments: rgbLayouts)
    func nearestNeighbourDoublingInEachLayout(layout: RGBLayout) throws {
        let image = try #require(makeImage(quad, width: 2, height: 2))
        let c = try #require(makeContext(4, 4, info: layout.info))
        c.interpolationQuality = .none
        c.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 4))
        let red = layout.encode(255, 0, 0, 255), green = layout.encode(0, 255, 0, 255)
        let blue = layout.encode(0, 0, 255, 255), white = layout.encode(255, 255, 255, 255)
        let top = red + red + green + green, bottom = blue + blue + white + white
        #expect(layout.meaningful(bytes(c)) == layout.meaningful(top + top + bottom + bottom))
    }

    @Test(arguments: rgbLayouts)
    func translucentFillOverOpaqueFillInEachLayout(layout: RGBLayout) throws {
        let c = try #require(makeContext(1, 1, info: layout.info))
        c.setFillColor(red: 1, green: 0.4, blue: 0.2, alpha: 1)          // 255, 102, 51
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(c) == layout.encode(255, 102, 51, 255))
        c.setFillColor(red: 0, green: 0, blue: 1, alpha: 0.5)           // premultiplied 0, 0, 128, 128
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(c) == layout.encode(over(0, 128, 255), over(0, 128, 102), over(128, 128, 51), over(128, 128, 255)))
    }

    @Test(arguments: rgbLayouts)
    func straightAlphaImageIsPremultipliedInEachLayout(layout: RGBLayout) throws {
        // Non-premultiplied RGBA, drawn 1:1 onto a cleared (zero) bitmap.
        let image = try #require(makeImage([200, 100, 50, 128], width: 1, height: 1,
                                           info: CGImageAlphaInfo.last.rawValue))
        let c = try #require(makeContext(1, 1, info: layout.info))
        c.draw(image, in: CGRect(x: 0, y: 0, width: 1, height: 1))
        let expected = layout.encode(UInt8(mul255(200, 128)), UInt8(mul255(100, 128)), UInt8(mul255(50, 128)), 128)
        #expect(layout.meaningful(bytes(c)) == layout.meaningful(expected))
    }

    @Test(arguments: rgbLayouts)
    func drawingIntoCallerMemoryKeepsRowPadding(layout: RGBLayout) throws {
        // 3×2 pixels with 4 bytes of padding per row, pre-filled with 7s.
        var memory = [UInt8](repeating: 7, count: 16 * 2)
        let image = try #require(makeImage([10, 20, 30, 255,  40, 50, 60, 255,  70, 80, 90, 255,
                                            15, 25, 35, 255,  45, 55, 65, 255,  75, 85, 95, 255], width: 3, height: 2))
        let snapshot: [UInt8]? = memory.withUnsafeMutableBytes { buffer in
            let c = CGContext(data: buffer.baseAddress, width: 3, height: 2, bitsPerComponent: 8, bytesPerRow: 16,
                              space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: layout.info)
            c?.draw(image, in: CGRect(x: 0, y: 0, width: 3, height: 2))
            return c?.makeImage().map(pixels)
        }
        var expected = [UInt8]()
        for row in 0..<2 {
            for x in 0..<3 {
                let v = [10, 40, 70, 15, 45, 75][row * 3 + x]
                expected += layout.encode(UInt8(v), UInt8(v + 10), UInt8(v + 20), 255)
            }
            expected += [7, 7, 7, 7]
        }
        #expect(layout.meaningful(memory) == layout.meaningful(expected))
        // Padding bytes are never written: check them without the skip mask.
        #expect(Array(memory[12..<16]) == [7, 7, 7, 7] && Array(memory[28..<32]) == [7, 7, 7, 7])
        #expect(snapshot == memory)
    }

    @Test func alphaOnlyContextKeepsCoverageOfScaledImages() throws {
        let image = try #require(makeImage([9, 9, 9, 40,  0, 0, 0, 0,  200, 0, 0, 200,  255, 255, 255, 255],
                                           width: 2, height: 2))
        let c = try #require(CGContext(data: nil, width: 4, height: 2, bitsPerComponent: 8, bytesPerRow: 0, space: nil,
                                       bitmapInfo: CGBitmapInfo(alpha: .alphaOnly)))
        c.interpolationQuality = .none
        c.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 2))
        #expect(bytes(c) == [40, 40, 0, 0,  200, 200, 255, 255])
    }

    @Test func bilinearScalingIsExactAtQuarterPositions() throws {
        let image = try #require(makeImage([0, 128], width: 2, height: 1, bitsPerPixel: 8, space: grey, info: 0))
        let g = try #require(makeContext(4, 1, info: 0, space: grey))
        g.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 1))
        #expect(bytes(g) == [0, 32, 96, 128])
        for quality in [CGInterpolationQuality.default, .low, .medium, .high] {
            let c = try #require(makeContext(4, 1))
            c.interpolationQuality = quality
            c.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 1))
            #expect(bytes(c) == [0, 0, 0, 255,  32, 32, 32, 255,  96, 96, 96, 255,  128, 128, 128, 255])
        }
    }

    @Test func tilingRepeatsFromTheRectOrigin() throws {
        let image = try #require(makeImage([10, 20], width: 2, height: 1, bitsPerPixel: 8, space: grey, info: 0))
        let t = try #require(makeContext(5, 2, info: 0, space: grey))
        t.draw(image, in: CGRect(x: 1, y: 0, width: 2, height: 1), byTiling: true)
        #expect(bytes(t) == [20, 10, 20, 10, 20,  20, 10, 20, 10, 20])
        // At twice the size, each image pixel covers two device pixels.
        let s = try #require(makeContext(8, 1, info: 0, space: grey))
        s.interpolationQuality = .none
        s.draw(image, in: CGRect(x: 0, y: 0, width: 4, height: 1), byTiling: true)
        #expect(bytes(s) == [10, 10, 20, 20, 10, 10, 20, 20])
    }

    @Test func quarterTurnAndMirrorFollowTheCTM() throws {
        let image = try #require(makeImage([10, 20], width: 2, height: 1, bitsPerPixel: 8, space: grey, info: 0))
        // Image pixel (u, v) lands at user (u, 1 − v); rotated a quarter turn and moved right by
        // one it lands at device (v, u): the left pixel at the bottom, the right one above it.
        let r = try #require(makeContext(1, 2, info: 0, space: grey))
        r.interpolationQuality = .none
        r.translateBy(x: 1, y: 0)
        r.rotate(by: .pi / 2)
        r.draw(image, in: CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(bytes(r) == [20, 10])
        let m = try #require(makeContext(2, 1, info: 0, space: grey))
        m.translateBy(x: 2, y: 0)
        m.scaleBy(x: -1, y: 1)
        m.draw(image, in: CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(bytes(m) == [20, 10])
        // The same in an RGB context.
        let rgbImage = try #require(makeImage(quad, width: 2, height: 2))
        let f = try #require(makeContext(2, 2))
        f.translateBy(x: 0, y: 2)
        f.scaleBy(x: 1, y: -1)
        f.draw(rgbImage, in: CGRect(x: 0, y: 0, width: 2, height: 2))
        #expect(bytes(f) == Array(quad[8..<16] + quad[0..<8]))
    }

    @Test func globalAlphaScalesImagesAndFills() throws {
        let image = try #require(makeImage([200], width: 1, height: 1, bitsPerPixel: 8, space: grey, info: 0))
        let c = try #require(makeContext(1, 1))
        c.setAlpha(0.5)
        c.draw(image, in: CGRect(x: 0, y: 0, width: 1, height: 1))
        let v = UInt8(mul255(200, 128))
        #expect(bytes(c) == [v, v, v, 128])
        let g = try #require(makeContext(1, 1, info: 0, space: grey))
        g.setFillColor(gray: 1, alpha: 1)
        g.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        g.setAlpha(0.5)
        g.setFillColor(gray: 0, alpha: 1)
        g.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(g) == [over(0, 128, 255)])
    }

    @Test func antialiasingDecidesPartialPixels() throws {
        let on = try #require(makeContext(3, 1, info: 0, space: grey))
        on.setFillColor(gray: 1, alpha: 1)
        on.fill(CGRect(x: 0.3, y: 0, width: 1.4, height: 1))
        #expect(bytes(on) == [179, 179, 0])      // 0.7 of each pixel: round(0.7 × 255)
        let off = try #require(makeContext(3, 1, info: 0, space: grey))
        off.setShouldAntialias(false)
        off.setFillColor(gray: 1, alpha: 1)
        off.fill(CGRect(x: 0.3, y: 0, width: 1.4, height: 1))
        #expect(bytes(off) == [255, 255, 0])     // centres 0.5 and 1.5 are inside, 2.5 is not
    }

    @Test func clearingHalfAPixelHalvesIt() throws {
        let c = try #require(makeContext(1, 1))
        c.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
        c.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        c.clear(CGRect(x: 0, y: 0, width: 0.5, height: 1))
        let v = UInt8(mul255(255, 255 - 128))
        #expect(bytes(c) == [v, v, v, v])
    }

    @Test func layoutsPixmanCannotReadAreConvertedFirst() throws {
        // 16 bits per component, big-endian premultiplied RGBA: 0x8080 / 65535 rounds to 128.
        let deep = try #require(makeImage([0xFF, 0xFF, 0x80, 0x80, 0x00, 0x00, 0xFF, 0xFF], width: 1, height: 1,
                                          bitsPerComponent: 16, bitsPerPixel: 64))
        let c = try #require(makeContext(1, 1))
        c.draw(deep, in: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(c) == [255, 128, 0, 255])
        // RGB into grey: Rec. 601 luma, round(0.299 × 255) = 76 for red.
        let rgb = try #require(makeImage([255, 0, 0, 255,  255, 255, 255, 255], width: 2, height: 1))
        let g = try #require(makeContext(2, 1, info: 0, space: grey))
        g.draw(rgb, in: CGRect(x: 0, y: 0, width: 2, height: 1))
        #expect(bytes(g) == [76, 255])
        // Grey with straight alpha (16 bits per pixel) over white: luma 200 at alpha 128.
        let ya = try #require(makeImage([200, 128], width: 1, height: 1, bitsPerPixel: 16, space: grey,
                                        info: CGImageAlphaInfo.last.rawValue))
        let w = try #require(makeContext(1, 1, info: 0, space: grey))
        w.setFillColor(gray: 1, alpha: 1)
        w.fill(CGRect(x: 0, y: 0, width: 1, height: 1))
        w.draw(ya, in: CGRect(x: 0, y: 0, width: 1, height: 1))
        #expect(bytes(w) == [over(mul255(200, 128), 128, 255)])
    }

    @Test func rotatedFillCoversItsArea() throws {
        // A 2×2 square turned 45° about the centre of a 4×4 context: area 4, corners untouched.
        let c = try #require(CGContext(data: nil, width: 4, height: 4, bitsPerComponent: 8, bytesPerRow: 0, space: nil,
                                       bitmapInfo: CGBitmapInfo(alpha: .alphaOnly)))
        c.translateBy(x: 2, y: 2)
        c.rotate(by: .pi / 4)
        c.fill(CGRect(x: -1, y: -1, width: 2, height: 2))
        let coverage = bytes(c).map { Double($0) / 255 }
        #expect(abs(coverage.reduce(0, +) - 4) < 0.15)
        #expect(coverage[0] == 0 && coverage[3] == 0 && coverage[12] == 0 && coverage[15] == 0)
        // Each centre pixel loses a corner triangle with legs 2 − √2: 1 − (2 − √2)² / 2.
        let centre = 1 - (2 - 2.0.squareRoot()) * (2 - 2.0.squareRoot()) / 2
        for i in [5, 6, 9, 10] { #expect(abs(coverage[i] - centre) < 0.05) }
    }

    @Test func rotatedImageCoversThePixelsWhoseCentresItContains() throws {
        // The same turned square as an opaque 2×2 image, sampled nearest: only the four centre
        // pixels have their centres inside (|x − 2| + |y − 2| = 1 ≤ √2; the next ones are at 2).
        let image = try #require(makeImage([UInt8](repeating: 255, count: 16), width: 2, height: 2))
        let c = try #require(CGContext(data: nil, width: 4, height: 4, bitsPerComponent: 8, bytesPerRow: 0, space: nil,
                                       bitmapInfo: CGBitmapInfo(alpha: .alphaOnly)))
        c.interpolationQuality = .none
        c.translateBy(x: 2, y: 2)
        c.rotate(by: .pi / 4)
        c.draw(image, in: CGRect(x: -1, y: -1, width: 2, height: 2))
        #expect(bytes(c) == [0, 0, 0, 0,  0, 255, 255, 0,  0, 255, 255, 0,  0, 0, 0, 0])
    }
}
