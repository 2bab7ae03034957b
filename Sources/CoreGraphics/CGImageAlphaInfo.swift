// CGImageAlphaInfo: where a bitmap's alpha lives and whether colour is premultiplied by it.
@_exported import CoreFoundationCompat

/// Where an image's alpha lives and whether colour is premultiplied by it.
public enum CGImageAlphaInfo: UInt32, Sendable {
    /// No alpha channel.
    case none = 0
    /// Alpha is the last component of a pixel and colour is premultiplied by it (RGBA).
    case premultipliedLast = 1
    /// Alpha is the first component of a pixel and colour is premultiplied by it (ARGB).
    case premultipliedFirst = 2
    /// Alpha is the last component; colour is not premultiplied.
    case last = 3
    /// Alpha is the first component; colour is not premultiplied.
    case first = 4
    /// No alpha; the last component of a pixel is ignored (RGBX).
    case noneSkipLast = 5
    /// No alpha; the first component of a pixel is ignored (XRGB).
    case noneSkipFirst = 6
    /// No colour data, only alpha.
    case alphaOnly = 7
}
