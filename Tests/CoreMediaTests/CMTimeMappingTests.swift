import Foundation
import Testing
@testable import CoreMedia

@Suite("CMTimeMapping and CMSampleTimingInfo")
struct CMTimeMappingTests {
    static let source = CMTimeRangeMake(start: CMTimeMake(value: 10, timescale: 1), duration: CMTimeMake(value: 5, timescale: 1))
    static let target = CMTimeRangeMake(start: CMTimeMake(value: 0, timescale: 1), duration: CMTimeMake(value: 10, timescale: 1))

    @Test func makeAndValidity() {
        let m = CMTimeMappingMake(source: Self.source, target: Self.target)
        #expect(m.source == Self.source && m.target == Self.target)
        #expect(m.isValid && !m.isEmpty && CMTIMEMAPPING_IS_VALID(m) && !CMTIMEMAPPING_IS_EMPTY(m))
        #expect(CMTimeMapping(source: Self.source, target: Self.target) == m)
    }

    @Test func emptyMappingHasInvalidSourceAndValidTarget() {
        let empty = CMTimeMappingMakeEmpty(target: Self.target)
        #expect(!empty.source.start.isValid && !empty.source.duration.isValid)
        #expect(empty.isEmpty && empty.isValid && CMTIMEMAPPING_IS_EMPTY(empty))
    }

    @Test func invalidMapping() {
        #expect(!CMTimeMapping.invalid.isValid && !kCMTimeMappingInvalid.isEmpty)
        #expect(!kCMTimeMappingInvalid.source.isValid && !kCMTimeMappingInvalid.target.isValid)
        #expect(!CMTimeMapping().isValid)
        #expect(!CMTimeMapping(source: Self.source, target: kCMTimeRangeInvalid).isValid)
        #expect(CMTIMEMAPPING_IS_INVALID(kCMTimeMappingInvalid) && !CMTIMEMAPPING_IS_INVALID(CMTimeMappingMake(source: Self.source, target: Self.target)))
    }

    @Test func makeRequiresDurationsInEpochZero() {
        // CMTimeRange.h: durations whose epoch is not 0 give an invalid time mapping.
        var source = Self.source
        source.duration.epoch = 2
        var target = Self.target
        target.duration.epoch = 2
        #expect(!CMTimeMappingMake(source: source, target: Self.target).isValid)
        #expect(!CMTimeMappingMake(source: Self.source, target: target).isValid)
        #expect(!CMTimeMappingMakeEmpty(target: target).isValid)
        // A timestamp epoch on the starts is fine.
        var later = Self.target
        later.start.epoch = 4
        let m = CMTimeMappingMake(source: Self.source, target: later)
        #expect(m.isValid && m.target.start.epoch == 4)
    }

    @Test func description() throws {
        let m = CMTimeMappingMake(source: Self.source, target: Self.target)
        let text = "{source = {{10/1 = 10.000}, {5/1 = 5.000}}, target = {{0/1 = 0.000}, {10/1 = 10.000}}}"
        #expect(CMTimeMappingCopyDescription(allocator: nil, mapping: m) as String? == text)
        let output = try captureStandardOutput { CMTimeMappingShow(m) }
        #expect(output.contains(text + "\n"))
    }

    @Test(arguments: [
        CMTimeMapping(source: source, target: target), CMTimeMappingMakeEmpty(target: target), kCMTimeMappingInvalid,
    ])
    func dictionaryRoundTrip(m: CMTimeMapping) throws {
        let dictionary = try #require(CMTimeMappingCopyAsDictionary(m, allocator: nil))
        #expect(dictionary.object(forKey: kCMTimeMappingSourceKey) is NSDictionary)
        #expect(dictionary.object(forKey: kCMTimeMappingTargetKey) is NSDictionary)
        let back = CMTimeMappingMakeFromDictionary(dictionary)
        #expect(same(back.source.start, m.source.start) && same(back.source.duration, m.source.duration))
        #expect(same(back.target.start, m.target.start) && same(back.target.duration, m.target.duration))
        #expect(!CMTimeMappingMakeFromDictionary(NSDictionary()).isValid)
    }

    @Test func hashableAndCodable() throws {
        let a = CMTimeMapping(source: Self.source, target: Self.target)
        let scaledTarget = CMTimeRange(start: CMTimeMake(value: 0, timescale: 600), duration: CMTimeMake(value: 6000, timescale: 600))
        let b = CMTimeMapping(source: Self.source, target: scaledTarget)
        #expect(a == b && a.hashValue == b.hashValue)
        let decoded = try JSONDecoder().decode(CMTimeMapping.self, from: JSONEncoder().encode(b))
        #expect(same(decoded.target.duration, scaledTarget.duration) && same(decoded.source.start, Self.source.start))
    }

    @Test func sampleTimingInfoInvalidAndEquality() {
        let invalid = CMSampleTimingInfo.invalid
        #expect(!invalid.duration.isValid && !invalid.presentationTimeStamp.isValid && !invalid.decodeTimeStamp.isValid)
        #expect(invalid == kCMTimingInfoInvalid && invalid == CMSampleTimingInfo())
        let a = CMSampleTimingInfo(duration: CMTimeMake(value: 1, timescale: 30), presentationTimeStamp: CMTimeMake(value: 1, timescale: 2),
                                   decodeTimeStamp: kCMTimeInvalid)
        let b = CMSampleTimingInfo(duration: CMTimeMake(value: 20, timescale: 600), presentationTimeStamp: CMTimeMake(value: 300, timescale: 600),
                                   decodeTimeStamp: kCMTimeInvalid)
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(a != invalid)
    }
}
