// Builds a laid-out timeline into Apple's editing objects through the public API only, as the
// book's THCompositionBuilder family does: an AVMutableComposition (video on track A, or A and B
// alternating when clips overlap in transitions; then the voice-over track; then the music
// track), an AVMutableVideoComposition whose instructions alternate pass-through and transition
// ranges (the transition's layer instructions ordered [outgoing, incoming], ramps by kind), and
// an AVMutableAudioMix with the music's fades and ducking as volume ramps.
import AVFoundation
import Foundation

/// A timeline built into a composition, a video composition and an audio mix.
struct ComposedTimeline {
    let layout: ComposeLayout
    let composition: AVMutableComposition
    let videoComposition: AVMutableVideoComposition
    let audioMix: AVMutableAudioMix
    /// Video tracks A (and B), then the voice-over and music tracks when the timeline has them.
    let videoTracks: [AVMutableCompositionTrack]
    let voiceOverTrack: AVMutableCompositionTrack?
    let musicTrack: AVMutableCompositionTrack?
    /// The titles and the watermark, when the timeline has them (drawn by the video
    /// composition's animation tool).
    var overlay: ComposedOverlay? = nil
}

enum ComposeBuilder {
    /// A source file's asset and the facts the builder needs, loaded once per file.
    final class Source: @unchecked Sendable {
        let asset: AVURLAsset
        var video: AVAssetTrack?
        var audio: AVAssetTrack?
        var naturalSize = CGSize.zero
        var preferredTransform = CGAffineTransform.identity
        var frameRate: Float = 0

        init(_ url: URL) throws {
            guard FileManager.default.fileExists(atPath: url.path) else { throw ComposeError("\(url.path): no such file") }
            asset = AVURLAsset(url: url, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
            let asset = self.asset
            let (video, audio) = try blocking {
                let video = try await asset.loadTracks(withMediaType: .video).first
                let audio = try await asset.loadTracks(withMediaType: .audio).first
                return (UncheckedBox(video), UncheckedBox(audio))
            }
            self.video = video.value
            self.audio = audio.value
            if let track = self.video {
                let box = UncheckedBox(track)
                let (size, transform, rate) = try blocking {
                    try await box.value.load(.naturalSize, .preferredTransform, .nominalFrameRate)
                }
                naturalSize = size
                preferredTransform = transform
                frameRate = rate
            }
        }

        func track(_ type: AVMediaType) -> AVAssetTrack? { type == .video ? video : audio }

        /// Where the track's media ends.
        func length(_ type: AVMediaType) throws -> CMTime? {
            guard let track = track(type) else { return nil }
            let box = UncheckedBox(track)
            return try blocking { try await box.value.load(.timeRange) }.end
        }

        /// The picture's size after its preferred transform (a portrait phone clip is taller than wide).
        var uprightSize: CGSize {
            let r = CGRect(origin: .zero, size: naturalSize).applying(preferredTransform)
            return CGSize(width: abs(r.width), height: abs(r.height))
        }

        /// Source pixels → render pixels: the preferred transform, then scaled to fit `render`
        /// keeping the aspect ratio, centred.
        func fitTransform(_ render: CGSize) -> CGAffineTransform {
            let upright = CGRect(origin: .zero, size: naturalSize).applying(preferredTransform)
            guard upright.width > 0, upright.height > 0 else { return .identity }
            let scale = min(render.width / upright.width, render.height / upright.height)
            return preferredTransform
                .concatenating(CGAffineTransform(translationX: -upright.minX, y: -upright.minY))
                .concatenating(CGAffineTransform(scaleX: scale, y: scale))
                .concatenating(CGAffineTransform(translationX: (render.width - scale * upright.width) / 2,
                                                 y: (render.height - scale * upright.height) / 2))
        }
    }

    static func build(_ timeline: ComposeTimeline, relativeTo base: URL) throws -> ComposedTimeline {
        var sources: [URL: Source] = [:]
        func source(_ url: URL) throws -> Source {
            if let known = sources[url] { return known }
            let made = try Source(url)
            sources[url] = made
            return made
        }
        let layout = try timeline.layout(relativeTo: base) { url, type in try source(url).length(type) }

        // The composition: video track(s), voice-over, music.
        let composition = AVMutableComposition()
        var videoTracks: [AVMutableCompositionTrack] = []
        for _ in 0..<(layout.usesTwoTracks ? 2 : 1) {
            guard let track = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid) else {
                throw ComposeError("could not add a video track to the composition")
            }
            videoTracks.append(track)
        }
        for (i, clip) in layout.clips.enumerated() {
            let src = try source(clip.url)
            do {
                try videoTracks[clip.lane].insertTimeRange(clip.source, of: src.video!, at: clip.at)
            } catch {
                throw ComposeError("video \(i + 1) (\(clip.url.lastPathComponent)): \(errorText(error))")
            }
        }
        func audioTrack(_ items: [ComposeLayout.AudioItem], _ what: String) throws -> AVMutableCompositionTrack? {
            guard !items.isEmpty else { return nil }
            guard let track = composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid) else {
                throw ComposeError("could not add an audio track to the composition")
            }
            for (i, item) in items.enumerated() {
                do {
                    try track.insertTimeRange(item.source, of: try source(item.url).audio!, at: item.at)
                } catch {
                    throw ComposeError("\(what) \(i + 1) (\(item.url.lastPathComponent)): \(errorText(error))")
                }
            }
            return track
        }
        let voiceOverTrack = try audioTrack(layout.voiceOvers, "voice-over")
        let musicTrack = try audioTrack(layout.music, "music")

        // The video composition.
        let first = try source(layout.clips[0].url)
        let renderSize: CGSize
        if let given = timeline.renderSize {
            guard given.count == 2, given[0] >= 2, given[1] >= 2 else { throw ComposeError("renderSize must be [width, height]") }
            renderSize = CGSize(width: given[0].rounded(), height: given[1].rounded())
        } else {
            let upright = first.uprightSize
            renderSize = CGSize(width: (upright.width / 2).rounded() * 2, height: (upright.height / 2).rounded() * 2)
        }
        var rate = timeline.frameRate ?? 0
        if timeline.frameRate == nil {
            for clip in layout.clips { rate = max(rate, Double(try source(clip.url).frameRate)) }
        }
        let frameRate = rate > 0 ? rate : 30
        let videoComposition = AVMutableVideoComposition()
        videoComposition.renderSize = renderSize
        videoComposition.frameDuration = abs(frameRate - frameRate.rounded()) < 0.001
            ? CMTime(value: 1, timescale: Int32(frameRate.rounded()))
            : CMTime(value: 1000, timescale: Int32((frameRate * 1000).rounded()))
        videoComposition.renderScale = 1
        var instructions: [AVMutableVideoCompositionInstruction] = []
        func layer(_ clip: Int, at time: CMTime) throws -> AVMutableVideoCompositionLayerInstruction {
            let layer = AVMutableVideoCompositionLayerInstruction(assetTrack: videoTracks[layout.clips[clip].lane])
            layer.setTransform(try source(layout.clips[clip].url).fitTransform(renderSize), at: time)
            return layer
        }
        for (i, clip) in layout.clips.enumerated() {
            // The clip alone: its range less the transitions into and out of it.
            var start = clip.at, end = clip.timelineRange.end
            if i > 0, layout.joins[i - 1].kind != .cut { start = layout.joins[i - 1].range.end }
            if i < layout.joins.count, layout.joins[i].kind != .cut { end = layout.joins[i].range.start }
            if start < end {
                let alone = AVMutableVideoCompositionInstruction()
                alone.timeRange = CMTimeRange(start: start, end: end)
                alone.layerInstructions = [try layer(i, at: start)]
                instructions.append(alone)
            }
            guard i < layout.joins.count, layout.joins[i].kind != .cut else { continue }
            let join = layout.joins[i]
            let from = try layer(join.from, at: join.range.start), to = try layer(join.to, at: join.range.start)
            try applyTransition(join, from: from, to: to, fromFit: try source(layout.clips[join.from].url),
                                toFit: try source(layout.clips[join.to].url), renderSize: renderSize)
            let transition = AVMutableVideoCompositionInstruction()
            transition.timeRange = join.range
            transition.layerInstructions = [from, to]  // the outgoing clip in front
            instructions.append(transition)
        }
        videoComposition.instructions = instructions

        // Titles and a watermark: the book's animation tool set-up (R12.3.2), the composed frame
        // in the video layer under the title layers.
        let overlay = try ComposeTitles.build(timeline, renderSize: renderSize, duration: layout.duration, relativeTo: base)
        if let overlay {
            videoComposition.animationTool = AVVideoCompositionCoreAnimationTool(postProcessingAsVideoLayer: overlay.videoLayer,
                                                                                 in: overlay.animationLayer)
        }

        // The audio mix: the music's envelope as ramps; each voice-over at its own volume.
        let audioMix = AVMutableAudioMix()
        var parameters: [AVMutableAudioMixInputParameters] = []
        if let musicTrack {
            let music = AVMutableAudioMixInputParameters(track: musicTrack)
            for ramp in layout.musicRamps() {
                music.setVolumeRamp(fromStartVolume: ramp.from, toEndVolume: ramp.to, timeRange: ramp.range)
            }
            parameters.append(music)
        }
        if let voiceOverTrack, layout.voiceOvers.contains(where: { $0.volume != 1 }) {
            let voice = AVMutableAudioMixInputParameters(track: voiceOverTrack)
            for item in layout.voiceOvers { voice.setVolume(item.volume, at: item.at) }
            parameters.append(voice)
        }
        audioMix.inputParameters = parameters
        return ComposedTimeline(layout: layout, composition: composition, videoComposition: videoComposition,
                                audioMix: audioMix, videoTracks: videoTracks, voiceOverTrack: voiceOverTrack, musicTrack: musicTrack,
                                overlay: overlay)
    }

    /// The ramps of one transition over its range (book §11.3: dissolve fades the outgoing clip
    /// out; cross-dissolve also fades the incoming one in; push slides both by the render width
    /// or height; wipe collapses the outgoing clip's crop rectangle from one edge).
    static func applyTransition(_ join: ComposeLayout.Join, from: AVMutableVideoCompositionLayerInstruction,
                                to: AVMutableVideoCompositionLayerInstruction, fromFit: Source, toFit: Source, renderSize: CGSize) throws {
        let range = join.range
        switch join.kind {
        case .cut:
            return
        case .dissolve:
            from.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range)
        case .crossDissolve:
            from.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: range)
            to.setOpacityRamp(fromStartOpacity: 0, toEndOpacity: 1, timeRange: range)
        case let .push(dx, dy):
            let shift = CGAffineTransform(translationX: CGFloat(dx) * renderSize.width, y: CGFloat(dy) * renderSize.height)
            let fromFitT = fromFit.fitTransform(renderSize), toFitT = toFit.fitTransform(renderSize)
            from.setTransformRamp(fromStart: fromFitT, toEnd: fromFitT.concatenating(shift), timeRange: range)
            to.setTransformRamp(fromStart: toFitT.concatenating(shift.inverted()), toEnd: toFitT, timeRange: range)
        case let .wipe(dx, dy):
            let w = fromFit.naturalSize.width, h = fromFit.naturalSize.height
            let whole = CGRect(x: 0, y: 0, width: w, height: h)
            let gone: CGRect
            switch (dx, dy) {
            case (0, -1): gone = CGRect(x: 0, y: h, width: w, height: 0)  // the book's wipe: the top edge moves down
            case (0, _): gone = CGRect(x: 0, y: 0, width: w, height: 0)   // the bottom edge moves up
            case (-1, _): gone = CGRect(x: 0, y: 0, width: 0, height: h)  // the right edge moves left
            default: gone = CGRect(x: w, y: 0, width: 0, height: h)       // the left edge moves right
            }
            from.setCropRectangleRamp(fromStartCropRectangle: whole, toEndCropRectangle: gone, timeRange: range)
        }
    }
}
