// AVAsset's metadata, chapters and media selection: the synchronous properties (blocking, as
// Apple's deprecated ones do), their asynchronous forms and the completion-handler forms. All of
// them share one read of the file's metadata (URLAssetEngine.loadMetadata) and the keys
// "metadata", "commonMetadata", "availableMetadataFormats", "creationDate", "lyrics",
// "availableChapterLocales", "availableMediaCharacteristicsWithMediaSelectionOptions" and
// "preferredMediaSelection" of `loadValuesAsynchronously(forKeys:)`.
import Foundation
internal import MediaEngine

extension AVAsset {
    // MARK: Metadata

    /// Every metadata item of the asset, in all its formats (file-level items, not the tracks').
    /// Empty when the asset cannot be loaded.
    public var metadata: [AVMetadataItem] { (try? loadedMetadata(for: "metadata").allItems) ?? [] }

    /// The asset's items that have a common key (title, artist, artwork…), each still in its
    /// own key space with its own identifier, as Apple's are.
    public var commonMetadata: [AVMetadataItem] { (try? loadedMetadata(for: "commonMetadata").commonItems) ?? [] }

    /// The metadata formats the asset has items in, in the order they occur in the file.
    public var availableMetadataFormats: [AVMetadataFormat] {
        (try? loadedMetadata(for: "availableMetadataFormats").formats) ?? []
    }

    /// The asset's items of one format (empty for a format it has none of).
    public func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        (try? loadedMetadata(for: "availableMetadataFormats").itemsByFormat[format]) ?? []
    }

    /// The item holding the asset's creation date, or nil. Its `dateValue` is the date when the
    /// stored text can be read as one; otherwise only its `stringValue` is available.
    public var creationDate: AVMetadataItem? { try? loadedMetadata(for: "creationDate").creationDateItem }

    /// The asset's lyrics (the iTunes `©lyr` or ID3 `USLT` item), or nil.
    public var lyrics: String? { try? AVAsset.lyrics(in: loadedMetadata(for: "lyrics")) }

    static func lyrics(in metadata: AssetMetadata) -> String? {
        let items = metadata.allItems
        for identifier in [AVMetadataIdentifier.iTunesMetadataLyrics, .id3MetadataUnsynchronizedLyric] {
            if let text = AVMetadataItem.metadataItems(from: items, filteredByIdentifier: identifier).lazy
                .compactMap(\.stringValue).first { return text }
        }
        return nil
    }

    /// Loads the asset's items of one format.
    public func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        _ = try await load(.availableMetadataFormats)
        return metadata(forFormat: format)
    }

    /// Loads the asset's items of one format and calls `completionHandler` on a background queue.
    public func loadMetadata(for format: AVMetadataFormat,
                             completionHandler: @escaping @Sendable ([AVMetadataItem]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["availableMetadataFormats"]) { [self] in
            do { completionHandler(try loadedMetadata(for: "availableMetadataFormats").itemsByFormat[format] ?? [], nil) } catch {
                completionHandler(nil, error)
            }
        }
    }

    // MARK: Chapters

    /// The locales of the asset's chapter titles. Chapters whose file gives no language (Nero
    /// `chpl`, Matroska and Ogg chapters, QuickTime chapter tracks marked 'und') are under the
    /// locale "und".
    public var availableChapterLocales: [Locale] { (try? loadedMetadata(for: "availableChapterLocales").chapterLocales) ?? [] }

    /// The chapters whose titles are in `locale`, one timed group per chapter, each holding the
    /// chapter's title item and, of its other items, those with one of `commonKeys` (Apple
    /// supports only `.commonKeyArtwork`). The group's time range is the title item's.
    public func chapterMetadataGroups(withTitleLocale locale: Locale,
                                      containingItemsWithCommonKeys commonKeys: [AVMetadataKey]?) -> [AVTimedMetadataGroup] {
        guard let metadata = try? loadedMetadata(for: "availableChapterLocales") else { return [] }
        return AVAsset.chapters(in: metadata, locale: locale, commonKeys: commonKeys ?? [])
    }

    /// The chapters of the first chapter locale that matches one of `preferredLanguages` (BCP 47
    /// identifiers, most preferred first), each group holding the chapter's items. When no
    /// locale matches, the chapters whose language is undetermined ("und") — the usual case
    /// for files written by FFmpeg — so that they are not lost to a language preference.
    public func chapterMetadataGroups(bestMatchingPreferredLanguages preferredLanguages: [String]) -> [AVTimedMetadataGroup] {
        guard let metadata = try? loadedMetadata(for: "availableChapterLocales") else { return [] }
        return AVAsset.chapters(in: metadata, bestMatching: preferredLanguages)
    }

    /// Loads the chapters whose titles are in `locale` (see
    /// `chapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:)`).
    public func loadChapterMetadataGroups(withTitleLocale locale: Locale,
                                          containingItemsWithCommonKeys commonKeys: [AVMetadataKey] = []) async throws
        -> [AVTimedMetadataGroup] {
        _ = try await load(.availableChapterLocales)
        return chapterMetadataGroups(withTitleLocale: locale, containingItemsWithCommonKeys: commonKeys)
    }

    /// Loads the chapters whose titles are in `locale` and calls `completionHandler` on a
    /// background queue.
    public func loadChapterMetadataGroups(withTitleLocale locale: Locale, containingItemsWithCommonKeys commonKeys: [AVMetadataKey],
                                          completionHandler: @escaping @Sendable ([AVTimedMetadataGroup]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["availableChapterLocales"]) { [self] in
            do {
                let metadata = try loadedMetadata(for: "availableChapterLocales")
                completionHandler(AVAsset.chapters(in: metadata, locale: locale, commonKeys: commonKeys), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// Loads the chapters best matching the preferred languages (see
    /// `chapterMetadataGroups(bestMatchingPreferredLanguages:)`).
    public func loadChapterMetadataGroups(bestMatchingPreferredLanguages preferredLanguages: [String]) async throws
        -> [AVTimedMetadataGroup] {
        _ = try await load(.availableChapterLocales)
        return chapterMetadataGroups(bestMatchingPreferredLanguages: preferredLanguages)
    }

    /// Loads the chapters best matching the preferred languages and calls `completionHandler`
    /// on a background queue.
    public func loadChapterMetadataGroups(bestMatchingPreferredLanguages preferredLanguages: [String],
                                          completionHandler: @escaping @Sendable ([AVTimedMetadataGroup]?, (any Error)?) -> Void) {
        loadValuesAsynchronously(forKeys: ["availableChapterLocales"]) { [self] in
            do {
                let metadata = try loadedMetadata(for: "availableChapterLocales")
                completionHandler(AVAsset.chapters(in: metadata, bestMatching: preferredLanguages), nil)
            } catch {
                completionHandler(nil, error)
            }
        }
    }

    static func chapters(in metadata: AssetMetadata, locale: Locale, commonKeys: [AVMetadataKey]) -> [AVTimedMetadataGroup] {
        let lists = metadata.chapterGroupsByLocale
        let wanted = locale.identifier
        let match = lists.first { $0.locale.identifier == wanted }
            ?? lists.first { LanguageMatching.language(of: $0.locale.identifier) == LanguageMatching.language(of: wanted) }
        guard let groups = match?.groups else { return [] }
        return groups.map { group in
            let kept = group.items.filter { item in
                item.commonKey == .commonKeyTitle || item.commonKey.map(commonKeys.contains) == true
            }
            return AVTimedMetadataGroup(items: kept, timeRange: group.timeRange)
        }
    }

    static func chapters(in metadata: AssetMetadata, bestMatching preferredLanguages: [String]) -> [AVTimedMetadataGroup] {
        let lists = metadata.chapterGroupsByLocale
        for language in preferredLanguages {
            if let exact = lists.first(where: { $0.locale.identifier == language }) { return exact.groups }
            if let match = lists.first(where: { LanguageMatching.matches(itemTag: $0.locale.identifier, preferred: language) }) {
                return match.groups
            }
        }
        let undetermined = lists.first { $0.locale.identifier.isEmpty || LanguageMatching.language(of: $0.locale.identifier) == "und" }
        return undetermined?.groups ?? []
    }

    // MARK: Media selection

    /// The media characteristics (`.audible`, `.legible`) for which the asset offers a choice
    /// of options: two or more audio tracks (or audio in an alternate group), any subtitle,
    /// text or closed-caption track.
    public var availableMediaCharacteristicsWithMediaSelectionOptions: [AVMediaCharacteristic] {
        (try? loadedSelectionGroups(for: "availableMediaCharacteristicsWithMediaSelectionOptions").map(\.characteristic)) ?? []
    }

    /// The group of mutually exclusive options for a characteristic, or nil when the asset has
    /// none. The same group object is returned each time.
    public func mediaSelectionGroup(forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> AVMediaSelectionGroup? {
        (try? loadedSelectionGroups(for: "availableMediaCharacteristicsWithMediaSelectionOptions"))?
            .first { $0.characteristic == mediaCharacteristic }
    }

    /// The default selection: each group's default option.
    public var preferredMediaSelection: AVMediaSelection {
        AVMediaSelection(asset: self, groups: (try? loadedSelectionGroups(for: "preferredMediaSelection")) ?? [])
    }

    /// Loads the group of options for a characteristic; nil when the asset has none.
    public func loadMediaSelectionGroup(for mediaCharacteristic: AVMediaCharacteristic) async throws -> AVMediaSelectionGroup? {
        _ = try await load(.availableMediaCharacteristicsWithMediaSelectionOptions)
        return mediaSelectionGroup(forMediaCharacteristic: mediaCharacteristic)
    }

    /// Loads the group of options for a characteristic and calls `completionHandler` on a
    /// background queue.
    public func loadMediaSelectionGroup(for mediaCharacteristic: AVMediaCharacteristic,
                                        completionHandler: @escaping @Sendable (AVMediaSelectionGroup?, (any Error)?) -> Void) {
        let key = "availableMediaCharacteristicsWithMediaSelectionOptions"
        loadValuesAsynchronously(forKeys: [key]) { [self] in
            do { completionHandler(try loadedSelectionGroups(for: key).first { $0.characteristic == mediaCharacteristic }, nil) } catch {
                completionHandler(nil, error)
            }
        }
    }

    /// The selection groups of the tracks: language, default flag and characteristics from the
    /// container, enabled flags and alternate groups (of two or more tracks) from the ISO track
    /// headers when the file has them, titles from the track's tags or common metadata.
    func makeSelectionGroups(_ tracks: [AVAssetTrack], _ metadata: AssetMetadata) -> [AVMediaSelectionGroup] {
        // An alternate group of one track offers no choice (FFmpeg puts every track in one).
        let present = Set(tracks.map(\.trackID))
        let groupSizes = Dictionary(grouping: metadata.isoTracks.filter { present.contains($0.trackID) && $0.alternateGroup != 0 },
                                    by: \.alternateGroup).mapValues(\.count)
        let selectable = tracks.map { track -> SelectableTrack in
            let iso = metadata.isoTracks.first { $0.trackID == track.trackID }
            let alternateGroup = iso.map { groupSizes[$0.alternateGroup, default: 0] > 1 ? $0.alternateGroup : 0 } ?? 0
            let common = metadata.commonTrackItems(track.trackID)
            let title = track.stream.tags.first { $0.key.lowercased() == "title" }?.value
                ?? common.first { $0.commonKey == .commonKeyTitle }?.stringValue
            return SelectableTrack(trackID: track.trackID, mediaType: track.mediaType, language: track.languageCode,
                                   extendedLanguageTag: track.extendedLanguageTag ?? iso?.languageTag,
                                   isDefault: iso?.isEnabled ?? track.isEnabled, characteristics: track.mediaCharacteristics,
                                   title: title, formatSubType: track.stream.mediaSubType,
                                   alternateGroup: alternateGroup, isPlayable: track.isPlayable, commonMetadata: common)
        }
        return MediaSelectionBuilder.groups(from: selectable)
    }
}
