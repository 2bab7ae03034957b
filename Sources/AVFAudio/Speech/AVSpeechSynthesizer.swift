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

/// Rendering an utterance to float buffers: espeak-ng synthesizes on a thread of its own while the
/// write queue converts each block to float and hands it on, so the two overlap (memory stays
/// bounded by the channel between them).
enum SpeechRendering {
    /// Frames per buffer handed to a write callback (about; the last is shorter).
    static let framesPerBuffer = 8192

    static func render(_ job: SpeechJob?, to callback: (AVAudioBuffer) -> Void) {
        let rate = (try? EspeakEngine.shared.sampleRate()) ?? 22050
        guard let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: Double(rate), channels: 1, interleaved: false)
        else { return }
        defer { if let end = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 0) { callback(end) } }
        guard let job, (try? EspeakEngine.shared.sampleRate()) != nil else { return }
        let channel = SampleChannel(capacity: 16)
        let producer = Thread {
            let blockBytes = framesPerBuffer * 2
            var pending = Data(capacity: blockBytes + 8192)
            _ = try? EspeakEngine.shared.synthesize(job.request, stream: { block in
                block.withMemoryRebound(to: UInt8.self) { bytes in pending.append(bytes.baseAddress!, count: bytes.count) }
                if pending.count >= blockBytes {
                    channel.put(pending)
                    pending = Data(capacity: blockBytes + 8192)
                }
            })
            if !pending.isEmpty { channel.put(pending) }
            channel.finish()
        }
        producer.name = "AVSpeechSynthesizer write"
        producer.start()
        silence(seconds: job.preDelay, rate: rate, format: format, callback)
        while let block = channel.take() {
            let count = block.count / 2
            guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count)),
                  let channelData = buffer.floatChannelData?[0] else { continue }
            block.withUnsafeBytes { raw in
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

/// Blocks of samples from the synthesizing thread to the write queue, at most `capacity` waiting.
final class SampleChannel: Sendable {
    private let blocks = Mutex<[Data]>([])
    private let available = DispatchSemaphore(value: 0)
    private let space: DispatchSemaphore

    init(capacity: Int) { space = DispatchSemaphore(value: capacity) }

    /// Adds a block, waiting while `capacity` blocks wait.
    func put(_ block: Data) {
        space.wait()
        blocks.withLock { $0.append(block) }
        available.signal()
    }

    /// No more blocks come.
    func finish() { available.signal() }

    /// The next block; nil once the producer finished and everything was taken.
    func take() -> Data? {
        available.wait()
        let block = blocks.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        if block != nil { space.signal() }
        return block
    }
}
