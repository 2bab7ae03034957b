// AVMetadataItem's class methods: identifier conversions and the array filters.
import Foundation

extension AVMetadataItem {
    /// The identifier for a key in a key space: `"<key space>/<percent-encoded key>"`; the key
    /// may be an `NSString`/`String`/`AVMetadataKey` or an `NSNumber` four-character code.
    public class func identifier(forKey key: Any, keySpace: AVMetadataKeySpace) -> AVMetadataIdentifier? {
        guard let encoded = MetadataKeyCoding.encodedKey(key, keySpace: keySpace) else { return nil }
        return AVMetadataIdentifier(MetadataKeyCoding.identifierPrefix(for: keySpace) + "/" + encoded)
    }

    /// The key space an identifier names, or nil when it is not of the form `"space/key"`.
    public class func keySpace(forIdentifier identifier: AVMetadataIdentifier) -> AVMetadataKeySpace? {
        guard let slash = identifier.rawValue.firstIndex(of: "/"), slash != identifier.rawValue.startIndex
        else { return nil }
        return MetadataKeyCoding.keySpace(forIdentifierPrefix: String(identifier.rawValue[..<slash]))
    }

    /// The key an identifier names: an `NSNumber` four-character code in the iTunes, QuickTime
    /// user data, ISO user data and ID3 key spaces, an `NSString` otherwise.
    public class func key(forIdentifier identifier: AVMetadataIdentifier) -> Any? {
        guard let keySpace = keySpace(forIdentifier: identifier),
              let slash = identifier.rawValue.firstIndex(of: "/"),
              let bytes = MetadataKeyCoding.percentDecode(String(identifier.rawValue[identifier.rawValue.index(after: slash)...])),
              !bytes.isEmpty
        else { return nil }
        if MetadataKeyCoding.usesFourCharCodes(keySpace) && bytes.count == 4 {
            return MetadataKeyCoding.numberKey(bytes.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) })
        }
        guard let string = String(bytes: bytes, encoding: .utf8) else { return nil }
        return NSString(string: string)
    }

    /// The items whose identifier is `identifier`. A common identifier (`"common/title"`) also
    /// matches items of any key space whose `commonKey` it names.
    public class func metadataItems(from metadataItems: [AVMetadataItem],
                                    filteredByIdentifier identifier: AVMetadataIdentifier) -> [AVMetadataItem] {
        let commonKey: AVMetadataKey? = keySpace(forIdentifier: identifier) == .common
            ? (key(forIdentifier: identifier) as? NSString).map { AVMetadataKey($0 as String) } : nil
        return metadataItems.filter { item in
            if item.identifier == identifier { return true }
            if let commonKey, item.commonKey == commonKey { return true }
            return false
        }
    }

    /// The items with a key equal to `key` (nil: any key) in `keySpace` (nil: any key space).
    /// Four-character codes compare by their bits whether given as `NSNumber` or string;
    /// `.common` matches an item's `commonKey`.
    public class func metadataItems(from metadataItems: [AVMetadataItem], withKey key: Any?,
                                    keySpace: AVMetadataKeySpace?) -> [AVMetadataItem] {
        metadataItems.filter { item in
            if keySpace == .common {
                guard let common = item.commonKey else { return false }
                guard let key else { return true }
                return MetadataKeyCoding.comparable(key, keySpace: .common) == "$" + common.rawValue
            }
            if let keySpace, item.keySpace != keySpace { return false }
            guard let key else { return true }
            guard let itemKey = item.key else { return false }
            let wanted = MetadataKeyCoding.comparable(key, keySpace: keySpace ?? item.keySpace)
            return wanted != nil && wanted == MetadataKeyCoding.comparable(itemKey, keySpace: item.keySpace)
        }
    }

    /// The items whose locale has the same identifier as `locale`.
    public class func metadataItems(from metadataItems: [AVMetadataItem], with locale: Locale) -> [AVMetadataItem] {
        let wanted = Locale.canonicalIdentifier(from: locale.identifier)
        return metadataItems.filter { item in
            guard let itemLocale = item.locale else { return false }
            return Locale.canonicalIdentifier(from: itemLocale.identifier) == wanted
        }
    }

    /// The items whose language matches one of the preferred languages (compared by language
    /// subtag), ordered by the preference of the language they match. Items without a language
    /// are left out.
    public class func metadataItems(from metadataItems: [AVMetadataItem],
                                    filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String])
        -> [AVMetadataItem] {
        var result: [AVMetadataItem] = []
        for language in preferredLanguages {
            for item in metadataItems where !result.contains(where: { $0 === item })
                && LanguageMatching.matches(itemTag: item.extendedLanguageTag ?? item.locale?.identifier,
                                            preferred: language) {
                result.append(item)
            }
        }
        return result
    }

    /// The items a filter lets through.
    public class func metadataItems(from metadataItems: [AVMetadataItem],
                                    filteredBy metadataItemFilter: AVMetadataItemFilter) -> [AVMetadataItem] {
        metadataItems.filter(metadataItemFilter.allows)
    }
}

/// Language-tag matching for the preferred-languages filters (shared with media selection).
enum LanguageMatching {
    /// The language subtag of a tag or locale identifier, lower-cased, ISO 639-2 codes reduced
    /// to ISO 639-1 where one exists ("eng" → "en", "en-GB" → "en", "en_US" → "en").
    static func language(of tag: String) -> String {
        let first = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? tag
        return ISO639.twoLetter(first.lowercased()) ?? first.lowercased()
    }

    /// Whether an item's tag satisfies a preferred language: equal tags, or the preferred
    /// language is a bare language that the item's tag has (a preferred "en" takes "en-GB";
    /// a preferred "en-GB" takes "en" too, as the best available fallback).
    static func matches(itemTag: String?, preferred: String) -> Bool {
        guard let itemTag, !itemTag.isEmpty, itemTag != "und" else { return false }
        return language(of: itemTag) == language(of: preferred)
    }
}
