// AVVideoCompositionLayerInstruction: one track's opacity, transform and crop rectangle over
// time (values set at times and linear ramps), and their evaluation at a time for the compositor.
import CoreGraphics
import CoreMedia
import Foundation

/// A layer of a composed frame at one time: which track's frame, where and how it is drawn.
///
/// - `transform` maps the track's frame — its natural pixel coordinates, origin at the top-left
///   corner, y down — into the render canvas (`AVVideoComposition.renderSize`, same
///   orientation). It is the whole transform: the track's `preferredTransform` is *not* applied
///   on top (`AVVideoComposition(propertiesOf:)` puts it into the layer's transform, as Apple does).
/// - `cropRectangle` is in the frame's natural pixel coordinates (top-left origin, y down),
///   applied before the transform; nil means no crop (Apple's `CGRect.infinite`). It may be
///   empty or reach outside the frame: the compositor clips it to the frame.
/// - `opacity` is clamped to 0…1 (0 transparent, 1 opaque), multiplied into the layer's pixels.
struct VideoLayerState: Sendable, Equatable {
    var trackID: CMPersistentTrackID
    var transform: CGAffineTransform
    var cropRectangle: CGRect?
    var opacity: Float
}

/// The values one parameter of a layer instruction (opacity, transform or crop rectangle) takes
/// over time, as Apple's layer instructions define them:
///
/// - before the first time a value is set, the parameter's default holds;
/// - `set…(_:at:)` is a step: the value holds from that time until the next time a value is set
///   (the same as a flat ramp over that range);
/// - a ramp interpolates linearly from its start value at `timeRange.start` to its end value at
///   `timeRange.end`, and its end value holds after it until the next setting;
/// - the setting that starts last at or before a time is the one in effect at that time; a
///   setting made at the start time of an earlier one replaces it.
struct RampTimeline<Value: Sendable & Equatable>: Sendable, Equatable {
    struct Ramp: Sendable, Equatable {
        var start: Value
        var end: Value
        /// For a step, `duration` is zero: its effective range runs to the next setting.
        var timeRange: CMTimeRange
        var isStep: Bool { timeRange.duration == .zero }
    }

    /// Sorted by start time; at most one per start time.
    private(set) var ramps: [Ramp] = []

    /// Adds a ramp (or, with `duration` zero, a step), replacing one that starts at the same time.
    mutating func insert(_ ramp: Ramp) {
        ramps.removeAll { $0.timeRange.start == ramp.timeRange.start }
        let index = ramps.firstIndex { $0.timeRange.start > ramp.timeRange.start } ?? ramps.count
        ramps.insert(ramp, at: index)
    }

    /// Where setting `index` is in effect: a ramp over its time range; a step from its time
    /// to the next setting's start (to +infinity when it is the last).
    func effectiveRange(_ index: Int) -> CMTimeRange {
        let ramp = ramps[index]
        guard ramp.isStep else { return ramp.timeRange }
        if index + 1 < ramps.count { return CMTimeRange(start: ramp.timeRange.start, end: ramps[index + 1].timeRange.start) }
        return CMTimeRange(start: ramp.timeRange.start, duration: .positiveInfinity)
    }

    /// What Apple's `get…Ramp(for:…)` reports: the setting in effect at `time`, else the first
    /// one starting after it; nil when `time` is past the last one (or there is none).
    func ramp(for time: CMTime) -> (start: Value, end: Value, timeRange: CMTimeRange)? {
        guard time.isNumeric else { return nil }
        if let index = ramps.lastIndex(where: { $0.timeRange.start <= time }), effectiveRange(index).containsTime(time) {
            return (ramps[index].start, ramps[index].end, effectiveRange(index))
        }
        guard let index = ramps.firstIndex(where: { $0.timeRange.start > time }) else { return nil }
        return (ramps[index].start, ramps[index].end, effectiveRange(index))
    }

    /// The value at `time`; `initial` before the first setting.
    func value(at time: CMTime, initial: Value, interpolate: (Value, Value, Double) -> Value) -> Value {
        guard let index = ramps.lastIndex(where: { $0.timeRange.start <= time }) else { return initial }
        let ramp = ramps[index]
        if !ramp.isStep, time < ramp.timeRange.end, ramp.start != ramp.end {
            let fraction = (time - ramp.timeRange.start).seconds / ramp.timeRange.duration.seconds
            return interpolate(ramp.start, ramp.end, fraction)
        }
        return ramp.end
    }

    /// Whether the value may change inside `range` (conservatively: a setting starts inside it,
    /// or a ramp between different values overlaps it). An invalid range is the whole timeline.
    func changes(within range: CMTimeRange) -> Bool {
        let whole = !range.isValid
        for (index, ramp) in ramps.enumerated() {
            let start = ramp.timeRange.start
            if whole || (start > range.start && start < range.end) { return true }
            if ramp.start != ramp.end, !ramp.isStep, effectiveRange(index).intersection(range).duration > .zero { return true }
        }
        return false
    }
}

/// The opacity, transform and crop rectangle ramps applied to one track of a video composition
/// instruction (read-only; `AVMutableVideoCompositionLayerInstruction` sets them).
///
/// Defaults before the first value set: opacity 1, the identity transform, no crop
/// (`CGRect.infinite` on Apple). See `RampTimeline` for how settings combine over time.
open class AVVideoCompositionLayerInstruction: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    var storedTrackID: CMPersistentTrackID = kCMPersistentTrackID_Invalid
    var opacityRamps = RampTimeline<Float>()
    var transformRamps = RampTimeline<CGAffineTransform>()
    var cropRamps = RampTimeline<CGRect>()

    public override init() {
        super.init()
    }

    /// The track the compositor applies the instruction to.
    open var trackID: CMPersistentTrackID { storedTrackID }

    /// The transform ramp in effect at `time`, else the first one starting after it.
    ///
    /// - Returns: false when `time` is past the end of the last transform ramp (or none is set).
    ///   A value set with `setTransform(_:at:)` is a flat ramp lasting until the next setting
    ///   (to +infinity when it is the last).
    open func getTransformRamp(for time: CMTime, start startTransform: UnsafeMutablePointer<CGAffineTransform>?,
                               end endTransform: UnsafeMutablePointer<CGAffineTransform>?,
                               timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        Self.report(transformRamps.ramp(for: time), startTransform, endTransform, timeRange)
    }

    /// The opacity ramp in effect at `time`, else the first one starting after it.
    ///
    /// - Returns: false when `time` is past the end of the last opacity ramp (or none is set).
    open func getOpacityRamp(for time: CMTime, startOpacity: UnsafeMutablePointer<Float>?, endOpacity: UnsafeMutablePointer<Float>?,
                             timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        Self.report(opacityRamps.ramp(for: time), startOpacity, endOpacity, timeRange)
    }

    /// The crop rectangle ramp in effect at `time`, else the first one starting after it.
    ///
    /// - Returns: false when `time` is past the end of the last crop rectangle ramp (or none is set).
    open func getCropRectangleRamp(for time: CMTime, startCropRectangle: UnsafeMutablePointer<CGRect>?,
                                   endCropRectangle: UnsafeMutablePointer<CGRect>?, timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        Self.report(cropRamps.ramp(for: time), startCropRectangle, endCropRectangle, timeRange)
    }

    private static func report<Value>(_ ramp: (start: Value, end: Value, timeRange: CMTimeRange)?, _ start: UnsafeMutablePointer<Value>?,
                                      _ end: UnsafeMutablePointer<Value>?, _ range: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        guard let ramp else { return false }
        start?.pointee = ramp.start
        end?.pointee = ramp.end
        range?.pointee = ramp.timeRange
        return true
    }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { copyState(into: AVVideoCompositionLayerInstruction()) }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any { copyState(into: AVMutableVideoCompositionLayerInstruction()) }

    private func copyState<T: AVVideoCompositionLayerInstruction>(into copy: T) -> T {
        copy.storedTrackID = storedTrackID
        copy.opacityRamps = opacityRamps
        copy.transformRamps = transformRamps
        copy.cropRamps = cropRamps
        return copy
    }

    // MARK: Evaluation (for the compositor)

    /// The layer at `time`: each parameter's value by the rules of `RampTimeline` (opacity 1,
    /// identity, no crop before the first setting), opacity clamped to 0…1. See `VideoLayerState`
    /// for the coordinate conventions.
    func layerState(at time: CMTime) -> VideoLayerState {
        let opacity = opacityRamps.value(at: time, initial: 1) { a, b, f in a + (b - a) * Float(f) }
        let transform = transformRamps.value(at: time, initial: .identity) { a, b, f in
            CGAffineTransform(a: lerp(a.a, b.a, f), b: lerp(a.b, b.b, f), c: lerp(a.c, b.c, f), d: lerp(a.d, b.d, f),
                              tx: lerp(a.tx, b.tx, f), ty: lerp(a.ty, b.ty, f))
        }
        // Interpolated as given (origin and size), so a ramp to or from an empty rectangle moves
        // its edges linearly, as Apple's does.
        let crop: CGRect? = cropRamps.ramps.isEmpty || cropRamps.ramps[0].timeRange.start > time ? nil
            : cropRamps.value(at: time, initial: .infinite) { a, b, f in
                CGRect(x: lerp(a.origin.x, b.origin.x, f), y: lerp(a.origin.y, b.origin.y, f),
                       width: lerp(a.size.width, b.size.width, f), height: lerp(a.size.height, b.size.height, f))
            }
        return VideoLayerState(trackID: trackID, transform: transform, cropRectangle: crop, opacity: min(max(opacity, 0), 1))
    }

    /// Whether any parameter may change inside `range` (an invalid range: at any time).
    func changes(within range: CMTimeRange) -> Bool {
        opacityRamps.changes(within: range) || transformRamps.changes(within: range) || cropRamps.changes(within: range)
    }
}

private func lerp(_ a: CGFloat, _ b: CGFloat, _ fraction: Double) -> CGFloat { a + (b - a) * CGFloat(fraction) }
