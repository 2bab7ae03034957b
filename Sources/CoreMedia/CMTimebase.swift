// CMTimebase: a timeline under application control, driven by a source clock or a source
// timebase. Its time is anchorTime + rate × (sourceTime − sourceAnchorTime), computed in CMTime
// arithmetic: integer rates and rates that are simple fractions (0.5, 1.5, -0.25 …) are applied
// exactly; any other rate goes through CMTimeMultiplyByFloat64. Timers (dispatch sources and
// Foundation timers) are re-armed on the host clock whenever the time or the effective rate
// changes, here or up the source chain, and the timebase posts its time-jumped and
// effective-rate-changed notifications on NotificationCenter.default.
import Dispatch
import Synchronization

/// A timebase error: a required parameter is missing.
public let kCMTimebaseError_MissingRequiredParameter: OSStatus = -12748
/// A timebase error: a parameter is not valid.
public let kCMTimebaseError_InvalidParameter: OSStatus = -12749
/// A timebase error: memory allocation failed.
public let kCMTimebaseError_AllocationFailed: OSStatus = -12750
/// A timebase error: a timer interval is too short.
public let kCMTimebaseError_TimerIntervalTooShort: OSStatus = -12751
/// A timebase error: an attempt to modify a read-only timebase.
public let kCMTimebaseError_ReadOnly: OSStatus = -12757

/// A model of a timeline under application control. Thread-safe.
public final class CMTimebase: Sendable, Hashable {
    /// The immediate source of a timebase.
    enum Source {
        case clock(CMClock)
        case timebase(CMTimebase)

        var object: AnyObject {
            switch self {
            case .clock(let c): return c
            case .timebase(let t): return t
            }
        }

        var time: CMTime {
            switch self {
            case .clock(let c): return c.currentTime
            case .timebase(let t): return t.currentTime
            }
        }
    }

    /// The mapping from source time to timebase time at one moment.
    struct Anchor {
        let rate: Float64
        let time: CMTime
        let sourceTime: CMTime
        /// The rate as n/d when it is an integer or a simple fraction (found once, when set).
        let fraction: (Int32, Int32)?

        init(rate: Float64, time: CMTime, sourceTime: CMTime) {
            self.rate = rate
            self.time = time
            self.sourceTime = sourceTime
            fraction = CMTimebase.simpleFraction(rate)
        }
    }

    /// What changes, under one lock: the source, the anchor, the timers and the timebases that
    /// have this one as their source.
    struct State {
        var source: Source
        var anchor: Anchor
        var timers: [TimebaseTimer] = []
        var children: [WeakTimebase] = []
    }

    private let state: Mutex<State>

    /// A timebase with rate 0 and time 0 over `source`.
    init(source: Source) {
        state = Mutex(State(source: source, anchor: Anchor(rate: 0, time: kCMTimeZero, sourceTime: source.time)))
        if case .timebase(let parent) = source { parent.adopt(self) }
    }

    /// The immediate source.
    var sourceRef: Source { state.withLock { $0.source } }

    /// The anchor, read under the lock.
    var snapshot: Anchor { state.withLock { $0.anchor } }

    /// The current time. The lock is held while the source is read, so a time is consistent with
    /// one anchor; locks are taken from a timebase towards its source only, so they cannot cycle.
    var currentTime: CMTime {
        state.withLock { CMTimebase.map($0.source.time, through: $0.anchor) }
    }

    var currentTimeAndRate: (CMTime, Float64) {
        state.withLock { (CMTimebase.map($0.source.time, through: $0.anchor), $0.anchor.rate) }
    }

    /// Sets the anchor; `newTime` nil keeps the current timebase time (re-anchoring at the source's
    /// current time), `newRate` nil keeps the rate.
    func reanchor(rate newRate: Float64?, time newTime: CMTime?) {
        change { s in
            let sourceNow = s.source.time
            let timeNow = newTime ?? CMTimebase.map(sourceNow, through: s.anchor)
            s.anchor = Anchor(rate: newRate ?? s.anchor.rate, time: timeNow, sourceTime: sourceNow)
        }
    }

    func setAnchor(_ newAnchor: Anchor) { change { $0.anchor = newAnchor } }

    /// Sets the anchor times, keeping the rate (in one critical section with reading it).
    func setAnchor(time: CMTime, sourceTime: CMTime) {
        change { $0.anchor = Anchor(rate: $0.anchor.rate, time: time, sourceTime: sourceTime) }
    }

    /// Moves the timebase onto a new source, its time continuing from where it is.
    func setSource(_ source: Source) {
        let old = sourceRef
        guard old.object !== source.object else { return }
        change { s in
            let timeNow = CMTimebase.map(s.source.time, through: s.anchor)
            s.source = source
            s.anchor = Anchor(rate: s.anchor.rate, time: timeNow, sourceTime: source.time)
        }
        if case .timebase(let parent) = old { parent.disown(self) }
        if case .timebase(let parent) = source { parent.adopt(self) }
    }

    // MARK: Changes, timers and notifications

    /// Applies `body` to the state, then posts what changed (a jump in time, a new effective rate)
    /// for this timebase and every timebase below it, and re-arms their timers.
    private func change(_ body: (inout State) -> Void) {
        let before = (currentTime, chainRate)
        state.withLock { s in body(&s) }
        let after = (currentTime, chainRate)
        propagate(jumped: !Self.continues(before.0, after.0, rate: after.1), rateChanged: before.1 != after.1)
    }

    /// Whether `after` is where a timebase running at `rate` from `before` would be now (within
    /// 1 ms: reading the time twice takes a moment).
    private static func continues(_ before: CMTime, _ after: CMTime, rate: Float64) -> Bool {
        let gap = CMTimeGetSeconds(CMTimeSubtract(after, before))
        return gap.isFinite && abs(gap) < 0.001 * max(1, abs(rate))
    }

    private func propagate(jumped: Bool, rateChanged: Bool) {
        rearmTimers()
        let time = currentTime
        if rateChanged {
            NotificationCenter.default.post(name: CMTimebase.effectiveRateChanged, object: self,
                                            userInfo: Self.eventInfo(time))
        }
        if jumped {
            NotificationCenter.default.post(name: CMTimebase.timeJumped, object: self, userInfo: Self.eventInfo(time))
        }
        for child in state.withLock({ $0.children.compactMap(\.timebase) }) {
            child.propagate(jumped: jumped, rateChanged: rateChanged)
        }
    }

    private static func eventInfo(_ time: CMTime) -> [AnyHashable: Any] {
        guard let dictionary = CMTimeCopyAsDictionary(time, allocator: nil) else { return [:] }
        return [kCMTimebaseNotificationKey_EventTime as String: dictionary]
    }

    private func adopt(_ child: CMTimebase) {
        state.withLock { s in
            s.children.removeAll { $0.timebase == nil }
            s.children.append(WeakTimebase(child))
        }
    }

    private func disown(_ child: CMTimebase) {
        state.withLock { $0.children.removeAll { $0.timebase == nil || $0.timebase === child } }
    }

    func addTimer(_ timer: TimebaseTimer) -> OSStatus {
        state.withLock { s in
            if !s.timers.contains(where: { $0.matches(timer) }) { s.timers.append(timer) }
        }
        return noErr
    }

    func removeTimer(matching timer: TimebaseTimer) -> OSStatus {
        state.withLock { $0.timers.removeAll { $0.matches(timer) } }
        timer.park()
        return noErr
    }

    /// Sets when (in this timebase's time) a timer added to it fires next; a timer not added
    /// gives `kCMTimebaseError_InvalidParameter`.
    func setFireTime(_ fireTime: CMTime, for timer: TimebaseTimer, immediately: Bool = false) -> OSStatus {
        guard let kept = state.withLock({ s in s.timers.first(where: { $0.matches(timer) }) }) else {
            return kCMTimebaseError_InvalidParameter
        }
        kept.fireTime.withLock { $0 = immediately ? nil : fireTime }
        arm(kept)
        return noErr
    }

    private func rearmTimers() {
        for timer in state.withLock({ $0.timers }) { arm(timer) }
    }

    /// Schedules `timer` on the host clock for the moment this timebase reaches its fire time at
    /// the current effective rate (now when already past; far in the future while stopped or
    /// moving away from it).
    private func arm(_ timer: TimebaseTimer) {
        guard let fireTime = timer.fireTime.withLock({ $0 }) else {
            timer.schedule(after: 0)
            return
        }
        guard isNumericTime(fireTime) else { timer.park(); return }
        let (now, rate) = (currentTime, chainRate)
        let ahead = CMTimeGetSeconds(CMTimeSubtract(fireTime, now))
        if (rate > 0 && ahead <= 0) || (rate < 0 && ahead >= 0) {
            timer.schedule(after: 0)
        } else if rate == 0 || !ahead.isFinite {
            timer.park()
        } else {
            timer.schedule(after: ahead / rate)
        }
    }

    /// Timebase time for a source time: anchor.time + rate × (sourceTime − anchor.sourceTime).
    static func map(_ sourceTime: CMTime, through anchor: Anchor) -> CMTime {
        if anchor.rate == 0 { return anchor.time }
        let delta = CMTimeSubtract(sourceTime, anchor.sourceTime)
        if anchor.rate == 1 { return CMTimeAdd(anchor.time, delta) }
        if let (n, d) = anchor.fraction {
            return CMTimeAdd(anchor.time, CMTimeMultiplyByRatio(delta, multiplier: n, divisor: d))
        }
        return CMTimeAdd(anchor.time, CMTimeMultiplyByFloat64(delta, multiplier: anchor.rate))
    }

    /// Source time for a timebase time (the inverse of `map`); invalid when the rate is 0.
    static func unmap(_ time: CMTime, through anchor: Anchor) -> CMTime {
        if anchor.rate == 0 { return kCMTimeInvalid }
        let delta = CMTimeSubtract(time, anchor.time)
        if anchor.rate == 1 { return CMTimeAdd(anchor.sourceTime, delta) }
        if let (n, d) = anchor.fraction {
            return CMTimeAdd(anchor.sourceTime, CMTimeMultiplyByRatio(delta, multiplier: d, divisor: n))
        }
        return CMTimeAdd(anchor.sourceTime, CMTimeMultiplyByFloat64(delta, multiplier: 1 / anchor.rate))
    }

    /// `n / d` with `d` ≤ 1000 whose nearest Float64 is `rate`, if there is one.
    static func simpleFraction(_ rate: Float64) -> (Int32, Int32)? {
        guard rate.isFinite, rate.magnitude < 2_000_000 else { return nil }
        for d in 1...1000 {
            let n = (rate * Double(d)).rounded()
            if n / Double(d) == rate { return (Int32(n), Int32(d)) }
        }
        return nil
    }

    /// The rate relative to the ultimate source clock: the product of the rates up the chain.
    var chainRate: Float64 {
        let own = snapshot.rate
        switch sourceRef {
        case .clock: return own
        case .timebase(let t): return own * t.chainRate
        }
    }

    /// The clock at the root of the source chain.
    var ultimateClock: CMClock {
        switch sourceRef {
        case .clock(let c): return c
        case .timebase(let t): return t.ultimateClock
        }
    }

    public static func == (lhs: CMTimebase, rhs: CMTimebase) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A timer a timebase fires at one of its times: a dispatch timer source or a Foundation timer,
/// re-armed on the host clock. @unchecked Sendable: holds a timer that is safe to reschedule from
/// any thread (libdispatch's source, a CFRunLoopTimer's fire date); the fire time is in a Mutex.
final class TimebaseTimer: @unchecked Sendable {
    enum Target {
        case dispatch(any DispatchSourceTimer)
        case foundation(Timer)
    }

    let target: Target
    /// The next fire time in the timebase's time (invalid: none set; nil: fire immediately).
    let fireTime = Mutex<CMTime?>(kCMTimeInvalid)

    init(_ target: Target) { self.target = target }

    func matches(_ other: TimebaseTimer) -> Bool {
        switch (target, other.target) {
        case (.dispatch(let a), .dispatch(let b)): return (a as AnyObject) === (b as AnyObject)
        case (.foundation(let a), .foundation(let b)): return a === b
        default: return false
        }
    }

    /// Fires once, `seconds` of host time from now.
    func schedule(after seconds: Double) {
        let wait = max(0, min(seconds, CMTimebase.veryLongTimeInterval))
        switch target {
        case .dispatch(let source):
            source.schedule(deadline: .now() + wait, repeating: .never, leeway: .nanoseconds(0))
        case .foundation(let timer):
            timer.fireDate = Date(timeIntervalSinceNow: wait)
        }
    }

    /// Not before the far future (stopped, or no fire time).
    func park() {
        switch target {
        case .dispatch(let source): source.schedule(deadline: .distantFuture, repeating: .never)
        case .foundation(let timer): timer.fireDate = .distantFuture
        }
    }
}

/// A timebase held weakly (a source's list of the timebases that follow it).
struct WeakTimebase: Sendable {
    weak var timebase: CMTimebase?
    init(_ timebase: CMTimebase) { self.timebase = timebase }
}

/// A numeric time: valid and neither infinite nor indefinite.
func isNumericTime(_ time: CMTime) -> Bool {
    time.flags.rawValue & 0x1 != 0 && time.flags.rawValue & 0x1C == 0 && time.timescale > 0
}

// MARK: - C-style functions

/// Creates a timebase driven by a source clock, with rate 0 and time 0.
public func CMTimebaseCreateWithSourceClock(allocator: CFAllocator?, sourceClock: CMClock,
                                            timebaseOut: UnsafeMutablePointer<CMTimebase?>) -> OSStatus {
    timebaseOut.pointee = CMTimebase(source: .clock(sourceClock))
    return noErr
}

/// Creates a timebase driven by a source timebase, with rate 0 and time 0.
public func CMTimebaseCreateWithSourceTimebase(allocator: CFAllocator?, sourceTimebase: CMTimebase,
                                               timebaseOut: UnsafeMutablePointer<CMTimebase?>) -> OSStatus {
    timebaseOut.pointee = CMTimebase(source: .timebase(sourceTimebase))
    return noErr
}

/// Returns the immediate source (a clock or a timebase) of a timebase.
public func CMTimebaseCopySource(_ timebase: CMTimebase) -> CMClockOrTimebase { timebase.sourceRef.object }

/// Returns the immediate source clock of a timebase, or nil if its source is a timebase.
public func CMTimebaseCopySourceClock(_ timebase: CMTimebase) -> CMClock? {
    if case .clock(let c) = timebase.sourceRef { return c }
    return nil
}

/// Returns the immediate source timebase of a timebase, or nil if its source is a clock.
public func CMTimebaseCopySourceTimebase(_ timebase: CMTimebase) -> CMTimebase? {
    if case .timebase(let t) = timebase.sourceRef { return t }
    return nil
}

/// Returns the clock at the root of a timebase's source chain.
public func CMTimebaseCopyUltimateSourceClock(_ timebase: CMTimebase) -> CMClock { timebase.ultimateClock }

/// Returns the current time of a timebase.
public func CMTimebaseGetTime(_ timebase: CMTimebase) -> CMTime { timebase.currentTime }

/// Returns the current time of a timebase converted to `timeScale` with rounding `method`.
public func CMTimebaseGetTimeWithTimeScale(_ timebase: CMTimebase, timeScale: CMTimeScale,
                                           method: CMTimeRoundingMethod) -> CMTime {
    CMTimeConvertScale(timebase.currentTime, timescale: timeScale, method: method)
}

/// Sets the current time of a timebase (re-anchoring at the source's current time, keeping the
/// rate). A time that is not numeric gives `kCMTimebaseError_InvalidParameter`.
public func CMTimebaseSetTime(_ timebase: CMTimebase, time: CMTime) -> OSStatus {
    guard isNumericTime(time) else { return kCMTimebaseError_InvalidParameter }
    timebase.reanchor(rate: nil, time: time)
    return noErr
}

/// Sets the time of a timebase at a particular source time.
public func CMTimebaseSetAnchorTime(_ timebase: CMTimebase, timebaseTime: CMTime, immediateSourceTime: CMTime) -> OSStatus {
    guard isNumericTime(timebaseTime), isNumericTime(immediateSourceTime) else { return kCMTimebaseError_InvalidParameter }
    timebase.setAnchor(time: timebaseTime, sourceTime: immediateSourceTime)
    return noErr
}

/// Returns the rate of a timebase relative to its immediate source.
public func CMTimebaseGetRate(_ timebase: CMTimebase) -> Float64 { timebase.snapshot.rate }

/// Returns the current time and rate of a timebase as one consistent snapshot.
public func CMTimebaseGetTimeAndRate(_ timebase: CMTimebase, timeOut: UnsafeMutablePointer<CMTime>?,
                                     rateOut: UnsafeMutablePointer<Float64>?) -> OSStatus {
    let (time, rate) = timebase.currentTimeAndRate
    timeOut?.pointee = time
    rateOut?.pointee = rate
    return noErr
}

/// Returns the rate of a timebase relative to its ultimate source clock.
public func CMTimebaseGetEffectiveRate(_ timebase: CMTimebase) -> Float64 { timebase.chainRate }

/// Sets the rate of a timebase, re-anchoring at its current time. A NaN or infinite rate gives
/// `kCMTimebaseError_InvalidParameter`.
public func CMTimebaseSetRate(_ timebase: CMTimebase, rate: Float64) -> OSStatus {
    guard rate.isFinite else { return kCMTimebaseError_InvalidParameter }
    timebase.reanchor(rate: rate, time: nil)
    return noErr
}

/// Sets the time of a timebase at a particular source time and changes the rate at exactly that
/// time: afterwards the time is `timebaseTime + rate × (sourceTime − immediateSourceTime)`.
public func CMTimebaseSetRateAndAnchorTime(_ timebase: CMTimebase, rate: Float64, anchorTime timebaseTime: CMTime,
                                           immediateSourceTime: CMTime) -> OSStatus {
    guard rate.isFinite, isNumericTime(timebaseTime), isNumericTime(immediateSourceTime) else {
        return kCMTimebaseError_InvalidParameter
    }
    timebase.setAnchor(CMTimebase.Anchor(rate: rate, time: timebaseTime, sourceTime: immediateSourceTime))
    return noErr
}

/// Moves a timebase onto a new source clock; its time continues from where it is.
public func CMTimebaseSetSourceClock(_ timebase: CMTimebase, _ newSourceClock: CMClock) -> OSStatus {
    timebase.setSource(.clock(newSourceClock))
    return noErr
}

/// Moves a timebase onto a new source timebase; its time continues from where it is. A source
/// that would make a cycle gives `kCMTimebaseError_InvalidParameter`.
public func CMTimebaseSetSourceTimebase(_ timebase: CMTimebase, _ newSourceTimebase: CMTimebase) -> OSStatus {
    var up: CMTimebase? = newSourceTimebase
    while let t = up {
        if t === timebase { return kCMTimebaseError_InvalidParameter }
        up = t.sourceTimebase
    }
    timebase.setSource(.timebase(newSourceTimebase))
    return noErr
}

// MARK: - Timers

/// 256 years in seconds: the interval timebases give timers that should not fire again on their own.
public let kCMTimebaseVeryLongCFTimeInterval: CFTimeInterval = 256 * 365 * 24 * 60 * 60
/// A time 256 years after the reference date: where timebases park timers that should not fire.
public let kCMTimebaseFarFutureCFAbsoluteTime: CFAbsoluteTime = kCMTimebaseVeryLongCFTimeInterval

/// Adds a dispatch timer source to the timers a timebase manages: from now on the timebase sets
/// its start time from `CMTimebaseSetTimerDispatchSourceNextFireTime` and re-arms it whenever its
/// time or rate changes.
public func CMTimebaseAddTimerDispatchSource(_ timebase: CMTimebase, timerSource: DispatchSource) -> OSStatus {
    let timer: any DispatchSourceTimer = timerSource
    return timebase.addTimer(TimebaseTimer(.dispatch(timer)))
}

/// Stops managing a dispatch timer source (it keeps its current schedule).
public func CMTimebaseRemoveTimerDispatchSource(_ timebase: CMTimebase, timerSource: DispatchSource) -> OSStatus {
    let timer: any DispatchSourceTimer = timerSource
    return timebase.removeTimer(matching: TimebaseTimer(.dispatch(timer)))
}

/// Sets when, in the timebase's time, a managed dispatch timer source fires next.
public func CMTimebaseSetTimerDispatchSourceNextFireTime(_ timebase: CMTimebase, timerSource: DispatchSource,
                                                         fireTime: CMTime, flags: UInt32) -> OSStatus {
    let timer: any DispatchSourceTimer = timerSource
    return timebase.setFireTime(fireTime, for: TimebaseTimer(.dispatch(timer)))
}

/// Makes a managed dispatch timer source fire as soon as possible.
public func CMTimebaseSetTimerDispatchSourceToFireImmediately(_ timebase: CMTimebase, timerSource: DispatchSource) -> OSStatus {
    let timer: any DispatchSourceTimer = timerSource
    return timebase.setFireTime(kCMTimeInvalid, for: TimebaseTimer(.dispatch(timer)), immediately: true)
}

// MARK: - Notifications

/// Posted by a timebase (the notification's object) after its effective rate changed — its own
/// rate or one up its source chain. The user info holds `kCMTimebaseNotificationKey_EventTime`.
nonisolated(unsafe) public let kCMTimebaseNotification_EffectiveRateChanged: CFString = "CMTimebaseEffectiveRateChanged"
/// Posted by a timebase after a discontinuous jump in its time (set, or a jump up its source chain).
nonisolated(unsafe) public let kCMTimebaseNotification_TimeJumped: CFString = "CMTimebaseTimeJumped"
/// The user-info key of a timebase notification's time (a CMTime as a dictionary).
nonisolated(unsafe) public let kCMTimebaseNotificationKey_EventTime: CFString = "CMTimebaseNotificationKey_EventTime"

// MARK: - Swift overlay

extension CMTimebase {
    /// Creates a timebase driven by a source clock, with rate 0 and time 0.
    public convenience init(allocator: CFAllocator? = nil, sourceClock: CMClock) throws {
        self.init(source: .clock(sourceClock))
    }

    /// Creates a timebase driven by a source timebase, with rate 0 and time 0.
    public convenience init(allocator: CFAllocator? = nil, sourceTimebase: CMTimebase) throws {
        self.init(source: .timebase(sourceTimebase))
    }

    /// The current time.
    public var time: CMTime { currentTime }

    /// The current rate relative to the immediate source.
    public var rate: Double { snapshot.rate }

    /// The current time and rate, as one consistent snapshot.
    public var timeAndRate: (time: CMTime, rate: Double) {
        let (time, rate) = currentTimeAndRate
        return (time, rate)
    }

    /// The rate relative to the ultimate source clock.
    public var effectiveRate: Double { chainRate }

    /// The immediate source: a clock or a timebase.
    public var source: CMClockOrTimebase { sourceRef.object }

    /// The immediate source clock, if any; setting one moves the timebase onto it.
    public var sourceClock: CMClock? {
        get { CMTimebaseCopySourceClock(self) }
        set { if let newValue { _ = CMTimebaseSetSourceClock(self, newValue) } }
    }

    /// The immediate source timebase, if any; setting one moves the timebase onto it.
    public var sourceTimebase: CMTimebase? {
        get { CMTimebaseCopySourceTimebase(self) }
        set { if let newValue { _ = CMTimebaseSetSourceTimebase(self, newValue) } }
    }

    /// Posted after the effective rate changed (`kCMTimebaseNotification_EffectiveRateChanged`).
    public static let effectiveRateChanged = NSNotification.Name(kCMTimebaseNotification_EffectiveRateChanged as String)
    /// Posted after a discontinuous time jump (`kCMTimebaseNotification_TimeJumped`).
    public static let timeJumped = NSNotification.Name(kCMTimebaseNotification_TimeJumped as String)

    /// The keys of a timebase notification's user info.
    public struct NotificationKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The time of the event, as a CMTime dictionary.
        public static let eventTime = NotificationKey(rawValue: kCMTimebaseNotificationKey_EventTime as String)
    }

    /// A time far in the future (256 years after the reference date), where parked timers wait.
    public static let farFuture: CFAbsoluteTime = kCMTimebaseFarFutureCFAbsoluteTime
    /// 256 years in seconds.
    public static let veryLongTimeInterval: CFTimeInterval = kCMTimebaseVeryLongCFTimeInterval

    /// Adds a Foundation timer (scheduled on `runloop`) to the timers this timebase manages.
    public func addTimer(_ timer: Timer, runloop: RunLoop) throws {
        timer.fireDate = .distantFuture
        runloop.add(timer, forMode: .default)
        try check(addTimer(TimebaseTimer(.foundation(timer))))
    }

    /// Adds a dispatch timer source to the timers this timebase manages.
    public func addTimer<T: DispatchSourceTimer>(_ timer: T) throws {
        try check(addTimer(TimebaseTimer(.dispatch(timer))))
    }

    /// Stops managing a Foundation timer.
    public func removeTimer(_ timer: Timer) throws {
        try check(removeTimer(matching: TimebaseTimer(.foundation(timer))))
    }

    /// Stops managing a dispatch timer source.
    public func removeTimer<T: DispatchSourceTimer>(_ timer: T) throws {
        try check(removeTimer(matching: TimebaseTimer(.dispatch(timer))))
    }

    /// Sets when, in this timebase's time, a managed Foundation timer fires next.
    public func setTimerNextFireTime(_ timer: Timer, fireTime: CMTime) throws {
        try check(setFireTime(fireTime, for: TimebaseTimer(.foundation(timer))))
    }

    /// Sets when, in this timebase's time, a managed dispatch timer source fires next.
    public func setTimerNextFireTime<T: DispatchSourceTimer>(_ timer: T, fireTime: CMTime) throws {
        try check(setFireTime(fireTime, for: TimebaseTimer(.dispatch(timer))))
    }

    /// Makes a managed Foundation timer fire as soon as possible.
    public func setTimerToFireImmediately(_ timer: Timer) throws {
        try check(setFireTime(kCMTimeInvalid, for: TimebaseTimer(.foundation(timer)), immediately: true))
    }

    /// Makes a managed dispatch timer source fire as soon as possible.
    public func setTimerToFireImmediately<T: DispatchSourceTimer>(_ timer: T) throws {
        try check(setFireTime(kCMTimeInvalid, for: TimebaseTimer(.dispatch(timer)), immediately: true))
    }

    /// The clock at the root of the source chain.
    public var ultimateSourceClock: CMClock { ultimateClock }

    /// Sets the current time.
    public func setTime(_ time: CMTime) throws { try check(CMTimebaseSetTime(self, time: time)) }

    /// Sets the rate.
    public func setRate(_ rate: Double) throws { try check(CMTimebaseSetRate(self, rate: rate)) }

    /// Sets the time at a particular source time.
    public func setAnchorTime(_ anchorTime: CMTime, referenceTime: CMTime) throws {
        try check(CMTimebaseSetAnchorTime(self, timebaseTime: anchorTime, immediateSourceTime: referenceTime))
    }

    /// Sets the time at a particular source time and changes the rate at exactly that time.
    public func setRateAndAnchorTime(rate: Double, anchorTime: CMTime, referenceTime: CMTime) throws {
        try check(CMTimebaseSetRateAndAnchorTime(self, rate: rate, anchorTime: anchorTime, immediateSourceTime: referenceTime))
    }

    private func check(_ status: OSStatus) throws {
        guard status == noErr else { throw Error.error(status) }
    }

    /// The errors timebase methods throw: NSErrors in `NSOSStatusErrorDomain` with the C error code.
    public struct Error: Sendable {
        /// Memory allocation failed (-12750).
        public static var allocationFailed: NSError { error(kCMTimebaseError_AllocationFailed) }
        /// A parameter is not valid (-12749).
        public static var invalidParameter: NSError { error(kCMTimebaseError_InvalidParameter) }
        /// A required parameter is missing (-12748).
        public static var missingRequiredParameter: NSError { error(kCMTimebaseError_MissingRequiredParameter) }
        /// An attempt to modify a read-only timebase (-12757).
        public static var readOnly: NSError { error(kCMTimebaseError_ReadOnly) }
        /// A timer interval is too short (-12751).
        public static var timerIntervalTooShort: NSError { error(kCMTimebaseError_TimerIntervalTooShort) }

        static func error(_ status: OSStatus) -> NSError { NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
    }
}

// MARK: - Type identifier

/// The type identifier of timebases.
public func CMTimebaseGetTypeID() -> CFTypeID { CMSyncTypeIDs.timebase }

extension CMTimebase: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CMTimebaseGetTypeID() }
}
