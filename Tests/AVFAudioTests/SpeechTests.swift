// Speech synthesis as Apple documents it: write(_:toBufferCallback:) renders float buffers ending
// with an empty one, the rate, pitch and delays change what is rendered, speak(_:) is a FIFO
// queue whose delegate hears start, each word, pause, continue, finish and cancel on the main
// queue — with a sound server or without one (the clocked null output keeps time). No assertion
// depends on timing: events are awaited with generous timeouts.
@testable import AVFAudio
import Foundation
import Synchronization
import Testing
import TestSupport

/// Everything the delegate heard, in order, and whether each call came on the main thread.
final class SpeechEvents: NSObject, AVSpeechSynthesizerDelegate, Sendable {
    enum Event: Equatable, Sendable {
        case start(String), finish(String), pause(String), resume(String), cancel(String)
        case range(String, NSRange)
    }

    private let state = Mutex<(events: [Event], offMain: Int)>(([], 0))

    var events: [Event] { state.withLock { $0.events } }
    var callsOffMain: Int { state.withLock { $0.offMain } }

    /// Marks the main queue, to tell whether a call runs on it (with an async main on Linux the
    /// main queue is drained by a worker thread, so `Thread.isMainThread` cannot tell).
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    override init() {
        _ = Self.mainQueueKey
        super.init()
    }

    private func add(_ event: Event) {
        let main = DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
        state.withLock { s in
            s.events.append(event)
            if !main { s.offMain += 1 }
        }
    }

    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didStart utterance: AVSpeechUtterance) { add(.start(utterance.speechString)) }
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didFinish utterance: AVSpeechUtterance) { add(.finish(utterance.speechString)) }
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didPause utterance: AVSpeechUtterance) { add(.pause(utterance.speechString)) }
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didContinue utterance: AVSpeechUtterance) { add(.resume(utterance.speechString)) }
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, didCancel utterance: AVSpeechUtterance) { add(.cancel(utterance.speechString)) }
    func speechSynthesizer(_ synthesizer: AVSpeechSynthesizer, willSpeakRangeOfSpeechString characterRange: NSRange,
                           utterance: AVSpeechUtterance) {
        add(.range(utterance.speechString, characterRange))
    }

    /// Waits (up to `timeout` seconds) until `event` was heard; whether it was.
    func wait(for event: Event, timeout: Double = 60) async -> Bool {
        await wait(timeout: timeout) { $0.contains(event) }
    }

    func wait(timeout: Double = 60, until done: ([Event]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if done(events) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return done(events)
    }
}

/// Renders utterances with write(_:toBufferCallback:).
enum SpeechRender {
    struct Result {
        var buffers: [AVAudioPCMBuffer] = []
        var endedWithEmptyBuffer = false
        var samples: [Float] { buffers.flatMap { b in (0..<Int(b.frameLength)).map { b.floatChannelData![0][$0] } } }
        var frames: Int { buffers.reduce(0) { $0 + Int($1.frameLength) } }
    }

    /// Everything `write` delivers for `utterance`, up to and including the empty buffer.
    static func render(_ utterance: AVSpeechUtterance) async throws -> Result {
        let synthesizer = SpeechTests.quietSynthesizer()
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        synthesizer.write(utterance) { buffer in
            let pcm = buffer as? AVAudioPCMBuffer
            if let pcm, pcm.frameLength > 0 {
                box.result.buffers.append(pcm)
            } else {
                box.result.endedWithEmptyBuffer = pcm != nil
                done.signal()
            }
        }
        let finished = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: done.wait(timeout: .now() + 120) == .success) }
        }
        try #require(finished, "write(_:toBufferCallback:) never delivered its final empty buffer")
        return box.result
    }

    final class ResultBox { var result = Result() }
}

@Suite(.serialized) struct SpeechTests {
    static let sentence = "The quick brown fox jumps over the lazy dog."
    static let long = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness."

    /// A synthesizer whose speech goes to a sink no server has (the clocked null output, which
    /// keeps time): tests that speak must not be heard on the services' null sink, where the
    /// capture tests measure levels at the same time.
    static func quietSynthesizer() -> AVSpeechSynthesizer {
        let synthesizer = AVSpeechSynthesizer()
        synthesizer.session.outputDeviceUniqueID = "avf-speech-tests-no-such-sink"
        return synthesizer
    }

    static func utterance(_ text: String, rate: Float? = nil) -> AVSpeechUtterance {
        let u = AVSpeechUtterance(string: text)
        u.voice = AVSpeechSynthesisVoice(language: "en-US")
        if let rate { u.rate = rate }
        return u
    }

    // MARK: Voices

    @Test func voicesListEnglishAndFindLanguagesByCode() throws {
        let voices = AVSpeechSynthesisVoice.speechVoices()
        #expect(voices.count > 10)
        #expect(voices.contains { $0.language.hasPrefix("en") })
        #expect(Set(voices.map(\.identifier)).count == voices.count, "identifiers are unique")
        let us = try #require(AVSpeechSynthesisVoice(language: "en-US"))
        #expect(us.language == "en-US")
        #expect(us.identifier.hasPrefix("org.espeak-ng.voice."))
        #expect(us.quality == .default)
        let gb = try #require(AVSpeechSynthesisVoice(language: "en-GB"))
        #expect(gb.language == "en-GB" && gb != us)
        let fr = try #require(AVSpeechSynthesisVoice(language: "fr-FR"))
        #expect(fr.language.hasPrefix("fr"))
        #expect(AVSpeechSynthesisVoice(language: "xx-XX") == nil)
        #expect(AVSpeechSynthesisVoice(language: "") == nil)
        #expect(AVSpeechSynthesisVoice(language: nil) != nil)
        // Identifiers find the same voice again; Apple's do not exist here.
        #expect(AVSpeechSynthesisVoice(identifier: us.identifier) == us)
        #expect(AVSpeechSynthesisVoice(identifier: AVSpeechSynthesisVoiceIdentifierAlex) == nil)
        #expect(AVSpeechSynthesisVoice(identifier: "nonsense") == nil)
        #expect(!AVSpeechSynthesisVoice.currentLanguageCode().isEmpty)
        let settings = us.audioFileSettings
        #expect(settings[AVSampleRateKey] as? Double == 22050)
        #expect(settings[AVLinearPCMIsFloatKey] as? Bool == true)
    }

    // MARK: Rendering

    @Test func writeDeliversStandardFloatBuffersAndAnEmptyLastOne() async throws {
        let result = try await SpeechRender.render(Self.utterance(Self.sentence))
        #expect(result.endedWithEmptyBuffer)
        #expect(!result.buffers.isEmpty)
        for buffer in result.buffers {
            #expect(buffer.format.isStandard && buffer.floatChannelData != nil)
            #expect(buffer.format.channelCount == 1 && buffer.format.sampleRate == 22050)
        }
        // About three seconds of speech that is not silent.
        #expect(result.frames > 22050 && result.frames < 22050 * 10)
        let peak = result.samples.map { abs($0) }.max() ?? 0
        #expect(peak > 0.05 && peak <= 1)
    }

    @Test func higherRatesGiveShorterSpeech() async throws {
        var lengths: [Int] = []
        for rate in [AVSpeechUtteranceMinimumSpeechRate, AVSpeechUtteranceDefaultSpeechRate, AVSpeechUtteranceMaximumSpeechRate] {
            lengths.append(try await SpeechRender.render(Self.utterance(Self.long, rate: rate)).frames)
        }
        #expect(lengths[0] > lengths[1] && lengths[1] > lengths[2], "frames at min, default, max rate: \(lengths)")
        // 80, 175 and 450 words per minute.
        #expect(Double(lengths[0]) > 1.5 * Double(lengths[1]))
        #expect(Double(lengths[1]) > 1.5 * Double(lengths[2]))
    }

    @Test func rateIsPinnedToItsRange() {
        let u = AVSpeechUtterance(string: "x")
        #expect(u.rate == AVSpeechUtteranceDefaultSpeechRate && u.pitchMultiplier == 1 && u.volume == 1)
        u.rate = 7
        #expect(u.rate == AVSpeechUtteranceMaximumSpeechRate)
        u.rate = -1
        #expect(u.rate == AVSpeechUtteranceMinimumSpeechRate)
        u.pitchMultiplier = 9
        #expect(u.pitchMultiplier == 2)
        #expect(AVSpeechUtterance.wordsPerMinute(forRate: 0) == 80)
        #expect(AVSpeechUtterance.wordsPerMinute(forRate: 0.5) == 175)
        #expect(AVSpeechUtterance.wordsPerMinute(forRate: 1) == 450)
    }

    /// The median fundamental frequency of the loud 1024-sample windows, by autocorrelation
    /// (lags for 60–500 Hz), every fourth window.
    static func medianPitch(_ samples: [Float]) -> Double {
        var pitches: [Double] = []
        let window = 1024, minLag = 22050 / 500, maxLag = 22050 / 60
        var start = 0
        while start + window + maxLag < samples.count {
            defer { start += 4 * window }
            let energy = (start..<(start + window)).reduce(Float(0)) { $0 + samples[$1] * samples[$1] }
            guard energy > 1 else { continue }
            var best = (lag: 0, value: Float(0))
            for lag in minLag...maxLag {
                var sum: Float = 0
                for i in start..<(start + window) { sum += samples[i] * samples[i + lag] }
                if sum > best.value { best = (lag, sum) }
            }
            if best.lag > 0 && best.value > 0.3 * energy { pitches.append(22050 / Double(best.lag)) }
        }
        pitches.sort()
        return pitches.isEmpty ? 0 : pitches[pitches.count / 2]
    }

    @Test func pitchMultiplierRaisesThePitch() async throws {
        let low = Self.utterance(Self.sentence)
        low.pitchMultiplier = 0.5
        let high = Self.utterance(Self.sentence)
        high.pitchMultiplier = 2
        let lowSamples = try await SpeechRender.render(low).samples
        let highSamples = try await SpeechRender.render(high).samples
        #expect(lowSamples != highSamples)
        let (l, h) = (Self.medianPitch(lowSamples), Self.medianPitch(highSamples))
        #expect(l > 50 && h > 1.3 * l, "median pitch: multiplier 0.5 → \(l) Hz, 2 → \(h) Hz")
    }

    @Test func delaysAddSilenceOfTheirLength() async throws {
        let plain = try await SpeechRender.render(Self.utterance(Self.sentence))
        let delayed = Self.utterance(Self.sentence)
        delayed.preUtteranceDelay = 0.5
        delayed.postUtteranceDelay = 0.25
        let padded = try await SpeechRender.render(delayed)
        // espeak-ng's speech of the same text may differ by a few samples from one synthesis to
        // the next (it keeps a little state); the delays are exact.
        let added = padded.frames - plain.frames
        #expect(abs(added - (11025 + 5513)) < 64, "added \(added) frames for 0.5 s + 0.25 s")
        let samples = padded.samples
        #expect(samples.prefix(11025).allSatisfy { $0 == 0 })
        #expect(samples.suffix(5513).allSatisfy { $0 == 0 })
        let speech = samples[11025..<(samples.count - 5513)]
        #expect(speech.contains { abs($0) > 0.05 })
    }

    @Test func ssmlIsReadAsSSML() async throws {
        let ssml = try #require(AVSpeechUtterance(ssmlRepresentation: "<speak>Hello <break time=\"1s\"/> big &amp; bold world</speak>"))
        #expect(ssml.speechString == "Hello  big & bold world")
        #expect(AVSpeechUtterance(ssmlRepresentation: "<speak>unclosed") == nil)
        #expect(AVSpeechUtterance(ssmlRepresentation: "plain words") == nil)
        #expect(AVSpeechUtterance(ssmlRepresentation: "<speak>a</speak><speak>b</speak>") == nil)
        ssml.voice = AVSpeechSynthesisVoice(language: "en-US")
        let withBreak = try await SpeechRender.render(ssml).frames
        let without = try await SpeechRender.render(Self.utterance("Hello big & bold world")).frames
        // The break adds about a second; markup is not read aloud.
        #expect(withBreak > without + 15000 && withBreak < without + 40000, "\(withBreak) vs \(without)")
    }

    @Test func emptyTextRendersJustTheEnd() async throws {
        let result = try await SpeechRender.render(Self.utterance(""))
        #expect(result.endedWithEmptyBuffer && result.frames == 0)
    }

    // MARK: Speaking

    @Test func wordRangesComeInOrderAndCoverTheWords() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        let events = SpeechEvents()
        synthesizer.delegate = events
        let text = "Héllo wörld, the quick 🦊 jumps."
        synthesizer.speak(Self.utterance(text))
        #expect(await events.wait(for: .finish(text)))
        let ranges = events.events.compactMap { e -> NSRange? in if case .range(_, let r) = e { return r }; return nil }
        let length = (text as NSString).length
        #expect(ranges.count >= 5)
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.location + a.length <= b.location, "\(a) then \(b)") }
        for r in ranges { #expect(r.location >= 0 && r.length > 0 && r.location + r.length <= length) }
        // Every word lies in a range.
        let words = ["Héllo", "wörld", "the", "quick", "jumps"]
        for word in words {
            let at = (text as NSString).range(of: word)
            #expect(ranges.contains { $0.location <= at.location && $0.location + $0.length >= at.location + at.length }, "\(word)")
        }
        #expect(events.events.first == .start(text))
        #expect(events.events.last == .finish(text))
        #expect(events.callsOffMain == 0, "the delegate is called on the main queue")
        #expect(!synthesizer.isSpeaking)
    }

    @Test func utterancesAreSpokenFirstInFirstOut() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        let events = SpeechEvents()
        synthesizer.delegate = events
        let first = Self.utterance("One two three.")
        first.postUtteranceDelay = 0.1
        synthesizer.speak(first)
        synthesizer.speak(Self.utterance("Four five."))
        #expect(synthesizer.isSpeaking)
        #expect(await events.wait(for: .finish("Four five.")))
        let order = events.events.filter { if case .range = $0 { return false }; return true }
        #expect(order == [.start("One two three."), .finish("One two three."), .start("Four five."), .finish("Four five.")])
        #expect(!synthesizer.isSpeaking)
    }

    @Test func stopImmediatelyCancelsAndEmptiesTheQueue() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        let events = SpeechEvents()
        synthesizer.delegate = events
        #expect(!synthesizer.stopSpeaking(at: .immediate), "nothing to stop")
        synthesizer.speak(Self.utterance(Self.long))
        synthesizer.speak(Self.utterance("Second."))
        #expect(await events.wait(for: .start(Self.long)))
        #expect(synthesizer.stopSpeaking(at: .immediate))
        #expect(await events.wait(for: .cancel(Self.long)))
        #expect(!events.events.contains(.finish(Self.long)))
        #expect(!synthesizer.isSpeaking)
        // The queue was emptied: the next utterance is the first spoken after the stop.
        synthesizer.speak(Self.utterance("Third."))
        #expect(await events.wait(for: .finish("Third.")))
        #expect(!events.events.contains(.start("Second.")))
    }

    @Test func stopAtAWordBoundaryCancelsToo() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        let events = SpeechEvents()
        synthesizer.delegate = events
        synthesizer.speak(Self.utterance(Self.long))
        #expect(await events.wait { $0.contains { if case .range = $0 { return true }; return false } })
        #expect(synthesizer.stopSpeaking(at: .word))
        #expect(await events.wait(for: .cancel(Self.long)))
        #expect(!events.events.contains(.finish(Self.long)))
    }

    @Test func stopWhilePausedCancelsAndUnpauses() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        let events = SpeechEvents()
        synthesizer.delegate = events
        synthesizer.speak(Self.utterance(Self.long))
        #expect(await events.wait(for: .start(Self.long)))
        #expect(synthesizer.pauseSpeaking(at: .immediate))
        #expect(await events.wait(for: .pause(Self.long)))
        #expect(synthesizer.stopSpeaking(at: .word))
        #expect(await events.wait(for: .cancel(Self.long)))
        #expect(!synthesizer.isPaused && !synthesizer.isSpeaking)
        // Speech goes on for the next utterance without a continue.
        synthesizer.speak(Self.utterance("Next."))
        #expect(await events.wait(for: .finish("Next.")))
    }

    @Test func pauseAndContinue() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        let events = SpeechEvents()
        synthesizer.delegate = events
        #expect(!synthesizer.pauseSpeaking(at: .immediate) && !synthesizer.continueSpeaking())
        synthesizer.speak(Self.utterance(Self.long))
        #expect(await events.wait(for: .start(Self.long)))
        #expect(synthesizer.pauseSpeaking(at: .immediate))
        #expect(synthesizer.isPaused && synthesizer.isSpeaking)
        #expect(await events.wait(for: .pause(Self.long)))
        let heardWhilePaused = events.events.count
        #expect(synthesizer.continueSpeaking())
        #expect(!synthesizer.isPaused)
        #expect(await events.wait(for: .resume(Self.long)))
        // At a word boundary this time.
        #expect(synthesizer.pauseSpeaking(at: .word))
        #expect(await events.wait { $0.filter { $0 == .pause(Self.long) }.count == 2 })
        #expect(synthesizer.isPaused)
        #expect(synthesizer.continueSpeaking())
        #expect(await events.wait(for: .finish(Self.long)))
        #expect(events.events.count > heardWhilePaused)
        #expect(!events.events.contains(.cancel(Self.long)))
    }

    @Test func speakingWithNoSoundServerKeepsTime() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        // A sink no server has: the clocked null output, as with no server at all (set on this
        // synthesizer only, so tests running beside this one keep their sound).
        synthesizer.session.outputDeviceUniqueID = "avf-speech-tests-no-such-sink"
        let events = SpeechEvents()
        synthesizer.delegate = events
        synthesizer.speak(Self.utterance(Self.sentence))
        #expect(await events.wait(for: .finish(Self.sentence)))
        #expect(events.events.contains { if case .range = $0 { return true }; return false })
        // The null output pulled the speech's frames in real time.
        let core = try #require(synthesizer.session.renderCore)
        #expect(core.framesPlayed > 22050)
    }

    @Test(.enabled(if: CaptureServices.shouldRun, "capture services not running: scripts/capture-services.sh start"))
    func speechIsHeardOnTheSoundServer() async throws {
        let services = try CaptureServices.current.get()
        setenv("PULSE_SERVER", services.pulseServer, 1)
        if let config = services.pulseClientConfig { setenv("PULSE_CLIENTCONFIG", config, 1) }
        let dir = try TestTools.temporaryDirectory("speech-sound")
        let recording = dir.appendingPathComponent("monitor.raw")
        // A null sink of this test's own on the services' server (the capture tests measure
        // levels on the shared one), removed at the end.
        let sink = "avf_speech_test_\(getpid())"
        let loaded = try TestTools.run("env", ["PULSE_SERVER=\(services.pulseServer)"] + (services.pulseClientConfig.map { ["PULSE_CLIENTCONFIG=\($0)"] } ?? [])
                                       + ["pactl", "load-module", "module-null-sink", "sink_name=\(sink)", "rate=22050", "channels=1"])
        let module = String(decoding: loaded.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(loaded.status == 0 && !module.isEmpty, "cannot load a null sink")
        defer {
            _ = try? TestTools.run("env", ["PULSE_SERVER=\(services.pulseServer)"] + (services.pulseClientConfig.map { ["PULSE_CLIENTCONFIG=\($0)"] } ?? [])
                                   + ["pactl", "unload-module", module])
        }
        // Record that sink's monitor while speaking.
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        recorder.arguments = ["parec", "--device=\(sink).monitor", "--format=s16le", "--rate=22050", "--channels=1",
                              "--raw", recording.path]
        recorder.environment = services.environment
        try recorder.run()
        defer { if recorder.isRunning { kill(recorder.processIdentifier, SIGKILL) } }
        func recorded() -> Int { ((try? FileManager.default.attributesOfItem(atPath: recording.path)[.size]) as? Int) ?? 0 }
        let deadline = Date().addingTimeInterval(30)
        while recorded() == 0 && Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        try #require(recorded() > 0, "parec recorded nothing from \(sink).monitor")

        let synthesizer = AVSpeechSynthesizer()
        synthesizer.session.outputDeviceUniqueID = sink
        let events = SpeechEvents()
        synthesizer.delegate = events
        synthesizer.speak(Self.utterance(Self.sentence))
        #expect(await events.wait(for: .finish(Self.sentence)))
        // A little more recording after the end, then stop.
        let after = recorded()
        while recorded() < after + 22050 && Date() < deadline.addingTimeInterval(60) { try await Task.sleep(nanoseconds: 20_000_000) }
        // parec stops on SIGINT; bounded, then killed (Process.waitUntilExit spins while it waits).
        recorder.interrupt()
        let stopBy = Date().addingTimeInterval(10)
        while recorder.isRunning && Date() < stopBy { try await Task.sleep(nanoseconds: 20_000_000) }
        if recorder.isRunning { kill(recorder.processIdentifier, SIGKILL) }
        let data = try Data(contentsOf: recording)
        let peak = data.withUnsafeBytes { raw in raw.bindMemory(to: Int16.self).map { abs(Int($0)) }.max() ?? 0 }
        #expect(peak > 1000, "the speech was not heard on the sink (peak \(peak))")
    }
    // MARK: Learning AV Foundation's HelloAVF (acceptance scenario AS-1)

    static let helloLines = ["Hello AV Foundation. How are you?", "I'm well! Thanks for asking.", "Are you excited about the book?",
                             "Very! I have always felt so misunderstood", "What's your favorite feature?",
                             "Oh, they're all my babies. I couldn't possibly choose.", "It was great to speak with you!",
                             "The pleasure was all mine! Have fun!"]

    static func helloUtterance(_ index: Int, rate: Float = 0.4) -> AVSpeechUtterance {
        let u = AVSpeechUtterance(string: helloLines[index])
        u.voice = AVSpeechSynthesisVoice(language: index % 2 == 0 ? "en-US" : "en-GB")
        u.rate = rate
        u.pitchMultiplier = 0.8
        u.postUtteranceDelay = 0.1
        return u
    }

    @Test func helloAVFSpeaksEightLinesInOrderWithAlternatingVoices() async throws {
        let synthesizer = SpeechTests.quietSynthesizer()
        let events = SpeechEvents()
        synthesizer.delegate = events
        let utterances = (0..<8).map { Self.helloUtterance($0) }
        #expect(utterances.map { $0.voice?.language } == (0..<8).map { $0 % 2 == 0 ? "en-US" : "en-GB" })
        for u in utterances { synthesizer.speak(u) }
        #expect(await events.wait(timeout: 120) { $0.contains(.finish(Self.helloLines[7])) })
        let order = events.events.filter { if case .range = $0 { return false }; return true }
        #expect(order == Self.helloLines.flatMap { [SpeechEvents.Event.start($0), .finish($0)] })
        // Render mode: each line ends with at least its 0.1 s post delay of silence, and the
        // book's rate 0.4 speaks slower than the default.
        for index in [0, 1] {
            let slow = try await SpeechRender.render(Self.helloUtterance(index))
            let tail = slow.samples.reversed().prefix { $0 == 0 }.count
            #expect(tail >= 2205, "line \(index + 1) ends with \(tail) silent frames")
            let normal = try await SpeechRender.render(Self.helloUtterance(index, rate: AVSpeechUtteranceDefaultSpeechRate))
            #expect(slow.frames > normal.frames)
        }
    }
}
