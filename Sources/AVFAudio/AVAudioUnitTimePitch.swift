// AVAudioUnit effects of the engine: time-pitch (rate keeping pitch, pitch in cents) and varispeed
// (rate with pitch, as tape), both Rubber Band through the renderer's AudioTimeStretcher.
import CoreAudioTypes
import Foundation
import Synchronization

/// An engine node that processes sound (Apple's are Audio Units; these are built in).
open class AVAudioUnit: AVAudioNode {
    /// The unit's name.
    open var name: String { String(describing: type(of: self)) }
    open var manufacturerName: String { "AV Foundation for Linux" }
    open var version: Int { 1 }
}

/// A unit processing sound in real time.
open class AVAudioUnitEffect: AVAudioUnit {
    /// Passes the input through unchanged when true.
    open var bypass: Bool {
        get { (renderer as? StretchRenderer)?.parameters.withLock { $0.bypass } ?? false }
        set { (renderer as? StretchRenderer)?.parameters.withLock { $0.bypass = newValue } }
    }
}

/// A unit that changes the sound's timing.
open class AVAudioUnitTimeEffect: AVAudioUnit {
    open var bypass: Bool {
        get { stretch.parameters.withLock { $0.bypass } }
        set { stretch.parameters.withLock { $0.bypass = newValue } }
    }

    var stretch: StretchRenderer { renderer as! StretchRenderer }
}

/// Rate and pitch through Rubber Band: output frames pulled from `rate` times as many input frames.
final class StretchRenderer: NodeRenderer {
    struct Parameters {
        var rate: Float = 1
        /// Pitch change in cents (time-pitch); ignored for varispeed.
        var pitch: Float = 0
        var overlap: Float = 8
        var bypass = false
        var varispeed = false
    }

    /// The stretcher made for the parameters, rate and channel count in `key`, and the frames
    /// it gave that are not yet rendered.
    private struct Stretching {
        var stretcher: AudioTimeStretcher?
        var key: (rate: Float, pitch: Float, channels: Int, sampleRate: Double)?
        var ready = EngineBlock(planes: [], frames: 0)
    }

    let parameters = Mutex(Parameters())
    private let stretching = Mutex(Stretching())
    let common: RendererCommon

    init(defaultFormat: AVAudioFormat, inputs: Int, outputs: Int) {
        common = RendererCommon(defaultFormat: defaultFormat, inputs: inputs, outputs: outputs)
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        let p = parameters.withLock { $0 }
        let channels = Int(format.channelCount)
        let pitchScale = p.varispeed ? Double(p.rate) : pow(2, Double(p.pitch) / 1200)
        if p.bypass || (p.rate == 1 && pitchScale == 1) {
            return pass.pullInput(of: self, bus: 0, frames: frames)?.mapped(to: channels) ?? .silence(channels: channels, frames: frames)
        }
        return stretching.withLock { s in
            if s.key == nil || s.key!.rate != p.rate || s.key!.pitch != (p.varispeed ? p.rate : p.pitch) || s.key!.channels != channels
                || s.key!.sampleRate != format.sampleRate {
                let options = AudioTimeStretcher.options(for: .timeDomain) ?? 0
                s.stretcher = AudioTimeStretcher(options: options, sampleRate: Int(format.sampleRate.rounded()), channels: channels,
                                                 ratio: 1 / Double(p.rate), maxFrames: 4096, pitchScale: pitchScale)
                s.key = (p.rate, p.varispeed ? p.rate : p.pitch, channels, format.sampleRate)
                s.ready = EngineBlock(planes: Array(repeating: [], count: channels), frames: 0)
            }
            guard let stretcher = s.stretcher else { return .silence(channels: channels, frames: frames) }
            var guardCount = 0
            while s.ready.frames < frames && guardCount < 256 {
                guardCount += 1
                if let (data, got) = stretcher.retrieve(maxFrames: min(4096, frames - s.ready.frames)), got > 0 {
                    s.ready.append(EngineBlock(packed: data, channels: channels, frames: got))
                    continue
                }
                let want = max(512, Int((Double(frames - s.ready.frames) * Double(p.rate)).rounded(.up)))
                let input = pass.pullInput(of: self, bus: 0, frames: want)?.mapped(to: channels) ?? .silence(channels: channels, frames: want)
                stretcher.process(input.packed, frameCount: input.frames, final: false)
            }
            var out = s.ready.take(frames)
            if out.frames < frames { out.append(.silence(channels: channels, frames: frames - out.frames)) }
            return out
        }
    }

    func reset() {
        stretching.withLock { s in
            s.stretcher = nil
            s.key = nil
        }
    }
}

/// Changes the rate keeping the pitch, and the pitch keeping the rate.
open class AVAudioUnitTimePitch: AVAudioUnitTimeEffect {
    public init() {
        super.init(renderer: StretchRenderer(defaultFormat: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!,
                                             inputs: 1, outputs: 1))
    }

    /// 1/32 … 32 (default 1).
    open var rate: Float {
        get { stretch.parameters.withLock { $0.rate } }
        set { stretch.parameters.withLock { $0.rate = min(32, max(1.0 / 32, newValue)) } }
    }

    /// −2400 … 2400 cents (default 0).
    open var pitch: Float {
        get { stretch.parameters.withLock { $0.pitch } }
        set { stretch.parameters.withLock { $0.pitch = min(2400, max(-2400, newValue)) } }
    }

    /// 3 … 32 (default 8); kept for compatibility (Rubber Band picks its own windows).
    open var overlap: Float {
        get { stretch.parameters.withLock { $0.overlap } }
        set { stretch.parameters.withLock { $0.overlap = min(32, max(3, newValue)) } }
    }
}

/// Changes the rate and the pitch together, as a tape played faster or slower.
open class AVAudioUnitVarispeed: AVAudioUnitTimeEffect {
    public init() {
        let renderer = StretchRenderer(defaultFormat: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!, inputs: 1, outputs: 1)
        renderer.parameters.withLock { $0.varispeed = true }
        super.init(renderer: renderer)
    }

    /// 0.25 … 4 (default 1).
    open var rate: Float {
        get { stretch.parameters.withLock { $0.rate } }
        set { stretch.parameters.withLock { $0.rate = min(4, max(0.25, newValue)) } }
    }
}
