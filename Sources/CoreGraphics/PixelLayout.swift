// Where the components of bitmap pixels are, for drawing images into a bitmap context (ImageDecoder
// reads the layouts pixman cannot).

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
}
