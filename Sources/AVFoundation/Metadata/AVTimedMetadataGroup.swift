// AVTimedMetadataGroup: metadata items that apply over one time range (chapters, timed
// metadata samples).
import Foundation

/// A group of metadata items that apply over a time range, such as one chapter's title and
/// artwork.
open class AVTimedMetadataGroup: AVMetadataGroup, NSCopying, NSMutableCopying, @unchecked Sendable {
    var storedTimeRange: CMTimeRange

    /// Creates a group of `items` over `timeRange`.
    public init(items: [AVMetadataItem], timeRange: CMTimeRange) {
        storedTimeRange = timeRange
        super.init(storedItems: items)
    }

    /// The time range the items apply to.
    open var timeRange: CMTimeRange { storedTimeRange }

    /// Returns an immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        if type(of: self) == AVTimedMetadataGroup.self { return self }
        return AVTimedMetadataGroup(items: items, timeRange: timeRange)
    }

    /// Returns an `AVMutableTimedMetadataGroup` with the same items and time range.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableTimedMetadataGroup(items: items, timeRange: timeRange)
    }
}
