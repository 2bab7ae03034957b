// CGBitmapInfo: how a bitmap's components are stored: alpha placement, byte order, float components.
@_exported import CoreFoundationCompat

/// Bitmap layout flags: the alpha info in the low bits, byte order and float flags above.
public struct CGBitmapInfo: OptionSet, Sendable, Hashable {
    /// The flags as Core Graphics stores them.
    public let rawValue: UInt32
    /// Bitmap info with the given flags.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The bits that hold a `CGImageAlphaInfo`.
    public static let alphaInfoMask = CGBitmapInfo(rawValue: 0x1F)
    /// The bits that hold the float flags.
    public static let floatInfoMask = CGBitmapInfo(rawValue: 0xF00)
    /// Components are floating-point values.
    public static let floatComponents = CGBitmapInfo(rawValue: 1 << 8)
    /// The bits that hold a `CGImageByteOrderInfo`.
    public static let byteOrderMask = CGBitmapInfo(rawValue: 0x7000)
    /// The default byte order.
    public static let byteOrderDefault = CGBitmapInfo([])
    /// 16-bit little-endian words.
    public static let byteOrder16Little = CGBitmapInfo(rawValue: 1 << 12)
    /// 32-bit little-endian words.
    public static let byteOrder32Little = CGBitmapInfo(rawValue: 2 << 12)
    /// 16-bit big-endian words.
    public static let byteOrder16Big = CGBitmapInfo(rawValue: 3 << 12)
    /// 32-bit big-endian words.
    public static let byteOrder32Big = CGBitmapInfo(rawValue: 4 << 12)
    /// The host's 16-bit order (little-endian on every Linux target we build for).
    public static let byteOrder16Host = byteOrder16Little
    /// The host's 32-bit order.
    public static let byteOrder32Host = byteOrder32Little

    /// Bitmap info carrying only the given alpha info.
    public init(alpha: CGImageAlphaInfo) { self.init(rawValue: alpha.rawValue) }
}
