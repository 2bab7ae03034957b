import Foundation
import Testing
@testable import CoreMedia

private func seconds(_ s: Int64) -> CMTime { CMTimeMake(value: s, timescale: 1) }
private func range(_ start: Int64, _ duration: Int64) -> CMTimeRange {
    CMTimeRangeMake(start: seconds(start), duration: seconds(duration))
}

@Suite("CMTimeRange")
struct CMTimeRangeTests {
    @Test func atT3ContainsIsEndExclusive() {
        let r = CMTimeRangeMake(start: CMTimeMakeWithSeconds(1.0, preferredTimescale: 600),
                                duration: CMTimeMakeWithSeconds(3.0, preferredTimescale: 600))
        #expect(r.containsTime(CMTimeMakeWithSeconds(1.0, preferredTimescale: 600)))
        #expect(r.containsTime(CMTimeMake(value: 3999, timescale: 1000)))
        #expect(!r.containsTime(CMTimeMake(value: 4, timescale: 1)))
        #expect(!CMTimeRangeContainsTime(r, time: CMTimeRangeGetEnd(r)))
        #expect(!r.containsTime(CMTimeMake(value: 999, timescale: 1000)))
        #expect(!r.containsTime(kCMTimeInvalid))
    }

    @Test func atT3UnionWithAdjacentRange() {
        let r = CMTimeRangeMake(start: seconds(1), duration: seconds(3))
        let u = r.union(CMTimeRangeMake(start: seconds(4), duration: seconds(1)))
        #expect(u.start == seconds(1) && u.duration == seconds(4) && u.end == seconds(5))
        #expect(CMTimeRangeEqual(u, CMTimeRange(start: seconds(1), end: seconds(5))))
    }

    @Test func bookRangeShowFormat() throws {
        let r = CMTimeRangeMake(start: CMTimeMake(value: 5, timescale: 1), duration: CMTimeMake(value: 5, timescale: 1))
        #expect(CMTimeRangeCopyDescription(allocator: nil, range: r) == "{{5/1 = 5.000}, {5/1 = 5.000}}")
        #expect(kCMTimeRangeInvalid.description == "{{INVALID}, {INVALID}}")
        let output = try captureStandardOutput { CMTimeRangeShow(r) }
        #expect(output.contains("{{5/1 = 5.000}, {5/1 = 5.000}}\n"))
    }

    @Test func constantsAndValidity() {
        #expect(CMTimeRange.zero.isValid && CMTimeRange.zero.isEmpty && CMTIMERANGE_IS_EMPTY(kCMTimeRangeZero))
        #expect(!CMTimeRange.invalid.isValid && CMTIMERANGE_IS_INVALID(kCMTimeRangeInvalid))
        #expect(!CMTimeRange().isValid)
        #expect(range(0, 5).isValid && CMTIMERANGE_IS_VALID(range(0, 5)) && !range(0, 5).isEmpty)
        let negative = CMTimeRange(start: seconds(0), duration: seconds(-1))
        #expect(!negative.isValid && !negative.containsTime(seconds(0)))
        let epochDuration = CMTimeRange(start: seconds(0), duration: CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 1))
        #expect(!epochDuration.isValid)
        #expect(!CMTimeRangeMake(start: seconds(0), duration: CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 1)).isValid)
        #expect(!CMTimeRange(start: kCMTimeInvalid, duration: seconds(1)).isValid)
        #expect(CMTimeRange(start: seconds(3), duration: CMTimeMake(value: 0, timescale: 600)).isEmpty)
    }

    @Test func indefiniteRanges() {
        let r = CMTimeRange(start: seconds(0), duration: kCMTimeIndefinite)
        #expect(r.isValid && r.isIndefinite && CMTIMERANGE_IS_INDEFINITE(r))
        #expect(CMTimeRange(start: kCMTimeIndefinite, duration: seconds(1)).isIndefinite)
        #expect(!range(0, 1).isIndefinite)
        #expect(!kCMTimeRangeInvalid.isIndefinite)
    }

    @Test func fromTimeToTimeAndEnd() {
        let r = CMTimeRangeFromTimeToTime(start: CMTimeMake(value: 1, timescale: 2), end: CMTimeMake(value: 7, timescale: 4))
        #expect(r.duration.value == 5 && r.duration.timescale == 4)
        #expect(r.end == CMTimeMake(value: 7, timescale: 4))
        let epoch = CMTimeRange(start: CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 2),
                                end: CMTimeMakeWithEpoch(value: 4, timescale: 1, epoch: 2))
        #expect(epoch.isValid && epoch.duration.epoch == 0 && epoch.duration == seconds(3))
        #expect(epoch.end.epoch == 2 && epoch.end.value == 4)
        #expect(!kCMTimeRangeInvalid.end.isValid)
        #expect(CMTimeRange(start: seconds(0), duration: kCMTimePositiveInfinity).end.isPositiveInfinity)
    }

    @Test func containsTimeRange() {
        let outer = range(0, 10)
        #expect(outer.containsTimeRange(range(2, 3)))
        #expect(outer.containsTimeRange(outer))
        #expect(!outer.containsTimeRange(range(8, 3)))
        #expect(!outer.containsTimeRange(range(-1, 2)))
        #expect(!CMTimeRangeContainsTimeRange(outer, otherRange: kCMTimeRangeInvalid))
        #expect(CMTimeRange(start: seconds(0), duration: kCMTimePositiveInfinity).containsTimeRange(range(100, 1000)))
    }

    @Test func intersection() {
        let i = range(0, 10).intersection(range(5, 10))
        #expect(i.start == seconds(5) && i.duration == seconds(5))
        let inner = CMTimeRangeGetIntersection(range(0, 10), otherRange: range(2, 3))
        #expect(inner == range(2, 3))
        let apart = range(0, 1).intersection(range(5, 1))
        #expect(apart.isEmpty)
        let touching = range(0, 5).intersection(range(5, 5))
        #expect(touching.isEmpty)
        #expect(!range(0, 1).intersection(kCMTimeRangeInvalid).isValid)
    }

    @Test func union() {
        let u = CMTimeRangeGetUnion(range(0, 2), otherRange: range(5, 1))
        #expect(u == range(0, 6))
        let mixed = CMTimeRange(start: CMTimeMake(value: 1, timescale: 3), duration: CMTimeMake(value: 1, timescale: 3))
            .union(CMTimeRange(start: CMTimeMake(value: 1, timescale: 2), duration: CMTimeMake(value: 1, timescale: 2)))
        #expect(mixed.start == CMTimeMake(value: 1, timescale: 3) && mixed.end == seconds(1))
        #expect(mixed.duration == CMTimeMake(value: 2, timescale: 3) && !mixed.duration.hasBeenRounded)
        #expect(!range(0, 1).union(kCMTimeRangeInvalid).isValid)
    }

    @Test func equalityAndHashingByValue() {
        let a = CMTimeRange(start: CMTimeMake(value: 1, timescale: 2), duration: CMTimeMake(value: 3, timescale: 1))
        let b = CMTimeRange(start: CMTimeMake(value: 300, timescale: 600), duration: CMTimeMake(value: 9, timescale: 3))
        #expect(a == b && CMTimeRangeEqual(a, b) && a.hashValue == b.hashValue)
        #expect(a != range(0, 3))
        #expect(Set([a, b, range(0, 3)]).count == 2)
    }

    @Test func clampToRange() {
        let r = range(2, 4)
        #expect(CMTimeClampToRange(seconds(0), range: r) == seconds(2))
        #expect(CMTimeClampToRange(seconds(9), range: r) == seconds(6))
        #expect(same(CMTimeClampToRange(CMTimeMake(value: 7, timescale: 2), range: r), CMTimeMake(value: 7, timescale: 2)))
        #expect(!CMTimeClampToRange(seconds(1), range: range(2, 0)).isValid)
        #expect(!CMTimeClampToRange(kCMTimeInvalid, range: r).isValid)
    }

    @Test func mapTimeFromRangeToRange() {
        let mapped = CMTimeMapTimeFromRangeToRange(seconds(5), fromRange: range(0, 10), toRange: range(100, 20))
        #expect(mapped == seconds(110))
        #expect(CMTimeMapTimeFromRangeToRange(seconds(0), fromRange: range(0, 10), toRange: range(100, 20)) == seconds(100))
        #expect(CMTimeMapTimeFromRangeToRange(seconds(10), fromRange: range(0, 10), toRange: range(100, 20)) == seconds(120))
        let third = CMTimeMapTimeFromRangeToRange(seconds(1), fromRange: range(0, 3), toRange: range(0, 1))
        #expect(third == CMTimeMake(value: 1, timescale: 3) && !third.hasBeenRounded)
        let shifted = CMTimeMapTimeFromRangeToRange(CMTimeMake(value: 900, timescale: 600), fromRange: range(1, 2), toRange: range(11, 2))
        #expect(shifted == CMTimeMake(value: 6900, timescale: 600))
        #expect(!CMTimeMapTimeFromRangeToRange(seconds(1), fromRange: range(0, 0), toRange: range(0, 1)).isValid)
        #expect(!CMTimeMapTimeFromRangeToRange(CMTimeMakeWithEpoch(value: 1, timescale: 1, epoch: 1), fromRange: range(0, 3), toRange: range(0, 1)).isValid)
        let infinite = CMTimeMapTimeFromRangeToRange(seconds(7), fromRange: CMTimeRange(start: seconds(2), duration: kCMTimePositiveInfinity),
                                                     toRange: CMTimeRange(start: seconds(10), duration: kCMTimePositiveInfinity))
        #expect(infinite == seconds(15))
    }

    @Test func mapDurationFromRangeToRange() {
        #expect(CMTimeMapDurationFromRangeToRange(seconds(2), fromRange: range(0, 10), toRange: range(50, 5)) == seconds(1))
        let infinite = CMTimeRange(start: seconds(0), duration: kCMTimePositiveInfinity)
        #expect(same(CMTimeMapDurationFromRangeToRange(CMTimeMake(value: 3, timescale: 7), fromRange: infinite, toRange: infinite),
                     CMTimeMake(value: 3, timescale: 7)))
        #expect(!CMTimeMapDurationFromRangeToRange(seconds(2), fromRange: range(0, 0), toRange: range(0, 5)).isValid)
    }

    @Test func foldIntoRange() {
        let r = range(2, 3)
        #expect(CMTimeFoldIntoRange(seconds(10), foldRange: r) == seconds(4))
        #expect(CMTimeFoldIntoRange(seconds(0), foldRange: r) == seconds(3))
        #expect(CMTimeFoldIntoRange(seconds(3), foldRange: r) == seconds(3))
        #expect(CMTimeFoldIntoRange(seconds(5), foldRange: r) == seconds(2))
        #expect(CMTimeFoldIntoRange(CMTimeMake(value: 11, timescale: 2), foldRange: r) == CMTimeMake(value: 5, timescale: 2))
        #expect(!CMTimeFoldIntoRange(seconds(1), foldRange: range(2, 0)).isValid)
        #expect(!CMTimeFoldIntoRange(kCMTimePositiveInfinity, foldRange: r).isValid)
    }

    @Test(arguments: [
        range(1, 3), kCMTimeRangeZero, kCMTimeRangeInvalid,
        CMTimeRange(start: kCMTimeNegativeInfinity, duration: kCMTimePositiveInfinity),
        CMTimeRange(start: CMTimeMakeWithEpoch(value: 5, timescale: 600, epoch: 4), duration: kCMTimeIndefinite),
        CMTimeRange(start: CMTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 0), duration: seconds(-2)),
    ])
    func dictionaryRoundTrip(r: CMTimeRange) throws {
        let dictionary = try #require(CMTimeRangeCopyAsDictionary(r, allocator: kCFAllocatorDefault))
        #expect(kCMTimeRangeStartKey == "start" && kCMTimeRangeDurationKey == "duration")
        #expect(dictionary.object(forKey: "start") is NSDictionary && dictionary.object(forKey: "duration") is NSDictionary)
        let back = CMTimeRangeMakeFromDictionary(dictionary)
        #expect(same(back.start, r.start) && same(back.duration, r.duration))
    }

    @Test func malformedRangeDictionaryGivesInvalid() {
        #expect(!CMTimeRangeMakeFromDictionary(NSDictionary()).isValid)
        let onlyStart = NSDictionary(dictionary: ["start": CMTimeCopyAsDictionary(seconds(1), allocator: nil)!])
        #expect(!CMTimeRangeMakeFromDictionary(onlyStart).isValid)
    }

    @Test func codableRoundTrip() throws {
        let ranges = [range(1, 3), kCMTimeRangeInvalid, CMTimeRange(start: CMTimeMakeWithEpoch(value: 9, timescale: 7, epoch: 2), duration: kCMTimeIndefinite)]
        let decoded = try JSONDecoder().decode([CMTimeRange].self, from: JSONEncoder().encode(ranges))
        for (a, b) in zip(decoded, ranges) { #expect(same(a.start, b.start) && same(a.duration, b.duration)) }
        #expect(decoded.count == 3)
    }
}
