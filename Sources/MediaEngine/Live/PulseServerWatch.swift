// PulseServerWatch: one PulseAudio server watched for the audio session — its default sink and
// source, every sink and source with the properties a route is described by (bus, form factor,
// active port, channels, volume, latency), whether other processes play, and the server going
// away and coming back. One context (on a `PulseClient`) subscribed to sink, source, sink-input
// and server events; each event batch re-reads the whole state on the watch's queue.
internal import CPulse
import Foundation
import Synchronization

/// One PulseAudio sink (playback device) as the audio session describes it, without C types.
package struct PulseSinkInfo: Sendable, Hashable {
    package var index: UInt32
    /// The sink's name (`alsa_output.pci-…`, `tone_sink`): stable across runs.
    package var name: String
    /// The human-readable name ("Built-in Audio Analog Stereo").
    package var description: String
    package var sampleRate: Double
    package var channelCount: Int
    /// The channels' positions as PulseAudio names them ("front-left", "mono").
    package var channelNames: [String]
    /// The average channel volume, 1 = 100 % (PulseAudio allows more).
    package var volume: Double
    package var muted: Bool
    /// The sink's current latency, in seconds.
    package var latency: Double
    /// The module that made the sink ("module-alsa-card.c", "module-null-sink.c").
    package var driver: String
    /// The active port's name ("analog-output-headphones", "hdmi-output-0"), if the sink has ports.
    package var activePort: String?
    /// Selected device properties (`device.bus`, `device.form_factor`, `device.profile.name`,
    /// `device.icon_name`, `bluetooth.protocol`, `device.api`) when the sink has them.
    package var properties: [String: String]
}

/// One PulseAudio source (recording device) with what the session needs beyond `PulseSourceInfo`.
package struct PulseSourceDetail: Sendable, Hashable {
    package var info: PulseSourceInfo
    /// The average channel volume, 1 = 100 %.
    package var volume: Double
    package var muted: Bool
    /// The source's current latency, in seconds.
    package var latency: Double
    /// The active port's name ("analog-input-mic", "analog-input-linein").
    package var activePort: String?
}

/// What one server looked like at one moment.
package struct PulseServerState: Sendable, Hashable {
    package var defaultSinkName: String?
    package var defaultSourceName: String?
    /// The server's default sample rate.
    package var sampleRate: Double
    package var sinks: [PulseSinkInfo]
    package var sources: [PulseSourceDetail]
    /// Playback streams of other processes that are not corked (paused).
    package var otherProcessesPlaying: Int

    package var defaultSink: PulseSinkInfo? { sinks.first { $0.name == defaultSinkName } }
    package var defaultSource: PulseSourceDetail? { sources.first { $0.info.name == defaultSourceName } }
}

/// Watches one PulseAudio server and reports its state as it changes.
///
/// Nothing connects before `start()`. While started, the watch keeps one connection; every
/// change of a sink, source, playback stream or the server's defaults re-reads the state and
/// reports `.changed` when it differs. A lost server is reported once (`.lost`); then the watch
/// tries to connect every half second and reports `.connected(state, afterLoss: true)` when a
/// server answers again. Events are delivered in order on the watch's serial queue, never on
/// libpulse's thread. Every wait is bounded by `timeout`.
package final class PulseServerWatch: Sendable {
    /// What the watch reports.
    package enum Event: Sendable {
        /// Connected (at start, or again after the server went away or was never there).
        case connected(PulseServerState, afterLoss: Bool)
        /// Something about the server changed.
        case changed(PulseServerState)
        /// The connection to the server was lost (the text says why).
        case lost(String)
    }

    package let server: String?
    package let timeout: TimeInterval
    private let queue = DispatchQueue(label: "PulseServerWatch")
    private let handler: @Sendable (Event) -> Void

    private struct State {
        var running = false
        var client: PulseClient?
        var last: PulseServerState?
        var refreshPending = false
        var reconnectPending = false
        /// A connection was lost and no server has answered since.
        var lostSinceConnect = false
        /// Bumped by every start and stop: work scheduled for an older run does nothing.
        var generation = 0
    }
    private let state = Mutex(State())

    /// A watch of `server` (nil: libpulse's default — `PULSE_SERVER`, client.conf, the session's
    /// daemon), reporting to `handler` on the watch's queue.
    package init(server: String?, timeout: TimeInterval = 2, handler: @escaping @Sendable (Event) -> Void) {
        self.server = server
        self.timeout = timeout
        self.handler = handler
    }

    deinit {
        state.withLock { $0.client }?.teardown()
    }

    /// The state last read (nil while no server answers or before `start()`).
    package var current: PulseServerState? { state.withLock { $0.last } }

    /// Starts watching (connecting on the watch's queue); nothing if started.
    package func start() {
        let generation: Int? = state.withLock {
            guard !$0.running else { return nil }
            $0.running = true
            $0.generation += 1
            return $0.generation
        }
        guard let generation else { return }
        queue.async { self.connect(generation: generation) }
    }

    /// Stops watching: nothing is reported after this returns except an event already being
    /// delivered; the connection is closed on the watch's queue, after any read using it.
    package func stop() {
        let client: PulseClient? = state.withLock {
            $0.running = false
            $0.generation += 1
            $0.last = nil
            $0.lostSinceConnect = false
            let client = $0.client
            $0.client = nil
            return client
        }
        if let client { queue.async { client.teardown() } }
    }

    /// Waits until the events scheduled so far have been delivered.
    package func sync() { queue.sync {} }

    /// The state of `server` read once, on a connection of its own (nil: no server answered).
    package static func read(server: String?, timeout: TimeInterval = 2) -> PulseServerState? {
        guard let client = try? PulseClient(application: "AVFoundation audio session", role: "event", server: server, timeout: timeout) else {
            return nil
        }
        defer { client.teardown() }
        return fetch(client, timeout: timeout)
    }

    // MARK: - The watch's queue

    private func isCurrent(_ generation: Int) -> Bool { state.withLock { $0.running && $0.generation == generation } }

    private func connect(generation: Int) {
        guard isCurrent(generation) else { return }
        let client: PulseClient
        do {
            client = try PulseClient(application: "AVFoundation audio session", role: "event", server: server, timeout: timeout)
        } catch {
            scheduleReconnect(generation: generation)
            return
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let subscribed: Bool = client.withLock {
            guard let context = client.context else { return false }
            client.onStateChange = { [weak self, weak client] in
                // libpulse's thread, lock held.
                guard let self, let client, let lost = client.lostConnection(), lost.serverLost else { return }
                self.queue.async { self.connectionLost(client, reason: lost.text, generation: generation) }
            }
            pa_context_set_subscribe_callback(context, { _, _, _, userdata in
                guard let userdata else { return }
                Unmanaged<PulseServerWatch>.fromOpaque(userdata).takeUnretainedValue().somethingChanged()
            }, me)
            let mask = PA_SUBSCRIPTION_MASK_SINK.rawValue | PA_SUBSCRIPTION_MASK_SOURCE.rawValue
                | PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue
            guard let op = pa_context_subscribe(context, pa_subscription_mask_t(rawValue: mask), nil, nil) else { return false }
            pa_operation_unref(op)
            return true
        }
        guard subscribed, let read = Self.fetch(client, timeout: timeout) else {
            client.teardown()
            scheduleReconnect(generation: generation)
            return
        }
        let afterLoss: Bool? = state.withLock {
            guard $0.running, $0.generation == generation else { return nil }
            $0.client = client
            $0.last = read
            let lost = $0.lostSinceConnect
            $0.lostSinceConnect = false
            return lost
        }
        guard let afterLoss else { client.teardown(); return }
        handler(.connected(read, afterLoss: afterLoss))
    }

    /// libpulse's thread: a subscription event; one refresh is queued for a burst of them.
    private func somethingChanged() {
        let generation: Int? = state.withLock {
            guard $0.running, !$0.refreshPending else { return nil }
            $0.refreshPending = true
            return $0.generation
        }
        guard let generation else { return }
        queue.async { self.refresh(generation: generation) }
    }

    private func refresh(generation: Int) {
        let client: PulseClient? = state.withLock {
            $0.refreshPending = false
            return $0.running && $0.generation == generation ? $0.client : nil
        }
        guard let client, let read = Self.fetch(client, timeout: timeout) else { return }
        let changed = state.withLock {
            guard $0.running, $0.generation == generation, $0.client === client, $0.last != read else { return false }
            $0.last = read
            return true
        }
        if changed { handler(.changed(read)) }
    }

    private func connectionLost(_ client: PulseClient, reason: String, generation: Int) {
        let current = state.withLock {
            guard $0.running, $0.generation == generation, $0.client === client else { return false }
            $0.client = nil
            $0.last = nil
            $0.lostSinceConnect = true
            return true
        }
        client.teardown()
        guard current else { return }
        handler(.lost("the PulseAudio server connection was lost: \(reason)"))
        scheduleReconnect(generation: generation)
    }

    private func scheduleReconnect(generation: Int) {
        let go = state.withLock {
            guard $0.running, $0.generation == generation, !$0.reconnectPending else { return false }
            $0.reconnectPending = true
            return true
        }
        guard go else { return }
        queue.asyncAfter(deadline: .now() + 0.5) {
            self.state.withLock { $0.reconnectPending = false }
            self.connect(generation: generation)
        }
    }

    // MARK: - Reading the state (not on libpulse's thread)

    /// The server's defaults, sinks, sources and other processes' playing streams (nil: the
    /// server did not answer every request within `timeout`).
    private static func fetch(_ client: PulseClient, timeout: TimeInterval) -> PulseServerState? {
        let server = WatchRequest(ServerFacts())
        guard client.perform(server, timeout: timeout, { context, userdata in
            pa_context_get_server_info(context, { _, info, userdata in
                guard let userdata else { return }
                let request = Unmanaged<WatchRequest<ServerFacts>>.fromOpaque(userdata).takeUnretainedValue()
                if let info {
                    let facts = ServerFacts(defaultSink: info.pointee.default_sink_name.map { String(cString: $0) },
                                            defaultSource: info.pointee.default_source_name.map { String(cString: $0) },
                                            sampleRate: Double(info.pointee.sample_spec.rate))
                    request.value.withLock { $0 = facts }
                }
                request.finish()
            }, userdata)
        }) else { return nil }
        let sinks = WatchRequest([PulseSinkInfo]())
        guard client.perform(sinks, timeout: timeout, { context, userdata in
            pa_context_get_sink_info_list(context, { _, info, eol, userdata in
                guard let userdata else { return }
                let request = Unmanaged<WatchRequest<[PulseSinkInfo]>>.fromOpaque(userdata).takeUnretainedValue()
                guard eol == 0, let info else { request.finish(); return }
                let sink = PulseServerWatch.describe(info.pointee)
                request.value.withLock { $0.append(sink) }
            }, userdata)
        }) else { return nil }
        let sources = WatchRequest([PulseSourceDetail]())
        guard client.perform(sources, timeout: timeout, { context, userdata in
            pa_context_get_source_info_list(context, { _, info, eol, userdata in
                guard let userdata else { return }
                let request = Unmanaged<WatchRequest<[PulseSourceDetail]>>.fromOpaque(userdata).takeUnretainedValue()
                guard eol == 0, let info else { request.finish(); return }
                let source = PulseServerWatch.describe(info.pointee)
                request.value.withLock { $0.append(source) }
            }, userdata)
        }) else { return nil }
        let inputs = WatchRequest(0)
        guard client.perform(inputs, timeout: timeout, { context, userdata in
            pa_context_get_sink_input_info_list(context, { _, info, eol, userdata in
                guard let userdata else { return }
                let request = Unmanaged<WatchRequest<Int>>.fromOpaque(userdata).takeUnretainedValue()
                guard eol == 0, let info else { request.finish(); return }
                guard info.pointee.corked == 0 else { return }
                let pid = info.pointee.proplist.flatMap { pa_proplist_gets($0, PA_PROP_APPLICATION_PROCESS_ID) }.map { String(cString: $0) }
                if pid != String(getpid()) { request.value.withLock { $0 += 1 } }
            }, userdata)
        }) else { return nil }
        let facts = server.result
        return PulseServerState(defaultSinkName: facts.defaultSink, defaultSourceName: facts.defaultSource,
                                sampleRate: facts.sampleRate, sinks: sinks.result, sources: sources.result,
                                otherProcessesPlaying: inputs.result)
    }

    private static let propertyKeys = ["device.bus", "device.form_factor", "device.profile.name", "device.icon_name",
                                       "bluetooth.protocol", "device.api", "device.vendor.name", "device.class"]

    private static func properties(_ list: OpaquePointer?) -> [String: String] {
        var properties: [String: String] = [:]
        guard let list else { return properties }
        for key in propertyKeys {
            if let value = pa_proplist_gets(list, key) { properties[key] = String(cString: value) }
        }
        return properties
    }

    /// 1 = PA_VOLUME_NORM (0x10000; the macro is a cast Swift does not import).
    private static func level(_ volume: pa_cvolume) -> Double {
        var volume = volume
        return Double(pa_cvolume_avg(&volume)) / 65536
    }

    private static func describe(_ info: pa_sink_info) -> PulseSinkInfo {
        var names: [String] = []
        var map = info.channel_map
        withUnsafeBytes(of: &map.map) { raw in
            let all = raw.bindMemory(to: pa_channel_position_t.self)
            for i in 0..<min(Int(map.channels), all.count) {
                names.append(pa_channel_position_to_string(all[i]).map { String(cString: $0) } ?? "unknown")
            }
        }
        return PulseSinkInfo(
            index: info.index,
            name: info.name.map { String(cString: $0) } ?? "",
            description: info.description.map { String(cString: $0) } ?? "",
            sampleRate: Double(info.sample_spec.rate), channelCount: Int(info.sample_spec.channels), channelNames: names,
            volume: level(info.volume), muted: info.mute != 0,
            latency: Double(info.latency) / 1_000_000,
            driver: info.driver.map { String(cString: $0) } ?? "",
            activePort: info.active_port.flatMap { $0.pointee.name.map { String(cString: $0) } },
            properties: properties(info.proplist))
    }

    private static func describe(_ info: pa_source_info) -> PulseSourceDetail {
        var described = PulseDirectory.describe(info)
        described.properties.merge(properties(info.proplist)) { old, _ in old }
        return PulseSourceDetail(
            info: described, volume: level(info.volume), muted: info.mute != 0,
            latency: Double(info.latency) / 1_000_000,
            activePort: info.active_port.flatMap { $0.pointee.name.map { String(cString: $0) } })
    }
}

extension PulseClient {
    /// Starts an operation on the context (the main loop's lock held) and waits for its callback
    /// to `finish` the request, at most `timeout`; an unfinished operation is cancelled (no
    /// callback touches the request after this returns). Not on libpulse's thread.
    fileprivate func perform<Value>(_ request: WatchRequest<Value>, timeout: TimeInterval,
                             _ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?) -> Bool {
        let op: OpaquePointer? = withLock {
            guard let context, pa_context_get_state(context) == PA_CONTEXT_READY else { return nil }
            return start(context, Unmanaged.passUnretained(request).toOpaque())
        }
        guard let op else { return false }
        let finished = request.done.wait(timeout: .now() + timeout) == .success
        withLock {
            if pa_operation_get_state(op) == PA_OPERATION_RUNNING { pa_operation_cancel(op) }
            pa_operation_unref(op)
        }
        return finished
    }
}

/// An operation's result, filled on libpulse's thread before `finish` wakes the waiter.
private final class WatchRequest<Value: Sendable>: Sendable {
    let done = DispatchSemaphore(value: 0)
    let value: Mutex<Value>

    init(_ initial: Value) { value = Mutex(initial) }

    func finish() { done.signal() }
    var result: Value { value.withLock { $0 } }
}

/// What `pa_context_get_server_info` tells.
private struct ServerFacts: Sendable {
    var defaultSink: String?
    var defaultSource: String?
    var sampleRate: Double = 0
}
