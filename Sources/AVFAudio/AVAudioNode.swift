// AVAudioNode: a node of an AVAudioEngine graph, and what every node shares — formats per bus,
// taps, the mixing settings a source node carries to the mixer it feeds (AVAudioMixing) — over
// its renderer, the render-side object the engine's graph pulls (EngineGraph.swift).
import CoreAudioTypes
import Dispatch
import Foundation
import Synchronization

/// Receives a tap's buffers: the bus's sound, `bufferSize` frames at a time, and when it was rendered.
public typealias AVAudioNodeTapBlock = (AVAudioPCMBuffer, AVAudioTime) -> Void

/// What a node feeding a mixer sets on its input there: pan.
public protocol AVAudioStereoMixing: NSObjectProtocol {
    /// −1 (left) … 1 (right), on the mixer input this node feeds.
    var pan: Float { get set }
}

/// What a node feeding a mixer sets on its input there.
public protocol AVAudioMixing: AVAudioStereoMixing {
    /// 0 … 1, on the mixer input this node feeds.
    var volume: Float { get set }
    /// The settings of this node's input on `mixer`'s bus `bus` (nil when not connected there).
    func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination?
}

/// One connection of a source node to a mixer, with its own volume and pan.
open class AVAudioMixingDestination: NSObject, AVAudioMixing {
    /// The mixer's input this describes.
    open var connectionPoint: AVAudioConnectionPoint { point }
    private let point: AVAudioConnectionPoint
    private let settings: MixSettings

    init(point: AVAudioConnectionPoint, settings: MixSettings) {
        self.point = point
        self.settings = settings
    }

    open var volume: Float {
        get { settings.state.withLock { $0.volume } }
        set { settings.state.withLock { $0.volume = newValue } }
    }

    open var pan: Float {
        get { settings.state.withLock { $0.pan } }
        set { settings.state.withLock { $0.pan = min(1, max(-1, newValue)) } }
    }

    open func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        mixer === point.node && bus == point.bus ? self : nil
    }
}

/// A node and one of its buses.
open class AVAudioConnectionPoint: NSObject {
    open private(set) weak var node: AVAudioNode?
    public let bus: AVAudioNodeBus

    public init(node: AVAudioNode, bus: AVAudioNodeBus) {
        self.node = node
        self.bus = bus
    }
}

/// The volume and pan a source node's sound has at the mixer it feeds.
final class MixSettings: Sendable {
    struct State {
        var volume: Float = 1
        var pan: Float = 0
    }

    let state = Mutex(State())
}

/// A node of an audio engine.
///
/// Formats: a node's output format on a bus is the format of the connection made from it
/// (`connect(_:to:format:)`), else its own default; a mixer takes any input format and converts
/// it (rate, channels) to its output's. Taps deliver the bus's sound in its format, on a serial
/// queue of the node's, `bufferSize` frames at a time (4096 when asked for 0).
open class AVAudioNode: NSObject {
    let renderer: any NodeRenderer
    weak var attachedEngine: AVAudioEngine?
    /// This node's volume and pan on the mixer it feeds (AVAudioMixing nodes).
    var mixSettings: MixSettings { renderer.common.mixSettings }

    init(renderer: any NodeRenderer) {
        self.renderer = renderer
        super.init()
    }

    /// The engine the node is attached to.
    open var engine: AVAudioEngine? { attachedEngine }

    open var numberOfInputs: Int { renderer.inputCount }
    open var numberOfOutputs: Int { renderer.outputCount }

    open func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        attachedEngine?.graph.inputFormat(of: renderer, bus: Int(bus)) ?? renderer.defaultFormat
    }

    open func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        attachedEngine?.graph.outputFormat(of: renderer, bus: Int(bus)) ?? renderer.defaultFormat
    }

    open func name(forInputBus bus: AVAudioNodeBus) -> String? { Int(bus) < numberOfInputs ? "input \(bus)" : nil }
    open func name(forOutputBus bus: AVAudioNodeBus) -> String? { Int(bus) < numberOfOutputs ? "output \(bus)" : nil }

    /// Calls `tapBlock` with the sound of output bus `bus`, `bufferSize` frames at a time.
    open func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
                         block tapBlock: @escaping AVAudioNodeTapBlock) {
        let busFormat = outputFormat(forBus: bus)
        let tapFormat = format.flatMap { $0.channelCount == busFormat.channelCount && $0.sampleRate == busFormat.sampleRate ? $0 : nil }
            ?? busFormat
        nonisolated(unsafe) let block = tapBlock
        renderer.common.installTap(bus: Int(bus), size: bufferSize == 0 ? 4096 : Int(bufferSize), format: tapFormat) { buffer, time in
            block(buffer, time)
        }
    }

    open func removeTap(onBus bus: AVAudioNodeBus) { renderer.common.removeTap(bus: Int(bus)) }

    /// When the node last rendered (nil before the engine ran).
    open var lastRenderTime: AVAudioTime? {
        guard let time = renderer.common.lastRenderSampleTime else { return nil }
        return AVAudioTime(sampleTime: time, atRate: renderer.common.renderRate)
    }

    /// Clears the node's state (a player's schedule, an effect's buffered sound).
    open func reset() { renderer.reset() }

    open var latency: TimeInterval { 0 }
    open var outputPresentationLatency: TimeInterval { attachedEngine?.outputPresentationLatency ?? 0 }
}

// MARK: - Mixing settings of source nodes

/// The mixing settings of the engine's source nodes (players, mixers, the input node): their
/// volume and pan on the mixer they feed.
extension AVAudioMixing where Self: AVAudioNode {
    public var volume: Float {
        get { mixingVolume }
        set { mixingVolume = newValue }
    }

    public var pan: Float {
        get { mixingPan }
        set { mixingPan = newValue }
    }

    public func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        mixingDestination(forMixer: mixer, bus: bus)
    }
}

extension AVAudioNode {
    /// The volume of this node's sound at the mixer it feeds (AVAudioMixing nodes).
    var mixingVolume: Float {
        get { mixSettings.state.withLock { $0.volume } }
        set { mixSettings.state.withLock { $0.volume = max(0, newValue) } }
    }

    /// The pan of this node's sound at the mixer it feeds (AVAudioMixing nodes).
    var mixingPan: Float {
        get { mixSettings.state.withLock { $0.pan } }
        set { mixSettings.state.withLock { $0.pan = min(1, max(-1, newValue)) } }
    }

    func mixingDestination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        guard let engine = attachedEngine, engine.graph.isConnected(renderer, to: mixer.renderer, bus: Int(bus)) else { return nil }
        return AVAudioMixingDestination(point: AVAudioConnectionPoint(node: mixer, bus: bus), settings: mixSettings)
    }
}
