// AudioPlayerEngine: what plays an AVAudioPlayer's file — the stream reader decoding it, a
// timebase on the host clock, and a renderer (AudioRenderCore) that mixes into the process's
// shared output (AudioMixOutput), fed loop after loop on one timeline so loops join without a gap.
import CoreAudioTypes
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// Plays one file: decoding on a serial queue, the renderer pulling on the output's thread.
///
/// The timeline: frames at the file's rate; loop k of the file starts where loop k − 1's decoded
/// sound ended, so the timebase's time runs on across loops and `position` is that time modulo
/// the file's length. A seek starts the timeline again at the sought frame.
final class AudioPlayerEngine: Sendable {

    enum Event: Sendable {
        case finished
        case decodeError(String)
    }

    private struct State {
        var core: AudioRenderCore?
        var generation = 0
        var playing = false
        var numberOfLoops = 0
        /// The rate the timebase runs at while playing.
        var rate: Double = 1
        var timeStretch = false
        // Feeding (read and written on the feed queue, under the lock):
        var loopIndex = 0
        var loopBase: Int64 = 0
        var readFrom: Int64 = 0
        var needsStart = true
        var fedEnd: Int64 = 0
        /// The timeline frame where the sound ends (known once the last loop is fed).
        var endFrame: Int64?
        /// The file frame after the last one fed, and the file's length as decoded to its end.
        var fileEnd: Int64 = 0
        var decodedLength: Int64?
        var deviceUID: String?
    }

    let url: URL
    let sampleRate: Int
    /// The file's channels; the renderer gets 1 or 2 (more are mixed down to stereo).
    let channelCount: Int
    /// The file's length in frames (its header's duration).
    let length: Int64
    /// The file's format, as its header describes it.
    let fileFormat: AVAudioFormat
    let controls = AudioMixControls()
    let timebase: CMTimebase
    private let streamIndex: Int
    private let output: AudioPCMFormat
    private let description: CMAudioFormatDescription
    private let feedQueue = DispatchQueue(label: "com.avfoundation.audio-player.feed", qos: .userInitiated)
    private let state = Mutex(State())
    private let eventHandler = Mutex<(@Sendable (Event) -> Void)?>(nil)
    private let timer: DispatchSource
    /// The decoder, used on `feedQueue` (made again if it was never opened).
    private let reader = Mutex<AudioStreamReader?>(nil)

    /// Opens the file's first decodable audio stream; throws `MediaError` when there is none.
    init(url: URL) throws {
        let stream = try AudioStreamReader.firstAudioStream(of: url)
        self.url = url
        streamIndex = stream.index
        sampleRate = stream.sampleRate
        channelCount = stream.channelCount
        length = stream.frameLength
        fileFormat = stream.formatDescription.map(AVAudioFormat.init(cmAudioFormatDescription:))
            ?? AVAudioFormat(standardFormatWithSampleRate: Double(stream.sampleRate), channels: AVAudioChannelCount(stream.channelCount))!
        let channels: AudioChannelSet = stream.channelCount == 1 ? .mono : .stereo
        output = AudioPCMFormat(sampleRate: stream.sampleRate, channels: channels, sampleType: .float, bitsPerSample: 32,
                                isBigEndian: false, isInterleaved: true)
        guard let description = PCMSampleBuffers.formatDescription(output, layout: channels.audioChannelLayout) else {
            throw MediaError.invalidArgument(message: "no format description for \(output)")
        }
        self.description = description
        var made: CMTimebase?
        _ = CMTimebaseCreateWithSourceClock(allocator: nil, sourceClock: CMClockGetHostTimeClock(), timebaseOut: &made)
        timebase = made!
        timer = DispatchSource.makeTimerSource(queue: feedQueue) as! DispatchSource
        // Decoding must work: read the first frames now, so a damaged file fails at init.
        let probe = try AudioStreamReader(url: url, streamIndex: stream.index, output: output, fromFirstSample: true)
        try probe.start(from: .zero, to: length > 0 ? CMTime(value: length, timescale: Int32(sampleRate)) : .positiveInfinity)
        guard try probe.read(maxFrames: 1024) != nil || length == 0 else {
            throw MediaError.failedToParse(code: 0, message: "no sound could be decoded")
        }
        reader.withLock { $0 = probe }
        timer.setEventHandler { [weak self] in self?.timerFired() }
        _ = CMTimebaseAddTimerDispatchSource(timebase, timerSource: timer)
        timer.resume()
    }

    deinit {
        timer.cancel()
        state.withLock { $0.core }?.close()
    }

    /// Where `Event`s go (on the feed queue).
    func setEventHandler(_ handler: @escaping @Sendable (Event) -> Void) {
        eventHandler.withLock { $0 = handler }
    }

    // MARK: Settings

    var numberOfLoops: Int {
        get { state.withLock { $0.numberOfLoops } }
        set { state.withLock { $0.numberOfLoops = newValue } }
    }

    var isPlaying: Bool { state.withLock { $0.playing } }
    var isPrepared: Bool { state.withLock { $0.core != nil } }

    /// The rate (already limited to 0.5–2 by the player); takes effect at once while playing.
    func setRate(_ rate: Double) {
        let playing = state.withLock { s -> Bool in
            s.rate = rate
            return s.playing
        }
        if playing { run(rate: rate, at: nil) }
    }

    /// The output device (a sink's name; nil: the default). Takes effect at the next prepare.
    func setDevice(_ uid: String?) {
        let core = state.withLock { s -> AudioRenderCore? in
            s.deviceUID = uid
            return s.core
        }
        core?.setDevice(uid)
    }

    // MARK: Transport

    /// Opens the renderer and fills its queue (the sound server's stream opens with the first
    /// buffer). Idempotent.
    func prepare() {
        let started = state.withLock { s -> (AudioRenderCore, Int)? in
            guard s.core == nil else { return nil }
            let controls = controls
            let core = AudioRenderCore(timebase: timebase) { rate, channels, uid, fill, failed in
                AudioMixOutput.input(sampleRate: rate, channels: channels, deviceUID: uid, controls: controls, fill: fill, failed: failed)
            }
            core.setAlgorithm(.timeDomain)
            if let uid = s.deviceUID { core.setDevice(uid) }
            s.core = core
            return (core, s.generation)
        }
        guard let (core, generation) = started else { return }
        // The sound server went away: the player pauses, as Apple's does when its session is
        // interrupted, and the session posts the interruption (once, whether its own watch of
        // the server or the output noticed first).
        core.onFailure = { [weak self] error in
            self?.pause()
            if (error as? AudioOutputLost)?.serverLost == true { AVAudioSession.sharedInstance().serverWentAway() }
        }
        startFeeding(core, generation: generation)
        // The first second decoded (and so the output open) before prepare returns.
        feedQueue.sync {}
    }

    /// Runs the timebase at the player's rate from `hostTime` (host clock seconds; nil: now).
    func play(atHostTime hostTime: Double?) {
        prepare()
        let (rate, core) = state.withLock { s -> (Double, AudioRenderCore?) in
            s.playing = true
            return (s.rate, s.core)
        }
        // Now: once the output's latency has passed, so the first frame is heard, not cut.
        let start = hostTime ?? CMClockGetTime(CMClockGetHostTimeClock()).seconds + (core?.startLead ?? 0)
        run(rate: rate, at: start)
    }

    func pause() {
        let core = state.withLock { s -> AudioRenderCore? in
            s.playing = false
            return s.core
        }
        let now = timebase.time
        _ = CMTimebaseSetRateAndAnchorTime(timebase, rate: 0, anchorTime: max(now, .zero), immediateSourceTime: CMClockGetTime(CMClockGetHostTimeClock()))
        core?.timebaseChanged(jumped: false)
    }

    /// Pauses and lets go of the renderer, its output and the decoded sound (prepare undone).
    func stop() {
        pause()
        let core = state.withLock { s -> AudioRenderCore? in
            s.generation += 1
            let time = CMTimeConvertScale(timebase.time, timescale: Int32(sampleRate), method: .roundHalfAwayFromZero).value
            s.readFrom = fileFrame(of: max(0, time), s)
            s.loopBase = max(0, time) - s.readFrom
            s.needsStart = true
            s.endFrame = nil
            defer { s.core = nil }
            return s.core
        }
        core?.queue.stopRequesting()
        core?.close()
    }

    /// The position in the file, in seconds.
    var position: Double {
        let time = timebase.time.seconds
        return state.withLock { s in
            Double(fileFrame(of: Int64((max(0, time) * Double(sampleRate)).rounded()), s)) / Double(sampleRate)
        }
    }

    /// Moves to `seconds` into the file (playing on from there if playing).
    func seek(to seconds: Double) {
        let frame = min(max(0, Int64((seconds * Double(sampleRate)).rounded())), max(length, 0))
        let (core, generation) = state.withLock { s -> (AudioRenderCore?, Int) in
            s.generation += 1
            s.readFrom = frame
            s.loopBase = 0
            s.needsStart = true
            s.endFrame = nil
            return (s.core, s.generation)
        }
        let (_, rate) = timebase.timeAndRate
        _ = CMTimebaseSetRateAndAnchorTime(timebase, rate: rate, anchorTime: CMTime(value: frame, timescale: Int32(sampleRate)),
                                           immediateSourceTime: CMClockGetTime(CMClockGetHostTimeClock()))
        guard let core else { return }
        core.queue.stopRequesting()
        core.flush()
        core.timebaseChanged(jumped: true)
        startFeeding(core, generation: generation)
    }

    // MARK: Internals

    /// The file frame a timeline frame falls on: the timeline is the file's frames, loop after
    /// loop (a seek or stop keeps it so), so it is the frame modulo the decoded length.
    private func fileFrame(of time: Int64, _ s: State) -> Int64 {
        let loop = s.decodedLength ?? length
        guard loop > 0 else { return 0 }
        if let end = s.endFrame, time >= end { return loop }
        return max(0, time) % loop
    }

    private func run(rate: Double, at hostTime: Double?) {
        let host = hostTime.map { CMTime(seconds: $0, preferredTimescale: 1_000_000_000) } ?? CMClockGetTime(CMClockGetHostTimeClock())
        let now = timebase.time
        _ = CMTimebaseSetRateAndAnchorTime(timebase, rate: rate, anchorTime: max(now, .zero), immediateSourceTime: host)
        state.withLock { $0.core }?.timebaseChanged(jumped: false)
        armTimer()
    }

    private func startFeeding(_ core: AudioRenderCore, generation: Int) {
        core.queue.requestWhenReady(on: feedQueue) { [weak self] in self?.feed(core, generation: generation) }
    }

    /// Decodes into the renderer's queue while it has room (on the feed queue).
    private func feed(_ core: AudioRenderCore, generation: Int) {
        while core.queue.isReady {
            let step: (start: Int64?, loopBase: Int64)? = state.withLock { s in
                guard s.generation == generation, s.endFrame == nil else { return nil }
                defer { s.needsStart = false }
                return (s.needsStart ? s.readFrom : nil, s.loopBase)
            }
            guard let step else { return }
            do throws(MediaError) {
                let url = url, streamIndex = streamIndex, output = output
                let reader = try reader.withLock { r throws(MediaError) -> AudioStreamReader in
                    if let r { return r }
                    let made = try AudioStreamReader(url: url, streamIndex: streamIndex, output: output, fromFirstSample: true)
                    r = made
                    return made
                }
                if let start = step.start {
                    try reader.start(from: CMTime(value: start, timescale: Int32(sampleRate)),
                                     to: length > 0 ? CMTime(value: length, timescale: Int32(sampleRate)) : .positiveInfinity)
                }
                if let block = try reader.read(maxFrames: 4096) {
                    let pts = step.loopBase + block.startIndex
                    if let buffer = PCMSampleBuffers.sampleBuffer(block.data, frameCount: block.frameCount, description: description,
                                                                  pts: CMTime(value: pts, timescale: Int32(sampleRate))) {
                        core.enqueue(buffer)
                    }
                    state.withLock { s in
                        if s.generation == generation {
                            s.fedEnd = pts + Int64(block.frameCount)
                            s.fileEnd = block.startIndex + Int64(block.frameCount)
                        }
                    }
                    continue
                }
                // The end of the file: loop, or the sound ends where it was fed to.
                let ended = state.withLock { s -> Bool in
                    guard s.generation == generation else { return false }
                    // Read to its end: the length a loop really has (a header may say otherwise).
                    if s.fileEnd > 0 { s.decodedLength = s.fileEnd }
                    if s.numberOfLoops < 0 || s.loopIndex < s.numberOfLoops {
                        s.loopIndex += 1
                        s.loopBase = s.fedEnd
                        s.readFrom = 0
                        s.needsStart = true
                        return false
                    }
                    s.endFrame = s.fedEnd
                    return true
                }
                if ended {
                    core.queue.stopRequesting()
                    armTimer()
                    return
                }
            } catch {
                guard state.withLock({ $0.generation == generation }) else { return }
                stop()
                eventHandler.withLock { $0 }?(.decodeError("\(error)"))
                return
            }
        }
    }

    /// Fires at the end of the sound (re-armed whenever the rate or time changes).
    private func armTimer() {
        guard let end = state.withLock({ $0.endFrame }) else { return }
        _ = CMTimebaseSetTimerDispatchSourceNextFireTime(timebase, timerSource: timer,
                                                         fireTime: CMTime(value: end, timescale: Int32(sampleRate)), flags: 0)
    }

    private func timerFired() {
        let finished = state.withLock { s -> Bool in
            guard s.playing, let end = s.endFrame else { return false }
            return timebase.time >= CMTime(value: end, timescale: Int32(sampleRate))
        }
        guard finished else {
            armTimer()
            return
        }
        stop()
        // A finished player stands at the start, its loops counted afresh.
        state.withLock { s in
            s.readFrom = 0
            s.loopBase = 0
            s.loopIndex = 0
        }
        _ = CMTimebaseSetRateAndAnchorTime(timebase, rate: 0, anchorTime: .zero, immediateSourceTime: CMClockGetTime(CMClockGetHostTimeClock()))
        eventHandler.withLock { $0 }?(.finished)
    }
}
