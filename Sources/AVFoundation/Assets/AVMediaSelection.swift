// AVMediaSelection: a choice of option in each of an asset's media selection groups.
import Foundation

/// The selected option of each media selection group of an asset (`asset.preferredMediaSelection`).
public class AVMediaSelection: NSObject, NSCopying, @unchecked Sendable {
    /// The asset the selection belongs to (weak, as Apple's).
    public private(set) weak var asset: AVAsset?
    let groups: [AVMediaSelectionGroup]
    /// The options chosen, one per group (a player item's current selection); nil: the groups'
    /// default options.
    private let chosen: [ObjectIdentifier: AVMediaSelectionOption]?

    init(asset: AVAsset?, groups: [AVMediaSelectionGroup], choosing: ((AVMediaSelectionGroup) -> AVMediaSelectionOption?)? = nil) {
        self.asset = asset
        self.groups = groups
        if let choosing {
            var chosen: [ObjectIdentifier: AVMediaSelectionOption] = [:]
            for group in groups { chosen[ObjectIdentifier(group)] = choosing(group) }
            self.chosen = chosen
        } else {
            chosen = nil
        }
        super.init()
    }

    /// The option selected in `mediaSelectionGroup` (an asset's preferred selection: the
    /// group's default option); nil when none is, or the group is not one of the asset's groups.
    public func selectedMediaOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        guard groups.contains(where: { $0 === mediaSelectionGroup }) else { return nil }
        if let chosen { return chosen[ObjectIdentifier(mediaSelectionGroup)] }
        return mediaSelectionGroup.defaultOption
    }

    /// Returns the selection itself (selections are immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }
}
