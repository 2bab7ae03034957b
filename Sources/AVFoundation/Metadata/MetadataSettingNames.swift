// The short names `avtool meta --set NAME=VALUE` (and Apple's avmetareadwrite-style tools) use
// for metadata, turned into AVMetadataItems the ISO-BMFF writer maps into each key space.
import Foundation
internal import MediaEngine

package enum MetadataSettingNames {
    /// The names, in the order help lists them.
    package static let names = ["title", "artist", "album", "albumArtist", "composer", "creationDate", "year", "comment",
                                "description", "genre", "trackNumber", "discNumber", "copyrights", "software", "location",
                                "artwork"]

    private static let identifiers: [String: AVMetadataIdentifier] = [
        "title": .commonIdentifierTitle, "artist": .commonIdentifierArtist, "album": .commonIdentifierAlbumName,
        "albumArtist": .iTunesMetadataAlbumArtist, "composer": .iTunesMetadataComposer,
        "creationDate": .commonIdentifierCreationDate, "year": .commonIdentifierCreationDate,
        "comment": .iTunesMetadataUserComment, "description": .commonIdentifierDescription, "genre": .commonIdentifierType,
        "trackNumber": .iTunesMetadataTrackNumber, "discNumber": .iTunesMetadataDiscNumber,
        "copyrights": .commonIdentifierCopyrights, "copyright": .commonIdentifierCopyrights,
        "software": .commonIdentifierSoftware, "location": .commonIdentifierLocation, "artwork": .commonIdentifierArtwork,
    ]

    /// An item for `NAME=VALUE`: text as UTF-8, track and disc numbers as Apple's binary pairs
    /// ("3" or "3/12"), artwork as the bytes of the image file VALUE names (JPEG, PNG, GIF, BMP).
    /// An empty VALUE gives an item without a value, which removes the name's items.
    /// Throws a message for an unknown name, a malformed number or an unreadable image.
    package static func item(_ setting: String) throws(MetadataSettingError) -> AVMetadataItem {
        guard let equals = setting.firstIndex(of: "=") else { throw .init("expected NAME=VALUE, got \"\(setting)\"") }
        let name = String(setting[..<equals]), value = String(setting[setting.index(after: equals)...])
        guard let identifier = identifiers[name] ?? identifiers.first(where: { $0.key.lowercased() == name.lowercased() })?.value else {
            throw .init("unknown metadata name \"\(name)\" (known: \(names.joined(separator: ", ")))")
        }
        let item = AVMutableMetadataItem()
        item.identifier = identifier
        guard !value.isEmpty else { return item }
        switch identifier {
        case .iTunesMetadataTrackNumber, .iTunesMetadataDiscNumber:
            let probe = AVMutableMetadataItem()
            probe.value = value as NSString
            guard let (number, total) = ISOBMFFMetadataEncoding.pair(probe) else {
                throw .init("\(name) must be N or N/M, got \"\(value)\"")
            }
            let bytes = [0, 0] + BoxBytes.be16(number) + BoxBytes.be16(total)
                + (identifier == .iTunesMetadataTrackNumber ? [0, 0] : [])
            item.value = Data(bytes) as NSData
            item.dataType = kCMMetadataBaseDataType_RawData as String
        case .commonIdentifierArtwork:
            guard let data = FileManager.default.contents(atPath: value) else { throw .init("cannot read the image \(value)") }
            guard let type = ISOBMFFMetadataEncoding.imageType(data, dataType: nil) else {
                throw .init("\(value) is not a JPEG, PNG, GIF or BMP image")
            }
            item.value = data as NSData
            item.dataType = (type == ISOBMFFMetadataEncoding.pngType ? (kCMMetadataBaseDataType_PNG as String)
                             : type == ISOBMFFMetadataEncoding.gifType ? (kCMMetadataBaseDataType_GIF as String)
                             : type == ISOBMFFMetadataEncoding.bmpType ? (kCMMetadataBaseDataType_BMP as String) : (kCMMetadataBaseDataType_JPEG as String)) as String
        default:
            item.value = value as NSString
            item.dataType = kCMMetadataBaseDataType_UTF8 as String
        }
        return item
    }
}

/// A malformed `NAME=VALUE` setting.
package struct MetadataSettingError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
