// AVAssetWriterInput: one track of an asset writer's output file.
import CoreGraphics
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
internal import MediaEngine
import Synchronization

/// Appends media samples to one track of an `AVAssetWriter`'s output file.
///
/// With output settings, video is encoded (H.264, HEVC, ProRes, JPEG) from the pixel buffers of
/// appended sample buffers (or of an `AVAssetWriterInputPixelBufferAdaptor`), and linear PCM
/// audio is stored in the layout the settings name. With nil settings, compressed samples are
/// copied unchanged (passthrough), described by `sourceFormatHint` or the first sample's format
/// description.
///
/// `isReadyForMoreMediaData` exerts real back-pressure: it turns false while the input's queue
/// of samples waiting for the encoder is full and, for offline inputs, while the input runs more
/// than a second ahead of another unfinished input (so the file interleaves its tracks).
open class AVAssetWriterInput: NSObject, WriterConfigurable, @unchecked Sendable {
    /// The media type of the samples the input accepts.
    public let mediaType: AVMediaType
    /// The settings used to encode appended samples; nil: samples are written as they are.
    public let outputSettings: [String: Any]?
    /// A hint about the format of the samples that will be appended.
    public let sourceFormatHint: CMFormatDescription?

    let parsedSettings: WriterOutputSettings?
    /// Why the writer cannot take these settings (valid for Apple, unsupported here); nil when it can.
    let unsupportedReason: String?

    /// Everything that changes after init, behind one lock.
    struct State {
        var metadata: [AVMetadataItem] = []
        var transform: CGAffineTransform = .identity
        var languageCode: String?
        var extendedLanguageTag: String?
        var naturalSize: CGSize = .zero
        var mediaTimeScale: CMTimeScale = 0
        var expectsMediaDataInRealTime = false
        var encoderSpeedPreset: String?
        var pendingSampleLimit: Int?
        var markedFinished = false
        weak var writer: AVAssetWriter?
        var track: WriterTrack?
        var requester: WriterMediaRequester?
    }
    private let state = Mutex(State())
    var hasAdaptor = false

    /// Creates an input for `mediaType`. `outputSettings` nil passes samples through; a
    /// dictionary of video or audio settings keys encodes them.
    public convenience init(mediaType: AVMediaType, outputSettings: [String: Any]?) {
        self.init(mediaType: mediaType, outputSettings: outputSettings, sourceFormatHint: nil)
    }

    /// Creates an input for `mediaType` with a hint about the format of the samples to come.
    public init(mediaType: AVMediaType, outputSettings: [String: Any]?, sourceFormatHint: CMFormatDescription?) {
        let selector = "initWithMediaType:outputSettings:sourceFormatHint:"
        if let hint = sourceFormatHint {
            let hintType = CMFormatDescriptionGetMediaType(hint)
            let matches = (hintType == kCMMediaType_Video && mediaType == .video) || (hintType == kCMMediaType_Audio && mediaType == .audio)
                || hintType == writerFourCharCode(mediaType.rawValue)
            if !matches { WriterError.raise("AVAssetWriterInput", selector, "The media type of sourceFormatHint must match mediaType") }
            if hintType == kCMMediaType_Video {
                let d = CMVideoFormatDescriptionGetDimensions(hint)
                if d.width < 1 || d.height < 1 {
                    WriterError.raise("AVAssetWriterInput", selector, "Width and height of video format hint must be positive")
                }
            }
        }
        var unsupported: String?
        var parsed: WriterOutputSettings?
        if let outputSettings {
            switch WriterOutputSettings.parse(outputSettings, mediaType: mediaType) {
            case .success(let settings):
                parsed = settings
            case .failure(.invalid(let reason)):
                WriterError.raise("AVAssetWriterInput", selector, reason)
            case .failure(.unsupported(let reason)):
                unsupported = reason
            }
        }
        switch parsed {
        case .video(let v)?:
            if v.codec == nil {
                WriterError.raise("AVAssetWriterInput", selector,
                                  "Encoding video with codec '\(v.codecType.rawValue)' is not supported by this AV Foundation (H.264, HEVC, ProRes 422/4444 and JPEG are)")
            }
            if (v.width == nil || v.height == nil) && sourceFormatHint == nil {
                WriterError.raise("AVAssetWriterInput", selector,
                                  "Compressed video output settings must specify AVVideoWidthKey and AVVideoHeightKey when no sourceFormatHint is given")
            }
        case .audio(let a)?:
            // Without a hint the dictionary must say everything the file needs.
            if let missing = a.missingKey, sourceFormatHint == nil { WriterError.raise("AVAssetWriterInput", selector, missing) }
        case nil:
            break
        }
        self.mediaType = mediaType
        self.outputSettings = outputSettings
        self.sourceFormatHint = sourceFormatHint
        parsedSettings = parsed
        unsupportedReason = unsupported
        super.init()
    }

    // MARK: Configuration (before startWriting)

    /// The status of the writer the input belongs to (0 before startWriting, as Apple numbers it).
    private var statusNumber: Int {
        guard let writer = writerRef else { return 0 }
        if markedFinishedNow && writer.status == .writing { return 2 }
        return writer.status.rawValue
    }

    private var markedFinishedNow: Bool { self[\.markedFinished] }
    private var writerRef: AVAssetWriter? { self[\.writer] }
    private var trackRef: WriterTrack? { self[\.track] }
    private var requester: WriterMediaRequester? { self[\.requester] }

    static var exceptionClassName: String { "AVAssetWriterInput" }
    var configurationStatus: Int { statusNumber }
    func withFields<R: Sendable>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }

    /// Metadata for the track (track-level tags the container can hold, such as a title).
    open var metadata: [AVMetadataItem] {
        get { self[\.metadata] }
        set { configure(\.metadata, newValue, "setMetadata:") }
    }

    /// The track's transform (QuickTime track matrix), applied when the video is shown.
    open var transform: CGAffineTransform {
        get { self[\.transform] }
        set { configure(\.transform, newValue, "setTransform:") }
    }

    /// The track's language as an ISO 639-2/T code ("eng"; two-letter codes are converted).
    open var languageCode: String? {
        get { self[\.languageCode] }
        set { configure(\.languageCode, newValue, "setLanguageCode:") }
    }

    /// The track's language as a BCP 47 tag ("en-US"); its language subtag names the track's
    /// language when `languageCode` is nil.
    open var extendedLanguageTag: String? {
        get { self[\.extendedLanguageTag] }
        set { configure(\.extendedLanguageTag, newValue, "setExtendedLanguageTag:") }
    }

    /// The track's display size; `.zero` (the default) uses the encoded size.
    open var naturalSize: CGSize {
        get { self[\.naturalSize] }
        set {
            configure(\.naturalSize, newValue, "setNaturalSize:", valid: newValue.width >= 0 && newValue.height >= 0,
                      requirement: "naturalSize.width >= 0.0 && naturalSize.height >= 0.0")
        }
    }

    /// The timescale of the track's media; 0 (the default) lets the writer choose (the sample
    /// rate for audio; for video the first sample's timescale, raised to a multiple of 600).
    open var mediaTimeScale: CMTimeScale {
        get { self[\.mediaTimeScale] }
        set { configure(\.mediaTimeScale, newValue, "setMediaTimeScale:", valid: newValue >= 0, requirement: "mediaTimeScale >= 0") }
    }

    /// Whether the input's samples come from a real-time source (such as a camera): the input
    /// is then not held back for interleaving, and video is encoded with faster settings.
    open var expectsMediaDataInRealTime: Bool {
        get { self[\.expectsMediaDataInRealTime] }
        set { configure(\.expectsMediaDataInRealTime, newValue, "setExpectsMediaDataInRealTime:") }
    }

    // MARK: Writing

    /// Whether the input can take more samples now. Append only while this is true.
    open var isReadyForMoreMediaData: Bool {
        guard let writer = writerRef else { return false }
        switch writer.status {
        case .failed: return !markedFinishedNow
        case .writing:
            guard let track = trackRef else { return false }
            return writer.engineIsReady(track)
        default: return false
        }
    }

    /// Appends a sample buffer: its pixel buffer to encode (video with output settings), linear
    /// PCM audio, or compressed samples to copy (nil output settings). Returns false when the
    /// writer has failed or been cancelled; check its `status` and `error`.
    @discardableResult
    open func append(_ sampleBuffer: CMSampleBuffer) -> Bool {
        let selector = "appendSampleBuffer:"
        if let format = CMSampleBufferGetFormatDescription(sampleBuffer) {
            let type = CMFormatDescriptionGetMediaType(format)
            let matches = writerFourCharCode(mediaType.rawValue) == type
            if !matches {
                WriterError.raise("AVAssetWriterInput", selector,
                                  "Media type of sample buffer must match receiver's media type (\"\(mediaType.rawValue)\")")
            }
        }
        guard let (writer, track) = prepareAppend(selector: selector, what: "sample buffer") else { return false }
        if mediaType == .video, parsedSettings != nil, CMSampleBufferGetImageBuffer(sampleBuffer) == nil {
            WriterError.raise("AVAssetWriterInput", selector,
                              "Input buffer must be in an uncompressed format when outputSettings is not nil")
        }
        let pts = CMSampleBufferGetPresentationTimeStamp(sampleBuffer)
        var end = CMSampleBufferGetOutputPresentationTimeStamp(sampleBuffer)
        if !end.isNumeric { end = pts }
        let duration = CMSampleBufferGetDuration(sampleBuffer)
        if end.isNumeric, duration.isNumeric { end = CMTimeAdd(end, duration) }
        writer.enqueue(.sampleBuffer(sampleBuffer), to: track, end: end)
        return true
    }

    /// Appends a pixel buffer for the adaptor.
    func appendPixelBuffer(_ buffer: CVPixelBuffer, presentationTime: CMTime) -> Bool {
        let selector = "appendPixelBuffer:withPresentationTime:"
        let cls = "AVAssetWriterInputPixelBufferAdaptor"
        if writerRef == nil || writerRef?.status == .unknown {
            WriterError.raise(cls, selector, "Cannot call method when status is 0")
        }
        if markedFinishedNow, writerRef?.status == .writing {
            WriterError.raise(cls, selector, "Cannot call method when status is 2")
        }
        guard let writer = writerRef, writer.status == .writing, let track = trackRef else { return false }
        if !writer.hasSession {
            WriterError.raise(cls, selector, "Must start a session (using -[AVAssetWriter startSessionAtSourceTime:) before appending pixel buffers")
        }
        if !writer.engineHasRoom(track) {
            WriterError.raise(cls, selector, "A pixel buffer cannot be appended when readyForMoreMediaData is NO.")
        }
        if !presentationTime.isNumeric {
            WriterError.raise(cls, selector, "invalid parameter not satisfying: CMTIME_IS_NUMERIC(presentationTime)")
        }
        writer.enqueue(.pixelBuffer(buffer, presentationTime), to: track, end: presentationTime)
        return true
    }

    /// The checks every append makes: Apple's exceptions for misuse, false once writing stopped.
    private func prepareAppend(selector: String, what: String) -> (AVAssetWriter, WriterTrack)? {
        let status = statusNumber
        switch status {
        case 0, 2:
            WriterError.raise("AVAssetWriterInput", selector, "Cannot append \(what): Cannot call method when status is \(status)")
        case 1:
            break
        default:
            return nil
        }
        guard let writer = writerRef, let track = trackRef else { return nil }
        if !writer.hasSession {
            WriterError.raise("AVAssetWriterInput", selector,
                              "Cannot append \(what): Must start a session (using -[AVAssetWriter startSessionAtSourceTime:) first")
        }
        if !writer.engineHasRoom(track) {
            WriterError.raise("AVAssetWriterInput", selector, "Cannot append \(what): readyForMoreMediaData is NO.")
        }
        return (writer, track)
    }

    /// Tells the writer no more samples follow for this input.
    open func markAsFinished() {
        let status = statusNumber
        if status == 0 { WriterError.raise("AVAssetWriterInput", "markAsFinished", "Cannot call method when status is 0") }
        let (first, requester): (Bool, WriterMediaRequester?) = state.withLock { state in
            defer { state.markedFinished = true }
            return (!state.markedFinished, state.requester)
        }
        requester?.stop()
        guard first, status == 1, let writer = writerRef, let track = trackRef else { return }
        writer.markFinished(track)
    }

    /// Marks the input finished as part of `finishWriting` (no checks; the engine drains it).
    func markFinishedForFinish() {
        state.withLock {
            $0.markedFinished = true
            return $0.requester
        }?.stop()
    }

    /// Calls `block` on `queue` whenever the input is ready for more data, until it is marked
    /// finished. The block should append while `isReadyForMoreMediaData` is true, then return.
    open func requestMediaDataWhenReady(on queue: DispatchQueue, using block: @escaping @Sendable () -> Void) {
        let status = statusNumber
        if status == 0 {
            WriterError.raise("AVAssetWriterInput", "requestMediaDataWhenReadyOnQueue:usingBlock:", "Cannot call method when status is 0")
        }
        let created: WriterMediaRequester? = state.withLock {
            guard $0.requester == nil else { return nil }
            let r = WriterMediaRequester(queue: queue, block: block, input: self)
            $0.requester = r
            return r
        }
        guard let created else {
            WriterError.raise("AVAssetWriterInput", "requestMediaDataWhenReadyOnQueue:usingBlock:", "cannot be called more than once.")
        }
        if status == 3 {
            created.requestOnce()
        } else {
            created.nudge()
        }
    }

    // MARK: Engine side

    /// The x264/x265 speed preset the input's video encoder runs with (an export preset's choice;
    /// Apple's output settings have no such key). Nil: the encoder's default. Set before writing
    /// starts.
    var encoderSpeedPreset: String? {
        get { self[\.encoderSpeedPreset] }
        set { state.withLock { $0.encoderSpeedPreset = newValue } }
    }

    /// The most samples waiting for the encoder before `isReadyForMoreMediaData` turns false
    /// (a movie recording's deeper queue). Nil: 8 pictures to encode in real time, 4 offline, 64
    /// other samples. Set before writing starts.
    var pendingSampleLimit: Int? {
        get { self[\.pendingSampleLimit] }
        set { state.withLock { $0.pendingSampleLimit = newValue } }
    }

    /// Attaches the input to `writer` (addInput).
    func attach(to writer: AVAssetWriter) {
        state.withLock { $0.writer = writer }
    }

    /// Whether the input belongs to a writer.
    var isAttached: Bool { writerRef != nil }

    /// Whether the input's writer has started writing (whatever happened since).
    var hasStartedWriting: Bool { trackRef != nil }

    /// The encoded size the output settings (or the format hint) give.
    var outputDimensions: (width: Int, height: Int)? {
        if case .video(let v)? = parsedSettings, let w = v.width, let h = v.height { return (w, h) }
        if let hint = sourceFormatHint, CMFormatDescriptionGetMediaType(hint) == kCMMediaType_Video {
            let d = CMVideoFormatDescriptionGetDimensions(hint)
            return (Int(d.width), Int(d.height))
        }
        return nil
    }

    /// Gives the input its track (startWriting).
    func start(track: WriterTrack) {
        state.withLock { $0.track = track }
    }

    /// Whether the requester should call its block now.
    var shouldRequestMediaData: Bool {
        isReadyForMoreMediaData && !markedFinishedNow && writerRef?.status == .writing
    }

    /// Wakes the requester (readiness may have changed).
    func nudgeRequester() {
        requester?.nudge()
    }

    /// Lets the block discover a failure: Apple calls it once more after the writer fails.
    func writerDidFail() {
        if !markedFinishedNow { requester?.requestOnce() }
    }

    /// The configuration the track is built from.
    func configurationSnapshot() -> WriterTrackConfiguration {
        let s = state.withLock { $0 }
        return WriterTrackConfiguration(mediaType: mediaType, settings: parsedSettings, hint: sourceFormatHint, transform: s.transform,
                                        language: WriterTrackConfiguration.isoLanguage(s.languageCode ?? s.extendedLanguageTag),
                                        mediaTimeScale: s.mediaTimeScale, naturalSize: s.naturalSize,
                                        metadata: WriterMetadata.tags(s.metadata), realTime: s.expectsMediaDataInRealTime,
                                        encoderSpeedPreset: s.encoderSpeedPreset, pendingSampleLimit: s.pendingSampleLimit)
    }
}

/// An input's configuration, frozen at startWriting.
struct WriterTrackConfiguration {
    var mediaType: AVMediaType
    var settings: WriterOutputSettings?
    var hint: CMFormatDescription?
    var transform: CGAffineTransform
    var language: String?
    var mediaTimeScale: CMTimeScale
    var naturalSize: CGSize
    var metadata: [(key: String, value: String)]
    var realTime: Bool
    /// The x264/x265 speed preset the track's video encoder runs with (nil: the default).
    var encoderSpeedPreset: String?
    /// The most samples queued for the track (nil: the default for its kind).
    var pendingSampleLimit: Int?

    /// The ISO 639-2/T code for a language code or BCP 47 tag ("en", "en-US", "eng" → "eng").
    static func isoLanguage(_ code: String?) -> String? {
        guard let code, !code.isEmpty else { return nil }
        let primary = String(code.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "").lowercased()
        guard primary.count == 2 || primary.count == 3, primary.allSatisfy({ $0 >= "a" && $0 <= "z" }) else { return nil }
        if primary.count == 3 { return primary }
        return Locale.LanguageCode(primary).identifier(.alpha3)
    }
}

/// Calls an input's request block on the client's queue while the input is ready.
final class WriterMediaRequester: @unchecked Sendable {
    private let queue: DispatchQueue
    private let block: @Sendable () -> Void
    private weak var input: AVAssetWriterInput?
    /// Whether a call is scheduled, whether calls stopped, whether the one call after a failure
    /// was made.
    private let state = Mutex((scheduled: false, stopped: false, requestedOnce: false))

    init(queue: DispatchQueue, block: @escaping @Sendable () -> Void, input: AVAssetWriterInput) {
        self.queue = queue
        self.block = block
        self.input = input
    }

    /// Schedules the block when the input wants data and no call is pending.
    func nudge() {
        let schedule: Bool = state.withLock {
            guard !$0.scheduled, !$0.stopped, input?.shouldRequestMediaData == true else { return false }
            $0.scheduled = true
            return true
        }
        guard schedule else { return }
        queue.async { [self] in
            while !state.withLock({ $0.stopped }), input?.shouldRequestMediaData == true {
                block()
            }
            state.withLock { $0.scheduled = false }
            // Readiness may have come back while the loop was ending.
            if input?.shouldRequestMediaData == true { nudge() }
        }
    }

    /// Calls the block once more (after a failure, so the client sees appends fail).
    func requestOnce() {
        let call: Bool = state.withLock {
            guard !$0.stopped, !$0.requestedOnce else { return false }
            $0.requestedOnce = true
            return true
        }
        if call { queue.async { [block] in block() } }
    }

    /// No more calls.
    func stop() {
        state.withLock { $0.stopped = true }
    }
}
