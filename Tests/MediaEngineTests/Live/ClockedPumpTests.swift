// ClockedPump on a hand-driven clock: items released exactly at their times, in order; late ones
// dropped and counted. And the threaded loop on the host clock (order, no timing asserted).
import CoreMedia
import Foundation
@testable import MediaEngine
import Synchronization
import Testing

/// A clock whose time moves only when the test says so (in ticks of 1/30 000 s, so that frame
/// times at 30 fps are exact).
final class HandClock: Sendable {
    static let tick = CMTime(value: 1, timescale: 30_000)
    private final class Time: Sendable {
        let now = Mutex(CMTime(value: 30_000, timescale: 30_000))
    }
    private let time = Time()
    let clock: CMClock

    init() {
        let time = self.time
        clock = CMClock(name: "hand") { time.now.withLock { $0 } }
    }

    func advance(by delta: CMTime) { time.now.withLock { $0 = $0 + delta } }
}

@Suite struct ClockedPumpTests {
    static let frame = CMTime(value: 1, timescale: 30)

    /// A timebase at rate 1 from time 0 over `clock`.
    static func timebase(_ clock: HandClock) throws -> CMTimebase {
        let timebase = try CMTimebase(sourceClock: clock.clock)
        #expect(CMTimebaseSetRateAndAnchorTime(timebase, rate: 1, anchorTime: .zero,
                                                immediateSourceTime: CMClockGetTime(clock.clock)) == noErr)
        return timebase
    }

    @Test func releasesThirtyItemsAtTheirTimesInOrder() throws {
        let clock = HandClock()
        let timebase = try Self.timebase(clock)
        var next = 0
        var released: [(Int, CMTime)] = []
        let pump = ClockedPump<Int>(timebase: timebase, produce: {
            guard next < 30 else { return nil }
            defer { next += 1 }
            return (next, CMTimeMultiply(Self.frame, multiplier: Int32(next)), Self.frame)
        }, release: { item, time in released.append((item, time)) })

        for k in 0..<30 {
            // Just before item k's time nothing new comes out …
            if k > 0 {
                clock.advance(by: Self.frame - HandClock.tick)
                #expect(pump.service() == .waitUntil(CMTimeMultiply(Self.frame, multiplier: Int32(k))))
                #expect(released.count == k)
                clock.advance(by: HandClock.tick)
            }
            // … and at it exactly item k does.
            let outcome = pump.service()
            #expect(released.count == k + 1)
            #expect(released.last?.0 == k)
            #expect(released.last?.1 == CMTimeMultiply(Self.frame, multiplier: Int32(k)))
            #expect(outcome == (k == 29 ? .finished : .waitUntil(CMTimeMultiply(Self.frame, multiplier: Int32(k + 1)))))
        }
        #expect(released.map(\.0) == Array(0..<30))
        #expect(pump.releasedCount == 30)
        #expect(pump.droppedCount == 0)
    }

    @Test func dropsAnItemMoreThanAFrameLateAndCountsIt() throws {
        let clock = HandClock()
        let timebase = try Self.timebase(clock)
        var next = 0
        var released: [Int] = [], dropped: [Int] = []
        let pump = ClockedPump<Int>(timebase: timebase, produce: {
            guard next < 10 else { return nil }
            defer { next += 1 }
            return (next, CMTimeMultiply(Self.frame, multiplier: Int32(next)), Self.frame)
        }, release: { item, _ in released.append(item) }, dropped: { item, _ in dropped.append(item) })

        #expect(pump.service() == .waitUntil(Self.frame))
        #expect(released == [0])
        // The producer side stalls: the clock jumps to 2.5 frames. Item 1 is 1.5 frames late
        // (dropped); item 2 is half a frame late (released); item 3 waits for its time.
        clock.advance(by: CMTimeMultiplyByRatio(Self.frame, multiplier: 5, divisor: 2))
        #expect(pump.service() == .waitUntil(CMTimeMultiply(Self.frame, multiplier: 3)))
        #expect(released == [0, 2])
        #expect(dropped == [1])
        #expect(pump.droppedCount == 1)
        #expect(pump.releasedCount == 2)
        // Exactly one frame late is not "later than one frame": released.
        clock.advance(by: CMTimeMultiplyByRatio(Self.frame, multiplier: 3, divisor: 2))
        #expect(pump.service() == .waitUntil(CMTimeMultiply(Self.frame, multiplier: 5)))
        #expect(released == [0, 2, 3, 4])
        #expect(dropped == [1])
    }

    @Test func followsTheTimebaseRate() throws {
        let clock = HandClock()
        let timebase = try Self.timebase(clock)
        var next = 0
        var released: [Int] = []
        let pump = ClockedPump<Int>(timebase: timebase, produce: {
            defer { next += 1 }
            return (next, CMTimeMultiply(Self.frame, multiplier: Int32(next)), Self.frame)
        }, release: { item, _ in released.append(item) })
        _ = pump.service()
        #expect(CMTimebaseSetRate(timebase, rate: 0) == noErr)
        clock.advance(by: CMTime(value: 10, timescale: 1))
        _ = pump.service()
        #expect(released == [0])                       // paused: nothing released, nothing dropped
        #expect(CMTimebaseSetRate(timebase, rate: 2) == noErr)
        clock.advance(by: CMTime(value: 1, timescale: 60))
        _ = pump.service()
        #expect(released == [0, 1])                    // twice as fast: item 1 after half a frame
        #expect(pump.droppedCount == 0)
    }

    @Test func runReleasesOnTheHostClockInOrderAndStopsWhenCancelled() throws {
        let timebase = try CMTimebase(sourceClock: CMClockGetHostTimeClock())
        #expect(CMTimebaseSetRateAndAnchorTime(timebase, rate: 1, anchorTime: .zero,
                                                immediateSourceTime: CMClockGetTime(CMClockGetHostTimeClock())) == noErr)
        let released = Mutex<[Int]>([])
        var next = 0
        let fast = CMTime(value: 1, timescale: 200)
        let pump = ClockedPump<Int>(timebase: timebase, produce: {
            guard next < 20 else { return nil }
            defer { next += 1 }
            return (next, CMTimeMultiply(fast, multiplier: Int32(next)), CMTime(value: 10, timescale: 1))
        }, release: { item, time in
            released.withLock { $0.append(item) }
            // Never before its time.
            #expect(CMTimebaseGetTime(timebase) >= time)
        })
        pump.run()
        #expect(released.withLock { $0 } == Array(0..<20))

        let endless = ClockedPump<Int>(timebase: timebase, produce: { (0, CMTime(value: 3600, timescale: 1), .zero) },
                                       release: { _, _ in Issue.record("released an item an hour early") })
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { endless.run(); done.signal() }
        thread.start()
        endless.cancel()
        done.wait()
        #expect(endless.isCancelled)
    }
}
