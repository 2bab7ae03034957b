// GraphEffectRenderer: an effect node whose sound goes through a libavfilter graph made for its
// settings (the reverb's and the delay's convolutions), made again when the settings, the rate
// or the channel count change.
import Foundation
import Synchronization
internal import MediaEngine

/// An effect's settings: equal settings make the same graph.
protocol GraphEffectSettings: Equatable, Sendable {
    var bypass: Bool { get }
    /// libavfilter's graph (ends labelled `[in]` and `[out]`) for `channels` channels at `rate`;
    /// nil: the dry sound.
    func graph(rate: Int, channels: Int) -> String?
}

extension GraphEffectSettings {
    /// A convolution effect's graph: the input split, one branch convolved (`afir`, partitions of
    /// `partition` frames) with the impulse response `expressions` gives (aevalsrc, one
    /// expression per channel, `seconds` long), then through `after` (more filters, or empty),
    /// mixed with the other, dry branch at `wet` (0…1) against 1 − `wet`.
    static func convolution(_ expressions: [String], seconds: Double, rate: Int, partition: Int,
                            after: String = "", wet: Double) -> String {
        "[in]asplit[dry][wet];aevalsrc=exprs='\(expressions.joined(separator: "|"))':s=\(rate):d=\(seconds)[ir];"
            + "[wet][ir]afir=gtype=none:minp=\(partition):maxir=\(max(30, seconds.rounded(.up)))\(after.isEmpty ? "" : "," + after)[effect];"
            + "[dry][effect]amix=inputs=2:weights='\(1 - wet) \(wet)':normalize=0[out]"
    }
}

/// The render side of a graph effect. FFmpeg 5.1's `afir` (convolution, `gtype=none`) gives its
/// impulse response's energy plus 6 dB (measured with white noise and with a single impulse, at
/// 22.05–48 kHz): the effects' responses are halved for it.
final class GraphEffectRenderer<Settings: GraphEffectSettings>: NodeRenderer {
    let common = RendererCommon(defaultFormat: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!, inputs: 1, outputs: 1)
    let settings: Mutex<Settings>
    /// Frames the graph may hold back: the output's latency.
    private let latency: Int
    private struct Built {
        var settings: Settings
        var rate: Int
        var channels: Int
        var graph: AudioFilterGraph?
    }
    private let filters = Mutex<Built?>(nil)

    init(_ initial: Settings, latency: Int) {
        settings = Mutex(initial)
        self.latency = latency
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        let channels = Int(format.channelCount)
        var block = pass.pullInput(of: self, bus: 0, frames: frames)?.mapped(to: channels) ?? .silence(channels: channels, frames: frames)
        let wanted = settings.withLock { $0 }
        guard !wanted.bypass else { return block }
        let rate = Int(format.sampleRate.rounded())
        let graph: AudioFilterGraph? = filters.withLock { built in
            if built == nil || built!.settings != wanted || built!.rate != rate || built!.channels != channels {
                let description = wanted.graph(rate: rate, channels: channels)
                built = Built(settings: wanted, rate: rate, channels: channels, graph: description.flatMap {
                    try? AudioFilterGraph(chain: $0, sampleRate: rate, channels: channels, latency: latency)
                })
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
