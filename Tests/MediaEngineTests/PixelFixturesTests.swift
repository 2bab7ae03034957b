// Shared fixtures for the pixel tests: every supported format, writers that paint RGB colour
// blocks in any format (computing Y'CbCr with BT.601 as the tests expect), and readers that
// return a pixel's samples in the format's own terms.
import CoreVideo
@testable import MediaEngine

/// The supported Core Video pixel formats, named for test output.
enum TestFormat: String, CaseIterable, Sendable, CustomStringConvertible {
    case bgra = "BGRA", argb = "32ARGB", rgba = "RGBA", abgr = "ABGR", rgb24 = "24RGB", bgr24 = "24BG"
    case gray = "L008", argb64 = "b64a", uyvy = "2vuy", yuyv = "yuvs"
    case nv12v = "420v", nv12f = "420f", nv16v = "422v", nv16f = "422f", p010v = "x420", p010f = "xf20"
    case i420v = "y420", i420f = "f420"

    var description: String { rawValue }

    var osType: OSType {
        switch self {
        case .argb: return 32
        case .rgb24: return 24
        default: return OSType(fourCCString: rawValue)!
        }
    }

    var layout: CVPixelFormatLayout { CVPixelFormatLayout.layout(for: osType)! }
    var isYCbCr: Bool { layout.isYCbCr }
    var fullRange: Bool { layout.isFullRange }
    /// The sample scale relative to 8 bits.
    var scale: Double {
        switch self {
        case .argb64: return 257
        case .p010v, .p010f: return 4
        default: return 1
        }
    }
}

/// An RGB colour.
struct RGB: Equatable, Sendable {
    var r: Double, g: Double, b: Double
}

enum PixelFixtures {
    /// BT.601 Y'CbCr (8-bit scale) of an RGB colour.
    static func ycbcr(_ c: RGB, fullRange: Bool) -> (y: Double, cb: Double, cr: Double) {
        let y = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b
        let pb = (c.b - y) / 1.772, pr = (c.r - y) / 1.402
        if fullRange { return (y, 128 + pb, 128 + pr) }
        return (16 + y * 219 / 255, 128 + pb * 224 / 255, 128 + pr * 224 / 255)
    }

    static func allocate(_ format: TestFormat, width: Int, height: Int) -> CVPixelBuffer {
        CVBuffer(storage: CVPixelStorage.allocate(width: width, height: height, layout: format.layout)!)
    }

    /// Paints `colour(x, y)` (constant over 2×2 blocks for subsampled formats) in `format`.
    static func make(_ format: TestFormat, width: Int, height: Int, colour: (Int, Int) -> RGB) -> CVPixelBuffer {
        let buffer = allocate(format, width: width, height: height)
        let s = buffer.storage!
        func put8(_ plane: Int, _ x: Int, _ y: Int, _ v: Double) {
            (s.planes[plane].baseAddress + y * s.planes[plane].bytesPerRow + x)
                .storeBytes(of: UInt8(max(0, min(255, v.rounded()))), as: UInt8.self)
        }
        func put16(_ plane: Int, _ index: Int, _ y: Int, _ v: UInt16) {
            (s.planes[plane].baseAddress + y * s.planes[plane].bytesPerRow + index * 2).storeBytes(of: v, as: UInt16.self)
        }
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y)
                let (Y, cb, cr) = ycbcr(c, fullRange: format.fullRange)
                switch format {
                case .bgra: for (i, v) in [c.b, c.g, c.r, 255].enumerated() { put8(0, x * 4 + i, y, v) }
                case .argb: for (i, v) in [255, c.r, c.g, c.b].enumerated() { put8(0, x * 4 + i, y, v) }
                case .rgba: for (i, v) in [c.r, c.g, c.b, 255].enumerated() { put8(0, x * 4 + i, y, v) }
                case .abgr: for (i, v) in [255, c.b, c.g, c.r].enumerated() { put8(0, x * 4 + i, y, v) }
                case .rgb24: for (i, v) in [c.r, c.g, c.b].enumerated() { put8(0, x * 3 + i, y, v) }
                case .bgr24: for (i, v) in [c.b, c.g, c.r].enumerated() { put8(0, x * 3 + i, y, v) }
                case .gray: put8(0, x, y, c.r)
                case .argb64:
                    for (i, v) in [255, c.r, c.g, c.b].enumerated() { put16(0, x * 4 + i, y, (UInt16(v.rounded()) * 257).bigEndian) }
                case .uyvy:
                    put8(0, x * 2 + 1, y, Y)
                    if x % 2 == 0 { put8(0, x * 2, y, cb); put8(0, x * 2 + 2, y, cr) }
                case .yuyv:
                    put8(0, x * 2, y, Y)
                    if x % 2 == 0 { put8(0, x * 2 + 1, y, cb); put8(0, x * 2 + 3, y, cr) }
                case .nv12v, .nv12f, .nv16v, .nv16f:
                    put8(0, x, y, Y)
                    let cy = format == .nv12v || format == .nv12f ? y / 2 : y
                    if x % 2 == 0 && (y % 2 == 0 || cy == y) { put8(1, x, cy, cb); put8(1, x + 1, cy, cr) }
                case .p010v, .p010f:
                    put16(0, x, y, UInt16((Y * 4).rounded()) << 6)
                    if x % 2 == 0 && y % 2 == 0 {
                        put16(1, x, y / 2, UInt16((cb * 4).rounded()) << 6)
                        put16(1, x + 1, y / 2, UInt16((cr * 4).rounded()) << 6)
                    }
                case .i420v, .i420f:
                    put8(0, x, y, Y)
                    if x % 2 == 0 && y % 2 == 0 { put8(1, x / 2, y / 2, cb); put8(2, x / 2, y / 2, cr) }
                }
            }
        }
        return buffer
    }

    /// The samples of pixel (x, y) in the format's terms, scaled to 8 bits: R, G, B(, A) for RGB,
    /// the grey value, or Y, Cb, Cr.
    static func samples(_ buffer: CVPixelBuffer, _ format: TestFormat, x: Int, y: Int) -> [Double] {
        let s = buffer.storage!
        func get8(_ plane: Int, _ i: Int, _ row: Int) -> Double {
            Double((s.planes[plane].baseAddress + row * s.planes[plane].bytesPerRow + i).load(as: UInt8.self))
        }
        func get16(_ plane: Int, _ i: Int, _ row: Int) -> UInt16 {
            (s.planes[plane].baseAddress + row * s.planes[plane].bytesPerRow + i * 2).loadUnaligned(as: UInt16.self)
        }
        switch format {
        case .bgra: return [get8(0, x * 4 + 2, y), get8(0, x * 4 + 1, y), get8(0, x * 4, y), get8(0, x * 4 + 3, y)]
        case .argb: return [get8(0, x * 4 + 1, y), get8(0, x * 4 + 2, y), get8(0, x * 4 + 3, y), get8(0, x * 4, y)]
        case .rgba: return [get8(0, x * 4, y), get8(0, x * 4 + 1, y), get8(0, x * 4 + 2, y), get8(0, x * 4 + 3, y)]
        case .abgr: return [get8(0, x * 4 + 3, y), get8(0, x * 4 + 2, y), get8(0, x * 4 + 1, y), get8(0, x * 4, y)]
        case .rgb24: return [get8(0, x * 3, y), get8(0, x * 3 + 1, y), get8(0, x * 3 + 2, y)]
        case .bgr24: return [get8(0, x * 3 + 2, y), get8(0, x * 3 + 1, y), get8(0, x * 3, y)]
        case .gray: return [get8(0, x, y)]
        case .argb64:
            // The test content is 8-bit (v·257), so 16-bit samples are read back rounded to 8 bits.
            let v = (0..<4).map { (Double(UInt16(bigEndian: get16(0, x * 4 + $0, y))) / 257).rounded() }
            return [v[1], v[2], v[3], v[0]]
        case .uyvy:
            let pair = x / 2 * 4
            return [get8(0, x * 2 + 1, y), get8(0, pair, y), get8(0, pair + 2, y)]
        case .yuyv:
            let pair = x / 2 * 4
            return [get8(0, x * 2, y), get8(0, pair + 1, y), get8(0, pair + 3, y)]
        case .nv12v, .nv12f:
            return [get8(0, x, y), get8(1, x / 2 * 2, y / 2), get8(1, x / 2 * 2 + 1, y / 2)]
        case .nv16v, .nv16f:
            return [get8(0, x, y), get8(1, x / 2 * 2, y), get8(1, x / 2 * 2 + 1, y)]
        case .p010v, .p010f:
            return [Double(get16(0, x, y) >> 6) / 4, Double(get16(1, x / 2 * 2, y / 2) >> 6) / 4,
                    Double(get16(1, x / 2 * 2 + 1, y / 2) >> 6) / 4]
        case .i420v, .i420f:
            return [get8(0, x, y), get8(1, x / 2, y / 2), get8(2, x / 2, y / 2)]
        }
    }

    /// Moderate colours (no channel near 0 or 255, so video range never clips), for 32×32 blocks.
    static let palette: [RGB] = [
        RGB(r: 200, g: 60, b: 60), RGB(r: 60, g: 200, b: 60), RGB(r: 60, g: 60, b: 200), RGB(r: 200, g: 200, b: 60),
        RGB(r: 60, g: 200, b: 200), RGB(r: 200, g: 60, b: 200), RGB(r: 128, g: 128, b: 128), RGB(r: 180, g: 120, b: 90),
    ]

    /// Colour bars of 32×32 blocks (grey levels when `grey`).
    static func bars(grey: Bool) -> (Int, Int) -> RGB {
        { x, y in
            let index = (y / 32) * 4 + x / 32
            let c = palette[index % palette.count]
            if grey { let v = 40 + Double(index % 8) * 25; return RGB(r: v, g: v, b: v) }
            return c
        }
    }
}
