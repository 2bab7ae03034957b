// AVAssetWriter: writes media samples to a new file (QuickTime movie, MPEG-4, M4V, M4A, 3GPP,
// CAF, WAVE, AIFF, AIFC) with libavformat, encoding with libavcodec where inputs ask for it.
import CoreGraphics
import CoreMedia
import Dispatch
import Foundation
internal import MediaEngine
import Synchronization

/// Writes media data to a new file.
///
/// Configure the writer and its inputs, call `startWriting()`, start a session with
/// `startSession(atSourceTime:)`, append samples to the inputs while they are ready, then call
/// `finishWriting(completionHandler:)` (or `await finishWriting()`). A writer writes one file
/// once, never over an existing file.
///
/// Session timing: the session's start time is movie time 0. In QuickTime-family files samples
/// before it stay in the media and are edited out (an edit list), and a track whose first sample
/// comes later starts with an empty edit; in the other containers samples wholly before it are
/// dropped and linear PCM is trimmed to the frame. Samples at or after the session's end time
/// (`endSession(atSourceTime:)`) are dropped and the last sample lasts until that time.
open class AVAssetWriter: NSObject, WriterConfigurable, @unchecked Sendable {
    /// The writer's status.
    public enum Status: Int, Sendable {
        /// Configuring; writing has not started.
        case unknown = 0
        /// Writing samples.
        case writing = 1
        /// Every sample was written and the file is complete.
        case completed = 2
        /// Writing failed; see `error`.
        case failed = 3
        /// `cancelWriting()` stopped writing.
        case cancelled = 4
    }

    /// The file the writer writes.
    public let outputURL: URL
    /// The type of file the writer writes.
    public let outputFileType: AVFileType

    let container: WriterContainer
    /// Everything that changes after init, behind one lock.
    struct State {
        var status: Status = .unknown
        var error: (any Error)?
        var inputs: [AVAssetWriterInput] = []
        var metadata: [AVMetadataItem] = []
        var shouldOptimizeForNetworkUse = false
        var movieFragmentInterval: CMTime = .invalid
        var overallDurationHint: CMTime = .invalid
        var movieTimeScale: CMTimeScale = 0
        var directoryForTemporaryFiles: URL?
        var engine: WriterEngine?
        var finishing = false
        /// A capture recording's way of writing (MovieRecorder); nil for an ordinary writer.
        var recording: WriterRecordingOptions?
    }
    private let state = Mutex(State())

    /// Creates a writer for a file of `outputFileType` at `outputURL` (a file URL). Throws an
    /// `AVError` (`.formatUnsupported`) for file types this writer does not produce.
    public init(outputURL: URL, fileType outputFileType: AVFileType) throws {
        if !outputURL.isFileURL {
            WriterError.raise("AVAssetWriter", "initWithURL:fileType:error:", "invalid parameter not satisfying: [outputURL isFileURL]")
        }
        guard let container = WriterContainer.all[outputFileType] else {
            throw AVError(.formatUnsupported, userInfo: [
                NSLocalizedDescriptionKey: "Cannot Save",
                NSLocalizedFailureReasonErrorKey: "AVAssetWriter cannot write files of type \(outputFileType.rawValue).",
                AVErrorFileTypeKey: outputFileType.rawValue,
            ])
        }
        self.outputURL = outputURL
        self.outputFileType = outputFileType
        self.container = container
        super.init()
    }

    /// Creates a writer for a file of `outputFileType` at `outputURL`.
    public convenience init(url outputURL: URL, fileType outputFileType: AVFileType) throws {
        try self.init(outputURL: outputURL, fileType: outputFileType)
    }

    // MARK: State

    /// The writer's status. Key-value observable: observers are told each change, on the thread
    /// that made it (`startWriting()`'s, `finishWriting`'s background queue, a failing worker's).
    open var status: Status { self[\.status] }

    /// Why writing failed, when `status` is `.failed`.
    open var error: (any Error)? { self[\.error] }

    /// The media types the file type can hold (of those this writer encodes or copies).
    open var availableMediaTypes: [AVMediaType] { container.mediaTypes }

    /// The writer's inputs, in the order they were added.
    open var inputs: [AVAssetWriterInput] { self[\.inputs] }

    private func checkConfigurable(_ selector: String) {
        WriterError.checkSetter("AVAssetWriter", selector, status: status.rawValue)
    }

    static var exceptionClassName: String { "AVAssetWriter" }
    var configurationStatus: Int { status.rawValue }
    func withFields<R: Sendable>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }

    /// File-level metadata. QuickTime-family files get it as their own boxes (iTunes items for
    /// MP4/M4V/M4A/3GP; QuickTime metadata, user data and iTunes items for MOV) written when
    /// writing finishes; WAVE, AIFF and CAF files as their container's tags.
    open var metadata: [AVMetadataItem] {
        get { self[\.metadata] }
        set { configure(\.metadata, newValue, "setMetadata:") }
    }

    /// QuickTime family: put the movie header first, so playback can start before the whole
    /// file has been read (a second pass when writing finishes).
    open var shouldOptimizeForNetworkUse: Bool {
        get { self[\.shouldOptimizeForNetworkUse] }
        set { configure(\.shouldOptimizeForNetworkUse, newValue, "setShouldOptimizeForNetworkUse:") }
    }

    /// QuickTime family: write movie fragments this often, so a file whose writing is
    /// interrupted stays readable up to its last complete fragment. `.invalid` (the default): none.
    open var movieFragmentInterval: CMTime {
        get { self[\.movieFragmentInterval] }
        set {
            configure(\.movieFragmentInterval, newValue, "setMovieFragmentInterval:", valid: !newValue.isValid || newValue >= .zero,
                      requirement: "CMTIME_COMPARE_INLINE(interval, >=, kCMTimeZero)")
        }
    }

    /// The expected duration of the file: a hint, checked as Apple checks it. The containers
    /// written here need none (their headers are sized when writing finishes).
    open var overallDurationHint: CMTime {
        get { self[\.overallDurationHint] }
        set {
            configure(\.overallDurationHint, newValue, "setOverallDurationHint:",
                      valid: !newValue.isValid || (newValue.isNumeric && newValue >= .zero),
                      requirement: "(CMTIME_IS_NUMERIC(hint) && CMTIME_COMPARE_INLINE(hint, >=, kCMTimeZero)) || CMTIME_IS_INVALID(hint)")
        }
    }

    /// QuickTime family: the movie header's timescale; 0 (the default) chooses 600.
    open var movieTimeScale: CMTimeScale {
        get { self[\.movieTimeScale] }
        set { configure(\.movieTimeScale, newValue, "setMovieTimeScale:", valid: newValue >= 0, requirement: "movieTimeScale >= 0") }
    }

    /// Where temporary files go; must be writable when set. (Fast start rewrites the output file
    /// in place, so no temporary file is made.)
    open var directoryForTemporaryFiles: URL? {
        get { self[\.directoryForTemporaryFiles] }
        set { configure(\.directoryForTemporaryFiles, newValue, "setDirectoryForTemporaryFiles:") }
    }

    // MARK: Inputs

    /// Whether an input with `outputSettings` (nil: passthrough) for `mediaType` can be added.
    open func canApply(outputSettings: [String: Any]?, forMediaType mediaType: AVMediaType) -> Bool {
        guard let outputSettings else { return container.mediaTypes.contains(mediaType) }
        switch WriterOutputSettings.parse(outputSettings, mediaType: mediaType) {
        case .success(let settings): return applyReason(settings, mediaType: mediaType, hint: nil) == nil
        case .failure: return false
        }
    }

    /// Why settings cannot be applied; nil when they can.
    private func applyReason(_ settings: WriterOutputSettings?, mediaType: AVMediaType, hint: CMFormatDescription?) -> String? {
        guard container.mediaTypes.contains(mediaType) else {
            return "media type \(mediaType.rawValue) is not allowed for this asset writer"
        }
        switch settings {
        case let settings?:
            return container.canEncode(settings, hint: hint)
        case nil:
            if let hint { return container.canPassThrough(hint) }
            if outputFileType != .mov {
                return "In order to perform passthrough to file type \(outputFileType.rawValue), please provide a format hint in the AVAssetWriterInput initializer"
            }
            return nil
        }
    }

    private func addReason(_ input: AVAssetWriterInput) -> String? {
        if inputs.contains(where: { $0 === input }) { return "the input has already been added to this asset writer" }
        if input.isAttached { return "the input has already been added to another asset writer" }
        if let reason = input.unsupportedReason { return reason }
        return applyReason(input.parsedSettings, mediaType: input.mediaType, hint: input.sourceFormatHint)
    }

    /// Whether `input` can be added.
    open func canAdd(_ input: AVAssetWriterInput) -> Bool {
        status == .unknown && addReason(input) == nil
    }

    /// Adds `input`. Raises (as Apple's does) after `startWriting()` or when it cannot be added.
    open func add(_ input: AVAssetWriterInput) {
        checkConfigurable("addInput:")
        if let reason = addReason(input) { WriterError.raise("AVAssetWriter", "addInput:", reason) }
        state.withLock { $0.inputs.append(input) }
        input.attach(to: self)
    }

    // MARK: Writing

    /// Creates the output file and prepares the inputs. Returns false, with `status` `.failed`
    /// and `error` set, when the file cannot be created — for example because a file already
    /// exists there (`AVError.fileAlreadyExists`).
    @discardableResult
    open func startWriting() -> Bool {
        checkConfigurable("startWriting")
        if let directory = directoryForTemporaryFiles {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) || !isDirectory.boolValue
                || access(directory.path, W_OK) != 0 {
                transitionToFailed(AVError(.unknown, userInfo: [
                    NSLocalizedFailureReasonErrorKey: "The directory for temporary files \(directory.path) is not writable.",
                    NSURLErrorKey: directory]))
                return false
            }
        }
        var options = Muxer.Options(formatName: container.muxer)
        let writesBoxes = WriterMetadata.writesBoxes(metadata, container: container)
        options.metadata = container.isQuickTime ? [] : WriterMetadata.tags(metadata)
        if container.isQuickTime {
            let fragment = movieFragmentInterval
            options.fragmentInterval = fragment.isNumeric && fragment > .zero ? fragment : nil
            options.fastStart = shouldOptimizeForNetworkUse && !writesBoxes
            options.movieTimescale = movieTimeScale > 0 ? movieTimeScale : AVAssetWriter.convenientMovieTimescale(for: inputs)
        }
        let url = outputURL
        let recording = state.withLock { $0.recording }
        do {
            let engine = try WriterEngine(url: url, container: container, options: options, recording: recording) { [weak self] error in
                self?.transitionToFailed(error)
            }
            let inputs = self.inputs
            engine.attach(inputs)
            let before: Status = state.withLock {
                $0.engine = engine
                let before = $0.status
                $0.status = .writing
                return before
            }
            didChangeStatus(from: before)
            for (input, track) in zip(inputs, engine.tracks) { input.start(track: track) }
            return true
        } catch {
            transitionToFailed(AVError.from(error, writingTo: url))
            return false
        }
    }

    /// Starts the session: samples at `startTime` (source time) are written at movie time 0.
    open func startSession(atSourceTime startTime: CMTime) {
        if !startTime.isNumeric {
            WriterError.raise("AVAssetWriter", "startSessionAtSourceTime:", "invalid parameter not satisfying: CMTIME_IS_NUMERIC(startTime)")
        }
        let status = self.status
        guard status == .writing, let engine else {
            WriterError.raise("AVAssetWriter", "startSessionAtSourceTime:", "Cannot call method when status is \(status.rawValue)")
        }
        if !engine.startSession(at: startTime) {
            WriterError.raise("AVAssetWriter", "startSessionAtSourceTime:",
                              "Cannot start a second session: this asset writer writes one session per file")
        }
        engine.readinessChanged()
    }

    /// Ends the session at `endTime`: later samples are not written and the last sample lasts
    /// until `endTime`.
    open func endSession(atSourceTime endTime: CMTime) {
        if !endTime.isNumeric {
            WriterError.raise("AVAssetWriter", "endSessionAtSourceTime:", "invalid parameter not satisfying: CMTIME_IS_NUMERIC(endTime)")
        }
        let status = self.status
        guard status == .writing, let engine else {
            WriterError.raise("AVAssetWriter", "endSessionAtSourceTime:", "Cannot call method when status is \(status.rawValue)")
        }
        if engine.sessionStart == nil {
            WriterError.raise("AVAssetWriter", "endSessionAtSourceTime:", "Cannot end a session without first starting a session")
        }
        engine.endSession(at: endTime)
    }

    /// Marks every input finished, writes what remains and completes the file, then calls
    /// `handler` (on a background queue). Check `status` and `error` in the handler.
    open func finishWriting(completionHandler handler: @escaping @Sendable () -> Void) {
        let status = self.status
        switch status {
        case .unknown, .completed:
            WriterError.raise("AVAssetWriter", "finishWritingWithCompletionHandler:", "Cannot call method when status is \(status.rawValue)")
        case .failed, .cancelled:
            DispatchQueue.global().async { handler() }
            return
        case .writing:
            break
        }
        let engine: WriterEngine? = state.withLock {
            guard !$0.finishing else { return nil }
            $0.finishing = true
            return $0.engine
        }
        guard let engine else {
            WriterError.raise("AVAssetWriter", "finishWritingWithCompletionHandler:", "Cannot call method while writing is finishing")
        }
        for input in inputs { input.markFinishedForFinish() }
        DispatchQueue.global().async { [self] in
            if engine.finish() == nil {
                do {
                    if WriterMetadata.writesBoxes(metadata, container: container) {
                        try WriterMetadata.writeBoxes(metadata, to: outputURL, fastStart: shouldOptimizeForNetworkUse)
                    }
                    let completed: Bool = state.withLock {
                        guard $0.status == .writing else { return false }
                        $0.status = .completed
                        return true
                    }
                    if completed { didChangeStatus(from: .writing) }
                } catch {
                    // A recording keeps its file: the metadata pass replaces it only when done.
                    if state.withLock({ $0.recording == nil }) { unlink(outputURL.path) }
                    transitionToFailed(error)
                }
            }
            handler()
        }
    }

    /// Marks every input finished, writes what remains and completes the file.
    open func finishWriting() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            finishWriting { continuation.resume() }
        }
    }

    /// Stops writing and deletes the output file. Blocks until writing has stopped.
    open func cancelWriting() {
        let cancelled: (before: Status, engine: WriterEngine?)? = state.withLock {
            guard $0.status == .unknown || $0.status == .writing else { return nil }
            let before = $0.status
            $0.status = .cancelled
            return (before, $0.engine)
        }
        if let cancelled { didChangeStatus(from: cancelled.before) }
        cancelled?.engine?.cancel()
        for input in inputs { input.nudgeRequester() }
    }

    /// Records a failure (the first one wins) and lets requesters discover it.
    func transitionToFailed(_ error: any Error) {
        let before: Status? = state.withLock {
            guard $0.status == .unknown || $0.status == .writing else { return nil }
            let before = $0.status
            $0.status = .failed
            $0.error = error
            return before
        }
        guard let before else { return }
        didChangeStatus(from: before)
        for input in inputs { input.writerDidFail() }
    }

    /// Tells `status`'s observers that it changed from `before` (call with no lock held).
    private func didChangeStatus(from before: Status) {
        KVORegistry.shared.didChange(self, \AVAssetWriter.status, old: before)
    }

    /// Gives `input`'s track the edit list `edits` when the file is finished, in place of the
    /// muxer's (QuickTime-family movies; a composition copied by passthrough). Call while writing.
    func setMovieEdits(_ edits: [MovieEdit], for input: AVAssetWriterInput) {
        guard let index = inputs.firstIndex(where: { $0 === input }) else { return }
        engine?.setMovieEdits(edits, forTrackAt: index)
    }

    // MARK: Recording (MovieRecorder)

    /// Makes this writer write as a capture recording does (set before `startWriting()`): movie
    /// fragments cut at video keyframes every `fragmentInterval` with an empty movie header on disk
    /// from the start, and a file kept up to its last complete fragment when writing fails.
    func setRecordingOptions(_ options: WriterRecordingOptions) {
        state.withLock { $0.recording = options }
    }

    /// Replaces the file-level metadata while writing (a recording's metadata may change until it
    /// finishes; the items are written when writing finishes).
    func setRecordingMetadata(_ items: [AVMetadataItem]) {
        state.withLock { $0.metadata = items }
    }

    /// The size of the file so far (on disk plus the open fragment); 0 before writing.
    var recordedFileSize: Int64 { engine?.recordedFileSize ?? 0 }

    /// Complete movie fragments on disk.
    var fragmentsWritten: Int { engine?.fragmentsWritten ?? 0 }

    /// Video packets handed to the muxer so far, and their bytes.
    var videoPacketsWritten: (count: Int, bytes: Int64) { engine?.videoPacketsWritten ?? (0, 0) }

    /// After a failure: whether the file was kept, readable to its last complete fragment.
    var keptFileAfterFailure: Bool { engine?.keptFileAfterFailure ?? false }

    // MARK: Engine access for inputs

    private var engine: WriterEngine? { self[\.engine] }

    var hasSession: Bool { engine?.sessionStart != nil }

    func engineIsReady(_ track: WriterTrack) -> Bool {
        engine?.isReady(track) ?? false
    }

    /// Whether the track's own queue has room (the part of readiness an append is checked against).
    func engineHasRoom(_ track: WriterTrack) -> Bool {
        guard let engine else { return false }
        return engine.lock.withLock { track.pending < track.capacity }
    }

    func enqueue(_ item: WriterItem, to track: WriterTrack, end: CMTime) {
        engine?.enqueue(item, to: track, end: end)
    }

    func markFinished(_ track: WriterTrack) {
        engine?.markFinished(track)
    }

    /// The movie timescale when none is set ("a convenient value", Apple says): for audio-only
    /// files the inputs' common sample rate, so the edit list ends on the last appended frame;
    /// 600 (Apple's customary video timescale) otherwise.
    static func convenientMovieTimescale(for inputs: [AVAssetWriterInput]) -> Int32 {
        let rates = inputs.map { input -> Double? in
            guard input.mediaType == .audio else { return nil }
            if case .audio(let a)? = input.parsedSettings, let rate = a.sampleRate { return rate }
            return input.sourceFormatHint.flatMap { CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee.mSampleRate }
        }
        guard let first = rates.first ?? nil, rates.allSatisfy({ $0 == first }), first >= 1, first.rounded() == first,
              first <= Double(Int32.max) else { return 600 }
        return Int32(first)
    }

    open override var description: String {
        "<AVAssetWriter: \(Unmanaged.passUnretained(self).toOpaque()), outputURL = \(outputURL), outputFileType = \(outputFileType.rawValue)>"
    }
}
