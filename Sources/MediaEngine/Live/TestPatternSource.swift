// TestPatternSource: the `testsrc:WxH@FPS` virtual camera — test pattern frames made one ahead and
// released at their capture time by a ClockedPump on its own thread.
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// Runs a `ClockedPump` on a thread of its own until the pump finishes or `stop()` is called;
/// `stop()` returns once the thread has left the pump, so no release runs after it.
final class PumpThread: Sendable {
    private let cancel: @Sendable () -> Void
    private let done = DispatchSemaphore(value: 0)

    init<Item>(name: String, pump: ClockedPump<Item>, finished: @escaping @Sendable () -> Void = {}) {
        cancel = { pump.cancel() }
        let thread = Thread { [done] in
            pump.run()
            finished()
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Cancels the pump and waits for the thread to leave it. Must not be called on the thread.
    func stop() {
        cancel()
        done.wait()
        done.signal()    // later stop() calls return at once
    }
}

/// The pump thread a live source runs, one at a time: starting a run stops the one before, and
/// a run that ended with a failure reports it.
final class PumpThreadSlot: Sendable {
    private let running = Mutex<PumpThread?>(nil)

    /// Runs `pump` on a thread named `name`; when the pump ends with a failure in `failure`, it
    /// goes to `failed`.
    func run<Item>(_ pump: ClockedPump<Item>, name: String, failure: PumpRunBox<LiveSourceError?>,
                   failed: @escaping @Sendable (LiveSourceError) -> Void) {
        stop()
        let thread = PumpThread(name: name, pump: pump) {
            if let error = failure.value { failed(error) }
        }
        running.withLock { $0 = thread }
    }

    /// Stops the running pump, if any, and waits for its thread to leave it.
    func stop() {
        let thread = running.withLock { running -> PumpThread? in
            defer { running = nil }
            return running
        }
        thread?.stop()
    }
}

/// A value the closures of one pump run share; they all run on the pump's thread.
final class PumpRunBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// Where live frames of one run are stamped: a timebase over the source's clock at rate 1 from
/// media time 0, and the clock time of media time 0 in a timescale that holds every frame time
/// exactly (`timescale`), so that PTS = `anchor` + media time with no rounding between frames.
struct LiveTimeline {
    let timebase: CMTimebase
    let anchor: CMTime

    init(clock: CMClock, timescale: CMTimeScale) throws(LiveSourceError) {
        guard let timebase = try? CMTimebase(sourceClock: clock) else { throw .failed("cannot make a timebase") }
        let now = CMClockGetTime(clock)
        guard CMTimebaseSetRateAndAnchorTime(timebase, rate: 1, anchorTime: .zero, immediateSourceTime: now) == noErr else {
            throw .failed("cannot start the timebase")
        }
        self.timebase = timebase
        anchor = CMTimeConvertScale(now, timescale: timescale, method: .roundHalfAwayFromZero)
    }

    /// A timescale in which multiples of `frameDuration` and the anchor are exact and fine:
    /// 90 000 (MPEG's clock: 24, 25, 30, 50, 60 and NTSC rates) when it divides evenly, else a
    /// multiple of the duration's own timescale of at least 90 000.
    static func timescale(for frameDuration: CMTime) -> CMTimeScale {
        let ts = frameDuration.timescale
        guard ts > 0 else { return 90_000 }
        if 90_000 % Int(ts) == 0 { return 90_000 }
        let factor = max(1, (90_000 + Int(ts) - 1) / Int(ts))
        return CMTimeScale(clamping: Int(ts) * factor)
    }

    func pts(_ mediaTime: CMTime) -> CMTime { anchor + mediaTime }
}

/// The test pattern camera: frames of the chosen format every frame duration, stamped with their
/// capture time and drawn with it (`HostTimeStrip`). A frame is drawn one ahead of its time; when
/// every pooled buffer is held by consumers the frame is skipped (its sequence number is not
/// delivered) until one comes back.
package final class TestPatternSource: LiveSource, Sendable {
    package let formats: [LiveVideoFormat]
    /// The virtual camera whose torch lights the pattern (`VirtualCameraLight`); nil: none.
    package let lightKey: String?
    private let pumpThread = PumpThreadSlot()
    /// Frames not made because the pool was exhausted.
    private let skipped = Mutex(0)

    package init(formats: [LiveVideoFormat], lightKey: String? = nil) {
        self.formats = formats
        self.lightKey = lightKey
    }

    /// Frames not made because the pool was exhausted, since the source was made.
    package var skippedCount: Int { skipped.withLock { $0 } }

    package func start(format: LiveVideoFormat, frameDuration: CMTime, clock: CMClock,
                       deliver: @escaping @Sendable (LiveFrame) -> Void,
                       failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError) {
        try checkStart(format: format, frameDuration: frameDuration, of: "this camera")
        stop()
        let generator = try TestPatternGenerator(width: format.width, height: format.height)
        let timeline = try LiveTimeline(clock: clock, timescale: LiveTimeline.timescale(for: frameDuration))
        var n: UInt64 = 0
        let failure = PumpRunBox<LiveSourceError?>(nil)
        let lightKey = self.lightKey
        let pump = ClockedPump<LiveFrame?>(timebase: timeline.timebase, produce: { [weak self] in
            guard failure.value == nil else { return nil }
            let mediaTime = CMTimeMultiply(frameDuration, multiplier: Int32(clamping: n))
            let pts = timeline.pts(mediaTime)
            defer { n += 1 }
            do {
                let light = lightKey.map { VirtualCameraLight.level(for: $0) } ?? 0
                guard let buffer = try generator.makeFrame(frameNumber: n, pts: pts, light: light) else {
                    self?.skipped.withLock { $0 += 1 }
                    return (nil, mediaTime, frameDuration)
                }
                return (LiveFrame(pixelBuffer: buffer, pts: pts, duration: frameDuration, sequence: n), mediaTime, frameDuration)
            } catch {
                failure.value = error as? LiveSourceError ?? .failed("\(error)")
                return nil
            }
        }, release: { frame, _ in
            if let frame { deliver(frame) }
        })
        pumpThread.run(pump, name: "testsrc \(format.width)x\(format.height)", failure: failure, failed: failed)
    }

    package func stop() {
        pumpThread.stop()
    }
}
