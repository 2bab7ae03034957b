// AVAssetTrack: one track of an asset — its media type, format, timing and presentation.
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine

/// A track of an asset: a uniform media stream (video, audio, subtitles…) with its format
/// descriptions, timing and presentation properties. Basic properties are available as soon as
/// the asset's tracks are loaded; those that need every sample's timing (`totalSampleDataLength`,
/// `minFrameDuration`, `requiresFrameReordering`) scan the file's packets once, without decoding.
open class AVAssetTrack: NSObject, AVAsynchronousKeyValueLoading, @unchecked Sendable {
    /// The asset the track belongs to (weak, as Apple's).
    public private(set) weak var asset: AVAsset?
    /// The track's persistent ID (the 'tkhd' track ID for QuickTime/MP4 files).
    public let trackID: CMPersistentTrackID
    /// The track's media type.
    public let mediaType: AVMediaType

    /// The source whose stream gives the track its format facts: a file track's own stream; a
    /// track made of segments takes its first segment with media (a composition track's changes
    /// with its edits, and is nil while it has no media: such a track overrides every property
    /// that reads `stream`).
    var formatSource: SourceTrack? { fixedSource }
    private let fixedSource: SourceTrack?
    /// The stream whose format the track has (see `formatSource`).
    var stream: StreamInfo { formatSource!.stream }
    /// The media source of `stream`.
    var engine: URLAssetEngine { formatSource!.engine }
    /// What the track presents, in the asset's timeline: a file track is one whole-stream
    /// segment; a track made of segments (`init(asset:trackID:segments:)`) lists them; a
    /// composition track's are its current edits.
    var mediaSegments: [MediaSegment] { fixedSegments }
    private let fixedSegments: [MediaSegment]
    /// Whether the track was made of segments rather than read from a file.
    let isMadeOfSegments: Bool
    private var loader: KeyValueLoader!

    static let loadableKeys: Set<String> = Set<String>([
        "trackID", "mediaType", "formatDescriptions", "playable", "decodable", "enabled", "selfContained",
        "totalSampleDataLength", "timeRange", "naturalTimeScale", "estimatedDataRate", "languageCode",
        "extendedLanguageTag", "naturalSize", "preferredTransform", "preferredVolume", "nominalFrameRate",
        "minFrameDuration", "requiresFrameReordering", "segments", "mediaCharacteristics",
    ]).union(AVAssetTrack.metadataKeys)
    /// The keys whose values come from the file's metadata ("mediaCharacteristics" reads the
    /// tagged characteristics there).
    static let metadataKeys: Set<String> = ["metadata", "commonMetadata", "availableMetadataFormats"]
    private static let indexKeys: Set<String> = ["totalSampleDataLength", "minFrameDuration", "requiresFrameReordering"]
    /// What an MPEG-1/2 video sequence header's "variable bit rate" code (0x3FFFF × 400 b/s)
    /// becomes in FFmpeg's stream bit rate: not a rate, so the data rate is measured instead.
    static let mpegVariableBitRate = 0x3FFFF * 400

    convenience init(asset: AVAsset, stream: StreamInfo, engine: URLAssetEngine) {
        let source = SourceTrack(engine: engine, stream: stream)
        self.init(asset: asset, trackID: stream.trackID, segments: [.wholeStream(source)], primary: source, madeOfSegments: false)
    }

    /// A track of `asset` made of `segments` (what a composition track is): its format facts
    /// (media type, format descriptions, natural size, frame rate…) are those of the first
    /// segment's source stream, its time range and segments its own. The segments must pass
    /// `MediaSegment.problem(in:)`.
    convenience init(asset: AVAsset, trackID: CMPersistentTrackID, segments: [MediaSegment]) {
        precondition(MediaSegment.problem(in: segments) == nil, MediaSegment.problem(in: segments) ?? "")
        let primary = segments.compactMap(\.source)[0]
        self.init(asset: asset, trackID: trackID, segments: segments, primary: primary, madeOfSegments: true)
    }

    private init(asset: AVAsset, trackID: CMPersistentTrackID, segments: [MediaSegment], primary: SourceTrack, madeOfSegments: Bool) {
        self.asset = asset
        fixedSource = primary
        self.trackID = trackID
        fixedSegments = segments
        isMadeOfSegments = madeOfSegments
        mediaType = AVMediaType(rawValue: primary.stream.mediaType.fourCCString)
        super.init()
        let engine = primary.engine, stream = primary.stream
        loader = KeyValueLoader { [engine, stream] key, cancellation in
            guard AVAssetTrack.loadableKeys.contains(key) else {
                throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "AVAssetTrack has no loadable key “\(key)”."])
            }
            if AVAssetTrack.indexKeys.contains(key) || AVAssetTrack.needsIndex(key: key, stream: stream) {
                _ = try engine.loadIndexes(cancellation)
            }
            if AVAssetTrack.metadataKeys.contains(key) || key == "mediaCharacteristics" {
                _ = try engine.loadMetadata(cancellation)
            }
            if key == "timeRange" || key == "segments" {
                _ = try engine.loadEditLists(cancellation)
            }
        }
    }

    /// A track of `asset` whose segments and format source a subclass provides (a composition
    /// track): keys load the packet indexes of every source its segments read when they need them.
    init(composedIn asset: AVAsset?, trackID: CMPersistentTrackID, mediaType: AVMediaType) {
        self.asset = asset
        fixedSource = nil
        self.trackID = trackID
        fixedSegments = []
        isMadeOfSegments = true
        self.mediaType = mediaType
        super.init()
        loader = KeyValueLoader { [weak self] key, cancellation in
            guard let self else { throw AVError(.operationCancelled) }
            guard AVAssetTrack.loadableKeys.contains(key) else {
                throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "AVAssetTrack has no loadable key “\(key)”."])
            }
            guard AVAssetTrack.indexKeys.contains(key) || key == "timeRange" || key == "segments" else { return }
            var seen = Set<URL>()
            for source in self.mediaSegments.compactMap(\.source) where seen.insert(source.url).inserted {
                _ = try source.engine.loadIndexes(cancellation)
            }
        }
    }

    /// Loads `key` (one of the metadata keys) if needed and returns the file's metadata.
    func loadedMetadata(for key: String) throws -> AssetMetadata {
        try loader.loadSynchronously(key: key)
        if isMadeOfSegments { return AssetMetadata() }
        return try engine.loadMetadata(DemuxerCancellation())
    }

    /// Whether a basic key lacks container facts and must be derived from the packet index.
    private static func needsIndex(key: String, stream: StreamInfo) -> Bool {
        switch key {
        case "timeRange", "segments": return !stream.duration.isNumeric
        case "estimatedDataRate": return stream.bitRate == 0 || stream.bitRate == AVAssetTrack.mpegVariableBitRate
        case "nominalFrameRate": return stream.kind == .video && stream.averageFrameRate == 0
        default: return false
        }
    }

    private func index(loading key: String) throws -> PacketIndex? {
        try loader.loadSynchronously(key: key)
        return try engine.loadIndexes(DemuxerCancellation())[stream.index]
    }

    // MARK: AVAsynchronousKeyValueLoading

    /// The status of the value for `key`.
    open func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        let (status, error) = loader.status(forKey: key)
        if let outError, let error { outError.pointee = error as NSError }
        return status
    }

    /// Loads the values of `keys`; `handler` is called exactly once, on a background queue.
    open func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)? = nil) {
        loader.loadAsynchronously(keys: keys, completion: handler)
    }

    // MARK: Basic properties

    /// The track's format descriptions (one for a uniform track; none when the codec has no
    /// Apple-style description).
    open var formatDescriptions: [Any] { stream.formatDescription.map { [$0] } ?? [] }

    /// Whether this build can play the track (it has a decoder and a format description).
    open var isPlayable: Bool { isDecodable && stream.formatDescription != nil && !stream.isEncrypted }

    /// Whether this build has a decoder for the track's media.
    open var isDecodable: Bool { stream.hasDecoder && !stream.isEncrypted }

    /// Whether the track is enabled (QuickTime 'tkhd' enabled flag; elsewhere the default-track
    /// flag, or true when the file marks no track of this kind as default).
    open var isEnabled: Bool {
        if isMadeOfSegments { return true }
        if stream.disposition.contains(.default) { return true }
        guard let info = engine.loadedInfo else { return true }
        return !info.trackStreams.contains { $0.kind == stream.kind && $0.disposition.contains(.default) }
    }

    /// Whether the track's media is in the file itself (always true here).
    open var isSelfContained: Bool { true }

    /// The track's time range in the asset's timeline: from the start of its first segment
    /// that presents media to the end of its last one. An edit list that starts with an empty
    /// edit delays the track, so its range starts later than zero.
    open var timeRange: CMTimeRange { (try? loadedTimeRange()) ?? .zero }

    /// The timescale of the track's media: the 'mdhd' timescale for QuickTime/MP4; for audio in
    /// other containers, the sample rate; otherwise the stream's time base.
    open var naturalTimeScale: CMTimeScale {
        if stream.kind == .audio, stream.sampleRate > 0, engine.loadedInfo?.isQuickTimeFamily == false {
            return CMTimeScale(clamping: stream.sampleRate)
        }
        return stream.timeScale  // 0: no usable time base (Apple's 0 for "unknown")
    }

    /// The track's estimated data rate in bits per second.
    open var estimatedDataRate: Float { (try? loadedDataRate()) ?? 0 }

    /// The track's language as an ISO 639-2/T code ("eng", "deu"); nil when the file gives none.
    open var languageCode: String? { stream.language.map(AVAssetTrack.terminologyCode) }

    /// The track's language as a BCP 47 tag, when the file gives one ("en-US").
    open var extendedLanguageTag: String? {
        stream.tags.first { $0.key.lowercased() == "language-ietf" || $0.key.lowercased() == "language_ietf" }?.value
    }

    /// The track's natural dimensions: the coded size with the width scaled by the pixel aspect
    /// ratio (what QuickTime writes as the 'tkhd' size, possibly fractional), before
    /// `preferredTransform` (zero for non-visual tracks).
    open var naturalSize: CGSize {
        guard stream.kind == .video else { return .zero }
        var width = CGFloat(stream.width)
        if let sar = stream.sampleAspectRatio { width = width * CGFloat(sar.horizontal) / CGFloat(sar.vertical) }
        return CGSize(width: width, height: CGFloat(stream.height))
    }

    /// The transform to apply for display (the 'tkhd' matrix: rotated phone videos are
    /// `(0, 1, -1, 0, h, 0)` and similar).
    open var preferredTransform: CGAffineTransform { stream.transform }

    /// The track's volume (1 for audio, 0 otherwise).
    open var preferredVolume: Float { stream.kind == .audio ? 1 : 0 }

    /// The track's frame rate: frames per second for video, packets per second for audio.
    open var nominalFrameRate: Float { (try? loadedFrameRate()) ?? 0 }

    /// The shortest duration of any sample; `.invalid` when the track has no samples.
    open var minFrameDuration: CMTime { (try? index(loading: "minFrameDuration")?.minimumFrameDuration) ?? .invalid }

    /// Whether samples are stored in a different order from the one they are presented in (B-frames).
    open var requiresFrameReordering: Bool { (try? index(loading: "requiresFrameReordering")?.requiresFrameReordering) ?? false }

    /// The total size of the track's sample data in bytes.
    open var totalSampleDataLength: Int64 { (try? index(loading: "totalSampleDataLength")?.totalSize) ?? 0 }

    /// The presentation times of the track's sync samples (keyframes), ascending; nil for a
    /// composition's track or when the file cannot be indexed. Seeks with tolerance land on them.
    func syncSampleTimes() -> [CMTime]? {
        guard !isMadeOfSegments, let index = try? index(loading: "timeRange") else { return nil }
        return index.keyframeIndices.map { index.presentationTime(ofDecodeIndex: $0) }.sorted()
    }

    /// What `segments` gives (a composition track's are `AVCompositionTrackSegment`s).
    var trackSegments: [AVAssetTrackSegment] {
        if isMadeOfSegments { return mediaSegments.map { AVAssetTrackSegment(timeMapping: $0.timeMapping) } }
        if let mappings = editListMappings() { return mappings.map { AVAssetTrackSegment(timeMapping: $0) } }
        let range = timeRange
        return [AVAssetTrackSegment(timeMapping: CMTimeMapping(source: range, target: range))]
    }

    /// The segment whose target range contains `trackTime`, or the closest one.
    open func segment(forTrackTime trackTime: CMTime) -> AVAssetTrackSegment? {
        let all = trackSegments
        if let hit = all.first(where: { $0.timeMapping.target.containsTime(trackTime) }) { return hit }
        guard trackTime.isNumeric else { return nil }
        return all.min { a, b in distance(trackTime, a.timeMapping.target) < distance(trackTime, b.timeMapping.target) }
    }

    private func distance(_ t: CMTime, _ r: CMTimeRange) -> CMTime {
        if t < r.start { return r.start - t }
        return t - r.end
    }

    /// The presentation time, in the track's media timeline, of the sample shown at `trackTime`:
    /// `trackTime` is mapped through the segment containing it and the start of the sample whose
    /// presentation interval holds the result is returned. `.invalid` when `trackTime` is out of
    /// the track's segments or falls in an empty edit.
    open func samplePresentationTime(forTrackTime trackTime: CMTime) -> CMTime {
        guard trackTime.isNumeric,
              let segment = segments.first(where: { $0.timeMapping.target.containsTime(trackTime) }),
              !segment.isEmpty else { return .invalid }
        if isMadeOfSegments { return composedSamplePresentationTime(forTrackTime: trackTime) }
        let mapping = segment.timeMapping
        var offset = trackTime - mapping.target.start
        if mapping.source.duration != mapping.target.duration, mapping.target.duration > .zero {
            offset = CMTimeMultiplyByFloat64(offset, multiplier: mapping.source.duration.seconds / mapping.target.duration.seconds)
        }
        let media = mapping.source.start + offset
        // FFmpeg applies the edit list while demuxing: its timestamps are in the track's
        // timeline, a segment's media starting at its target start.
        let toTrack = mapping.target.start - mapping.source.start
        guard let index = try? engine.loadIndexes(DemuxerCancellation())[stream.index], index.count > 0 else { return media }
        let lookup = media + toTrack
        let sample: CMTime
        if let d = index.decodeIndex(containing: lookup) {
            sample = index.presentationTime(ofDecodeIndex: d)
        } else if lookup < index.presentationTime(ofDecodeIndex: index.decodeIndex(forPresentationIndex: 0)) {
            sample = index.presentationTime(ofDecodeIndex: index.decodeIndex(forPresentationIndex: 0))
        } else {
            sample = index.presentationTime(ofDecodeIndex: index.decodeIndex(forPresentationIndex: index.count - 1))
        }
        return sample - toTrack
    }

    /// Loads the segment for a track time.
    public func loadSegment(forTrackTime trackTime: CMTime) async throws -> AVAssetTrackSegment? {
        _ = try await load(.segments)
        return segment(forTrackTime: trackTime)
    }

    /// Loads the presentation time of the sample shown at a track time.
    public func loadSamplePresentationTime(forTrackTime trackTime: CMTime) async throws -> CMTime {
        _ = try await load(.segments)
        _ = try await load(.requiresFrameReordering)
        return samplePresentationTime(forTrackTime: trackTime)
    }

    /// The media characteristics of the track (visual, audible, legible, frame-based, …).
    open var mediaCharacteristics: [AVMediaCharacteristic] {
        var out: [AVMediaCharacteristic] = []
        switch mediaType {
        case .video:
            out = [.visual, .frameBased]
            let wide: Set<String> = ["ITU_R_2020", "P3_D65", "DCI_P3"]
            if let fd = stream.formatDescription,
               let primaries = CMFormatDescriptionGetExtension(fd, extensionKey: kCMFormatDescriptionExtension_ColorPrimaries) as? String {
                if wide.contains(primaries) { out.append(.usesWideGamutColorSpace) }
            }
            if let fd = stream.formatDescription,
               let transfer = CMFormatDescriptionGetExtension(fd, extensionKey: kCMFormatDescriptionExtension_TransferFunction) as? String,
               transfer == "SMPTE_ST_2084_PQ" || transfer == "ITU_R_2100_HLG" {
                out.append(.containsHDRVideo)
            }
        case .audio:
            out = [.audible]
        case .subtitle, .text, .closedCaption:
            out = [.visual, .legible]
            if stream.disposition.contains(.forced) { out.append(.containsOnlyForcedSubtitles) }
        default:
            break
        }
        if stream.disposition.contains(.hearingImpaired) { out.append(.transcribesSpokenDialogForAccessibility) }
        if stream.disposition.contains(.visualImpaired) { out.append(.describesVideoForAccessibility) }
        if stream.disposition.contains(.dub) { out.append(.dubbedTranslation) }
        if stream.disposition.contains(.original) { out.append(.isOriginalContent) }
        if stream.disposition.contains(.comment) { out.append(.isAuxiliaryContent) }
        // Characteristics the file tags the track with (QuickTime/ISO user data 'tagc').
        if !isMadeOfSegments, let items = try? engine.loadMetadata(DemuxerCancellation()).trackItems[trackID] {
            for item in items where item.identifier == .quickTimeUserDataTaggedCharacteristic
                || item.identifier == .isoUserDataTaggedCharacteristic {
                guard let text = item.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { continue }
                let tagged = AVMediaCharacteristic(rawValue: text)
                if !out.contains(tagged) { out.append(tagged) }
            }
        }
        return out
    }

    /// Whether the track has a media characteristic.
    open func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        mediaCharacteristics.contains(mediaCharacteristic)
    }

    /// A description of the track.
    open override var description: String { "<AVAssetTrack: trackID \(trackID), \(mediaType.rawValue), \(stream.codecName)>" }

    // MARK: Derived values

    func loadedTimeRange() throws -> CMTimeRange {
        if isMadeOfSegments {
            let presenting = mediaSegments.filter { !$0.isEmpty }
            guard let first = presenting.first, let end = presenting.map(\.target.end).max() else { return .zero }
            return CMTimeRange(start: first.target.start, end: end)
        }
        if let mappings = editListMappings() {
            let presenting = mappings.filter { !$0.isEmpty }
            if let first = presenting.first, let end = presenting.map(\.target.end).max() {
                return CMTimeRange(start: first.target.start, end: end)
            }
        }
        if stream.duration.isNumeric {
            let start = stream.startTime.isNumeric && stream.startTime > .zero ? stream.startTime : .zero
            return CMTimeRange(start: start, duration: stream.duration)
        }
        guard let index = try index(loading: "timeRange"), index.count > 0 else { return .zero }
        let range = index.presentationTimeRange
        // A subtitle file (SubRip, WebVTT) starts at zero: its first cue's time is not an offset.
        let subtitleFile = engine.loadedInfo.map { !$0.streams.isEmpty && $0.streams.allSatisfy { $0.kind == .subtitle } } ?? false
        if subtitleFile { return CMTimeRange(start: .zero, end: range.end) }
        let origin = engine.loadedInfo.flatMap { $0.startTime.isNumeric ? $0.startTime : nil } ?? range.start
        let start = range.start - origin
        return CMTimeRange(start: start > .zero ? start : .zero, duration: range.duration)
    }

    /// The track's edit list as time mappings, or nil when the file gives none for this track
    /// (or an unusable one). A final open-ended edit lasts as long as the demuxer says the
    /// track does.
    func editListMappings() -> [CMTimeMapping]? {
        isMadeOfSegments ? nil : SourceTrack(engine: engine, stream: stream).editListMappings()
    }

    /// `samplePresentationTime(forTrackTime:)` for a track made of segments: the start of the
    /// source sample shown at `trackTime`, in its source's timeline; `.invalid` in an empty segment.
    private func composedSamplePresentationTime(forTrackTime trackTime: CMTime) -> CMTime {
        guard let segment = mediaSegments.first(where: { $0.target.containsTime(trackTime) }), let source = segment.source else {
            return .invalid
        }
        let media = segment.sourceTime(trackTime)
        guard let index = try? source.engine.loadIndexes(DemuxerCancellation())[source.streamIndex], index.count > 0,
              let d = index.decodeIndex(containing: media) else { return media }
        return index.presentationTime(ofDecodeIndex: d)
    }

    func loadedDataRate() throws -> Float {
        if stream.bitRate > 0, stream.bitRate != AVAssetTrack.mpegVariableBitRate { return Float(stream.bitRate) }
        guard let index = try index(loading: "estimatedDataRate"), index.count > 0 else { return 0 }
        let seconds = index.presentationTimeRange.duration.seconds
        return seconds > 0 ? Float(Double(index.totalSize) * 8 / seconds) : 0
    }

    func loadedFrameRate() throws -> Float {
        switch stream.kind {
        case .video:
            if stream.averageFrameRate > 0 { return Float(stream.averageFrameRate) }
            guard let index = try index(loading: "nominalFrameRate"), index.count > 0 else { return 0 }
            let seconds = index.presentationTimeRange.duration.seconds
            return seconds > 0 ? Float(Double(index.count) / seconds) : 0
        case .audio:
            if stream.sampleRate > 0 && stream.samplesPerPacket > 0 { return Float(stream.sampleRate) / Float(stream.samplesPerPacket) }
            if let asbd = stream.formatDescription.flatMap({ CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee }),
               asbd.mFramesPerPacket > 0 {
                return Float(asbd.mSampleRate) / Float(asbd.mFramesPerPacket)
            }
            return 0
        default:
            return 0
        }
    }

    /// ISO 639-2/B bibliographic codes (as Matroska and some muxers write them) → 639-2/T.
    static func terminologyCode(_ code: String) -> String {
        let map = ["alb": "sqi", "arm": "hye", "baq": "eus", "bur": "mya", "chi": "zho", "cze": "ces", "dut": "nld",
                   "fre": "fra", "geo": "kat", "ger": "deu", "gre": "ell", "ice": "isl", "mac": "mkd", "mao": "mri",
                   "may": "msa", "per": "fas", "rum": "ron", "slo": "slk", "tib": "bod", "wel": "cym"]
        let lower = code.lowercased()
        return map[lower] ?? lower
    }
}

extension AVAssetTrack: KeyValueErrorProviding {
    func loadError(forKey key: String) -> (any Error)? { loader.status(forKey: key).1 }
}

// `segments` is declared here rather than in the class so that AVCompositionTrack and
// AVMutableCompositionTrack can declare it with Apple's type, `[AVCompositionTrackSegment]`
// (Swift cannot override a property with an array of a subclass; a more specific member wins).
extension AVAsynchronousKeyValueLoading where Self: AVAssetTrack {
    /// The track's segments: its edit list, each edit mapping a range of the media (in the
    /// media timescale) onto a range of the asset's timeline (in the movie timescale), laid end
    /// to end from zero; an empty edit is a segment whose source start is invalid. A track
    /// without an edit list (and every track of a container that has none) has one segment
    /// mapping its media onto its time range.
    public var segments: [AVAssetTrackSegment] { trackSegments }
}
