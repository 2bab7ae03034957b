// LayerRenderer: draws a presentation tree (RenderLayer values) into a CGContext the way Core
// Animation composites it. Each layer is flattened into its superlayer's plane, so a layer's
// mapping to the destination is a 3×3 homography: the product over its ancestors of each level's
// 4×4 (anchor → transform → position, then the superlayer's flip and sublayerTransform about its
// anchor) with the z row and column dropped. Affine layers are drawn through the CTM; layers in
// perspective are drawn flat into an offscreen surface in their own bounds space and composited
// projectively; opacity groups, masks, clips and shadows go through offscreen surfaces the size of
// what they show of the destination. Every pixel is touched by pixman (CoreGraphics' layer
// primitives), never by Swift loops. Static subtrees are kept as surfaces between frames.
import CoreGraphics
import CoreVideo
import Synchronization

/// Draws RenderLayer trees into bitmap contexts, keeping the surfaces of subtrees that did not
/// change since the previous frame.
package final class LayerRenderer: Sendable {
    /// How many cached subtree surfaces were rendered and how many were composited again
    /// without being drawn.
    package struct CacheStatistics: Equatable, Sendable {
        /// Subtrees drawn into a new cache surface.
        package var rendered = 0
        /// Subtrees composited from the surface kept from an earlier frame.
        package var reused = 0
    }

    /// A kept surface: drawn into before it is cached, only read (composited) afterwards.
    private final class KeptSurface: @unchecked Sendable {
        // @unchecked Sendable: it owns its bitmap, touched only under the renderer's Mutex.
        let context: CGContext
        init(_ context: CGContext) { self.context = context }
    }

    /// One cached subtree: the value it was drawn from, where it was drawn, and its pixels.
    private struct CacheEntry: Sendable {
        var layer: RenderLayer
        var projection: LayerProjection
        var clip: PixelRect
        /// The subtree's pixels (nil: not kept, the subtree changed since the frame before).
        var surface: KeptSurface?
        /// Where the surface's bottom-left corner sits in the destination's device space.
        var origin = (x: 0, y: 0)
        var lastFrame: Int
    }

    private struct State: Sendable {
        var cache: [ObjectIdentifier: CacheEntry] = [:]
        var statistics = CacheStatistics()
        var frame = 0
    }

    private let state = Mutex(State())
    private let cachesStaticSubtrees: Bool

    /// A renderer with an empty cache; `cachesStaticSubtrees` false draws every layer every
    /// frame (for comparisons).
    package init(cachesStaticSubtrees: Bool = true) {
        self.cachesStaticSubtrees = cachesStaticSubtrees
    }

    /// The cache counters since the renderer was made.
    package var cacheStatistics: CacheStatistics { state.withLock { $0.statistics } }

    /// Draws `tree` — a root layer whose position/bounds are in the context's user space
    /// (Core Graphics' y-up space, as macOS Core Animation and AVVideoCompositionCoreAnimationTool
    /// render) — into `context`, over what is already there.
    package func draw(_ tree: RenderLayer, in context: CGContext) {
        guard context.supportsLayerCompositing else { return }
        state.withLock { state in
            state.frame += 1
            var pass = Pass(cache: state.cache, frame: state.frame, statistics: state.statistics,
                            rootFlipped: context.ctm.a * context.ctm.d - context.ctm.b * context.ctm.c < 0)
            let target = Target(context: context, clip: PixelRect(x: 0, y: 0, width: context.width, height: context.height))
            let root = reduce(layerMatrix(tree)).concatenating(LayerProjection(context.ctm))
            pass.render(tree, root, into: target, caching: cachesStaticSubtrees)
            // Keep only what this frame used.
            state.cache = pass.cache.filter { $0.value.lastFrame == state.frame }
            state.statistics = pass.statistics
        }
    }

    // MARK: One frame

    /// An integer pixel rectangle in a context's device space (y up).
    fileprivate struct PixelRect: Equatable, Sendable {
        var x: Int, y: Int, width: Int, height: Int
        var isEmpty: Bool { width <= 0 || height <= 0 }
        var cgRect: CGRect { CGRect(x: x, y: y, width: width, height: height) }

        /// The smallest pixel rectangle holding `rect` (empty for a null or non-finite rect).
        init(enclosing rect: CGRect) {
            guard !rect.isNull, rect.minX.isFinite, rect.minY.isFinite, rect.maxX.isFinite, rect.maxY.isFinite else {
                self.init(x: 0, y: 0, width: 0, height: 0)
                return
            }
            let x0 = rect.minX.rounded(.down), y0 = rect.minY.rounded(.down)
            let x1 = rect.maxX.rounded(.up), y1 = rect.maxY.rounded(.up)
            let limit: CGFloat = 1_073_741_824
            self.init(x: Int(max(x0, -limit)), y: Int(max(y0, -limit)),
                      width: Int(min(x1, limit)) - Int(max(x0, -limit)), height: Int(min(y1, limit)) - Int(max(y0, -limit)))
        }

        init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x; self.y = y; self.width = width; self.height = height
        }

        func intersection(_ o: PixelRect) -> PixelRect {
            let x0 = max(x, o.x), y0 = max(y, o.y)
            let x1 = min(x + width, o.x + o.width), y1 = min(y + height, o.y + o.height)
            return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
        }
    }

    /// Where a layer is drawn: a context, and the part of its device space worth rasterising.
    fileprivate struct Target {
        let context: CGContext
        let clip: PixelRect
    }

    /// The largest offscreen surface side (pixels) for a layer drawn in perspective.
    fileprivate static let maxProjectedSide = 4096

    /// One frame's traversal: the cache it reads and updates.
    private struct Pass {
        var cache: [ObjectIdentifier: CacheEntry]
        let frame: Int
        var statistics: CacheStatistics
        /// Whether the destination's CTM flips (its orientation is then the "front" one).
        let rootFlipped: Bool

        /// Draws `layer`, whose bounds space maps to `target`'s device space through `p`.
        mutating func render(_ layer: RenderLayer, _ p: LayerProjection, into target: Target, caching: Bool) {
            guard isVisible(layer), p.isFinite else { return }
            let det = p.determinant
            guard det.isFinite, abs(det) > 1e-12 else { return }   // edge-on: nothing to see
            if !layer.isDoubleSided {
                // Facing away: the orientation is reversed beyond what the geometry flips account for.
                let reversed = (det < 0) != rootFlipped
                if reversed != layer.contentsAreFlipped { return }
            }
            if caching, isCacheable(layer) {
                renderCached(layer, p, into: target)
                return
            }
            renderLayer(layer, p, into: target, caching: caching)
        }

        /// Draws a static subtree from its cached surface, or into a new one.
        private mutating func renderCached(_ layer: RenderLayer, _ p: LayerProjection, into target: Target) {
            if var entry = cache[layer.id], entry.layer == layer, entry.projection == p, entry.clip == target.clip {
                entry.lastFrame = frame
                if let surface = entry.surface {
                    target.context.compositeLayerSurface(surface.context, projection: translation(entry.origin.x, entry.origin.y),
                                                         alpha: 1)
                    statistics.reused += 1
                    cache[layer.id] = entry
                    return
                }
                cache[layer.id] = entry
                keep(layer, p, into: target)
                return
            }
            if let entry = cache[layer.id], entry.lastFrame == frame - 1 {
                // Changed since the previous frame (animating): drawn directly, kept once it settles.
                cache[layer.id] = CacheEntry(layer: layer, projection: p, clip: target.clip, surface: nil,
                                             lastFrame: frame)
                renderLayer(layer, p, into: target, caching: false)
                return
            }
            keep(layer, p, into: target)
        }

        /// Draws `layer` into a surface the size of what it shows of `target`, keeps it, and
        /// composites it.
        private mutating func keep(_ layer: RenderLayer, _ p: LayerProjection, into target: Target) {
            let box = extentBox(layer, p, clip: target.clip)
            var entry = CacheEntry(layer: layer, projection: p, clip: target.clip, surface: nil, lastFrame: frame)
            if !box.isEmpty, let surface = CGContext.makeLayerSurface(width: box.width, height: box.height) {
                renderLayer(layer, p.concatenating(translation(-box.x, -box.y)),
                            into: Target(context: surface, clip: PixelRect(x: 0, y: 0, width: box.width, height: box.height)),
                            caching: false)
                target.context.compositeLayerSurface(surface, projection: translation(box.x, box.y), alpha: 1)
                entry.surface = KeptSurface(surface)
                entry.origin = (box.x, box.y)
                statistics.rendered += 1
            }
            cache[layer.id] = entry
        }

        /// The pixels of `target` the subtree can touch.
        private func extentBox(_ layer: RenderLayer, _ p: LayerProjection, clip: PixelRect) -> PixelRect {
            guard let extent = LayerRenderer.extent(of: layer, p) else { return PixelRect(x: 0, y: 0, width: 0, height: 0) }
            if extent.isInfinite { return clip }
            return PixelRect(enclosing: extent).intersection(clip)
        }

        /// Draws `layer` with its appearance, isolating it in a surface when it needs one.
        private mutating func renderLayer(_ layer: RenderLayer, _ p: LayerProjection, into target: Target, caching: Bool) {
            if !p.isAffine {
                renderProjected(layer, p, into: target, caching: caching)
                return
            }
            let opacity = CGFloat(layer.opacity)
            let group = opacity < 1 && (!layer.sublayers.isEmpty || elementCount(layer) > 1 || replicates(layer))
            if group || !layer.mask.isEmpty || hasShadow(layer) {
                renderGroup(layer, p, into: target, caching: caching)
            } else {
                drawBody(layer, p, into: target, alpha: opacity, caching: caching)
            }
        }

        /// A layer in perspective: drawn flat into a surface in its own bounds space, at the
        /// resolution its projection needs (clamped), then composited through the homography.
        private mutating func renderProjected(_ layer: RenderLayer, _ p: LayerProjection, into target: Target,
                                              caching: Bool) {
            guard var local = LayerRenderer.extent(of: layer, .identity), !local.isInfinite,
                  local.width > 0, local.height > 0 else { return }
            // Only the part of the layer that lands on the visible area: the clip's preimage
            // (its corners all in front of the eye, the preimage of a rectangle is a convex quad).
            if let inverse = p.inverted() {
                let clip = target.clip.cgRect
                var visible = CGRect.null
                var valid = true
                for (x, y) in [(clip.minX, clip.minY), (clip.maxX, clip.minY), (clip.maxX, clip.maxY), (clip.minX, clip.maxY)] {
                    let h = inverse.homogeneous(Double(x), Double(y))
                    let q = CGPoint(x: h.x / h.w, y: h.y / h.w)
                    guard (h.w > 0) == (inverse.homogeneous(Double(clip.midX), Double(clip.midY)).w > 0),
                          q.x.isFinite, q.y.isFinite else {
                        valid = false
                        break
                    }
                    visible = visible.union(CGRect(origin: q, size: .zero))
                }
                if valid {
                    local = local.intersection(visible.insetBy(dx: -2, dy: -2))
                    guard !local.isNull, local.width > 0, local.height > 0 else { return }
                }
            }
            // Every corner must be in front of the eye.
            let corners = [CGPoint(x: local.minX, y: local.minY), CGPoint(x: local.maxX, y: local.minY),
                           CGPoint(x: local.maxX, y: local.maxY), CGPoint(x: local.minX, y: local.maxY)]
            guard corners.allSatisfy({ p.homogeneous(Double($0.x), Double($0.y)).w > 1e-9 }) else { return }
            let projected = corners.map { p.apply($0) }
            guard projected.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return }
            // The projection's largest stretch along each axis of the layer.
            func length(_ a: CGPoint, _ b: CGPoint) -> CGFloat { hypot(a.x - b.x, a.y - b.y) }
            let sx = max(length(projected[0], projected[1]), length(projected[3], projected[2])) / local.width
            let sy = max(length(projected[0], projected[3]), length(projected[1], projected[2])) / local.height
            var scale = max(sx, sy, 1e-3)
            let side = LayerRenderer.maxProjectedSide
            scale = min(scale, CGFloat(side) / local.width, CGFloat(side) / local.height)
            let w = Int((local.width * scale).rounded(.up)), h = Int((local.height * scale).rounded(.up))
            guard w > 0, h > 0, let surface = CGContext.makeLayerSurface(width: w, height: h) else { return }
            // Layer space → surface: origin at the extent's corner, scaled.
            let toSurface = LayerProjection(m11: Double(scale), m12: 0, m13: 0, m21: 0, m22: Double(scale), m23: 0,
                                            m31: -Double(local.minX * scale), m32: -Double(local.minY * scale), m33: 1)
            renderLayer(layer, toSurface, into: Target(context: surface, clip: PixelRect(x: 0, y: 0, width: w, height: h)),
                        caching: caching)
            guard let fromSurface = toSurface.inverted() else { return }
            target.context.compositeLayerSurface(surface, projection: fromSurface.concatenating(p), alpha: 1,
                                                 nearest: layer.magnificationFilter == "nearest")
        }

        /// A layer drawn as one group: opacity applied once to it and its sublayers, its mask
        /// applied, its shadow cast from the group's alpha.
        private mutating func renderGroup(_ layer: RenderLayer, _ p: LayerProjection, into target: Target,
                                          caching: Bool) {
            let shadow = hasShadow(layer)
            let linear = p.affine
            // Shadow geometry in device space.
            let offset = CGSize(width: layer.shadowOffset.width, height: layer.shadowOffset.height)
            let deviceOffset = CGPoint(x: offset.width * linear.a + offset.height * linear.c,
                                       y: offset.width * linear.b + offset.height * linear.d)
            let deviceScale = sqrt(abs(linear.a * linear.d - linear.b * linear.c))
            let sigma = shadow ? max(0, layer.shadowRadius.isFinite ? layer.shadowRadius : 0) * deviceScale : 0
            var need = target.clip
            if shadow {
                // What casts the visible part of the shadow may lie outside the visible area.
                let reach = Int((abs(deviceOffset.x) + abs(deviceOffset.y) + 3 * sigma).rounded(.up)) + 1
                guard reach < 1 << 20 else { return }
                need = PixelRect(x: need.x - reach, y: need.y - reach, width: need.width + 2 * reach,
                                 height: need.height + 2 * reach)
            }
            var box = extentBox(layer, p, clip: need)
            if shadow {
                let pad = Int((3 * sigma).rounded(.up)) + 1
                box = PixelRect(x: box.x - pad, y: box.y - pad, width: box.width + 2 * pad, height: box.height + 2 * pad)
                    .intersection(need)
            }
            guard !box.isEmpty, let surface = CGContext.makeLayerSurface(width: box.width, height: box.height) else { return }
            let q = p.concatenating(translation(-box.x, -box.y))
            let local = Target(context: surface, clip: PixelRect(x: 0, y: 0, width: box.width, height: box.height))
            drawBody(layer, q, into: local, alpha: 1, caching: caching)
            if !layer.mask.isEmpty, let maskSurface = CGContext.makeLayerSurface(width: box.width, height: box.height) {
                for mask in layer.mask {
                    render(mask, reduce(layerMatrix(mask)).concatenating(q), into: Target(context: maskSurface, clip: local.clip),
                           caching: false)
                }
                surface.applyLayerMask(maskSurface)
            }
            if shadow, let color = layer.shadowColor {
                let shadowSurface: CGContext?
                if let path = layer.shadowPath {
                    // The path's silhouette (any shape, non-zero rule) casts the shadow.
                    shadowSurface = CGContext.makeLayerSurface(width: box.width, height: box.height)
                    if let silhouette = shadowSurface {
                        setLayerCTM(silhouette, q)
                        silhouette.addPath(path)
                        silhouette.setFillColor(CGColor(gray: 1, alpha: 1))
                        silhouette.fillPath(using: .winding)
                    }
                } else {
                    shadowSurface = surface
                }
                if let cast = shadowSurface?.layerShadow(color: color, opacity: CGFloat(layer.shadowOpacity), sigma: sigma) {
                    target.context.compositeLayerSurface(
                        cast, projection: translation(Double(box.x) + Double(deviceOffset.x), Double(box.y) + Double(deviceOffset.y)),
                        alpha: CGFloat(layer.opacity))
                }
            }
            target.context.compositeLayerSurface(surface, projection: translation(box.x, box.y), alpha: CGFloat(layer.opacity))
        }

        /// The layer's own appearance and its sublayers, in Core Animation's order: background,
        /// contents, content, sublayers (clipped to the bounds with masksToBounds), border.
        private mutating func drawBody(_ layer: RenderLayer, _ p: LayerProjection, into target: Target,
                                       alpha: CGFloat, caching: Bool) {
            let bounds = layer.bounds
            guard bounds.width.isFinite, bounds.height.isFinite, bounds.minX.isFinite, bounds.minY.isFinite else { return }
            let radius = cornerRadius(layer)
            if let background = layer.backgroundColor, background.alpha > 0, bounds.width > 0, bounds.height > 0 {
                fillRoundedRect(bounds, radius: radius, corners: layer.maskedCorners, color: background, p, target, alpha: alpha)
            }
            let inner = layer.contents != nil || layer.content != .none || !layer.sublayers.isEmpty
            if inner {
                if layer.masksToBounds && needsClip(layer) {
                    drawClipped(layer, p, into: target, alpha: alpha, caching: caching)
                } else {
                    drawInner(layer, p, into: target, alpha: alpha, caching: caching)
                }
            }
            if layer.borderWidth > 0, let border = layer.borderColor, border.alpha > 0 {
                drawBorder(layer, radius: radius, color: border, p, target, alpha: alpha)
            }
        }

        /// Contents, content and sublayers.
        private mutating func drawInner(_ layer: RenderLayer, _ p: LayerProjection, into target: Target,
                                        alpha: CGFloat, caching: Bool) {
            if let contents = layer.contents { drawContents(contents, of: layer, p, target, alpha: alpha) }
            drawContent(layer, p, into: target, alpha: alpha, caching: caching)
            let sub = sublayerMatrix(layer)
            for sublayer in layer.sublayers {
                render(sublayer, reduce(multiply(layerMatrix(sublayer), sub)).concatenating(p), into: target,
                       caching: caching)
            }
        }

        /// Contents, content and sublayers drawn into a surface clipped to the (rounded) bounds.
        private mutating func drawClipped(_ layer: RenderLayer, _ p: LayerProjection, into target: Target,
                                          alpha: CGFloat, caching: Bool) {
            let bounds = layer.bounds
            guard bounds.width > 0, bounds.height > 0 else { return }
            let corners = [CGPoint(x: bounds.minX, y: bounds.minY), CGPoint(x: bounds.maxX, y: bounds.minY),
                           CGPoint(x: bounds.maxX, y: bounds.maxY), CGPoint(x: bounds.minX, y: bounds.maxY)].map { p.apply($0) }
            var area = CGRect.null
            for c in corners { area = area.union(CGRect(origin: c, size: .zero)) }
            let box = PixelRect(enclosing: area).intersection(target.clip)
            guard !box.isEmpty, let surface = CGContext.makeLayerSurface(width: box.width, height: box.height) else { return }
            let q = p.concatenating(translation(-box.x, -box.y))
            drawInner(layer, q, into: Target(context: surface, clip: PixelRect(x: 0, y: 0, width: box.width, height: box.height)),
                      alpha: 1, caching: caching)
            let radius = cornerRadius(layer)
            let aligned = radius == 0 && area == area.integral && isRectilinear(p)
            if !aligned, let clip = CGContext.makeLayerSurface(width: box.width, height: box.height) {
                clip.fillLayerPolygon(roundedRect(bounds, radius: radius, corners: layer.maskedCorners).map { q.apply($0) },
                                      color: CGColor(gray: 1, alpha: 1), alpha: 1)
                surface.applyLayerMask(clip)
            }
            target.context.compositeLayerSurface(surface, projection: translation(box.x, box.y), alpha: alpha)
        }

        /// A CATextLayer's, CAShapeLayer's, CAGradientLayer's or CAReplicatorLayer's own drawing.
        private mutating func drawContent(_ layer: RenderLayer, _ p: LayerProjection, into target: Target,
                                          alpha: CGFloat, caching: Bool) {
            switch layer.content {
            case .none:
                break
            case .text(let text):
                LayerContentPainter.drawText(text, bounds: layer.bounds, flipped: layer.contentsAreFlipped, p,
                                             in: target.context, alpha: alpha)
            case .shape(let shape):
                LayerContentPainter.drawShape(shape, p, in: target.context, alpha: alpha)
            case .gradient(let gradient):
                LayerContentPainter.drawGradient(gradient, bounds: layer.bounds, p, in: target.context, alpha: alpha)
            case .replicator(let replicator):
                let center = CGPoint(x: layer.bounds.midX, y: layer.bounds.midY)
                let about = multiply(multiply(translation3D(-center.x, -center.y, 0), replicator.instanceTransform),
                                     translation3D(center.x, center.y, 0))
                var instance = CATransform3DIdentity
                let sub = sublayerMatrix(layer)
                for (k, sublayers) in replicator.instances.enumerated() {
                    let colour = instanceColour(replicator, k)
                    let plain = colour == (1, 1, 1, 1)
                    if plain && alpha >= 1 {
                        for sublayer in sublayers {
                            render(sublayer, reduce(multiply(multiply(layerMatrix(sublayer), instance), sub)).concatenating(p),
                                   into: target, caching: false)
                        }
                    } else if let surface = CGContext.makeLayerSurface(width: target.clip.width, height: target.clip.height) {
                        // A tinted copy: drawn alone, multiplied by its colour, composited.
                        let q = p.concatenating(translation(-target.clip.x, -target.clip.y))
                        let local = Target(context: surface, clip: PixelRect(x: 0, y: 0, width: target.clip.width,
                                                                             height: target.clip.height))
                        for sublayer in sublayers {
                            render(sublayer, reduce(multiply(multiply(layerMatrix(sublayer), instance), sub)).concatenating(q),
                                   into: local, caching: false)
                        }
                        if !plain {
                            surface.multiplyLayerSurface(red: colour.0, green: colour.1, blue: colour.2, alpha: colour.3)
                        }
                        target.context.compositeLayerSurface(surface, projection: translation(target.clip.x, target.clip.y),
                                                             alpha: alpha)
                    }
                    instance = multiply(instance, about)
                }
            }
        }

        /// Copy `k`'s colour: the instance colour plus k times the offsets, clamped.
        private func instanceColour(_ r: RenderReplicator, _ k: Int) -> (CGFloat, CGFloat, CGFloat, CGFloat) {
            var base: [CGFloat] = [1, 1, 1, 1]
            if let colour = r.instanceColor, let space = colour.colorSpace, let comps = colour.components {
                if space.model == .rgb, comps.count >= 4 { base = Array(comps.prefix(4)) }
                else if space.model == .monochrome, comps.count >= 2 { base = [comps[0], comps[0], comps[0], comps[1]] }
            }
            let k = CGFloat(k)
            func clamp(_ v: CGFloat) -> CGFloat { min(max(v, 0), 1) }
            return (clamp(base[0] + k * CGFloat(r.instanceRedOffset)), clamp(base[1] + k * CGFloat(r.instanceGreenOffset)),
                    clamp(base[2] + k * CGFloat(r.instanceBlueOffset)), clamp(base[3] + k * CGFloat(r.instanceAlphaOffset)))
        }

        // MARK: Elements

        /// Draws the contents image (or pixel buffer) placed by the gravity, cropped by
        /// contentsRect, flipped when contentsAreFlipped.
        private func drawContents(_ contents: RenderLayer.Contents, of layer: RenderLayer, _ p: LayerProjection,
                                  _ target: Target, alpha: CGFloat) {
            switch contents {
            case .image(let image):
                drawImage(image, of: layer, p, target, alpha: alpha)
            case .pixelBuffer(let buffer):
                withImage(of: buffer) { image in drawImage(image, of: layer, p, target, alpha: alpha) }
            }
        }

        private func drawImage(_ image: CGImage, of layer: RenderLayer, _ p: LayerProjection, _ target: Target,
                               alpha: CGFloat) {
            let bounds = layer.bounds
            let cr = layer.contentsRect
            guard image.width > 0, image.height > 0, bounds.width > 0, bounds.height > 0,
                  cr.width.isFinite, cr.height.isFinite, cr.minX.isFinite, cr.minY.isFinite, cr.width > 0, cr.height > 0
            else { return }
            let scale = layer.contentsScale.isFinite && layer.contentsScale > 0 ? layer.contentsScale : 1
            let size = CGSize(width: CGFloat(image.width) * cr.width / scale, height: CGFloat(image.height) * cr.height / scale)
            guard let g = LayerRenderer.gravityRect(layer.contentsGravity, content: size, in: bounds) else { return }
            // The part of contentsRect inside the image, and where it lands in g.
            let visible = cr.intersection(CGRect(x: 0, y: 0, width: 1, height: 1))
            guard !visible.isNull, visible.width > 0, visible.height > 0 else { return }
            let destination = CGRect(x: g.minX + (visible.minX - cr.minX) / cr.width * g.width,
                                     y: g.minY + (visible.minY - cr.minY) / cr.height * g.height,
                                     width: visible.width / cr.width * g.width, height: visible.height / cr.height * g.height)
            // Unit y grows up the layer: from the image's last row (unflipped) or first row (flipped).
            let w = CGFloat(image.width), h = CGFloat(image.height)
            let rows = layer.contentsAreFlipped ? (visible.minY * h, visible.maxY * h) : (h - visible.maxY * h, h - visible.minY * h)
            var pixels = CGRect(x: visible.minX * w, y: rows.0, width: visible.width * w, height: rows.1 - rows.0).integral
            pixels = pixels.intersection(CGRect(x: 0, y: 0, width: w, height: h))
            guard !pixels.isNull, pixels.width >= 1, pixels.height >= 1 else { return }
            let cropped = pixels == CGRect(x: 0, y: 0, width: w, height: h) ? image : image.cropping(to: pixels)
            guard let cropped else { return }
            let context = target.context
            context.saveGState()
            setLayerCTM(context, p)
            if layer.contentsAreFlipped {
                context.translateBy(x: 0, y: destination.minY + destination.maxY)
                context.scaleBy(x: 1, y: -1)
            }
            // Magnified or minified: the matching filter.
            let deviceArea = abs(p.affine.a * p.affine.d - p.affine.b * p.affine.c) * destination.width * destination.height
            let magnified = deviceArea > pixels.width * pixels.height
            let filter = magnified ? layer.magnificationFilter : layer.minificationFilter
            context.interpolationQuality = filter == "nearest" ? .none : .default
            context.setAlpha(alpha)
            context.draw(cropped, in: destination)
            context.restoreGState()
        }

        /// Runs `body` with the buffer's pixels as an image sharing its memory (32-bit BGRA,
        /// ARGB or RGBA; other formats are not drawn).
        private func withImage(of buffer: CVPixelBuffer, _ body: (CGImage) -> Void) {
            let format = CVPixelBufferGetPixelFormatType(buffer)
            let info: UInt32
            switch format {
            case kCVPixelFormatType_32BGRA:
                info = CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue
            case kCVPixelFormatType_32ARGB:
                info = CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Big.rawValue
            case kCVPixelFormatType_32RGBA:
                info = CGImageAlphaInfo.premultipliedLast.rawValue | CGBitmapInfo.byteOrder32Big.rawValue
            default:
                return
            }
            guard CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess else { return }
            defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
            let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
            let rowBytes = CVPixelBufferGetBytesPerRow(buffer)
            guard width > 0, height > 0, let base = CVPixelBufferGetBaseAddress(buffer),
                  let provider = CGDataProvider(dataInfo: nil, data: base, size: rowBytes * height,
                                                releaseData: { _, _, _ in }),
                  let image = CGImage(width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32,
                                      bytesPerRow: rowBytes, space: CGColorSpace(name: nil, model: .rgb),
                                      bitmapInfo: CGBitmapInfo(rawValue: info), provider: provider, decode: nil,
                                      shouldInterpolate: true, intent: .defaultIntent)
            else { return }
            body(image)
        }

        /// Fills `rect` (layer space), rounded at the masked corners.
        private func fillRoundedRect(_ rect: CGRect, radius: CGFloat, corners: UInt, color: CGColor,
                                     _ p: LayerProjection, _ target: Target, alpha: CGFloat) {
            if radius <= 0 {
                let context = target.context
                context.saveGState()
                setLayerCTM(context, p)
                context.setFillColor(color)
                context.setAlpha(alpha)
                context.fill(rect)
                context.restoreGState()
            } else {
                target.context.fillLayerPolygon(roundedRect(rect, radius: radius, corners: corners).map { p.apply($0) },
                                                color: color, alpha: alpha)
            }
        }

        /// The border: a band of borderWidth inside the bounds, following the rounded corners.
        private func drawBorder(_ layer: RenderLayer, radius: CGFloat, color: CGColor, _ p: LayerProjection,
                                _ target: Target, alpha: CGFloat) {
            let b = layer.bounds
            let width = min(layer.borderWidth, b.width / 2, b.height / 2)
            guard width > 0, width.isFinite else { return }
            if radius <= 0 {
                let context = target.context
                context.saveGState()
                setLayerCTM(context, p)
                context.setFillColor(color)
                context.setAlpha(alpha)
                context.fill([CGRect(x: b.minX, y: b.minY, width: b.width, height: width),
                              CGRect(x: b.minX, y: b.maxY - width, width: b.width, height: width),
                              CGRect(x: b.minX, y: b.minY + width, width: width, height: b.height - 2 * width),
                              CGRect(x: b.maxX - width, y: b.minY + width, width: width, height: b.height - 2 * width)])
                context.restoreGState()
                return
            }
            let outer = roundedRect(b, radius: radius, corners: layer.maskedCorners).map { p.apply($0) }
            let inner = roundedRect(b.insetBy(dx: width, dy: width), radius: max(radius - width, 0),
                                    corners: layer.maskedCorners).map { p.apply($0) }
            target.context.fillLayerPolygon(outer, hole: inner, color: color, alpha: alpha)
        }

        // MARK: Decisions

        private func isVisible(_ layer: RenderLayer) -> Bool {
            !layer.isHidden && layer.opacity > 0 && !layer.opacity.isNaN
        }

        /// How many of background, contents, content and border the layer draws.
        private func elementCount(_ layer: RenderLayer) -> Int {
            var n = 0
            if let c = layer.backgroundColor, c.alpha > 0 { n += 1 }
            if layer.contents != nil { n += 1 }
            if layer.content != .none { n += 1 }
            if layer.borderWidth > 0, let c = layer.borderColor, c.alpha > 0 { n += 1 }
            return n
        }

        private func replicates(_ layer: RenderLayer) -> Bool {
            if case .replicator = layer.content { return true }
            return false
        }

        private func hasShadow(_ layer: RenderLayer) -> Bool {
            layer.shadowOpacity > 0 && (layer.shadowColor?.alpha ?? 0) > 0
        }

        private func cornerRadius(_ layer: RenderLayer) -> CGFloat {
            let r = layer.cornerRadius
            guard r.isFinite, r > 0 else { return 0 }
            return min(r, layer.bounds.width / 2, layer.bounds.height / 2)
        }

        /// Whether masksToBounds has anything to cut: sublayers, content, rounded corners, or
        /// contents reaching outside the bounds.
        private func needsClip(_ layer: RenderLayer) -> Bool {
            if !layer.sublayers.isEmpty || layer.content != .none || cornerRadius(layer) > 0 { return true }
            let cr = layer.contentsRect
            let insideUnit = cr.minX >= 0 && cr.minY >= 0 && cr.maxX <= 1 && cr.maxY <= 1
            return !(insideUnit && ["resize", "resizeAspect"].contains(layer.contentsGravity))
        }

        /// Whether a static subtree is worth keeping as a surface: no pixel buffers (they change
        /// every frame) and something costlier than one fill.
        private func isCacheable(_ layer: RenderLayer) -> Bool {
            guard !containsPixelBuffer(layer) else { return false }
            return layer.contents != nil || layer.content != .none || !layer.sublayers.isEmpty || !layer.mask.isEmpty
                || hasShadow(layer)
        }

        private func containsPixelBuffer(_ layer: RenderLayer) -> Bool {
            if case .pixelBuffer = layer.contents { return true }
            if case .replicator(let r) = layer.content, r.instances.contains(where: { $0.contains(where: containsPixelBuffer) }) {
                return true
            }
            return layer.sublayers.contains(where: containsPixelBuffer) || layer.mask.contains(where: containsPixelBuffer)
        }

        private func isRectilinear(_ p: LayerProjection) -> Bool {
            p.isAffine && ((p.m12 == 0 && p.m21 == 0) || (p.m11 == 0 && p.m22 == 0))
        }
    }

    // MARK: Overlays over a video frame

    /// What a tree draws over a video frame that fills the canvas (the Core Animation tool's
    /// common case: an animation layer holding a full-frame video layer and titles or a watermark
    /// above it).
    package enum OverlayExtent: Equatable, Sendable {
        /// Nothing but the video layers shows: the frame is the video frame itself.
        case none
        /// The video layer shows the frame upright and unchanged everywhere, and everything else
        /// the tree draws lies inside this rectangle (canvas space, y up).
        case region(CGRect)
        /// Anything else: draw the whole tree.
        case everywhere
    }

    /// How `tree` (drawn into a canvas of `canvas` size with an identity CTM) covers a frame that
    /// its layers named `videoLayers` show: `.none` or `.region` when a video layer is a direct
    /// sublayer of the root that maps its bounds exactly onto the canvas (no scale, rotation or
    /// perspective, the picture upright), fully opaque, with no mask, rounding, border, shadow or
    /// sublayers, and the root itself draws nothing but its sublayers; layers below it are hidden
    /// by it; `.everywhere` otherwise (including extents that reach behind the eye).
    package static func overlayExtent(of tree: RenderLayer, videoLayers: Set<ObjectIdentifier>, canvas: CGSize) -> OverlayExtent {
        guard !tree.isHidden, tree.opacity >= 1, tree.mask.isEmpty, tree.contents == nil, tree.content == .none,
              tree.borderWidth == 0 || tree.borderColor == nil, tree.shadowOpacity == 0 else { return .everywhere }
        let whole = CGRect(origin: .zero, size: canvas)
        let root = reduce(layerMatrix(tree))
        let sub = sublayerMatrix(tree)
        var covered = false
        var region = CGRect.null
        for layer in tree.sublayers {
            let p = reduce(multiply(layerMatrix(layer), sub)).concatenating(root)
            if videoLayers.contains(layer.id) {
                if covered { continue }
                guard Self.showsUprightFrame(layer, p, canvas: whole) else { return .everywhere }
                covered = true
                continue
            }
            guard covered else { continue }  // under the opaque full-frame video: never seen
            guard let e = overlayReach(of: layer, p) else { continue }
            if e.isInfinite { return .everywhere }
            region = region.union(e)
        }
        guard covered else { return .everywhere }
        // The root's mask, clip or background do not reach outside its sublayers here; a root that
        // masks to bounds smaller than the canvas is drawn in full (rare).
        if tree.masksToBounds { return .everywhere }
        let inside = region.intersection(whole)
        return inside.isNull || inside.isEmpty ? .none : .region(inside)
    }

    /// Where a subtree can draw, as `extent(of:_:)` says, except that a layer drawing nothing
    /// itself (no background, contents, content, border, shadow, mask or clip: a title's
    /// full-frame parent) reaches only as far as its sublayers do.
    private static func overlayReach(of layer: RenderLayer, _ p: LayerProjection) -> CGRect? {
        guard !layer.isHidden, layer.opacity > 0, p.isFinite else { return nil }
        let drawsItself = (layer.backgroundColor.map { $0.alpha > 0 } ?? false) || layer.contents != nil
            || layer.content != .none || (layer.borderWidth > 0 && layer.borderColor != nil) || layer.shadowOpacity > 0
            || layer.masksToBounds || !layer.mask.isEmpty
        if drawsItself { return extent(of: layer, p) }
        let sub = sublayerMatrix(layer)
        var result = CGRect.null
        for sublayer in layer.sublayers {
            guard let e = overlayReach(of: sublayer, reduce(multiply(layerMatrix(sublayer), sub)).concatenating(p)) else { continue }
            if e.isInfinite { return .infinite }
            result = result.union(e)
        }
        return result.isNull ? nil : result
    }

    /// Whether `layer`, mapped by `p`, draws its contents as the whole canvas, pixel for pixel and
    /// upright.
    private static func showsUprightFrame(_ layer: RenderLayer, _ p: LayerProjection, canvas: CGRect) -> Bool {
        guard !layer.isHidden, layer.opacity >= 1, layer.mask.isEmpty, layer.sublayers.isEmpty, layer.content == .none,
              layer.cornerRadius == 0 || layer.maskedCorners == 0, layer.borderWidth == 0 || layer.borderColor == nil,
              layer.shadowOpacity == 0, layer.contentsGravity == "resize",
              layer.contentsRect == CGRect(x: 0, y: 0, width: 1, height: 1) else { return false }
        let b = layer.bounds
        guard b.width == canvas.width, b.height == canvas.height, p.m12 == 0, p.m21 == 0, p.m13 == 0, p.m23 == 0, p.m33 == 1,
              p.m11 == 1, abs(p.m22) == 1 else { return false }
        let x0 = Double(b.minX) + p.m31, y0 = p.m22 * Double(b.minY) + p.m32, y1 = p.m22 * Double(b.maxY) + p.m32
        guard x0 == Double(canvas.minX), min(y0, y1) == Double(canvas.minY), max(y0, y1) == Double(canvas.maxY) else { return false }
        // Contents are drawn upright in an unflipped mapping unless flipped; a flipping mapping
        // turns flipped contents upright.
        return (p.m22 < 0) == layer.contentsAreFlipped
    }

    // MARK: Geometry

    /// The subtree's extent in the space `p` maps the layer's bounds to; nil when it draws
    /// nothing, `.infinite` when some part is behind the eye.
    fileprivate static func extent(of layer: RenderLayer, _ p: LayerProjection) -> CGRect? {
        guard !layer.isHidden, layer.opacity > 0, p.isFinite else { return nil }
        let b = layer.bounds
        guard b.minX.isFinite, b.minY.isFinite, b.width.isFinite, b.height.isFinite else { return nil }
        func project(_ r: CGRect) -> CGRect? {
            guard r.width >= 0, r.height >= 0 else { return nil }
            var out = CGRect.null
            for (x, y) in [(r.minX, r.minY), (r.maxX, r.minY), (r.maxX, r.maxY), (r.minX, r.maxY)] {
                let h = p.homogeneous(Double(x), Double(y))
                guard h.w > 1e-9 else { return .infinite }
                let q = CGPoint(x: h.x / h.w, y: h.y / h.w)
                guard q.x.isFinite, q.y.isFinite else { return .infinite }
                out = out.union(CGRect(origin: q, size: .zero))
            }
            return out
        }
        var result = CGRect.null
        var own = b
        if layer.shadowOpacity > 0 {
            let reach = 3 * abs(layer.shadowRadius.isFinite ? layer.shadowRadius : 0) + 1
            let offset = layer.shadowOffset
            if offset.width.isFinite, offset.height.isFinite {
                // The shadow of the layer's alpha, or of its shadowPath (which may reach outside).
                var caster = b
                if let path = layer.shadowPath, let box = controlBox(path) { caster = caster.union(box) }
                own = own.union(caster.offsetBy(dx: offset.width, dy: offset.height).insetBy(dx: -reach, dy: -reach))
            }
        }
        if case .shape(let shape) = layer.content, let path = shape.path, let box = controlBox(path) {
            // A path may reach outside the bounds; its control points hold it, plus the stroke.
            let width = shape.lineWidth.isFinite ? abs(shape.lineWidth) : 0
            let reach = width * max(1, shape.lineJoin == "miter" ? min(shape.miterLimit, 100) : 1)
            own = own.union(box.insetBy(dx: -reach - 1, dy: -reach - 1))
        }
        if let r = project(own) { result = result.union(r) }
        if case .replicator(let r) = layer.content {
            // Copies may travel anywhere the instance transform takes them.
            if !r.instances.isEmpty { return .infinite }
        }
        if !layer.masksToBounds {
            let sub = sublayerMatrix(layer)
            for sublayer in layer.sublayers {
                if let e = extent(of: sublayer, reduce(multiply(layerMatrix(sublayer), sub)).concatenating(p)) {
                    if e.isInfinite { return .infinite }
                    result = result.union(e)
                }
            }
        }
        if result.isInfinite { return .infinite }
        return result.isNull ? nil : result.insetBy(dx: -1, dy: -1)
    }

    /// Where contents of `size` (points) sit in `bounds` for a contentsGravity; "top" is the
    /// bounds' maximum y (the layer's own, unflipped, orientation).
    package static func gravityRect(_ gravity: String, content size: CGSize, in bounds: CGRect) -> CGRect? {
        guard size.width > 0, size.height > 0, size.width.isFinite, size.height.isFinite else { return nil }
        switch gravity {
        case "resizeAspect", "resizeAspectFill":
            let fit = min(bounds.width / size.width, bounds.height / size.height)
            let fill = max(bounds.width / size.width, bounds.height / size.height)
            let s = gravity == "resizeAspect" ? fit : fill
            let w = size.width * s, h = size.height * s
            return CGRect(x: bounds.midX - w / 2, y: bounds.midY - h / 2, width: w, height: h)
        case "center", "top", "bottom", "left", "right", "topLeft", "topRight", "bottomLeft", "bottomRight":
            let w = size.width, h = size.height
            var x = bounds.midX - w / 2, y = bounds.midY - h / 2
            if gravity.hasSuffix("Left") || gravity == "left" { x = bounds.minX }
            if gravity.hasSuffix("Right") || gravity == "right" { x = bounds.maxX - w }
            if gravity.hasPrefix("top") { y = bounds.maxY - h }
            if gravity.hasPrefix("bottom") { y = bounds.minY }
            return CGRect(x: x, y: y, width: w, height: h)
        default:   // "resize" and unknown values
            return bounds
        }
    }
}

// MARK: Matrices

/// The layer's bounds space to its superlayer's (before the superlayer's sublayer transform):
/// the anchor point to the origin, the transform, then the anchor to `position`, `zPosition`.
private func layerMatrix(_ layer: RenderLayer) -> CATransform3D {
    let b = layer.bounds
    let ax = b.minX + layer.anchorPoint.x * b.width, ay = b.minY + layer.anchorPoint.y * b.height
    return multiply(multiply(translation3D(-ax, -ay, -layer.anchorPointZ), layer.transform),
                    translation3D(layer.position.x, layer.position.y, layer.zPosition))
}

/// What a layer applies to its sublayers: the geometry flip about its bounds, then its
/// sublayerTransform about its anchor point.
private func sublayerMatrix(_ layer: RenderLayer) -> CATransform3D {
    let b = layer.bounds
    var m = CATransform3DIdentity
    if layer.isGeometryFlipped {
        m.m22 = -1
        m.m42 = b.minY + b.maxY
    }
    if layer.sublayerTransform != CATransform3DIdentity {
        let ax = b.minX + layer.anchorPoint.x * b.width, ay = b.minY + layer.anchorPoint.y * b.height
        m = multiply(m, multiply(multiply(translation3D(-ax, -ay, 0), layer.sublayerTransform), translation3D(ax, ay, 0)))
    }
    return m
}

/// The 3×3 homography of a 4×4 acting on the z = 0 plane, projected back onto z = 0 (the z row
/// and column dropped): how Core Animation flattens a layer into its superlayer.
private func reduce(_ m: CATransform3D) -> LayerProjection {
    LayerProjection(m11: Double(m.m11), m12: Double(m.m12), m13: Double(m.m14),
                    m21: Double(m.m21), m22: Double(m.m22), m23: Double(m.m24),
                    m31: Double(m.m41), m32: Double(m.m42), m33: Double(m.m44))
}

private func translation3D(_ x: CGFloat, _ y: CGFloat, _ z: CGFloat) -> CATransform3D {
    var m = CATransform3DIdentity
    m.m41 = x; m.m42 = y; m.m43 = z
    return m
}

private func translation(_ x: Int, _ y: Int) -> LayerProjection { translation(Double(x), Double(y)) }

private func translation(_ x: Double, _ y: Double) -> LayerProjection {
    LayerProjection(m11: 1, m12: 0, m13: 0, m21: 0, m22: 1, m23: 0, m31: x, m32: y, m33: 1)
}

/// a then b (row vectors: a point maps through `a` first).
private func multiply(_ a: CATransform3D, _ b: CATransform3D) -> CATransform3D {
    let ar = [[a.m11, a.m12, a.m13, a.m14], [a.m21, a.m22, a.m23, a.m24], [a.m31, a.m32, a.m33, a.m34], [a.m41, a.m42, a.m43, a.m44]]
    let br = [[b.m11, b.m12, b.m13, b.m14], [b.m21, b.m22, b.m23, b.m24], [b.m31, b.m32, b.m33, b.m34], [b.m41, b.m42, b.m43, b.m44]]
    var r = [[CGFloat]](repeating: [0, 0, 0, 0], count: 4)
    for i in 0..<4 {
        for j in 0..<4 {
            r[i][j] = ar[i][0] * br[0][j] + ar[i][1] * br[1][j] + ar[i][2] * br[2][j] + ar[i][3] * br[3][j]
        }
    }
    return CATransform3D(m11: r[0][0], m12: r[0][1], m13: r[0][2], m14: r[0][3],
                         m21: r[1][0], m22: r[1][1], m23: r[1][2], m24: r[1][3],
                         m31: r[2][0], m32: r[2][1], m33: r[2][2], m34: r[2][3],
                         m41: r[3][0], m42: r[3][1], m43: r[3][2], m44: r[3][3])
}

/// Sets the context's CTM to the affine projection `p` (device space is what `p` maps to).
func setLayerCTM(_ context: CGContext, _ p: LayerProjection) {
    let current = context.ctm
    if current != .identity { context.concatenate(current.inverted()) }
    context.concatenate(p.affine)
}

/// The outline of `rect` with the masked corners (CACornerMask bits: minXminY 1, maxXminY 2,
/// minXmaxY 4, maxXmaxY 8) rounded by `radius`, as a convex polygon (layer space).
private func roundedRect(_ rect: CGRect, radius: CGFloat, corners: UInt) -> [CGPoint] {
    let r = min(max(radius, 0), rect.width / 2, rect.height / 2)
    guard r > 0 else {
        return [CGPoint(x: rect.minX, y: rect.minY), CGPoint(x: rect.maxX, y: rect.minY),
                CGPoint(x: rect.maxX, y: rect.maxY), CGPoint(x: rect.minX, y: rect.maxY)]
    }
    let steps = 12
    var points: [CGPoint] = []
    // Counter-clockwise from the minX,minY corner: (corner point, arc centre, start angle, bit).
    let spec: [(CGPoint, CGPoint, CGFloat, UInt)] = [
        (CGPoint(x: rect.minX, y: rect.minY), CGPoint(x: rect.minX + r, y: rect.minY + r), .pi, 1),
        (CGPoint(x: rect.maxX, y: rect.minY), CGPoint(x: rect.maxX - r, y: rect.minY + r), 1.5 * .pi, 2),
        (CGPoint(x: rect.maxX, y: rect.maxY), CGPoint(x: rect.maxX - r, y: rect.maxY - r), 0, 8),
        (CGPoint(x: rect.minX, y: rect.maxY), CGPoint(x: rect.minX + r, y: rect.maxY - r), 0.5 * .pi, 4),
    ]
    for (corner, centre, start, bit) in spec {
        if corners & bit == 0 {
            points.append(corner)
            continue
        }
        for i in 0...steps {
            let angle = start + CGFloat(i) / CGFloat(steps) * .pi / 2
            points.append(CGPoint(x: centre.x + r * cos(angle), y: centre.y + r * sin(angle)))
        }
    }
    return points
}

/// The box of a path's points and control points (which hold its curves); nil when it has none
/// finite.
private func controlBox(_ path: CGPath) -> CGRect? {
    var box = CGRect.null
    for element in path.elements {
        let points: [CGPoint]
        switch element {
        case .move(let p), .line(let p): points = [p]
        case .quad(let c, let p): points = [c, p]
        case .cubic(let c1, let c2, let p): points = [c1, c2, p]
        case .close: points = []
        }
        for point in points where point.x.isFinite && point.y.isFinite {
            box = box.union(CGRect(origin: point, size: .zero))
        }
    }
    return box.isNull ? nil : box
}
