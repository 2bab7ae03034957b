// AVAsset: a timed media resource — its tracks, duration and properties, loaded on demand.
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine

/// An immutable timed-media resource: a collection of tracks with a duration and properties.
/// Creating an asset never touches the file; properties are loaded on first request, once,
/// shared by the asynchronous API (`load(_:)`, `loadValuesAsynchronously(forKeys:)`) and the
/// synchronous properties (which block while loading, as Apple's do).
open class AVAsset: NSObject, AVAsynchronousKeyValueLoading, @unchecked Sendable {
    /// The file the asset reads (nil for an asset made of tracks of segments).
    let engine: URLAssetEngine?
    /// The tracks of an asset made of segments (`init(segmentedTracks:)`); nil for a file asset.
    private var fixedTracks: [AVAssetTrack]?
    /// The tracks of an asset made of segments as they are now (a composition's follow its
    /// edits); nil for a file asset.
    var madeTracks: [AVAssetTrack]? { fixedTracks }
    private(set) var loader: KeyValueLoader!
    private let trackList = LoadOnce<[AVAssetTrack]>()
    private let selectionGroups = LoadOnce<[AVMediaSelectionGroup]>()

    /// The keys an asset can load.
    static let loadableKeys: Set<String> = Set<String>([
        "duration", "tracks", "preferredRate", "preferredVolume", "preferredTransform", "naturalSize", "playable",
        "exportable", "readable", "composable", "hasProtectedContent", "providesPreciseDurationAndTiming",
        "containsFragments", "canContainFragments",
    ]).union(AVAsset.metadataKeys).union(AVAsset.selectionKeys)

    /// The keys whose values come from the file's metadata.
    static let metadataKeys: Set<String> = [
        "metadata", "commonMetadata", "availableMetadataFormats", "creationDate", "lyrics", "availableChapterLocales",
    ]
    /// The keys whose values come from the tracks and their metadata (media selection).
    static let selectionKeys: Set<String> = ["availableMediaCharacteristicsWithMediaSelectionOptions", "preferredMediaSelection"]

    /// An asset for the media at `url` (Apple returns an `AVURLAsset`; see COMPATIBILITY.md).
    public convenience init(url URL: URL) {
        self.init(engine: URLAssetEngine(url: URL, prefersPreciseTiming: false))
    }

    init(engine: URLAssetEngine?) {
        self.engine = engine
        super.init()
        loader = KeyValueLoader { [weak self] key, cancellation in
            guard let self else { throw AVError(.operationCancelled) }
            try self.resolve(key: key, cancellation: cancellation)
        }
    }

    /// An asset made of tracks of segments from other assets' media (what `AVComposition`
    /// builds on). Its properties come from the segments: duration is the end of the last
    /// segment of any track, each track's format is its first media segment's stream.
    /// Track IDs must be unique; segments must pass `MediaSegment.problem(in:)`.
    init(segmentedTracks: [(trackID: CMPersistentTrackID, segments: [MediaSegment])]) {
        engine = nil
        super.init()
        fixedTracks = segmentedTracks.map { AVAssetTrack(asset: self, trackID: $0.trackID, segments: $0.segments) }
        loader = KeyValueLoader { [weak self] key, _ in
            guard self != nil else { throw AVError(.operationCancelled) }
            guard AVAsset.loadableKeys.contains(key) else {
                throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "AVAsset has no loadable key “\(key)”."])
            }
        }
    }

    /// Whether the asset has media the reader, image generator and export session can read:
    /// a file, or tracks of segments.
    var hasMedia: Bool { engine != nil || madeTracks != nil }

    // MARK: Loading

    private func resolve(key: String, cancellation: DemuxerCancellation) throws {
        guard AVAsset.loadableKeys.contains(key) else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "AVAsset has no loadable key “\(key)”."])
        }
        guard let engine else { throw AVError(.operationNotSupportedForAsset) }
        let info = try engine.loadInfo(cancellation)
        switch key {
        case "duration":
            if needsIndexForDuration(info) { _ = try engine.loadIndexes(cancellation) }
        case "tracks", "naturalSize":
            _ = try trackList.get(cancellation: cancellation) { makeTracks(info) }
        case _ where AVAsset.metadataKeys.contains(key):
            _ = try engine.loadMetadata(cancellation)
        case _ where AVAsset.selectionKeys.contains(key):
            let tracks = try trackList.get(cancellation: cancellation) { makeTracks(info) }
            let metadata = try engine.loadMetadata(cancellation)
            _ = try selectionGroups.get(cancellation: cancellation) { makeSelectionGroups(tracks, metadata) }
        default:
            break
        }
    }

    private func makeTracks(_ info: AssetInfo) -> [AVAssetTrack] {
        guard let engine else { return [] }
        return info.trackStreams.map { AVAssetTrack(asset: self, stream: $0, engine: engine) }
    }

    /// Loads `key` on the calling thread if needed and returns the container facts.
    func loadedInfo(for key: String) throws -> AssetInfo {
        try loader.loadSynchronously(key: key)
        if madeTracks != nil {
            // No container: the facts an asset of segments has (no streams, tags or fragments of its own).
            return AssetInfo(formatName: "", containerDuration: try loadedDuration(), startTime: .zero, bitRate: 0, fileSize: nil,
                             streams: [], tags: [], chapters: [], hasMovieFragments: false, canContainFragments: false)
        }
        guard let info = engine?.loadedInfo else { throw AVError(.operationNotSupportedForAsset) }
        return info
    }

    /// Loads `key` (one of the metadata keys) on the calling thread if needed and returns the
    /// file's metadata. Subclasses that are not backed by a file override this.
    func loadedMetadata(for key: String) throws -> AssetMetadata {
        try loader.loadSynchronously(key: key)
        if madeTracks != nil { return AssetMetadata() }
        guard let engine else { throw AVError(.operationNotSupportedForAsset) }
        return try engine.loadMetadata(DemuxerCancellation())
    }

    /// Loads `key` (a media selection key) if needed and returns the asset's selection groups.
    func loadedSelectionGroups(for key: String) throws -> [AVMediaSelectionGroup] {
        try loader.loadSynchronously(key: key)
        return try selectionGroups.get(cancellation: DemuxerCancellation()) {
            makeSelectionGroups(try loadedTracks(), try loadedMetadata(for: "metadata"))
        }
    }

    private func needsIndexForDuration(_ info: AssetInfo) -> Bool {
        let streams = info.trackStreams
        let known = streams.contains { $0.duration.isNumeric && $0.duration > .zero } || info.containerDuration.isNumeric
        if !known { return !streams.isEmpty }
        let estimated: Set<String> = ["mp3", "mpeg", "mpegts", "aac", "ac3", "eac3", "h264", "hevc", "m4v", "mpegvideo", "avi"]
        return (engine?.prefersPreciseTiming ?? false) && estimated.contains(info.formatName)
    }

    /// The returned tracks, loading them on demand.
    func loadedTracks() throws -> [AVAssetTrack] {
        if let madeTracks { return madeTracks }
        try loader.loadSynchronously(key: "tracks")
        return try trackList.get(cancellation: DemuxerCancellation()) { makeTracks(try loadedInfo(for: "tracks")) }
    }

    func loadedDuration() throws -> CMTime {
        if let madeTracks { return madeTracks.compactMap { $0.mediaSegments.last?.target.end }.max() ?? .zero }
        let info = try loadedInfo(for: "duration")
        let streams = info.trackStreams
        if needsIndexForDuration(info), let indexes = try engine?.loadIndexes(DemuxerCancellation()) {
            var start: CMTime?, end: CMTime?
            for s in streams {
                guard let index = indexes[s.index], index.count > 0 else { continue }
                let range = index.presentationTimeRange
                start = start.map { min($0, range.start) } ?? range.start
                end = end.map { max($0, range.end) } ?? range.end
            }
            if let start, let end { return end - start }
            return streams.isEmpty ? .zero : .invalid
        }
        let durations = streams.compactMap { s -> CMTime? in s.duration.isNumeric ? s.duration : nil }
        if let longest = durations.max() { return longest }
        return info.containerDuration.isNumeric ? info.containerDuration : .invalid
    }

    // MARK: AVAsynchronousKeyValueLoading

    /// The status of the value for `key` (`"duration"`, `"tracks"`, `"playable"`…).
    open func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        let (status, error) = loader.status(forKey: key)
        if let outError, let error { outError.pointee = error as NSError }
        return status
    }

    /// Loads the values of `keys` that are not loaded yet; `handler` is called exactly once, on a
    /// background queue, when each key is loaded, failed or cancelled.
    open func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)? = nil) {
        loader.loadAsynchronously(keys: keys, completion: handler)
    }

    /// Cancels all pending loads; their keys become `.cancelled` and their handlers run.
    open func cancelLoading() {
        loader.cancel()
    }

    // MARK: Synchronous properties (load on demand, blocking)

    /// The asset's duration; `.invalid` when it cannot be loaded.
    open var duration: CMTime { (try? loadedDuration()) ?? .invalid }

    /// The track with an ID, or nil.
    open func track(withTrackID trackID: CMPersistentTrackID) -> AVAssetTrack? { tracks.first { $0.trackID == trackID } }

    /// The natural playback rate (1.0).
    open var preferredRate: Float { 1.0 }

    /// The preferred playback volume (1.0).
    open var preferredVolume: Float { 1.0 }

    /// The movie-level transform (identity; track transforms are on `AVAssetTrack`).
    open var preferredTransform: CGAffineTransform { .identity }

    /// The size of the first visual track (Apple's deprecated `naturalSize`); `.zero` without one.
    open var naturalSize: CGSize { tracks.first { $0.mediaType == .video }?.naturalSize ?? .zero }

    /// Whether the asset has at least one track this build can decode and play.
    open var isPlayable: Bool { (try? loadedPlayable()) ?? false }

    /// Whether the asset can be exported (it can be read and is not protected).
    open var isExportable: Bool { (try? loadedReadable()) ?? false }

    /// Whether the asset's media data can be read (by `AVAssetReader`).
    open var isReadable: Bool { (try? loadedReadable()) ?? false }

    /// Whether the asset can be used in a composition.
    open var isComposable: Bool { (try? loadedReadable()) ?? false }

    /// Whether the asset has protected (encrypted) content.
    open var hasProtectedContent: Bool { (try? loadedProtected()) ?? false }

    /// Whether the duration and timing are exact (always for QuickTime/MP4, WAV, FLAC, Ogg,
    /// Matroska; for other formats when `AVURLAssetPreferPreciseDurationAndTimingKey` was set).
    open var providesPreciseDurationAndTiming: Bool { (try? loadedPrecise()) ?? false }

    /// Whether the file contains movie fragments ('moof').
    open var containsFragments: Bool { madeTracks == nil && (try? loadedInfo(for: "containsFragments").hasMovieFragments) ?? false }

    /// Whether the file declares that fragments may be appended ('mvex').
    open var canContainFragments: Bool { madeTracks == nil && (try? loadedInfo(for: "canContainFragments").canContainFragments) ?? false }

    func loadedPlayable() throws -> Bool {
        if let madeTracks { return madeTracks.contains { ($0.mediaType == .video || $0.mediaType == .audio) && $0.isPlayable } }
        let info = try loadedInfo(for: "playable")
        return info.trackStreams.contains { ($0.kind == .video || $0.kind == .audio) && $0.hasDecoder && $0.formatDescription != nil }
    }

    func loadedReadable() throws -> Bool {
        if let madeTracks { return !madeTracks.contains { $0.mediaSegments.contains { $0.source?.stream.isEncrypted == true } } }
        return try loadedInfo(for: "readable").trackStreams.contains { !$0.isEncrypted }
    }

    func loadedProtected() throws -> Bool {
        if let madeTracks { return madeTracks.contains { $0.mediaSegments.contains { $0.source?.stream.isEncrypted == true } } }
        return try loadedInfo(for: "hasProtectedContent").trackStreams.contains { $0.isEncrypted }
    }

    func loadedPrecise() throws -> Bool {
        if madeTracks != nil { return true }
        let info = try loadedInfo(for: "providesPreciseDurationAndTiming")
        let exact = ["wav", "flac", "ogg", "matroska,webm", "aiff", "caf", "w64"]
        return info.isQuickTimeFamily || exact.contains(info.formatName) || (engine?.prefersPreciseTiming ?? false)
    }

    // MARK: Asynchronous track queries

    /// Loads the track with an ID; nil when there is none.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVAssetTrack? {
        try await load(.tracks).first { $0.trackID == trackID }
    }

    /// Loads the track with an ID and calls `completionHandler` on a background queue.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID,
                          completionHandler: @escaping @Sendable (AVAssetTrack?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["tracks"]) { [self] in
            do { completionHandler(try loadedTracks().first { $0.trackID == trackID }, nil) } catch { completionHandler(nil, error) }
        }
    }
}

// The track lists are declared here rather than in the class so that AVComposition and
// AVMutableComposition can declare them with their own track types, as Apple's SDK does
// (`[AVCompositionTrack]`, `[AVMutableCompositionTrack]`): Swift cannot override a member with an
// array of a subclass, and a member of a more specific type or extension is preferred over these.
// Each asks `loadedTracks()`, which every kind of asset answers with its own tracks.
extension AVAsynchronousKeyValueLoading where Self: AVAsset {
    /// The asset's tracks (empty when they cannot be loaded).
    public var tracks: [AVAssetTrack] { (try? loadedTracks()) ?? [] }

    /// The tracks of a media type.
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] { tracks.filter { $0.mediaType == mediaType } }

    /// The tracks with a media characteristic.
    public func tracks(withMediaCharacteristic characteristic: AVMediaCharacteristic) -> [AVAssetTrack] {
        tracks.filter { $0.hasMediaCharacteristic(characteristic) }
    }

    /// Loads the tracks of a media type.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        try await load(.tracks).filter { $0.mediaType == mediaType }
    }

    /// Loads the tracks with a media characteristic.
    public func loadTracks(withMediaCharacteristic characteristic: AVMediaCharacteristic) async throws -> [AVAssetTrack] {
        try await load(.tracks).filter { $0.hasMediaCharacteristic(characteristic) }
    }

    /// Loads the tracks of a media type and calls `completionHandler` on a background queue.
    public func loadTracks(withMediaType mediaType: AVMediaType,
                           completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["tracks"]) { [self] in
            do { completionHandler(try loadedTracks().filter { $0.mediaType == mediaType }, nil) } catch { completionHandler(nil, error) }
        }
    }

    /// Loads the tracks with a media characteristic and calls `completionHandler` on a background queue.
    public func loadTracks(withMediaCharacteristic characteristic: AVMediaCharacteristic,
                           completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["tracks"]) { [self] in
            do { completionHandler(try loadedTracks().filter { $0.hasMediaCharacteristic(characteristic) }, nil) } catch {
                completionHandler(nil, error)
            }
        }
    }
}

extension AVAsset: KeyValueErrorProviding {
    func loadError(forKey key: String) -> (any Error)? { loader.status(forKey: key).1 }
}
