// CMTimeRange: a start time and a duration. A range does not include start + duration.
import CoreFoundationCompat

/// A time range: `start` and `duration`, both CMTimes. The end (`start + duration`) is not part
/// of the range. A valid range has a valid start and a valid, non-negative duration in epoch 0.
public struct CMTimeRange: Sendable {
    /// The start time of the range.
    public var start: CMTime
    /// The duration of the range.
    public var duration: CMTime

    /// The zero-initialised range, as in C: both fields are the all-zero time, which has no valid
    /// flag, so this range is invalid (it is not `kCMTimeRangeZero`).
    public init() {
        start = CMTime()
        duration = CMTime()
    }

    /// Creates a range with `start` and `duration` exactly as given.
    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }
}

/// The empty range at time zero.
public let kCMTimeRangeZero = CMTimeRange(start: kCMTimeZero, duration: kCMTimeZero)
/// The invalid range: start and duration invalid.
public let kCMTimeRangeInvalid = CMTimeRange(start: kCMTimeInvalid, duration: kCMTimeInvalid)

extension CMTimeRange {
    /// The empty range at time zero. Test with `isEmpty`, not `==`.
    public static let zero = kCMTimeRangeZero
    /// The invalid range. Test with `isValid`, not `==`.
    public static let invalid = kCMTimeRangeInvalid

    /// Creates a range from `start` up to (not including) `end`, as `CMTimeRangeFromTimeToTime`.
    public init(start: CMTime, end: CMTime) {
        self = CMTimeRangeFromTimeToTime(start: start, end: end)
    }

    /// True when the start is valid and the duration is valid, non-negative and in epoch 0.
    public var isValid: Bool {
        start.isValid && duration.isValid && duration.epoch == 0 && duration.value >= 0
    }

    /// True for a valid range whose start or duration is indefinite.
    public var isIndefinite: Bool { isValid && (start.isIndefinite || duration.isIndefinite) }

    /// True for a valid range whose duration is zero.
    public var isEmpty: Bool { isValid && duration == .zero }

    /// The end (`start + duration`), which is not in the range; invalid for an invalid range.
    public var end: CMTime { CMTimeRangeGetEnd(self) }

    /// The smallest range that includes every time in either range (`CMTimeRangeGetUnion`).
    public func union(_ otherRange: CMTimeRange) -> CMTimeRange { CMTimeRangeGetUnion(self, otherRange: otherRange) }

    /// The largest range included in both ranges (`CMTimeRangeGetIntersection`).
    public func intersection(_ otherRange: CMTimeRange) -> CMTimeRange {
        CMTimeRangeGetIntersection(self, otherRange: otherRange)
    }

    /// Whether `time` is in the range: `start <= time < end` (`CMTimeRangeContainsTime`).
    public func containsTime(_ time: CMTime) -> Bool { CMTimeRangeContainsTime(self, time: time) }

    /// Whether every time of `range` is in this range (`CMTimeRangeContainsTimeRange`).
    public func containsTimeRange(_ range: CMTimeRange) -> Bool { CMTimeRangeContainsTimeRange(self, otherRange: range) }
}

/// Whether `range` is valid.
@discardableResult
public func CMTIMERANGE_IS_VALID(_ range: CMTimeRange) -> Bool { range.isValid }
/// Whether `range` is invalid.
@discardableResult
public func CMTIMERANGE_IS_INVALID(_ range: CMTimeRange) -> Bool { !range.isValid }
/// Whether `range` is valid with an indefinite start or duration.
@discardableResult
public func CMTIMERANGE_IS_INDEFINITE(_ range: CMTimeRange) -> Bool { range.isIndefinite }
/// Whether `range` is valid with a zero duration.
@discardableResult
public func CMTIMERANGE_IS_EMPTY(_ range: CMTimeRange) -> Bool { range.isEmpty }

/// Makes a range from `start` and `duration`. A duration not in epoch 0 gives `kCMTimeRangeInvalid`.
@discardableResult
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange {
    guard duration.epoch == 0 else { return kCMTimeRangeInvalid }
    return CMTimeRange(start: start, duration: duration)
}

/// Makes a range from `start` to `end`: the duration is `end - start` (`CMTimeSubtract`), which is
/// a duration in epoch 0 when both times are in the same epoch.
@discardableResult
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange {
    CMTimeRange(start: start, duration: CMTimeSubtract(end, start))
}

/// The end of `range` (`start + duration`), or `kCMTimeInvalid` for an invalid range.
@discardableResult
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime {
    guard range.isValid else { return kCMTimeInvalid }
    return CMTimeAdd(range.start, range.duration)
}

/// The union: from the earlier start to the later end. Invalid if either range is invalid.
@discardableResult
public func CMTimeRangeGetUnion(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return kCMTimeRangeInvalid }
    return CMTimeRangeFromTimeToTime(start: CMTimeMinimum(range.start, otherRange.start),
                                     end: CMTimeMaximum(range.end, otherRange.end))
}

/// The intersection: from the later start to the earlier end. Ranges that do not overlap give
/// `kCMTimeRangeZero`; an invalid range gives `kCMTimeRangeInvalid`.
@discardableResult
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return kCMTimeRangeInvalid }
    let start = CMTimeMaximum(range.start, otherRange.start)
    let end = CMTimeMinimum(range.end, otherRange.end)
    guard CMTimeCompare(start, end) < 0 else { return kCMTimeRangeZero }
    return CMTimeRangeFromTimeToTime(start: start, end: end)
}

/// Whether `time` is in `range`: `start <= time < end`. False for an invalid range or time.
@discardableResult
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool {
    guard range.isValid, time.isValid else { return false }
    return CMTimeCompare(range.start, time) <= 0 && CMTimeCompare(time, range.end) < 0
}

/// Whether `otherRange` lies within `range` (`range.start <= otherRange.start` and
/// `otherRange.end <= range.end`). False if either range is invalid.
@discardableResult
public func CMTimeRangeContainsTimeRange(_ range: CMTimeRange, otherRange: CMTimeRange) -> Bool {
    guard range.isValid, otherRange.isValid else { return false }
    return CMTimeCompare(range.start, otherRange.start) <= 0 && CMTimeCompare(otherRange.end, range.end) <= 0
}

/// Whether two ranges have equal starts and equal durations by `CMTimeCompare`.
@discardableResult
public func CMTimeRangeEqual(_ range1: CMTimeRange, _ range2: CMTimeRange) -> Bool {
    CMTimeCompare(range1.start, range2.start) == 0 && CMTimeCompare(range1.duration, range2.duration) == 0
}

extension CMTimeRange: Equatable {
    /// Whether two ranges are equal (`CMTimeRangeEqual`).
    public static func == (range1: CMTimeRange, range2: CMTimeRange) -> Bool { CMTimeRangeEqual(range1, range2) }
    /// Whether two ranges differ (`!CMTimeRangeEqual`).
    public static func != (range1: CMTimeRange, range2: CMTimeRange) -> Bool { !CMTimeRangeEqual(range1, range2) }
}

extension CMTimeRange: Hashable {
    /// Hashes start and duration, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(start)
        hasher.combine(duration)
    }
}

extension CMTimeRange: Codable {
    private enum CodingKeys: String, CodingKey { case start, duration }

    /// Decodes `start` and `duration`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(start: try container.decode(CMTime.self, forKey: .start),
                  duration: try container.decode(CMTime.self, forKey: .duration))
    }

    /// Encodes `start` and `duration`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(duration, forKey: .duration)
    }
}

// MARK: - Mapping times between ranges

/// The time in `range` nearest to `time`: times in the range are returned unchanged, earlier
/// times give the start and later times the end. An empty or invalid range, or an invalid time,
/// gives `kCMTimeInvalid`.
@discardableResult
public func CMTimeClampToRange(_ time: CMTime, range: CMTimeRange) -> CMTime {
    guard time.isValid, range.isValid, !range.isEmpty else { return kCMTimeInvalid }
    if CMTimeCompare(time, range.start) < 0 { return range.start }
    let end = range.end
    if CMTimeCompare(time, end) > 0 { return end }
    return time
}

/// `time * numerator / denominator` for three numeric times, exactly where representable (at the
/// least common multiple of `numerator`'s timescale and the exact denominator), otherwise with
/// default rounding and halving on overflow. Invalid for non-numeric inputs or a zero denominator.
private func scale(_ time: CMTime, by numerator: CMTime, over denominator: CMTime) -> CMTime {
    guard time.isRational, numerator.isRational, denominator.isRational, denominator.value != 0 else {
        return kCMTimeInvalid
    }
    // (t.v / t.ts) * (n.v / n.ts) / (d.v / d.ts) = t.v * n.v * d.ts / (t.ts * n.ts * d.v)
    var top = [Int128(time.value), Int128(numerator.value), Int128(denominator.timescale)]
    var bottom = [Int128(time.timescale), Int128(numerator.timescale), Int128(denominator.value)]
    // Cancel common factors pairwise so the products stay within 128 bits where possible.
    for i in 0..<3 {
        for j in 0..<3 {
            let g = Int128(greatestCommonDivisor64(top[i].magnitude, bottom[j].magnitude))
            if g > 1 { top[i] /= g; bottom[j] /= g }
        }
    }
    let rounded = time.flags.rawValue & 0x2 != 0 || numerator.flags.rawValue & 0x2 != 0
        || denominator.flags.rawValue & 0x2 != 0
    var num: Int128 = 1, den: Int128 = 1, overflow = false
    for factor in top { let r = num.multipliedReportingOverflow(by: factor); num = r.partialValue; overflow = overflow || r.overflow }
    for factor in bottom { let r = den.multipliedReportingOverflow(by: factor); den = r.partialValue; overflow = overflow || r.overflow }
    if overflow {
        // Beyond 128 bits: fall back to Float64, flagged as rounded.
        let seconds = time.seconds * numerator.seconds / denominator.seconds
        var result = CMTimeMakeWithSeconds(seconds, preferredTimescale: numerator.timescale)
        if result.isNumeric { result.flags = CMTimeFlags(rawValue: result.flags.rawValue | 0x2) }
        return result
    }
    if den < 0 { num = -num; den = -den }
    let common = greatestCommonDivisor64(num.magnitude, den.magnitude)
    if common > 1 { num /= Int128(common); den /= Int128(common) }
    // The exact value needs a timescale that is a multiple of `den`: use the least common multiple
    // with the target duration's timescale when it fits, else the largest timescale.
    var timescale = maxTimescaleInt32
    if den <= Int128(maxTimescaleInt32) {
        let lcm = leastCommonMultiple(numerator.timescale, Int32(den))
        if lcm <= Int64(maxTimescaleInt32) { timescale = Int32(lcm) }
    }
    return makeTime(numerator: num, denominator: den, timescale: timescale, halving: true,
                    rounded: rounded, epoch: 0)
}

/// Greatest common divisor of two 128-bit magnitudes (`gcd(0, n) == n`).
private func greatestCommonDivisor64(_ a: UInt128, _ b: UInt128) -> UInt128 {
    var x = a, y = b
    while y != 0 { (x, y) = (y, x % y) }
    return x
}

/// Maps `t` from `fromRange` to `toRange`: the start and end of `fromRange` map to those of
/// `toRange`, other times linearly: `(t - fromRange.start) * (toRange.duration /
/// fromRange.duration) + toRange.start`. An empty or invalid range, or `t` in a different epoch
/// from `fromRange.start`, gives `kCMTimeInvalid`. If both durations are +infinity, `t` is offset
/// by the difference of the starts without scaling.
@discardableResult
public func CMTimeMapTimeFromRangeToRange(_ t: CMTime, fromRange: CMTimeRange, toRange: CMTimeRange) -> CMTime {
    guard fromRange.isValid, toRange.isValid, !fromRange.isEmpty, !toRange.isEmpty, t.isValid,
          t.epoch == fromRange.start.epoch else { return kCMTimeInvalid }
    let offset = CMTimeSubtract(t, fromRange.start)
    if fromRange.duration.isPositiveInfinity && toRange.duration.isPositiveInfinity {
        return CMTimeAdd(offset, toRange.start)
    }
    if CMTimeCompare(fromRange.duration, toRange.duration) == 0 { return CMTimeAdd(offset, toRange.start) }
    return CMTimeAdd(scale(offset, by: toRange.duration, over: fromRange.duration), toRange.start)
}

/// Scales the duration `dur` by `toRange.duration / fromRange.duration`. If both durations are
/// +infinity, `dur` is returned unchanged. A `dur` whose epoch is not 0 (CMTimeRange.h: "If dur
/// does not have the epoch zero, an invalid CMTime will be returned"), an empty or invalid range,
/// or a non-numeric `dur` gives `kCMTimeInvalid`.
@discardableResult
public func CMTimeMapDurationFromRangeToRange(_ dur: CMTime, fromRange: CMTimeRange, toRange: CMTimeRange) -> CMTime {
    guard fromRange.isValid, toRange.isValid, !fromRange.isEmpty, !toRange.isEmpty, dur.isValid,
          dur.epoch == 0 else {
        return kCMTimeInvalid
    }
    if fromRange.duration.isPositiveInfinity && toRange.duration.isPositiveInfinity { return dur }
    if CMTimeCompare(fromRange.duration, toRange.duration) == 0 { return dur }
    return scale(dur, by: toRange.duration, over: fromRange.duration)
}

/// Folds `time` into `foldRange` (for looping): `start + ((time - start) mod duration)`, the
/// remainder taken non-negative. The range must be valid, numeric and non-empty and `time` numeric
/// and in the range start's epoch (or epoch 0); otherwise `kCMTimeInvalid`.
@discardableResult
public func CMTimeFoldIntoRange(_ time: CMTime, foldRange: CMTimeRange) -> CMTime {
    guard foldRange.isValid, !foldRange.isEmpty, foldRange.start.isRational, foldRange.duration.isRational,
          time.isRational else { return kCMTimeInvalid }
    let offset = CMTimeSubtract(time, foldRange.start)
    guard offset.isRational else { return kCMTimeInvalid }
    if CMTimeCompare(offset, kCMTimeZero) >= 0 && CMTimeCompare(offset, foldRange.duration) < 0 { return time }
    // offset and duration over the common denominator offset.ts * duration.ts.
    let duration = foldRange.duration
    let scaledOffset = Int128(offset.value) * Int128(duration.timescale)
    let scaledDuration = Int128(duration.value) * Int128(offset.timescale)
    var remainder = scaledOffset % scaledDuration
    if remainder < 0 { remainder += scaledDuration }
    let denominator = Int128(offset.timescale) * Int128(duration.timescale)
    let lcm = leastCommonMultiple(offset.timescale, duration.timescale)
    let timescale = lcm > Int64(maxTimescaleInt32) ? maxTimescaleInt32 : Int32(lcm)
    let folded = makeTime(numerator: remainder, denominator: denominator, timescale: timescale, halving: true,
                          rounded: offset.flags.rawValue & 0x2 != 0, epoch: 0)
    return CMTimeAdd(foldRange.start, folded)
}

// MARK: - Description and dictionary

extension CMTimeRange {
    /// The `CMTimeRangeCopyDescription` text: `{start, duration}` with each time in
    /// `CMTimeCopyDescription`'s format, e.g. `{{5/1 = 5.000}, {5/1 = 5.000}}`.
    var copyDescription: String { "{\(start.copyDescription), \(duration.copyDescription)}" }
}

/// A description of `range`, e.g. `{{5/1 = 5.000}, {5/1 = 5.000}}`. The allocator is ignored.
@discardableResult
public func CMTimeRangeCopyDescription(allocator: CFAllocator?, range: CMTimeRange) -> CFString? {
    NSString(string: range.copyDescription)
}

/// Prints the description of `range` (as `CMTimeRangeCopyDescription`) and a newline to standard
/// output.
public func CMTimeRangeShow(_ range: CMTimeRange) {
    print(range.copyDescription)
}

/// The dictionary key of a range's start (a CMTime dictionary).
nonisolated(unsafe) public let kCMTimeRangeStartKey: CFString = "start"
/// The dictionary key of a range's duration (a CMTime dictionary).
nonisolated(unsafe) public let kCMTimeRangeDurationKey: CFString = "duration"

/// A dictionary holding `range`'s start and duration as CMTime dictionaries under
/// `kCMTimeRangeStartKey` and `kCMTimeRangeDurationKey`. The allocator is ignored.
@discardableResult
public func CMTimeRangeCopyAsDictionary(_ range: CMTimeRange, allocator: CFAllocator?) -> CFDictionary? {
    guard let start = CMTimeCopyAsDictionary(range.start, allocator: allocator),
          let duration = CMTimeCopyAsDictionary(range.duration, allocator: allocator) else { return nil }
    return NSDictionary(dictionary: [kCMTimeRangeStartKey: start, kCMTimeRangeDurationKey: duration])
}

/// The range a `CMTimeRangeCopyAsDictionary` dictionary describes; `kCMTimeRangeInvalid` if either
/// entry is missing or not a dictionary (a malformed CMTime entry becomes `kCMTimeInvalid`).
@discardableResult
public func CMTimeRangeMakeFromDictionary(_ dictionaryRepresentation: CFDictionary) -> CMTimeRange {
    guard let startDictionary = dictionaryField(dictionaryRepresentation, (kCMTimeRangeStartKey as String)),
          let durationDictionary = dictionaryField(dictionaryRepresentation, (kCMTimeRangeDurationKey as String))
    else { return kCMTimeRangeInvalid }
    return CMTimeRange(start: CMTimeMakeFromDictionary(startDictionary),
                       duration: CMTimeMakeFromDictionary(durationDictionary))
}
