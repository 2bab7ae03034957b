// ItemFeeder: the pipeline's front half for one playing item — the reader's sources (segment
// walker, decoders, compositor stage, audio mixer) for its video and sound, each pulled on a
// thread of its own into its renderer's bounded queue, repositioned on a seek.
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
import Synchronization

/// Feeds one player item's media into the player's renderers.
///
/// Two threads (video, sound), each looping: reposition its source when a seek asked for it
/// (`ReaderSampleSource.reset`: the demuxer seeks, the decoder flushes — seek = reposition +
/// flush), read the next sample buffer (decoding runs here, ahead of presentation), wait until
/// the renderer's queue has room, enqueue. A buffer read across a seek or a flush is dropped
/// (generations). At the end of the range the thread waits for the next seek. Errors end the
/// thread's media and are reported once.
final class ItemFeeder: Sendable {
    enum Media: Sendable { case video, audio }

    /// What a feeding thread reports to the engine.
    struct Progress: Sendable {
        var seekID: Int
        var media: Media
        /// The end (presentation time + duration) of the last buffer queued.
        var queuedUntil: CMTime
        var ended: Bool
        var failure: (any Error)?
    }

    private struct Shared {
        var seekID = 0
        var seekTime = CMTime.zero
        var endTime = CMTime.positiveInfinity
        var stopped = false
    }

    private let shared = Mutex(Shared())
    private let wakeVideo = DispatchSemaphore(value: 0)
    private let wakeAudio = DispatchSemaphore(value: 0)
    private let report: @Sendable (Progress) -> Void
    private let threads = Atomic<Int>(0)

    /// Starts feeding from `start` to `end`. `video`/`audio`: the sources (nil: no such media) and
    /// where their buffers go; `report` is called on the feeding threads.
    init(start: CMTime, end: CMTime,
         video: (source: any ReaderSampleSource, sink: Sink)?,
         audio: (source: any ReaderSampleSource, sink: Sink)?,
         report: @escaping @Sendable (Progress) -> Void) {
        self.report = report
        shared.withLock { s in
            s.seekTime = start
            s.endTime = end
        }
        if let video { launch(.video, SourceBox(source: video.source), video.sink, wakeVideo) }
        if let audio { launch(.audio, SourceBox(source: audio.source), audio.sink, wakeAudio) }
    }

    /// Where a feeding thread's buffers go.
    struct Sink: Sendable {
        let queue: RendererQueue
        /// Enqueues a buffer if the queue is still in `generation`.
        let enqueue: @Sendable (CMSampleBuffer, Int) -> Bool
    }

    /// A reader source handed to its one feeding thread. @unchecked Sendable: after the hand-over only that thread uses it.
    private struct SourceBox: @unchecked Sendable {
        let source: any ReaderSampleSource
    }

    /// Repositions both media at `time` (after the engine flushed the renderers); returns the seek's id.
    @discardableResult
    func seek(to time: CMTime, end: CMTime) -> Int {
        let id = shared.withLock { s -> Int in
            s.seekID += 1
            s.seekTime = time
            s.endTime = end
            return s.seekID
        }
        wakeVideo.signal()
        wakeAudio.signal()
        return id
    }

    var currentSeekID: Int { shared.withLock { $0.seekID } }

    func stop() {
        shared.withLock { $0.stopped = true }
        wakeVideo.signal()
        wakeAudio.signal()
    }

    private func launch(_ media: Media, _ box: SourceBox, _ sink: Sink, _ wake: DispatchSemaphore) {
        let thread = Thread { [self] in
            run(media, box.source, sink, wake)
        }
        thread.name = media == .video ? "AVPlayer.video" : "AVPlayer.audio"
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    private func run(_ media: Media, _ source: any ReaderSampleSource, _ sink: Sink, _ wake: DispatchSemaphore) {
        var handledSeek = -1
        var started = false
        var ended = false
        var queueGeneration = 0
        defer { source.cancel() }
        while true {
            let (seekID, seekTime, endTime, stopped) = shared.withLock { ($0.seekID, $0.seekTime, $0.endTime, $0.stopped) }
            if stopped { return }
            if seekID != handledSeek {
                handledSeek = seekID
                ended = false
                queueGeneration = sink.queue.generation
                let range = CMTimeRange(start: seekTime, end: endTime.isNumeric ? max(endTime, seekTime) : .positiveInfinity)
                do {
                    if started { try source.reset(timeRanges: [range]) } else { try source.start(timeRange: range) }
                    started = true
                } catch {
                    ended = true
                    report(Progress(seekID: seekID, media: media, queuedUntil: seekTime, ended: true, failure: error))
                    continue
                }
            }
            if ended {
                _ = wake.wait(timeout: .now() + 0.2)
                continue
            }
            let buffer: CMSampleBuffer?
            do {
                buffer = try source.next()
            } catch {
                ended = true
                report(Progress(seekID: seekID, media: media, queuedUntil: .invalid, ended: true, failure: error))
                continue
            }
            guard shared.withLock({ $0.seekID == seekID && !$0.stopped }) else { continue }
            guard let buffer else {
                ended = true
                report(Progress(seekID: seekID, media: media, queuedUntil: .invalid, ended: true, failure: nil))
                continue
            }
            // Wait for room (a flush or a seek ends the wait: the buffer is then dropped).
            var room = false
            while !room {
                room = sink.queue.waitUntilReady(generation: queueGeneration, timeout: 0.2)
                if !room {
                    let current = shared.withLock { $0.seekID == seekID && !$0.stopped } && sink.queue.generation == queueGeneration
                    if !current { break }
                }
            }
            guard room, sink.enqueue(buffer, queueGeneration) else { continue }
            var end = buffer.presentationTimeStamp
            if buffer.duration.isNumeric { end = end + buffer.duration }
            report(Progress(seekID: seekID, media: media, queuedUntil: end, ended: false, failure: nil))
        }
    }
}
