// ExportRun: one export on the shared pipes — an AVAssetReader whose track outputs give stored
// samples (passthrough) or decoded pictures and PCM, the compositor stage making one video stream
// of the video tracks, an AVAssetWriter whose inputs copy or encode them, one pump per
// source/input pair, the progress, and the end (completed, failed, cancelled).
import CoreMedia
import Dispatch
import Foundation
internal import MediaEngine
import Synchronization

/// The configuration an export runs with (a snapshot of the session's properties).
struct ExportConfiguration: @unchecked Sendable {
    var asset: AVAsset
    var preset: ExportPreset
    var outputURL: URL
    var fileType: AVFileType
    var timeRange: CMTimeRange
    var metadata: [AVMetadataItem]
    var fileLengthLimit: Int64
    var optimizeForNetworkUse: Bool
    var audioMix: AVAudioMix?
    var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm
    var directoryForTemporaryFiles: URL?
    /// The session's video composition (re-encoding presets apply it).
    var videoComposition: AVVideoComposition?
}

extension AVMediaType {
    /// The media type as a word for messages ("audio", "video", "closed caption"), where its raw
    /// value is a four-character code ("soun", "vide", "clcp").
    var spokenName: String {
        switch self {
        case .audio: return "audio"
        case .video: return "video"
        case .text: return "text"
        case .closedCaption: return "closed caption"
        case .subtitle: return "subtitle"
        case .timecode: return "timecode"
        case .metadata: return "metadata"
        case .muxed: return "muxed"
        case .haptic: return "haptic"
        case .depthData: return "depth data"
        case .metadataObject: return "metadata object"
        case .auxiliaryPicture: return "auxiliary picture"
        default: return "'\(rawValue)'"
        }
    }
}

/// Runs one export. `run()` blocks until the export has ended and returns its error (nil:
/// completed); `cancel()` may be called from any thread.
final class ExportRun: @unchecked Sendable {
    let configuration: ExportConfiguration
    /// What changes while the export runs, behind one lock.
    private struct State {
        var reader: AVAssetReader?
        var writer: AVAssetWriter?
        var activePairs: [ExportPair] = []
        var cancelled = false
        var fileLimitReached = false
        var progress: Float = 0
        var compositionOutput: AVAssetReaderVideoCompositionOutput?
    }
    private let state = Mutex(State())
    /// Called with each new progress value (under no lock).
    private let onProgress: @Sendable (Float) -> Void

    init(configuration: ExportConfiguration, onProgress: @escaping @Sendable (Float) -> Void) {
        self.configuration = configuration
        self.onProgress = onProgress
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The custom compositor the export's video composition runs, once reading has started.
    var customVideoCompositor: (any AVVideoCompositing)? { state.withLock { $0.compositionOutput }?.customVideoCompositor }
    private var fileLimitReached: Bool { state.withLock { $0.fileLimitReached } }

    func cancel() {
        let (reader, writer, pairs) = state.withLock {
            $0.cancelled = true
            return ($0.reader, $0.writer, $0.activePairs)
        }
        reader?.cancelReading()
        if let writer, writer.status == .writing || writer.status == .unknown { writer.cancelWriting() }
        // Pumps waiting for readiness that will not come end here.
        for pair in pairs { pair.end() }
    }

    static func cancelledError() -> AVError {
        AVError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "Operation Cancelled",
                                                NSLocalizedFailureReasonErrorKey: "The export was cancelled."])
    }

    /// The time range exported: the session's, within the asset.
    static func effectiveRange(_ range: CMTimeRange, duration: CMTime) -> CMTimeRange {
        let full = CMTimeRange(start: .zero, duration: duration.isNumeric ? duration : .positiveInfinity)
        guard range.isValid, range.start.isNumeric else { return full }
        let start = max(range.start.isNumeric ? range.start : .zero, .zero)
        var end = range.duration.isNumeric ? CMTimeAdd(start, range.duration) : full.end
        if full.end.isNumeric, end > full.end { end = full.end }
        return CMTimeRange(start: start, end: end)
    }

    /// Runs the export to its end; nil when it completed. Whatever a cancel interrupted (a reader
    /// cancelled before it started reading, a writer before it started writing) ends cancelled.
    func run() -> (any Error)? {
        let error = runSteps()
        if error != nil, isCancelled {
            if let writer = state.withLock({ $0.writer }), writer.status == .writing { writer.cancelWriting() }
            return ExportRun.cancelledError()
        }
        return error
    }

    private func runSteps() -> (any Error)? {
        let c = configuration
        let url = c.outputURL
        if FileManager.default.fileExists(atPath: url.path) {
            return AVError(.fileAlreadyExists, userInfo: [
                NSLocalizedDescriptionKey: "Cannot Save",
                NSLocalizedFailureReasonErrorKey: "A file already exists at \(url.path).",
                NSURLErrorKey: url,
            ])
        }
        let duration = c.asset.duration
        let range = ExportRun.effectiveRange(c.timeRange, duration: duration)
        guard range.duration > .zero || range.duration.isPositiveInfinity else {
            return AVError(.invalidSourceMedia, userInfo: [NSLocalizedDescriptionKey: "Cannot Export",
                                                           NSLocalizedFailureReasonErrorKey: "The time range to export is empty."])
        }
        var plans: [ExportTrackPlan]
        let reader: AVAssetReader
        let writer: AVAssetWriter
        // A passthrough of tracks made of segments reads their pieces laid out one after another
        // (PassthroughLayout) and writes edit lists that present them at their times.
        var layouts: [PassthroughLayout] = []
        do {
            if let composition = c.videoComposition, !c.preset.isPassthrough { try VideoCompositionSession.check(composition) }
            plans = try ExportPlanner.plan(asset: c.asset, preset: c.preset, fileType: c.fileType, audioMix: c.audioMix,
                                           videoComposition: c.videoComposition)
            var source = c.asset
            if c.preset.isPassthrough, plans.contains(where: { $0.tracks[0].isMadeOfSegments }) {
                (source, plans, layouts) = try ExportRun.layOut(plans, range: range)
            }
            reader = try AVAssetReader(asset: source)
            writer = try AVAssetWriter(outputURL: url, fileType: c.fileType)
        } catch {
            return error
        }
        let whole = range.start == .zero && (range.end == duration || !range.end.isNumeric)
        if !whole, layouts.isEmpty { reader.timeRange = range }
        var pairs: [ExportPair] = []
        var compactors: [PassthroughCompactor] = []
        for plan in plans {
            let outputs: [AVAssetReaderOutput]
            if plan.useAudioMix {
                let mix = AVAssetReaderAudioMixOutput(audioTracks: plan.tracks, audioSettings: plan.readerSettings)
                mix.audioMix = c.audioMix
                mix.audioTimePitchAlgorithm = c.audioTimePitchAlgorithm
                outputs = [mix]
            } else if plan.useVideoComposition {
                let composed = AVAssetReaderVideoCompositionOutput(videoTracks: plan.tracks, videoSettings: plan.readerSettings)
                composed.videoComposition = c.videoComposition
                state.withLock { $0.compositionOutput = composed }
                outputs = [composed]
            } else {
                // Video tracks are read one output each, for the compositor stage.
                outputs = plan.tracks.map { track in
                    let trackOutput = AVAssetReaderTrackOutput(track: track, outputSettings: plan.readerSettings)
                    if plan.mediaType == .audio { trackOutput.audioTimePitchAlgorithm = c.audioTimePitchAlgorithm }
                    return trackOutput
                }
            }
            let input = AVAssetWriterInput(mediaType: plan.mediaType, outputSettings: plan.writerSettings, sourceFormatHint: plan.hint)
            input.transform = plan.transform
            input.languageCode = plan.languageCode
            if plan.mediaTimeScale > 0 { input.mediaTimeScale = plan.mediaTimeScale }
            input.expectsMediaDataInRealTime = false
            if plan.mediaType == .video { input.encoderSpeedPreset = c.preset.speed }
            for output in outputs {
                output.alwaysCopiesSampleData = false
                guard reader.canAdd(output) else {
                    return ExportPlanner.unsupported("The \(plan.mediaType.spokenName) track cannot be read for this export.")
                }
            }
            guard writer.canAdd(input) else {
                return ExportPlanner.unsupported("The \(plan.mediaType.spokenName) track with settings {\(plan.settingsSummary)} "
                                                 + "cannot be written to a \(c.fileType.rawValue) file.")
            }
            for output in outputs { reader.add(output) }
            writer.add(input)
            let next: () -> CMSampleBuffer?
            if let layout = layouts.first(where: { $0.trackID == plan.tracks.first?.trackID }) {
                // Laid-out pieces are written one after another (see PassthroughCompactor).
                let compactor = PassthroughCompactor(layout)
                compactors.append(compactor)
                let output = outputs[0]
                next = {
                    guard let sample = output.copyNextSampleBuffer() else { return nil }
                    return try? compactor.compact(sample)
                }
            } else if plan.mediaType == .video, plan.readerSettings != nil, !plan.useVideoComposition {
                let sources = zip(plan.tracks, outputs).map { track, output in
                    VideoCompositorStage.Source(trackID: track.trackID, timeRange: track.timeRange, next: output.copyNextSampleBuffer)
                }
                let stage = VideoCompositorStage(sources: sources, instructions: VideoCompositorStage.frontMostInstructions(
                    ranges: sources.map(\.timeRange), within: range))
                next = stage.copyNextSampleBuffer
            } else {
                next = outputs[0].copyNextSampleBuffer
            }
            pairs.append(ExportPair(next: next, input: input))
        }
        writer.metadata = c.metadata
        writer.shouldOptimizeForNetworkUse = c.optimizeForNetworkUse
        if let directory = c.directoryForTemporaryFiles { writer.directoryForTemporaryFiles = directory }
        let proceed: Bool = state.withLock {
            $0.reader = reader
            $0.writer = writer
            return !$0.cancelled
        }
        guard proceed else { return ExportRun.cancelledError() }
        guard reader.startReading() else {
            return reader.error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The source cannot be read."])
        }
        guard writer.startWriting() else {
            reader.cancelReading()
            return writer.error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The output cannot be written."])
        }
        // Laid-out media starts at zero; progress is the share of it written.
        let laidEnd = layouts.compactMap { $0.placedSegments.last?.target.end }.max()
        let sessionStart = laidEnd == nil ? range.start : .zero
        writer.startSession(atSourceTime: sessionStart)

        let group = DispatchGroup()
        let progressDuration = laidEnd ?? (range.duration.isNumeric ? range.duration : duration)
        let allPairs = pairs
        // Every pair is in the group before any pump starts: a pump that finds the source
        // damaged ends all pairs at once (stopAll), and a pair ended before its onEnd was set
        // would never leave the group (the export hung).
        for pair in allPairs {
            group.enter()
            pair.onEnd = { group.leave() }
        }
        for (index, pair) in allPairs.enumerated() {
            let queue = DispatchQueue(label: "AVAssetExportSession.track\(index)")
            pair.input.requestMediaDataWhenReady(on: queue) { [self] in
                pump(pair, reader: reader, writer: writer, pairs: allPairs, start: sessionStart, duration: progressDuration)
            }
        }
        state.withLock { $0.activePairs = pairs }
        if isCancelled { for pair in pairs { pair.end() } }
        group.wait()

        if isCancelled {
            if writer.status == .writing { writer.cancelWriting() }
            return ExportRun.cancelledError()
        }
        if reader.status == .failed || writer.status == .failed {
            let error = reader.status == .failed ? reader.error : writer.error
            reader.cancelReading()
            if writer.status == .writing { writer.cancelWriting() }
            try? FileManager.default.removeItem(at: url)
            return error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The export failed."])
        }
        var end = range.end
        if fileLimitReached {
            end = pairs.map { $0.lastEnd ?? range.start }.min() ?? range.start
        }
        if !layouts.isEmpty {
            // The edit lists present the pieces (the media written for decoding stays hidden).
            for (pair, (layout, compactor)) in zip(pairs, zip(layouts, compactors)) {
                writer.setMovieEdits(layout.edits(shifts: compactor.shifts, origin: pair.firstTime ?? .zero), for: pair.input)
            }
        } else if end.isNumeric, end > range.start {
            // The session ends at the range's end even for the whole asset: stored AAC packets
            // are whole frames, and the end of the movie's edit hides their padding (the
            // source's decoded length is kept, not rounded up to a frame).
            writer.endSession(atSourceTime: end)
        }
        let finished = DispatchSemaphore(value: 0)
        writer.finishWriting { finished.signal() }
        finished.wait()
        if isCancelled {
            try? FileManager.default.removeItem(at: url)
            return ExportRun.cancelledError()
        }
        if writer.status != .completed {
            try? FileManager.default.removeItem(at: url)
            return writer.error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The export failed."])
        }
        return nil
    }

    /// The passthrough of tracks made of segments: each plan's track laid out over `range`, the
    /// asset of the laid-out media to read, and the plans reading it (a track showing nothing in
    /// the range is left out).
    static func layOut(_ plans: [ExportTrackPlan], range: CMTimeRange) throws
        -> (asset: AVAsset, plans: [ExportTrackPlan], layouts: [PassthroughLayout]) {
        var kept: [(plan: ExportTrackPlan, layout: PassthroughLayout)] = []
        for plan in plans {
            let layout = try PassthroughLayout(track: plan.tracks[0], range: range, timescale: plan.mediaTimeScale > 0 ? plan.mediaTimeScale : 600)
            if !layout.pieces.isEmpty { kept.append((plan, layout)) }
        }
        guard !kept.isEmpty else { throw ExportPlanner.unsupported("No track presents media in the time range to export.") }
        let asset = AVAsset(segmentedTracks: kept.map { (trackID: $0.layout.trackID, segments: $0.layout.placedSegments) })
        let tracks = asset.tracks
        let laidPlans = kept.map { item -> ExportTrackPlan in
            var plan = item.plan
            plan.tracks = tracks.filter { $0.trackID == item.layout.trackID }
            return plan
        }
        return (asset, laidPlans, kept.map(\.layout))
    }

    /// Moves samples from a pair's output to its input while the input is ready.
    private func pump(_ pair: ExportPair, reader: AVAssetReader, writer: AVAssetWriter, pairs: [ExportPair], start: CMTime, duration: CMTime) {
        guard !pair.ended else { return }
        if isCancelled || writer.status != .writing {
            pair.end()
            return
        }
        var appended = 0
        while pair.input.isReadyForMoreMediaData {
            if isCancelled || fileLimitReached {
                pair.input.markAsFinished()
                pair.end()
                return
            }
            guard let sample = pair.next() else {
                guard reader.status != .failed else {
                    // The source failed (damaged, truncated or gone while exporting): stop every
                    // pair now. The other inputs may wait for this one (interleaving) and this
                    // one, never finished, would stay ready; cancelling the writer ends both.
                    stopAll(pairs: pairs, writer: writer)
                    return
                }
                pair.input.markAsFinished()
                pair.end()
                return
            }
            let pts = CMSampleBufferGetPresentationTimeStamp(sample)
            let sampleDuration = CMSampleBufferGetDuration(sample)
            guard pair.input.append(sample) else {
                pair.end()
                return
            }
            if pair.firstTime == nil {
                let dts = CMSampleBufferGetDecodeTimeStamp(sample)
                pair.firstTime = dts.isNumeric ? dts : pts
            }
            if pts.isNumeric {
                let sampleEnd = sampleDuration.isNumeric ? CMTimeAdd(pts, sampleDuration) : pts
                pair.lastEnd = max(pair.lastEnd ?? sampleEnd, sampleEnd)
            }
            appended += 1
            if appended % 16 == 0 { report(pairs: pairs, start: start, duration: duration) }
            if configuration.fileLengthLimit > 0, appended % 8 == 0, fileSize() >= configuration.fileLengthLimit * 97 / 100 {
                state.withLock { $0.fileLimitReached = true }
            }
        }
        report(pairs: pairs, start: start, duration: duration)
    }

    /// Ends every pair after a reading failure: the writer is cancelled (its requesters stop and
    /// its partial file goes) and `runSteps` reports the reader's error.
    private func stopAll(pairs: [ExportPair], writer: AVAssetWriter) {
        if writer.status == .writing { writer.cancelWriting() }
        for pair in pairs { pair.end() }
    }

    private func fileSize() -> Int64 {
        var info = stat()
        return stat(configuration.outputURL.path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Publishes the progress: the least advanced unfinished pair's share of the range, never
    /// falling, below 1 until the file is complete.
    private func report(pairs: [ExportPair], start: CMTime, duration: CMTime) {
        guard duration.isNumeric, duration > .zero else { return }
        var least = 1.0
        for pair in pairs where !pair.ended {
            let done = pair.lastEnd.map { CMTimeSubtract($0, start).seconds / duration.seconds } ?? 0
            least = min(least, done)
        }
        let value = Float(min(0.99, max(0, least)))
        let changed: Bool = state.withLock {
            guard value > $0.progress else { return false }
            $0.progress = value
            return true
        }
        if changed { onProgress(value) }
    }
}

/// One source (a reader output, or the compositor stage over several) feeding one writer input.
/// `next` is called from the input's queue only.
final class ExportPair: @unchecked Sendable {
    let next: () -> CMSampleBuffer?
    let input: AVAssetWriterInput
    /// Whether the pair has ended, the latest source time written (sample end) and the decode
    /// time of the first sample written.
    private let state = Mutex((ended: false, lastEnd: CMTime?.none, firstTime: CMTime?.none))
    var onEnd: (@Sendable () -> Void)?

    init(next: @escaping () -> CMSampleBuffer?, input: AVAssetWriterInput) {
        self.next = next
        self.input = input
    }

    var ended: Bool { state.withLock { $0.ended } }

    /// The latest source time written (sample end).
    var lastEnd: CMTime? {
        get { state.withLock { $0.lastEnd } }
        set { state.withLock { $0.lastEnd = newValue } }
    }

    /// The decode time (else presentation time) of the first sample written.
    var firstTime: CMTime? {
        get { state.withLock { $0.firstTime } }
        set { state.withLock { $0.firstTime = newValue } }
    }

    /// Ends the pair once.
    func end() {
        let first: Bool = state.withLock { pair in
            defer { pair.ended = true }
            return !pair.ended
        }
        if first { onEnd?() }
    }
}
