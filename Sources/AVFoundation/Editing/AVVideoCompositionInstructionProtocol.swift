// AVVideoCompositionInstructionProtocol: what a video composition's instructions are to the
// compositors (the built-in AVVideoCompositionInstruction, or a custom compositor's own class).
import CoreMedia
import Foundation

/// An operation a compositor performs over a time range of the output (Apple's
/// `AVVideoCompositionInstruction` protocol of Objective-C).
///
/// Swift on Linux has no `@objc optional` requirements: Apple's one optional member,
/// `requiredSourceSampleDataTrackIDs`, has a default implementation (no sample data tracks).
public protocol AVVideoCompositionInstructionProtocol: NSObjectProtocol, Sendable {
    /// The time range during which the instruction is effective (see
    /// `AVVideoComposition.instructions` for the rules the ranges of a composition follow).
    var timeRange: CMTimeRange { get }
    /// Whether post-processing (the Core Animation tool) runs over the instruction's range.
    var enablePostProcessing: Bool { get }
    /// Whether the output changes over the range for the same source frames; false lets a
    /// compositor render once and reuse the frame.
    var containsTweening: Bool { get }
    /// The video tracks (`NSNumber`s of `CMPersistentTrackID`) the instruction needs source frames
    /// of; nil means all of them.
    var requiredSourceTrackIDs: [NSValue]? { get }
    /// The track whose frames are the output unchanged over the whole range (the compositor
    /// does not run); `kCMPersistentTrackID_Invalid` when the instruction composes.
    var passthroughTrackID: CMPersistentTrackID { get }
    /// The timed-metadata tracks (`NSNumber`s of `CMPersistentTrackID`) whose samples the
    /// instruction needs.
    var requiredSourceSampleDataTrackIDs: [NSNumber] { get }
}

extension AVVideoCompositionInstructionProtocol {
    /// No sample data tracks (Apple's requirement is optional).
    public var requiredSourceSampleDataTrackIDs: [NSNumber] { [] }
}
