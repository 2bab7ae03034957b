import Foundation
import Testing
@testable import CoreMedia

/// Field-by-field identity (== on CMTime is CMTimeCompare, which ignores flags and timescale).
func same(_ a: CMTime, _ b: CMTime) -> Bool {
    a.value == b.value && a.timescale == b.timescale && a.flags == b.flags && a.epoch == b.epoch
}

@Suite("CMTime creation and inspection")
struct CMTimeCreationTests {
    @Test func makeSetsFieldsAndValidFlag() {
        let t = CMTimeMake(value: 1800, timescale: 600)
        #expect(t.value == 1800 && t.timescale == 600 && t.epoch == 0 && t.flags == .valid)
        #expect(t.isValid && t.isNumeric && !t.hasBeenRounded)
        #expect(t.seconds == 3.0)
        #expect(same(CMTime(value: 1800, timescale: 600), t))
    }

    @Test func makeWithEpochKeepsEpoch() {
        let t = CMTimeMakeWithEpoch(value: 7, timescale: 2, epoch: 3)
        #expect(t.epoch == 3 && t.value == 7 && t.timescale == 2 && t.isNumeric)
    }

    @Test func definedConstants() {
        #expect(same(CMTime.invalid, CMTime()))
        #expect(CMTime.invalid.flags.isEmpty && CMTime.invalid.value == 0 && CMTime.invalid.timescale == 0)
        #expect(!kCMTimeInvalid.isValid && CMTIME_IS_INVALID(kCMTimeInvalid))
        #expect(kCMTimeIndefinite.isIndefinite && !kCMTimeIndefinite.isNumeric && CMTIME_IS_INDEFINITE(.indefinite))
        #expect(kCMTimePositiveInfinity.isPositiveInfinity && CMTIME_IS_POSITIVEINFINITY(.positiveInfinity))
        #expect(kCMTimeNegativeInfinity.isNegativeInfinity && CMTIME_IS_NEGATIVE_INFINITY(.negativeInfinity))
        #expect(CMTime.zero.isNumeric && CMTime.zero.value == 0 && CMTime.zero.timescale == 1)
        #expect(CMTIME_IS_NUMERIC(kCMTimeZero) && CMTIME_IS_VALID(kCMTimeZero))
        #expect(kCMTimeMaxTimescale == 0x7fff_ffff)
        #expect(CMTimeRoundingMethod.default == .roundHalfAwayFromZero)
    }

    @Test func handBuiltTimeWithoutFlagsIsInvalid() {
        let t = CMTime(value: 600, timescale: 600, flags: [], epoch: 0)
        #expect(!t.isValid && !t.isNumeric && !t.isIndefinite && !t.isPositiveInfinity)
        #expect(t.seconds.isNaN)
        #expect(t == kCMTimeInvalid)   // every invalid time compares equal to every other
        #expect(CMTimeCompare(t, CMTimeMake(value: 1, timescale: 1)) == 1)
    }

    @Test func roundedFlagOnlyCountsForNumericTimes() {
        let rounded = CMTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 0)
        #expect(rounded.hasBeenRounded && CMTIME_HAS_BEEN_ROUNDED(rounded))
        let roundedInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity, .hasBeenRounded], epoch: 0)
        #expect(!roundedInfinity.hasBeenRounded && roundedInfinity.isPositiveInfinity)
    }

    @Test func getSecondsOfSpecialValues() {
        #expect(CMTimeGetSeconds(kCMTimePositiveInfinity) == .infinity)
        #expect(CMTimeGetSeconds(kCMTimeNegativeInfinity) == -.infinity)
        #expect(CMTimeGetSeconds(kCMTimeInvalid).isNaN)
        #expect(CMTimeGetSeconds(kCMTimeIndefinite).isNaN)
        #expect(CMTimeGetSeconds(CMTimeMake(value: -3, timescale: 4)) == -0.75)
    }

    @Test func makeWithSecondsExactTenthAt600IsNotRounded() {
        let t = CMTimeMakeWithSeconds(0.1, preferredTimescale: 600)
        #expect(t.value == 60 && t.timescale == 600 && !t.hasBeenRounded)
    }

    @Test func makeWithSecondsThirdAt10IsRounded() {
        let t = CMTimeMakeWithSeconds(1 / 3.0, preferredTimescale: 10)
        #expect(t.value == 3 && t.timescale == 10 && t.hasBeenRounded)
        let viaInit = CMTime(seconds: 1 / 3.0, preferredTimescale: 10)
        #expect(same(viaInit, t))
    }

    @Test func makeWithSecondsRoundsHalfAwayFromZero() {
        #expect(CMTimeMakeWithSeconds(0.25, preferredTimescale: 10).value == 3)   // 2.5 -> 3
        #expect(CMTimeMakeWithSeconds(-0.25, preferredTimescale: 10).value == -3) // -2.5 -> -3
        #expect(CMTimeMakeWithSeconds(0.24, preferredTimescale: 10).value == 2)
    }

    @Test func makeWithSecondsSpecialInputs() {
        #expect(!CMTimeMakeWithSeconds(1, preferredTimescale: 0).isValid)
        #expect(!CMTimeMakeWithSeconds(1, preferredTimescale: -600).isValid)
        #expect(!CMTimeMakeWithSeconds(.nan, preferredTimescale: 600).isValid)
        #expect(CMTimeMakeWithSeconds(.infinity, preferredTimescale: 600).isPositiveInfinity)
        #expect(CMTimeMakeWithSeconds(-.infinity, preferredTimescale: 600).isNegativeInfinity)
    }

    @Test func makeWithSecondsHalvesTimescaleOnOverflow() {
        // 1e18 s at 600 overflows Int64; 600 -> 300 -> 150 -> 75 -> 37 -> 18 -> 9 fits exactly.
        let t = CMTimeMakeWithSeconds(1e18, preferredTimescale: 600)
        #expect(t.timescale == 9 && t.value == 9_000_000_000_000_000_000 && !t.hasBeenRounded)
        #expect(CMTimeMakeWithSeconds(1e300, preferredTimescale: 600).isPositiveInfinity)
        #expect(CMTimeMakeWithSeconds(-1e300, preferredTimescale: 600).isNegativeInfinity)
    }
}

@Suite("CMTimeConvertScale and rounding methods")
struct CMTimeRoundingTests {
    static let half = CMTimeMake(value: 5, timescale: 10)       // +0.5
    static let minusHalf = CMTimeMake(value: -5, timescale: 10) // -0.5

    @Test(arguments: [
        (CMTimeRoundingMethod.roundHalfAwayFromZero, Int64(1), Int64(-1)),
        (.roundTowardZero, 0, 0),
        (.roundAwayFromZero, 1, -1),
        (.quickTime, 0, -1),   // toward zero to a smaller scale, but never a negative time to 0
        (.roundTowardPositiveInfinity, 1, 0),
        (.roundTowardNegativeInfinity, 0, -1),
    ])
    func halfwayValues(method: CMTimeRoundingMethod, positive: Int64, negative: Int64) {
        let up = CMTimeConvertScale(Self.half, timescale: 1, method: method)
        let down = CMTimeConvertScale(Self.minusHalf, timescale: 1, method: method)
        #expect(up.value == positive && up.timescale == 1 && up.hasBeenRounded)
        #expect(down.value == negative && down.timescale == 1 && down.hasBeenRounded)
    }

    @Test(arguments: [
        (CMTimeRoundingMethod.roundHalfAwayFromZero, Int64(0), Int64(1)),
        (.roundTowardZero, 0, 0),
        (.roundAwayFromZero, 1, 1),
        (.roundTowardPositiveInfinity, 1, 1),
        (.roundTowardNegativeInfinity, 0, 0),
    ])
    func nonHalfwayValues(method: CMTimeRoundingMethod, threeTenths: Int64, sevenTenths: Int64) {
        #expect(CMTimeConvertScale(CMTimeMake(value: 3, timescale: 10), timescale: 1, method: method).value == threeTenths)
        #expect(CMTimeConvertScale(CMTimeMake(value: 7, timescale: 10), timescale: 1, method: method).value == sevenTenths)
    }

    @Test func quickTimeRoundsAwayFromZeroToALargerScale() {
        // 1/3 -> tenths: 3.33 rounds away from zero (to 4) when gaining precision.
        let t = CMTimeConvertScale(CMTimeMake(value: 1, timescale: 3), timescale: 10, method: .quickTime)
        #expect(t.value == 4 && t.timescale == 10 && t.hasBeenRounded)
        let n = CMTimeConvertScale(CMTimeMake(value: -1, timescale: 3), timescale: 10, method: .quickTime)
        #expect(n.value == -4)
        // A small negative time to a coarse scale becomes -1/newTimescale, not 0.
        let small = CMTimeConvertScale(CMTimeMake(value: -1, timescale: 1000), timescale: 1, method: .quickTime)
        #expect(small.value == -1 && small.timescale == 1)
    }

    @Test func exactConversionIsNotRounded() {
        let t = CMTimeMake(value: 1, timescale: 2).convertScale(600, method: .default)
        #expect(t.value == 300 && t.timescale == 600 && !t.hasBeenRounded && t.flags == .valid)
        let epoch = CMTimeConvertScale(CMTimeMakeWithEpoch(value: 3, timescale: 1, epoch: 4), timescale: 90000, method: .default)
        #expect(epoch.value == 270_000 && epoch.epoch == 4)
    }

    @Test func convertKeepsNonNumericAndRejectsBadTimescale() {
        #expect(CMTimeConvertScale(kCMTimePositiveInfinity, timescale: 600, method: .default).isPositiveInfinity)
        #expect(CMTimeConvertScale(kCMTimeIndefinite, timescale: 600, method: .default).isIndefinite)
        #expect(!CMTimeConvertScale(kCMTimeInvalid, timescale: 600, method: .default).isValid)
        #expect(!CMTimeConvertScale(CMTimeMake(value: 1, timescale: 1), timescale: 0, method: .default).isValid)
    }

    @Test func convertOverflowGivesInfinityNotWrap() {
        let big = CMTimeMake(value: .max / 2, timescale: 1)
        #expect(CMTimeConvertScale(big, timescale: 600, method: .default).isPositiveInfinity)
        let small = CMTimeMake(value: .min / 2, timescale: 1)
        #expect(CMTimeConvertScale(small, timescale: 600, method: .default).isNegativeInfinity)
    }

    @Test func convertKeepsRoundedFlagOfSource() {
        let rounded = CMTimeMakeWithSeconds(1 / 3.0, preferredTimescale: 10)
        #expect(CMTimeConvertScale(rounded, timescale: 20, method: .default).hasBeenRounded)
    }
}

@Suite("CMTime comparison, equality and hashing")
struct CMTimeCompareTests {
    @Test func guideExampleEqualTimesAcrossTimescales() {
        let time1 = CMTimeMake(value: 200, timescale: 2)
        let time2 = CMTimeMake(value: 400, timescale: 4)
        #expect(CMTimeCompare(time1, time2) == 0)
        #expect(time1 == time2)
        #expect(CMTIME_COMPARE_INLINE(time1, ==, time2))
        #expect(CMTIME_COMPARE_INLINE(time1, <=, time2) && !CMTIME_COMPARE_INLINE(time1, <, time2))
    }

    @Test func orderOfSpecialValues() {
        let five = CMTimeMake(value: 5, timescale: 1)
        let shuffled = [kCMTimeInvalid, kCMTimePositiveInfinity, kCMTimeIndefinite, five, kCMTimeNegativeInfinity]
        let sorted = shuffled.sorted()
        #expect(sorted[0].isNegativeInfinity)
        #expect(same(sorted[1], five))
        #expect(sorted[2].isIndefinite)
        #expect(sorted[3].isPositiveInfinity)
        #expect(!sorted[4].isValid)
        #expect(CMTimeCompare(kCMTimeNegativeInfinity, CMTimeMake(value: .min, timescale: 1)) == -1)
        #expect(CMTimeCompare(CMTimeMake(value: .max, timescale: 1), kCMTimeIndefinite) == -1)
        #expect(CMTimeCompare(kCMTimeIndefinite, kCMTimePositiveInfinity) == -1)
        #expect(CMTimeCompare(kCMTimePositiveInfinity, kCMTimeInvalid) == -1)
    }

    @Test func specialValuesEqualThemselves() {
        #expect(CMTimeCompare(kCMTimeInvalid, kCMTimeInvalid) == 0)
        #expect(CMTimeCompare(kCMTimePositiveInfinity, kCMTimePositiveInfinity) == 0)
        #expect(CMTimeCompare(kCMTimeNegativeInfinity, kCMTimeNegativeInfinity) == 0)
        #expect(CMTimeCompare(kCMTimeIndefinite, kCMTimeIndefinite) == 0)
        #expect(CMTimeCompare(kCMTimePositiveInfinity, kCMTimeNegativeInfinity) == 1)
    }

    @Test func exactComparisonWhereDoublesAgree() {
        // 2^62 - 1 versus (2^63 - 3) / 2 = 2^62 - 1.5: equal as Doubles, different rationals.
        let a = CMTimeMake(value: 4_611_686_018_427_387_903, timescale: 1)
        let b = CMTimeMake(value: 9_223_372_036_854_775_805, timescale: 2)
        #expect(a.seconds == b.seconds)
        #expect(CMTimeCompare(a, b) == 1 && CMTimeCompare(b, a) == -1)
        #expect(a > b && b < a && a != b)
        let c = CMTimeMake(value: .max, timescale: 1), d = CMTimeMake(value: .max - 1, timescale: 1)
        #expect(c.seconds == d.seconds && c > d)
    }

    @Test func exactEqualityOfLargeRationals() {
        let a = CMTimeMake(value: 4_611_686_018_427_387_903, timescale: 1)
        let b = CMTimeMake(value: 9_223_372_036_854_775_806, timescale: 2)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        let e = CMTimeMake(value: .max, timescale: kCMTimeMaxTimescale)
        let f = CMTimeMake(value: .max - 1, timescale: kCMTimeMaxTimescale - 1)
        #expect(CMTimeCompare(e, f) == -1)   // (2^63-1)/(2^31-1) < (2^63-2)/(2^31-2)
    }

    @Test func epochsCompareBeforeValues() {
        let late = CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 1)
        let early = CMTimeMakeWithEpoch(value: 100, timescale: 1, epoch: 0)
        #expect(CMTimeCompare(early, late) == -1 && early < late)
        #expect(CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 2) != CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 3))
        #expect(CMTimeCompare(CMTimeMakeWithEpoch(value: 5, timescale: 1, epoch: -1), CMTimeMake(value: -5, timescale: 1)) == -1)
    }

    @Test func roundedFlagDoesNotAffectEquality() {
        let plain = CMTimeMake(value: 3, timescale: 10)
        let rounded = CMTimeMakeWithSeconds(1 / 3.0, preferredTimescale: 10)
        #expect(rounded.hasBeenRounded && plain == rounded)
        #expect(plain.hashValue == rounded.hashValue)
    }

    @Test func hashableConsistentWithEquality() {
        let set: Set<CMTime> = [CMTimeMake(value: 1, timescale: 2), CMTimeMake(value: 2, timescale: 4),
                                CMTimeMake(value: 300, timescale: 600), CMTimeMake(value: -1, timescale: 2)]
        #expect(set.count == 2)
        let invalids: Set<CMTime> = [kCMTimeInvalid, CMTime(value: 9, timescale: 9, flags: [], epoch: 9)]
        #expect(invalids.count == 1)
        #expect(CMTimeMake(value: 0, timescale: 1).hashValue == CMTimeMake(value: 0, timescale: 90000).hashValue)
        let epochs: Set<CMTime> = [CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 0), CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 1)]
        #expect(epochs.count == 2)
    }

    @Test func minimumMaximumFollowCompare() {
        let half = CMTimeMake(value: 1, timescale: 2), one = CMTimeMake(value: 1, timescale: 1)
        #expect(same(CMTimeMinimum(one, half), half) && same(CMTimeMaximum(half, one), one))
        #expect(CMTimeMinimum(kCMTimeNegativeInfinity, kCMTimeZero).isNegativeInfinity)
        #expect(!CMTimeMaximum(kCMTimeInvalid, one).isValid)   // invalid sorts above everything
        #expect(same(CMTimeMinimum(kCMTimeInvalid, one), one))
    }
}

@Suite("CMTime descriptions", .serialized)
struct CMTimeDescriptionTests {
    @Test func bookCMTimeShowFormat() {
        #expect(CMTimeCopyDescription(allocator: kCFAllocatorDefault, time: CMTimeMake(value: 1800, timescale: 600)) == "{1800/600 = 3.000}")
        #expect(CMTimeMake(value: 1, timescale: 3).description == "{1/3 = 0.333}")
        #expect(CMTimeMake(value: -3, timescale: 2).description == "{-3/2 = -1.500}")
    }

    @Test func specialValueDescriptions() {
        #expect(kCMTimeInvalid.description == "{INVALID}")
        #expect(kCMTimePositiveInfinity.description == "{+INFINITY}")
        #expect(kCMTimeNegativeInfinity.description == "{-INFINITY}")
        #expect(kCMTimeIndefinite.description == "{INDEFINITE}")
        #expect("\(kCMTimeIndefinite)" == "{INDEFINITE}" && kCMTimeZero.debugDescription == "{0/1 = 0.000}")
    }

    @Test func roundedAndEpochDescriptions() {
        #expect(CMTimeMakeWithSeconds(1 / 3.0, preferredTimescale: 10).description == "{3/10 = 0.300, rounded}")
        #expect(CMTimeMakeWithEpoch(value: 5, timescale: 1, epoch: 2).description == "{5/1 = 5.000, epoch = 2}")
    }

    @Test func showWritesDescriptionLineToStandardOutput() throws {
        let output = try captureStandardOutput {
            CMTimeShow(CMTimeMake(value: 1800, timescale: 600))
            CMTimeShow(kCMTimeInvalid)
        }
        #expect(output.contains("{1800/600 = 3.000}\n{INVALID}\n"))
    }
}

/// Runs `body` with file descriptor 1 redirected to a pipe and returns what was written.
func captureStandardOutput(_ body: () -> Void) throws -> String {
    fflush(nil)
    let pipe = Pipe()
    let saved = dup(1)
    dup2(pipe.fileHandleForWriting.fileDescriptor, 1)
    body()
    fflush(nil)
    dup2(saved, 1)
    close(saved)
    try pipe.fileHandleForWriting.close()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    return String(decoding: data, as: UTF8.self)
}

@Suite("CMTime dictionaries and Codable")
struct CMTimeRepresentationTests {
    static let samples: [CMTime] = [
        kCMTimeZero, kCMTimeInvalid, kCMTimeIndefinite, kCMTimePositiveInfinity, kCMTimeNegativeInfinity,
        CMTimeMake(value: 1800, timescale: 600),
        CMTime(value: 3, timescale: 10, flags: [.valid, .hasBeenRounded], epoch: 7),
        CMTimeMakeWithEpoch(value: .min, timescale: kCMTimeMaxTimescale, epoch: .max),
        CMTime(value: 42, timescale: -3, flags: [], epoch: -1),
    ]

    @Test(arguments: samples)
    func dictionaryRoundTripIsExact(time: CMTime) throws {
        let dictionary = try #require(CMTimeCopyAsDictionary(time, allocator: kCFAllocatorDefault))
        #expect(same(CMTimeMakeFromDictionary(dictionary), time))
    }

    @Test func dictionaryUsesDocumentedKeys() throws {
        let dictionary = try #require(CMTimeCopyAsDictionary(CMTimeMakeWithEpoch(value: 1800, timescale: 600, epoch: 2), allocator: nil))
        #expect(kCMTimeValueKey == "value" && kCMTimeScaleKey == "timescale" && kCMTimeEpochKey == "epoch" && kCMTimeFlagsKey == "flags")
        #expect((dictionary.object(forKey: "value") as? NSNumber)?.int64Value == 1800)
        #expect((dictionary.object(forKey: "timescale") as? NSNumber)?.int32Value == 600)
        #expect((dictionary.object(forKey: "epoch") as? NSNumber)?.int64Value == 2)
        #expect((dictionary.object(forKey: "flags") as? NSNumber)?.uint32Value == 1)
    }

    @Test func malformedDictionaryGivesInvalid() {
        #expect(!CMTimeMakeFromDictionary(nil).isValid)
        #expect(!CMTimeMakeFromDictionary(NSDictionary()).isValid)
        let missingFlags = NSDictionary(dictionary: ["value": NSNumber(value: 1), "timescale": NSNumber(value: 1)])
        #expect(!CMTimeMakeFromDictionary(missingFlags).isValid)
        let textValue = NSDictionary(dictionary: ["value": "1", "timescale": NSNumber(value: 1), "flags": NSNumber(value: 1)])
        #expect(!CMTimeMakeFromDictionary(textValue).isValid)
        let hugeScale = NSDictionary(dictionary: ["value": NSNumber(value: 1), "timescale": NSNumber(value: Int64(1) << 40), "flags": NSNumber(value: 1)])
        #expect(!CMTimeMakeFromDictionary(hugeScale).isValid)
        let fraction = NSDictionary(dictionary: ["value": NSNumber(value: 1.5), "timescale": NSNumber(value: 1), "flags": NSNumber(value: 1)])
        #expect(!CMTimeMakeFromDictionary(fraction).isValid)
    }

    @Test func dictionaryWithoutEpochMeansEpochZero() {
        let d = NSDictionary(dictionary: ["value": NSNumber(value: 5), "timescale": NSNumber(value: 2), "flags": NSNumber(value: 1)])
        let t = CMTimeMakeFromDictionary(d)
        #expect(t.value == 5 && t.timescale == 2 && t.epoch == 0 && t.isNumeric)
    }

    @Test func codableRoundTripIsExact() throws {
        let data = try JSONEncoder().encode(Self.samples)
        let decoded = try JSONDecoder().decode([CMTime].self, from: data)
        #expect(decoded.count == Self.samples.count)
        for (a, b) in zip(decoded, Self.samples) { #expect(same(a, b)) }
        let json = try #require(String(data: try JSONEncoder().encode(CMTimeMake(value: 1, timescale: 2)), encoding: .utf8))
        #expect(json.contains("\"timescale\":2") && json.contains("\"flags\":1"))
    }
}
