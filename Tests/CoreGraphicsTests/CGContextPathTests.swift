import CoreGraphics
import Foundation
import Testing

let bgra = CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue

/// The (r, g, b, a) of the pixel at device (x, y) — y up from the bottom row — of an RGBA
/// (premultipliedLast, big) or BGRA (premultipliedFirst, little) context.
func pixel(_ c: CGContext, _ x: Int, _ y: Int) -> [Int] {
    let row = c.height - 1 - y
    let p = c.data!.advanced(by: row * c.bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
    let v = (0..<4).map { Int(p[$0]) }
    return c.bitmapInfo.rawValue == bgra ? [v[2], v[1], v[0], v[3]] : v
}

/// How many pixels have alpha at least `threshold`.
func inked(_ c: CGContext, threshold: Int = 128) -> Int {
    var n = 0
    for y in 0..<c.height { for x in 0..<c.width where pixel(c, x, y)[3] >= threshold { n += 1 } }
    return n
}

/// Writes the context to /tmp/cg/<name>.png for looking at (best effort, needs ffmpeg).
func dump(_ c: CGContext, _ name: String) {
    try? FileManager.default.createDirectory(atPath: "/tmp/cg", withIntermediateDirectories: true)
    let raw = "/tmp/cg/\(name).raw"
    _ = FileManager.default.createFile(atPath: raw, contents: Data(bytes: c.data!, count: c.bytesPerRow * c.height))
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["ffmpeg", "-y", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt",
                   c.bitmapInfo.rawValue == bgra ? "bgra" : "rgba", "-s", "\(c.width)x\(c.height)", "-i", raw,
                   "/tmp/cg/\(name).png"]
    try? p.run()
    p.waitUntilExit()
}

func context(_ w: Int, _ h: Int, bgraLayout: Bool = true) -> CGContext {
    CGContext(data: nil, width: w, height: h, bitsPerComponent: 8, bytesPerRow: 0, space: CGColorSpaceCreateDeviceRGB(),
              bitmapInfo: bgraLayout ? bgra : CGImageAlphaInfo.premultipliedLast.rawValue)!
}

@Suite struct CGContextPathTests {
    @Test(arguments: [true, false]) func filledTriangle(bgraLayout: Bool) {
        let c = context(20, 20, bgraLayout: bgraLayout)
        c.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        c.move(to: CGPoint(x: 2, y: 2))
        c.addLine(to: CGPoint(x: 18, y: 2))
        c.addLine(to: CGPoint(x: 2, y: 18))
        c.closePath()
        #expect(!c.isPathEmpty)
        c.fillPath()
        #expect(c.isPathEmpty)
        #expect(pixel(c, 4, 4) == [255, 0, 0, 255])
        #expect(pixel(c, 15, 15) == [0, 0, 0, 0])
        #expect(pixel(c, 1, 1) == [0, 0, 0, 0])
        // About half of the 16×16 box.
        #expect(abs(inked(c) - 128) <= 12)
    }

    @Test func evenOddAndWindingOnAStar() {
        // A five-pointed star drawn in one stroke: its centre pentagon winds twice.
        func star(_ c: CGContext) {
            let points = (0..<5).map { i -> CGPoint in
                let a = CGFloat.pi / 2 + CGFloat(i * 2) * 2 * .pi / 5
                return CGPoint(x: 20 + 18 * cos(a), y: 20 + 18 * sin(a))
            }
            c.addLines(between: points)
            c.closePath()
        }
        let winding = context(40, 40), evenOdd = context(40, 40)
        for c in [winding, evenOdd] { c.setFillColor(red: 0, green: 0, blue: 1, alpha: 1); star(c) }
        winding.fillPath(using: .winding)
        evenOdd.drawPath(using: .eoFill)
        #expect(pixel(winding, 20, 20) == [0, 0, 255, 255])
        #expect(pixel(evenOdd, 20, 20) == [0, 0, 0, 0])
        #expect(pixel(evenOdd, 20, 32) == [0, 0, 255, 255])   // the top point
        #expect(pixel(winding, 20, 32) == [0, 0, 255, 255])
    }

    @Test(arguments: [true, false]) func strokeWidthsAndCaps(bgraLayout: Bool) {
        let c = context(40, 30, bgraLayout: bgraLayout)
        c.setStrokeColor(red: 0, green: 1, blue: 0, alpha: 1)
        c.setLineWidth(4)
        c.move(to: CGPoint(x: 10, y: 10))
        c.addLine(to: CGPoint(x: 30, y: 10))
        c.strokePath()
        // Rows 8..<12 painted (4 pixels tall), x from 10 to 30 with butt caps.
        let column = (0..<30).filter { pixel(c, 20, $0)[3] > 0 }
        #expect(column == [8, 9, 10, 11])
        let row = (0..<40).filter { pixel(c, $0, 10)[3] > 0 }
        #expect(row.first == 10 && row.last == 29)
        // Square caps reach half the width beyond the ends.
        c.setLineCap(.square)
        c.strokeLineSegments(between: [CGPoint(x: 10, y: 20), CGPoint(x: 30, y: 20)])
        let capped = (0..<40).filter { pixel(c, $0, 20)[3] > 0 }
        #expect(capped.first == 8 && capped.last == 31)
        // stroke(_:width:) leaves the line width alone.
        c.stroke(CGRect(x: 1, y: 1, width: 3, height: 3), width: 1)
        #expect(pixel(c, 1, 2)[1] > 0)
    }

    @Test func dashesLeaveGaps() {
        let c = context(40, 10)
        c.setStrokeColor(gray: 1, alpha: 1)
        c.setLineWidth(2)
        c.setLineDash(phase: 0, lengths: [4, 4])
        c.strokeLineSegments(between: [CGPoint(x: 0, y: 5), CGPoint(x: 40, y: 5)])
        let painted = (0..<40).map { pixel(c, $0, 5)[3] > 128 }
        #expect(painted == (0..<40).map { ($0 / 4) % 2 == 0 })
        #expect(pixel(c, 1, 5) == [255, 255, 255, 255])
    }

    @Test func roundJoinsRoundTheCorner() {
        let miter = context(30, 30), round = context(30, 30)
        for c in [miter, round] {
            c.setStrokeColor(red: 1, green: 1, blue: 1, alpha: 1)
            c.setLineWidth(8)
            c.addLines(between: [CGPoint(x: 5, y: 10), CGPoint(x: 20, y: 10), CGPoint(x: 20, y: 25)])
        }
        miter.setLineJoin(.miter)
        round.setLineJoin(.round)
        miter.strokePath()
        round.strokePath()
        // The outer corner pixel (23, 6): inside the miter's square, outside the round join.
        #expect(pixel(miter, 23, 6)[3] == 255)
        #expect(pixel(round, 23, 6)[3] < 64)
        #expect(pixel(round, 21, 9)[3] == 255)
    }

    @Test func pathStateQueries() throws {
        let c = context(10, 10)
        c.translateBy(x: 5, y: 0)
        c.addRect(CGRect(x: 1, y: 1, width: 2, height: 3))
        #expect(c.boundingBoxOfPath == CGRect(x: 1, y: 1, width: 2, height: 3))
        #expect(c.currentPointOfPath == CGPoint(x: 1, y: 1))
        let path = try #require(c.path)
        #expect(path.boundingBox == CGRect(x: 1, y: 1, width: 2, height: 3))
        c.beginPath()
        #expect(c.path == nil && c.isPathEmpty && c.boundingBoxOfPath.isNull)
        c.setLineWidth(2)
        c.move(to: CGPoint(x: 0, y: 5))
        c.addLine(to: CGPoint(x: 4, y: 5))
        c.replacePathWithStrokedPath()
        #expect(c.boundingBoxOfPath == CGRect(x: 0, y: 4, width: 4, height: 2))
    }

    @Test func hundredThousandPointPathFills() {
        let c = context(100, 100)
        c.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
        let points = (0..<100_000).map { i -> CGPoint in
            let a = CGFloat(i) / 100_000 * 2 * .pi
            return CGPoint(x: 50 + 40 * cos(a), y: 50 + 40 * sin(a))
        }
        c.addLines(between: points)
        c.fillPath()
        #expect(pixel(c, 50, 50) == [255, 255, 255, 255])
        #expect(pixel(c, 5, 5) == [0, 0, 0, 0])
    }

    @Test func nanAndHugeCoordinatesAreIgnored() {
        let c = context(20, 20)
        c.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
        c.move(to: CGPoint(x: 0, y: 0))
        c.addLine(to: CGPoint(x: CGFloat.nan, y: 5))
        c.addLine(to: CGPoint(x: 20, y: 0))
        c.addLine(to: CGPoint(x: 20, y: 20))
        c.closePath()
        c.fillPath()
        #expect(pixel(c, 15, 5)[3] == 255)
        c.addRect(CGRect(x: -1e300, y: -1e300, width: 2e300, height: 2e300))
        c.fillPath()
        c.setLineWidth(.infinity)
        c.stroke(CGRect(x: 1, y: 1, width: 5, height: 5))
        c.addEllipse(in: CGRect(x: CGFloat.infinity, y: 0, width: 1, height: 1))
        c.strokePath()
        #expect(pixel(c, 2, 18)[3] == 255)
    }

    @Test func greyAndOtherLayoutsDrawThroughScratch() throws {
        let gray = try #require(CGContext(data: nil, width: 10, height: 10, bitsPerComponent: 8, bytesPerRow: 0,
                                          space: CGColorSpaceCreateDeviceGray(), bitmapInfo: CGImageAlphaInfo.none.rawValue))
        gray.setFillColor(gray: 0.5, alpha: 1)
        gray.fillEllipse(in: CGRect(x: 0, y: 0, width: 10, height: 10))
        let g = gray.data!.assumingMemoryBound(to: UInt8.self)
        #expect(g[5 * 10 + 5] == 128 || g[5 * 10 + 5] == 127)
        #expect(g[0] == 0)
        let rgba = context(10, 10, bgraLayout: false)
        rgba.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
        rgba.fillEllipse(in: CGRect(x: 0, y: 0, width: 10, height: 10))
        #expect(pixel(rgba, 5, 5) == [0, 0, 255, 255])
    }
}
