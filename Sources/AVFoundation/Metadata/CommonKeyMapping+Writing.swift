// The writing side of CommonKeyMapping: which native key each meaning is written as in the three
// key spaces of an ISO base media file (iTunes `ilst`, QuickTime user data, QuickTime metadata),
// and what "the same meaning" is when an item replaces another. Reading stays in
// CommonKeyMapping; every key named here maps back to its common key there (a test checks).
import Foundation

/// Where one meaning is written: a four-character atom in iTunes metadata and QuickTime user
/// data, a reverse-DNS key in QuickTime metadata.
struct MetadataWriteTargets: Sendable {
    var iTunes: String?
    var userData: String?
    var quickTime: String?
}

extension CommonKeyMapping {
    /// The native keys common keys are written as (the first of several that read as it).
    static let writeTargets: [AVMetadataKey: MetadataWriteTargets] = [
        .commonKeyTitle: .init(iTunes: "©nam", userData: "©nam", quickTime: "com.apple.quicktime.title"),
        .commonKeyArtist: .init(iTunes: "©ART", userData: "©ART", quickTime: "com.apple.quicktime.artist"),
        .commonKeyAlbumName: .init(iTunes: "©alb", userData: "©alb", quickTime: "com.apple.quicktime.album"),
        .commonKeyCreator: .init(iTunes: "©wrt", userData: "©wrt", quickTime: "com.apple.quicktime.creator"),
        .commonKeyAuthor: .init(iTunes: "©aut", userData: "©aut", quickTime: "com.apple.quicktime.author"),
        .commonKeyCreationDate: .init(iTunes: "©day", userData: "©day", quickTime: "com.apple.quicktime.creationdate"),
        .commonKeyDescription: .init(iTunes: "desc", userData: "©des", quickTime: "com.apple.quicktime.description"),
        .commonKeyCopyrights: .init(iTunes: "cprt", userData: "©cpy", quickTime: "com.apple.quicktime.copyright"),
        .commonKeySoftware: .init(iTunes: "©too", userData: "©swr", quickTime: "com.apple.quicktime.software"),
        .commonKeyType: .init(iTunes: "©gen", userData: "©gen", quickTime: "com.apple.quicktime.genre"),
        .commonKeyPublisher: .init(iTunes: "©pub", userData: "©pub", quickTime: "com.apple.quicktime.publisher"),
        .commonKeyLocation: .init(userData: "©xyz", quickTime: "com.apple.quicktime.location.ISO6709"),
        .commonKeyArtwork: .init(iTunes: "covr", quickTime: "com.apple.quicktime.artwork"),
        .commonKeyMake: .init(userData: "©mak", quickTime: "com.apple.quicktime.make"),
        .commonKeyModel: .init(userData: "©mod", quickTime: "com.apple.quicktime.model"),
        .commonKeyIdentifier: .init(quickTime: "com.apple.quicktime.content.identifier"),
        .commonKeyAccessibilityDescription: .init(quickTime: "com.apple.quicktime.accessibility.description"),
    ]

    /// Meanings without a common key that several key spaces share, by name.
    static let extraWriteTargets: [String: MetadataWriteTargets] = [
        "comment": .init(iTunes: "©cmt", userData: "©cmt", quickTime: "com.apple.quicktime.comment"),
        "director": .init(iTunes: "©dir", userData: "©dir", quickTime: "com.apple.quicktime.director"),
        "encodedBy": .init(iTunes: "©enc", userData: "©enc", quickTime: "com.apple.quicktime.encodedby"),
        "producer": .init(iTunes: "©prd", userData: "©prd", quickTime: "com.apple.quicktime.producer"),
        "keywords": .init(userData: "©key", quickTime: "com.apple.quicktime.keywords"),
        "information": .init(userData: "©inf", quickTime: "com.apple.quicktime.information"),
    ]

    /// Native keys that mean what another key means although neither reading table says so:
    /// QuickTime user data `©too` (what FFmpeg writes for the encoding software) is software.
    private static let aliases: [AVMetadataKeySpace: [String: String]] = [
        .quickTimeUserData: ["©too": "common:software"],
    ]

    /// What an item means, for "an item with the same meaning replaces it": its common key, else
    /// a shared meaning of `extraWriteTargets`, else its identifier.
    static func meaning(key: Any, keySpace: AVMetadataKeySpace) -> String? {
        if let common = commonKey(forKey: key, keySpace: keySpace) { return "common:" + common.rawValue }
        let text = MetadataKeyCoding.comparable(key, keySpace: keySpace)
        if let text {
            if let alias = aliases[keySpace]?.first(where: { MetadataKeyCoding.comparable($0.key, keySpace: keySpace) == text }) {
                return alias.value
            }
            for (name, targets) in extraWriteTargets {
                let native: String?
                switch keySpace {
                case .iTunes: native = targets.iTunes
                case .quickTimeUserData: native = targets.userData
                case .quickTimeMetadata: native = targets.quickTime
                default: native = nil
                }
                if let native, MetadataKeyCoding.comparable(native, keySpace: keySpace) == text { return "extra:" + name }
            }
        }
        return AVMetadataItem.identifier(forKey: key, keySpace: keySpace)?.rawValue
    }

    /// An item's meaning (see `meaning(key:keySpace:)`), or its identifier when it has no key.
    static func meaning(of item: AVMetadataItem) -> String? {
        if let key = item.key, let keySpace = item.keySpace, let meaning = meaning(key: key, keySpace: keySpace) { return meaning }
        return item.identifier?.rawValue
    }

    /// Where a meaning is written, when it is one of the shared meanings.
    static func writeTargets(forMeaning meaning: String) -> MetadataWriteTargets? {
        if meaning.hasPrefix("common:") { return writeTargets[AVMetadataKey(String(meaning.dropFirst(7)))] }
        if meaning.hasPrefix("extra:") { return extraWriteTargets[String(meaning.dropFirst(6))] }
        return nil
    }
}
