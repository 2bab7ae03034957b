// CompositionEdits: the edits of a composition track's timeline as pure functions on its segments —
// insert (pushing later media back), insert empty, remove (closing the gap) and scale (retiming).
import CoreMedia
import Foundation

/// A composition track's timeline is a list of segments laid end to end from zero (Apple's rule
/// for `AVMutableCompositionTrack.segments`): media segments, and empty segments filling every
/// gap. Each edit returns the new list; adjacent empty segments are merged and nothing is left
/// with a zero duration. Times are exact (CMTime arithmetic; scaling by rational ratios).
enum CompositionEdits {
    /// Where the timeline ends (zero for no segments).
    static func end(_ segments: [MediaSegment]) -> CMTime { segments.last?.target.end ?? .zero }

    /// `segments` with the one strictly containing `t` (target time) cut in two at `t`.
    static func split(_ segments: [MediaSegment], at t: CMTime) -> [MediaSegment] {
        guard let i = segments.firstIndex(where: { $0.target.start < t && t < $0.target.end }) else { return segments }
        let segment = segments[i]
        var out = segments
        out.replaceSubrange(i...i, with: [segment.part(CMTimeRange(start: segment.target.start, end: t)),
                                          segment.part(CMTimeRange(start: t, end: segment.target.end))])
        return out
    }

    /// Inserts `block` (segments laid end to end over `[t, t + duration)`) at `t`: what was at
    /// `t` and later moves back by `duration`; inserting past the end leaves an empty segment
    /// from the end to `t`.
    static func insert(_ block: [MediaSegment], at t: CMTime, duration: CMTime, into segments: [MediaSegment]) -> [MediaSegment] {
        guard duration > .zero else { return segments }
        var out = split(segments, at: t)
        let end = end(out)
        if t > end { out.append(MediaSegment(emptyTargetRange: CMTimeRange(start: end, end: t))) }
        let at = out.firstIndex { $0.target.start >= t } ?? out.endIndex
        for i in at..<out.endIndex { out[i] = out[i].shifted(by: duration) }
        out.insert(contentsOf: block, at: at)
        return normalised(out)
    }

    /// Inserts an empty segment over `range`, pushing later media back.
    static func insertEmpty(_ range: CMTimeRange, into segments: [MediaSegment]) -> [MediaSegment] {
        guard range.duration > .zero else { return segments }
        return insert([MediaSegment(emptyTargetRange: range)], at: range.start, duration: range.duration, into: segments)
    }

    /// Removes `range`: what was after it moves earlier by its duration (the gap closes).
    static func remove(_ range: CMTimeRange, from segments: [MediaSegment]) -> [MediaSegment] {
        let start = max(range.start, .zero), stop = min(range.end, end(segments))
        guard stop > start else { return segments }
        let cut = split(split(segments, at: start), at: stop)
        let removed = stop - start
        let kept = cut.compactMap { segment -> MediaSegment? in
            if segment.target.start >= start && segment.target.end <= stop { return nil }
            return segment.target.start >= stop ? segment.shifted(by: CMTime.zero - removed) : segment
        }
        return normalised(kept)
    }

    /// Retimes `range` to last `duration`: the segments in it play faster or slower (their
    /// target ranges scale by `duration / range.duration`, their source ranges stay), later
    /// segments move by the difference.
    static func scale(_ range: CMTimeRange, toDuration duration: CMTime, in segments: [MediaSegment]) -> [MediaSegment] {
        guard range.duration > .zero, duration > .zero, range.start < end(segments) else { return segments }
        let to = CMTimeRange(start: range.start, duration: duration)
        let shift = duration - range.duration
        func map(_ x: CMTime) -> CMTime {
            if x <= range.start { return x }
            if x >= range.end { return x + shift }
            return CMTimeMapTimeFromRangeToRange(x, fromRange: range, toRange: to)
        }
        let cut = split(split(segments, at: range.start), at: range.end)
        return normalised(cut.map { $0.retimed(to: CMTimeRange(start: map($0.target.start), end: map($0.target.end))) })
    }

    /// Merges neighbouring empty segments and drops segments of no duration.
    static func normalised(_ segments: [MediaSegment]) -> [MediaSegment] {
        var out: [MediaSegment] = []
        for segment in segments where segment.target.duration > .zero {
            if segment.isEmpty, let last = out.last, last.isEmpty {
                out[out.count - 1] = MediaSegment(emptyTargetRange: CMTimeRange(start: last.target.start, end: segment.target.end))
            } else {
                out.append(segment)
            }
        }
        return out
    }

    /// The segments of a track presenting `range` of its timeline, moved to start at `t`: a file
    /// track gives one segment of its stream; a track made of segments gives the parts of its
    /// segments in the range (empty where it shows nothing), so compositions of compositions
    /// refer to the files underneath.
    static func block(of track: AVAssetTrack, range: CMTimeRange, at t: CMTime) -> [MediaSegment] {
        let shift = t - range.start
        if !track.isMadeOfSegments, let source = track.formatSource {
            return [MediaSegment(source: source, sourceRange: range, targetRange: CMTimeRange(start: t, duration: range.duration))]
        }
        var out: [MediaSegment] = []
        var cursor = range.start
        for segment in track.mediaSegments {
            guard let overlap = segment.overlap(with: range) else { continue }
            if overlap.start > cursor {
                out.append(MediaSegment(emptyTargetRange: CMTimeRange(start: cursor + shift, end: overlap.start + shift)))
            }
            out.append(segment.part(overlap).shifted(by: shift))
            cursor = overlap.end
        }
        if range.end > cursor { out.append(MediaSegment(emptyTargetRange: CMTimeRange(start: cursor + shift, end: range.end + shift))) }
        return normalised(out)
    }
}

extension MediaSegment {
    /// The part of the segment over `range` (target time, inside the segment).
    func part(_ range: CMTimeRange) -> MediaSegment {
        guard let source, range != target else { return source == nil ? MediaSegment(emptyTargetRange: range) : self }
        return MediaSegment(source: source, sourceRange: sourceRange(for: range), targetRange: range)
    }

    /// The segment moved by `offset` in target time.
    func shifted(by offset: CMTime) -> MediaSegment {
        retimed(to: CMTimeRange(start: target.start + offset, duration: target.duration))
    }

    /// The segment presenting the same source over `range`.
    func retimed(to range: CMTimeRange) -> MediaSegment {
        guard let source else { return MediaSegment(emptyTargetRange: range) }
        return MediaSegment(source: source, sourceRange: timeMapping.source, targetRange: range)
    }
}

// MARK: Checks and errors

extension CompositionEdits {
    /// Whether `range` can be edited: a numeric, non-negative start and a positive numeric duration.
    static func isEditable(_ range: CMTimeRange) -> Bool {
        range.isValid && range.start.isNumeric && range.start >= .zero && range.duration.isNumeric && range.duration > .zero
    }

    /// The segments inserting `range` of `track` at `t` adds to a track of `mediaType` (none for
    /// an empty range), or the error Apple's insertion gives: the track is of another media type,
    /// has no media, cannot be loaded, or the range is not inside its media.
    static func checkedBlock(of track: AVAssetTrack, range: CMTimeRange, at t: CMTime, mediaType: AVMediaType) throws -> [MediaSegment] {
        guard track.mediaType == mediaType else { throw incompatibleMediaType(track.mediaType, into: mediaType) }
        guard t.isNumeric, t >= .zero else {
            throw failure(.unknown, "The insertion time (\(t.seconds) s) must be a numeric time at or after zero.")
        }
        guard range.isValid, range.start.isNumeric, range.duration.isNumeric, range.start >= .zero, range.duration >= .zero else {
            throw failure(.invalidCompositionTrackSegmentSourceStartTime,
                          "The time range to insert must have a numeric start at or after zero and a numeric duration.")
        }
        guard range.duration > .zero else { return [] }
        let media = try track.loadedTimeRange()
        guard track.formatSource != nil, media.duration > .zero else {
            throw failure(.noSourceTrack, "Track \(track.trackID) has no media to insert.")
        }
        // The media the source offers: its track's, up to its asset's end (a track a little
        // shorter than its asset still gives the asset's whole range, the rest showing nothing).
        let limit = max(media.end, (try? track.asset?.loadedDuration()).flatMap { $0.isNumeric ? $0 : nil } ?? media.end)
        guard range.start < limit, range.end <= limit else {
            throw failure(.invalidCompositionTrackSegmentSourceDuration,
                          "The time range \(range.start.seconds)–\(range.end.seconds) s is not inside the media of track \(track.trackID) "
                              + "(0–\(limit.seconds) s).")
        }
        return block(of: track, range: range, at: t)
    }

    static func incompatibleMediaType(_ type: AVMediaType, into mediaType: AVMediaType) -> AVError {
        failure(.incompatibleAsset, "A \(type.spokenName) track cannot be inserted into a \(mediaType.spokenName) composition track.")
    }

    static func segmentError(_ code: AVError.Code, _ index: Int, _ problem: String) -> AVError {
        failure(code, "Segment \(index) \(problem).")
    }

    static func failure(_ code: AVError.Code, _ reason: String) -> AVError {
        AVError(code, userInfo: [NSLocalizedDescriptionKey: "Operation Stopped", NSLocalizedFailureReasonErrorKey: reason])
    }

    /// An error's failure reason (else its description), for messages.
    static func reason(of error: any Error) -> String {
        (error as? AVError)?.userInfo[NSLocalizedFailureReasonErrorKey] as? String ?? "\(error)"
    }
}
