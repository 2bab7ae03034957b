// AVPlayer: the controller of one item's playback — transport, rate, seeks, time observers,
// volume, key-value observable status — over the PlaybackEngine (the one pipeline on a
// synchronizer's timebase).
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// An object that provides the interface to control a player's transport behaviour.
///
/// A player plays one item at a time (`AVQueuePlayer` plays a list). Sound goes to the system's
/// default output through PulseAudio (none: playback goes on silently); pictures go to the
/// player's `AVPlayerLayer`s (the most recently made one shows them in a window) and the item's
/// `AVPlayerItemVideoOutput`s. `status` is `.readyToPlay` from the start: the item's own status
/// tells whether it can play. `rate` is the rate asked for; `timeControlStatus` tells whether
/// the player is actually playing or waiting for media. At the item's end the playhead stays
/// there (with `actionAtItemEnd` `.pause`, the default) and `play()` does nothing until a seek.
/// Observable with `observe(_:options:changeHandler:)`: `status`, `rate`, `timeControlStatus`,
/// `reasonForWaitingToPlay`, `currentItem`, `volume`, `isMuted`.
open class AVPlayer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in `state` (a Mutex).
    /// The status of a player.
    public enum Status: Int, Sendable {
        case unknown = 0
        case readyToPlay = 1
        case failed = 2
    }

    /// Whether the player is playing, paused, or waiting to play.
    public enum TimeControlStatus: Int, Sendable {
        case paused = 0
        case waitingToPlayAtSpecifiedRate = 1
        case playing = 2
    }

    /// What the player does when its item reaches its end.
    public enum ActionAtItemEnd: Int, Sendable {
        case advance = 0
        case pause = 1
        case none = 2
    }

    /// Why the player waits to play.
    public struct WaitingReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let toMinimizeStalls = WaitingReason(rawValue: "AVPlayerWaitingToMinimizeStallsReason")
        public static let evaluatingBufferingRate = WaitingReason(rawValue: "AVPlayerWaitingWhileEvaluatingBufferingRateReason")
        public static let noItemToPlay = WaitingReason(rawValue: "AVPlayerWaitingWithNoItemToPlayReason")
        public static let interstitialEvent = WaitingReason(rawValue: "AVPlayerWaitingDuringInterstitialEventReason")
        public static let waitingForCoordinatedPlayback = WaitingReason(rawValue: "AVPlayerWaitingForCoordinatedPlaybackReason")
    }

    /// Posted when the rate changes (object: the player).
    public static let rateDidChangeNotification = NSNotification.Name("AVPlayerRateDidChangeNotification")
    /// The user-info key of the reason for a rate change.
    public static let rateDidChangeReasonKey = "AVPlayerRateDidChangeReasonKey"

    struct State {
        var status = Status.readyToPlay
        var rate: Float = 0
        var defaultRate: Float = 1
        var timeControlStatus = TimeControlStatus.paused
        var reason: WaitingReason?
        var item: AVPlayerItem?
        var action = ActionAtItemEnd.pause
        var volume: Float = 1
        var muted = false
        var waitsToMinimizeStalling = true
        var allowsExternalPlayback = true
        var preventsDisplaySleep = true
        var deviceUID: String?
        var layers: [LayerReference] = []
        var sourceClock: CMClock?
        /// The text the layers show now.
        var captions: [LegiblePresenter.Cue] = []
    }

    /// A player layer, weakly.
    struct LayerReference: Sendable {
        weak var layer: AVPlayerLayer?
    }

    let state = Mutex(State())
    let engine = PlaybackEngine()

    /// A player with no item.
    public override init() {
        super.init()
        engine.setPlayer(self)
        setTimeControlStatus(.paused, reason: nil)
    }

    /// A player of the media at `url`.
    public convenience init(url URL: URL) {
        self.init(playerItem: AVPlayerItem(url: URL))
    }

    /// A player of `item`.
    public convenience init(playerItem item: AVPlayerItem?) {
        self.init()
        replaceCurrentItem(with: item)
    }

    deinit {
        let item = state.withLock { $0.item }
        item?.state.withLock { if $0.player === self { $0.player = nil } }
    }

    // MARK: Status

    open var status: Status { state.withLock { $0.status } }
    open var error: (any Error)? { nil }

    // MARK: Items

    open var currentItem: AVPlayerItem? { state.withLock { $0.item } }

    /// Plays `item` instead of the current item (nil: none). An item already playing in another
    /// player cannot be used (an exception, as on Apple platforms).
    open func replaceCurrentItem(with item: AVPlayerItem?) {
        if let item, let other = item.state.withLock({ $0.player }), other !== self, other.currentItem === item {
            WriterError.raise("AVPlayer", "replaceCurrentItemWithPlayerItem:", "An AVPlayerItem cannot be associated with more than one instance of AVPlayer")
        }
        let old = state.withLock { s -> AVPlayerItem? in
            defer { s.item = item }
            return s.item
        }
        guard old !== item else { return }
        if let old {
            let time = engine.currentTime
            old.state.withLock { s in
                s.time = time
                if s.player === self { s.player = nil }
            }
        }
        item?.state.withLock { $0.player = self }
        KVORegistry.shared.didChange(self, \AVPlayer.currentItem, old: old)
        engine.open(item)
        engine.startIfWanted()
    }

    /// The item failed to open (the engine).
    func itemFailed(_ item: AVPlayerItem) {
        engine.startIfWanted()
    }

    // MARK: Rate

    /// The rate asked for: 0 paused, 1 the natural rate. Setting a rate other than 0 plays (once
    /// the item is ready); at the item's end it does nothing until a seek.
    open var rate: Float {
        get { state.withLock { $0.rate } }
        set { setRate(newValue, reason: nil) }
    }

    private func setRate(_ requested: Float, reason: String?) {
        // Items here cannot play backwards (canPlayReverse is false): a negative rate pauses.
        let newValue = requested.isFinite ? max(requested, 0) : 0
        // At the end the playhead stays; play does nothing until a seek.
        if newValue != 0, engine.isAtEnd { return }
        let old = state.withLock { s -> Float in
            defer { s.rate = newValue }
            return s.rate
        }
        guard old != newValue else {
            engine.startIfWanted()
            return
        }
        KVORegistry.shared.didChange(self, \AVPlayer.rate, old: old)
        engine.startIfWanted()
        NotificationCenter.default.post(name: Self.rateDidChangeNotification, object: self)
    }

    /// The rate `play()` uses (default 1).
    open var defaultRate: Float {
        get { state.withLock { $0.defaultRate } }
        set { state.withLock { $0.defaultRate = newValue } }
    }

    /// Plays at `defaultRate`.
    open func play() { rate = defaultRate }

    /// Pauses (rate 0).
    open func pause() { rate = 0 }

    /// Plays at `rate` at once, without waiting to minimise stalls.
    open func playImmediately(atRate rate: Float) { self.rate = rate }

    /// Sets the rate and the item time to play at a host time. The item time must be invalid or
    /// the current time unless `automaticallyWaitsToMinimizeStalling` is false; here any item time
    /// seeks there first.
    open func setRate(_ rate: Float, time itemTime: CMTime, atHostTime hostClockTime: CMTime) {
        if itemTime.isNumeric {
            seek(to: itemTime, toleranceBefore: .zero, toleranceAfter: .zero) { _ in }
        }
        if hostClockTime.isNumeric {
            let delay = (hostClockTime - CMClockGetTime(CMClockGetHostTimeClock())).seconds
            if delay > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.rate = rate }
                return
            }
        }
        self.rate = rate
    }

    /// Prepares playback at `rate`; the handler is told whether the media is ready.
    open func preroll(atRate rate: Float, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        let ready = engine.isPrerolled
        if let completionHandler { DispatchQueue.main.async { completionHandler(ready) } }
    }

    open func cancelPendingPrerolls() {}

    open var timeControlStatus: TimeControlStatus { state.withLock { $0.timeControlStatus } }
    open var reasonForWaitingToPlay: WaitingReason? { state.withLock { $0.reason } }

    func setTimeControlStatus(_ status: TimeControlStatus, reason: WaitingReason?) {
        let (oldStatus, oldReason) = state.withLock { s -> (TimeControlStatus, WaitingReason?) in
            defer {
                s.timeControlStatus = status
                s.reason = status == .waitingToPlayAtSpecifiedRate ? reason : nil
            }
            return (s.timeControlStatus, s.reason)
        }
        let newReason = status == .waitingToPlayAtSpecifiedRate ? reason : nil
        if oldReason != newReason { KVORegistry.shared.didChange(self, \AVPlayer.reasonForWaitingToPlay, old: oldReason) }
        if oldStatus != status { KVORegistry.shared.didChange(self, \AVPlayer.timeControlStatus, old: oldStatus) }
    }

    /// A seek started: waiting when playing was asked for.
    func setTimeControlStatusForSeek() {
        if rate != 0 { setTimeControlStatus(.waitingToPlayAtSpecifiedRate, reason: .toMinimizeStalls) }
    }

    /// Whether the player waits until enough media is there before playing (default true).
    open var automaticallyWaitsToMinimizeStalling: Bool {
        get { state.withLock { $0.waitsToMinimizeStalling } }
        set { state.withLock { $0.waitsToMinimizeStalling = newValue } }
    }

    /// The clock the player's timebase follows (nil: the audio clock — the sound server's pace
    /// while sound plays, the host clock's otherwise — with the sound's latency compensated). Another clock drives the item's time from now on, continuing from where it
    /// is: pictures and time observers follow it, the sound follows the time.
    open var sourceClock: CMClock? {
        get { state.withLock { $0.sourceClock } }
        set {
            state.withLock { $0.sourceClock = newValue }
            engine.synchronizer.setSourceClock(newValue)
        }
    }

    // MARK: End

    open var actionAtItemEnd: ActionAtItemEnd {
        get { state.withLock { $0.action } }
        set { state.withLock { $0.action = newValue } }
    }

    /// The engine stopped at the end of `item` and is about to post the notification.
    func itemWillPostEnd(_ item: AVPlayerItem) {
        switch actionAtItemEnd {
        case .advance:
            break
        case .pause:
            let old = state.withLock { s -> Float in
                defer { s.rate = 0 }
                return s.rate
            }
            if old != 0 { KVORegistry.shared.didChange(self, \AVPlayer.rate, old: old) }
            setTimeControlStatus(.paused, reason: nil)
        case .none:
            // The rate stays; the playhead waits at the end until a seek.
            setTimeControlStatus(.paused, reason: nil)
        }
    }

    /// The engine posted the end notification of `item`.
    func itemDidReachEnd(_ item: AVPlayerItem) {
        if actionAtItemEnd == .advance { advanceAfterEnd(item) }
    }

    /// `.advance` at an item's end: a plain player goes to no item.
    func advanceAfterEnd(_ item: AVPlayerItem) {
        replaceCurrentItem(with: nil)
    }

    // MARK: Time

    /// The current item's time.
    open func currentTime() -> CMTime {
        guard currentItem != nil else { return .zero }
        return engine.currentTime
    }

    open func seek(to time: CMTime) {
        seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity, completionHandler: { _ in })
    }

    open func seek(to time: CMTime, completionHandler: @escaping @Sendable (Bool) -> Void) {
        seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity, completionHandler: completionHandler)
    }

    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) {
        seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, completionHandler: { _ in })
    }

    /// Moves the playhead to within the tolerances of `time`. Zero tolerances land exactly on the
    /// picture presenting at `time`; otherwise the playhead lands on the video's keyframe nearest
    /// `time` within the tolerances (the default, infinite tolerances: the nearest keyframe), or
    /// exactly on `time` when none is in range. The handler gets false when a later seek or
    /// `cancelPendingSeeks()` interrupted it.
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
                   completionHandler: @escaping @Sendable (Bool) -> Void) {
        guard let item = currentItem else {
            DispatchQueue.main.async { completionHandler(false) }
            return
        }
        item.seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, completionHandler: completionHandler)
    }

    open func seek(to time: CMTime) async -> Bool {
        await seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity)
    }

    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) async -> Bool {
        await withCheckedContinuation { continuation in
            seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { continuation.resume(returning: $0) }
        }
    }

    open func seek(to date: Date) {
        seek(to: date, completionHandler: { _ in })
    }

    /// Seeks to a date (streams with dates): the handler gets false here.
    open func seek(to date: Date, completionHandler: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.main.async { completionHandler(false) }
    }

    // MARK: Observers

    /// Calls `block` on `queue` (nil: the main queue) every `interval` of playback, and whenever
    /// the time jumps or playback starts or stops. Keep the token and pass it to `removeTimeObserver(_:)`.
    open func addPeriodicTimeObserver(forInterval interval: CMTime, queue: DispatchQueue?,
                                      using block: @escaping @Sendable (CMTime) -> Void) -> Any {
        engine.synchronizer.observers.addPeriodic(interval: interval, queue: queue, block: block)
    }

    /// Calls `block` on `queue` (nil: the main queue) when playback crosses one of `times`.
    open func addBoundaryTimeObserver(forTimes times: [NSValue], queue: DispatchQueue?,
                                      using block: @escaping @Sendable () -> Void) -> Any {
        engine.synchronizer.observers.addBoundary(times: times, queue: queue, block: block)
    }

    /// Removes an observer added by this player (a token of another player raises, as on Apple).
    open func removeTimeObserver(_ observer: Any) {
        if !engine.synchronizer.observers.remove(observer) {
            WriterError.raise("AVPlayer", "removeTimeObserver:", "An instance of AVPlayer cannot remove a time observer that was added by a different instance of AVPlayer.")
        }
    }

    // MARK: Sound

    /// The player's volume, 0 to 1 (default 1).
    open var volume: Float {
        get { state.withLock { $0.volume } }
        set {
            let v = min(max(newValue, 0), 1)
            let old = state.withLock { s -> Float in
                defer { s.volume = v }
                return s.volume
            }
            engine.audio.volume = v
            if old != v { KVORegistry.shared.didChange(self, \AVPlayer.volume, old: old) }
        }
    }

    /// Whether the player's sound is muted (default false).
    open var isMuted: Bool {
        get { state.withLock { $0.muted } }
        set {
            let old = state.withLock { s -> Bool in
                defer { s.muted = newValue }
                return s.muted
            }
            engine.audio.isMuted = newValue
            if old != newValue { KVORegistry.shared.didChange(self, \AVPlayer.isMuted, old: old) }
        }
    }

    /// What the player did so far, for tools (avtool play --stats): pictures shown and dropped
    /// (passed over late), and the sound's offset from the clock at the last write (seconds,
    /// positive: sound ahead of pictures; nil before sound played at rate 1).
    package var playbackStatistics: (presented: Int, dropped: Int, audioOffset: Double?) {
        let counts = engine.presenter.counts
        return (counts.presented, counts.dropped, engine.audio.core.measuredOffset)
    }

    /// The output device's unique ID (a PulseAudio sink name; nil: the default).
    open var audioOutputDeviceUniqueID: String? {
        get { state.withLock { $0.deviceUID } }
        set {
            state.withLock { $0.deviceUID = newValue }
            engine.audio.audioOutputDeviceUniqueID = newValue
        }
    }

    open var allowsExternalPlayback: Bool {
        get { state.withLock { $0.allowsExternalPlayback } }
        set { state.withLock { $0.allowsExternalPlayback = newValue } }
    }

    /// External playback (AirPlay) never happens on Linux.
    open var isExternalPlaybackActive: Bool { false }

    open var preventsDisplaySleepDuringVideoPlayback: Bool {
        get { state.withLock { $0.preventsDisplaySleep } }
        set { state.withLock { $0.preventsDisplaySleep = newValue } }
    }

    // MARK: Layers

    func addLayer(_ layer: AVPlayerLayer) {
        state.withLock { s in
            s.layers.removeAll { $0.layer == nil || $0.layer === layer }
            s.layers.append(LayerReference(layer: layer))
        }
        if let frame = engine.presenter.shownFrame { layer.show(frame) }
        layer.showCaptions(shownCaptions)
    }

    func removeLayer(_ layer: AVPlayerLayer) {
        state.withLock { $0.layers.removeAll { $0.layer == nil || $0.layer === layer } }
    }

    /// The layer that shows video: the most recently attached one.
    var displayingLayer: AVPlayerLayer? { state.withLock { $0.layers.last(where: { $0.layer != nil })?.layer } }

    func pictureShown(_ frame: CMSampleBuffer) {
        guard let item = currentItem,
              !item.outputs.contains(where: { $0.suppressesPlayerRendering && !($0 is AVPlayerItemLegibleOutput) }) else { return }
        displayingLayer?.show(frame)
    }

    /// The legible text showing changed (the legible presenter's queue).
    func captionsChanged(_ cues: [LegiblePresenter.Cue]) {
        state.withLock { $0.captions = cues }
        displayingLayer?.showCaptions(shownCaptions)
    }

    /// The text the layers draw: none while a legible output suppresses the player's rendering.
    private var shownCaptions: [LegiblePresenter.Cue] {
        if let item = currentItem, item.outputs.contains(where: { $0 is AVPlayerItemLegibleOutput && $0.suppressesPlayerRendering }) {
            return []
        }
        return state.withLock { $0.captions }
    }

    /// An output was added or removed, or its suppression changed.
    func layersChanged() {
        displayingLayer?.showCaptions(shownCaptions)
        engine.legible.refresh()
    }
}
