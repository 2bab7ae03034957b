// AVAudioMixerNode and the engine's I/O nodes: the mixer sums its inputs — each converted to its
// output's rate (libswresample) and channels, scaled by the source node's volume and pan (VOLK) —
// and the output node hands the main mixer's sound to the device or to manual rendering; the
// input node is the sound server's default source.
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization
internal import CVolk
internal import MediaEngine

/// Converts one input's rate: pulls what it needs from the input, hands out `frames` at the output rate.
final class RateAdapter {
    private let resampler: AudioResampler
    private let channels: Int
    private let ratio: Double

    init?(channels: Int, from inputRate: Double, to outputRate: Double) {
        func format(_ rate: Double) -> AudioPCMFormat {
            AudioPCMFormat(sampleRate: Int(rate.rounded()), channels: channels == 1 ? .mono : channels == 2 ? .stereo : AudioChannelSet(count: channels),
                           sampleType: .float, bitsPerSample: 32, isBigEndian: false, isInterleaved: false)
        }
        guard let made = try? AudioResampler(input: format(inputRate), output: format(outputRate), quality: .high) else { return nil }
        resampler = made
        self.channels = channels
        ratio = inputRate / outputRate
    }

    func produce(_ frames: Int, pull: (Int) -> EngineBlock) -> EngineBlock {
        var guardCount = 0
        while resampler.bufferedFrameCount < frames && guardCount < 32 {
            guardCount += 1
            let want = max(64, Int((Double(frames - resampler.bufferedFrameCount) * ratio).rounded(.up)) + 8)
            let input = pull(want).mapped(to: channels)
            input.packed.withUnsafeBytes { _ = try? resampler.append(bytes: $0, frameCount: input.frames) }
        }
        let n = min(frames, resampler.bufferedFrameCount)
        var block = EngineBlock(packed: resampler.read(frameCount: n), channels: channels, frames: n)
        if n < frames { block.append(.silence(channels: channels, frames: frames - n)) }
        return block
    }
}

final class MixerRenderer: NodeRenderer {
    /// Per input bus, the rate converter of an input at another rate; the gain kernel's scratch.
    private struct Mixing {
        var adapters: [Int: (rate: Double, channels: Int, adapter: RateAdapter)] = [:]
        let kernel = AudioGainKernel(capacity: 4096)
    }

    let outputVolume = Mutex<Float>(1)
    private let mixing = Mutex(Mixing())
    let common: RendererCommon

    init(defaultFormat: AVAudioFormat, inputs: Int, outputs: Int) {
        common = RendererCommon(defaultFormat: defaultFormat, inputs: inputs, outputs: outputs)
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        mixing.withLock { mix(frames: frames, format: format, pass: pass, &$0) }
    }

    private func mix(frames: Int, format: AVAudioFormat, pass: RenderPass, _ m: inout Mixing) -> EngineBlock {
        let channels = Int(format.channelCount)
        var mix = EngineBlock.silence(channels: channels, frames: frames)
        for bus in pass.connectedBuses(of: self) {
            guard let (source, sourceFormat) = pass.source(of: self, bus: bus) else { continue }
            var block: EngineBlock
            if sourceFormat.sampleRate == format.sampleRate {
                block = source.pull(frames: frames, format: sourceFormat, pass: pass)
            } else {
                let sourceChannels = Int(sourceFormat.channelCount)
                if m.adapters[bus]?.rate != sourceFormat.sampleRate || m.adapters[bus]?.channels != sourceChannels {
                    m.adapters[bus] = RateAdapter(channels: sourceChannels, from: sourceFormat.sampleRate, to: format.sampleRate)
                        .map { (sourceFormat.sampleRate, sourceChannels, $0) }
                }
                guard let adapter = m.adapters[bus]?.adapter else { continue }
                block = adapter.produce(frames) { source.pull(frames: $0, format: sourceFormat, pass: pass) }
            }
            block = block.mapped(to: channels)
            let (volume, pan) = source.mixSettings.state.withLock { ($0.volume, $0.pan) }
            for c in 0..<channels {
                var gain = volume
                if channels == 2 { gain *= c == 0 ? min(1, 1 - pan) : min(1, 1 + pan) }
                Self.add(block.planes[c], into: &mix.planes[c], frames: min(frames, block.frames), gain: gain, kernel: m.kernel)
            }
        }
        let volume = outputVolume.withLock { $0 }
        if volume != 1 {
            for c in 0..<channels {
                mix.planes[c].withUnsafeMutableBufferPointer { avf_volk_scale($0.baseAddress!, $0.baseAddress!, volume, UInt32(frames)) }
            }
        }
        return mix
    }

    private static func add(_ source: [Float], into sum: inout [Float], frames: Int, gain: Float, kernel: AudioGainKernel) {
        source.withUnsafeBufferPointer { s in
            sum.withUnsafeMutableBufferPointer { d in
                var done = 0
                while done < frames {
                    let n = min(kernel.capacity, frames - done)
                    kernel.add(s.baseAddress! + done, into: d.baseAddress! + done, count: n, start: gain, step: 0)
                    done += n
                }
            }
        }
    }

    func reset() { mixing.withLock { $0.adapters = [:] } }
}

/// Mixes any number of inputs into one output.
open class AVAudioMixerNode: AVAudioNode, AVAudioMixing {
    public init() {
        super.init(renderer: MixerRenderer(defaultFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!,
                                           inputs: Int(UInt16.max), outputs: 1))
    }

    private var mixer: MixerRenderer { renderer as! MixerRenderer }

    /// The volume of the mixer's output, 0 … 1.
    open var outputVolume: Float {
        get { mixer.outputVolume.withLock { $0 } }
        set { mixer.outputVolume.withLock { $0 = max(0, newValue) } }
    }

    /// The lowest input bus nothing is connected to.
    open var nextAvailableInputBus: AVAudioNodeBus {
        let used = Set(attachedEngine?.graph.connectedInputBuses(of: renderer) ?? [])
        var bus = 0
        while used.contains(bus) { bus += 1 }
        return AVAudioNodeBus(bus)
    }

}

/// A node that passes its input on unchanged (the output node's render side).
final class PassRenderer: NodeRenderer {
    let common: RendererCommon

    init(defaultFormat: AVAudioFormat, inputs: Int, outputs: Int) {
        common = RendererCommon(defaultFormat: defaultFormat, inputs: inputs, outputs: outputs)
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        pass.pullInput(of: self, bus: 0, frames: frames)?.mapped(to: Int(format.channelCount))
            ?? .silence(channels: Int(format.channelCount), frames: frames)
    }
}

/// The engine's connection to the audio hardware.
open class AVAudioIONode: AVAudioNode {
    /// The hardware's latency, in seconds.
    open var presentationLatency: TimeInterval { attachedEngine?.outputPresentationLatency ?? 0 }
}

/// Where the engine's sound goes: the sound server's default sink, or manual rendering.
open class AVAudioOutputNode: AVAudioIONode {
    init(format: AVAudioFormat) {
        super.init(renderer: PassRenderer(defaultFormat: format, inputs: 1, outputs: 0))
    }
}

/// Captured sound waiting to be pulled, and the capture that fills it.
final class InputRenderer: NodeRenderer {
    private let captured = Mutex(EngineBlock(planes: [[], []], frames: 0))
    private let source = Mutex<PulseSource?>(nil)
    private let capturedFrames = Mutex<AVAudioFramePosition>(0)
    let common: RendererCommon

    init(defaultFormat: AVAudioFormat, inputs: Int, outputs: Int) {
        common = RendererCommon(defaultFormat: defaultFormat, inputs: inputs, outputs: outputs)
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        var block = captured.withLock { $0.take(frames) }.mapped(to: Int(format.channelCount))
        if block.frames < frames { block.append(.silence(channels: block.channels, frames: frames - block.frames)) }
        return block
    }

    /// Starts recording the default source (for connections and taps).
    func start(feedsGraph: Bool) throws {
        guard source.withLock({ $0 == nil }) else { return }
        let format = LiveAudioFormat(sampleRate: defaultFormat.sampleRate, channelCount: Int(defaultFormat.channelCount))
        let made = PulseSource(sourceName: AudioSessionRouting.preferredInputName ?? "@DEFAULT_SOURCE@", formats: [format])
        let rate = defaultFormat.sampleRate
        do throws(LiveSourceError) {
            try made.start(format: format, clock: CMClockGetHostTimeClock(), deliver: { [weak self] chunk in
                guard let self else { return }
                let planes: [[Float]] = chunk.samples.withUnsafeBytes { raw in
                    let samples = raw.bindMemory(to: Float.self)
                    if chunk.format.channelCount == 2 {
                        var l = [Float](repeating: 0, count: chunk.frameCount), r = l
                        l.withUnsafeMutableBufferPointer { lp in
                            r.withUnsafeMutableBufferPointer { rp in avf_volk_deinterleave2(lp.baseAddress!, rp.baseAddress!, samples.baseAddress!, UInt32(chunk.frameCount)) }
                        }
                        return [l, r]
                    }
                    return [Array(samples.prefix(chunk.frameCount))]
                }
                let block = EngineBlock(planes: planes, frames: chunk.frameCount)
                let start = self.capturedFrames.withLock { t -> AVAudioFramePosition in
                    defer { t += AVAudioFramePosition(chunk.frameCount) }
                    return t
                }
                self.common.feedTaps(bus: 0, block, at: start, rate: rate)
                if feedsGraph {
                    self.captured.withLock { c in
                        c.append(block.mapped(to: c.channels))
                        // At most a second waits.
                        if c.frames > Int(rate) { _ = c.take(c.frames - Int(rate)) }
                    }
                }
            }, failed: { _ in })
        } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: -10_851, userInfo: [NSLocalizedFailureReasonErrorKey: "The sound input cannot be recorded: \(error)"])
        }
        source.withLock { $0 = made }
    }

    func stop() {
        let old = source.withLock { s -> PulseSource? in
            defer { s = nil }
            return s
        }
        old?.stop()
        captured.withLock { $0 = EngineBlock(planes: [[], []], frames: 0) }
    }
}

/// The sound server's default input (a microphone, or a sink's monitor).
open class AVAudioInputNode: AVAudioIONode, AVAudioMixing {
    init() {
        super.init(renderer: InputRenderer(defaultFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!,
                                           inputs: 0, outputs: 1))
    }

    var input: InputRenderer { renderer as! InputRenderer }

}
