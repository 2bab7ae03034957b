// CMTime: rational time, value/timescale seconds, with flags for the special values.
//
// The behaviour follows the discussion text of Apple's CMTime.h as published in the Core Media
// reference. Arithmetic lives in CMTimeArithmetic.swift, comparison and hashing in
// CMTimeCompare.swift, text and dictionary forms in CMTimeRepresentation.swift.

/// The numerator of a CMTime.
public typealias CMTimeValue = Int64
/// The denominator of a CMTime: units per second.
public typealias CMTimeScale = Int32
/// Distinguishes unrelated timelines (e.g. loops of a presentation).
public typealias CMTimeEpoch = Int64

/// The largest timescale a CMTime can have (`0x7fffffff`). An `Int`, as Swift imports Apple's
/// `#define kCMTimeMaxTimescale 0x7fffffffL`; pass it as `CMTimeScale(kCMTimeMaxTimescale)`.
public let kCMTimeMaxTimescale: Int = 0x7fff_ffff

/// `kCMTimeMaxTimescale` as a timescale.
let maxTimescaleInt32 = CMTimeScale(kCMTimeMaxTimescale)

/// Flags of a CMTime.
/// CoreMedia's own tests of these flags are plain integer masks on `rawValue` (0x1 valid, 0x2
/// rounded, 0x4/0x8 ±infinity, 0x10 indefinite): OptionSet's generic `contains` and
/// `intersection` run unspecialised in a debug build, and times are tested for every packet.
public struct CMTimeFlags: OptionSet, Sendable, Hashable, Codable {
    /// The raw bits, as in C (`kCMTimeFlags_Valid` is bit 0).
    public let rawValue: UInt32
    /// Creates flags from their raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The time is valid. Must be set even when other flags are set.
    public static let valid = CMTimeFlags(rawValue: 1 << 0)
    /// The time has been rounded at some point in its past.
    public static let hasBeenRounded = CMTimeFlags(rawValue: 1 << 1)
    /// The time is +infinity.
    public static let positiveInfinity = CMTimeFlags(rawValue: 1 << 2)
    /// The time is -infinity.
    public static let negativeInfinity = CMTimeFlags(rawValue: 1 << 3)
    /// The time is indefinite (unknown).
    public static let indefinite = CMTimeFlags(rawValue: 1 << 4)
    /// The flags that imply a non-numeric value: +infinity, -infinity, indefinite.
    public static let impliedValueFlagsMask: CMTimeFlags = [.positiveInfinity, .negativeInfinity, .indefinite]
}

/// A rational time value: `value / timescale` seconds.
public struct CMTime: Sendable {
    /// The numerator: `value / timescale` = seconds.
    public var value: CMTimeValue
    /// The denominator: units per second. Must be positive for a numeric time.
    public var timescale: CMTimeScale
    /// Validity, rounding and special-value flags.
    public var flags: CMTimeFlags
    /// Distinguishes equal timestamps in different timelines; greater epochs come later.
    public var epoch: CMTimeEpoch

    /// The all-zero time, which is invalid (no valid flag), as in C.
    public init() {
        value = 0
        timescale = 0
        flags = []
        epoch = 0
    }

    /// Creates a time from all four fields, exactly as given.
    public init(value: CMTimeValue, timescale: CMTimeScale, flags: CMTimeFlags, epoch: CMTimeEpoch) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }
}

// MARK: - Defined times

/// The invalid time: every field zero.
public let kCMTimeInvalid = CMTime(value: 0, timescale: 0, flags: [], epoch: 0)
/// The indefinite (unknown) time.
public let kCMTimeIndefinite = CMTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
/// +infinity.
public let kCMTimePositiveInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
/// -infinity.
public let kCMTimeNegativeInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)
/// Time zero (`0/1`).
public let kCMTimeZero = CMTime(value: 0, timescale: 1, flags: .valid, epoch: 0)

extension CMTime {
    /// A value that represents an invalid time (all fields zero). Test with `isValid`, not `==`.
    public static let invalid = kCMTimeInvalid
    /// A value that represents an indefinite time. Test with `isIndefinite`.
    public static let indefinite = kCMTimeIndefinite
    /// A value that represents +infinity. Test with `isPositiveInfinity`.
    public static let positiveInfinity = kCMTimePositiveInfinity
    /// A value that represents -infinity. Test with `isNegativeInfinity`.
    public static let negativeInfinity = kCMTimeNegativeInfinity
    /// A value that represents time zero (`0/1`).
    public static let zero = kCMTimeZero
}

// MARK: - Creating times

/// Makes a valid time with `value` and `timescale`; the epoch is 0.
@discardableResult
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime {
    CMTime(value: value, timescale: timescale, flags: .valid, epoch: 0)
}

/// Makes a valid time with `value`, `timescale` and `epoch`.
@discardableResult
public func CMTimeMakeWithEpoch(value: Int64, timescale: Int32, epoch: Int64) -> CMTime {
    CMTime(value: value, timescale: timescale, flags: .valid, epoch: epoch)
}

/// Makes a time from a number of seconds and a preferred timescale; the epoch is 0.
///
/// A non-positive `preferredTimescale` or NaN `seconds` gives an invalid time; ±infinite seconds
/// give ±infinity. If the value overflows at the preferred timescale, the timescale is halved until
/// it fits or is 1; if it still overflows the result is ±infinity. The value is rounded half away
/// from zero, and `hasBeenRounded` is set when the result converted back to seconds differs from
/// `seconds`.
@discardableResult
public func CMTimeMakeWithSeconds(_ seconds: Float64, preferredTimescale: Int32) -> CMTime {
    guard preferredTimescale > 0, !seconds.isNaN else { return kCMTimeInvalid }
    if seconds.isInfinite { return seconds > 0 ? kCMTimePositiveInfinity : kCMTimeNegativeInfinity }
    var timescale = preferredTimescale
    while true {
        let scaled = (seconds * Double(timescale)).rounded(.toNearestOrAwayFromZero)
        // 2^63 is exactly representable; anything at or beyond it does not fit in Int64.
        if scaled.magnitude < 9_223_372_036_854_775_808.0 {
            let value = Int64(scaled)
            var time = CMTimeMake(value: value, timescale: timescale)
            if Double(value) / Double(timescale) != seconds { time.flags = CMTimeFlags(rawValue: time.flags.rawValue | 0x2) }
            return time
        }
        if timescale == 1 { return seconds > 0 ? kCMTimePositiveInfinity : kCMTimeNegativeInfinity }
        timescale /= 2
    }
}

extension CMTime {
    /// Creates a valid time with `value` and `timescale` (epoch 0), as `CMTimeMake`.
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self = CMTimeMake(value: value, timescale: timescale)
    }

    /// Creates a time from seconds and a preferred timescale, as `CMTimeMakeWithSeconds`.
    public init(seconds: Double, preferredTimescale: CMTimeScale) {
        self = CMTimeMakeWithSeconds(seconds, preferredTimescale: preferredTimescale)
    }
}

// MARK: - Inspecting times

extension CMTime {
    /// True when the valid flag is set.
    public var isValid: Bool { flags.rawValue & 0x1 != 0 }

    /// True for a valid time flagged +infinity.
    public var isPositiveInfinity: Bool { isValid && flags.rawValue & 0x4 != 0 }

    /// True for a valid time flagged -infinity.
    public var isNegativeInfinity: Bool { isValid && flags.rawValue & 0x8 != 0 }

    /// True for a valid time flagged indefinite.
    public var isIndefinite: Bool { isValid && flags.rawValue & 0x10 != 0 }

    /// True for a valid time that is not infinite and not indefinite.
    public var isNumeric: Bool { flags.rawValue & 0x1D == 0x1 }

    /// True for a numeric time whose value has been rounded at some point.
    public var hasBeenRounded: Bool { isNumeric && flags.rawValue & 0x2 != 0 }

    /// The time in seconds, as `CMTimeGetSeconds`.
    public var seconds: Double { CMTimeGetSeconds(self) }

    /// The time converted to `newTimescale`, as `CMTimeConvertScale`.
    public func convertScale(_ newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
        CMTimeConvertScale(self, timescale: newTimescale, method: method)
    }
}

/// Whether `time` is valid.
@discardableResult
public func CMTIME_IS_VALID(_ time: CMTime) -> Bool { time.isValid }
/// Whether `time` is invalid.
@discardableResult
public func CMTIME_IS_INVALID(_ time: CMTime) -> Bool { !time.isValid }
/// Whether `time` is +infinity (Apple's Swift spelling).
@discardableResult
public func CMTIME_IS_POSITIVEINFINITY(_ time: CMTime) -> Bool { time.isPositiveInfinity }
/// Whether `time` is -infinity (Apple's Swift spelling).
@discardableResult
public func CMTIME_IS_NEGATIVEINFINITY(_ time: CMTime) -> Bool { time.isNegativeInfinity }
/// Whether `time` is +infinity (the C macro's spelling).
@discardableResult
public func CMTIME_IS_POSITIVE_INFINITY(_ time: CMTime) -> Bool { time.isPositiveInfinity }
/// Whether `time` is -infinity (the C macro's spelling).
@discardableResult
public func CMTIME_IS_NEGATIVE_INFINITY(_ time: CMTime) -> Bool { time.isNegativeInfinity }
/// Whether `time` is indefinite.
@discardableResult
public func CMTIME_IS_INDEFINITE(_ time: CMTime) -> Bool { time.isIndefinite }
/// Whether `time` is numeric (valid, not infinite, not indefinite).
@discardableResult
public func CMTIME_IS_NUMERIC(_ time: CMTime) -> Bool { time.isNumeric }
/// Whether `time` is numeric and has been rounded.
@discardableResult
public func CMTIME_HAS_BEEN_ROUNDED(_ time: CMTime) -> Bool { time.hasBeenRounded }

/// The time in seconds: `value / timescale` for numeric times, ±infinity for infinite times,
/// NaN for invalid and indefinite times.
@discardableResult
public func CMTimeGetSeconds(_ time: CMTime) -> Float64 {
    if time.isPositiveInfinity { return .infinity }
    if time.isNegativeInfinity { return -.infinity }
    guard time.isNumeric else { return .nan }
    return Double(time.value) / Double(time.timescale)
}
