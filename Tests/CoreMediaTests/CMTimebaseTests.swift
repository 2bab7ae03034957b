import Foundation
import Testing
@testable import CoreMedia

/// A clock the test drives by hand: its time only changes when the test advances it, so every
/// expectation below is exact and nothing sleeps.
final class ManualClock: Sendable {
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var now: CMTime
        init(_ start: CMTime) { now = start }
        var time: CMTime { lock.withLock { now } }
    }

    private let state: State
    let clock: CMClock

    init(start: CMTime = CMTime(value: 100, timescale: 1)) {
        let state = State(start)
        self.state = state
        clock = CMClock(name: "manual") { state.time }
    }

    func advance(_ value: CMTimeValue, _ timescale: CMTimeScale = 1) {
        state.lock.withLock { state.now = CMTimeAdd(state.now, CMTime(value: value, timescale: timescale)) }
    }
}

/// Identity of two objects (a function: `===` inside `#expect` crashes the 6.3 compiler's SILGen).
private func same(_ a: AnyObject?, _ b: AnyObject?) -> Bool { a === b }

private func t(_ value: CMTimeValue, _ timescale: CMTimeScale = 1) -> CMTime { CMTime(value: value, timescale: timescale) }

/// `a` equals `b` as a rational number and was not rounded on the way.
private func exact(_ a: CMTime, _ b: CMTime) -> Bool {
    a.isValid && !a.flags.contains(.hasBeenRounded) && CMTimeCompare(a, b) == 0
}

private func makeTimebase(_ manual: ManualClock) throws -> CMTimebase {
    var out: CMTimebase?
    let status = CMTimebaseCreateWithSourceClock(allocator: kCFAllocatorDefault, sourceClock: manual.clock, timebaseOut: &out)
    #expect(status == noErr)
    return try #require(out)
}

@Suite("CMClock, CMTimebase and CMSync")
struct CMTimebaseTests {
    @Test func newTimebaseHasRateZeroAndTimeZeroAndStaysPaused() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        #expect(CMTimebaseGetRate(tb) == 0)
        #expect(exact(CMTimebaseGetTime(tb), .zero))
        manual.advance(5)
        #expect(exact(CMTimebaseGetTime(tb), .zero))
        #expect(same(CMTimebaseCopySourceClock(tb), manual.clock))
        #expect(CMTimebaseCopySourceTimebase(tb) == nil)
        #expect(same(CMTimebaseCopySource(tb), manual.clock))
        #expect(same(CMTimebaseCopyUltimateSourceClock(tb), manual.clock))
    }

    @Test(arguments: [(1.0, 3, 2), (2.0, 3, 1), (-1.0, -3, 2), (0.5, 3, 4), (1.5, 9, 4), (0.0, 0, 1)])
    func rateScalesSourceAdvanceExactly(rate: Double, num: Int64, den: Int32) throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        #expect(CMTimebaseSetRate(tb, rate: rate) == noErr)
        #expect(CMTimebaseGetRate(tb) == rate)
        manual.advance(3, 2)  // the source advances by 1.5 s
        #expect(exact(CMTimebaseGetTime(tb), t(num, den)), "rate \(rate): \(CMTimebaseGetTime(tb))")
    }

    @Test func aRateNearOneThirdIsAppliedAsOneThird() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        try tb.setRate(1.0 / 3.0)
        manual.advance(3)
        #expect(exact(tb.time, t(1)))
        manual.advance(1)
        #expect(exact(tb.time, t(4, 3)))
    }

    @Test func pausingFreezesTimeAndResumingContinuesFromThere() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        try tb.setRate(1)
        manual.advance(2)
        try tb.setRate(0)
        manual.advance(10)
        #expect(exact(tb.time, t(2)))
        try tb.setRate(1)
        manual.advance(1)
        #expect(exact(tb.time, t(3)))
    }

    @Test func setRateReanchorsAtTheCurrentTime() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        try tb.setRate(1)
        manual.advance(4)
        try tb.setRate(-1)
        #expect(exact(tb.time, t(4)))
        manual.advance(1)
        #expect(exact(tb.time, t(3)))
        try tb.setRate(2)
        manual.advance(1, 4)
        #expect(exact(tb.time, t(7, 2)))
    }

    @Test func setTimeReanchorsAtTheCurrentSourceTimeKeepingTheRate() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        #expect(CMTimebaseSetRate(tb, rate: 2) == noErr)
        manual.advance(1)
        #expect(exact(CMTimebaseGetTime(tb), t(2)))
        #expect(CMTimebaseSetTime(tb, time: t(10)) == noErr)
        #expect(exact(CMTimebaseGetTime(tb), t(10)))
        #expect(CMTimebaseGetRate(tb) == 2)
        manual.advance(1)
        #expect(exact(CMTimebaseGetTime(tb), t(12)))
    }

    @Test func setRateAndAnchorTimeInterpolatesFromTheImmediateSourceTime() throws {
        let manual = ManualClock()  // the source is at 100 s
        let tb = try makeTimebase(manual)
        let status = CMTimebaseSetRateAndAnchorTime(tb, rate: 2, anchorTime: t(10), immediateSourceTime: t(98))
        #expect(status == noErr)
        #expect(exact(CMTimebaseGetTime(tb), t(14)))  // 10 + 2 × (100 − 98)
        manual.advance(1)
        #expect(exact(CMTimebaseGetTime(tb), t(16)))
        // An anchor in the source's future runs the other way back to it.
        try tb.setRateAndAnchorTime(rate: 1, anchorTime: t(0), referenceTime: t(105))
        #expect(exact(tb.time, t(-4)))
        // setAnchorTime keeps the rate.
        #expect(CMTimebaseSetAnchorTime(tb, timebaseTime: t(50), immediateSourceTime: t(100)) == noErr)
        #expect(exact(tb.time, t(51)))
        #expect(tb.rate == 1)
    }

    @Test func timeAndRateAndTimeScale() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        try tb.setRateAndAnchorTime(rate: 1, anchorTime: t(1, 3), referenceTime: t(100))
        var time = kCMTimeInvalid
        var rate: Float64 = -9
        #expect(CMTimebaseGetTimeAndRate(tb, timeOut: &time, rateOut: &rate) == noErr)
        #expect(exact(time, t(1, 3)) && rate == 1)
        #expect(CMTimebaseGetTimeAndRate(tb, timeOut: nil, rateOut: nil) == noErr)
        let (swiftTime, swiftRate) = tb.timeAndRate
        #expect(exact(swiftTime, t(1, 3)) && swiftRate == 1)
        let scaled = CMTimebaseGetTimeWithTimeScale(tb, timeScale: 600, method: .roundHalfAwayFromZero)
        #expect(scaled.value == 200 && scaled.timescale == 600)
    }

    @Test func invalidTimesAndRatesAreRejected() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        try tb.setRate(1)
        manual.advance(1)
        #expect(kCMTimebaseError_InvalidParameter == -12749)
        #expect(CMTimebaseSetTime(tb, time: kCMTimeInvalid) == kCMTimebaseError_InvalidParameter)
        #expect(CMTimebaseSetTime(tb, time: kCMTimeIndefinite) == kCMTimebaseError_InvalidParameter)
        #expect(CMTimebaseSetTime(tb, time: kCMTimePositiveInfinity) == kCMTimebaseError_InvalidParameter)
        #expect(CMTimebaseSetRate(tb, rate: .nan) == kCMTimebaseError_InvalidParameter)
        #expect(CMTimebaseSetRate(tb, rate: .infinity) == kCMTimebaseError_InvalidParameter)
        #expect(CMTimebaseSetRateAndAnchorTime(tb, rate: 1, anchorTime: kCMTimeInvalid, immediateSourceTime: t(1))
                == kCMTimebaseError_InvalidParameter)
        #expect(CMTimebaseSetAnchorTime(tb, timebaseTime: t(1), immediateSourceTime: kCMTimeIndefinite)
                == kCMTimebaseError_InvalidParameter)
        // Nothing changed.
        #expect(exact(tb.time, t(1)) && tb.rate == 1)
        do {
            try tb.setTime(kCMTimeInvalid)
            Issue.record("setTime(invalid) did not throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code == -12749)
            #expect(error == CMTimebase.Error.invalidParameter)
        }
        #expect(throws: NSError.self) { try tb.setRate(.nan) }
    }

    @Test func stackedTimebasesMultiplyRates() throws {
        let manual = ManualClock()
        let parent = try makeTimebase(manual)
        var out: CMTimebase?
        #expect(CMTimebaseCreateWithSourceTimebase(allocator: nil, sourceTimebase: parent, timebaseOut: &out) == noErr)
        let child = try #require(out)
        #expect(same(child.sourceTimebase, parent) && child.sourceClock == nil)
        #expect(same(child.source, parent) && same(child.ultimateSourceClock, manual.clock))
        #expect(exact(child.time, .zero) && child.rate == 0)

        try parent.setRate(2)
        try child.setRate(-0.5)
        #expect(child.effectiveRate == -1 && CMTimebaseGetEffectiveRate(child) == -1)
        manual.advance(3)  // parent +6, child −3
        #expect(exact(parent.time, t(6)))
        #expect(exact(child.time, t(-3)))

        // A paused parent stops its children.
        try parent.setRate(0)
        manual.advance(7)
        #expect(exact(parent.time, t(6)) && exact(child.time, t(-3)))

        // Setting the parent's time moves the child by rate × jump.
        try parent.setTime(t(10))
        #expect(exact(child.time, t(-5)))
        let grandchild = try CMTimebase(sourceTimebase: child)
        #expect(same(grandchild.ultimateSourceClock, manual.clock))
    }

    @Test func syncGetTimeAndConvertTimeBetweenClockAndTimebase() throws {
        let manual = ManualClock()
        let tb = try makeTimebase(manual)
        try tb.setRateAndAnchorTime(rate: 2, anchorTime: t(10), referenceTime: t(100))
        #expect(exact(CMSyncGetTime(manual.clock), t(100)))
        #expect(exact(CMSyncGetTime(tb), t(10)))

        #expect(exact(CMSyncConvertTime(t(103), from: manual.clock, to: tb), t(16)))
        #expect(exact(CMSyncConvertTime(t(16), from: tb, to: manual.clock), t(103)))
        #expect(exact(CMSyncConvertTime(t(9), from: tb, to: manual.clock), t(199, 2)))
        #expect(exact(tb.convertTime(t(16), to: manual.clock), t(103)))
        #expect(exact(manual.clock.convertTime(t(103), to: tb), t(16)))

        // Two timebases over one clock convert through it; siblings under a timebase through it.
        let other = try makeTimebase(manual)
        try other.setRateAndAnchorTime(rate: -1, anchorTime: t(0), referenceTime: t(100))
        #expect(exact(CMSyncConvertTime(t(16), from: tb, to: other), t(-3)))
        #expect(CMSyncGetRelativeRate(tb, relativeTo: other) == -2)
        #expect(tb.rate(relativeTo: manual.clock) == 2 && manual.clock.rate(relativeTo: tb) == 0.5)

        // A paused timebase's time maps to no single source time, but a child of it converts.
        try other.setRate(0)
        #expect(!CMSyncConvertTime(t(0), from: other, to: manual.clock).isValid)
        #expect(CMSyncGetRelativeRate(tb, relativeTo: other).isNaN)
        let child = try CMTimebase(sourceTimebase: other)
        try child.setRateAndAnchorTime(rate: 3, anchorTime: t(1), referenceTime: t(0))
        #expect(exact(CMSyncConvertTime(t(7), from: child, to: other), t(2)))
        #expect(exact(CMSyncConvertTime(t(2), from: other, to: child), t(7)))
        #expect(!CMSyncConvertTime(kCMTimeInvalid, from: tb, to: manual.clock).isValid)

        let (rate, anchor, reference) = try tb.rateAndAnchorTime(relativeTo: manual.clock)
        #expect(rate == 2 && exact(anchor, t(10)) && exact(reference, t(100)))
        #expect(!CMSyncMightDrift(tb, manual.clock))
        #expect(CMSyncMightDrift(tb, CMClockGetHostTimeClock()))
        #expect(!tb.mightDrift(relativeTo: other) && tb.mightDrift(relativeTo: CMClock.hostTimeClock))
        #expect(!manual.clock.mightDrift(relativeTo: manual.clock) && CMClockMightDrift(manual.clock, CMClockGetHostTimeClock()))
        var relativeRate: Float64 = 0
        var ofAnchor = kCMTimeInvalid, toAnchor = kCMTimeInvalid
        #expect(CMSyncGetRelativeRateAndAnchorTime(manual.clock, relativeTo: tb, relativeRateOut: &relativeRate,
                                                   anchorTimeOut: &ofAnchor, relativeToAnchorTimeOut: &toAnchor) == noErr)
        #expect(relativeRate == 0.5 && exact(ofAnchor, t(100)) && exact(toAnchor, t(10)))
    }

    @Test func timebasesOnDifferentClocksConvertThroughTheirCurrentTimes() throws {
        let a = ManualClock(start: t(100)), b = ManualClock(start: t(5))
        let tb = try makeTimebase(b)
        try tb.setRate(1)  // tb = b − 5
        #expect(exact(CMSyncConvertTime(t(101), from: a.clock, to: b.clock), t(6)))
        #expect(exact(CMSyncConvertTime(t(102), from: a.clock, to: tb), t(2)))
        #expect(CMSyncGetRelativeRate(a.clock, relativeTo: tb) == 1)
    }

    @Test func hostClockIsMonotonicNanoseconds() throws {
        let host = CMClockGetHostTimeClock()
        #expect(same(host, CMClock.hostTimeClock))
        let before = hostSystemUnits()
        let first = CMClockGetTime(host)
        let second = host.time
        let after = hostSystemUnits()
        #expect(first.timescale == 1_000_000_000 && first.isNumeric)
        #expect(first <= second)
        #expect(CMClockConvertHostTimeToSystemUnits(first) >= before)
        #expect(CMClockConvertHostTimeToSystemUnits(second) <= after)
        #expect(CMClockConvertHostTimeToSystemUnits(CMClockMakeHostTimeFromSystemUnits(123_456_789)) == 123_456_789)
        #expect(CMClock.convertHostTimeToSystemUnits(t(3, 2)) == 1_500_000_000)
        #expect(exact(CMClock.convertSystemUnitsToHostTime(2_000_000_000), t(2)))
        #expect(CMClockConvertHostTimeToSystemUnits(kCMTimeInvalid) == 0)
        var clockTime = kCMTimeInvalid, reference = kCMTimeInvalid
        #expect(CMClockGetAnchorTime(host, clockTimeOut: &clockTime, referenceClockTimeOut: &reference) == noErr)
        #expect(clockTime == reference && clockTime >= second)
        let (anchor, referenceTime) = try host.anchorTime()
        #expect(anchor == referenceTime)
        #expect(CFGetTypeID(host) == CMClockGetTypeID())
        #expect(CFGetTypeID(try CMTimebase(sourceClock: host)) == CMTimebaseGetTypeID())
        #expect(CMClockGetTypeID() != CMTimebaseGetTypeID())
    }

    @Test func concurrentReadersAndWritersSeeConsistentTimes() async throws {
        let manual = ManualClock(start: .zero)
        let tb = try makeTimebase(manual)
        try tb.setRate(1)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 { manual.advance(1, 1000) }
                }
                group.addTask {
                    for _ in 0..<500 {
                        let (time, rate) = tb.timeAndRate
                        precondition(rate == 1 && time.isValid)
                    }
                }
            }
        }
        #expect(exact(tb.time, t(2)))
    }

    /// The calls compile as Apple code writes them.
    @Test func swiftFormsCompileAsAppleCodeWritesThem() throws {
        let timebase = try CMTimebase(sourceClock: CMClock.hostTimeClock)
        try timebase.setTime(.zero)
        try timebase.setRate(0)
        let time: CMTime = timebase.time
        let rate: Double = timebase.rate
        #expect(time == .zero && rate == 0)
        let sub = try CMTimebase(allocator: kCFAllocatorDefault, sourceTimebase: timebase)
        #expect(same(sub.sourceTimebase, timebase))
        var cTimebase: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: kCFAllocatorDefault, sourceClock: CMClockGetHostTimeClock(),
                                            timebaseOut: &cTimebase)
        let source: CMClockOrTimebase = CMTimebaseCopySource(try #require(cTimebase))
        #expect(CMSyncGetTime(source).timescale == 1_000_000_000)
        func anySync(_ s: some CMSyncProtocol) -> CMTime { s.time }
        #expect(anySync(sub) == .zero)
    }
}
