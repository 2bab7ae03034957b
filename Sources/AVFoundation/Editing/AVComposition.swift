// AVComposition: an asset made of composition tracks — an immutable snapshot of an edit.
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine
import Synchronization

/// An asset that combines media from other assets: tracks (`AVCompositionTrack`) made of
/// segments of files' tracks. It is an `AVAsset`, so `AVAssetReader`, `AVAssetImageGenerator`
/// and `AVAssetExportSession` take it; its duration is the end of its longest track.
///
/// An `AVComposition` is immutable; `AVMutableComposition` edits one, and `copy()` of a mutable
/// composition gives an immutable snapshot that later edits do not change (`mutableCopy()` a new
/// mutable one).
open class AVComposition: AVAsset, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// What a composition is: its tracks in order and the size set on it.
    struct Contents {
        var tracks: [AVCompositionTrack] = []
        /// `.zero`: the first video track's size.
        var naturalSize = CGSize.zero
        /// The highest track ID handed out so far.
        var lastTrackID: CMPersistentTrackID = 0
    }

    private let state = Mutex(Contents())
    /// The options of the URL assets the composition opens for segments given by URL.
    public let urlAssetInitializationOptions: [String: Any]
    /// The files opened for segments given by URL, shared with copies.
    let files: CompositionFiles

    init(urlAssetInitializationOptions options: [String: Any], files: CompositionFiles) {
        urlAssetInitializationOptions = options
        self.files = files
        super.init(segmentedTracks: [])
    }

    /// The composition's contents now.
    var contents: Contents { state.withLock { $0 } }

    /// Changes the contents (a mutable composition's edits).
    func edit<R>(_ body: (inout Contents) throws -> R) rethrows -> R { try state.withLock { try body(&$0) } }

    override var madeTracks: [AVAssetTrack]? { contents.tracks }

    /// The composition's tracks as composition tracks.
    var compositionTracks: [AVCompositionTrack] { contents.tracks }

    /// The track with an ID, or nil.
    open override func track(withTrackID trackID: CMPersistentTrackID) -> AVCompositionTrack? {
        compositionTracks.first { $0.trackID == trackID }
    }

    /// Loads the track with an ID; nil when there is none.
    public override func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVCompositionTrack? {
        _ = try await load(.tracks)
        return track(withTrackID: trackID)
    }

    /// The size set on the composition, else its first video track's (`.zero` without one).
    open override var naturalSize: CGSize {
        let set = contents.naturalSize
        return set != .zero ? set : super.naturalSize
    }

    /// A description of the composition.
    open override var description: String {
        "<\(type(of: self)): \(compositionTracks.count) tracks, duration \(duration.seconds) s>"
    }

    // MARK: NSCopying, NSMutableCopying

    /// An immutable composition with this one's tracks as they are now (an immutable composition
    /// is its own copy).
    open func copy(with zone: NSZone? = nil) -> Any {
        if type(of: self) == AVComposition.self { return self }
        let copy = AVComposition(urlAssetInitializationOptions: urlAssetInitializationOptions, files: files)
        copy.adopt(self, mutable: false)
        return copy
    }

    /// A mutable composition with this one's tracks as they are now.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = AVMutableComposition(urlAssetInitializationOptions: urlAssetInitializationOptions, files: files)
        copy.adopt(self, mutable: true)
        return copy
    }

    /// Takes `other`'s tracks (copied, as `AVMutableCompositionTrack`s when `mutable`) and size.
    func adopt(_ other: AVComposition, mutable: Bool) {
        let theirs = other.contents
        let tracks = theirs.tracks.map { track -> AVCompositionTrack in
            mutable ? AVMutableCompositionTrack(composition: self, trackID: track.trackID, mediaType: track.mediaType, contents: track.contents)
                : AVCompositionTrack(composition: self, trackID: track.trackID, mediaType: track.mediaType, contents: track.contents)
        }
        edit {
            $0.tracks = tracks
            $0.naturalSize = theirs.naturalSize
            $0.lastTrackID = theirs.lastTrackID
        }
    }
}

/// The files a composition (and its copies) opened for segments given by URL and track ID, one
/// engine per file, opened with the composition's URL asset options.
final class CompositionFiles: @unchecked Sendable {
    private let engines = Mutex<[URL: URLAssetEngine]>([:])
    private let prefersPreciseTiming: Bool

    init(options: [String: Any]?) {
        switch options?[AVURLAssetPreferPreciseDurationAndTimingKey] {
        case let b as Bool: prefersPreciseTiming = b
        case let n as NSNumber: prefersPreciseTiming = n.boolValue
        default: prefersPreciseTiming = false
        }
    }

    /// The stream of track `trackID` of the file at `url`; throws the file's loading error, or
    /// `AVError.noSourceTrack` when it has no such track.
    func source(url: URL, trackID: CMPersistentTrackID) throws -> SourceTrack {
        let engine = engines.withLock { engines in
            if let engine = engines[url] { return engine }
            let engine = URLAssetEngine(url: url, prefersPreciseTiming: prefersPreciseTiming)
            engines[url] = engine
            return engine
        }
        let info = try engine.loadInfo(DemuxerCancellation())
        guard let stream = info.trackStreams.first(where: { $0.trackID == trackID }) else {
            throw AVError(.noSourceTrack, userInfo: [
                NSLocalizedDescriptionKey: "Cannot Open", NSURLErrorKey: url,
                NSLocalizedFailureReasonErrorKey: "\(url.lastPathComponent) has no track with ID \(trackID).",
            ])
        }
        return SourceTrack(engine: engine, stream: stream)
    }
}

// The track lists with Apple's types (AVAsset declares its own in a protocol extension, so these,
// more specific, are chosen wherever the static type is a composition).
extension AVAsynchronousKeyValueLoading where Self: AVComposition {
    /// The composition's tracks, in the order they were added.
    public var tracks: [AVCompositionTrack] { compositionTracks }

    /// The tracks of a media type.
    public func tracks(withMediaType mediaType: AVMediaType) -> [AVCompositionTrack] {
        compositionTracks.filter { $0.mediaType == mediaType }
    }

    /// The tracks with a media characteristic.
    public func tracks(withMediaCharacteristic characteristic: AVMediaCharacteristic) -> [AVCompositionTrack] {
        compositionTracks.filter { $0.hasMediaCharacteristic(characteristic) }
    }

    /// Loads the tracks of a media type.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVCompositionTrack] {
        tracks(withMediaType: mediaType)
    }

    /// Loads the tracks with a media characteristic.
    public func loadTracks(withMediaCharacteristic characteristic: AVMediaCharacteristic) async throws -> [AVCompositionTrack] {
        tracks(withMediaCharacteristic: characteristic)
    }

    /// Loads the tracks of a media type and calls `completionHandler` on a background queue.
    public func loadTracks(withMediaType mediaType: AVMediaType,
                           completionHandler: @escaping @Sendable ([AVCompositionTrack]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["tracks"]) { [self] in completionHandler(tracks(withMediaType: mediaType), nil) }
    }

    /// Loads the tracks with a media characteristic and calls `completionHandler` on a background queue.
    public func loadTracks(withMediaCharacteristic characteristic: AVMediaCharacteristic,
                           completionHandler: @escaping @Sendable ([AVCompositionTrack]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["tracks"]) { [self] in completionHandler(tracks(withMediaCharacteristic: characteristic), nil) }
    }
}
