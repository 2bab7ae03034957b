// AudioSegmentReader: one audio track's decoded PCM in target time — the segment walker for
// audio. Each media segment the range touches is decoded from its source range and its samples
// placed at the segment's target sample positions, sample-exactly; empty segments give nothing.
import CoreMedia
import Foundation
internal import MediaEngine

/// Reads one audio track made of segments as PCM blocks on the output rate's timeline (target time).
///
/// A file track (one whole-stream segment) is read by one `AudioStreamReader` for the range, as
/// it always was. Otherwise each media segment overlapping the range is read by its own stream
/// reader for the source range mapping onto the overlap, and its frames are shifted to the
/// overlap's first target sample: a segment covering target samples `[a, b)` (indices rounded up,
/// as the stream reader rounds) delivers at most `b - a` frames starting at `a`, so segments
/// meet sample-exactly. A scaled segment is resampled: its source is decoded at the rate that
/// makes its source duration last its target duration in output samples (libswresample), so
/// pitch follows speed (Apple's `varispeed`); `audioTimePitchAlgorithm` is not applied.
///
/// `cancel()` may be called from another thread to stop a blocking read.
final class AudioSegmentReader {
    private let output: AudioPCMFormat
    private var pieces: [Piece]
    private var current: (reader: AudioStreamReader, shift: Int64, url: URL)?
    private let lock = NSLock()
    private var cancelled = false

    private struct Piece {
        var source: SourceTrack
        var start: CMTime
        var end: CMTime
        /// The rate the source is decoded at (the output rate unless the segment is scaled).
        var rate: Int
        /// Where the piece's first frame goes on the output timeline (nil: where the stream puts it).
        var targetStart: Int64?
    }

    /// A reader of `segments` for `range` (target time) delivering `output`.
    init(segments: [MediaSegment], range: CMTimeRange, output: AudioPCMFormat) throws {
        self.output = output
        let start = range.start.isNumeric ? range.start : .zero
        let end = range.duration.isNumeric ? range.end : .positiveInfinity
        if segments.count == 1, segments[0].isWholeStream, let source = segments[0].source {
            // FFmpeg applies an edit list's start but decodes whole packets at its end: trim there.
            pieces = [Piece(source: source, start: start, end: CMTimeMinimum(end, source.presentationEnd), rate: output.sampleRate)]
        } else {
            pieces = try Self.pieces(segments, start: start, end: end, output: output)
        }
        // The first source opens now, so that a missing or damaged file fails `startReading()`.
        if !pieces.isEmpty { try open(pieces.removeFirst()) }
    }

    /// The reads for the media segments overlapping `[start, end)`.
    private static func pieces(_ segments: [MediaSegment], start: CMTime, end: CMTime, output: AudioPCMFormat) throws -> [Piece] {
        let rate = Int64(output.sampleRate)
        let wanted = CMTimeRange(start: start, end: end)
        return try segments.compactMap { segment -> Piece? in
            guard let source = segment.source, let overlap = segment.overlap(with: wanted) else { return nil }
            let first = index(overlap.start, rate), last = index(overlap.end, rate)
            guard last > first else { return nil }
            let sourceRange = segment.sourceRange(for: overlap)
            var sourceRate = output.sampleRate
            if segment.isScaled {
                // Source samples at this rate, heard at the output rate, last the target duration.
                let r = Double(output.sampleRate) * overlap.duration.seconds / sourceRange.duration.seconds
                guard r.isFinite, r >= 1, r <= 1_536_000 else {
                    throw AVError(.operationNotSupportedForAsset, userInfo: [
                        NSLocalizedDescriptionKey: "Operation Stopped",
                        NSLocalizedFailureReasonErrorKey: "An audio segment scaled by \(overlap.duration.seconds / sourceRange.duration.seconds)× cannot be resampled.",
                    ])
                }
                sourceRate = Int(r.rounded())
            }
            // Exactly the target's frame count from the first source sample.
            let sourceFirst = index(sourceRange.start, Int64(sourceRate))
            let sourceEnd = CMTime(value: sourceFirst + (last - first), timescale: Int32(sourceRate))
            return Piece(source: source, start: sourceRange.start, end: CMTimeMinimum(sourceEnd, source.presentationEnd),
                         rate: sourceRate, targetStart: first)
        }
    }

    /// The sample index of `time` at `rate`, rounded up (as `AudioStreamReader` places bounds).
    private static func index(_ time: CMTime, _ rate: Int64) -> Int64 {
        guard time.isNumeric else { return time > .zero ? .max : .min }
        return CMTimeConvertScale(time, timescale: Int32(rate), method: .roundTowardPositiveInfinity).value
    }

    /// The next frames (at most `maxFrames`) in target time; nil at the end of the range.
    func read(maxFrames: Int) throws -> AudioPCMBlock? {
        while true {
            if current == nil {
                guard !pieces.isEmpty else { return nil }
                try open(pieces.removeFirst())
            }
            guard let (reader, shift, url) = current else { return nil }
            let block: AudioPCMBlock?
            do {
                block = try reader.read(maxFrames: maxFrames)
            } catch {
                throw AVError.from(error, url: url)
            }
            guard var block else {
                lock.withLock { current = nil }
                continue
            }
            block.startIndex += shift
            return block
        }
    }

    private func open(_ piece: Piece) throws {
        var format = output
        format.sampleRate = piece.rate
        let reader: AudioStreamReader
        do {
            reader = try AudioStreamReader(url: piece.source.url, streamIndex: piece.source.streamIndex, output: format)
            try reader.start(from: piece.start, to: piece.end)
        } catch {
            throw AVError.from(error, url: piece.source.url)
        }
        let shift = piece.targetStart.map { $0 - Self.index(piece.start, Int64(piece.rate)) } ?? 0
        let stop = lock.withLock {
            current = (reader, shift, piece.source.url)
            return cancelled
        }
        if stop { reader.cancel() }
    }

    /// Stops reading; safe from another thread while `read` blocks (it then fails as cancelled).
    func cancel() {
        let reader = lock.withLock {
            cancelled = true
            return current?.reader
        }
        reader?.cancel()
    }
}
