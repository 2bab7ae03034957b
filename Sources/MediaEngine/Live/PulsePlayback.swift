// PulsePlayback: one PulseAudio playback stream that pulls its sound — the server asks for bytes,
// the owner's `fill` writes Float32 interleaved frames into libpulse's own buffer (no copy), and
// what it does not fill is silence. The stream's latency (time from a write to the moment it is
// heard) is measured before every fill and handed to it, so a renderer can write what belongs at
// now + latency. Works with PipeWire's Pulse server as with PulseAudio's.
internal import CPulse
import CoreMedia
import Foundation
import Synchronization

/// A PulseAudio playback stream on its own `pa_threaded_mainloop`.
///
/// - Buffering: `tlength` = `targetLatency` with `PA_STREAM_ADJUST_LATENCY` (the server sizes the
///   sink's buffer so the total is about that), `minreq` 10 ms, so `fill` runs every ~10 ms.
/// - `fill(buffer, latency)` runs on libpulse's thread and must not block; it returns the bytes
///   written (the rest of the buffer is zeroed). It is never called after `close()` returns.
/// - Pause is a cork (the server keeps what it holds), `flush()` drops what the server holds.
/// - Volume and mute are the stream's sink-input volume and mute on the server.
/// - Failure (the server goes away, the sink is removed: `PA_STREAM_DONT_MOVE`) → `failed(text)`
///   once, on a thread of its own; no `fill` after it.
package final class PulsePlayback: @unchecked Sendable {
    // @unchecked Sendable: owns libpulse's objects through `client`; the flags below are touched
    // on libpulse's thread or with the main loop's lock held.
    package typealias Fill = @Sendable (_ buffer: UnsafeMutableRawBufferPointer, _ latency: Double) -> Int

    /// How long `init` waits for the server to connect the stream.
    package static let startTimeout: TimeInterval = 3
    /// What the stream asks the server to buffer, by default (50 ms).
    package static let defaultTargetLatency: Double = 0.05

    package let sampleRate: Int
    package let channels: Int
    private let frameBytes: Int
    private let fill: Fill
    private let failed: @Sendable (_ reason: String, _ serverLost: Bool) -> Void
    private let client: PulseClient
    private var live = false
    private var stopped = false
    private var reported = false
    /// The last measured latency, in microseconds (read from any thread).
    private let measured = Atomic<Int64>(0)
    private let closeLock = Mutex(false)
    /// This stream among the process's streams (for the audio clock's reports).
    private let identity = PulsePlayback.streamCount.add(1, ordering: .relaxed).newValue
    private static let streamCount = Atomic<UInt64>(0)

    /// Opens a stream to `sinkName` (nil: the server's default sink) on `server` (nil: libpulse's
    /// default, e.g. `PULSE_SERVER`). Throws a description when no server answers or the sink is
    /// missing.
    package init(server: String? = nil, sinkName: String? = nil, sampleRate: Int, channels: Int,
                 streamName: String = "AVFoundation playback", targetLatency: Double = PulsePlayback.defaultTargetLatency,
                 fill: @escaping Fill, failed: @escaping @Sendable (_ reason: String, _ serverLost: Bool) -> Void) throws(PulsePlaybackError) {
        guard (1...384_000).contains(sampleRate), (1...Int(AVF_PA_CHANNELS_MAX)).contains(channels) else {
            throw PulsePlaybackError("PulseAudio cannot play \(channels) channels at \(sampleRate) Hz")
        }
        do {
            client = try PulseClient(application: "AVFoundation", role: "video", server: server, timeout: Self.startTimeout)
        } catch {
            throw PulsePlaybackError(error.text)
        }
        self.sampleRate = sampleRate
        self.channels = channels
        frameBytes = 4 * channels
        self.fill = fill
        self.failed = failed
        client.withLock { client.onStateChange = { [unowned self] in self.stateChanged() } }
        do {
            try openStream(sinkName: sinkName, streamName: streamName, targetLatency: targetLatency)
        } catch {
            // deinit runs after a throw from here: it must not tear down twice.
            closeLock.withLock { closed in
                closed = true
                client.teardown()
            }
            throw error
        }
    }

    deinit { close() }

    /// Seconds from a write to the moment it is heard, as last measured.
    package var latency: Double { Double(measured.load(ordering: .relaxed)) / 1e6 }

    private func openStream(sinkName: String?, streamName: String, targetLatency: Double) throws(PulsePlaybackError) {
        let sinkText = sinkName.map { "the PulseAudio sink \($0)" } ?? "the default PulseAudio sink"
        let opened: String? = client.withLock {
            guard let context = client.context else { return "no PulseAudio context" }
            var spec = pa_sample_spec(format: AVF_PA_SAMPLE_FLOAT32NE, rate: UInt32(sampleRate), channels: UInt8(channels))
            var map = pa_channel_map()
            pa_channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_DEFAULT)
            guard let stream = pa_stream_new(context, streamName, &spec, &map) else {
                return "cannot make a PulseAudio playback stream: \(PulseDirectory.errorText(context))"
            }
            client.adopt(stream)
            pa_stream_set_write_callback(stream, { _, bytes, userdata in
                guard let userdata else { return }
                Unmanaged<PulsePlayback>.fromOpaque(userdata).takeUnretainedValue().writable(bytes)
            }, Unmanaged.passUnretained(self).toOpaque())
            let bytesPerSecond = Double(sampleRate * frameBytes)
            var attributes = pa_buffer_attr(maxlength: UInt32.max,
                                            tlength: UInt32(max(1, (targetLatency * bytesPerSecond).rounded())) / UInt32(frameBytes) * UInt32(frameBytes),
                                            prebuf: UInt32.max,
                                            minreq: UInt32(sampleRate / 100 * frameBytes), fragsize: UInt32.max)
            let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                                          | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_DONT_MOVE.rawValue
                                          | PA_STREAM_START_CORKED.rawValue)
            guard pa_stream_connect_playback(stream, sinkName, &attributes, flags, nil, nil) >= 0 else {
                return "cannot play to \(sinkText): \(PulseDirectory.errorText(context))"
            }
            return nil
        }
        if let opened { throw PulsePlaybackError(opened) }
        switch client.waitForStream(until: .now() + Self.startTimeout, becameReady: { live = true }) {
        case .ready: return
        case .failed(let code, let text):
            if code == Int32(PA_ERR_NOENTITY.rawValue) { throw PulsePlaybackError("there is no PulseAudio sink named \(sinkName ?? "")") }
            throw PulsePlaybackError("cannot play to \(sinkText): \(text)")
        case .timedOut:
            throw PulsePlaybackError("\(sinkText) did not start within \(Self.startTimeout) s")
        }
    }

    // MARK: Control (any thread but libpulse's)

    /// Corks (true) or uncorks (false) the stream.
    package func setPaused(_ paused: Bool) {
        perform { stream, _ in pa_stream_cork(stream, paused ? 1 : 0, nil, nil) }
    }

    /// Drops what the server holds and has not played.
    package func flush() {
        perform { stream, _ in pa_stream_flush(stream, nil, nil) }
    }

    /// The stream's volume on the server (linear 0–1, PulseAudio's cubic mapping of it).
    package func setVolume(_ volume: Float) {
        let channels = self.channels
        perform { stream, context in
            var cv = pa_cvolume()
            pa_cvolume_set(&cv, UInt32(channels), pa_sw_volume_from_linear(Double(max(0, volume))))
            return pa_context_set_sink_input_volume(context, pa_stream_get_index(stream), &cv, nil, nil)
        }
    }

    package func setMuted(_ muted: Bool) {
        perform { stream, context in pa_context_set_sink_input_mute(context, pa_stream_get_index(stream), muted ? 1 : 0, nil, nil) }
    }

    /// Runs one asynchronous libpulse request on a live stream (its operation is not waited for).
    /// `closeLock` is held throughout, so `close()` cannot free the main loop under it.
    private func perform(_ request: (OpaquePointer, OpaquePointer) -> OpaquePointer?) {
        closeLock.withLock { closed in
            guard !closed else { return }
            client.withLock {
                guard !stopped, let stream = client.stream, let context = client.context,
                      pa_stream_get_state(stream) == PA_STREAM_READY else { return }
                if let operation = request(stream, context) { pa_operation_unref(operation) }
            }
        }
    }

    /// Stops for good: no `fill` starts after this returns. Not to be called from `fill` or `failed`.
    package func close() {
        closeLock.withLock { closed in
            guard !closed else { return }
            closed = true
            client.withLock { stopped = true }
            client.teardown()
        }
    }

    // MARK: libpulse's thread (main loop lock held)

    private func stateChanged() {
        guard live, !stopped, !reported, let lost = client.lostConnection() else { return }
        let text = lost.serverLost ? "the PulseAudio server went away (\(lost.text))" : "the PulseAudio sink went away (\(lost.text))"
        reported = true
        stopped = true
        let failed = self.failed, serverLost = lost.serverLost
        DispatchQueue.global().async { failed(text, serverLost) }
    }

    private func writable(_ requested: Int) {
        guard let stream = client.stream, !stopped, requested > 0 else { return }
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        if pa_stream_get_latency(stream, &usec, &negative) == 0 {
            measured.store(negative != 0 ? 0 : Int64(clamping: usec), ordering: .relaxed)
        }
        // How far the device has played: the audio clock (CMAudioClockCreate) keeps its pace.
        var played: pa_usec_t = 0
        if pa_stream_get_time(stream, &played) == 0 {
            let host = CMClockConvertHostTimeToSystemUnits(CMClockGetHostTimeClock().time)
            AudioOutputTimeline.shared.record(stream: identity, devicePosition: Int64(clamping: played) &* 1000,
                                              hostTime: Int64(clamping: host))
        }
        let latency = self.latency
        var remaining = requested - requested % frameBytes
        while remaining > 0, !stopped {
            var data: UnsafeMutableRawPointer?
            var size = remaining
            guard pa_stream_begin_write(stream, &data, &size) >= 0, let data, size >= frameBytes else { return }
            size -= size % frameBytes
            let buffer = UnsafeMutableRawBufferPointer(start: data, count: size)
            let written = max(0, min(size, fill(buffer, latency)))
            if written < size { memset(data + written, 0, size - written) }
            guard pa_stream_write(stream, data, size, nil, 0, PA_SEEK_RELATIVE) >= 0 else { return }
            remaining -= size
        }
    }

    /// The server's sinks: (name, description), the default sink first. Empty when no server answers.
    package static func sinks(server: String? = nil) -> [(name: String, description: String)] {
        PulseDirectory(server: server).sinks()
    }
}

/// Why a playback stream could not open.
package struct PulsePlaybackError: Error, CustomStringConvertible, Sendable {
    package let description: String
    init(_ description: String) { self.description = description }
}
