// AVSampleBufferRenderSynchronizer: one timebase for several queued renderers (sound and
// pictures), its rate and time set together, with time observers — AVPlayer is built on it.
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// A renderer a synchronizer drives: it follows the synchronizer's timebase and is told of
/// every change of its rate or time.
protocol SynchronizedRendering: AnyObject {
    func synchronizerAttached(timebase: CMTimebase)
    func synchronizerDetached()
    func synchronizerTimebaseChanged(jumped: Bool)
    var hasSufficientDataToStart: Bool { get }
}

/// Synchronizes queued sample-buffer renderers to one timeline.
///
/// The timebase runs on the host time clock; the audio renderers follow it (each pull plays what
/// the timebase says will be heard then, compensating the output's latency), so sound and video
/// stay together whatever the device's latency. Setting `rate` or calling `setRate(_:time:)`
/// changes the timebase and tells every renderer; time observers fire as on `AVPlayer`.
///
/// With `delaysRateChangeUntilHasSufficientMediaData` (default true) a rate set while a renderer
/// has too little queued to start takes effect once they all have enough (at the time asked for,
/// so the first frames are not lost), or after one second at the latest.
open class AVSampleBufferRenderSynchronizer: NSObject, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in `state` (a Mutex).
    /// Posted when the rate changes (set by the app, or by the synchronizer itself).
    public static let rateDidChangeNotification = NSNotification.Name("AVSampleBufferRenderSynchronizerRateDidChangeNotification")

    private struct State {
        var rate: Float = 0
        var renderers: [any AVQueuedSampleBufferRendering] = []
        var delays = true
        /// A rate waiting for renderers to have enough data: (rate, time, generation).
        var pending: (rate: Float, time: CMTime, id: Int)?
        var pendingID = 0
    }

    private let state = Mutex(State())
    private let clockTimebase: CMTimebase
    let observers: TimeObservers

    /// The timebase follows the audio clock (`CMAudioClockCreate`): the pace of the sound
    /// server's playback while sound plays, the host clock's while none does — as Apple's
    /// synchronizer follows the audio device's clock.
    public override init() {
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: Self.audioClock, timebaseOut: &made)
        clockTimebase = made!
        observers = TimeObservers(timebase: clockTimebase)
        super.init()
    }

    deinit {
        observers.removeAll()
    }

    /// The clock a synchronizer's timebase follows unless told otherwise.
    static var audioClock: CMClock {
        var clock: CMClock?
        _ = CMAudioClockCreate(allocator: nil, clockOut: &clock)
        return clock ?? CMClockGetHostTimeClock()
    }

    /// The synchronizer's timebase, which the renderers follow. Change it through `rate` and
    /// `setRate(_:time:)`.
    open var timebase: CMTimebase { clockTimebase }

    /// The playback rate: 0 stopped, 1 the media's natural rate.
    open var rate: Float {
        get { state.withLock { $0.pending?.rate ?? $0.rate } }
        set { setRate(newValue, time: .invalid) }
    }

    /// Sets the time (invalid: keep it) and then the rate.
    open func setRate(_ rate: Float, time: CMTime) {
        setRate(rate, time: time, atHostTime: .invalid)
    }

    /// Sets the rate, and the time the timebase has at `hostTime` (invalid: now).
    open func setRate(_ rate: Float, time: CMTime, atHostTime hostTime: CMTime) {
        precondition(rate >= 0 || rate < 0, "rate must be a number")
        let delays = state.withLock { $0.delays }
        if delays, rate != 0, !renderersReady {
            let id = state.withLock { s -> Int in
                s.pendingID += 1
                s.pending = (rate, time.isNumeric ? time : clockTimebase.time, s.pendingID)
                return s.pendingID
            }
            // Hold the timebase at the time asked for until the renderers have enough.
            apply(rate: 0, time: time, hostTime: .invalid, notify: false)
            waitForData(id: id, deadline: DispatchTime.now() + 1)
            return
        }
        state.withLock { $0.pending = nil }
        apply(rate: rate, time: time, hostTime: hostTime, notify: true)
    }

    private var renderersReady: Bool {
        let renderers = state.withLock { $0.renderers }
        return renderers.allSatisfy { ($0 as? any SynchronizedRendering)?.hasSufficientDataToStart ?? $0.hasSufficientMediaDataForReliablePlaybackStart }
    }

    private func waitForData(id: Int, deadline: DispatchTime) {
        DispatchQueue.global(qos: .userInteractive).asyncAfter(deadline: .now() + .milliseconds(5)) { [weak self] in
            guard let self else { return }
            guard let pending = self.state.withLock({ $0.pending }), pending.id == id else { return }
            if self.renderersReady || DispatchTime.now() >= deadline {
                self.state.withLock { if $0.pending?.id == id { $0.pending = nil } }
                self.apply(rate: pending.rate, time: pending.time, hostTime: .invalid, notify: true)
            } else {
                self.waitForData(id: id, deadline: deadline)
            }
        }
    }

    /// Sets the timebase and tells renderers and observers.
    /// `hostTime` (the host clock's time; invalid: now) is converted to the timebase's source
    /// clock when that is another one (a player's `sourceClock`).
    func apply(rate: Float, time: CMTime, hostTime: CMTime, notify: Bool) {
        let (oldTime, oldRate) = clockTimebase.timeAndRate
        let hostClock = CMClockGetHostTimeClock()
        let source = CMTimebaseCopySourceClock(clockTimebase) ?? hostClock
        let host: CMTime
        if !hostTime.isNumeric {
            host = CMClockGetTime(source)
        } else if source == hostClock {
            host = hostTime
        } else {
            host = CMSyncConvertTime(hostTime, from: hostClock, to: source)
        }
        let anchor = time.isNumeric ? time : clockTimebase.time
        _ = CMTimebaseSetRateAndAnchorTime(clockTimebase, rate: Float64(rate), anchorTime: anchor, immediateSourceTime: host)
        let jumped = time.isNumeric && (anchor - oldTime).seconds.magnitude > 0.0005
        let rateChanged = Float64(rate) != oldRate
        let renderers = state.withLock { s -> [any AVQueuedSampleBufferRendering] in
            s.rate = rate
            return s.renderers
        }
        for renderer in renderers {
            (renderer as? any SynchronizedRendering)?.synchronizerTimebaseChanged(jumped: jumped)
        }
        observers.timebaseChanged(jumped: jumped, rateChanged: rateChanged)
        if notify && rateChanged {
            NotificationCenter.default.post(name: Self.rateDidChangeNotification, object: self)
        }
    }

    /// The timebase's current time.
    open func currentTime() -> CMTime { clockTimebase.time }

    /// Makes the timebase follow `clock` (nil: the audio clock) from now on, its time continuing
    /// from where it is (a player's `sourceClock`).
    func setSourceClock(_ clock: CMClock?) {
        _ = CMTimebaseSetSourceClock(clockTimebase, clock ?? Self.audioClock)
        observers.timebaseChanged(jumped: false, rateChanged: false)
    }

    /// The renderers attached.
    open var renderers: [any AVQueuedSampleBufferRendering] { state.withLock { $0.renderers } }

    /// Attaches `renderer`: it follows the synchronizer's timebase from now on.
    open func addRenderer(_ renderer: any AVQueuedSampleBufferRendering) {
        let added = state.withLock { s -> Bool in
            guard !s.renderers.contains(where: { $0 === renderer }) else { return false }
            s.renderers.append(renderer)
            return true
        }
        guard added else { return }
        (renderer as? any SynchronizedRendering)?.synchronizerAttached(timebase: clockTimebase)
    }

    /// Detaches `renderer` when the timebase reaches `time` (at once when it already has).
    open func removeRenderer(_ renderer: any AVQueuedSampleBufferRendering, at time: CMTime,
                             completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        let remove: @Sendable () -> Void = { [weak self] in
            guard let self else {
                completionHandler?(false)
                return
            }
            let removed = self.state.withLock { s -> (any AVQueuedSampleBufferRendering)? in
                guard let i = s.renderers.firstIndex(where: { $0 === renderer }) else { return nil }
                return s.renderers.remove(at: i)
            }
            (removed as? any SynchronizedRendering)?.synchronizerDetached()
            completionHandler?(removed != nil)
        }
        let (now, rate) = clockTimebase.timeAndRate
        if !time.isNumeric || rate <= 0 || time <= now {
            remove()
            return
        }
        let token = Mutex<TimeObserverToken?>(nil)
        let observer = observers.addBoundary(times: [NSValue(time: time)], queue: DispatchQueue.global()) { [weak self] in
            if let t = token.withLock({ $0 }) { self?.observers.remove(t) }
            remove()
        }
        token.withLock { $0 = observer }
    }

    /// Calls `block` every `interval` of the timebase's time while it moves, and when it jumps,
    /// starts or stops.
    open func addPeriodicTimeObserver(forInterval interval: CMTime, queue: DispatchQueue?,
                                      using block: @escaping @Sendable (CMTime) -> Void) -> Any {
        observers.addPeriodic(interval: interval, queue: queue, block: block)
    }

    /// Calls `block` when the timebase's time crosses one of `times` while it moves.
    open func addBoundaryTimeObserver(forTimes times: [NSValue], queue: DispatchQueue?,
                                      using block: @escaping @Sendable () -> Void) -> Any {
        observers.addBoundary(times: times, queue: queue, block: block)
    }

    /// Removes an observer the two methods above returned.
    open func removeTimeObserver(_ observer: Any) {
        observers.remove(observer)
    }

    /// Whether a rate change waits for the renderers to have enough data (default true).
    open var delaysRateChangeUntilHasSufficientMediaData: Bool {
        get { state.withLock { $0.delays } }
        set { state.withLock { $0.delays = newValue } }
    }
}

extension AVSampleBufferAudioRenderer: SynchronizedRendering {
    func synchronizerAttached(timebase: CMTimebase) { core.attach(timebase: timebase) }
    func synchronizerDetached() {
        var own: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &own)
        if let own { core.attach(timebase: own) }
    }
    func synchronizerTimebaseChanged(jumped: Bool) { core.timebaseChanged(jumped: jumped) }
    var hasSufficientDataToStart: Bool { hasSufficientMediaDataForReliablePlaybackStart }
}
