// CGContext's clipping, blend modes, shadows and transparency layers (all in the graphics state,
// saved and restored with it), applied by `render` in CairoCanvas.swift to every drawing call.
internal import CCairo
internal import CPixman
import Foundation

extension CGContext {
    // MARK: Clipping

    /// Intersects the clip with the current path under `rule`, then clears the path.
    public func clip(using rule: CGPathFillRule = .winding) {
        let elements = currentPath.elements
        beginPath()
        addClip(elements, rule: rule)
    }

    /// Intersects the clip with `rect` (user space).
    public func clip(to rect: CGRect) { clip(to: [rect]) }

    /// Intersects the clip with the union of `rects` (user space).
    public func clip(to rects: [CGRect]) {
        let path = CGMutablePath()
        path.addRects(rects, transform: state.ctm)
        addClip(path.elements, rule: .winding)
    }

    /// Intersects the clip with `mask` drawn into `rect` (user space): an alpha-only image clips
    /// by its alpha; any other image by its luma (white shows, black hides; transparent pixels
    /// hide). Outside `rect` everything is clipped away.
    public func clip(to rect: CGRect, mask: CGImage) {
        let r = rect.standardized
        guard !r.isNull, r.width > 0, r.height > 0, r.width.isFinite, r.height.isFinite else { return }
        let w = mask.width, h = mask.height
        let imageToUser = CGAffineTransform(a: r.width / CGFloat(w), b: 0, c: 0, d: -r.height / CGFloat(h),
                                            tx: r.minX, ty: r.maxY)
        let toTarget = imageToUser.concatenating(state.ctm).concatenating(deviceToTarget)
        let determinant = toTarget.a * toTarget.d - toTarget.b * toTarget.c
        guard determinant != 0, determinant.isFinite,
              let surface = CairoSurface(format: CAIRO_FORMAT_A8, width: width, height: height),
              let destination = surface.pixman(format: PIXMAN_a8) else { return }
        let targetToImage = toTarget.inverted()
        let nearest = state.interpolationQuality == .none || !mask.shouldInterpolate
        let all = PixelBox(x: 0, y: 0, width: width, height: height)
        withSourcePlanes(mask, model: .gray) { planes in
            guard let plane = planes.luma ?? planes.alpha,
                  plane.configure(transform: targetToImage, nearest: nearest, repeat: PIXMAN_REPEAT_NONE) else { return }
            pixmanComposite(PIXMAN_OP_SRC, plane, mask: nil, onto: destination, box: all)
        }
        if let previous = state.clipMask, let old = previous.pixman(format: PIXMAN_a8) {
            pixmanComposite(PIXMAN_OP_IN, old, mask: nil, onto: destination, box: all)
        }
        surface.markDirty()
        state.clipMask = surface
        intersectClipBounds(r.applying(state.ctm))
    }

    /// Removes the clip (drawing reaches the whole bitmap again).
    public func resetClip() {
        state.clipPaths = []
        state.clipMask = nil
        state.clipBounds = nil
    }

    /// The bounding box of the clip in user space (the whole bitmap when nothing clips).
    public var boundingBoxOfClipPath: CGRect {
        let box = state.clipBounds ?? CGRect(x: 0, y: 0, width: width, height: height)
        guard !box.isNull else { return .null }
        return box.applying(state.ctm.inverted())
    }

    /// Adds device-space `elements` to the clip.
    private func addClip(_ elements: [CGPath.Element], rule: CGPathFillRule) {
        let finite = elements.filter(\.isFinite)
        let toTarget = deviceToTarget
        state.clipPaths.append(ClipPath(elements: finite.map { $0.applying(toTarget) }, rule: rule))
        intersectClipBounds(PathGeometry.exactBounds(finite))
    }

    private func intersectClipBounds(_ box: CGRect) {
        let all = CGRect(x: 0, y: 0, width: width, height: height)
        let current = state.clipBounds ?? all
        let next = current.intersection(box.isNull ? .null : box)
        state.clipBounds = next.isNull ? CGRect.zero : next
    }

    // MARK: Blend mode and shadow

    /// Sets how drawing combines with the bitmap's contents.
    public func setBlendMode(_ mode: CGBlendMode) { state.blendMode = mode }

    /// Turns on a shadow: `offset` in base space (y up; the CTM does not change it), `blur` the
    /// Gaussian's extent (σ = blur / 2, in pixels), `color` its colour (nil turns the shadow off).
    public func setShadow(offset: CGSize, blur: CGFloat, color: CGColor?) {
        guard let color, offset.width.isFinite, offset.height.isFinite, blur.isFinite,
              let c = modelColor(color), c.w > 0 else {
            state.shadow = nil
            return
        }
        state.shadow = ShadowStyle(offset: offset, blur: max(blur, 0), color: cairoColor(c))
    }

    /// Turns on a shadow in black at one-third alpha (Apple's default shadow colour).
    public func setShadow(offset: CGSize, blur: CGFloat) {
        setShadow(offset: offset, blur: blur,
                  color: CGColor(colorSpace: CGColorSpace(name: nil, model: .rgb), components: [0, 0, 0, 1.0 / 3]))
    }

    // MARK: Transparency layers

    /// Starts a transparency layer: drawing until `endTransparencyLayer()` goes to a transparent
    /// offscreen surface, composited as one image (with the alpha, blend mode, shadow and clip in
    /// force now) when the layer ends. Inside the layer alpha is 1, the shadow off and the blend
    /// mode normal.
    public func beginTransparencyLayer(auxiliaryInfo: CFDictionary?) {
        guard let surface = CairoSurface(format: CAIRO_FORMAT_ARGB32, width: width, height: height) else { return }
        layers.append(TransparencyLayer(surface: surface, saved: state, savedStackDepth: stack.count))
        state.alpha = 1
        state.shadow = nil
        state.blendMode = .normal
    }

    /// Starts a transparency layer bounded by `rect` (user space); see
    /// `beginTransparencyLayer(auxiliaryInfo:)`. Drawing outside `rect` is clipped away.
    public func beginTransparencyLayer(in rect: CGRect, auxiliaryInfo: CFDictionary?) {
        beginTransparencyLayer(auxiliaryInfo: auxiliaryInfo)
        guard !layers.isEmpty else { return }
        clip(to: rect)
    }

    /// Ends the innermost transparency layer and composites it; does nothing without one.
    public func endTransparencyLayer() {
        guard let layer = layers.popLast() else { return }
        if stack.count > layer.savedStackDepth { stack.removeLast(stack.count - layer.savedStackDepth) }
        state = layer.saved
        cairo_surface_flush(layer.surface.pointer)
        render { cr in
            cairo_set_source_surface(cr, layer.surface.pointer, 0, 0)
            cairo_paint(cr)
        }
    }

    // MARK: pixman drawing under effects

    /// Runs a pixman fill or image draw into a transparent ARGB32 scratch surface, then composites
    /// that through Cairo with the clip, blend mode, shadow and alpha. `shape` (device space)
    /// bounds what the blend modes Cairo applies beyond the source (IN, OUT, DEST_IN, DEST_ATOP)
    /// may change.
    func drawThroughCairo(inside shape: [CGPath.Element] = [], _ pixmanDraw: () -> Void) {
        // The scratch covers the clip's bounds (the whole bitmap under a shadow): pixman draws
        // into it with the CTM shifted by the scratch's origin.
        guard let region = drawingRegion(nil),
              let scratch = CairoSurface(format: CAIRO_FORMAT_ARGB32, width: region.width, height: region.height),
              let image = scratch.pixman(format: PIXMAN_a8r8g8b8) else { return }
        let saved = state
        state.alpha = 1
        state.ctm = state.ctm.concatenating(CGAffineTransform(translationX: CGFloat(-region.x), y: CGFloat(region.y)))
        drawingOverride = image
        pixmanDraw()
        drawingOverride = nil
        state = saved
        scratch.markDirty()
        let bounds = CGRect(x: region.x, y: region.y, width: region.width, height: region.height)
        let flip = flipMatrix
        render(bounds: bounds) { cr in
            if !shape.isEmpty {
                var m = flip
                cairo_set_matrix(cr, &m)
                Self.addCairoPath(cr, shape)
                cairo_identity_matrix(cr)
                cairo_clip(cr)
            }
            cairo_set_source_surface(cr, scratch.pointer, Double(region.x), Double(region.y))
            cairo_paint(cr)
        }
    }

    /// Clears `rect` (user space) inside the clip.
    func clearThroughCairo(_ rect: CGRect) {
        let path = CGMutablePath()
        path.addRect(rect, transform: state.ctm)
        let saved = state
        state.blendMode = .clear
        state.shadow = nil
        state.alpha = 1
        let flip = flipMatrix
        render { cr in
            var m = flip
            cairo_set_matrix(cr, &m)
            Self.addCairoPath(cr, path.elements)
            cairo_set_source_rgba(cr, 0, 0, 0, 1)
            cairo_fill(cr)
        }
        state = saved
    }
}
