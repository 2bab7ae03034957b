// AVAudioUnitEQ: a multiband equalizer node — each band a second-order (biquad) filter of Apple's
// types, run by libavfilter (equalizer, lowpass, highpass, bandpass, bandreject, lowshelf,
// highshelf; volume for the global gain) through MediaEngine's AudioFilterGraph.
import CoreAudioTypes
import Foundation
import Synchronization
internal import MediaEngine

/// The kinds of filter an equalizer band can be.
@frozen public enum AVAudioUnitEQFilterType: Int, Sendable {
    case parametric = 0
    case lowPass = 1
    case highPass = 2
    case resonantLowPass = 3
    case resonantHighPass = 4
    case bandPass = 5
    case bandStop = 6
    case lowShelf = 7
    case highShelf = 8
    case resonantLowShelf = 9
    case resonantHighShelf = 10
}

/// What each band of an EQ node is set to, and the global gain.
enum EQSettings {
    struct Band: Equatable {
        var filterType = AVAudioUnitEQFilterType.parametric
        var frequency: Float = 1000
        var bandwidth: Float = 0.5
        var gain: Float = 0
        /// Bands start bypassed, as Apple's.
        var bypass = true
    }

    struct State: GraphEffectSettings {
        var bands: [Band]
        var globalGain: Float = 0
        var bypass = false

        init(bands: Int) { self.bands = Array(repeating: Band(), count: max(0, bands)) }

        /// The bands' chain (nil when every band is bypassed and there is no global gain).
        func graph(rate: Int, channels: Int) -> String? {
            let chain = EQSettings.chain(self, rate: rate)
            return chain.isEmpty ? nil : chain
        }
    }

    /// The equalizer's renderer (the biquads hold nothing back: no latency).
    typealias Renderer = GraphEffectRenderer<State>
}

/// One band of an equalizer (from its `bands`).
open class AVAudioUnitEQFilterParameters: NSObject {
    private let equalizer: EQSettings.Renderer
    private let index: Int

    init(equalizer: EQSettings.Renderer, index: Int) {
        self.equalizer = equalizer
        self.index = index
    }

    private var band: EQSettings.Band {
        get { equalizer.settings.withLock { $0.bands[index] } }
        set { equalizer.settings.withLock { $0.bands[index] = newValue } }
    }

    private func get<T>(_ key: KeyPath<EQSettings.Band, T>) -> T { band[keyPath: key] }
    private func set<T>(_ key: WritableKeyPath<EQSettings.Band, T>, _ value: T) { band[keyPath: key] = value }

    open var filterType: AVAudioUnitEQFilterType {
        get { get(\.filterType) }
        set { set(\.filterType, newValue) }
    }

    /// Hz (the centre, or the −3 dB cutoff), 20 Hz … half the sample rate.
    open var frequency: Float {
        get { get(\.frequency) }
        set { set(\.frequency, min(24_000, max(20, newValue))) }
    }

    /// Octaves, 0.05 … 5.
    open var bandwidth: Float {
        get { get(\.bandwidth) }
        set { set(\.bandwidth, min(5, max(0.05, newValue))) }
    }

    /// dB, −96 … 24.
    open var gain: Float {
        get { get(\.gain) }
        set { set(\.gain, min(24, max(-96, newValue))) }
    }

    open var bypass: Bool {
        get { get(\.bypass) }
        set { set(\.bypass, newValue) }
    }
}

extension EQSettings {
    /// libavfilter's chain for `state` at `rate`.
    static func chain(_ state: EQSettings.State, rate: Int) -> String {
        let nyquist = Float(rate) / 2 * 0.99
        var filters: [String] = state.bands.filter { !$0.bypass }.map { band in
            let f = min(band.frequency, nyquist)
            let octaves = band.bandwidth
            // Q of a band `octaves` wide, for the resonant types.
            let q = pow(2, octaves / 2) / (pow(2, octaves) - 1)
            switch band.filterType {
            case .parametric: return "equalizer=f=\(f):t=o:w=\(octaves):g=\(band.gain)"
            case .lowPass: return "lowpass=f=\(f):p=2"
            case .highPass: return "highpass=f=\(f):p=2"
            case .resonantLowPass: return "lowpass=f=\(f):p=2:t=q:w=\(q)"
            case .resonantHighPass: return "highpass=f=\(f):p=2:t=q:w=\(q)"
            case .bandPass: return "bandpass=f=\(f):t=o:w=\(octaves)"
            case .bandStop: return "bandreject=f=\(f):t=o:w=\(octaves)"
            case .lowShelf: return "lowshelf=f=\(f):g=\(band.gain)"
            case .highShelf: return "highshelf=f=\(f):g=\(band.gain)"
            case .resonantLowShelf: return "lowshelf=f=\(f):t=q:w=\(q):g=\(band.gain)"
            case .resonantHighShelf: return "highshelf=f=\(f):t=q:w=\(q):g=\(band.gain)"
            }
        }
        if state.globalGain != 0 { filters.append("volume=\(state.globalGain)dB") }
        return filters.joined(separator: ",")
    }
}

/// A multiband equalizer.
open class AVAudioUnitEQ: AVAudioUnitEffect {
    /// Its bands, bypassed until set.
    public let bands: [AVAudioUnitEQFilterParameters]

    /// An equalizer of `numberOfBands` bands.
    public init(numberOfBands: Int) {
        let renderer = EQSettings.Renderer(EQSettings.State(bands: numberOfBands), latency: 0)
        bands = (0..<max(0, numberOfBands)).map { AVAudioUnitEQFilterParameters(equalizer: renderer, index: $0) }
        super.init(renderer: renderer)
    }

    /// A single-band equalizer.
    public convenience init() { self.init(numberOfBands: 1) }

    private var eq: EQSettings.Renderer { renderer as! EQSettings.Renderer }

    /// dB added to the whole signal, −96 … 24.
    open var globalGain: Float {
        get { eq.settings.withLock { $0.globalGain } }
        set { eq.settings.withLock { $0.globalGain = min(24, max(-96, newValue)) } }
    }

    open override var bypass: Bool {
        get { eq.settings.withLock { $0.bypass } }
        set { eq.settings.withLock { $0.bypass = newValue } }
    }
}
