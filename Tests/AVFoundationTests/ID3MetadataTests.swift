// The ID3 reader against hand-made tags of every version, mutagen-written tags when mutagen is
// installed, hostile sizes, and the house_lo.mp3 fixture against ffprobe.
import Testing
import Foundation
@testable import AVFoundation

@Suite("ID3 metadata")
struct ID3MetadataTests {
    typealias S = MetadataTestSupport

    static func syncSafe(_ value: Int) -> [UInt8] {
        [UInt8((value >> 21) & 0x7F), UInt8((value >> 14) & 0x7F), UInt8((value >> 7) & 0x7F), UInt8(value & 0x7F)]
    }

    static func tag(version: UInt8, flags: UInt8 = 0, _ frames: [UInt8]) -> [UInt8] {
        Array("ID3".utf8) + [version, 0, flags] + syncSafe(frames.count) + frames
    }

    static func frame23(_ id: String, _ data: [UInt8]) -> [UInt8] {
        Array(id.utf8) + S.be32(UInt32(data.count)) + [0, 0] + data
    }

    static func frame24(_ id: String, _ data: [UInt8], flags: UInt8 = 0) -> [UInt8] {
        Array(id.utf8) + syncSafe(data.count) + [0, flags] + data
    }

    static func utf16WithBOM(_ text: String) -> [UInt8] {
        [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    @Test func version23Frames() throws {
        let frames = Self.frame23("TIT2", [1] + Self.utf16WithBOM("日本語 🎵"))
            + Self.frame23("TPE1", [0] + S.latin1("Café"))
            + Self.frame23("TCON", [0] + S.latin1("(13)"))
            + Self.frame23("TRCK", [0] + S.latin1("3/12"))
            + Self.frame23("COMM", [0] + S.latin1("eng") + S.latin1("") + [0] + S.latin1("Nice"))
            + Self.frame23("TXXX", [3] + Array("MOOD".utf8) + [0] + Array("Calme".utf8))
            + Self.frame23("APIC", [0] + S.latin1("image/png") + [0, 3] + S.latin1("front") + [0] + S.png)
            + Self.frame23("PRIV", S.latin1("owner") + [0, 1, 2, 3])
            + [UInt8](repeating: 0, count: 32)  // padding
        let metadata = try S.read(bytes: Self.tag(version: 3, frames) + [0xFF, 0xFB, 0x90, 0x00], name: "a.mp3")
        #expect(metadata.formats == [.id3Metadata])
        let items = metadata.itemsByFormat[.id3Metadata] ?? []
        let title = try #require(S.first(items, .id3MetadataTitleDescription))
        #expect(title.stringValue == "日本語 🎵" && title.dataType == (kCMMetadataBaseDataType_UTF16 as String))
        #expect(title.keySpace == .id3 && title.commonKey == .commonKeyTitle)
        #expect(S.first(items, .id3MetadataLeadPerformer)?.stringValue == "Café")
        #expect(S.first(items, .id3MetadataContentType)?.stringValue == "Pop")
        #expect(S.first(items, .id3MetadataTrackNumber)?.stringValue == "3/12")
        let comment = try #require(S.first(items, .id3MetadataComments))
        #expect(comment.stringValue == "Nice" && comment.extendedLanguageTag == "en")
        #expect(comment.extraAttributes?[.info] as? String == "")
        let user = try #require(S.first(items, .id3MetadataUserText))
        #expect(user.stringValue == "Calme" && user.extraAttributes?[.info] as? String == "MOOD")
        let picture = try #require(S.first(items, .id3MetadataAttachedPicture))
        #expect(picture.dataValue == Data(S.png) && picture.dataType == (kCMMetadataBaseDataType_PNG as String))
        #expect(picture.commonKey == .commonKeyArtwork)
        #expect(S.first(items, .id3MetadataPrivate)?.dataValue?.count == 9)
        #expect(metadata.commonItems.count == 4)   // title, artist, type (TCON), artwork
    }

    @Test func version24UnsynchronisationAndDataLengthIndicator() throws {
        // 0xFF 0xE0 in the text would be a false sync: unsynchronised as 0xFF 0x00 0xE0.
        let text: [UInt8] = [0] + S.latin1("ÿà!")   // Latin-1 0xFF 0xE0 0x21
        let unsynced: [UInt8] = [0, 0xFF, 0x00, 0xE0, 0x21]
        let withIndicator = Self.syncSafe(text.count) + unsynced
        let frames = Self.frame24("TIT2", withIndicator, flags: 0x03)
            + Self.frame24("TPE1", [3] + Array("A\0B".utf8))
            + Self.frame24("TCON", [3] + Array("17".utf8))
        let items = try S.read(bytes: Self.tag(version: 4, frames), name: "b.mp3").allItems
        #expect(S.first(items, .id3MetadataTitleDescription)?.stringValue == "ÿà!")
        #expect(S.first(items, .id3MetadataLeadPerformer)?.stringValue == "A/B")
        #expect(S.first(items, .id3MetadataContentType)?.numberValue == 17)
    }

    @Test func version23WholeTagUnsynchronisationAndExtendedHeader() throws {
        let frame = Self.frame23("TIT2", [0] + [0xFF, 0xE0] + S.latin1("x"))
        var unsynced: [UInt8] = []
        for byte in S.be32(6) + [0, 0, 0, 0, 0, 0] + frame {   // extended header: size 6 + 6 bytes
            unsynced.append(byte)
            if byte == 0xFF { unsynced.append(0) }
        }
        let items = try S.read(bytes: Self.tag(version: 3, flags: 0xC0, unsynced)).allItems
        #expect(items.first?.stringValue == "ÿàx")
    }

    @Test func version22Frames() throws {
        func frame(_ id: String, _ data: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [UInt8(data.count >> 16), UInt8((data.count >> 8) & 0xFF), UInt8(data.count & 0xFF)] + data
        }
        let frames = frame("TT2", [0] + S.latin1("Old")) + frame("PIC", [0] + S.latin1("PNG") + [3, 0] + S.png)
        let items = try S.read(bytes: Self.tag(version: 2, frames)).allItems
        let title = try #require(items.first)
        #expect(title.identifier?.rawValue == "id3/%00TT2" && title.stringValue == "Old")
        #expect(title.commonKey == .commonKeyTitle)
        #expect(items.last?.dataValue == Data(S.png) && items.last?.commonKey == .commonKeyArtwork)
    }

    @Test func version1Fallback() throws {
        var tag = S.latin1("TAG")
        func field(_ text: String, _ length: Int) -> [UInt8] {
            Array((S.latin1(text) + [UInt8](repeating: 0, count: length)).prefix(length))
        }
        tag += field("Title", 30) + field("Artist", 30) + field("Album", 30) + field("1999", 4)
        tag += field("Comment", 28) + [0, 7] + [17]
        let items = try S.read(bytes: [UInt8](repeating: 0xAA, count: 300) + tag, name: "c.mp3").allItems
        #expect(S.first(items, .id3MetadataTitleDescription)?.stringValue == "Title")
        #expect(S.first(items, .id3MetadataTrackNumber)?.stringValue == "7")
        #expect(S.first(items, .id3MetadataContentType)?.stringValue == "Rock")
        #expect(S.first(items, .id3MetadataYear)?.stringValue == "1999")
        #expect(S.first(items, .id3MetadataComments)?.stringValue == "Comment")
    }

    @Test func hostileTagsNeverCrash() throws {
        let cases: [[UInt8]] = [
            Array("ID3".utf8) + [3, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F],                      // size past the end
            Self.tag(version: 3, Self.frame23("TIT2", [1, 0xFF])),                       // odd UTF-16
            Self.tag(version: 3, Array("TIT2".utf8) + S.be32(0xFFFF_FFF0) + [0, 0, 0]),  // frame past the tag
            Self.tag(version: 4, flags: 0x40, [0x7F, 0x7F, 0x7F, 0x7F]),                 // ext header past the tag
            Self.tag(version: 3, Self.frame23("APIC", [0])),                             // truncated picture
            Self.tag(version: 3, Self.frame23("COMM", [1, 0x65])),                       // truncated comment
            Self.tag(version: 4, Self.frame24("TIT2", [9] + S.latin1("bad encoding"))),
            Self.tag(version: 9, []),
        ]
        for bytes in cases { _ = try S.read(bytes: bytes, name: "h.mp3") }
        let badEncoding = try S.read(bytes: cases[6]).allItems
        #expect(badEncoding.first?.stringValue == "bad encoding")
    }

    @Test(.enabled(if: MetadataTestSupport.has("python3")
        && (try? MetadataTestSupport.run("python3", ["-c", "import mutagen"]).status) == 0, "needs python3 mutagen"))
    func mutagenWrittenTags() throws {
        let directory = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for version in [3, 4] {
            let url = directory.appendingPathComponent("m\(version).mp3")
            try Data().write(to: url)
            let script = """
            from mutagen.id3 import ID3, TIT2, TPE1, COMM, TXXX, APIC
            t = ID3(); t.add(TIT2(encoding=1, text='Ελληνικά 日本語')); t.add(TPE1(encoding=3, text='Ann'))
            t.add(COMM(encoding=1, lang='fra', desc='', text='Bien')); t.add(TXXX(encoding=3, desc='K', text='V'))
            t.add(APIC(encoding=0, mime='image/png', type=3, desc='c', data=open('\(directory.path)/p.png','rb').read()))
            t.save('\(url.path)', v2_version=\(version))
            """
            try Data(S.png).write(to: directory.appendingPathComponent("p.png"))
            #expect(try S.run("python3", ["-c", script]).status == 0)
            let items = try MetadataReader.read(url: url, container: ContainerTags(formatName: "mp3")).allItems
            #expect(S.first(items, .id3MetadataTitleDescription)?.stringValue == "Ελληνικά 日本語")
            #expect(S.first(items, .id3MetadataLeadPerformer)?.stringValue == "Ann")
            #expect(S.first(items, .id3MetadataComments)?.extendedLanguageTag == "fr")
            #expect(S.first(items, .id3MetadataUserText)?.extraAttributes?[.info] as? String == "K")
            #expect(S.first(items, .id3MetadataAttachedPicture)?.dataValue == Data(S.png))
        }
    }

    /// The pygame fixture: whatever ffprobe reports as its title/artist must come out the same.
    @Test func houseLoAgreesWithFFprobe() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for name in ["house_lo.mp3", "house_lo.ogg"] {
            let url = root.appendingPathComponent(".cache/fixtures/\(name)")
            guard FileManager.default.fileExists(atPath: url.path), S.hasFFmpeg else { continue }
            let probe = try S.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", url.path])
            var tags: [(key: String, value: String)] = []
            for line in probe.output.split(separator: "\n") where line.hasPrefix("TAG:") {
                let pair = line.dropFirst(4).split(separator: "=", maxSplits: 1)
                if pair.count == 2 { tags.append((String(pair[0]), String(pair[1]))) }
            }
            let format = name.hasSuffix("ogg") ? "ogg" : "mp3"
            let metadata = try MetadataReader.read(url: url, container: ContainerTags(formatName: format, tags: tags))
            let commonKeys: [String: AVMetadataKey] = ["title": .commonKeyTitle, "artist": .commonKeyArtist,
                                                       "album": .commonKeyAlbumName, "genre": .commonKeyType]
            for (key, value) in tags {
                guard let common = commonKeys[key.lowercased()] else { continue }
                let found = AVMetadataItem.metadataItems(from: metadata.commonItems, withKey: common, keySpace: .common)
                #expect(found.first?.stringValue == value, "\(name) \(key)")
            }
        }
    }
}
