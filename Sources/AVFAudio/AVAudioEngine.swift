// AVAudioEngine: a graph of audio nodes rendered by pulling — to the sound server through the
// process's shared output stream (AudioMixOutput, beside AVAudioPlayer's), or into buffers in
// manual rendering mode, faster than real time.
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization
internal import CVolk

/// How an engine renders when it does not play to the device.
@frozen public enum AVAudioEngineManualRenderingMode: Int, Sendable {
    /// Rendering as fast as asked, independent of any device (files, analysis).
    case offline = 0
    /// Rendering in the app's own real-time context.
    case realtime = 1
}

/// What a manual render did.
@frozen public enum AVAudioEngineManualRenderingStatus: Int, Sendable {
    case error = -1
    case success = 0
    case insufficientDataFromInputNode = 1
    case cannotDoInCurrentContext = 2
}

/// Renders `numberOfFrames` frames of a manual-rendering engine into `outputData` (buffers in the
/// manual rendering format); on `.error`, `outError` (when given) holds the status.
public typealias AVAudioEngineManualRenderingBlock = (AVAudioFrameCount, UnsafeMutablePointer<AudioBufferList>,
                                                      UnsafeMutablePointer<OSStatus>?) -> AVAudioEngineManualRenderingStatus

extension NSNotification.Name {
    /// The engine's I/O configuration changed (its old name).
    public static let AVAudioEngineConfigurationChange = NSNotification.Name("AVAudioEngineConfigurationChangeNotification")
}

/// A graph of audio nodes, rendered to the output device or by hand.
///
/// The output's format is 48 kHz stereo (the sound server converts to the device); the main mixer
/// is connected to the output node the first time it is asked for. Real-time rendering pulls the
/// graph on the sound server's thread through the process's shared output stream; manual
/// rendering pulls it in `renderOffline(_:to:)`.
open class AVAudioEngine: NSObject {
    public static let configurationChangeNotification = NSNotification.Name.AVAudioEngineConfigurationChange

    private struct State {
        var nodes: [AVAudioNode] = []
        var mainMixer: AVAudioMixerNode?
        var running = false
        var output: AudioMixInput?
        var manual: (mode: AVAudioEngineManualRenderingMode, format: AVAudioFormat, maximumFrameCount: AVAudioFrameCount)?
    }

    let graph = EngineGraph()
    /// Touched by the app's calls only (the render thread sees the graph): AVAudioEngine is not
    /// thread-safe, as Apple's is not.
    private var state = State()
    private let hardwareFormat = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    private lazy var output = AVAudioOutputNode(format: hardwareFormat)
    private lazy var input = AVAudioInputNode()

    public override init() {
        super.init()
    }

    deinit {
        state.output?.close()
        input.input.stop()
    }

    /// The format the output node renders in: the manual rendering format, else the device's.
    private var renderFormat: AVAudioFormat { state.manual?.format ?? hardwareFormat }

    // MARK: Nodes

    open func attach(_ node: AVAudioNode) {
        guard !state.nodes.contains(where: { $0 === node }) else { return }
        state.nodes.append(node)
        node.attachedEngine = self
        graph.attach(node.renderer)
    }

    open func detach(_ node: AVAudioNode) {
        state.nodes.removeAll { $0 === node }
        graph.detach(node.renderer)
        node.attachedEngine = nil
    }

    open var attachedNodes: Set<AVAudioNode> { Set(state.nodes) }

    open var outputNode: AVAudioOutputNode {
        attachIfNeeded(output)
        return output
    }

    open var inputNode: AVAudioInputNode {
        attachIfNeeded(input)
        return input
    }

    open var mainMixerNode: AVAudioMixerNode {
        if let mixer = state.mainMixer { return mixer }
        let mixer = AVAudioMixerNode()
        state.mainMixer = mixer
        attach(mixer)
        connect(mixer, to: outputNode, format: renderFormat)
        return mixer
    }

    private func attachIfNeeded(_ node: AVAudioNode) {
        if node.attachedEngine !== self { attach(node) }
    }

    // MARK: Connections

    /// Connects `node1`'s output 0 to `node2`'s input 0 (a mixer: its next free input).
    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {
        let bus = (node2 as? AVAudioMixerNode)?.nextAvailableInputBus ?? 0
        connect(node1, to: node2, fromBus: 0, toBus: bus, format: format)
    }

    /// Connects `node1`'s output `bus1` to `node2`'s input `bus2` in `format` (nil: `node1`'s
    /// output format).
    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus,
                      format: AVAudioFormat?) {
        attachIfNeeded(node1)
        attachIfNeeded(node2)
        let connectionFormat = format ?? node1.outputFormat(forBus: bus1)
        graph.connect(node1.renderer, bus: Int(bus1), to: node2.renderer, bus: Int(bus2), format: connectionFormat)
    }

    /// Connects `sourceNode`'s output `sourceBus` to each of `destNodes`.
    open func connect(_ sourceNode: AVAudioNode, to destNodes: [AVAudioConnectionPoint], fromBus sourceBus: AVAudioNodeBus, format: AVAudioFormat?) {
        for point in destNodes {
            guard let node = point.node else { continue }
            connect(sourceNode, to: node, fromBus: sourceBus, toBus: point.bus, format: format)
        }
    }

    open func disconnectNodeInput(_ node: AVAudioNode, bus: AVAudioNodeBus) { graph.disconnectInput(node.renderer, bus: Int(bus)) }
    open func disconnectNodeInput(_ node: AVAudioNode) { graph.disconnectInput(node.renderer, bus: nil) }
    open func disconnectNodeOutput(_ node: AVAudioNode, bus: AVAudioNodeBus) { graph.disconnectOutput(node.renderer, bus: Int(bus)) }
    open func disconnectNodeOutput(_ node: AVAudioNode) { graph.disconnectOutput(node.renderer, bus: nil) }

    open func inputConnectionPoint(for node: AVAudioNode, inputBus bus: AVAudioNodeBus) -> AVAudioConnectionPoint? {
        let nodes = state.nodes
        guard let connection = graph.inputPoints(of: node.renderer).first(where: { $0.destinationBus == Int(bus) }),
              let source = nodes.first(where: { $0.renderer === connection.source }) else { return nil }
        return AVAudioConnectionPoint(node: source, bus: AVAudioNodeBus(connection.sourceBus))
    }

    open func outputConnectionPoints(for node: AVAudioNode, outputBus bus: AVAudioNodeBus) -> [AVAudioConnectionPoint] {
        let nodes = state.nodes
        return nodes.flatMap { destination in
            graph.inputPoints(of: destination.renderer)
                .filter { $0.source === node.renderer && $0.sourceBus == Int(bus) }
                .map { AVAudioConnectionPoint(node: destination, bus: AVAudioNodeBus($0.destinationBus)) }
        }
    }

    // MARK: Running

    open func prepare() { _ = mainMixerNode }

    /// Starts rendering to the output device (or, in manual rendering mode, allows rendering).
    open func start() throws {
        _ = mainMixerNode
        let (manual, alreadyRunning) = (state.manual != nil, state.running)
        guard !alreadyRunning else { return }
        if input.attachedEngine === self {
            let connected = !outputConnectionPoints(for: input, outputBus: 0).isEmpty
            if connected || input.renderer.common.hasTaps { try input.input.start(feedsGraph: connected) }
        }
        if !manual {
            let graph = graph
            let outputRenderer = output.renderer
            let format = hardwareFormat
            let made = AudioMixOutput.input(sampleRate: Int(format.sampleRate), channels: 2, deviceUID: nil, controls: AudioMixControls(),
                                            fill: { buffer, host in Self.renderInterleaved(graph, outputRenderer, format, into: buffer, hostTime: host) },
                                            failed: { _ in NotificationCenter.default.post(name: .AVAudioEngineConfigurationChange, object: nil) })
            made.setPaused(false)
            state.output = made
        }
        state.running = true
    }

    /// Renders one device buffer: the graph's planar stereo interleaved into `buffer`.
    private static func renderInterleaved(_ graph: EngineGraph, _ output: any NodeRenderer, _ format: AVAudioFormat,
                                          into buffer: UnsafeMutableRawBufferPointer, hostTime: Double) -> Int {
        let frames = buffer.count / 8
        guard frames > 0, let out = buffer.baseAddress?.assumingMemoryBound(to: Float.self) else { return 0 }
        let block = graph.render(output, frames: frames, format: format, hostTime: hostTime).mapped(to: 2)
        block.planes[0].withUnsafeBufferPointer { l in
            block.planes[1].withUnsafeBufferPointer { r in avf_volk_interleave2(out, l.baseAddress!, r.baseAddress!, UInt32(frames)) }
        }
        return frames * 8
    }

    /// Stops rendering; `start()` goes on (players keep their place).
    open func pause() {
        state.running = false
        let output = state.output
        state.output = nil
        output?.close()
        input.input.stop()
    }

    /// Stops rendering and resets every node.
    open func stop() {
        pause()
        reset()
    }

    /// Resets every node (players' schedules, effects' buffered sound) and the engine's time.
    open func reset() {
        for node in state.nodes { node.reset() }
        graph.resetTime()
    }

    open var isRunning: Bool { state.running }

    /// Kept for compatibility: the engine never shuts down on its own.
    open var isAutoShutdownEnabled: Bool {
        get { false }
        set {}
    }

    /// The output's latency (the shared stream's), in seconds.
    var outputPresentationLatency: TimeInterval { state.output?.latency ?? 0 }

    // MARK: Manual rendering

    /// Renders into buffers instead of the device, in `pcmFormat`, at most `maximumFrameCount`
    /// frames per call. The engine must be stopped.
    open func enableManualRenderingMode(_ mode: AVAudioEngineManualRenderingMode, format pcmFormat: AVAudioFormat,
                                        maximumFrameCount: AVAudioFrameCount) throws {
        guard !isRunning else {
            throw NSError(domain: NSOSStatusErrorDomain, code: -10_867, // kAudioUnitErr_CannotDoInCurrentContext
                          userInfo: [NSLocalizedFailureReasonErrorKey: "Stop the engine before enabling manual rendering."])
        }
        guard pcmFormat.commonFormat == .pcmFormatFloat32, pcmFormat.channelCount > 0, maximumFrameCount > 0 else {
            throw NSError(domain: NSOSStatusErrorDomain, code: -10_868, // kAudioUnitErr_FormatNotSupported
                          userInfo: [NSLocalizedFailureReasonErrorKey: "Manual rendering takes a Float32 PCM format and a frame count above 0."])
        }
        state.manual = (mode, pcmFormat, maximumFrameCount)
        if let mixer = state.mainMixer { connect(mixer, to: outputNode, fromBus: 0, toBus: 0, format: pcmFormat) }
        graph.resetTime()
    }

    open func disableManualRenderingMode() {
        state.manual = nil
        if let mixer = state.mainMixer { connect(mixer, to: outputNode, fromBus: 0, toBus: 0, format: hardwareFormat) }
    }

    open var isInManualRenderingMode: Bool { state.manual != nil }
    open var manualRenderingMode: AVAudioEngineManualRenderingMode { state.manual?.mode ?? .offline }
    open var manualRenderingFormat: AVAudioFormat { renderFormat }
    open var manualRenderingMaximumFrameCount: AVAudioFrameCount { state.manual?.maximumFrameCount ?? 0 }
    open var manualRenderingSampleTime: AVAudioFramePosition { graph.sampleTime }

    /// Renders `numberOfFrames` frames of the graph into `buffer` (its frameLength set).
    open func renderOffline(_ numberOfFrames: AVAudioFrameCount, to buffer: AVAudioPCMBuffer) throws -> AVAudioEngineManualRenderingStatus {
        guard let manual = state.manual, isRunning else {
            throw NSError(domain: NSOSStatusErrorDomain, code: -10_867,
                          userInfo: [NSLocalizedFailureReasonErrorKey: "The engine is not running in manual rendering mode."])
        }
        let frames = Int(min(numberOfFrames, buffer.frameCapacity, manual.maximumFrameCount))
        guard buffer.format.channelCount == manual.format.channelCount, buffer.format.sampleRate == manual.format.sampleRate else {
            throw NSError(domain: NSOSStatusErrorDomain, code: -10_868,
                          userInfo: [NSLocalizedFailureReasonErrorKey: "The buffer's format is not the manual rendering format."])
        }
        let block = graph.render(output.renderer, frames: frames, format: manual.format, hostTime: nil)
        buffer.fill(planes: block.planes, frames: frames)
        return .success
    }

    /// A block that renders in manual rendering mode into an `AudioBufferList` (the render
    /// call of `renderOffline(_:to:)` without an `AVAudioPCMBuffer`): it renders into the
    /// list's buffers, or, where a buffer's `mData` is nil, into memory of the engine's that
    /// stays valid until the next call. The engine is held weakly.
    open var manualRenderingBlock: AVAudioEngineManualRenderingBlock {
        let scratch = ManualRenderingScratch()
        return { [weak self] frames, outputData, outError in
            func fail(_ status: OSStatus) -> AVAudioEngineManualRenderingStatus {
                outError?.pointee = status
                return .error
            }
            guard let self, let format = self.state.manual?.format else { return fail(-10_867) }
            guard frames <= self.manualRenderingMaximumFrameCount else { return fail(-10_874) }
            guard let buffer = scratch.buffer(format: format, frames: frames) else { return fail(-50) }
            do {
                guard try self.renderOffline(frames, to: buffer) == .success else { return fail(-10_867) }
            } catch {
                return fail(OSStatus(truncatingIfNeeded: (error as NSError).code))
            }
            let source = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)
            let target = UnsafeMutableAudioBufferListPointer(outputData)
            for b in 0..<min(source.count, target.count) {
                let bytes = Int(buffer.frameLength) * Int(format.streamDescription.pointee.mBytesPerFrame)
                if target[b].mData == nil {
                    target[b].mData = source[b].mData
                } else if let to = target[b].mData, let from = source[b].mData {
                    memcpy(to, from, min(bytes, Int(target[b].mDataByteSize) > 0 ? Int(target[b].mDataByteSize) : bytes))
                }
                target[b].mDataByteSize = UInt32(bytes)
            }
            return .success
        }
    }
}

/// The manual rendering block's buffer, reused from call to call (a caller's nil `mData` points
/// into it until the next call).
private final class ManualRenderingScratch {
    private var current: AVAudioPCMBuffer?

    func buffer(format: AVAudioFormat, frames: AVAudioFrameCount) -> AVAudioPCMBuffer? {
        if let current, current.format.isEqual(format), current.frameCapacity >= frames { return current }
        current = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: max(frames, 4096))
        return current
    }
}
