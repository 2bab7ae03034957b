// Which native keys stand for which common keys, per key space: the table behind
// AVMetadataItem.commonKey and an asset's commonMetadata.
import Foundation

enum CommonKeyMapping {
    /// The common key of a native key, or nil.
    static func commonKey(forKey key: Any, keySpace: AVMetadataKeySpace) -> AVMetadataKey? {
        if keySpace == .common {
            if let string = key as? NSString { return AVMetadataKey(string as String) }
            if let string = key as? String { return AVMetadataKey(string) }
            return nil
        }
        if MetadataKeyCoding.usesFourCharCodes(keySpace) {
            let code: UInt32?
            if let number = key as? NSNumber, !(key is NSString) { code = MetadataKeyCoding.code(ofNumber: number) }
            else if let string = key as? NSString { code = MetadataKeyCoding.fourCharCode(string as String) }
            else if let string = key as? String { code = MetadataKeyCoding.fourCharCode(string) }
            else { code = nil }
            guard let code else { return nil }
            return codeTable[keySpace]?[code]
        }
        let string: String
        if let text = key as? NSString { string = text as String } else if let text = key as? String { string = text }
        else { return nil }
        return stringTable[keySpace]?[string] ?? stringTable[keySpace]?[string.uppercased()]
    }

    private static func codes(_ pairs: [(String, AVMetadataKey)]) -> [UInt32: AVMetadataKey] {
        var table: [UInt32: AVMetadataKey] = [:]
        for (key, common) in pairs { if let code = MetadataKeyCoding.fourCharCode(key) { table[code] = common } }
        return table
    }

    private static let codeTable: [AVMetadataKeySpace: [UInt32: AVMetadataKey]] = [
        .iTunes: codes([
            ("©nam", .commonKeyTitle), ("©ART", .commonKeyArtist), ("©alb", .commonKeyAlbumName),
            ("covr", .commonKeyArtwork), ("©day", .commonKeyCreationDate), ("cprt", .commonKeyCopyrights),
            ("©too", .commonKeySoftware), ("desc", .commonKeyDescription), ("©des", .commonKeyDescription),
            ("©gen", .commonKeyType), ("gnre", .commonKeyType), ("©wrt", .commonKeyCreator),
            ("©pub", .commonKeyPublisher), ("©aut", .commonKeyAuthor),
        ]),
        .quickTimeUserData: codes([
            ("©nam", .commonKeyTitle), ("name", .commonKeyTitle), ("©ART", .commonKeyArtist),
            ("©alb", .commonKeyAlbumName), ("©aut", .commonKeyAuthor), ("©cpy", .commonKeyCopyrights),
            ("©day", .commonKeyCreationDate), ("©des", .commonKeyDescription), ("©inf", .commonKeyDescription),
            ("©mak", .commonKeyMake), ("©mod", .commonKeyModel), ("©swr", .commonKeySoftware),
            ("©xyz", .commonKeyLocation), ("©pub", .commonKeyPublisher), ("©gen", .commonKeyType),
            ("©wrt", .commonKeyCreator), ("©com", .commonKeyCreator), ("©fmt", .commonKeyFormat),
            ("©src", .commonKeySource),
        ]),
        .isoUserData: codes([
            ("titl", .commonKeyTitle), ("auth", .commonKeyAuthor), ("cprt", .commonKeyCopyrights),
            ("dscp", .commonKeyDescription), ("perf", .commonKeyArtist), ("gnre", .commonKeyType),
            ("yrrc", .commonKeyCreationDate), ("date", .commonKeyCreationDate), ("loci", .commonKeyLocation),
            ("albm", .commonKeyAlbumName),
        ]),
        .id3: codes([
            ("TIT2", .commonKeyTitle), ("TPE1", .commonKeyArtist), ("TALB", .commonKeyAlbumName),
            ("APIC", .commonKeyArtwork), ("TCON", .commonKeyType), ("TCOM", .commonKeyCreator),
            ("TIT3", .commonKeyDescription), ("TCOP", .commonKeyCopyrights), ("TPUB", .commonKeyPublisher),
            ("TLAN", .commonKeyLanguage), ("TYER", .commonKeyCreationDate), ("TDRC", .commonKeyCreationDate),
            ("TSSE", .commonKeySoftware), ("TEXT", .commonKeyAuthor), ("TENC", .commonKeyContributor),
            ("TT2", .commonKeyTitle), ("TP1", .commonKeyArtist), ("TAL", .commonKeyAlbumName),
            ("PIC", .commonKeyArtwork), ("TCO", .commonKeyType), ("TCM", .commonKeyCreator),
            ("TT3", .commonKeyDescription), ("TCR", .commonKeyCopyrights), ("TPB", .commonKeyPublisher),
            ("TYE", .commonKeyCreationDate), ("TSS", .commonKeySoftware), ("TXT", .commonKeyAuthor),
        ]),
    ]

    /// String-keyed spaces: QuickTime metadata, and the key spaces this library uses for the
    /// formats Apple does not read (Vorbis comments, Matroska, RIFF INFO; see ContainerMetadata).
    private static let stringTable: [AVMetadataKeySpace: [String: AVMetadataKey]] = [
        .quickTimeMetadata: [
            "com.apple.quicktime.title": .commonKeyTitle, "com.apple.quicktime.displayname": .commonKeyTitle,
            "com.apple.quicktime.artist": .commonKeyArtist, "com.apple.quicktime.album": .commonKeyAlbumName,
            "com.apple.quicktime.author": .commonKeyAuthor, "com.apple.quicktime.copyright": .commonKeyCopyrights,
            "com.apple.quicktime.creationdate": .commonKeyCreationDate,
            "com.apple.quicktime.description": .commonKeyDescription,
            "com.apple.quicktime.genre": .commonKeyType, "com.apple.quicktime.make": .commonKeyMake,
            "com.apple.quicktime.model": .commonKeyModel, "com.apple.quicktime.software": .commonKeySoftware,
            "com.apple.quicktime.location.ISO6709": .commonKeyLocation,
            "com.apple.quicktime.publisher": .commonKeyPublisher, "com.apple.quicktime.artwork": .commonKeyArtwork,
            "com.apple.quicktime.creator": .commonKeyCreator, "com.apple.quicktime.content.identifier": .commonKeyIdentifier,
            "com.apple.quicktime.accessibility.description": .commonKeyAccessibilityDescription,
        ],
        ContainerMetadata.vorbisKeySpace: vorbisLike,
        ContainerMetadata.matroskaKeySpace: vorbisLike,
        AVMetadataKeySpace.audioFile: [
            "INAM": .commonKeyTitle, "IART": .commonKeyArtist, "IPRD": .commonKeyAlbumName,
            "ICRD": .commonKeyCreationDate, "IGNR": .commonKeyType, "ICMT": .commonKeyDescription,
            "ICOP": .commonKeyCopyrights, "ISFT": .commonKeySoftware, "ILNG": .commonKeyLanguage,
            "IENG": .commonKeyContributor, "ISBJ": .commonKeySubject, "ISRC": .commonKeySource,
        ],
    ]

    /// Vorbis comment field names (and FFmpeg's normalised Matroska tag names), upper-cased.
    private static let vorbisLike: [String: AVMetadataKey] = [
        "TITLE": .commonKeyTitle, "ARTIST": .commonKeyArtist, "ALBUM": .commonKeyAlbumName,
        "DATE": .commonKeyCreationDate, "DATE_RELEASED": .commonKeyCreationDate,
        "DATE_RECORDED": .commonKeyCreationDate, "CREATION_TIME": .commonKeyCreationDate,
        "GENRE": .commonKeyType, "DESCRIPTION": .commonKeyDescription, "COMMENT": .commonKeyDescription,
        "COPYRIGHT": .commonKeyCopyrights, "PUBLISHER": .commonKeyPublisher, "ORGANIZATION": .commonKeyPublisher,
        "LABEL": .commonKeyPublisher, "COMPOSER": .commonKeyCreator, "AUTHOR": .commonKeyAuthor,
        "LYRICIST": .commonKeyAuthor, "LANGUAGE": .commonKeyLanguage, "ENCODER": .commonKeySoftware,
        "ENCODED_BY": .commonKeyContributor, "LOCATION": .commonKeyLocation, "SUBJECT": .commonKeySubject,
    ]
}
