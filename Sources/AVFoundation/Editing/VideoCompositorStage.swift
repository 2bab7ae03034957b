// VideoCompositorStage: the compositor stage of the pipeline — the frames of N video tracks in, one
// stream of output frames out: without a video composition, following instructions that say, for
// each stretch of output time, which track's frames make the picture; with one, a frame at every
// k·frameDuration composed by the composition's compositor from each track's frame at that time.
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine

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
/// With a video composition (`init(sources:composition:range:outputFormats:)`) the stage makes
/// one frame at every `range.start + k·frameDuration` before `range.end`, exactly timed
/// (duration `frameDuration`). For each time it finds the instruction in effect, advances each
/// required source to the frame covering that time (the sources' frames are decoded pictures
/// shared with the decoder, no copy) and asks the composition's compositor for the frame with an
/// `AVAsynchronousVideoCompositionRequest`; an instruction with a `passthroughTrackID` hands that
/// track's picture on without asking, and a time no instruction covers is black. Up to
/// `window` requests are in flight at once — the compositor renders them concurrently on its
/// own queue — and frames leave in time order. Memory is bounded by the window: one current
/// and one read-ahead frame per source plus the frames of the requests in flight.
///
/// One consumer at a time calls `next()`; `interrupt()` may be called from any thread.
final class VideoCompositorStage {
    /// One input: a video track's frames.
    struct Source {
        var trackID: CMPersistentTrackID
        /// Where the track has media, in output time.
        var timeRange: CMTimeRange
        /// The next frame in presentation order; nil when there are no more. Errors (a source
        /// that cannot be read) end the stage with them.
        var next: () throws -> CMSampleBuffer?
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
    /// With a video composition: the composed frames' state.
    private let composed: ComposedFrames?

    init(sources: [Source], instructions: [Instruction]) {
        self.sources = sources
        self.instructions = instructions
        heads = Array(repeating: nil, count: sources.count)
        exhausted = Array(repeating: false, count: sources.count)
        shownUntil = Array(repeating: nil, count: sources.count)
        single = sources.count == 1 && instructions.count <= 1 ? sources[0] : nil
        composed = nil
    }

    /// A stage composing `sources` (each a video track's decoded frames in presentation order)
    /// through `composition` over `range` (a numeric end). `outputFormats`: the pixel formats
    /// the consumer takes (empty: any); a composed frame in another format is converted once.
    /// `copiesSourceFrames`: a source frame passed through as the output (a passthrough
    /// instruction, a layer hiding all others) is copied, so a caller writing to it cannot
    /// reach the decoder's pictures.
    init(sources: [Source], composition: VideoCompositionSession, range: CMTimeRange, outputFormats: [OSType],
         copiesSourceFrames: Bool = false) {
        self.sources = sources
        instructions = []
        heads = Array(repeating: nil, count: sources.count)
        exhausted = Array(repeating: false, count: sources.count)
        shownUntil = Array(repeating: nil, count: sources.count)
        single = nil
        composed = ComposedFrames(session: composition, range: range, sourceCount: sources.count, outputFormats: outputFormats,
                                  copiesSourceFrames: copiesSourceFrames)
        composition.anticipate(from: range.start, to: range.end)
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
        (try? next()) ?? nil
    }

    /// The next output frame, in presentation order; nil at the end. Throws what a source or
    /// the compositor failed with.
    func next() throws -> CMSampleBuffer? {
        if let composed { return try composed.next(self) }
        if let single { return try single.next() }
        while current < instructions.count {
            let instruction = instructions[current]
            let k = instruction.passthroughSource
            guard let frame = try head(k) else {
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
    private func head(_ k: Int) throws -> CMSampleBuffer? {
        if let frame = heads[k] { return frame }
        guard !exhausted[k] else { return nil }
        heads[k] = try sources[k].next()
        if heads[k] == nil { exhausted[k] = true }
        return heads[k]
    }

    /// Source `k`'s frame covering `time` (frames before it consumed); nil when the source has
    /// none there (an empty segment, past its end). Times must not decrease between calls.
    fileprivate func frame(_ k: Int, at time: CMTime) throws -> CMSampleBuffer? {
        while let next = try head(k) {
            let pts = CMSampleBufferGetPresentationTimeStamp(next)
            guard !pts.isNumeric || pts <= time else { break }
            heads[k] = nil
            if pts.isNumeric { composed?.current[k] = next }
        }
        guard let current = composed?.current[k] else { return nil }
        let pts = CMSampleBufferGetPresentationTimeStamp(current), duration = CMSampleBufferGetDuration(current)
        guard !duration.isNumeric || duration <= .zero || time < pts + duration else { return nil }
        return current
    }

    /// Stops a composing stage from any thread: the compositor is told to cancel its pending
    /// requests and a `next()` waiting for one returns nil.
    func interrupt() {
        composed?.interrupt()
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

/// The composing state of a `VideoCompositorStage` with a video composition: which output time
/// comes next, the instruction cursor, each source's current frame and the requests in flight.
private final class ComposedFrames {
    let session: VideoCompositionSession
    let range: CMTimeRange
    let outputFormats: [OSType]
    let copiesSourceFrames: Bool
    /// How many requests may be in flight at once.
    let window = max(2, min(ProcessInfo.processInfo.activeProcessorCount + 1, 8))
    /// Each source's frame covering the last time asked for.
    var current: [CMSampleBuffer?]
    /// The index of the next output time to request.
    private var k: Int64 = 0
    private var cursor = 0
    private var pending: [Slot] = []
    /// Guards every slot's outcome and `interrupted`.
    private let condition = NSCondition()
    private var interrupted = false
    private var samples = ImageSampleBuffers()
    /// Sample buffers around the Core Animation tool's additional-layer frames.
    private var layerSamples = ImageSampleBuffers()
    private var black: CVPixelBuffer?
    private var conversionPool: (pool: CVPixelBufferPool, format: OSType, width: Int, height: Int)?

    /// One output time: its request's outcome once finished.
    final class Slot: @unchecked Sendable {
        let time: CMTime
        var outcome: AVAsynchronousVideoCompositionRequest.Outcome?
        /// The source pictures the frame was made from.
        var sources: [CVPixelBuffer] = []
        init(time: CMTime) { self.time = time }
    }

    init(session: VideoCompositionSession, range: CMTimeRange, sourceCount: Int, outputFormats: [OSType], copiesSourceFrames: Bool) {
        self.session = session
        self.range = range
        self.outputFormats = outputFormats
        self.copiesSourceFrames = copiesSourceFrames
        current = Array(repeating: nil, count: sourceCount)
    }

    /// Output time `k`: the range's start plus k frame durations.
    private func time(_ k: Int64) -> CMTime {
        CMTimeAdd(range.start, CMTimeMultiply(session.frameDuration, multiplier: Int32(clamping: k)))
    }

    func interrupt() {
        let first: Bool = condition.withLock {
            defer { interrupted = true; condition.broadcast() }
            return !interrupted
        }
        if first { session.compositor.cancelAllPendingVideoCompositionRequests() }
    }

    private var isInterrupted: Bool { condition.withLock { interrupted } }

    func next(_ stage: VideoCompositorStage) throws -> CMSampleBuffer? {
        while true {
            while pending.count < window, !isInterrupted {
                let t = time(k)
                guard t < range.end, k < Int64(Int32.max) else { break }
                k += 1
                try schedule(t, stage)
            }
            guard !pending.isEmpty else { return nil }
            let slot = pending[0]
            let outcome: AVAsynchronousVideoCompositionRequest.Outcome? = condition.withLock {
                while slot.outcome == nil && !interrupted { condition.wait() }
                return interrupted ? nil : slot.outcome
            }
            guard let outcome else { return nil }
            pending.removeFirst()
            switch outcome {
            case .frame(let buffer):
                if let animation = session.animation, animation.tool.animationLayer != nil {
                    // The Core Animation tool draws a new frame: never a source picture.
                    return try sample(animation.postProcess(buffer, at: slot.time), at: slot.time, copy: false)
                }
                let shared = copiesSourceFrames && slot.sources.contains { $0 === buffer }
                return try sample(buffer, at: slot.time, copy: shared)
            case .failed(let error):
                interrupt()
                throw error
            case .cancelled:
                continue  // the compositor gave this frame up: the next one follows
            }
        }
    }

    /// Starts the frame for time `t`: a request to the compositor, a passthrough source frame,
    /// or black where no instruction applies.
    private func schedule(_ t: CMTime, _ stage: VideoCompositorStage) throws {
        let slot = Slot(time: t)
        pending.append(slot)
        let instructions = session.instructions
        while cursor < instructions.count, instructions[cursor].timeRange.end <= t { cursor += 1 }
        // Instructions are sorted by start; one overlapping another is passed over where a
        // later one starts.
        var found: (any AVVideoCompositionInstructionProtocol)?
        var i = cursor
        while i < instructions.count, instructions[i].timeRange.start <= t {
            if instructions[i].timeRange.containsTime(t) { found = instructions[i]; break }
            i += 1
        }
        guard let instruction = found else {
            slot.outcome = .frame(try blackFrame())
            return
        }
        let layerTrack = session.animation?.additionalTrackID
        let all = stage.sources.map(\.trackID) + (layerTrack.map { [$0] } ?? [])
        let required = VideoCompositionSession.requiredTrackIDs(of: instruction, all: all)
        var frames: [(trackID: CMPersistentTrackID, sample: CMSampleBuffer)] = []
        for id in required {
            if id == layerTrack, let animation = session.animation {
                // The Core Animation tool's additional layer, drawn at this time, is this track's frame.
                if let image = try animation.additionalFrame(at: t),
                   let frame = layerSamples.make(image, pts: t, duration: session.frameDuration) {
                    frames.append((id, frame))
                }
                continue
            }
            guard let k = stage.sources.firstIndex(where: { $0.trackID == id }) else { continue }
            if let frame = try stage.frame(k, at: t) { frames.append((id, frame)) }
        }
        slot.sources = frames.compactMap { CMSampleBufferGetImageBuffer($0.sample) }
        if instruction.passthroughTrackID != kCMPersistentTrackID_Invalid {
            // The frame is the output only when it already is the render size; one of another
            // size is composited — drawn at its own size, top-left, over the background — as
            // Apple draws it (and as the same clip looks in a transition next to it).
            let image = frames.first.flatMap { CMSampleBufferGetImageBuffer($0.sample) }
            let size = session.renderContext.size
            guard let image else {
                slot.outcome = .frame(try blackFrame())
                return
            }
            if CVPixelBufferGetWidth(image) == Int(size.width), CVPixelBufferGetHeight(image) == Int(size.height) {
                slot.outcome = .frame(image)
                return
            }
        }
        let condition = self.condition
        let request = AVAsynchronousVideoCompositionRequest(
            renderContext: session.renderContext, compositionTime: t, instruction: instruction, sources: frames,
            onFinish: { outcome in
                condition.withLock {
                    slot.outcome = outcome
                    condition.broadcast()
                }
            })
        session.compositor.startRequest(request)
    }

    /// A black frame of the render context's format (made once, shared: consumers do not write
    /// to composed frames).
    private func blackFrame() throws -> CVPixelBuffer {
        if let black { return black }
        guard let made = session.renderContext.newPixelBuffer() else { throw Self.failure("Cannot allocate a composed frame.") }
        do {
            try BlackFrame.fill(made)
        } catch {
            throw Self.failure("Cannot fill a black frame (\(error)).")
        }
        black = made
        return made
    }

    /// `buffer` as the output sample at `time`, converted when the consumer takes another format.
    /// `copy`: the buffer is a source picture and must be copied even in its own format.
    private func sample(_ buffer: CVPixelBuffer, at time: CMTime, copy: Bool) throws -> CMSampleBuffer {
        var image = buffer
        let format = CVPixelBufferGetPixelFormatType(buffer)
        let size = session.outputSize
        let resized = size.map { $0.width != CVPixelBufferGetWidth(buffer) || $0.height != CVPixelBufferGetHeight(buffer) } ?? false
        if !outputFormats.isEmpty, !outputFormats.contains(format) {
            image = try converted(buffer, to: outputFormats[0])
        } else if copy || resized {
            image = try converted(buffer, to: format)
        }
        guard let out = samples.make(image, pts: time, duration: session.frameDuration) else {
            throw Self.failure("Cannot make a sample buffer for a composed frame.")
        }
        return out
    }

    /// `buffer` converted into a pooled buffer of `format`, at the consumer's size (else its own).
    private func converted(_ buffer: CVPixelBuffer, to format: OSType) throws -> CVPixelBuffer {
        let width = session.outputSize?.width ?? CVPixelBufferGetWidth(buffer)
        let height = session.outputSize?.height ?? CVPixelBufferGetHeight(buffer)
        if conversionPool.map({ $0.format != format || $0.width != width || $0.height != height }) ?? true {
            var made: CVPixelBufferPool?
            let attributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: format),
                                             kCVPixelBufferWidthKey as String: NSNumber(value: width),
                                             kCVPixelBufferHeightKey as String: NSNumber(value: height)]
            guard CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &made) == kCVReturnSuccess, let made else {
                throw Self.failure("Cannot allocate \(width)×\(height) frames of the output format.")
            }
            conversionPool = (made, format, width, height)
        }
        var out: CVPixelBuffer?
        guard let pool = conversionPool?.pool, CVPixelBufferPoolCreatePixelBuffer(nil, pool, &out) == kCVReturnSuccess, let out else {
            throw Self.failure("Cannot allocate a frame of the output format.")
        }
        do {
            var options = PixelConverter.Options()
            options.fast = width == CVPixelBufferGetWidth(buffer) && height == CVPixelBufferGetHeight(buffer)
            try PixelConverter.shared.transfer(from: buffer, to: out, options: options)
        } catch {
            throw Self.failure("Cannot convert a composed frame to the output format (\(error)).")
        }
        return out
    }

    static func failure(_ reason: String) -> AVError {
        AVError(.invalidVideoComposition, userInfo: [NSLocalizedDescriptionKey: "Cannot Complete Action",
                                                     NSLocalizedFailureReasonErrorKey: reason])
    }
}
