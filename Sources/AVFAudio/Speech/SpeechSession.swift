// SpeechSession: a synthesizer's queue of utterances and the thread that speaks them through the
// audio render core, telling the delegate what happens when it is heard.
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import CVolk
internal import MediaEngine

/// The engine behind one AVSpeechSynthesizer. Thread-safe.
///
/// One worker thread, started when there is something to speak and ending when the queue is
/// empty, takes utterances in order: espeak-ng synthesizes each on a thread of its own (far
/// faster than real time) into a `SpeechChannel`, the worker queues the sound on an
/// `AudioRenderCore` as sample buffers stamped on the session's timebase (host clock), about a
/// second ahead, and waits for the timebase to reach each event — start, every word, the end —
/// to post it to the delegate on the main queue. Pausing stops the
/// timebase (the output holds what it has), continuing restarts it, and stopping flushes the core.
/// Word boundaries are the times of the words' first samples.
final class SpeechSession: Sendable {
    /// An utterance, to hand back to the delegate.
    struct UtteranceReference: Sendable {
        // The utterance is never read or changed here (its parameters were copied when it was
        // enqueued): it is only given back to the delegate on the main queue, as Apple gives it.
        nonisolated(unsafe) let object: AVSpeechUtterance
        let id: ObjectIdentifier
        init(_ object: AVSpeechUtterance) {
            self.object = object
            id = ObjectIdentifier(object)
        }
    }

    enum Event: Sendable {
        case start, finish, pause, resume, cancel
        case range(location: Int, length: Int)
    }

    private struct Job: Sendable {
        let speech: SpeechJob
        let utterance: UtteranceReference
    }

    private enum BoundaryAction: Sendable { case pause, stop }

    private struct Current: Sendable {
        let job: Job
        /// Times of the word starts and of the end of the speech, once scheduled.
        var wordTimes: [CMTime] = []
        var speechEnd: CMTime?
        var cancelled = false
        var finished = false
    }

    private struct State: Sendable {
        var queue: [Job] = []
        var current: Current?
        var paused = false
        var boundary: (action: BoundaryAction, time: CMTime)?
        var workerRunning = false
        var closed = false
        var core: AudioRenderCore?
        /// The next utterance starts no earlier than this (the last one's end plus its post delay).
        var nextStart = CMTime.zero
        /// The sink to play on (nil: the server's default).
        var deviceUID: String?
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    let timebase: CMTimebase

    /// The synthesizer the delegate hears about: set once, right after the synthesizer's init and
    /// before any utterance, and only read afterwards (on the main queue).
    nonisolated(unsafe) weak var owner: AVSpeechSynthesizer?

    init() {
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &made)
        timebase = made!
    }

    var isSpeaking: Bool {
        state.withLock { s in !s.queue.isEmpty || (s.current.map { !$0.cancelled && !$0.finished } ?? false) }
    }

    var isPaused: Bool { state.withLock { $0.paused } }

    /// The core, for tests: how much sound went out.
    var renderCore: AudioRenderCore? { state.withLock { $0.core } }

    /// The sound server's sink to play on (a PulseAudio sink name); nil: the default. A name no
    /// sink has gives the clocked null output (tests use that for "no sound server").
    var outputDeviceUniqueID: String? {
        get { state.withLock { $0.deviceUID } }
        set {
            let core = state.withLock { s -> AudioRenderCore? in
                s.deviceUID = newValue
                return s.core
            }
            core?.setDevice(newValue)
        }
    }

    // MARK: Control

    func enqueue(_ speech: SpeechJob, _ utterance: UtteranceReference) {
        let start = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            let id = utterance.id
            if s.queue.contains(where: { $0.utterance.id == id })
                || (s.current.map { $0.job.utterance.id == id && !$0.cancelled && !$0.finished } ?? false) { return false }
            s.queue.append(Job(speech: speech, utterance: utterance))
            guard !s.workerRunning else { return false }
            s.workerRunning = true
            return true
        }
        wake.signal()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "AVSpeechSynthesizer"
            thread.start()
        }
    }

    func stop(at boundary: AVSpeechBoundary) -> Bool {
        let (done, core) = state.withLock { s -> (Bool, AudioRenderCore?) in
            let speaking = !s.queue.isEmpty || (s.current.map { !$0.cancelled && !$0.finished } ?? false)
            guard speaking else { return (false, nil) }
            s.queue.removeAll()
            // Stopped speech is not paused (a word boundary cannot come while paused: at once).
            let wasPaused = s.paused
            if wasPaused {
                s.paused = false
                _ = CMTimebaseSetRate(timebase, rate: 1)
            }
            guard var current = s.current, !current.cancelled, !current.finished else { return (true, wasPaused ? s.core : nil) }
            if boundary == .word, !wasPaused, let time = Self.nextBoundary(current, after: timebase.time) {
                s.boundary = (.stop, time)
                return (true, nil)
            }
            current.cancelled = true
            s.current = current
            s.boundary = nil
            return (true, wasPaused ? s.core : nil)
        }
        core?.timebaseChanged(jumped: false)
        wake.signal()
        return done
    }

    func pause(at boundary: AVSpeechBoundary) -> Bool {
        let paused = state.withLock { s -> UtteranceReference? in
            let speaking = !s.queue.isEmpty || (s.current.map { !$0.cancelled && !$0.finished } ?? false)
            guard speaking, !s.paused else { return nil }
            if boundary == .word, let current = s.current, let time = Self.nextBoundary(current, after: timebase.time) {
                s.boundary = (.pause, time)
                return nil
            }
            return pauseNow(&s)
        }
        wake.signal()
        if let paused {
            report(.pause, paused)
            return true
        }
        return state.withLock { $0.paused || $0.boundary?.action == .pause }
    }

    func resume() -> Bool {
        let resumed = state.withLock { s -> (Bool, UtteranceReference?) in
            if !s.paused {
                // A pause waiting for its word boundary is called off.
                guard s.boundary?.action == .pause else { return (false, nil) }
                s.boundary = nil
                return (true, nil)
            }
            s.paused = false
            _ = CMTimebaseSetRate(timebase, rate: 1)
            return (true, (s.current?.job ?? s.queue.first)?.utterance)
        }
        if resumed.0 { state.withLock { $0.core }?.timebaseChanged(jumped: false) }
        wake.signal()
        if let utterance = resumed.1 { report(.resume, utterance) }
        return resumed.0
    }

    /// The synthesizer is going away: nothing more is spoken or reported.
    func shutdown() {
        let core = state.withLock { s -> AudioRenderCore? in
            s.closed = true
            s.queue.removeAll()
            if var current = s.current {
                current.cancelled = true
                s.current = current
            }
            return s.core
        }
        wake.signal()
        core?.close()
    }

    /// Posts `event` about `utterance` to the delegate on the main queue.
    func report(_ event: Event, _ utterance: UtteranceReference) {
        DispatchQueue.main.async { [self] in
            guard let owner, let delegate = owner.delegate else { return }
            let u = utterance.object
            switch event {
            case .start: delegate.speechSynthesizer(owner, didStart: u)
            case .finish: delegate.speechSynthesizer(owner, didFinish: u)
            case .pause: delegate.speechSynthesizer(owner, didPause: u)
            case .resume: delegate.speechSynthesizer(owner, didContinue: u)
            case .cancel: delegate.speechSynthesizer(owner, didCancel: u)
            case .range(let location, let length):
                delegate.speechSynthesizer(owner, willSpeakRangeOfSpeechString: NSRange(location: location, length: length), utterance: u)
            }
        }
    }

    /// Stops the timebase (and so the sound) now; the utterance to report, if any.
    private func pauseNow(_ s: inout State) -> UtteranceReference? {
        s.paused = true
        s.boundary = nil
        _ = CMTimebaseSetRate(timebase, rate: 0)
        s.core?.timebaseChanged(jumped: false)
        return (s.current?.job ?? s.queue.first)?.utterance
    }

    /// The first word start after `time`, else the end of the speech; nil when neither is known
    /// (the utterance is still being synthesized, or its speech is over).
    private static func nextBoundary(_ current: Current, after time: CMTime) -> CMTime? {
        if let word = current.wordTimes.first(where: { $0 > time }) { return word }
        if let end = current.speechEnd, end > time { return end }
        return nil
    }

    // MARK: The worker

    private func run() {
        while let job = takeNext() {
            speak(job)
        }
    }

    private func takeNext() -> Job? {
        let (job, core) = state.withLock { s -> (Job?, AudioRenderCore?) in
            guard !s.closed, !s.queue.isEmpty else {
                // Nothing left: the clock (and so the output) stops until the next utterance, in
                // the same lock as the worker ends, so a new worker cannot start in between.
                s.workerRunning = false
                if !s.paused { _ = CMTimebaseSetRate(timebase, rate: 0) }
                return (nil, s.core)
            }
            let job = s.queue.removeFirst()
            s.current = Current(job: job)
            if !s.paused && CMTimebaseGetRate(timebase) == 0 { _ = CMTimebaseSetRate(timebase, rate: 1) }
            return (job, s.core)
        }
        core?.timebaseChanged(jumped: false)
        return job
    }

    private func isCancelled() -> Bool { state.withLock { $0.closed || ($0.current?.cancelled ?? true) } }

    /// Speaks one utterance: its sound is fed to the core as it is synthesized (about a second
    /// ahead of the clock), and its events are reported as the clock reaches them.
    private func speak(_ job: Job) {
        let channel = SpeechChannel.synthesizing(job.speech.request, blockFrames: Self.framesPerSampleBuffer,
                                                 shouldStop: { [self] in isCancelled() })
        let core = makeCore()
        let frameRate = Int32((try? EspeakEngine.shared.sampleRate()) ?? 22050)
        let description = PCMSampleBuffers.formatDescription(
            AudioPCMFormat(sampleRate: Int(frameRate), channels: .mono, sampleType: .float, bitsPerSample: 32),
            layout: AudioChannelSet.mono.audioChannelLayout)
        var speechStart: CMTime?
        var framesQueued: Int64 = 0
        var events: [(time: CMTime, event: Event)] = []
        var nextEvent = 0
        var synthesisDone = false

        /// Schedules the start once the first sound (or the end) is there: one output latency
        /// ahead of the clock, and not before the last utterance's post delay is over.
        func scheduleStart() -> CMTime {
            if let speechStart { return speechStart }
            let lead = CMTime(seconds: core.startLead + 0.05, preferredTimescale: 1_000_000)
            let start = max(timebase.time + lead, state.withLock { $0.nextStart })
            let made = start + CMTime(seconds: job.speech.preDelay, preferredTimescale: 1_000_000)
            speechStart = made
            events.append((made, .start))
            return made
        }

        while true {
            // Feed the core while it has room (it holds about a second), taking what the
            // synthesis made so far; the first block waits for the synthesis to begin.
            feed: while !synthesisDone && (speechStart == nil || core.queue.isReady) {
                switch channel.take(timeout: speechStart == nil ? 0.05 : 0) {
                case .block(let block):
                    let start = scheduleStart()
                    var wordTimes: [CMTime] = []
                    for word in block.words {
                        guard let range = job.speech.text.range(of: word) else { continue }
                        let time = start + CMTime(value: Int64(word.sample), timescale: frameRate)
                        wordTimes.append(time)
                        events.append((time, .range(location: range.location, length: range.length)))
                    }
                    if !wordTimes.isEmpty { state.withLock { $0.current?.wordTimes += wordTimes } }
                    framesQueued += Int64(enqueue(block.samples, at: start + CMTime(value: framesQueued, timescale: frameRate),
                                                  description: description, on: core))
                case .none:
                    // Nothing new: go and report events — unless nothing has started yet.
                    guard speechStart == nil else { break feed }
                    if isCancelled() {
                        core.flush()
                        cancelCurrent(job)
                        return
                    }
                case .end(let failed):
                    if failed {
                        core.flush()
                        cancelCurrent(job)
                        return
                    }
                    synthesisDone = true
                    let start = scheduleStart()
                    let end = start + CMTime(value: framesQueued, timescale: frameRate)
                    events.append((end, .finish))
                    state.withLock { s in
                        s.current?.speechEnd = end
                        s.nextStart = end + CMTime(seconds: job.speech.postDelay, preferredTimescale: 1_000_000)
                    }
                }
            }
            // Report what the clock reached; until the synthesis is done, look again within 50 ms
            // to feed the core.
            guard nextEvent < events.count || !synthesisDone else { break }
            let target = nextEvent < events.count ? events[nextEvent].time : timebase.time + CMTime(seconds: 0.05, preferredTimescale: 1_000)
            switch wait(until: target, atMost: synthesisDone ? nil : 0.05) {
            case .cancelled:
                core.flush()
                cancelCurrent(job)
                return
            case .timedOut:
                continue
            case .reached:
                guard nextEvent < events.count, events[nextEvent].time <= timebase.time else { continue }
                let event = events[nextEvent].event
                nextEvent += 1
                if case .finish = event { state.withLock { $0.current?.finished = true } }
                report(event, job.utterance)
            }
        }
        // The post-utterance delay, when another utterance follows.
        let next = state.withLock { $0.nextStart }
        if state.withLock({ !$0.queue.isEmpty }) { _ = wait(until: next, atMost: nil) }
    }

    private func cancelCurrent(_ job: Job) {
        let report = state.withLock { s -> Bool in
            s.boundary = nil
            s.nextStart = .zero
            if s.paused {
                s.paused = false
            }
            guard let current = s.current, !current.finished else { return false }
            s.current?.cancelled = true
            return !s.closed
        }
        if report { self.report(.cancel, job.utterance) }
    }

    private enum WaitResult { case reached, cancelled, timedOut }

    /// Waits until the timebase reaches `time` (or `atMost` seconds passed), carrying out a pause
    /// or stop waiting for its boundary on the way.
    private func wait(until time: CMTime, atMost: Double?) -> WaitResult {
        let deadline = atMost.map { DispatchTime.now() + $0 }
        while true {
            if let deadline, DispatchTime.now() >= deadline { return .timedOut }
            let (now, rate) = timebase.timeAndRate
            enum Step { case cancelled, pause(UtteranceReference?), wait(CMTime?), reached }
            let step = state.withLock { s -> Step in
                if s.closed || (s.current?.cancelled ?? false) { return .cancelled }
                if let boundary = s.boundary, now >= boundary.time {
                    switch boundary.action {
                    case .pause:
                        return .pause(pauseNow(&s))
                    case .stop:
                        s.current?.cancelled = true
                        return .cancelled
                    }
                }
                if now >= time && !s.paused { return .reached }
                return .wait(s.boundary?.time)
            }
            switch step {
            case .cancelled:
                return .cancelled
            case .reached:
                return .reached
            case .pause(let utterance):
                if let utterance { report(.pause, utterance) }
            case .wait(let boundary):
                let target = min(time, boundary ?? time)
                let seconds = rate > 0 ? max((target - now).seconds / rate, 0) : 0.05
                // Woken early by any control call; at most 50 ms between looks.
                var until = DispatchTime.now() + min(seconds, 0.05)
                if let deadline, deadline < until { until = deadline }
                _ = wake.wait(timeout: until)
            }
        }
    }

    // MARK: Sound

    private func makeCore() -> AudioRenderCore {
        state.withLock { s in
            if let core = s.core { return core }
            let core = AudioRenderCore(timebase: timebase)
            if let uid = s.deviceUID { core.setDevice(uid) }
            s.core = core
            return core
        }
    }

    private static let framesPerSampleBuffer = 4096

    /// Queues 16-bit `samples` as one 32-bit float mono sample buffer presented at `pts`;
    /// returns how many frames.
    private func enqueue(_ samples: Data, at pts: CMTime, description: CMAudioFormatDescription?, on core: AudioRenderCore) -> Int {
        let frames = samples.count / 2
        guard frames > 0, let description else { return frames }
        var floats = Data(count: frames * 4)
        floats.withUnsafeMutableBytes { out in
            samples.withUnsafeBytes { raw in
                avf_volk_convert_16i_32f(out.bindMemory(to: Float.self).baseAddress!, raw.bindMemory(to: Int16.self).baseAddress!,
                                         32768, UInt32(frames))
            }
        }
        if let buffer = PCMSampleBuffers.sampleBuffer(floats, frameCount: frames, description: description, pts: pts) {
            core.enqueue(buffer)
        }
        return frames
    }
}
