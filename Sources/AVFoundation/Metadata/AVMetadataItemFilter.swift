// AVMetadataItemFilter: the opaque filter export sessions and callers apply before sharing.
import Foundation

/// A filter that removes metadata items, made with `forSharing()`.
public final class AVMetadataItemFilter: NSObject, @unchecked Sendable {
    let allows: @Sendable (AVMetadataItem) -> Bool

    init(allows: @escaping @Sendable (AVMetadataItem) -> Bool) {
        self.allows = allows
        super.init()
    }

    /// A filter that removes user-identifying items (location, the device that made the
    /// recording, the person who made it, free-form comments and user data), keeping those
    /// about playback, copyright and commerce and those derivable from the media.
    public class func forSharing() -> AVMetadataItemFilter {
        AVMetadataItemFilter { item in
            if let common = item.commonKey, sharingRemovedCommonKeys.contains(common) { return false }
            guard let identifier = item.identifier else { return true }
            if sharingRemovedIdentifiers.contains(identifier) { return false }
            let raw = identifier.rawValue
            // Every QuickTime location key (location.ISO6709, location.name, …) and direction.
            if raw.hasPrefix("mdta/com.apple.quicktime.location") || raw.hasPrefix("mdta/com.apple.quicktime.direction") {
                return false
            }
            return true
        }
    }

    private static let sharingRemovedCommonKeys: Set<AVMetadataKey> = [
        .commonKeyLocation, .commonKeyMake, .commonKeyModel, .commonKeySoftware,
    ]

    private static let sharingRemovedIdentifiers: Set<AVMetadataIdentifier> = [
        .quickTimeUserDataLocationISO6709, .quickTimeUserDataHostComputer, .quickTimeUserDataMake,
        .quickTimeUserDataModel, .quickTimeMetadataCameraIdentifier, .quickTimeMetadataCollectionUser,
        .quickTimeMetadataRatingUser, .isoUserDataLocation, .quickTimeUserDataComment,
        .iTunesMetadataUserComment, .id3MetadataComments, .id3MetadataPrivate,
    ]
}
