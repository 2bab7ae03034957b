// AudioRecorderEngine: what records an AVAudioRecorder's file — the sound server's default source
// (PulseSource, the capture pipeline's microphone source) into the file writer (AudioFileWriter:
// the pipeline's encoder and muxer), flushed to disk every half second so a WAV or CAF recording
// cut by a crash stays readable, with a level meter and the start time and length limits
// Apple's API has.
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

final class AudioRecorderEngine: Sendable {
    enum Event: Sendable {
        /// The file is finished: asked for (true), or the source went away (false).
        case finished(Bool)
        case encodeError(String)
    }

    private struct State {
        var writer: AudioFileWriter?
        var source: PulseSource?
        var recording = false
        /// Frames captured before this host time are dropped (`record(atTime:)`).
        var startHost: Double?
        /// The recording stops at this many frames (`record(forDuration:)`).
        var limit: Int64?
        var framesWritten: Int64 = 0
        var framesSinceFlush = 0
        var metering = false
        var meter: AudioLevelMeter?
        var levels: [AudioChannelLevel] = []
        var events: (@Sendable (Event) -> Void)?
    }

    let url: URL
    let sampleRate: Double
    let channelCount: Int
    let fileFormat: AVAudioFormat
    private let container: AudioFileContainer
    /// Apple's settings dictionary: values are NSNumbers and Data, never changed after init.
    nonisolated(unsafe) private let settings: [String: Any]
    private let processing: AVAudioFormat
    private let state = Mutex(State())
    /// Finishing after a length limit or a lost source (never on the source's own thread).
    private let finishing = DispatchQueue(label: "com.avfoundation.audio-recorder.finish")

    /// Checks `settings` for the file type of `url`'s extension; throws AVFAudio's errors
    /// ('typ?' for an unknown file type, 'fmt?' for settings the file type cannot hold).
    init(url: URL, settings: [String: Any]) throws {
        guard let container = AudioFileContainer.forExtension(url.pathExtension) else {
            throw AVAudioPlayer.error(kAudioFileUnsupportedFileTypeError,
                                      "Recording to a file of type '\(url.pathExtension)' is not supported.", url: url)
        }
        do {
            _ = try AudioFileWriter.check(url: url, container: container, settings: settings)
        } catch {
            let ns = error as NSError
            throw NSError(domain: NSOSStatusErrorDomain, code: ns.code, userInfo: ns.userInfo)
        }
        self.url = url
        self.container = container
        sampleRate = (settings[AVSampleRateKey] as? NSNumber)?.doubleValue ?? 44_100
        channelCount = max(1, (settings[AVNumberOfChannelsKey] as? NSNumber)?.intValue ?? 2)
        processing = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate,
                                   channels: AVAudioChannelCount(channelCount), interleaved: true)!
        self.settings = settings
        fileFormat = AVAudioFormat(settings: settings) ?? processing
    }

    deinit {
        let source = state.withLock { $0.source }
        source?.stop()
        try? state.withLock { $0.writer }?.finish()
    }

    func setEventHandler(_ handler: @escaping @Sendable (Event) -> Void) { state.withLock { $0.events = handler } }

    var isRecording: Bool { state.withLock { $0.recording } }
    var hasFile: Bool { state.withLock { $0.writer != nil } }

    /// Seconds recorded (0 when no file is open).
    var currentTime: Double { state.withLock { $0.writer == nil ? 0 : Double($0.framesWritten) / sampleRate } }

    var isMetering: Bool {
        get { state.withLock { $0.metering } }
        set { state.withLock { $0.metering = newValue } }
    }

    /// The meter's levels now (for `updateMeters()`).
    var levels: [AudioChannelLevel] { state.withLock { $0.metering ? ($0.meter?.levels ?? []) : [] } }

    /// Creates the file (replacing one that exists). Idempotent while it is open.
    func prepare() throws {
        try state.withLock { s in
            guard s.writer == nil else { return }
            let writer = try AudioFileWriter(url: url, container: container, settings: settings, processing: processing, recording: true)
            try writer.flushToDisk()
            s.writer = writer
            s.framesWritten = 0
            s.framesSinceFlush = 0
        }
    }

    /// Records from the default source, from `hostTime` (nil: now) for `duration` seconds (nil:
    /// until stopped), appending to what the file holds.
    func record(atHostTime hostTime: Double?, duration: Double?) throws {
        try prepare()
        let start = state.withLock { s -> Bool in
            s.recording = true
            s.startHost = hostTime
            s.limit = duration.map { s.framesWritten + Int64(($0 * sampleRate).rounded()) }
            return s.source == nil
        }
        guard start else { return }
        let format = LiveAudioFormat(sampleRate: sampleRate, channelCount: channelCount)
        let source = PulseSource(sourceName: AudioSessionRouting.preferredInputName ?? "@DEFAULT_SOURCE@", formats: [format])
        do throws(LiveSourceError) {
            try source.start(format: format, clock: CMClockGetHostTimeClock(),
                             deliver: { [weak self] chunk in self?.deliver(chunk) },
                             failed: { [weak self] error in self?.sourceLost("\(error)") })
        } catch {
            state.withLock { $0.recording = false }
            throw AVAudioPlayer.error(kAudioFileUnspecifiedError, "The sound server's input cannot be recorded: \(error)", url: url)
        }
        state.withLock { $0.source = source }
    }

    /// Stops taking sound; `record` appends after it.
    func pause() {
        let source = state.withLock { s -> PulseSource? in
            s.recording = false
            defer { s.source = nil }
            return s.source
        }
        source?.stop()
        try? state.withLock { $0.writer }?.flushToDisk()
    }

    /// Stops and finishes the file; the event follows (on the finishing queue).
    func stop(success: Bool = true) {
        pause()
        let writer = state.withLock { s -> AudioFileWriter? in
            defer { s.writer = nil }
            return s.writer
        }
        guard let writer else { return }
        let events = state.withLock { $0.events }
        do {
            try writer.finish()
            finishing.async { events?(.finished(success)) }
        } catch {
            finishing.async { events?(.encodeError("\(error)")) }
        }
    }

    /// Removes the file (the recording stopped first).
    func deleteRecording() -> Bool {
        stop()
        do {
            try FileManager.default.removeItem(at: url)
            return true
        } catch {
            return false
        }
    }

    /// A captured chunk (on the source's thread): what lies after the start and within the
    /// limit goes to the file and the meter.
    private func deliver(_ chunk: LiveAudioChunk) {
        let reachedLimit = state.withLock { s -> Bool in
            guard s.recording, let writer = s.writer, chunk.format.channelCount == channelCount else { return false }
            var skip = 0
            if let start = s.startHost {
                skip = min(chunk.frameCount, max(0, Int(((start - chunk.pts.seconds) * sampleRate).rounded())))
            }
            var count = chunk.frameCount - skip
            if let limit = s.limit { count = Int(min(Int64(count), max(0, limit - s.framesWritten))) }
            guard count > 0 else { return s.limit.map { s.framesWritten >= $0 } ?? false }
            let bytesPerFrame = 4 * channelCount
            do {
                try chunk.samples.withUnsafeBytes { raw in
                    let part = UnsafeRawBufferPointer(rebasing: raw[(skip * bytesPerFrame)..<((skip + count) * bytesPerFrame)])
                    try writer.write(part, frames: count)
                    if s.metering {
                        if s.meter == nil { s.meter = AudioLevelMeter(channelCount: channelCount, sampleRate: sampleRate, holdDuration: 0.1) }
                        s.meter?.process(interleaved: part.bindMemory(to: Float.self), frameCount: count)
                    }
                }
            } catch {
                s.recording = false
                let events = s.events
                finishing.async { events?(.encodeError("\(error)")) }
                return false
            }
            s.framesWritten += Int64(count)
            s.framesSinceFlush += count
            if Double(s.framesSinceFlush) >= sampleRate / 2 {
                s.framesSinceFlush = 0
                try? writer.flushToDisk()
            }
            if let limit = s.limit, s.framesWritten >= limit {
                s.recording = false
                return true
            }
            return false
        }
        if reachedLimit { finishing.async { [weak self] in self?.stop() } }
    }

    /// The source went away (the server died): the file is finished with what was recorded.
    private func sourceLost(_ reason: String) {
        finishing.async { [weak self] in self?.stop(success: false) }
    }
}
