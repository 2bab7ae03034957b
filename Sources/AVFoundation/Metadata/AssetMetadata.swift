// What the metadata readers hand to AVAsset/AVAssetTrack: every item by format, the common
// view, chapters by locale, and per-track items.
import Foundation

/// An asset's metadata as read from its file (see `MetadataReader`).
struct AssetMetadata: Sendable {
    /// File-level items, by format (`asset.metadata(forFormat:)`).
    var itemsByFormat: [AVMetadataFormat: [AVMetadataItem]] = [:]
    /// The formats in the order they were found (`asset.availableMetadataFormats`).
    var formats: [AVMetadataFormat] = []
    /// File-level items that have a common key, in format order (`asset.commonMetadata`).
    /// They keep their native key space and identifier, as Apple's do.
    var commonItems: [AVMetadataItem] = []
    /// Chapters, one list per title locale (`asset.availableChapterLocales`,
    /// `chapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:)`).
    var chapterGroupsByLocale: [(locale: Locale, groups: [AVTimedMetadataGroup])] = []
    /// Track-level items by track ID, all formats together (`track.metadata`).
    var trackItems: [CMPersistentTrackID: [AVMetadataItem]] = [:]
    /// Track-level items by track ID and format (`track.metadata(forFormat:)`).
    var trackItemsByFormat: [CMPersistentTrackID: [AVMetadataFormat: [AVMetadataItem]]] = [:]
    /// For ISO base media files: each track's header facts (enabled flag, alternate group,
    /// handler, mdhd language, chapter references), for media selection. Empty otherwise.
    var isoTracks: [ISOTrackInfo] = []

    /// Every file-level item, in format order (`asset.metadata`).
    var allItems: [AVMetadataItem] { formats.flatMap { itemsByFormat[$0] ?? [] } }

    /// Track-level items that have a common key (`track.commonMetadata`).
    func commonTrackItems(_ trackID: CMPersistentTrackID) -> [AVMetadataItem] {
        (trackItems[trackID] ?? []).filter { $0.commonKey != nil }
    }

    /// The formats a track's items come in, in the order found (`track.availableMetadataFormats`).
    func trackFormats(_ trackID: CMPersistentTrackID) -> [AVMetadataFormat] {
        var seen: [AVMetadataFormat] = []
        for format in formats + (trackItemsByFormat[trackID].map { Array($0.keys) } ?? [])
        where trackItemsByFormat[trackID]?[format]?.isEmpty == false && !seen.contains(format) {
            seen.append(format)
        }
        return seen
    }

    /// The chapter locales (`asset.availableChapterLocales`).
    var chapterLocales: [Locale] { chapterGroupsByLocale.map(\.locale) }

    /// The asset's creation date item: the first common item with the creationDate common key.
    var creationDateItem: AVMetadataItem? { commonItems.first { $0.commonKey == .commonKeyCreationDate } }

    /// Adds file-level items of a format (keeping first-seen format order).
    mutating func add(_ items: [AVMetadataItem], format: AVMetadataFormat) {
        guard !items.isEmpty else { return }
        if itemsByFormat[format] == nil { formats.append(format) }
        itemsByFormat[format, default: []].append(contentsOf: items)
        commonItems.append(contentsOf: items.filter { $0.commonKey != nil })
    }

    /// Adds track-level items of a format.
    mutating func addTrackItems(_ items: [AVMetadataItem], format: AVMetadataFormat, trackID: CMPersistentTrackID) {
        guard !items.isEmpty else { return }
        trackItems[trackID, default: []].append(contentsOf: items)
        trackItemsByFormat[trackID, default: [:]][format, default: []].append(contentsOf: items)
    }

    /// Adds one chapter list under a locale (merging lists of an equal locale).
    mutating func addChapters(_ groups: [AVTimedMetadataGroup], locale: Locale) {
        guard !groups.isEmpty else { return }
        if let index = chapterGroupsByLocale.firstIndex(where: { $0.locale.identifier == locale.identifier }) {
            chapterGroupsByLocale[index].groups.append(contentsOf: groups)
        } else {
            chapterGroupsByLocale.append((locale: locale, groups: groups))
        }
    }
}
