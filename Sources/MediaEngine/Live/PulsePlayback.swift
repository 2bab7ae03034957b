// PulsePlayback: one PulseAudio playback stream that pulls its sound — the server asks for bytes,
// the owner's `fill` writes Float32 interleaved frames into libpulse's own buffer (no copy), and
// what it does not fill is silence. The stream's latency (time from a write to the moment it is
// heard) is measured before every fill and handed to it, so a renderer can write what belongs at
// now + latency. Works with PipeWire's Pulse server as with PulseAudio's.
internal import CPulse
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
    // @unchecked Sendable: owns libpulse's main loop, context and stream; every field below the
    // lets is touched on libpulse's thread or with the main loop's lock held.
    package typealias Fill = @Sendable (_ buffer: UnsafeMutableRawBufferPointer, _ latency: Double) -> Int

    /// How long `init` waits for the server to connect the stream.
    package static let startTimeout: TimeInterval = 3
    /// What the stream asks the server to buffer, by default (50 ms).
    package static let defaultTargetLatency: Double = 0.05

    package let sampleRate: Int
    package let channels: Int
    private let frameBytes: Int
    private let fill: Fill
    private let failed: @Sendable (String) -> Void
    private let mainloop: OpaquePointer
    private var context: OpaquePointer?
    private var stream: OpaquePointer?
    private let changed = DispatchSemaphore(value: 0)
    private var live = false
    private var stopped = false
    private var reported = false
    /// The last measured latency, in microseconds (read from any thread).
    private let measured = Atomic<Int64>(0)
    private let closeLock = Mutex(false)

    /// Opens a stream to `sinkName` (nil: the server's default sink) on `server` (nil: libpulse's
    /// default, e.g. `PULSE_SERVER`). Throws a description when no server answers or the sink is
    /// missing.
    package init(server: String? = nil, sinkName: String? = nil, sampleRate: Int, channels: Int,
                 streamName: String = "AVFoundation playback", targetLatency: Double = PulsePlayback.defaultTargetLatency,
                 fill: @escaping Fill, failed: @escaping @Sendable (String) -> Void) throws(PulsePlaybackError) {
        guard (1...384_000).contains(sampleRate), (1...Int(AVF_PA_CHANNELS_MAX)).contains(channels) else {
            throw PulsePlaybackError("PulseAudio cannot play \(channels) channels at \(sampleRate) Hz")
        }
        self.sampleRate = sampleRate
        self.channels = channels
        frameBytes = 4 * channels
        self.fill = fill
        self.failed = failed
        guard let loop = pa_threaded_mainloop_new() else { throw PulsePlaybackError("cannot make a PulseAudio main loop") }
        mainloop = loop
        do {
            try open(server: server, sinkName: sinkName, streamName: streamName, targetLatency: targetLatency)
        } catch {
            // deinit runs after a throw from here: it must not tear down twice.
            closeLock.withLock { closed in
                closed = true
                teardown()
            }
            throw error
        }
    }

    deinit { close() }

    /// Seconds from a write to the moment it is heard, as last measured.
    package var latency: Double { Double(measured.load(ordering: .relaxed)) / 1e6 }

    private func open(server: String?, sinkName: String?, streamName: String, targetLatency: Double) throws(PulsePlaybackError) {
        let properties = pa_proplist_new()
        pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, "AVFoundation")
        pa_proplist_sets(properties, PA_PROP_MEDIA_ROLE, "video")
        let made = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), "AVFoundation", properties)
        pa_proplist_free(properties)
        guard let made else { throw PulsePlaybackError("cannot make a PulseAudio context") }
        context = made
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(made, { _, userdata in
            guard let userdata else { return }
            Unmanaged<PulsePlayback>.fromOpaque(userdata).takeUnretainedValue().stateChanged()
        }, me)
        guard pa_context_connect(made, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw PulsePlaybackError("cannot connect to the PulseAudio server\(server.map { " at \($0)" } ?? ""): \(PulseDirectory.errorText(made))")
        }
        guard pa_threaded_mainloop_start(mainloop) >= 0 else { throw PulsePlaybackError("cannot start a PulseAudio main loop") }
        let deadline = DispatchTime.now() + Self.startTimeout
        while true {
            pa_threaded_mainloop_lock(mainloop)
            let state = pa_context_get_state(made)
            let reason = PulseDirectory.errorText(made)
            pa_threaded_mainloop_unlock(mainloop)
            if state == PA_CONTEXT_READY { break }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                throw PulsePlaybackError("cannot connect to the PulseAudio server\(server.map { " at \($0)" } ?? ""): \(reason)")
            }
            if changed.wait(timeout: deadline) == .timedOut {
                throw PulsePlaybackError("the PulseAudio server did not answer within \(Self.startTimeout) s")
            }
        }

        pa_threaded_mainloop_lock(mainloop)
        var spec = pa_sample_spec(format: AVF_PA_SAMPLE_FLOAT32NE, rate: UInt32(sampleRate), channels: UInt8(channels))
        var map = pa_channel_map()
        pa_channel_map_init_extend(&map, UInt32(channels), PA_CHANNEL_MAP_DEFAULT)
        guard let stream = pa_stream_new(made, streamName, &spec, &map) else {
            let reason = PulseDirectory.errorText(made)
            pa_threaded_mainloop_unlock(mainloop)
            throw PulsePlaybackError("cannot make a PulseAudio playback stream: \(reason)")
        }
        self.stream = stream
        pa_stream_set_state_callback(stream, { _, userdata in
            guard let userdata else { return }
            Unmanaged<PulsePlayback>.fromOpaque(userdata).takeUnretainedValue().stateChanged()
        }, me)
        pa_stream_set_write_callback(stream, { _, bytes, userdata in
            guard let userdata else { return }
            Unmanaged<PulsePlayback>.fromOpaque(userdata).takeUnretainedValue().writable(bytes)
        }, me)
        let bytesPerSecond = Double(sampleRate * frameBytes)
        var attributes = pa_buffer_attr(maxlength: UInt32.max,
                                        tlength: UInt32(max(1, (targetLatency * bytesPerSecond).rounded())) / UInt32(frameBytes) * UInt32(frameBytes),
                                        prebuf: UInt32.max,
                                        minreq: UInt32(sampleRate / 100 * frameBytes), fragsize: UInt32.max)
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                                      | PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_DONT_MOVE.rawValue
                                      | PA_STREAM_START_CORKED.rawValue)
        let connected = pa_stream_connect_playback(stream, sinkName, &attributes, flags, nil, nil)
        let connectReason = PulseDirectory.errorText(made)
        pa_threaded_mainloop_unlock(mainloop)
        let sinkText = sinkName.map { "the PulseAudio sink \($0)" } ?? "the default PulseAudio sink"
        guard connected >= 0 else { throw PulsePlaybackError("cannot play to \(sinkText): \(connectReason)") }
        while true {
            pa_threaded_mainloop_lock(mainloop)
            let state = pa_stream_get_state(stream)
            let contextState = pa_context_get_state(made)
            let error = pa_context_errno(made)
            let reason = PulseDirectory.errorText(made)
            if state == PA_STREAM_READY, contextState == PA_CONTEXT_READY { live = true }
            pa_threaded_mainloop_unlock(mainloop)
            if live { return }
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED || contextState != PA_CONTEXT_READY {
                if error == Int32(PA_ERR_NOENTITY.rawValue) { throw PulsePlaybackError("there is no PulseAudio sink named \(sinkName ?? "")") }
                throw PulsePlaybackError("cannot play to \(sinkText): \(reason)")
            }
            if changed.wait(timeout: deadline) == .timedOut {
                throw PulsePlaybackError("\(sinkText) did not start within \(Self.startTimeout) s")
            }
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
            pa_threaded_mainloop_lock(mainloop)
            defer { pa_threaded_mainloop_unlock(mainloop) }
            guard !stopped, let stream, let context, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
            if let operation = request(stream, context) { pa_operation_unref(operation) }
        }
    }

    /// Stops for good: no `fill` starts after this returns. Not to be called from `fill` or `failed`.
    package func close() {
        closeLock.withLock { closed in
            guard !closed else { return }
            closed = true
            pa_threaded_mainloop_lock(mainloop)
            stopped = true
            pa_threaded_mainloop_unlock(mainloop)
            teardown()
        }
    }

    private func teardown() {
        pa_threaded_mainloop_stop(mainloop)
        if let stream {
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_set_write_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
            self.stream = nil
        }
        if let context {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
            self.context = nil
        }
        pa_threaded_mainloop_free(mainloop)
    }

    // MARK: libpulse's thread (main loop lock held)

    private func stateChanged() {
        changed.signal()
        guard let context, let stream, live, !stopped, !reported else { return }
        let contextState = pa_context_get_state(context)
        let streamState = pa_stream_get_state(stream)
        let text: String
        if contextState == PA_CONTEXT_FAILED || contextState == PA_CONTEXT_TERMINATED {
            text = "the PulseAudio server went away (\(PulseDirectory.errorText(context)))"
        } else if streamState == PA_STREAM_FAILED || streamState == PA_STREAM_TERMINATED {
            text = "the PulseAudio sink went away (\(PulseDirectory.errorText(context)))"
        } else {
            return
        }
        reported = true
        stopped = true
        let failed = self.failed
        DispatchQueue.global().async { failed(text) }
    }

    private func writable(_ requested: Int) {
        guard let stream, !stopped, requested > 0 else { return }
        var usec: pa_usec_t = 0
        var negative: Int32 = 0
        if pa_stream_get_latency(stream, &usec, &negative) == 0 {
            measured.store(negative != 0 ? 0 : Int64(clamping: usec), ordering: .relaxed)
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
