// WriterEngine: what an AVAssetWriter runs between startWriting and the end of writing — the
// muxer, one WriterTrack (worker queue + encoder) per input, the session, interleaving and
// back-pressure, and the first failure.
import CoreMedia
import Dispatch
import Foundation
internal import MediaEngine
import Synchronization

/// How a recording (the capture movie file output's `MovieRecorder`) asks the writer to write:
/// movie fragments cut at video keyframes and flushed to disk as they are cut, and a file that is
/// kept — cut back to its last complete fragment — when writing fails.
struct WriterRecordingOptions: Sendable {
    /// How often a fragment is cut: at the first video keyframe at or after this long since the
    /// last cut (the first cut after at most a second, so short recordings are readable early).
    /// Nil: no fragments (the movie header is written at the end, as without a recording).
    var fragmentInterval: CMTime?
}

/// What an input hands to its track's worker.
enum WriterItem {
    case sampleBuffer(CMSampleBuffer)
    case pixelBuffer(CVPixelBuffer, CMTime)
}

/// The writing machinery of one AVAssetWriter.
///
/// Appends are checked on the caller's thread, then queued to the input's track, whose serial
/// worker queue converts/encodes them and hands packets to the muxer (one lock around it). The
/// file header is written once every track knows its format (from its first sample) or has
/// finished without samples; packets produced before that wait in memory, which stays bounded
/// because inputs stop being ready when their queue is full or when they run more than
/// `interleaveWindow` ahead of an unfinished input (unless they expect real-time data).
final class WriterEngine: @unchecked Sendable {
    /// How far (in source time) an offline input may run ahead of the slowest unfinished one.
    static let interleaveWindow = CMTime(value: 1, timescale: 1)

    let container: WriterContainer
    let url: URL
    let muxer: Muxer
    private(set) var tracks: [WriterTrack] = []

    /// Guards the session, readiness bookkeeping and the failure.
    let lock = NSLock()
    /// Serializes muxer calls and the pre-header queue.
    private let muxLock = NSLock()
    private var headerWritten = false
    private var preHeader: [(WriterTrack, EncodedPacket)] = []

    private var sessionStartTime: CMTime?
    private var sessionEndTime: CMTime?
    /// Edit lists written over the muxer's at the end, by track index (a composition copied by
    /// passthrough: `ExportRun`).
    private var movieEdits: [Int: [MovieEdit]] = [:]
    private var stoppedError: (any Error)?
    private var isCancelled = false
    /// Called once with the first failure (on the thread that hit it).
    private let onFailure: @Sendable (any Error) -> Void

    /// Recording: fragments cut here and a file kept on failure (nil: an ordinary writer).
    let recording: WriterRecordingOptions?
    /// Recording: the source-free time (seconds, the muxer's decode time) at which the next
    /// fragment may be cut (muxLock).
    private var nextCut: Double?
    /// The file's size: bytes on disk plus media waiting in the open fragment (updated after each
    /// packet, read from any thread).
    private let sizeCounter = Atomic<Int64>(0)
    /// Complete fragments on disk (recording).
    private let fragmentCounter = Atomic<Int>(0)
    /// Whether a failure left a readable file (recording: at least one complete fragment).
    private let keptFileFlag = Atomic<Bool>(false)
    /// Video packets handed to the muxer and their bytes (a recording's size estimate).
    private let videoPacketCounter = Atomic<Int>(0)
    private let videoByteCounter = Atomic<Int64>(0)

    init(url: URL, container: WriterContainer, options: Muxer.Options, recording: WriterRecordingOptions? = nil,
         onFailure: @escaping @Sendable (any Error) -> Void) throws(MediaError) {
        self.url = url
        self.container = container
        self.onFailure = onFailure
        self.recording = recording
        var options = options
        if let recording {
            options.fragmentInterval = recording.fragmentInterval
            options.fragmentMode = .custom
            options.keepsFragmentsOnFailure = true
            options.fastStart = false
        }
        muxer = try Muxer(url: url, options: options)
    }

    /// The size of the file being written: what is on disk and what waits in the open fragment.
    var recordedFileSize: Int64 { sizeCounter.load(ordering: .relaxed) }
    /// The complete fragments on disk.
    var fragmentsWritten: Int { fragmentCounter.load(ordering: .relaxed) }
    /// Video packets handed to the muxer so far, and their bytes.
    var videoPacketsWritten: (count: Int, bytes: Int64) {
        (videoPacketCounter.load(ordering: .relaxed), videoByteCounter.load(ordering: .relaxed))
    }
    /// After a failure: whether the file was kept (cut back to its last complete fragment).
    var keptFileAfterFailure: Bool { keptFileFlag.load(ordering: .relaxed) }

    /// Creates the tracks (inputs in order).
    func attach(_ inputs: [AVAssetWriterInput]) {
        tracks = inputs.enumerated().map { WriterTrack(index: $0.offset, input: $0.element, engine: self) }
    }

    // MARK: Session

    var sessionStart: CMTime? { lock.withLock { sessionStartTime } }
    var sessionEnd: CMTime? { lock.withLock { sessionEndTime } }

    func startSession(at time: CMTime) -> Bool {
        lock.withLock {
            guard sessionStartTime == nil else { return false }
            sessionStartTime = time
            return true
        }
    }

    /// Sets the edit list track `index` gets when the file is finished (replacing the muxer's).
    func setMovieEdits(_ edits: [MovieEdit], forTrackAt index: Int) {
        lock.withLock { movieEdits[index] = edits }
    }

    func endSession(at time: CMTime) {
        lock.withLock { sessionEndTime = time }
    }

    // MARK: State

    /// The failure or cancellation that stopped writing; nil while writing goes on.
    var isStopped: Bool { lock.withLock { stoppedError != nil || isCancelled } }

    /// Records the first failure, stops every track, deletes the partial file (a recording: cuts
    /// it back to its last complete fragment and keeps it when there is one) and tells the writer.
    func fail(_ error: any Error) {
        let first: Bool = lock.withLock {
            guard stoppedError == nil, !isCancelled else { return false }
            stoppedError = error
            return true
        }
        guard first else { return }
        muxLock.withLock {
            preHeader.removeAll()
            if recording != nil {
                let kept = muxer.isFinished ? FileManager.default.fileExists(atPath: url.path) : muxer.abortKeepingFragments()
                keptFileFlag.store(kept, ordering: .relaxed)
                sizeCounter.store(kept ? muxer.bytesFlushed : 0, ordering: .relaxed)
            } else {
                muxer.abort()
            }
        }
        onFailure(error)
        readinessChanged()
    }

    /// Stops writing: waits for the workers, deletes the file.
    func cancel() {
        lock.withLock { isCancelled = true }
        for track in tracks { track.queue.sync {} }
        muxLock.withLock {
            preHeader.removeAll()
            // Even a file whose writing has just completed: the writer reports cancelled.
            muxer.abort(removingFinishedFile: true)
        }
        for track in tracks { track.releaseCodecs() }
    }

    // MARK: Readiness

    /// Whether `track` may take another sample now.
    func isReady(_ track: WriterTrack) -> Bool {
        lock.withLock {
            guard stoppedError == nil, !isCancelled, !track.markedFinished else { return false }
            guard track.pending < track.capacity else { return false }
            guard !track.config.realTime, let mine = track.appendedEnd else { return true }
            // Interleaving: not more than the window ahead of any unfinished input.
            for other in tracks where other !== track && !other.markedFinished {
                let theirs = other.appendedEnd ?? sessionStartTime ?? .negativeInfinity
                if theirs.isNegativeInfinity || CMTimeSubtract(mine, theirs) > WriterEngine.interleaveWindow { return false }
            }
            return true
        }
    }

    /// Wakes the inputs' media data requesters.
    func readinessChanged() {
        for track in tracks { track.input?.nudgeRequester() }
    }

    /// Queues `item` for `track` (the caller checked the input's state).
    func enqueue(_ item: WriterItem, to track: WriterTrack, end: CMTime) {
        lock.withLock {
            track.pending += 1
            if end.isNumeric, track.appendedEnd.map({ end > $0 }) ?? true { track.appendedEnd = end }
        }
        track.queue.async { [self] in
            defer {
                lock.withLock { track.pending -= 1 }
                readinessChanged()
            }
            guard !isStopped else { return }
            do {
                try track.process(item)
            } catch {
                fail(error)
            }
        }
        readinessChanged()
    }

    /// Marks `track` finished: its encoder is drained after the queued samples.
    func markFinished(_ track: WriterTrack) {
        let first: Bool = lock.withLock {
            guard !track.markedFinished else { return false }
            track.markedFinished = true
            return true
        }
        guard first else { return }
        track.queue.async { [self] in
            guard !isStopped else { return }
            do {
                try track.finishStream()
                try writeHeaderIfReady()
            } catch {
                fail(error)
            }
        }
        readinessChanged()
    }

    /// Finishes every track, writes the trailer and closes the file; nil on success.
    func finish() -> (any Error)? {
        for track in tracks { markFinished(track) }
        for track in tracks { track.queue.sync {} }
        if let error = lock.withLock({ stoppedError }) { return error }
        if lock.withLock({ isCancelled }) { return nil }
        do {
            try muxLock.withLock { () throws -> Void in
                if !headerWritten {
                    guard tracks.contains(where: { $0.streamIndex != nil || $0.isConfigured }) else {
                        throw WriterError.invalidMedia("No media data was appended to any input, so there is nothing to write.", url: url)
                    }
                    try writeHeaderLocked()
                }
                do {
                    // The movie ends at the session's end even where samples kept for decoding
                    // (or an audio packet crossing it) reach further: the edit lists stop there.
                    let end = lock.withLock { () -> CMTime? in
                        guard let start = sessionStartTime, let end = sessionEndTime, end.isNumeric, end > start else { return nil }
                        return CMTimeSubtract(end, start)
                    }
                    let edits = lock.withLock { movieEdits }
                    let byStream = Dictionary(uniqueKeysWithValues: tracks.compactMap { track in
                        track.streamIndex.flatMap { stream in edits[track.index].map { (stream, $0) } }
                    })
                    try muxer.finish(presentationEnd: end, edits: byStream)
                    sizeCounter.store(muxer.bytesFlushed, ordering: .relaxed)
                } catch let error as MediaError {
                    throw AVError.from(error, writingTo: url)
                }
            }
        } catch {
            fail(error)
            return error
        }
        for track in tracks { track.releaseCodecs() }
        return nil
    }

    // MARK: Packets

    /// Writes the header once every track is configured or finished without samples.
    func writeHeaderIfReady() throws {
        try muxLock.withLock { () throws -> Void in
            guard !headerWritten, !isStopped else { return }
            let ready = tracks.allSatisfy { $0.isConfigured || $0.finishedWithoutSamples }
            guard ready, tracks.contains(where: { $0.isConfigured }) else { return }
            try writeHeaderLocked()
        }
    }

    private func writeHeaderLocked() throws {
        do {
            for track in tracks where track.isConfigured {
                track.streamIndex = try track.addStream(to: muxer)
            }
            try muxer.start()
        } catch let error as MediaError {
            throw AVError.from(error, writingTo: url)
        }
        headerWritten = true
        let waiting = preHeader
        preHeader.removeAll()
        for (track, packet) in waiting { try writeLocked(packet, track: track) }
    }

    /// Hands one finished packet of `track` to the muxer (or to the pre-header queue).
    func write(_ packet: EncodedPacket, track: WriterTrack) throws {
        try muxLock.withLock { () throws -> Void in
            guard !isStopped else { return }
            if headerWritten {
                try writeLocked(packet, track: track)
            } else {
                preHeader.append((track, packet))
            }
        }
    }

    private func writeLocked(_ packet: EncodedPacket, track: WriterTrack) throws {
        guard let stream = track.streamIndex else { return }
        do {
            if recording?.fragmentInterval != nil { try cutFragmentIfDue(before: packet, track: track) }
            let bytes = Int64(packet.size)
            try muxer.write(packet, stream: stream)
            if track.config.mediaType == .video {
                videoPacketCounter.add(1, ordering: .relaxed)
                videoByteCounter.add(bytes, ordering: .relaxed)
            }
            sizeCounter.store(muxer.bytesFlushed + muxer.pendingBytes, ordering: .relaxed)
        } catch {
            throw AVError.from(error, writingTo: url)
        }
    }

    /// Recording: cuts the open fragment before `packet` when it is a video keyframe (any packet
    /// when the file has no video) at or after the time the next cut is due.
    private func cutFragmentIfDue(before packet: EncodedPacket, track: WriterTrack) throws(MediaError) {
        guard let interval = recording?.fragmentInterval?.seconds, interval > 0, let time = muxer.seconds(of: packet) else { return }
        let hasVideo = tracks.contains { $0.config.mediaType == .video && $0.streamIndex != nil }
        guard !hasVideo || (track.config.mediaType == .video && packet.isKeyframe) else { return }
        guard let due = nextCut else {
            // The first fragment closes after at most a second.
            nextCut = time + min(interval, 1)
            return
        }
        guard time >= due - 1e-6 else { return }
        try muxer.cutFragment()
        fragmentCounter.store(muxer.fragmentCount, ordering: .relaxed)
        nextCut = time + interval
    }
}
