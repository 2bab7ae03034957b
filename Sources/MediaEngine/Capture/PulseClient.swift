// PulseClient: the connection under each PulseAudio stream — a threaded main loop and a context
// connected to a server — made, waited for and torn down the same way for recording (PulseSource)
// and playback (PulsePlayback).
internal import CPulse
import Foundation

/// A libpulse client: its own `pa_threaded_mainloop` and a context on it, plus the one stream
/// the owner makes on that context. Every libpulse object here is touched on the main loop's
/// thread (callbacks) or with its lock held (`withLock`).
final class PulseClient: @unchecked Sendable {
    // @unchecked Sendable: owns the main loop, the context and the stream (C handles); used only
    // with the main loop's lock held or on its thread, as libpulse requires.
    let mainloop: OpaquePointer
    private(set) var context: OpaquePointer?
    /// The owner's stream, once made (`adopt`).
    private(set) var stream: OpaquePointer?
    /// Signalled at every context or stream state change (what the waits below wait on).
    let changed = DispatchSemaphore(value: 0)
    /// Called on libpulse's thread, lock held, after every context or stream state change (set
    /// it with the lock held).
    var onStateChange: (() -> Void)?
    private var tornDown = false

    /// Why a connection or a stream could not be made: whether the server was unreachable (or
    /// the named device missing), and the text.
    struct Failure: Error {
        var disconnected: Bool
        var text: String
    }

    /// Connects to `server` (nil: libpulse's default) as `application`, waiting at most
    /// `timeout` seconds.
    init(application: String, role: String, server: String?, timeout: TimeInterval) throws(Failure) {
        guard let loop = pa_threaded_mainloop_new() else { throw Failure(disconnected: false, text: "cannot make a PulseAudio main loop") }
        mainloop = loop
        do {
            try connect(application: application, role: role, server: server, timeout: timeout)
        } catch {
            teardown()
            throw error
        }
    }

    deinit { teardown() }

    private func connect(application: String, role: String, server: String?, timeout: TimeInterval) throws(Failure) {
        let serverText = server.map { " at \($0)" } ?? ""
        let properties = pa_proplist_new()
        pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, application)
        pa_proplist_sets(properties, PA_PROP_MEDIA_ROLE, role)
        let made = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), application, properties)
        pa_proplist_free(properties)
        guard let made else { throw Failure(disconnected: false, text: "cannot make a PulseAudio context") }
        context = made
        pa_context_set_state_callback(made, { _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseClient>.fromOpaque(userdata).takeUnretainedValue().changedState()
        }, Unmanaged.passUnretained(self).toOpaque())
        guard pa_context_connect(made, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw Failure(disconnected: true, text: "cannot connect to the PulseAudio server\(serverText): \(PulseDirectory.errorText(made))")
        }
        guard pa_threaded_mainloop_start(mainloop) >= 0 else { throw Failure(disconnected: false, text: "cannot start a PulseAudio main loop") }
        let deadline = DispatchTime.now() + timeout
        while true {
            let (state, reason) = withLock { (pa_context_get_state(made), PulseDirectory.errorText(made)) }
            if state == PA_CONTEXT_READY { return }
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                throw Failure(disconnected: true, text: "cannot connect to the PulseAudio server\(serverText): \(reason)")
            }
            if changed.wait(timeout: deadline) == .timedOut {
                throw Failure(disconnected: true, text: "the PulseAudio server did not answer within \(timeout) s")
            }
        }
    }

    /// Runs `body` with the main loop's lock held.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// Takes `stream` (made on `context`, lock held) as the client's: its state changes are
    /// reported like the context's, and teardown disconnects it.
    func adopt(_ stream: OpaquePointer) {
        self.stream = stream
        pa_stream_set_state_callback(stream, { _, userdata in
            guard let userdata else { return }
            Unmanaged<PulseClient>.fromOpaque(userdata).takeUnretainedValue().changedState()
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// How waiting for the stream to connect ended.
    enum StreamOutcome {
        case ready
        /// The stream or the context failed: libpulse's error code and text.
        case failed(code: Int32, text: String)
        case timedOut
    }

    /// Waits until the adopted stream is ready; `becameReady` runs with the lock held in the same
    /// step that saw it ready (so a flag it sets is consistent with the callbacks).
    func waitForStream(until deadline: DispatchTime, becameReady: () -> Void) -> StreamOutcome {
        guard let stream, let context else { return .failed(code: 0, text: "no stream") }
        while true {
            let outcome: StreamOutcome? = withLock {
                let state = pa_stream_get_state(stream)
                let contextState = pa_context_get_state(context)
                if state == PA_STREAM_READY, contextState == PA_CONTEXT_READY {
                    becameReady()
                    return .ready
                }
                if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED || contextState != PA_CONTEXT_READY {
                    return .failed(code: pa_context_errno(context), text: PulseDirectory.errorText(context))
                }
                return nil
            }
            if let outcome { return outcome }
            if changed.wait(timeout: deadline) == .timedOut { return .timedOut }
        }
    }

    /// Whether the context or the stream has failed or ended (lock held): the server went away
    /// (`serverLost`) or the stream's device did.
    func lostConnection() -> (serverLost: Bool, text: String)? {
        guard let context else { return nil }
        let contextState = pa_context_get_state(context)
        if contextState == PA_CONTEXT_FAILED || contextState == PA_CONTEXT_TERMINATED {
            return (true, PulseDirectory.errorText(context))
        }
        if let stream {
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED { return (false, PulseDirectory.errorText(context)) }
        }
        return nil
    }

    /// Stops libpulse's thread (no callback after this returns) and frees the stream, the
    /// context and the main loop. Idempotent; not to be called on libpulse's thread.
    func teardown() {
        guard !tornDown else { return }
        tornDown = true
        pa_threaded_mainloop_stop(mainloop)
        if let stream {
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_set_read_callback(stream, nil, nil)
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

    private func changedState() {
        changed.signal()
        onStateChange?()
    }
}
