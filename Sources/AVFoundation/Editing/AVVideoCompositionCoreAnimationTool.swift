// AVVideoCompositionCoreAnimationTool: Core Animation in a video composition — a layer tree
// rendered at movie time over (or as a source of) the composed frames, for every frame an export,
// a video composition reader output or an image generator makes (CoreAnimationRendering.swift).
import CoreMedia
import Foundation
import QuartzCore

/// Incorporates Core Animation layers into a video composition (set it as the composition's
/// `animationTool`).
///
/// Animations run on the movie's timeline, not in real time: give them a `beginTime` of
/// `AVCoreAnimationBeginTimeAtZero` rather than 0 (which Core Animation replaces with
/// `CACurrentMediaTime()`, so the animation would never be seen) and `isRemovedOnCompletion =
/// false`. The layer tree is rendered as macOS renders layers: its root's superlayer space has
/// its origin at the bottom-left corner of the frame, y up — set `isGeometryFlipped` on the
/// animation layer to lay out from the top as UIKit does.
///
/// The tree is read at every frame: change it only before the export (or reading) starts.
/// Players refuse a video composition with an animation tool (use a synchronized layer there).
public final class AVVideoCompositionCoreAnimationTool: NSObject {

    /// The layers that receive the composed frame (post-processing form); empty otherwise.
    let videoLayers: [CALayer]
    /// The tree rendered for each output frame (post-processing form).
    let animationLayer: CALayer?
    /// The tree rendered as the frames of `additionalTrackID` (additional-layer form).
    let additionalLayer: CALayer?
    /// The track ID instructions use for the additional layer's frames.
    let additionalTrackID: CMPersistentTrackID

    private init(videoLayers: [CALayer], animationLayer: CALayer?, additionalLayer: CALayer?, trackID: CMPersistentTrackID) {
        self.videoLayers = videoLayers
        self.animationLayer = animationLayer
        self.additionalLayer = additionalLayer
        self.additionalTrackID = trackID
        super.init()
    }

    /// A tool that renders `layer` as the frames of an extra source track, `trackID`, which the
    /// composition's instructions (layer instructions, `requiredSourceTrackIDs`) name like any
    /// other track. Use a track ID the asset does not have (`AVAsset.unusedTrackID()`).
    public convenience init(additionalLayer layer: CALayer, asTrackID trackID: CMPersistentTrackID) {
        self.init(videoLayers: [], animationLayer: nil, additionalLayer: layer, trackID: trackID)
    }

    /// A tool that places each composed frame in `videoLayer` and renders `animationLayer` to
    /// make the output frame. `videoLayer` should be in `animationLayer`'s tree.
    public convenience init(postProcessingAsVideoLayer videoLayer: CALayer, in animationLayer: CALayer) {
        self.init(videoLayers: [videoLayer], animationLayer: animationLayer, additionalLayer: nil,
                  trackID: kCMPersistentTrackID_Invalid)
    }

    /// A tool that places each composed frame in every one of `videoLayers` and renders
    /// `animationLayer` to make the output frame.
    public convenience init(postProcessingAsVideoLayers videoLayers: [CALayer], in animationLayer: CALayer) {
        self.init(videoLayers: videoLayers, animationLayer: animationLayer, additionalLayer: nil,
                  trackID: kCMPersistentTrackID_Invalid)
    }

    /// The older spelling of `init(postProcessingAsVideoLayers:in:)`.
    public convenience init(postProcessingAsVideoLayers videoLayers: [CALayer], inLayer animationLayer: CALayer) {
        self.init(postProcessingAsVideoLayers: videoLayers, in: animationLayer)
    }
}

/// The begin time that means movie time zero for animations rendered by
/// `AVVideoCompositionCoreAnimationTool` or an `AVSynchronizedLayer` (a begin time of 0 means
/// "now" to Core Animation).
public let AVCoreAnimationBeginTimeAtZero: CFTimeInterval = 1e-100
