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

    @Test("while a stream plays the clock keeps the device's pace: a device 0.1 % slow makes it 10 ms behind the host after 10 s")
    func followsTheDevice() {
        let timeline = AudioOutputTimeline()
        let start = 100 * Self.second
        // A report every 10 ms of host time, the device playing 9.99 ms each.
        for i in 0...1000 {
            timeline.record(stream: 1, devicePosition: Int64(i) * 9_990_000, hostTime: start + Int64(i) * 10 * Self.ms)
        }
        let end = start + 10 * Self.second
        #expect(timeline.time(atHostTime: end) == end - 10 * Self.ms)
        // Between reports and after the last one, it moves with the host.
        #expect(timeline.time(atHostTime: end + 5 * Self.ms) == end - 5 * Self.ms)
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
        timeline.record(stream: 2, devicePosition: 500 * Self.ms, hostTime: 30 * s + 501 * Self.ms)
        #expect(timeline.time(atHostTime: 30 * s + 501 * Self.ms) == 30 * s + 500 * Self.ms)
        // While stream 2 leads, stream 1's reports are ignored.
        timeline.record(stream: 1, devicePosition: 0, hostTime: 30 * s + 510 * Self.ms)
        timeline.record(stream: 1, devicePosition: 7 * s, hostTime: 30 * s + 520 * Self.ms)
        #expect(timeline.time(atHostTime: 30 * s + 520 * Self.ms) == 30 * s + 519 * Self.ms)
    }

    @Test("readings never go backwards, even when a report puts the device behind what was read")
    func neverBackwards() {
        let timeline = AudioOutputTimeline()
        let s = Self.second
        timeline.record(stream: 1, devicePosition: 0, hostTime: 10 * s)
        // Read 15 ms past the report (extrapolated with the host)…
        #expect(timeline.time(atHostTime: 10 * s + 15 * Self.ms) == 10 * s + 15 * Self.ms)
        // …then the device says it played only 5 ms by then.
        timeline.record(stream: 1, devicePosition: 5 * Self.ms, hostTime: 10 * s + 15 * Self.ms)
        #expect(timeline.time(atHostTime: 10 * s + 15 * Self.ms) == 10 * s + 15 * Self.ms)
        #expect(timeline.time(atHostTime: 10 * s + 20 * Self.ms) == 10 * s + 15 * Self.ms)
        #expect(timeline.time(atHostTime: 10 * s + 30 * Self.ms) == 10 * s + 20 * Self.ms)
    }
}
