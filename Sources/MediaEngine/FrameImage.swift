// FrameImage: a decoded picture straight to a CGImage of its final size and orientation.
internal import CFFmpeg
internal import CPixman
import CoreGraphics
import CoreVideo
import Foundation

/// A rotation/mirror by quarter turns, as a track's preferred transform describes one.
package struct PixelOrientation: Sendable, Equatable {
    /// Whether width and height trade places (90° or 270° turns, transposes).
    package var swapsAxes: Bool
    /// Whether, after any swap, columns run right to left.
    package var mirrorsX: Bool
    /// Whether, after any swap, rows run bottom to top.
    package var mirrorsY: Bool

    /// No change.
    package static let identity = PixelOrientation(swapsAxes: false, mirrorsX: false, mirrorsY: false)

    /// An orientation.
    package init(swapsAxes: Bool, mirrorsX: Bool, mirrorsY: Bool) {
        self.swapsAxes = swapsAxes
        self.mirrorsX = mirrorsX
        self.mirrorsY = mirrorsY
    }

    /// The orientation of an affine transform's linear part when it maps the axes onto axes
    /// (multiples of 90° and mirrors, at any scale); nil for other transforms. Points are in
    /// Core Graphics' video convention (x right, y down), as `AVAssetTrack.preferredTransform`
    /// is: (a, b, c, d) = (0, 1, −1, 0) turns the picture 90° clockwise.
    package init?(_ t: CGAffineTransform) {
        func sign(_ v: CGFloat) -> Int { abs(v) < 1e-9 ? 0 : (v > 0 ? 1 : -1) }
        let (a, b, c, d) = (sign(t.a), sign(t.b), sign(t.c), sign(t.d))
        if b == 0 && c == 0 && a != 0 && d != 0 {
            // x' = a·x, y' = d·y
            self.init(swapsAxes: false, mirrorsX: a < 0, mirrorsY: d < 0)
        } else if a == 0 && d == 0 && b != 0 && c != 0 {
            // x' = c·y, y' = b·x
            self.init(swapsAxes: true, mirrorsX: c < 0, mirrorsY: b < 0)
        } else {
            return nil
        }
    }

    /// The size of a `width`×`height` picture once oriented.
    package func orientedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }
}

/// Decoded pictures to CGImages, scaled once, straight to the size asked for.
package enum FrameImage {
    /// A CGImage of `buffer` (a decoded picture, any format), scaled by libswscale straight to
    /// `width`×`height` (the size before `orientation`), then turned/mirrored by `orientation`.
    /// The image is 8-bit BGRA (`byteOrder32Little | noneSkipFirst`), opaque, sRGB unless the
    /// buffer's primaries say otherwise.
    package static func makeCGImage(from buffer: CVPixelBuffer, width: Int, height: Int,
                                    orientation: PixelOrientation = .identity,
                                    converter: PixelConverter = .shared) throws(PixelConversionError) -> CGImage {
        guard width > 0, height > 0, buffer.storage != nil else { throw .invalidBuffer }
        let bytesPerRow = width * 4
        let count = bytesPerRow * height
        guard let bytes = malloc(count) else { throw .allocationFailed }
        let image = PixelImage(format: AV_PIX_FMT_BGRA, width: width, height: height, fullRange: true,
                               matrix: .defaultMatrix(height: height),
                               data: [bytes.assumingMemoryBound(to: UInt8.self)], linesize: [Int32(bytesPerRow)])
        do {
            try converter.convert(buffer, into: image, scaling: .bicubic)
        } catch {
            free(bytes)
            throw error
        }
        // Opaque: the skip byte is 255 whatever the source format carried. libswscale already
        // writes 255 when the source has no alpha (every decoded Y'CbCr picture), so only sources
        // with alpha pay for this pass, which pixman runs (ADD of opaque black: a saturating add
        // that sets alpha to 255 and leaves the colours alone) — a per-pixel Swift loop would run
        // unoptimised in a client's debug build.
        let sourceFormat = PixelFormat.mapping(for: CVPixelBufferGetPixelFormatType(buffer))
        if sourceFormat.map({ (av_pix_fmt_desc_get($0.avFormat)?.pointee.flags ?? UInt64(AV_PIX_FMT_FLAG_ALPHA))
                                & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 }) ?? true {
            guard makeOpaque(bytes, width: width, height: height, bytesPerRow: bytesPerRow) else {
                free(bytes)
                throw .allocationFailed
            }
        }
        var data = Data(bytesNoCopy: bytes, count: count, deallocator: .free)
        var (outWidth, outHeight) = (width, height)
        if orientation != .identity {
            (outWidth, outHeight) = orientation.orientedSize(width: width, height: height)
            data = try reorient(data, width: width, height: height, orientation: orientation)
        }
        // Video frames are opaque: BGRX, the skip byte set to 0xFF (writers then store RGB, with
        // no alpha channel to carry or un-premultiply).
        let info = CGBitmapInfo(rawValue: CGBitmapInfo.byteOrder32Little.rawValue | CGImageAlphaInfo.noneSkipFirst.rawValue)
        guard let result = CGImage(width: outWidth, height: outHeight, bitsPerComponent: 8, bitsPerPixel: 32,
                                   bytesPerRow: outWidth * 4, space: PixelFormatColor.colorSpace(of: buffer), bitmapInfo: info,
                                   provider: CGDataProvider(bytes: data), decode: nil, shouldInterpolate: true,
                                   intent: .defaultIntent)
        else { throw .allocationFailed }
        return result
    }

    /// Sets the fourth byte of every 32-bit pixel (BGRA in memory) to 255, in place, with pixman;
    /// false when pixman cannot address the picture (then nothing is written).
    static func makeOpaque(_ bytes: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int) -> Bool {
        guard let image = PixmanPicture(format: PIXMAN_a8r8g8b8, width: width, height: height, bits: bytes,
                                        bytesPerRow: bytesPerRow),
              let black = PixmanPicture(solidFormat: PIXMAN_a8r8g8b8)
        else { return false }
        black.setSolid(0xFF00_0000)
        pixman_image_composite32(PIXMAN_OP_ADD, black.pointer, nil, image.pointer, 0, 0, 0, 0, 0, 0,
                                 Int32(width), Int32(height))
        return true
    }

    /// The 32-bit pixels of a `width`×`height` picture rearranged by `orientation`, moved by pixman
    /// (CoreGraphics' `PixelRemap`): a per-pixel Swift loop would run unoptimised in a client's
    /// debug build.
    static func reorient(_ data: Data, width: Int, height: Int, orientation: PixelOrientation) throws(PixelConversionError) -> Data {
        let (ow, oh) = orientation.orientedSize(width: width, height: height)
        var out = Data(count: ow * oh * 4)
        // Destination pixel centre → source pixel centre: mirror, then swap the axes.
        let mirror = CGAffineTransform(a: orientation.mirrorsX ? -1 : 1, b: 0, c: 0, d: orientation.mirrorsY ? -1 : 1,
                                       tx: orientation.mirrorsX ? CGFloat(ow) : 0, ty: orientation.mirrorsY ? CGFloat(oh) : 0)
        let toSource = orientation.swapsAxes ? mirror.concatenating(CGAffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0))
                                             : mirror
        let moved = data.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                PixelRemap.remap32(source: src.baseAddress!, width: width, height: height, into: dst.baseAddress!,
                                   width: ow, height: oh, destinationToSource: toSource)
            }
        }
        // pixman refuses only images it cannot allocate its bookkeeping for.
        guard moved else { throw .allocationFailed }
        return out
    }
}
