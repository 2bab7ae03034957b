// TimeObservers: periodic and boundary time observers over a timebase — what AVPlayer and
// AVSampleBufferRenderSynchronizer both offer, with Apple's rules: periodic calls at multiples
// of the interval while the time moves, plus one on every jump and start/stop; boundary calls when
// normal playback crosses a listed time; never re-entered; a token removes them.
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// The opaque token a time observer method returns.
final class TimeObserverToken: NSObject, Sendable {
    fileprivate let observer: TimeObservers.Observer
    fileprivate weak let owner: TimeObservers?

    fileprivate init(observer: TimeObservers.Observer, owner: TimeObservers) {
        self.observer = observer
        self.owner = owner
    }
}

/// The time observers of one timebase. Thread-safe.
///
/// Scheduling runs on one private serial queue: each observer has a dispatch timer on the host
/// clock armed for the host time at which the timebase reaches its next time (next multiple of
/// the interval, next boundary), computed from the timebase's current time and rate; every
/// change of rate or time the owner reports (`timebaseChanged`) re-arms them. A call is
/// dispatched to the observer's queue (nil: the main queue) and, while one is still running, the
/// next tick is skipped — a block is never re-entered, and slow blocks get fewer calls.
final class TimeObservers: Sendable {
    final class Observer: Sendable {
        enum Kind {
            case periodic(interval: CMTime, block: @Sendable (CMTime) -> Void)
            case boundary(times: [CMTime], block: @Sendable () -> Void)
        }

        let kind: Kind
        let queue: DispatchQueue
        fileprivate let state = Mutex(ObserverState())

        init(kind: Kind, queue: DispatchQueue) {
            self.kind = kind
            self.queue = queue
        }
    }

    fileprivate struct ObserverState {
        var timer: (any DispatchSourceTimer)?
        var running = false
        var removed = false
        /// The boundary or periodic time the armed timer is for.
        var target: CMTime?
    }

    private let timebase: CMTimebase
    private let scheduler = DispatchQueue(label: "com.avfoundation.time-observers")
    private let observers = Mutex<[ObjectIdentifier: Observer]>([:])

    init(timebase: CMTimebase) {
        self.timebase = timebase
    }

    func addPeriodic(interval: CMTime, queue: DispatchQueue?, block: @escaping @Sendable (CMTime) -> Void) -> TimeObserverToken {
        precondition(interval.isNumeric && interval > .zero,
                     "*** -[AVPlayer addPeriodicTimeObserverForInterval:queue:usingBlock:] interval must be a positive, numeric time")
        return add(Observer(kind: .periodic(interval: interval, block: block), queue: queue ?? .main))
    }

    func addBoundary(times: [NSValue], queue: DispatchQueue?, block: @escaping @Sendable () -> Void) -> TimeObserverToken {
        let values = times.map(\.timeValue).filter(\.isNumeric).sorted()
        precondition(!values.isEmpty, "*** -[AVPlayer addBoundaryTimeObserverForTimes:queue:usingBlock:] times array must not be empty")
        return add(Observer(kind: .boundary(times: values, block: block), queue: queue ?? .main))
    }

    private func add(_ observer: Observer) -> TimeObserverToken {
        observers.withLock { $0[ObjectIdentifier(observer)] = observer }
        scheduler.async { [self] in arm(observer) }
        return TimeObserverToken(observer: observer, owner: self)
    }

    /// Removes the observer `token` stands for; false when it is not one of these observers.
    @discardableResult
    func remove(_ token: Any) -> Bool {
        guard let token = token as? TimeObserverToken, token.owner === self else { return false }
        let observer = token.observer
        observers.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(observer)) }
        let timer = observer.state.withLock { s -> (any DispatchSourceTimer)? in
            s.removed = true
            defer { s.timer = nil }
            return s.timer
        }
        timer?.cancel()
        return true
    }

    func removeAll() {
        let all = observers.withLock { o -> [Observer] in
            defer { o = [:] }
            return Array(o.values)
        }
        for observer in all {
            let timer = observer.state.withLock { s -> (any DispatchSourceTimer)? in
                s.removed = true
                defer { s.timer = nil }
                return s.timer
            }
            timer?.cancel()
        }
    }

    /// The timebase's time jumped (a seek) or its rate changed (start, stop, another rate):
    /// periodic observers are called once now, and every observer is re-armed.
    func timebaseChanged(jumped: Bool, rateChanged: Bool) {
        let all = observers.withLock { Array($0.values) }
        // The time of the change itself, not of the moment the scheduler gets to it.
        let now = timebase.time
        scheduler.async { [self] in
            for observer in all {
                if case .periodic = observer.kind, jumped || rateChanged { call(observer, at: now) }
                arm(observer)
            }
        }
    }

    /// Arms `observer`'s timer for its next time (on the scheduler queue) — after `fired`, the
    /// time it was just called for, when the timebase is not quite there yet (its clock may run a
    /// little behind the host deadline the timer was set for), so one time is never called twice.
    private func arm(_ observer: Observer, after fired: CMTime? = nil) {
        var (now, rate) = timebase.timeAndRate
        if let fired { now = rate > 0 ? max(now, fired) : min(now, fired) }
        let old = observer.state.withLock { s -> (any DispatchSourceTimer)? in
            defer { s.timer = nil; s.target = nil }
            return s.timer
        }
        old?.cancel()
        guard rate != 0, observer.state.withLock({ !$0.removed }) else { return }
        let target: CMTime?
        switch observer.kind {
        case .periodic(let interval, _):
            target = Self.nextMultiple(of: interval, after: now, forward: rate > 0)
        case .boundary(let times, _):
            target = rate > 0 ? times.first { $0 > now } : times.last { $0 < now }
        }
        guard let target else { return }
        let seconds = max(0, (target - now).seconds / rate)
        let scheduler = self.scheduler
        observer.state.withLock { s in
            guard !s.removed else { return }
            let timer = DispatchSource.makeTimerSource(flags: .strict, queue: scheduler)
            timer.schedule(deadline: .now() + seconds, leeway: .milliseconds(1))
            timer.setEventHandler { [weak self, weak observer] in
                guard let self, let observer else { return }
                self.fire(observer, target: target)
            }
            timer.resume()
            s.timer = timer
            s.target = target
        }
    }

    /// A timer went off: the time may not be there yet (a change moved it); call when it is.
    private func fire(_ observer: Observer, target: CMTime) {
        let (now, rate) = timebase.timeAndRate
        let reached = rate > 0 ? now >= target - CMTime(value: 1, timescale: 1000) : now <= target + CMTime(value: 1, timescale: 1000)
        if reached {
            switch observer.kind {
            case .periodic: call(observer, at: target)
            case .boundary: call(observer, at: target)
            }
        }
        arm(observer, after: reached ? target : nil)
    }

    /// Dispatches `observer`'s block unless a call of it is still running (or it was removed).
    private func call(_ observer: Observer, at time: CMTime) {
        let go = observer.state.withLock { s -> Bool in
            guard !s.removed, !s.running else { return false }
            s.running = true
            return true
        }
        guard go else { return }
        observer.queue.async {
            if !observer.state.withLock({ $0.removed }) {
                switch observer.kind {
                case .periodic(_, let block): block(time)
                case .boundary(_, let block): block()
                }
            }
            observer.state.withLock { $0.running = false }
        }
    }

    /// The next multiple of `interval` strictly after `time` (before it, going backwards).
    static func nextMultiple(of interval: CMTime, after time: CMTime, forward: Bool) -> CMTime? {
        guard interval.isNumeric, interval > .zero, time.isNumeric else { return nil }
        let scale = max(interval.timescale, time.timescale, 600)
        let step = CMTimeConvertScale(interval, timescale: scale, method: .roundHalfAwayFromZero).value
        let t = CMTimeConvertScale(time, timescale: scale, method: .roundTowardNegativeInfinity).value
        guard step > 0 else { return nil }
        var k = t / step
        if t < 0 && t % step != 0 { k -= 1 }
        let value = forward ? (k + 1) * step : (t % step == 0 ? (k - 1) * step : k * step)
        return CMTime(value: value, timescale: scale)
    }
}
