// AVAudioUnitReverb: a convolution reverb — the sound convolved (libavfilter's afir) with an
// impulse response made for the preset (decaying noise from aevalsrc, one decorrelated channel
// per output channel), mixed with the dry sound by `wetDryMix` (amix).
import Foundation
import Synchronization
internal import MediaEngine

/// The factory presets of AVAudioUnitReverb.
public enum AVAudioUnitReverbPreset: Int, Sendable {
    case smallRoom = 0
    case mediumRoom = 1
    case largeRoom = 2
    case mediumHall = 3
    case largeHall = 4
    case plate = 5
    case mediumChamber = 6
    case largeChamber = 7
    case cathedral = 8
    case largeRoom2 = 9
    case mediumHall2 = 10
    case mediumHall3 = 11
    case largeHall2 = 12

    /// The time the preset's reverberation takes to fall by 60 dB (seconds).
    var decayTime: Double {
        switch self {
        case .smallRoom: return 0.4
        case .mediumRoom: return 0.7
        case .largeRoom: return 1.1
        case .largeRoom2: return 1.3
        case .mediumChamber: return 1.0
        case .largeChamber: return 1.5
        case .plate: return 1.4
        case .mediumHall: return 1.6
        case .mediumHall2: return 1.8
        case .mediumHall3: return 2.0
        case .largeHall: return 2.2
        case .largeHall2: return 2.6
        case .cathedral: return 3.6
        }
    }
}

/// The reverb's renderer: the filter graph for the preset, mix, rate and channel count.
final class ReverbRenderer: NodeRenderer {
    let common = RendererCommon(defaultFormat: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!, inputs: 1, outputs: 1)
    struct Settings: Equatable {
        var preset = AVAudioUnitReverbPreset.mediumHall
        var wetDryMix: Float = 100
        var bypass = false
    }
    let settings = Mutex(Settings())
    private struct Built {
        var settings: Settings
        var rate: Int
        var channels: Int
        var graph: AudioFilterGraph?
    }
    private let filters = Mutex<Built?>(nil)
    /// Frames the convolution may hold back (afir's smallest partition): the output's latency.
    static let latency = 256

    /// libavfilter's graph for `settings` on `channels` channels at `rate`: the input split, one
    /// branch convolved with the preset's impulse response (white noise under an exponential
    /// decay reaching −60 dB at the decay time, scaled for unit energy gain), mixed back.
    static func graph(_ settings: Settings, rate: Int, channels: Int) -> String {
        let decay = settings.preset.decayTime
        // Noise in [-1, 1) has power 1/3; Σ e^(-2·6.9·t/T) over T·rate samples ≈ rate·T/13.8:
        // this scale gives the response unit energy. FFmpeg 5.1's afir (gtype=none) gives white
        // noise 6 dB more than its response's energy (measured at 22.05–48 kHz, 0.4–3.6 s), so
        // the response is halved: the wet sound has the dry sound's level.
        let scale = 0.5 * (3 * 13.8 / (Double(rate) * decay)).squareRoot()
        let expressions = (0..<channels).map { "(random(\($0))*2-1)*\(scale)*exp(-6.9*t/\(decay))" }.joined(separator: "|")
        let wet = Double(settings.wetDryMix) / 100
        return "[in]asplit[dry][wet];aevalsrc=exprs='\(expressions)':s=\(rate):d=\(decay)[ir];"
            + "[wet][ir]afir=gtype=none:minp=\(latency)[reverb];"
            + "[dry][reverb]amix=inputs=2:weights='\(1 - wet) \(wet)':normalize=0[out]"
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        let channels = Int(format.channelCount)
        var block = pass.pullInput(of: self, bus: 0, frames: frames)?.mapped(to: channels) ?? .silence(channels: channels, frames: frames)
        let wanted = settings.withLock { $0 }
        guard !wanted.bypass, wanted.wetDryMix > 0 else { return block }
        let rate = Int(format.sampleRate.rounded())
        let graph: AudioFilterGraph? = filters.withLock { built in
            if built == nil || built!.settings != wanted || built!.rate != rate || built!.channels != channels {
                built = Built(settings: wanted, rate: rate, channels: channels,
                              graph: try? AudioFilterGraph(chain: Self.graph(wanted, rate: rate, channels: channels), sampleRate: rate,
                                                           channels: channels, latency: Self.latency))
            }
            return built?.graph
        }
        guard let graph else { return block }
        let count = block.frames
        block.withPlanePointers { try? graph.process($0, frames: count) }
        return block
    }

    func reset() { filters.withLock { $0 = nil } }
}

/// A reverb.
open class AVAudioUnitReverb: AVAudioUnitEffect {
    public init() {
        super.init(renderer: ReverbRenderer())
    }

    private var reverb: ReverbRenderer { renderer as! ReverbRenderer }

    /// Takes the settings of one of the factory presets (default `.mediumHall`).
    open func loadFactoryPreset(_ preset: AVAudioUnitReverbPreset) {
        reverb.settings.withLock { $0.preset = preset }
    }

    /// The share of the reverberated sound in the output, 0 (dry) … 100 (wet, the default).
    open var wetDryMix: Float {
        get { reverb.settings.withLock { $0.wetDryMix } }
        set { reverb.settings.withLock { $0.wetDryMix = min(100, max(0, newValue)) } }
    }

    open override var bypass: Bool {
        get { reverb.settings.withLock { $0.bypass } }
        set { reverb.settings.withLock { $0.bypass = newValue } }
    }
}
