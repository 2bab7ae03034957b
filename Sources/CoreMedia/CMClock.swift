// CMClock: a read-only source of time. The host time clock reads CLOCK_MONOTONIC (the Linux
// counterpart of mach_absolute_time) and reports nanoseconds, timescale 1_000_000_000.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A clock error: a required parameter is missing.
public let kCMClockError_MissingRequiredParameter: OSStatus = -12745
/// A clock error: a parameter is not valid.
public let kCMClockError_InvalidParameter: OSStatus = -12746
/// A clock error: memory allocation failed.
public let kCMClockError_AllocationFailed: OSStatus = -12747
/// A clock error: the operation is not supported.
public let kCMClockError_UnsupportedOperation: OSStatus = -12756

/// An object that represents a source of time. Clocks are read-only: they cannot be stopped,
/// started or set. Thread-safe.
public final class CMClock: @unchecked Sendable, Hashable {
    private let readTime: @Sendable () -> CMTime
    /// A name for descriptions ("host" for the host time clock).
    let name: String

    /// A clock whose time is whatever `time` returns. Used for the host clock and by tests, which
    /// drive a clock by hand to check timebases exactly and without sleeping.
    package init(name: String, time: @escaping @Sendable () -> CMTime) {
        self.name = name
        readTime = time
    }

    /// The singleton host time clock.
    static let host = CMClock(name: "host") { CMClockMakeHostTimeFromSystemUnits(hostSystemUnits()) }

    /// The clock's current time.
    var currentTime: CMTime { readTime() }

    public static func == (lhs: CMClock, rhs: CMClock) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// CLOCK_MONOTONIC in nanoseconds: the host time's native units on Linux.
func hostSystemUnits() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// The timescale of host times: nanoseconds.
let hostTimescale: CMTimeScale = 1_000_000_000

// MARK: - C-style functions

/// Returns the singleton clock that reflects the host time (CLOCK_MONOTONIC, in nanoseconds).
public func CMClockGetHostTimeClock() -> CMClock { CMClock.host }

/// Returns the current time from a clock.
public func CMClockGetTime(_ clock: CMClock) -> CMTime { clock.currentTime }

/// Returns the current time from a clock and the matching time from the clock's reference clock
/// (here always the host time clock; for the host clock both times are the same reading).
public func CMClockGetAnchorTime(_ clock: CMClock, clockTimeOut: UnsafeMutablePointer<CMTime>,
                                 referenceClockTimeOut: UnsafeMutablePointer<CMTime>) -> OSStatus {
    if clock === CMClock.host {
        let now = clock.currentTime
        clockTimeOut.pointee = now
        referenceClockTimeOut.pointee = now
    } else {
        clockTimeOut.pointee = clock.currentTime
        referenceClockTimeOut.pointee = CMClock.host.currentTime
    }
    return noErr
}

/// Whether two clocks might drift relative to each other: true unless they are the same clock.
public func CMClockMightDrift(_ clock: CMClock, _ otherClock: CMClock) -> Bool { clock !== otherClock }

/// Converts a host time to the host's native units (nanoseconds of CLOCK_MONOTONIC on Linux).
/// A scale conversion, not a clock conversion; a time that is not numeric or is negative gives 0.
public func CMClockConvertHostTimeToSystemUnits(_ hostTime: CMTime) -> UInt64 {
    guard hostTime.flags.rawValue & 0x1 != 0, hostTime.flags.rawValue & 0x1C == 0,
          hostTime.timescale > 0 else { return 0 }
    let ns = Int128(hostTime.value) * Int128(hostTimescale) / Int128(hostTime.timescale)
    return ns <= 0 ? 0 : UInt64(clamping: ns)
}

/// Converts a host time in native units (nanoseconds on Linux) to a CMTime with timescale
/// 1_000_000_000.
public func CMClockMakeHostTimeFromSystemUnits(_ hostTime: UInt64) -> CMTime {
    CMTime(value: CMTimeValue(clamping: hostTime), timescale: hostTimescale, flags: .valid, epoch: 0)
}

// MARK: - Swift overlay

extension CMClock {
    /// The singleton clock that reflects the host time.
    public static var hostTimeClock: CMClock { CMClock.host }

    /// The current time.
    public var time: CMTime { currentTime }

    /// The current time of the clock and the matching time of its reference clock (the host clock).
    public func anchorTime() throws -> (anchorTime: CMTime, referenceTime: CMTime) {
        var anchor = kCMTimeInvalid, reference = kCMTimeInvalid
        let status = CMClockGetAnchorTime(self, clockTimeOut: &anchor, referenceClockTimeOut: &reference)
        guard status == noErr else { throw NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
        return (anchor, reference)
    }

    /// Whether this clock might drift relative to another: true unless they are the same clock.
    public func mightDrift(relativeTo otherClock: CMClock) -> Bool { CMClockMightDrift(self, otherClock) }

    /// Converts a host time to the host's native units.
    public static func convertHostTimeToSystemUnits(_ hostTime: CMTime) -> UInt64 {
        CMClockConvertHostTimeToSystemUnits(hostTime)
    }

    /// Converts a host time in native units to a time structure.
    public static func convertSystemUnitsToHostTime(_ systemUnits: UInt64) -> CMTime {
        CMClockMakeHostTimeFromSystemUnits(systemUnits)
    }

    /// The errors clock functions throw: NSErrors in `NSOSStatusErrorDomain` with the C error code.
    public struct Error: Sendable {
        /// Memory allocation failed (-12747).
        public static var allocationFailed: NSError { error(kCMClockError_AllocationFailed) }
        /// A parameter is not valid (-12746).
        public static var invalidParameter: NSError { error(kCMClockError_InvalidParameter) }
        /// A required parameter is missing (-12745).
        public static var missingRequiredParameter: NSError { error(kCMClockError_MissingRequiredParameter) }
        /// The operation is not supported (-12756).
        public static var unsupportedOperation: NSError { error(kCMClockError_UnsupportedOperation) }

        static func error(_ status: OSStatus) -> NSError { NSError(domain: NSOSStatusErrorDomain, code: Int(status)) }
    }
}

// MARK: - Type identifiers

enum CMSyncTypeIDs {
    static let clock = CFTypeIDRegistry.register("CMClock")
    static let timebase = CFTypeIDRegistry.register("CMTimebase")
}

/// The type identifier of clocks.
public func CMClockGetTypeID() -> CFTypeID { CMSyncTypeIDs.clock }

extension CMClock: CFTypeIdentifiable {
    package static var cfTypeID: CFTypeID { CMClockGetTypeID() }
}
