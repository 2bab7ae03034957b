// PassthroughLayout: how a track made of segments (a composition track) is copied by passthrough —
// its pieces' stored samples laid one after another on the written track's media timeline, and the
// edit list (empty edits for gaps, one media edit per piece) that presents them at their times.
import CoreMedia
import Foundation
internal import MediaEngine

/// The media timeline of one track made of segments, copied without decoding.
///
/// The samples a piece needs (from a keyframe before its start, and the reordered frames around
/// its end) cannot go at the piece's own times: they would overlap the neighbouring pieces'. So
/// each piece's media is placed after the previous piece's (its "placed" time, on the written
/// track's timescale), far enough that the decode and presentation times of the two never meet —
/// bounds taken from the source's packet index with a margin — and the edit list maps each
/// target range back to its placed media. The samples are read, byte for byte, through an asset
/// made of the placed segments and the ordinary reader (`AVAsset(segmentedTracks:)`).
struct PassthroughLayout {
    struct Piece {
        /// Where the piece shows in the export (composition time).
        var target: CMTimeRange
        /// Where its first shown instant is on the laid-out timeline the reader gives.
        var placed: CMTime
        /// Where the samples read for it may start on that timeline (decode time).
        var windowStart: CMTime
    }

    let trackID: CMPersistentTrackID
    /// The pieces in target order (none: the track shows nothing in the range).
    let pieces: [Piece]
    /// The segments of the placed media (source ranges at their placed times), read in order.
    let placedSegments: [MediaSegment]
    /// The empty stretches the track ends with inside the range (kept as a last empty edit).
    let trailingEnd: CMTime
    /// The start of the exported range (movie time zero).
    let rangeStart: CMTime

    /// The layout of `track`'s segments within `range`, on media timescale `timescale`.
    init(track: AVAssetTrack, range: CMTimeRange, timescale: CMTimeScale) throws {
        trackID = track.trackID
        rangeStart = range.start
        var pieces: [Piece] = [], placedSegments: [MediaSegment] = []
        var latest = CMTime.zero
        var trailing = range.start
        for segment in track.mediaSegments {
            guard let overlap = segment.overlap(with: range) else { continue }
            trailing = overlap.end
            guard let source = segment.source else { continue }
            let sourceRange = segment.sourceRange(for: overlap)
            let (lead, tail) = try PassthroughLayout.bounds(of: source, sourceRange)
            let placed = PassthroughLayout.ceil(latest + lead, timescale)
            pieces.append(Piece(target: overlap, placed: placed, windowStart: placed - lead))
            placedSegments.append(MediaSegment(source: source, sourceRange: sourceRange,
                                               targetRange: CMTimeRange(start: placed, duration: sourceRange.duration)))
            latest = placed + sourceRange.duration + tail
        }
        self.pieces = pieces
        self.placedSegments = placedSegments
        trailingEnd = trailing
    }

    /// How far before a source range's start the samples read for it may begin (decode times,
    /// from the keyframe before the one the start needs, and two packets more for audio priming),
    /// and how far after its end they may reach (presentation or decode end of the packets up to
    /// four after the last one shown inside it).
    static func bounds(of source: SourceTrack, _ range: CMTimeRange) throws -> (lead: CMTime, tail: CMTime) {
        let margin = CMTime(value: 1, timescale: 1)
        guard let index = try source.engine.loadIndexes(DemuxerCancellation())[source.streamIndex], index.count > 0 else {
            return (margin, margin)
        }
        let entries = index.entries
        let firstShown = index.decodeIndex(containing: range.start)
            ?? index.decodeIndex(forPresentationIndex: range.start < index.presentationTimeRange.start ? 0 : index.count - 1)
        func keyframe(atOrBefore i: Int) -> Int {
            var j = i
            while j > 0, !entries[j].isKeyframe { j -= 1 }
            return j
        }
        let needed = keyframe(atOrBefore: firstShown)
        let k = max(0, (needed > 0 ? keyframe(atOrBefore: needed - 1) : 0) - 2)
        var lastShown = firstShown
        for i in entries.indices where index.presentationTime(ofDecodeIndex: i) < range.end { lastShown = max(lastShown, i) }
        let last = min(entries.count - 1, lastShown + 4)
        var latest = range.end
        for i in k...last {
            let duration = index.duration(ofDecodeIndex: i)
            let step = duration.isNumeric && duration > .zero ? duration : .zero
            latest = max(latest, index.presentationTime(ofDecodeIndex: i) + step, index.decodeTime(ofDecodeIndex: i) + step)
        }
        let earliest = min(index.decodeTime(ofDecodeIndex: k), index.presentationTime(ofDecodeIndex: k))
        return (max(.zero, range.start - earliest), latest - range.end)
    }

    /// `t` rounded up to a whole number of `1/timescale` units.
    static func ceil(_ t: CMTime, _ timescale: CMTimeScale) -> CMTime {
        CMTimeConvertScale(t, timescale: max(1, timescale), method: .roundTowardPositiveInfinity)
    }

    /// The track's edit list: from movie time zero, an empty edit for every gap before a piece,
    /// one media edit per piece (its target duration, from where its media went), and an empty
    /// edit for empty segments the track ends with. `shifts` are the compactor's (how much
    /// earlier each piece's samples were written than laid out); `origin` is the time of the
    /// first sample written (media time zero in the file).
    func edits(shifts: [CMTime], origin: CMTime) -> [MovieEdit] {
        var edits: [MovieEdit] = []
        var cursor = rangeStart
        for (piece, shift) in zip(pieces, shifts) {
            if piece.target.start > cursor { edits.append(MovieEdit(duration: piece.target.start - cursor, mediaStart: nil)) }
            edits.append(MovieEdit(duration: piece.target.duration, mediaStart: piece.placed - shift - origin))
            cursor = piece.target.end
        }
        if trailingEnd > cursor { edits.append(MovieEdit(duration: trailingEnd - cursor, mediaStart: nil)) }
        return edits
    }
}

/// Closes the room the layout leaves between pieces as their samples go by: each piece's samples
/// are moved earlier so that its first decode time follows the end of the previous piece's
/// samples (decode and presentation: the media is one run, as a concatenation is, and no frame of
/// a piece falls inside another's edit), remembering each piece's shift for the edit list.
/// Samples are retimed without copying their data.
final class PassthroughCompactor {
    private let windowStarts: [CMTime]
    private(set) var shifts: [CMTime]
    private var piece = -1
    private var end = CMTime.zero

    init(_ layout: PassthroughLayout) {
        windowStarts = layout.pieces.map(\.windowStart)
        shifts = Array(repeating: .zero, count: layout.pieces.count)
    }

    /// `sample` moved by its piece's shift.
    func compact(_ sample: CMSampleBuffer) throws -> CMSampleBuffer {
        let dts = CMSampleBufferGetDecodeTimeStamp(sample)
        let t = dts.isNumeric ? dts : CMSampleBufferGetPresentationTimeStamp(sample)
        guard t.isNumeric else { return sample }
        var entered = false
        while piece + 1 < windowStarts.count, piece < 0 || t >= windowStarts[piece + 1] {
            piece += 1
            entered = true
        }
        if entered { shifts[piece] = t - end }
        let shift = shifts[piece]
        let timings = try sample.sampleTimingInfos().map { timing in
            var moved = timing
            if moved.presentationTimeStamp.isNumeric { moved.presentationTimeStamp = moved.presentationTimeStamp - shift }
            if moved.decodeTimeStamp.isNumeric { moved.decodeTimeStamp = moved.decodeTimeStamp - shift }
            return moved
        }
        var out: CMSampleBuffer?
        let status = CMSampleBufferCreateCopyWithNewTiming(allocator: nil, sampleBuffer: sample, sampleTimingEntryCount: timings.count,
                                                           sampleTimingArray: timings, sampleBufferOut: &out)
        guard status == noErr, let out else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "Cannot retime a sample (\(status))."])
        }
        // The next piece starts after this one's decode and presentation times: its frames
        // must not fall inside this piece's edit (players select an edit's frames by time).
        let step = CMSampleBufferGetDuration(out)
        let length = step.isNumeric && step > .zero ? step : .zero
        let pts = CMSampleBufferGetPresentationTimeStamp(out)
        end = max(end, (t - shift) + length, pts.isNumeric ? pts + length : .zero)
        return out
    }
}
