// ClockedPump: releases items at their media time on a CMTimebase, dropping the ones that come
// too late — the pacing stage of live sources (and of the player's picture path).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CoreMedia
import Foundation
import Synchronization

/// Pulls items `(item, time, duration)` from a producer and releases each once the timebase's
/// time reaches the item's time. An item whose time is more than its duration behind the
/// timebase when it is due (the producer was too slow, or the timebase jumped) is dropped and
/// counted instead: a late frame is worth nothing to a live consumer.
///
/// Two ways to run it:
/// - `service()` releases (and drops) what is due at the timebase's current time and says when
///   the next item is due; it never waits. Tests drive it over a timebase on a hand-driven
///   `CMClock` and so check the pacing exactly, without sleeping.
/// - `run()` loops on `service()` on the calling thread, sleeping in between, until `cancel()`.
///   On a timebase whose ultimate clock is the host clock it sleeps with
///   `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)` to the host time the item is due, in
///   slices of at most `maximumSleep` so that rate changes, jumps and `cancel()` are seen
///   promptly; on any other clock it polls every millisecond.
///
/// The producer is called on the thread servicing the pump, one item ahead: right after an item
/// is released the next one is made (decoded, drawn) while the pump waits for its time. It
/// returns nil when there are no more items (the pump is then finished).
///
/// Thread-safe: `cancel()` and the counters may be used from any thread; `service()`/`run()`
/// from one thread at a time.
// Invariant: the closures, `pending` and `finished` are used only by the one thread servicing the pump; the counts are in `state`.
package final class ClockedPump<Item>: @unchecked Sendable {
    /// An item and its presentation interval on the timebase.
    package typealias Scheduled = (item: Item, time: CMTime, duration: CMTime)

    /// What `service()` found.
    package enum Outcome: Equatable {
        /// The next item is due at this timebase time.
        case waitUntil(CMTime)
        /// The producer has no more items (or the pump was cancelled).
        case finished
    }

    /// The timebase items are paced on.
    package let timebase: CMTimebase
    /// The longest single sleep of `run()`.
    package var maximumSleep = CMTime(value: 5, timescale: 1000)

    private let produce: () -> Scheduled?
    private let release: (Item, CMTime) -> Void
    private let dropped: (Item, CMTime) -> Void
    private var pending: Scheduled?
    private var finished = false
    /// The counts, and whether `cancel()` was called.
    private struct State {
        var released = 0
        var dropped = 0
        var cancelled = false
    }
    private let state = Mutex(State())

    /// A pump over `timebase`: `produce` gives the next item (nil: no more), `release` gets each
    /// item in time with its time, `dropped` each item dropped for being late.
    package init(timebase: CMTimebase, produce: @escaping () -> Scheduled?,
                 release: @escaping (Item, CMTime) -> Void, dropped: @escaping (Item, CMTime) -> Void = { _, _ in }) {
        self.timebase = timebase
        self.produce = produce
        self.release = release
        self.dropped = dropped
    }

    /// How many items were released.
    package var releasedCount: Int { state.withLock { $0.released } }
    /// How many items were dropped for being late.
    package var droppedCount: Int { state.withLock { $0.dropped } }
    /// Whether `cancel()` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Makes `run()` return as soon as it wakes (within `maximumSleep`) and `service()` finish.
    package func cancel() { state.withLock { $0.cancelled = true } }

    /// Releases every item due at the timebase's current time, in order, dropping those more
    /// than their duration late; returns when the next item is due (or that there is none).
    package func service() -> Outcome {
        while !finished {
            if isCancelled { return .finished }
            if pending == nil {
                pending = produce()
                if pending == nil {
                    finished = true
                    break
                }
            }
            let next = pending!
            let now = CMTimebaseGetTime(timebase)
            if now < next.time { return .waitUntil(next.time) }
            pending = nil
            let lateness = now - next.time
            if next.duration.isNumeric, lateness > next.duration {
                state.withLock { $0.dropped += 1 }
                dropped(next.item, next.time)
            } else {
                state.withLock { $0.released += 1 }
                release(next.item, next.time)
            }
        }
        return .finished
    }

    /// Services the pump until the producer is finished or `cancel()` is called, sleeping until
    /// each item is due.
    package func run() {
        while case .waitUntil(let due) = service() {
            sleep(until: due)
        }
    }

    /// Sleeps until the timebase reaches `due` or for `maximumSleep`, whichever comes first.
    private func sleep(until due: CMTime) {
        let slice = CMClockConvertHostTimeToSystemUnits(maximumSleep)
        let hostNow = CMClockConvertHostTimeToSystemUnits(CMClockGetTime(CMClockGetHostTimeClock()))
        var deadline = hostNow &+ 1_000_000
        if CMTimebaseCopyUltimateSourceClock(timebase) === CMClockGetHostTimeClock() {
            let (now, rate) = (CMTimebaseGetTime(timebase), CMTimebaseGetEffectiveRate(timebase))
            deadline = hostNow &+ slice
            if rate > 0 {
                let wait = (due - now).seconds / rate
                if wait.isFinite, wait >= 0 { deadline = min(deadline, hostNow &+ UInt64((wait * 1e9).rounded(.up))) }
            }
        }
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
