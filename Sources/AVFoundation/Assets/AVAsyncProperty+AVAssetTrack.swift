// The asynchronously loadable properties of AVAssetTrack.
import CoreGraphics
import CoreMedia

extension AVPartialAsyncProperty where Root: AVAssetTrack {
    private static func make<V>(_ key: String, _ get: @escaping @Sendable (Root) throws -> V) -> AVAsyncProperty<Root, V> {
        AVAsyncProperty(key: key, get: get)
    }
    /// The track's format descriptions.
    public static var formatDescriptions: AVAsyncProperty<Root, [CMFormatDescription]> {
        make("formatDescriptions") { $0.formatDescriptions.map { $0 as! CMFormatDescription } }
    }
    /// Whether the track can be played.
    public static var isPlayable: AVAsyncProperty<Root, Bool> { make("playable") { $0.isPlayable } }
    /// Whether the track can be decoded.
    public static var isDecodable: AVAsyncProperty<Root, Bool> { make("decodable") { $0.isDecodable } }
    /// Whether the track is enabled.
    public static var isEnabled: AVAsyncProperty<Root, Bool> { make("enabled") { $0.isEnabled } }
    /// Whether the track's media is in the file.
    public static var isSelfContained: AVAsyncProperty<Root, Bool> { make("selfContained") { $0.isSelfContained } }
    /// The total size of the track's sample data.
    public static var totalSampleDataLength: AVAsyncProperty<Root, Int64> { make("totalSampleDataLength") { $0.totalSampleDataLength } }
    /// The track's time range.
    public static var timeRange: AVAsyncProperty<Root, CMTimeRange> { make("timeRange") { try $0.loadedTimeRange() } }
    /// The track's media timescale.
    public static var naturalTimeScale: AVAsyncProperty<Root, CMTimeScale> { make("naturalTimeScale") { $0.naturalTimeScale } }
    /// The track's estimated data rate.
    public static var estimatedDataRate: AVAsyncProperty<Root, Float> { make("estimatedDataRate") { try $0.loadedDataRate() } }
    /// The track's ISO 639-2/T language code.
    public static var languageCode: AVAsyncProperty<Root, String?> { make("languageCode") { $0.languageCode } }
    /// The track's BCP 47 language tag.
    public static var extendedLanguageTag: AVAsyncProperty<Root, String?> { make("extendedLanguageTag") { $0.extendedLanguageTag } }
    /// The track's natural size.
    public static var naturalSize: AVAsyncProperty<Root, CGSize> { make("naturalSize") { $0.naturalSize } }
    /// The track's preferred transform.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> { make("preferredTransform") { $0.preferredTransform } }
    /// The track's preferred volume.
    public static var preferredVolume: AVAsyncProperty<Root, Float> { make("preferredVolume") { $0.preferredVolume } }
    /// The track's nominal frame rate.
    public static var nominalFrameRate: AVAsyncProperty<Root, Float> { make("nominalFrameRate") { try $0.loadedFrameRate() } }
    /// The track's shortest sample duration.
    public static var minFrameDuration: AVAsyncProperty<Root, CMTime> { make("minFrameDuration") { $0.minFrameDuration } }
    /// Whether samples are reordered for presentation.
    public static var requiresFrameReordering: AVAsyncProperty<Root, Bool> {
        make("requiresFrameReordering") { $0.requiresFrameReordering }
    }
    /// The track's segments.
    public static var segments: AVAsyncProperty<Root, [AVAssetTrackSegment]> { make("segments") { $0.segments } }
    /// The track's media characteristics.
    public static var mediaCharacteristics: AVAsyncProperty<Root, [AVMediaCharacteristic]> {
        make("mediaCharacteristics") { $0.mediaCharacteristics }
    }
    /// Every metadata item of the track.
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        make("metadata") { track in try track.loadedMetadata(for: "metadata").trackItems[track.trackID] ?? [] }
    }
    /// The track's items that have a common key.
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        make("commonMetadata") { track in try track.loadedMetadata(for: "commonMetadata").commonTrackItems(track.trackID) }
    }
    /// The metadata formats the track has items in.
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> {
        make("availableMetadataFormats") { track in try track.loadedMetadata(for: "availableMetadataFormats").trackFormats(track.trackID) }
    }
}
