// AVCompositionTrack: a track of a composition — segments of other files' tracks laid end to end.
import CoreGraphics
import CoreMedia
import Foundation
import Synchronization

/// A track of an `AVComposition`: a list of `AVCompositionTrackSegment`s laid end to end from
/// zero, each presenting a range of a file's track (or nothing). It is an `AVAssetTrack`, so the
/// reader, the image generator and the export session read it like a file's track; its format
/// facts (natural size, frame rate, time scale…) are those of its first segment with media.
open class AVCompositionTrack: AVAssetTrack, @unchecked Sendable {
    /// What a composition track is: its segments and the presentation properties a mutable
    /// track can set.
    struct Contents {
        var segments: [MediaSegment] = []
        var isEnabled = true
        var preferredTransform = CGAffineTransform.identity
        var preferredVolume: Float = 1
        /// 0: the first media segment's track's (600 without one).
        var naturalTimeScale: CMTimeScale = 0
        var languageCode: String?
        var extendedLanguageTag: String?
    }

    private let state: Mutex<Contents>

    init(composition: AVComposition?, trackID: CMPersistentTrackID, mediaType: AVMediaType, contents: Contents) {
        state = Mutex(contents)
        super.init(composedIn: composition, trackID: trackID, mediaType: mediaType)
    }

    /// The track's contents now.
    var contents: Contents { state.withLock { $0 } }

    /// Changes the contents (a mutable track's edits).
    func edit<R>(_ body: (inout Contents) throws -> R) rethrows -> R { try state.withLock { try body(&$0) } }

    override var mediaSegments: [MediaSegment] { contents.segments }

    override var formatSource: SourceTrack? { mediaSegments.lazy.compactMap(\.source).first }

    /// Whether the track has a segment with media (the format facts come from the first).
    private var hasMedia: Bool { formatSource != nil }

    // MARK: Segments

    override var trackSegments: [AVAssetTrackSegment] { compositionSegments }

    /// The track's segments as composition track segments, laid end to end from zero.
    var compositionSegments: [AVCompositionTrackSegment] { mediaSegments.map { AVCompositionTrackSegment($0) } }

    /// The segment whose target range contains `trackTime`, or the closest one.
    open override func segment(forTrackTime trackTime: CMTime) -> AVCompositionTrackSegment? {
        super.segment(forTrackTime: trackTime) as? AVCompositionTrackSegment
    }

    // MARK: Presentation (set on a mutable track)

    /// Whether the track is enabled (default true).
    open override var isEnabled: Bool { contents.isEnabled }

    /// The transform for display (default identity: a composition track does not take its
    /// source's; set it from the source track's, as Apple's sample code does).
    open override var preferredTransform: CGAffineTransform { contents.preferredTransform }

    /// The track's volume (default 1).
    open override var preferredVolume: Float { contents.preferredVolume }

    /// The time scale set on the track; else the first media segment's track's, or 600 without one.
    open override var naturalTimeScale: CMTimeScale {
        let set = contents.naturalTimeScale
        if set > 0 { return set }
        guard hasMedia else { return 600 }
        let own = super.naturalTimeScale
        return own > 0 ? own : 600
    }

    /// The language set on the track (default nil).
    open override var languageCode: String? { contents.languageCode }

    /// The BCP 47 language tag set on the track (default nil).
    open override var extendedLanguageTag: String? { contents.extendedLanguageTag }

    /// Whether the track's media is in the composition (it never is: it refers to files).
    open override var isSelfContained: Bool { false }

    // MARK: Format facts (from the segments' sources)

    /// The distinct format descriptions of the tracks the segments present.
    open override var formatDescriptions: [Any] {
        var out: [CMFormatDescription] = []
        var seen = Set<SourceTrack.Key>()
        for source in mediaSegments.compactMap(\.source) where seen.insert(source.key).inserted {
            if let format = source.stream.formatDescription, !out.contains(where: { CMFormatDescriptionEqual($0, otherFormatDescription: format) }) {
                out.append(format)
            }
        }
        return out
    }

    /// Whether every segment's source can be played.
    open override var isPlayable: Bool { hasMedia && sources.allSatisfy { $0.stream.hasDecoder && $0.stream.formatDescription != nil && !$0.stream.isEncrypted } }

    /// Whether every segment's source can be decoded.
    open override var isDecodable: Bool { hasMedia && sources.allSatisfy { $0.stream.hasDecoder && !$0.stream.isEncrypted } }

    /// The distinct sources of the segments, in order.
    private var sources: [SourceTrack] {
        var seen = Set<SourceTrack.Key>()
        return mediaSegments.compactMap(\.source).filter { seen.insert($0.key).inserted }
    }

    open override var naturalSize: CGSize { hasMedia ? super.naturalSize : .zero }
    open override var estimatedDataRate: Float { hasMedia ? super.estimatedDataRate : 0 }
    open override var nominalFrameRate: Float { hasMedia ? super.nominalFrameRate : 0 }
    open override var minFrameDuration: CMTime { hasMedia ? super.minFrameDuration : .invalid }
    open override var requiresFrameReordering: Bool { hasMedia ? super.requiresFrameReordering : false }
    open override var totalSampleDataLength: Int64 { hasMedia ? super.totalSampleDataLength : 0 }

    open override var mediaCharacteristics: [AVMediaCharacteristic] {
        if hasMedia { return super.mediaCharacteristics }
        switch mediaType {
        case .video: return [.visual, .frameBased]
        case .audio: return [.audible]
        default: return []
        }
    }

    override func loadedDataRate() throws -> Float { hasMedia ? try super.loadedDataRate() : 0 }
    override func loadedFrameRate() throws -> Float { hasMedia ? try super.loadedFrameRate() : 0 }

    /// A description of the track.
    open override var description: String {
        "<\(type(of: self)): trackID \(trackID), \(mediaType.rawValue), \(mediaSegments.count) segments>"
    }
}

extension AVAsynchronousKeyValueLoading where Self: AVCompositionTrack {
    /// The track's segments, laid end to end from zero: media segments (a range of a file's
    /// track) and empty ones.
    public var segments: [AVCompositionTrackSegment] { compositionSegments }
}
