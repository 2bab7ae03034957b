// AVVideoCompositionValidationHandling: the callbacks through which a video composition's
// validation reports each problem it finds, and which decide whether it goes on looking.
import CoreMedia
import Foundation

/// Receives the problems `AVVideoComposition.isValid(for:timeRange:validationDelegate:)` finds;
/// each method returns whether validation should go on to report more.
///
/// Apple's four methods are optional Objective-C requirements; Swift on Linux has none, so each
/// has a default implementation here that returns true (keep validating).
public protocol AVVideoCompositionValidationHandling: NSObjectProtocol {
    /// A property with an invalid value: `"frameDuration"` (not a positive number),
    /// `"renderSize"` (a side not positive), `"renderScale"` (not positive).
    func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingInvalidValueForKey key: String) -> Bool

    /// A time range no instruction covers: before the first instruction, between two, or after
    /// the last up to the asset's duration.
    func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingEmptyTimeRange timeRange: CMTimeRange)
        -> Bool

    /// An instruction whose time range is invalid (not numeric, or not positive in duration),
    /// overlaps a prior instruction's, or starts before a prior one.
    func videoComposition(_ videoComposition: AVVideoComposition,
                          shouldContinueValidatingAfterFindingInvalidTimeRangeIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol)
        -> Bool

    /// A layer instruction whose track ID is not a track of `asset`.
    func videoComposition(_ videoComposition: AVVideoComposition,
                          shouldContinueValidatingAfterFindingInvalidTrackIDIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol,
                          layerInstruction: AVVideoCompositionLayerInstruction, asset: AVAsset) -> Bool
}

extension AVVideoCompositionValidationHandling {
    public func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingInvalidValueForKey key: String)
        -> Bool { true }

    public func videoComposition(_ videoComposition: AVVideoComposition,
                                 shouldContinueValidatingAfterFindingEmptyTimeRange timeRange: CMTimeRange) -> Bool { true }

    public func videoComposition(_ videoComposition: AVVideoComposition,
                                 shouldContinueValidatingAfterFindingInvalidTimeRangeIn videoCompositionInstruction:
                                     any AVVideoCompositionInstructionProtocol) -> Bool { true }

    public func videoComposition(_ videoComposition: AVVideoComposition,
                                 shouldContinueValidatingAfterFindingInvalidTrackIDIn videoCompositionInstruction:
                                     any AVVideoCompositionInstructionProtocol,
                                 layerInstruction: AVVideoCompositionLayerInstruction, asset: AVAsset) -> Bool { true }
}
