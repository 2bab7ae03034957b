// PixmanPicture: the frame compositor's handle on pixman images — planes of pixel buffers (32-bit
// RGB, or one 8-bit plane of a Y'CbCr buffer read as `a8`) and 1×1 repeating images used as solid
// colours whose value is set before each composite. No pixman type leaves MediaEngine.
internal import CPixman
import CoreGraphics
import Foundation

/// A pixman image (`pixman_image_t *`), unreferenced when the wrapper goes away. The memory an
/// image over bits reads is not owned: whoever made it keeps the pixel buffer alive meanwhile.
final class PixmanPicture {
    let pointer: OpaquePointer
    /// The memory of a 1×1 image made by `init(solidFormat:)`; nil for images over other memory.
    private let solidBits: UnsafeMutablePointer<UInt32>?

    /// An image over `bits` (not copied, not freed); nil when pixman refuses the geometry (a row
    /// stride or start that is not a multiple of 4 bytes, or a size out of range).
    init?(format: pixman_format_code_t, width: Int, height: Int, bits: UnsafeMutableRawPointer, bytesPerRow: Int) {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), bytesPerRow % 4 == 0,
              bytesPerRow <= Int(Int32.max), Int(bitPattern: bits) % 4 == 0,
              let image = pixman_image_create_bits(format, Int32(width), Int32(height),
                                                   bits.assumingMemoryBound(to: UInt32.self), Int32(bytesPerRow))
        else { return nil }
        pointer = image
        solidBits = nil
    }

    /// A 1×1 repeating image of `format` that pixman treats as a solid colour (its fast paths
    /// take such an image as `solid`); `setSolid` changes its value between composites.
    init?(solidFormat format: pixman_format_code_t) {
        let bits = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        bits.initialize(to: 0)
        guard let image = pixman_image_create_bits(format, 1, 1, bits, 4) else {
            bits.deallocate()
            return nil
        }
        pixman_image_set_repeat(image, PIXMAN_REPEAT_NORMAL)
        pointer = image
        solidBits = bits
    }

    deinit {
        pixman_image_unref(pointer)
        solidBits?.deallocate()
    }

    /// Sets the pixel of a solid image (an `a8` value in the low byte; a 32-bit pixel otherwise).
    func setSolid(_ value: UInt32) { solidBits?.pointee = value }

    /// Samples the image untransformed (pixel for pixel, at an integer offset).
    func resetSampling() {
        pixman_image_set_transform(pointer, nil)
        pixman_image_set_filter(pointer, PIXMAN_FILTER_NEAREST, nil, 0)
        pixman_image_set_repeat(pointer, PIXMAN_REPEAT_NONE)
    }

    /// Samples the image through `destinationToImage` (destination pixel coordinates → this
    /// image's, y down) with bilinear filtering; `pad` clamps to the edge pixels (axis-aligned
    /// draws), otherwise samples outside are transparent (rotated draws get soft edges). False
    /// when pixman cannot represent the transform in its fixed point.
    func setSampling(_ destinationToImage: CGAffineTransform, pad: Bool) -> Bool {
        var f = pixman_f_transform()
        let t = destinationToImage
        f.m = ((Double(t.a), Double(t.c), Double(t.tx)), (Double(t.b), Double(t.d), Double(t.ty)), (0, 0, 1))
        var fixed = pixman_transform()
        guard pixman_transform_from_pixman_f_transform(&fixed, &f) != 0,
              pixman_image_set_transform(pointer, &fixed) != 0,
              pixman_image_set_filter(pointer, PIXMAN_FILTER_BILINEAR, nil, 0) != 0 else { return false }
        pixman_image_set_repeat(pointer, pad ? PIXMAN_REPEAT_PAD : PIXMAN_REPEAT_NONE)
        return true
    }
}

/// A rectangle of whole pixels (x, y: top-left, y down).
struct PixelRect: Equatable {
    var x: Int, y: Int, width: Int, height: Int
    var isEmpty: Bool { width <= 0 || height <= 0 }
    var maxX: Int { x + width }
    var maxY: Int { y + height }

    /// The overlap with `other` (empty when none).
    func intersection(_ other: PixelRect) -> PixelRect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        return PixelRect(x: x0, y: y0, width: max(0, min(maxX, other.maxX) - x0), height: max(0, min(maxY, other.maxY) - y0))
    }
}

/// The pixman operations the compositor runs.
enum PixmanOps {
    enum Operator {
        case source, over, add, inside
        var pixman: pixman_op_t {
            switch self {
            case .source: return PIXMAN_OP_SRC
            case .over: return PIXMAN_OP_OVER
            case .add: return PIXMAN_OP_ADD
            case .inside: return PIXMAN_OP_IN
            }
        }
    }

    /// `op` of `source` (through `mask`, when given) onto `destination` over `box` (destination
    /// pixels). The source is read at the box shifted by `sourceOffset` (its transform applied
    /// after), the mask at the box shifted by `maskOffset`.
    static func composite(_ op: Operator, _ source: PixmanPicture, mask: PixmanPicture? = nil,
                          onto destination: PixmanPicture, box: PixelRect,
                          sourceOffset: (x: Int, y: Int) = (0, 0), maskOffset: (x: Int, y: Int) = (0, 0)) {
        guard !box.isEmpty else { return }
        pixman_image_composite32(op.pixman, source.pointer, mask?.pointer, destination.pointer,
                                 Int32(box.x + sourceOffset.x), Int32(box.y + sourceOffset.y),
                                 Int32(box.x + maskOffset.x), Int32(box.y + maskOffset.y),
                                 Int32(box.x), Int32(box.y), Int32(box.width), Int32(box.height))
    }

    /// Stores `value` (`bitsPerPixel` 8, 16 or 32) into every pixel of `box` of the plane at
    /// `base` (4-byte aligned, `bytesPerRow` a multiple of 4); false when pixman cannot.
    static func fill(_ base: UnsafeMutableRawPointer, bytesPerRow: Int, bitsPerPixel: Int, box: PixelRect, value: UInt32) -> Bool {
        guard !box.isEmpty else { return true }
        guard Int(bitPattern: base) % 4 == 0, bytesPerRow % 4 == 0 else { return false }
        return pixman_fill(base.assumingMemoryBound(to: UInt32.self), Int32(bytesPerRow / 4), Int32(bitsPerPixel),
                           Int32(box.x), Int32(box.y), Int32(box.width), Int32(box.height), value) != 0
    }

    /// pixman's format for 32-bit RGB pixel buffers (`BGRA`, `32ARGB`, `RGBA`, `ABGR`), read with
    /// alpha (premultiplied, as Core Video's RGB formats are) or as opaque; nil for other formats.
    static func rgb32Format(_ pixelFormat: OSType, opaque: Bool) -> pixman_format_code_t? {
        // Little-endian hosts: pixman names a 32-bit pixel from its most significant byte down.
        switch pixelFormat {
        case OSType(fourCC: "BGRA"): return opaque ? PIXMAN_x8r8g8b8 : PIXMAN_a8r8g8b8   // B G R A in memory
        case 0x0000_0020: return opaque ? PIXMAN_b8g8r8x8 : PIXMAN_b8g8r8a8              // A R G B
        case OSType(fourCC: "RGBA"): return opaque ? PIXMAN_x8b8g8r8 : PIXMAN_a8b8g8r8   // R G B A
        case OSType(fourCC: "ABGR"): return opaque ? PIXMAN_r8g8b8x8 : PIXMAN_r8g8b8a8   // A B G R
        default: return nil
        }
    }

    /// The pixman format of one 8-bit plane (luma, or interleaved chroma read byte by byte).
    static var plane8: pixman_format_code_t { PIXMAN_a8 }
}
