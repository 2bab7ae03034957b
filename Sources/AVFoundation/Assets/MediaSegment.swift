// MediaSegment: the media-source model under AVAsset/AVAssetTrack. A track is a list of
// segments in its timeline (target time), each either empty or a range of one stream of a
// media source (source time) mapped onto the target, possibly scaled. A URL asset's track is
// one segment; a composition's (later) is many, from many files.
import CoreMedia
import Foundation
internal import MediaEngine

/// One stream of a media source: what a segment's samples come from. A media source is one
/// file today (its `URLAssetEngine`, shared with the asset that opened it); a capture device
/// will be another.
///
/// Source time is the stream's presentation timeline as the engine reads it: for a file, the
/// timeline of the track of its `AVURLAsset` (FFmpeg applies the container's edit list while
/// demuxing, so an edited track's times are already its asset's).
struct SourceTrack: @unchecked Sendable {
    /// The media source (one file).
    let engine: URLAssetEngine
    /// The stream of it the segment reads.
    let stream: StreamInfo

    var url: URL { engine.url }
    var streamIndex: Int { stream.index }

    /// Identifies the stream across segments: segments of one stream share a reader or seeker.
    struct Key: Hashable {
        var url: URL
        var streamIndex: Int
    }
    var key: Key { Key(url: engine.url, streamIndex: stream.index) }

    /// The stream's edit list as time mappings, or nil when the file gives none (or an
    /// unusable one). A final open-ended edit lasts as long as the demuxer says the track does.
    func editListMappings() -> [CMTimeMapping]? {
        guard let list = (try? engine.loadEditLists(DemuxerCancellation()))?[stream.trackID] else { return nil }
        return list.timeMappings(openEndedDuration: stream.duration.isNumeric ? stream.duration : nil)
    }

    /// Where an edited stream's presentation ends in its asset's timeline: the end of the edit
    /// list's last segment that presents media (the mov demuxer still returns the samples after
    /// it); +infinity for streams without an edit list.
    var presentationEnd: CMTime {
        guard let presenting = editListMappings()?.filter({ !$0.isEmpty }), let first = presenting.first,
              let end = presenting.map(\.target.end).max(), end > first.target.start else { return .positiveInfinity }
        return end
    }
}

/// One segment of a track: an empty stretch of its timeline, or a range of a source stream
/// mapped onto it. Mappings may be scaled (a source range played over a longer or shorter
/// target range); source and target durations are never zero.
struct MediaSegment: @unchecked Sendable {
    /// The stream the media comes from; nil for an empty segment.
    let source: SourceTrack?
    /// Source range → target range (an empty segment's source is invalid).
    let timeMapping: CMTimeMapping

    /// A segment playing `sourceRange` of `source` over `targetRange` (scaled when the durations differ).
    init(source: SourceTrack, sourceRange: CMTimeRange, targetRange: CMTimeRange) {
        self.source = source
        timeMapping = CMTimeMapping(source: sourceRange, target: targetRange)
    }

    /// An empty segment over `targetRange`.
    init(emptyTargetRange targetRange: CMTimeRange) {
        source = nil
        timeMapping = CMTimeMappingMakeEmpty(target: targetRange)
    }

    /// The one segment of a file's track: the stream's whole timeline, unmapped. Readers of it
    /// read the stream directly (no per-sample work), with the stream's own limits (edit list).
    static func wholeStream(_ source: SourceTrack) -> MediaSegment {
        let all = CMTimeRange(start: .zero, duration: .positiveInfinity)
        return MediaSegment(source: source, sourceRange: all, targetRange: all)
    }

    var isEmpty: Bool { source == nil }
    var target: CMTimeRange { timeMapping.target }

    /// Whether the segment is a whole stream with target time = source time.
    var isWholeStream: Bool {
        source != nil && timeMapping.source == timeMapping.target && timeMapping.target.duration.isPositiveInfinity
    }

    /// Whether source and target durations differ (the media plays faster or slower).
    var isScaled: Bool { timeMapping.source.duration != timeMapping.target.duration }

    /// `t` (source time) in target time.
    func targetTime(_ t: CMTime) -> CMTime {
        CMTimeMapTimeFromRangeToRange(t, fromRange: timeMapping.source, toRange: timeMapping.target)
    }

    /// `t` (target time) in source time.
    func sourceTime(_ t: CMTime) -> CMTime {
        CMTimeMapTimeFromRangeToRange(t, fromRange: timeMapping.target, toRange: timeMapping.source)
    }

    /// A source duration in target time.
    func targetDuration(_ d: CMTime) -> CMTime {
        CMTimeMapDurationFromRangeToRange(d, fromRange: timeMapping.source, toRange: timeMapping.target)
    }

    /// A target duration in source time.
    func sourceDuration(_ d: CMTime) -> CMTime {
        CMTimeMapDurationFromRangeToRange(d, fromRange: timeMapping.target, toRange: timeMapping.source)
    }

    /// The part of `range` (target time) this segment covers, nil when none.
    func overlap(with range: CMTimeRange) -> CMTimeRange? {
        let start = max(range.start, target.start)
        let end = min(range.end, target.end)
        return end > start ? CMTimeRange(start: start, end: end) : nil
    }

    /// `range` (target time, inside the segment) in source time.
    func sourceRange(for range: CMTimeRange) -> CMTimeRange {
        if isWholeStream { return range }
        return CMTimeRange(start: sourceTime(range.start), end: sourceTime(range.end))
    }

    /// Why `segments` cannot make a track (they must be in target order, not overlapping, with
    /// numeric non-empty ranges, and at least one must present media); nil when they can.
    static func problem(in segments: [MediaSegment]) -> String? {
        guard segments.contains(where: { !$0.isEmpty }) else { return "a track needs at least one segment with media" }
        var end = CMTime.negativeInfinity
        for segment in segments {
            let t = segment.target
            guard t.start.isNumeric, t.duration.isNumeric, t.duration > .zero else {
                return "a segment's target range must be numeric and not empty"
            }
            guard t.start >= end else { return "segments must be in order and must not overlap" }
            if !segment.isEmpty {
                let s = segment.timeMapping.source
                guard s.start.isNumeric, s.duration.isNumeric, s.duration > .zero else {
                    return "a segment's source range must be numeric and not empty"
                }
            }
            end = t.end
        }
        return nil
    }
}

extension MediaSegment {
    /// A segment playing `sourceRange` of a file asset's track (its timeline) over `targetRange`.
    init(fileTrack track: AVAssetTrack, sourceRange: CMTimeRange, targetRange: CMTimeRange) {
        precondition(!track.isMadeOfSegments, "a segment's source is a file track")
        self.init(source: SourceTrack(engine: track.engine, stream: track.stream), sourceRange: sourceRange, targetRange: targetRange)
    }
}
