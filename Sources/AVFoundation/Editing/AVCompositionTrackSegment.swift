// AVCompositionTrackSegment: one segment of a composition track — a range of a file's track, or
// an empty stretch.
import CoreMedia
import Foundation

/// A segment of a composition track: a time range of a track of a media file (`sourceURL`,
/// `sourceTrackID`) presented over a range of the composition track's timeline, or an empty
/// segment presenting nothing (`isEmpty`; `init(timeRange:)`).
open class AVCompositionTrackSegment: AVAssetTrackSegment, @unchecked Sendable {
    /// The URL of the file holding the segment's media; nil for an empty segment.
    open private(set) var sourceURL: URL?
    /// The ID of the track of `sourceURL` holding the media (`kCMPersistentTrackID_Invalid` for an empty segment).
    open private(set) var sourceTrackID: CMPersistentTrackID
    /// The stream the segment reads, when it came from a track (rather than a URL and track ID).
    let mediaSegment: MediaSegment?

    /// A segment presenting `sourceTimeRange` of track `trackID` of the file at `url` over
    /// `targetTimeRange` (scaled when the durations differ).
    public init(url URL: URL, trackID: CMPersistentTrackID, sourceTimeRange: CMTimeRange, targetTimeRange: CMTimeRange) {
        sourceURL = URL
        sourceTrackID = trackID
        mediaSegment = nil
        super.init(timeMapping: CMTimeMapping(source: sourceTimeRange, target: targetTimeRange))
    }

    /// An empty segment over `timeRange`.
    public init(timeRange: CMTimeRange) {
        sourceURL = nil
        sourceTrackID = kCMPersistentTrackID_Invalid
        mediaSegment = MediaSegment(emptyTargetRange: timeRange)
        super.init(timeMapping: CMTimeMappingMakeEmpty(target: timeRange))
    }

    /// The public form of one of a composition track's segments.
    init(_ segment: MediaSegment) {
        sourceURL = segment.source?.url
        sourceTrackID = segment.source?.stream.trackID ?? kCMPersistentTrackID_Invalid
        mediaSegment = segment
        super.init(timeMapping: segment.timeMapping)
    }

    /// Whether the segment presents nothing.
    open override var isEmpty: Bool { sourceURL == nil }

    /// The segment, described.
    open override var description: String {
        let mapping = timeMapping
        let target = "target \(mapping.target.start.seconds)+\(mapping.target.duration.seconds)"
        guard let sourceURL else { return "<AVCompositionTrackSegment: empty, \(target)>" }
        return "<AVCompositionTrackSegment: \(sourceURL.lastPathComponent) track \(sourceTrackID) "
            + "\(mapping.source.start.seconds)+\(mapping.source.duration.seconds) → \(target)>"
    }
}
