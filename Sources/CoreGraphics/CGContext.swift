// CGContext: a CPU bitmap drawing destination for 8-bit RGB(A)/BGRA/ARGB, greyscale and
// alpha-only layouts, with Core Graphics' bottom-left origin. Pixels are composited by pixman
// (PixmanRaster.swift) on the bitmap's own memory: no per-pixel Swift runs when drawing.
internal import CPixman

/// A Quartz 2D drawing destination: here, a bitmap context. Device space has its origin at the
/// bottom-left corner of the bitmap with y up, so the last row in memory is y = 0..<1.
public final class CGContext {
    /// The width of the bitmap in pixels.
    public let width: Int
    /// The height of the bitmap in pixels.
    public let height: Int
    /// Bits per component (always 8).
    public let bitsPerComponent: Int
    /// Bits per pixel (32 for RGB layouts, 8 for greyscale and alpha-only).
    public let bitsPerPixel: Int
    /// Bytes from the start of one row to the start of the next.
    public let bytesPerRow: Int
    /// The colour space; nil for an alpha-only context created without one.
    public let colorSpace: CGColorSpace?
    /// The bitmap layout flags.
    public let bitmapInfo: CGBitmapInfo
    /// The bitmap's memory: the caller's buffer, or memory the context allocated.
    public let data: UnsafeMutableRawPointer?

    private let ownsData: Bool
    let model: DestinationModel
    let bytesPerPixel: Int
    /// The pixman format of the bitmap's pixels. Skip-byte layouts are drawn as their alpha
    /// twins: source-over gives every colour channel the same result either way, and the skip
    /// byte ends up 255 wherever something opaque was drawn.
    let targetFormat: pixman_format_code_t
    /// pixman's view of the bitmap memory; nil when its rows cannot be addressed in place.
    let target: PixmanImage?

    struct GState {
        var ctm = CGAffineTransform.identity
        /// Unpremultiplied fill colour in the context's model, alpha last.
        var fill = SIMD4<Float>(0, 0, 0, 1)
        var alpha: Float = 1
        var interpolationQuality = CGInterpolationQuality.default
        var shouldAntialias = true
        /// Unpremultiplied stroke colour in the context's model, alpha last.
        var stroke = SIMD4<Float>(0, 0, 0, 1)
        var lineWidth: CGFloat = 1
        var lineCap = CGLineCap.butt
        var lineJoin = CGLineJoin.miter
        var miterLimit: CGFloat = 10
        var dashPhase: CGFloat = 0
        var dashLengths: [CGFloat] = []
        var flatness: CGFloat = 0.5
        var allowsAntialiasing = true
        var blendMode = CGBlendMode.normal
        var shadow: ShadowStyle? = nil
        /// Clip paths in pixman's destination space (y down), intersected in order.
        var clipPaths: [ClipPath] = []
        /// The clip's image masks, combined into one A8 surface over the whole bitmap.
        var clipMask: CairoSurface? = nil
        /// The clip's bounds in device space (y up); nil: the whole bitmap.
        var clipBounds: CGRect? = nil
    }
    var state = GState()
    var stack: [GState] = []
    /// The current path in device space (points mapped by the CTM when added, as in Quartz); not
    /// part of the graphics state.
    let currentPath = CGMutablePath()
    /// Where pixman drawing goes instead of the bitmap while a fill or image is drawn through
    /// Cairo's effects (an ARGB32 scratch surface, drawn in the RGB model at full opacity).
    var drawingOverride: PixmanImage?
    /// The model pixman drawing uses: the bitmap's, or RGB while drawing into `drawingOverride`.
    var drawingModel: DestinationModel { drawingOverride == nil ? model : .rgb }
    /// Open transparency layers, innermost last: drawing goes to the last one's surface.
    var layers: [TransparencyLayer] = []
    /// Cairo's view of the bitmap when its layout is Cairo's ARGB32 (BGRA in memory: premultiplied
    /// or skip first, 32-bit little byte order, rows 4-aligned); made at the first Cairo draw.
    var nativeSurface: CairoSurface?
    /// Whether Cairo can draw on the bitmap memory in place.
    var isCairoNative: Bool { model == .rgb && targetFormat == PIXMAN_a8r8g8b8 && target != nil }

    /// A bitmap context. `bitmapInfo` holds a `CGImageAlphaInfo` raw value, optionally with a
    /// byte order. Supported layouts (8 bits per component): RGB with 32 bits per pixel and
    /// `premultipliedFirst`/`premultipliedLast`/`noneSkipFirst`/`noneSkipLast` in default,
    /// 32-bit big or 32-bit little byte order; greyscale with 8 bits per pixel and no alpha;
    /// `alphaOnly` with 8 bits per pixel. Nil for any other layout, a zero size, or a
    /// `bytesPerRow` smaller than a row; `bytesPerRow` 0 means "compute it". With `data` nil
    /// the context allocates (zeroed) memory and frees it when it goes away.
    public convenience init?(data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int,
                             bytesPerRow: Int, space: CGColorSpace, bitmapInfo: UInt32) {
        self.init(data: data, width: width, height: height, bitsPerComponent: bitsPerComponent,
                  bytesPerRow: bytesPerRow, space: space, bitmapInfo: CGBitmapInfo(rawValue: bitmapInfo))
    }

    /// A bitmap context described by a `CGBitmapInfo` (see the `UInt32` form for the layouts);
    /// `space` may be nil for an alpha-only context.
    public init?(data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int,
                 bytesPerRow: Int, space: CGColorSpace?, bitmapInfo: CGBitmapInfo) {
        guard width > 0, height > 0, bitsPerComponent == 8, bytesPerRow >= 0,
              let alpha = CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue),
              bitmapInfo.rawValue & ~(CGBitmapInfo.alphaInfoMask.rawValue | CGBitmapInfo.byteOrderMask.rawValue) == 0
        else { return nil }
        let order = bitmapInfo.rawValue & CGBitmapInfo.byteOrderMask.rawValue
        let model: DestinationModel
        let bpp: Int
        if alpha == .alphaOnly {
            model = .alphaOnly
            bpp = 8
        } else if space?.model == .monochrome && alpha == .none {
            model = .gray
            bpp = 8
        } else if space?.model == .rgb,
                  [.premultipliedFirst, .premultipliedLast, .noneSkipFirst, .noneSkipLast].contains(alpha),
                  [0, CGBitmapInfo.byteOrder32Big.rawValue, CGBitmapInfo.byteOrder32Little.rawValue].contains(order) {
            model = .rgb
            bpp = 32
        } else {
            return nil
        }
        if model != .rgb && order != 0 && order != CGBitmapInfo.byteOrder32Big.rawValue
            && order != CGBitmapInfo.byteOrder32Little.rawValue && order != CGBitmapInfo.byteOrder16Big.rawValue
            && order != CGBitmapInfo.byteOrder16Little.rawValue { return nil }
        let (rowBytes, overflow) = width.multipliedReportingOverflow(by: bpp / 8)
        guard !overflow else { return nil }
        let stride = bytesPerRow == 0 ? rowBytes : bytesPerRow
        guard stride >= rowBytes else { return nil }
        let (total, overflow2) = stride.multipliedReportingOverflow(by: height)
        guard !overflow2, total <= 1 << 40 else { return nil }
        guard PixelLayout(bitsPerComponent: 8, bitsPerPixel: bpp,
                                       colorComponents: model == .rgb ? 3 : (model == .gray ? 1 : 0),
                                       bitmapInfo: bitmapInfo) != nil
        else { return nil }
        self.width = width
        self.height = height
        self.bitsPerComponent = 8
        self.bitsPerPixel = bpp
        self.bytesPerRow = stride
        self.colorSpace = space
        self.bitmapInfo = bitmapInfo
        self.model = model
        self.bytesPerPixel = bpp / 8
        switch model {
        case .rgb:
            let first = alpha == .premultipliedFirst || alpha == .noneSkipFirst
            targetFormat = PixmanFormats.rgb32(alphaFirst: first, littleOrder: order == CGBitmapInfo.byteOrder32Little.rawValue,
                                               opaque: false)
        case .gray, .alphaOnly:
            // Grey is drawn as a single 8-bit channel: (1 − α)·destination + premultiplied luma.
            targetFormat = PIXMAN_a8
        }
        let memory: UnsafeMutableRawPointer
        if let data {
            memory = data
        } else {
            memory = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: total)
        }
        self.data = memory
        self.ownsData = data == nil
        let aligned = Int(bitPattern: memory) % 4 == 0 && stride % 4 == 0
        target = aligned ? PixmanImage(format: targetFormat, width: width, height: height, bits: memory,
                                       bytesPerRow: stride) : nil
    }

    deinit {
        nativeSurface = nil   // the Cairo view goes before the memory it reads
        if ownsData { data?.deallocate() }
    }

    /// Where alpha lives in each pixel.
    public var alphaInfo: CGImageAlphaInfo {
        CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue) ?? .none
    }

    /// An image of the context's current contents (a copy: later drawing does not change it).
    public func makeImage() -> CGImage? {
        guard let data else { return nil }
        let bytes = Data(bytes: data, count: bytesPerRow * height)
        return CGImage(validatingWidth: width, height: height, bitsPerComponent: bitsPerComponent,
                       bitsPerPixel: bitsPerPixel, bytesPerRow: bytesPerRow, space: colorSpace,
                       bitmapInfo: bitmapInfo, provider: CGDataProvider(bytes: bytes), decode: nil,
                       shouldInterpolate: true, intent: .defaultIntent)
    }

    // MARK: Graphics state

    /// Pushes a copy of the graphics state (CTM, fill and stroke colours, alpha, line style,
    /// clip, blend mode, shadow, interpolation quality, antialiasing) onto the stack.
    public func saveGState() { stack.append(state) }

    /// Restores the most recently saved graphics state; does nothing when none is saved.
    public func restoreGState() {
        if let saved = stack.popLast() { state = saved }
    }

    /// The current transformation matrix (user space to device space).
    public var ctm: CGAffineTransform { state.ctm }

    /// The user-space to device-space transform (the CTM, for a bitmap context).
    public var userSpaceToDeviceSpaceTransform: CGAffineTransform { state.ctm }

    /// Applies `transform` before the current CTM (CTM = transform × CTM).
    public func concatenate(_ transform: CGAffineTransform) { state.ctm = transform.concatenating(state.ctm) }

    /// Moves the user-space origin by (`tx`, `ty`).
    public func translateBy(x tx: CGFloat, y ty: CGFloat) { state.ctm = state.ctm.translatedBy(x: tx, y: ty) }

    /// Scales user space by (`sx`, `sy`).
    public func scaleBy(x sx: CGFloat, y sy: CGFloat) { state.ctm = state.ctm.scaledBy(x: sx, y: sy) }

    /// Rotates user space by `angle` radians.
    public func rotate(by angle: CGFloat) { state.ctm = state.ctm.rotated(by: angle) }

    /// How images drawn scaled are sampled: `.none` samples the nearest pixel, every other value
    /// filters bilinearly.
    public var interpolationQuality: CGInterpolationQuality {
        get { state.interpolationQuality }
        set { state.interpolationQuality = newValue }
    }

    /// The opacity applied to everything drawn (clamped to 0...1).
    public func setAlpha(_ alpha: CGFloat) {
        state.alpha = alpha.isNaN ? 0 : Float(min(max(alpha, 0), 1))
    }

    /// Whether rectangle edges are antialiased (partial pixels get partial coverage). When off,
    /// a pixel is painted when its centre is inside.
    public func setShouldAntialias(_ shouldAntialias: Bool) { state.shouldAntialias = shouldAntialias }

    /// Sets the fill colour. Greyscale and RGB colours convert to the context's model (see
    /// `CGColor.converted(to:intent:options:)`); a colour that cannot be converted (CMYK, Lab)
    /// leaves the fill colour unchanged.
    public func setFillColor(_ color: CGColor) {
        guard let space = color.colorSpace, let components = color.components else { return }
        let alpha = Float(color.alpha)
        switch model {
        case .alphaOnly:
            state.fill = SIMD4(0, 0, 0, alpha)
        case .rgb:
            guard let values = ColorConversion.convert(components, from: space,
                                                       to: CGColorSpace(name: nil, model: .rgb)) else { return }
            state.fill = SIMD4(Float(values[0]), Float(values[1]), Float(values[2]), alpha)
        case .gray:
            guard let values = ColorConversion.convert(components, from: space,
                                                       to: CGColorSpace(name: nil, model: .monochrome)) else { return }
            state.fill = SIMD4(Float(values[0]), 0, 0, alpha)
        }
    }

    /// Sets the fill colour to a device RGB colour (values clamped to 0...1).
    public func setFillColor(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat) {
        let space = CGColorSpace(name: nil, model: .rgb)
        if let color = CGColor(colorSpace: space, components: [red, green, blue, alpha]) { setFillColor(color) }
    }

    /// Sets the fill colour to a device grey colour (values clamped to 0...1).
    public func setFillColor(gray: CGFloat, alpha: CGFloat) {
        let space = CGColorSpace(name: nil, model: .monochrome)
        if let color = CGColor(colorSpace: space, components: [gray, alpha]) { setFillColor(color) }
    }

    // MARK: Painting

    /// Paints the area inside `rect` (user space) with the fill colour.
    public func fill(_ rect: CGRect) { fill([rect]) }

    /// Paints the union of `rects` with the fill colour (overlaps are painted once).
    public func fill(_ rects: [CGRect]) {
        if hasEffects && drawingOverride == nil {
            // Through Cairo as a path: exact-area edges as pixman's, blend modes inside the rects.
            let path = CGMutablePath()
            path.addRects(rects.map(\.standardized), transform: state.ctm)
            fillDeviceElements(path.elements, rule: .winding)
            return
        }
        let c = drawingOverride == nil ? state.fill : {
            let (r, g, b, a) = cairoColor(state.fill)
            return SIMD4(Float(r), Float(g), Float(b), Float(a))
        }()
        let a = c.w * state.alpha
        paint(.color(SIMD4(c.x * a, c.y * a, c.z * a, a)), rects)
    }

    /// Makes the area inside `rect` transparent black (for opaque layouts: black), inside the clip.
    public func clear(_ rect: CGRect) {
        if hasEffects && drawingOverride == nil {
            clearThroughCairo(rect)
            return
        }
        paint(.clear, [rect])
    }

    /// Draws `image` scaled into `rect` (user space), its first row at the top of the rect.
    /// Scaled images are sampled bilinearly, or nearest-neighbour when the interpolation quality
    /// is `.none` or the image's `shouldInterpolate` is false, then composited source-over with
    /// the context's alpha. With `byTiling`, the image repeats at `rect`'s size across the whole
    /// context. Images in CMYK, Lab or XYZ spaces, or in 5-bit, packed or half-float layouts,
    /// are not drawn.
    public func draw(_ image: CGImage, in rect: CGRect, byTiling: Bool = false) {
        if hasEffects && drawingOverride == nil {
            let shape = CGMutablePath()
            if !byTiling { shape.addRect(rect, transform: state.ctm) }
            drawThroughCairo(inside: shape.elements) { draw(image, in: rect, byTiling: byTiling) }
            return
        }
        let r = rect.standardized
        guard !r.isNull, !r.isInfinite, r.width > 0, r.height > 0, r.width.isFinite, r.height.isFinite else { return }
        let w = image.width, h = image.height
        // Image pixels → user space → device space → pixman's destination space (y down).
        let imageToUser = CGAffineTransform(a: r.width / CGFloat(w), b: 0, c: 0, d: -r.height / CGFloat(h),
                                            tx: r.minX, ty: r.maxY)
        let toTarget = imageToUser.concatenating(state.ctm).concatenating(deviceToTarget)
        let determinant = toTarget.a * toTarget.d - toTarget.b * toTarget.c
        guard determinant != 0, determinant.isFinite else { return }
        let rectilinear = Self.isRectilinear(toTarget)
        let area = CGRect(x: 0, y: 0, width: w, height: h).applying(toTarget)
        let box: PixelBox?
        if byTiling {
            box = PixelBox(x: 0, y: 0, width: width, height: height)
        } else if rectilinear {
            // The pixels whose centres fall inside the image (hard edges, as the sampling clamps).
            box = clipped(x0: Self.snap(area.minX - 0.5).rounded(.up), x1: Self.snap(area.maxX - 0.5).rounded(.up),
                          y0: Self.snap(area.minY - 0.5).rounded(.up), y1: Self.snap(area.maxY - 0.5).rounded(.up))
        } else {
            box = clipped(x0: area.minX.rounded(.down), x1: area.maxX.rounded(.up),
                          y0: area.minY.rounded(.down), y1: area.maxY.rounded(.up))
        }
        guard let box else { return }
        let nearest = state.interpolationQuality == .none || !image.shouldInterpolate
        // Inside a rectilinear image the edge pixels repeat (no blending with the outside);
        // rotated images fade to transparent at their edges.
        let repeatMode = byTiling ? PIXMAN_REPEAT_NORMAL : (rectilinear ? PIXMAN_REPEAT_PAD : PIXMAN_REPEAT_NONE)
        let targetToImage = toTarget.inverted()
        let opacity = state.alpha < 1 ? PixmanImage(alpha: state.alpha) : nil
        let model = drawingModel
        withSourcePlanes(image, model: model) { planes in
            var planes = planes
            if model == .gray && planes.alpha == nil && repeatMode == PIXMAN_REPEAT_NONE {
                // An opaque image still needs an alpha plane to fade at rotated edges.
                guard let opaque = PixmanImage.opaqueAlpha(width: w, height: h) else { return }
                planes.alpha = opaque
            }
            for plane in planes.all {
                guard plane.configure(transform: targetToImage, nearest: nearest, repeat: repeatMode) else { return }
            }
            withTarget { target in
                if let color = planes.color {
                    pixmanComposite(PIXMAN_OP_OVER, color, mask: opacity, onto: target, box: box)
                } else {
                    // Grey: destination × (1 − alpha), then + premultiplied luma.
                    pixmanComposite(PIXMAN_OP_OUT_REVERSE, planes.alpha ?? PixmanImage(alpha: 1), mask: opacity,
                              onto: target, box: box)
                    if let luma = planes.luma {
                        pixmanComposite(PIXMAN_OP_ADD, luma, mask: opacity, onto: target, box: box)
                    }
                }
            }
        }
    }

    // MARK: Rasterising

    /// What `paint` puts down: a premultiplied colour (components in the context's model, alpha
    /// last) composited source-over, or a clear to transparent black.
    enum Paint {
        case color(SIMD4<Float>)
        case clear
    }

    /// Device space (y up from the bottom) to pixman's destination space (y down from the first
    /// row in memory).
    var deviceToTarget: CGAffineTransform {
        CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: CGFloat(height))
    }

    /// Whether `t` keeps rectangles axis-aligned (scales, translations, flips, quarter turns),
    /// ignoring the rounding noise of `rotate(by: .pi / 2)`.
    static func isRectilinear(_ t: CGAffineTransform) -> Bool {
        let scale = max(abs(t.a), abs(t.b), abs(t.c), abs(t.d))
        let tiny = scale * 1e-12
        return (abs(t.b) <= tiny && abs(t.c) <= tiny) || (abs(t.a) <= tiny && abs(t.d) <= tiny)
    }

    /// `v` moved onto the nearest integer when it is within rounding noise of it.
    static func snap(_ v: CGFloat) -> CGFloat {
        let r = v.rounded()
        return abs(v - r) <= 1e-9 ? r : v
    }

    /// The pixel box from column `x0` to `x1` and row `y0` to `y1` (pixman space, ends exclusive),
    /// clipped to the bitmap; nil when empty or not finite.
    func clipped(x0: CGFloat, x1: CGFloat, y0: CGFloat, y1: CGFloat) -> PixelBox? {
        guard !x0.isNaN, !x1.isNaN, !y0.isNaN, !y1.isNaN else { return nil }
        func clamp(_ v: CGFloat, _ limit: Int) -> Int { Int(min(max(v, 0), CGFloat(limit))) }
        let box = PixelBox(x: clamp(x0, width), y: clamp(y0, height),
                           width: clamp(x1, width) - clamp(x0, width), height: clamp(y1, height) - clamp(y0, height))
        return box.isEmpty ? nil : box
    }

    /// Covers the union of `rects` (user space, through the CTM) with `paint`. Axis-aligned
    /// results get exact area coverage at their edges (or, with antialiasing off, the pixels whose
    /// centres are inside); other shapes are rasterised by pixman's polygon sampler.
    func paint(_ paint: Paint, _ rects: [CGRect]) {
        let toTarget = state.ctm.concatenating(deviceToTarget)
        let rects = rects.map(\.standardized).filter {
            !$0.isNull && !$0.isEmpty && $0.minX.isFinite && $0.minY.isFinite && $0.width.isFinite && $0.height.isFinite
        }
        guard !rects.isEmpty else { return }
        let determinant = toTarget.a * toTarget.d - toTarget.b * toTarget.c
        guard determinant != 0, determinant.isFinite else { return }
        let antialias = state.shouldAntialias
        if Self.isRectilinear(toTarget) {
            // Each rect is up to nine boxes of constant coverage: inside, edges, corners.
            var pieces: [(PixelBox, Float)] = []
            for rect in rects {
                let a = rect.applying(toTarget)
                for (xs, cx) in spans(Self.snap(a.minX), Self.snap(a.maxX), limit: width, antialias: antialias) {
                    for (ys, cy) in spans(Self.snap(a.minY), Self.snap(a.maxY), limit: height, antialias: antialias) {
                        pieces.append((PixelBox(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count),
                                       Float(cx * cy)))
                    }
                }
            }
            guard !pieces.isEmpty else { return }
            if rects.count == 1 {
                withTarget { target in
                    for (box, coverage) in pieces {
                        composite(paint, mask: coverage < 1 ? PixmanImage(alpha: coverage) : nil, onto: target, box: box)
                    }
                }
                return
            }
            // Several rects: their coverage adds up (saturating) in one mask, painted once.
            var bounds = pieces[0].0
            for (box, _) in pieces.dropFirst() {
                let x1 = max(bounds.x + bounds.width, box.x + box.width), y1 = max(bounds.y + bounds.height, box.y + box.height)
                bounds.x = min(bounds.x, box.x)
                bounds.y = min(bounds.y, box.y)
                bounds.width = x1 - bounds.x
                bounds.height = y1 - bounds.y
            }
            guard let mask = PixmanImage(format: PIXMAN_a8, width: bounds.width, height: bounds.height, bits: nil,
                                         bytesPerRow: (bounds.width + 3) & ~3) else { return }
            for (box, coverage) in pieces {
                var color = pixman_color_t(red: 0, green: 0, blue: 0,
                                           alpha: UInt16((min(max(coverage, 0), 1) * 255).rounded()) * 257)
                var r = pixman_rectangle16_t(x: Int16(clamping: box.x - bounds.x), y: Int16(clamping: box.y - bounds.y),
                                             width: UInt16(clamping: box.width), height: UInt16(clamping: box.height))
                pixman_image_fill_rectangles(PIXMAN_OP_ADD, mask.pointer, &color, 1, &r)
            }
            withTarget { target in
                composite(paint, mask: mask, onto: target, box: bounds, maskOrigin: (bounds.x, bounds.y))
            }
            return
        }
        // Rotated or sheared: two triangles per rect into a coverage mask over their bounds.
        var bounds = CGRect.null
        var triangles: [pixman_triangle_t] = []
        for rect in rects {
            let corners = [CGPoint(x: rect.minX, y: rect.minY), CGPoint(x: rect.maxX, y: rect.minY),
                           CGPoint(x: rect.maxX, y: rect.maxY), CGPoint(x: rect.minX, y: rect.maxY)]
                .map { $0.applying(toTarget) }
            for c in corners { bounds = bounds.union(CGRect(origin: c, size: .zero)) }
            func point(_ p: CGPoint) -> pixman_point_fixed_t {
                pixman_point_fixed_t(x: fixed(p.x), y: fixed(p.y))
            }
            triangles.append(pixman_triangle_t(p1: point(corners[0]), p2: point(corners[1]), p3: point(corners[2])))
            triangles.append(pixman_triangle_t(p1: point(corners[0]), p2: point(corners[2]), p3: point(corners[3])))
        }
        guard let box = clipped(x0: bounds.minX.rounded(.down), x1: bounds.maxX.rounded(.up),
                                y0: bounds.minY.rounded(.down), y1: bounds.maxY.rounded(.up)),
              let mask = PixmanImage(format: antialias ? PIXMAN_a8 : PIXMAN_a1, width: box.width, height: box.height,
                                     bits: nil, bytesPerRow: antialias ? (box.width + 3) & ~3 : ((box.width + 31) / 32) * 4)
        else { return }
        pixman_add_triangles(mask.pointer, Int32(-box.x), Int32(-box.y), Int32(triangles.count), &triangles)
        withTarget { target in
            composite(paint, mask: mask, onto: target, box: box, maskOrigin: (box.x, box.y))
        }
    }

    /// A device coordinate as pixman's 16.16 fixed point (clamped to its range).
    func fixed(_ v: CGFloat) -> pixman_fixed_t {
        pixman_fixed_t(min(max(v * 65536, -2_147_483_647), 2_147_483_647).rounded())
    }

    /// The pixel spans from `lo` to `hi` (pixels 0..<limit) with the fraction of each pixel the
    /// interval covers: a partial first pixel, whole pixels, a partial last pixel. Without
    /// antialiasing: the pixels whose centres are inside, fully.
    func spans(_ lo: CGFloat, _ hi: CGFloat, limit: Int, antialias: Bool) -> [(Range<Int>, CGFloat)] {
        func clamp(_ v: CGFloat) -> Int { Int(min(max(v, 0), CGFloat(limit))) }
        guard lo < hi else { return [] }
        if !antialias {
            let range = clamp((lo - 0.5).rounded(.up))..<clamp((hi - 0.5).rounded(.up))
            return range.isEmpty ? [] : [(range, 1)]
        }
        let first = lo.rounded(.down), last = hi.rounded(.up)
        if last - first <= 1 {
            let range = clamp(first)..<clamp(last)
            return range.isEmpty ? [] : [(range, hi - lo)]
        }
        var result: [(Range<Int>, CGFloat)] = []
        let innerLo = lo.rounded(.up), innerHi = hi.rounded(.down)
        if innerLo > lo, case let r = clamp(first)..<clamp(innerLo), !r.isEmpty { result.append((r, innerLo - lo)) }
        if case let r = clamp(innerLo)..<clamp(innerHi), !r.isEmpty { result.append((r, 1)) }
        if hi > innerHi, case let r = clamp(innerHi)..<clamp(last), !r.isEmpty { result.append((r, hi - innerHi)) }
        return result
    }

    /// Composites `paint` through `mask` (nil: full coverage) onto `target` over `box`.
    func composite(_ paint: Paint, mask: PixmanImage?, onto target: PixmanImage, box: PixelBox,
                           maskOrigin: (x: Int, y: Int) = (0, 0)) {
        switch (paint, drawingModel) {
        case (.clear, _):
            CoreGraphics.pixmanComposite(PIXMAN_OP_OUT_REVERSE, PixmanImage(alpha: 1), mask: mask, onto: target, box: box,
                                   maskOrigin: maskOrigin)
        case (.color(let c), .gray):
            CoreGraphics.pixmanComposite(PIXMAN_OP_OUT_REVERSE, PixmanImage(alpha: c.w), mask: mask, onto: target, box: box,
                                   maskOrigin: maskOrigin)
            CoreGraphics.pixmanComposite(PIXMAN_OP_ADD, PixmanImage(alpha: c.x), mask: mask, onto: target, box: box,
                                   maskOrigin: maskOrigin)
        case (.color(let c), _):
            CoreGraphics.pixmanComposite(PIXMAN_OP_OVER, PixmanImage(red: c.x, green: c.y, blue: c.z, alpha: c.w), mask: mask,
                                   onto: target, box: box, maskOrigin: maskOrigin)
        }
    }

    /// Runs `body` on the pixman image of the bitmap. pixman addresses rows in 4-byte units, so a
    /// bitmap whose rows or start are not 4-byte aligned (narrow grey or alpha-only contexts) is
    /// drawn through an aligned copy, its rows copied in and back out.
    func withTarget(_ body: (PixmanImage) -> Void) {
        if let drawingOverride {
            body(drawingOverride)
            return
        }
        guard let data else { return }
        if let direct = target {
            body(direct)
            return
        }
        let rowBytes = width * bytesPerPixel
        guard let scratch = PixmanImage(format: targetFormat, width: width, height: height, bits: nil,
                                        bytesPerRow: (rowBytes + 3) & ~3),
              let bits = pixman_image_get_data(scratch.pointer) else { return }
        let stride = Int(pixman_image_get_stride(scratch.pointer))
        let copy = UnsafeMutableRawPointer(bits)
        for y in 0..<height {
            copy.advanced(by: y * stride).copyMemory(from: data.advanced(by: y * bytesPerRow), byteCount: rowBytes)
        }
        body(scratch)
        for y in 0..<height {
            data.advanced(by: y * bytesPerRow).copyMemory(from: copy.advanced(by: y * stride), byteCount: rowBytes)
        }
    }
}

/// A bitmap context (see `CGContext(data:width:height:bitsPerComponent:bytesPerRow:space:bitmapInfo:)`).
@discardableResult
public func CGBitmapContextCreate(_ data: UnsafeMutableRawPointer?, _ width: Int, _ height: Int,
                                  _ bitsPerComponent: Int, _ bytesPerRow: Int, _ space: CGColorSpace?,
                                  _ bitmapInfo: UInt32) -> CGContext? {
    CGContext(data: data, width: width, height: height, bitsPerComponent: bitsPerComponent,
              bytesPerRow: bytesPerRow, space: space, bitmapInfo: CGBitmapInfo(rawValue: bitmapInfo))
}
/// An image of the context's contents.
@discardableResult
public func CGBitmapContextCreateImage(_ context: CGContext?) -> CGImage? { context?.makeImage() }
/// The context's bitmap memory.
@discardableResult
public func CGBitmapContextGetData(_ context: CGContext?) -> UnsafeMutableRawPointer? { context?.data }
/// The context's width; 0 for nil.
@discardableResult
public func CGBitmapContextGetWidth(_ context: CGContext?) -> Int { context?.width ?? 0 }
/// The context's height; 0 for nil.
@discardableResult
public func CGBitmapContextGetHeight(_ context: CGContext?) -> Int { context?.height ?? 0 }
/// The context's bytes per row; 0 for nil.
@discardableResult
public func CGBitmapContextGetBytesPerRow(_ context: CGContext?) -> Int { context?.bytesPerRow ?? 0 }
/// The context's bits per component; 0 for nil.
@discardableResult
public func CGBitmapContextGetBitsPerComponent(_ context: CGContext?) -> Int { context?.bitsPerComponent ?? 0 }
/// The context's bits per pixel; 0 for nil.
@discardableResult
public func CGBitmapContextGetBitsPerPixel(_ context: CGContext?) -> Int { context?.bitsPerPixel ?? 0 }
/// The context's colour space.
@discardableResult
public func CGBitmapContextGetColorSpace(_ context: CGContext?) -> CGColorSpace? { context?.colorSpace }
/// The context's bitmap info; empty for nil.
@discardableResult
public func CGBitmapContextGetBitmapInfo(_ context: CGContext?) -> CGBitmapInfo { context?.bitmapInfo ?? [] }
/// The context's alpha info; `.none` for nil.
@discardableResult
public func CGBitmapContextGetAlphaInfo(_ context: CGContext?) -> CGImageAlphaInfo { context?.alphaInfo ?? .none }
/// Draws `image` into `rect`.
public func CGContextDrawImage(_ c: CGContext?, _ rect: CGRect, _ image: CGImage?) {
    guard let c, let image else { return }
    c.draw(image, in: rect)
}
/// Draws `image` tiled at `rect`'s size across the context.
public func CGContextDrawTiledImage(_ c: CGContext?, _ rect: CGRect, _ image: CGImage?) {
    guard let c, let image else { return }
    c.draw(image, in: rect, byTiling: true)
}
/// Fills `rect` with the fill colour.
public func CGContextFillRect(_ c: CGContext?, _ rect: CGRect) { c?.fill(rect) }
/// Fills the first `count` rectangles of `rects`.
public func CGContextFillRects(_ c: CGContext?, _ rects: UnsafePointer<CGRect>?, _ count: Int) {
    guard let c, let rects, count > 0 else { return }
    c.fill(Array(UnsafeBufferPointer(start: rects, count: count)))
}
/// Clears `rect` to transparent.
public func CGContextClearRect(_ c: CGContext?, _ rect: CGRect) { c?.clear(rect) }
/// Sets the fill colour to a device RGB colour.
public func CGContextSetRGBFillColor(_ c: CGContext?, _ red: CGFloat, _ green: CGFloat, _ blue: CGFloat,
                                     _ alpha: CGFloat) {
    c?.setFillColor(red: red, green: green, blue: blue, alpha: alpha)
}
/// Sets the fill colour to a device grey colour.
public func CGContextSetGrayFillColor(_ c: CGContext?, _ gray: CGFloat, _ alpha: CGFloat) {
    c?.setFillColor(gray: gray, alpha: alpha)
}
/// Sets the fill colour.
public func CGContextSetFillColorWithColor(_ c: CGContext?, _ color: CGColor?) {
    guard let c, let color else { return }
    c.setFillColor(color)
}
/// Sets the global alpha.
public func CGContextSetAlpha(_ c: CGContext?, _ alpha: CGFloat) { c?.setAlpha(alpha) }
/// Sets the interpolation quality.
public func CGContextSetInterpolationQuality(_ c: CGContext?, _ quality: CGInterpolationQuality) {
    c?.interpolationQuality = quality
}
/// The interpolation quality; `.default` for nil.
@discardableResult
public func CGContextGetInterpolationQuality(_ c: CGContext?) -> CGInterpolationQuality {
    c?.interpolationQuality ?? .default
}
/// Turns antialiasing on or off.
public func CGContextSetShouldAntialias(_ c: CGContext?, _ shouldAntialias: Bool) {
    c?.setShouldAntialias(shouldAntialias)
}
/// Saves the graphics state.
public func CGContextSaveGState(_ c: CGContext?) { c?.saveGState() }
/// Restores the graphics state.
public func CGContextRestoreGState(_ c: CGContext?) { c?.restoreGState() }
/// Translates user space.
public func CGContextTranslateCTM(_ c: CGContext?, _ tx: CGFloat, _ ty: CGFloat) { c?.translateBy(x: tx, y: ty) }
/// Scales user space.
public func CGContextScaleCTM(_ c: CGContext?, _ sx: CGFloat, _ sy: CGFloat) { c?.scaleBy(x: sx, y: sy) }
/// Rotates user space.
public func CGContextRotateCTM(_ c: CGContext?, _ angle: CGFloat) { c?.rotate(by: angle) }
/// Concatenates `transform` to the CTM.
public func CGContextConcatCTM(_ c: CGContext?, _ transform: CGAffineTransform) { c?.concatenate(transform) }
/// The CTM; the identity for nil.
@discardableResult
public func CGContextGetCTM(_ c: CGContext?) -> CGAffineTransform { c?.ctm ?? .identity }
