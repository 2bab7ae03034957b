// AVVideoCompositionInstruction: the built-in compositor's instruction — over a time range,
// which tracks' frames are layered (first in front), with what ramps, over what background.
import CoreGraphics
import CoreMedia
import Foundation

/// An operation the built-in compositor performs over `timeRange`: the frames of the tracks of
/// `layerInstructions` layered in that order, the first on top, over `backgroundColor`.
open class AVVideoCompositionInstruction: NSObject, NSCopying, NSMutableCopying, AVVideoCompositionInstructionProtocol,
    @unchecked Sendable {
    var storedTimeRange: CMTimeRange = .invalid
    var storedBackgroundColor: CGColor?
    var storedLayerInstructions: [AVVideoCompositionLayerInstruction] = []
    var storedEnablePostProcessing = true

    public override init() {
        super.init()
    }

    /// The time range during which the instruction is effective.
    open var timeRange: CMTimeRange { storedTimeRange }

    /// The colour under the layers; nil means opaque black. Only solid colours count; the
    /// alpha is ignored when the output has none.
    open var backgroundColor: CGColor? { storedBackgroundColor }

    /// How the tracks' frames are layered: the first layer instruction's track on top, the next
    /// underneath, and so on. Empty: the output is the background colour.
    open var layerInstructions: [AVVideoCompositionLayerInstruction] { storedLayerInstructions }

    /// Whether post-processing (the Core Animation tool) runs over the range; true by default.
    open var enablePostProcessing: Bool { storedEnablePostProcessing }

    /// The tracks of the layer instructions (`NSNumber`s of their track IDs, in layer order,
    /// each once).
    open var requiredSourceTrackIDs: [NSValue] {
        var seen = Set<CMPersistentTrackID>()
        return layerInstructions.map(\.trackID).filter { seen.insert($0).inserted }.map { NSNumber(value: $0) }
    }

    /// The track shown unchanged over the whole range, computed from the layer instructions:
    /// with exactly one layer that stays opaque, untransformed and uncropped throughout the
    /// range, its track; otherwise `kCMPersistentTrackID_Invalid`. (A compositor still checks that
    /// the frame fills the render size before passing it through.)
    open var passthroughTrackID: CMPersistentTrackID {
        guard layerInstructions.count == 1, let layer = layerInstructions.first, !layer.changes(within: timeRange) else {
            return kCMPersistentTrackID_Invalid
        }
        let state = layer.layerState(at: timeRange.isValid ? timeRange.start : .zero)
        return state.opacity == 1 && state.transform.isIdentity && state.cropRectangle == nil ? layer.trackID : kCMPersistentTrackID_Invalid
    }

    /// No sample data tracks.
    open var requiredSourceSampleDataTrackIDs: [NSNumber] { [] }

    /// An immutable copy (its layer instructions copied too).
    open func copy(with zone: NSZone? = nil) -> Any { copyState(into: AVVideoCompositionInstruction()) }

    /// A mutable copy (its layer instructions copied too).
    open func mutableCopy(with zone: NSZone? = nil) -> Any { copyState(into: AVMutableVideoCompositionInstruction()) }

    private func copyState<T: AVVideoCompositionInstruction>(into copy: T) -> T {
        copy.storedTimeRange = storedTimeRange
        copy.storedBackgroundColor = storedBackgroundColor
        copy.storedLayerInstructions = storedLayerInstructions.map { $0.copy() as! AVVideoCompositionLayerInstruction }
        copy.storedEnablePostProcessing = storedEnablePostProcessing
        return copy
    }

    // MARK: Evaluation (for the compositor)

    /// The layers at `time`, front first (the order of `layerInstructions`): each layer
    /// instruction evaluated at `time` (see `AVVideoCompositionLayerInstruction.layerState(at:)`).
    func layerStates(at time: CMTime) -> [VideoLayerState] {
        layerInstructions.map { $0.layerState(at: time) }
    }
}

extension AVVideoCompositionInstructionProtocol where Self: AVVideoCompositionInstruction {
    /// Whether the output may change over the range for the same source frames: true when a
    /// layer's opacity, transform or crop changes inside the instruction's range.
    public var containsTweening: Bool { layerInstructions.contains { $0.changes(within: timeRange) } }

    /// The protocol's view of `requiredSourceTrackIDs` (never nil for the built-in instruction).
    public var requiredSourceTrackIDs: [NSValue]? {
        let ids: [NSValue] = requiredSourceTrackIDs  // the class's own (overridable) property
        return ids
    }
}
