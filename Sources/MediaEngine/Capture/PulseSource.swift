// PulseSource: records one PulseAudio source as a LiveAudioSource — Float32 interleaved chunks of
// 10 ms stamped on the capture clock by counting samples from an anchor taken at the first chunk
// (clock now − the stream's latency).
internal import CPulse
import CoreMedia
import Foundation
import Synchronization

/// Records a PulseAudio source (by name) through libpulse's asynchronous API: each run has its
/// own `pa_threaded_mainloop` (the source's thread), context and record stream.
///
/// - Buffering: `fragsize` = 10 ms with `PA_STREAM_ADJUST_LATENCY` (the default attributes buffer
///   ~2 s, so a short recording would get a fraction of its sound), `maxlength` the server's.
/// - Chunks: exactly `rate / 100` frames each (a shorter one only before a discontinuity).
/// - Time: the first sample read is stamped `now − latency` on the run's clock
///   (`pa_stream_get_latency` before the data is dropped: the age of the first sample not yet
///   read); every later chunk is the anchor plus the frames counted since, in a timescale of the
///   sample rate, so consecutive PTS differ by exactly frames/rate. The stamp is checked against
///   the measured time at every read; when they differ by more than 20 ms (sound-card clock drift,
///   lost samples, the server lowering the source's latency after connecting) on every reading, on
///   the same side, for half a second of sound (single readings jump by tens of ms when the
///   server is late) and agreeing within 5 ms over the last ten, the run re-anchors on their
///   median and the next chunk is a discontinuity. Holes in the stream
///   are counted as frames and also start a discontinuity.
/// - Failure: a lost server or a removed source (`PA_STREAM_DONT_MOVE`: the stream is not moved to
///   another source) → `failed(.disconnected(…))`, once, on a thread of its own; no chunk after.
/// - `stop()` returns when libpulse's thread has ended (no `deliver` running or to come); it must
///   not be called from `deliver`.
package final class PulseSource: LiveAudioSource, Sendable {
    package let sourceName: String
    package let server: String?
    package let formats: [LiveAudioFormat]
    /// The source's own channel positions, asked for when the channel count matches (no remix).
    private let channelPositions: [Int32]
    /// The current recording.
    private let run = Mutex<PulseCaptureRun?>(nil)

    /// A source for `sourceName` on `server` (nil: libpulse's default) offering `formats`.
    package init(sourceName: String, server: String? = nil, formats: [LiveAudioFormat], channelPositions: [Int32] = []) {
        self.sourceName = sourceName
        self.server = server
        self.formats = formats
        self.channelPositions = channelPositions
    }

    /// How long `start` waits for the server to connect the stream.
    package static let startTimeout: TimeInterval = 3

    package func start(format: LiveAudioFormat, clock: CMClock,
                       deliver: @escaping @Sendable (LiveAudioChunk) -> Void,
                       failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError) {
        guard formats.contains(format) else {
            throw .unsupportedFormat("\(format) is not a format of the PulseAudio source \(sourceName)")
        }
        guard format.sampleRate >= 1, format.sampleRate <= 384_000, format.sampleRate == format.sampleRate.rounded(),
              (1...Int(AVF_PA_CHANNELS_MAX)).contains(format.channelCount) else {
            throw .unsupportedFormat("PulseAudio cannot record \(format)")
        }
        stop()
        let positions = channelPositions.count == format.channelCount ? channelPositions : []
        let run = try PulseCaptureRun(sourceName: sourceName, server: server, format: format, positions: positions,
                                      clock: clock, deliver: deliver, failed: failed)
        self.run.withLock { $0 = run }
    }

    deinit { stop() }

    package func stop() {
        let run = run.withLock { current -> PulseCaptureRun? in
            defer { current = nil }
            return current
        }
        run?.stop()
    }
}

/// One recording: main loop, context and stream, and the timing state; everything mutable is
/// touched on libpulse's thread or with the main loop's lock held.
private final class PulseCaptureRun: @unchecked Sendable {
    private let sourceName: String
    private let format: LiveAudioFormat
    private let clock: CMClock
    private let deliver: @Sendable (LiveAudioChunk) -> Void
    private let failed: @Sendable (LiveSourceError) -> Void
    private let rate: Int64
    private let frameBytes: Int
    private let chunkFrames: Int
    private let client: PulseClient

    // Timing: the PTS of frame `anchorFrame` is `anchorTime` (in 1/rate s).
    private var anchorTime: Int64 = 0
    private var anchorFrame: Int64 = 0
    private var anchored = false
    /// The current run of readings past the drift limit (measured − counted, ns) and where it began.
    private var driftRun: [Int64] = []
    private var driftRunStart: Int64 = 0
    /// Frames taken from the stream so far (holes included).
    private var framesRead: Int64 = 0
    /// The chunk being filled, the stream frame it starts at and whether it starts a discontinuity.
    private var pending = Data()
    private var pendingStart: Int64 = 0
    private var pendingDiscontinuity = true
    private var stopped = false
    private var reported = false
    /// Set once the stream is recording: failures before it are `start`'s errors, not reports.
    private var live = false
    /// The thread reporting `failed` (stop() called from it does not wait for itself).
    private let reporter = DispatchGroup()
    private let reporterThread = ReporterThread()

    /// Re-anchor when the counted time and the measured time part by more than this (20 ms).
    static let driftLimitNanoseconds: Int64 = 20_000_000
    /// A re-anchor waits until the last ten readings lie within this of each other (5 ms).
    static let settledSpreadNanoseconds: Int64 = 5_000_000

    init(sourceName: String, server: String?, format: LiveAudioFormat, positions: [Int32], clock: CMClock,
         deliver: @escaping @Sendable (LiveAudioChunk) -> Void,
         failed: @escaping @Sendable (LiveSourceError) -> Void) throws(LiveSourceError) {
        self.sourceName = sourceName
        self.format = format
        self.clock = clock
        self.deliver = deliver
        self.failed = failed
        rate = Int64(format.sampleRate)
        frameBytes = 4 * format.channelCount
        chunkFrames = max(1, Int(format.sampleRate / 100))
        do {
            client = try PulseClient(application: "AVFoundation capture", role: "production", server: server,
                                     timeout: PulseSource.startTimeout)
        } catch {
            throw error.disconnected ? .disconnected(error.text) : .failed(error.text)
        }
        pending.reserveCapacity(chunkFrames * frameBytes)
        client.withLock { client.onStateChange = { [unowned self] in self.stateChanged() } }
        do {
            try open(positions: positions)
        } catch {
            client.teardown()
            throw error
        }
    }

    private func open(positions: [Int32]) throws(LiveSourceError) {
        let opened: LiveSourceError? = client.withLock {
            guard let context = client.context else { return .failed("no PulseAudio context") }
            var spec = pa_sample_spec(format: AVF_PA_SAMPLE_FLOAT32NE, rate: UInt32(rate), channels: UInt8(format.channelCount))
            var map = pa_channel_map()
            if positions.isEmpty {
                pa_channel_map_init_extend(&map, UInt32(format.channelCount), PA_CHANNEL_MAP_DEFAULT)
            } else {
                map.channels = UInt8(positions.count)
                withUnsafeMutableBytes(of: &map.map) { raw in
                    let all = raw.bindMemory(to: pa_channel_position_t.self)
                    for (i, p) in positions.enumerated() where i < all.count { all[i] = pa_channel_position_t(rawValue: p) }
                }
            }
            guard let stream = pa_stream_new(context, "AVCaptureSession", &spec, &map) else {
                return .failed("cannot make a PulseAudio record stream: \(PulseDirectory.errorText(context))")
            }
            client.adopt(stream)
            pa_stream_set_read_callback(stream, { _, _, userdata in
                guard let userdata else { return }
                Unmanaged<PulseCaptureRun>.fromOpaque(userdata).takeUnretainedValue().readable()
            }, Unmanaged.passUnretained(self).toOpaque())
            var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max,
                                            fragsize: UInt32(chunkFrames * frameBytes))
            let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                                          | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_DONT_MOVE.rawValue)
            guard pa_stream_connect_record(stream, sourceName, &attributes, flags) >= 0 else {
                return .failed("cannot record from the PulseAudio source \(sourceName): \(PulseDirectory.errorText(context))")
            }
            return nil
        }
        if let opened { throw opened }
        // From the moment the stream is ready a failure is reported (the check and the flag under one lock).
        switch client.waitForStream(until: .now() + PulseSource.startTimeout, becameReady: { live = true }) {
        case .ready: return
        case .failed(let code, let text):
            if code == Int32(PA_ERR_NOENTITY.rawValue) { throw .disconnected("there is no PulseAudio source named \(sourceName)") }
            throw .failed("cannot record from the PulseAudio source \(sourceName): \(text)")
        case .timedOut:
            throw .failed("the PulseAudio source \(sourceName) did not start within \(PulseSource.startTimeout) s")
        }
    }

    /// Stops libpulse's thread and frees everything; waits for a `failed` report in progress
    /// (unless called from it).
    func stop() {
        client.withLock { stopped = true }
        client.teardown()
        if !reporterThread.isCurrent { reporter.wait() }
    }

    // MARK: - libpulse's thread (main loop lock held)

    private func stateChanged() {
        guard !stopped, let lost = client.lostConnection() else { return }
        if lost.serverLost {
            fail(.disconnected("the PulseAudio server went away (\(lost.text))"))
        } else {
            fail(.disconnected("the PulseAudio source \(sourceName) went away (\(lost.text))"))
        }
    }

    /// Ends delivery and reports `error` once, off libpulse's thread.
    private func fail(_ error: LiveSourceError) {
        guard live, !reported else { return }
        reported = true
        stopped = true
        let failed = self.failed, thread = reporterThread
        reporter.enter()
        DispatchQueue.global().async { [reporter] in
            thread.run { failed(error) }
            reporter.leave()
        }
    }

    private func readable() {
        guard let stream = client.stream, !stopped else { return }
        while !stopped, pa_stream_readable_size(stream) > 0 {
            var data: UnsafeRawPointer?
            var bytes = 0
            guard pa_stream_peek(stream, &data, &bytes) >= 0 else {
                fail(.disconnected("reading the PulseAudio source \(sourceName) failed (\(client.context.map(PulseDirectory.errorText) ?? ""))"))
                return
            }
            guard bytes > 0 else { return }
            let frames = bytes / frameBytes
            if let data {
                stamp(stream, peekedFrames: frames)
                take(data, frames: frames)
            } else {
                // A hole: frames the server lost. Counted, the next chunk starts a discontinuity.
                flushPending()
                framesRead += Int64(frames)
                pendingStart = framesRead
                pendingDiscontinuity = true
            }
            pa_stream_drop(stream)
        }
    }

    /// Anchors the count on the first read and re-anchors on drift (before `framesRead` moves).
    private func stamp(_ stream: OpaquePointer, peekedFrames: Int) {
        let now = CMTimeConvertScale(CMClockGetTime(clock), timescale: 1_000_000_000, method: .roundHalfAwayFromZero).value
        var latency: pa_usec_t = 0
        var negative: Int32 = 0
        let measured: Int64
        if pa_stream_get_latency(stream, &latency, &negative) == 0 {
            let nanoseconds = Int64(clamping: latency) * 1000
            measured = negative != 0 ? now + nanoseconds : now - nanoseconds
        } else if !anchored {
            // No timing information yet: the data just read is the best estimate of the latency.
            measured = now - Int64(peekedFrames) * 1_000_000_000 / rate
        } else {
            return
        }
        guard anchored else {
            anchored = true
            anchorFrame = framesRead
            anchorTime = Self.scale(measured, rate, 1_000_000_000)
            return
        }
        // Measured − counted. One reading past the limit is not drift: when the server is late,
        // latency readings jump by tens of milliseconds for a chunk or two. Only a run of readings
        // past the limit, on the same side, covering half a second of sound re-anchors, once its
        // last ten readings agree within 5 ms — on their median, so one odd reading does not set
        // the new anchor. (Within ~2 s of connecting, the server lowers the source's latency to
        // the 10 ms asked for; on a null sink's monitor the readings then fall by hundreds of
        // milliseconds over ~0.4 s while samples keep coming at the real rate: one re-anchor,
        // after the fall.)
        let predicted = Self.scale(anchorTime + (framesRead - anchorFrame), 1_000_000_000, rate)
        let difference = measured - predicted
        guard abs(difference) > Self.driftLimitNanoseconds,
              driftRun.isEmpty || (driftRun[0] > 0) == (difference > 0) else {
            driftRun.removeAll(keepingCapacity: true)
            driftRunStart = framesRead
            return
        }
        if driftRun.isEmpty { driftRunStart = framesRead }
        driftRun.append(difference)
        if driftRun.count > 10 { driftRun.removeFirst(driftRun.count - 10) }
        guard framesRead - driftRunStart >= rate / 2, driftRun.count == 10 else { return }
        // Still moving (the server changing its latency): wait until the readings agree.
        let recent = driftRun.sorted()
        guard recent[9] - recent[0] <= Self.settledSpreadNanoseconds else { return }
        let median = recent[5]
        driftRun.removeAll(keepingCapacity: true)
        flushPending()
        pendingDiscontinuity = true
        anchorFrame = framesRead
        anchorTime = Self.scale(predicted + median, rate, 1_000_000_000)
    }

    /// value × multiplier / divisor without overflowing for clock values (floor division for
    /// positive values).
    static func scale(_ value: Int64, _ multiplier: Int64, _ divisor: Int64) -> Int64 {
        value / divisor * multiplier + (value % divisor) * multiplier / divisor
    }

    /// Appends read frames to the chunk being filled, delivering each full chunk.
    private func take(_ data: UnsafeRawPointer, frames: Int) {
        var offset = 0
        let total = frames * frameBytes
        let chunkBytes = chunkFrames * frameBytes
        while offset < total, !stopped {
            let n = min(chunkBytes - pending.count, total - offset)
            pending.append(data.advanced(by: offset).assumingMemoryBound(to: UInt8.self), count: n)
            offset += n
            framesRead += Int64(n / frameBytes)
            if pending.count == chunkBytes { flushPending() }
        }
    }

    /// Delivers the chunk being filled (if any frames) and starts the next at `framesRead`.
    private func flushPending() {
        defer { pendingStart = framesRead }
        guard !pending.isEmpty, !stopped else { pending.removeAll(keepingCapacity: true); return }
        let frames = pending.count / frameBytes
        let pts = CMTime(value: anchorTime + (pendingStart - anchorFrame), timescale: CMTimeScale(rate))
        let chunk = LiveAudioChunk(samples: pending, frameCount: frames, format: format, pts: pts,
                                   isDiscontinuity: pendingDiscontinuity)
        pending = Data(capacity: chunkFrames * frameBytes)
        pendingDiscontinuity = false
        deliver(chunk)
    }
}

/// Marks the thread running a `failed` report, so that `stop()` from inside the report does not
/// wait for itself.
private final class ReporterThread: Sendable {
    private let thread = Mutex<pthread_t?>(nil)

    func run(_ body: () -> Void) {
        thread.withLock { $0 = pthread_self() }
        body()
        thread.withLock { $0 = nil }
    }

    var isCurrent: Bool { thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }
}
