// AVPlayerLooper: plays one item over and over in a queue player, by keeping copies of it
// ("replicas") queued and putting each back at the end after it played.
import CoreMedia
import Foundation
import Synchronization

/// An object that loops media content using a queue player.
///
/// The looper makes three copies of the template item, limited to `timeRange` (their reverse and
/// forward playback end times), and queues them in `player`; each time one plays to its end it
/// goes back to the end of the queue, rewound, and `loopCount` goes up. `disableLooping()` stops
/// re-queuing (the queued copies still play). `status` is `.ready` once the template's asset has
/// loaded, `.failed` (with `error`) when it cannot.
open class AVPlayerLooper: NSObject, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in `state` (a Mutex).
    /// The status of a looper.
    public enum Status: Int, Sendable {
        case unknown = 0
        case ready = 1
        case failed = 2
        case cancelled = 3
    }

    /// Where the existing items of the player go relative to the looping items.
    public enum ItemOrdering: Int, Sendable {
        case loopingItemsPrecedeExistingItems = 0
        case loopingItemsFollowExistingItems = 1
    }

    private struct State {
        var status = Status.unknown
        var error: (any Error)?
        var loopCount = 0
        var looping = true
    }

    private let state = Mutex(State())
    private weak let player: AVQueuePlayer?
    /// The copies of the template item that loop.
    public let loopingPlayerItems: [AVPlayerItem]
    private let range: CMTimeRange

    /// Loops `templateItem` over `timeRange` (invalid: the whole item) in `player`.
    public init(player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem, timeRange loopRange: CMTimeRange,
                existingItemsOrdering itemOrdering: ItemOrdering) {
        self.player = player
        range = loopRange
        loopingPlayerItems = (0..<3).map { _ in
            let copy = itemToLoop.copy() as! AVPlayerItem
            if loopRange.isValid && !loopRange.isEmpty {
                copy.reversePlaybackEndTime = loopRange.start
                copy.forwardPlaybackEndTime = loopRange.end
            }
            return copy
        }
        super.init()
        let existing = player.items()
        if itemOrdering == .loopingItemsPrecedeExistingItems {
            for item in existing { player.remove(item) }
        }
        for item in loopingPlayerItems { player.insert(item, after: nil) }
        if itemOrdering == .loopingItemsPrecedeExistingItems {
            for item in existing { player.insert(item, after: nil) }
        }
        player.afterEnd.withLock { $0 = { [weak self] item in self?.itemEnded(item) } }
        loadStatus(itemToLoop.asset)
    }

    public convenience init(player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem, timeRange loopRange: CMTimeRange) {
        self.init(player: player, templateItem: itemToLoop, timeRange: loopRange, existingItemsOrdering: .loopingItemsPrecedeExistingItems)
    }

    public convenience init(player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem) {
        self.init(player: player, templateItem: itemToLoop, timeRange: .invalid)
    }

    deinit {
        player?.afterEnd.withLock { $0 = nil }
    }

    open var status: Status { state.withLock { $0.status } }
    open var error: (any Error)? { state.withLock { $0.error } }
    /// How many times an item played to its end and went back in the queue.
    open var loopCount: Int { state.withLock { $0.loopCount } }

    /// Stops looping: the items queued play out, none goes back.
    open func disableLooping() {
        state.withLock { s in
            s.looping = false
            if s.status != .failed { s.status = .cancelled }
        }
    }

    private func loadStatus(_ asset: AVAsset) {
        DispatchQueue.global().async { [weak self] in
            guard let self else { return }
            let outcome: (Status, (any Error)?)
            do {
                _ = try asset.loadedTracks()
                _ = try asset.loadedDuration()
                outcome = (.ready, nil)
            } catch {
                outcome = (.failed, error)
            }
            let old = self.state.withLock { s -> Status in
                let before = s.status
                if s.status == .unknown {
                    s.status = outcome.0
                    s.error = outcome.1
                }
                return before
            }
            if old != self.status { KVORegistry.shared.didChange(self, \AVPlayerLooper.status, old: old) }
        }
    }

    private func itemEnded(_ item: AVPlayerItem) {
        guard loopingPlayerItems.contains(where: { $0 === item }), let player else { return }
        let again = state.withLock { s -> Bool in
            guard s.looping else { return false }
            s.loopCount += 1
            return true
        }
        guard again else { return }
        let old = loopCount - 1
        KVORegistry.shared.didChange(self, \AVPlayerLooper.loopCount, old: old)
        // The item has left the queue (the player advanced): rewound, it goes back at the end.
        item.state.withLock { s in
            s.startTime = range.isValid && !range.isEmpty ? range.start : .zero
            s.time = s.startTime
        }
        player.insert(item, after: nil)
    }
}
