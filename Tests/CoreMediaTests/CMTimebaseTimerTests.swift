// CMTimebase's timers (dispatch sources, Foundation timers), its notifications and moving it to
// another source. Timers run on the host clock, so these tests wait for them with generous
// deadlines and assert order and ranges, never durations.
import Dispatch
import Foundation
import Synchronization
import Testing
@testable import CoreMedia

private func hostTimebase() -> CMTimebase {
    var out: CMTimebase?
    _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &out)
    return out!
}

/// Counts a notification of one name from one object.
private final class Posted: Sendable {
    private final class Box: Sendable {
        let times = Mutex<[CMTime]>([])
    }

    /// The registration. @unchecked Sendable: written once in init, read in deinit.
    private final class Token: @unchecked Sendable {
        var observer: (any NSObjectProtocol)?
    }

    private let box = Box()
    private let token = Token()

    init(_ name: NSNotification.Name, _ object: AnyObject) {
        let box = self.box
        token.observer = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { note in
            let dictionary = note.userInfo?[kCMTimebaseNotificationKey_EventTime as String] as? CFDictionary
            let time = dictionary.map { CMTimeMakeFromDictionary($0) } ?? .invalid
            box.times.withLock { $0.append(time) }
        }
    }

    deinit { token.observer.map(NotificationCenter.default.removeObserver) }
    var count: Int { box.times.withLock { $0.count } }
    var first: CMTime? { box.times.withLock { $0.first } }
}

@Suite struct CMTimebaseTimerTests {
    @Test func dispatchTimerFiresAtTheTimebaseTime() throws {
        let timebase = hostTimebase()
        let fired = DispatchSemaphore(value: 0)
        let firedAt = Mutex<CMTime>(.invalid)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "timer"))
        timer.setEventHandler {
            firedAt.withLock { $0 = timebase.time }
            fired.signal()
        }
        timer.resume()
        try timebase.addTimer(timer)
        try timebase.setTimerNextFireTime(timer, fireTime: CMTime(value: 3, timescale: 1))
        // Stopped: it does not fire.
        #expect(fired.wait(timeout: .now() + 0.3) == .timedOut)
        // Time set close to the fire time and running at 2×: fires once the timebase reaches 3 s.
        try timebase.setTime(CMTime(value: 29, timescale: 10))
        try timebase.setRate(2)
        #expect(fired.wait(timeout: .now() + 5) == .success)
        let at = firedAt.withLock { $0 }
        #expect(at >= CMTime(value: 3, timescale: 1))
        #expect(at.seconds < 3.5)
        // Not again on its own.
        #expect(fired.wait(timeout: .now() + 0.3) == .timedOut)
        // A fire time already passed fires at once; so does "immediately".
        try timebase.setTimerNextFireTime(timer, fireTime: CMTime(value: 1, timescale: 1))
        #expect(fired.wait(timeout: .now() + 5) == .success)
        try timebase.setRate(0)
        try timebase.setTimerToFireImmediately(timer)
        #expect(fired.wait(timeout: .now() + 5) == .success)
        // Removed: setting a fire time is an error, and nothing fires.
        try timebase.removeTimer(timer)
        #expect(throws: (any Error).self) { try timebase.setTimerNextFireTime(timer, fireTime: .zero) }
        timer.cancel()
    }

    @Test func timerFollowsRateChangesUpTheSourceChain() throws {
        let parent = hostTimebase()
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceTimebase(allocator: nil, sourceTimebase: parent, timebaseOut: &made)
        let child = try #require(made)
        try child.setRate(1)
        let fired = DispatchSemaphore(value: 0)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "timer"))
        timer.setEventHandler { fired.signal() }
        timer.resume()
        #expect(CMTimebaseAddTimerDispatchSource(child, timerSource: timer as! DispatchSource) == noErr)
        #expect(CMTimebaseSetTimerDispatchSourceNextFireTime(child, timerSource: timer as! DispatchSource,
                                                             fireTime: CMTime(value: 1, timescale: 10), flags: 0) == noErr)
        // The parent is stopped, so the child is too.
        #expect(fired.wait(timeout: .now() + 0.4) == .timedOut)
        try parent.setRate(1)
        #expect(fired.wait(timeout: .now() + 5) == .success)
        #expect(child.time >= CMTime(value: 1, timescale: 10))
        timer.cancel()
    }

    @Test func foundationTimerIsArmedByTheTimebase() throws {
        let timebase = hostTimebase()
        let fired = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let timer = Timer(timeInterval: CMTimebase.veryLongTimeInterval, repeats: true) { _ in fired.signal() }
            try? timebase.addTimer(timer, runloop: .current)
            try? timebase.setTimerNextFireTime(timer, fireTime: CMTime(value: 2, timescale: 10))
            try? timebase.setRate(1)
            let deadline = Date().addingTimeInterval(5)
            while fired.wait(timeout: .now()) == .timedOut, Date() < deadline {
                _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.05))
            }
            timer.invalidate()
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(timebase.time >= CMTime(value: 2, timescale: 10))
    }

    @Test func notificationsForRateChangesAndJumps() throws {
        let timebase = hostTimebase()
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceTimebase(allocator: nil, sourceTimebase: timebase, timebaseOut: &made)
        let child = try #require(made)
        try child.setRate(1)
        let rates = Posted(CMTimebase.effectiveRateChanged, timebase)
        let jumps = Posted(CMTimebase.timeJumped, timebase)
        let childRates = Posted(NSNotification.Name(kCMTimebaseNotification_EffectiveRateChanged as String), child)
        let childJumps = Posted(CMTimebase.timeJumped, child)
        try timebase.setRate(1)
        #expect(rates.count == 1)
        #expect(jumps.count == 0)
        #expect(childRates.count == 1)
        // The same rate again: no change, no notification.
        try timebase.setRate(1)
        #expect(rates.count == 1)
        try timebase.setTime(CMTime(value: 5, timescale: 1))
        #expect(jumps.count == 1)
        #expect(childJumps.count == 1)
        let eventTime = jumps.first ?? .invalid
        #expect(eventTime.isNumeric)
        #expect(abs(eventTime.seconds - 5) < 0.1)
        // Stopping changes the effective rate of both.
        try timebase.setRate(0)
        #expect(rates.count == 2)
        #expect(childRates.count == 2)
        #expect(child.effectiveRate == 0)
        // Setting the time of a stopped timebase to where it is is not a jump.
        try timebase.setTime(timebase.time)
        #expect(jumps.count == 1)
    }

    @Test func movingToAnotherSourceKeepsTheTime() throws {
        let manual = ManualClock()
        let timebase = hostTimebase()
        try timebase.setTime(CMTime(value: 7, timescale: 1))
        #expect(CMTimebaseSetSourceClock(timebase, manual.clock) == noErr)
        #expect(timebase.sourceClock === manual.clock)
        try timebase.setRate(1)
        let before = timebase.time
        manual.advance(2)
        #expect(timebase.time == before + CMTime(value: 2, timescale: 1))
        // A timebase cannot become its own source, through a chain either.
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceTimebase(allocator: nil, sourceTimebase: timebase, timebaseOut: &made)
        let child = try #require(made)
        #expect(CMTimebaseSetSourceTimebase(timebase, child) == kCMTimebaseError_InvalidParameter)
        let other = hostTimebase()
        child.sourceTimebase = other
        #expect(child.sourceTimebase === other)
    }
}
