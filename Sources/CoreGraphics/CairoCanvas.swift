// The Cairo side of the bitmap CGContext: paths, strokes, clips, gradients, blend modes, shadows,
// transparency layers and text are drawn by Cairo (and Pango) on an ARGB32 image surface.
//
// Which surface: when the bitmap is Cairo's own layout (BGRA in memory — premultiplied or skip
// first with 32-bit little byte order, the layout of kCVPixelFormatType_32BGRA frames and of the
// layer renderer) Cairo draws on the bitmap's memory in place. Any other layout is drawn through
// an ARGB32 scratch surface the size of the bitmap, converted in and back out by pixman (`SRC`
// composites, optimised code; grey reads through a grey palette and writes back its blue byte,
// which equals the luma of the grey colours drawn; alpha-only keeps alpha). Inside a transparency
// layer, drawing goes to the layer's own ARGB32 surface.
//
// Coordinates: Cairo works in pixman's destination space (origin top-left, y down). The CTM is
// Core Graphics' (origin bottom-left, y up): each operation sets Cairo's matrix to
// CTM × flip once. Clips are kept as target-space paths (intersected with `cairo_clip`) and, for
// image masks, one A8 surface over the bitmap applied with `cairo_mask_surface`.
internal import CCairo
internal import CPixman
import Foundation
import Synchronization

/// A Cairo image surface (`cairo_surface_t *`), destroyed with the wrapper.
final class CairoSurface {
    let pointer: OpaquePointer

    init?(_ pointer: OpaquePointer?) {
        guard let pointer, cairo_surface_status(pointer) == CAIRO_STATUS_SUCCESS else {
            if let pointer { cairo_surface_destroy(pointer) }
            return nil
        }
        self.pointer = pointer
    }

    /// A new zeroed surface.
    convenience init?(format: cairo_format_t, width: Int, height: Int) {
        guard width > 0, height > 0, width < 32768, height < 32768 else { return nil }
        self.init(cairo_image_surface_create(format, Int32(width), Int32(height)))
    }

    /// A surface over `data` (not copied, not freed).
    convenience init?(format: cairo_format_t, data: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int) {
        guard width > 0, height > 0, width < 32768, height < 32768 else { return nil }
        self.init(cairo_image_surface_create_for_data(data.assumingMemoryBound(to: UInt8.self), format, Int32(width),
                                                      Int32(height), Int32(bytesPerRow)))
    }

    deinit { cairo_surface_destroy(pointer) }

    var width: Int { Int(cairo_image_surface_get_width(pointer)) }
    var height: Int { Int(cairo_image_surface_get_height(pointer)) }
    var stride: Int { Int(cairo_image_surface_get_stride(pointer)) }
    var data: UnsafeMutableRawPointer? { cairo_image_surface_get_data(pointer).map { UnsafeMutableRawPointer($0) } }

    /// pixman's view of the surface's pixels (after `cairo_surface_flush`; call
    /// `markDirty()` after writing through it).
    func pixman(format: pixman_format_code_t) -> PixmanImage? {
        cairo_surface_flush(pointer)
        guard let data else { return nil }
        return PixmanImage(format: format, width: width, height: height, bits: data, bytesPerRow: stride)
    }

    func markDirty() { cairo_surface_mark_dirty(pointer) }
}

/// A clip path in pixman's destination space.
struct ClipPath {
    var elements: [CGPath.Element]
    var rule: CGPathFillRule
}

/// A shadow: offset in base space (y up, not affected by the CTM), blur, colour
/// (premultiplied RGBA for Cairo).
struct ShadowStyle {
    var offset: CGSize
    var blur: CGFloat
    var color: (r: Double, g: Double, b: Double, a: Double)
}

/// An open transparency layer: its surface and the graphics state it composites with.
struct TransparencyLayer {
    var surface: CairoSurface
    var saved: CGContext.GState
    var savedStackDepth: Int
}

/// Gaussian kernels for pixman's separable convolution, built once per blur radius.
enum GaussianKernels {
    private static let cache = Mutex<[Int: [pixman_fixed_t]]>([:])

    /// The filter parameters (width, height, phase bits, x taps, y taps) for a blur of
    /// `sigma` pixels (quantised to 1/4 pixel).
    static func parameters(sigma: CGFloat) -> [pixman_fixed_t] {
        let key = Int((sigma * 4).rounded())
        if let hit = cache.withLock({ $0[key] }) { return hit }
        let s = Double(key) / 4
        let radius = max(1, Int((s * 3).rounded(.up)))
        let weights = (-radius...radius).map { exp(-Double($0 * $0) / (2 * s * s)) }
        let total = weights.reduce(0, +)
        var taps = weights.map { pixman_fixed_t(($0 / total * 65536).rounded()) }
        // Make the taps sum to exactly 1.0 so a flat area stays flat.
        taps[radius] += 65536 - taps.reduce(0, +)
        let n = pixman_fixed_t(taps.count << 16)
        let params = [n, n, 0, 0] + taps + taps
        cache.withLock { $0[key] = params }
        return params
    }
}

extension CGContext {
    // MARK: Surfaces

    /// Device space (y up) to Cairo's target space (y down), as a Cairo matrix.
    var flipMatrix: cairo_matrix_t {
        cairo_matrix_t(xx: 1, yx: 0, xy: 0, yy: -1, x0: 0, y0: Double(height))
    }

    /// The CTM followed by the flip, as a Cairo matrix (user space → target space).
    var userMatrix: cairo_matrix_t {
        let t = state.ctm.concatenating(deviceToTarget)
        return cairo_matrix_t(xx: Double(t.a), yx: Double(t.b), xy: Double(t.c), yy: Double(t.d),
                              x0: Double(t.tx), y0: Double(t.ty))
    }

    /// Whether any state forces drawing through Cairo (clip, blend mode, shadow, open layer).
    var hasEffects: Bool {
        !state.clipPaths.isEmpty || state.clipMask != nil || state.blendMode != .normal || state.shadow != nil
            || !layers.isEmpty
    }

    /// Runs `body` on the Cairo surface drawing goes to (see the file comment), in target
    /// coordinates. `region` (target pixels) bounds what the drawing may change: a scratch
    /// surface covers only it (converted in and out over it alone).
    func withCairoSurface(region: PixelBox, _ body: (CairoSurface) -> Void) {
        if let layer = layers.last {
            body(layer.surface)
            return
        }
        if isCairoNative, let data {
            if nativeSurface == nil {
                nativeSurface = CairoSurface(format: CAIRO_FORMAT_ARGB32, data: data, width: width, height: height,
                                             bytesPerRow: bytesPerRow)
            }
            if let surface = nativeSurface {
                surface.markDirty()   // pixman may have drawn on the same memory since
                body(surface)
                cairo_surface_flush(surface.pointer)
                return
            }
            // Cairo refused the memory (a size beyond its limits): draw through a scratch.
        }
        guard let scratch = CairoSurface(format: CAIRO_FORMAT_ARGB32, width: region.width, height: region.height),
              let scratchImage = scratch.pixman(format: PIXMAN_a8r8g8b8) else { return }
        let w = Int32(region.width), h = Int32(region.height), x = Int32(region.x), y = Int32(region.y)
        let model = self.model
        withTarget { target in
            // In: the region of the bitmap as premultiplied ARGB32.
            if model == .gray {
                guard let bits = pixman_image_get_data(target.pointer),
                      let grey = PixmanImage(format: PIXMAN_g8, width: width, height: height, bits: UnsafeMutableRawPointer(bits),
                                             bytesPerRow: Int(pixman_image_get_stride(target.pointer))) else { return }
                pixman_image_set_indexed(grey.pointer, PixmanFormats.grey)
                pixman_image_composite32(PIXMAN_OP_SRC, grey.pointer, nil, scratchImage.pointer, x, y, 0, 0, 0, 0, w, h)
            } else {
                pixman_image_composite32(PIXMAN_OP_SRC, target.pointer, nil, scratchImage.pointer, x, y, 0, 0, 0, 0, w, h)
            }
            scratch.markDirty()
            cairo_surface_set_device_offset(scratch.pointer, Double(-region.x), Double(-region.y))
            body(scratch)
            cairo_surface_flush(scratch.pointer)
            // Out: colour layouts convert back; grey keeps the blue byte (= luma); alpha-only alpha.
            if model == .gray {
                guard let data = scratch.data,
                      let blue = PixmanImage(format: PIXMAN_b8g8r8a8, width: region.width, height: region.height,
                                             bits: data, bytesPerRow: scratch.stride) else { return }
                pixman_image_composite32(PIXMAN_OP_SRC, blue.pointer, nil, target.pointer, 0, 0, 0, 0, x, y, w, h)
            } else {
                pixman_image_composite32(PIXMAN_OP_SRC, scratchImage.pointer, nil, target.pointer, 0, 0, 0, 0, x, y, w, h)
            }
        }
    }

    /// The target pixels an operation may change: `bounds` (target space; nil: everywhere) within
    /// the clip's bounds and the bitmap. Shadows and Cairo's unbounded operators reach the whole
    /// clip. Nil when nothing can change.
    func drawingRegion(_ bounds: CGRect?) -> PixelBox? {
        var r = CGRect(x: 0, y: 0, width: width, height: height)
        let unbounded: Set<CGBlendMode> = [.sourceIn, .sourceOut, .destinationIn, .destinationAtop]
        if let bounds, state.shadow == nil, !unbounded.contains(state.blendMode) {
            guard !bounds.isNull, bounds.minX.isFinite, bounds.minY.isFinite, bounds.maxX.isFinite, bounds.maxY.isFinite
            else { return nil }
            r = r.intersection(bounds)
        }
        if let clip = state.clipBounds { r = r.intersection(clip.applying(deviceToTarget)) }
        guard !r.isNull, !r.isEmpty else { return nil }
        let x0 = Int(r.minX.rounded(.down)), y0 = Int(r.minY.rounded(.down))
        let x1 = Int(r.maxX.rounded(.up)), y1 = Int(r.maxY.rounded(.up))
        let box = PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        return box.isEmpty ? nil : box
    }

    /// A colour in the context's model (unpremultiplied, alpha last) as Cairo RGBA.
    func cairoColor(_ c: SIMD4<Float>) -> (r: Double, g: Double, b: Double, a: Double) {
        switch model {
        case .rgb: (Double(c.x), Double(c.y), Double(c.z), Double(c.w))
        case .gray: (Double(c.x), Double(c.x), Double(c.x), Double(c.w))
        case .alphaOnly: (0, 0, 0, Double(c.w))
        }
    }

    /// The Cairo operator for a blend mode.
    static func cairoOperator(_ mode: CGBlendMode) -> cairo_operator_t {
        switch mode {
        case .normal: CAIRO_OPERATOR_OVER
        case .multiply, .plusDarker: CAIRO_OPERATOR_MULTIPLY
        case .screen: CAIRO_OPERATOR_SCREEN
        case .overlay: CAIRO_OPERATOR_OVERLAY
        case .darken: CAIRO_OPERATOR_DARKEN
        case .lighten: CAIRO_OPERATOR_LIGHTEN
        case .colorDodge: CAIRO_OPERATOR_COLOR_DODGE
        case .colorBurn: CAIRO_OPERATOR_COLOR_BURN
        case .softLight: CAIRO_OPERATOR_SOFT_LIGHT
        case .hardLight: CAIRO_OPERATOR_HARD_LIGHT
        case .difference: CAIRO_OPERATOR_DIFFERENCE
        case .exclusion: CAIRO_OPERATOR_EXCLUSION
        case .hue: CAIRO_OPERATOR_HSL_HUE
        case .saturation: CAIRO_OPERATOR_HSL_SATURATION
        case .color: CAIRO_OPERATOR_HSL_COLOR
        case .luminosity: CAIRO_OPERATOR_HSL_LUMINOSITY
        case .clear: CAIRO_OPERATOR_CLEAR
        case .copy: CAIRO_OPERATOR_SOURCE
        case .sourceIn: CAIRO_OPERATOR_IN
        case .sourceOut: CAIRO_OPERATOR_OUT
        case .sourceAtop: CAIRO_OPERATOR_ATOP
        case .destinationOver: CAIRO_OPERATOR_DEST_OVER
        case .destinationIn: CAIRO_OPERATOR_DEST_IN
        case .destinationOut: CAIRO_OPERATOR_DEST_OUT
        case .destinationAtop: CAIRO_OPERATOR_DEST_ATOP
        case .xor: CAIRO_OPERATOR_XOR
        case .plusLighter: CAIRO_OPERATOR_ADD
        }
    }

    /// Appends `elements` (already in Cairo's current user space) to Cairo's path, skipping
    /// non-finite elements and clamping coordinates to Cairo's fixed-point range.
    static func addCairoPath(_ cr: OpaquePointer, _ elements: [CGPath.Element]) {
        var current = CGPoint.zero, start = CGPoint.zero
        var hasCurrent = false
        func c(_ v: CGFloat) -> Double { Double(min(max(v, -4_000_000), 4_000_000)) }
        for element in elements where element.isFinite {
            switch element {
            case .move(let p):
                cairo_move_to(cr, c(p.x), c(p.y)); current = p; start = p; hasCurrent = true
            case .line(let p):
                if hasCurrent { cairo_line_to(cr, c(p.x), c(p.y)) } else { cairo_move_to(cr, c(p.x), c(p.y)); start = p }
                current = p; hasCurrent = true
            case .quad(let q, let p):
                if !hasCurrent { cairo_move_to(cr, c(current.x), c(current.y)); start = current; hasCurrent = true }
                let c1 = CGPoint(x: current.x + 2 / 3 * (q.x - current.x), y: current.y + 2 / 3 * (q.y - current.y))
                let c2 = CGPoint(x: p.x + 2 / 3 * (q.x - p.x), y: p.y + 2 / 3 * (q.y - p.y))
                cairo_curve_to(cr, c(c1.x), c(c1.y), c(c2.x), c(c2.y), c(p.x), c(p.y))
                current = p
            case .cubic(let c1, let c2, let p):
                if !hasCurrent { cairo_move_to(cr, c(current.x), c(current.y)); start = current; hasCurrent = true }
                cairo_curve_to(cr, c(c1.x), c(c1.y), c(c2.x), c(c2.y), c(p.x), c(p.y))
                current = p
            case .close:
                if hasCurrent { cairo_close_path(cr) }
                current = start
            }
        }
    }

    // MARK: Drawing with the graphics state

    /// Draws through Cairo honouring the clip, blend mode, global alpha, shadow and antialiasing.
    /// `draw` gets a `cairo_t` with the identity matrix (target space) and must set its own
    /// source and paint; with `foldsAlpha` it has applied the global alpha itself (solid colours).
    /// `bounds` (target space) is where the drawing can reach, when known (scratch surfaces of
    /// layouts Cairo cannot draw on in place are then only that big).
    func render(foldsAlpha: Bool = false, bounds: CGRect? = nil, _ draw: (OpaquePointer) -> Void) {
        let state = self.state
        guard let region = drawingRegion(bounds) else { return }
        withCairoSurface(region: region) { surface in
            guard let cr = cairo_create(surface.pointer) else { return }
            defer { cairo_destroy(cr) }
            cairo_set_antialias(cr, state.shouldAntialias && state.allowsAntialiasing ? CAIRO_ANTIALIAS_DEFAULT
                                                                                       : CAIRO_ANTIALIAS_NONE)
            for clip in state.clipPaths {
                cairo_new_path(cr)
                Self.addCairoPath(cr, clip.elements)
                cairo_set_fill_rule(cr, clip.rule == .evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
                cairo_clip(cr)
            }
            cairo_new_path(cr)
            let op = Self.cairoOperator(state.blendMode)
            let alpha = foldsAlpha ? 1 : Double(state.alpha)
            if state.shadow == nil, state.clipMask == nil, alpha >= 1 {
                cairo_set_operator(cr, op)
                draw(cr)
                return
            }
            cairo_push_group(cr)
            draw(cr)
            guard let content = cairo_pop_group(cr) else { return }
            defer { cairo_pattern_destroy(content) }
            cairo_push_group(cr)
            if let shadow = state.shadow {
                drawShadow(shadow, of: content, on: cr)
            }
            cairo_set_source(cr, content)
            cairo_paint(cr)
            cairo_pop_group_to_source(cr)
            cairo_set_operator(cr, op)
            if let mask = state.clipMask {
                if alpha < 1 {
                    cairo_push_group(cr)
                    cairo_paint_with_alpha(cr, alpha)
                    cairo_pop_group_to_source(cr)
                }
                cairo_mask_surface(cr, mask.pointer, 0, 0)
            } else {
                cairo_paint_with_alpha(cr, alpha)
            }
        }
    }

    /// Paints the shadow of `content` (its alpha, blurred, offset, in the shadow colour).
    private func drawShadow(_ shadow: ShadowStyle, of content: OpaquePointer, on cr: OpaquePointer) {
        guard let alpha = CairoSurface(format: CAIRO_FORMAT_A8, width: width, height: height),
              let acr = cairo_create(alpha.pointer) else { return }
        cairo_set_source(acr, content)
        cairo_paint(acr)
        cairo_destroy(acr)
        var maskSurface = alpha
        let sigma = shadow.blur / 2
        if sigma >= 0.25, let source = alpha.pixman(format: PIXMAN_a8),
           let blurred = CairoSurface(format: CAIRO_FORMAT_A8, width: width, height: height),
           let destination = blurred.pixman(format: PIXMAN_a8) {
            var params = GaussianKernels.parameters(sigma: sigma)
            pixman_image_set_filter(source.pointer, PIXMAN_FILTER_SEPARABLE_CONVOLUTION, &params, Int32(params.count))
            pixman_image_set_repeat(source.pointer, PIXMAN_REPEAT_NONE)
            pixmanComposite(PIXMAN_OP_SRC, source, mask: nil, onto: destination,
                            box: PixelBox(x: 0, y: 0, width: width, height: height))
            blurred.markDirty()
            maskSurface = blurred
        }
        cairo_set_source_rgba(cr, shadow.color.r, shadow.color.g, shadow.color.b, shadow.color.a)
        cairo_mask_surface(cr, maskSurface.pointer, Double(shadow.offset.width), Double(-shadow.offset.height))
    }
}
