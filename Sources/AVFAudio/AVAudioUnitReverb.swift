// AVAudioUnitReverb: a convolution reverb — the sound convolved (libavfilter's afir) with an
// impulse response made for the preset (decaying noise from aevalsrc, one decorrelated channel
// per output channel), mixed with the dry sound by `wetDryMix` (amix).
import Foundation

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

/// What a reverb does.
struct ReverbSettings: GraphEffectSettings {
    var preset = AVAudioUnitReverbPreset.mediumHall
    var wetDryMix: Float = 100
    var bypass = false

    /// Frames the convolution may hold back (afir's smallest partition): the output's latency.
    static let latency = 256

    /// libavfilter's graph on `channels` channels at `rate`: the input split, one branch
    /// convolved with the preset's impulse response (white noise under an exponential decay
    /// reaching −60 dB at the decay time), mixed back; nil (the dry sound) with no wet share.
    func graph(rate: Int, channels: Int) -> String? {
        guard wetDryMix > 0 else { return nil }
        let decay = preset.decayTime
        // Noise in [-1, 1) has power 1/3; Σ e^(-2·6.9·t/T) over T·rate samples ≈ rate·T/13.8:
        // this scale gives the response unit energy (halved for afir: see GraphEffectRenderer).
        let scale = 0.5 * (3 * 13.8 / (Double(rate) * decay)).squareRoot()
        let expressions = (0..<channels).map { "(random(\($0))*2-1)*\(scale)*exp(-6.9*t/\(decay))" }
        return Self.convolution(expressions, seconds: decay, rate: rate, partition: Self.latency, wet: Double(wetDryMix) / 100)
    }
}

/// A reverb.
open class AVAudioUnitReverb: AVAudioUnitEffect {
    public init() {
        super.init(renderer: GraphEffectRenderer(ReverbSettings(), latency: ReverbSettings.latency))
    }

    private var reverb: GraphEffectRenderer<ReverbSettings> { renderer as! GraphEffectRenderer<ReverbSettings> }

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
