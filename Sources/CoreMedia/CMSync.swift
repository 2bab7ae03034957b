// CMSync: functions over clocks and timebases alike. Conversions and relative rates go through
// the common ancestor of the two sources in their clock/timebase tree, in CMTime arithmetic; two
// different root clocks are related through their current times (drift between them is not
// measured, see docs/COMPATIBILITY.md).

/// A clock or a timebase, for arguments and results that accept either (as in Apple's SDK, a
/// Core Foundation object reference).
public typealias CMClockOrTimebase = CFTypeRef

/// A sync error: a required parameter is missing.
public let kCMSyncError_MissingRequiredParameter: OSStatus = -12752
/// A sync error: a parameter is not valid.
public let kCMSyncError_InvalidParameter: OSStatus = -12753
/// A sync error: memory allocation failed.
public let kCMSyncError_AllocationFailed: OSStatus = -12754
/// A sync error: the rate must be non-zero.
public let kCMSyncError_RateMustBeNonZero: OSStatus = -12755

/// One clock or timebase seen as a path from its root clock.
private struct SyncPath {
    /// The root clock.
    let root: CMClock
    /// The timebases from just below the root down to the object itself (empty for a clock),
    /// each with a snapshot of its anchor.
    let steps: [(timebase: CMTimebase, anchor: CMTimebase.Anchor)]

    init?(_ object: CMClockOrTimebase) {
        if let clock = object as? CMClock {
            root = clock
            steps = []
            return
        }
        guard var timebase = object as? CMTimebase else { return nil }
        var reversed: [(timebase: CMTimebase, anchor: CMTimebase.Anchor)] = []
        while true {
            reversed.append((timebase, timebase.snapshot))
            switch timebase.sourceRef {
            case .clock(let c):
                root = c
                steps = reversed.reversed()
                return
            case .timebase(let t): timebase = t
            }
        }
    }

    /// The number of leading steps shared with `other` (both must have the same root).
    func commonPrefix(with other: SyncPath) -> Int {
        var n = 0
        while n < steps.count, n < other.steps.count, steps[n].timebase === other.steps[n].timebase { n += 1 }
        return n
    }

    /// Time at step `level` (0 = the root clock) for a time of this object, going up.
    func up(_ time: CMTime, to level: Int) -> CMTime {
        var t = time
        for step in steps[level...].reversed() {
            t = CMTimebase.unmap(t, through: step.anchor)
            if !isNumericTime(t) { return kCMTimeInvalid }
        }
        return t
    }

    /// This object's time for a time at step `level`, going down.
    func down(_ time: CMTime, from level: Int) -> CMTime {
        var t = time
        for step in steps[level...] { t = CMTimebase.map(t, through: step.anchor) }
        return t
    }

    /// The product of the rates below step `level`.
    func rate(below level: Int) -> Float64 { steps[level...].reduce(1) { $0 * $1.anchor.rate } }
}

/// Returns the current time of a clock or timebase.
public func CMSyncGetTime(_ clockOrTimebase: CMClockOrTimebase) -> CMTime {
    if let clock = clockOrTimebase as? CMClock { return clock.currentTime }
    if let timebase = clockOrTimebase as? CMTimebase { return timebase.currentTime }
    return kCMTimeInvalid
}

/// Converts a time of one clock or timebase to the matching time of another. Through a common
/// ancestor the conversion uses the rates and anchors of the tree exactly; it is invalid when a
/// timebase on the way up has rate 0. Between different root clocks the two clocks' current times
/// relate them.
public func CMSyncConvertTime(_ time: CMTime, from fromClockOrTimebase: CMClockOrTimebase,
                              to toClockOrTimebase: CMClockOrTimebase) -> CMTime {
    guard isNumericTime(time), let from = SyncPath(fromClockOrTimebase), let to = SyncPath(toClockOrTimebase) else {
        return kCMTimeInvalid
    }
    if from.root === to.root {
        let level = from.commonPrefix(with: to)
        let common = from.up(time, to: level)
        return isNumericTime(common) ? to.down(common, from: level) : kCMTimeInvalid
    }
    let fromRoot = from.up(time, to: 0)
    guard isNumericTime(fromRoot) else { return kCMTimeInvalid }
    let toRoot = CMTimeAdd(CMTimeSubtract(fromRoot, from.root.currentTime), to.root.currentTime)
    return to.down(toRoot, from: 0)
}

/// Returns the rate of one clock or timebase relative to another. The rate of anything relative
/// to a stopped timebase is NaN.
public func CMSyncGetRelativeRate(_ ofClockOrTimebase: CMClockOrTimebase,
                                  relativeTo relativeToClockOrTimebase: CMClockOrTimebase) -> Float64 {
    guard let of = SyncPath(ofClockOrTimebase), let to = SyncPath(relativeToClockOrTimebase) else { return .nan }
    let level = of.root === to.root ? of.commonPrefix(with: to) : 0
    let denominator = to.rate(below: level)
    return denominator == 0 ? .nan : of.rate(below: level) / denominator
}

/// Returns the relative rate of one clock or timebase to another and the times of each at one
/// moment (their anchor times for that rate).
public func CMSyncGetRelativeRateAndAnchorTime(_ ofClockOrTimebase: CMClockOrTimebase,
                                               relativeTo relativeToClockOrTimebase: CMClockOrTimebase,
                                               relativeRateOut outRelativeRate: UnsafeMutablePointer<Float64>?,
                                               anchorTimeOut outOfClockOrTimebaseAnchorTime: UnsafeMutablePointer<CMTime>?,
                                               relativeToAnchorTimeOut outRelativeToClockOrTimebaseAnchorTime: UnsafeMutablePointer<CMTime>?) -> OSStatus {
    guard let of = SyncPath(ofClockOrTimebase), let to = SyncPath(relativeToClockOrTimebase) else {
        return kCMSyncError_InvalidParameter
    }
    let rate = CMSyncGetRelativeRate(ofClockOrTimebase, relativeTo: relativeToClockOrTimebase)
    let ofTime: CMTime, toTime: CMTime
    if of.root === to.root {
        let now = of.root.currentTime
        ofTime = of.down(now, from: 0)
        toTime = to.down(now, from: 0)
    } else {
        ofTime = of.down(of.root.currentTime, from: 0)
        toTime = to.down(to.root.currentTime, from: 0)
    }
    outRelativeRate?.pointee = rate
    outOfClockOrTimebaseAnchorTime?.pointee = ofTime
    outRelativeToClockOrTimebaseAnchorTime?.pointee = toTime
    return noErr
}

/// Whether two clocks or timebases might drift relative to each other: true when their root
/// clocks differ.
public func CMSyncMightDrift(_ clockOrTimebase1: CMClockOrTimebase, _ clockOrTimebase2: CMClockOrTimebase) -> Bool {
    guard let a = SyncPath(clockOrTimebase1), let b = SyncPath(clockOrTimebase2) else { return false }
    return a.root !== b.root
}

// MARK: - Swift overlay

/// A type that provides behavior for syncing time: clocks and timebases.
public protocol CMSyncProtocol: Sendable {
    /// The current time.
    var time: CMTime { get }
    /// Converts a time of this clock or timebase to the matching time of another.
    func convertTime<T: CMSyncProtocol>(_ time: CMTime, to clockOrTimebase: T) -> CMTime
    /// The rate of this clock or timebase relative to another.
    func rate<T: CMSyncProtocol>(relativeTo clockOrTimebase: T) -> Double
    /// The relative rate and the times of each at which it went into effect.
    func rateAndAnchorTime<T: CMSyncProtocol>(relativeTo clockOrTimebase: T) throws
        -> (rate: Double, anchorTime: CMTime, referenceTime: CMTime)
    /// Whether this clock or timebase might drift relative to another.
    func mightDrift<T: CMSyncProtocol>(relativeTo clockOrTimebase: T) -> Bool
}

extension CMSyncProtocol where Self: AnyObject {
    /// Converts a time of this clock or timebase to the matching time of another.
    public func convertTime<T: CMSyncProtocol>(_ time: CMTime, to clockOrTimebase: T) -> CMTime {
        CMSyncConvertTime(time, from: self, to: clockOrTimebase as AnyObject)
    }

    /// The rate of this clock or timebase relative to another.
    public func rate<T: CMSyncProtocol>(relativeTo clockOrTimebase: T) -> Double {
        CMSyncGetRelativeRate(self, relativeTo: clockOrTimebase as AnyObject)
    }

    /// The relative rate and the times of each at which it went into effect.
    public func rateAndAnchorTime<T: CMSyncProtocol>(relativeTo clockOrTimebase: T) throws
        -> (rate: Double, anchorTime: CMTime, referenceTime: CMTime) {
        var rate: Float64 = 0
        var anchor = kCMTimeInvalid, reference = kCMTimeInvalid
        let status = CMSyncGetRelativeRateAndAnchorTime(self, relativeTo: clockOrTimebase as AnyObject, relativeRateOut: &rate,
                                                        anchorTimeOut: &anchor, relativeToAnchorTimeOut: &reference)
        guard status == noErr else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
        return (rate, anchor, reference)
    }

    /// Whether this clock or timebase might drift relative to another.
    public func mightDrift<T: CMSyncProtocol>(relativeTo clockOrTimebase: T) -> Bool {
        CMSyncMightDrift(self, clockOrTimebase as AnyObject)
    }
}

extension CMClock: CMSyncProtocol {}
extension CMTimebase: CMSyncProtocol {}
