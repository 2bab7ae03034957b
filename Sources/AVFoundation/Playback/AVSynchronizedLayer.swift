// AVSynchronizedLayer: a layer whose sublayers' animations run on a player item's time — paused
// when the item is, jumping when it seeks, faster at rate 2 — as the book's titles and playhead
// use it over an AVPlayerLayer.
import CoreMedia
import Foundation
import QuartzCore
import Synchronization

/// A layer that gives its sublayers a player item's timing.
///
/// The layer draws nothing itself. Its local time is the item's current time in seconds (and
/// so its sublayers' times follow from it through their own timing), so an animation with
/// `beginTime` `AVCoreAnimationBeginTimeAtZero` (or any movie time) plays when the movie reaches
/// it, freezes when it pauses, replays after a seek back (with `isRemovedOnCompletion` false).
/// Add it over the video: as a sublayer of the `AVPlayerLayer` (whose sublayers are drawn over
/// its window's picture) — or render its tree yourself.
open class AVSynchronizedLayer: CALayer, @unchecked Sendable {
    // @unchecked Sendable: CALayer keeps its values in one Mutex; the item reference is in `item`, a Mutex.
    /// The item, weakly (the layer does not keep a player item alive, as on Apple platforms).
    private struct ItemReference: Sendable {
        weak var item: AVPlayerItem?
    }

    private let item = Mutex(ItemReference())

    public override init() {
        super.init()
    }

    public override init(layer: Any) {
        super.init(layer: layer)
        if let other = layer as? AVSynchronizedLayer { playerItem = other.playerItem }
    }

    public required init?(coder: NSCoder) { return nil }

    /// A layer synchronized with `playerItem`.
    public convenience init(playerItem: AVPlayerItem) {
        self.init()
        self.playerItem = playerItem
    }

    /// The item whose time the sublayers follow (nil: the usual Core Animation timing).
    open var playerItem: AVPlayerItem? {
        get { item.withLock { $0.item } }
        set {
            let reference = ItemReference(item: newValue)
            item.withLock { $0 = reference }
            guard newValue != nil else {
                setTimeSource(nil)
                return
            }
            setTimeSource { [weak self] in
                guard let item = self?.playerItem else { return nil }
                let time = item.currentTime()
                return time.isNumeric ? time.seconds : nil
            }
        }
    }
}
