// Pixel moves that are only copies — turns, mirrors, crops, edge replication — run by pixman, for
// CoreGraphics itself and for the other modules (MediaEngine turns decoded pictures and decoded
// images with it, CoreVideo pads pixel buffers). pixman is always built optimised, so these cost
// the same in a client's debug build as in its release build; no byte is moved by a Swift loop.
internal import CPixman
import Foundation

/// Pixel moves for the other modules, run by pixman; no pixman type leaves CoreGraphics.
package enum PixelRemap {
    /// Fills the `outWidth`×`outHeight` picture of 32-bit pixels at `destination` from the
    /// `width`×`height` one at `source` (rows `bytesPerRow` apart, a multiple of 4; tightly packed
    /// when nil — a pixel buffer's padded rows are used as they are): each destination pixel takes the
    /// source pixel whose centre `destinationToSource` maps its centre to (pixel coordinates,
    /// y down, nearest). Meant for quarter turns and mirrors, which map centres onto centres.
    /// False when pixman cannot address the pictures (then nothing is written).
    package static func remap32(source: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int? = nil,
                                into destination: UnsafeMutableRawPointer, width outWidth: Int, height outHeight: Int,
                                bytesPerRow outBytesPerRow: Int? = nil,
                                destinationToSource: CGAffineTransform) -> Bool {
        remap(bytesPerPixel: 4, source: source, width: width, height: height, bytesPerRow: bytesPerRow ?? width * 4,
              into: destination, width: outWidth, height: outHeight, bytesPerRow: outBytesPerRow ?? outWidth * 4,
              destinationToSource: destinationToSource)
    }

    /// `remap32` for pixels of any whole number of bytes (`bytesPerPixel` ≥ 1), moved as opaque
    /// bytes. Pixels of 1, 2, 3 or 4 bytes are one pixman image of a format that size (`a8`,
    /// `r5g6b5`, `r8g8b8`, `a8r8g8b8`: each stores what it fetches unchanged); wider pixels are
    /// n words of one of those sizes (n a power of two: 48 bits = 2 × 24, 64 = 2 × 32, 96 = 4 × 24,
    /// 128 = 4 × 32) — word k of every pixel is moved into a plane of its own (the transform scaled
    /// by n along x picks it), then the planes are interleaved into the destination (plane k
    /// stretched n times, kept in every n-th word by a repeating mask: SRC for the first, ADD of
    /// the others onto the zeros it left). Row strides must be multiples of 4 and the memory
    /// 4-byte aligned; false when they are not, or when pixman cannot represent the transform
    /// (coordinates beyond ±32767 words), and then nothing useful is written.
    package static func remap(bytesPerPixel: Int, source: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int,
                              into destination: UnsafeMutableRawPointer, width outWidth: Int, height outHeight: Int,
                              bytesPerRow outBytesPerRow: Int, destinationToSource: CGAffineTransform) -> Bool {
        guard bytesPerPixel > 0, Int(bitPattern: source) % 4 == 0, Int(bitPattern: destination) % 4 == 0,
              let (wordBytes, words) = wordSplit(bytesPerPixel) else { return false }
        let format = wordFormat(wordBytes)
        guard let from = PixmanImage(format: format, width: width * words, height: height,
                                     bits: UnsafeMutableRawPointer(mutating: source), bytesPerRow: bytesPerRow),
              let to = PixmanImage(format: format, width: outWidth * words, height: outHeight, bits: destination,
                                   bytesPerRow: outBytesPerRow)
        else { return false }
        let all = PixelBox(x: 0, y: 0, width: outWidth, height: outHeight)
        if words == 1 {
            guard from.configure(transform: destinationToSource, nearest: true, repeat: PIXMAN_REPEAT_PAD) else { return false }
            pixmanComposite(PIXMAN_OP_SRC, from, mask: nil, onto: to, box: all)
            return true
        }
        let n = CGFloat(words)
        let planeStride = (outWidth * wordBytes + 3) & ~3
        let planes = (0 ..< words).compactMap { _ in
            PixmanImage(format: format, width: outWidth, height: outHeight, bits: nil, bytesPerRow: planeStride)
        }
        guard planes.count == words else { return false }
        for (k, plane) in planes.enumerated() {
            // Source pixel centre u → centre of its word k: n·u − n/2 + k + ½.
            let toWord = destinationToSource.concatenating(
                CGAffineTransform(a: n, b: 0, c: 0, d: 1, tx: CGFloat(k) + 0.5 - n / 2, ty: 0))
            guard from.configure(transform: toWord, nearest: true, repeat: PIXMAN_REPEAT_PAD) else { return false }
            pixmanComposite(PIXMAN_OP_SRC, from, mask: nil, onto: plane, box: all)
        }
        let box = PixelBox(x: 0, y: 0, width: outWidth * words, height: outHeight)
        for (k, plane) in planes.enumerated() {
            guard plane.configure(transform: CGAffineTransform(a: 1 / n, b: 0, c: 0, d: 1, tx: 0, ty: 0), nearest: true,
                                  repeat: PIXMAN_REPEAT_PAD),
                  let keep = everyNthWord(words, keeping: k)
            else { return false }
            pixmanComposite(k == 0 ? PIXMAN_OP_SRC : PIXMAN_OP_ADD, plane, mask: keep, onto: to, box: box)
        }
        return true
    }

    /// Fills `byteCount` bytes at `destination` in each of `rows` rows (`bytesPerRow` apart) with
    /// repeats of the `elementBytes` bytes at `source` in the same row (byte j of a row takes
    /// source byte j mod `elementBytes`): pixman SRC of an `a8` image that many bytes wide,
    /// tiled (NORMAL repeat). Source and destination must not overlap.
    package static func replicate(_ elementBytes: Int, bytesAt source: UnsafeRawPointer,
                                  into destination: UnsafeMutableRawPointer, byteCount: Int,
                                  rows: Int, bytesPerRow: Int) {
        guard elementBytes > 0, byteCount > 0, rows > 0 else { return }
        // pixman wants row strides that are multiples of 4; other strides go one row at a time.
        let (passes, height, stride) = bytesPerRow % 4 == 0 ? (1, rows, bytesPerRow)
                                                           : (rows, 1, (max(byteCount, elementBytes) + 3) & ~3)
        for pass in 0 ..< passes {
            guard let tile = PixmanImage(format: PIXMAN_a8, width: elementBytes, height: height,
                                         bits: UnsafeMutableRawPointer(mutating: source + pass * bytesPerRow),
                                         bytesPerRow: stride),
                  let out = PixmanImage(format: PIXMAN_a8, width: byteCount, height: height,
                                        bits: destination + pass * bytesPerRow, bytesPerRow: stride)
            else { return }
            pixman_image_set_repeat(tile.pointer, PIXMAN_REPEAT_NORMAL)
            pixmanComposite(PIXMAN_OP_SRC, tile, mask: nil, onto: out, box: PixelBox(x: 0, y: 0, width: byteCount, height: height))
        }
    }

    /// Copies a bit string out of each of `rows` rows: `bitCount` bits starting `bitOffset` bits
    /// into the row at `source` (rows `bytesPerRow` apart), to the start of the rows at
    /// `destination` (`outBytesPerRow` apart), most significant bit first in every byte — Core
    /// Graphics' order for sub-byte pixels. The bits after the string in its last byte are zero.
    /// With s = `bitOffset` mod 8, output byte i is (in[i] << s) | (in[i+1] >> (8 − s)): two
    /// byte lookups through `c8` palettes stored as `a8` (the entry's alpha), the second added
    /// onto the first (their bits are disjoint); the last byte's palettes also clear the bits past
    /// the string. Rows are copied aligned for pixman first (a memcpy per row, one zero byte after).
    package static func copyBits(from source: UnsafeRawPointer, bytesPerRow: Int, bitOffset: Int, bitCount: Int, rows: Int,
                                 into destination: UnsafeMutableRawPointer, bytesPerRow outBytesPerRow: Int) -> Bool {
        guard bitCount > 0, rows > 0 else { return true }
        let firstByte = bitOffset / 8, shift = bitOffset % 8
        let inBytes = (shift + bitCount + 7) / 8, outBytes = (bitCount + 7) / 8
        let inStride = (inBytes + 1 + 3) & ~3, outStride = (outBytes + 3) & ~3
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: (inStride + outStride) * rows, alignment: 16)
        defer { scratch.deallocate() }
        memset(scratch, 0, inStride * rows)
        let inRows = scratch, outRows = scratch + inStride * rows
        for row in 0 ..< rows {
            (inRows + row * inStride).copyMemory(from: source + row * bytesPerRow + firstByte, byteCount: inBytes)
        }
        let tail = bitCount % 8 == 0 ? 8 : bitCount % 8
        let keep = UInt8(truncatingIfNeeded: 0xFF << (8 - tail))
        let palettes = [BytePalette { UInt8(truncatingIfNeeded: $0 << shift) },
                        BytePalette { shift == 0 ? 0 : $0 >> (8 - shift) },
                        BytePalette { UInt8(truncatingIfNeeded: $0 << shift) & keep },
                        BytePalette { (shift == 0 ? 0 : $0 >> (8 - shift)) & keep }]
        guard let from = PixmanImage(format: PIXMAN_c8, width: inStride, height: rows, bits: inRows, bytesPerRow: inStride),
              let to = PixmanImage(format: PIXMAN_a8, width: outStride, height: rows, bits: outRows, bytesPerRow: outStride)
        else { return false }
        let body = PixelBox(x: 0, y: 0, width: outBytes - 1, height: rows)
        let last = PixelBox(x: outBytes - 1, y: 0, width: 1, height: rows)
        for (index, (box, op, sourceShift)) in [(body, PIXMAN_OP_SRC, 0), (body, PIXMAN_OP_ADD, 1),
                                                (last, PIXMAN_OP_SRC, 0), (last, PIXMAN_OP_ADD, 1)].enumerated() {
            pixman_image_set_indexed(from.pointer, palettes[index].pointer)
            pixmanComposite(op, from, mask: nil, onto: to, box: box, sourceOrigin: (-sourceShift, 0))
        }
        for row in 0 ..< rows {
            (destination + row * outBytesPerRow).copyMemory(from: outRows + row * outStride, byteCount: outBytes)
        }
        return true
    }

    /// Bytes per word and words per pixel for a pixel of `bytes` bytes: the widest word pixman
    /// moves unchanged (4, 3, 2 or 1 bytes) that splits the pixel into a power-of-two count.
    static func wordSplit(_ bytes: Int) -> (wordBytes: Int, words: Int)? {
        for size in [4, 3, 2, 1] where bytes % size == 0 {
            let n = bytes / size
            if n & (n - 1) == 0 { return (size, n) }
        }
        return nil
    }

    /// A pixman format of `bytes` bytes per pixel that stores the bytes it fetched unchanged.
    static func wordFormat(_ bytes: Int) -> pixman_format_code_t {
        switch bytes {
        case 4: PIXMAN_a8r8g8b8
        case 3: PIXMAN_r8g8b8
        case 2: PIXMAN_r5g6b5     // 5/6 bits widened by replication and narrowed by truncation: exact
        default: PIXMAN_a8
        }
    }

    /// An `n`×1 `a8` mask, opaque only at column `k`, repeating.
    static func everyNthWord(_ n: Int, keeping k: Int) -> PixmanImage? {
        guard let mask = PixmanImage(format: PIXMAN_a8, width: n, height: 1, bits: nil, bytesPerRow: (n + 3) & ~3),
              let bits = pixman_image_get_data(mask.pointer)
        else { return nil }
        UnsafeMutableRawPointer(bits).storeBytes(of: 0xFF, toByteOffset: k, as: UInt8.self)
        pixman_image_set_repeat(mask.pointer, PIXMAN_REPEAT_NORMAL)
        return mask
    }
}

/// A pixman palette mapping each byte value to a byte (as the entry's alpha, colour channels zero):
/// a lookup table pixman applies when an `a8` image is composited from a `c8` one.
final class BytePalette {
    let pointer: UnsafeMutablePointer<pixman_indexed_t>

    init(_ map: (UInt8) -> UInt8) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: pixman_indexed_t())
        withUnsafeMutableBytes(of: &pointer.pointee.rgba) { raw in
            let entries = raw.bindMemory(to: UInt32.self)
            for v in 0 ..< 256 { entries[v] = UInt32(map(UInt8(v))) << 24 }     // per table entry, not per pixel
        }
    }

    deinit { pointer.deallocate() }
}
