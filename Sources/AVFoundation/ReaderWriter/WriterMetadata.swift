// AVMetadataItems → a written file's metadata: our own ISO-BMFF metadata writer for the QuickTime
// family (MOV, MP4, M4V, M4A, 3GP; run on the finished file), libavformat's container tags for
// the others (RIFF INFO, AIFF text chunks, CAF info).
import Foundation

enum WriterMetadata {
    /// Whether the writer's own metadata pass runs for a file: QuickTime family with items.
    static func writesBoxes(_ items: [AVMetadataItem], container: WriterContainer) -> Bool {
        container.isQuickTime && !items.isEmpty
    }

    /// Writes `items` into the finished QuickTime-family file at `url` (which the writer owns):
    /// the movie box is rewritten in place when the media stays where it is, else the file is
    /// rewritten; `fastStart` moves the movie box before the media data (the muxer's own fast
    /// start pass is skipped when this runs, so the file is rewritten once, not twice).
    static func writeBoxes(_ items: [AVMetadataItem], to url: URL, fastStart: Bool) throws {
        try ISOBMFFMetadataWriter.rewriteInPlace(url, items: items, mode: .adding, layout: fastStart ? .movieFirst : .keep)
    }

    /// libavformat tag names for the items whose meaning a container tag carries; the first item
    /// of each wins. Items without a string value (artwork) or a known meaning are skipped.
    static func tags(_ items: [AVMetadataItem]) -> [(key: String, value: String)] {
        var out: [(key: String, value: String)] = []
        var seen = Set<String>()
        for item in items {
            guard let key = tagName(for: item), !seen.contains(key) else { continue }
            let value: String?
            if let date = item.dateValue, key == "date" {
                value = ISO8601DateFormatter().string(from: date)
            } else {
                value = item.stringValue ?? item.numberValue?.stringValue
            }
            guard let value, !value.isEmpty else { continue }
            seen.insert(key)
            out.append((key, value))
        }
        return out
    }

    /// The libavformat tag an item maps to, by common key or identifier.
    static func tagName(for item: AVMetadataItem) -> String? {
        if let common = item.commonKey {
            switch common {
            case .commonKeyTitle: return "title"
            case .commonKeyArtist, .commonKeyCreator: return "artist"
            case .commonKeyAlbumName: return "album"
            case .commonKeyAuthor: return "author"
            case .commonKeyDescription: return "description"
            case .commonKeyCopyrights: return "copyright"
            case .commonKeyCreationDate: return "date"
            case .commonKeyType: return "genre"
            case .commonKeyLocation: return "location"
            case .commonKeyPublisher: return "publisher"
            case .commonKeyMake: return "make"
            case .commonKeyModel: return "model"
            default: break
            }
        }
        switch item.identifier {
        case .iTunesMetadataUserComment?, .quickTimeUserDataComment?, .quickTimeMetadataComment?: return "comment"
        case .iTunesMetadataUserGenre?, .quickTimeUserDataGenre?, .quickTimeMetadataGenre?: return "genre"
        default: return nil
        }
    }
}
