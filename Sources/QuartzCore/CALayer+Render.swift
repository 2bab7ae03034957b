// Evaluation of a layer tree at a time into the presentation tree (RenderLayer) the renderer
// draws: each layer's local time, its animations, overridden contents, drawn backing stores,
// text runs, shapes, gradients, replicator copies, transitions and sublayers sorted by zPosition.
import CoreGraphics
import CoreVideo
import Foundation

extension CALayer {
    /// The presentation tree of this layer and its sublayers at `time`, the root's parent time
    /// in seconds (movie time for video, `CACurrentMediaTime()` for live); nil gives the model
    /// values with no animations (what `render(in:)` draws, as Apple documents).
    /// `contentsOverrides` replaces the contents of the layers it names (the video layers of
    /// the Core Animation tool get each composed frame that way). Layers marked with
    /// `setNeedsLayout()` are laid out and layers marked with `setNeedsDisplay()` drawn first
    /// (their `layoutSublayers()` and `display()` run on the calling thread).
    package func renderTree(at time: CFTimeInterval?,
                            contentsOverrides: [ObjectIdentifier: RenderLayer.Contents] = [:]) -> RenderLayer {
        // As a transaction commit does on Apple platforms: pending layout first.
        layoutIfNeeded()
        var parentFlipped = false
        var l = superlayer
        while let c = l { if c.isGeometryFlipped { parentFlipped.toggle() }; l = c.superlayer }
        let nodes = renderNodes(parentTime: time, overrides: contentsOverrides, parentFlipped: parentFlipped)
        let me = ObjectIdentifier(self)
        return nodes.first { $0.id == me } ?? nodes[0]
    }

    /// This layer's node(s): one, or two while a transition runs (the old and new renderings).
    func renderNodes(parentTime: Double?, overrides: [ObjectIdentifier: RenderLayer.Contents],
                     parentFlipped: Bool) -> [RenderLayer] {
        displayIfNeeded()
        let s = state.withLock { $0 }
        let id = ObjectIdentifier(self)
        let flipped = parentFlipped != s.isGeometryFlipped
        var p = Presentation(layer: renderLayer(from: s))
        fillPresentationExtras(&p, s)
        // A synchronized layer's subtree runs on its source's time (a player item's), whatever
        // the parent's; the model values show while that time is unknown.
        let local = s.timeSource.map { $0() } ?? parentTime.map { s.timing.localTime($0) }
        if let local {
            for a in s.animations {
                guard let spec = a.spec else { continue }
                if a.removedOnCompletion && spec.isFinished(atParent: local) { continue }
                spec.apply(to: &p, at: local)
            }
        }
        if let o = overrides[id] { p.layer.contents = o }
        p.layer.contentsAreFlipped = flipped
        if case .text = p.layer.content { p.layer.content = .text(makeText(s.text, p)) }

        let subs = s.sublayers ?? []
        func children(at t: Double?) -> [RenderLayer] {
            let nodes = subs.flatMap { $0.renderNodes(parentTime: t, overrides: overrides, parentFlipped: flipped) }
            return nodes.enumerated().sorted { a, b in
                a.element.zPosition != b.element.zPosition ? a.element.zPosition < b.element.zPosition : a.offset < b.offset
            }.map(\.element)
        }
        if case .replicator(var r) = p.layer.content {
            let count = max(0, min(p.instanceCount, 10_000))
            r.instances = (0..<count).map { k in children(at: local.map { $0 - Double(k) * p.instanceDelay }) }
            p.layer.content = .replicator(r)
            p.layer.sublayers = []
        } else {
            p.layer.sublayers = children(at: local)
        }
        if let m = s.mask {
            p.layer.mask = Array(m.renderNodes(parentTime: local, overrides: overrides, parentFlipped: flipped).prefix(1))
        }
        guard let (spec, progress) = p.transition, var old = spec.old else { return [p.layer] }
        return Self.transition(old: &old, new: p.layer, spec: spec, progress: min(max(progress, 0), 1))
    }

    /// The old and new renderings of a layer during a transition, back to front.
    private static func transition(old: inout RenderLayer, new: RenderLayer, spec: TransitionSpec,
                                   progress: Double) -> [RenderLayer] {
        var new = new
        old.id = spec.oldID
        let k = CGFloat(progress)
        let w = new.bounds.width, h = new.bounds.height
        // The offset that moves content fully out towards the side it comes from.
        var dx: CGFloat = -w, dy: CGFloat = 0
        switch spec.subtype {
        case "fromRight"?: dx = w; dy = 0
        case "fromTop"?: dx = 0; dy = -h
        case "fromBottom"?: dx = 0; dy = h
        default: break
        }
        switch spec.type {
        case "push":
            new.position.x += dx * (1 - k); new.position.y += dy * (1 - k)
            old.position.x -= dx * k; old.position.y -= dy * k
            return [old, new]
        case "moveIn":
            new.position.x += dx * (1 - k); new.position.y += dy * (1 - k)
            return [old, new]
        case "reveal":
            old.position.x -= dx * k; old.position.y -= dy * k
            return [new, old]
        default:
            new.opacity *= Float(k)
            old.opacity *= Float(1 - k)
            return [old, new]
        }
    }

    /// The layer's model values as a render node (no sublayers).
    func modelRenderLayer() -> RenderLayer { renderLayer(from: state.withLock { $0 }) }

    func renderLayer(from s: LayerState) -> RenderLayer {
        var l = RenderLayer(id: ObjectIdentifier(self), bounds: s.bounds, position: s.position)
        l.zPosition = s.zPosition
        l.anchorPoint = s.anchorPoint
        l.anchorPointZ = s.anchorPointZ
        l.transform = s.transform
        l.sublayerTransform = s.sublayerTransform
        l.isGeometryFlipped = s.isGeometryFlipped
        l.opacity = s.opacity
        l.isHidden = s.isHidden
        l.masksToBounds = s.masksToBounds
        l.backgroundColor = s.backgroundColor
        l.cornerRadius = s.cornerRadius
        l.maskedCorners = s.maskedCorners.rawValue
        l.borderWidth = s.borderWidth
        l.borderColor = s.borderColor
        l.allowsEdgeAntialiasing = s.allowsEdgeAntialiasing
        l.isDoubleSided = s.isDoubleSided
        switch s.contents {
        case let i as CGImage: l.contents = .image(i)
        case let b as CVBuffer: l.contents = .pixelBuffer(b)
        default: l.contents = nil
        }
        l.contentsGravity = s.contentsGravity.rawValue
        l.contentsRect = s.contentsRect
        l.contentsCenter = s.contentsCenter
        l.contentsScale = s.contentsScale
        l.minificationFilter = s.minificationFilter.rawValue
        l.magnificationFilter = s.magnificationFilter.rawValue
        l.shadowColor = s.shadowColor
        l.shadowOpacity = s.shadowOpacity
        l.shadowOffset = s.shadowOffset
        l.shadowRadius = s.shadowRadius
        l.shadowPath = s.shadowPath
        switch self {
        case is CATextLayer:
            l.content = .text(RenderText(runs: []))
        case is CAShapeLayer:
            var r = RenderShape()
            r.path = s.shape.path
            r.fillColor = s.shape.fillColor
            r.fillRule = s.shape.fillRule.rawValue
            r.strokeColor = s.shape.strokeColor
            r.lineWidth = s.shape.lineWidth
            r.lineCap = s.shape.lineCap.rawValue
            r.lineJoin = s.shape.lineJoin.rawValue
            r.miterLimit = s.shape.miterLimit
            r.lineDashPattern = (s.shape.lineDashPattern ?? []).map { CGFloat($0.doubleValue) }
            r.lineDashPhase = s.shape.lineDashPhase
            r.strokeStart = s.shape.strokeStart
            r.strokeEnd = s.shape.strokeEnd
            l.content = .shape(r)
        case is CAGradientLayer:
            var g = RenderGradient(colors: (s.gradient.colors ?? []).compactMap { $0 as? CGColor })
            g.locations = s.gradient.locations?.map { CGFloat($0.doubleValue) }
            g.startPoint = s.gradient.startPoint
            g.endPoint = s.gradient.endPoint
            g.type = s.gradient.type.rawValue
            l.content = .gradient(g)
        case is CAReplicatorLayer:
            var r = RenderReplicator()
            r.instanceTransform = s.replicator.instanceTransform
            r.instanceColor = s.replicator.instanceColor
            r.instanceRedOffset = s.replicator.instanceRedOffset
            r.instanceGreenOffset = s.replicator.instanceGreenOffset
            r.instanceBlueOffset = s.replicator.instanceBlueOffset
            r.instanceAlphaOffset = s.replicator.instanceAlphaOffset
            r.preservesDepth = s.replicator.preservesDepth
            l.content = .replicator(r)
        default:
            break
        }
        return l
    }

    /// The presentation values that are not part of a RenderLayer (text size and colour,
    /// replicator count and delay).
    func fillPresentationExtras(_ p: inout Presentation, _ s: LayerState) {
        p.fontSize = s.text.fontSize
        p.foregroundColor = s.text.foregroundColor
        p.instanceCount = s.replicator.instanceCount
        p.instanceDelay = s.replicator.instanceDelay.isFinite ? s.replicator.instanceDelay : 0
    }

    /// A CATextLayer's runs: a String in the layer's font, size and colour (default
    /// "Helvetica", 36, white); an NSAttributedString's runs with the attributes Apple's
    /// keys name ("NSFont": a font name; "NSColor"/"CTForegroundColor": a CGColor;
    /// "NSUnderline", "NSStrikethrough", "NSKern": numbers), missing ones as Core Text defaults
    /// them (Helvetica at the layer's font size, black).
    func makeText(_ t: TextState, _ p: Presentation) -> RenderText {
        let fontName = Self.fontName(t.font) ?? "Helvetica"
        var runs: [RenderTextRun] = []
        switch t.string {
        case let a as NSAttributedString:
            let whole = NSRange(location: 0, length: a.length)
            a.enumerateAttributes(in: whole, options: []) { attrs, range, _ in
                let text = (a.string as NSString).substring(with: range)
                var values: [String: Any] = [:]
                for (k, v) in attrs { values[k.rawValue] = v }
                var size = p.fontSize
                var name = "Helvetica"
                if let f = values["NSFont"] ?? values["CTFont"] {
                    if let n = Self.fontName(f as AnyObject) { name = n }
                }
                if let s = values["NSFontSize"].flatMap({ AnimValue($0)?.scalar }), s > 0 { size = CGFloat(s) }
                let color = (values["NSColor"] ?? values["CTForegroundColor"] ?? values["NSForegroundColor"]) as? CGColor
                var run = RenderTextRun(text: text, fontName: name, fontSize: size, color: color ?? .black)
                run.underline = (values["NSUnderline"].flatMap { AnimValue($0)?.scalar } ?? 0) != 0
                run.strikethrough = (values["NSStrikethrough"].flatMap { AnimValue($0)?.scalar } ?? 0) != 0
                if let k = values["NSKern"].flatMap({ AnimValue($0)?.scalar }) { run.kern = CGFloat(k) }
                runs.append(run)
            }
        case let s as String:
            runs = [RenderTextRun(text: s, fontName: fontName, fontSize: p.fontSize, color: p.foregroundColor)]
        case let s as NSString:
            runs = [RenderTextRun(text: s as String, fontName: fontName, fontSize: p.fontSize, color: p.foregroundColor)]
        default:
            break
        }
        var r = RenderText(runs: runs)
        r.isWrapped = t.isWrapped
        r.alignment = t.alignmentMode.rawValue
        r.truncation = t.truncationMode.rawValue
        return r
    }

    static func fontName(_ f: CFTypeRef?) -> String? {
        switch f {
        case let s as String: return s
        case let s as NSString: return s as String
        default: return nil
        }
    }
}
