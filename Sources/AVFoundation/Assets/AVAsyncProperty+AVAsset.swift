// The asynchronously loadable properties of AVAsset.
import CoreGraphics
import CoreMedia
import Foundation

extension AVPartialAsyncProperty where Root: AVAsset {
    /// The asset's duration.
    public static var duration: AVAsyncProperty<Root, CMTime> { .init(key: "duration") { try $0.loadedDuration() } }
    /// The asset's tracks.
    public static var tracks: AVAsyncProperty<Root, [AVAssetTrack]> { .init(key: "tracks") { try $0.loadedTracks() } }
    /// The natural playback rate.
    public static var preferredRate: AVAsyncProperty<Root, Float> {
        .init(key: "preferredRate") { asset in _ = try asset.loadedInfo(for: "preferredRate"); return asset.preferredRate }
    }
    /// The preferred volume.
    public static var preferredVolume: AVAsyncProperty<Root, Float> {
        .init(key: "preferredVolume") { asset in _ = try asset.loadedInfo(for: "preferredVolume"); return asset.preferredVolume }
    }
    /// The movie-level transform.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> {
        .init(key: "preferredTransform") { asset in _ = try asset.loadedInfo(for: "preferredTransform"); return asset.preferredTransform }
    }
    /// The size of the first visual track (deprecated by Apple; use the track's).
    public static var naturalSize: AVAsyncProperty<Root, CGSize> {
        .init(key: "naturalSize") { asset in
            _ = try asset.loadedTracks()
            return asset.naturalSize
        }
    }
    /// Whether the asset can be played.
    public static var isPlayable: AVAsyncProperty<Root, Bool> { .init(key: "playable") { try $0.loadedPlayable() } }
    /// Whether the asset can be exported.
    public static var isExportable: AVAsyncProperty<Root, Bool> {
        .init(key: "exportable") { asset in _ = try asset.loadedInfo(for: "exportable"); return try asset.loadedReadable() }
    }
    /// Whether the asset's media data can be read.
    public static var isReadable: AVAsyncProperty<Root, Bool> { .init(key: "readable") { try $0.loadedReadable() } }
    /// Whether the asset can be used in a composition.
    public static var isComposable: AVAsyncProperty<Root, Bool> {
        .init(key: "composable") { asset in _ = try asset.loadedInfo(for: "composable"); return try asset.loadedReadable() }
    }
    /// Whether the asset has protected content.
    public static var hasProtectedContent: AVAsyncProperty<Root, Bool> { .init(key: "hasProtectedContent") { try $0.loadedProtected() } }
    /// Whether duration and timing are exact.
    public static var providesPreciseDurationAndTiming: AVAsyncProperty<Root, Bool> {
        .init(key: "providesPreciseDurationAndTiming") { try $0.loadedPrecise() }
    }
    /// Whether the file contains movie fragments.
    public static var containsFragments: AVAsyncProperty<Root, Bool> {
        .init(key: "containsFragments") { try $0.loadedInfo(for: "containsFragments").hasMovieFragments }
    }
    /// Whether fragments may be appended to the file.
    public static var canContainFragments: AVAsyncProperty<Root, Bool> {
        .init(key: "canContainFragments") { try $0.loadedInfo(for: "canContainFragments").canContainFragments }
    }
    /// Every metadata item of the asset, in all its formats.
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        .init(key: "metadata") { try $0.loadedMetadata(for: "metadata").allItems }
    }
    /// The asset's items that have a common key.
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        .init(key: "commonMetadata") { try $0.loadedMetadata(for: "commonMetadata").commonItems }
    }
    /// The metadata formats the asset has items in.
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> {
        .init(key: "availableMetadataFormats") { try $0.loadedMetadata(for: "availableMetadataFormats").formats }
    }
    /// The item holding the asset's creation date, or nil.
    public static var creationDate: AVAsyncProperty<Root, AVMetadataItem?> {
        .init(key: "creationDate") { try $0.loadedMetadata(for: "creationDate").creationDateItem }
    }
    /// The asset's lyrics, or nil.
    public static var lyrics: AVAsyncProperty<Root, String?> {
        .init(key: "lyrics") { AVAsset.lyrics(in: try $0.loadedMetadata(for: "lyrics")) }
    }
    /// The locales of the asset's chapter titles.
    public static var availableChapterLocales: AVAsyncProperty<Root, [Locale]> {
        .init(key: "availableChapterLocales") { try $0.loadedMetadata(for: "availableChapterLocales").chapterLocales }
    }
    /// The media characteristics for which the asset offers a choice of options.
    public static var availableMediaCharacteristicsWithMediaSelectionOptions: AVAsyncProperty<Root, [AVMediaCharacteristic]> {
        .init(key: "availableMediaCharacteristicsWithMediaSelectionOptions") {
            try $0.loadedSelectionGroups(for: "availableMediaCharacteristicsWithMediaSelectionOptions").map(\.characteristic)
        }
    }
    /// The default media selection (each group's default option).
    public static var preferredMediaSelection: AVAsyncProperty<Root, AVMediaSelection> {
        .init(key: "preferredMediaSelection") { asset in
            AVMediaSelection(asset: asset, groups: try asset.loadedSelectionGroups(for: "preferredMediaSelection"))
        }
    }
}
