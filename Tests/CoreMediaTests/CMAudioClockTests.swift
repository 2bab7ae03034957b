// The audio clock: the pace of the playback streams' reports while they come, the host clock's
// otherwise; never backwards. Driven with explicit host times, so exact and without sleeping.
@testable import CoreMedia
import Testing

@Suite("CMAudioClock")
struct CMAudioClockTests {
    static let second: Int64 = 1_000_000_000
    static let ms: Int64 = 1_000_000

    @Test("without reports the clock is the host clock; CMAudioClockCreate gives a clock that reads near the host's")
    func withoutReports() {
        let timeline = AudioOutputTimeline()
        #expect(timeline.time(atHostTime: 5 * Self.second) == 5 * Self.second)
        var clock: CMClock?
        #expect(CMAudioClockCreate(allocator: nil, clockOut: &clock) == noErr)
        let made = try! #require(clock)
        #expect(made != CMClockGetHostTimeClock())
        #expect(CMClockMightDrift(made, CMClockGetHostTimeClock()))
        let difference = CMTimeSubtract(CMClockGetTime(made), CMClockGetTime(CMClockGetHostTimeClock()))
        #expect(abs(CMTimeGetSeconds(difference)) < 1, "an audio clock reads the host's time until sound plays: \(CMTimeGetSeconds(difference))")
    }

    @Test("while a stream plays steadily the clock keeps the device's pace: a device 0.1 % slow puts it 9.51 ms behind the host after 10 s (the first half second settles on the host)")
    func followsTheDevice() {
        let timeline = AudioOutputTimeline()
        let start = 100 * Self.second
        // A report every 10 ms of host time, the device playing 9.99 ms each.
        for i in 0...1000 {
            timeline.record(stream: 1, devicePosition: Int64(i) * 9_990_000, hostTime: start + Int64(i) * 10 * Self.ms)
        }
        let end = start + 10 * Self.second
        // 951 of the 1000 intervals end after the half second of settling: 0.01 ms lost each.
        let behind: Int64 = 9_510_000
        #expect(timeline.time(atHostTime: end) == end - behind)
        // Between reports and after the last one, it moves with the host.
        #expect(timeline.time(atHostTime: end + 5 * Self.ms) == end + 5 * Self.ms - behind)
    }

    @Test("a pause, a flush or a restart (the device's progress far from the host's) moves the clock with the host, not back")
    func discontinuities() {
        let timeline = AudioOutputTimeline()
        let s = Self.second
        timeline.record(stream: 1, devicePosition: 0, hostTime: 10 * s)
        timeline.record(stream: 1, devicePosition: 1 * s, hostTime: 11 * s)
        #expect(timeline.time(atHostTime: 11 * s) == 11 * s)
        // Paused for 9 s: the device played 10 ms more by the next report.
        timeline.record(stream: 1, devicePosition: 1 * s + 10 * Self.ms, hostTime: 20 * s)
        #expect(timeline.time(atHostTime: 20 * s) == 20 * s)
        // A new stream (position from 0) after the first went quiet takes over from where the clock is.
        timeline.record(stream: 2, devicePosition: 0, hostTime: 30 * s)
        timeline.record(stream: 2, devicePosition: 599 * Self.ms, hostTime: 30 * s + 600 * Self.ms)
        #expect(timeline.time(atHostTime: 30 * s + 600 * Self.ms) == 30 * s + 599 * Self.ms)
        // While stream 2 leads, stream 1's reports are ignored.
        timeline.record(stream: 1, devicePosition: 0, hostTime: 30 * s + 610 * Self.ms)
        timeline.record(stream: 1, devicePosition: 7 * s, hostTime: 30 * s + 620 * Self.ms)
        #expect(timeline.time(atHostTime: 30 * s + 620 * Self.ms) == 30 * s + 619 * Self.ms)
        // A starting stream settles on the host: its first half second does not pace the clock.
        let fresh = AudioOutputTimeline()
        fresh.record(stream: 3, devicePosition: 0, hostTime: 50 * s)
        fresh.record(stream: 3, devicePosition: 7 * Self.ms, hostTime: 50 * s + 10 * Self.ms)
        #expect(fresh.time(atHostTime: 50 * s + 10 * Self.ms) == 50 * s + 10 * Self.ms)
    }

    @Test("readings never go backwards, even when a report puts the device behind what was read")
    func neverBackwards() {
        let timeline = AudioOutputTimeline()
        let s = Self.second, ms = Self.ms
        timeline.record(stream: 1, devicePosition: 0, hostTime: 9 * s)
        timeline.record(stream: 1, devicePosition: 1 * s, hostTime: 10 * s)
        // Read 3 ms past the report (extrapolated with the host)…
        #expect(timeline.time(atHostTime: 10 * s + 3 * ms) == 10 * s + 3 * ms)
        // …then the device says it played only 1 ms by then: the clock is at 10.001 s there.
        timeline.record(stream: 1, devicePosition: 1 * s + 1 * ms, hostTime: 10 * s + 3 * ms)
        #expect(timeline.time(atHostTime: 10 * s + 3 * ms) == 10 * s + 3 * ms)
        #expect(timeline.time(atHostTime: 10 * s + 4 * ms) == 10 * s + 3 * ms)
        #expect(timeline.time(atHostTime: 10 * s + 6 * ms) == 10 * s + 4 * ms)
    }
}
