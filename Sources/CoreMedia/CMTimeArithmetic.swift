// Exact CMTime arithmetic. Every intermediate product is computed at full width (Int128), so no
// operation ever wraps; results that do not fit an Int64 value are handled as Apple's CMTime.h
// documents (timescale halving, then ±infinity).

/// A rounding method used when a CMTime value must be converted to another timescale.
public enum CMTimeRoundingMethod: UInt32, Sendable, Hashable {
    /// Round toward zero if |fraction| < 0.5, away from zero if |fraction| >= 0.5.
    case roundHalfAwayFromZero = 1
    /// Round toward zero if the fraction is not 0.
    case roundTowardZero = 2
    /// Round away from zero if |fraction| > 0.
    case roundAwayFromZero = 3
    /// Toward zero when converting to a smaller timescale (less precision), away from zero when
    /// converting to a larger one; a negative time is never rounded to 0 but to `-1/newTimescale`.
    case quickTime = 4
    /// Round toward +infinity if the fraction is not 0.
    case roundTowardPositiveInfinity = 5
    /// Round toward -infinity if the fraction is not 0.
    case roundTowardNegativeInfinity = 6

    /// The default rounding method: `roundHalfAwayFromZero`.
    public static var `default`: CMTimeRoundingMethod { .roundHalfAwayFromZero }
}

// MARK: - Exact rational machinery

/// `numerator / denominator` rounded to an integer by `method` (`.quickTime` must already be
/// resolved by the caller to `.roundTowardZero` or `.roundAwayFromZero`). `denominator` > 0.
/// Returns the quotient and whether rounding happened.
func roundedQuotient(_ numerator: Int128, _ denominator: Int128, _ method: CMTimeRoundingMethod) -> (Int128, Bool) {
    let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
    if remainder == 0 { return (quotient, false) }
    let away: Int128 = numerator < 0 ? -1 : 1
    switch method {
    case .roundHalfAwayFromZero:
        return (remainder.magnitude * 2 >= denominator.magnitude ? quotient + away : quotient, true)
    case .roundTowardZero, .quickTime:
        return (quotient, true)
    case .roundAwayFromZero:
        return (quotient + away, true)
    case .roundTowardPositiveInfinity:
        return (numerator > 0 ? quotient + 1 : quotient, true)
    case .roundTowardNegativeInfinity:
        return (numerator < 0 ? quotient - 1 : quotient, true)
    }
}

/// The CMTime for the exact rational `numerator / denominator` seconds (`denominator` > 0) at
/// `timescale`, rounding by the default method. When the value overflows an Int64 and `halving` is
/// true the timescale is halved until it fits; if it still overflows at timescale 1 (or `halving` is
/// false) the result is ±infinity by the sign of the numerator.
func makeTime(numerator: Int128, denominator: Int128, timescale: Int32, halving: Bool,
              rounded: Bool, epoch: Int64) -> CMTime {
    var scale = timescale
    while scale > 0 {
        let (product, overflow) = numerator.multipliedReportingOverflow(by: Int128(scale))
        if !overflow {
            let (quotient, inexact) = roundedQuotient(product, denominator, .default)
            if let value = Int64(exactly: quotient) {
                var flags: CMTimeFlags = .valid
                if rounded || inexact { flags = CMTimeFlags(rawValue: flags.rawValue | 0x2) }
                return CMTime(value: value, timescale: scale, flags: flags, epoch: epoch)
            }
        }
        guard halving, scale > 1 else { break }
        scale /= 2
    }
    return numerator < 0 ? kCMTimeNegativeInfinity : kCMTimePositiveInfinity
}

/// Least common multiple of two positive timescales, as an Int64 (it may exceed Int32.max).
func leastCommonMultiple(_ a: Int32, _ b: Int32) -> Int64 {
    let gcd = greatestCommonDivisor(UInt64(a), UInt64(b))
    return Int64(a) / Int64(gcd) * Int64(b)
}

/// The sum (`sign` = 1) or difference (`sign` = -1) of two times, with CMTimeAdd's rules.
private func addTimes(_ lhs: CMTime, _ rhs: CMTime, sign: Int) -> CMTime {
    let lClass = lhs.sortClass
    var rClass = rhs.sortClass
    if lClass == .invalid || rClass == .invalid { return kCMTimeInvalid }
    if sign < 0 {
        // Subtracting an infinity adds the opposite infinity.
        if rClass == .positiveInfinity { rClass = .negativeInfinity } else if rClass == .negativeInfinity { rClass = .positiveInfinity }
    }
    let lInfinite = lClass == .positiveInfinity || lClass == .negativeInfinity
    let rInfinite = rClass == .positiveInfinity || rClass == .negativeInfinity
    if lInfinite && rInfinite {
        guard lClass == rClass else { return kCMTimeInvalid }
        return lClass == .positiveInfinity ? kCMTimePositiveInfinity : kCMTimeNegativeInfinity
    }
    if lInfinite { return lClass == .positiveInfinity ? kCMTimePositiveInfinity : kCMTimeNegativeInfinity }
    if rInfinite { return rClass == .positiveInfinity ? kCMTimePositiveInfinity : kCMTimeNegativeInfinity }
    if lClass == .indefinite || rClass == .indefinite { return kCMTimeIndefinite }

    // Both numeric. Times in different nonzero epochs cannot be combined; the same nonzero epoch
    // gives epoch 0 (a duration); epoch 0 (a duration) combines with any epoch.
    if lhs.epoch != 0 && rhs.epoch != 0 && lhs.epoch != rhs.epoch { return kCMTimeInvalid }
    let epoch = lhs.epoch == rhs.epoch ? 0 : (lhs.epoch == 0 ? rhs.epoch : lhs.epoch)
    let rounded = lhs.flags.rawValue & 0x2 != 0 || rhs.flags.rawValue & 0x2 != 0

    if lhs.timescale == rhs.timescale {
        let (value, overflow) = sign > 0 ? lhs.value.addingReportingOverflow(rhs.value)
                                         : lhs.value.subtractingReportingOverflow(rhs.value)
        if !overflow {
            var flags: CMTimeFlags = .valid
            if rounded { flags = CMTimeFlags(rawValue: flags.rawValue | 0x2) }
            return CMTime(value: value, timescale: lhs.timescale, flags: flags, epoch: epoch)
        }
    }
    let lcm = leastCommonMultiple(lhs.timescale, rhs.timescale)
    let lTerm = Int128(lhs.value) * Int128(lcm / Int64(lhs.timescale))
    let rTerm = Int128(rhs.value) * Int128(lcm / Int64(rhs.timescale))
    let numerator = sign > 0 ? lTerm + rTerm : lTerm - rTerm
    let timescale = lcm > Int64(maxTimescaleInt32) ? maxTimescaleInt32 : Int32(lcm)
    return makeTime(numerator: numerator, denominator: Int128(lcm), timescale: timescale,
                    halving: true, rounded: rounded, epoch: epoch)
}

/// The sum of two times.
///
/// The result timescale is the operands' common timescale, or the least common multiple of their
/// timescales; if that exceeds `kCMTimeMaxTimescale` the result uses `kCMTimeMaxTimescale` and the
/// default rounding. If the value overflows, the timescale is halved until it fits; if it still
/// overflows at timescale 1 the result is ±infinity. `hasBeenRounded` is set if any rounding
/// happens or either operand has it. An invalid operand gives invalid; one infinite operand gives
/// that infinity; `+infinity + -infinity` is invalid; otherwise an indefinite operand gives
/// indefinite. Numeric operands in different nonzero epochs give invalid; in the same nonzero
/// epoch the result has epoch 0; an epoch-0 operand takes the other's epoch.
@discardableResult
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { addTimes(lhs, rhs, sign: 1) }

/// The difference `lhs - rhs`, with the same timescale, rounding, overflow and epoch rules as
/// `CMTimeAdd`. `+infinity - +infinity` and `-infinity - -infinity` are invalid;
/// `+infinity - -infinity` is +infinity and `-infinity - +infinity` is -infinity.
@discardableResult
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { addTimes(lhs, rhs, sign: -1) }

/// The infinity `time` becomes when multiplied by a factor of sign `negative`.
private func scaledInfinity(_ time: CMTime, negative: Bool) -> CMTime {
    (time.sortClass == .positiveInfinity) != negative ? kCMTimePositiveInfinity : kCMTimeNegativeInfinity
}

/// The product of a time and an integer.
///
/// The result keeps the operand's timescale and epoch; if the value overflows the timescale is
/// halved (default rounding) until it fits, and at timescale 1 an overflow gives ±infinity.
/// `hasBeenRounded` is set if rounding happens or the operand has it. Invalid gives invalid,
/// indefinite gives indefinite, an infinity gives the infinity of the product's sign (a zero
/// multiplier keeps the sign).
@discardableResult
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime {
    switch time.sortClass {
    case .invalid: return kCMTimeInvalid
    case .indefinite: return kCMTimeIndefinite
    case .positiveInfinity, .negativeInfinity: return scaledInfinity(time, negative: multiplier < 0)
    case .numeric:
        let (value, overflow) = time.value.multipliedReportingOverflow(by: Int64(multiplier))
        if !overflow {
            return CMTime(value: value, timescale: time.timescale,
                          flags: time.flags.intersection(CMTimeFlags(rawValue: 0x3)), epoch: time.epoch)
        }
        return makeTime(numerator: Int128(time.value) * Int128(multiplier), denominator: Int128(time.timescale),
                        timescale: time.timescale, halving: true,
                        rounded: time.flags.rawValue & 0x2 != 0, epoch: time.epoch)
    }
}

/// The product of a time and a floating-point number.
///
/// The result starts at the operand's timescale, doubled until it is at least 65536; on overflow
/// the timescale is halved until the value fits (default rounding), and at timescale 1 an overflow
/// gives ±infinity. `hasBeenRounded` is set if rounding happens or the operand has it. The product
/// is computed in Float64. Special operands behave as in `CMTimeMultiply`; a NaN multiplier, or
/// an infinite multiplier times zero, gives invalid.
@discardableResult
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Float64) -> CMTime {
    if multiplier.isNaN { return kCMTimeInvalid }
    switch time.sortClass {
    case .invalid: return kCMTimeInvalid
    case .indefinite: return kCMTimeIndefinite
    case .positiveInfinity, .negativeInfinity: return scaledInfinity(time, negative: multiplier < 0)
    case .numeric:
        var timescale = time.timescale
        while timescale < 65536 { timescale *= 2 }
        let product = Double(time.value) * multiplier
        if product.isNaN { return kCMTimeInvalid }
        while true {
            let exact = product * Double(timescale) / Double(time.timescale)
            let rounded = exact.rounded(.toNearestOrAwayFromZero)
            if rounded.magnitude < 9_223_372_036_854_775_808.0 {
                var flags: CMTimeFlags = .valid
                if rounded != exact || time.flags.rawValue & 0x2 != 0 { flags = CMTimeFlags(rawValue: flags.rawValue | 0x2) }
                return CMTime(value: Int64(rounded), timescale: timescale, flags: flags, epoch: time.epoch)
            }
            if timescale == 1 { return product < 0 ? kCMTimeNegativeInfinity : kCMTimePositiveInfinity }
            timescale /= 2
        }
    }
}

/// The time multiplied by `multiplier / divisor`, preserving the exact rational value when it can
/// be represented: at the operand's timescale when the division is exact, otherwise at the
/// timescale multiplied by the (reduced) divisor. If that is not possible the largest timescale
/// at which the value fits is chosen, with default rounding, and an overflow at timescale 1 gives
/// ±infinity. `hasBeenRounded` is set if rounding happens or the operand has it.
///
/// As CMTime.h documents: a zero divisor together with a zero time or a zero multiplier gives
/// invalid; a zero divisor alone gives +infinity or -infinity by the signs of the time and the
/// multiplier. An invalid time gives invalid, an indefinite time indefinite, and an infinite time
/// the infinity of the product's sign (a zero multiplier keeps the sign).
@discardableResult
public func CMTimeMultiplyByRatio(_ time: CMTime, multiplier: Int32, divisor: Int32) -> CMTime {
    switch time.sortClass {
    case .invalid: return kCMTimeInvalid
    case .indefinite: return kCMTimeIndefinite
    case .positiveInfinity, .negativeInfinity:
        if divisor == 0 && multiplier == 0 { return kCMTimeInvalid }
        return scaledInfinity(time, negative: (multiplier < 0) != (divisor < 0) && multiplier != 0)
    case .numeric:
        if divisor == 0 {
            if time.value == 0 || multiplier == 0 { return kCMTimeInvalid }
            return (time.value < 0) != (multiplier < 0) ? kCMTimeNegativeInfinity : kCMTimePositiveInfinity
        }
        var num = Int64(multiplier), den = Int64(divisor)
        let gcd = Int64(greatestCommonDivisor(num.magnitude, den.magnitude))
        num /= gcd; den /= gcd
        if den < 0 { num = -num; den = -den }
        let rounded = time.flags.rawValue & 0x2 != 0
        let numerator = Int128(time.value) * Int128(num)
        let flags: CMTimeFlags = rounded ? CMTimeFlags(rawValue: 0x3) : .valid
        if numerator % Int128(den) == 0, let value = Int64(exactly: numerator / Int128(den)) {
            return CMTime(value: value, timescale: time.timescale, flags: flags, epoch: time.epoch)
        }
        let denominator = Int128(time.timescale) * Int128(den)
        if denominator <= Int128(maxTimescaleInt32), let value = Int64(exactly: numerator) {
            return CMTime(value: value, timescale: Int32(denominator), flags: flags, epoch: time.epoch)
        }
        // Not exactly representable: the largest timescale whose value still fits an Int64.
        var timescale = denominator > Int128(maxTimescaleInt32) ? maxTimescaleInt32 : Int32(denominator)
        if numerator != 0 {
            let limit = Int128(Int64.max) * denominator / Int128(numerator.magnitude)
            if limit < Int128(timescale) { timescale = Int32(max(limit, 1)) }
        }
        return makeTime(numerator: numerator, denominator: denominator, timescale: timescale,
                        halving: true, rounded: rounded, epoch: time.epoch)
    }
}

/// The time converted to `newTimescale`, rounded by `method`; `hasBeenRounded` is set when the
/// value had to be rounded (and kept when the source has it). Non-numeric times are returned
/// unchanged; a non-positive `newTimescale` gives invalid; a value that cannot be represented at
/// `newTimescale` gives ±infinity.
@discardableResult
public func CMTimeConvertScale(_ time: CMTime, timescale newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    guard time.isRational else { return time.isNumeric ? kCMTimeInvalid : time }
    guard newTimescale > 0 else { return kCMTimeInvalid }
    if newTimescale == time.timescale { return time }
    var resolved = method
    if method == .quickTime { resolved = newTimescale < time.timescale ? .roundTowardZero : .roundAwayFromZero }
    let numerator = Int128(time.value) * Int128(newTimescale)
    var (quotient, inexact) = roundedQuotient(numerator, Int128(time.timescale), resolved)
    if method == .quickTime && quotient == 0 && time.value < 0 { quotient = -1 }
    guard let value = Int64(exactly: quotient) else {
        return time.value < 0 ? kCMTimeNegativeInfinity : kCMTimePositiveInfinity
    }
    var flags: CMTimeFlags = .valid
    if inexact || time.flags.rawValue & 0x2 != 0 { flags = CMTimeFlags(rawValue: flags.rawValue | 0x2) }
    return CMTime(value: value, timescale: newTimescale, flags: flags, epoch: time.epoch)
}

/// The absolute value of a time: numeric times with their sign inverted if negative (halving the
/// timescale if `-value` does not fit), -infinity becomes +infinity, other times are unchanged.
@discardableResult
public func CMTimeAbsoluteValue(_ time: CMTime) -> CMTime {
    switch time.sortClass {
    case .negativeInfinity: return kCMTimePositiveInfinity
    case .numeric where time.value < 0: return CMTimeMultiply(time, multiplier: -1)
    default: return time
    }
}

// MARK: - Operators

// Apple's CMTime overlay declares `+`, `-` and the comparisons, nothing more: apps that declare
// their own `+=`, `-=`, `*` or `*=` on CMTime (many do) must not meet a second candidate here.

extension CMTime {
    /// The sum of two times (`CMTimeAdd`).
    public static func + (addend1: CMTime, addend2: CMTime) -> CMTime { CMTimeAdd(addend1, addend2) }
    /// The difference of two times (`CMTimeSubtract`).
    public static func - (minuend: CMTime, subtrahend: CMTime) -> CMTime { CMTimeSubtract(minuend, subtrahend) }
}
