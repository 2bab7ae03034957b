// EngineGraph: an AVAudioEngine's nodes as the render thread sees them — renderers and their
// connections under one lock — and the pull: the output asks the main mixer for N frames, the
// mixer asks each input, players read their schedules, effects stretch what they pull. Blocks are
// planar Float32; the per-sample work (gain, sum, rate conversion, stretching) runs in VOLK,
// libswresample and Rubber Band, never in a Swift loop over samples.
import CoreAudioTypes
import Dispatch
import Foundation
import Synchronization
internal import CVolk
internal import MediaEngine

/// Planar Float32 sound: one array per channel, `frames` long.
struct EngineBlock {
    var planes: [[Float]]
    var frames: Int

    static func silence(channels: Int, frames: Int) -> EngineBlock {
        EngineBlock(planes: Array(repeating: [Float](repeating: 0, count: frames), count: max(channels, 1)), frames: frames)
    }

    var channels: Int { planes.count }

    /// The planes one after another (the engine's byte layout for resamplers and stretchers).
    var packed: Data {
        var data = Data(capacity: planes.count * frames * 4)
        for plane in planes { plane.withUnsafeBytes { data.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0.prefix(frames * 4))) } }
        return data
    }

    /// A block from planes packed one after another in `data`.
    init(packed data: Data, channels: Int, frames: Int) {
        self.frames = frames
        planes = (0..<channels).map { c in
            data.withUnsafeBytes { raw in
                Array(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: Float.self) + c * frames, count: frames))
            }
        }
    }

    init(planes: [[Float]], frames: Int) {
        self.planes = planes
        self.frames = frames
    }

    /// Calls `body` with a pointer to a copy of each plane, then takes the copies back (for C
    /// code that works in place).
    mutating func withPlanePointers(_ body: ([UnsafeMutablePointer<Float>]) -> Void) {
        var pointers: [UnsafeMutablePointer<Float>] = []
        for c in planes.indices {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: max(frames, 1))
            planes[c].withUnsafeBufferPointer { p.update(from: $0.baseAddress!, count: frames) }
            pointers.append(p)
        }
        body(pointers)
        for (c, p) in pointers.enumerated() {
            planes[c] = Array(UnsafeBufferPointer(start: p, count: frames))
            p.deallocate()
        }
    }

    /// Appends `other` (same channel count).
    mutating func append(_ other: EngineBlock) {
        for c in planes.indices { planes[c].append(contentsOf: other.planes[min(c, other.planes.count - 1)].prefix(other.frames)) }
        frames += other.frames
    }

    /// Removes and returns the first `count` frames.
    mutating func take(_ count: Int) -> EngineBlock {
        let n = min(count, frames)
        let head = EngineBlock(planes: planes.map { Array($0.prefix(n)) }, frames: n)
        for c in planes.indices { planes[c].removeFirst(min(n, planes[c].count)) }
        frames -= n
        return head
    }

    /// As `channels` channels: mono copied to each, more folded onto fewer by averaging pairs.
    func mapped(to channels: Int) -> EngineBlock {
        guard channels != planes.count, !planes.isEmpty else { return self }
        if planes.count == 1 { return EngineBlock(planes: Array(repeating: planes[0], count: channels), frames: frames) }
        if channels == 1 {
            var sum = [Float](repeating: 0, count: frames)
            for plane in planes { sum.withUnsafeMutableBufferPointer { s in plane.withUnsafeBufferPointer { avf_volk_accumulate(s.baseAddress!, $0.baseAddress!, UInt32(frames)) } } }
            let scale = 1 / Float(planes.count)
            sum.withUnsafeMutableBufferPointer { avf_volk_scale($0.baseAddress!, $0.baseAddress!, scale, UInt32(frames)) }
            return EngineBlock(planes: [sum], frames: frames)
        }
        return EngineBlock(planes: (0..<channels).map { planes[min($0, planes.count - 1)] }, frames: frames)
    }
}

/// The render side of a node: what the graph pulls. Each kind keeps its own state in Mutexes;
/// what every node shares (formats, taps, the mixing settings, the last render time) is `common`.
protocol NodeRenderer: AnyObject, Sendable {
    var common: RendererCommon { get }
    /// `frames` frames of output bus 0 in `format`, for the pass starting at `pass.sampleTime`.
    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock
    /// Forgets what the node holds (a player's schedule, an effect's buffered sound).
    func reset()
}

extension NodeRenderer {
    var defaultFormat: AVAudioFormat { common.defaultFormat }
    var inputCount: Int { common.inputCount }
    var outputCount: Int { common.outputCount }
    var mixSettings: MixSettings { common.mixSettings }

    func reset() {}

    /// `render`, with the taps fed and the render time noted.
    func pull(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        let block = render(frames: frames, format: format, pass: pass)
        common.rendered(at: pass.sampleTime, rate: pass.sampleRate)
        common.feedTaps(bus: 0, block, at: pass.sampleTime, rate: format.sampleRate)
        return block
    }
}

/// What every node's renderer has: its default format and bus counts, its volume and pan on the
/// mixer it feeds, its taps, and when it last rendered.
final class RendererCommon: Sendable {
    let defaultFormat: AVAudioFormat
    let inputCount: Int
    let outputCount: Int
    let mixSettings = MixSettings()
    private let renderTimes = Mutex<(sampleTime: AVAudioFramePosition?, rate: Double)>((nil, 0))

    struct Tap {
        var size: Int
        var format: AVAudioFormat
        var pending: EngineBlock?
        var pendingStart: AVAudioFramePosition = 0
        let deliver: @Sendable (AVAudioPCMBuffer, AVAudioTime) -> Void
        let queue: DispatchQueue
    }

    private let taps = Mutex<[Int: Tap]>([:])

    init(defaultFormat: AVAudioFormat, inputs: Int, outputs: Int) {
        self.defaultFormat = defaultFormat
        inputCount = inputs
        outputCount = outputs
    }

    var lastRenderSampleTime: AVAudioFramePosition? { renderTimes.withLock { $0.sampleTime } }
    var renderRate: Double { renderTimes.withLock { $0.rate } }

    func rendered(at sampleTime: AVAudioFramePosition, rate: Double) { renderTimes.withLock { $0 = (sampleTime, rate) } }

    func installTap(bus: Int, size: Int, format: AVAudioFormat, deliver: @escaping @Sendable (AVAudioPCMBuffer, AVAudioTime) -> Void) {
        taps.withLock { $0[bus] = Tap(size: size, format: format, deliver: deliver, queue: DispatchQueue(label: "com.avfoundation.audio-engine.tap")) }
    }

    func removeTap(bus: Int) { _ = taps.withLock { $0.removeValue(forKey: bus) } }

    var hasTaps: Bool { taps.withLock { !$0.isEmpty } }

    /// Adds `block` (rendered at `sampleTime`) to bus `bus`'s tap; hands on every full buffer.
    func feedTaps(bus: Int, _ block: EngineBlock, at sampleTime: AVAudioFramePosition, rate: Double) {
        let ready: [(EngineBlock, AVAudioFramePosition, Tap)] = taps.withLock { taps in
            guard var tap = taps[bus] else { return [] }
            if tap.pending == nil { tap.pendingStart = sampleTime }
            var pending = tap.pending ?? EngineBlock(planes: Array(repeating: [], count: block.channels), frames: 0)
            pending.append(block.mapped(to: pending.channels))
            var out: [(EngineBlock, AVAudioFramePosition, Tap)] = []
            while pending.frames >= tap.size {
                out.append((pending.take(tap.size), tap.pendingStart, tap))
                tap.pendingStart += AVAudioFramePosition(tap.size)
            }
            tap.pending = pending
            taps[bus] = tap
            return out
        }
        for (chunk, start, tap) in ready {
            let format = tap.format
            let deliver = tap.deliver
            let planes = chunk.planes, frames = chunk.frames
            tap.queue.async {
                guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)) else { return }
                buffer.fill(planes: planes, frames: frames)
                deliver(buffer, AVAudioTime(sampleTime: start, atRate: rate))
            }
        }
    }
}

/// One render pass: the frames asked for and how to pull a node's inputs.
final class RenderPass: Sendable {
    let sampleTime: AVAudioFramePosition
    let sampleRate: Double
    /// The host time (seconds) the pass's first frame is written at (real-time output), else nil.
    let hostTime: Double?
    private let connections: [EngineGraph.Connection]

    init(sampleTime: AVAudioFramePosition, sampleRate: Double, hostTime: Double?, connections: [EngineGraph.Connection]) {
        self.sampleTime = sampleTime
        self.sampleRate = sampleRate
        self.hostTime = hostTime
        self.connections = connections
    }

    /// The node connected to `node`'s input `bus` and the connection's format.
    func source(of node: any NodeRenderer, bus: Int) -> ((any NodeRenderer), AVAudioFormat)? {
        connections.first { $0.destination === node && $0.destinationBus == bus }.map { ($0.source, $0.format) }
    }

    /// The input buses of `node` that something feeds, in order.
    func connectedBuses(of node: any NodeRenderer) -> [Int] {
        connections.filter { $0.destination === node }.map(\.destinationBus).sorted()
    }

    /// `frames` frames from what feeds `node`'s input `bus` (nil when nothing does).
    func pullInput(of node: any NodeRenderer, bus: Int, frames: Int) -> EngineBlock? {
        guard let (source, format) = source(of: node, bus: bus) else { return nil }
        return source.pull(frames: frames, format: format, pass: self)
    }
}

/// An engine's graph: renderers and connections under one lock, and the pull.
final class EngineGraph: Sendable {
    struct Connection: Sendable {
        var source: any NodeRenderer
        var sourceBus: Int
        var destination: any NodeRenderer
        var destinationBus: Int
        var format: AVAudioFormat
    }

    struct State {
        var renderers: [any NodeRenderer] = []
        var connections: [Connection] = []
        var sampleTime: AVAudioFramePosition = 0
        /// The sample time and host time (seconds) of the latest real-time pass.
        var lastPass: (sampleTime: AVAudioFramePosition, hostTime: Double)?
    }

    private let state = Mutex(State())

    func attach(_ renderer: any NodeRenderer) {
        state.withLock { s in if !s.renderers.contains(where: { $0 === renderer }) { s.renderers.append(renderer) } }
    }

    func detach(_ renderer: any NodeRenderer) {
        state.withLock { s in
            s.renderers.removeAll { $0 === renderer }
            s.connections.removeAll { $0.source === renderer || $0.destination === renderer }
        }
    }

    func connect(_ source: any NodeRenderer, bus sourceBus: Int, to destination: any NodeRenderer, bus destinationBus: Int, format: AVAudioFormat) {
        state.withLock { s in
            // An input takes one connection; an output may feed several inputs.
            s.connections.removeAll { $0.destination === destination && $0.destinationBus == destinationBus }
            s.connections.append(Connection(source: source, sourceBus: sourceBus, destination: destination, destinationBus: destinationBus, format: format))
        }
    }

    func disconnectInput(_ node: any NodeRenderer, bus: Int?) {
        state.withLock { s in s.connections.removeAll { $0.destination === node && (bus == nil || $0.destinationBus == bus) } }
    }

    func disconnectOutput(_ node: any NodeRenderer, bus: Int?) {
        state.withLock { s in s.connections.removeAll { $0.source === node && (bus == nil || $0.sourceBus == bus) } }
    }

    func isConnected(_ source: any NodeRenderer, to destination: any NodeRenderer, bus: Int) -> Bool {
        state.withLock { s in s.connections.contains { $0.source === source && $0.destination === destination && $0.destinationBus == bus } }
    }

    func inputFormat(of node: any NodeRenderer, bus: Int) -> AVAudioFormat? {
        state.withLock { s in s.connections.first { $0.destination === node && $0.destinationBus == bus }?.format }
    }

    func outputFormat(of node: any NodeRenderer, bus: Int) -> AVAudioFormat? {
        state.withLock { s in s.connections.first { $0.source === node && $0.sourceBus == bus }?.format }
    }

    func connectedInputBuses(of node: any NodeRenderer) -> [Int] {
        state.withLock { s in s.connections.filter { $0.destination === node }.map(\.destinationBus).sorted() }
    }

    func inputPoints(of node: any NodeRenderer) -> [Connection] {
        state.withLock { s in s.connections.filter { $0.destination === node } }
    }

    var sampleTime: AVAudioFramePosition { state.withLock { $0.sampleTime } }

    func resetTime() {
        state.withLock { s in
            s.sampleTime = 0
            s.lastPass = nil
        }
    }

    /// The engine sample time at host time `host` (seconds), from the latest real-time pass
    /// (nil before one).
    func sampleTime(atHostTime host: Double, rate: Double) -> AVAudioFramePosition? {
        state.withLock { s in s.lastPass.map { $0.sampleTime + AVAudioFramePosition(((host - $0.hostTime) * rate).rounded()) } }
    }

    /// Renders `frames` frames of `output` in `format` (the engine's output), advancing the
    /// engine's sample time. Runs under the graph's lock: configuration waits for a pass.
    func render(_ output: any NodeRenderer, frames: Int, format: AVAudioFormat, hostTime: Double?) -> EngineBlock {
        state.withLock { s in
            let pass = RenderPass(sampleTime: s.sampleTime, sampleRate: format.sampleRate, hostTime: hostTime, connections: s.connections)
            let block = output.pull(frames: frames, format: format, pass: pass)
            if let hostTime { s.lastPass = (s.sampleTime, hostTime) }
            s.sampleTime += AVAudioFramePosition(frames)
            return block
        }
    }
}

extension AVAudioPCMBuffer {
    /// Copies planar `planes` (`frames` each) into this buffer (its format's channel count and layout).
    func fill(planes: [[Float]], frames: Int) {
        let n = min(frames, Int(frameCapacity))
        let channels = Int(format.channelCount)
        if let data = floatChannelData {
            if format.isInterleaved && channels > 1 {
                if channels == 2, planes.count >= 2 {
                    planes[0].withUnsafeBufferPointer { l in
                        planes[1].withUnsafeBufferPointer { r in avf_volk_interleave2(data[0], l.baseAddress!, r.baseAddress!, UInt32(n)) }
                    }
                }
            } else {
                for c in 0..<channels {
                    planes[min(c, planes.count - 1)].withUnsafeBufferPointer { data[c].update(from: $0.baseAddress!, count: n) }
                }
            }
        }
        frameLength = AVAudioFrameCount(n)
    }

    /// This buffer's first `frames` frames as planar Float32 (float formats; silence otherwise).
    func planes(frames: Int) -> [[Float]] {
        let channels = Int(format.channelCount)
        let n = min(frames, Int(frameLength))
        guard let data = floatChannelData else { return Array(repeating: [Float](repeating: 0, count: n), count: channels) }
        if format.isInterleaved && channels == 2 {
            var l = [Float](repeating: 0, count: n), r = [Float](repeating: 0, count: n)
            l.withUnsafeMutableBufferPointer { lp in
                r.withUnsafeMutableBufferPointer { rp in avf_volk_deinterleave2(lp.baseAddress!, rp.baseAddress!, data[0], UInt32(n)) }
            }
            return [l, r]
        }
        return (0..<channels).map { Array(UnsafeBufferPointer(start: data[$0], count: n)) }
    }
}
