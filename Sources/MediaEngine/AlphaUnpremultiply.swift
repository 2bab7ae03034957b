// Premultiplied → straight alpha for the image encoders (PNG and TIFF store straight alpha), in
// pixman and VOLK: a per-sample Swift loop would run unoptimised in a client's debug build.
internal import CPixman
internal import CVolk
import Foundation

/// Divides colour by alpha in packed pixels, with the rounding of integer arithmetic.
enum AlphaUnpremultiply {
    /// Divides the colour samples by alpha, in place, in `height` rows (`linesize` bytes apart, a
    /// multiple of 4) of `width` pixels of `components` samples, alpha last: 8-bit samples, or
    /// 16-bit big-endian ones when `is16Bit`. Each colour c with alpha a becomes
    /// `a == 0 ? 0 : min(M, (c·M + a/2) / a)` in integer arithmetic (M = 255 or 65535) — which is
    /// c·M/a rounded half up, clamped to M.
    ///
    /// How: pixman widens the bytes into 32-bit integers (SRC of `a8` into `b8g8r8a8`, whose
    /// alpha is the low byte) and narrows them back the same way; VOLK does the rest on whole
    /// strips — integers to floats, big-endian pairs joined (hi·256 + lo), samples split into
    /// planes (two deinterleaves), and in doubles 1/a (a float reciprocal and one Newton step),
    /// c·M·(1/a), the clamp, ×min(a, 1) (0 where a is 0), + 10⁻⁶ (ties round up; other
    /// quotients are at least 1/(2·65535) from a half) and rounding by adding and subtracting
    /// 1.5·2⁵². False when pixman cannot address the rows (a stride not a multiple of 4).
    static func unpremultiply(_ plane: UnsafeMutableRawPointer, width: Int, height: Int, linesize: Int,
                              components: Int, is16Bit: Bool) -> Bool {
        guard width > 0, height > 0, components == 2 || components == 4 else { return true }
        guard linesize % 4 == 0 else { return false }
        let sampleBytes = is16Bit ? 2 : 1
        let rowBytes = width * components * sampleBytes
        let stripRows = max(1, min(height, (1 << 16) / rowBytes))
        let maxBytes = stripRows * rowBytes
        let maxPixels = maxBytes / (components * sampleBytes)
        // Scratch: integers and floats per byte; float planes and double planes per pixel.
        let ints = UnsafeMutablePointer<Int32>.allocate(capacity: maxBytes)
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: maxBytes)
        let work = UnsafeMutablePointer<Float>.allocate(capacity: maxBytes)
        let planeCount = components + 2          // the samples, then a' and 1/a'
        let planes = UnsafeMutablePointer<Float>.allocate(capacity: maxPixels * planeCount)
        let constants = UnsafeMutablePointer<Float>.allocate(capacity: maxPixels * 2)
        let doubles = UnsafeMutablePointer<Double>.allocate(capacity: maxPixels * 10)
        defer {
            ints.deallocate(); floats.deallocate(); work.deallocate(); planes.deallocate()
            constants.deallocate(); doubles.deallocate()
        }
        let n = UInt32(maxPixels)
        // Constant planes (memset then an offset: no Swift loop), in floats and doubles.
        let half = constants, one = constants + maxPixels
        memset(constants, 0, maxPixels * 2 * MemoryLayout<Float>.size)
        avf_volk_offset(half, half, 0.5, n)
        avf_volk_offset(one, one, 1, n)
        func doublePlane(_ i: Int) -> UnsafeMutablePointer<Double> { doubles + i * maxPixels }
        let maxD = doublePlane(0), minusOneD = doublePlane(1), twoD = doublePlane(2), epsilonD = doublePlane(3)
        let magicD = doublePlane(4), minusMagicD = doublePlane(5)
        let reciprocalD = doublePlane(6), scaleD = doublePlane(7), sampleD = doublePlane(8), tempD = doublePlane(9)
        let magic: Float = 6_755_399_441_055_744   // 1.5 · 2^52: adding it rounds a double to a whole number
        for (plane, value) in [(maxD, Float(is16Bit ? 65535 : 255)), (minusOneD, -1), (twoD, 2), (epsilonD, 1e-6),
                               (magicD, magic), (minusMagicD, -magic)] {
            avf_volk_scale(work, one, value, n)
            avf_volk_convert_32f_64f(plane, work, n)
        }
        var row = 0
        while row < height {
            let rows = min(stripRows, height - row)
            let bytes = rows * rowBytes
            let pixels = bytes / (components * sampleBytes)
            let p = UInt32(pixels)
            let strip = plane + row * linesize
            guard let packed = PixmanPicture(format: PIXMAN_a8, width: rowBytes, height: rows, bits: strip, bytesPerRow: linesize),
                  let wide = PixmanPicture(format: PIXMAN_b8g8r8a8, width: rowBytes, height: rows, bits: ints,
                                           bytesPerRow: rowBytes * 4)
            else { return false }
            func copy(_ from: PixmanPicture, _ to: PixmanPicture) {
                pixman_image_composite32(PIXMAN_OP_SRC, from.pointer, nil, to.pointer, 0, 0, 0, 0, 0, 0,
                                         Int32(rowBytes), Int32(rows))
            }
            copy(packed, wide)
            avf_volk_convert_32i_32f(floats, ints, UInt32(bytes))
            // Samples as floats in `floats` (16-bit: big-endian byte pairs joined).
            let samples = bytes / sampleBytes
            if is16Bit {
                avf_volk_deinterleave2(work, work + samples, floats, UInt32(samples))
                avf_volk_scale(floats, work, 256, UInt32(samples))
                avf_volk_accumulate(floats, work + samples, UInt32(samples))
            }
            // Planes: colour samples, then alpha.
            let c = (0 ..< components).map { planes + $0 * maxPixels }
            if components == 4 {
                avf_volk_deinterleave2(work, work + samples / 2, floats, UInt32(samples / 2))   // (c0 c2) (c1 a)
                avf_volk_deinterleave2(c[0], c[2], work, p)
                avf_volk_deinterleave2(c[1], c[3], work + samples / 2, p)
            } else {
                avf_volk_deinterleave2(c[0], c[1], floats, p)
            }
            let alpha = c[components - 1]
            let safeAlpha = planes + components * maxPixels, reciprocal = planes + (components + 1) * maxPixels
            avf_volk_max(safeAlpha, alpha, half, p)                // a' = max(a, ½): no division by zero
            avf_volk_divide(reciprocal, one, safeAlpha, p)         // 1/a' in float
            avf_volk_convert_32f_64f(reciprocalD, reciprocal, p)
            avf_volk_convert_32f_64f(tempD, safeAlpha, p)
            avf_volk_multiply64(tempD, tempD, reciprocalD, p)      // Newton: r ← r·(2 − a'·r)
            avf_volk_multiply64(tempD, tempD, minusOneD, p)
            avf_volk_add64(tempD, tempD, twoD, p)
            avf_volk_multiply64(reciprocalD, reciprocalD, tempD, p)
            avf_volk_min(work, alpha, one, p)                      // min(a, 1): 0 where a is 0, else 1
            avf_volk_convert_32f_64f(scaleD, work, p)
            for k in 0 ..< components - 1 {
                avf_volk_convert_32f_64f(sampleD, c[k], p)
                avf_volk_multiply64(sampleD, sampleD, maxD, p)
                avf_volk_multiply64(sampleD, sampleD, reciprocalD, p)
                avf_volk_min64(sampleD, sampleD, maxD, p)
                avf_volk_multiply64(sampleD, sampleD, scaleD, p)
                avf_volk_add64(sampleD, sampleD, epsilonD, p)
                avf_volk_add64(sampleD, sampleD, magicD, p)
                avf_volk_add64(sampleD, sampleD, minusMagicD, p)
                avf_volk_convert_64f_32f(c[k], sampleD, p)
            }
            // Back into packed samples.
            if components == 4 {
                avf_volk_interleave2(work, c[0], c[2], p)
                avf_volk_interleave2(work + samples / 2, c[1], c[3], p)
                avf_volk_interleave2(floats, work, work + samples / 2, UInt32(samples / 2))
            } else {
                avf_volk_interleave2(floats, c[0], c[1], p)
            }
            if is16Bit {
                // hi = round((v − 127.5) / 256) (the fraction stays within ±0.499), lo = v − 256·hi.
                let hi = work, lo = work + samples
                avf_volk_scale(hi, floats, 1.0 / 256, UInt32(samples))
                avf_volk_offset(hi, hi, -127.5 / 256, UInt32(samples))
                avf_volk_offset(hi, hi, 12_582_912, UInt32(samples))     // 1.5 · 2^23: rounds a float
                avf_volk_offset(hi, hi, -12_582_912, UInt32(samples))
                avf_volk_scale(lo, hi, -256, UInt32(samples))
                avf_volk_accumulate(lo, floats, UInt32(samples))
                avf_volk_interleave2(floats, hi, lo, UInt32(samples))
            }
            avf_volk_convert_32f_32i(ints, floats, UInt32(bytes))
            copy(wide, packed)
            row += rows
        }
        return true
    }
}
