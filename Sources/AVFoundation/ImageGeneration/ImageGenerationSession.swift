// ImageGenerationSession: the image generator's state over the engine: one FrameSeeker per
// generator (opened on first use, reused by every request), output sizing and orientation, and
// the mapping of engine failures onto AVError.
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine

/// What one image request is made with (a snapshot of the generator's properties).
struct ImageGenerationSettings: Sendable {
    var appliesPreferredTrackTransform = false
    var maximumSize = CGSize.zero
    var apertureMode = AVAssetImageGenerator.ApertureMode.cleanAperture
    var toleranceBefore = CMTime.positiveInfinity
    var toleranceAfter = CMTime.positiveInfinity
    /// Images are frames this composition makes (nil: the first enabled video track's frames).
    var videoComposition: AVVideoComposition?
}

/// A generated image and the time of the frame it shows.
struct GeneratedImage: @unchecked Sendable {
    var image: CGImage
    var actualTime: CMTime
}

/// The engine side of one AVAssetImageGenerator. Thread-safe: requests are served one at a
/// time under a lock, so the decoder moves forward across consecutive calls.
final class ImageGenerationSession: @unchecked Sendable {
    private let asset: AVAsset
    private let lock = NSLock()
    private var seeker: FrameSeeker?
    private var openError: (any Error)?
    /// Single-threaded seekers for parallel batches, opened on first need and kept. (The main
    /// seeker decodes with every core and serves single requests; side by side, one thread per
    /// decoder is faster than each decoder spreading over all cores.)
    private var spareSeekers: [FrameSeeker] = []
    /// For an asset made of segments: the walk over the first enabled video track's segments,
    /// with one seeker per source stream, opened on first need.
    private var segmentWalker: SegmentWalker<FrameSeeker>?
    /// With a video composition: the composed frames' source, for the composition it was made
    /// for (kept while the generator's composition stays the same).
    private var composed: (composition: AVVideoComposition, source: ComposedReaderSource, started: Bool)?

    init(asset: AVAsset) {
        self.asset = asset
    }

    /// Images for `times` in the order the engine serves them (sorted by frame), reported
    /// through `body` with the position in `times`; returns the positions left unserved when
    /// `isCancelled` turned true.
    ///
    /// A batch whose frames fall in several independent runs (groups of frames sharing a
    /// keyframe) is served by up to one seeker per core, each with its own demuxer and decoder,
    /// taking runs in order; results are still reported one at a time and in the same order as
    /// a single seeker would report them.
    func generate(_ times: [CMTime], settings: ImageGenerationSettings, isCancelled: () -> Bool,
                  _ body: (Int, Result<GeneratedImage, any Error>) -> Void) -> [Int] {
        lock.lock()
        defer { lock.unlock() }
        if let composition = settings.videoComposition {
            return generateComposed(times, composition: composition, settings: settings, isCancelled: isCancelled, body)
        }
        if asset.engine == nil, asset.hasMedia {
            return generateFromSegments(times, settings: settings, isCancelled: isCancelled, body)
        }
        let seeker: FrameSeeker
        do {
            seeker = try openedSeeker()
        } catch {
            for i in times.indices {
                if isCancelled() { return Array(times.indices[i...]) }
                body(i, .failure(error))
            }
            return []
        }
        let requests = times.map {
            FrameSeeker.Request(time: $0, toleranceBefore: settings.toleranceBefore, toleranceAfter: settings.toleranceAfter)
        }
        let runs = times.count > 1 ? seeker.runs(for: requests) : [Array(times.indices)]
        let workers = min(Self.maximumWorkers, runs.count)
        if workers > 1, let parallel = parallelSeekers(count: workers) {
            return serve(runs: runs, requests: requests, times: times, seekers: parallel, settings: settings,
                         isCancelled: isCancelled, body)
        }
        return seeker.frames(for: requests, isCancelled: isCancelled) { i, outcome in
            body(i, image(for: outcome, seeker: seeker, settings: settings, time: times[i]))
            return true
        }
    }

    /// How many seekers one batch may use at once: one per core, at most four.
    private static let maximumWorkers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4))

    /// Serves `runs` on `seekers` in parallel; see `generate`.
    private func serve(runs: [[Int]], requests: [FrameSeeker.Request], times: [CMTime], seekers: [FrameSeeker],
                       settings: ImageGenerationSettings, isCancelled: () -> Bool,
                       _ body: (Int, Result<GeneratedImage, any Error>) -> Void) -> [Int] {
        let batch = ParallelBatch(costs: runs.map { run in seekers[0].decodeCost(of: run.map { requests[$0] }) },
                                  window: 2 * seekers.count)
        withoutActuallyEscaping(body) { body in
            withoutActuallyEscaping(isCancelled) { isCancelled in
                let calls = BatchCallbacks(report: body, isCancelled: isCancelled)
                DispatchQueue.concurrentPerform(iterations: seekers.count) { worker in
                    let seeker = seekers[worker]
                    while let k = batch.claimRun(cancelled: calls.isCancelled()) {
                        let run = runs[k]
                        var results: [(Int, Result<GeneratedImage, any Error>)] = []
                        // Each run starts from its own keyframe: drain after its last frame.
                        let left = seeker.frames(for: run.map { requests[$0] }, drainsAtEnd: true,
                                                 isCancelled: { calls.isCancelled() || batch.isStopped }) { j, outcome in
                            results.append((run[j], self.image(for: outcome, seeker: seeker, settings: settings, time: times[run[j]])))
                            return true
                        }
                        batch.finish(run: k, results: results, unserved: left.map { run[$0] }) { ready in
                            for (i, result) in ready { calls.report(i, result) }
                        }
                    }
                }
            }
        }
        return batch.unserved(runs: runs)
    }

    /// The result to report for one seeker outcome.
    private func image(for outcome: Result<FrameSeeker.Output, FrameSeekerError>, seeker: FrameSeeker,
                       settings: ImageGenerationSettings, time: CMTime, url: URL? = nil) -> Result<GeneratedImage, any Error> {
        switch outcome {
        case .success(let output):
            do {
                let image = try makeImage(output, seeker: seeker, settings: settings)
                return .success(GeneratedImage(image: image, actualTime: output.time))
            } catch {
                return .failure(error)
            }
        case .failure(let failure):
            return .failure(Self.avError(failure, time: time, url: url ?? asset.engine?.url))
        }
    }

    /// One image, synchronously.
    func generate(at time: CMTime, settings: ImageGenerationSettings, isCancelled: () -> Bool = { false }) throws -> GeneratedImage {
        var result: Result<GeneratedImage, any Error>?
        let left = generate([time], settings: settings, isCancelled: isCancelled) { _, outcome in result = outcome }
        if !left.isEmpty || result == nil { throw CancellationError() }
        return try result!.get()
    }

    // MARK: Video compositions

    /// The custom compositor the generator's composition runs (once an image was asked for).
    var customVideoCompositor: (any AVVideoCompositing)? { lock.withLock { composed?.source.session.customCompositor } }

    /// `generate` through a video composition: each time is served by the composed frame
    /// showing it — the one at `k·frameDuration` at or before it (the next one when only the
    /// tolerance after reaches it) — made by the composition's compositor from each video
    /// track's frame at that time (the tracks' sources positioned there, decoding from the
    /// keyframe before). `actualTime` is the composed frame's time. Requests are served in
    /// time order (equal times in the order given), as the seekers serve theirs.
    private func generateComposed(_ times: [CMTime], composition: AVVideoComposition, settings: ImageGenerationSettings,
                                  isCancelled: () -> Bool, _ body: (Int, Result<GeneratedImage, any Error>) -> Void) -> [Int] {
        let order = times.indices.sorted {
            let c = CMTimeCompare(times[$0], times[$1])
            return c < 0 || (c == 0 && $0 < $1)
        }
        for (n, i) in order.enumerated() {
            if isCancelled() { return Array(order[n...]) }
            body(i, Result { try composedImage(at: times[i], composition: composition, settings: settings) })
        }
        return []
    }

    private func composedImage(at time: CMTime, composition: AVVideoComposition, settings: ImageGenerationSettings) throws -> GeneratedImage {
        let source = try composedSource(composition)
        let frameDuration = composition.frameDuration
        let duration = asset.duration
        guard time.isNumeric, duration.isNumeric, duration > .zero else {
            throw Self.makeError(.noImageAtTime, "Cannot Open", reason: "The time is outside the asset.", time: time)
        }
        let clamped = min(max(time, .zero), duration)
        var k = Int64((clamped.seconds / frameDuration.seconds).rounded(.down))
        var frameTime = CMTimeMultiply(frameDuration, multiplier: Int32(clamping: k))
        // Exact rational comparison: the float estimate may be one frame off either way.
        while frameTime > clamped { k -= 1; frameTime = CMTimeMultiply(frameDuration, multiplier: Int32(clamping: k)) }
        while CMTimeAdd(frameTime, frameDuration) <= clamped, CMTimeAdd(frameTime, frameDuration) < duration {
            k += 1
            frameTime = CMTimeMultiply(frameDuration, multiplier: Int32(clamping: k))
        }
        if frameTime >= duration, k > 0 { frameTime = CMTimeMultiply(frameDuration, multiplier: Int32(clamping: k - 1)) }
        let next = CMTimeAdd(frameTime, frameDuration)
        if time - frameTime > settings.toleranceBefore, next < duration, next - time <= settings.toleranceAfter { frameTime = next }
        let range = CMTimeRange(start: frameTime, duration: frameDuration)
        if composed!.started {
            try source.reset(timeRanges: [range])
        } else {
            try source.start(timeRange: range)
            composed!.started = true
        }
        guard let sample = try source.next(), let buffer = CMSampleBufferGetImageBuffer(sample) else {
            throw Self.makeError(.noImageAtTime, "Cannot Open", reason: "The video composition made no frame at this time.", time: time)
        }
        let (width, height) = Self.fit(width: Double(CVPixelBufferGetWidth(buffer)), height: Double(CVPixelBufferGetHeight(buffer)),
                                       into: settings.maximumSize)
        do {
            let image = try FrameImage.makeCGImage(from: buffer, width: width, height: height)
            return GeneratedImage(image: image, actualTime: CMSampleBufferGetPresentationTimeStamp(sample))
        } catch {
            throw Self.avError(.conversionFailed(error), time: time, url: nil)
        }
    }

    /// The composed frames' source for `composition`, made on first need (again when the
    /// generator's composition changed).
    private func composedSource(_ composition: AVVideoComposition) throws -> ComposedReaderSource {
        if let composed, composed.composition === composition { return composed.source }
        composed?.source.cancel()
        composed = nil
        let tracks = asset.tracks.filter { $0.mediaType == .video && $0.isEnabled }
        guard !tracks.isEmpty else {
            throw Self.makeError(.noImageAtTime, "Cannot Open", reason: "The asset has no video track, so no image can be generated.")
        }
        let session = try VideoCompositionSession(composition: composition, outputFormats: [kCVPixelFormatType_32BGRA])
        let source = ComposedReaderSource(tracks: tracks, session: session, copiesSampleData: false)
        composed = (composition, source, false)
        return source
    }

    // MARK: Tracks made of segments

    /// `generate` for an asset made of segments: each requested time (target time) is mapped
    /// through the segment of the first enabled video track that shows it onto its source
    /// stream, whose seeker finds the frame; the actual time is mapped back (a frame shown
    /// across an edit counts from the edit, as the reader cuts it). Requests are served source
    /// by source, each source's in frame order.
    private func generateFromSegments(_ times: [CMTime], settings: ImageGenerationSettings, isCancelled: () -> Bool,
                                      _ body: (Int, Result<GeneratedImage, any Error>) -> Void) -> [Int] {
        guard let track = asset.tracks.first(where: { $0.mediaType == .video && $0.isEnabled }) else {
            let error = Self.makeError(.noImageAtTime, "Cannot Open", reason: "The asset has no video track, so no image can be generated.")
            for i in times.indices {
                if isCancelled() { return Array(times.indices[i...]) }
                body(i, .failure(error))
            }
            return []
        }
        let walker = segmentWalker(for: track)
        var groups: [(key: SourceTrack.Key, items: [(index: Int, segment: MediaSegment, request: FrameSeeker.Request)])] = []
        var unmapped: [Int] = []
        for (i, time) in times.enumerated() {
            guard let found = walker.lookup(time, toleranceBefore: settings.toleranceBefore, toleranceAfter: settings.toleranceAfter),
                  let source = found.segment.source else {
                unmapped.append(i)
                continue
            }
            let request = FrameSeeker.Request(time: found.time, toleranceBefore: found.toleranceBefore, toleranceAfter: found.toleranceAfter)
            if let g = groups.firstIndex(where: { $0.key == source.key }) {
                groups[g].items.append((i, found.segment, request))
            } else {
                groups.append((source.key, [(i, found.segment, request)]))
            }
        }
        for (n, i) in unmapped.enumerated() {
            if isCancelled() { return Array(unmapped[n...]) + groups.flatMap { $0.items.map(\.index) } }
            body(i, .failure(Self.makeError(.noImageAtTime, "Cannot Open", reason: "The track shows no video at this time (an empty segment).",
                                            time: times[i])))
        }
        for (g, group) in groups.enumerated() {
            let source = group.items[0].segment.source!
            let seeker: FrameSeeker
            do {
                seeker = try walker.stage(for: source)
            } catch {
                for item in group.items { body(item.index, .failure(error)) }
                continue
            }
            let left = seeker.frames(for: group.items.map(\.request), isCancelled: isCancelled) { j, outcome in
                let item = group.items[j]
                var result = image(for: outcome, seeker: seeker, settings: settings, time: times[item.index], url: source.url)
                if case .success(var generated) = result {
                    generated.actualTime = max(item.segment.targetTime(generated.actualTime), item.segment.target.start)
                    result = .success(generated)
                }
                body(item.index, result)
                return true
            }
            if !left.isEmpty { return left.map { group.items[$0].index } + groups[(g + 1)...].flatMap { $0.items.map(\.index) } }
        }
        return []
    }

    /// The walker over `track`'s segments (kept while the generator reads the same track).
    private func segmentWalker(for track: AVAssetTrack) -> SegmentWalker<FrameSeeker> {
        if let segmentWalker { return segmentWalker }
        let walker = SegmentWalker<FrameSeeker>(segments: track.mediaSegments) { source, _, cancellation in
            do throws(FrameSeekerError) {
                return try FrameSeeker(url: source.url, streamIndex: source.streamIndex, cancellation: cancellation)
            } catch {
                throw Self.avError(error, time: nil, url: source.url)
            }
        }
        segmentWalker = walker
        return walker
    }

    // MARK: Opening

    private func openedSeeker() throws -> FrameSeeker {
        if let seeker { return seeker }
        if let openError { throw openError }
        do {
            let seeker = try Self.openSeeker(for: asset)
            self.seeker = seeker
            return seeker
        } catch {
            openError = error
            throw error
        }
    }

    /// `count` single-threaded seekers on the same track (nil when one cannot be opened: the
    /// batch then runs on the main seeker).
    private func parallelSeekers(count: Int) -> [FrameSeeker]? {
        while spareSeekers.count < count {
            guard let seeker = try? Self.openSeeker(for: asset, decoderThreads: 1) else { return nil }
            spareSeekers.append(seeker)
        }
        return Array(spareSeekers.prefix(count))
    }

    /// The engine for the asset's first enabled video track. The stream facts come from the
    /// asset's own engine (opened once per asset, its errors those the asset reports); the seeker
    /// opens its own demuxer and decoder.
    private static func openSeeker(for asset: AVAsset, decoderThreads: Int = 0) throws -> FrameSeeker {
        // `AVAsset(url:)` and `AVURLAsset(url:)` both carry a URL engine; compositions (later) do not.
        guard let engine = asset.engine else {
            throw makeError(.operationNotSupportedForAsset, "The asset is not a file asset.",
                            reason: "Image generation reads media files (AVURLAsset).")
        }
        let info = try engine.loadInfo(DemuxerCancellation(timeout: URLAssetEngine.openTimeout))
        // The default enabled video track: the first video stream that is not a cover picture.
        guard let video = info.streams.first(where: { $0.kind == .video && !$0.disposition.contains(.attachedPicture) }) else {
            throw makeError(.noImageAtTime, "Cannot Open",
                            reason: "The asset has no video track, so no image can be generated.")
        }
        do {
            return try FrameSeeker(url: engine.url, streamIndex: video.index, decoderThreads: decoderThreads)
        } catch {
            throw avError(error, time: nil, url: engine.url)
        }
    }

    // MARK: Images

    private func makeImage(_ output: FrameSeeker.Output, seeker: FrameSeeker, settings: ImageGenerationSettings) throws -> CGImage {
        let stream = seeker.stream
        let buffer: CVPixelBuffer
        do {
            buffer = try output.frame.makePixelBuffer()
        } catch {
            throw Self.avError(.conversionFailed(error), time: output.time, url: nil)
        }
        let frameWidth = output.frame.width, frameHeight = output.frame.height
        // Aperture: production and clean apertures show square pixels (the sample aspect ratio
        // applied to the width); encoded pixels are the picture as stored.
        var width = Double(frameWidth), height = Double(frameHeight)
        if settings.apertureMode != .encodedPixels, let sar = stream.sampleAspectRatio, sar.horizontal > 0, sar.vertical > 0,
           sar.horizontal != sar.vertical {
            width = (width * Double(sar.horizontal) / Double(sar.vertical)).rounded()
        }
        let orientation = settings.appliesPreferredTrackTransform ? (PixelOrientation(stream.transform) ?? .identity) : .identity
        let (orientedWidth, orientedHeight) = orientation.swapsAxes ? (height, width) : (width, height)
        let (outWidth, outHeight) = Self.fit(width: orientedWidth, height: orientedHeight, into: settings.maximumSize)
        let (w, h) = orientation.swapsAxes ? (outHeight, outWidth) : (outWidth, outHeight)
        do {
            // Seekers working side by side already keep every core busy: convert on this thread.
            return try FrameImage.makeCGImage(from: buffer, width: w, height: h, orientation: orientation,
                                              converter: seeker.decoderThreads == 1 ? .singleThreaded : .shared)
        } catch {
            throw Self.avError(.conversionFailed(error), time: output.time, url: nil)
        }
    }

    /// The size of a `width`×`height` image once fitted inside `maximum` (aspect ratio kept,
    /// never enlarged; a zero dimension does not constrain; `.zero` keeps the size).
    static func fit(width: Double, height: Double, into maximum: CGSize) -> (Int, Int) {
        var scale = 1.0
        if maximum.width > 0 { scale = min(scale, Double(maximum.width) / width) }
        if maximum.height > 0 { scale = min(scale, Double(maximum.height) / height) }
        return (max(1, Int((width * scale).rounded())), max(1, Int((height * scale).rounded())))
    }

    // MARK: Errors

    static func makeError(_ code: AVError.Code, _ description: String, reason: String, underlying: (any Error)? = nil,
                          time: CMTime? = nil) -> AVError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description, NSLocalizedFailureReasonErrorKey: reason]
        if let underlying { info[NSUnderlyingErrorKey] = underlying as NSError }
        if let time, time.isNumeric { info[AVErrorTimeKey] = NSValue(time: time) }
        return AVError(code, userInfo: info)
    }

    /// The error to report for a seeker failure. Failures to open or read the file are those
    /// the asset itself reports (`AVError.from`, shared with loading); decoding failures are the
    /// generator's own.
    static func avError(_ failure: FrameSeekerError, time: CMTime?, url: URL?) -> any Error {
        let underlying = NSError(domain: "MediaEngine", code: Int(failure.code), userInfo: [NSLocalizedDescriptionKey: failure.description])
        switch failure {
        case .media(let media):
            return AVError.from(media, url: url)
        case .noFrames(let m):
            return makeError(.noImageAtTime, "Cannot Open", reason: m, underlying: underlying, time: time)
        case .decoderUnavailable(_, let m):
            return makeError(.decoderNotFound, "Cannot Decode", reason: m, underlying: underlying, time: time)
        case .decodeFailed(let m):
            return makeError(.decodeFailed, "Cannot Decode", reason: m, underlying: underlying, time: time)
        case .conversionFailed:
            return makeError(.decodeFailed, "Cannot Decode", reason: failure.description, underlying: underlying, time: time)
        case .cancelled:
            return makeError(.operationCancelled, "The operation was cancelled", reason: "The request was cancelled.", time: time)
        }
    }
}

extension FrameSeekerError {
    /// The FFmpeg code behind the failure, 0 when none.
    fileprivate var code: Int32 {
        switch self {
        case .media(let e): return e.code
        case .decoderUnavailable(let c, _): return c
        default: return 0
        }
    }
}

/// The caller's callbacks, handed to the worker threads. Safe to share: `report` is only ever
/// called by one reporter at a time (ParallelBatch serialises reporting), and the generator's
/// `isCancelled` reads state under its own lock.
private struct BatchCallbacks: @unchecked Sendable {
    let report: (Int, Result<GeneratedImage, any Error>) -> Void
    let isCancelled: () -> Bool
}

/// The shared state of a batch served by several seekers: which run each takes next, and the
/// results waiting to be reported in order by one reporter at a time.
///
/// Runs are handed out longest first (by decode cost), so that the long ones do not end the
/// batch with one seeker busy and the others idle; but only among the `window` runs from the
/// next one to report, so at most `window` runs' results wait to be reported. A seeker that
/// finds every run in the window taken waits until reporting moves on.
final class ParallelBatch: @unchecked Sendable {
    private let condition = NSCondition()
    private let costs: [Int]
    private let window: Int
    private var claimed: [Bool]
    private var claimedCount = 0
    private var nextToReport = 0
    private var reporting = false
    private var stopped = false
    /// Set once a run cut short by cancellation was reported: nothing after it is.
    private var halted = false
    private var finished: [Int: [(Int, Result<GeneratedImage, any Error>)]] = [:]
    private var incomplete: Set<Int> = []
    private var leftOver: [Int] = []

    /// A batch of runs costing `costs` (any unit; larger is served first), at most `window`
    /// (at least 1) runs ahead of reporting.
    init(costs: [Int], window: Int) {
        self.costs = costs
        self.window = max(1, window)
        self.claimed = Array(repeating: false, count: costs.count)
    }

    /// A batch of `runCount` runs of equal cost, served in order.
    convenience init(runCount: Int) {
        self.init(costs: Array(repeating: 0, count: runCount), window: max(1, runCount))
    }

    private var runCount: Int { costs.count }

    /// True once the batch was cancelled: no further runs are started.
    var isStopped: Bool { condition.withLock { stopped } }

    /// The next run to serve, or nil when all are taken or the batch is cancelled. Blocks while
    /// every untaken run lies beyond the window (until an earlier run is reported).
    func claimRun(cancelled: Bool) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        if cancelled {
            stopped = true
            condition.broadcast()
        }
        while !stopped && claimedCount < runCount {
            var best: Int?
            for k in nextToReport ..< min(runCount, nextToReport + window) where !claimed[k] {
                if best == nil || costs[k] > costs[best!] { best = k }
            }
            if let best {
                claimed[best] = true
                claimedCount += 1
                return best
            }
            condition.wait()
        }
        return nil
    }

    /// Records run `k`'s results; whoever finds no reporter active becomes it and reports every
    /// run that is ready, in run order, outside the lock.
    func finish(run k: Int, results: [(Int, Result<GeneratedImage, any Error>)], unserved: [Int],
                report: ([(Int, Result<GeneratedImage, any Error>)]) -> Void) {
        var ready: [(Int, Result<GeneratedImage, any Error>)] = []
        condition.withLock {
            finished[k] = results
            leftOver += unserved
            if !unserved.isEmpty {
                stopped = true
                incomplete.insert(k)
                condition.broadcast()
            }
            guard !reporting else { return }
            ready = takeReady()
            // Become the reporter only when there is something to report now; otherwise the
            // worker that completes the run being waited for will report.
            reporting = !ready.isEmpty
        }
        while !ready.isEmpty {
            report(ready)
            ready = condition.withLock {
                let more = takeReady()
                if more.isEmpty { reporting = false }
                return more
            }
        }
    }

    /// The results of the finished runs from `nextToReport` on, in order (under the lock).
    private func takeReady() -> [(Int, Result<GeneratedImage, any Error>)] {
        var ready: [(Int, Result<GeneratedImage, any Error>)] = []
        while !halted, let results = finished.removeValue(forKey: nextToReport) {
            ready += results
            if incomplete.contains(nextToReport) { halted = true }
            nextToReport += 1
        }
        if !ready.isEmpty { condition.broadcast() }
        return ready
    }

    /// Positions never reported: from runs cancelled part-way, never started, or finished after
    /// an earlier run was cancelled (their results are dropped, as a single seeker would not
    /// have produced them).
    func unserved(runs: [[Int]]) -> [Int] {
        condition.withLock {
            var left = leftOver
            for k in nextToReport..<runCount {
                if let results = finished[k] { left += results.map(\.0) } else if !claimed[k] { left += runs[k] }
            }
            return left
        }
    }
}
