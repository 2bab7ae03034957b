// AVMutableTimedMetadataGroup: the editable timed metadata group.
import Foundation

/// A timed metadata group whose items and time range can be set.
open class AVMutableTimedMetadataGroup: AVTimedMetadataGroup, @unchecked Sendable {
    /// Creates a group of `items` over `timeRange`.
    public override init(items: [AVMetadataItem], timeRange: CMTimeRange) {
        super.init(items: items, timeRange: timeRange)
    }

    /// The group's items.
    open override var items: [AVMetadataItem] {
        get { storedItems }
        set { storedItems = newValue }
    }

    /// The time range the items apply to.
    open override var timeRange: CMTimeRange {
        get { storedTimeRange }
        set { storedTimeRange = newValue }
    }
}
