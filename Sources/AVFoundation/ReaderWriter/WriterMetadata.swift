// AVMetadataItems → the container tags libavformat's muxers write (QuickTime user data and
// iTunes items, RIFF INFO, AIFF text chunks, CAF info). Our own ISO-BMFF metadata writer will
// replace this for QuickTime-family files.
import Foundation

enum WriterMetadata {
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
