// CMTimebase: a timeline under application control, driven by a source clock or a source
// timebase. Its time is anchorTime + rate × (sourceTime − sourceAnchorTime), computed in CMTime
// arithmetic: integer rates and rates that are simple fractions (0.5, 1.5, -0.25 …) are applied
// exactly; any other rate goes through CMTimeMultiplyByFloat64.

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
public final class CMTimebase: @unchecked Sendable, Hashable {
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

    private let lock = NSLock()
    let sourceRef: Source
    private var anchor: Anchor

    /// A timebase with rate 0 and time 0 over `source`.
    init(source: Source) {
        sourceRef = source
        anchor = Anchor(rate: 0, time: kCMTimeZero, sourceTime: source.time)
    }

    /// The anchor, read under the lock.
    var snapshot: Anchor { lock.withLock { anchor } }

    /// The current time. The lock is held while the source is read, so a time is consistent with
    /// one anchor; locks are taken from a timebase towards its source only, so they cannot cycle.
    var currentTime: CMTime {
        lock.withLock { CMTimebase.map(sourceRef.time, through: anchor) }
    }

    var currentTimeAndRate: (CMTime, Float64) {
        lock.withLock { (CMTimebase.map(sourceRef.time, through: anchor), anchor.rate) }
    }

    /// Sets the anchor; `newTime` nil keeps the current timebase time (re-anchoring at the source's
    /// current time), `newRate` nil keeps the rate.
    func reanchor(rate newRate: Float64?, time newTime: CMTime?) {
        lock.withLock {
            let sourceNow = sourceRef.time
            let timeNow = newTime ?? CMTimebase.map(sourceNow, through: anchor)
            anchor = Anchor(rate: newRate ?? anchor.rate, time: timeNow, sourceTime: sourceNow)
        }
    }

    func setAnchor(_ newAnchor: Anchor) { lock.withLock { anchor = newAnchor } }

    /// Sets the anchor times, keeping the rate (in one critical section with reading it).
    func setAnchor(time: CMTime, sourceTime: CMTime) {
        lock.withLock { anchor = Anchor(rate: anchor.rate, time: time, sourceTime: sourceTime) }
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

/// A numeric time: valid and neither infinite nor indefinite.
func isNumericTime(_ time: CMTime) -> Bool {
    time.flags.contains(.valid) && time.flags.isDisjoint(with: .impliedValueFlagsMask) && time.timescale > 0
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

    /// The immediate source clock, if any.
    public var sourceClock: CMClock? { CMTimebaseCopySourceClock(self) }

    /// The immediate source timebase, if any.
    public var sourceTimebase: CMTimebase? { CMTimebaseCopySourceTimebase(self) }

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
