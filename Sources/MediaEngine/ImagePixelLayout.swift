// ImagePixelLayout: how a CGImage's bytes map onto an FFmpeg pixel format.
internal import CFFmpeg
import CoreGraphics
import Foundation

/// The FFmpeg view of a CGImage's byte layout: which packed pixel format its bytes are, and
/// whether colour is premultiplied by alpha (FFmpeg formats never are).
struct ImagePixelLayout {
    /// The packed FFmpeg format the image's bytes are stored in.
    var pixelFormat: AVPixelFormat
    /// Whether the image carries a meaningful alpha channel.
    var hasAlpha: Bool
    /// Whether colour components are premultiplied by alpha.
    var premultiplied: Bool
    /// Whether the image is single-channel grey (plus optional alpha).
    var isGray: Bool
    /// Whether components are 16 bits wide.
    var is16Bit: Bool

    /// The layout of `image`; nil for layouts the engine does not read (float, sub-byte, CMYK,
    /// alpha-first grey, 16-bit alpha-first colour).
    init?(image: CGImage) {
        let alpha = image.alphaInfo
        let order = image.byteOrderInfo
        let bpc = image.bitsPerComponent, bpp = image.bitsPerPixel
        guard !image.bitmapInfo.contains(.floatComponents) else { return nil }
        let model = image.colorSpace?.model ?? (bpp <= 16 ? .monochrome : .rgb)
        let alphaLast = alpha == .last || alpha == .premultipliedLast
        let alphaFirst = alpha == .first || alpha == .premultipliedFirst
        premultiplied = alpha == .premultipliedLast || alpha == .premultipliedFirst
        hasAlpha = alphaLast || alphaFirst
        is16Bit = bpc == 16
        switch (model, bpc, bpp) {
        case (.monochrome, 8, 8) where alpha == .none:
            pixelFormat = AV_PIX_FMT_GRAY8
        case (.monochrome, 8, 16) where alphaLast || alpha == .noneSkipLast:
            pixelFormat = AV_PIX_FMT_YA8
        case (.monochrome, 16, 16) where alpha == .none:
            pixelFormat = order == .order16Little ? AV_PIX_FMT_GRAY16LE : AV_PIX_FMT_GRAY16BE
        case (.monochrome, 16, 32) where alphaLast || alpha == .noneSkipLast:
            pixelFormat = order == .order16Little ? AV_PIX_FMT_YA16LE : AV_PIX_FMT_YA16BE
        case (.rgb, 8, 24) where alpha == .none:
            pixelFormat = AV_PIX_FMT_RGB24
        case (.rgb, 8, 32):
            let little = order == .order32Little
            guard order == .orderDefault || order == .order32Big || little else { return nil }
            switch alpha {
            case .last, .premultipliedLast: pixelFormat = little ? AV_PIX_FMT_ABGR : AV_PIX_FMT_RGBA
            case .first, .premultipliedFirst: pixelFormat = little ? AV_PIX_FMT_BGRA : AV_PIX_FMT_ARGB
            case .noneSkipLast: pixelFormat = little ? AV_PIX_FMT_0BGR : AV_PIX_FMT_RGB0
            case .noneSkipFirst: pixelFormat = little ? AV_PIX_FMT_BGR0 : AV_PIX_FMT_0RGB
            default: return nil
            }
        case (.rgb, 16, 48) where alpha == .none:
            pixelFormat = order == .order16Little ? AV_PIX_FMT_RGB48LE : AV_PIX_FMT_RGB48BE
        case (.rgb, 16, 64) where alphaLast || alpha == .noneSkipLast:
            pixelFormat = order == .order16Little ? AV_PIX_FMT_RGBA64LE : AV_PIX_FMT_RGBA64BE
        default:
            return nil
        }
        isGray = model == .monochrome
    }
}
