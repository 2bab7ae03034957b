// Ordering, equality and hashing of CMTime, following CMTimeCompare's documented sort rules:
// -infinity < all finite values < indefinite < +infinity < invalid, and within the finite values
// numerically larger epochs are greater.

extension CMTime {
    /// The sort class of a time, in CMTimeCompare's order.
    enum SortClass: Int, Comparable {
        case negativeInfinity = 0, numeric, indefinite, positiveInfinity, invalid
        static func < (a: SortClass, b: SortClass) -> Bool { a.rawValue < b.rawValue }
    }

    /// The sort class. A time flagged valid but with a non-positive timescale has no rational
    /// value; it sorts (and propagates through arithmetic) as invalid.
    var sortClass: SortClass {
        guard isValid else { return .invalid }
        if flags.rawValue & 0x4 != 0 { return .positiveInfinity }
        if flags.rawValue & 0x8 != 0 { return .negativeInfinity }
        if flags.rawValue & 0x10 != 0 { return .indefinite }
        return timescale > 0 ? .numeric : .invalid
    }

    /// True for a numeric time with a positive timescale: one that has a rational value.
    var isRational: Bool { sortClass == .numeric }
}

/// Compares two times: -1 if `time1 < time2`, 1 if `time1 > time2`, 0 if they are equal.
///
/// Numeric times compare by exact rational value (`1/2 == 2/4`), without rounding and without
/// overflow. Non-numeric times sort `-infinity < all finite values < indefinite < +infinity <
/// invalid`; two invalid times are equal. Numeric times with numerically larger epochs are greater
/// than those with smaller epochs. The `hasBeenRounded` flag plays no part.
@discardableResult
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 {
    let class1 = time1.sortClass, class2 = time2.sortClass
    if class1 != class2 { return class1 < class2 ? -1 : 1 }
    guard class1 == .numeric else { return 0 }
    if time1.epoch != time2.epoch { return time1.epoch < time2.epoch ? -1 : 1 }
    if time1.timescale == time2.timescale {
        return time1.value == time2.value ? 0 : (time1.value < time2.value ? -1 : 1)
    }
    // Cross-multiply at full width: |value| < 2^63 and timescale < 2^31, so products fit in 95 bits.
    let lhs = Int128(time1.value) * Int128(time2.timescale)
    let rhs = Int128(time2.value) * Int128(time1.timescale)
    return lhs == rhs ? 0 : (lhs < rhs ? -1 : 1)
}

/// Compares two times with a Swift comparison operator, as the C macro
/// `CMTIME_COMPARE_INLINE(time1, comparator, time2)`; e.g. `CMTIME_COMPARE_INLINE(a, <=, b)`.
@discardableResult
public func CMTIME_COMPARE_INLINE(_ time1: CMTime, _ comparator: (Int32, Int32) -> Bool, _ time2: CMTime) -> Bool {
    comparator(CMTimeCompare(time1, time2), 0)
}

/// The lesser of two times, as ordered by `CMTimeCompare` (the first when they are equal).
@discardableResult
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime {
    CMTimeCompare(time1, time2) <= 0 ? time1 : time2
}

/// The greater of two times, as ordered by `CMTimeCompare` (the first when they are equal).
/// Because invalid sorts above everything, an invalid operand is returned.
@discardableResult
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime {
    CMTimeCompare(time1, time2) >= 0 ? time1 : time2
}

extension CMTime: Equatable, Comparable {
    /// Whether two times are equal by `CMTimeCompare` (rational value and epoch; flags other than
    /// the special-value flags are ignored).
    public static func == (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) == 0 }
    /// Whether two times differ by `CMTimeCompare`.
    public static func != (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) != 0 }
    /// Whether `time1` sorts before `time2` by `CMTimeCompare`.
    public static func < (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) < 0 }
    /// Whether `time1` sorts before or equal to `time2` by `CMTimeCompare`.
    public static func <= (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) <= 0 }
    /// Whether `time1` sorts after `time2` by `CMTimeCompare`.
    public static func > (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) > 0 }
    /// Whether `time1` sorts after or equal to `time2` by `CMTimeCompare`.
    public static func >= (time1: CMTime, time2: CMTime) -> Bool { CMTimeCompare(time1, time2) >= 0 }
}

extension CMTime: Hashable {
    /// Hashes consistently with `==`: numeric times hash their epoch and their value reduced to
    /// lowest terms (so `1/2` and `2/4` hash alike); special times hash only their kind.
    public func hash(into hasher: inout Hasher) {
        let kind = sortClass
        hasher.combine(kind.rawValue)
        guard kind == .numeric else { return }
        hasher.combine(epoch)
        let divisor = greatestCommonDivisor(value.magnitude, UInt64(timescale))
        hasher.combine(value / Int64(divisor))
        hasher.combine(Int64(timescale) / Int64(divisor))
    }
}

/// Euclid's greatest common divisor; `gcd(0, n) == n`.
func greatestCommonDivisor(_ a: UInt64, _ b: UInt64) -> UInt64 {
    var x = a, y = b
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
