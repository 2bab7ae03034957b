// ImageTransform: EXIF orientation applied to pixels, for thumbnails made "with transform" (pixels
// of any whole number of bytes moved by pixman through CoreGraphics' PixelRemap).
import CoreGraphics
import Foundation

/// Pixel rearrangements that need no resampling.
package enum ImageTransform {
    /// The image as it should be displayed given its EXIF `orientation` (1…8): rotated and/or
    /// mirrored so that orientation 1 results. Returns the image itself for orientation 1 or an
    /// unknown value; nil for layouts of fewer than 8 bits per pixel.
    ///
    /// Every layout moves with pixman (`PixelRemap.remap`), never byte by byte in Swift, which a
    /// client's debug build would run unoptimised. Rows pixman cannot address (a stride that is
    /// not a multiple of 4) go through aligned copies, one `memcpy` per row.
    package static func applyingOrientation(_ orientation: Int, to image: CGImage) -> CGImage? {
        guard (2 ... 8).contains(orientation) else { return image }
        guard image.bitsPerPixel % 8 == 0, image.bitsPerPixel > 0, let space = image.colorSpace else { return nil }
        let w = image.width, h = image.height
        let bytesPerPixel = image.bitsPerPixel / 8
        let swaps = orientation >= 5
        let outW = swaps ? h : w, outH = swaps ? w : h
        let outRow = outW * bytesPerPixel
        let source = image.bytes
        let srcRow = image.bytesPerRow
        guard w > 0, h > 0, source.count >= srcRow * (h - 1) + w * bytesPerPixel else { return nil }
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
        var out = Data(count: outRow * outH)
        let moved = source.withUnsafeBytes { (src: UnsafeRawBufferPointer) -> Bool in
            out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) -> Bool in
                withAligned(src.baseAddress!, bytesPerRow: srcRow, rowBytes: w * bytesPerPixel, rows: h) { from, fromRow in
                    withAlignedOutput(dst.baseAddress!, bytesPerRow: outRow, rows: outH) { to, toRow in
                        PixelRemap.remap(bytesPerPixel: bytesPerPixel, source: from, width: w, height: h, bytesPerRow: fromRow,
                                         into: to, width: outW, height: outH, bytesPerRow: toRow,
                                         destinationToSource: toSource)
                    }
                }
            }
        }
        guard moved else { return nil }
        return CGImage(width: outW, height: outH, bitsPerComponent: image.bitsPerComponent,
                       bitsPerPixel: image.bitsPerPixel, bytesPerRow: outRow, space: space,
                       bitmapInfo: image.bitmapInfo, provider: CGDataProvider(bytes: out), decode: nil,
                       shouldInterpolate: image.shouldInterpolate, intent: image.renderingIntent)
    }

    /// Calls `body` with `base` (rows `bytesPerRow` apart) when pixman can address it, else with
    /// an aligned copy of its rows.
    private static func withAligned(_ base: UnsafeRawPointer, bytesPerRow: Int, rowBytes: Int, rows: Int,
                                    _ body: (UnsafeRawPointer, Int) -> Bool) -> Bool {
        if bytesPerRow % 4 == 0, Int(bitPattern: base) % 4 == 0 { return body(base, bytesPerRow) }
        let stride = (rowBytes + 3) & ~3
        let copy = UnsafeMutableRawPointer.allocate(byteCount: stride * rows, alignment: 16)
        defer { copy.deallocate() }
        for row in 0 ..< rows { (copy + row * stride).copyMemory(from: base + row * bytesPerRow, byteCount: rowBytes) }
        return body(copy, stride)
    }

    /// Calls `body` with `base` (rows `bytesPerRow` apart, tightly packed) when pixman can
    /// address it, else with an aligned scratch whose rows are copied into `base` afterwards.
    private static func withAlignedOutput(_ base: UnsafeMutableRawPointer, bytesPerRow: Int, rows: Int,
                                          _ body: (UnsafeMutableRawPointer, Int) -> Bool) -> Bool {
        if bytesPerRow % 4 == 0, Int(bitPattern: base) % 4 == 0 { return body(base, bytesPerRow) }
        let stride = (bytesPerRow + 3) & ~3
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: stride * rows, alignment: 16)
        defer { scratch.deallocate() }
        guard body(scratch, stride) else { return false }
        for row in 0 ..< rows { (base + row * bytesPerRow).copyMemory(from: scratch + row * stride, byteCount: bytesPerRow) }
        return true
    }
}
