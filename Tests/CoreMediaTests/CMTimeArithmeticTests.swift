import Foundation
import Testing
@testable import CoreMedia

@Suite("CMTime arithmetic")
struct CMTimeArithmeticTests {
    @Test func guideWorkedExample() {
        let time1 = CMTimeMake(value: 200, timescale: 2)
        let time2 = CMTimeMake(value: 400, timescale: 4)
        var time3 = CMTimeMakeWithSeconds(200.0 / 3, preferredTimescale: 3)
        #expect(time3.value == 200 && time3.timescale == 3 && !time3.hasBeenRounded)
        time3 = CMTimeMultiply(time3, multiplier: 3)
        #expect(time3.value == 600 && time3.timescale == 3 && time3.seconds == 200)
        time3 = CMTimeSubtract(time3, time1)
        #expect(time3.value == 600 && time3.timescale == 6 && time3.seconds == 100)
        #expect(CMTimeCopyDescription(allocator: nil, time: time3) == "{600/6 = 100.000}")
        #expect(CMTIME_COMPARE_INLINE(time2, ==, time3))
    }

    @Test func sameTimescaleKeepsTimescale() {
        let sum = CMTimeAdd(CMTimeMake(value: 1, timescale: 600), CMTimeMake(value: 2, timescale: 600))
        #expect(sum.value == 3 && sum.timescale == 600 && sum.flags == .valid)
    }

    @Test func differentTimescalesUseLeastCommonMultiple() {
        let sum = CMTimeAdd(CMTimeMake(value: 1, timescale: 4), CMTimeMake(value: 1, timescale: 6))
        #expect(sum.value == 5 && sum.timescale == 12 && !sum.hasBeenRounded)
        let difference = CMTimeSubtract(CMTimeMake(value: 1, timescale: 24), CMTimeMake(value: 1, timescale: 25))
        #expect(difference.value == 1 && difference.timescale == 600)
    }

    @Test func leastCommonMultipleBeyondMaxTimescaleRounds() {
        // lcm(2^31-1, 2^31-2) > kCMTimeMaxTimescale: the result is at kCMTimeMaxTimescale, rounded.
        let a = CMTimeMake(value: 1, timescale: Int32(kCMTimeMaxTimescale))
        let b = CMTimeMake(value: 1, timescale: Int32(kCMTimeMaxTimescale) - 1)
        let sum = CMTimeAdd(a, b)
        #expect(sum.timescale == Int32(kCMTimeMaxTimescale) && sum.value == 2 && sum.hasBeenRounded)
    }

    @Test func additionOverflowHalvesTimescaleExactly() {
        let max2 = CMTimeMake(value: .max, timescale: 2)
        let sum = CMTimeAdd(max2, max2)   // (2^64 - 2) / 2 seconds = Int64.max / 1
        #expect(sum.value == .max && sum.timescale == 1 && !sum.hasBeenRounded)
        let quarter = CMTimeAdd(CMTimeMake(value: .max, timescale: 4), CMTimeMake(value: 1, timescale: 4))
        #expect(quarter.value == 1 << 62 && quarter.timescale == 2 && !quarter.hasBeenRounded)
    }

    @Test func additionOverflowRoundsAndFlags() {
        let max3 = CMTimeMake(value: .max, timescale: 3)
        let sum = CMTimeAdd(max3, max3)   // (2^64 - 2) / 3 = 6148914691236517204.67 seconds
        #expect(sum.timescale == 1 && sum.value == 6_148_914_691_236_517_205 && sum.hasBeenRounded)
    }

    @Test func overflowAtTimescaleOneGivesInfinityNeverWraps() {
        #expect(CMTimeAdd(CMTimeMake(value: .max, timescale: 1), CMTimeMake(value: 1, timescale: 1)).isPositiveInfinity)
        #expect(CMTimeAdd(CMTimeMake(value: .min, timescale: 1), CMTimeMake(value: -1, timescale: 1)).isNegativeInfinity)
        #expect(CMTimeSubtract(CMTimeMake(value: .min, timescale: 1), CMTimeMake(value: 1, timescale: 1)).isNegativeInfinity)
        #expect(CMTimeSubtract(CMTimeMake(value: .max, timescale: 1), CMTimeMake(value: -1, timescale: 1)).isPositiveInfinity)
        let nearMax = CMTimeMake(value: .max, timescale: Int32(kCMTimeMaxTimescale))
        let doubled = CMTimeAdd(nearMax, nearMax)
        #expect(doubled.isNumeric && doubled.value > 0 && doubled.timescale == Int32(kCMTimeMaxTimescale) / 2)
        #expect(abs(doubled.seconds - 2 * nearMax.seconds) / doubled.seconds < 1e-9)
    }

    @Test(arguments: [
        // (lhs, rhs, expected) with expected kind: "+inf", "-inf", "invalid", "indefinite"
        (kCMTimeInvalid, CMTimeMake(value: 1, timescale: 1), "invalid"),
        (CMTimeMake(value: 1, timescale: 1), kCMTimeInvalid, "invalid"),
        (kCMTimeInvalid, kCMTimePositiveInfinity, "invalid"),
        (kCMTimePositiveInfinity, CMTimeMake(value: 1, timescale: 1), "+inf"),
        (CMTimeMake(value: 1, timescale: 1), kCMTimeNegativeInfinity, "-inf"),
        (kCMTimePositiveInfinity, kCMTimePositiveInfinity, "+inf"),
        (kCMTimeNegativeInfinity, kCMTimeNegativeInfinity, "-inf"),
        (kCMTimePositiveInfinity, kCMTimeNegativeInfinity, "invalid"),
        (kCMTimeNegativeInfinity, kCMTimePositiveInfinity, "invalid"),
        (kCMTimeIndefinite, CMTimeMake(value: 1, timescale: 1), "indefinite"),
        (kCMTimeIndefinite, kCMTimeIndefinite, "indefinite"),
        (kCMTimePositiveInfinity, kCMTimeIndefinite, "+inf"),
        (kCMTimeIndefinite, kCMTimeNegativeInfinity, "-inf"),
    ])
    func addSpecialValues(lhs: CMTime, rhs: CMTime, expected: String) {
        #expect(kind(CMTimeAdd(lhs, rhs)) == expected)
        #expect(kind(lhs + rhs) == expected)
    }

    @Test(arguments: [
        (kCMTimePositiveInfinity, kCMTimePositiveInfinity, "invalid"),
        (kCMTimeNegativeInfinity, kCMTimeNegativeInfinity, "invalid"),
        (kCMTimePositiveInfinity, kCMTimeNegativeInfinity, "+inf"),
        (kCMTimeNegativeInfinity, kCMTimePositiveInfinity, "-inf"),
        (CMTimeMake(value: 1, timescale: 1), kCMTimePositiveInfinity, "-inf"),
        (CMTimeMake(value: 1, timescale: 1), kCMTimeNegativeInfinity, "+inf"),
        (kCMTimePositiveInfinity, CMTimeMake(value: 1, timescale: 1), "+inf"),
        (kCMTimeIndefinite, CMTimeMake(value: 1, timescale: 1), "indefinite"),
        (CMTimeMake(value: 1, timescale: 1), kCMTimeInvalid, "invalid"),
        (kCMTimeInvalid, kCMTimeNegativeInfinity, "invalid"),
    ])
    func subtractSpecialValues(lhs: CMTime, rhs: CMTime, expected: String) {
        #expect(kind(CMTimeSubtract(lhs, rhs)) == expected)
        #expect(kind(lhs - rhs) == expected)
    }

    @Test func epochRules() {
        let e1 = CMTimeMakeWithEpoch(value: 5, timescale: 1, epoch: 1)
        let e2 = CMTimeMakeWithEpoch(value: 3, timescale: 1, epoch: 2)
        #expect(!CMTimeAdd(e1, e2).isValid && !CMTimeSubtract(e1, e2).isValid)
        let a = CMTimeMakeWithEpoch(value: 5, timescale: 1, epoch: 3), b = CMTimeMakeWithEpoch(value: 3, timescale: 1, epoch: 3)
        let difference = CMTimeSubtract(a, b)
        #expect(difference.value == 2 && difference.epoch == 0)
        #expect(CMTimeAdd(a, b).epoch == 0)
        let shifted = CMTimeAdd(a, CMTimeMake(value: 2, timescale: 1))
        #expect(shifted.value == 7 && shifted.epoch == 3)
        #expect(CMTimeSubtract(a, CMTimeMake(value: 2, timescale: 1)).epoch == 3)
    }

    @Test func roundedFlagPropagatesFromOperands() {
        let rounded = CMTimeMakeWithSeconds(1 / 3.0, preferredTimescale: 10)
        let sum = CMTimeAdd(rounded, CMTimeMake(value: 1, timescale: 10))
        #expect(sum.value == 4 && sum.hasBeenRounded)
        #expect(CMTimeSubtract(CMTimeMake(value: 1, timescale: 1), rounded).hasBeenRounded)
        #expect(CMTimeMultiply(rounded, multiplier: 2).hasBeenRounded)
        #expect(CMTimeMultiplyByRatio(rounded, multiplier: 1, divisor: 1).hasBeenRounded)
        #expect(!CMTimeAdd(CMTimeMake(value: 1, timescale: 10), CMTimeMake(value: 1, timescale: 10)).hasBeenRounded)
    }

    @Test func multiplyKeepsTimescaleAndHandlesOverflow() {
        let product = CMTimeMultiply(CMTimeMakeWithEpoch(value: 7, timescale: 600, epoch: 2), multiplier: -3)
        #expect(product.value == -21 && product.timescale == 600 && product.epoch == 2 && !product.hasBeenRounded)
        let halved = CMTimeMultiply(CMTimeMake(value: .max, timescale: 2), multiplier: 2)
        #expect(halved.value == .max && halved.timescale == 1 && !halved.hasBeenRounded)
        #expect(CMTimeMultiply(CMTimeMake(value: .max, timescale: 1), multiplier: 2).isPositiveInfinity)
        #expect(CMTimeMultiply(CMTimeMake(value: .max, timescale: 1), multiplier: -2).isNegativeInfinity)
        let odd = CMTimeMultiply(CMTimeMake(value: .max, timescale: 3), multiplier: 3)
        #expect(odd.timescale == 1 && odd.value == .max && !odd.hasBeenRounded)
    }

    @Test func multiplySpecialValues() {
        #expect(!CMTimeMultiply(kCMTimeInvalid, multiplier: 2).isValid)
        #expect(CMTimeMultiply(kCMTimeIndefinite, multiplier: 2).isIndefinite)
        #expect(CMTimeMultiply(kCMTimePositiveInfinity, multiplier: -2).isNegativeInfinity)
        #expect(CMTimeMultiply(kCMTimeNegativeInfinity, multiplier: -2).isPositiveInfinity)
        #expect(CMTimeMultiply(kCMTimePositiveInfinity, multiplier: 5).isPositiveInfinity)
        #expect(CMTimeMultiplyByFloat64(kCMTimeNegativeInfinity, multiplier: 0.5).isNegativeInfinity)
        #expect(CMTimeMultiplyByRatio(kCMTimePositiveInfinity, multiplier: 1, divisor: -2).isNegativeInfinity)
        #expect(CMTimeMultiplyByFloat64(kCMTimeIndefinite, multiplier: 2).isIndefinite)
        #expect(!CMTimeMultiplyByFloat64(CMTimeMake(value: 1, timescale: 1), multiplier: .nan).isValid)
    }

    @Test func multiplyByFloat64RaisesTimescaleTo65536() {
        let half = CMTimeMultiplyByFloat64(CMTimeMake(value: 600, timescale: 600), multiplier: 0.5)
        #expect(half.value == 38400 && half.timescale == 76800 && !half.hasBeenRounded)
        let third = CMTimeMultiplyByFloat64(CMTimeMake(value: 1, timescale: 1), multiplier: 1 / 3.0)
        #expect(third.timescale == 65536 && third.value == 21845 && third.hasBeenRounded)
        let big = CMTimeMultiplyByFloat64(CMTimeMake(value: 90000, timescale: 90000), multiplier: 2)
        #expect(big.timescale == 90000 && big.value == 180_000)
        #expect(CMTimeMultiplyByFloat64(CMTimeMake(value: .max, timescale: 1), multiplier: 4).isPositiveInfinity)
        let halvedScale = CMTimeMultiplyByFloat64(CMTimeMake(value: 1 << 60, timescale: 1), multiplier: 2)
        #expect(halvedScale.isNumeric && halvedScale.seconds == 0x1p61 && halvedScale.timescale <= 2)
    }

    @Test func multiplyByRatioPreservesExactValue() {
        let tenNinetieths = CMTimeMultiplyByRatio(CMTimeMake(value: 10, timescale: 30), multiplier: 1, divisor: 3)
        #expect(tenNinetieths.value == 10 && tenNinetieths.timescale == 90 && !tenNinetieths.hasBeenRounded)
        let exact = CMTimeMultiplyByRatio(CMTimeMake(value: 9, timescale: 30), multiplier: 1, divisor: 3)
        #expect(exact.value == 3 && exact.timescale == 30)
        let reduced = CMTimeMultiplyByRatio(CMTimeMake(value: 1, timescale: 1), multiplier: 2, divisor: 4)
        #expect(reduced.value == 1 && reduced.timescale == 2)
        let negative = CMTimeMultiplyByRatio(CMTimeMake(value: 3, timescale: 1), multiplier: 2, divisor: -3)
        #expect(negative.value == -2 && negative.timescale == 1)
    }

    @Test func multiplyByRatioOverflowAndZeroDivisor() {
        #expect(CMTimeMultiplyByRatio(CMTimeMake(value: .max, timescale: 1), multiplier: 2, divisor: 1).isPositiveInfinity)
        // CMTime.h: a zero divisor alone gives ±infinity by the signs of the other arguments; a zero
        // divisor with a zero time or a zero multiplier gives invalid.
        #expect(CMTimeMultiplyByRatio(CMTimeMake(value: 1, timescale: 1), multiplier: 1, divisor: 0).isPositiveInfinity)
        #expect(CMTimeMultiplyByRatio(CMTimeMake(value: -1, timescale: 1), multiplier: 1, divisor: 0).isNegativeInfinity)
        #expect(CMTimeMultiplyByRatio(CMTimeMake(value: 1, timescale: 1), multiplier: -2, divisor: 0).isNegativeInfinity)
        #expect(CMTimeMultiplyByRatio(CMTimeMake(value: -1, timescale: 1), multiplier: -2, divisor: 0).isPositiveInfinity)
        #expect(!CMTimeMultiplyByRatio(CMTimeMake(value: 0, timescale: 1), multiplier: 1, divisor: 0).isValid)
        #expect(!CMTimeMultiplyByRatio(CMTimeMake(value: 1, timescale: 1), multiplier: 0, divisor: 0).isValid)
        #expect(!CMTimeMultiplyByRatio(kCMTimePositiveInfinity, multiplier: 0, divisor: 0).isValid)
        #expect(CMTimeMultiplyByRatio(kCMTimePositiveInfinity, multiplier: -1, divisor: 0).isNegativeInfinity)
        #expect(!CMTimeMultiplyByRatio(kCMTimeInvalid, multiplier: 1, divisor: 0).isValid)
        #expect(CMTimeMultiplyByRatio(kCMTimeIndefinite, multiplier: 1, divisor: 0).isIndefinite)
        // 2/(3 * (2^31-1)) needs a timescale above the maximum: rounded at kCMTimeMaxTimescale.
        let t = CMTimeMultiplyByRatio(CMTimeMake(value: 2, timescale: 3), multiplier: 1, divisor: Int32(kCMTimeMaxTimescale))
        #expect(t.value == 1 && t.timescale == Int32(kCMTimeMaxTimescale) && t.hasBeenRounded)
        // Int64.max / 3 is exactly representable at timescale 3.
        let third = CMTimeMultiplyByRatio(CMTimeMake(value: .max, timescale: 1), multiplier: 1, divisor: 3)
        #expect(third.value == .max && third.timescale == 3 && !third.hasBeenRounded)
        // Int64.max / 2 * 3/5 needs value 3 * Int64.max at timescale 10: the largest timescale at
        // which the value fits is 3, with default rounding.
        let big = CMTimeMultiplyByRatio(CMTimeMake(value: .max, timescale: 2), multiplier: 3, divisor: 5)
        #expect(big.value == 8_301_034_833_169_298_226 && big.timescale == 3 && big.hasBeenRounded)
    }

    @Test func absoluteValue() {
        let t = CMTimeAbsoluteValue(CMTimeMakeWithEpoch(value: -5, timescale: 2, epoch: 1))
        #expect(t.value == 5 && t.timescale == 2 && t.epoch == 1)
        #expect(CMTimeAbsoluteValue(kCMTimeNegativeInfinity).isPositiveInfinity)
        #expect(CMTimeAbsoluteValue(kCMTimeIndefinite).isIndefinite)
        #expect(!CMTimeAbsoluteValue(kCMTimeInvalid).isValid)
        let minimum = CMTimeAbsoluteValue(CMTimeMake(value: .min, timescale: 2))
        #expect(minimum.value == 1 << 62 && minimum.timescale == 1 && !minimum.hasBeenRounded)
    }

    @Test("Apple's operators: + and - only")
    func operators() {
        #expect((CMTimeMake(value: 1, timescale: 1) + CMTimeMake(value: 1, timescale: 1)).value == 2)
        #expect((CMTimeMake(value: 3, timescale: 1) - CMTimeMake(value: 1, timescale: 1)).value == 2)
        #expect(same(CMTimeMake(value: 1, timescale: 2) + CMTimeMake(value: 1, timescale: 3), CMTimeMake(value: 5, timescale: 6)))
    }

    @Test("operators an app declares itself on CMTime are not ambiguous with ours")
    func appDeclaredOperators() {
        var t = CMTimeMake(value: 1, timescale: 2)
        #expect(same(t * Int32(3), CMTimeMake(value: 3, timescale: 2)))
        #expect((t * 0.5).seconds == 0.25)
        t += CMTimeMake(value: 1, timescale: 3)
        #expect(t.value == 5 && t.timescale == 6)
        t -= CMTimeMake(value: 1, timescale: 6)
        #expect(t == CMTimeMake(value: 2, timescale: 3))
        t *= Int32(3)
        #expect(t == CMTimeMake(value: 2, timescale: 1))
    }
}

/// The kind of a special result, or "numeric".
func kind(_ time: CMTime) -> String {
    if !time.isValid { return "invalid" }
    if time.isPositiveInfinity { return "+inf" }
    if time.isNegativeInfinity { return "-inf" }
    if time.isIndefinite { return "indefinite" }
    return "numeric"
}

// What many apps' CMTime helper files declare. Apple's overlay has none of these, and neither
// may we: a second candidate would make every use "ambiguous use of operator".
fileprivate func * (time: CMTime, multiplier: Int32) -> CMTime { CMTimeMultiply(time, multiplier: multiplier) }
fileprivate func * (time: CMTime, multiplier: Float64) -> CMTime { CMTimeMultiplyByFloat64(time, multiplier: multiplier) }
fileprivate func += (lhs: inout CMTime, rhs: CMTime) { lhs = lhs + rhs }
fileprivate func -= (lhs: inout CMTime, rhs: CMTime) { lhs = lhs - rhs }
fileprivate func *= (lhs: inout CMTime, rhs: Int32) { lhs = lhs * rhs }
