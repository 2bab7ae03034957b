// AVMutableVideoCompositionLayerInstruction: the setters of a layer instruction's opacity,
// transform and crop rectangle over time.
import CoreGraphics
import CoreMedia
import Foundation

/// A layer instruction whose track and ramps can be set.
///
/// Transforms and crop rectangles use Apple's conventions: origin at the top-left corner, y down;
/// a positive translation moves the frame right and down; with the identity transform the frame's
/// top-left corner is at the canvas's top-left corner. The crop rectangle is in the frame's
/// pixels (square-pixel space) and is clipped to the frame.
open class AVMutableVideoCompositionLayerInstruction: AVVideoCompositionLayerInstruction, @unchecked Sendable {
    /// A layer instruction with no ramps for `track` (its track ID).
    public convenience init(assetTrack track: AVAssetTrack) {
        self.init()
        storedTrackID = track.trackID
    }

    /// A layer instruction with no ramps and `trackID` `kCMPersistentTrackID_Invalid`.
    public override init() {
        super.init()
    }

    /// The track the compositor applies the instruction to.
    open override var trackID: CMPersistentTrackID {
        get { storedTrackID }
        set { storedTrackID = newValue }
    }

    /// Interpolates the transform from `startTransform` at `timeRange.start` to `endTransform` at
    /// `timeRange.end`; `endTransform` holds afterwards until the next setting.
    open func setTransformRamp(fromStart startTransform: CGAffineTransform, toEnd endTransform: CGAffineTransform, timeRange: CMTimeRange) {
        transformRamps.insert(.init(start: startTransform, end: endTransform,
                                    timeRange: Self.checked(timeRange, "setTransformRampFromStartTransform:toEndTransform:timeRange:")))
    }

    /// Sets the transform from `time` until the next time a transform is set.
    open func setTransform(_ transform: CGAffineTransform, at time: CMTime) {
        transformRamps.insert(.init(start: transform, end: transform, timeRange: Self.step(time, "setTransform:atTime:")))
    }

    /// Interpolates the opacity (0…1) from `startOpacity` to `endOpacity` over `timeRange`;
    /// `endOpacity` holds afterwards until the next setting.
    open func setOpacityRamp(fromStartOpacity startOpacity: Float, toEndOpacity endOpacity: Float, timeRange: CMTimeRange) {
        opacityRamps.insert(.init(start: startOpacity, end: endOpacity,
                                  timeRange: Self.checked(timeRange, "setOpacityRampFromStartOpacity:toEndOpacity:timeRange:")))
    }

    /// Sets the opacity (0…1) from `time` until the next time an opacity is set.
    open func setOpacity(_ opacity: Float, at time: CMTime) {
        opacityRamps.insert(.init(start: opacity, end: opacity, timeRange: Self.step(time, "setOpacity:atTime:")))
    }

    /// Interpolates the crop rectangle (origin and size, so an empty rectangle's edges move too)
    /// from `startCropRectangle` to `endCropRectangle` over `timeRange`; `endCropRectangle` holds
    /// afterwards until the next setting.
    open func setCropRectangleRamp(fromStartCropRectangle startCropRectangle: CGRect, toEndCropRectangle endCropRectangle: CGRect,
                                   timeRange: CMTimeRange) {
        cropRamps.insert(.init(start: startCropRectangle, end: endCropRectangle,
                               timeRange: Self.checked(timeRange, "setCropRectangleRampFromStartCropRectangle:toEndCropRectangle:timeRange:")))
    }

    /// Sets the crop rectangle from `time` until the next time a crop rectangle is set.
    open func setCropRectangle(_ cropRectangle: CGRect, at time: CMTime) {
        cropRamps.insert(.init(start: cropRectangle, end: cropRectangle, timeRange: Self.step(time, "setCropRectangle:atTime:")))
    }

    /// A ramp's range: numeric start and a numeric duration not below zero (zero: the end value from the start on) (Apple raises an exception
    /// otherwise; this stops the program with the same message).
    private static func checked(_ range: CMTimeRange, _ selector: String) -> CMTimeRange {
        guard range.start.isNumeric, range.duration.isNumeric, range.duration >= .zero else {
            preconditionFailure("*** -[AVMutableVideoCompositionLayerInstruction \(selector)] the time range must be numeric, its duration not negative")
        }
        return range
    }

    /// A step's zero-length range at a numeric time.
    private static func step(_ time: CMTime, _ selector: String) -> CMTimeRange {
        guard time.isNumeric else {
            preconditionFailure("*** -[AVMutableVideoCompositionLayerInstruction \(selector)] the time must be numeric")
        }
        return CMTimeRange(start: time, duration: .zero)
    }
}
