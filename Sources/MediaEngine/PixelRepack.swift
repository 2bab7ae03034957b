// PixelRepack: the Core Video layouts libswscale 5.1 cannot read or write directly — 'b64a'
// (16-bit big-endian ARGB) and the interleaved 4:2:2 chroma of '422v'/'422f' (NV16) — and exact
// 16 → 8-bit narrowing, each done by optimised libraries (libswscale, VOLK) with no per-pixel
// Swift, so they are fast in a debug build too.
internal import CFFmpeg
internal import CVolk
import Foundation

extension PixelConverter {
    // MARK: NV16 chroma

    /// Splits the interleaved Cb, Cr plane of a `422v`/`422f` picture into planar Cb and Cr.
    ///
    /// An NV16 chroma plane (⌈width ÷ 2⌉ Cb, Cr pairs a row, every row) is exactly the chroma
    /// plane of an NV24 picture ⌈width ÷ 2⌉ wide, which libswscale 5.1 reads: it converts that
    /// picture, unscaled, to planar 4:4:4, whose Cb and Cr planes are the ones wanted. The NV24
    /// luma is the first ⌈width ÷ 2⌉ columns of the real luma, copied into `planar`'s luma plane
    /// (scratch).
    func deinterleaveChroma(luma: UnsafeMutableRawPointer, lumaBytesPerRow: Int, chroma: UnsafeMutableRawPointer,
                            chromaBytesPerRow: Int, into planar: PixelImage) throws(PixelConversionError) {
        let nv24 = PixelImage(format: AV_PIX_FMT_NV24, width: planar.width, height: planar.height,
                              fullRange: planar.fullRange, matrix: planar.matrix,
                              data: [luma.assumingMemoryBound(to: UInt8.self), chroma.assumingMemoryBound(to: UInt8.self)],
                              linesize: [Int32(lumaBytesPerRow), Int32(chromaBytesPerRow)])
        try scale(nv24, into: planar, scaling: .point, threads: 1)
    }

    /// Interleaves planar Cb and Cr (`planar`'s chroma planes) into the Cb, Cr plane of a
    /// `422v`/`422f` picture: libswscale converts the planar 4:4:4 picture to NV24, unscaled (the
    /// reverse of `deinterleaveChroma`). The NV24 luma is read from `luma` and written into
    /// `planar`'s luma plane (scratch).
    func interleaveChroma(_ planar: PixelImage, luma: UnsafeMutableRawPointer, lumaBytesPerRow: Int,
                          into chroma: UnsafeMutableRawPointer, chromaBytesPerRow: Int) throws(PixelConversionError) {
        var source = planar
        source.data[0] = luma.assumingMemoryBound(to: UInt8.self)
        source.linesize[0] = Int32(lumaBytesPerRow)
        let nv24 = PixelImage(format: AV_PIX_FMT_NV24, width: planar.width, height: planar.height,
                              fullRange: planar.fullRange, matrix: planar.matrix,
                              data: [planar.data[0], chroma.assumingMemoryBound(to: UInt8.self)],
                              linesize: [planar.linesize[0], Int32(chromaBytesPerRow)])
        try scale(source, into: nv24, scaling: .point, threads: 1)
    }

    // MARK: b64a

    /// Reverses the bytes of each 8-byte pixel of `height` rows of `width` pixels in place
    /// (VOLK's 64-bit byte swap, one call a row): `b64a` (A, R, G, B, 16-bit big-endian) becomes
    /// `AV_PIX_FMT_BGRA64LE` (B, G, R, A, 16-bit little-endian), and back.
    static func reversePixels64(_ base: UnsafeMutableRawPointer, bytesPerRow: Int, width: Int, height: Int) {
        for row in 0..<height {
            avf_volk_byteswap64((base + row * bytesPerRow).assumingMemoryBound(to: UInt64.self), UInt32(width))
        }
    }

    /// A `AV_PIX_FMT_BGRA64LE` copy of a `b64a` picture (rows copied, then each pixel's bytes
    /// reversed).
    static func bgra64Copy(ofARGB64 source: UnsafeMutableRawPointer, bytesPerRow: Int, width: Int, height: Int,
                           matrix: PixelFormatColor.Matrix) throws(PixelConversionError) -> PixelImageStorage {
        guard let temp = PixelImageStorage(format: AV_PIX_FMT_BGRA64LE, width: width, height: height, fullRange: true,
                                           matrix: matrix), let base = temp.image.data[0] else { throw .allocationFailed }
        let stride = Int(temp.image.linesize[0])
        for row in 0..<height { memcpy(base + row * stride, source + row * bytesPerRow, width * 8) }
        reversePixels64(UnsafeMutableRawPointer(base), bytesPerRow: stride, width: width, height: height)
        return temp
    }

    /// `image` as libswscale converts it exactly into `destination`, with the storage to keep
    /// alive: RGBA64 → BGRA64 (how `b64a` is written) has no unscaled path in libswscale 5.1 — its
    /// general path goes through Y'CbCr and changes samples — so RGBA64 goes through planar
    /// GBRAP16 first, which it converts to and from unscaled.
    func exactSource(_ image: PixelImage, into destination: PixelImage, threads: Int?)
        throws(PixelConversionError) -> (image: PixelImage, keepAlive: PixelImageStorage?) {
        guard image.format == AV_PIX_FMT_RGBA64BE || image.format == AV_PIX_FMT_RGBA64LE,
              destination.format == AV_PIX_FMT_BGRA64LE else { return (image, nil) }
        guard let planar = PixelImageStorage(format: AV_PIX_FMT_GBRAP16LE, width: image.width, height: image.height,
                                             fullRange: true, matrix: image.matrix) else { throw .allocationFailed }
        try scale(image, into: planar.image, scaling: .point, threads: threads)
        return (planar.image, planar)
    }

    // MARK: 16 → 8 bits

    /// The most 32-bit float samples of one strip in `narrow16`: 1 MiB, cache-sized.
    static let narrowingStripSamples = 1 << 18

    /// 16-bit samples (`count` a row, big- or little-endian) → 8-bit, rounded as vImage's
    /// 16U → 8U conversion rounds: (v × 255 + 32767) ÷ 65535.
    ///
    /// libswscale's direct 16 → 8-bit paths truncate (or dither), so the samples go as 16-bit grey
    /// to 32-bit float grey (v ÷ 65535, exactly) and from there to 8-bit grey (rounded), in
    /// strips of equal height (the last one overlapping the one before) so the float picture stays
    /// small and two cached contexts serve every strip.
    func narrow16(source: UnsafeRawPointer, sourceBytesPerRow: Int, bigEndian: Bool,
                  destination: UnsafeMutablePointer<UInt8>, destinationBytesPerRow: Int, count: Int, height: Int)
        throws(PixelConversionError) {
        let rows = min(height, max(1, Self.narrowingStripSamples / max(1, count)))
        guard let strip = PixelImageStorage(format: AV_PIX_FMT_GRAYF32LE, width: count, height: rows, fullRange: true,
                                            matrix: .itu601) else { throw .allocationFailed }
        var start = 0
        while start < height {
            let top = min(start, height - rows)
            let wide = PixelImage(format: bigEndian ? AV_PIX_FMT_GRAY16BE : AV_PIX_FMT_GRAY16LE, width: count, height: rows,
                                  fullRange: true, matrix: .itu601,
                                  data: [UnsafeMutablePointer(mutating: (source + top * sourceBytesPerRow)
                                      .assumingMemoryBound(to: UInt8.self))],
                                  linesize: [Int32(sourceBytesPerRow)])
            let narrow = PixelImage(format: AV_PIX_FMT_GRAY8, width: count, height: rows, fullRange: true, matrix: .itu601,
                                    data: [destination + top * destinationBytesPerRow], linesize: [Int32(destinationBytesPerRow)])
            try scale(wide, into: strip.image, scaling: .point, threads: 1)
            try scale(strip.image, into: narrow, scaling: .point, threads: 1)
            start = top + rows
        }
    }
}
