// AVPlayerItem: the presentation state of an asset a player plays — status, duration, the
// playhead, buffered ranges, end times, audio mix and video composition, outputs and logs.
import CoreGraphics
import CoreMedia
import Dispatch
import Foundation
import Synchronization

/// The user-info key of `AVPlayerItem.failedToPlayToEndTimeNotification`: the error.
public let AVPlayerItemFailedToPlayToEndTimeErrorKey = "AVPlayerItemFailedToPlayToEndTimeErrorKey"

extension NSNotification.Name {
    /// `AVPlayerItem.didPlayToEndTimeNotification`.
    public static let AVPlayerItemDidPlayToEndTime = AVPlayerItem.didPlayToEndTimeNotification
    /// `AVPlayerItem.failedToPlayToEndTimeNotification`.
    public static let AVPlayerItemFailedToPlayToEndTime = AVPlayerItem.failedToPlayToEndTimeNotification
    /// `AVPlayerItem.playbackStalledNotification`.
    public static let AVPlayerItemPlaybackStalled = AVPlayerItem.playbackStalledNotification
    /// `AVPlayerItem.timeJumpedNotification`.
    public static let AVPlayerItemTimeJumped = AVPlayerItem.timeJumpedNotification
    /// `AVPlayerItem.newAccessLogEntryNotification`.
    public static let AVPlayerItemNewAccessLogEntry = AVPlayerItem.newAccessLogEntryNotification
    /// `AVPlayerItem.newErrorLogEntryNotification`.
    public static let AVPlayerItemNewErrorLogEntry = AVPlayerItem.newErrorLogEntryNotification
}

/// An object that models the timing and presentation state of an asset during playback.
///
/// Preparation starts when the item is given to a player (as on Apple platforms: there is no
/// prepare call): the asset's tracks and duration load, the pipeline opens (decoders for the
/// enabled video track — or the video composition — and the audio tracks, mixed with the audio
/// mix), and once the first picture and a quarter of a second of sound are queued `status`
/// becomes `.readyToPlay`. A file that cannot be opened or read makes `status` `.failed` with
/// `error`. An item plays in one player at a time.
open class AVPlayerItem: NSObject, NSCopying, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose mutable state is all in `state` (a Mutex).
    /// The status of a player item.
    public enum Status: Int, Sendable {
        case unknown = 0
        case readyToPlay = 1
        case failed = 2
    }

    /// Posted when the item played to its end time (object: the item).
    public static let didPlayToEndTimeNotification = NSNotification.Name("AVPlayerItemDidPlayToEndTimeNotification")
    /// Posted when the item failed to play to its end time (userInfo
    /// `AVPlayerItemFailedToPlayToEndTimeErrorKey`: the error).
    public static let failedToPlayToEndTimeNotification = NSNotification.Name("AVPlayerItemFailedToPlayToEndTimeNotification")
    /// Posted when playback stopped because media did not arrive in time.
    public static let playbackStalledNotification = NSNotification.Name("AVPlayerItemPlaybackStalledNotification")
    /// Posted when the item's time changed discontinuously (a seek).
    public static let timeJumpedNotification = NSNotification.Name("AVPlayerItemTimeJumpedNotification")
    /// Posted when an access log entry was added.
    public static let newAccessLogEntryNotification = NSNotification.Name("AVPlayerItemNewAccessLogEntry")
    /// Posted when an error log entry was added.
    public static let newErrorLogEntryNotification = NSNotification.Name("AVPlayerItemNewErrorLogEntry")
    /// Posted when the media selection changed.
    public static let mediaSelectionDidChangeNotification = NSNotification.Name("AVPlayerItemMediaSelectionDidChangeNotification")

    struct State {
        var status = Status.unknown
        var error: (any Error)?
        var duration = CMTime.indefinite
        var presentationSize = CGSize.zero
        var tracks: [AVPlayerItemTrack] = []
        var loadedTimeRanges: [NSValue] = []
        var seekableTimeRanges: [NSValue] = []
        var forwardEnd = CMTime.invalid
        var reverseEnd = CMTime.invalid
        var algorithm = AVAudioTimePitchAlgorithm.timeDomain
        var audioMix: AVAudioMix?
        var videoComposition: AVVideoComposition?
        var likelyToKeepUp = false
        var bufferEmpty = true
        var bufferFull = false
        var outputs: [AVPlayerItemOutput] = []
        var errorEvents: [AVPlayerItemErrorLogEvent] = []
        var accessEvents: [AVPlayerItemAccessLogEvent] = []
        var preferredPeakBitRate: Double = 0
        var preferredMaximumResolution = CGSize.zero
        var preferredForwardBufferDuration: TimeInterval = 0
        var seekingWaitsForVideoCompositionRendering = false
        var canUseNetworkResourcesWhilePaused = false
        /// Where playback starts (a seek made before the item was ready, or zero).
        var startTime = CMTime.zero
        /// The item's time while it is not the current item of a player.
        var time = CMTime.zero
        var selections: [ObjectIdentifier: AVMediaSelectionOption?] = [:]
        /// The player playing the item (weak: a player holds its items).
        weak var player: AVPlayer?
        var pendingSeek: (time: CMTime, handler: (@Sendable (Bool) -> Void)?)?
    }

    let state = Mutex(State())
    /// The asset the item presents.
    public let asset: AVAsset
    /// The asset keys loaded before the item is ready to play.
    public let automaticallyLoadedAssetKeys: [String]

    /// An item for `asset`.
    public convenience init(asset: AVAsset) {
        self.init(asset: asset, automaticallyLoadedAssetKeys: nil)
    }

    /// An item for the asset at `url`.
    public convenience init(url URL: URL) {
        self.init(asset: AVURLAsset(url: URL), automaticallyLoadedAssetKeys: nil)
    }

    /// An item for `asset` that loads `automaticallyLoadedAssetKeys` before it is ready to play.
    public init(asset: AVAsset, automaticallyLoadedAssetKeys: [String]?) {
        self.asset = asset
        self.automaticallyLoadedAssetKeys = automaticallyLoadedAssetKeys ?? []
        super.init()
    }

    /// A copy of the item (same asset and settings, status unknown, at time zero).
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVPlayerItem(asset: asset, automaticallyLoadedAssetKeys: automaticallyLoadedAssetKeys)
        let s = state.withLock { $0 }
        copy.state.withLock { c in
            c.forwardEnd = s.forwardEnd
            c.reverseEnd = s.reverseEnd
            c.algorithm = s.algorithm
            c.audioMix = s.audioMix
            c.videoComposition = s.videoComposition
            c.preferredPeakBitRate = s.preferredPeakBitRate
            c.preferredMaximumResolution = s.preferredMaximumResolution
            c.preferredForwardBufferDuration = s.preferredForwardBufferDuration
        }
        return copy
    }

    // MARK: Status

    open var status: Status { state.withLock { $0.status } }
    open var error: (any Error)? { state.withLock { $0.error } }

    /// The item's duration: indefinite until the asset's duration has loaded.
    open var duration: CMTime { state.withLock { $0.duration } }

    /// The size at which the video is shown (zero until known, and for sound only).
    open var presentationSize: CGSize { state.withLock { $0.presentationSize } }

    /// The item's tracks, one per asset track, once the item is ready.
    open var tracks: [AVPlayerItemTrack] { state.withLock { $0.tracks } }

    /// The time ranges of media buffered ahead of playback (NSValues of CMTimeRange).
    open var loadedTimeRanges: [NSValue] { state.withLock { $0.loadedTimeRanges } }

    /// The time ranges the item can seek within (NSValues of CMTimeRange).
    open var seekableTimeRanges: [NSValue] { state.withLock { $0.seekableTimeRanges } }

    open var isPlaybackLikelyToKeepUp: Bool { state.withLock { $0.likelyToKeepUp } }
    open var isPlaybackBufferEmpty: Bool { state.withLock { $0.bufferEmpty } }
    open var isPlaybackBufferFull: Bool { state.withLock { $0.bufferFull } }

    // MARK: Time

    /// The item's current time: its player's time while it is the current item.
    open func currentTime() -> CMTime {
        if let player = state.withLock({ $0.player }), player.currentItem === self { return player.currentTime() }
        return state.withLock { $0.time }
    }

    /// The date of the current time, for streams that carry dates; nil here.
    open func currentDate() -> Date? { nil }

    /// The timebase of the item's playback (its player's, while current).
    open var timebase: CMTimebase? {
        guard let player = state.withLock({ $0.player }), player.currentItem === self else { return nil }
        return player.engine.synchronizer.timebase
    }

    /// Where forward playback ends (invalid: the item's duration).
    open var forwardPlaybackEndTime: CMTime {
        get { state.withLock { $0.forwardEnd } }
        set { state.withLock { $0.forwardEnd = newValue } }
    }

    /// Where reverse playback ends (invalid: zero); playback also starts there.
    open var reversePlaybackEndTime: CMTime {
        get { state.withLock { $0.reverseEnd } }
        set { state.withLock { $0.reverseEnd = newValue } }
    }

    /// The time playback ends: the forward end time, else the duration.
    var endTime: CMTime {
        state.withLock { s in
            if s.forwardEnd.isNumeric { return s.duration.isNumeric ? min(s.forwardEnd, s.duration) : s.forwardEnd }
            return s.duration
        }
    }

    /// Moves the playhead to `time` (fast: may land before it, at a keyframe).
    open func seek(to time: CMTime, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity, completionHandler: completionHandler)
    }

    /// Moves the playhead within the tolerances of `time` (zero tolerances: frame-exact).
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
                   completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        if let player = state.withLock({ $0.player }), player.currentItem === self {
            player.engine.seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, completion: completionHandler)
            return
        }
        // Not playing yet: playback will start there.
        let old = state.withLock { s -> (@Sendable (Bool) -> Void)? in
            let previous = s.pendingSeek?.handler
            s.pendingSeek = (time, completionHandler)
            s.startTime = time
            s.time = time
            return previous
        }
        if let old { DispatchQueue.main.async { old(false) } }
    }

    /// Moves the playhead to `time`.
    open func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) async -> Bool {
        await withCheckedContinuation { continuation in
            seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { continuation.resume(returning: $0) }
        }
    }

    /// Moves the playhead to `time`.
    open func seek(to time: CMTime) async -> Bool {
        await seek(to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity)
    }

    /// Moves the playhead to a date (streams with dates only): false here.
    open func seek(to date: Date, completionHandler: (@Sendable (Bool) -> Void)? = nil) -> Bool {
        if let completionHandler { DispatchQueue.main.async { completionHandler(false) } }
        return false
    }

    /// Cancels seeks in progress; their handlers are called with false.
    open func cancelPendingSeeks() {
        if let player = state.withLock({ $0.player }), player.currentItem === self {
            player.engine.cancelPendingSeeks()
        }
        let old = state.withLock { s -> (@Sendable (Bool) -> Void)? in
            defer { s.pendingSeek = nil }
            return s.pendingSeek?.handler
        }
        if let old { DispatchQueue.main.async { old(false) } }
    }

    /// Moves the playhead `stepCount` video frames forward (negative: backward), frame-exactly.
    open func step(byCount stepCount: Int) {
        let frameDuration = state.withLock { $0.tracks }.compactMap { track -> CMTime? in
            guard let assetTrack = track.assetTrack, assetTrack.mediaType == .video, assetTrack.nominalFrameRate > 0 else { return nil }
            return CMTime(seconds: 1 / Double(assetTrack.nominalFrameRate), preferredTimescale: 600_000)
        }.first ?? CMTime(value: 1, timescale: 30)
        let now = currentTime()
        let target = max(.zero, now + CMTimeMultiply(frameDuration, multiplier: Int32(clamping: stepCount)))
        if let player = state.withLock({ $0.player }), player.currentItem === self, player.rate != 0 { player.rate = 0 }
        seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: nil)
    }

    // MARK: Rates the item can play at

    open var canPlayFastForward: Bool { true }
    open var canPlaySlowForward: Bool { true }
    open var canPlayReverse: Bool { false }
    open var canPlayFastReverse: Bool { false }
    open var canPlaySlowReverse: Bool { false }
    open var canStepForward: Bool { true }
    open var canStepBackward: Bool { true }

    // MARK: Processing

    /// How sound is processed at rates other than 1 (default `.timeDomain`, pitch kept).
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { state.withLock { $0.algorithm } }
        set {
            state.withLock { $0.algorithm = newValue }
            if let player = state.withLock({ $0.player }), player.currentItem === self {
                player.engine.audioAlgorithmChanged(newValue)
            }
        }
    }

    /// The volumes applied to the item's audio tracks (a copy is kept).
    open var audioMix: AVAudioMix? {
        get { state.withLock { $0.audioMix } }
        set {
            let copy = newValue?.copy() as? AVAudioMix
            state.withLock { $0.audioMix = copy }
        }
    }

    /// How the item's video tracks are composed (a copy is kept). Playback of a composition with
    /// an `animationTool` is refused, as on Apple platforms: use `AVSynchronizedLayer`.
    open var videoComposition: AVVideoComposition? {
        get { state.withLock { $0.videoComposition } }
        set {
            if let newValue, newValue.animationTool != nil {
                WriterError.raise("AVPlayerItem", "setVideoComposition:", "video composition must not contain an animationTool for use with AVPlayerItem")
            }
            let copy = newValue?.copy() as? AVVideoComposition
            state.withLock { $0.videoComposition = copy }
        }
    }

    /// Whether seeks wait for the video composition's frame (default false).
    open var seekingWaitsForVideoCompositionRendering: Bool {
        get { state.withLock { $0.seekingWaitsForVideoCompositionRendering } }
        set { state.withLock { $0.seekingWaitsForVideoCompositionRendering = newValue } }
    }

    /// The bit rate limit for choosing a stream variant (0: none): the player plays the
    /// multivariant playlist's highest variant at or below it (the lowest when none is), and
    /// changes variant where the playhead is when it changes.
    open var preferredPeakBitRate: Double {
        get { state.withLock { $0.preferredPeakBitRate } }
        set {
            state.withLock { $0.preferredPeakBitRate = newValue }
            variantPreferencesChanged()
        }
    }

    /// The resolution limit for choosing a stream variant (zero: none), like `preferredPeakBitRate`.
    open var preferredMaximumResolution: CGSize {
        get { state.withLock { $0.preferredMaximumResolution } }
        set {
            state.withLock { $0.preferredMaximumResolution = newValue }
            variantPreferencesChanged()
        }
    }

    /// How far ahead to buffer (0: the player chooses). Kept; the renderer queues set the
    /// buffering here (about half a second of pictures, a second of sound).
    open var preferredForwardBufferDuration: TimeInterval {
        get { state.withLock { $0.preferredForwardBufferDuration } }
        set { state.withLock { $0.preferredForwardBufferDuration = newValue } }
    }

    open var canUseNetworkResourcesForLiveStreamingWhilePaused: Bool {
        get { state.withLock { $0.canUseNetworkResourcesWhilePaused } }
        set { state.withLock { $0.canUseNetworkResourcesWhilePaused = newValue } }
    }

    // MARK: Media selection

    /// Selects `mediaSelectionOption` in `mediaSelectionGroup` (nil: none, for groups that allow it).
    /// A player plays the selected audio option's track (not the group's others) and shows the
    /// selected legible option's text; nil in a group that allows no selection turns it off.
    open func select(_ mediaSelectionOption: AVMediaSelectionOption?, in mediaSelectionGroup: AVMediaSelectionGroup) {
        if let option = mediaSelectionOption, !mediaSelectionGroup.options.contains(where: { $0 === option }) { return }
        if mediaSelectionOption == nil && !mediaSelectionGroup.allowsEmptySelection { return }
        state.withLock { $0.selections[ObjectIdentifier(mediaSelectionGroup)] = .some(mediaSelectionOption) }
        selectionChanged(mediaSelectionGroup)
    }

    /// Selects the option that best matches the user's preferences in `mediaSelectionGroup`.
    open func selectMediaOptionAutomatically(in mediaSelectionGroup: AVMediaSelectionGroup) {
        state.withLock { _ = $0.selections.removeValue(forKey: ObjectIdentifier(mediaSelectionGroup)) }
        selectionChanged(mediaSelectionGroup)
    }

    private func variantPreferencesChanged() {
        if let player = state.withLock({ $0.player }), player.currentItem === self { player.engine.variantPreferencesChanged() }
    }

    private func selectionChanged(_ group: AVMediaSelectionGroup) {
        if let player = state.withLock({ $0.player }), player.currentItem === self {
            player.engine.mediaSelectionChanged(group.characteristic)
        }
        NotificationCenter.default.post(name: Self.mediaSelectionDidChangeNotification, object: self)
    }

    /// The options selected now, one per group of the asset.
    open var currentMediaSelection: AVMediaSelection {
        let groups = asset.availableMediaCharacteristicsWithMediaSelectionOptions.compactMap {
            asset.mediaSelectionGroup(forMediaCharacteristic: $0)
        }
        return AVMediaSelection(asset: asset, groups: groups) { [self] group in selectedOption(in: group) }
    }

    /// The option selected in `group`: the one chosen with `select(_:in:)`, else the automatic
    /// choice as with the system's default caption preferences — the group's default option for
    /// sound; for text only an option of forced subtitles (subtitles are off until selected).
    func selectedOption(in group: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        if let chosen = state.withLock({ $0.selections[ObjectIdentifier(group)] }) { return chosen }
        if group.characteristic == .legible {
            return group.options.first { $0.hasMediaCharacteristic(.containsOnlyForcedSubtitles) }
        }
        return group.defaultOption
    }

    // MARK: Outputs

    open var outputs: [AVPlayerItemOutput] { state.withLock { $0.outputs } }

    open func add(_ output: AVPlayerItemOutput) {
        let added = state.withLock { s -> Bool in
            guard !s.outputs.contains(where: { $0 === output }) else { return false }
            s.outputs.append(output)
            return true
        }
        guard added else { return }
        output.attach(to: self)
        if let player = state.withLock({ $0.player }), player.currentItem === self { player.engine.outputsChanged() }
    }

    open func remove(_ output: AVPlayerItemOutput) {
        state.withLock { $0.outputs.removeAll { $0 === output } }
        output.detach(from: self)
        if let player = state.withLock({ $0.player }), player.currentItem === self { player.engine.outputsChanged() }
    }

    // MARK: Logs

    /// The item's error log (nil while it is empty).
    open func errorLog() -> AVPlayerItemErrorLog? {
        let events = state.withLock { $0.errorEvents }
        return events.isEmpty ? nil : AVPlayerItemErrorLog(events: events)
    }

    /// The item's access log (nil while it is empty).
    open func accessLog() -> AVPlayerItemAccessLog? {
        let events = state.withLock { $0.accessEvents }
        return events.isEmpty ? nil : AVPlayerItemAccessLog(events: events)
    }

    // MARK: Engine side

    /// Sets a value and tells key-value observers when it changed.
    func update<Value: Equatable & Sendable>(_ keyPath: WritableKeyPath<State, Value>, _ value: Value, observed: KeyPath<AVPlayerItem, Value>) {
        let old = state.withLock { s -> Value in
            defer { s[keyPath: keyPath] = value }
            return s[keyPath: keyPath]
        }
        if old != value { KVORegistry.shared.didChange(self, observed, old: old) }
    }

    func setStatus(_ status: Status, error: (any Error)? = nil) {
        let old = state.withLock { s -> Status in
            defer {
                s.status = status
                if let error { s.error = error }
            }
            return s.status
        }
        if old != status { KVORegistry.shared.didChange(self, \AVPlayerItem.status, old: old) }
    }

    func setTracks(_ tracks: [AVPlayerItemTrack]) {
        let old = state.withLock { s -> [AVPlayerItemTrack] in
            defer { s.tracks = tracks }
            return s.tracks
        }
        KVORegistry.shared.didChange(self, \AVPlayerItem.tracks, old: old)
    }

    func setLoadedTimeRanges(_ ranges: [CMTimeRange]) {
        let values = ranges.map { NSValue(timeRange: $0) }
        let old = state.withLock { s -> [NSValue]? in
            let before = s.loadedTimeRanges.map(\.timeRangeValue)
            guard before != ranges else { return nil }
            defer { s.loadedTimeRanges = values }
            return s.loadedTimeRanges
        }
        if let old { KVORegistry.shared.didChange(self, \AVPlayerItem.loadedTimeRanges, old: old) }
    }

    func setSeekableTimeRanges(_ ranges: [CMTimeRange]) {
        let values = ranges.map { NSValue(timeRange: $0) }
        let old = state.withLock { s -> [NSValue] in
            defer { s.seekableTimeRanges = values }
            return s.seekableTimeRanges
        }
        KVORegistry.shared.didChange(self, \AVPlayerItem.seekableTimeRanges, old: old)
    }

    /// Records an error in the error log and posts `newErrorLogEntryNotification`.
    func logError(_ error: any Error) {
        let nsError = error as NSError
        let event = AVPlayerItemErrorLogEvent(date: Date(), uri: (asset as? AVURLAsset)?.url.absoluteString,
                                              errorStatusCode: nsError.code, errorDomain: nsError.domain,
                                              errorComment: nsError.localizedFailureReason ?? nsError.localizedDescription)
        state.withLock { $0.errorEvents.append(event) }
        NotificationCenter.default.post(name: Self.newErrorLogEntryNotification, object: self)
    }
}

/// A track of a player item: its asset track, and whether it plays.
open class AVPlayerItemTrack: NSObject, @unchecked Sendable {
    // @unchecked Sendable: an NSObject subclass whose one mutable value is in a Mutex.
    private let enabled: Mutex<Bool>
    private weak let item: AVPlayerItem?

    /// The asset track presented.
    public let assetTrack: AVAssetTrack?

    init(assetTrack: AVAssetTrack, item: AVPlayerItem) {
        self.assetTrack = assetTrack
        self.item = item
        enabled = Mutex(assetTrack.isEnabled)
    }

    /// Whether the track plays (changing it re-opens the pipeline at the current time).
    open var isEnabled: Bool {
        get { enabled.withLock { $0 } }
        set {
            let changed = enabled.withLock { e -> Bool in
                defer { e = newValue }
                return e != newValue
            }
            guard changed, let item, let player = item.state.withLock({ $0.player }), player.currentItem === item else { return }
            player.engine.tracksChanged()
        }
    }

    /// The frame rate at which the track plays (its nominal rate).
    open var currentVideoFrameRate: Float { assetTrack?.nominalFrameRate ?? 0 }
}

/// An item's error log.
open class AVPlayerItemErrorLog: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let events: [AVPlayerItemErrorLogEvent]
    init(events: [AVPlayerItemErrorLogEvent]) { self.events = events }
    /// The log in the W3C extended log file format.
    open func extendedLogData() -> Data? {
        var text = "#Version: 1.0\n#Software: AVFoundation for Linux\n#Fields: date time uri status domain comment\n"
        let formatter = ISO8601DateFormatter()
        for event in events {
            text += "\(formatter.string(from: event.date ?? Date())) \(event.uri ?? "-") \(event.errorStatusCode) \(event.errorDomain) \"\(event.errorComment ?? "")\"\n"
        }
        return text.data(using: .utf8)
    }
    open var extendedLogDataStringEncoding: UInt { String.Encoding.utf8.rawValue }
}

/// One error of an item's error log.
open class AVPlayerItemErrorLogEvent: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let date: Date?
    public let uri: String?
    public let serverAddress: String? = nil
    public let playbackSessionID: String? = nil
    public let errorStatusCode: Int
    public let errorDomain: String
    public let errorComment: String?

    init(date: Date?, uri: String?, errorStatusCode: Int, errorDomain: String, errorComment: String?) {
        self.date = date
        self.uri = uri
        self.errorStatusCode = errorStatusCode
        self.errorDomain = errorDomain
        self.errorComment = errorComment
    }
}

/// An item's access log.
open class AVPlayerItemAccessLog: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let events: [AVPlayerItemAccessLogEvent]
    init(events: [AVPlayerItemAccessLogEvent]) { self.events = events }
}

/// One entry of an item's access log: a period of playback.
open class AVPlayerItemAccessLogEvent: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let playbackStartDate: Date?
    public let uri: String?
    public let numberOfDroppedVideoFrames: Int
    public let durationWatched: TimeInterval
    public let indicatedBitrate: Double

    init(playbackStartDate: Date?, uri: String?, numberOfDroppedVideoFrames: Int, durationWatched: TimeInterval, indicatedBitrate: Double) {
        self.playbackStartDate = playbackStartDate
        self.uri = uri
        self.numberOfDroppedVideoFrames = numberOfDroppedVideoFrames
        self.durationWatched = durationWatched
        self.indicatedBitrate = indicatedBitrate
    }
}
