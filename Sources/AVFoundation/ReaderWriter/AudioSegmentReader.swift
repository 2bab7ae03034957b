// AudioSegmentReader: one audio track's decoded PCM in target time — the segment walker for
// audio. Each media segment the range touches is decoded from its source range and its samples
// placed at the segment's target sample positions, sample-exactly; empty segments give nothing.
import CoreMedia
import Foundation
internal import MediaEngine

/// Reads one audio track made of segments as PCM blocks on the output rate's timeline (target time).
///
/// The track is walked by the `SegmentWalker` that walks video tracks: one `AudioStreamReader`
/// per source stream (and decode rate), opened on first need and repositioned — never reopened —
/// for each later piece and on every `reposition(to:)` (a seek, a new reader range). A file track
/// (one whole-stream segment) is read by its stream's reader for the range. Otherwise each media
/// segment overlapping the range is read for the source range mapping onto the overlap, and its
/// frames are shifted to the overlap's first target sample: a segment covering target samples
/// `[a, b)` (indices rounded up, as the stream reader rounds) delivers at most `b - a` frames
/// starting at `a`, so segments meet sample-exactly. A scaled segment follows the time-pitch
/// algorithm: with `.varispeed` its source is decoded at the rate that makes its source duration
/// last its target duration in output samples (libswresample), so pitch follows speed; with the
/// others (`.spectral`, the default, `.timeDomain`, `.lowQualityZeroLatency`) its source is
/// decoded at the output rate and time-stretched by Rubber Band (`AudioTimeStretcher`), so pitch
/// stays. Either way the segment delivers exactly its target's frame count (a stretch's short
/// tail is padded with silence, its excess dropped).
///
/// `cancel()` may be called from another thread to stop a blocking read; the next
/// `reposition(to:)` reads again.
final class AudioSegmentReader {
    private let output: AudioPCMFormat
    private let algorithm: AVAudioTimePitchAlgorithm
    private let walker: SegmentWalker<AudioStreamReader>
    private var pieces: ArraySlice<Piece> = []
    private var current: (reader: AudioStreamReader, shift: Int64, url: URL, stretch: Stretch?)?

    private struct Piece {
        var source: SourceTrack
        var start: CMTime
        var end: CMTime
        /// The rate the source is decoded at (the output rate unless the segment is scaled).
        var rate: Int
        /// Where the piece's first frame goes on the output timeline (nil: where the stream puts it).
        var targetStart: Int64?
        /// A time stretch keeping pitch: its Rubber Band options and frame counts.
        var stretch: (options: Int32, sourceFrames: Int64, targetFrames: Int64)?
    }

    /// A reader of `segments` delivering `output`, scaled segments rendered with `algorithm`;
    /// `reposition(to:)` gives it a range.
    init(segments: [MediaSegment], output: AudioPCMFormat, algorithm: AVAudioTimePitchAlgorithm = .spectral) {
        self.output = output
        self.algorithm = algorithm
        walker = SegmentWalker(segments: segments) { source, variant, cancellation in
            guard let format = variant.base as? AudioPCMFormat else { throw AVError(.unknown) }
            do throws(MediaError) {
                return try AudioStreamReader(url: source.url, streamIndex: source.streamIndex, output: format, cancellation: cancellation)
            } catch {
                throw AVError.from(error, url: source.url)
            }
        }
    }

    /// Positions the reader on `range` (target time), dropping what it holds. The first source
    /// is positioned now, so that a missing or damaged file fails here (`startReading()`).
    func reposition(to range: CMTimeRange) throws {
        current = nil
        let start = range.start.isNumeric ? range.start : .zero
        let end = range.duration.isNumeric ? range.end : .positiveInfinity
        if walker.isWholeStream, let source = walker.segments[0].source {
            walker.beginWalk()
            // FFmpeg applies an edit list's start but decodes whole packets at its end: trim there.
            pieces = [Piece(source: source, start: start, end: CMTimeMinimum(end, source.presentationEnd), rate: output.sampleRate)]
        } else {
            pieces = ArraySlice(try walker.pieces(covering: [CMTimeRange(start: start, end: end)]).compactMap(piece))
        }
        if let first = pieces.popFirst() { try open(first) }
    }

    /// The read for one piece of the walk; nil when it covers no whole output sample.
    private func piece(_ piece: SegmentPiece) throws -> Piece? {
        let rate = Int64(output.sampleRate)
        let segment = piece.segment, source = piece.sourceTrack, overlap = piece.target
        let first = Self.index(overlap.start, rate), last = Self.index(overlap.end, rate)
        guard last > first else { return nil }
        let sourceRange = piece.source
        var sourceRate = output.sampleRate
        let scale = overlap.duration.seconds / sourceRange.duration.seconds
        if segment.isScaled, let options = AudioTimeStretcher.options(for: algorithm) {
            // Decoded at the output rate, stretched to the target's frame count. Apple's
            // Spectral takes rates from 1/32 to 32.
            let sourceFirst = Self.index(sourceRange.start, rate), sourceEnd = Self.index(sourceRange.end, rate)
            guard scale.isFinite, scale >= 1.0 / 32, scale <= 32, sourceEnd > sourceFirst else {
                throw Self.unsupportedScale(scale)
            }
            // A quarter second more of the source, where it has it, gives the stretcher context
            // at the edit's end (its window would otherwise fade the last frames into silence);
            // what it makes of it lies past the target's frames and is dropped.
            let lookahead = CMTime(value: rate / 4, timescale: Int32(rate))
            return Piece(source: source, start: sourceRange.start, end: CMTimeMinimum(sourceRange.end + lookahead, source.presentationEnd),
                         rate: output.sampleRate, targetStart: first,
                         stretch: (options, sourceEnd - sourceFirst, last - first))
        }
        if segment.isScaled {
            // Source samples at this rate, heard at the output rate, last the target duration.
            let r = Double(output.sampleRate) * scale
            guard r.isFinite, r >= 1, r <= 1_536_000 else { throw Self.unsupportedScale(scale) }
            sourceRate = Int(r.rounded())
        }
        // Exactly the target's frame count from the first source sample.
        let sourceFirst = Self.index(sourceRange.start, Int64(sourceRate))
        let sourceEnd = CMTime(value: sourceFirst + (last - first), timescale: Int32(sourceRate))
        return Piece(source: source, start: sourceRange.start, end: CMTimeMinimum(sourceEnd, source.presentationEnd),
                     rate: sourceRate, targetStart: first)
    }

    private static func unsupportedScale(_ scale: Double) -> AVError {
        AVError(.operationNotSupportedForAsset, userInfo: [
            NSLocalizedDescriptionKey: "Operation Stopped",
            NSLocalizedFailureReasonErrorKey: "An audio segment scaled by \(scale)× cannot be rendered.",
        ])
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
                guard let piece = pieces.popFirst() else { return nil }
                try open(piece)
            }
            guard let (reader, shift, url, stretch) = current else { return nil }
            let block: AudioPCMBlock?
            do throws(MediaError) {
                if let stretch {
                    block = try stretch.read(from: reader, maxFrames: maxFrames)
                } else {
                    block = try reader.read(maxFrames: maxFrames)
                }
            } catch {
                throw AVError.from(error, url: url)
            }
            guard var block else {
                current = nil
                continue
            }
            block.startIndex += shift
            return block
        }
    }

    /// Positions the piece's stream reader (the walker's, for the piece's decode format) on it.
    private func open(_ piece: Piece) throws {
        var format = output
        format.sampleRate = piece.rate
        var stretch: Stretch?
        let reader: AudioStreamReader
        do {
            if let s = piece.stretch, let targetStart = piece.targetStart {
                let planar = AudioPCMFormat.float32Planar(sampleRate: output.sampleRate, channels: output.channels)
                stretch = try Stretch(options: s.options, format: planar, output: output, sourceFrames: s.sourceFrames,
                                      targetStart: targetStart, targetFrames: s.targetFrames)
                format = planar
            }
            reader = try walker.positionedStage(for: piece.source, on: CMTimeRange(start: piece.start, end: piece.end), variant: format)
        } catch let error as MediaError {
            throw AVError.from(error, url: piece.source.url)
        }
        // A stretch places its own frames; a plain read is shifted from source to target samples.
        let shift = stretch != nil ? 0 : piece.targetStart.map { $0 - Self.index(piece.start, Int64(piece.rate)) } ?? 0
        current = (reader, shift, piece.source.url, stretch)
    }

    /// Stops reading; safe from another thread while `read` blocks (it then fails as cancelled).
    func cancel() {
        walker.cancel()
    }
}

extension AudioStreamReader: SegmentStage {
    func reposition(to range: CMTimeRange) throws {
        try start(from: range.start, to: range.end)
    }
}

extension AudioSegmentReader {
    /// One scaled segment being time-stretched: the source's frames (planar float at the output
    /// rate) through the stretcher, exactly `targetFrames` frames out from `targetStart`, converted
    /// to the reader's output format.
    final class Stretch {
        private let stretcher: AudioTimeStretcher
        /// From the stretcher's planar float to the reader's format (nil when they are the same).
        private let converter: AudioResampler?
        private let channelCount: Int
        private let targetStart: Int64
        private let targetFrames: Int64
        private var produced: Int64 = 0
        private var sourceEnded = false
        /// Silence fed after the source's end; at most about the stretched length of one second
        /// plus the target (far beyond any stretcher latency).
        private var silenceFed = 0
        private let silenceLimit: Int

        init(options: Int32, format: AudioPCMFormat, output: AudioPCMFormat, sourceFrames: Int64, targetStart: Int64,
             targetFrames: Int64) throws(MediaError) {
            stretcher = AudioTimeStretcher(options: options, sampleRate: format.sampleRate, channels: format.channelCount,
                                           ratio: Double(targetFrames) / Double(sourceFrames), maxFrames: AudioReaderSource.framesPerBuffer)
            converter = format == output ? nil : try AudioResampler(input: format, output: output)
            channelCount = format.channelCount
            self.targetStart = targetStart
            self.targetFrames = targetFrames
            silenceLimit = 32 * format.sampleRate + Int(targetFrames)
        }

        /// The next stretched frames (at most `maxFrames`); nil once the target's frames are all out.
        func read(from reader: AudioStreamReader, maxFrames: Int) throws(MediaError) -> AudioPCMBlock? {
            while produced < targetFrames {
                let wanted = Int(min(Int64(maxFrames), targetFrames - produced))
                if let (data, frames) = stretcher.retrieve(maxFrames: wanted) { return try deliver(data, frames) }
                if stretcher.isFinal {
                    // The stretcher gave all it had: the rest of the target is silence.
                    return try deliver(Data(count: wanted * channelCount * MemoryLayout<Float>.size), wanted)
                }
                if !sourceEnded, let block = try reader.read(maxFrames: maxFrames) {
                    stretcher.process(block.data, frameCount: block.frameCount, final: false)
                } else if silenceFed < silenceLimit {
                    // Past the source's end: silence pushes its last frames through the
                    // stretcher's latency, for as long as the target still wants frames.
                    sourceEnded = true
                    stretcher.processSilence(frameCount: maxFrames)
                    silenceFed += maxFrames
                } else {
                    stretcher.process(Data(), frameCount: 0, final: true)
                }
            }
            return nil
        }

        private func deliver(_ data: Data, _ frames: Int) throws(MediaError) -> AudioPCMBlock {
            let start = targetStart + produced
            produced += Int64(frames)
            guard let converter else { return AudioPCMBlock(startIndex: start, frameCount: frames, data: data) }
            do {
                try data.withUnsafeBytes { try converter.append(bytes: $0, frameCount: frames) }
            } catch let error as MediaError {
                throw error
            } catch {
                throw MediaError.other(code: 0, message: "\(error)")
            }
            return AudioPCMBlock(startIndex: start, frameCount: frames, data: converter.read(frameCount: converter.bufferedFrameCount))
        }
    }
}
