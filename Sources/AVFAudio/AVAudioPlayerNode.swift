// AVAudioPlayerNode: plays scheduled buffers, files and file segments into an engine, in order,
// from a start time; files are decoded by the pipe's stream reader straight into the node's
// output format (rate and channels converted by libswresample).
import CoreAudioTypes
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// How a scheduled buffer plays.
public struct AVAudioPlayerNodeBufferOptions: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The buffer plays again and again (until stopped, or interrupted by another buffer).
    public static let loops = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 0)
    /// The buffer replaces what is playing and scheduled, at once.
    public static let interrupts = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 1)
    /// The buffer replaces a looping buffer at the end of its current pass.
    public static let interruptsAtLoop = AVAudioPlayerNodeBufferOptions(rawValue: 1 << 2)
}

/// When a completion handler is called.
@frozen public enum AVAudioPlayerNodeCompletionCallbackType: Int, Sendable {
    case dataConsumed = 0
    case dataRendered = 1
    case dataPlayedBack = 2
}

public typealias AVAudioPlayerNodeCompletionHandler = (AVAudioPlayerNodeCompletionCallbackType) -> Void

final class PlayerRenderer: NodeRenderer {
    enum Source {
        case buffer(EngineBlock, loops: Bool)
        case file(url: URL, start: Int64, count: Int64?, fileRate: Double)
    }

    struct Item {
        var source: Source
        /// The player time (frames) the item starts at, when given.
        var startAt: AVAudioFramePosition?
        var position = 0
        var reader: AudioStreamReader?
        var pending: EngineBlock?
        var ended = false
        var interruptAtLoop = false
        var completion: (@Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void)?
        var callbackType: AVAudioPlayerNodeCompletionCallbackType = .dataConsumed
    }

    struct State {
        var items: [Item] = []
        var playing = false
        /// The engine sample time at which player time 0 is (set by play).
        var origin: AVAudioFramePosition?
        /// Play at this host time (seconds), once the engine's time for it is known.
        var startHost: Double?
        var played: AVAudioFramePosition = 0
        var latency: Double = 0
    }

    let state = Mutex(State())
    let common: RendererCommon

    init(defaultFormat: AVAudioFormat, inputs: Int, outputs: Int) {
        common = RendererCommon(defaultFormat: defaultFormat, inputs: inputs, outputs: outputs)
    }

    func render(frames: Int, format: AVAudioFormat, pass: RenderPass) -> EngineBlock {
        let channels = Int(format.channelCount)
        var out = EngineBlock.silence(channels: channels, frames: frames)
        let finished: [(@Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void, AVAudioPlayerNodeCompletionCallbackType, Double)] = state.withLock { s in
            guard s.playing else { return [] }
            if s.origin == nil, let host = s.startHost, let passHost = pass.hostTime {
                s.origin = pass.sampleTime + AVAudioFramePosition(((host - passHost) * pass.sampleRate).rounded())
            }
            guard let origin = s.origin else { return [] }
            var offset = Int(max(0, min(AVAudioFramePosition(frames), origin - pass.sampleTime)))
            var done: [(@Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void, AVAudioPlayerNodeCompletionCallbackType, Double)] = []
            while offset < frames, !s.items.isEmpty {
                let playerTime = pass.sampleTime + AVAudioFramePosition(offset) - origin
                if let at = s.items[0].startAt, at > playerTime {
                    offset += Int(min(AVAudioFramePosition(frames - offset), at - playerTime))
                    continue
                }
                let got = read(&s.items[0], frames: frames - offset, format: format)
                if got.frames > 0 {
                    for c in 0..<channels {
                        let plane = got.planes[min(c, got.planes.count - 1)]
                        out.planes[c].replaceSubrange(offset..<(offset + got.frames), with: plane.prefix(got.frames))
                    }
                    offset += got.frames
                }
                if s.items[0].ended || got.frames == 0 {
                    let item = s.items.removeFirst()
                    if let completion = item.completion { done.append((completion, item.callbackType, s.latency)) }
                }
            }
            s.played = pass.sampleTime + AVAudioFramePosition(frames) - origin
            return done
        }
        for (completion, type, latency) in finished {
            let delay = type == .dataPlayedBack ? latency : 0
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { completion(type) }
        }
        return out
    }

    /// Up to `frames` frames of `item`, in `format`.
    private func read(_ item: inout Item, frames: Int, format: AVAudioFormat) -> EngineBlock {
        let channels = Int(format.channelCount)
        switch item.source {
        case .buffer(let block, let loops):
            if item.position >= block.frames {
                guard loops, !item.interruptAtLoop, block.frames > 0 else {
                    item.ended = true
                    return EngineBlock(planes: [], frames: 0)
                }
                item.position = 0
            }
            let n = min(frames, block.frames - item.position)
            let part = EngineBlock(planes: block.planes.map { Array($0[item.position..<(item.position + n)]) }, frames: n).mapped(to: channels)
            item.position += n
            if item.position >= block.frames, !loops || item.interruptAtLoop { item.ended = true }
            return part
        case .file(let url, let start, let count, let fileRate):
            var out = EngineBlock(planes: Array(repeating: [], count: channels), frames: 0)
            if item.reader == nil {
                let output = AudioPCMFormat(sampleRate: Int(format.sampleRate.rounded()),
                                            channels: channels == 1 ? .mono : channels == 2 ? .stereo : AudioChannelSet(count: channels),
                                            sampleType: .float, bitsPerSample: 32, isBigEndian: false, isInterleaved: false)
                guard let reader = try? AudioStreamReader.firstAudioStream(of: url, output: output) else {
                    item.ended = true
                    return out
                }
                let scale = Int32(fileRate.rounded())
                let end = count.map { CMTime(value: start + $0, timescale: scale) } ?? .positiveInfinity
                guard (try? reader.start(from: CMTime(value: start, timescale: scale), to: end)) != nil else {
                    item.ended = true
                    return out
                }
                item.reader = reader
            }
            while out.frames < frames {
                if var pending = item.pending, pending.frames > 0 {
                    out.append(pending.take(frames - out.frames))
                    item.pending = pending
                    continue
                }
                guard let reader = item.reader, let block = try? reader.read(maxFrames: max(frames - out.frames, 1024)) else {
                    item.ended = true
                    break
                }
                item.pending = EngineBlock(packed: block.data, channels: channels, frames: block.frameCount)
            }
            return out
        }
    }

    func reset() {
        let dropped = state.withLock { s -> [Item] in
            defer {
                s.items = []
                s.playing = false
                s.origin = nil
                s.startHost = nil
                s.played = 0
            }
            return s.items
        }
        for item in dropped { if let completion = item.completion { DispatchQueue.global().async { completion(item.callbackType) } } }
    }
}

extension AudioStreamReader {
    /// The first audio stream of `url` that can be decoded (what AVFAudio's files and players play).
    static func firstAudioStream(of url: URL) throws(MediaError) -> StreamInfo {
        let demuxer = try Demuxer(url: url)
        guard let stream = demuxer.streams.first(where: { $0.kind == .audio && $0.hasDecoder && $0.sampleRate > 0 && $0.channelCount > 0 })
        else { throw MediaError.invalidArgument(message: "\(url.path): no audio stream this system can decode") }
        return stream
    }

    /// A reader of `url`'s first audio stream that can be decoded, converting to `output`.
    static func firstAudioStream(of url: URL, output: AudioPCMFormat) throws(MediaError) -> AudioStreamReader {
        try AudioStreamReader(url: url, streamIndex: firstAudioStream(of: url).index, output: output, fromFirstSample: true)
    }
}

/// Plays buffers and files scheduled on it.
open class AVAudioPlayerNode: AVAudioNode, AVAudioMixing {
    public init() {
        super.init(renderer: PlayerRenderer(defaultFormat: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!,
                                            inputs: 0, outputs: 1))
    }

    private var player: PlayerRenderer { renderer as! PlayerRenderer }

    private func enqueue(_ source: PlayerRenderer.Source, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                         callbackType: AVAudioPlayerNodeCompletionCallbackType,
                         completion: AVAudioPlayerNodeCompletionHandler?) {
        var sendable: (@Sendable (AVAudioPlayerNodeCompletionCallbackType) -> Void)?
        if let completion {
            // Apple calls it on a thread of its own, as this does.
            nonisolated(unsafe) let handler = completion
            sendable = { type in handler(type) }
        }
        var item = PlayerRenderer.Item(source: source, startAt: when.flatMap { $0.isSampleTimeValid ? $0.sampleTime : nil })
        item.completion = sendable
        item.callbackType = callbackType
        let latency = outputPresentationLatency
        let dropped = player.state.withLock { s -> [PlayerRenderer.Item] in
            s.latency = latency
            var dropped: [PlayerRenderer.Item] = []
            if options.contains(.interrupts) {
                dropped = s.items
                s.items = []
            } else if options.contains(.interruptsAtLoop) {
                for i in s.items.indices { s.items[i].interruptAtLoop = true }
            }
            s.items.append(item)
            return dropped
        }
        for old in dropped { if let completion = old.completion { DispatchQueue.global().async { completion(old.callbackType) } } }
    }

    /// Plays `buffer` after what is scheduled.
    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionCallbackType: .dataConsumed, completionHandler: completionHandler)
    }

    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: nil, options: [], completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleBuffer(buffer, at: when, options: options, completionCallbackType: .dataConsumed, completionHandler: completionHandler)
    }

    open func scheduleBuffer(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime?, options: AVAudioPlayerNodeBufferOptions = [],
                             completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                             completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        let frames = Int(buffer.frameLength)
        let block = EngineBlock(planes: buffer.planes(frames: frames), frames: frames)
        enqueue(.buffer(block, loops: options.contains(.loops)), at: when, options: options, callbackType: callbackType, completion: completionHandler)
    }

    /// Plays `file` from its start after what is scheduled.
    open func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: max(0, file.length)), at: when,
                        completionCallbackType: .dataConsumed, completionHandler: completionHandler)
    }

    open func scheduleFile(_ file: AVAudioFile, at when: AVAudioTime?, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                           completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: 0, frameCount: AVAudioFrameCount(clamping: max(0, file.length)), at: when,
                        completionCallbackType: callbackType, completionHandler: completionHandler)
    }

    /// Plays `frameCount` frames of `file` from `startFrame` after what is scheduled.
    open func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition, frameCount numberFrames: AVAudioFrameCount,
                              at when: AVAudioTime?, completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        scheduleSegment(file, startingFrame: startFrame, frameCount: numberFrames, at: when, completionCallbackType: .dataConsumed,
                        completionHandler: completionHandler)
    }

    open func scheduleSegment(_ file: AVAudioFile, startingFrame startFrame: AVAudioFramePosition, frameCount numberFrames: AVAudioFrameCount,
                              at when: AVAudioTime?, completionCallbackType callbackType: AVAudioPlayerNodeCompletionCallbackType,
                              completionHandler: AVAudioPlayerNodeCompletionHandler? = nil) {
        enqueue(.file(url: file.url, start: max(0, startFrame), count: Int64(numberFrames), fileRate: file.processingFormat.sampleRate),
                at: when, callbackType: callbackType, completion: completionHandler)
    }

    /// Starts (or resumes) playing at the engine's next render.
    open func play() { play(at: nil) }

    /// Starts playing at `when` (the engine's sample time, or a host time), or at once for nil.
    open func play(at when: AVAudioTime?) {
        let now = attachedEngine?.graph.sampleTime ?? 0
        player.state.withLock { s in
            guard !s.playing else { return }
            s.playing = true
            s.startHost = nil
            if let when, when.isSampleTimeValid {
                s.origin = when.sampleTime - s.played
            } else if let when, when.isHostTimeValid {
                s.origin = nil
                s.startHost = Double(when.hostTime) / 1e9
            } else {
                s.origin = now - s.played
            }
        }
    }

    /// Pauses; `play()` goes on from where it stood.
    open func pause() { player.state.withLock { $0.playing = false } }

    /// Stops and clears the schedule (completion handlers are called).
    open func stop() { player.reset() }

    /// Decodes ahead (nothing to do: files are read as they play).
    open func prepare(withFrameCount frameCount: AVAudioFrameCount) {}

    open var isPlaying: Bool { player.state.withLock { $0.playing } }

    /// The node time `playerTime` (frames since play) corresponds to.
    open func nodeTime(forPlayerTime playerTime: AVAudioTime) -> AVAudioTime? {
        guard let origin = player.state.withLock({ $0.playing ? $0.origin : nil }), playerTime.isSampleTimeValid else { return nil }
        return AVAudioTime(sampleTime: origin + playerTime.sampleTime, atRate: playerTime.sampleRate)
    }

    /// The player's time (frames since it started playing) at `nodeTime`; nil when not playing.
    open func playerTime(forNodeTime nodeTime: AVAudioTime) -> AVAudioTime? {
        guard let origin = player.state.withLock({ $0.playing ? $0.origin : nil }), nodeTime.isSampleTimeValid else { return nil }
        return AVAudioTime(sampleTime: nodeTime.sampleTime - origin, atRate: nodeTime.sampleRate)
    }

}
