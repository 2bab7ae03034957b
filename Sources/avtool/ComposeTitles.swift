// Titles and a watermark over a composed timeline, built as the book's 15 Seconds app builds them
// (§12.4, THTitleItem.buildLayer) through the public Core Animation API and handed to the export
// by AVVideoCompositionCoreAnimationTool (R12.3.2): an animation layer and a video layer, both the
// render size, the animation layer geometry-flipped so titles lay out from the top; each title a
// parent layer (opacity 0, shown by its keyframe fade) holding an image layer and a text layer;
// the watermark a static layer in a corner, in every frame.
import AVFoundation
import Foundation

/// What was built for one title, for `--dump`: its layer (whose animations are read back).
struct ComposedTitle {
    let text: String
    let range: CMTimeRange
    let layer: CALayer
    let imageLayer: CALayer?
    let textLayer: CATextLayer?
}

/// The layers `avtool compose` adds over the video.
struct ComposedOverlay {
    let animationLayer: CALayer
    let videoLayer: CALayer
    let titles: [ComposedTitle]
    let watermark: CALayer?
    let watermarkDescription: String?
}

enum ComposeTitles {
    static let defaultFont = "GillSans-Bold"
    static let margin: CGFloat = 24

    /// "#RRGGBB" or "#RRGGBBAA" as a colour; nil (default) is white.
    static func color(_ text: String?, what: String) throws -> CGColor {
        guard let text else { return CGColor(red: 1, green: 1, blue: 1, alpha: 1) }
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6 || hex.count == 8, let value = UInt64(hex, radix: 16) else {
            throw ComposeError("\(what): colour “\(text)” is not #RRGGBB or #RRGGBBAA")
        }
        let rgba = hex.count == 6 ? value << 8 | 0xFF : value
        func c(_ shift: UInt64) -> CGFloat { CGFloat((rgba >> shift) & 0xFF) / 255 }
        return CGColor(red: c(24), green: c(16), blue: c(8), alpha: c(0))
    }

    /// A PNG or JPEG through ImageIO, as Apple code loads one.
    static func image(_ file: String, relativeTo base: URL, what: String) throws -> CGImage {
        let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : base.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else { throw ComposeError("\(what): image \(url.path): no such file") }
        guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
              let image = CGImageSourceCreateImageAtIndex(source, 0, nil) else {
            throw ComposeError("\(what): \(url.path) is not a PNG or JPEG image ImageIO can read")
        }
        return image
    }

    /// A movie time as a Core Animation begin time: 0 is "now" to Core Animation, so a start at
    /// movie time 0 is `AVCoreAnimationBeginTimeAtZero` (R12.2.2).
    static func beginTime(_ seconds: Double) -> CFTimeInterval {
        seconds <= 0 ? AVCoreAnimationBeginTimeAtZero : seconds
    }

    /// A text layer for one line, `width` wide (the text is aligned in it) and a line high.
    static func textLayer(_ text: String, font: String?, size: CGFloat, color: CGColor, width: CGFloat,
                          alignment: CATextLayerAlignmentMode) -> CATextLayer {
        let layer = CATextLayer()
        layer.string = text
        layer.font = (font ?? defaultFont) as CFString
        layer.fontSize = size
        layer.foregroundColor = color
        layer.alignmentMode = alignment
        layer.backgroundColor = CGColor(red: 0, green: 0, blue: 0, alpha: 0)
        layer.bounds = CGRect(x: 0, y: 0, width: width, height: (size * 1.3).rounded(.up))
        return layer
    }

    /// Builds the titles and the watermark; nil when the timeline has neither.
    static func build(_ timeline: ComposeTimeline, renderSize: CGSize, duration: CMTime, relativeTo base: URL) throws -> ComposedOverlay? {
        let titles = timeline.titles ?? []
        guard !titles.isEmpty || timeline.watermark != nil else { return nil }
        let bounds = CGRect(origin: .zero, size: renderSize)
        // R12.3.2: the animation layer and the video layer both cover the render size; the
        // animation layer is flipped, otherwise titles laid out from the top would be inverted.
        let animationLayer = CALayer()
        animationLayer.frame = bounds
        animationLayer.isGeometryFlipped = true
        let videoLayer = CALayer()
        videoLayer.frame = bounds
        animationLayer.addSublayer(videoLayer)

        var built: [ComposedTitle] = []
        for (i, title) in titles.enumerated() {
            let what = "title \(i + 1)"
            guard title.start >= 0, title.duration > 0 else {
                throw ComposeError("\(what) needs a start ≥ 0 and a duration > 0 (start \(title.start), duration \(title.duration))")
            }
            let start = composeTime(title.start, timescale: 1000), length = composeTime(title.duration, timescale: 1000)
            guard start < duration else {
                throw ComposeError("\(what) starts at \(title.start) s, after the end of the video (\(String(format: "%.3f", duration.seconds)) s)")
            }
            let t = try buildTitle(title, bounds: bounds, base: base, what: what)
            animationLayer.addSublayer(t.layer)
            built.append(ComposedTitle(text: title.text, range: CMTimeRange(start: start, duration: length), layer: t.layer,
                                       imageLayer: t.image, textLayer: t.text))
        }

        var watermark: CALayer?
        var watermarkDescription: String?
        if let mark = timeline.watermark {
            let w = try buildWatermark(mark, bounds: bounds, base: base)
            animationLayer.addSublayer(w.layer)
            watermark = w.layer
            watermarkDescription = w.description
        }
        return ComposedOverlay(animationLayer: animationLayer, videoLayer: videoLayer, titles: built, watermark: watermark,
                               watermarkDescription: watermarkDescription)
    }

    /// THTitleItem.buildLayer: the parent (the render bounds, opacity 0), the image at
    /// (midX − 20, 270) and the text at (midX, 470) — the book's 1280×720 positions, scaled to
    /// other render sizes — the fade, the spin and the pop.
    static func buildTitle(_ title: ComposeTimeline.Title, bounds: CGRect, base: URL, what: String)
        throws -> (layer: CALayer, image: CALayer?, text: CATextLayer?) {
        let parent = CALayer()
        parent.frame = bounds
        let fades = title.fade ?? true
        parent.opacity = 0  // R12.4.2: the fade (or, without one, a hold) shows it

        var imageLayer: CALayer?
        if let file = title.image {
            let image = try image(file, relativeTo: base, what: what)
            let layer = CALayer()
            layer.contents = image
            layer.bounds = CGRect(x: 0, y: 0, width: image.width, height: image.height)
            layer.position = CGPoint(x: bounds.midX - 20 * bounds.width / 1280, y: 270 * bounds.height / 720)
            layer.allowsEdgeAntialiasing = true
            parent.addSublayer(layer)
            imageLayer = layer
        }
        var textLayer: CATextLayer?
        if !title.text.isEmpty {
            let size = CGFloat(title.size ?? ((title.large ?? false) ? 64 : 54))
            guard size > 0 else { throw ComposeError("\(what): size must be > 0") }
            let layer = Self.textLayer(title.text, font: title.font, size: size, color: try color(title.color, what: what),
                                       width: bounds.width, alignment: .center)
            layer.position = CGPoint(x: bounds.midX, y: 470 * bounds.height / 720)
            parent.addSublayer(layer)
            textLayer = layer
        }

        // R12.4.3: opacity [0, 1, 1, 0] at [0, 0.2, 0.8, 1] over the title's time.
        if fades {
            let fade = CAKeyframeAnimation(keyPath: "opacity")
            fade.values = [0.0, 1.0, 1.0, 0.0]
            fade.keyTimes = [0.0, 0.2, 0.8, 1.0]
            fade.beginTime = beginTime(title.start)
            fade.duration = title.duration
            fade.isRemovedOnCompletion = false
            parent.add(fade, forKey: "fade")
        } else {
            // Shown at full opacity over its time only (opacity 1 held, then back to the model's 0).
            let hold = CABasicAnimation(keyPath: "opacity")
            hold.fromValue = 1.0
            hold.toValue = 1.0
            hold.beginTime = beginTime(title.start)
            hold.duration = title.duration
            hold.isRemovedOnCompletion = false
            parent.add(hold, forKey: "show")
        }
        // R12.4.4: perspective on the parent, two turns about y, then a pop as the spin ends.
        let spins = title.spin ?? false, pops = title.pop ?? false
        if let imageLayer, spins || pops {
            var perspective = CATransform3DIdentity
            perspective.m34 = -1.0 / 1000
            parent.sublayerTransform = perspective
            let spinBegin = title.start + 0.2, spinDuration = title.duration * 0.4
            if spins {
                let spin = CABasicAnimation(keyPath: "transform.rotation.y")
                spin.toValue = -4 * Double.pi
                spin.beginTime = beginTime(spinBegin)
                spin.duration = spinDuration
                spin.timingFunction = CAMediaTimingFunction(name: .easeInEaseOut)
                spin.isRemovedOnCompletion = false
                imageLayer.add(spin, forKey: "spin")
            }
            if pops {
                let pop = CABasicAnimation(keyPath: "transform.scale")
                pop.toValue = 1.3
                pop.beginTime = beginTime(spinBegin + spinDuration - 0.5)
                pop.duration = 0.35
                pop.autoreverses = true
                pop.timingFunction = CAMediaTimingFunction(name: .easeInEaseOut)
                pop.isRemovedOnCompletion = false
                imageLayer.add(pop, forKey: "pop")
            }
        }
        return (parent, imageLayer, textLayer)
    }

    /// A static layer (no animation: it is in every frame) in a corner, `margin` from the edges
    /// (the animation layer is flipped, so y grows downwards here): the image, and the text
    /// beside it towards the middle.
    static func buildWatermark(_ mark: ComposeTimeline.Watermark, bounds: CGRect, base: URL) throws -> (layer: CALayer, description: String) {
        let what = "watermark"
        guard mark.image != nil || !(mark.text ?? "").isEmpty else { throw ComposeError("the watermark needs an image or a text") }
        let corner = (mark.position ?? "bottom-right").lowercased()
        guard ["top-left", "top-right", "bottom-left", "bottom-right"].contains(corner) else {
            throw ComposeError("watermark position “\(corner)” is not top-left, top-right, bottom-left or bottom-right")
        }
        let opacity = mark.opacity ?? 0.8
        guard (0...1).contains(opacity) else { throw ComposeError("watermark opacity must be in [0, 1]") }
        let right = corner.hasSuffix("right"), top = corner.hasPrefix("top")
        var parts: [CALayer] = []
        var imageSize = CGSize.zero
        if let file = mark.image {
            let image = try image(file, relativeTo: base, what: what)
            let layer = CALayer()
            layer.contents = image
            imageSize = CGSize(width: image.width, height: image.height)
            layer.bounds = CGRect(origin: .zero, size: imageSize)
            parts.append(layer)
        }
        var textWidth: CGFloat = 0, textHeight: CGFloat = 0
        var textLayer: CATextLayer?
        if let text = mark.text, !text.isEmpty {
            let size = CGFloat(mark.size ?? 24)
            guard size > 0 else { throw ComposeError("watermark size must be > 0") }
            // Wide enough for the line (aligned towards the corner, so the slack is on the inside).
            textWidth = min(bounds.width / 2, (size * 0.75 * CGFloat(text.count) + size).rounded(.up))
            let layer = Self.textLayer(text, font: mark.font, size: size, color: try color(mark.color, what: what),
                                       width: textWidth, alignment: right ? .right : .left)
            textHeight = layer.bounds.height
            textLayer = layer
            parts.append(layer)
        }
        let gap: CGFloat = imageSize.width > 0 && textLayer != nil ? 8 : 0
        let size = CGSize(width: imageSize.width + gap + textWidth, height: max(imageSize.height, textHeight))
        let holder = CALayer()
        holder.bounds = CGRect(origin: .zero, size: size)
        holder.anchorPoint = .zero
        holder.position = CGPoint(x: right ? bounds.width - margin - size.width : margin,
                                  y: top ? margin : bounds.height - margin - size.height)
        holder.opacity = Float(opacity)
        // The image at the corner's side, the text towards the middle, both centred vertically.
        var x: CGFloat = right ? size.width : 0
        for part in right ? parts.reversed() : parts {
            let w = part.bounds.width
            part.position = CGPoint(x: right ? x - w / 2 : x + w / 2, y: size.height / 2)
            x += right ? -(w + gap) : (w + gap)
            holder.addSublayer(part)
        }
        let frame = CGRect(origin: holder.position, size: size)
        var description = "\(corner), opacity \(String(format: "%.2f", opacity)), "
            + "[\(Int(frame.minX)), \(Int(frame.minY)), \(Int(frame.width))×\(Int(frame.height))] from the top left"
        if let file = mark.image { description += ", image \(file) \(Int(imageSize.width))×\(Int(imageSize.height))" }
        if let text = mark.text, !text.isEmpty { description += ", text “\(text)”" }
        return (holder, description)
    }

    /// The dump's lines for the overlay, read back from the layers (their animations by key).
    static func dump(_ overlay: ComposedOverlay) -> String {
        var out = "titles: \(overlay.titles.count) (AVVideoCompositionCoreAnimationTool, animation layer geometry-flipped)\n"
        for (i, title) in overlay.titles.enumerated() {
            out += "  title \(i + 1) \(ComposeDump.range(title.range).padding(toLength: 20, withPad: " ", startingAt: 0))  “\(title.text)”"
            if let text = title.textLayer {
                out += " \((text.font as? CFString).map { $0 as String } ?? "?") \(Int(text.fontSize))"
            }
            if let image = title.imageLayer { out += ", image \(Int(image.bounds.width))×\(Int(image.bounds.height))" }
            out += "\n"
            func timing(_ a: CAAnimation) -> String {
                let begin = a.beginTime == AVCoreAnimationBeginTimeAtZero ? 0 : a.beginTime
                return String(format: "begins %.3f s, lasts %.3f s", begin, a.duration) + (a.autoreverses ? ", autoreverses" : "")
            }
            var effects: [String] = []
            if let fade = title.layer.animation(forKey: "fade") as? CAKeyframeAnimation {
                effects.append("fade: opacity [0, 1, 1, 0] at [0, 0.2, 0.8, 1], " + timing(fade))
            }
            if let spin = title.imageLayer?.animation(forKey: "spin") { effects.append("spin: rotation.y to −4π, " + timing(spin)) }
            if let pop = title.imageLayer?.animation(forKey: "pop") { effects.append("pop: scale to 1.3, " + timing(pop)) }
            if let show = title.layer.animation(forKey: "show") { effects.append("no fade: shown " + timing(show)) }
            for effect in effects { out += "      \(effect)\n" }
        }
        if let mark = overlay.watermarkDescription { out += "watermark: \(mark)\n" }
        return out
    }
}
