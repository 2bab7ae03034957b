// ImageDecoder (pixman and VOLK) against the per-pixel Swift decoder it replaced, kept here as
// the reference: images pixman cannot read directly — 16-bit and float components in both byte
// orders, straight and premultiplied alpha first or last, indexed colour, 1/2/4-bit pixels, decode
// arrays, RGB drawn into grey — drawn 1:1 into an empty RGB and an empty grey context must give the
// bytes the reference computes, exactly. Sizes cross the decoder's 2048 × 32 tiles.
import Foundation
import Testing
import CoreGraphics

enum ReferenceModel { case rgb, gray, alphaOnly }

/// Where one pixel's components sit in memory and how they are stored.
struct ReferenceLayout {
    enum Storage {
        case uint8
        case uint16(bigEndian: Bool)
        case float32(bigEndian: Bool)
        /// 1, 2 or 4 bits per pixel, most significant bits first (greyscale or indexed, no alpha).
        case packedBits(Int)
    }
    let storage: Storage
    let bitsPerPixel: Int
    /// Byte offsets of the colour components within a pixel.
    let colorOffsets: [Int]
    /// Byte offset of alpha, nil when the pixel has no alpha (none or skip).
    let alphaOffset: Int?
    let premultiplied: Bool

    /// The layout of a pixel with `colorComponents` colour components; nil for layouts this
    /// implementation cannot read.
    init?(bitsPerComponent bpc: Int, bitsPerPixel bpp: Int, colorComponents: Int, bitmapInfo: CGBitmapInfo) {
        guard let alpha = CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue),
              bitmapInfo.rawValue & CGImagePixelFormatInfo.mask.rawValue == 0
        else { return nil }
        let order = bitmapInfo.rawValue & CGBitmapInfo.byteOrderMask.rawValue
        let isFloat = bitmapInfo.contains(.floatComponents)
        bitsPerPixel = bpp
        premultiplied = alpha == .premultipliedFirst || alpha == .premultipliedLast
        if bpc < 8 {
            guard [1, 2, 4].contains(bpc), bpp == bpc, colorComponents == 1, alpha == .none, !isFloat else { return nil }
            storage = .packedBits(bpc)
            colorOffsets = [0]
            alphaOffset = nil
            return
        }
        let colors = alpha == .alphaOnly ? 0 : colorComponents
        let hasSlot = alpha != .none
        let slots = colors + (hasSlot ? 1 : 0)
        guard slots > 0, bpp == slots * bpc else { return nil }
        let alphaFirst = alpha == .first || alpha == .premultipliedFirst || alpha == .noneSkipFirst
        let alphaSlot = hasSlot ? (alphaFirst ? 0 : colors) : -1
        let colorSlots = (0..<slots).filter { $0 != alphaSlot }
        let slotOffset: (Int) -> Int
        switch (bpc, isFloat) {
        case (8, false):
            storage = .uint8
            if order == CGBitmapInfo.byteOrder32Little.rawValue && bpp == 32
                || order == CGBitmapInfo.byteOrder16Little.rawValue && bpp == 16 {
                let last = bpp / 8 - 1
                slotOffset = { last - $0 }
            } else if order == CGBitmapInfo.byteOrder32Little.rawValue || order == CGBitmapInfo.byteOrder16Little.rawValue {
                guard bpp == 8 else { return nil }
                slotOffset = { $0 }
            } else {
                slotOffset = { $0 }
            }
        case (16, false):
            guard order != CGBitmapInfo.byteOrder32Little.rawValue else { return nil }
            storage = .uint16(bigEndian: order != CGBitmapInfo.byteOrder16Little.rawValue)
            slotOffset = { $0 * 2 }
        case (32, true):
            guard order != CGBitmapInfo.byteOrder16Little.rawValue else { return nil }
            storage = .float32(bigEndian: order != CGBitmapInfo.byteOrder32Little.rawValue)
            slotOffset = { $0 * 4 }
        default:
            return nil
        }
        colorOffsets = colorSlots.map(slotOffset)
        let isRealAlpha = alpha != .none && alpha != .noneSkipFirst && alpha != .noneSkipLast
        alphaOffset = isRealAlpha ? slotOffset(alphaSlot) : nil
    }

    /// The component at `offset` bytes into the pixel at `pixel`, as 0...1 (floats unclamped).
    @inline(__always)
    func component(_ pixel: UnsafeRawPointer, _ offset: Int) -> Float {
        switch storage {
        case .uint8:
            return Float(pixel.load(fromByteOffset: offset, as: UInt8.self)) / 255
        case .uint16(let bigEndian):
            let raw = pixel.loadUnaligned(fromByteOffset: offset, as: UInt16.self)
            return Float(bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw)) / 65535
        case .float32(let bigEndian):
            let raw = pixel.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Float(bitPattern: bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
        case .packedBits:
            return 0
        }
    }
}

/// An image decoded for drawing: premultiplied components in the destination's model, four
/// floats per pixel (colour components, unused slots zero, then alpha), top row first.
struct ReferenceDecode {
    let width: Int
    let height: Int
    var pixels: [Float]

    /// Decodes `image` into `model`; nil for layouts or colour spaces that cannot be read
    /// (CMYK, Lab, XYZ, 5-bit and packed formats, half floats).
    init?(_ image: CGImage, model: ReferenceModel) {
        let space = image.colorSpace
        let alphaInfo = image.alphaInfo
        var table: [UInt8]? = nil
        var baseModel = space?.model
        let colorComponents: Int
        if alphaInfo == .alphaOnly {
            colorComponents = 0
        } else if let space, space.model == .indexed, let base = space.baseColorSpace {
            table = space.colorTable
            baseModel = base.model
            colorComponents = 1
        } else if let space {
            colorComponents = space.numberOfComponents
        } else {
            return nil
        }
        if alphaInfo != .alphaOnly {
            guard baseModel == .rgb || baseModel == .monochrome else { return nil }
        }
        guard let layout = ReferenceLayout(bitsPerComponent: image.bitsPerComponent, bitsPerPixel: image.bitsPerPixel,
                                       colorComponents: colorComponents, bitmapInfo: image.bitmapInfo)
        else { return nil }
        let baseComponents = baseModel == .rgb ? 3 : 1
        var decode: [Float]? = nil
        if let pointer = image.decode, colorComponents > 0, table == nil {
            decode = (0..<(colorComponents * 2)).map { Float(pointer[$0]) }
        }
        let width = image.width, height = image.height
        self.width = width
        self.height = height
        var out = [Float](repeating: 0, count: width * height * 4)
        let bytesPerRow = image.bytesPerRow
        let bytesPerPixel = layout.bitsPerPixel / 8
        (image.dataProvider!.data! as Data).withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            guard let base = src.baseAddress else { return }
            var color: (Float, Float, Float) = (0, 0, 0)
            for y in 0..<height {
                let row = base.advanced(by: y * bytesPerRow)
                for x in 0..<width {
                    var alpha: Float = 1
                    var c = SIMD4<Float>(repeating: 0)
                    var count = 0
                    if case .packedBits(let bits) = layout.storage {
                        let bit = x * bits
                        let byte = row.load(fromByteOffset: bit / 8, as: UInt8.self)
                        let shift = 8 - bits - bit % 8
                        let value = Int(byte >> UInt8(shift)) & ((1 << bits) - 1)
                        c[0] = table == nil ? Float(value) / Float((1 << bits) - 1) : Float(value)
                        count = 1
                    } else {
                        let pixel = row.advanced(by: x * bytesPerPixel)
                        for (i, offset) in layout.colorOffsets.enumerated() {
                            if case .uint8 = layout.storage, table != nil {
                                c[i] = Float(pixel.load(fromByteOffset: offset, as: UInt8.self))
                            } else {
                                c[i] = layout.component(pixel, offset)
                            }
                        }
                        count = layout.colorOffsets.count
                        if let alphaOffset = layout.alphaOffset {
                            alpha = min(max(layout.component(pixel, alphaOffset), 0), 1)
                        }
                    }
                    if let decode {
                        for i in 0..<count { c[i] = decode[2 * i] + c[i] * (decode[2 * i + 1] - decode[2 * i]) }
                    }
                    if let table {
                        let index = Int(c[0])
                        let entry = index * baseComponents
                        if entry + baseComponents <= table.count {
                            for i in 0..<baseComponents { c[i] = Float(table[entry + i]) / 255 }
                        } else {
                            c = SIMD4<Float>(repeating: 0)
                        }
                        count = baseComponents
                    }
                    for i in 0..<count { c[i] = min(max(c[i], 0), 1) }
                    if !layout.premultiplied {
                        for i in 0..<count { c[i] *= alpha }
                    } else {
                        for i in 0..<count { c[i] = min(c[i], alpha) }
                    }
                    switch (model, count) {
                    case (.rgb, 3): color = (c[0], c[1], c[2])
                    case (.rgb, 1): color = (c[0], c[0], c[0])
                    case (.gray, 3):
                        let (r, g, b): (CGFloat, CGFloat, CGFloat) = (CGFloat(c[0]), CGFloat(c[1]), CGFloat(c[2]))
                        let luma: CGFloat = 0.299 * r + 0.587 * g + 0.114 * b
                        color = (Float(luma), 0, 0)
                    case (.gray, 1): color = (c[0], 0, 0)
                    default: color = (0, 0, 0)
                    }
                    let o = (y * width + x) * 4
                    out[o] = color.0
                    out[o + 1] = color.1
                    out[o + 2] = color.2
                    out[o + 3] = alpha
                }
            }
        }
        pixels = out
    }
}


@Suite struct ImageDecoderTests {
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var bitsPerComponent: Int, bitsPerPixel: Int
        var info: UInt32
        var space: @Sendable () -> CGColorSpace
        var decode: [CGFloat]? = nil
        /// The destinations whose drawing goes through the decoder (8-bit RGB into RGB is pixman's own).
        var models: [ReferenceModel] = [.rgb, .gray]
        var description: String { name }
    }

    static let rgb: @Sendable () -> CGColorSpace = { CGColorSpaceCreateDeviceRGB() }
    static let gray: @Sendable () -> CGColorSpace = { CGColorSpaceCreateDeviceGray() }
    static let indexedRGB: @Sendable () -> CGColorSpace = {
        CGColorSpace(indexedBaseSpace: CGColorSpaceCreateDeviceRGB(), last: 199, colorTable: PixelMoveTests.noise(200 * 3, seed: 77))!
    }
    static let indexedGray: @Sendable () -> CGColorSpace = {
        CGColorSpace(indexedBaseSpace: CGColorSpaceCreateDeviceGray(), last: 9, colorTable: PixelMoveTests.noise(10, seed: 78))!
    }
    static let alphaLast = CGImageAlphaInfo.last.rawValue, alphaFirst = CGImageAlphaInfo.first.rawValue
    static let pmLast = CGImageAlphaInfo.premultipliedLast.rawValue, pmFirst = CGImageAlphaInfo.premultipliedFirst.rawValue
    static let none = CGImageAlphaInfo.none.rawValue, skipLast = CGImageAlphaInfo.noneSkipLast.rawValue
    static let floats = CGBitmapInfo.floatComponents.rawValue
    static let big16 = CGBitmapInfo.byteOrder16Big.rawValue, little16 = CGBitmapInfo.byteOrder16Little.rawValue
    static let big32 = CGBitmapInfo.byteOrder32Big.rawValue, little32 = CGBitmapInfo.byteOrder32Little.rawValue

    static let cases: [Case] = [
        Case(name: "16-bit RGBA straight, big-endian", bitsPerComponent: 16, bitsPerPixel: 64, info: alphaLast | big16, space: rgb),
        Case(name: "16-bit ARGB premultiplied, little-endian", bitsPerComponent: 16, bitsPerPixel: 64, info: pmFirst | little16, space: rgb),
        Case(name: "16-bit RGB, default order", bitsPerComponent: 16, bitsPerPixel: 48, info: none, space: rgb),
        Case(name: "16-bit grey + alpha, little-endian", bitsPerComponent: 16, bitsPerPixel: 32, info: alphaLast | little16, space: gray),
        Case(name: "16-bit RGBX, decode array", bitsPerComponent: 16, bitsPerPixel: 64, info: skipLast | big16, space: rgb,
             decode: [1, 0, 0.25, 0.75, 0, 1]),
        Case(name: "float RGBA premultiplied, little-endian", bitsPerComponent: 32, bitsPerPixel: 128, info: pmLast | floats | little32, space: rgb),
        Case(name: "float ARGB straight, big-endian", bitsPerComponent: 32, bitsPerPixel: 128, info: alphaFirst | floats | big32, space: rgb),
        Case(name: "float RGB", bitsPerComponent: 32, bitsPerPixel: 96, info: none | floats | little32, space: rgb),
        Case(name: "float grey", bitsPerComponent: 32, bitsPerPixel: 32, info: none | floats | little32, space: gray),
        Case(name: "8-bit indexed RGB", bitsPerComponent: 8, bitsPerPixel: 8, info: none, space: indexedRGB),
        Case(name: "8-bit indexed grey", bitsPerComponent: 8, bitsPerPixel: 8, info: none, space: indexedGray),
        Case(name: "8-bit indexed + alpha", bitsPerComponent: 8, bitsPerPixel: 16, info: alphaLast, space: indexedRGB),
        Case(name: "1-bit grey", bitsPerComponent: 1, bitsPerPixel: 1, info: none, space: gray),
        Case(name: "2-bit grey, decode array", bitsPerComponent: 2, bitsPerPixel: 2, info: none, space: gray, decode: [1, 0]),
        Case(name: "4-bit grey", bitsPerComponent: 4, bitsPerPixel: 4, info: none, space: gray),
        Case(name: "4-bit indexed", bitsPerComponent: 4, bitsPerPixel: 4, info: none, space: indexedGray),
        Case(name: "2-bit indexed", bitsPerComponent: 2, bitsPerPixel: 2, info: none, space: indexedRGB),
        Case(name: "8-bit grey, decode array", bitsPerComponent: 8, bitsPerPixel: 8, info: none, space: gray, decode: [0.2, 0.9]),
        Case(name: "8-bit RGBA straight (into grey)", bitsPerComponent: 8, bitsPerPixel: 32, info: alphaLast, space: rgb,
             models: [.gray]),
        Case(name: "8-bit grey + alpha", bitsPerComponent: 8, bitsPerPixel: 16, info: pmLast, space: gray),
    ]

    @Test("decoded images draw as the reference decodes them", arguments: cases)
    func matchesReference(_ c: Case) throws {
        for (width, height) in [(7, 3), (2051, 35)] {
            // Rows pixman cannot address (copied aligned first) for the small image, aligned ones for the large.
            let rowBytes = (width * c.bitsPerPixel + 7) / 8
            let bytesPerRow = width < 100 ? rowBytes + 3 : (rowBytes + 3) & ~3
            var bytes = PixelMoveTests.noise(bytesPerRow * height, seed: UInt32(width + c.bitsPerPixel))
            if c.info & Self.floats != 0 {
                // Floats in -0.25…1.25 (clamping matters), in the image's byte order.
                let big = c.info & CGBitmapInfo.byteOrderMask.rawValue == Self.big32
                for y in 0 ..< height {
                    for i in 0 ..< width * c.bitsPerPixel / 32 {
                        let o = y * bytesPerRow + i * 4
                        let v = Float(Int(bytes[o]) * 256 + Int(bytes[o + 1])) / 65535 * 1.5 - 0.25
                        let bits = big ? v.bitPattern.bigEndian : v.bitPattern.littleEndian
                        withUnsafeBytes(of: bits) { for k in 0 ..< 4 { bytes[o + k] = $0[k] } }
                    }
                }
            }
            let decode = c.decode
            let image = try #require(decode.withUnsafeBufferPointerIfAny { pointer in
                CGImage(width: width, height: height, bitsPerComponent: c.bitsPerComponent, bitsPerPixel: c.bitsPerPixel,
                        bytesPerRow: bytesPerRow, space: c.space(), bitmapInfo: CGBitmapInfo(rawValue: c.info),
                        provider: CGDataProvider(data: Data(bytes) as CFData)!, decode: pointer,
                        shouldInterpolate: false, intent: .defaultIntent)
            })
            for model in c.models {
                let reference = try #require(ReferenceDecode(image, model: model))
                let rgbContext = model == .rgb
                let context = try #require(CGContext(
                    data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: rgbContext ? width * 4 : width,
                    space: rgbContext ? CGColorSpaceCreateDeviceRGB() : CGColorSpaceCreateDeviceGray(),
                    bitmapInfo: rgbContext ? (Self.pmFirst | Self.little32) : Self.none))
                context.interpolationQuality = .none
                context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
                let data = try #require(context.data)
                let drawn = [UInt8](UnsafeRawBufferPointer(start: data, count: context.bytesPerRow * height))
                func byte(_ v: Float) -> UInt8 { UInt8(min(max(v, 0), 1) * 255 + 0.5) }
                var expected: [UInt8] = []
                for i in 0 ..< width * height {
                    let p = reference.pixels[(i * 4) ..< (i * 4 + 4)].map { $0 }
                    if rgbContext {
                        expected += [byte(p[2]), byte(p[1]), byte(p[0]), byte(p[3])]
                    } else {
                        // Grey: (1 − α)·0 + luma.
                        expected.append(byte(p[0]))
                    }
                }
                #expect(drawn.count == expected.count && Set(expected).count > 1, "\(c.name): a degenerate reference")
                let wrong = zip(drawn, expected).filter { $0 != $1 }.count
                #expect(wrong == 0, "\(c.name) \(width)×\(height) into \(model): \(wrong) bytes differ")
            }
        }
    }
}

extension Optional where Wrapped == [CGFloat] {
    /// Calls `body` with a pointer to the array's elements, or nil.
    func withUnsafeBufferPointerIfAny<R>(_ body: (UnsafePointer<CGFloat>?) -> R) -> R {
        guard let array = self else { return body(nil) }
        return array.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
