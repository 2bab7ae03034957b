// WriterEngine: what an AVAssetWriter runs between startWriting and the end of writing — the
// muxer, one WriterTrack (worker queue + encoder) per input, the session, interleaving and
// back-pressure, and the first failure.
import CoreMedia
import Dispatch
import Foundation
internal import MediaEngine

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

    init(url: URL, container: WriterContainer, options: Muxer.Options, onFailure: @escaping @Sendable (any Error) -> Void)
        throws(MediaError) {
        self.url = url
        self.container = container
        self.onFailure = onFailure
        muxer = try Muxer(url: url, options: options)
    }

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

    /// Records the first failure, stops every track, deletes the partial file and tells the writer.
    func fail(_ error: any Error) {
        let first: Bool = lock.withLock {
            guard stoppedError == nil, !isCancelled else { return false }
            stoppedError = error
            return true
        }
        guard first else { return }
        muxLock.withLock {
            preHeader.removeAll()
            muxer.abort()
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
            try muxer.write(packet, stream: stream)
        } catch {
            throw AVError.from(error, writingTo: url)
        }
    }
}
