// The layouts libswscale 5.1 cannot read or write directly ('422v'/'422f' interleaved 4:2:2
// chroma, 'b64a' 16-bit big-endian ARGB) and 16 → 8-bit narrowing, checked sample by sample
// against values computed here from random pictures: lossless conversions must be bit-exact,
// narrowing must round as (v × 255 + 32767) ÷ 65535.
import CoreGraphics
import CoreVideo
import Foundation
import Testing
@testable import MediaEngine

/// A fixed-seed generator (SplitMix64), so a failure reproduces.
struct SeededBytes: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("PixelConverter repacking")
struct PixelRepackTests {
    /// Sizes with odd widths and heights, and one whose 16 → 8-bit narrowing takes several strips.
    static let sizes: [(Int, Int)] = [(33, 17), (2, 1), (64, 32), (1001, 150)]

    /// A buffer of `format` filled with random bytes (every plane, every row, padding too).
    static func random(_ format: TestFormat, width: Int, height: Int, seed: UInt64) -> CVPixelBuffer {
        let buffer = PixelFixtures.allocate(format, width: width, height: height)
        var generator = SeededBytes(state: seed)
        for plane in buffer.storage!.planes {
            let bytes = UnsafeMutableRawBufferPointer(start: plane.baseAddress, count: plane.bytesPerRow * plane.height)
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        }
        return buffer
    }

    /// A random `format` picture, and a conversion of it into the same format with its first
    /// `columns` columns cropped off (unscaled, so every kept sample must come through as it was).
    static func cropped(_ format: TestFormat, width: Int, height: Int, columns: Int, seed: UInt64)
        throws -> (source: CVPixelBuffer, destination: CVPixelBuffer) {
        let source = random(format, width: width, height: height, seed: seed)
        let destination = PixelFixtures.allocate(format, width: width - columns, height: height)
        var options = PixelConverter.Options()
        options.sourceRect = PixelConverter.Rect(x: columns, y: 0, width: width - columns, height: height)
        options.scaling = .point
        try PixelConverter.shared.transfer(from: source, to: destination, options: options)
        return (source, destination)
    }

    static func byte(_ buffer: CVPixelBuffer, plane: Int, _ offset: Int, row: Int) -> UInt8 {
        let p = buffer.storage!.planes[plane]
        return (p.baseAddress + row * p.bytesPerRow + offset).load(as: UInt8.self)
    }

    static func word(_ buffer: CVPixelBuffer, _ index: Int, row: Int) -> UInt16 {
        let p = buffer.storage!.planes[0]
        return UInt16(bigEndian: (p.baseAddress + row * p.bytesPerRow + index * 2).loadUnaligned(as: UInt16.self))
    }

    static func eight(_ v: UInt16) -> UInt8 { UInt8((UInt32(v) * 255 + 32767) / 65535) }

    /// How many (x, y) of a `width`×`height` grid `differs` holds for.
    static func mismatches(_ width: Int, _ height: Int, _ differs: (_ x: Int, _ y: Int) -> Bool) -> Int {
        (0..<height).reduce(0) { count, y in count + (0..<width).filter { differs($0, y) }.count }
    }

    /// Y, Cb, Cr of pixel (x, y) of a `422v`/`422f` buffer and of a `2vuy` one.
    static func nv16Samples(_ b: CVPixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        [byte(b, plane: 0, x, row: y), byte(b, plane: 1, x / 2 * 2, row: y), byte(b, plane: 1, x / 2 * 2 + 1, row: y)]
    }

    static func uyvySamples(_ b: CVPixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        [byte(b, plane: 0, x * 2 + 1, row: y), byte(b, plane: 0, x / 2 * 4, row: y), byte(b, plane: 0, x / 2 * 4 + 2, row: y)]
    }

    @Test("422v ↔ 2vuy is lossless: luma and the interleaved chroma land exactly", arguments: sizes)
    func videoRange422(_ size: (Int, Int)) throws {
        let (w, h) = size
        let nv16 = Self.random(.nv16v, width: w, height: h, seed: 1)
        let packed = try PixelConverter.shared.makePixelBuffer(from: nv16, pixelFormat: TestFormat.uyvy.osType)
        // libswscale 5.1's YUV422P → UYVY422 writes ⌊width ÷ 2⌋ pairs: an odd width's last column is left as it was.
        #expect(Self.mismatches(w & ~1, h) { Self.uyvySamples(packed, $0, $1) != Self.nv16Samples(nv16, $0, $1) } == 0,
                "422v → 2vuy \(w)×\(h)")
        let source = Self.random(.uyvy, width: w, height: h, seed: 2)
        let back = try PixelConverter.shared.makePixelBuffer(from: source, pixelFormat: TestFormat.nv16v.osType)
        #expect(Self.mismatches(w, h) { Self.nv16Samples(back, $0, $1) != Self.uyvySamples(source, $0, $1) } == 0,
                "2vuy → 422v \(w)×\(h)")
    }

    @Test("422f → 422f through a conversion (a crop) keeps every sample", arguments: sizes)
    func fullRange422(_ size: (Int, Int)) throws {
        let (w, h) = size
        guard w > 2 else { return }
        let (source, destination) = try Self.cropped(.nv16f, width: w, height: h, columns: 2, seed: 3)
        let luma = Self.mismatches(w - 2, h) {
            Self.byte(destination, plane: 0, $0, row: $1) != Self.byte(source, plane: 0, $0 + 2, row: $1)
        }
        // Every Cb, Cr pair, the last one of an odd width included.
        let chroma = Self.mismatches((w - 1) / 2 * 2, h) {
            Self.byte(destination, plane: 1, $0, row: $1) != Self.byte(source, plane: 1, $0 + 2, row: $1)
        }
        #expect(luma == 0 && chroma == 0, "422f \(w)×\(h)")
    }

    @Test("b64a → BGRA rounds each 16-bit sample to 8 bits exactly, alpha included", arguments: sizes)
    func argb64ToEightBits(_ size: (Int, Int)) throws {
        let (w, h) = size
        let source = Self.random(.argb64, width: w, height: h, seed: 4)
        let bgra = try PixelConverter.shared.makePixelBuffer(from: source, pixelFormat: TestFormat.bgra.osType)
        let wrong = Self.mismatches(w, h) { x, y in
            let expected = [3, 2, 1, 0].map { Self.eight(Self.word(source, x * 4 + $0, row: y)) }
            return (0..<4).map { Self.byte(bgra, plane: 0, x * 4 + $0, row: y) } != expected
        }
        #expect(wrong == 0, "b64a → BGRA \(w)×\(h)")
    }

    @Test("b64a → b64a through a conversion (a crop) keeps every 16-bit sample", arguments: sizes)
    func argb64RoundTrip(_ size: (Int, Int)) throws {
        let (w, h) = size
        guard w > 1 else { return }
        let (source, destination) = try Self.cropped(.argb64, width: w, height: h, columns: 1, seed: 5)
        let wrong = Self.mismatches((w - 1) * 4, h) { Self.word(destination, $0, row: $1) != Self.word(source, $0 + 4, row: $1) }
        #expect(wrong == 0, "b64a crop \(w)×\(h)")
    }

    /// A 16-bit RGBA or RGB CGImage of random samples in either byte order, and its samples.
    static func image16(width: Int, height: Int, alpha: Bool, bigEndian: Bool, seed: UInt64) throws -> (CGImage, [UInt16]) {
        let components = alpha ? 4 : 3
        var generator = SeededBytes(state: seed)
        let samples = (0..<(width * height * components)).map { _ in UInt16.random(in: 0...65535, using: &generator) }
        let bytesPerRow = width * components * 2 + 6
        var data = Data(count: bytesPerRow * height)
        data.withUnsafeMutableBytes { raw in
            for y in 0..<height {
                for i in 0..<(width * components) {
                    let v = samples[y * width * components + i]
                    raw.storeBytes(of: bigEndian ? v.bigEndian : v.littleEndian, toByteOffset: y * bytesPerRow + i * 2,
                                   as: UInt16.self)
                }
            }
        }
        let info = (alpha ? CGImageAlphaInfo.last : .none).rawValue
            | (bigEndian ? CGBitmapInfo.byteOrder16Big : .byteOrder16Little).rawValue
        let image = try #require(CGImage(width: width, height: height, bitsPerComponent: 16, bitsPerPixel: components * 16,
                                         bytesPerRow: bytesPerRow, space: CGColorSpaceCreateDeviceRGB(),
                                         bitmapInfo: CGBitmapInfo(rawValue: info),
                                         provider: CGDataProvider(data: data as CFData)!, decode: nil,
                                         shouldInterpolate: false, intent: .defaultIntent))
        return (image, samples)
    }

    @Test("16-bit CGImages (RGBA, RGB, either byte order) → BGRA round exactly", arguments: [(true, true), (true, false),
                                                                                           (false, true), (false, false)])
    func sixteenBitImages(_ variant: (Bool, Bool)) throws {
        let (alpha, bigEndian) = variant
        for (w, h) in Self.sizes {
            let (image, samples) = try Self.image16(width: w, height: h, alpha: alpha, bigEndian: bigEndian, seed: UInt64(w * h))
            let bgra = try PixelConverter.shared.makePixelBuffer(from: image, pixelFormat: TestFormat.bgra.osType)
            let components = alpha ? 4 : 3
            let wrong = Self.mismatches(w, h) { x, y in
                let s = (0..<components).map { samples[(y * w + x) * components + $0] }
                let expected = [Self.eight(s[2]), Self.eight(s[1]), Self.eight(s[0])] + (alpha ? [Self.eight(s[3])] : [255])
                return (0..<4).map { Self.byte(bgra, plane: 0, x * 4 + $0, row: y) } != expected
            }
            #expect(wrong == 0, "alpha \(alpha) big-endian \(bigEndian) \(w)×\(h)")
        }
    }

    @Test("a 16-bit RGBA CGImage → b64a keeps every sample in A, R, G, B big-endian order")
    func sixteenBitImageToARGB64() throws {
        for (w, h) in Self.sizes {
            let (image, samples) = try Self.image16(width: w, height: h, alpha: true, bigEndian: false, seed: 7)
            let buffer = try PixelConverter.shared.makePixelBuffer(from: image, pixelFormat: TestFormat.argb64.osType)
            let wrong = Self.mismatches(w, h) { x, y in
                (0..<4).map { Self.word(buffer, x * 4 + $0, row: y) } != [3, 0, 1, 2].map { samples[(y * w + x) * 4 + $0] }
            }
            #expect(wrong == 0, "\(w)×\(h)")
        }
    }
}
