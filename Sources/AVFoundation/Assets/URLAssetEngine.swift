// URLAssetEngine: what an asset backed by a file knows, loaded once and shared by the asset,
// its tracks and both loading styles.
import CoreMedia
import Foundation
internal import MediaEngine

/// The container facts of a file, copied out of a short-lived demuxer.
struct AssetInfo: Sendable {
    var formatName: String
    var containerDuration: CMTime
    var startTime: CMTime
    var bitRate: Int
    var fileSize: Int64?
    var streams: [StreamInfo]
    var tags: [(key: String, value: String)]
    var chapters: [Demuxer.ChapterInfo]
    /// Top-level box facts for QuickTime-family files.
    var hasMovieFragments: Bool
    var canContainFragments: Bool

    var isQuickTimeFamily: Bool { formatName.contains("mov") || formatName.contains("mp4") }

    /// The streams that become tracks: everything but cover pictures and attachments.
    var trackStreams: [StreamInfo] {
        streams.filter { !$0.isAttachedPicture && $0.kind != .attachment && $0.kind != .unknown }
    }
}

/// Loads and caches a file's facts and packet indexes for an asset and its tracks.
final class URLAssetEngine: @unchecked Sendable {
    let url: URL
    let prefersPreciseTiming: Bool
    private let info = LoadOnce<AssetInfo>()
    private let indexes = LoadOnce<[Int: PacketIndex]>()
    private let metadata = LoadOnce<AssetMetadata>()
    private let editLists = LoadOnce<[CMPersistentTrackID: TrackEditList]>()
    /// Opening a local file never takes longer than this (hostile files included).
    static let openTimeout: Double = 60

    init(url: URL, prefersPreciseTiming: Bool) {
        self.url = url
        self.prefersPreciseTiming = prefersPreciseTiming
    }

    /// The container facts, opening the file on first use.
    func loadInfo(_ cancellation: DemuxerCancellation) throws -> AssetInfo {
        try info.get(cancellation: cancellation) {
            do {
                let demuxer = try Demuxer(url: url, cancellation: cancellation)
                guard !demuxer.streams.isEmpty else {
                    // The container opened but describes no media at all: damaged, as far as a user can tell.
                    throw AVError.from(.failedToParse(code: MediaError.invalidDataCode,
                                                      message: "\(url.path): the container describes no streams"), url: url)
                }
                let boxes = demuxer.formatName.contains("mov") ? QuickTimeBoxScan(url: url) : QuickTimeBoxScan()
                return AssetInfo(formatName: demuxer.formatName, containerDuration: demuxer.duration,
                                 startTime: demuxer.startTime, bitRate: demuxer.bitRate, fileSize: demuxer.fileSize,
                                 streams: demuxer.streams, tags: demuxer.tags, chapters: demuxer.chapters,
                                 hasMovieFragments: boxes.hasMovieFragments, canContainFragments: boxes.hasMovieExtends)
            } catch let error as MediaError {
                throw AVError.from(error, url: url)
            }
        }
    }

    /// The packet index of every stream, scanning the file on first use (shared process-wide).
    func loadIndexes(_ cancellation: DemuxerCancellation) throws -> [Int: PacketIndex] {
        try indexes.get(cancellation: cancellation) {
            do {
                return try PacketIndexCache.shared.indexes(for: url, cancellation: cancellation)
            } catch let error as MediaError {
                throw AVError.from(error, url: url)
            }
        }
    }

    /// The already-loaded facts (nil before loading or after a failure).
    var loadedInfo: AssetInfo? { info.cachedValue }

    /// The file's metadata (items by format, chapters, track items, ISO track headers), read
    /// once on first use and shared by the asset and its tracks.
    ///
    /// Fails only when the container cannot be opened — with the same error `tracks` and
    /// `duration` fail with, as all of Apple's keys fail together for an unreadable file. Once
    /// the container is open, metadata never fails: damaged or unreadable metadata gives fewer
    /// items (when the bytes cannot be reread at all, the demuxer's own tags are used), so a
    /// metadata problem never costs the asset its duration or tracks.
    func loadMetadata(_ cancellation: DemuxerCancellation) throws -> AssetMetadata {
        let info = try loadInfo(cancellation)
        return try metadata.get(cancellation: cancellation) {
            let container = URLAssetEngine.containerTags(info)
            do {
                return try MetadataReader.read(url: url, container: container)
            } catch {
                var fallback = AssetMetadata()
                ContainerMetadata.add(container, to: &fallback)
                return fallback
            }
        }
    }

    /// The edit list of every track that has one, by track ID, read from the file's bytes once
    /// on first use (QuickTime-family files only; other containers have none here).
    ///
    /// Fails only when the container cannot be opened; a damaged edit list leaves its track out.
    func loadEditLists(_ cancellation: DemuxerCancellation) throws -> [CMPersistentTrackID: TrackEditList] {
        let info = try loadInfo(cancellation)
        return try editLists.get(cancellation: cancellation) {
            info.isQuickTimeFamily ? EditListReader.read(url: url) : [:]
        }
    }

    /// What the demuxer reported, in the metadata readers' terms: container tags in file order,
    /// chapters with their titles, and per-track tags under the track IDs `AVAssetTrack` uses.
    static func containerTags(_ info: AssetInfo) -> ContainerTags {
        let chapters = info.chapters.map { chapter -> ContainerTags.Chapter in
            let title = chapter.tags.first { $0.key.lowercased() == "title" }?.value
            return ContainerTags.Chapter(start: chapter.start, end: chapter.end, title: title,
                                         tags: chapter.tags.filter { $0.key.lowercased() != "title" })
        }
        var trackTags: [CMPersistentTrackID: [(key: String, value: String)]] = [:]
        for stream in info.trackStreams where !stream.tags.isEmpty { trackTags[stream.trackID] = stream.tags }
        return ContainerTags(formatName: info.formatName, tags: info.tags, chapters: chapters, trackTags: trackTags)
    }
}

/// The top-level and movie-box children of a QuickTime/MP4 file, walked with bounded reads to
/// learn whether it is fragmented ('moof') or declares that it may be ('mvex').
struct QuickTimeBoxScan {
    var hasMovieFragments = false
    var hasMovieExtends = false

    init() {}

    init(url: URL) {
        guard let file = try? MediaFile(url: url) else { return }
        func walk(_ walker: ISOBoxWalker, depth: Int) {
            var walker = walker
            while let box = try? walker.next(), box.fits {
                if box.type == FourCC.code("moof") { hasMovieFragments = true }
                if box.type == FourCC.code("mvex") { hasMovieExtends = true }
                if box.type == FourCC.code("moov"), depth == 0 {
                    walk(file.boxes(from: box.payloadOffset, to: box.end, maximumBoxes: 10_000), depth: 1)
                }
            }
        }
        walk(file.boxes(maximumBoxes: 10_000), depth: 0)
    }
}
