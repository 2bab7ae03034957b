// CMAudioClock: a clock that advances with audio output. The sound-server playback streams of
// this process report how far their device has played (`AudioOutputTimeline`); between reports,
// and while no output plays, the clock follows the host clock.
import Synchronization

/// Where the audio clock's time comes from: progress reports of the playback streams.
///
/// A stream reports, at each write, how much it has played (its device's position, seconds)
/// and the host time of that reading. The clock advances between two reports of the same
/// stream by what the device played, so over a long play it keeps the device's pace, not the
/// host's; between reports it moves with the host clock. One stream leads at a time (the first
/// that reports; another takes over once it has been silent for `leadTimeout`). A stream's first
/// `settling` of reports move the clock with the host (a starting stream's reported position
/// settles as the server's timing information arrives), and so does a report that disagrees
/// with the host by more than `continuityLimit` (the stream was paused, flushed or restarted):
/// only a steadily playing device paces the clock. Readings never go backwards.
package final class AudioOutputTimeline: Sendable {
    package static let shared = AudioOutputTimeline()

    /// How long the leading stream may be silent before another one leads (ns).
    static let leadTimeout: Int64 = 200_000_000
    /// The largest difference between the device's and the host's progress over one report that
    /// still counts as the device keeping time (ns): beyond it the stream stopped or jumped.
    static let continuityLimit: Int64 = 4_000_000
    /// How long a stream reports before its device paces the clock (ns).
    static let settling: Int64 = 500_000_000

    private struct State {
        /// The leading stream, its last report (device position and host time, ns) and the host
        /// time of its first report.
        var lead: (stream: UInt64, device: Int64, host: Int64, since: Int64)?
        /// Clock time (ns) at the last report's host time.
        var clockAtReport: Int64?
        /// The latest reading handed out (readings never go backwards).
        var lastReading: Int64 = .min
        var reports = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Records that `stream` has played `devicePosition` nanoseconds of sound at host time
    /// `hostTime` (ns of the host clock).
    package func record(stream: UInt64, devicePosition: Int64, hostTime: Int64) {
        state.withLock { s in
            let clockNow = Self.clock(s, at: hostTime)
            if let lead = s.lead, lead.stream != stream, hostTime - lead.host < Self.leadTimeout { return }
            var clock = clockNow
            var since = hostTime
            if let lead = s.lead, lead.stream == stream, let last = s.clockAtReport {
                since = lead.since
                let played = devicePosition - lead.device, elapsed = hostTime - lead.host
                if hostTime - lead.since >= Self.settling, played >= 0, abs(played - elapsed) <= Self.continuityLimit {
                    clock = last + played
                }
            }
            s.lead = (stream, devicePosition, hostTime, since)
            s.clockAtReport = clock
            s.reports += 1
        }
    }

    /// The number of reports taken (for tests and diagnostics).
    package var reportCount: Int { state.withLock { $0.reports } }

    /// The clock's time (ns) at host time `hostTime` (ns), never less than a reading before.
    package func time(atHostTime hostTime: Int64) -> Int64 {
        state.withLock { s in
            let t = max(Self.clock(s, at: hostTime), s.lastReading)
            s.lastReading = t
            return t
        }
    }

    /// The clock at `hostTime` extrapolated with the host clock from the last report (the host
    /// time itself before any report).
    private static func clock(_ s: State, at hostTime: Int64) -> Int64 {
        guard let lead = s.lead, let at = s.clockAtReport else { return hostTime }
        return at + (hostTime - lead.host)
    }
}

extension CMClock {
    /// The audio clock (one object; every `CMAudioClockCreate` returns it).
    static let audio = CMClock(name: "audio") {
        let host = CMClockConvertHostTimeToSystemUnits(CMClock.host.currentTime)
        return CMTime(value: AudioOutputTimeline.shared.time(atHostTime: Int64(clamping: host)), timescale: hostTimescale)
    }
}

/// Creates a clock that advances at the same rate as audio output: it does not drift from the
/// sound server's playback of this process, but may drift from the host time clock; while no
/// audio plays it advances with the host time clock.
public func CMAudioClockCreate(allocator: CFAllocator?, clockOut: UnsafeMutablePointer<CMClock?>) -> OSStatus {
    clockOut.pointee = CMClock.audio
    return noErr
}
