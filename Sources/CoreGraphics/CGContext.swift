// CGContext: a CPU bitmap drawing destination for 8-bit RGB(A)/BGRA/ARGB, greyscale and
// alpha-only layouts, with Core Graphics' bottom-left origin.

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
    private let model: DestinationModel
    private let colorOffsets: [Int]
    private let alphaOffset: Int?
    private let skipOffset: Int?
    private let bytesPerPixel: Int

    private struct GState {
        var ctm = CGAffineTransform.identity
        /// Unpremultiplied fill colour in the context's model, alpha last.
        var fill = SIMD4<Float>(0, 0, 0, 1)
        var alpha: Float = 1
        var interpolationQuality = CGInterpolationQuality.default
        var shouldAntialias = true
    }
    private var state = GState()
    private var stack: [GState] = []

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
        guard let layout = PixelLayout(bitsPerComponent: 8, bitsPerPixel: bpp,
                                       colorComponents: model == .rgb ? 3 : (model == .gray ? 1 : 0),
                                       bitmapInfo: bitmapInfo)
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
        self.colorOffsets = layout.colorOffsets
        self.alphaOffset = layout.alphaOffset
        if model == .rgb && layout.alphaOffset == nil {
            self.skipOffset = Set(0..<4).subtracting(layout.colorOffsets).first
        } else {
            self.skipOffset = nil
        }
        if let data {
            self.data = data
            self.ownsData = false
        } else {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
            memory.initializeMemory(as: UInt8.self, repeating: 0, count: total)
            self.data = memory
            self.ownsData = true
        }
    }

    deinit {
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

    /// Pushes a copy of the graphics state (CTM, fill colour, alpha, interpolation quality,
    /// antialiasing) onto the stack.
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
        var colour = state.fill
        let a = colour.w * state.alpha
        colour = SIMD4(colour.x * a, colour.y * a, colour.z * a, a)
        withCoverage(of: rects) { pixel, coverage in
            blend(pixel, colour * coverage)
        }
    }

    /// Makes the area inside `rect` transparent black (for opaque layouts: black).
    public func clear(_ rect: CGRect) {
        withCoverage(of: [rect]) { pixel, coverage in
            let keep = 1 - coverage
            for offset in colorOffsets { scale(pixel, offset, keep) }
            if let alphaOffset { scale(pixel, alphaOffset, keep) }
        }
    }

    /// Draws `image` scaled into `rect` (user space), its first row at the top of the rect.
    /// Scaled images are sampled bilinearly, or nearest-neighbour when the interpolation quality
    /// is `.none` or the image's `shouldInterpolate` is false, then composited source-over with
    /// the context's alpha. With `byTiling`, the image repeats at `rect`'s size across the whole
    /// context. Images in CMYK, Lab or XYZ spaces, or in 5-bit, packed or half-float layouts,
    /// are not drawn.
    public func draw(_ image: CGImage, in rect: CGRect, byTiling: Bool = false) {
        let r = rect.standardized
        guard !r.isNull, !r.isInfinite, r.width > 0, r.height > 0, r.width.isFinite, r.height.isFinite,
              let decoded = DecodedImage(image, model: model) else { return }
        let w = decoded.width, h = decoded.height
        let imageToUser = CGAffineTransform(a: r.width / CGFloat(w), b: 0, c: 0, d: -r.height / CGFloat(h),
                                            tx: r.minX, ty: r.maxY)
        let full = imageToUser.concatenating(state.ctm)
        let determinant = full.a * full.d - full.b * full.c
        guard determinant != 0, determinant.isFinite else { return }
        let inverse = full.inverted()
        let area = byTiling ? CGRect(x: 0, y: 0, width: width, height: height)
                            : CGRect(x: 0, y: 0, width: w, height: h).applying(full)
        guard let (x0, x1, y0, y1) = deviceRange(area) else { return }
        let nearest = state.interpolationQuality == .none || !image.shouldInterpolate
        let globalAlpha = state.alpha
        let fw = Double(w), fh = Double(h)
        decoded.pixels.withUnsafeBufferPointer { pixels in
            func texel(_ x: Int, _ y: Int) -> SIMD4<Float> {
                let o = (y * w + x) * 4
                return SIMD4(pixels[o], pixels[o + 1], pixels[o + 2], pixels[o + 3])
            }
            func index(_ i: Int, _ n: Int) -> Int {
                byTiling ? ((i % n) + n) % n : min(max(i, 0), n - 1)
            }
            for py in y0..<y1 {
                let row = data!.advanced(by: (height - 1 - py) * bytesPerRow)
                let cy = Double(py) + 0.5
                for px in x0..<x1 {
                    let cx = Double(px) + 0.5
                    var u = Double(inverse.a) * cx + Double(inverse.c) * cy + Double(inverse.tx)
                    var v = Double(inverse.b) * cx + Double(inverse.d) * cy + Double(inverse.ty)
                    if byTiling {
                        u -= (u / fw).rounded(.down) * fw
                        v -= (v / fh).rounded(.down) * fh
                    } else if u < 0 || u >= fw || v < 0 || v >= fh {
                        continue
                    }
                    var sample: SIMD4<Float>
                    if nearest {
                        sample = texel(index(Int(u.rounded(.down)), w), index(Int(v.rounded(.down)), h))
                    } else {
                        let fx = u - 0.5, fy = v - 0.5
                        let ix = fx.rounded(.down), iy = fy.rounded(.down)
                        let wx = Float(fx - ix), wy = Float(fy - iy)
                        let xa = index(Int(ix), w), xb = index(Int(ix) + 1, w)
                        let ya = index(Int(iy), h), yb = index(Int(iy) + 1, h)
                        let top = texel(xa, ya) * (1 - wx) + texel(xb, ya) * wx
                        let bottom = texel(xa, yb) * (1 - wx) + texel(xb, yb) * wx
                        sample = top * (1 - wy) + bottom * wy
                    }
                    sample *= globalAlpha
                    blend(row.advanced(by: px * bytesPerPixel), sample)
                }
            }
        }
    }

    // MARK: Rasterising

    /// The device pixel ranges (columns x0..<x1, rows-from-bottom y0..<y1) `area` touches,
    /// clipped to the bitmap; nil when empty.
    private func deviceRange(_ area: CGRect) -> (Int, Int, Int, Int)? {
        guard !area.isNull, !area.minX.isNaN, !area.maxX.isNaN, !area.minY.isNaN, !area.maxY.isNaN else { return nil }
        func clampX(_ v: CGFloat) -> Int { Int(min(max(v, 0), CGFloat(width))) }
        func clampY(_ v: CGFloat) -> Int { Int(min(max(v, 0), CGFloat(height))) }
        let x0 = clampX(area.minX.rounded(.down)), x1 = clampX(area.maxX.rounded(.up))
        let y0 = clampY(area.minY.rounded(.down)), y1 = clampY(area.maxY.rounded(.up))
        guard x0 < x1, y0 < y1 else { return nil }
        return (x0, x1, y0, y1)
    }

    /// Calls `body` with each touched pixel and the fraction of it covered by the union of
    /// `rects` (user space, through the CTM): exact area for axis-aligned results, 4×4
    /// supersampling otherwise, centre sampling when antialiasing is off.
    private func withCoverage(of rects: [CGRect], _ body: (UnsafeMutableRawPointer, Float) -> Void) {
        guard let data else { return }
        let t = state.ctm
        let rects = rects.map(\.standardized).filter {
            !$0.isNull && !$0.isEmpty && !$0.minX.isNaN && !$0.minY.isNaN && !$0.width.isNaN && !$0.height.isNaN
        }
        guard !rects.isEmpty else { return }
        let deviceRects = rects.map { $0.applying(t) }
        var bounds = CGRect.null
        for r in deviceRects { bounds = bounds.union(r) }
        guard let (x0, x1, y0, y1) = deviceRange(bounds) else { return }
        let columns = x1 - x0
        var coverage = [Float](repeating: 0, count: columns * (y1 - y0))
        let axisAligned = (t.b == 0 && t.c == 0) || (t.a == 0 && t.d == 0)
        let antialias = state.shouldAntialias
        if axisAligned {
            for r in deviceRects {
                guard let (rx0, rx1, ry0, ry1) = deviceRange(r) else { continue }
                for py in ry0..<ry1 {
                    let cy: CGFloat = antialias
                        ? min(CGFloat(py + 1), r.maxY) - max(CGFloat(py), r.minY)
                        : (CGFloat(py) + 0.5 >= r.minY && CGFloat(py) + 0.5 < r.maxY ? 1 : 0)
                    guard cy > 0 else { continue }
                    for px in rx0..<rx1 {
                        let cx: CGFloat = antialias
                            ? min(CGFloat(px + 1), r.maxX) - max(CGFloat(px), r.minX)
                            : (CGFloat(px) + 0.5 >= r.minX && CGFloat(px) + 0.5 < r.maxX ? 1 : 0)
                        guard cx > 0 else { continue }
                        let i = (py - y0) * columns + (px - x0)
                        coverage[i] = max(coverage[i], Float(min(cx * cy, 1)))
                    }
                }
            }
        } else {
            let determinant = t.a * t.d - t.b * t.c
            guard determinant != 0, determinant.isFinite else { return }
            let inverse = t.inverted()
            let offsets: [CGFloat] = antialias ? [0.125, 0.375, 0.625, 0.875] : [0.5]
            let samples = Float(offsets.count * offsets.count)
            for py in y0..<y1 {
                for px in x0..<x1 {
                    var inside = 0
                    for oy in offsets {
                        for ox in offsets {
                            let p = CGPoint(x: CGFloat(px) + ox, y: CGFloat(py) + oy).applying(inverse)
                            if rects.contains(where: { p.x >= $0.minX && p.x < $0.maxX && p.y >= $0.minY && p.y < $0.maxY }) {
                                inside += 1
                            }
                        }
                    }
                    coverage[(py - y0) * columns + (px - x0)] = Float(inside) / samples
                }
            }
        }
        for py in y0..<y1 {
            let row = data.advanced(by: (height - 1 - py) * bytesPerRow)
            for px in x0..<x1 {
                let c = coverage[(py - y0) * columns + (px - x0)]
                if c > 0 { body(row.advanced(by: px * bytesPerPixel), c) }
            }
        }
    }

    /// Composites premultiplied `source` over the pixel at `pixel`.
    @inline(__always)
    private func blend(_ pixel: UnsafeMutableRawPointer, _ source: SIMD4<Float>) {
        let keep = 1 - source.w
        for (i, offset) in colorOffsets.enumerated() {
            let destination = Float(pixel.load(fromByteOffset: offset, as: UInt8.self)) / 255
            store(pixel, offset, source[i] + destination * keep)
        }
        if let alphaOffset {
            let destination = Float(pixel.load(fromByteOffset: alphaOffset, as: UInt8.self)) / 255
            store(pixel, alphaOffset, source.w + destination * keep)
        }
        if let skipOffset { pixel.storeBytes(of: 255, toByteOffset: skipOffset, as: UInt8.self) }
    }

    @inline(__always)
    private func store(_ pixel: UnsafeMutableRawPointer, _ offset: Int, _ value: Float) {
        let byte = UInt8(min(max(value * 255, 0), 255).rounded())
        pixel.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
    }

    @inline(__always)
    private func scale(_ pixel: UnsafeMutableRawPointer, _ offset: Int, _ factor: Float) {
        store(pixel, offset, Float(pixel.load(fromByteOffset: offset, as: UInt8.self)) / 255 * factor)
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
