// What `avtool compose --dump` prints and `--sheet` draws: the composition's tracks and segments,
// the video composition's instructions with each layer's ramps, and the audio mix's volume ramps —
// the AVCompositionDebugViewer of Linux. Everything is read back through the public API (the
// segments, `get…Ramp(for:…)` and `getVolumeRamp(for:…)`), so what is shown is what was built.
import AVFoundation
import Foundation

enum ComposeDump {
    static func seconds(_ t: CMTime) -> String { t.isNumeric ? String(format: "%.3f", t.seconds) : "\(t)" }
    static func range(_ r: CMTimeRange) -> String { "[\(seconds(r.start)), \(seconds(r.end)))" }

    static func text(_ built: ComposedTimeline, problems: [String]) -> String {
        var out = ""
        let composition = built.composition
        let vc = built.videoComposition
        out += "composition: \(seconds(composition.duration)) s, \(composition.tracks.count) tracks\n"
        for track in composition.tracks {
            let kind = track.mediaType == .video ? "video" : track.mediaType == .audio ? "audio" : track.mediaType.rawValue
            let role = track == built.voiceOverTrack ? " (voice-over)" : track == built.musicTrack ? " (music)"
                : built.videoTracks.count > 1 ? " (\(track == built.videoTracks[0] ? "A" : "B"))" : ""
            out += "  track \(track.trackID) \(kind)\(role)\n"
            for segment in track.segments {
                let target = segment.timeMapping.target
                if segment.isEmpty {
                    out += "    \(range(target).padding(toLength: 20, withPad: " ", startingAt: 0))  empty\n"
                } else {
                    let file = segment.sourceURL?.lastPathComponent ?? "?"
                    out += "    \(range(target).padding(toLength: 20, withPad: " ", startingAt: 0))  \(file) track \(segment.sourceTrackID)"
                        + " \(range(segment.timeMapping.source))\n"
                }
            }
        }
        out += "video composition: \(vc.instructions.count) instructions, render \(Int(vc.renderSize.width))×\(Int(vc.renderSize.height)),"
            + " frame duration \(vc.frameDuration.value)/\(vc.frameDuration.timescale)\n"
        for instruction in vc.instructions {
            let layers = (instruction as? AVVideoCompositionInstruction)?.layerInstructions ?? []
            let names = layers.map { "track \($0.trackID)" }.joined(separator: " over ")
            out += "  \(range(instruction.timeRange).padding(toLength: 20, withPad: " ", startingAt: 0))  \(names)\n"
            for layer in layers {
                for ramp in rampLines(layer, within: instruction.timeRange) { out += "      track \(layer.trackID): \(ramp)\n" }
            }
        }
        out += "audio mix: \(built.audioMix.inputParameters.count) tracks with volume automation\n"
        for parameters in built.audioMix.inputParameters {
            out += "  track \(parameters.trackID)\n"
            for ramp in volumeRamps(parameters) {
                out += "    \(range(ramp.range).padding(toLength: 20, withPad: " ", startingAt: 0))  "
                    + String(format: "%.2f → %.2f", ramp.from, ramp.to) + "\n"
            }
        }
        if let overlay = built.overlay { out += ComposeTitles.dump(overlay) }
        out += problems.isEmpty ? "validation: ok\n" : "validation: " + problems.joined(separator: "; ") + "\n"
        return out
    }

    /// A layer's opacity, transform and crop ramps that start inside `range`.
    static func rampLines(_ layer: AVVideoCompositionLayerInstruction, within range: CMTimeRange) -> [String] {
        var lines: [String] = []
        var startOpacity: Float = 0, endOpacity: Float = 0
        var startTransform = CGAffineTransform.identity, endTransform = CGAffineTransform.identity
        var startCrop = CGRect.zero, endCrop = CGRect.zero
        var rampRange = CMTimeRange.zero
        if layer.getOpacityRamp(for: range.start, startOpacity: &startOpacity, endOpacity: &endOpacity, timeRange: &rampRange),
           startOpacity != endOpacity {
            lines.append(String(format: "opacity %.2f → %.2f over ", startOpacity, endOpacity) + self.range(rampRange))
        }
        if layer.getTransformRamp(for: range.start, start: &startTransform, end: &endTransform, timeRange: &rampRange),
           !(startTransform.isIdentity && endTransform.isIdentity) {
            lines.append("transform " + describe(startTransform)
                         + (startTransform == endTransform ? "" : " → " + describe(endTransform) + " over " + self.range(rampRange)))
        }
        if layer.getCropRectangleRamp(for: range.start, startCropRectangle: &startCrop, endCropRectangle: &endCrop, timeRange: &rampRange) {
            lines.append("crop \(describe(startCrop))" + (startCrop == endCrop ? "" : " → \(describe(endCrop)) over " + self.range(rampRange)))
        }
        return lines
    }

    /// A track's volume ramps in time order, read with `getVolumeRamp(for:…)` from time zero.
    static func volumeRamps(_ parameters: AVAudioMixInputParameters) -> [(range: CMTimeRange, from: Float, to: Float)] {
        var ramps: [(CMTimeRange, Float, Float)] = []
        var time = CMTime.zero, from: Float = 0, to: Float = 0, range = CMTimeRange.zero
        while ramps.count < 10_000, parameters.getVolumeRamp(for: time, startVolume: &from, endVolume: &to, timeRange: &range) {
            ramps.append((range, from, to))
            guard range.end.isNumeric, range.end > time else { break }
            time = range.end
        }
        return ramps
    }

    static func describe(_ t: CGAffineTransform) -> String {
        if t.b == 0, t.c == 0 {
            return String(format: "scale %.3g×%.3g, move (%.1f, %.1f)", t.a, t.d, t.tx, t.ty)
        }
        return String(format: "[%.3g %.3g %.3g %.3g %.1f %.1f]", t.a, t.b, t.c, t.d, t.tx, t.ty)
    }

    static func describe(_ r: CGRect) -> String {
        String(format: "(%.0f, %.0f, %.0f, %.0f)", r.origin.x, r.origin.y, r.width, r.height)
    }
}

/// The timeline as a picture: one lane per composition track with its segments (a thumbnail of
/// each video segment's source), the video composition's instructions (pass-through grey,
/// transitions orange, the outgoing layer's opacity as a falling edge), a strip of the composed
/// output, and the music's volume envelope as read back from the audio mix.
enum ComposeSheet {
    static func draw(_ built: ComposedTimeline, to url: URL) throws {
        let composition = built.composition
        let duration = max(composition.duration.seconds, 0.001)
        let width = 1600, margin = 16
        let lane = 72, instructionLane = 28, strip = 90, gap = 10
        let tracks = composition.tracks
        let lanes: Int = tracks.count * (lane + gap)
        let height: Int = 2 * margin + lanes + instructionLane + strip + 2 * gap
        guard let ctx = CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                                  space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue)
        else { throw ComposeError("cannot make a \(width)×\(height) picture") }
        let scale = Double(width - 2 * margin) / duration
        func x(_ t: CMTime) -> Double { Double(margin) + t.seconds * scale }
        // Rectangles are given from the top; Core Graphics' origin is bottom-left.
        func box(_ x0: Double, _ top: Int, _ w: Double, _ h: Int) -> CGRect {
            CGRect(x: x0, y: Double(height - top - h), width: max(w, 1), height: Double(h))
        }
        ctx.setFillColor(gray: 0.1, alpha: 1)
        ctx.fill(CGRect(x: 0, y: 0, width: width, height: height))
        // Whole seconds.
        ctx.setFillColor(gray: 0.22, alpha: 1)
        for s in 0...Int(duration) { ctx.fill(box(Double(margin) + Double(s) * scale, margin, 1, height - 2 * margin)) }

        var top = margin
        for track in tracks {
            ctx.setFillColor(gray: 0.16, alpha: 1)
            ctx.fill(box(Double(margin), top, Double(width - 2 * margin), lane))
            for segment in track.segments {
                let r = segment.timeMapping.target
                let x0 = x(r.start), w = r.duration.seconds * scale
                if segment.isEmpty { continue }
                let video = track.mediaType == .video
                let colour = video ? (0.25, 0.45, 0.85) : track == built.voiceOverTrack ? (0.85, 0.45, 0.65) : (0.3, 0.7, 0.45)
                ctx.setFillColor(red: colour.0, green: colour.1, blue: colour.2, alpha: 1)
                ctx.fill(box(x0 + 1, top + 2, w - 2, lane - 4))
                if video, let source = segment.sourceURL {
                    let middle = CMTimeAdd(segment.timeMapping.source.start,
                                           CMTimeMultiplyByRatio(segment.timeMapping.source.duration, multiplier: 1, divisor: 2))
                    if let image = thumbnail(AVURLAsset(url: source), at: middle, height: lane - 12) {
                        let w2 = min(Double(image.width), w - 8)
                        ctx.draw(image, in: box(x0 + 4, top + 6, w2, lane - 12))
                    }
                }
            }
            if track == built.musicTrack {
                // The envelope: a bar per pixel column, its height the gain (1.0 = the lane).
                let mix = built.audioMix.inputParameters.first { $0.trackID == track.trackID }
                let ramps = mix.map { ComposeDump.volumeRamps($0) } ?? []
                ctx.setFillColor(red: 1, green: 0.85, blue: 0.3, alpha: 0.8)
                for column in 0..<(width - 2 * margin) {
                    let t = Double(column) / scale
                    guard let ramp = ramps.first(where: { $0.range.start.seconds <= t && t < $0.range.end.seconds }) else { continue }
                    let f = (t - ramp.range.start.seconds) / max(ramp.range.duration.seconds, 1e-9)
                    let gain = Double(ramp.from) + (Double(ramp.to) - Double(ramp.from)) * f
                    let clamped: Double = min(max(gain, 0), 1.2)
                    let h = Int((clamped * Double(lane - 8)).rounded())
                    let y: Int = top + lane - 4 - h
                    if h > 0 { ctx.fill(box(Double(margin + column), y, 1, 2)) }
                }
            }
            top += lane + gap
        }

        // Instructions.
        for instruction in built.videoComposition.instructions {
            let r = instruction.timeRange
            let layers = (instruction as? AVVideoCompositionInstruction)?.layerInstructions ?? []
            if layers.count > 1 {
                ctx.setFillColor(red: 0.95, green: 0.55, blue: 0.15, alpha: 1)
            } else {
                ctx.setFillColor(gray: 0.55, alpha: 1)
            }
            ctx.fill(box(x(r.start) + 1, top, r.duration.seconds * scale - 2, instructionLane))
        }
        top += instructionLane + gap

        // The composed output through the video composition: the time axis cut into equal slots,
        // each showing the frame at its middle — or at the middle of a transition falling in it,
        // so every transition shows its blend — drawn over that frame's time (within its slot).
        let generator = AVAssetImageGenerator(asset: composition)
        generator.videoComposition = built.videoComposition
        generator.maximumSize = CGSize(width: 0, height: strip)
        let axis = Double(width - 2 * margin)
        let renderSize = built.videoComposition.renderSize
        let frameWidth = min(axis, Double(strip) * Double(renderSize.width) / max(Double(renderSize.height), 1))
        let count = max(1, Int(axis / frameWidth))
        let slot = axis / Double(count)
        let transitionMiddles = built.videoComposition.instructions
            .filter { (($0 as? AVVideoCompositionInstruction)?.layerInstructions.count ?? 0) > 1 }
            .map { $0.timeRange.start.seconds + $0.timeRange.duration.seconds / 2 }
        for i in 0..<count {
            let from = Double(i) * slot / scale, to = Double(i + 1) * slot / scale
            let seconds = transitionMiddles.first { $0 >= from && $0 < to } ?? (from + to) / 2
            let t = CMTime(seconds: seconds, preferredTimescale: 600)
            let box0 = UncheckedBox(generator)
            guard let image = try? blocking({ try await box0.value.image(at: t).image }) else { continue }
            let slotLeft = Double(margin) + Double(i) * slot
            let left = min(max(x(t) - frameWidth / 2, slotLeft), slotLeft + slot - frameWidth)
            ctx.draw(image, in: box(left + 1, top, frameWidth - 2, strip))
        }
        guard let picture = ctx.makeImage() else { throw ComposeError("cannot make the picture") }
        try save(picture, to: url, type: .png, properties: nil)
    }

    static func thumbnail(_ asset: AVAsset, at time: CMTime, height: Int) -> CGImage? {
        let generator = AVAssetImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = true
        generator.maximumSize = CGSize(width: 0, height: height)
        let box = UncheckedBox(generator)
        return try? blocking { try await box.value.image(at: time).image }
    }
}
