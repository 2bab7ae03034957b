// The bitmap CGContext's rasteriser: every per-pixel operation (fills, clears, image drawing with
// scaling, filtering and transforms) runs in pixman, the compositing library under Cairo's image
// surfaces, directly on the context's memory. pixman is always built optimised (SSE2/SSSE3/NEON
// fast paths), so drawing costs the same in a client's debug build as in its release build.
//
// Coordinates: pixman's destination space has its origin at the top-left of the bitmap's memory
// with y down; Core Graphics' device space has it at the bottom-left with y up. A pixman image's
// transform maps destination coordinates to source (image) coordinates, sampled at pixel centres.
internal import CPixman
import Foundation

/// A pixman image (`pixman_image_t *`), released when the wrapper goes away.
final class PixmanImage {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// An image over `bits` (not copied, not freed); nil when pixman refuses the geometry (the
    /// row stride must be a multiple of 4 bytes).
    convenience init?(format: pixman_format_code_t, width: Int, height: Int, bits: UnsafeMutableRawPointer?,
                      bytesPerRow: Int) {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max),
              bytesPerRow % 4 == 0, bytesPerRow <= Int(Int32.max),
              let image = pixman_image_create_bits(format, Int32(width), Int32(height),
                                                   bits?.assumingMemoryBound(to: UInt32.self), Int32(bytesPerRow))
        else { return nil }
        self.init(image)
    }

    /// A solid colour: premultiplied components in 0...1, quantised to 8 bits the way a stored
    /// pixel would be (pixman keeps 16 bits and truncates to 8, so v8 × 257 is exact).
    convenience init(red: Float, green: Float, blue: Float, alpha: Float) {
        func channel(_ v: Float) -> UInt16 { UInt16((min(max(v, 0), 1) * 255).rounded()) * 257 }
        var color = pixman_color_t(red: channel(red), green: channel(green), blue: channel(blue),
                                   alpha: channel(alpha))
        self.init(pixman_image_create_solid_fill(&color))
    }

    /// A solid alpha-only colour: a coverage or opacity mask.
    convenience init(alpha: Float) { self.init(red: 0, green: 0, blue: 0, alpha: alpha) }

    deinit { pixman_image_unref(pointer) }

    /// Sets how the image is sampled when composited: `transform` maps destination pixel
    /// coordinates to this image's pixel coordinates.
    func configure(transform: CGAffineTransform, nearest: Bool, repeat mode: pixman_repeat_t) -> Bool {
        var f = pixman_f_transform()
        f.m = ((Double(transform.a), Double(transform.c), Double(transform.tx)),
               (Double(transform.b), Double(transform.d), Double(transform.ty)),
               (0, 0, 1))
        var fixed = pixman_transform()
        guard pixman_transform_from_pixman_f_transform(&fixed, &f) != 0,
              pixman_image_set_transform(pointer, &fixed) != 0,
              pixman_image_set_filter(pointer, nearest ? PIXMAN_FILTER_NEAREST : PIXMAN_FILTER_BILINEAR, nil, 0) != 0
        else { return false }
        pixman_image_set_repeat(pointer, mode)
        return true
    }
}

/// An integer pixel box in pixman's destination space (y down).
struct PixelBox {
    var x: Int, y: Int, width: Int, height: Int
    var isEmpty: Bool { width <= 0 || height <= 0 }
}

/// One composite: `op` of `source` (through `mask`, when given) onto `destination` over `box`.
/// Source and mask are sampled at the destination's coordinates (their transforms map them);
/// `maskOrigin` is where the mask's pixel (0, 0) sits in destination space for untransformed masks.
func pixmanComposite(_ op: pixman_op_t, _ source: PixmanImage, mask: PixmanImage?, onto destination: PixmanImage,
               box: PixelBox, sourceOrigin: (x: Int, y: Int) = (0, 0), maskOrigin: (x: Int, y: Int) = (0, 0)) {
    guard !box.isEmpty else { return }
    pixman_image_composite32(op, source.pointer, mask?.pointer, destination.pointer,
                             Int32(box.x - sourceOrigin.x), Int32(box.y - sourceOrigin.y),
                             Int32(box.x - maskOrigin.x), Int32(box.y - maskOrigin.y),
                             Int32(box.x), Int32(box.y), Int32(box.width), Int32(box.height))
}

/// pixman formats for the context and image layouts (this code runs on little-endian hosts, where
/// pixman's format names read a 32-bit pixel from its most significant byte down).
enum PixmanFormats {
    /// The 32-bit RGB format whose bytes in memory are as `bitmapInfo` says (alpha or skip byte
    /// first or last; default/big or little byte order); `opaque` picks the x (ignored) variant.
    static func rgb32(alphaFirst: Bool, littleOrder: Bool, opaque: Bool) -> pixman_format_code_t {
        switch (alphaFirst, littleOrder) {
        case (true, false): opaque ? PIXMAN_b8g8r8x8 : PIXMAN_b8g8r8a8   // A R G B in memory
        case (true, true): opaque ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8    // B G R A
        case (false, false): opaque ? PIXMAN_x8b8g8r8 : PIXMAN_a8b8g8r8  // R G B A
        case (false, true): opaque ? PIXMAN_r8g8b8x8 : PIXMAN_r8g8b8a8   // A B G R
        }
    }

    /// A palette that reads PIXMAN_g8 pixels as opaque grey.
    nonisolated(unsafe) static let grey: UnsafeMutablePointer<pixman_indexed_t> = {
        let palette = UnsafeMutablePointer<pixman_indexed_t>.allocate(capacity: 1)
        palette.initialize(to: pixman_indexed_t())
        palette.pointee.color = 0
        withUnsafeMutableBytes(of: &palette.pointee.rgba) { raw in
            let entries = raw.bindMemory(to: UInt32.self)
            for v in 0..<256 { entries[v] = 0xFF00_0000 | UInt32(v) * 0x01_0101 }
        }
        return palette
    }()
}

/// The layouts pixman reads directly (8 bits per component, no decode array, RGB or grey).
enum DirectImageLayout {
    /// 32 bits per pixel RGB; `premultiplied` false with an alpha format means straight alpha.
    case rgb32(pixman_format_code_t, opaqueFormat: pixman_format_code_t, straightAlpha: Bool)
    /// 24 bits per pixel, R G B in memory.
    case rgb24
    /// 8-bit grey, no alpha.
    case gray8
    /// 8-bit alpha only.
    case alpha8

    init?(_ image: CGImage) {
        let info = image.bitmapInfo.rawValue
        guard image.bitsPerComponent == 8, image.decode == nil,
              info & CGImagePixelFormatInfo.mask.rawValue == 0, !image.bitmapInfo.contains(.floatComponents),
              let alpha = CGImageAlphaInfo(rawValue: info & CGBitmapInfo.alphaInfoMask.rawValue)
        else { return nil }
        let order = info & CGBitmapInfo.byteOrderMask.rawValue
        let big = order == 0 || order == CGBitmapInfo.byteOrder32Big.rawValue
        let little = order == CGBitmapInfo.byteOrder32Little.rawValue
        if alpha == .alphaOnly {
            guard image.bitsPerPixel == 8 else { return nil }
            self = .alpha8
            return
        }
        guard let model = image.colorSpace?.model else { return nil }
        switch (model, image.bitsPerPixel, alpha) {
        case (.monochrome, 8, .none) where order == 0 || big || little:
            self = .gray8
        case (.rgb, 24, .none) where big:
            self = .rgb24
        case (.rgb, 32, _) where big || little:
            let first: Bool
            switch alpha {
            case .premultipliedFirst, .noneSkipFirst, .first: first = true
            case .premultipliedLast, .noneSkipLast, .last: first = false
            default: return nil
            }
            let opaque = alpha == .noneSkipFirst || alpha == .noneSkipLast
            let opaqueFormat = PixmanFormats.rgb32(alphaFirst: first, littleOrder: little, opaque: true)
            self = .rgb32(opaque ? opaqueFormat : PixmanFormats.rgb32(alphaFirst: first, littleOrder: little, opaque: false),
                          opaqueFormat: opaqueFormat, straightAlpha: alpha == .first || alpha == .last)
        default:
            return nil
        }
    }
}

/// What a drawn image contributes, as pixman images of the image's size: for RGB and alpha-only
/// destinations one premultiplied colour image; for grey destinations a premultiplied luma plane
/// (nil: black) and an alpha plane (nil: opaque). Every image here is sampled with the same
/// transform, filter and repeat.
struct SourcePlanes {
    var color: PixmanImage?
    var luma: PixmanImage?
    var alpha: PixmanImage?
    var all: [PixmanImage] { [color, luma, alpha].compactMap { $0 } }
}

/// Calls `body` with `image` as pixman images for a destination of `model`; does not call it for
/// images that cannot be drawn (CMYK, Lab, XYZ colour spaces, 5-bit, packed or half-float
/// layouts). Common 8-bit layouts are read in place (rows copied only when pixman cannot address
/// them: a stride that is not a multiple of 4 or memory not 4-byte aligned); other layouts are
/// converted once (`ImageDecoder`).
func withSourcePlanes(_ image: CGImage, model: DestinationModel, _ body: (SourcePlanes) -> Void) {
    let w = image.width, h = image.height
    let direct = DirectImageLayout(image)
    let usable: DirectImageLayout?
    switch (direct, model) {
    case (.gray8?, _), (.alpha8?, _): usable = direct
    case (_, .gray): usable = nil
    default: usable = direct
    }
    if let layout = usable {
        image.bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            let rowBytes = w * image.bitsPerPixel / 8
            var bits = UnsafeMutableRawPointer(mutating: base)
            var stride = image.bytesPerRow
            var scratch: UnsafeMutableRawPointer? = nil
            defer { scratch?.deallocate() }
            if stride % 4 != 0 || Int(bitPattern: base) % 4 != 0 {
                stride = (rowBytes + 3) & ~3
                let copy = UnsafeMutableRawPointer.allocate(byteCount: stride * h, alignment: 16)
                for y in 0..<h { copy.advanced(by: y * stride).copyMemory(from: base.advanced(by: y * image.bytesPerRow), byteCount: rowBytes) }
                scratch = copy
                bits = copy
            }
            var planes = SourcePlanes()
            switch layout {
            case .alpha8:
                let a = PixmanImage(format: PIXMAN_a8, width: w, height: h, bits: bits, bytesPerRow: stride)
                if model == .gray { planes.alpha = a } else { planes.color = a }
            case .gray8:
                if model == .gray {
                    planes.luma = PixmanImage(format: PIXMAN_a8, width: w, height: h, bits: bits, bytesPerRow: stride)
                } else if let g = PixmanImage(format: PIXMAN_g8, width: w, height: h, bits: bits, bytesPerRow: stride) {
                    pixman_image_set_indexed(g.pointer, PixmanFormats.grey)
                    planes.color = g
                }
            case .rgb24:
                planes.color = PixmanImage(format: PIXMAN_b8g8r8, width: w, height: h, bits: bits, bytesPerRow: stride)
            case .rgb32(let format, let opaqueFormat, let straight):
                if straight {
                    // Premultiply once: the colours read as opaque, masked by the same bytes' alpha.
                    guard let colors = PixmanImage(format: opaqueFormat, width: w, height: h, bits: bits, bytesPerRow: stride),
                          let alphas = PixmanImage(format: format, width: w, height: h, bits: bits, bytesPerRow: stride),
                          let premultiplied = PixmanImage(format: PIXMAN_a8r8g8b8, width: w, height: h, bits: nil,
                                                          bytesPerRow: w * 4)
                    else { return }
                    pixmanComposite(PIXMAN_OP_SRC, colors, mask: alphas, onto: premultiplied,
                              box: PixelBox(x: 0, y: 0, width: w, height: h))
                    planes.color = premultiplied
                } else {
                    planes.color = PixmanImage(format: format, width: w, height: h, bits: bits, bytesPerRow: stride)
                }
            }
            guard !planes.all.isEmpty else { return }
            body(planes)
        }
        return
    }
    // Any other layout: converted once to premultiplied 8-bit planes (pixman and VOLK, ImageDecoder).
    guard let planes = ImageDecoder.planes(image, model: model) else { return }
    body(planes)
}

extension PixmanImage {
    /// A fully opaque `a8` plane of `width`×`height`: the alpha of an image without one, so
    /// that it can fade at rotated or projected edges.
    static func opaqueAlpha(width: Int, height: Int) -> PixmanImage? {
        guard let opaque = PixmanImage(format: PIXMAN_a8, width: width, height: height, bits: nil,
                                       bytesPerRow: (width + 3) & ~3) else { return nil }
        var all = pixman_rectangle16_t(x: 0, y: 0, width: UInt16(clamping: width), height: UInt16(clamping: height))
        var white = pixman_color_t(red: 0xFFFF, green: 0xFFFF, blue: 0xFFFF, alpha: 0xFFFF)
        pixman_image_fill_rectangles(PIXMAN_OP_SRC, opaque.pointer, &white, 1, &all)
        return opaque
    }
}
