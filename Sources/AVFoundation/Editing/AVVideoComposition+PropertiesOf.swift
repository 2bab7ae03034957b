// AVVideoComposition(propertiesOf:): a video composition that presents an asset's video tracks
// as they are — instructions from the tracks' segment layout, render size from their sizes,
// frame duration from their frame rates (book §11 R11.1.5, Apple's header).
import CoreGraphics
import CoreMedia
import Foundation

extension AVVideoComposition {
    /// A video composition that presents the video tracks of `asset` (load its `tracks` and
    /// `duration` first; on Apple this is deprecated in favour of
    /// `videoComposition(withPropertiesOf:)`).
    ///
    /// - Instructions: the asset's timeline from zero to the end of its last video segment, cut
    ///   wherever an enabled video track's media (its non-empty segments) starts or ends. Each
    ///   piece is an `AVMutableVideoCompositionInstruction` whose layer instructions
    ///   (`AVMutableVideoCompositionLayerInstruction`s) are the tracks with media there, in the
    ///   asset's track order (the first in front: in a transition of tracks A and B, A then B);
    ///   each layer's transform is set to its track's `preferredTransform` at the instruction's
    ///   start. A piece no track covers gets an instruction with no layers (background black).
    ///   When the tracks' frames placed by their preferred transforms do not start at the origin
    ///   (a rotation matrix written without its translation, as ffmpeg and Android write them),
    ///   each layer's transform also moves them there, so the frames land on the canvas.
    /// - `renderSize`: an `AVComposition`'s `naturalSize` when set; otherwise the size of the
    ///   union of the video tracks' frames placed by their preferred transforms.
    /// - `frameDuration`: one over the greatest `nominalFrameRate` of the video tracks, 1/30 when
    ///   all report 0. With exactly one video track, `sourceTrackIDForFrameTiming` is that track
    ///   (its own frame timing is kept).
    /// - `renderScale` 1; no custom compositor; no colour properties.
    ///
    /// An asset without video tracks gives no instructions.
    public convenience init(propertiesOf asset: AVAsset) {
        self.init()
        applyProperties(of: asset)
    }

    /// Sets the properties `init(propertiesOf:)` describes.
    func applyProperties(of asset: AVAsset, prototype: AVVideoCompositionInstruction? = nil) {
        let tracks = asset.tracks(withMediaType: .video).filter(\.isEnabled)
        let layout = tracks.map { track in
            track.segments.filter { !$0.isEmpty }.map(\.timeMapping.target).filter { $0.isValid && $0.duration > .zero }
        }
        let shift = Self.placedFrames(of: tracks).map { CGAffineTransform(translationX: -$0.minX, y: -$0.minY) } ?? .identity
        storedInstructions = Self.instructions(for: tracks, layout: layout, shift: shift, prototype: prototype)
        storedRenderSize = Self.renderSize(of: asset, tracks: tracks)
        storedFrameDuration = Self.frameDuration(forRates: tracks.map(\.nominalFrameRate))
        storedSourceTrackIDForFrameTiming = tracks.count == 1 ? tracks[0].trackID : kCMPersistentTrackID_Invalid
        storedRenderScale = 1
    }

    /// One instruction per stretch of time with the same set of tracks showing media.
    static func instructions(for tracks: [AVAssetTrack], layout: [[CMTimeRange]], shift: CGAffineTransform = .identity,
                             prototype: AVVideoCompositionInstruction?) -> [AVMutableVideoCompositionInstruction] {
        let bounds = Set([CMTime.zero] + layout.joined().flatMap { [$0.start, $0.end] }).filter { $0 >= .zero }.sorted()
        var pieces: [(range: CMTimeRange, showing: [Int])] = []
        for (from, to) in zip(bounds, bounds.dropFirst()) {
            let showing = layout.indices.filter { i in layout[i].contains { $0.start <= from && to <= $0.end } }
            if let last = pieces.last, last.showing == showing {
                pieces[pieces.count - 1].range = CMTimeRange(start: last.range.start, end: to)
            } else {
                pieces.append((CMTimeRange(start: from, end: to), showing))
            }
        }
        return pieces.map { piece in
            let instruction = AVMutableVideoCompositionInstruction()
            instruction.timeRange = piece.range
            instruction.layerInstructions = piece.showing.map { i in
                let layer = AVMutableVideoCompositionLayerInstruction(assetTrack: tracks[i])
                layer.setTransform(tracks[i].preferredTransform.concatenating(shift), at: piece.range.start)
                return layer
            }
            if let prototype {
                instruction.backgroundColor = prototype.backgroundColor
                instruction.enablePostProcessing = prototype.enablePostProcessing
            }
            return instruction
        }
    }

    /// A composition's own natural size when set; else the union of the tracks' transformed frames.
    static func renderSize(of asset: AVAsset, tracks: [AVAssetTrack]) -> CGSize {
        if let composition = asset as? AVComposition, composition.contents.naturalSize != .zero { return composition.contents.naturalSize }
        guard let union = placedFrames(of: tracks) else { return .zero }
        return CGSize(width: union.width.rounded(), height: union.height.rounded())
    }

    /// The union of the tracks' frames placed by their preferred transforms (nil: no tracks).
    static func placedFrames(of tracks: [AVAssetTrack]) -> CGRect? {
        let frames = tracks.map { CGRect(origin: .zero, size: $0.naturalSize).applying($0.preferredTransform) }
        return frames.first.map { frames.dropFirst().reduce($0) { $0.union($1) } }
    }

    /// One frame at the greatest of `rates` (1/30 when none is positive): an exact fraction for
    /// whole rates and the NTSC ones (30000/1001…).
    static func frameDuration(forRates rates: [Float]) -> CMTime {
        guard let rate = rates.filter({ $0 > 0 && $0.isFinite }).max() else { return CMTime(value: 1, timescale: 30) }
        let whole = Double(rate).rounded()
        if abs(Double(rate) - whole) < 0.01, whole >= 1 { return CMTime(value: 1, timescale: CMTimeScale(whole)) }
        let ntsc = (Double(rate) * 1.001).rounded()
        if abs(Double(rate) - ntsc / 1.001) < 0.01 { return CMTime(value: 1001, timescale: CMTimeScale(ntsc * 1000)) }
        return CMTime(seconds: 1 / Double(rate), preferredTimescale: 90000)
    }

    /// Loads what `init(propertiesOf:)` reads (the asset's tracks and duration, each video
    /// track's size, transform, frame rate and segments).
    static func loadProperties(of asset: AVAsset) async throws {
        _ = try await asset.load(.tracks, .duration)
        for track in try await asset.loadTracks(withMediaType: .video) {
            _ = try await track.load(.isEnabled, .naturalSize, .preferredTransform, .nominalFrameRate, .segments)
        }
    }
}

extension AVMutableVideoComposition {
    /// A mutable video composition that presents the video tracks of `asset` (see
    /// `AVVideoComposition.init(propertiesOf:)`), each instruction taking its background colour
    /// and post-processing flag from `prototypeInstruction`.
    public convenience init(propertiesOf asset: AVAsset, prototypeInstruction: AVVideoCompositionInstruction) {
        self.init()
        applyProperties(of: asset, prototype: prototypeInstruction)
    }
}
