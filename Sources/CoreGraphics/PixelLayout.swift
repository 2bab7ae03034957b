// Reading the components of bitmap pixels, for drawing images into a bitmap context.

/// The colour model a drawing destination works in.
enum DestinationModel {
    case rgb, gray, alphaOnly
}

/// Where one pixel's components sit in memory and how they are stored.
struct PixelLayout {
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
struct DecodedImage {
    let width: Int
    let height: Int
    var pixels: [Float]

    /// Decodes `image` into `model`; nil for layouts or colour spaces that cannot be read
    /// (CMYK, Lab, XYZ, 5-bit and packed formats, half floats).
    init?(_ image: CGImage, model: DestinationModel) {
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
        guard let layout = PixelLayout(bitsPerComponent: image.bitsPerComponent, bitsPerPixel: image.bitsPerPixel,
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
        image.bytes.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
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
                        color = (Float(ColorConversion.luma(CGFloat(c[0]), CGFloat(c[1]), CGFloat(c[2]))), 0, 0)
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
