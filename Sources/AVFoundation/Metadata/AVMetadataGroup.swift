// AVMetadataGroup: the abstract collection of metadata items that timed and date-range groups
// refine.
import Foundation

/// A collection of metadata items (the superclass of `AVTimedMetadataGroup`).
open class AVMetadataGroup: NSObject, @unchecked Sendable {
    var storedItems: [AVMetadataItem]

    init(storedItems: [AVMetadataItem]) {
        self.storedItems = storedItems
        super.init()
    }

    /// The group's items.
    open var items: [AVMetadataItem] { storedItems }

    /// A label classifying the group (HLS date ranges); nil here.
    open var classifyingLabel: String? { nil }

    /// A unique identifier of the group (HLS date ranges); nil here.
    open var uniqueID: String? { nil }
}
