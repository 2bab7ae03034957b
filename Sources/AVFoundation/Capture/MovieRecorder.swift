// MovieRecorder: the engine behind AVCaptureMovieFileOutput — one crash-safe, real-time movie
// recording on an AVAssetWriter (no second writer): session at the first video frame, pause and
// resume without gaps, limits that stop at an exact time, and recording errors as Apple reports them.
import CoreGraphics
import CoreMedia
import Dispatch
import Foundation
import Synchronization
internal import MediaEngine

/// Records one movie file from live video and audio sample buffers.
///
/// Made per recording (`startRecording(to:…)`), started once, fed from capture threads, finished
/// once. The file is written by an `AVAssetWriter` whose inputs expect real-time data, in the
/// writer's recording mode (`WriterRecordingOptions`): with a `movieFragmentInterval` an empty
/// movie header is on disk at once and a fragment is cut and flushed at the first video keyframe
/// at or after each interval, so a process killed at any moment leaves a file readable up to its
/// last fragment; when writing fails (a full disk, a file-size limit) the file is cut back to its
/// last complete fragment and kept.
///
/// Timing: the session (file time zero) starts at the first video sample's presentation time;
/// audio before it is dropped (a buffer straddling it is trimmed to the frame). While paused,
/// samples are dropped; after `resume()` later samples are shifted back by the paused span, so
/// the file is one continuous movie. Appends never block: when an input is not ready the sample
/// is dropped and counted.
///
/// Ends: `finish(error:)` by the owner (stop, device gone, interruption), or by the recorder itself
/// when `maxRecordedDuration` (at exactly that time), `maxRecordedFileSize` or
/// `minFreeDiskSpaceLimit` is reached, or when writing fails. The completion handler is called
/// exactly once, on a global queue, with nil or an `AVError` whose user info carries
/// `AVErrorRecordingSuccessfullyFinishedKey` (true when the file is readable).
// Invariant: `startHandler` is set before `start()`; everything mutable after is in `locked`.
package final class MovieRecorder: @unchecked Sendable {
    /// What to record and how.
    // Invariant: a value (its settings dictionaries are copied, never shared mutable state).
    package struct Configuration: @unchecked Sendable {
        /// The file to write; it must not exist.
        package var outputURL: URL
        /// QuickTime movie (default) or MPEG-4 (`.mp4`, `.m4v` extensions).
        package var fileType: AVFileType
        /// Video output settings (`AVAssetWriterInput` keys, width and height included); nil: no video track.
        package var videoSettings: [String: Any]?
        /// Audio output settings (sample rate and channel count included); nil: no audio track.
        package var audioSettings: [String: Any]?
        /// How often a movie fragment is cut (10 s by default); `.invalid` or not positive: none
        /// (the movie header is written at the end: a recording killed before then is lost).
        package var movieFragmentInterval = CMTime(value: 10, timescale: 1)
        /// The video track's matrix (a rotated connection records its pixels as they come, turned
        /// by the matrix).
        package var videoTransform: CGAffineTransform = .identity
        /// File-level metadata written when the recording finishes (may change until then: `metadata`).
        package var metadata: [AVMetadataItem] = []
        /// Longest recording; `.invalid` (default): no limit.
        package var maxRecordedDuration: CMTime = .invalid
        /// Largest file in bytes; 0 (default): no limit.
        package var maxRecordedFileSize: Int64 = 0
        /// Stop with `.diskFull` when the file system has less free space than this; 0: no check.
        package var minFreeDiskSpaceLimit: Int64 = 0
        /// The x264/x265 speed preset the video encoder runs with.
        package var encoderSpeedPreset = "veryfast"

        package init(outputURL: URL) {
            self.outputURL = outputURL
            fileType = MovieRecorder.fileType(for: outputURL)
        }
    }

    /// The file type a recording to `url` gets from its extension: MPEG-4 for "mp4"/"m4v",
    /// QuickTime movie otherwise.
    package static func fileType(for url: URL) -> AVFileType {
        switch url.pathExtension.lowercased() {
        case "mp4": return .mp4
        case "m4v": return .m4v
        default: return .mov
        }
    }

    /// Capture's video settings: H.264 (or `codec`), a keyframe every second of frames, no frame
    /// reordering (movie fragments with an empty movie header cannot hold a B-frame delay, and
    /// capture wants low latency), the average bit rate from the picture size.
    package static func defaultVideoSettings(width: Int, height: Int, frameRate: Double,
                                             codec: AVVideoCodecType = .h264, averageBitRate: Int? = nil) -> [String: Any] {
        let fps = frameRate > 0 && frameRate.isFinite ? frameRate : 30
        return [
            AVVideoCodecKey: codec,
            AVVideoWidthKey: width,
            AVVideoHeightKey: height,
            AVVideoCompressionPropertiesKey: [
                AVVideoAverageBitRateKey: averageBitRate ?? videoBitRate(width: width, height: height),
                AVVideoMaxKeyFrameIntervalKey: max(1, Int(fps.rounded())),
                AVVideoAllowFrameReorderingKey: false,
                AVVideoExpectedSourceFrameRateKey: fps,
            ] as [String: Any],
        ]
    }

    /// The capture bit rate for a picture size (the session presets' H.264 rates): 1080p and up
    /// 16 Mb/s, 720p 10.5 Mb/s, 640×480 3.5 Mb/s, 480×360 700 kb/s, smaller 128 kb/s.
    package static func videoBitRate(width: Int, height: Int) -> Int {
        let pixels = width * height
        if pixels >= 1920 * 1080 { return 16_000_000 }
        if pixels >= 1280 * 720 { return 10_500_000 }
        if pixels >= 640 * 480 { return 3_500_000 }
        if pixels >= 480 * 360 { return 700_000 }
        return 128_000
    }

    /// Capture's audio settings: AAC at 48 kHz, 128 kb/s (64 kb/s for `lowBitRate`).
    package static func defaultAudioSettings(channels: Int, sampleRate: Double = 48_000, lowBitRate: Bool = false) -> [String: Any] {
        [
            AVFormatIDKey: kAudioFormatMPEG4AAC,
            AVSampleRateKey: sampleRate,
            AVNumberOfChannelsKey: max(1, channels),
            AVEncoderBitRateKey: (lowBitRate ? 64_000 : 128_000) * max(1, min(channels, 2)) / 2,
        ]
    }

    /// The most captured pictures of `width`×`height` waiting for the video encoder: a second at
    /// 30 fps (30) while they take at most about 96 MB as 4:2:0 (up to 1080p), fewer for larger
    /// pictures, never fewer than a plain real-time writer input's 8. A picture coming when they
    /// are all waiting is dropped (counted in `droppedSampleCounts`).
    package static func pendingVideoLimit(width: Int, height: Int) -> Int {
        let frameBytes = max(1, width) * max(1, height) * 3 / 2
        return max(8, min(30, 96_000_000 / frameBytes))
    }

    /// How a recording is going.
    package enum State: Sendable, Equatable {
        /// Made, not started.
        case idle
        /// The file exists; samples are being written (or awaited).
        case recording
        /// A limit was reached at this end time: waiting for audio to reach it before finishing.
        case draining
        /// `finish` has run (or is running); no more samples are taken.
        case finished
    }

    /// What an append did with a sample.
    package enum AppendResult: Sendable, Equatable {
        /// Handed to the writer.
        case appended
        /// Not written, by design: before the session, while paused, after the end, or after finishing.
        case skipped
        /// Dropped because the writer's input was not ready (counted).
        case dropped
    }

    package let configuration: Configuration
    private let completion: @Sendable ((any Error)?) -> Void
    /// Called once, on a global queue, with the session's start time when the first sample is
    /// written (the movie file output's `didStartRecordingTo…startPTS`). Set before `start()`.
    package var startHandler: (@Sendable (CMTime) -> Void)?
    private let writer: AVAssetWriter
    private let videoInput: AVAssetWriterInput?
    private let audioInput: AVAssetWriterInput?
    /// The recording's state.
    private struct Locked {
        var state: State = .idle
        var metadataItems: [AVMetadataItem]
        var sessionStart: CMTime?
        /// Source time the session ends at (a limit, or the last video end at finish).
        var endTime: CMTime?
        /// The error the recording finishes with (a limit; nil: stopped by the owner).
        var pendingError: AVError.Code?
        var paused = false
        /// Waiting for the first video sample after `resume()` to learn the paused span.
        var resuming = false
        /// Total paused span subtracted from later samples.
        var offset: CMTime = .zero
        /// End of the last appended video sample, in file-source time (shifted).
        var videoEnd: CMTime?
        /// End of the last appended audio sample, in file-source time (shifted).
        var audioEnd: CMTime?
        var lastVideoDuration: CMTime = .invalid
        /// Time of the last appended video sample, in file-source time (shifted).
        var lastVideoPTS: CMTime?
        var appendedVideo = 0
        var droppedVideo = 0
        var droppedAudio = 0
        /// Watches the writer's status: a failure (a full disk at a fragment cut) ends the
        /// recording at once, even when no sample comes after it.
        var statusObservation: NSKeyValueObservation?
        /// The writer created the file (`start()` succeeded).
        var fileCreated = false
        var lastDiskCheck: UInt64 = 0
        var fragmentsAtDiskCheck = 0
        var completed = false
    }
    private let locked: Mutex<Locked>

    /// A recording of `configuration`; `completion` is called exactly once when it ends.
    package init(configuration: Configuration, completion: @escaping @Sendable ((any Error)?) -> Void) throws {
        self.configuration = configuration
        self.completion = completion
        locked = Mutex(Locked(metadataItems: configuration.metadata))
        writer = try AVAssetWriter(outputURL: configuration.outputURL, fileType: configuration.fileType)
        let interval = configuration.movieFragmentInterval
        let fragments = interval.isNumeric && interval > .zero
        writer.setRecordingOptions(WriterRecordingOptions(fragmentInterval: fragments ? interval : nil))
        if var video = configuration.videoSettings {
            if fragments {
                // The empty movie header written at once cannot carry a B-frame delay edit.
                var properties = video[AVVideoCompressionPropertiesKey] as? [String: Any] ?? [:]
                properties[AVVideoAllowFrameReorderingKey] = false
                video[AVVideoCompressionPropertiesKey] = properties
            }
            let input = AVAssetWriterInput(mediaType: .video, outputSettings: video)
            input.expectsMediaDataInRealTime = true
            input.encoderSpeedPreset = configuration.encoderSpeedPreset
            // A second of pictures may wait for the encoder (about 90 MB at 1080p): a busy moment
            // of the machine delays the encoder without losing frames, as ffmpeg's input queue.
            input.pendingSampleLimit = MovieRecorder.pendingVideoLimit(width: (video[AVVideoWidthKey] as? Int) ?? 1920,
                                                                       height: (video[AVVideoHeightKey] as? Int) ?? 1080)
            input.transform = configuration.videoTransform
            // Capture times come on the host clock (nanoseconds, or sums of them with frame
            // durations whose timescale overflows to 2^31 − 1): 90 kHz holds every whole and NTSC
            // frame rate exactly and keeps the track's durations small numbers.
            input.mediaTimeScale = 90_000
            guard writer.canAdd(input) else {
                throw AVError(.formatUnsupported, userInfo: [
                    NSLocalizedFailureReasonErrorKey: "The video settings cannot be recorded into a \(configuration.fileType.rawValue) file."])
            }
            writer.add(input)
            videoInput = input
        } else {
            videoInput = nil
        }
        if let audio = configuration.audioSettings {
            let input = AVAssetWriterInput(mediaType: .audio, outputSettings: audio)
            input.expectsMediaDataInRealTime = true
            guard writer.canAdd(input) else {
                throw AVError(.formatUnsupported, userInfo: [
                    NSLocalizedFailureReasonErrorKey: "The audio settings cannot be recorded into a \(configuration.fileType.rawValue) file."])
            }
            writer.add(input)
            audioInput = input
        } else {
            audioInput = nil
        }
    }

    // MARK: Observation

    /// The recording's state.
    package var currentState: State { locked.withLock { $0.state } }

    /// Whether samples are being dropped because the recording is paused.
    package var isPaused: Bool { locked.withLock { $0.paused } }

    /// The source time of file time zero (the first video sample's time); nil before it.
    package var sessionStartTime: CMTime? { locked.withLock { $0.sessionStart } }

    /// How much has been recorded: the end of the last appended sample less the session start
    /// and the paused spans.
    package var recordedDuration: CMTime {
        locked.withLock { s in
            guard let start = s.sessionStart else { return .zero }
            let end = [s.videoEnd, audioInput != nil && videoInput == nil ? s.audioEnd : nil].compactMap { $0 }.max() ?? start
            let limited = s.endTime.map { min(end, $0) } ?? end
            return limited > start ? CMTimeSubtract(limited, start) : .zero
        }
    }

    /// The file's size so far in bytes (on disk plus media waiting in the open fragment).
    package var recordedFileSize: Int64 { writer.recordedFileSize }

    /// Samples dropped because an input was not ready.
    package var droppedSampleCounts: (video: Int, audio: Int) { locked.withLock { s in (s.droppedVideo, s.droppedAudio) } }

    /// Whether the video input would take a sample now (an append when it is not drops the sample).
    package var isReadyForMoreVideo: Bool { videoInput?.isReadyForMoreMediaData ?? false }

    /// Whether the audio input would take a sample now.
    package var isReadyForMoreAudio: Bool { audioInput?.isReadyForMoreMediaData ?? false }

    /// Complete movie fragments on disk.
    package var fragmentsWritten: Int { writer.fragmentsWritten }

    /// The file-level metadata written when the recording finishes; may be set at any time before.
    package var metadata: [AVMetadataItem] {
        get { locked.withLock { $0.metadataItems } }
        set { locked.withLock { $0.metadataItems = newValue } }
    }

    // MARK: Life cycle

    /// Creates the file and gets ready for samples. False when the file cannot be created (an
    /// existing file — `AVError.fileAlreadyExists`, left untouched —, an unwritable place, too
    /// little free space); the completion handler has then been called with the error.
    @discardableResult
    package func start() -> Bool {
        let first: Bool = locked.withLock { s in
            guard s.state == .idle else { return false }
            s.state = .recording
            return true
        }
        guard first else { return false }
        if configuration.minFreeDiskSpaceLimit > 0, let free = freeSpace(), free < configuration.minFreeDiskSpaceLimit {
            locked.withLock { $0.state = .finished }
            complete(with: recordingError(.diskFull, finished: false,
                                          reason: "The disk has \(free) bytes free, less than the \(configuration.minFreeDiskSpaceLimit) bytes the recording must leave."))
            return false
        }
        if writer.startWriting() {
            let observation = writer.observe(\.status, options: [.new]) { [weak self] writer, _ in
                if writer.status == .failed { _ = self?.failed() }
            }
            locked.withLock { s in
                s.fileCreated = true
                s.statusObservation = observation
            }
            // A failure before the observation was in place.
            if writer.status == .failed { _ = failed() }
            return true
        }
        locked.withLock { $0.state = .finished }
        var info = (writer.error as NSError?)?.userInfo ?? [:]
        info[AVErrorRecordingSuccessfullyFinishedKey] = false
        let code = (writer.error as NSError?).flatMap { $0.domain == AVFoundationErrorDomain ? AVError.Code(rawValue: $0.code) : nil } ?? .unknown
        complete(with: AVError(code, userInfo: info))
        return false
    }

    /// Drops samples until `resume()`.
    package func pause() {
        locked.withLock { s in
            guard s.state == .recording, !s.paused else { return }
            s.paused = true
        }
    }

    /// Takes samples again; the span since `pause()` is left out of the file.
    package func resume() {
        locked.withLock { s in
            guard s.state == .recording, s.paused else { return }
            s.paused = false
            s.resuming = s.sessionStart != nil
        }
    }

    /// Appends a video sample buffer (an image buffer with its capture time and duration).
    @discardableResult
    package func appendVideo(_ sample: CMSampleBuffer) -> AppendResult {
        guard let input = videoInput else { return .skipped }
        let pts = CMSampleBufferGetPresentationTimeStamp(sample)
        guard pts.isNumeric else { return .skipped }
        var duration = CMSampleBufferGetDuration(sample)
        enum Step { case skip, write(CMTime), limit(CMTime, AVError.Code) }
        let step: Step = locked.withLock { s in
            // Until the writer has started (start() on another thread) a sample cannot be written.
            guard s.state == .recording, s.fileCreated, !s.paused else { return .skip }
            if !duration.isNumeric || duration <= .zero { duration = s.lastVideoDuration }
            if duration.isNumeric, duration > .zero { s.lastVideoDuration = duration }
            if s.resuming, let end = s.videoEnd {
                // The paused span: from the end of the last frame before the pause to this frame.
                let gap = CMTimeSubtract(CMTimeSubtract(pts, s.offset), end)
                if gap > .zero { s.offset = CMTimeAdd(s.offset, gap) }
                s.resuming = false
            }
            let shifted = CMTimeSubtract(pts, s.offset)
            // Times must increase (a frame's nominal duration may reach past the next one's
            // capture time: cameras jitter, so only the order is checked).
            if let last = s.lastVideoPTS, shifted <= last { return .skip }
            if s.sessionStart == nil {
                s.sessionStart = shifted
                writer.startSession(atSourceTime: shifted)
                announceStart(shifted)
            }
            let start = s.sessionStart!
            if configuration.maxRecordedDuration.isNumeric, configuration.maxRecordedDuration > .zero {
                let limit = CMTimeAdd(start, configuration.maxRecordedDuration)
                if shifted >= limit { return .limit(limit, .maximumDurationReached) }
            }
            if configuration.maxRecordedFileSize > 0, expectedFileSize(appendedVideo: s.appendedVideo) >= configuration.maxRecordedFileSize {
                return .limit(shifted, .maximumFileSizeReached)
            }
            return .write(shifted)
        }
        switch step {
        case .skip:
            return .skipped
        case .limit(let end, let code):
            reachLimit(end: end, code: code)
            return .skipped
        case .write(let shifted):
            if checkDiskSpace(at: shifted) { return .skipped }
            guard input.isReadyForMoreMediaData else {
                if writer.status != .writing { return failed() }
                locked.withLock { $0.droppedVideo += 1 }
                return .dropped
            }
            let timed = retimed(sample, to: shifted, duration: duration)
            guard input.append(timed) else { return failed() }
            locked.withLock { s in
                let end = duration.isNumeric && duration > .zero ? CMTimeAdd(shifted, duration) : shifted
                s.videoEnd = max(s.videoEnd ?? end, end)
                s.lastVideoPTS = shifted
                s.appendedVideo += 1
            }
            return .appended
        }
    }

    /// Appends an audio sample buffer (linear PCM with its capture time).
    @discardableResult
    package func appendAudio(_ sample: CMSampleBuffer) -> AppendResult {
        guard let input = audioInput else { return .skipped }
        let pts = CMSampleBufferGetPresentationTimeStamp(sample)
        guard pts.isNumeric else { return .skipped }
        let duration = CMSampleBufferGetDuration(sample)
        enum Step { case skip, write(CMTime), drained }
        let step: Step = locked.withLock { s in
            guard s.state == .recording || s.state == .draining, s.fileCreated, !s.paused else { return .skip }
            if s.resuming {
                // With video, sound waits for the first frame after the pause to learn the span;
                // without, this buffer gives it.
                guard videoInput == nil, let end = s.audioEnd else { return .skip }
                let gap = CMTimeSubtract(CMTimeSubtract(pts, s.offset), end)
                if gap > .zero { s.offset = CMTimeAdd(s.offset, gap) }
                s.resuming = false
            }
            let shifted = CMTimeSubtract(pts, s.offset)
            let end = duration.isNumeric ? CMTimeAdd(shifted, duration) : shifted
            if videoInput == nil, s.sessionStart == nil {
                s.sessionStart = shifted
                writer.startSession(atSourceTime: shifted)
                announceStart(shifted)
            }
            guard let start = s.sessionStart, end > start else { return .skip }
            if let last = s.audioEnd, end <= last { return .skip }
            if let stop = s.endTime, shifted >= stop { return s.state == .draining ? .drained : .skip }
            if videoInput == nil, configuration.maxRecordedDuration.isNumeric, configuration.maxRecordedDuration > .zero,
               shifted >= CMTimeAdd(start, configuration.maxRecordedDuration) {
                return .skip
            }
            return .write(shifted)
        }
        switch step {
        case .skip:
            if videoInput == nil { checkAudioOnlyLimit() }
            return .skipped
        case .drained:
            finishDraining()
            return .skipped
        case .write(let shifted):
            guard input.isReadyForMoreMediaData else {
                if writer.status != .writing { return failed() }
                locked.withLock { $0.droppedAudio += 1 }
                return .dropped
            }
            let timed = offset(sample, shifted: shifted)
            guard input.append(timed) else { return failed() }
            let reachedEnd: Bool = locked.withLock { s in
                let end = duration.isNumeric ? CMTimeAdd(shifted, duration) : shifted
                s.audioEnd = max(s.audioEnd ?? end, end)
                return s.state == .draining && s.endTime.map { end >= $0 } == true
            }
            if reachedEnd { finishDraining() }
            if videoInput == nil { checkAudioOnlyLimit() }
            return .appended
        }
    }

    /// Ends the recording: the file is finished at the end of the last video sample and the
    /// completion handler gets `error` (nil for a plain stop) — `.deviceWasDisconnected`,
    /// `.sessionWasInterrupted`… — with `AVErrorRecordingSuccessfullyFinishedKey` set. Stopping
    /// before any video sample arrived deletes the file and reports `.noDataCaptured`.
    /// Finishing a recorder that was never started reports `.noDataCaptured` (no file is made).
    package func finish(error code: AVError.Code? = nil) {
        let (go, neverStarted): (Bool, Bool) = locked.withLock { s in
            guard s.state == .recording || s.state == .draining else {
                let idle = s.state == .idle
                if idle { s.state = .finished }
                return (false, idle)
            }
            if s.state == .recording { s.pendingError = code }
            s.state = .finished
            return (true, false)
        }
        if neverStarted {
            complete(with: recordingError(.noDataCaptured, finished: false, reason: "The recording was stopped before it started."))
        }
        guard go else { return }
        finishWriting()
    }

    /// Tells `startHandler` (asynchronously: the lock is held) that the session started at `time`.
    private func announceStart(_ time: CMTime) {
        guard let handler = startHandler else { return }
        DispatchQueue.global().async { handler(time) }
    }

    // MARK: Ending

    /// A limit was reached at source time `end`: video stops there; audio is awaited up to it
    /// (for at most half a second), then the file is finished with `code`.
    private func reachLimit(end: CMTime, code: AVError.Code) {
        let waitForAudio: Bool = locked.withLock { s in
            guard s.state == .recording else { return false }
            s.endTime = end
            s.pendingError = code
            let audioShort = audioInput != nil && (s.audioEnd.map { $0 < end } ?? true)
            s.state = audioShort ? .draining : .finished
            return audioShort
        }
        if waitForAudio {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { [self] in finishDraining() }
        } else if locked.withLock({ $0.state == .finished }) {
            finishWriting()
        }
    }

    private func finishDraining() {
        let go: Bool = locked.withLock { s in
            guard s.state == .draining else { return false }
            s.state = .finished
            return true
        }
        if go { finishWriting() }
    }

    private func checkAudioOnlyLimit() {
        let reached: CMTime? = locked.withLock { s in
            guard s.state == .recording, let start = s.sessionStart, let end = s.audioEnd else { return nil }
            if configuration.maxRecordedDuration.isNumeric, configuration.maxRecordedDuration > .zero,
               CMTimeSubtract(end, start) >= configuration.maxRecordedDuration {
                return CMTimeAdd(start, configuration.maxRecordedDuration)
            }
            if configuration.maxRecordedFileSize > 0, writer.recordedFileSize >= configuration.maxRecordedFileSize { return end }
            return nil
        }
        guard let reached else { return }
        let code: AVError.Code = writer.recordedFileSize >= configuration.maxRecordedFileSize && configuration.maxRecordedFileSize > 0
            ? .maximumFileSizeReached : .maximumDurationReached
        locked.withLock { s in
            s.endTime = reached
            s.pendingError = code
            s.state = .finished
        }
        finishWriting()
    }

    /// The file's size once the frames still in the encoder are written: what the muxer has,
    /// plus those frames at the average size of the written ones (the encoder holds frames back
    /// for its look-ahead, so the written size alone would overshoot a size limit), with
    /// `appendedVideo` frames appended so far.
    private func expectedFileSize(appendedVideo: Int) -> Int64 {
        let written = writer.videoPacketsWritten
        let inFlight = Int64(max(0, appendedVideo - written.count))
        let average = written.count > 0 ? written.bytes / Int64(written.count) : 0
        return writer.recordedFileSize + inFlight * average
    }

    /// True when the free space fell under `minFreeDiskSpaceLimit` (checked after each fragment
    /// reaches the disk and at least twice a second); the recording then finishes with
    /// `.diskFull` at `time`.
    private func checkDiskSpace(at time: CMTime) -> Bool {
        guard configuration.minFreeDiskSpaceLimit > 0 else { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        let fragments = writer.fragmentsWritten
        let due: Bool = locked.withLock { s in
            guard now &- s.lastDiskCheck >= 500_000_000 || s.lastDiskCheck == 0 || fragments != s.fragmentsAtDiskCheck else { return false }
            s.lastDiskCheck = now
            s.fragmentsAtDiskCheck = fragments
            return true
        }
        guard due, let free = freeSpace(), free < configuration.minFreeDiskSpaceLimit else { return false }
        reachLimit(end: time, code: .diskFull)
        return true
    }

    private func freeSpace() -> Int64? {
        var fs = statvfs()
        let directory = configuration.outputURL.deletingLastPathComponent().path
        guard statvfs(directory, &fs) == 0 else { return nil }
        return Int64(fs.f_bavail) * Int64(fs.f_frsize)
    }

    /// An append the writer refused: it has failed; finish with its error.
    private func failed() -> AppendResult {
        let go: Bool = locked.withLock { s in
            guard s.state == .recording || s.state == .draining else { return false }
            s.state = .finished
            return true
        }
        if go { finishWriting() }
        return .skipped
    }

    /// Finishes the writer and reports how the recording ended.
    private func finishWriting() {
        let (start, end, code, items) = locked.withLock { s -> (CMTime?, CMTime?, AVError.Code?, [AVMetadataItem]) in
            let end = s.endTime ?? s.videoEnd ?? s.audioEnd
            return (s.sessionStart, end, s.pendingError, s.metadataItems)
        }
        guard writer.status == .writing else {
            reportWriterFailure()
            return
        }
        guard let start else {
            // Nothing was captured: no file.
            writer.cancelWriting()
            complete(with: recordingError(.noDataCaptured, finished: false, reason: "The recording stopped before any data was captured."))
            return
        }
        if let end, end > start { writer.endSession(atSourceTime: end) }
        writer.setRecordingMetadata(items)
        writer.finishWriting { [self] in
            if writer.status == .completed {
                complete(with: code.map { recordingError($0, finished: true, reason: nil) })
            } else {
                reportWriterFailure()
            }
        }
    }

    /// The writer failed: its error as a recording error (a file-size limit of the file system is
    /// `.maximumFileSizeReached`), finished when the file was kept.
    private func reportWriterFailure() {
        let error = writer.error as NSError?
        // Kept by the engine (cut back to its last fragment), or complete when the failure came
        // after the muxer finished (the metadata pass replaces the file only when it succeeds).
        let created = locked.withLock { $0.fileCreated }
        let finished = writer.keptFileAfterFailure || (created && FileManager.default.fileExists(atPath: configuration.outputURL.path))
        guard let error else {
            complete(with: recordingError(.unknown, finished: finished, reason: nil))
            return
        }
        var info = error.userInfo
        info[AVErrorRecordingSuccessfullyFinishedKey] = finished
        var code = AVError.Code(rawValue: error.code) ?? .unknown
        if error.domain != AVFoundationErrorDomain { code = .unknown; info[NSUnderlyingErrorKey] = error }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           underlying.code == Int(EFBIG) {
            code = .maximumFileSizeReached
            info[NSLocalizedDescriptionKey] = AVError(.maximumFileSizeReached).localizedDescription
            info[NSLocalizedFailureReasonErrorKey] = "The file reached the largest size the file system allows it."
        }
        complete(with: AVError(code, userInfo: info))
    }

    private func recordingError(_ code: AVError.Code, finished: Bool, reason: String?) -> AVError {
        var info: [String: Any] = [AVErrorRecordingSuccessfullyFinishedKey: finished, NSURLErrorKey: configuration.outputURL]
        // Apple's titles: "Recording Stopped" for a recording that ended, "Cannot Record" for one
        // that could not start; the reason says why in words (avtool record prints both).
        let (title, why): (String, String) = switch code {
        case .maximumDurationReached: ("Recording Stopped", "The recording reached its maximum duration.")
        case .maximumFileSizeReached: ("Recording Stopped", "The recording reached its maximum file size.")
        case .diskFull: ("Recording Stopped", "There is not enough free disk space to continue the recording.")
        case .deviceWasDisconnected: ("Recording Stopped", "A device of the recording was disconnected.")
        case .sessionWasInterrupted: ("Recording Stopped", "The capture session stopped or was interrupted.")
        case .noDataCaptured: ("Cannot Record", "No data was captured before the recording stopped.")
        case .fileAlreadyExists: ("Cannot Record", "A file already exists at the recording's URL.")
        default: ("Recording Stopped", "The recording could not continue.")
        }
        info[NSLocalizedDescriptionKey] = title
        info[NSLocalizedFailureReasonErrorKey] = reason ?? why
        if code == .maximumFileSizeReached { info[AVErrorFileSizeKey] = NSNumber(value: writer.recordedFileSize) }
        if code == .maximumDurationReached, configuration.maxRecordedDuration.isNumeric {
            info[AVErrorTimeKey] = NSNumber(value: configuration.maxRecordedDuration.seconds)
        }
        return AVError(code, userInfo: info)
    }

    private func complete(with error: (any Error)?) {
        let (first, observation): (Bool, NSKeyValueObservation?) = locked.withLock { s in
            guard !s.completed else { return (false, nil) }
            s.completed = true
            defer { s.statusObservation = nil }
            return (true, s.statusObservation)
        }
        observation?.invalidate()
        guard first else { return }
        let completion = self.completion
        let box = ErrorBox(error)
        DispatchQueue.global().async { completion(box.error) }
    }

    // MARK: Timing

    /// `sample` presented at `pts` for `duration` (the same buffer when nothing changes).
    private func retimed(_ sample: CMSampleBuffer, to pts: CMTime, duration: CMTime) -> CMSampleBuffer {
        let original = CMSampleBufferGetPresentationTimeStamp(sample)
        if original == pts, CMSampleBufferGetDuration(sample) == duration { return sample }
        var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: .invalid)
        var out: CMSampleBuffer?
        let status = CMSampleBufferCreateCopyWithNewTiming(allocator: nil, sampleBuffer: sample, sampleTimingEntryCount: 1,
                                                           sampleTimingArray: &timing, sampleBufferOut: &out)
        return status == noErr ? (out ?? sample) : sample
    }

    /// An audio `sample` moved to start at `shifted` (its frames keep their spacing).
    private func offset(_ sample: CMSampleBuffer, shifted: CMTime) -> CMSampleBuffer {
        let original = CMSampleBufferGetPresentationTimeStamp(sample)
        if original == shifted { return sample }
        var needed: CMItemCount = 0
        CMSampleBufferGetSampleTimingInfoArray(sample, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed)
        var timings = [CMSampleTimingInfo](repeating: CMSampleTimingInfo(), count: max(needed, 1))
        CMSampleBufferGetSampleTimingInfoArray(sample, entryCount: timings.count, arrayToFill: &timings, entriesNeededOut: &needed)
        let delta = CMTimeSubtract(shifted, original)
        for i in timings.indices where timings[i].presentationTimeStamp.isNumeric {
            timings[i].presentationTimeStamp = CMTimeAdd(timings[i].presentationTimeStamp, delta)
            if timings[i].decodeTimeStamp.isNumeric { timings[i].decodeTimeStamp = CMTimeAdd(timings[i].decodeTimeStamp, delta) }
        }
        var out: CMSampleBuffer?
        let status = CMSampleBufferCreateCopyWithNewTiming(allocator: nil, sampleBuffer: sample, sampleTimingEntryCount: timings.count,
                                                           sampleTimingArray: &timings, sampleBufferOut: &out)
        return status == noErr ? (out ?? sample) : sample
    }
}

/// Carries an error to the completion queue.
private struct ErrorBox: Sendable {
    let error: (any Error)?
    init(_ error: (any Error)?) { self.error = error }
}
