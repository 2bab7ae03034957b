// AVMutableComposition: a composition that can be edited — tracks added and removed, time ranges
// of assets inserted, empty ranges inserted, ranges removed and scaled across every track.
import CoreGraphics
import CoreMedia
import Foundation

/// A composition you build from other assets: add tracks (`addMutableTrack(withMediaType:
/// preferredTrackID:)`) and insert media into them, or insert whole assets; edit every track at
/// once with `insertEmptyTimeRange`, `removeTimeRange` and `scaleTimeRange`. Edits show at once
/// in `duration`, `tracks` and each track's `segments`. `copy()` gives an immutable
/// `AVComposition` snapshot to hand to a reader, image generator or export session.
open class AVMutableComposition: AVComposition, @unchecked Sendable {
    /// An empty composition.
    public init() {
        super.init(urlAssetInitializationOptions: [:], files: CompositionFiles(options: nil))
    }

    /// An empty composition whose segments given by URL open their files with `options`
    /// (`AVURLAssetPreferPreciseDurationAndTimingKey`).
    public convenience init(urlAssetInitializationOptions: [String: Any]? = nil) {
        self.init(urlAssetInitializationOptions: urlAssetInitializationOptions ?? [:],
                  files: CompositionFiles(options: urlAssetInitializationOptions))
    }

    override init(urlAssetInitializationOptions options: [String: Any], files: CompositionFiles) {
        super.init(urlAssetInitializationOptions: options, files: files)
    }

    /// The composition's tracks, in the order they were added.
    public var tracks: [AVMutableCompositionTrack] { compositionTracks.compactMap { $0 as? AVMutableCompositionTrack } }

    /// The tracks of a media type.
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVMutableCompositionTrack] {
        tracks.filter { $0.mediaType == mediaType }
    }

    /// The tracks with a media characteristic.
    public func tracks(withMediaCharacteristic characteristic: AVMediaCharacteristic) -> [AVMutableCompositionTrack] {
        tracks.filter { $0.hasMediaCharacteristic(characteristic) }
    }

    /// Loads the tracks of a media type.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVMutableCompositionTrack] {
        tracks(withMediaType: mediaType)
    }

    /// Loads the tracks with a media characteristic.
    public func loadTracks(withMediaCharacteristic characteristic: AVMediaCharacteristic) async throws -> [AVMutableCompositionTrack] {
        tracks(withMediaCharacteristic: characteristic)
    }

    /// Loads the tracks of a media type and calls `completionHandler` on a background queue.
    public func loadTracks(withMediaType mediaType: AVMediaType,
                           completionHandler: @escaping @Sendable ([AVMutableCompositionTrack]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["tracks"]) { [self] in completionHandler(tracks(withMediaType: mediaType), nil) }
    }

    /// Loads the tracks with a media characteristic and calls `completionHandler` on a background queue.
    public func loadTracks(withMediaCharacteristic characteristic: AVMediaCharacteristic,
                           completionHandler: @escaping @Sendable ([AVMutableCompositionTrack]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["tracks"]) { [self] in completionHandler(tracks(withMediaCharacteristic: characteristic), nil) }
    }

    /// The track with an ID, or nil.
    open override func track(withTrackID trackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        super.track(withTrackID: trackID) as? AVMutableCompositionTrack
    }

    /// Loads the track with an ID; nil when there is none.
    public override func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVMutableCompositionTrack? {
        try await super.loadTrack(withTrackID: trackID) as? AVMutableCompositionTrack
    }

    /// The size of the composition's visual media; `.zero` returns to the default (the first
    /// video track's size).
    open override var naturalSize: CGSize {
        get { super.naturalSize }
        set { edit { $0.naturalSize = newValue } }
    }

    // MARK: Tracks

    /// Adds an empty track of `mediaType`. It gets `preferredTrackID` when that is a valid ID
    /// not in use; otherwise (`kCMPersistentTrackID_Invalid`) the next ID after the highest
    /// handed out, so tracks added without one are numbered 1, 2, 3… in creation order.
    open func addMutableTrack(withMediaType mediaType: AVMediaType, preferredTrackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        edit { contents in
            let used = Set(contents.tracks.map(\.trackID))
            let id: CMPersistentTrackID
            if preferredTrackID > 0, !used.contains(preferredTrackID) {
                id = preferredTrackID
            } else {
                var next = max(contents.lastTrackID, used.max() ?? 0)
                guard next < CMPersistentTrackID.max else { return nil }
                next += 1
                id = next
            }
            contents.lastTrackID = max(contents.lastTrackID, id)
            let track = AVMutableCompositionTrack(composition: self, trackID: id, mediaType: mediaType, contents: .init())
            contents.tracks.append(track)
            return track
        }
    }

    /// Removes `track` from the composition (nothing happens for a track of another composition).
    open func removeTrack(_ track: AVCompositionTrack) {
        edit { $0.tracks.removeAll { $0 === track } }
    }

    /// A track of the composition into which any time range of `track` can be inserted: the
    /// first of its media type; nil when there is none (add one with `addMutableTrack`).
    open func mutableTrack(compatibleWith track: AVAssetTrack) -> AVMutableCompositionTrack? {
        tracks.first { $0.mediaType == track.mediaType }
    }

    // MARK: Editing every track

    /// Inserts `timeRange` of every track of `asset` at `startTime`: each goes into a track of
    /// its media type not yet used by this insertion, or into a new track; what every track
    /// presented from `startTime` on moves back by the range's duration.
    ///
    /// Throws the asset's loading error, `noSourceTrack` for an asset without tracks, or when
    /// `timeRange` is not inside the asset; nothing changes then.
    open func insertTimeRange(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime) throws {
        try insert(timeRange, of: asset, at: startTime)
    }

    private func insert(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime) throws {
        let sources = try asset.loadedTracks()
        guard !sources.isEmpty else {
            throw CompositionEdits.failure(.noSourceTrack, "The asset has no tracks to insert.")
        }
        guard CompositionEdits.isEditable(timeRange) || timeRange.duration == .zero else {
            throw CompositionEdits.failure(.invalidCompositionTrackSegmentSourceStartTime,
                                           "The time range to insert must have a numeric start at or after zero and a numeric duration.")
        }
        let duration = try asset.loadedDuration()
        guard !duration.isNumeric || timeRange.end <= duration else {
            throw CompositionEdits.failure(.invalidCompositionTrackSegmentSourceDuration,
                                           "The time range \(timeRange.start.seconds)–\(timeRange.end.seconds) s is not inside the asset (0–\(duration.seconds) s).")
        }
        guard timeRange.duration > .zero else { return }
        // Check every track first, so that a failure changes nothing.
        let blocks = try sources.filter { $0.formatSource != nil }.map { track in
            (track, try CompositionEdits.checkedBlock(of: track, range: timeRange, at: startTime, mediaType: track.mediaType))
        }
        var used: [AVMutableCompositionTrack] = []
        for (source, block) in blocks {
            let target = tracks.first { $0.mediaType == source.mediaType && !used.contains($0) }
                ?? addMutableTrack(withMediaType: source.mediaType, preferredTrackID: kCMPersistentTrackID_Invalid)
            guard let target else { continue }
            used.append(target)
            target.edit { $0.segments = CompositionEdits.insert(block, at: startTime, duration: timeRange.duration, into: $0.segments) }
        }
        for track in tracks where !used.contains(track) && CompositionEdits.end(track.mediaSegments) > startTime {
            track.edit { $0.segments = CompositionEdits.insertEmpty(CMTimeRange(start: startTime, duration: timeRange.duration), into: $0.segments) }
        }
    }

    /// `insertTimeRange(_:of:at:)`, loading the asset without blocking.
    public func insertTimeRange(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime) async throws {
        _ = try await asset.load(.tracks, .duration)
        try insert(timeRange, of: asset, at: startTime)
    }

    /// `insertTimeRange(_:of:at:)`, calling `completionHandler` on a background queue with its error.
    public func insertTimeRange(_ timeRange: CMTimeRange, of asset: AVAsset, at startTime: CMTime,
                                completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        asset.loadValuesAsynchronously(forKeys: ["tracks", "duration"]) { [self] in
            do {
                try insert(timeRange, of: asset, at: startTime)
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }

    /// Inserts an empty range into every track that presents something at or after its start:
    /// that media moves back by its duration.
    open func insertEmptyTimeRange(_ timeRange: CMTimeRange) {
        guard CompositionEdits.isEditable(timeRange) else { return }
        for track in tracks where CompositionEdits.end(track.mediaSegments) > timeRange.start {
            track.insertEmptyTimeRange(timeRange)
        }
    }

    /// Removes `timeRange` from every track: what followed it moves earlier.
    open func removeTimeRange(_ timeRange: CMTimeRange) {
        for track in tracks { track.removeTimeRange(timeRange) }
    }

    /// Changes the duration of `timeRange` in every track to `duration` (its media plays faster
    /// or slower; what follows moves).
    open func scaleTimeRange(_ timeRange: CMTimeRange, toDuration duration: CMTime) {
        for track in tracks { track.scaleTimeRange(timeRange, toDuration: duration) }
    }
}
