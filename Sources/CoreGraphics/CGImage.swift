// CGImage: an immutable bitmap image.

/// An immutable bitmap image, as Apple's: dimensions, component layout, colour space and the
/// bytes behind it (`image.dataProvider?.data as Data?`).
public final class CGImage: @unchecked Sendable, CustomStringConvertible {
    public let width: Int
    public let height: Int
    public let bitsPerComponent: Int
    public let bitsPerPixel: Int
    public let bytesPerRow: Int
    public let colorSpace: CGColorSpace?
    public let bitmapInfo: CGBitmapInfo
    public let dataProvider: CGDataProvider?
    public let shouldInterpolate: Bool
    public let renderingIntent: CGColorRenderingIntent
    /// The decode array (a min/max pair per component, alpha included) given at creation, if any.
    /// The image owns the memory, as Apple's does.
    public let decode: UnsafePointer<CGFloat>?

    /// Creates a bitmap image from a data provider, as Apple's initialiser does. Returns nil when
    /// the parameters do not describe a bitmap the provider's bytes can hold.
    public init?(width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int,
                 space: CGColorSpace, bitmapInfo: CGBitmapInfo, provider: CGDataProvider,
                 decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool, intent: CGColorRenderingIntent) {
        guard width > 0, height > 0, [1, 2, 4, 5, 8, 16, 32].contains(bitsPerComponent),
              bitsPerPixel >= bitsPerComponent, bytesPerRow * 8 >= width * bitsPerPixel,
              provider.bytes.count >= bytesPerRow * (height - 1) + (width * bitsPerPixel + 7) / 8,
              CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue) != nil
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
        let components = space.numberOfComponents + (CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & 0x1F).map { $0 == .none ? 0 : 1 } ?? 0)
        if let decode, components > 0 {
            let copy = UnsafeMutablePointer<CGFloat>.allocate(capacity: components * 2)
            copy.initialize(from: decode, count: components * 2)
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

    /// Whether this is an image mask (always false: masks are not supported).
    public var isMask: Bool { false }

    /// The image's bytes, as the provider holds them.
    package var bytes: Data { dataProvider?.bytes ?? Data() }

    public var description: String {
        "<CGImage \(width)x\(height) bpc=\(bitsPerComponent) bpp=\(bitsPerPixel) bytesPerRow=\(bytesPerRow) "
            + "alpha=\(alphaInfo) byteOrder=\(byteOrderInfo)>"
    }
}
