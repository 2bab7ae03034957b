// EspeakEngine: the one owner of espeak-ng in the process — its voices, its parameters and every
// synthesis. The speech classes (AVSpeechSynthesizer, AVSpeechSynthesisVoice) call only this.
import Foundation
import Synchronization
internal import CEspeak

/// The speech engine could not do what was asked, in words.
struct SpeechEngineError: Error, CustomStringConvertible, Sendable {
    let description: String
}

/// One espeak-ng voice as the library lists it.
struct EspeakVoice: Sendable, Hashable {
    /// The voice's name ("English (America)").
    let name: String
    /// Its file under espeak-ng-data/voices ("gmw/en-US"): what the engine selects it by.
    let file: String
    /// The languages it speaks, lowercase with hyphens ("en-us"), best first, with espeak's
    /// priority (lower is better).
    let languages: [String]
    let priorities: [Int]
    /// espeak's gender: 0 unknown, 1 male, 2 female.
    let gender: Int
}

/// What to synthesize and how (espeak-ng's own units).
struct SpeechRequest: Sendable {
    var text: String
    /// The text is SSML (espeak reads its elements).
    var isSSML = false
    /// The voice file ("gmw/en-US").
    var voiceFile: String
    /// Words per minute, 80–450.
    var wordsPerMinute = 175
    /// Base pitch, 0–100 (50 normal).
    var pitch = 50
    /// Amplitude, 0–200 (100 normal).
    var volume = 100
}

/// A word the engine spoke: where it is in the text it read and where its sound starts.
struct SpeechWord: Sendable, Equatable {
    /// Unicode scalars from the start of the text given to the engine (0-based).
    var textPosition: Int
    /// Its length in Unicode scalars.
    var length: Int
    /// The first sample of its sound.
    var sample: Int
}

/// The synthesized speech of one request: mono 16-bit samples at `sampleRate`.
struct SpeechAudio: Sendable {
    /// Native-endian Int16 samples.
    var samples: Data
    var words: [SpeechWord]
    var sampleRate: Int
    /// The synthesis was stopped before the end (`shouldStop` said so).
    var stopped: Bool
    var frameCount: Int { samples.count / 2 }
}

/// espeak-ng, started once per process. espeak-ng keeps its voice, parameters and synthesis
/// callback in C globals, so every call into it happens inside `state`'s lock: one synthesis at a
/// time in the process (espeak runs far faster than real time, so callers wait little).
final class EspeakEngine: Sendable {
    static let shared = EspeakEngine()

    private struct State {
        /// The sample rate once started, or why starting failed.
        var started: Result<Int, SpeechEngineError>?
        var voices: [EspeakVoice] = []
    }

    private let state = Mutex(State())
    /// What starting found (rate and voices), readable while a synthesis holds `state`.
    private let started = Mutex<(rate: Int, voices: [EspeakVoice])?>(nil)

    private init() {}

    /// The voices espeak-ng has (MBROLA voices, which need a separate program, left out).
    func voices() throws(SpeechEngineError) -> [EspeakVoice] { try startedInfo().voices }

    /// The sample rate of what `synthesize` returns.
    func sampleRate() throws(SpeechEngineError) -> Int { try startedInfo().rate }

    private func startedInfo() throws(SpeechEngineError) -> (rate: Int, voices: [EspeakVoice]) {
        if let known = started.withLock({ $0 }) { return known }
        let found = try state.withLock { s throws(SpeechEngineError) -> (rate: Int, voices: [EspeakVoice]) in
            (try Self.start(&s), s.voices)
        }
        started.withLock { $0 = found }
        return found
    }

    /// Speaks `request` into memory — or, with `stream`, hands each block of samples (~100 ms) and
    /// the words that start in it to `stream` as they come and keeps no samples (the result then
    /// has no samples, only the words and the sample rate). `shouldStop` is asked between blocks; when it says true the synthesis
    /// ends there and the result is marked `stopped`. `stream` runs inside the engine's lock: it
    /// must not call the engine.
    func synthesize(_ request: SpeechRequest, shouldStop: () -> Bool = { false },
                    stream: ((UnsafeBufferPointer<Int16>, [SpeechWord]) -> Void)? = nil) throws(SpeechEngineError) -> SpeechAudio {
        try withoutActuallyEscaping(shouldStop) { stop throws(SpeechEngineError) -> SpeechAudio in
            let sink = SynthesisSink(shouldStop: stop, stream: stream)
            let silent = request.text.allSatisfy(\.isWhitespace)
            let rate = try state.withLock { s throws(SpeechEngineError) -> Int in
                let rate = try Self.start(&s)
                // Nothing to say: no sound (espeak-ng would give a moment of silence).
                if silent { return rate }
                try Self.check(espeak_ng_SetVoiceByName(request.voiceFile), "cannot select the voice \(request.voiceFile)")
                try Self.check(espeak_ng_SetParameter(espeakRATE, Int32(min(max(request.wordsPerMinute, 80), 450)), 0), "cannot set the rate")
                try Self.check(espeak_ng_SetParameter(espeakPITCH, Int32(min(max(request.pitch, 0), 100)), 0), "cannot set the pitch")
                try Self.check(espeak_ng_SetParameter(espeakVOLUME, Int32(min(max(request.volume, 0), 200)), 0), "cannot set the volume")
                try Self.check(espeak_ng_SetParameter(espeakRANGE, 50, 0), "cannot set the pitch range")
                // ENDPAUSE: the pause at the end of the text that the espeak-ng CLI speaks too, so the
                // first synthesis in a process gives its samples exactly. (espeak-ng carries a little
                // state from one synthesis to the next: later ones may differ by a few samples.)
                let flags = UInt32(espeakCHARS_UTF8) | UInt32(espeakENDPAUSE) | (request.isSSML ? UInt32(espeakSSML) : 0)
                let context = Unmanaged.passUnretained(sink).toOpaque()
                let status = request.text.withCString { text in
                    espeak_ng_Synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0, flags, nil, context)
                }
                if status != ENS_OK && status != ENS_SPEECH_STOPPED {
                    throw SpeechEngineError(description: "espeak-ng could not speak the text: \(Self.message(status))")
                }
                return rate
            }
            return SpeechAudio(samples: sink.takeSamples(), words: sink.words, sampleRate: rate, stopped: sink.stopped)
        }
    }

    // MARK: Inside the lock

    /// Starts espeak-ng once (later calls return the first outcome): synchronous output, so sound
    /// comes back through the callback on the calling thread.
    private static func start(_ s: inout State) throws(SpeechEngineError) -> Int {
        if let started = s.started { return try started.get() }
        espeak_ng_InitializePath(nil)
        var status = espeak_ng_Initialize(nil)
        if status == ENS_OK { status = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 100, nil) }
        guard status == ENS_OK else {
            let error = SpeechEngineError(description: "espeak-ng could not start (is espeak-ng-data installed?): \(message(status))")
            s.started = .failure(error)
            throw error
        }
        espeak_SetSynthCallback { wav, count, events in
            // Every event list, the terminator included, carries the user data given to Synthesize.
            guard let events, let context = events.pointee.user_data else { return 0 }
            let sink = Unmanaged<SynthesisSink>.fromOpaque(context).takeUnretainedValue()
            return sink.receive(wav, Int(count), events) ? 0 : 1
        }
        s.voices = listVoices()
        let rate = Int(espeak_ng_GetSampleRate())
        s.started = .success(rate)
        return rate
    }

    private static func listVoices() -> [EspeakVoice] {
        guard let list = espeak_ListVoices(nil) else { return [] }
        var voices: [EspeakVoice] = []
        var index = 0
        while let entry = list[index] {
            index += 1
            let voice = entry.pointee
            guard let namePointer = voice.name, let filePointer = voice.identifier else { continue }
            let file = String(cString: filePointer)
            if file.hasPrefix("mb/") { continue }
            var languages: [String] = []
            var priorities: [Int] = []
            if var cursor = voice.languages {
                // (priority byte, NUL-terminated language) pairs, ended by a zero byte.
                while cursor.pointee != 0 {
                    let priority = Int(UInt8(bitPattern: cursor.pointee))
                    let code = String(cString: cursor + 1)
                    languages.append(code.lowercased())
                    priorities.append(priority)
                    cursor += strlen(cursor + 1) + 2
                }
            }
            guard !languages.isEmpty else { continue }
            voices.append(EspeakVoice(name: String(cString: namePointer), file: file, languages: languages,
                                      priorities: priorities, gender: Int(voice.gender)))
        }
        return voices
    }

    private static func check(_ status: espeak_ng_STATUS, _ what: String) throws(SpeechEngineError) {
        guard status == ENS_OK else { throw SpeechEngineError(description: "espeak-ng: \(what): \(message(status))") }
    }

    private static func message(_ status: espeak_ng_STATUS) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        return buffer.withUnsafeMutableBufferPointer { raw in
            espeak_ng_GetStatusCodeMessage(status, raw.baseAddress, raw.count)
            return String(cString: raw.baseAddress!)
        }
    }
}

/// Where one synthesis's sound and words go (on the synthesizing thread, inside the lock).
private final class SynthesisSink {
    private var storage: UnsafeMutablePointer<Int16>?
    private var count = 0
    private var capacity = 0
    var words: [SpeechWord] = []
    var stopped = false
    private let shouldStop: () -> Bool
    private let stream: ((UnsafeBufferPointer<Int16>, [SpeechWord]) -> Void)?

    init(shouldStop: @escaping () -> Bool, stream: ((UnsafeBufferPointer<Int16>, [SpeechWord]) -> Void)?) {
        self.shouldStop = shouldStop
        self.stream = stream
    }

    deinit { free(storage) }

    /// Takes a block of samples and its events; false to stop the synthesis.
    func receive(_ wav: UnsafeMutablePointer<Int16>?, _ frames: Int, _ events: UnsafeMutablePointer<espeak_EVENT>) -> Bool {
        let known = words.count
        var event = events
        while event.pointee.type != espeakEVENT_LIST_TERMINATED {
            if event.pointee.type == espeakEVENT_WORD {
                words.append(SpeechWord(textPosition: max(Int(event.pointee.text_position) - 1, 0),
                                        length: max(Int(event.pointee.length), 0), sample: max(Int(event.pointee.sample), 0)))
            }
            event += 1
        }
        if let stream {
            stream(UnsafeBufferPointer(start: wav, count: wav == nil ? 0 : max(frames, 0)), Array(words[known...]))
        } else if let wav, frames > 0 {
            if count + frames > capacity {
                let wanted = max(capacity * 2, count + frames, 1 << 16)
                guard let grown = realloc(storage, wanted * 2) else {
                    stopped = true
                    return false
                }
                storage = grown.assumingMemoryBound(to: Int16.self)
                capacity = wanted
            }
            memcpy(storage! + count, wav, frames * 2)
            count += frames
        }
        if shouldStop() {
            stopped = true
            return false
        }
        return true
    }

    /// The samples, handed over without a copy.
    func takeSamples() -> Data {
        guard let storage, count > 0 else { return Data() }
        self.storage = nil
        return Data(bytesNoCopy: storage, count: count * 2, deallocator: .free)
    }
}
