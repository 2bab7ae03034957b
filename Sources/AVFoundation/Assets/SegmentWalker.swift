// SegmentWalker: the one walk over a track's segments, shared by every consumer of a track made
// of segments — the video and passthrough readers (and through them the player, export and the
// compositor), the audio reader (and the mixer) and the image generator: which source range of
// which stream fills each part of the track, and one stage per source stream, opened on first
// need and repositioned for every piece that stream fills.
import CoreMedia
import Foundation
internal import MediaEngine
import Synchronization

/// A stage that reads one source stream in source time: `ReaderVideoSource`,
/// `ReaderPassthroughSource`, `AudioStreamReader`.
///
/// Seek = reposition + flush, for every stage alike: `reposition(to:)` drops what the stage has
/// decoded, converted or buffered and positions it to deliver `range` (source time) next. A
/// stage that ran to its range's end, or was never read, is repositioned the same way; a stage
/// is never reopened to move. Between reads a stage holds its state (a paused player keeps its
/// decoders and their queues).
protocol SegmentStage: AnyObject {
    /// Positions the stage on `range` (source time), dropping what it holds.
    func reposition(to range: CMTimeRange) throws
    /// Stops reading and frees what the stage holds; it is not used again.
    func cancel()
}

/// A stretch of a track (target time) that one media segment fills.
struct SegmentPiece {
    /// The segment (never empty).
    let segment: MediaSegment
    /// The part of the segment's target range the walk covers.
    let target: CMTimeRange
    /// The stream the piece's media comes from.
    var sourceTrack: SourceTrack { segment.source! }
    /// The source range mapping onto `target`.
    var source: CMTimeRange { segment.sourceRange(for: target) }
}

/// Where the media shown at one target time comes from (the image generator's lookup).
struct SegmentLookup {
    let segment: MediaSegment
    /// The source time wanted and how far before and after it (source time, inside the
    /// segment) a frame may be.
    let time: CMTime
    let toleranceBefore: CMTime
    let toleranceAfter: CMTime
}

/// Walks a track's segments: plans the pieces a set of target ranges covers, maps single times
/// with tolerances, and keeps one stage per source stream (and variant: an audio stream decoded
/// at two rates has two), opened on first need and reused — repositioned — for every later piece
/// of that stream. Consecutive pieces of one stream (an edit that cuts a clip and plays on)
/// reposition the same demuxer and decoder; nothing is reopened on a seek.
///
/// Cancellation: every stage is opened with the walker's `cancellation` flag; `cancel()` raises
/// it from any thread and stops reads that block. A walk planned after a cancel drops the
/// cancelled stages and opens fresh ones. Everything else belongs to one thread at a time.
final class SegmentWalker<Stage: AnyObject> {
    private struct StageKey: Hashable {
        var source: SourceTrack.Key
        var variant: AnyHashable
    }

    let segments: [MediaSegment]
    private let open: (SourceTrack, AnyHashable, DemuxerCancellation) throws -> Stage
    /// The flag the current stages read with (replaced once raised, when a new walk starts).
    private let cancellation = Mutex(DemuxerCancellation())
    private var stages: [StageKey: Stage] = [:]

    /// A walker over `segments` opening stages with `open` (the source stream, the variant asked
    /// for, the cancellation flag the stage must read with).
    init(segments: [MediaSegment], open: @escaping (SourceTrack, AnyHashable, DemuxerCancellation) throws -> Stage) {
        self.segments = segments
        self.open = open
    }

    /// Whether the track is one stream's whole timeline, read as the stream itself.
    var isWholeStream: Bool { segments.count == 1 && segments[0].isWholeStream }

    /// The pieces covering `ranges` (target time, in increasing order): for each range, the
    /// overlap of every media segment it touches, in track order; empty segments give none.
    /// Planning starts a new walk (`beginWalk()`).
    func pieces(covering ranges: [CMTimeRange]) -> [SegmentPiece] {
        beginWalk()
        return ranges.flatMap { range in
            segments.compactMap { segment in
                guard !segment.isEmpty, let overlap = segment.overlap(with: range) else { return nil }
                return SegmentPiece(segment: segment, target: overlap)
            }
        }
    }

    /// The stage reading `source` (as `variant`), opened on first need.
    /// After a cancel, a stage opened before the next walk reads with the raised flag (it stops
    /// at once): a cancelled walk stays cancelled.
    func stage(for source: SourceTrack, variant: AnyHashable = 0) throws -> Stage {
        let key = StageKey(source: source.key, variant: variant)
        if let stage = stages[key] { return stage }
        let stage = try open(source, variant, cancellation.withLock { $0 })
        stages[key] = stage
        return stage
    }

    /// Stops every stage's reads, from any thread (they end or fail as cancelled).
    func cancel() {
        cancellation.withLock { $0.cancel() }
    }

    /// Starts a new walk: after a cancel, the cancelled stages are dropped and a fresh flag made
    /// for new ones.
    func beginWalk() {
        let cancelled = cancellation.withLock { flag in
            guard flag.isCancelled else { return false }
            flag = DemuxerCancellation()
            return true
        }
        if cancelled { stages = [:] }
    }

    // MARK: Single times

    /// The segment showing `time` and the source time wanted there, tolerances included (kept
    /// inside the segment). A time in an empty segment (or outside every segment) is served by
    /// the nearest media segment edge the tolerances reach; nil when none does.
    func lookup(_ time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) -> SegmentLookup? {
        guard time.isNumeric else { return nil }
        let media = segments.filter { !$0.isEmpty }
        if let segment = media.first(where: { $0.target.containsTime(time) }) {
            let source = segment.timeMapping.source
            let at = segment.sourceTime(time)
            // In source time, and never reaching outside the segment.
            func limited(_ tolerance: CMTime, _ bound: CMTime) -> CMTime {
                max(.zero, tolerance.isNumeric ? min(segment.sourceDuration(tolerance), bound) : bound)
            }
            return SegmentLookup(segment: segment, time: at, toleranceBefore: limited(toleranceBefore, at - source.start),
                                 toleranceAfter: limited(toleranceAfter, source.end - at))
        }
        // The nearest edge within tolerance: the end of a segment before, the start of one after.
        // (A time in an empty segment is not the end of the segment before it: that takes a tolerance.)
        let inGap = segments.contains { $0.isEmpty && $0.target.containsTime(time) }
        let earlier = media.last {
            $0.target.end <= time && (time - $0.target.end < toleranceBefore || (!inGap && time == $0.target.end))
        }
        let later = media.first { $0.target.start > time && $0.target.start - time <= toleranceAfter }
        var pick = later
        if let earlier, later.map({ time - earlier.target.end <= $0.target.start - time }) ?? true { pick = earlier }
        guard let segment = pick else { return nil }
        let source = segment.timeMapping.source
        if segment.target.end <= time {
            // The last frame the segment shows: the one presenting just before its end.
            let last = source.end - CMTime(value: 1, timescale: max(source.end.timescale, 1_000_000))
            return SegmentLookup(segment: segment, time: last, toleranceBefore: .zero, toleranceAfter: .zero)
        }
        return SegmentLookup(segment: segment, time: source.start, toleranceBefore: .zero, toleranceAfter: .zero)
    }
}

extension SegmentWalker where Stage: SegmentStage {
    /// The stage for `source` (as `variant`) positioned on `range` (source time): the stream's
    /// stage repositioned, or a new one for a stream not read before.
    func positionedStage(for source: SourceTrack, on range: CMTimeRange, variant: AnyHashable = 0) throws -> Stage {
        let stage = try stage(for: source, variant: variant)
        try stage.reposition(to: range)
        return stage
    }

    /// Stops and frees every stage (on the walking thread); a later walk opens new ones.
    func close() {
        cancel()
        for stage in stages.values { stage.cancel() }
        stages = [:]
    }
}
