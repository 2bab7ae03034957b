// AVAssetExportSession: exports an asset with a preset (re-encoded, or its samples copied) to a
// new file, on the reader/writer pipes (see ExportRun).
import CoreMedia
import Dispatch
import Foundation
internal import MediaEngine
import Synchronization

/// Exports the contents of an asset in the form a preset describes.
///
/// Set `outputURL` and `outputFileType` (one of `supportedFileTypes`), optionally `timeRange`,
/// `metadata` and the other options, then call `exportAsynchronously(completionHandler:)` (or
/// `await export(to:as:)`). The handler is called exactly once, whether the export completes,
/// fails or is cancelled; `status` and `error` tell which. An export never replaces an existing
/// file (`AVError.fileAlreadyExists`), and one that fails or is cancelled leaves no file behind.
///
/// Passthrough exports copy the stored samples; a time range starting between keyframes is still
/// exact: the samples from the keyframe before it are kept and an edit list hides them, so the
/// output presents the requested frame at time 0.
open class AVAssetExportSession: NSObject, @unchecked Sendable {
    /// The status of an export.
    public enum Status: Int, Sendable {
        case unknown = 0
        case waiting = 1
        case exporting = 2
        case completed = 3
        case failed = 4
        case cancelled = 5
    }

    /// The state of an export, as `states(updateInterval:)` reports it.
    public enum State: Sendable {
        /// The export has not started.
        case pending
        /// The export waits for resources.
        case waiting
        /// The export runs; `progress` tells how far it is.
        case exporting(progress: Progress)
    }

    /// The asset the session exports.
    public let asset: AVAsset
    /// The name of the session's preset.
    public let presetName: String
    let preset: ExportPreset

    /// Everything that changes after init, behind one lock.
    private struct Stored {
        var outputURL: URL?
        var fileType: AVFileType?
        var timeRange = CMTimeRange(start: .zero, duration: .positiveInfinity)
        var metadata: [AVMetadataItem]?
        var metadataItemFilter: AVMetadataItemFilter?
        var fileLengthLimit: Int64 = 0
        var shouldOptimizeForNetworkUse = false
        var audioMix: AVAudioMix?
        var videoComposition: AVVideoComposition?
        var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm = .spectral
        var canPerformMultiplePasses = false
        var allowsParallelizedExport = false
        var directoryForTemporaryFiles: URL?
        var status: Status = .unknown
        var error: (any Error)?
        var progress: Float = 0
        var started = false
        var run: ExportRun?
        var cancelRequested = false
    }
    private let state = Mutex(Stored())
    private let progressObject = Progress(totalUnitCount: 100)

    /// Creates a session for `asset` with the preset `presetName` (one of `allExportPresets()`);
    /// nil for an unknown preset.
    public init?(asset: AVAsset, presetName: String) {
        guard let preset = ExportPreset.named(presetName) else { return nil }
        self.asset = asset
        self.presetName = presetName
        self.preset = preset
        super.init()
    }

    // MARK: Presets

    /// Every preset name.
    open class func allExportPresets() -> [String] { ExportPreset.all.map(\.name) }

    /// The presets that can export `asset`.
    open class func exportPresets(compatibleWith asset: AVAsset) -> [String] {
        ExportPreset.all.filter { isCompatible($0, asset: asset, fileType: nil) }.map(\.name)
    }

    /// Finds out whether `presetName` can export `asset` into `outputFileType` (nil: any of the
    /// preset's file types), and calls `handler` with the answer.
    open class func determineCompatibility(ofExportPreset presetName: String, with asset: AVAsset, outputFileType: AVFileType?,
                                           completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async {
            handler(ExportPreset.named(presetName).map { isCompatible($0, asset: asset, fileType: outputFileType) } ?? false)
        }
    }

    /// Whether `presetName` can export `asset` into `outputFileType` (nil: any of its file types).
    open class func compatibility(ofExportPreset presetName: String, with asset: AVAsset, outputFileType: AVFileType?) async -> Bool {
        await withCheckedContinuation { continuation in
            determineCompatibility(ofExportPreset: presetName, with: asset, outputFileType: outputFileType) { continuation.resume(returning: $0) }
        }
    }

    static func isCompatible(_ preset: ExportPreset, asset: AVAsset, fileType: AVFileType?) -> Bool {
        guard asset.isReadable else { return false }
        let types = fileTypes(for: preset, asset: asset)
        if let fileType { return types.contains(fileType) }
        return !types.isEmpty
    }

    /// The file types `preset` can write for `asset`.
    static func fileTypes(for preset: ExportPreset, asset: AVAsset) -> [AVFileType] {
        let tracks = asset.tracks.filter { $0.isEnabled }
        let hasVideo = tracks.contains { $0.mediaType == .video }
        let hasAudio = tracks.contains { $0.mediaType == .audio }
        if preset.isPassthrough {
            let formats = tracks.filter { $0.mediaType == .video || $0.mediaType == .audio }
                .compactMap { $0.formatDescriptions.first.map { $0 as! CMFormatDescription } }
            guard !formats.isEmpty else { return [] }
            let candidates: [AVFileType] = [.mov, .mp4, .m4v, .m4a, .mobile3GPP, .mobile3GPP2, .caf, .wav, .aiff, .aifc]
            return candidates.filter { type in
                guard let container = WriterContainer.all[type] else { return false }
                if hasVideo && !container.mediaTypes.contains(.video) { return false }
                // A composition's tracks must be copyable as they are (ExportPlanner.segmentsProblem).
                let composed = tracks.filter { $0.isMadeOfSegments && $0.formatSource != nil }
                return formats.allSatisfy { container.canPassThrough($0) == nil }
                    && composed.allSatisfy { ExportPlanner.segmentsProblem($0, container: container) == nil }
            }
        }
        let candidates: [AVFileType]
        switch preset.video {
        case .none:
            candidates = hasAudio ? preset.fileTypes : []
        case .encode:
            candidates = hasVideo || (preset.acceptsAudioOnly && hasAudio) ? preset.fileTypes : []
        }
        // Only the types the export's plan can be written to: every setting adapted to the
        // source (rate, channels, bit rate) and accepted by the writer.
        return candidates.filter { type in
            (try? ExportPlanner.plan(asset: asset, preset: preset, fileType: type, audioMix: nil)) != nil
        }
    }

    // MARK: Output

    /// The file types the session can write.
    open var supportedFileTypes: [AVFileType] { AVAssetExportSession.fileTypes(for: preset, asset: asset) }

    /// Calls `handler` with the file types the session can write.
    open func determineCompatibleFileTypes(completionHandler handler: @escaping @Sendable ([AVFileType]) -> Void) {
        DispatchQueue.global().async { [self] in handler(supportedFileTypes) }
    }

    /// The file types the session can write.
    open var compatibleFileTypes: [AVFileType] {
        get async { supportedFileTypes }
    }

    /// Where the export is written (a file URL; no file may exist there).
    open var outputURL: URL? {
        get { self[\.outputURL] }
        set { self[\.outputURL] = newValue }
    }

    /// The type of file written (one of `supportedFileTypes`).
    open var outputFileType: AVFileType? {
        get { self[\.fileType] }
        set { self[\.fileType] = newValue }
    }

    /// The part of the asset exported; by default all of it (`start` 0, `duration` +infinity).
    open var timeRange: CMTimeRange {
        get { self[\.timeRange] }
        set { self[\.timeRange] = newValue }
    }

    /// Metadata written to the output: it replaces the source items with the same meaning
    /// and adds the others. Nil: the source asset's metadata only.
    open var metadata: [AVMetadataItem]? {
        get { self[\.metadata] }
        set { self[\.metadata] = newValue }
    }

    /// Filters the metadata written (the source's and `metadata`).
    open var metadataItemFilter: AVMetadataItemFilter? {
        get { self[\.metadataItemFilter] }
        set { self[\.metadataItemFilter] = newValue }
    }

    /// The size the output may not exceed, in bytes (0: no limit). An export reaching it ends
    /// early and completes, with the media written so far.
    open var fileLengthLimit: Int64 {
        get { self[\.fileLengthLimit] }
        set { self[\.fileLengthLimit] = newValue }
    }

    /// QuickTime family: the movie header goes first, so playback can start before the whole
    /// file has arrived.
    open var shouldOptimizeForNetworkUse: Bool {
        get { self[\.shouldOptimizeForNetworkUse] }
        set { self[\.shouldOptimizeForNetworkUse] = newValue }
    }

    /// Volume ramps applied to the audio (re-encoding presets; the audio tracks are mixed).
    open var audioMix: AVAudioMix? {
        get { self[\.audioMix] }
        set { self[\.audioMix] = newValue?.copy() as? AVAudioMix }
    }

    /// How the video tracks are composed (a copy is kept): re-encoding presets write the frames
    /// it makes — its render size (fitted to the preset's size), a frame every `frameDuration`.
    /// Passthrough presets copy the tracks' samples and do not apply it, as on Apple platforms.
    open var videoComposition: AVVideoComposition? {
        get { self[\.videoComposition] }
        set { self[\.videoComposition] = newValue?.copy() as? AVVideoComposition }
    }

    /// The instance of the video composition's `customVideoCompositorClass` the export runs,
    /// while it runs; nil with the built-in compositor or before the export starts.
    open var customVideoCompositor: (any AVVideoCompositing)? { state.withLock { $0.run }?.customVideoCompositor }

    /// How audio is stretched when its rate changes (editing); `.spectral` by default.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { self[\.audioTimePitchAlgorithm] }
        set { self[\.audioTimePitchAlgorithm] = newValue }
    }

    /// Whether the export may read the source more than once (multi-pass encoding). Accepted;
    /// exports here always make one pass.
    open var canPerformMultiplePassesOverSourceMediaData: Bool {
        get { self[\.canPerformMultiplePasses] }
        set { self[\.canPerformMultiplePasses] = newValue }
    }

    /// Whether the export may split the work across processes. Accepted; exports run in-process.
    open var allowsParallelizedExport: Bool {
        get { self[\.allowsParallelizedExport] }
        set { self[\.allowsParallelizedExport] = newValue }
    }

    /// Where temporary files go (none are made: the output is written in place).
    open var directoryForTemporaryFiles: URL? {
        get { self[\.directoryForTemporaryFiles] }
        set { self[\.directoryForTemporaryFiles] = newValue }
    }

    // MARK: Estimates

    /// The exported duration.
    private var exportedDuration: CMTime {
        let range = ExportRun.effectiveRange(timeRange, duration: asset.duration)
        return range.duration.isNumeric ? range.duration : asset.duration
    }

    /// An estimate of the output's size in bytes (0 when it cannot be estimated).
    open var estimatedOutputFileLength: Int64 {
        let seconds = exportedDuration.seconds
        guard seconds.isFinite, seconds > 0 else { return 0 }
        // Durations and sizes come from the file: an estimate past Int64 is clamped, not trapped on.
        let bytes = (estimatedBytesPerSecond * seconds).rounded()
        guard bytes.isFinite, bytes > 0 else { return bytes.isNaN || bytes <= 0 ? 0 : .max }
        let estimate = bytes < 9_223_372_036_854_775_808.0 ? Int64(bytes) : .max
        let limit = fileLengthLimit
        return limit > 0 ? min(estimate, limit) : estimate
    }

    /// The output's bytes per second of media: the preset's bit rates, or for passthrough the
    /// source tracks' own, plus about 1 % of container overhead.
    private var estimatedBytesPerSecond: Double {
        let tracks = asset.tracks.filter { $0.isEnabled }
        var bitsPerSecond = 0.0
        if preset.isPassthrough {
            for track in tracks where track.mediaType == .video || track.mediaType == .audio {
                let length = Double(track.totalSampleDataLength)
                let trackSeconds = track.timeRange.duration.seconds
                bitsPerSecond += trackSeconds > 0 ? length * 8 / trackSeconds : Double(track.estimatedDataRate)
            }
        } else {
            if case .encode(_, let box, let bitRate, _, _, _) = preset.video, let video = tracks.first(where: { $0.mediaType == .video }) {
                if let bitRate {
                    bitsPerSecond += Double(bitRate)
                } else {
                    // Quality-based presets: about the source's rate, scaled by the picture area.
                    let size = video.naturalSize
                    let fitted = ExportPreset.fittedSize(CGSize(width: abs(size.width), height: abs(size.height)), box: box)
                    let area = Double(abs(size.width * size.height))
                    bitsPerSecond += Double(video.estimatedDataRate) * (area > 0 ? Double(fitted.width * fitted.height) / area : 1)
                }
            }
            if tracks.contains(where: { $0.mediaType == .audio }) {
                switch preset.audio {
                case .aac(let bitRate, _): bitsPerSecond += Double(bitRate)
                case .lpcm:
                    bitsPerSecond += tracks.filter { $0.mediaType == .audio }.first.map { Double($0.estimatedDataRate) } ?? 0
                case .none: break
                }
            }
        }
        return bitsPerSecond / 8 * 1.01
    }

    /// Calls `handler` with `estimatedOutputFileLength`.
    open func estimateOutputFileLength(completionHandler handler: @escaping @Sendable (Int64, (any Error)?) -> Void) {
        DispatchQueue.global().async { [self] in handler(estimatedOutputFileLength, nil) }
    }

    /// An estimate of the output's size in bytes.
    open var estimatedOutputFileLengthInBytes: Int {
        get async throws { Int(estimatedOutputFileLength) }
    }

    /// The longest duration the output can have within `fileLengthLimit` (the asset's duration
    /// without a limit).
    open var maxDuration: CMTime {
        let duration = asset.duration
        let limit = fileLengthLimit
        let rate = estimatedBytesPerSecond
        guard limit > 0, duration.isNumeric, duration > .zero, rate > 0, rate * duration.seconds > Double(limit) else {
            return duration
        }
        return CMTimeMultiplyByFloat64(duration, multiplier: Double(limit) / (rate * duration.seconds))
    }

    /// Calls `handler` with `maxDuration`.
    open func estimateMaximumDuration(completionHandler handler: @escaping @Sendable (CMTime, (any Error)?) -> Void) {
        DispatchQueue.global().async { [self] in handler(maxDuration, nil) }
    }

    /// The longest duration the output can have within `fileLengthLimit`.
    open var estimatedMaximumDuration: CMTime {
        get async throws { maxDuration }
    }

    // MARK: Status

    /// The export's status. Key-value observable: `.waiting` when the export is started,
    /// `.exporting` once it runs, then `.completed`, `.failed` or `.cancelled` (observers are told
    /// on the thread that made the change, before the completion handler is called).
    open var status: Status { self[\.status] }

    /// Why the export failed or what cancelled it.
    open var error: (any Error)? { self[\.error] }

    /// How far the export is, from 0 to 1: it only rises, and is 1 once the export completes.
    open var progress: Float { self[\.progress] }

    /// One field of the state, read or written under the lock.
    private subscript<Value: Sendable>(_ field: WritableKeyPath<Stored, Value>) -> Value {
        get { state.withLock { $0[keyPath: field] } }
        set { state.withLock { $0[keyPath: field] = newValue } }
    }

    /// The export's states: the current one at once (when `states` is called, so a subscriber
    /// that comes late still sees where the export is), then each change of state (`.pending`,
    /// `.waiting`, `.exporting(progress:)`) and, with a finite `updateInterval`, the exporting
    /// progress every `updateInterval` seconds. The sequence ends when the export ends: a
    /// `State` has no completed, failed or cancelled case, so for a session that has already
    /// ended the sequence ends at once without an element (read `status` and `error`).
    public func states(updateInterval: TimeInterval = .infinity) -> some Sendable & AsyncSequence<AVAssetExportSession.State, Never> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let emitter = StateEmitter(continuation: continuation, progress: progressObject)
        // `.initial` reads and yields the current state before a change on another thread can be
        // delivered, so no change falls between the first state and the observation.
        let observation = observe(\.status, options: [.initial]) { session, _ in emitter.emit(session.state, tick: false) }
        let ticker: Task<Void, Never>? = updateInterval > 0 && updateInterval.isFinite
            ? Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: UInt64(min(updateInterval, 86_400) * 1_000_000_000))
                    guard let self, !Task.isCancelled else { return }
                    emitter.emit(self.state, tick: true)
                }
            }
            : nil
        continuation.onTermination = { _ in
            observation.invalidate()
            ticker?.cancel()
        }
        return stream
    }

    /// Turns the session's status into the `states(updateInterval:)` sequence's elements.
    private final class StateEmitter: Sendable {
        private let continuation: AsyncStream<State>.Continuation
        private let progress: Progress
        /// The status last yielded (a change is yielded once) and whether the sequence ended.
        private let emitted = Mutex<(last: Status?, ended: Bool)>((nil, false))

        init(continuation: AsyncStream<State>.Continuation, progress: Progress) {
            self.continuation = continuation
            self.progress = progress
        }

        /// Yields the session's state now — on a change of status, or every interval while
        /// exporting (`tick`) — and ends the sequence once the session has ended.
        func emit(_ session: borrowing Mutex<Stored>, tick: Bool) {
            // Read and yielded under one lock, so the changes and ticks of two threads are yielded
            // in the order they were read; the end is signalled outside it (finishing invalidates
            // the observation, which waits for a handler running on another thread).
            let ended: Bool = emitted.withLock { emitted in
                guard !emitted.ended else { return false }
                let (status, fraction) = session.withLock { ($0.status, $0.progress) }
                let state: State
                switch status {
                case .unknown: state = .pending
                case .waiting: state = .waiting
                case .exporting:
                    progress.completedUnitCount = Int64((fraction * 100).rounded(.down))
                    state = .exporting(progress: progress)
                case .completed, .failed, .cancelled:
                    emitted.ended = true
                    return true
                }
                if status != emitted.last || (tick && status == .exporting) {
                    emitted.last = status
                    continuation.yield(state)
                }
                return false
            }
            if ended { continuation.finish() }
        }
    }

    // MARK: Exporting

    /// Starts the export; `handler` is called once when it completes, fails or is cancelled.
    open func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        let begin: Status? = state.withLock {
            guard !$0.started else { return nil }
            $0.started = true
            let before = $0.status
            $0.status = .waiting
            return before
        }
        guard let before = begin else {
            WriterError.raise("AVAssetExportSession", "exportAsynchronouslyWithCompletionHandler:",
                              "Cannot call method more than once: an export session exports once")
        }
        // Observable (as on Apple platforms): .waiting now, .exporting once the run starts, then
        // .completed, .failed or .cancelled — posted on the changing thread, outside the lock.
        KVORegistry.shared.didChange(self, \AVAssetExportSession.status, old: before)
        let snapshot: Result<ExportConfiguration, AVError> = makeConfiguration()
        let thread = Thread { [self] in
            let error: (any Error)?
            switch snapshot {
            case .failure(let failure):
                error = failure
            case .success(let configuration):
                let run = ExportRun(configuration: configuration) { [weak self] value in
                    self?.state.withLock { if value > $0.progress { $0.progress = value } }
                }
                let proceed: Bool = state.withLock {
                    $0.run = run
                    if $0.cancelRequested { return false }
                    $0.status = .exporting
                    return true
                }
                if proceed { KVORegistry.shared.didChange(self, \AVAssetExportSession.status, old: .waiting) }
                error = proceed ? run.run() : ExportRun.cancelledError()
            }
            let before: Status = state.withLock {
                let before = $0.status
                $0.run = nil
                if let error {
                    $0.error = error
                    $0.status = (error as? AVError)?.code == .operationCancelled ? .cancelled : .failed
                } else {
                    $0.progress = 1
                    $0.status = .completed
                }
                return before
            }
            KVORegistry.shared.didChange(self, \AVAssetExportSession.status, old: before)
            handler()
        }
        thread.name = "AVAssetExportSession"
        thread.start()
    }

    /// The configuration to export with, or why there is none.
    private func makeConfiguration() -> Result<ExportConfiguration, AVError> {
        let settings = state.withLock { $0 }
        guard let url = settings.outputURL else {
            return .failure(AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "Cannot Export",
                                                              NSLocalizedFailureReasonErrorKey: "The export session has no output URL."]))
        }
        guard url.isFileURL else {
            return .failure(AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "Cannot Export",
                                                              NSLocalizedFailureReasonErrorKey: "The output URL \(url) is not a file URL."]))
        }
        guard let type = settings.fileType else {
            return .failure(AVError(.exportFailed, userInfo: [NSLocalizedDescriptionKey: "Cannot Export",
                                                              NSLocalizedFailureReasonErrorKey: "The export session has no output file type."]))
        }
        let supported = supportedFileTypes
        guard supported.contains(type) else {
            // Never an empty "(supported: )" list: with none, say the preset writes nothing for this asset.
            let reason = supported.isEmpty
                ? "The preset \(presetName) cannot write any file type for this asset."
                : "The preset \(presetName) cannot write \(type.rawValue) files for this asset (supported: \(supported.map(\.rawValue).joined(separator: ", ")))."
            return .failure(AVError(.operationNotSupportedForPreset, userInfo: [
                NSLocalizedDescriptionKey: "Operation Not Supported",
                NSLocalizedFailureReasonErrorKey: reason,
                AVErrorFileTypeKey: type.rawValue,
            ]))
        }
        let metadata = AVAssetExportSession.mergedMetadata(source: asset.metadata, session: settings.metadata,
                                                           filter: settings.metadataItemFilter)
        var configuration = ExportConfiguration(asset: asset, preset: preset, outputURL: url, fileType: type, timeRange: settings.timeRange,
                                                metadata: metadata, fileLengthLimit: settings.fileLengthLimit,
                                                optimizeForNetworkUse: settings.shouldOptimizeForNetworkUse, audioMix: settings.audioMix,
                                                audioTimePitchAlgorithm: settings.audioTimePitchAlgorithm,
                                                directoryForTemporaryFiles: settings.directoryForTemporaryFiles)
        configuration.videoComposition = settings.videoComposition
        return .success(configuration)
    }

    /// The source's items, those of the session replacing the ones with the same meaning (common
    /// key, shared meaning such as comment across key spaces, or identifier — as the metadata
    /// writer decides), through the filter. A session item without a value only removes.
    static func mergedMetadata(source: [AVMetadataItem], session: [AVMetadataItem]?, filter: AVMetadataItemFilter?) -> [AVMetadataItem] {
        var items = source
        if let session {
            let replaced = Set(session.compactMap(CommonKeyMapping.meaning(of:)))
            items.removeAll { CommonKeyMapping.meaning(of: $0).map(replaced.contains) == true }
            items += session.filter { $0.value != nil }
        }
        if let filter { items = AVMetadataItem.metadataItems(from: items, filteredBy: filter) }
        return items
    }

    /// Starts the export and returns when it has ended (check `status` and `error`).
    open func export() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            exportAsynchronously { continuation.resume() }
        }
    }

    /// Exports to `url` as `fileType`; throws the export's error when it fails or is cancelled
    /// (cancelling the calling task cancels the export).
    public final func export(to url: URL, as fileType: AVFileType, isolation: isolated (any Actor)? = #isolation) async throws {
        outputURL = url
        outputFileType = fileType
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                exportAsynchronously { continuation.resume() }
            }
        } onCancel: {
            cancelExport()
        }
        switch status {
        case .completed: return
        case .cancelled: throw error ?? CancellationError()
        default: throw error ?? AVError(.exportFailed, userInfo: [NSLocalizedFailureReasonErrorKey: "The export failed."])
        }
    }

    /// Cancels the export: it ends `.cancelled` (error `AVError.operationCancelled`), its
    /// partial output is deleted and the completion handler is called.
    open func cancelExport() {
        let run: ExportRun? = state.withLock {
            $0.cancelRequested = true
            return $0.run
        }
        run?.cancel()
    }

    open override var description: String {
        "<AVAssetExportSession: \(Unmanaged.passUnretained(self).toOpaque()), asset = \(asset), presetName = \(presetName), outputFileType = \(outputFileType?.rawValue ?? "(null)")>"
    }
}
