// Images pixman cannot read directly (16-bit and float components, indexed colour, 1/2/4-bit
// pixels, decode arrays, RGB drawn into grey), converted once per draw into the premultiplied 8-bit
// planes the rasteriser composites. Every per-pixel step is pixman or VOLK, never a Swift loop (a
// client's debug build would run it unoptimised):
//   pixman  picks each pixel's components out of the interleaved rows (a nearest-sampled transform
//           x' = n·x + k over the row bytes or 32-bit words), splits 1/2/4-bit pixels (one palette
//           per position in the byte, interleaved by repeating masks), looks up colour tables
//           (`c8` palettes), widens bytes into 32-bit integers (`a8` → `b8g8r8a8`, the byte in the
//           low one) and narrows them back;
//   VOLK    does the arithmetic on the planes: integers to floats, 16-bit pairs joined, byte
//           swaps, decode arrays, clamps, straight alpha premultiplied (or premultiplied colour
//           clamped to alpha), luma in doubles, and the final ⌊v·255 + ½⌋ (in doubles: a whole
//           number by adding and subtracting 1.5·2⁵²).
// The arithmetic is the same IEEE operations in the same order as the per-pixel code it replaces,
// so the bytes are too. The image is processed in tiles of at most 2048 columns (pixman's 16.16
// coordinates stay far from their limit) by 32 rows.
internal import CPixman
internal import CVolk
import Foundation

/// Converts images pixman cannot read into `SourcePlanes`.
enum ImageDecoder {
    static let tileColumns = 2048, tileRows = 32

    /// `image` as premultiplied 8-bit planes for a destination of `model` (a colour image for RGB
    /// and alpha-only destinations; luma and alpha planes for grey ones); nil for layouts or colour
    /// spaces that cannot be read (CMYK, Lab, XYZ, 5-bit and packed formats, half floats).
    static func planes(_ image: CGImage, model: DestinationModel) -> SourcePlanes? {
        let space = image.colorSpace
        let alphaInfo = image.alphaInfo
        var table: [UInt8]? = nil
        var baseModel = space?.model
        let colorComponents: Int
        if alphaInfo == .alphaOnly {
            colorComponents = 0
        } else if let space, space.model == .indexed, let base = space.baseColorSpace {
            table = space.colorTable
            baseModel = base.model
            colorComponents = 1
        } else if let space {
            colorComponents = space.numberOfComponents
        } else {
            return nil
        }
        if alphaInfo != .alphaOnly {
            guard baseModel == .rgb || baseModel == .monochrome else { return nil }
        }
        guard let layout = PixelLayout(bitsPerComponent: image.bitsPerComponent, bitsPerPixel: image.bitsPerPixel,
                                       colorComponents: colorComponents, bitmapInfo: image.bitmapInfo)
        else { return nil }
        // Colour tables index with 8-bit or packed components (as Quartz allows: 1, 2, 4 or 8 bits).
        if table != nil {
            switch layout.storage {
            case .uint8, .packedBits: break
            default: return nil
            }
        }
        var decode: [Float]? = nil
        if let pointer = image.decode, colorComponents > 0, table == nil {
            decode = (0..<(colorComponents * 2)).map { Float(pointer[$0]) }
        }
        let w = image.width, h = image.height
        var planes = SourcePlanes()
        if model == .gray {
            guard let luma = PixmanImage(format: PIXMAN_a8, width: w, height: h, bits: nil, bytesPerRow: 0),
                  let alpha = PixmanImage(format: PIXMAN_a8, width: w, height: h, bits: nil, bytesPerRow: 0)
            else { return nil }
            planes.luma = luma
            planes.alpha = alpha
        } else {
            guard let color = PixmanImage(format: PIXMAN_a8r8g8b8, width: w, height: h, bits: nil, bytesPerRow: 0)
            else { return nil }
            planes.color = color
        }
        let palette = table.map { Palette(table: $0, baseComponents: baseModel == .rgb ? 3 : 1) }
        let job = Job(layout: layout, bitsPerComponent: image.bitsPerComponent, table: palette,
                      baseComponents: baseModel == .rgb ? 3 : 1, decode: decode, model: model)
        let rowBytes = (w * image.bitsPerPixel + 7) / 8
        let done = image.bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            guard let base = raw.baseAddress, raw.count >= image.bytesPerRow * (h - 1) + rowBytes else { return false }
            return withAlignedRows(base, bytesPerRow: image.bytesPerRow, rowBytes: rowBytes, rows: h) { rows, rowStride in
                let scratch = Scratch(pixels: min(tileColumns, w) * min(tileRows, h))
                for y in stride(from: 0, to: h, by: tileRows) {
                    for x in stride(from: 0, to: w, by: tileColumns) {
                        let tile = Tile(x: x, y: y, width: min(tileColumns, w - x), height: min(tileRows, h - y))
                        guard job.run(tile, rows: rows, bytesPerRow: rowStride, bitsPerPixel: image.bitsPerPixel,
                                      into: planes, scratch: scratch) else { return false }
                    }
                }
                return true
            }
        }
        return done ? planes : nil
    }

    /// Calls `body` with rows pixman can address: `base` itself when its stride and start are
    /// multiples of 4, else an aligned copy (one `memcpy` per row).
    static func withAlignedRows(_ base: UnsafeRawPointer, bytesPerRow: Int, rowBytes: Int, rows: Int,
                                _ body: (UnsafeMutableRawPointer, Int) -> Bool) -> Bool {
        if bytesPerRow % 4 == 0, Int(bitPattern: base) % 4 == 0 { return body(UnsafeMutableRawPointer(mutating: base), bytesPerRow) }
        let stride = (rowBytes + 3) & ~3
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(1, stride * rows), alignment: 16)
        defer { copy.deallocate() }
        for row in 0 ..< rows { (copy + row * stride).copyMemory(from: base + row * bytesPerRow, byteCount: rowBytes) }
        return body(copy, stride)
    }

    struct Tile {
        var x: Int, y: Int, width: Int, height: Int
        var pixels: Int { width * height }
    }

    /// A colour table as a pixman palette: index → opaque colour (grey tables replicated into
    /// R, G and B); indices past the table are opaque black.
    final class Palette {
        let pointer: UnsafeMutablePointer<pixman_indexed_t>

        init(table: [UInt8], baseComponents: Int) {
            pointer = .allocate(capacity: 1)
            pointer.initialize(to: pixman_indexed_t())
            withUnsafeMutableBytes(of: &pointer.pointee.rgba) { raw in
                let entries = raw.bindMemory(to: UInt32.self)
                for index in 0 ..< 256 {      // one entry per index, not per pixel
                    let entry = index * baseComponents
                    var rgb: (UInt32, UInt32, UInt32) = (0, 0, 0)
                    if entry + baseComponents <= table.count {
                        rgb = baseComponents == 3 ? (UInt32(table[entry]), UInt32(table[entry + 1]), UInt32(table[entry + 2]))
                                                  : (UInt32(table[entry]), UInt32(table[entry]), UInt32(table[entry]))
                    }
                    entries[index] = 0xFF00_0000 | rgb.0 << 16 | rgb.1 << 8 | rgb.2
                }
            }
        }

        deinit { pointer.deallocate() }
    }

    /// Palettes that read the `position`-th of the 8/bits values packed in a byte (most
    /// significant first), as the alpha byte: indexed by bits (1, 2, 4), then position.
    nonisolated(unsafe) static let subBytePalettes: [Int: [UnsafeMutablePointer<pixman_indexed_t>]] = {
        var all: [Int: [UnsafeMutablePointer<pixman_indexed_t>]] = [:]
        for bits in [1, 2, 4] {
            all[bits] = (0 ..< 8 / bits).map { position in
                let palette = UnsafeMutablePointer<pixman_indexed_t>.allocate(capacity: 1)
                palette.initialize(to: pixman_indexed_t())
                withUnsafeMutableBytes(of: &palette.pointee.rgba) { raw in
                    let entries = raw.bindMemory(to: UInt32.self)
                    for byte in 0 ..< 256 {
                        entries[byte] = UInt32((byte >> (8 - bits * (position + 1))) & ((1 << bits) - 1)) << 24
                    }
                }
                return palette
            }
        }
        return all
    }()

    /// Buffers for one tile, reused across tiles: integers and floats per component, doubles for
    /// luma and rounding, constant vectors.
    final class Scratch {
        let pixels: Int
        let ints: UnsafeMutablePointer<Int32>         // 4 per pixel
        let floats: UnsafeMutablePointer<Float>       // 8 planes
        let doubles: UnsafeMutablePointer<Double>     // 2 planes
        let bytes: UnsafeMutableRawPointer            // an 8-bit plane (indices), then 32-bit colours
        let zero: UnsafeMutablePointer<Float>, one: UnsafeMutablePointer<Float>
        let c255: UnsafeMutablePointer<Float>, c65535: UnsafeMutablePointer<Float>, cBits: UnsafeMutablePointer<Float>
        let lumaR: UnsafeMutablePointer<Double>, lumaG: UnsafeMutablePointer<Double>, lumaB: UnsafeMutablePointer<Double>
        let minusHalf: UnsafeMutablePointer<Double>, tiny: UnsafeMutablePointer<Double>
        let magic: UnsafeMutablePointer<Double>, minusMagic: UnsafeMutablePointer<Double>
        private let constants: UnsafeMutableRawPointer

        init(pixels: Int) {
            self.pixels = pixels
            ints = .allocate(capacity: pixels * 4)
            floats = .allocate(capacity: pixels * 8)
            doubles = .allocate(capacity: pixels * 2)
            bytes = .allocate(byteCount: Scratch.indexBytes(pixels) + pixels * 4, alignment: 16)
            let block = UnsafeMutableRawPointer.allocate(byteCount: pixels * (5 * 4 + 7 * 8), alignment: 16)
            constants = block
            let f = (0 ..< 5).map { (block + $0 * pixels * 4).assumingMemoryBound(to: Float.self) }
            let d = (0 ..< 7).map { (block + pixels * 20 + $0 * pixels * 8).assumingMemoryBound(to: Double.self) }
            for (p, v) in zip(f, [0, 1, 255, 65535, 0] as [Float]) { Scratch.fill(p, v, pixels) }
            for (p, v) in zip(d, [0.299, 0.587, 0.114, -0.5, 0x1p-30, 0x1.8p52, -0x1.8p52]) { Scratch.fill(p, v, pixels) }
            (zero, one, c255, c65535, cBits) = (f[0], f[1], f[2], f[3], f[4])
            (lumaR, lumaG, lumaB, minusHalf, tiny, magic, minusMagic) = (d[0], d[1], d[2], d[3], d[4], d[5], d[6])
        }

        deinit {
            ints.deallocate(); floats.deallocate(); doubles.deallocate(); bytes.deallocate(); constants.deallocate()
        }

        /// The size of a tile's byte plane (rows padded to 4 bytes, which adds at most 3 per row of
        /// at least 1 pixel), rounded up to 64: the tile's colours follow it.
        static func indexBytes(_ pixels: Int) -> Int { (pixels * 4 + 63) & ~63 }

        /// Float plane `i` (of 8).
        func plane(_ i: Int) -> UnsafeMutablePointer<Float> { floats + i * pixels }

        /// `count` copies of `value` at `p`: one store, then copies doubling in length (no loop per element).
        static func fill<T>(_ p: UnsafeMutablePointer<T>, _ value: T, _ count: Int) {
            guard count > 0 else { return }
            p.initialize(to: value)
            var filled = 1
            while filled < count {
                let n = min(filled, count - filled)
                memcpy(p + filled, p, n * MemoryLayout<T>.stride)
                filled += n
            }
        }
    }

    /// What to do with each tile.
    struct Job {
        let layout: PixelLayout
        let bitsPerComponent: Int
        let table: Palette?
        let baseComponents: Int
        let decode: [Float]?
        let model: DestinationModel

        /// Decodes `tile` of the source rows into the output planes.
        func run(_ tile: Tile, rows: UnsafeMutableRawPointer, bytesPerRow: Int, bitsPerPixel: Int,
                 into planes: SourcePlanes, scratch s: Scratch) -> Bool {
            let n = UInt32(tile.pixels)
            let source = rows + tile.y * bytesPerRow + tile.x * bitsPerPixel / 8
            // 1. Colour components (count) and alpha as float planes 0…3 and 4.
            var count = 0
            let alpha = s.plane(4)
            var hasAlpha = false
            if let table {
                // Indices (a byte plane) looked up through the palette into 32-bit colours, whose
                // bytes B, G, R are read back as components 0…255.
                let colorBytes = s.bytes + Scratch.indexBytes(s.pixels)
                guard indices(tile, source: source, bytesPerRow: bytesPerRow, bitsPerPixel: bitsPerPixel, scratch: s),
                      let idx = PixmanImage(format: PIXMAN_c8, width: tile.width, height: tile.height, bits: s.bytes,
                                            bytesPerRow: (tile.width + 3) & ~3),
                      let colors = PixmanImage(format: PIXMAN_a8r8g8b8, width: tile.width, height: tile.height,
                                               bits: colorBytes, bytesPerRow: tile.width * 4)
                else { return false }
                pixman_image_set_indexed(idx.pointer, table.pointer)
                pixmanComposite(PIXMAN_OP_SRC, idx, mask: nil, onto: colors, box: PixelBox(x: 0, y: 0, width: tile.width, height: tile.height))
                count = baseComponents
                for i in 0 ..< count {
                    guard extractBytes(from: colorBytes, bytesPerRow: tile.width * 4, bytesPerPixel: 4, byte: 2 - i, tile: tile,
                                       into: s.plane(i), scratch: s) else { return false }
                    avf_volk_divide(s.plane(i), s.plane(i), s.c255, n)
                }
                if let alphaOffset = layout.alphaOffset, case .uint8 = layout.storage {
                    guard extractBytes(from: source, bytesPerRow: bytesPerRow, bytesPerPixel: bitsPerPixel / 8, byte: alphaOffset,
                                       tile: tile, into: alpha, scratch: s) else { return false }
                    avf_volk_divide(alpha, alpha, s.c255, n)
                    hasAlpha = true
                }
            } else if case .packedBits(let bits) = layout.storage {
                guard indices(tile, source: source, bytesPerRow: bytesPerRow, bitsPerPixel: bitsPerPixel, scratch: s),
                      widen(s.bytes, bytesPerRow: (tile.width + 3) & ~3, tile: tile, into: s.plane(0), scratch: s)
                else { return false }
                avf_volk_offset(s.cBits, s.zero, Float((1 << bits) - 1), n)
                avf_volk_divide(s.plane(0), s.plane(0), s.cBits, n)
                count = 1
            } else {
                count = layout.colorOffsets.count
                let targets = Array(layout.colorOffsets.enumerated().map { ($0.element, s.plane($0.offset)) })
                    + (layout.alphaOffset.map { [($0, alpha)] } ?? [])
                for (offset, plane) in targets {
                    guard component(at: offset, source: source, bytesPerRow: bytesPerRow, bitsPerPixel: bitsPerPixel,
                                    tile: tile, into: plane, scratch: s) else { return false }
                }
                hasAlpha = layout.alphaOffset != nil
            }
            if hasAlpha {
                avf_volk_max(alpha, alpha, s.zero, n)
                avf_volk_min(alpha, alpha, s.one, n)
            } else {
                memcpy(alpha, s.one, tile.pixels * 4)
            }
            // 2. Decode array, clamp, premultiply.
            if let decode {
                for i in 0 ..< count {
                    avf_volk_scale(s.plane(i), s.plane(i), decode[2 * i + 1] - decode[2 * i], n)
                    avf_volk_offset(s.plane(i), s.plane(i), decode[2 * i], n)
                }
            }
            for i in 0 ..< count {
                avf_volk_max(s.plane(i), s.plane(i), s.zero, n)
                avf_volk_min(s.plane(i), s.plane(i), s.one, n)
                if layout.premultiplied {
                    avf_volk_min(s.plane(i), s.plane(i), alpha, n)
                } else {
                    avf_volk_multiply(s.plane(i), s.plane(i), alpha, n)
                }
            }
            // 3. Into the destination's model: planes 5, 6, 7 are R, G, B (or luma in 5).
            let r = s.plane(5), g = s.plane(6), b = s.plane(7)
            switch (model, count) {
            case (.rgb, 3):
                memcpy(r, s.plane(0), tile.pixels * 4)
                memcpy(g, s.plane(1), tile.pixels * 4)
                memcpy(b, s.plane(2), tile.pixels * 4)
            case (.rgb, 1):
                for p in [r, g, b] { memcpy(p, s.plane(0), tile.pixels * 4) }
            case (.gray, 3):
                let sum = s.doubles, term = s.doubles + s.pixels
                avf_volk_convert_32f_64f(sum, s.plane(0), n)
                avf_volk_multiply64(sum, sum, s.lumaR, n)
                avf_volk_convert_32f_64f(term, s.plane(1), n)
                avf_volk_multiply64(term, term, s.lumaG, n)
                avf_volk_add64(sum, sum, term, n)
                avf_volk_convert_32f_64f(term, s.plane(2), n)
                avf_volk_multiply64(term, term, s.lumaB, n)
                avf_volk_add64(sum, sum, term, n)
                avf_volk_convert_64f_32f(r, sum, n)
            case (.gray, 1):
                memcpy(r, s.plane(0), tile.pixels * 4)
            default:
                for p in [r, g, b] { memcpy(p, s.zero, tile.pixels * 4) }
            }
            // 4. Bytes ⌊clamp(v)·255 + ½⌋, stored.
            for p in model == .gray ? [r, alpha] : [r, g, b, alpha] { toBytes(p, n, scratch: s) }
            if model == .gray {
                for (plane, image) in [(r, planes.luma), (alpha, planes.alpha)] {
                    guard let image, narrow(plane, tile: tile, into: image, scratch: s) else { return false }
                }
            } else {
                // Memory order B, G, R, A: (B R) and (G A) interleaved into planes 0–1 and 2–3, then
                // those into planes 4–7 (alpha, R, G, B are read by then).
                let br = s.plane(0), ga = s.plane(2), bgra = s.plane(4)
                avf_volk_interleave2(br, b, r, n)
                avf_volk_interleave2(ga, g, alpha, n)
                avf_volk_interleave2(bgra, br, ga, n * 2)
                guard let color = planes.color,
                      narrow(bgra, tile: Tile(x: tile.x * 4, y: tile.y, width: tile.width * 4, height: tile.height),
                             into: color, scratch: s)
                else { return false }
            }
            return true
        }

        /// ⌊clamp(v, 0, 1)·255 + ½⌋ in place (as whole-number floats).
        private func toBytes(_ p: UnsafeMutablePointer<Float>, _ n: UInt32, scratch s: Scratch) {
            let d = s.doubles
            avf_volk_max(p, p, s.zero, n)
            avf_volk_min(p, p, s.one, n)
            avf_volk_scale(p, p, 255, n)
            avf_volk_offset(p, p, 0.5, n)
            // floor(y) = rint(y − ½ + 2⁻³⁰) for y ≥ ½ with 24-bit precision, in doubles.
            avf_volk_convert_32f_64f(d, p, n)
            avf_volk_add64(d, d, s.minusHalf, n)
            avf_volk_add64(d, d, s.tiny, n)
            avf_volk_add64(d, d, s.magic, n)
            avf_volk_add64(d, d, s.minusMagic, n)
            avf_volk_convert_64f_32f(p, d, n)
        }

        /// Whole-number floats 0…255 at `values` (`tile.width` × `tile.height`, the tile in bytes)
        /// stored as bytes into `image`'s memory, seen as 8-bit rows, at the tile.
        private func narrow(_ values: UnsafeMutablePointer<Float>, tile: Tile, into image: PixmanImage,
                            scratch s: Scratch) -> Bool {
            let ints = s.ints      // room for 4 per pixel: the colour image's bytes
            avf_volk_convert_32f_32i(ints, values, UInt32(tile.pixels))
            guard let bits = pixman_image_get_data(image.pointer) else { return false }
            let stride = Int(pixman_image_get_stride(image.pointer))
            let start = UnsafeMutableRawPointer(bits) + tile.y * stride + tile.x
            guard let wide = PixmanImage(format: PIXMAN_b8g8r8a8, width: tile.width, height: tile.height,
                                         bits: UnsafeMutableRawPointer(ints), bytesPerRow: tile.width * 4),
                  let out = PixmanImage(format: PIXMAN_a8, width: tile.width, height: tile.height, bits: start, bytesPerRow: stride)
            else { return false }
            pixmanComposite(PIXMAN_OP_SRC, wide, mask: nil, onto: out, box: PixelBox(x: 0, y: 0, width: tile.width, height: tile.height))
            return true
        }

        /// Bytes of an 8-bit plane (`bytesPerRow` apart) widened into floats 0…255 at `out`.
        private func widen(_ bytes: UnsafeMutableRawPointer, bytesPerRow: Int, tile: Tile, into out: UnsafeMutablePointer<Float>,
                           scratch s: Scratch) -> Bool {
            guard let plane = PixmanImage(format: PIXMAN_a8, width: tile.width, height: tile.height, bits: bytes, bytesPerRow: bytesPerRow),
                  let wide = PixmanImage(format: PIXMAN_b8g8r8a8, width: tile.width, height: tile.height,
                                         bits: UnsafeMutableRawPointer(s.ints), bytesPerRow: tile.width * 4)
            else { return false }
            pixmanComposite(PIXMAN_OP_SRC, plane, mask: nil, onto: wide, box: PixelBox(x: 0, y: 0, width: tile.width, height: tile.height))
            avf_volk_convert_32i_32f(out, s.ints, UInt32(tile.pixels))
            return true
        }

        /// Byte `byte` of every pixel (`bytesPerPixel` bytes) of the tile, as floats 0…255 at `out`.
        private func extractBytes(from source: UnsafeRawPointer, bytesPerRow: Int, bytesPerPixel: Int, byte: Int, tile: Tile,
                                  into out: UnsafeMutablePointer<Float>, scratch s: Scratch) -> Bool {
            guard let from = PixmanImage(format: PIXMAN_a8, width: tile.width * bytesPerPixel, height: tile.height,
                                         bits: UnsafeMutableRawPointer(mutating: source), bytesPerRow: bytesPerRow),
                  let wide = PixmanImage(format: PIXMAN_b8g8r8a8, width: tile.width, height: tile.height,
                                         bits: UnsafeMutableRawPointer(s.ints), bytesPerRow: tile.width * 4),
                  from.configure(transform: pick(byte, of: bytesPerPixel), nearest: true, repeat: PIXMAN_REPEAT_PAD)
            else { return false }
            pixmanComposite(PIXMAN_OP_SRC, from, mask: nil, onto: wide, box: PixelBox(x: 0, y: 0, width: tile.width, height: tile.height))
            avf_volk_convert_32i_32f(out, s.ints, UInt32(tile.pixels))
            return true
        }

        /// Destination pixel centre x + ½ → the centre of word k of source pixel x, pixels `n` words wide.
        private func pick(_ k: Int, of n: Int) -> CGAffineTransform {
            CGAffineTransform(a: CGFloat(n), b: 0, c: 0, d: 1, tx: CGFloat(k) + 0.5 - CGFloat(n) / 2, ty: 0)
        }

        /// The component at byte `offset` of each pixel, as floats normalised to 0…1 (floats as stored).
        private func component(at offset: Int, source: UnsafeRawPointer, bytesPerRow: Int, bitsPerPixel: Int, tile: Tile,
                               into out: UnsafeMutablePointer<Float>, scratch s: Scratch) -> Bool {
            let n = UInt32(tile.pixels)
            let bytesPerPixel = bitsPerPixel / 8
            switch layout.storage {
            case .uint8:
                guard extractBytes(from: source, bytesPerRow: bytesPerRow, bytesPerPixel: bytesPerPixel, byte: offset,
                                   tile: tile, into: out, scratch: s) else { return false }
                avf_volk_divide(out, out, s.c255, n)
            case .uint16(let bigEndian):
                let low = s.plane(7)      // free until the planes are put in the destination's model
                guard extractBytes(from: source, bytesPerRow: bytesPerRow, bytesPerPixel: bytesPerPixel,
                                   byte: offset + (bigEndian ? 0 : 1), tile: tile, into: out, scratch: s),
                      extractBytes(from: source, bytesPerRow: bytesPerRow, bytesPerPixel: bytesPerPixel,
                                   byte: offset + (bigEndian ? 1 : 0), tile: tile, into: low, scratch: s)
                else { return false }
                avf_volk_scale(out, out, 256, n)
                avf_volk_accumulate(out, low, n)
                avf_volk_divide(out, out, s.c65535, n)
            case .float32(let bigEndian):
                guard let from = PixmanImage(format: PIXMAN_a8r8g8b8, width: tile.width * bytesPerPixel / 4, height: tile.height,
                                             bits: UnsafeMutableRawPointer(mutating: source), bytesPerRow: bytesPerRow),
                      let words = PixmanImage(format: PIXMAN_a8r8g8b8, width: tile.width, height: tile.height,
                                              bits: UnsafeMutableRawPointer(out), bytesPerRow: tile.width * 4),
                      from.configure(transform: pick(offset / 4, of: bytesPerPixel / 4), nearest: true, repeat: PIXMAN_REPEAT_PAD)
                else { return false }
                pixmanComposite(PIXMAN_OP_SRC, from, mask: nil, onto: words, box: PixelBox(x: 0, y: 0, width: tile.width, height: tile.height))
                if bigEndian {
                    out.withMemoryRebound(to: UInt32.self, capacity: tile.pixels) { avf_volk_byteswap32($0, n) }
                }
            case .packedBits:
                return false
            }
            return true
        }

        /// The tile's pixel values (indices or grey levels) as a byte plane at `scratch.bytes`, rows
        /// `(width + 3) & ~3` apart: 8-bit components picked out of their pixels, 1/2/4-bit ones
        /// split out of their bytes — one palette per position in the byte, each stretched over
        /// the tile and kept in every (8/bits)-th column by a repeating mask (SRC for the first,
        /// ADD onto the zeros it left for the others).
        private func indices(_ tile: Tile, source: UnsafeRawPointer, bytesPerRow: Int, bitsPerPixel: Int,
                             scratch s: Scratch) -> Bool {
            let stride = (tile.width + 3) & ~3
            guard let out = PixmanImage(format: PIXMAN_a8, width: tile.width, height: tile.height, bits: s.bytes, bytesPerRow: stride)
            else { return false }
            let box = PixelBox(x: 0, y: 0, width: tile.width, height: tile.height)
            if case .packedBits(let bits) = layout.storage {
                let perByte = 8 / bits
                guard let palettes = ImageDecoder.subBytePalettes[bits],
                      let packed = PixmanImage(format: PIXMAN_c8, width: (tile.width * bits + 7) / 8, height: tile.height,
                                               bits: UnsafeMutableRawPointer(mutating: source), bytesPerRow: bytesPerRow)
                else { return false }
                guard packed.configure(transform: CGAffineTransform(a: 1 / CGFloat(perByte), b: 0, c: 0, d: 1, tx: 0, ty: 0),
                                       nearest: true, repeat: PIXMAN_REPEAT_PAD) else { return false }
                for (position, palette) in palettes.enumerated() {
                    guard let keep = PixelRemap.everyNthWord(perByte, keeping: position) else { return false }
                    pixman_image_set_indexed(packed.pointer, palette)
                    pixmanComposite(position == 0 ? PIXMAN_OP_SRC : PIXMAN_OP_ADD, packed, mask: keep, onto: out, box: box)
                }
                return true
            }
            guard let offset = layout.colorOffsets.first,
                  let from = PixmanImage(format: PIXMAN_a8, width: tile.width * bitsPerPixel / 8, height: tile.height,
                                         bits: UnsafeMutableRawPointer(mutating: source), bytesPerRow: bytesPerRow),
                  from.configure(transform: pick(offset, of: bitsPerPixel / 8), nearest: true, repeat: PIXMAN_REPEAT_PAD)
            else { return false }
            pixmanComposite(PIXMAN_OP_SRC, from, mask: nil, onto: out, box: box)
            return true
        }
    }
}
