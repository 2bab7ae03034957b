import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Synchronization
import Testing
@testable import MediaEngine
import TestSupport

/// Pictures for the compositor tests: solid and two-part frames in any format, and pixels read
/// back as 8-bit R, G, B (Y'CbCr converted by the engine's converter).
private enum Picture {
    static let bgra = OSType(fourCC: "BGRA")
    static let nv12 = OSType(fourCC: "420v")
    static let nv12Full = OSType(fourCC: "420f")

    /// A `BGRA` buffer whose top `split` rows are `top` and the rest `bottom` (opaque colours).
    static func bgraBuffer(width: Int, height: Int, top: (Int, Int, Int), bottom: (Int, Int, Int)? = nil,
                           split: Int? = nil) -> CVPixelBuffer {
        let buffer = try! PixelConverter.allocatePixelBuffer(pixelFormat: bgra, width: width, height: height)
        let plane = buffer.storage!.planes[0]
        func pixel(_ c: (Int, Int, Int)) -> UInt32 { 0xFF00_0000 | UInt32(c.0) << 16 | UInt32(c.1) << 8 | UInt32(c.2) }
        for y in 0..<height {
            let row = (plane.baseAddress + y * plane.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            row.update(repeating: pixel(y < (split ?? height) ? top : (bottom ?? top)), count: width)
        }
        return buffer
    }

    /// The same picture in `format` (converted by the engine).
    static func make(_ format: OSType, width: Int, height: Int, top: (Int, Int, Int), bottom: (Int, Int, Int)? = nil,
                     split: Int? = nil) -> CVPixelBuffer {
        let rgb = bgraBuffer(width: width, height: height, top: top, bottom: bottom, split: split)
        return format == bgra ? rgb : try! PixelConverter.shared.makePixelBuffer(from: rgb, pixelFormat: format)
    }

    /// R, G, B of the pixel at (x, y).
    static func rgb(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> (Int, Int, Int) {
        let rgb = buffer.storage!.pixelFormat == bgra ? buffer
            : try! PixelConverter.shared.makePixelBuffer(from: buffer, pixelFormat: bgra)
        let plane = rgb.storage!.planes[0]
        let p = (plane.baseAddress + y * plane.bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
        return (Int(p[2]), Int(p[1]), Int(p[0]))
    }

    static func close(_ a: (Int, Int, Int), _ b: (Int, Int, Int), _ tolerance: Int) -> Bool {
        abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
    }
}

private let red = (255, 0, 0), green = (0, 255, 0), blue = (0, 0, 255), black = (0, 0, 0), white = (255, 255, 255)
private let opaqueBlack: FrameCompositor.Color = (0, 0, 0, 1)

/// Expects the pixels of `frame` at `points` to be `colour` within `tolerance` (8 allows one
/// Y'CbCr round trip).
private func expectColour(_ frame: CVPixelBuffer, _ colour: (Int, Int, Int), at points: [(Int, Int)], tolerance: Int = 8,
                          _ note: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    for (x, y) in points {
        let got = Picture.rgb(frame, x, y)
        #expect(Picture.close(got, colour, tolerance), "\(note) (\(x), \(y)): \(got), expected \(colour)",
                sourceLocation: sourceLocation)
    }
}

@Suite("FrameCompositor")
struct FrameCompositorTests {
    /// Every input/output format pair the dissolve is checked in (inputs as decoders give them).
    static let formatPairs: [(input: OSType, output: OSType)] = [
        (Picture.bgra, Picture.bgra), (Picture.nv12, Picture.bgra), (Picture.nv12, Picture.nv12),
        (Picture.bgra, Picture.nv12), (Picture.nv12Full, Picture.nv12), (OSType(fourCC: "y420"), Picture.nv12Full),
    ]

    @Test("a dissolve: green at opacity 0.5 over red gives (128, 128, 0)", arguments: 0..<formatPairs.count)
    func dissolve(pair: Int) throws {
        let (input, output) = Self.formatPairs[pair]
        let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: output)
        let back = Picture.make(input, width: 1280, height: 720, top: red)
        let front = Picture.make(input, width: 1280, height: 720, top: green)
        let frame = try compositor.render(layers: [CompositorLayer(image: front, opacity: 0.5), CompositorLayer(image: back)],
                                          backgroundColor: opaqueBlack)
        #expect(frame.storage?.pixelFormat == output)
        #expect(frame.storage?.width == 1280 && frame.storage?.height == 720)
        // 8-bit RGB in and out: ±3; through Y'CbCr (a 420v output converted back): ±8.
        let tolerance = input == Picture.bgra && output == Picture.bgra ? 3 : 8
        for (x, y) in [(0, 0), (640, 360), (1279, 719), (17, 533)] {
            let got = Picture.rgb(frame, x, y)
            #expect(Picture.close(got, (128, 128, 0), tolerance), "\(input.fourCCString)→\(output.fourCCString) (\(x),\(y)): \(got)")
        }
    }

    @Test("the dissolve's ends: opacity 0 shows the back layer, opacity 1 the front", arguments: [Picture.nv12, Picture.bgra])
    func dissolveEnds(input: OSType) throws {
        let compositor = try FrameCompositor(renderWidth: 320, renderHeight: 180, pixelFormat: Picture.bgra)
        let back = Picture.make(input, width: 320, height: 180, top: red)
        let front = Picture.make(input, width: 320, height: 180, top: green)
        for (opacity, expected) in [(Float(0), red), (1, green), (0.25, (191, 64, 0))] {
            let frame = try compositor.render(layers: [CompositorLayer(image: front, opacity: opacity),
                                                       CompositorLayer(image: back)], backgroundColor: opaqueBlack)
            let got = Picture.rgb(frame, 100, 100)
            #expect(Picture.close(got, expected, input == Picture.bgra ? 3 : 8), "opacity \(opacity): \(got)")
        }
    }

    @Test("a push: the outgoing frame moved left, the incoming one right; each half shows one", arguments: [
        (Picture.nv12, 640.0), (Picture.bgra, 640.0), (Picture.nv12, 640.5), (Picture.nv12, 641.0),
    ])
    func push(input: OSType, offset: Double) throws {
        let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: Picture.nv12)
        let outgoing = Picture.make(input, width: 1280, height: 720, top: red)
        let incoming = Picture.make(input, width: 1280, height: 720, top: green)
        let frame = try compositor.render(layers: [
            CompositorLayer(image: incoming, transform: CGAffineTransform(translationX: offset, y: 0)),
            CompositorLayer(image: outgoing, transform: CGAffineTransform(translationX: offset - 1280, y: 0)),
        ], backgroundColor: (0, 0, 1, 1))
        // Y'CbCr output: libswscale's chroma filters blur the colour edge over a few pixels.
        let edge = Int(offset.rounded(.up))
        expectColour(frame, red, at: [0, 100, edge - 6].map { ($0, 360) })
        expectColour(frame, green, at: [edge + 6, 1000, 1279].map { ($0, 360) })
    }

    /// A grey picture whose column x has grey `value(x)` (in `format`, converted by the engine).
    private static func ramp(_ format: OSType, width: Int, height: Int, _ value: (Int) -> Int) -> CVPixelBuffer {
        let rgb = Picture.bgraBuffer(width: width, height: height, top: black)
        let plane = rgb.storage!.planes[0]
        for y in 0..<height {
            let row = (plane.baseAddress + y * plane.bytesPerRow).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width { let v = UInt32(value(x)); row[x] = 0xFF00_0000 | v << 16 | v << 8 | v }
        }
        return format == Picture.bgra ? rgb : try! PixelConverter.shared.makePixelBuffer(from: rgb, pixelFormat: format)
    }

    /// The greys of row `y` of a grey frame: G of a BGRA output, the luma of an NV12 one (read
    /// from the plane itself, so no chroma filter of a conversion back blurs the columns).
    private static func greys(_ frame: CVPixelBuffer, row y: Int) -> [Int] {
        let s = frame.storage!, p = s.planes[0].baseAddress + y * s.planes[0].bytesPerRow
        return (0..<s.width).map { x in
            if s.pixelFormat == Picture.bgra { return Int(p.load(fromByteOffset: 4 * x + 1, as: UInt8.self)) }
            return Int(((Double(p.load(fromByteOffset: x, as: UInt8.self)) - 16) * 255 / 219).rounded())
        }
    }

    /// The outgoing and incoming layers' transforms in a push over `width` at fraction `f`, as
    /// the built-in compositor makes them: the ramps' linear interpolation (identity → −width,
    /// +width → identity), then the render scale.
    private static func push(width: Double, at f: Double, scale: Double) -> (CGAffineTransform, CGAffineTransform) {
        let s = CGAffineTransform(scaleX: scale, y: scale)
        return (CGAffineTransform(translationX: 0 + (-width - 0) * f, y: 0).concatenating(s),
                CGAffineTransform(translationX: width + (0 - width) * f, y: 0).concatenating(s))
    }

    /// Pushes between two grey ramps (A: 40…139, B: 150…249, neighbours differ) at every frame
    /// of a 1 s transition, over black: at whole-pixel offsets each column is exactly the pixel
    /// of A or B that lands there, the seam included (x = 639 from A, 640 from B at the
    /// midpoint); at fractional ones (30 fps frames, 4.51 s, render scale 0.5) each column left
    /// of the seam shows A and right of it B, with at most one column in between blending the
    /// two — never the background.
    @Test("a push leaves no seam: whole offsets copy each column, fractional ones blend at most one, none shows the background",
          arguments: [(Picture.bgra, Picture.bgra), (Picture.nv12, Picture.bgra), (OSType(fourCC: "y420"), Picture.bgra),
                      (Picture.nv12, Picture.nv12), (Picture.bgra, Picture.nv12)])
    func pushSeam(input: OSType, output: OSType) throws {
        let a: (Int) -> Int = { 40 + ($0 * 3) % 100 }, b: (Int) -> Int = { 150 + ($0 * 7) % 100 }
        let outgoing = Self.ramp(input, width: 1280, height: 720, a), incoming = Self.ramp(input, width: 1280, height: 720, b)
        var cases: [(f: Double, scale: Double)] = (1..<30).map { (Double($0) / 30, 1) } + [(0.51, 1)]
        cases += (1..<30).map { (Double($0) / 30, 0.5) }
        for (f, scale) in cases {
            let width = Int(1280 * scale)
            let compositor = try FrameCompositor(renderWidth: width, renderHeight: Int(720 * scale), pixelFormat: output)
            let (from, to) = Self.push(width: 1280, at: f, scale: scale)
            let frame = try compositor.render(layers: [CompositorLayer(image: outgoing, transform: from),
                                                       CompositorLayer(image: incoming, transform: to)], backgroundColor: opaqueBlack)
            let row = Self.greys(frame, row: 100)
            let seam = to.tx   // where B starts, in render pixels
            var wrong: [String] = []
            var between: [Int] = []
            for x in 0..<width {
                let got = row[x], centre = Double(x) + 0.5
                if scale == 1, from.tx == from.tx.rounded() {
                    let expected = centre < seam ? a(x - Int(from.tx)) : b(x - Int(to.tx))
                    if abs(got - expected) > 3 { wrong.append("\(x): \(got) ≠ \(expected)") }
                    continue
                }
                let isA = (37...142).contains(got), isB = (147...252).contains(got)
                if centre < seam ? isA : isB { continue }
                if abs(centre - seam) < 1, got >= 37 { between.append(x) } else { wrong.append("\(x): \(got)") }
            }
            let note = "\(input.fourCCString) → \(output.fourCCString), push at \(f) (render scale \(scale), seam at \(seam))"
            #expect(wrong.isEmpty, "\(note): \(wrong.prefix(6))")
            #expect(between.count <= 1, "\(note): blended columns \(between)")
        }
    }

    /// Abutting layers whose shared edge lands on a pixel centre, computed with rounding errors
    /// that put the two edges on either side of it (a 1000-wide push at 24 fps through a render
    /// scale of 0.75: frame 22's edges at 62.5 and 62.50000000000003): the pixel there is drawn
    /// by one of them, not left to the background.
    @Test("layers meeting at a pixel centre through rounding errors leave no background column", arguments: [Picture.bgra, Picture.nv12])
    func seamAtAPixelCentre(input: OSType) throws {
        let outgoing = Self.ramp(input, width: 1000, height: 200, { _ in 80 }), incoming = Self.ramp(input, width: 1000, height: 200, { _ in 200 })
        let compositor = try FrameCompositor(renderWidth: 750, renderHeight: 150, pixelFormat: Picture.bgra)
        var gaps: [String] = []
        for k in 1..<24 {
            let (from, to) = Self.push(width: 1000, at: Double(k) / 24, scale: 0.75)
            let frame = try compositor.render(layers: [CompositorLayer(image: outgoing, transform: from),
                                                       CompositorLayer(image: incoming, transform: to)], backgroundColor: opaqueBlack)
            let row = Self.greys(frame, row: 75)
            for x in row.indices where row[x] < 70 { gaps.append("frame \(k) x \(x): \(row[x])") }
        }
        #expect(gaps.isEmpty, "\(gaps)")
    }

    @Test("a front layer moved by −640 shows over the left half; the back layer on the right")
    func translatedFront() throws {
        let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: Picture.bgra)
        let back = Picture.make(Picture.nv12, width: 1280, height: 720, top: red)
        let front = Picture.make(Picture.nv12, width: 1280, height: 720, top: green)
        let frame = try compositor.render(layers: [
            CompositorLayer(image: front, transform: CGAffineTransform(translationX: -640, y: 0)), CompositorLayer(image: back),
        ], backgroundColor: opaqueBlack)
        expectColour(frame, green, at: [0, 300, 637].map { ($0, 100) })
        expectColour(frame, red, at: [642, 900, 1279].map { ($0, 100) })
    }

    @Test("a crop (0, 360, 1280, 360) of the front: rows above 360 show the back, rows below the front",
          arguments: [Picture.nv12, Picture.bgra])
    func crop(input: OSType) throws {
        let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: Picture.nv12)
        let back = Picture.make(input, width: 1280, height: 720, top: red)
        let front = Picture.make(input, width: 1280, height: 720, top: green)
        let frame = try compositor.render(layers: [
            CompositorLayer(image: front, cropRectangle: CGRect(x: 0, y: 360, width: 1280, height: 360)),
            CompositorLayer(image: back),
        ], backgroundColor: opaqueBlack)
        expectColour(frame, red, at: [0, 200, 357].map { (640, $0) })
        expectColour(frame, green, at: [362, 500, 719].map { (640, $0) })
        // A wipe at an odd column: left of it the front, right of it the back.
        let wipe = try compositor.render(layers: [
            CompositorLayer(image: front, cropRectangle: CGRect(x: 0, y: 0, width: 427, height: 720)), CompositorLayer(image: back),
        ], backgroundColor: opaqueBlack)
        expectColour(wipe, green, at: [(424, 10)])
        expectColour(wipe, red, at: [(430, 10)])
    }

    @Test("a quarter turn and a scale by 2 through the transform; the background where nothing is drawn",
          arguments: [Picture.nv12, Picture.bgra])
    func rotateAndScale(input: OSType) throws {
        // 320×180: top half white, bottom half black. Turned a quarter clockwise (source x → down,
        // source y → left) then scaled by 2: 360 wide × 640 high, white on the right.
        let source = Picture.make(input, width: 320, height: 180, top: white, bottom: black, split: 90)
        let turn = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 180, ty: 0).concatenating(CGAffineTransform(scaleX: 2, y: 2))
        for output in [Picture.bgra, Picture.nv12] {
            let compositor = try FrameCompositor(renderWidth: 640, renderHeight: 640, pixelFormat: output)
            let frame = try compositor.render(layers: [CompositorLayer(image: source, transform: turn)],
                                              backgroundColor: (0, 0, 1, 1))
            let rows = [0, 320, 639]
            expectColour(frame, black, at: rows.map { (90, $0) }, output.fourCCString)
            expectColour(frame, white, at: rows.map { (270, $0) }, output.fourCCString)
            expectColour(frame, blue, at: rows.map { (500, $0) }, output.fourCCString)
        }
    }

    @Test("a picture in picture: a 640×360 layer at (600, 300) over a full frame, background untouched elsewhere")
    func pictureInPicture() throws {
        let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: Picture.nv12)
        let small = Picture.make(Picture.nv12, width: 640, height: 360, top: green)
        let frame = try compositor.render(layers: [
            CompositorLayer(image: small, transform: CGAffineTransform(translationX: 600, y: 300)),
        ], backgroundColor: (1, 1, 1, 1))
        expectColour(frame, white, at: [(100, 100), (1279, 719), (590, 500)])
        expectColour(frame, green, at: [(900, 500)])
        // No layers at all: the background.
        let empty = try compositor.render(layers: [], backgroundColor: (1, 0, 0, 1))
        expectColour(empty, red, at: [(0, 0), (1279, 719)])
    }

    @Test("sources tagged with another Y'CbCr matrix keep their colours; the output carries its own matrix")
    func otherMatrix() throws {
        let rgb = Picture.bgraBuffer(width: 1280, height: 720, top: (250, 40, 30))
        var options = PixelConverter.Options()
        options.destinationMatrix = .itu601
        let sd = try PixelConverter.allocatePixelBuffer(pixelFormat: Picture.nv12, width: 1280, height: 720)
        try PixelConverter.shared.transfer(from: rgb, to: sd, options: options)
        #expect(PixelFormatColor.attachedMatrix(of: sd) == .itu601)
        let hd = Picture.make(Picture.nv12, width: 1280, height: 720, top: (20, 40, 230))
        for output in [Picture.nv12, Picture.bgra] {
            let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: output)
            let frame = try compositor.render(layers: [
                CompositorLayer(image: sd, cropRectangle: CGRect(x: 0, y: 0, width: 640, height: 720)), CompositorLayer(image: hd),
            ], backgroundColor: opaqueBlack)
            expectColour(frame, (250, 40, 30), at: [(100, 100)])
            expectColour(frame, (20, 40, 230), at: [(1000, 100)])
            if output == Picture.nv12 { #expect(PixelFormatColor.attachedMatrix(of: frame) == .itu709) }
        }
    }

    @Test("a 45° turn: the layer's centre inside, the frame's corners the background", arguments: [Picture.nv12, Picture.bgra])
    func rotation45(output: OSType) throws {
        let compositor = try FrameCompositor(renderWidth: 400, renderHeight: 400, pixelFormat: output)
        let square = Picture.make(Picture.nv12, width: 200, height: 200, top: green)
        // About the square's centre, then to the frame's centre.
        let turn = CGAffineTransform(translationX: -100, y: -100).concatenating(CGAffineTransform(rotationAngle: .pi / 4))
            .concatenating(CGAffineTransform(translationX: 200, y: 200))
        let frame = try compositor.render(layers: [CompositorLayer(image: square, transform: turn)], backgroundColor: (1, 0, 0, 1))
        expectColour(frame, green, at: [(200, 200), (200, 70)], "the top vertex reaches y = 200 − 141")
        expectColour(frame, red, at: [(10, 10), (390, 10), (10, 390), (390, 390), (120, 120)])
    }

    @Test("odd sizes: a 321×241 frame with a layer at an even offset and one at an odd offset")
    func oddSizes() throws {
        let compositor = try FrameCompositor(renderWidth: 321, renderHeight: 241, pixelFormat: Picture.nv12)
        let layer = Picture.make(Picture.nv12, width: 101, height: 61, top: green)
        for shift in [CGFloat(100), 101] {
            let frame = try compositor.render(layers: [
                CompositorLayer(image: layer, transform: CGAffineTransform(translationX: shift, y: shift)),
            ], backgroundColor: (0, 0, 1, 1))
            expectColour(frame, green, at: [(150, 130)], "shift \(shift)")
            expectColour(frame, blue, at: [(320, 240), (50, 130)], "shift \(shift)")
        }
    }

    @Test("a translucent background stays translucent in a BGRA output (premultiplied)")
    func translucentBackground() throws {
        let compositor = try FrameCompositor(renderWidth: 64, renderHeight: 64, pixelFormat: Picture.bgra)
        let layer = Picture.make(Picture.nv12, width: 32, height: 32, top: green)
        let frame = try compositor.render(layers: [CompositorLayer(image: layer)], backgroundColor: (1, 0, 0, 0.5))
        let plane = try #require(frame.storage?.planes[0])
        func bgra(_ x: Int, _ y: Int) -> [UInt8] {
            (0..<4).map { (plane.baseAddress + y * plane.bytesPerRow + x * 4).load(fromByteOffset: $0, as: UInt8.self) }
        }
        #expect(bgra(50, 50) == [0, 0, 128, 128])
        #expect(bgra(10, 10)[3] == 255 && bgra(10, 10)[1] > 240)
    }

    @Test("layers of other sizes scaled onto whole pixels: a 1080p frame filling 720p, a half-size one faded on top",
          arguments: [Picture.nv12, Picture.bgra])
    func scaledLayers(output: OSType) throws {
        let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: output)
        let big = Picture.make(Picture.nv12, width: 1920, height: 1080, top: red)
        let small = Picture.make(Picture.nv12, width: 640, height: 360, top: white, bottom: black, split: 180)
        // The placements libswscale scales on the planes: whole pixels, even top-left corners.
        let canvas = PixelRect(x: 0, y: 0, width: 1280, height: 720)
        let fill = try #require(try PlacedLayer(CompositorLayer(image: big, transform: CGAffineTransform(scaleX: 2.0 / 3,
                                                                                                         y: 2.0 / 3)),
                                                canvas: canvas))
        #expect(fill.scaledDestination == canvas && fill.coversCanvas && fill.suitsPlanes(.itu709))
        let odd = try #require(try PlacedLayer(CompositorLayer(image: small, transform: CGAffineTransform(a: 0.5, b: 0, c: 0,
                                                                                                        d: 0.5, tx: 101, ty: 100)),
                                               canvas: canvas))
        #expect(odd.scaledDestination == nil && !odd.suitsPlanes(.itu709))
        for (origin, opacity) in [(CGFloat(100), Float(1)), (100, 0.5), (101, 1)] {   // 101: the RGB path
            let frame = try compositor.render(layers: [
                CompositorLayer(image: small, transform: CGAffineTransform(scaleX: 0.5, y: 0.5)
                    .concatenating(CGAffineTransform(translationX: origin, y: origin)), opacity: opacity),
                CompositorLayer(image: big, transform: CGAffineTransform(scaleX: 2.0 / 3, y: 2.0 / 3)),
            ], backgroundColor: (0, 0, 1, 1))
            let top = opacity == 1 ? white : (255, 128, 128), bottom = opacity == 1 ? black : (128, 0, 0)
            let note = "origin \(origin) opacity \(opacity)"
            expectColour(frame, top, at: [(110, 110), (400, 180)], note)
            expectColour(frame, bottom, at: [(110, 200), (400, 270)], note)
            expectColour(frame, red, at: [(0, 0), (95, 150), (425, 150), (200, 285), (1279, 719)], note)
        }
    }

    @Test("the planes path and the RGB path agree")
    func pathsAgree() throws {
        let compositor = try FrameCompositor(renderWidth: 640, renderHeight: 360, pixelFormat: Picture.bgra)
        let back = Picture.make(Picture.nv12, width: 640, height: 360, top: (200, 30, 90), bottom: (10, 220, 40), split: 100)
        let front = Picture.make(Picture.nv12, width: 640, height: 360, top: (30, 60, 250), bottom: (250, 250, 0), split: 250)
        // An even offset takes the planes path; an odd one the RGB path (as BGRA inputs do).
        for offset in [(2.0, 2), (3.0, 3)] {
            let frame = try compositor.render(layers: [
                CompositorLayer(image: front, transform: CGAffineTransform(translationX: offset.0, y: 0), opacity: 0.3),
                CompositorLayer(image: back),
            ], backgroundColor: opaqueBlack)
            for y in [50, 200, 300] {
                let b = Picture.rgb(back, 320, y), f = Picture.rgb(front, 320 - offset.1, y)
                let expected = ((b.0 * 7 + f.0 * 3) / 10, (b.1 * 7 + f.1 * 3) / 10, (b.2 * 7 + f.2 * 3) / 10)
                #expect(Picture.close(Picture.rgb(frame, 320, y), expected, 4), "offset \(offset.1) y \(y)")
            }
        }
    }

    @Test("an opaque untransformed layer of the render size passes through: the same buffer")
    func passthrough() throws {
        let frame = Picture.make(Picture.nv12, width: 1280, height: 720, top: red)
        let other = Picture.make(Picture.nv12, width: 1280, height: 720, top: green)
        let accepted = [Picture.nv12]
        func pass(_ layers: [CompositorLayer]) -> CVPixelBuffer? {
            FrameCompositor.passthroughImage(layers: layers, renderWidth: 1280, renderHeight: 720, acceptedPixelFormats: accepted)
        }
        #expect(pass([CompositorLayer(image: frame)]) === frame)
        #expect(pass([CompositorLayer(image: frame), CompositorLayer(image: other, opacity: 0.5)]) === frame)
        #expect(pass([CompositorLayer(image: other, opacity: 0), CompositorLayer(image: frame)]) === frame)
        #expect(pass([CompositorLayer(image: frame, cropRectangle: CGRect(x: -10, y: -10, width: 2000, height: 2000))]) === frame)
        #expect(pass([CompositorLayer(image: frame, opacity: 0.9)]) == nil)
        #expect(pass([CompositorLayer(image: frame, transform: CGAffineTransform(translationX: 2, y: 0))]) == nil)
        #expect(pass([CompositorLayer(image: frame, cropRectangle: CGRect(x: 0, y: 0, width: 1280, height: 700))]) == nil)
        #expect(pass([CompositorLayer(image: frame, transform: CGAffineTransform(scaleX: -1, y: 1).translatedBy(x: -1280, y: 0))]) == nil)
        #expect(FrameCompositor.passthroughImage(layers: [CompositorLayer(image: frame)], renderWidth: 1280, renderHeight: 720,
                                                 acceptedPixelFormats: [Picture.bgra]) == nil)
        let bgra = Picture.make(Picture.bgra, width: 1280, height: 720, top: red)
        #expect(FrameCompositor.passthroughImage(layers: [CompositorLayer(image: bgra)], renderWidth: 1280, renderHeight: 720,
                                                 acceptedPixelFormats: [Picture.bgra]) == nil, "BGRA may carry alpha")
        let small = Picture.make(Picture.nv12, width: 640, height: 360, top: red)
        #expect(pass([CompositorLayer(image: small, transform: CGAffineTransform(scaleX: 2, y: 2))]) == nil)
        let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: Picture.nv12)
        #expect(compositor.passthroughImage(layers: [CompositorLayer(image: frame)]) === frame)
        // Rendering never hands out the source: a new pooled buffer with the same picture.
        let rendered = try compositor.render(layers: [CompositorLayer(image: frame)], backgroundColor: opaqueBlack)
        #expect(rendered !== frame && Picture.close(Picture.rgb(rendered, 5, 5), red, 8))
    }

    @Test("a real H.264 decode (NV12, 320×240) scaled over a BGRA layer of another size")
    func decodedInput() throws {
        let dir = try TestTools.temporaryDirectory("compositor")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("red.mp4")
        try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "color=c=red:s=320x240:r=30:d=1",
                                     "-c:v", "libx264", "-pix_fmt", "yuv420p", url.path])
        let demuxer = try Demuxer(url: url)
        let video = try #require(demuxer.streams.first { $0.kind == .video })
        let seeker = try FrameSeeker(url: url, streamIndex: video.index)
        let decoded = try seeker.frame(for: .init(time: .zero)).frame.makePixelBuffer()
        let format = try #require(decoded.storage?.pixelFormat)
        #expect([OSType(fourCC: "420v"), OSType(fourCC: "420f"), OSType(fourCC: "y420")].contains(format))
        let back = Picture.make(Picture.bgra, width: 800, height: 600, top: green)
        for output in [Picture.nv12, Picture.bgra] {
            let compositor = try FrameCompositor(renderWidth: 1280, renderHeight: 720, pixelFormat: output)
            let frame = try compositor.render(layers: [
                CompositorLayer(image: decoded, transform: CGAffineTransform(scaleX: 2, y: 2).translatedBy(x: 10, y: 10)),
                CompositorLayer(image: back, transform: CGAffineTransform(scaleX: 1.6, y: 1.2)),
            ], backgroundColor: opaqueBlack)
            // The decoded frame covers (20…660, 20…500); the back layer the whole frame.
            expectColour(frame, red, at: [(300, 300)], tolerance: 10)
            expectColour(frame, green, at: [(10, 10), (1000, 600)])
        }
    }

    @Test("one compositor renders from several threads at once, each frame right")
    func concurrentRenders() throws {
        let compositor = try FrameCompositor(renderWidth: 640, renderHeight: 360, pixelFormat: Picture.nv12)
        let back = Picture.make(Picture.nv12, width: 640, height: 360, top: red)
        let front = Picture.make(Picture.nv12, width: 640, height: 360, top: green)
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 24) { i in
            let opacity = Float(i % 4) / 3
            let frame = try? compositor.render(layers: [CompositorLayer(image: front, transform: i % 2 == 0 ? .identity
                                                                            : CGAffineTransform(translationX: 0.5, y: 0),
                                                                        opacity: opacity),
                                                        CompositorLayer(image: back)], backgroundColor: opaqueBlack)
            let expected = (Int((255 * (1 - opacity)).rounded()), Int((255 * opacity).rounded()), 0)
            if frame.map({ !Picture.close(Picture.rgb($0, 320, 180), expected, 8) }) ?? true {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }

    @Test("bad input: empty sizes and unknown output formats are refused; degenerate layers draw nothing")
    func badInput() throws {
        #expect(throws: PixelConversionError.invalidBuffer) {
            try FrameCompositor(renderWidth: 0, renderHeight: 720, pixelFormat: Picture.nv12)
        }
        #expect(throws: PixelConversionError.unsupportedPixelFormat(OSType(fourCC: "what"))) {
            try FrameCompositor(renderWidth: 64, renderHeight: 64, pixelFormat: OSType(fourCC: "what"))
        }
        let compositor = try FrameCompositor(renderWidth: 64, renderHeight: 64, pixelFormat: Picture.bgra)
        let layer = Picture.make(Picture.nv12, width: 64, height: 64, top: red)
        let frame = try compositor.render(layers: [
            CompositorLayer(image: layer, transform: CGAffineTransform(scaleX: 0, y: 1)),
            CompositorLayer(image: layer, cropRectangle: CGRect(x: 100, y: 100, width: 10, height: 10)),
            CompositorLayer(image: layer, transform: CGAffineTransform(translationX: .nan, y: 0)),
            CompositorLayer(image: layer, opacity: .nan),
            CompositorLayer(image: layer, transform: CGAffineTransform(translationX: 1e300, y: 0)),
        ], backgroundColor: (0, 1, 0, 1))
        expectColour(frame, green, at: [(30, 30)], tolerance: 3)
        // Into a caller's buffer: it must have the render size and format.
        let mine = try PixelConverter.allocatePixelBuffer(pixelFormat: Picture.bgra, width: 64, height: 64)
        try compositor.render(layers: [CompositorLayer(image: layer)], backgroundColor: opaqueBlack, into: mine)
        expectColour(mine, red, at: [(30, 30)])
        let wrong = try PixelConverter.allocatePixelBuffer(pixelFormat: Picture.bgra, width: 64, height: 32)
        #expect(throws: PixelConversionError.invalidBuffer) {
            try compositor.render(layers: [CompositorLayer(image: layer)], backgroundColor: opaqueBlack, into: wrong)
        }
    }
}
