// What the LayerRenderer tests share: BGRA canvases read back pixel by pixel (y up, as the
// layers are laid out), layer identities, colours and small test images.
import CoreGraphics
import Foundation
@testable import QuartzCore

/// A stable identity for a test layer (RenderLayer ids are ObjectIdentifiers of model layers).
final class LayerMarker {}

/// One premultiplied BGRA pixel.
struct Pixel: Equatable, CustomStringConvertible {
    var r: Int, g: Int, b: Int, a: Int
    var description: String { "(r \(r) g \(g) b \(b) a \(a))" }
    static let clear = Pixel(r: 0, g: 0, b: 0, a: 0)

    /// Whether every channel is within `tolerance` of `other`'s.
    func isClose(to other: Pixel, tolerance: Int = 3) -> Bool {
        abs(r - other.r) <= tolerance && abs(g - other.g) <= tolerance && abs(b - other.b) <= tolerance
            && abs(a - other.a) <= tolerance
    }
}

/// A transparent 32-bit BGRA premultiplied bitmap context.
struct Canvas {
    let context: CGContext
    let width: Int, height: Int

    init(_ width: Int, _ height: Int) {
        self.width = width
        self.height = height
        context = CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                            space: CGColorSpace(name: nil, model: .rgb),
                            bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.premultipliedFirst.rawValue
                                                     | CGBitmapInfo.byteOrder32Little.rawValue))!
    }

    /// The pixel whose lower-left corner is at (x, y) in the context's y-up device space.
    func pixel(_ x: Int, _ y: Int) -> Pixel {
        let row = height - 1 - y
        let p = context.data!.advanced(by: row * context.bytesPerRow + x * 4).assumingMemoryBound(to: UInt8.self)
        return Pixel(r: Int(p[2]), g: Int(p[1]), b: Int(p[0]), a: Int(p[3]))
    }

    /// The bytes, for comparing two renderings.
    var bytes: Data { Data(bytes: context.data!, count: context.bytesPerRow * height) }

    /// Writes the raw BGRA bytes to $LAYER_RENDERER_DUMP/name.raw when that variable names a
    /// directory (look at them with ffmpeg -f rawvideo -pix_fmt bgra -s WxH).
    func dump(_ name: String) {
        guard let directory = ProcessInfo.processInfo.environment["LAYER_RENDERER_DUMP"] else { return }
        try? bytes.write(to: URL(fileURLWithPath: directory).appendingPathComponent("\(name)-\(width)x\(height).raw"))
    }
}

let red = CGColor(red: 1, green: 0, blue: 0, alpha: 1)
let green = CGColor(red: 0, green: 1, blue: 0, alpha: 1)
let blue = CGColor(red: 0, green: 0, blue: 1, alpha: 1)
let white = CGColor(red: 1, green: 1, blue: 1, alpha: 1)

let redPixel = Pixel(r: 255, g: 0, b: 0, a: 255)
let greenPixel = Pixel(r: 0, g: 255, b: 0, a: 255)
let bluePixel = Pixel(r: 0, g: 0, b: 255, a: 255)
let whitePixel = Pixel(r: 255, g: 255, b: 255, a: 255)

/// A layer with a background colour whose frame (anchor at the centre) is `frame`.
func solidLayer(_ marker: LayerMarker, _ frame: CGRect, _ color: CGColor?) -> RenderLayer {
    var layer = RenderLayer(id: ObjectIdentifier(marker), bounds: CGRect(origin: .zero, size: frame.size),
                            position: CGPoint(x: frame.midX, y: frame.midY))
    layer.backgroundColor = color
    return layer
}

/// An image whose pixels are split in two: `first` over the top half (its first rows) or the
/// left half, `second` over the rest.
func splitImage(width: Int, height: Int, vertical: Bool, _ first: CGColor, _ second: CGColor) -> CGImage {
    let canvas = Canvas(width, height)
    canvas.context.setFillColor(second)
    canvas.context.fill(CGRect(x: 0, y: 0, width: width, height: height))
    canvas.context.setFillColor(first)
    if vertical {
        canvas.context.fill(CGRect(x: 0, y: height / 2, width: width, height: height - height / 2))   // top rows (y up)
    } else {
        canvas.context.fill(CGRect(x: 0, y: 0, width: width / 2, height: height))
    }
    return canvas.context.makeImage()!
}
