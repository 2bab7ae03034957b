// The asset and track notifications Apple's SDK declares only on `NSNotification.Name`. Apple posts
// them for fragmented assets an AVFragmentedAssetMinder watches; that minder does not exist here, so
// nothing posts them yet: the names exist so that code observing them compiles.
import Foundation

extension NSNotification.Name {
    /// A fragmented asset's duration changed.
    public static let AVAssetDurationDidChange = NSNotification.Name("AVAssetDurationDidChangeNotification")
    /// Whether a fragmented asset contains fragments changed.
    public static let AVAssetContainsFragmentsDidChange = NSNotification.Name("AVAssetContainsFragmentsDidChangeNotification")
    /// A fragmented asset was defragmented.
    public static let AVAssetWasDefragmented = NSNotification.Name("AVAssetWasDefragmentedNotification")
    /// An asset's chapter metadata groups changed.
    public static let AVAssetChapterMetadataGroupsDidChange = NSNotification.Name("AVAssetChapterMetadataGroupsDidChangeNotification")
    /// An asset's media selection groups changed.
    public static let AVAssetMediaSelectionGroupsDidChange = NSNotification.Name("AVAssetMediaSelectionGroupsDidChangeNotification")
    /// A fragmented track's time range changed.
    public static let AVAssetTrackTimeRangeDidChange = NSNotification.Name("AVAssetTrackTimeRangeDidChangeNotification")
    /// A fragmented track's segments changed.
    public static let AVAssetTrackSegmentsDidChange = NSNotification.Name("AVAssetTrackSegmentsDidChangeNotification")
    /// A fragmented track's track associations changed.
    public static let AVAssetTrackTrackAssociationsDidChange = NSNotification.Name("AVAssetTrackTrackAssociationsDidChangeNotification")
}
