// AVQueuePlayer: a player of a list of items, one after another.
import CoreMedia
import Foundation
import Synchronization

/// A player that plays a queue of items in turn.
///
/// The first item of `items()` is the current item; when it reaches its end (with
/// `actionAtItemEnd` `.advance`, the default here) or on `advanceToNextItem()`, it leaves the
/// queue and the next one starts, at its start time (its `reversePlaybackEndTime` when set).
open class AVQueuePlayer: AVPlayer, @unchecked Sendable {
    // @unchecked Sendable: as AVPlayer; the queue is in `queue` (a Mutex).
    private let queue = Mutex<[AVPlayerItem]>([])

    public override init() {
        super.init()
        actionAtItemEnd = .advance
    }

    /// A queue player of `items`, in order.
    public convenience init(items: [AVPlayerItem]) {
        self.init()
        queue.withLock { $0 = items }
        replaceCurrentItem(with: items.first)
    }

    /// A queue player of one item.
    public convenience init(playerItem item: AVPlayerItem?) {
        self.init(items: item.map { [$0] } ?? [])
    }

    /// The items queued, the current one first.
    open func items() -> [AVPlayerItem] { queue.withLock { $0 } }

    /// Ends the current item's playback and plays the next one.
    open func advanceToNextItem() {
        let next = queue.withLock { q -> AVPlayerItem? in
            if !q.isEmpty { q.removeFirst() }
            return q.first
        }
        replaceCurrentItem(with: next)
    }

    /// Whether `item` can go into the queue after `afterItem` (nil: at the end): not when it is
    /// already queued, plays in another player, or `afterItem` is not queued.
    open func canInsert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) -> Bool {
        let items = self.items()
        if items.contains(where: { $0 === item }) { return false }
        if let other = item.state.withLock({ $0.player }), other !== self, other.currentItem === item { return false }
        if let afterItem, !items.contains(where: { $0 === afterItem }) { return false }
        return true
    }

    /// Puts `item` in the queue after `afterItem` (nil: at the end).
    open func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
        guard canInsert(item, after: afterItem) else { return }
        let becameFirst = queue.withLock { q -> Bool in
            if let afterItem, let i = q.firstIndex(where: { $0 === afterItem }) {
                q.insert(item, at: i + 1)
            } else {
                q.append(item)
            }
            return q.first === item
        }
        if becameFirst { replaceCurrentItem(with: item) }
    }

    /// Removes `item` from the queue (the current item: the next one plays).
    open func remove(_ item: AVPlayerItem) {
        let (wasCurrent, next) = queue.withLock { q -> (Bool, AVPlayerItem?) in
            guard let i = q.firstIndex(where: { $0 === item }) else { return (false, nil) }
            q.remove(at: i)
            return (i == 0, q.first)
        }
        if wasCurrent { replaceCurrentItem(with: next) }
    }

    /// Empties the queue; no item plays.
    open func removeAllItems() {
        queue.withLock { $0 = [] }
        replaceCurrentItem(with: nil)
    }

    /// Called after an item that played to its end left the queue (a looper puts it back).
    let afterEnd = Mutex<(@Sendable (AVPlayerItem) -> Void)?>(nil)

    override func advanceAfterEnd(_ item: AVPlayerItem) {
        guard currentItem === item else { return }
        advanceToNextItem()
        afterEnd.withLock { $0 }?(item)
    }
}
