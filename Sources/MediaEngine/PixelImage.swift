// PixelImage: a picture in memory as libswscale sees it — an FFmpeg format, a size, a range, a
// Y'CbCr matrix and up to four planes — borrowed from a pixel buffer, an AVFrame or a CGImage.
internal import CFFmpeg
import CoreVideo

/// A borrowed view of pixels for libswscale. It does not own the memory: whoever built it keeps
/// the owner (pixel buffer, frame, data) alive while it is used.
package struct PixelImage: @unchecked Sendable {
    /// FFmpeg's pixel format of the planes.
    var format: AVPixelFormat
    /// Width in pixels.
    package var width: Int
    /// Height in rows.
    package var height: Int
    /// True for full-range samples (always true for RGB and grey).
    package var fullRange: Bool
    /// The Y'CbCr matrix of the samples (used when either side is Y'CbCr).
    package var matrix: PixelFormatColor.Matrix
    /// First byte of each plane (unused planes nil).
    package var data: [UnsafeMutablePointer<UInt8>?]
    /// Bytes from one row to the next of each plane.
    package var linesize: [Int32]

    /// Describes planes of `format`; `data` and `linesize` are padded to four entries.
    init(format: AVPixelFormat, width: Int, height: Int, fullRange: Bool, matrix: PixelFormatColor.Matrix,
                 data: [UnsafeMutablePointer<UInt8>?], linesize: [Int32]) {
        self.format = format
        self.width = width
        self.height = height
        self.fullRange = fullRange
        self.matrix = matrix
        self.data = Array((data + [nil, nil, nil, nil]).prefix(4))
        self.linesize = Array((linesize + [0, 0, 0, 0]).prefix(4))
    }

    /// The number of planes FFmpeg's format has.
    package var planeCount: Int { Int(av_pix_fmt_count_planes(format)) }

    /// The sub-rectangle at (`x`, `y`) of `width`×`height`; the origin must fall on a chroma
    /// sample (even coordinates for subsampled formats), which callers round to.
    package func cropped(x: Int, y: Int, width: Int, height: Int) -> PixelImage {
        var copy = self
        copy.width = width
        copy.height = height
        guard let desc = av_pix_fmt_desc_get(format) else { return copy }
        let chromaH = Int(desc.pointee.log2_chroma_h)
        for plane in 0..<planeCount {
            guard let base = data[plane] else { continue }
            let rowOffset = (plane == 1 || plane == 2) ? y >> chromaH : y
            let columnBytes = x == 0 ? 0 : Int(av_image_get_linesize(format, Int32(x), Int32(plane)))
            copy.data[plane] = base + rowOffset * Int(linesize[plane]) + columnBytes
        }
        return copy
    }

    /// The chroma subsampling of the format as (log2 horizontal, log2 vertical).
    package var chromaShift: (x: Int, y: Int) {
        guard let desc = av_pix_fmt_desc_get(format) else { return (0, 0) }
        return (Int(desc.pointee.log2_chroma_w), Int(desc.pointee.log2_chroma_h))
    }
}

/// Pixels in memory owned by the engine (`av_image_alloc`), for intermediate pictures.
package final class PixelImageStorage: @unchecked Sendable {
    /// The picture; valid while this object lives.
    package let image: PixelImage

    /// Allocates a `width`×`height` picture of `format`; nil when FFmpeg cannot. The bytes after
    /// each row's pixels are zeroed: libswscale's RealTime paths read one pixel past odd widths
    /// (their half-width chroma input), and uninitialised padding would make the last column
    /// differ from one conversion to the next.
    init?(format: AVPixelFormat, width: Int, height: Int, fullRange: Bool, matrix: PixelFormatColor.Matrix) {
        var data = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: 4)
        var linesize = [Int32](repeating: 0, count: 4)
        guard width > 0, height > 0,
              av_image_alloc(&data, &linesize, Int32(width), Int32(height), format, 64) >= 0 else { return nil }
        image = PixelImage(format: format, width: width, height: height, fullRange: fullRange, matrix: matrix,
                           data: data, linesize: linesize)
        let chromaRows = (height + (1 << image.chromaShift.y) - 1) >> image.chromaShift.y
        for plane in 0..<image.planeCount {
            guard let base = data[plane] else { continue }
            let used = Int(av_image_get_linesize(format, Int32(width), Int32(plane)))
            let stride = Int(linesize[plane])
            guard used >= 0, stride > used else { continue }
            for row in 0..<((plane == 1 || plane == 2) ? chromaRows : height) {
                memset(base + row * stride + used, 0, stride - used)
            }
        }
    }

    deinit { av_free(image.data[0]) }
}

extension PixelImage {
    /// The planes of a pixel buffer with the FFmpeg format laid out the same way; nil when the
    /// buffer has no storage or its format has no identical FFmpeg layout (`b64a`).
    package init?(pixelBuffer: CVPixelBuffer, matrix: PixelFormatColor.Matrix) {
        guard let storage = pixelBuffer.storage, let mapping = PixelFormat.mapping(for: storage.pixelFormat) else {
            return nil
        }
        self.init(format: mapping.avFormat, width: storage.width, height: storage.height, fullRange: mapping.fullRange,
                  matrix: matrix,
                  data: storage.planes.map { $0.baseAddress.assumingMemoryBound(to: UInt8.self) },
                  linesize: storage.planes.map { Int32($0.bytesPerRow) })
    }
}
