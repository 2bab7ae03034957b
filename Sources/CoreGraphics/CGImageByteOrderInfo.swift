// CGImageByteOrderInfo: the byte order of a bitmap's components.

/// Component byte order of a bitmap.
public enum CGImageByteOrderInfo: UInt32, Sendable {
    /// The bits that hold the byte order.
    case orderMask = 0x7000
    /// The default byte order (big-endian components).
    case orderDefault = 0
    /// 16-bit words, little-endian.
    case order16Little = 0x1000
    /// 32-bit words, little-endian (with 8-bit components: BGRA for premultipliedFirst).
    case order32Little = 0x2000
    /// 16-bit words, big-endian.
    case order16Big = 0x3000
    /// 32-bit words, big-endian.
    case order32Big = 0x4000

    /// The host's 16-bit order (little-endian on every Linux target this package builds for).
    public static var order16Host: CGImageByteOrderInfo { .order16Little }
    /// The host's 32-bit order (little-endian on every Linux target this package builds for).
    public static var order32Host: CGImageByteOrderInfo { .order32Little }
}
