// CGImagePixelFormatInfo: packed pixel formats described by a bitmap info.

/// The pixel format of a bitmap whose components are packed (for example 5-6-5 RGB).
public enum CGImagePixelFormatInfo: UInt32, Sendable {
    /// The bits that hold the pixel format.
    case mask = 0xF0000
    /// Components are laid out one after another (every ordinary format).
    case packed = 0
    /// 16-bit pixels with 5-bit components.
    case RGB555 = 0x10000
    /// 16-bit pixels with 5-, 6- and 5-bit components.
    case RGB565 = 0x20000
    /// 32-bit pixels with 10-bit components.
    case RGB101010 = 0x30000
    /// 32-bit pixels with 10-bit components in the CIF10 arrangement.
    case RGBCIF10 = 0x40000
}
