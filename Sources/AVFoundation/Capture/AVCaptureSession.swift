// AVCaptureSession: inputs, outputs and the connections between them, configured in
// transactions and run as one graph of live sources on the host time clock.
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// userInfo key of `AVCaptureSession.runtimeErrorNotification`: the `AVError`.
public let AVCaptureSessionErrorKey: String = "AVCaptureSessionErrorKey"
/// userInfo key of `AVCaptureSession.wasInterruptedNotification`: the reason (NSNumber of
/// `AVCaptureSession.InterruptionReason`).
public let AVCaptureSessionInterruptionReasonKey: String = "AVCaptureSessionInterruptionReasonKey"

/// Manages capture: inputs (devices), outputs and the connections between them.
///
/// Configuration: `addInput`, `addOutput`, `sessionPreset`… change the session's lists at once
/// (`inputs`, `outputs`, `connections`, each output's `connections`); between
/// `beginConfiguration()` and the outermost `commitConfiguration()` (pairs nest) nothing reaches
/// the running capture — devices, formats and routing change together at the commit, as one
/// transaction. Outside a pair each change is its own transaction.
///
/// Running: `startRunning()` and `stopRunning()` block until the capture started (first frames
/// on their way) or stopped;
/// call them off the main thread as on Apple platforms (and never on an output's delegate
/// queue). `didStartRunningNotification` and `didStopRunningNotification` are posted on the
/// calling thread before they return; `isRunning` is observable. After `stopRunning()` returns
/// no output calls its delegate. A source failing while running (a camera unplugged, a virtual
/// camera's file removed) posts `runtimeErrorNotification` with `AVCaptureSessionErrorKey`
/// (`AVError(.deviceWasDisconnected)`) on an internal queue, then the session stops.
///
/// Every sample's time is on `synchronizationClock`, the host time clock (CLOCK_MONOTONIC).
open class AVCaptureSession: NSObject, @unchecked Sendable {
    /// What the mutators edit and the getters read.
    private struct State {
        var configuration = SessionConfiguration()
        /// The configuration as of the last applied transaction (what a start runs).
        var committed = SessionConfiguration()
        var depth = 0
        var running = false
        var interrupted = false
    }
    private let state = Mutex(State())
    /// Serialises starting, stopping and applying configurations to the graph, and guards
    /// `graph` and `generation`. Recursive: a failure while applying stops the session, and
    /// observers of the running state and the notifications posted under it may start or stop
    /// the session again on the same thread.
    private let runLock = NSRecursiveLock()
    private var graph: CaptureGraph?
    private var generation = 0
    private let events = DispatchQueue(label: "com.avfoundation.capture.events")

    public override init() {
        super.init()
        Self.register(self)
    }

    deinit {
        // A session released while running stops its sources.
        graph?.stop()
    }

    // MARK: Sessions using a device

    private struct WeakSession { weak var session: AVCaptureSession? }
    private static let sessions = Mutex<[WeakSession]>([])

    private static func register(_ session: AVCaptureSession) {
        sessions.withLock { sessions in
            sessions.removeAll { $0.session == nil }
            sessions.append(WeakSession(session: session))
        }
    }

    /// A client set a device's active format (`formatChanged`) or frame durations: sessions
    /// using the device apply it at once — a new format switches their preset to
    /// `.inputPriority`, as on Apple platforms.
    static func deviceConfigurationChanged(_ device: CaptureDeviceCore, formatChanged: Bool) {
        let live = sessions.withLock { $0.compactMap(\.session) }
        for session in live {
            let uses = session.state.withLock { $0.configuration.deviceInputs }.contains { $0.device.core === device }
            guard uses else { continue }
            if formatChanged {
                session.mutate { $0.preset = .inputPriority }
            } else {
                session.mutate { _ in }
            }
        }
    }

    // MARK: Preset

    /// The quality or size of the outputs (default `.high`). Setting a preset the inputs cannot
    /// reach raises (check `canSetSessionPreset(_:)`); it may be set while running.
    open var sessionPreset: AVCaptureSession.Preset {
        get { state.withLock { $0.configuration.preset } }
        set {
            guard canSetSessionPreset(newValue) else {
                CaptureException.raise("AVCaptureSession", "setSessionPreset:",
                                       "Unsupported session preset \(newValue.rawValue). Use -canSetSessionPreset: beforehand.")
            }
            mutate { $0.preset = newValue }
        }
    }

    /// Whether every video device input has a format reaching `preset`'s size (sessions without
    /// video inputs take every preset Apple defines).
    open func canSetSessionPreset(_ preset: AVCaptureSession.Preset) -> Bool {
        guard preset.isKnown else { return false }
        let inputs = state.withLock { $0.configuration.deviceInputs }
        return inputs.allSatisfy { $0.device.supportsSessionPreset(preset) }
    }

    // MARK: Inputs

    /// The inputs.
    open var inputs: [AVCaptureInput] { state.withLock { $0.configuration.inputs } }

    /// Whether `input` may be added: not in the session yet, its device connected, not already
    /// used by another input of the session, and supporting the session's preset.
    open func canAddInput(_ input: AVCaptureInput) -> Bool {
        // Decided on a snapshot: the device is asked outside the session's lock.
        let configuration = state.withLock { $0.configuration }
        do {
            guard !configuration.inputs.contains(where: { $0 === input }) else { return false }
            if let deviceInput = input as? AVCaptureDeviceInput {
                let device = deviceInput.device
                guard device.isConnected else { return false }
                guard !configuration.deviceInputs.contains(where: { $0.device == device }) else { return false }
                guard configuration.preset == .inputPriority || device.supportsSessionPreset(configuration.preset) else { return false }
            }
            return true
        }
    }

    /// Adds `input` and connects its ports to every output with room. Raises unless
    /// `canAddInput(_:)` is true.
    open func addInput(_ input: AVCaptureInput) {
        add(input, connecting: true, selector: "addInput:")
    }

    /// Adds `input` without connecting it (add connections yourself).
    open func addInputWithNoConnections(_ input: AVCaptureInput) {
        add(input, connecting: false, selector: "addInputWithNoConnections:")
    }

    private func add(_ input: AVCaptureInput, connecting: Bool, selector: String) {
        guard canAddInput(input) else {
            CaptureException.raise("AVCaptureSession", selector, "Cannot add \(input) to the session. Use -canAddInput: beforehand.")
        }
        mutate { configuration in
            let made = connecting ? configuration.greedyConnections(for: input) : []
            configuration.inputs.append(input)
            for connection in made { self.record(connection, in: &configuration) }
        }
    }

    /// Removes `input` and its connections.
    open func removeInput(_ input: AVCaptureInput) {
        mutate { configuration in
            guard configuration.inputs.contains(where: { $0 === input }) else { return }
            configuration.inputs.removeAll { $0 === input }
            for connection in configuration.connections where connection.inputPorts.contains(where: { $0.input === input }) {
                self.forget(connection, in: &configuration)
            }
        }
    }

    // MARK: Outputs

    /// The outputs.
    open var outputs: [AVCaptureOutput] { state.withLock { $0.configuration.outputs } }

    /// Whether `output` may be added: in no session yet.
    open func canAddOutput(_ output: AVCaptureOutput) -> Bool {
        let configuration = state.withLock { $0.configuration }
        do {
            guard !configuration.outputs.contains(where: { $0 === output }) else { return false }
            return output.owningSession == nil || output.owningSession === self
        }
    }

    /// Adds `output` and connects it to the first input ports it takes. Raises unless
    /// `canAddOutput(_:)` is true.
    open func addOutput(_ output: AVCaptureOutput) {
        add(output, connecting: true, selector: "addOutput:")
    }

    /// Adds `output` without connecting it.
    open func addOutputWithNoConnections(_ output: AVCaptureOutput) {
        add(output, connecting: false, selector: "addOutputWithNoConnections:")
    }

    private func add(_ output: AVCaptureOutput, connecting: Bool, selector: String) {
        guard canAddOutput(output) else {
            CaptureException.raise("AVCaptureSession", selector, "Cannot add \(output) to the session. Use -canAddOutput: beforehand.")
        }
        mutate { configuration in
            let made = connecting ? configuration.greedyConnections(for: output) : []
            configuration.outputs.append(output)
            output.owningSession = self
            for connection in made { self.record(connection, in: &configuration) }
        }
    }

    /// Removes `output` and its connections.
    open func removeOutput(_ output: AVCaptureOutput) {
        mutate { configuration in
            guard configuration.outputs.contains(where: { $0 === output }) else { return }
            configuration.outputs.removeAll { $0 === output }
            output.owningSession = nil
            for connection in configuration.connections where connection.output === output {
                self.forget(connection, in: &configuration)
            }
        }
    }

    // MARK: Connections

    /// Every connection between the session's inputs and its outputs or preview layers.
    open var connections: [AVCaptureConnection] { state.withLock { $0.configuration.connections } }

    /// Whether `connection` may be added: not in a session, its output and its ports' inputs
    /// in this session, and its output has room for it. A preview layer's connection: the layer
    /// previews this session and has no connection yet, and its one port is a video port of an
    /// input of the session.
    open func canAddConnection(_ connection: AVCaptureConnection) -> Bool {
        let configuration = state.withLock { $0.configuration }
        do {
            if let layer = connection.videoPreviewLayer {
                guard connection.session == nil, !configuration.connections.contains(where: { $0 === connection }),
                      configuration.contains(layer), connection.inputPorts.count == 1, let port = connection.inputPorts.first,
                      configuration.inputs.contains(where: { $0 === port.input }) else { return false }
                return configuration.hasRoom(layer, for: port)
            }
            guard connection.session == nil, !configuration.connections.contains(where: { $0 === connection }),
                  let output = connection.output, configuration.outputs.contains(where: { $0 === output }),
                  !connection.inputPorts.isEmpty else { return false }
            for port in connection.inputPorts {
                guard configuration.inputs.contains(where: { $0 === port.input }), configuration.hasRoom(output, for: port) else {
                    return false
                }
            }
            return true
        }
    }

    /// Adds `connection`. Raises unless `canAddConnection(_:)` is true.
    open func addConnection(_ connection: AVCaptureConnection) {
        guard canAddConnection(connection) else {
            CaptureException.raise("AVCaptureSession", "addConnection:",
                                   "Cannot add \(connection) to the session. Use -canAddConnection: beforehand.")
        }
        mutate { self.record(connection, in: &$0) }
    }

    /// Removes `connection`.
    open func removeConnection(_ connection: AVCaptureConnection) {
        mutate { configuration in
            guard configuration.connections.contains(where: { $0 === connection }) else { return }
            self.forget(connection, in: &configuration)
        }
    }

    private func record(_ connection: AVCaptureConnection, in configuration: inout SessionConfiguration) {
        configuration.connections.append(connection)
        connection.session = self
        connection.output?.addConnectionRecord(connection)
        connection.videoPreviewLayer?.setConnectionRecord(connection)
    }

    private func forget(_ connection: AVCaptureConnection, in configuration: inout SessionConfiguration) {
        configuration.connections.removeAll { $0 === connection }
        connection.session = nil
        connection.output?.removeConnectionRecord(connection)
        connection.videoPreviewLayer?.removeConnectionRecord(connection)
    }

    // MARK: Preview layers

    /// `layer` previews the session from now on (its `session` was set): with `connecting`, the
    /// session connects it to its first video port now and, while it has no connection, to the
    /// first video port of inputs added later.
    func attach(_ layer: AVCaptureVideoPreviewLayer, connecting: Bool) {
        mutate { configuration in
            configuration.previewLayers.removeAll { $0.layer == nil || $0.layer === layer }
            configuration.previewLayers.append(.init(layer: layer, connectsAutomatically: connecting))
            if connecting, let connection = configuration.greedyConnection(for: layer) {
                self.record(connection, in: &configuration)
            }
        }
    }

    /// `layer` no longer previews the session: its connection is removed.
    func detach(_ layer: AVCaptureVideoPreviewLayer) {
        mutate { configuration in
            configuration.previewLayers.removeAll { $0.layer == nil || $0.layer === layer }
            for connection in configuration.connections where connection.videoPreviewLayer === layer {
                self.forget(connection, in: &configuration)
            }
        }
    }

    /// A layer that previewed the session was released: its connection (now without a layer)
    /// is removed.
    func previewLayerWentAway(_ connection: AVCaptureConnection?) {
        mutate { configuration in
            configuration.previewLayers.removeAll { $0.layer == nil }
            for orphan in configuration.connections
            where orphan === connection || (orphan.output == nil && orphan.videoPreviewLayer == nil) {
                self.forget(orphan, in: &configuration)
            }
        }
    }

    // MARK: Transactions

    /// Starts a transaction (pairs nest): changes reach the running capture at the outermost
    /// `commitConfiguration()`.
    open func beginConfiguration() {
        state.withLock { $0.depth += 1 }
    }

    /// Ends a transaction; the outermost applies every change since its `beginConfiguration()`
    /// at once. A commit without a begin does nothing.
    open func commitConfiguration() {
        let outermost = state.withLock { state -> Bool in
            guard state.depth > 0 else { return false }
            state.depth -= 1
            return state.depth == 0
        }
        if outermost { apply() }
    }

    /// Edits the configuration under the session's lock (`change` may take an output's or a
    /// preview layer's lock — that order, never the reverse); applies it outside a transaction.
    private func mutate(_ change: (inout SessionConfiguration) -> Void) {
        let immediate = state.withLock { state -> Bool in
            change(&state.configuration)
            return state.depth == 0
        }
        if immediate { apply() }
    }

    /// Applies the configuration: the preset's formats to the devices, and the routes to the
    /// running graph.
    private func apply() {
        runLock.withLock {
            let snapshot = state.withLock { state -> SessionConfiguration in
                state.committed = state.configuration
                return state.configuration
            }
            applyFormats(snapshot)
            guard let graph else { return }
            if let error = graph.apply(snapshot) {
                fail(error.device, AVError(error.error.isDisconnection ? .deviceWasDisconnected : .unknown,
                                           device: error.device, reason: error.error.description))
            }
        }
    }

    /// Sets each video device's active format from the preset (not for `.inputPriority`).
    private func applyFormats(_ snapshot: SessionConfiguration) {
        guard snapshot.preset != .inputPriority else { return }
        for input in snapshot.deviceInputs where input.device.hasMediaType(.video) {
            guard let choice = snapshot.preset.choose(from: input.device.core.liveFormats()),
                  let format = input.device.formats.first(where: { $0.live == choice.format }) else { continue }
            if input.device.core.activeFormat() != format { input.device.core.setActiveFormat(format) }
        }
    }

    // MARK: Running

    /// Whether the session runs. Observable.
    open var isRunning: Bool { state.withLock { $0.running } }

    /// Whether the session is interrupted (a device taken by another application). Observable.
    open var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// The clock of every sample's time: the host time clock.
    open var synchronizationClock: CMClock? { CMClockGetHostTimeClock() }

    /// The clock of every sample's time (the former name of `synchronizationClock`).
    @available(*, deprecated, renamed: "synchronizationClock")
    open var masterClock: CMClock? { synchronizationClock }

    /// Starts the capture and returns when every camera delivered its first frame (or after
    /// 5 s). When a source cannot start, `runtimeErrorNotification` is posted and the session
    /// stays stopped.
    open func startRunning() {
        runLock.withLock {
            guard !state.withLock({ $0.running }) else { return }
            // Inside a configuration block the session starts as last committed.
            let snapshot = state.withLock { $0.committed }
            applyFormats(snapshot)
            generation += 1
            let generation = self.generation
            let graph = CaptureGraph(clock: CMClockGetHostTimeClock()) { [weak self] error, device in
                guard let session = self else { return }
                session.events.async { session.sourceFailed(error, device: device, generation: generation) }
            }
            if let error = graph.apply(snapshot) {
                graph.stop()
                postRuntimeError(AVError(error.error.isDisconnection ? .deviceWasDisconnected : .deviceNotConnected,
                                         device: error.device, reason: error.error.description))
                return
            }
            // Running means frames flow: wait for each camera's first frame (a camera slower
            // than 5 s to start is left to deliver when it can).
            _ = graph.waitForFirstFrames(seconds: 5)
            self.graph = graph
            state.withLock { $0.running = true }
            KVORegistry.shared.didChange(self, \AVCaptureSession.isRunning, old: false)
            NotificationCenter.default.post(name: Self.didStartRunningNotification, object: self)
        }
    }

    /// Stops the capture and returns when no output will call its delegate again.
    open func stopRunning() {
        runLock.withLock {
            guard state.withLock({ $0.running }) else { return }
            graph?.stop()
            graph = nil
            state.withLock { $0.running = false }
            KVORegistry.shared.didChange(self, \AVCaptureSession.isRunning, old: true)
            NotificationCenter.default.post(name: Self.didStopRunningNotification, object: self)
        }
    }

    private func sourceFailed(_ error: LiveSourceError, device: AVCaptureDevice, generation: Int) {
        // A source that lost its device is a disconnection the device watchers may not have
        // seen yet (a file camera notices its file gone at the loop's seam).
        if error.isDisconnection {
            DeviceDirectory.shared.deviceConnectionChanged(uniqueID: device.uniqueID, connected: false)
            // Devices the directory does not list (a screen input's) are marked here, so outputs
            // see a lost device (the movie file output then ends with deviceWasDisconnected).
            _ = device.core.setConnected(false)
        }
        runLock.withLock {
            guard self.generation == generation, state.withLock({ $0.running }) else { return }
            fail(device, AVError(error.isDisconnection ? .deviceWasDisconnected : .unknown, device: device, reason: error.description))
        }
    }

    /// Posts the runtime error, then stops.
    private func fail(_ device: AVCaptureDevice, _ error: AVError) {
        postRuntimeError(error)
        stopRunning()
    }

    private func postRuntimeError(_ error: AVError) {
        NotificationCenter.default.post(name: Self.runtimeErrorNotification, object: self,
                                        userInfo: [AVCaptureSessionErrorKey: error])
    }

    /// Entry point for backends: the session's device was taken (`true`) or given back.
    func setInterrupted(_ value: Bool, reason: AVCaptureSession.InterruptionReason) {
        let old = state.withLock { state -> Bool in
            defer { state.interrupted = value }
            return state.interrupted
        }
        guard old != value else { return }
        KVORegistry.shared.didChange(self, \AVCaptureSession.isInterrupted, old: old)
        if value {
            NotificationCenter.default.post(name: Self.wasInterruptedNotification, object: self,
                                            userInfo: [AVCaptureSessionInterruptionReasonKey: NSNumber(value: reason.rawValue)])
        } else {
            NotificationCenter.default.post(name: Self.interruptionEndedNotification, object: self)
        }
    }

    // MARK: Notifications

    /// Posted when the session started (object: the session).
    public static let didStartRunningNotification = NSNotification.Name("AVCaptureSessionDidStartRunningNotification")
    /// Posted when the session stopped (object: the session).
    public static let didStopRunningNotification = NSNotification.Name("AVCaptureSessionDidStopRunningNotification")
    /// Posted when an error stopped the session (userInfo `AVCaptureSessionErrorKey`: the AVError).
    public static let runtimeErrorNotification = NSNotification.Name("AVCaptureSessionRuntimeErrorNotification")
    /// Posted when the session was interrupted (userInfo `AVCaptureSessionInterruptionReasonKey`).
    public static let wasInterruptedNotification = NSNotification.Name("AVCaptureSessionWasInterruptedNotification")
    /// Posted when an interruption ended.
    public static let interruptionEndedNotification = NSNotification.Name("AVCaptureSessionInterruptionEndedNotification")

    /// Why a session was interrupted.
    public enum InterruptionReason: Int, Sendable {
        case videoDeviceNotAvailableInBackground = 1
        case audioDeviceInUseByAnotherClient = 2
        case videoDeviceInUseByAnotherClient = 3
        case videoDeviceNotAvailableWithMultipleForegroundApps = 4
        case videoDeviceNotAvailableDueToSystemPressure = 5
    }
}

extension LiveSourceError {
    var isDisconnection: Bool {
        if case .disconnected = self { return true }
        return false
    }
}

extension AVError {
    /// A capture error about `device`.
    init(_ code: AVError.Code, device: AVCaptureDevice, reason: String) {
        self.init(code, userInfo: [NSLocalizedDescriptionKey: "Cannot Record",
                                   NSLocalizedFailureReasonErrorKey: reason,
                                   AVErrorDeviceKey: device])
    }
}
