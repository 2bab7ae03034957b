// PulseDirectory: the PulseAudio sources (microphones, line inputs, monitors of outputs) as capture
// devices, which of them is the default, and sources coming and going (hot-plug, server gone) —
// through libpulse's asynchronous API on one lazily made threaded main loop and context.
internal import CPulse
import CoreMedia
import Foundation
import Synchronization

/// One PulseAudio source as the server describes it (`pa_source_info`), without C types.
package struct PulseSourceInfo: Sendable, Hashable {
    /// What the source is doing (`pa_source_state_t`).
    package enum State: Sendable, Hashable {
        case running, idle, suspended, unknown
    }

    /// The server's index for the source (valid while it exists; not stable across runs).
    package var index: UInt32
    /// The source's name (`alsa_input.usb-…`, `avf_null.monitor`): stable across runs.
    package var name: String
    /// The human-readable name ("Monitor of AVFNullSink", "Built-in Audio Analog Stereo").
    package var description: String
    /// The native sample rate and channel count of the source.
    package var sampleRate: Double
    package var channelCount: Int
    /// The channel positions (`pa_channel_position_t` values), one per channel.
    package var channelPositions: [Int32]
    /// The positions' names ("front-left", "front-right", "mono").
    package var channelNames: [String]
    /// For a monitor, the sink it records.
    package var monitorOfSink: String?
    package var state: State
    /// The module that made the source ("module-alsa-card.c", "module-null-sink.c").
    package var driver: String
    /// Selected device properties (`device.bus`, `device.vendor.id`, `device.product.id`,
    /// `device.vendor.name`, `device.form_factor`) when the source has them.
    package var properties: [String: String]
}

/// A PulseAudio source described as a capture device (`LiveDeviceDescriptor`): a microphone whose
/// unique ID is `pulse:<source name>`.
package struct PulseDevice: LiveDeviceDescriptor, Hashable {
    package let info: PulseSourceInfo
    /// The server the source lives on (nil: libpulse's default — `PULSE_SERVER`, client.conf, the
    /// user's session daemon).
    package let server: String?

    package init(info: PulseSourceInfo, server: String?) {
        self.info = info
        self.server = server
    }

    /// The unique ID of the source named `name`.
    package static func uniqueID(sourceName name: String) -> String { "pulse:" + name }

    package var uniqueID: String { Self.uniqueID(sourceName: info.name) }
    package var localizedName: String { info.description.isEmpty ? info.name : info.description }
    /// `usb:VID:PID` for a USB device, else `pulse:<module>` (`pulse:monitor` for monitors).
    package var modelID: String {
        if let vendor = info.properties["device.vendor.id"], let product = info.properties["device.product.id"] {
            return "\(info.properties["device.bus"] ?? "usb"):\(vendor):\(product)"
        }
        if info.monitorOfSink != nil { return "pulse:monitor" }
        let module = info.driver.hasSuffix(".c") ? String(info.driver.dropLast(2)) : info.driver
        return "pulse:" + (module.isEmpty ? "source" : module)
    }
    package var manufacturer: String { info.properties["device.vendor.name"] ?? "PulseAudio" }
    package var deviceKind: LiveDeviceKind { .microphone }
    /// USB, Bluetooth and FireWire devices are external; built-in cards and monitors are not.
    package var isExternal: Bool { ["usb", "bluetooth", "firewire"].contains(info.properties["device.bus"] ?? "") }
    package var videoFormats: [LiveVideoFormat] { [] }
    /// Float32 at the source's own rate and channel count first, then 48 kHz and 44.1 kHz with the
    /// same channels (the server resamples).
    package var audioFormats: [LiveAudioFormat] {
        var formats = [LiveAudioFormat(sampleRate: info.sampleRate, channelCount: info.channelCount)]
        for rate in [48_000.0, 44_100.0] where rate != info.sampleRate {
            formats.append(LiveAudioFormat(sampleRate: rate, channelCount: info.channelCount))
        }
        return formats
    }
    /// A listed source is there.
    package var isConnected: Bool { true }
    package func makeVideoSource() -> (any LiveSource)? { nil }
    package func makeAudioSource() -> (any LiveAudioSource)? {
        PulseSource(sourceName: info.name, server: server, formats: audioFormats, channelPositions: info.channelPositions)
    }
}

/// The sources of one PulseAudio server, read on demand, and a hot-plug feed.
///
/// Nothing connects until the first `listing()` (or `setEventHandler`): then one
/// `pa_threaded_mainloop` and `pa_context` are made (`PA_CONTEXT_NOAUTOSPAWN`: a missing server is
/// not started) and kept. Every wait is bounded by `timeout`: with no server the listing is empty
/// within it, with `problem` saying why. A context that failed (server killed) is replaced by a
/// new one at the next call.
///
/// Events (`setEventHandler`): the context subscribes to sources and the server; a new source
/// gives `(uniqueID, true)`, a removed one `(uniqueID, false)`, a lost connection
/// `(uniqueID, false)` for every source known, and — while a handler is set — the directory tries
/// to reconnect every second and reports the sources it then finds as `(uniqueID, true)`.
/// Handlers run on a serial queue of the directory's, never on libpulse's thread.
// Invariant: owns libpulse's main loop and context; they change only under `connection`, the
// source records only on libpulse's thread or under the main loop's lock.
package final class PulseDirectory: @unchecked Sendable {
    /// The directory of libpulse's default server (`PULSE_SERVER`, client.conf, the session's daemon).
    package static let shared = PulseDirectory()

    /// What a listing found.
    package struct Listing: Sendable {
        /// The sources as devices, the default one first, then in the server's order.
        package var devices: [PulseDevice]
        /// The default source's unique ID (`pa_server_info.default_source_name`), when it is listed.
        package var defaultUniqueID: String?
        /// Why the list is empty when it is for lack of a server (nil when the server answered).
        package var problem: String?
    }

    package let server: String?
    package let timeout: TimeInterval

    /// Held while connecting, listing and closing (never taken on libpulse's thread): guards
    /// `mainloop` and `context`, C handles that stay outside it.
    private let connection = Mutex(())
    private var mainloop: OpaquePointer?
    private var context: OpaquePointer?
    private let contextChanged = DispatchSemaphore(value: 0)
    // Touched on libpulse's thread (callbacks) or with the main loop's lock held.
    private var known: [UInt32: String] = [:]
    private var defaultSourceName: String?
    private var isReady = false
    private var subscribed = false
    /// The event handler and the reconnection state (a leaf lock; callbacks take it).
    private struct Handling {
        var handler: (@Sendable (String, Bool) -> Void)?
        var lastProblem: String?
        var reconnectScheduled = false
        var closed = false
    }
    private let handling = Mutex(Handling())
    private let events = DispatchQueue(label: "PulseDirectory.events")

    /// A directory of `server` (nil: libpulse's default), waiting at most `timeout` seconds for
    /// any answer.
    package init(server: String? = nil, timeout: TimeInterval = 2) {
        self.server = server
        self.timeout = timeout
    }

    deinit { close() }

    /// The sources now (connecting first if needed).
    package func listing() -> Listing {
        connection.withLock { _ in
            if let problem = connect() { return Listing(devices: [], defaultUniqueID: nil, problem: problem) }
            return fetch()
        }
    }

    /// The sources now, the default first.
    package func devices() -> [PulseDevice] { listing().devices }

    /// The server's sinks (where playback goes) as (name, description), the default sink first;
    /// empty when no server answers.
    package func sinks() -> [(name: String, description: String)] {
        connection.withLock { _ in
            guard connect() == nil else { return [] }
            let serverInfo = ServerInfoRequest()
            guard perform(serverInfo, { context, userdata in
                pa_context_get_server_info(context, { _, info, userdata in
                    guard let userdata else { return }
                    let request = Unmanaged<ServerInfoRequest>.fromOpaque(userdata).takeUnretainedValue()
                    if let name = info?.pointee.default_sink_name { request.defaultSink = String(cString: name) }
                    request.finish()
                }, userdata)
            }) else { return [] }
            let list = SinkListRequest()
            guard perform(list, { context, userdata in
                pa_context_get_sink_info_list(context, { _, info, eol, userdata in
                    guard let userdata else { return }
                    let request = Unmanaged<SinkListRequest>.fromOpaque(userdata).takeUnretainedValue()
                    guard eol == 0, let info else { request.finish(); return }
                    request.sinks.append((info.pointee.name.map { String(cString: $0) } ?? "",
                                          info.pointee.description.map { String(cString: $0) } ?? ""))
                }, userdata)
            }) else { return [] }
            var sinks = list.sinks
            if let name = serverInfo.defaultSink, let at = sinks.firstIndex(where: { $0.name == name }) {
                sinks.insert(sinks.remove(at: at), at: 0)
            }
            return sinks
        }
    }

    /// Why the last attempt to reach the server failed (nil after a success).
    package var problem: String? { handling.withLock { $0.lastProblem } }

    /// Reports sources connecting and disconnecting as `(uniqueID, connected)` to `handler` (nil
    /// stops reporting). Connects (and subscribes) at once when a handler is set.
    package func setEventHandler(_ handler: (@Sendable (String, Bool) -> Void)?) {
        handling.withLock { $0.handler = handler }
        guard handler != nil else { return }
        connection.withLock { _ in
            if connect() == nil { _ = fetch() } else { scheduleReconnect() }
        }
    }

    /// Disconnects and stops libpulse's thread; later calls connect again.
    package func close() {
        handling.withLock { $0.handler = nil; $0.closed = true }
        connection.withLock { _ in teardown() }
        handling.withLock { $0.closed = false }
    }

    // MARK: - Connection (with `connection` held)

    /// Connects unless connected; nil on success, else why not.
    private func connect() -> String? {
        if mainloop == nil {
            guard let loop = pa_threaded_mainloop_new() else { return remember("cannot make a PulseAudio main loop") }
            guard pa_threaded_mainloop_start(loop) >= 0 else {
                pa_threaded_mainloop_free(loop)
                return remember("cannot start a PulseAudio main loop")
            }
            mainloop = loop
        }
        guard let loop = mainloop else { return remember("no main loop") }
        pa_threaded_mainloop_lock(loop)
        if let context {
            if pa_context_get_state(context) == PA_CONTEXT_READY {
                pa_threaded_mainloop_unlock(loop)
                return remember(nil)
            }
            dropContext(context)
        }
        let properties = pa_proplist_new()
        pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, "AVFoundation capture")
        let made = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(loop), "AVFoundation capture", properties)
        pa_proplist_free(properties)
        guard let made else {
            pa_threaded_mainloop_unlock(loop)
            return remember("cannot make a PulseAudio context")
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_state_callback(made, { context, userdata in
            guard let context, let userdata else { return }
            Unmanaged<PulseDirectory>.fromOpaque(userdata).takeUnretainedValue().contextStateChanged(context)
        }, me)
        pa_context_set_subscribe_callback(made, { context, event, index, userdata in
            guard let context, let userdata else { return }
            Unmanaged<PulseDirectory>.fromOpaque(userdata).takeUnretainedValue().subscriptionEvent(context, event, index)
        }, me)
        context = made
        isReady = false
        subscribed = false
        if pa_context_connect(made, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            let reason = Self.errorText(made)
            dropContext(made)
            pa_threaded_mainloop_unlock(loop)
            return remember("cannot connect to the PulseAudio server\(serverText): \(reason)")
        }
        pa_threaded_mainloop_unlock(loop)

        let deadline = DispatchTime.now() + timeout
        while true {
            pa_threaded_mainloop_lock(loop)
            let state = pa_context_get_state(made)
            switch state {
            case PA_CONTEXT_READY:
                pa_threaded_mainloop_unlock(loop)
                return remember(nil)
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
                let reason = Self.errorText(made)
                dropContext(made)
                pa_threaded_mainloop_unlock(loop)
                return remember("cannot connect to the PulseAudio server\(serverText): \(reason)")
            default:
                pa_threaded_mainloop_unlock(loop)
            }
            if contextChanged.wait(timeout: deadline) == .timedOut {
                pa_threaded_mainloop_lock(loop)
                if context == made { dropContext(made) }
                pa_threaded_mainloop_unlock(loop)
                return remember("the PulseAudio server\(serverText) did not answer within \(timeout) s")
            }
        }
    }

    private var serverText: String { server.map { " at \($0)" } ?? "" }

    /// Forgets `context` (main loop lock held).
    private func dropContext(_ context: OpaquePointer) {
        pa_context_set_state_callback(context, nil, nil)
        pa_context_set_subscribe_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        if self.context == context { self.context = nil }
        isReady = false
        subscribed = false
        known = [:]
    }

    private func teardown() {
        guard let loop = mainloop else { return }
        pa_threaded_mainloop_lock(loop)
        if let context { dropContext(context) }
        pa_threaded_mainloop_unlock(loop)
        pa_threaded_mainloop_stop(loop)
        pa_threaded_mainloop_free(loop)
        mainloop = nil
    }

    @discardableResult
    private func remember(_ problem: String?) -> String? {
        handling.withLock { $0.lastProblem = problem }
        return problem
    }

    /// The server's default source and its sources, remembered for removal events; subscribes
    /// when a handler is set (connected, `connection` held).
    private func fetch() -> Listing {
        guard let loop = mainloop else { return Listing(devices: [], defaultUniqueID: nil, problem: "not connected") }
        let serverInfo = ServerInfoRequest()
        guard perform(serverInfo, { context, userdata in
            pa_context_get_server_info(context, { _, info, userdata in
                guard let userdata else { return }
                let request = Unmanaged<ServerInfoRequest>.fromOpaque(userdata).takeUnretainedValue()
                if let name = info?.pointee.default_source_name { request.defaultSource = String(cString: name) }
                request.finish()
            }, userdata)
        }) else {
            return Listing(devices: [], defaultUniqueID: nil, problem: remember("the PulseAudio server did not report its defaults"))
        }
        let list = SourceListRequest()
        guard perform(list, { context, userdata in
            pa_context_get_source_info_list(context, { _, info, eol, userdata in
                guard let userdata else { return }
                let request = Unmanaged<SourceListRequest>.fromOpaque(userdata).takeUnretainedValue()
                if eol != 0 || info == nil { request.finish(); return }
                request.infos.append(PulseDirectory.describe(info!.pointee))
            }, userdata)
        }) else {
            return Listing(devices: [], defaultUniqueID: nil, problem: remember("the PulseAudio server did not list its sources"))
        }
        let wantsEvents = handling.withLock { $0.handler != nil }
        pa_threaded_mainloop_lock(loop)
        defaultSourceName = serverInfo.defaultSource
        known = Dictionary(list.infos.map { ($0.index, $0.name) }, uniquingKeysWith: { a, _ in a })
        if wantsEvents, !subscribed, let context {
            let mask = pa_subscription_mask_t(rawValue: PA_SUBSCRIPTION_MASK_SOURCE.rawValue | PA_SUBSCRIPTION_MASK_SERVER.rawValue)
            if let op = pa_context_subscribe(context, mask, nil, nil) {
                pa_operation_unref(op)
                subscribed = true
            }
        }
        pa_threaded_mainloop_unlock(loop)
        var devices = list.infos.map { PulseDevice(info: $0, server: server) }
        if let name = serverInfo.defaultSource, let at = devices.firstIndex(where: { $0.info.name == name }) {
            devices.insert(devices.remove(at: at), at: 0)
        }
        let defaultID = serverInfo.defaultSource.flatMap { name in
            devices.contains { $0.info.name == name } ? PulseDevice.uniqueID(sourceName: name) : nil
        }
        return Listing(devices: devices, defaultUniqueID: defaultID, problem: nil)
    }

    /// Starts an operation (main loop lock held) and waits for its callback to `finish` the request,
    /// at most `timeout`; an unfinished operation is cancelled (no callback after this returns).
    private func perform(_ request: Request, _ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?) -> Bool {
        guard let loop = mainloop else { return false }
        pa_threaded_mainloop_lock(loop)
        guard let context, pa_context_get_state(context) == PA_CONTEXT_READY,
              let op = start(context, Unmanaged.passUnretained(request).toOpaque()) else {
            pa_threaded_mainloop_unlock(loop)
            return false
        }
        pa_threaded_mainloop_unlock(loop)
        let finished = request.done.wait(timeout: .now() + timeout) == .success
        pa_threaded_mainloop_lock(loop)
        if pa_operation_get_state(op) == PA_OPERATION_RUNNING { pa_operation_cancel(op) }
        pa_operation_unref(op)
        pa_threaded_mainloop_unlock(loop)
        return finished
    }

    // MARK: - libpulse's thread (main loop lock held)

    private func contextStateChanged(_ context: OpaquePointer) {
        guard context == self.context else { return }
        let state = pa_context_get_state(context)
        contextChanged.signal()
        if state == PA_CONTEXT_READY { isReady = true }
        guard state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED, isReady else { return }
        // The server is gone: every source with it.
        isReady = false
        let reason = Self.errorText(context)
        let gone = known.values.sorted()
        known = [:]
        defaultSourceName = nil
        handling.withLock { $0.lastProblem = "the PulseAudio server connection was lost: \(reason)" }
        for name in gone { emit(name, false) }
        events.async { [weak self] in
            guard let self else { return }
            self.connection.withLock { _ in self.scheduleReconnect() }
        }
    }

    private func subscriptionEvent(_ context: OpaquePointer, _ event: pa_subscription_event_type_t, _ index: UInt32) {
        let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
        let type = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
        if facility == PA_SUBSCRIPTION_EVENT_SOURCE.rawValue {
            if type == PA_SUBSCRIPTION_EVENT_NEW.rawValue {
                let op = pa_context_get_source_info_by_index(context, index, { _, info, eol, userdata in
                    guard let userdata, eol == 0, let info else { return }
                    Unmanaged<PulseDirectory>.fromOpaque(userdata).takeUnretainedValue().sourceAppeared(info.pointee)
                }, Unmanaged.passUnretained(self).toOpaque())
                if let op { pa_operation_unref(op) }
            } else if type == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue, let name = known.removeValue(forKey: index) {
                emit(name, false)
            }
        } else if facility == PA_SUBSCRIPTION_EVENT_SERVER.rawValue {
            let op = pa_context_get_server_info(context, { _, info, userdata in
                guard let userdata, let name = info?.pointee.default_source_name else { return }
                Unmanaged<PulseDirectory>.fromOpaque(userdata).takeUnretainedValue().defaultSourceName = String(cString: name)
            }, Unmanaged.passUnretained(self).toOpaque())
            if let op { pa_operation_unref(op) }
        }
    }

    private func sourceAppeared(_ info: pa_source_info) {
        let source = Self.describe(info)
        guard known[source.index] == nil else { return }
        known[source.index] = source.name
        emit(source.name, true)
    }

    private func emit(_ sourceName: String, _ connected: Bool) {
        let id = PulseDevice.uniqueID(sourceName: sourceName)
        events.async { [weak self] in
            guard let handler = self?.handling.withLock({ $0.handler }) else { return }
            handler(id, connected)
        }
    }

    /// While a handler is set, tries to reconnect in a second; a success reports every source as
    /// connected (`connection` held).
    private func scheduleReconnect() {
        let go = handling.withLock { handling -> Bool in
            guard handling.handler != nil, !handling.reconnectScheduled, !handling.closed else { return false }
            handling.reconnectScheduled = true
            return true
        }
        guard go else { return }
        events.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self else { return }
            self.handling.withLock { $0.reconnectScheduled = false }
            guard self.handling.withLock({ $0.handler != nil }) else { return }
            self.connection.withLock { _ in
                if let loop = self.mainloop {
                    pa_threaded_mainloop_lock(loop)
                    let ready = self.context.map { pa_context_get_state($0) == PA_CONTEXT_READY } ?? false
                    pa_threaded_mainloop_unlock(loop)
                    if ready { return }
                }
                guard self.connect() == nil else { self.scheduleReconnect(); return }
                let listing = self.fetch()
                for device in listing.devices { self.emit(device.info.name, true) }
            }
        }
    }

    // MARK: - Conversions

    static func describe(_ info: pa_source_info) -> PulseSourceInfo {
        var positions: [Int32] = [], names: [String] = []
        var map = info.channel_map
        withUnsafeBytes(of: &map.map) { raw in
            let all = raw.bindMemory(to: pa_channel_position_t.self)
            for i in 0..<min(Int(map.channels), all.count) {
                positions.append(all[i].rawValue)
                names.append(pa_channel_position_to_string(all[i]).map { String(cString: $0) } ?? "unknown")
            }
        }
        var properties: [String: String] = [:]
        if let list = info.proplist {
            for key in ["device.bus", "device.vendor.id", "device.product.id", "device.vendor.name", "device.form_factor"] {
                if let value = pa_proplist_gets(list, key) { properties[key] = String(cString: value) }
            }
        }
        let state: PulseSourceInfo.State
        switch info.state {
        case PA_SOURCE_RUNNING: state = .running
        case PA_SOURCE_IDLE: state = .idle
        case PA_SOURCE_SUSPENDED: state = .suspended
        default: state = .unknown
        }
        return PulseSourceInfo(
            index: info.index,
            name: info.name.map { String(cString: $0) } ?? "",
            description: info.description.map { String(cString: $0) } ?? "",
            sampleRate: Double(info.sample_spec.rate),
            channelCount: Int(info.sample_spec.channels),
            channelPositions: positions, channelNames: names,
            monitorOfSink: info.monitor_of_sink == AVF_PA_INVALID_INDEX ? nil : info.monitor_of_sink_name.map { String(cString: $0) },
            state: state,
            driver: info.driver.map { String(cString: $0) } ?? "",
            properties: properties)
    }

    static func errorText(_ context: OpaquePointer) -> String {
        pa_strerror(pa_context_errno(context)).map { String(cString: $0) } ?? "unknown error"
    }
}

/// An operation's result, filled on libpulse's thread; `finish` wakes the waiter.
// Invariant: written only on libpulse's thread before `finish`, read by the waiter only after it.
private class Request: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    func finish() { done.signal() }
}

private final class ServerInfoRequest: Request, @unchecked Sendable {
    var defaultSource: String?
    var defaultSink: String?
}

private final class SinkListRequest: Request, @unchecked Sendable {
    var sinks: [(name: String, description: String)] = []
}

private final class SourceListRequest: Request, @unchecked Sendable {
    var infos: [PulseSourceInfo] = []
}
