// AVMutableCompositionTrack: a composition track that can be edited — insert, remove and scale
// time ranges, set segments, set presentation properties.
import CoreGraphics
import CoreMedia
import Foundation

/// A track of an `AVMutableComposition` that can be edited. Edits change the track (and its
/// composition's duration) at once; readers, image generators and exports use the segments the
/// track has when they start.
open class AVMutableCompositionTrack: AVCompositionTrack, @unchecked Sendable {
    // MARK: Properties

    /// Whether the track is enabled (default true).
    open override var isEnabled: Bool {
        get { super.isEnabled }
        set { edit { $0.isEnabled = newValue } }
    }

    /// The time scale for the track's times; 0 returns to the default (the first media
    /// segment's track's, or 600).
    open override var naturalTimeScale: CMTimeScale {
        get { super.naturalTimeScale }
        set { edit { $0.naturalTimeScale = max(0, newValue) } }
    }

    /// The track's language, as an ISO 639-2/T code (default nil).
    open override var languageCode: String? {
        get { super.languageCode }
        set { edit { $0.languageCode = newValue } }
    }

    /// The track's language, as a BCP 47 tag (default nil).
    open override var extendedLanguageTag: String? {
        get { super.extendedLanguageTag }
        set { edit { $0.extendedLanguageTag = newValue } }
    }

    /// The transform for display (default identity).
    open override var preferredTransform: CGAffineTransform {
        get { super.preferredTransform }
        set { edit { $0.preferredTransform = newValue } }
    }

    /// The track's volume (default 1).
    open override var preferredVolume: Float {
        get { super.preferredVolume }
        set { edit { $0.preferredVolume = newValue } }
    }

    /// The track's segments (`AVCompositionTrackSegment`s). Setting them replaces the track's
    /// timeline; they must follow the rules `validateSegments(_:)` checks (check first: segments
    /// that break them stop the program, as Apple's invalid-argument exception does).
    public var segments: [AVCompositionTrackSegment]! {
        get { compositionSegments }
        set {
            let given = newValue ?? []
            do {
                let resolved = try resolve(given)
                edit { $0.segments = CompositionEdits.normalised(resolved) }
            } catch {
                raiseReaderException(.invalidArgument, "*** -[AVMutableCompositionTrack setSegments:] \(CompositionEdits.reason(of: error))")
            }
        }
    }

    /// Checks that `trackSegments` can be the track's segments: laid end to end from zero
    /// (`compositionTrackSegmentsNotContiguous`), with positive numeric target durations
    /// (`invalidCompositionTrackSegmentDuration`), and media segments with a numeric source
    /// start (`invalidCompositionTrackSegmentSourceStartTime`), a positive source duration
    /// (`invalidCompositionTrackSegmentSourceDuration`) and a readable source of the track's media
    /// type (the file's loading error, `noSourceTrack`, `incompatibleAsset`).
    open func validateSegments(_ trackSegments: [AVCompositionTrackSegment]) throws {
        _ = try resolve(trackSegments)
    }

    /// The segments as the engine's, checked.
    private func resolve(_ given: [AVCompositionTrackSegment]) throws -> [MediaSegment] {
        var end = CMTime.zero
        return try given.enumerated().map { index, segment in
            let mapping = segment.timeMapping
            guard mapping.target.start.isNumeric, mapping.target.start == end else {
                throw CompositionEdits.segmentError(.compositionTrackSegmentsNotContiguous, index,
                                                    "starts at \(mapping.target.start.seconds) s, where the segments before it end at \(end.seconds) s")
            }
            guard mapping.target.duration.isNumeric, mapping.target.duration > .zero else {
                throw CompositionEdits.segmentError(.invalidCompositionTrackSegmentDuration, index, "has no positive target duration")
            }
            end = mapping.target.end
            if segment.isEmpty { return MediaSegment(emptyTargetRange: mapping.target) }
            guard mapping.source.start.isNumeric, mapping.source.start >= .zero else {
                throw CompositionEdits.segmentError(.invalidCompositionTrackSegmentSourceStartTime, index, "has no valid source start time")
            }
            guard mapping.source.duration.isNumeric, mapping.source.duration > .zero else {
                throw CompositionEdits.segmentError(.invalidCompositionTrackSegmentSourceDuration, index, "has no positive source duration")
            }
            let source: SourceTrack
            if let known = segment.mediaSegment?.source {
                source = known
            } else {
                guard let url = segment.sourceURL else {
                    throw CompositionEdits.segmentError(.invalidCompositionTrackSegmentSourceStartTime, index, "has no source")
                }
                let files = (asset as? AVComposition)?.files ?? CompositionFiles(options: nil)
                source = try files.source(url: url, trackID: segment.sourceTrackID)
            }
            let type = AVMediaType(rawValue: source.stream.mediaType.fourCCString)
            guard type == mediaType else { throw CompositionEdits.incompatibleMediaType(type, into: mediaType) }
            return MediaSegment(source: source, sourceRange: mapping.source, targetRange: mapping.target)
        }
    }

    // MARK: Editing

    /// Inserts `timeRange` of `track` at `startTime`: what the track presented from `startTime`
    /// on moves back by the range's duration; a start past the track's end leaves an empty
    /// segment before the media. The media plays at its own rate (`scaleTimeRange` changes it).
    ///
    /// Throws when `track` is not of this track's media type, has no media, cannot be loaded,
    /// or `timeRange` is not inside its media.
    open func insertTimeRange(_ timeRange: CMTimeRange, of track: AVAssetTrack, at startTime: CMTime) throws {
        let block = try CompositionEdits.checkedBlock(of: track, range: timeRange, at: startTime, mediaType: mediaType)
        guard !block.isEmpty else { return }
        edit { $0.segments = CompositionEdits.insert(block, at: startTime, duration: timeRange.duration, into: $0.segments) }
    }

    /// Inserts each of `timeRanges` (CMTimeRange values) of the matching track of `tracks`, one
    /// after another from `startTime`. Nothing is inserted when one of them cannot be.
    open func insertTimeRanges(_ timeRanges: [NSValue], of tracks: [AVAssetTrack], at startTime: CMTime) throws {
        guard timeRanges.count == tracks.count else {
            throw AVError(.unknown, userInfo: [
                NSLocalizedDescriptionKey: "Operation Stopped",
                NSLocalizedFailureReasonErrorKey: "insertTimeRanges needs one time range per track (\(timeRanges.count) ranges, \(tracks.count) tracks).",
            ])
        }
        var blocks: [(block: [MediaSegment], duration: CMTime)] = []
        var cursor = startTime
        for (value, track) in zip(timeRanges, tracks) {
            let range = value.timeRangeValue
            blocks.append((try CompositionEdits.checkedBlock(of: track, range: range, at: cursor, mediaType: mediaType), range.duration))
            if range.duration.isNumeric { cursor = cursor + range.duration }
        }
        edit { contents in
            var at = startTime
            for (block, duration) in blocks where !block.isEmpty {
                contents.segments = CompositionEdits.insert(block, at: at, duration: duration, into: contents.segments)
                at = at + duration
            }
        }
    }

    /// Inserts an empty segment over `timeRange`: what the track presented from its start moves
    /// back by its duration.
    open func insertEmptyTimeRange(_ timeRange: CMTimeRange) {
        guard CompositionEdits.isEditable(timeRange) else { return }
        edit { $0.segments = CompositionEdits.insertEmpty(timeRange, into: $0.segments) }
    }

    /// Removes `timeRange` from the track: what followed it moves earlier by its duration.
    open func removeTimeRange(_ timeRange: CMTimeRange) {
        guard CompositionEdits.isEditable(timeRange) else { return }
        edit { $0.segments = CompositionEdits.remove(timeRange, from: $0.segments) }
    }

    /// Changes the duration of `timeRange` to `duration`: its media plays faster or slower
    /// (video frames are retimed; audio is time-stretched when read as PCM), and what follows moves.
    open func scaleTimeRange(_ timeRange: CMTimeRange, toDuration duration: CMTime) {
        guard CompositionEdits.isEditable(timeRange), duration.isNumeric, duration > .zero else { return }
        edit { $0.segments = CompositionEdits.scale(timeRange, toDuration: duration, in: $0.segments) }
    }
}
