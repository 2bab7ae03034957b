// ImageTransform: EXIF orientation applied to pixels, for thumbnails made "with transform" (32-bit
// pixels by pixman through CoreGraphics' PixelRemap).
import CoreGraphics
import Foundation

/// Pixel rearrangements that need no resampling.
package enum ImageTransform {
    /// The image as it should be displayed given its EXIF `orientation` (1…8): rotated and/or
    /// mirrored so that orientation 1 results. Returns the image itself for orientation 1 or an
    /// unknown value; nil for layouts of fewer than 8 bits per pixel.
    package static func applyingOrientation(_ orientation: Int, to image: CGImage) -> CGImage? {
        guard (2 ... 8).contains(orientation) else { return image }
        guard image.bitsPerPixel % 8 == 0, let space = image.colorSpace else { return nil }
        let w = image.width, h = image.height
        let bytesPerPixel = image.bitsPerPixel / 8
        let swaps = orientation >= 5
        let outW = swaps ? h : w, outH = swaps ? w : h
        let outRow = outW * bytesPerPixel
        let source = image.bytes
        var out = Data(count: outRow * outH)
        let srcRow = image.bytesPerRow
        if bytesPerPixel == 4, srcRow % 4 == 0, source.count >= srcRow * (h - 1) + w * 4 {
            // 32-bit pixels (every 8-bit RGB layout ImageIO decodes to) move with pixman.
            let W = CGFloat(w), H = CGFloat(h)
            let toSource: CGAffineTransform
            switch orientation {
            case 2: toSource = CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: W, ty: 0)
            case 3: toSource = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: W, ty: H)
            case 4: toSource = CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: H)
            case 5: toSource = CGAffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
            case 6: toSource = CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: H)
            case 7: toSource = CGAffineTransform(a: 0, b: -1, c: -1, d: 0, tx: W, ty: H)
            default: toSource = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: W, ty: 0)
            }
            let moved = source.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
                out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                    PixelRemap.remap32(source: src.baseAddress!, width: w, height: h, bytesPerRow: srcRow,
                                       into: dst.baseAddress!, width: outW, height: outH, destinationToSource: toSource)
                }
            }
            guard moved else { return nil }
            return CGImage(width: outW, height: outH, bitsPerComponent: image.bitsPerComponent,
                           bitsPerPixel: image.bitsPerPixel, bytesPerRow: outRow, space: space,
                           bitmapInfo: image.bitmapInfo, provider: CGDataProvider(bytes: out), decode: nil,
                           shouldInterpolate: image.shouldInterpolate, intent: image.renderingIntent)
        }
        // Other layouts (grey, 24-, 48- and 64-bit) are rearranged here, byte by byte.
        source.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                for dy in 0 ..< outH {
                    for dx in 0 ..< outW {
                        let sx: Int, sy: Int
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - dx, dy)
                        case 3: (sx, sy) = (w - 1 - dx, h - 1 - dy)
                        case 4: (sx, sy) = (dx, h - 1 - dy)
                        case 5: (sx, sy) = (dy, dx)
                        case 6: (sx, sy) = (dy, h - 1 - dx)
                        case 7: (sx, sy) = (w - 1 - dy, h - 1 - dx)
                        default: (sx, sy) = (w - 1 - dy, dx)
                        }
                        let s = sy * srcRow + sx * bytesPerPixel
                        let d = dy * outRow + dx * bytesPerPixel
                        for k in 0 ..< bytesPerPixel { dst[d + k] = src[s + k] }
                    }
                }
            }
        }
        return CGImage(width: outW, height: outH, bitsPerComponent: image.bitsPerComponent,
                       bitsPerPixel: image.bitsPerPixel, bytesPerRow: outRow, space: space,
                       bitmapInfo: image.bitmapInfo, provider: CGDataProvider(bytes: out), decode: nil,
                       shouldInterpolate: image.shouldInterpolate, intent: image.renderingIntent)
    }
}
