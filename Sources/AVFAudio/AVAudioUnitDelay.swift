// AVAudioUnitDelay: echoes — the sound convolved (libavfilter's afir) with a train of impulses
// `delayTime` apart, each `feedback` times the one before, low-pass filtered, mixed with the dry
// sound by `wetDryMix`.
import Foundation

/// What a delay does (Apple's ranges and defaults).
struct DelaySettings: GraphEffectSettings {
    var delayTime: TimeInterval = 1
    var feedback: Float = 50
    var lowPassCutoff: Float = 15_000
    var wetDryMix: Float = 100
    var bypass = false

    /// Frames the convolution may hold back: the output's latency.
    static let latency = 256
    /// The longest train of echoes kept (afir's longest response).
    static let longestResponse = 30.0

    /// The graph: one branch convolved with the echoes (at 1, `feedback`, `feedback`²… until they
    /// fall below −80 dB or the train is 30 s long), low-pass filtered, mixed with the dry sound.
    func graph(rate: Int, channels: Int) -> String? {
        guard wetDryMix > 0 else { return nil }
        let period = max(1, Int((delayTime * Double(rate)).rounded()))
        let ratio = Double(feedback) / 100
        let longest = max(1, Int(Self.longestResponse * Double(rate)) / period)
        let echoes = abs(ratio) < 1e-4 ? 1 : abs(ratio) >= 0.9999 ? longest
            : min(Int((log(1e-4) / log(abs(ratio))).rounded(.up)), longest)
        let seconds = min(Self.longestResponse, Double(echoes * period + 1) / Double(rate))
        // Impulse k (k ≥ 1) at frame k·period, ratio^(k−1); halved for afir (GraphEffectRenderer).
        let impulse = "0.5*if(gt(n,0)*eq(mod(n,\(period)),0),pow(\(ratio),n/\(period)-1),0)"
        let lowPass = Double(lowPassCutoff) < Double(rate) / 2 * 0.99 ? "lowpass=f=\(lowPassCutoff):p=2" : ""
        return Self.convolution(Array(repeating: impulse, count: channels), seconds: seconds, rate: rate, partition: Self.latency,
                                after: lowPass, wet: Double(wetDryMix) / 100)
    }
}

/// Echoes of the sound.
open class AVAudioUnitDelay: AVAudioUnitEffect {
    public init() {
        super.init(renderer: GraphEffectRenderer(DelaySettings(), latency: DelaySettings.latency))
    }

    private var delay: GraphEffectRenderer<DelaySettings> { renderer as! GraphEffectRenderer<DelaySettings> }

    /// The time between echoes, 0 … 2 s (default 1).
    open var delayTime: TimeInterval {
        get { delay.settings.withLock { $0.delayTime } }
        set { delay.settings.withLock { $0.delayTime = min(2, max(0, newValue)) } }
    }

    /// Each echo's level against the one before, −100 … 100 % (default 50).
    open var feedback: Float {
        get { delay.settings.withLock { $0.feedback } }
        set { delay.settings.withLock { $0.feedback = min(100, max(-100, newValue)) } }
    }

    /// The cutoff of the echoes' low-pass filter, 10 Hz … half the sample rate (default 15 000).
    open var lowPassCutoff: Float {
        get { delay.settings.withLock { $0.lowPassCutoff } }
        set { delay.settings.withLock { $0.lowPassCutoff = max(10, newValue) } }
    }

    /// The share of the echoes in the output, 0 (dry) … 100 (only echoes, the default).
    open var wetDryMix: Float {
        get { delay.settings.withLock { $0.wetDryMix } }
        set { delay.settings.withLock { $0.wetDryMix = min(100, max(0, newValue)) } }
    }

    open override var bypass: Bool {
        get { delay.settings.withLock { $0.bypass } }
        set { delay.settings.withLock { $0.bypass = newValue } }
    }
}
