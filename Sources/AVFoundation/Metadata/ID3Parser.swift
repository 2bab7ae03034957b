// ID3 tags: v2.2 (3-character frames), v2.3, v2.4 (sync-safe sizes, unsynchronisation, extended
// header, footer, frame flags with data length indicator) at the start of the file, and
// ID3v1/v1.1 ("TAG" in the last 128 bytes) when there is no v2 tag.
//
// Items: key space .id3, key = the frame ID as an NSNumber four-character code (v2.2's three
// characters with a leading zero byte, identifier "id3/%00TT2"), format .id3Metadata.
// Text frames → NSString (UTF-16 data type for encodings 1 and 2, UTF-8 otherwise); COMM, USLT
// and TXXX → the text, with the description in extraAttributes[.info] and COMM/USLT's language
// as extendedLanguageTag; APIC/PIC → the image bytes as NSData (JPEG/PNG data type), with
// MIME type, picture type and description in extraAttributes; other frames → their bytes.
import Foundation
internal import MediaEngine

struct ID3Parser {
    let file: MediaFile

    /// The largest tag read (the format's own limit is 256 MB).
    static let maximumTagSize = 64 << 20
    /// The most frames read.
    static let maximumFrames = 10_000

    /// Whether the file ends in an ID3v1 tag.
    static func hasID3v1(_ file: MediaFile) -> Bool {
        guard file.length >= 128 else { return false }
        return file.read(upTo: 3, at: file.length - 128) == Array("TAG".utf8)
    }

    func parse(into metadata: inout AssetMetadata) {
        var items = parseV2()
        if items.isEmpty && Self.hasID3v1(file) {
            items = Self.parseV1(file.read(upTo: 128, at: file.length - 128))
        }
        metadata.add(items, format: .id3Metadata)
    }

    // MARK: ID3v2

    private func parseV2() -> [AVMetadataItem] {
        let header = file.read(upTo: 10, at: 0)
        guard header.count == 10, header.starts(with: Array("ID3".utf8)),
              (2...4).contains(header[3]), header[4] != 0xFF,
              header[6...9].allSatisfy({ $0 < 0x80 }) else { return [] }
        let version = header[3], flags = header[5]
        let size = Self.syncSafe(Array(header[6...9]))
        var tag = file.read(upTo: min(size, Self.maximumTagSize), at: 10)
        // v2.2/v2.3: unsynchronisation applies to the whole tag.
        if flags & 0x80 != 0 && version < 4 { tag = Self.resynchronise(tag) }
        if version == 2 && flags & 0x40 != 0 { return [] }  // v2.2 compression: no defined scheme
        var offset = 0
        if version >= 3 && flags & 0x40 != 0 {
            let buffer = ISOBoxReader(bytes: tag)
            if version == 3 { offset = 4 + Int(buffer.u32(0) ?? 0) }  // size excludes itself
            else { offset = Self.syncSafe(Array(tag.prefix(4))) }       // size includes itself
            guard offset <= tag.count else { return [] }
        }
        return frames(tag, from: offset, version: version, tagUnsynchronised: flags & 0x80 != 0)
    }

    private func frames(_ tag: [UInt8], from start: Int, version: UInt8, tagUnsynchronised: Bool) -> [AVMetadataItem] {
        let buffer = ISOBoxReader(bytes: tag)
        let headerLength = version == 2 ? 6 : 10
        let idLength = version == 2 ? 3 : 4
        var items: [AVMetadataItem] = []
        var offset = start
        var count = 0
        while offset + headerLength <= tag.count && count < Self.maximumFrames {
            count += 1
            let idBytes = Array(tag[offset..<(offset + idLength)])
            guard idBytes.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }) else { break }
            let frameID = MetadataText.latin1(idBytes)
            var size: Int
            var formatFlags: UInt8 = 0
            if version == 2 {
                size = Int(tag[offset + 3]) << 16 | Int(tag[offset + 4]) << 8 | Int(tag[offset + 5])
            } else if version == 3 {
                size = Int(buffer.u32(offset + 4) ?? 0)
                formatFlags = tag[offset + 9]
            } else {
                let raw = Array(tag[(offset + 4)..<(offset + 8)])
                size = Self.syncSafe(raw)
                // Writers that put a plain 32-bit size in v2.4: take it when the sync-safe
                // reading does not land on a frame boundary and the plain one does.
                if raw.contains(where: { $0 >= 0x80 }) || !Self.landsOnFrame(tag, offset + 10 + size) {
                    let plain = Int(buffer.u32(offset + 4) ?? 0)
                    if Self.landsOnFrame(tag, offset + 10 + plain) { size = plain }
                }
                formatFlags = tag[offset + 9]
            }
            let dataStart = offset + headerLength
            guard size > 0, dataStart + size <= tag.count else { break }
            var data = Array(tag[dataStart..<(dataStart + size)])
            offset = dataStart + size

            // Frame format flags.
            if version == 3 {
                if formatFlags & 0x80 != 0 || formatFlags & 0x40 != 0 { continue }  // compressed / encrypted
                if formatFlags & 0x20 != 0 { data = Array(data.dropFirst()) }       // grouping byte
            } else if version == 4 {
                if formatFlags & 0x08 != 0 || formatFlags & 0x04 != 0 { continue }  // compressed / encrypted
                if formatFlags & 0x40 != 0 { data = Array(data.dropFirst()) }       // grouping byte
                if formatFlags & 0x01 != 0 { data = Array(data.dropFirst(4)) }      // data length indicator
                if formatFlags & 0x02 != 0 || tagUnsynchronised { data = Self.resynchronise(data) }
            }
            if let item = Self.item(frameID: frameID, data: data, version: version) { items.append(item) }
        }
        return items
    }

    private static func landsOnFrame(_ tag: [UInt8], _ offset: Int) -> Bool {
        if offset == tag.count { return true }
        guard offset >= 0, offset + 4 <= tag.count else { return offset >= tag.count - 4 && offset <= tag.count }
        let next = tag[offset..<(offset + 4)]
        return next.allSatisfy { $0 == 0 } || next.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// A 28-bit sync-safe integer (7 bits per byte).
    static func syncSafe(_ bytes: [UInt8]) -> Int { bytes.prefix(4).reduce(0) { $0 << 7 | Int($1 & 0x7F) } }

    /// Undoes unsynchronisation: every 0xFF 0x00 becomes 0xFF.
    static func resynchronise(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            out.append(bytes[index])
            if bytes[index] == 0xFF && index + 1 < bytes.count && bytes[index + 1] == 0x00 { index += 2 } else { index += 1 }
        }
        return out
    }

    // MARK: Frames

    /// The key of a frame ID: its characters as a four-character code (v2.2's three with a
    /// leading zero byte).
    private static func key(_ frameID: String) -> NSNumber {
        MetadataKeyCoding.numberKey(MetadataKeyCoding.fourCharCode(frameID) ?? 0)
    }

    private static func item(frameID: String, data: [UInt8], version: UInt8) -> AVMetadataItem? {
        let key = key(frameID)
        func make(_ value: any NSCopying & NSObjectProtocol, _ dataType: String, language: String? = nil,
                  extra: [AVMetadataExtraAttributeKey: Any]? = nil) -> AVMetadataItem {
            AVMetadataItem(key: key, keySpace: .id3, value: value, dataType: dataType,
                           extendedLanguageTag: language, extraAttributes: extra)
        }
        guard let encoding = data.first else { return nil }
        switch frameID {
        case "TXXX", "TXX":
            var rest = Array(data.dropFirst())
            let description = takeString(&rest, encoding: encoding)
            return make(joinValues(decode(rest, encoding: encoding)) as NSString, textType(encoding),
                        extra: [.info: description])
        case "COMM", "COM", "USLT", "ULT":
            guard data.count >= 4 else { return nil }
            let language = ISO639.tag(fromThreeLetter: MetadataText.latin1(data[1...3]))
            var rest = Array(data.dropFirst(4))
            let description = takeString(&rest, encoding: encoding)
            return make(MetadataText.trimmingNULs(decode(rest, encoding: encoding)) as NSString, textType(encoding),
                        language: language, extra: [.info: description])
        case "APIC", "PIC":
            var rest = Array(data.dropFirst())
            let mime: String
            if frameID == "PIC" {
                guard rest.count >= 3 else { return nil }
                let format = MetadataText.latin1(rest.prefix(3)).uppercased()
                mime = format == "PNG" ? "image/png" : format == "JPG" ? "image/jpeg" : "image/" + format.lowercased()
                rest.removeFirst(3)
            } else {
                mime = takeString(&rest, encoding: 0)
            }
            guard let pictureType = rest.first else { return nil }
            rest.removeFirst()
            let description = takeString(&rest, encoding: encoding)
            let dataType: String
            if rest.starts(with: [0x89, 0x50, 0x4E, 0x47]) || mime.lowercased().hasSuffix("png") {
                dataType = (kCMMetadataBaseDataType_PNG as String)
            } else if rest.starts(with: [0xFF, 0xD8]) || mime.lowercased().contains("jp") {
                dataType = (kCMMetadataBaseDataType_JPEG as String)
            } else {
                dataType = (kCMMetadataBaseDataType_RawData as String)
            }
            return make(Data(rest) as NSData, dataType,
                        extra: [AVMetadataExtraAttributeKey("MIME"): mime,
                                AVMetadataExtraAttributeKey("picturetype"): Int(pictureType), .info: description])
        case "WXXX", "WXX":
            var rest = Array(data.dropFirst())
            let description = takeString(&rest, encoding: encoding)
            return make(MetadataText.trimmingNULs(MetadataText.latin1(rest)) as NSString, (kCMMetadataBaseDataType_UTF8 as String),
                        extra: [.info: description])
        default:
            if frameID.hasPrefix("T") {
                var text = joinValues(decode(Array(data.dropFirst()), encoding: encoding))
                if frameID == "TCON" || frameID == "TCO" { text = resolveGenre(text) }
                return make(text as NSString, textType(encoding))
            }
            if frameID.hasPrefix("W") {
                return make(MetadataText.trimmingNULs(MetadataText.latin1(data)) as NSString, (kCMMetadataBaseDataType_UTF8 as String))
            }
            return make(Data(data) as NSData, (kCMMetadataBaseDataType_RawData as String))
        }
    }

    private static func textType(_ encoding: UInt8) -> String {
        encoding == 1 || encoding == 2 ? (kCMMetadataBaseDataType_UTF16 as String) : (kCMMetadataBaseDataType_UTF8 as String)
    }

    /// Decodes text in one of ID3's four encodings (unknown encodings read as Latin-1).
    static func decode(_ bytes: [UInt8], encoding: UInt8) -> String {
        switch encoding {
        case 1: return decodeUTF16List(bytes)
        case 2: return MetadataText.utf16(bytes)
        case 3: return MetadataText.utf8(bytes)
        default: return MetadataText.latin1(bytes)
        }
    }

    /// UTF-16 where each NUL-separated value carries its own BOM.
    private static func decodeUTF16List(_ bytes: [UInt8]) -> String {
        var parts: [String] = []
        var start = 0, index = 0
        var littleEndian = false
        while index + 1 < bytes.count {
            if bytes[index] == 0 && bytes[index + 1] == 0 {
                let part = Array(bytes[start..<index])
                if part.starts(with: [0xFF, 0xFE]) { littleEndian = true } else if part.starts(with: [0xFE, 0xFF]) { littleEndian = false }
                parts.append(MetadataText.utf16(part, littleEndianDefault: littleEndian))
                start = index + 2
            }
            index += 2
        }
        if start < bytes.count {
            let part = Array(bytes[start...])
            if part.starts(with: [0xFF, 0xFE]) { littleEndian = true } else if part.starts(with: [0xFE, 0xFF]) { littleEndian = false }
            parts.append(MetadataText.utf16(part, littleEndianDefault: littleEndian))
        }
        return parts.joined(separator: "\0")
    }

    /// Removes and returns one NUL-terminated string from the front of `bytes`.
    private static func takeString(_ bytes: inout [UInt8], encoding: UInt8) -> String {
        let wide = encoding == 1 || encoding == 2
        var index = 0
        while index < bytes.count {
            if wide {
                if index + 1 < bytes.count && bytes[index] == 0 && bytes[index + 1] == 0 { break }
                index += 2
            } else {
                if bytes[index] == 0 { break }
                index += 1
            }
        }
        let end = min(index, bytes.count)
        let text = decode(Array(bytes[..<end]), encoding: encoding)
        bytes = Array(bytes.dropFirst(min(bytes.count, end + (wide ? 2 : 1))))
        return text
    }

    /// Several NUL-separated values (v2.4) joined with "/", trailing NULs dropped.
    private static func joinValues(_ text: String) -> String {
        MetadataText.trimmingNULs(text).split(separator: "\0", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// "(13)" → "Pop", "(13)Pop" → "Pop", "(RX)" → "Remix", "(CR)" → "Cover"; a bare number
    /// (v2.4) and names are kept as written.
    static func resolveGenre(_ text: String) -> String {
        guard text.hasPrefix("(") else { return text }
        var rest = Substring(text)
        var names: [String] = []
        while rest.hasPrefix("("), let close = rest.firstIndex(of: ")") {
            let inner = rest[rest.index(after: rest.startIndex)..<close]
            if inner.hasPrefix("(") { break }  // "((" escapes a literal parenthesis
            if let index = Int(inner), ID3Genres.names.indices.contains(index) { names.append(ID3Genres.names[index]) }
            else if inner == "RX" { names.append("Remix") } else if inner == "CR" { names.append("Cover") }
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { return String(rest.hasPrefix("((") ? rest.dropFirst() : rest) }
        return names.isEmpty ? text : names.joined(separator: "/")
    }

    // MARK: ID3v1

    /// ID3v1/v1.1: 30-byte title/artist/album, 4-byte year, 30-byte comment (v1.1: 28 bytes,
    /// a zero, the track number), genre index. Mapped to the v2.3 frames they correspond to.
    static func parseV1(_ tag: [UInt8]) -> [AVMetadataItem] {
        guard tag.count == 128, tag.starts(with: Array("TAG".utf8)) else { return [] }
        func field(_ start: Int, _ length: Int) -> String {
            var bytes = Array(tag[start..<(start + length)])
            if let nul = bytes.firstIndex(of: 0) { bytes = Array(bytes[..<nul]) }
            return MetadataText.latin1(bytes).trimmingCharacters(in: .whitespaces)
        }
        var fields: [(String, String)] = [("TIT2", field(3, 30)), ("TPE1", field(33, 30)), ("TALB", field(63, 30)),
                                          ("TYER", field(93, 4))]
        let isV11 = tag[125] == 0 && tag[126] != 0
        let comment = field(97, isV11 ? 28 : 30)
        if isV11 { fields.append(("TRCK", String(tag[126]))) }
        if tag[127] < ID3Genres.names.count { fields.append(("TCON", ID3Genres.names[Int(tag[127])])) }
        var items = fields.filter { !$0.1.isEmpty }.map {
            AVMetadataItem(key: key($0.0), keySpace: .id3, value: $0.1 as NSString, dataType: (kCMMetadataBaseDataType_UTF8 as String))
        }
        if !comment.isEmpty {
            items.append(AVMetadataItem(key: key("COMM"), keySpace: .id3, value: comment as NSString,
                                        dataType: (kCMMetadataBaseDataType_UTF8 as String), extraAttributes: [.info: ""]))
        }
        return items
    }
}

/// The ID3v1 genre list (0–79 ID3, 80–125 Winamp extensions); iTunes `gnre` is index + 1.
enum ID3Genres {
    static let names = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
        "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop",
        "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game",
        "Sound Clip", "Gospel", "Noise", "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative",
        "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave", "Techno-Industrial",
        "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy", "Cult", "Gangsta", "Top 40",
        "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave", "Psychedelic", "Rave",
        "Showtunes", "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical",
        "Rock & Roll", "Hard Rock", "Folk", "Folk-Rock", "National Folk", "Swing", "Fast Fusion", "Bebob",
        "Latin", "Revival", "Celtic", "Bluegrass", "Avantgarde", "Gothic Rock", "Progressive Rock",
        "Psychedelic Rock", "Symphonic Rock", "Slow Rock", "Big Band", "Chorus", "Easy Listening", "Acoustic",
        "Humour", "Speech", "Chanson", "Opera", "Chamber Music", "Sonata", "Symphony", "Booty Bass", "Primus",
        "Porn Groove", "Satire", "Slow Jam", "Club", "Tango", "Samba", "Folklore", "Ballad", "Power Ballad",
        "Rhythmic Soul", "Freestyle", "Duet", "Punk Rock", "Drum Solo", "A Capella", "Euro-House", "Dance Hall",
    ]
}
