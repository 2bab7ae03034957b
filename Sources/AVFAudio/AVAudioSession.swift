// AVAudioSession: the process's audio session over PulseAudio. Category, mode and options are the
// process's policy (kept and reported; there are no other apps to mix with, duck or interrupt);
// the route is the server's default sink and source (or the preferred input); route changes,
// interruptions and media-service resets come from watching the server (PulseServerWatch), which
// runs only while the session is active or its notifications have been named.
import CoreAudioTypes
import Foundation
internal import MediaEngine
import Synchronization

/// An object that communicates to the system how you intend to use audio in your app — on Linux,
/// the process's view of the PulseAudio server: its route, hardware values and events.
public final class AVAudioSession: NSObject, Sendable {
    private static let shared = AVAudioSession()

    /// The shared audio session.
    public class func sharedInstance() -> AVAudioSession { shared }

    private struct State {
        var category: Category = .soloAmbient
        var mode: Mode = .default
        var options: CategoryOptions = []
        var policy: RouteSharingPolicy = .default
        var isActive = false
        var preferredInput: AVAudioSessionPortDescription?
        var preferredSampleRate: Double = 0
        var preferredIOBufferDuration: TimeInterval = 0
        var portOverride: PortOverride = .none
        var observed = false
        /// The server watched (nil: libpulse's default).
        var server: String?
        var watch: PulseServerWatch?
        /// Bumped for each watch made: events of a watch replaced since are ignored.
        var watchNumber = 0
        /// The server as last reported by the watch.
        var last: PulseServerState?
        /// An interruption began (server lost) and has not ended.
        var interrupted = false
    }
    private let state = Mutex(State())

    private override init() { super.init() }

    // MARK: - Category, mode, options

    /// The current category (`.soloAmbient` until set).
    public var category: Category { state.withLock { $0.category } }
    /// The current mode (`.default` until set).
    public var mode: Mode { state.withLock { $0.mode } }
    /// The current category's options.
    public var categoryOptions: CategoryOptions { state.withLock { $0.options } }
    /// The current route-sharing policy.
    public var routeSharingPolicy: RouteSharingPolicy { state.withLock { $0.policy } }

    /// Every category (all are available on Linux; `.record` needs a source to record anything).
    public var availableCategories: [Category] {
        [.ambient, .soloAmbient, .playback, .record, .playAndRecord, .multiRoute]
    }

    /// Every mode (all are accepted; none changes the sound on Linux).
    public var availableModes: [Mode] {
        [.default, .voiceChat, .gameChat, .videoRecording, .measurement, .moviePlayback, .videoChat, .spokenAudio, .voicePrompt]
    }

    /// Sets the category (options are reset, mode kept).
    public func setCategory(_ category: Category) throws {
        try configure(category: category, mode: nil, policy: nil, options: [])
    }

    /// Sets the category and its options.
    public func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        try configure(category: category, mode: nil, policy: nil, options: options)
    }

    /// Sets the category, mode and options.
    public func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        try configure(category: category, mode: mode, policy: nil, options: options)
    }

    /// Sets the category, mode, route-sharing policy and options.
    public func setCategory(_ category: Category, mode: Mode, policy: RouteSharingPolicy, options: CategoryOptions = []) throws {
        try configure(category: category, mode: mode, policy: policy, options: options)
    }

    /// Sets the mode.
    public func setMode(_ mode: Mode) throws {
        guard Self.knownModes.contains(mode) else { throw Self.error(.badParam, "unknown audio session mode \(mode.rawValue)") }
        state.withLock { $0.mode = mode }
    }

    private static let knownCategories: Set<Category> = [.ambient, .soloAmbient, .playback, .record, .playAndRecord, .audioProcessing, .multiRoute]
    private static let knownModes: Set<Mode> = [.default, .voiceChat, .gameChat, .videoRecording, .measurement, .moviePlayback,
                                                 .videoChat, .spokenAudio, .voicePrompt, .shortFormVideo, .dualRoute]

    private func configure(category: Category, mode: Mode?, policy: RouteSharingPolicy?, options: CategoryOptions) throws {
        guard Self.knownCategories.contains(category) else {
            throw Self.error(.badParam, "unknown audio session category \(category.rawValue)")
        }
        if let mode, !Self.knownModes.contains(mode) { throw Self.error(.badParam, "unknown audio session mode \(mode.rawValue)") }
        // As Apple's: mixing options only where the category can mix; ambient always mixes;
        // ducking or interrupting spoken audio implies mixing.
        let mixing: CategoryOptions = [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers]
        let canMix: Set<Category> = [.playback, .playAndRecord, .multiRoute, .ambient]
        if !options.isDisjoint(with: mixing), !canMix.contains(category) {
            throw Self.error(.badParam, "the options \(options.rawValue) need the playback, play-and-record or multi-route category")
        }
        if options.contains(.defaultToSpeaker), category != .playAndRecord {
            throw Self.error(.badParam, "defaultToSpeaker needs the play-and-record category")
        }
        var effective = options
        if category == .ambient || !options.isDisjoint(with: [.duckOthers, .interruptSpokenAudioAndMixWithOthers]) {
            effective.insert(.mixWithOthers)
        }
        let before: (route: AVAudioSessionRouteDescription, changed: Bool)? = state.withLock {
            let previous = $0.category
            let wasActive = $0.isActive
            let route = wasActive ? route(category: previous, $0) : nil
            $0.category = category
            if let mode { $0.mode = mode }
            if let policy { $0.policy = policy }
            $0.options = effective
            return route.map { ($0, previous != category) }
        }
        if let before, before.changed {
            post(AVAudioSession.routeChangeNotification, [AVAudioSessionRouteChangeReasonKey: NSNumber(value: RouteChangeReason.categoryChange.rawValue),
                                                         AVAudioSessionRouteChangePreviousRouteKey: before.route])
        }
    }

    // MARK: - Activation

    /// Activates or deactivates the session. Active, the session watches the sound server
    /// (route changes, interruptions). Deactivating with `.notifyOthersOnDeactivation` has no
    /// one to notify on Linux.
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws {
        state.withLock {
            $0.isActive = active
            if active { $0.interrupted = false }
        }
        updateWatch()
    }

    /// Activates or deactivates the session.
    public func setActive(_ active: Bool) throws {
        try setActive(active, options: [])
    }

    /// Whether another process is playing sound on the server (a playback stream that is not
    /// paused).
    public var isOtherAudioPlaying: Bool { (serverState()?.otherProcessesPlaying ?? 0) > 0 }

    /// Whether another process's primary audio is playing (the same as `isOtherAudioPlaying`:
    /// PulseAudio does not say which sound is primary).
    public var secondaryAudioShouldBeSilencedHint: Bool { isOtherAudioPlaying }

    // MARK: - Route

    /// The current route: the default sink as output (unless the category only records), the
    /// preferred input or the default source as input (when the category records).
    public var currentRoute: AVAudioSessionRouteDescription {
        let server = serverState()
        return state.withLock { current in
            var copy = current
            copy.last = server
            return route(category: current.category, copy)
        }
    }

    private func route(category: Category, _ state: State) -> AVAudioSessionRouteDescription {
        guard let server = state.last else { return AVAudioSessionRouteDescription(inputs: [], outputs: []) }
        var outputs: [AVAudioSessionPortDescription] = []
        var inputs: [AVAudioSessionPortDescription] = []
        if category != .record, category != .audioProcessing, let sink = server.defaultSink {
            outputs = [AudioSessionRouting.outputPort(sink)]
        }
        if [.record, .playAndRecord, .multiRoute].contains(category) {
            let preferred = state.preferredInput.flatMap { port in server.sources.first { $0.info.name == port.uid } }
            if let source = preferred ?? server.defaultSource { inputs = [AudioSessionRouting.inputPort(source)] }
        }
        return AVAudioSessionRouteDescription(inputs: inputs, outputs: outputs)
    }

    /// Every source of the server as an input port (the preferred and default ones first), nil
    /// when no server answers.
    public var availableInputs: [AVAudioSessionPortDescription]? {
        guard let server = serverState() else { return nil }
        var sources = server.sources
        if let name = server.defaultSourceName, let at = sources.firstIndex(where: { $0.info.name == name }) {
            sources.insert(sources.remove(at: at), at: 0)
        }
        return sources.map(AudioSessionRouting.inputPort)
    }

    /// The preferred input port (nil: the server's default source).
    public var preferredInput: AVAudioSessionPortDescription? { state.withLock { $0.preferredInput } }

    /// Prefers `inPort` (one of `availableInputs`) for recording, nil for the server's default
    /// source. Recordings of this process then use that source. A port the server does not have
    /// is an error (`NSOSStatusErrorDomain`, `ErrorCode.badParam`).
    public func setPreferredInput(_ inPort: AVAudioSessionPortDescription?) throws {
        if let inPort {
            guard let inputs = availableInputs, inputs.contains(where: { $0.uid == inPort.uid }) else {
                throw Self.error(.badParam, "there is no audio input \(inPort.uid)")
            }
        }
        let previous: AVAudioSessionRouteDescription? = state.withLock {
            let route = $0.isActive ? route(category: $0.category, $0) : nil
            $0.preferredInput = inPort
            return route
        }
        AudioSessionRouting.preferredInputName = inPort?.uid
        if let previous, previous != currentRoute {
            post(AVAudioSession.routeChangeNotification, [AVAudioSessionRouteChangeReasonKey: NSNumber(value: RouteChangeReason.override.rawValue),
                                                         AVAudioSessionRouteChangePreviousRouteKey: previous])
        }
    }

    /// Overrides the output port. PulseAudio has no receiver/speaker pair: the override is
    /// remembered and announced (a route change with reason `.override`), the sink is unchanged.
    public func overrideOutputAudioPort(_ portOverride: PortOverride) throws {
        let previous: AVAudioSessionRouteDescription? = state.withLock {
            guard $0.portOverride != portOverride else { return nil }
            $0.portOverride = portOverride
            return $0.isActive ? route(category: $0.category, $0) : nil
        }
        if let previous {
            post(AVAudioSession.routeChangeNotification, [AVAudioSessionRouteChangeReasonKey: NSNumber(value: RouteChangeReason.override.rawValue),
                                                         AVAudioSessionRouteChangePreviousRouteKey: previous])
        }
    }

    // MARK: - Hardware values

    /// The default sink's sample rate (the server's default rate when it has no sink; 0 with no
    /// server).
    public var sampleRate: Double {
        guard let server = serverState() else { return 0 }
        return server.defaultSink?.sampleRate ?? server.sampleRate
    }

    /// The preferred sample rate (0: none).
    public var preferredSampleRate: Double { state.withLock { $0.preferredSampleRate } }

    /// Sets the preferred sample rate (0: no preference). Negative or non-finite rates are an
    /// error (`badParam`). The server resamples every stream, so the hardware rate is unchanged.
    public func setPreferredSampleRate(_ sampleRate: Double) throws {
        guard sampleRate.isFinite, sampleRate >= 0 else { throw Self.error(.badParam, "invalid sample rate \(sampleRate)") }
        state.withLock { $0.preferredSampleRate = sampleRate }
    }

    /// The preferred I/O buffer duration (0: none).
    public var preferredIOBufferDuration: TimeInterval { state.withLock { $0.preferredIOBufferDuration } }

    /// Sets the preferred I/O buffer duration (0: no preference); negative or non-finite values
    /// are an error (`badParam`).
    public func setPreferredIOBufferDuration(_ duration: TimeInterval) throws {
        guard duration.isFinite, duration >= 0 else { throw Self.error(.badParam, "invalid I/O buffer duration \(duration)") }
        state.withLock { $0.preferredIOBufferDuration = duration }
    }

    /// The I/O buffer duration: the preference clamped to 5–93 ms as Apple's hardware does, else
    /// 1024 frames at the sample rate.
    public var ioBufferDuration: TimeInterval {
        let preferred = preferredIOBufferDuration
        if preferred > 0 { return min(max(preferred, 0.005), 0.093) }
        let rate = sampleRate
        return rate > 0 ? 1024 / rate : 0.023
    }

    /// The default sink's latency in seconds (0 with no server).
    public var outputLatency: TimeInterval { serverState()?.defaultSink?.latency ?? 0 }

    /// The input's latency in seconds (0 with no server).
    public var inputLatency: TimeInterval { input()?.latency ?? 0 }

    /// The default sink's volume, 0–1 (0 when muted or with no server).
    public var outputVolume: Float {
        guard let sink = serverState()?.defaultSink, !sink.muted else { return 0 }
        return Float(min(max(sink.volume, 0), 1))
    }

    /// The input's channel count (0 with no input).
    public var inputNumberOfChannels: Int { input()?.info.channelCount ?? 0 }

    /// The default sink's channel count (0 with no sink).
    public var outputNumberOfChannels: Int { serverState()?.defaultSink?.channelCount ?? 0 }

    /// The most channels the input can record (its channel count; the server remixes).
    public var maximumInputNumberOfChannels: Int { inputNumberOfChannels }

    /// The most channels the output can play.
    public var maximumOutputNumberOfChannels: Int { outputNumberOfChannels }

    /// Whether any source can be recorded from.
    public var isInputAvailable: Bool { !(serverState()?.sources.isEmpty ?? true) }

    /// The preferred input's source, else the default source.
    private func input() -> PulseSourceDetail? {
        guard let server = serverState() else { return nil }
        let preferred = preferredInput.flatMap { port in server.sources.first { $0.info.name == port.uid } }
        return preferred ?? server.defaultSource
    }

    // MARK: - Permission

    /// `.granted` when the server has a source to record; `.denied` when it has none or no
    /// server answers (recordings then fail rather than prompt: there is no prompt on Linux).
    public var recordPermission: RecordPermission { isInputAvailable ? .granted : .denied }

    /// Calls `response` at once (no prompt on Linux) with whether recording is possible.
    public func requestRecordPermission(_ response: @escaping (Bool) -> Void) {
        response(recordPermission == .granted)
    }

    // MARK: - Watching the server

    /// The server's state: the watch's while it runs and has read it, else read once.
    private func serverState() -> PulseServerState? {
        let (watch, server) = state.withLock { ($0.watch, $0.server) }
        if let watch {
            if let current = watch.current { return current }
        }
        return PulseServerWatch.read(server: server, timeout: 1)
    }

    /// A session notification's name was used: watch the server from now on.
    func notificationsObserved() {
        let first = state.withLock {
            let first = !$0.observed
            $0.observed = true
            return first
        }
        if first { updateWatch() }
    }

    /// Watches `server` (nil: libpulse's default) from now on: for tests with a daemon of their
    /// own. Resets what the session remembered of the previous server.
    package func useServer(_ server: String?) {
        let old: PulseServerWatch? = state.withLock {
            $0.server = server
            $0.last = nil
            $0.interrupted = false
            $0.preferredInput = nil
            let watch = $0.watch
            $0.watch = nil
            return watch
        }
        AudioSessionRouting.preferredInputName = nil
        old?.stop()
        updateWatch()
    }

    /// Waits until the watch has delivered the events it has seen (tests).
    package func waitForWatch() { state.withLock { $0.watch }?.sync() }

    /// Starts the watch when the session is active or observed, stops it otherwise.
    private func updateWatch() {
        enum Action { case start(PulseServerWatch), stop(PulseServerWatch), nothing }
        let action: Action = state.withLock {
            let wanted = $0.isActive || $0.observed
            if wanted, $0.watch == nil {
                $0.watchNumber += 1
                let number = $0.watchNumber
                let watch = PulseServerWatch(server: $0.server) { [weak self] event in self?.handle(event, from: number) }
                $0.watch = watch
                return .start(watch)
            }
            if !wanted, let watch = $0.watch {
                $0.watch = nil
                $0.last = nil
                return .stop(watch)
            }
            return .nothing
        }
        switch action {
        case .start(let watch): watch.start()
        case .stop(let watch): watch.stop()
        case .nothing: break
        }
    }

    /// The watch's queue: turns the server's changes into Apple's notifications.
    private func handle(_ event: PulseServerWatch.Event, from number: Int) {
        guard state.withLock({ $0.watch != nil && $0.watchNumber == number }) else { return }
        switch event {
        case .connected(let server, let afterLoss):
            let wasInterrupted: Bool = state.withLock {
                $0.last = server
                let interrupted = $0.interrupted
                $0.interrupted = false
                return interrupted
            }
            if afterLoss { post(AVAudioSession.mediaServicesWereResetNotification, nil) }
            if wasInterrupted {
                post(AVAudioSession.interruptionNotification, [AVAudioSessionInterruptionTypeKey: NSNumber(value: InterruptionType.ended.rawValue),
                                                              AVAudioSessionInterruptionOptionKey: NSNumber(value: InterruptionOptions.shouldResume.rawValue)])
            }
        case .changed(let server):
            let (before, after, old): (AVAudioSessionRouteDescription, AVAudioSessionRouteDescription, PulseServerState?) = state.withLock {
                let before = route(category: $0.category, $0)
                let old = $0.last
                $0.last = server
                return (before, route(category: $0.category, $0), old)
            }
            let wasOthers = old?.otherProcessesPlaying
            if before != after {
                let reason = Self.reason(before: before, after: after, old: old, new: server)
                post(AVAudioSession.routeChangeNotification, [AVAudioSessionRouteChangeReasonKey: NSNumber(value: reason.rawValue),
                                                             AVAudioSessionRouteChangePreviousRouteKey: before])
            }
            if let wasOthers, (wasOthers > 0) != (server.otherProcessesPlaying > 0) {
                let type: SilenceSecondaryAudioHintType = server.otherProcessesPlaying > 0 ? .begin : .end
                post(AVAudioSession.silenceSecondaryAudioHintNotification, [AVAudioSessionSilenceSecondaryAudioHintTypeKey: NSNumber(value: type.rawValue)])
            }
        case .lost:
            serverWentAway()
        }
    }

    /// The sound server went away — seen by the session's watch, or first by a player whose
    /// output lost it (the watch may not have connected yet): the session is interrupted and
    /// media services are lost, posted once until the server is back.
    func serverWentAway() {
        let first = state.withLock { s -> Bool in
            s.last = nil
            s.isActive = false
            defer { s.interrupted = true }
            return !s.interrupted
        }
        guard first else { return }
        post(AVAudioSession.interruptionNotification, [AVAudioSessionInterruptionTypeKey: NSNumber(value: InterruptionType.began.rawValue)])
        post(AVAudioSession.mediaServicesWereLostNotification, nil)
    }

    /// Why the route went from `before` to `after`: a port of the old route that the server no
    /// longer has is `.oldDeviceUnavailable`, a port of the new one the server did not list
    /// before is `.newDeviceAvailable`, otherwise a default changed: `.routeConfigurationChange`.
    private static func reason(before: AVAudioSessionRouteDescription, after: AVAudioSessionRouteDescription,
                               old: PulseServerState?, new: PulseServerState) -> RouteChangeReason {
        let present = Set(new.sinks.map(\.name) + new.sources.map(\.info.name))
        if (before.inputs + before.outputs).contains(where: { !present.contains($0.uid) }) { return .oldDeviceUnavailable }
        if let old {
            let known = Set(old.sinks.map(\.name) + old.sources.map(\.info.name))
            if (after.inputs + after.outputs).contains(where: { !known.contains($0.uid) }) { return .newDeviceAvailable }
        }
        return .routeConfigurationChange
    }

    /// Posts `name` (object: the session); numbers in `userInfo` are NSNumbers, as Apple's, so
    /// `as? UInt`, `as? Int` and `as? NSNumber` all read them.
    private func post(_ name: NSNotification.Name, _ userInfo: [AnyHashable: Any]?) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }

    /// An error of the session: `NSOSStatusErrorDomain` with Apple's code.
    static func error(_ code: ErrorCode, _ text: String) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: code.rawValue, userInfo: [NSLocalizedDescriptionKey: text])
    }
}
