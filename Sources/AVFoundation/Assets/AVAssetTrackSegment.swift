// AVAssetTrackSegment: one edit of a track — how a range of media time maps into track time.
import CoreMedia
import Foundation

/// A segment of a track: a mapping from a range of the track's media (source) to a range of
/// the track's timeline (target). An empty segment (an edit with no media) has an invalid source.
open class AVAssetTrackSegment: NSObject, @unchecked Sendable {
    /// The mapping of the segment's source media time range onto track time.
    public let timeMapping: CMTimeMapping

    /// Whether the segment is empty (presents no media).
    open var isEmpty: Bool { !timeMapping.source.start.isValid }

    init(timeMapping: CMTimeMapping) {
        self.timeMapping = timeMapping
        super.init()
    }

    /// The mapping, described.
    open override var description: String {
        "<AVAssetTrackSegment: source \(timeMapping.source.start.seconds)+\(timeMapping.source.duration.seconds) → "
            + "target \(timeMapping.target.start.seconds)+\(timeMapping.target.duration.seconds)\(isEmpty ? ", empty" : "")>"
    }
}
