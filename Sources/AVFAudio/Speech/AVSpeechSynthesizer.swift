// AVSpeechSynthesizer: speaks utterances aloud, one after another, or renders them to buffers.
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import CVolk

/// Where a synthesizer may pause or stop speech.
public enum AVSpeechBoundary: Int, Sendable {
    /// At once, even within a word.
    case immediate = 0
    /// After the word being spoken.
    case word = 1
}

/// An object that produces synthesized speech from text utterances and lets you control and
/// monitor its progress.
///
/// `speak(_:)` adds an utterance to a first-in, first-out queue and returns; utterances are spoken
/// one after another through the sound server (PulseAudio, or PipeWire's Pulse server) by the same
/// renderer that plays AVFoundation's sample buffers. With no sound server the speech is "played"
/// by a clocked null output that keeps real time, so the delegate hears the same events at the
/// same times. The delegate is called on the main queue.
///
/// `write(_:toBufferCallback:)` renders an utterance instead: 32-bit float, non-interleaved, mono
/// `AVAudioPCMBuffer`s at the voice's rate (22 050 Hz; `AVSpeechSynthesisVoice.audioFileSettings`),
/// then one buffer with `frameLength` 0 that marks the end, on a queue of the synthesizer's own.
///
/// Speech comes from espeak-ng (see `AVSpeechUtterance` for how rate, pitch and volume map).
/// Not Sendable, as Apple's is not; its state is behind a lock, so the methods may be called from
/// any one thread at a time.
open class AVSpeechSynthesizer: NSObject {
    /// A callback that receives a buffer of synthesized speech.
    public typealias BufferCallback = (AVAudioBuffer) -> Void

    private struct DelegateReference: Sendable {
        weak var delegate: (any AVSpeechSynthesizerDelegate)?
    }

    private let delegateReference = Mutex(DelegateReference())
    let session = SpeechSession()
    private let writeQueue = DispatchQueue(label: "com.avfoundation.speech.write")

    public override init() {
        super.init()
        session.owner = self
    }

    deinit { session.shutdown() }

    /// The delegate (held weakly).
    open var delegate: (any AVSpeechSynthesizerDelegate)? {
        get { delegateReference.withLock { $0.delegate } }
        set { delegateReference.withLock { $0.delegate = newValue } }
    }

    /// Whether the synthesizer is speaking, or paused with utterances to speak.
    open var isSpeaking: Bool { session.isSpeaking }

    /// Whether speech is paused.
    open var isPaused: Bool { session.isPaused }

    /// Adds `utterance` to the queue; it is spoken after those before it. Its parameters are read
    /// now. An utterance already in the queue is not added again (Apple raises an exception).
    open func speak(_ utterance: AVSpeechUtterance) {
        let job: SpeechJob
        do {
            job = try utterance.snapshot()
        } catch {
            // No engine: the utterance is cancelled, as the delegate hears.
            session.report(.cancel, SpeechSession.UtteranceReference(utterance))
            return
        }
        session.enqueue(job, SpeechSession.UtteranceReference(utterance))
    }

    /// Stops speech at `boundary` and empties the queue; the utterance being spoken is
    /// cancelled (`didCancel`). False when nothing was being spoken.
    @discardableResult
    open func stopSpeaking(at boundary: AVSpeechBoundary) -> Bool { session.stop(at: boundary) }

    /// Pauses speech at `boundary` (`didPause`). False when nothing is being spoken or speech is
    /// already paused.
    @discardableResult
    open func pauseSpeaking(at boundary: AVSpeechBoundary) -> Bool { session.pause(at: boundary) }

    /// Continues paused speech (`didContinue`). False when speech was not paused.
    @discardableResult
    open func continueSpeaking() -> Bool { session.resume() }

    /// Renders `utterance` into audio buffers handed to `bufferCallback` in order on the
    /// synthesizer's own queue: the pre-utterance delay's silence, the speech, the post-utterance
    /// delay's silence, then a buffer with `frameLength` 0. Utterances written one after another are
    /// rendered in that order. If the engine cannot speak, only the final empty buffer comes.
    open func write(_ utterance: AVSpeechUtterance, toBufferCallback bufferCallback: @escaping BufferCallback) {
        let job = try? utterance.snapshot()
        // Called only on `writeQueue`, one buffer at a time, as Apple calls it on its own queue.
        nonisolated(unsafe) let callback = bufferCallback
        writeQueue.async {
            SpeechRendering.render(job, to: callback)
        }
    }
}

/// Rendering an utterance to float buffers: espeak-ng synthesizes on a thread of its own into a
/// `SpeechChannel` while the write queue converts each block to float and hands it on, so the two
/// overlap.
enum SpeechRendering {
    /// Frames per buffer handed to a write callback (about; the last is shorter).
    static let framesPerBuffer = 8192

    static func render(_ job: SpeechJob?, to callback: (AVAudioBuffer) -> Void) {
        let rate = (try? EspeakEngine.shared.sampleRate()) ?? 22050
        guard let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: Double(rate), channels: 1, interleaved: false)
        else { return }
        defer { if let end = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 0) { callback(end) } }
        guard let job, (try? EspeakEngine.shared.sampleRate()) != nil else { return }
        let channel = SpeechChannel.synthesizing(job.request, blockFrames: framesPerBuffer, shouldStop: { false })
        silence(seconds: job.preDelay, rate: rate, format: format, callback)
        while case .block(let block) = channel.take(timeout: nil) {
            let count = block.samples.count / 2
            guard count > 0, let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count)),
                  let channelData = buffer.floatChannelData?[0] else { continue }
            block.samples.withUnsafeBytes { raw in
                avf_volk_convert_16i_32f(channelData, raw.bindMemory(to: Int16.self).baseAddress!, 32768, UInt32(count))
            }
            buffer.frameLength = AVAudioFrameCount(count)
            callback(buffer)
        }
        silence(seconds: job.postDelay, rate: rate, format: format, callback)
    }

    /// Buffers of silence lasting `seconds`.
    private static func silence(seconds: Double, rate: Int, format: AVAudioFormat, _ callback: (AVAudioBuffer) -> Void) {
        var remaining = Int((seconds * Double(rate)).rounded())
        while remaining > 0 {
            let count = min(framesPerBuffer, remaining)
            guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count)) else { return }
            buffer.frameLength = AVAudioFrameCount(count)  // new buffers are zeroed
            callback(buffer)
            remaining -= count
        }
    }
}

/// Blocks of synthesized speech from the thread that synthesizes to the one that uses them.
/// Unbounded: the synthesizing thread holds espeak-ng's lock, so it never waits for a consumer
/// (memory is at most the utterance's 16-bit samples, 2.6 MB a minute; consumers keep up).
final class SpeechChannel: Sendable {
    struct Block: Sendable {
        /// Native-endian Int16 samples.
        var samples: Data
        /// The words that start in this block (samples counted from the utterance's start).
        var words: [SpeechWord]
    }

    enum Item: Sendable {
        case block(Block)
        /// Nothing yet (the wait timed out).
        case none
        /// The synthesis ended: `failed` when the engine failed or was stopped.
        case end(failed: Bool)
    }

    private struct State: Sendable {
        var blocks: [Block] = []
        var head = 0
        var ended: Bool?
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)

    /// Starts synthesizing `request` on a thread of its own, in blocks of about `blockFrames`.
    static func synthesizing(_ request: SpeechRequest, blockFrames: Int,
                             shouldStop: @escaping @Sendable () -> Bool) -> SpeechChannel {
        let channel = SpeechChannel()
        let thread = Thread {
            let blockBytes = blockFrames * 2
            // espeak-ng hands over about 100 ms (2205 frames, 4410 bytes) at a time.
            var pending = Data(capacity: blockBytes + 4608)
            var words: [SpeechWord] = []
            let result = try? EspeakEngine.shared.synthesize(request, shouldStop: shouldStop, stream: { samples, newWords in
                samples.withMemoryRebound(to: UInt8.self) { bytes in
                    if let base = bytes.baseAddress, bytes.count > 0 { pending.append(base, count: bytes.count) }
                }
                words += newWords
                if pending.count >= blockBytes {
                    channel.put(Block(samples: pending, words: words))
                    pending = Data(capacity: blockBytes + 4608)
                    words = []
                }
            })
            if !pending.isEmpty || !words.isEmpty { channel.put(Block(samples: pending, words: words)) }
            channel.finish(failed: result == nil || result!.stopped)
        }
        thread.name = "AVSpeechSynthesizer synthesis"
        thread.start()
        return channel
    }

    private func put(_ block: Block) {
        state.withLock { $0.blocks.append(block) }
        available.signal()
    }

    private func finish(failed: Bool) {
        state.withLock { $0.ended = failed }
        available.signal()
    }

    /// The next item, waiting up to `timeout` seconds (nil: until there is one).
    func take(timeout: Double?) -> Item {
        while true {
            let item = state.withLock { s -> Item? in
                if s.head < s.blocks.count {
                    let block = s.blocks[s.head]
                    s.head += 1
                    if s.head > 64 && s.head * 2 > s.blocks.count {
                        s.blocks.removeFirst(s.head)
                        s.head = 0
                    }
                    return .block(block)
                }
                if let failed = s.ended { return .end(failed: failed) }
                return nil
            }
            if let item { return item }
            if let timeout {
                if available.wait(timeout: .now() + timeout) == .timedOut { return .none }
            } else {
                available.wait()
            }
        }
    }
}
