// VideoCompositorStage: the compositor stage of the pipeline — the frames of N video tracks in, one
// stream of output frames out, following instructions that say, for each stretch of output time,
// which track's frames make the picture.
import CoreMedia
import CoreVideo

/// Composes the frames of several video tracks into one stream of frames.
///
/// Each source is one track's decoded frames in presentation order (an `AVAssetReaderTrackOutput`
/// or equivalent, pulled lazily: a source is read only while an instruction shows it). The
/// instructions cover the output's time in order; today each names the source whose frames pass
/// through unchanged for its range (Apple's `passthroughTrackID`: the compositor does not run,
/// the source frame is the output). A frame is handed on as it is — the same sample buffer, no
/// pixel copied — when it lies wholly inside its instruction; one that reaches across an
/// instruction's edge is retimed to the part inside (its pixel buffer still shared). Frames of a
/// source that fall where other sources are shown are passed over.
///
/// This is the slot a video composition renders in (issue 12): an instruction without a
/// passthrough source will layer its tracks' frames (transforms, opacity, crop) into a new buffer.
///
/// Not thread-safe: one consumer at a time.
final class VideoCompositorStage {
    /// One input: a video track's frames.
    struct Source {
        var trackID: CMPersistentTrackID
        /// Where the track has media, in output time.
        var timeRange: CMTimeRange
        /// The next frame in presentation order; nil when there are no more.
        var next: () -> CMSampleBuffer?
    }

    /// What the output is over `timeRange`: the frames of `sources[passthroughSource]`.
    struct Instruction: Equatable {
        var timeRange: CMTimeRange
        var passthroughSource: Int
    }

    let sources: [Source]
    let instructions: [Instruction]
    /// Each source's next unconsumed frame (read ahead by one when looked at).
    private var heads: [CMSampleBuffer?]
    private var exhausted: [Bool]
    /// How far each source's current head frame has been shown (a frame reaching past an
    /// instruction's end is kept for the next instruction that shows its source).
    private var shownUntil: [CMTime?]
    private var current = 0
    /// One source shown over the whole output: its frames go through untouched.
    private let single: Source?

    init(sources: [Source], instructions: [Instruction]) {
        self.sources = sources
        self.instructions = instructions
        heads = Array(repeating: nil, count: sources.count)
        exhausted = Array(repeating: false, count: sources.count)
        shownUntil = Array(repeating: nil, count: sources.count)
        single = sources.count == 1 && instructions.count <= 1 ? sources[0] : nil
    }

    /// How Apple presents an asset's video tracks without a video composition: at each time the
    /// front-most track that has media there — the first of `ranges` containing it (tracks in the
    /// asset's order, the first in front) — is shown whole, the tracks behind hidden. Times no
    /// track covers get no instruction. `range` is the output's range (an open end: up to the
    /// last track's end).
    static func frontMostInstructions(ranges: [CMTimeRange], within range: CMTimeRange) -> [Instruction] {
        let ends = ranges.map(\.end).filter(\.isNumeric)
        let limit = range.end.isNumeric ? range.end : ends.max() ?? range.start
        var bounds = [range.start, limit]
        for r in ranges { bounds += [r.start, r.end].filter { $0.isNumeric && $0 > range.start && $0 < limit } }
        bounds.sort()
        var instructions: [Instruction] = []
        for (from, to) in zip(bounds, bounds.dropFirst()) where from < to {
            guard let front = ranges.firstIndex(where: { $0.start <= from && to <= $0.end }) else { continue }
            if let last = instructions.last, last.passthroughSource == front, last.timeRange.end == from {
                instructions[instructions.count - 1].timeRange = CMTimeRange(start: last.timeRange.start, end: to)
            } else {
                instructions.append(Instruction(timeRange: CMTimeRange(start: from, end: to), passthroughSource: front))
            }
        }
        return instructions
    }

    /// The next output frame, in presentation order; nil at the end (or when a source fails:
    /// its reader's status says which).
    func copyNextSampleBuffer() -> CMSampleBuffer? {
        if let single { return single.next() }
        while current < instructions.count {
            let instruction = instructions[current]
            let k = instruction.passthroughSource
            guard let frame = head(k) else {
                current += 1
                continue
            }
            let start = instruction.timeRange.start, end = instruction.timeRange.end
            let pts = CMSampleBufferGetPresentationTimeStamp(frame)
            if pts >= end {
                current += 1  // the frame belongs to a later instruction
                continue
            }
            let duration = CMSampleBufferGetDuration(frame)
            guard duration.isNumeric, duration > .zero else {
                heads[k] = nil  // a frame without a duration shows at its time only
                if pts >= start { return frame }
                continue
            }
            let frameEnd = CMTimeAdd(pts, duration)
            var visibleStart = max(pts, start)
            if let shown = shownUntil[k] { visibleStart = max(visibleStart, shown) }
            let visibleEnd = min(frameEnd, end)
            if frameEnd <= end {
                heads[k] = nil
                shownUntil[k] = nil
            }
            guard visibleStart < visibleEnd else {
                if frameEnd > end { current += 1 }
                continue
            }
            if frameEnd > end { shownUntil[k] = visibleEnd }
            if visibleStart == pts && visibleEnd == frameEnd { return frame }
            if let piece = VideoCompositorStage.retimed(frame, start: visibleStart, duration: CMTimeSubtract(visibleEnd, visibleStart)) {
                return piece
            }
        }
        return nil
    }

    /// Source `k`'s next unconsumed frame, read when needed.
    private func head(_ k: Int) -> CMSampleBuffer? {
        if let frame = heads[k] { return frame }
        guard !exhausted[k] else { return nil }
        heads[k] = sources[k].next()
        if heads[k] == nil { exhausted[k] = true }
        return heads[k]
    }

    /// `frame` shown from `start` for `duration`: a new sample buffer around the same pixels.
    static func retimed(_ frame: CMSampleBuffer, start: CMTime, duration: CMTime) -> CMSampleBuffer? {
        var timing = CMSampleTimingInfo(duration: duration, presentationTimeStamp: start, decodeTimeStamp: .invalid)
        var copy: CMSampleBuffer?
        guard CMSampleBufferCreateCopyWithNewTiming(allocator: nil, sampleBuffer: frame, sampleTimingEntryCount: 1,
                                                    sampleTimingArray: &timing, sampleBufferOut: &copy) == noErr else { return nil }
        return copy
    }
}
