// SegmentWalkingSource: the stage that reads a track made of segments in target time — for each
// piece the segment walker plans, it positions the source stream's own reader on the source
// range that maps there, retimes its sample buffers by the segment's mapping and cuts frames at
// the segment's edges; empty segments give nothing.
import CoreMedia
import Foundation
internal import MediaEngine

/// Reads a track's segments in target (track) time through one inner stage per source stream.
///
/// The inner stages are those that read one stream of a file (`ReaderVideoSource`,
/// `ReaderPassthroughSource`); the `SegmentWalker` plans the pieces a requested range covers and
/// opens each stream's stage on first use, repositioning it at every later piece of that stream.
/// A sample's presentation and decode times and its duration are mapped into target time
/// (scaled with the segment), so a segment scaled 2× shows each source frame twice as long.
///
/// Edits: a decoded frame shown across a segment's edge is cut to the edge (its time starts at
/// the segment's start, or its duration ends at the segment's end), as Apple's edits do. A
/// stored (passthrough) sample cannot be cut: samples read only because decoding the segment's
/// first frames needs them (from the keyframe before) and samples presenting wholly outside the
/// segment keep their mapped times and carry `kCMSampleAttachmentKey_DoNotDisplay`.
///
/// A file track (one whole-stream segment) does not come here: `SegmentWalkingSource.make`
/// returns the inner source itself, so a URL asset reads exactly as before, with no per-sample cost.
final class SegmentWalkingSource<Inner: ReaderSampleSource & SegmentStage>: ReaderSampleSource {
    private let walker: SegmentWalker<Inner>
    private let cutsFrames: Bool
    /// What is left to read.
    private var pieces: ArraySlice<SegmentPiece> = []
    private var current: (segment: MediaSegment, inner: Inner)?

    /// The source for `segments`: the inner source itself for one whole-stream segment, else a
    /// walker over them. `cutsFrames`: decoded samples, cut at edits (false: stored samples).
    /// `makeInner` makes a stage for a stream, reading with the cancellation flag given (nil:
    /// its own).
    static func make(segments: [MediaSegment], cutsFrames: Bool,
                     inner makeInner: @escaping (SourceTrack, DemuxerCancellation?) throws -> Inner) throws -> any ReaderSampleSource {
        if segments.count == 1, segments[0].isWholeStream, let source = segments[0].source { return try makeInner(source, nil) }
        return SegmentWalkingSource(segments: segments, cutsFrames: cutsFrames, inner: makeInner)
    }

    private init(segments: [MediaSegment], cutsFrames: Bool, inner: @escaping (SourceTrack, DemuxerCancellation?) throws -> Inner) {
        walker = SegmentWalker(segments: segments) { source, _, cancellation in try inner(source, cancellation) }
        self.cutsFrames = cutsFrames
    }

    func start(timeRange: CMTimeRange) throws {
        try reset(timeRanges: [timeRange])
    }

    func reset(timeRanges: [CMTimeRange]) throws {
        current = nil
        pieces = ArraySlice(walker.pieces(covering: timeRanges))
    }

    func next() throws -> CMSampleBuffer? {
        while true {
            if current == nil {
                guard let piece = pieces.popFirst() else { return nil }
                current = (piece.segment, try positioned(piece))
            }
            guard let (segment, inner) = current else { return nil }
            guard let buffer = try inner.next() else {
                current = nil
                continue
            }
            if let retimed = try retime(buffer, segment) { return retimed }
        }
    }

    func cancel() {
        walker.close()
        pieces = []
        current = nil
    }

    /// The piece's source stream stage, positioned on the source range mapping onto it.
    private func positioned(_ piece: SegmentPiece) throws -> Inner {
        if !cutsFrames, piece.segment.isScaled, piece.sourceTrack.stream.kind == .audio {
            // Stored audio packets cannot be played faster or slower: only decoding can.
            throw AVError(.operationNotSupportedForAsset, userInfo: [
                NSLocalizedDescriptionKey: "Operation Stopped",
                NSLocalizedFailureReasonErrorKey: "A scaled audio segment cannot be read as stored samples; read it with linear PCM output settings.",
            ])
        }
        return try walker.positionedStage(for: piece.sourceTrack, on: piece.source)
    }

    /// `buffer` (source time) in target time, cut or marked at the segment's edges; nil when a
    /// decoded frame has nothing left inside the segment.
    private func retime(_ buffer: CMSampleBuffer, _ segment: MediaSegment) throws -> CMSampleBuffer? {
        let count = CMSampleBufferGetNumSamples(buffer)
        var timings = [CMSampleTimingInfo](repeating: CMSampleTimingInfo(), count: max(count, 1))
        var entries: CMItemCount = 0
        guard CMSampleBufferGetSampleTimingInfoArray(buffer, entryCount: timings.count, arrayToFill: &timings,
                                                     entriesNeededOut: &entries) == noErr else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "Cannot read a sample's timing."])
        }
        timings.removeLast(timings.count - entries)
        let edge = segment.target
        var outside = false
        for i in timings.indices {
            var t = timings[i]
            let pts = t.presentationTimeStamp.isNumeric ? segment.targetTime(t.presentationTimeStamp) : t.presentationTimeStamp
            let duration = t.duration.isNumeric ? segment.targetDuration(t.duration) : t.duration
            t.decodeTimeStamp = t.decodeTimeStamp.isNumeric ? segment.targetTime(t.decodeTimeStamp) : t.decodeTimeStamp
            t.presentationTimeStamp = pts
            t.duration = duration
            if pts.isNumeric {
                let end = duration.isNumeric ? pts + duration : pts
                if cutsFrames {
                    let start = max(pts, edge.start), cutEnd = duration.isNumeric ? min(end, edge.end) : end
                    guard cutEnd > start || (!duration.isNumeric && start < edge.end) else { return nil }
                    t.presentationTimeStamp = start
                    if duration.isNumeric { t.duration = cutEnd - start }
                } else {
                    let shown = end > pts ? end > edge.start && pts < edge.end : edge.containsTime(pts)
                    if !shown { outside = true }
                }
            }
            timings[i] = t
        }
        var out: CMSampleBuffer?
        let status = CMSampleBufferCreateCopyWithNewTiming(allocator: nil, sampleBuffer: buffer, sampleTimingEntryCount: timings.count,
                                                           sampleTimingArray: timings, sampleBufferOut: &out)
        guard status == noErr, let out else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "Cannot retime a sample (\(status))."])
        }
        if outside, CMSampleBufferGetNumSamples(out) > 0 {
            out.sampleAttachments[0][.doNotDisplay] = kCFBooleanTrue
        }
        return out
    }
}
