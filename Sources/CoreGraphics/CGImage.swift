// CGImage: an immutable bitmap image.

/// An immutable bitmap image, as Apple's: dimensions, component layout, colour space and the
/// bytes behind it (`image.dataProvider?.data as Data?`).
public final class CGImage: @unchecked Sendable, CustomStringConvertible {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// The number of bits in each component of a pixel.
    public let bitsPerComponent: Int
    /// The number of bits in each pixel.
    public let bitsPerPixel: Int
    /// The number of bytes from the start of one row to the start of the next.
    public let bytesPerRow: Int
    /// The colour space; nil for an alpha-only image.
    public let colorSpace: CGColorSpace?
    /// The component layout: alpha info, byte order, float flag, pixel format.
    public let bitmapInfo: CGBitmapInfo
    /// The provider of the image's bytes.
    public let dataProvider: CGDataProvider?
    /// Whether drawing the image scaled should smooth it (false: nearest-neighbour sampling).
    public let shouldInterpolate: Bool
    /// How the image's colours map into a destination gamut.
    public let renderingIntent: CGColorRenderingIntent
    /// The decode array (a min/max pair per colour component of the colour space) given at
    /// creation, if any. The image owns the memory, as Apple's does.
    public let decode: UnsafePointer<CGFloat>?

    /// Creates a bitmap image from a data provider, as Apple's initialiser does. Returns nil when
    /// the parameters do not describe a bitmap the provider's bytes can hold: a zero or negative
    /// size, bits per component other than 1, 2, 4, 5, 8, 16 or 32, bits per pixel too few for
    /// the colour space's components plus alpha, rows shorter than a pixel row, a provider
    /// shorter than the last row's end, undefined alpha/byte-order/pixel-format values, float
    /// components that are not 16 or 32 bits, or a pattern/unknown colour space.
    public convenience init?(width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int,
                             space: CGColorSpace, bitmapInfo: CGBitmapInfo, provider: CGDataProvider,
                             decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool, intent: CGColorRenderingIntent) {
        self.init(validatingWidth: width, height: height, bitsPerComponent: bitsPerComponent,
                  bitsPerPixel: bitsPerPixel, bytesPerRow: bytesPerRow, space: space, bitmapInfo: bitmapInfo,
                  provider: provider, decode: decode, shouldInterpolate: shouldInterpolate, intent: intent)
    }

    /// The validating initialiser; `space` may be nil only for alpha-only images.
    init?(validatingWidth width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int,
          space: CGColorSpace?, bitmapInfo: CGBitmapInfo, provider: CGDataProvider,
          decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool, intent: CGColorRenderingIntent) {
        let raw = bitmapInfo.rawValue
        guard width > 0, height > 0, [1, 2, 4, 5, 8, 16, 32].contains(bitsPerComponent),
              let alpha = CGImageAlphaInfo(rawValue: raw & CGBitmapInfo.alphaInfoMask.rawValue),
              CGImageByteOrderInfo(rawValue: raw & CGBitmapInfo.byteOrderMask.rawValue) != nil,
              CGImagePixelFormatInfo(rawValue: raw & CGImagePixelFormatInfo.mask.rawValue) != nil,
              raw & ~(0x1F | 0xF00 | 0x7000 | 0xF0000) == 0,
              raw & CGBitmapInfo.floatInfoMask.rawValue & ~CGBitmapInfo.floatComponents.rawValue == 0
        else { return nil }
        if bitmapInfo.contains(.floatComponents) && bitsPerComponent != 16 && bitsPerComponent != 32 { return nil }
        let colorComponents: Int
        if let space {
            guard space.model != .pattern, space.model != .unknown, space.numberOfComponents > 0 else { return nil }
            colorComponents = alpha == .alphaOnly ? 0 : space.numberOfComponents
        } else {
            guard alpha == .alphaOnly else { return nil }
            colorComponents = 0
        }
        let slots = colorComponents + (alpha == .none ? 0 : 1)
        let minimumBitsPerPixel = bitsPerComponent == 5 ? 15 : slots * bitsPerComponent
        guard bitsPerPixel >= minimumBitsPerPixel, bitsPerPixel <= 1024 else { return nil }
        let (rowBits, overflow) = width.multipliedReportingOverflow(by: bitsPerPixel)
        guard !overflow, rowBits <= Int.max - 7 else { return nil }
        let rowBytes = (rowBits + 7) / 8
        guard bytesPerRow >= rowBytes else { return nil }
        let (rowsBefore, overflow2) = bytesPerRow.multipliedReportingOverflow(by: height - 1)
        guard !overflow2, rowsBefore <= Int.max - rowBytes, provider.bytes.count >= rowsBefore + rowBytes
        else { return nil }
        self.width = width
        self.height = height
        self.bitsPerComponent = bitsPerComponent
        self.bitsPerPixel = bitsPerPixel
        self.bytesPerRow = bytesPerRow
        self.colorSpace = space
        self.bitmapInfo = bitmapInfo
        self.dataProvider = provider
        self.shouldInterpolate = shouldInterpolate
        self.renderingIntent = intent
        if let decode, colorComponents > 0 {
            let copy = UnsafeMutablePointer<CGFloat>.allocate(capacity: colorComponents * 2)
            copy.initialize(from: decode, count: colorComponents * 2)
            self.decode = UnsafePointer(copy)
        } else {
            self.decode = nil
        }
    }

    deinit { decode?.deallocate() }

    /// Where alpha lives and whether colour is premultiplied.
    public var alphaInfo: CGImageAlphaInfo {
        CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue) ?? .none
    }

    /// The component byte order.
    public var byteOrderInfo: CGImageByteOrderInfo {
        CGImageByteOrderInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.byteOrderMask.rawValue) ?? .orderDefault
    }

    /// The pixel format (packed for every ordinary layout).
    public var pixelFormatInfo: CGImagePixelFormatInfo {
        CGImagePixelFormatInfo(rawValue: bitmapInfo.rawValue & CGImagePixelFormatInfo.mask.rawValue) ?? .packed
    }

    /// Whether this is an image mask (always false: image masks cannot be created here).
    public var isMask: Bool { false }

    /// The image's bytes, as the provider holds them.
    package var bytes: Data { dataProvider?.bytes ?? Data() }

    /// A copy of the image (images are immutable, so the copy shares the bytes).
    public func copy() -> CGImage? {
        return CGImage(validatingWidth: width, height: height, bitsPerComponent: bitsPerComponent,
                       bitsPerPixel: bitsPerPixel, bytesPerRow: bytesPerRow, space: colorSpace,
                       bitmapInfo: bitmapInfo, provider: dataProvider ?? CGDataProvider(bytes: bytes),
                       decode: decode, shouldInterpolate: shouldInterpolate, intent: renderingIntent)
    }

    /// A copy of the image in another colour space; nil when the image is a mask or `space` has
    /// a different number of components from the image's space.
    public func copy(colorSpace space: CGColorSpace) -> CGImage? {
        guard !isMask, let colorSpace, colorSpace.numberOfComponents == space.numberOfComponents else { return nil }
        return CGImage(validatingWidth: width, height: height, bitsPerComponent: bitsPerComponent,
                       bitsPerPixel: bitsPerPixel, bytesPerRow: bytesPerRow, space: space,
                       bitmapInfo: bitmapInfo, provider: dataProvider ?? CGDataProvider(bytes: bytes),
                       decode: decode, shouldInterpolate: shouldInterpolate, intent: renderingIntent)
    }

    /// The part of the image inside `rect`, in pixel coordinates with the origin at the top-left
    /// (row 0 is the first row in memory). The rectangle is made integral and clipped to the
    /// image; nil when nothing remains.
    public func cropping(to rect: CGRect) -> CGImage? {
        guard !rect.isNull, !rect.origin.x.isNaN, !rect.origin.y.isNaN,
              !rect.size.width.isNaN, !rect.size.height.isNaN else { return nil }
        let bounds = CGRect(x: 0, y: 0, width: width, height: height)
        let clipped = rect.standardized.integral.intersection(bounds)
        guard !clipped.isNull, !clipped.isEmpty else { return nil }
        let x = Int(clipped.minX), y = Int(clipped.minY), w = Int(clipped.width), h = Int(clipped.height)
        let rowBytes = (w * bitsPerPixel + 7) / 8
        var out = Data(count: rowBytes * h)
        let source = bytes
        let copied = source.withUnsafeBytes { (src: UnsafeRawBufferPointer) -> Bool in
            out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) -> Bool in
                let first = src.baseAddress! + y * bytesPerRow
                if bitsPerPixel % 8 == 0 {
                    for row in 0..<h {
                        dst.baseAddress!.advanced(by: row * rowBytes)
                            .copyMemory(from: first + row * bytesPerRow + x * bitsPerPixel / 8, byteCount: rowBytes)
                    }
                    return true
                }
                // Sub-byte pixels (most significant bit first): a bit string per row, moved by pixman.
                return PixelRemap.copyBits(from: first, bytesPerRow: bytesPerRow, bitOffset: x * bitsPerPixel,
                                           bitCount: w * bitsPerPixel, rows: h, into: dst.baseAddress!, bytesPerRow: rowBytes)
            }
        }
        guard copied else { return nil }
        return CGImage(validatingWidth: w, height: h, bitsPerComponent: bitsPerComponent,
                       bitsPerPixel: bitsPerPixel, bytesPerRow: rowBytes, space: colorSpace,
                       bitmapInfo: bitmapInfo, provider: CGDataProvider(bytes: out),
                       decode: decode, shouldInterpolate: shouldInterpolate, intent: renderingIntent)
    }

    /// A short description of the layout.
    public var description: String {
        "<CGImage \(width)x\(height) bpc=\(bitsPerComponent) bpp=\(bitsPerPixel) bytesPerRow=\(bytesPerRow) "
            + "alpha=\(alphaInfo) byteOrder=\(byteOrderInfo)>"
    }
}

/// A bitmap image from a data provider; nil for parameters that do not describe a valid bitmap.
@discardableResult
public func CGImageCreate(_ width: Int, _ height: Int, _ bitsPerComponent: Int, _ bitsPerPixel: Int,
                          _ bytesPerRow: Int, _ space: CGColorSpace?, _ bitmapInfo: CGBitmapInfo,
                          _ provider: CGDataProvider?, _ decode: UnsafePointer<CGFloat>?,
                          _ shouldInterpolate: Bool, _ intent: CGColorRenderingIntent) -> CGImage? {
    guard let space, let provider else { return nil }
    return CGImage(width: width, height: height, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
                   bytesPerRow: bytesPerRow, space: space, bitmapInfo: bitmapInfo, provider: provider,
                   decode: decode, shouldInterpolate: shouldInterpolate, intent: intent)
}
/// The width of `image`; 0 for nil.
@discardableResult
public func CGImageGetWidth(_ image: CGImage?) -> Int { image?.width ?? 0 }
/// The height of `image`; 0 for nil.
@discardableResult
public func CGImageGetHeight(_ image: CGImage?) -> Int { image?.height ?? 0 }
/// The bits per component of `image`; 0 for nil.
@discardableResult
public func CGImageGetBitsPerComponent(_ image: CGImage?) -> Int { image?.bitsPerComponent ?? 0 }
/// The bits per pixel of `image`; 0 for nil.
@discardableResult
public func CGImageGetBitsPerPixel(_ image: CGImage?) -> Int { image?.bitsPerPixel ?? 0 }
/// The bytes per row of `image`; 0 for nil.
@discardableResult
public func CGImageGetBytesPerRow(_ image: CGImage?) -> Int { image?.bytesPerRow ?? 0 }
/// The colour space of `image`.
@discardableResult
public func CGImageGetColorSpace(_ image: CGImage?) -> CGColorSpace? { image?.colorSpace }
/// The alpha info of `image`; `.none` for nil.
@discardableResult
public func CGImageGetAlphaInfo(_ image: CGImage?) -> CGImageAlphaInfo { image?.alphaInfo ?? .none }
/// The bitmap info of `image`; empty for nil.
@discardableResult
public func CGImageGetBitmapInfo(_ image: CGImage?) -> CGBitmapInfo { image?.bitmapInfo ?? [] }
/// The byte order of `image`; `.orderDefault` for nil.
@discardableResult
public func CGImageGetByteOrderInfo(_ image: CGImage?) -> CGImageByteOrderInfo { image?.byteOrderInfo ?? .orderDefault }
/// The pixel format of `image`; `.packed` for nil.
@discardableResult
public func CGImageGetPixelFormatInfo(_ image: CGImage?) -> CGImagePixelFormatInfo { image?.pixelFormatInfo ?? .packed }
/// The data provider of `image`.
@discardableResult
public func CGImageGetDataProvider(_ image: CGImage?) -> CGDataProvider? { image?.dataProvider }
/// The decode array of `image`.
@discardableResult
public func CGImageGetDecode(_ image: CGImage?) -> UnsafePointer<CGFloat>? { image?.decode }
/// Whether `image` is smoothed when scaled; false for nil.
@discardableResult
public func CGImageGetShouldInterpolate(_ image: CGImage?) -> Bool { image?.shouldInterpolate ?? false }
/// The rendering intent of `image`; `.defaultIntent` for nil.
@discardableResult
public func CGImageGetRenderingIntent(_ image: CGImage?) -> CGColorRenderingIntent {
    image?.renderingIntent ?? .defaultIntent
}
/// Whether `image` is an image mask.
@discardableResult
public func CGImageIsMask(_ image: CGImage?) -> Bool { image?.isMask ?? false }
/// The part of `image` inside `rect` (top-left origin), made integral and clipped.
@discardableResult
public func CGImageCreateWithImageInRect(_ image: CGImage?, _ rect: CGRect) -> CGImage? { image?.cropping(to: rect) }
/// A copy of `image`.
@discardableResult
public func CGImageCreateCopy(_ image: CGImage?) -> CGImage? { image?.copy() }
/// A copy of `image` in `space`; nil when the component counts differ.
@discardableResult
public func CGImageCreateCopyWithColorSpace(_ image: CGImage?, _ space: CGColorSpace?) -> CGImage? {
    guard let image, let space else { return nil }
    return image.copy(colorSpace: space)
}
