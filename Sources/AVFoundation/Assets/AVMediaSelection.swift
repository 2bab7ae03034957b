// AVMediaSelection: a choice of option in each of an asset's media selection groups.
import Foundation

/// The selected option of each media selection group of an asset (`asset.preferredMediaSelection`).
public class AVMediaSelection: NSObject, NSCopying, @unchecked Sendable {
    /// The asset the selection belongs to (weak, as Apple's).
    public private(set) weak var asset: AVAsset?
    let groups: [AVMediaSelectionGroup]

    init(asset: AVAsset?, groups: [AVMediaSelectionGroup]) {
        self.asset = asset
        self.groups = groups
        super.init()
    }

    /// The option selected in `mediaSelectionGroup`: the group's default option, nil when the
    /// group has none or is not one of the asset's groups.
    public func selectedMediaOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        guard groups.contains(where: { $0 === mediaSelectionGroup }) else { return nil }
        return mediaSelectionGroup.defaultOption
    }

    /// Returns the selection itself (selections are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
