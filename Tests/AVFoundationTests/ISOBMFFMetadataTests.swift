// The ISO-BMFF reader against files ffmpeg tags and against hand-made (and hostile) boxes.
import Testing
import Foundation
@testable import AVFoundation

@Suite("ISO-BMFF metadata")
struct ISOBMFFMetadataTests {
    typealias S = MetadataTestSupport

    static let title = "日本語 Ελληνικά 🎵"

    @Test(.enabled(if: MetadataTestSupport.hasFFmpeg, "needs the ffmpeg CLI"))
    func ffmpegM4AItunesTags() throws {
        let directory = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.m4a")
        try S.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=0.5", "-metadata", "title=\(Self.title)",
                             "-metadata", "artist=The Artist", "-metadata", "track=3/12", "-c:a", "aac", url.path])
        let metadata = try MetadataReader.read(url: url, container: ContainerTags(formatName: "mov,mp4,m4a,3gp,3g2,mj2"))
        #expect(metadata.formats == [.iTunesMetadata])
        let items = metadata.itemsByFormat[.iTunesMetadata] ?? []
        let name = try #require(S.first(items, .iTunesMetadataSongName))
        #expect(name.stringValue == Self.title)
        #expect(name.dataType == (kCMMetadataBaseDataType_UTF8 as String))
        #expect(name.commonKey == .commonKeyTitle)
        #expect(S.first(items, .iTunesMetadataArtist)?.stringValue == "The Artist")
        // trkn: 8 bytes of raw data, [0, number, total, 0] as 16-bit big-endian.
        let track = try #require(S.first(items, .iTunesMetadataTrackNumber))
        #expect(track.dataValue == Data([0, 0, 0, 3, 0, 12, 0, 0]))
        #expect(track.dataType == (kCMMetadataBaseDataType_RawData as String))
        #expect(S.first(items, .iTunesMetadataEncodingTool)?.stringValue?.hasPrefix("Lavf") == true)
        let common = AVMetadataItem.metadataItems(from: metadata.commonItems, withKey: AVMetadataKey.commonKeyTitle,
                                                  keySpace: .common)
        #expect(common.first?.stringValue == Self.title)
    }

    @Test(.enabled(if: MetadataTestSupport.hasFFmpeg, "needs the ffmpeg CLI"))
    func ffmpegMovUserDataAndQuickTimeMetadata() throws {
        let directory = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let udta = directory.appendingPathComponent("u.mov"), mdta = directory.appendingPathComponent("m.mov")
        let common = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=0.5", "-metadata", "title=\(Self.title)",
                      "-metadata", "artist=Ann", "-c:a", "aac"]
        try S.run("ffmpeg", common + [udta.path])
        try S.run("ffmpeg", common + ["-movflags", "use_metadata_tags", mdta.path])
        let user = try MetadataReader.read(url: udta, container: ContainerTags(formatName: "mov"))
        let userItems = user.itemsByFormat[.quickTimeUserData] ?? []
        #expect(S.first(userItems, .quickTimeUserDataFullName)?.stringValue == Self.title)
        #expect(S.first(userItems, .quickTimeUserDataArtist)?.stringValue == "Ann")
        let quick = try MetadataReader.read(url: mdta, container: ContainerTags(formatName: "mov"))
        let quickItems = quick.itemsByFormat[.quickTimeMetadata] ?? []
        let title = try #require(S.first(quickItems, AVMetadataIdentifier("mdta/title")))
        #expect(title.stringValue == Self.title)
        #expect(AVMetadataItem.metadataItems(from: quick.allItems, filteredByIdentifier: .commonIdentifierTitle)
            .isEmpty == (title.commonKey == nil))
    }

    @Test(.enabled(if: MetadataTestSupport.hasFFmpeg, "needs the ffmpeg CLI"))
    func chaptersFromMP4() throws {
        let directory = try S.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("meta.txt"), url = directory.appendingPathComponent("c.mp4")
        try Data(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=500\ntitle=Één\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=500\nEND=1000\ntitle=Two 🎬\n".utf8)
            .write(to: text)
        try S.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=1", "-i", text.path, "-map_metadata", "1",
                             "-map_chapters", "1", "-c:a", "aac", url.path])
        let metadata = try MetadataReader.read(url: url, container: ContainerTags(formatName: "mov"))
        let groups = try #require(metadata.chapterGroupsByLocale.first?.groups)
        #expect(groups.count == 2)
        #expect(groups.map { $0.items.first?.stringValue } == ["Één", "Two 🎬"])
        #expect(groups[0].items.first?.commonKey == .commonKeyTitle)
        #expect(groups[0].timeRange.start.seconds == 0)
        #expect(abs(groups[1].timeRange.start.seconds - 0.5) < 0.01)
        #expect(abs(groups[0].timeRange.end.seconds - groups[1].timeRange.start.seconds) < 0.001)
    }

    @Test func handMadeItunesAtoms() throws {
        let entries = S.box("trkn", S.dataAtom(type: 0, [0, 0, 0, 3, 0, 12, 0, 0]))
            + S.box("disk", S.dataAtom(type: 0, [0, 0, 0, 1, 0, 2]))
            + S.box("gnre", S.dataAtom(type: 0, [0, 18]))
            + S.box("tmpo", S.dataAtom(type: 21, [0, 120]))
            + S.box("cpil", S.dataAtom(type: 21, [1]))
            + S.box("covr", S.dataAtom(type: 14, S.png))
            + S.box("\u{A9}cmt", S.dataAtom(type: 1, Array("Ελληνικά".utf8)))
            + S.box("----", S.box("mean", S.be32(0) + Array("com.apple.iTunes".utf8))
                    + S.box("name", S.be32(0) + Array("iTunNORM".utf8)) + S.dataAtom(type: 1, Array(" 0000".utf8)))
        let metadata = try S.read(bytes: S.iTunesFile(entries), name: "x.m4a")
        let items = metadata.itemsByFormat[.iTunesMetadata] ?? []
        #expect(S.first(items, .iTunesMetadataDiscNumber)?.dataValue == Data([0, 0, 0, 1, 0, 2]))
        #expect(S.first(items, .iTunesMetadataPredefinedGenre)?.dataValue == Data([0, 18]))
        let tempo = try #require(S.first(items, .iTunesMetadataBeatsPerMin))
        #expect(tempo.numberValue == 120 && tempo.dataType == (kCMMetadataBaseDataType_SInt16 as String))
        #expect(S.first(items, .iTunesMetadataDiscCompilation)?.dataType == (kCMMetadataBaseDataType_SInt8 as String))
        let cover = try #require(S.first(items, .iTunesMetadataCoverArt))
        #expect(cover.dataValue == Data(S.png) && cover.dataType == (kCMMetadataBaseDataType_PNG as String))
        #expect(cover.commonKey == .commonKeyArtwork)
        #expect(S.first(items, .iTunesMetadataUserComment)?.stringValue == "Ελληνικά")
        #expect(S.first(items, AVMetadataIdentifier("itlk/com.apple.iTunes.iTunNORM"))?.stringValue == " 0000")
        #expect(metadata.commonItems.contains { $0.commonKey == .commonKeyArtwork })
    }

    @Test func hostileBoxesNeverCrash() throws {
        let ftyp = S.box("ftyp", S.latin1("isom") + S.be32(0))
        var nested = S.box("ilst", [])
        for _ in 0..<500 { nested = S.box("udta", nested) }
        let cases: [[UInt8]] = [
            ftyp + S.be32(0) + S.latin1("moov"),                                          // size 0 = to end, empty
            ftyp + S.be32(1) + S.latin1("moov") + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // huge 64-bit
            ftyp + S.be32(1) + S.latin1("moov") + [0, 0, 0, 0, 0, 0, 0, 3],               // largesize < header
            ftyp + S.be32(4) + S.latin1("moov"),                                          // size < 8
            ftyp + S.box("moov", S.be32(0xFFFF_FF00) + S.latin1("udta") + S.be32(7)),     // child past parent
            ftyp + S.box("moov", nested),                                                 // deep nesting
            S.iTunesFile(S.box("covr", S.be32(100) + S.latin1("data") + [0, 0])),        // data atom cut short
            S.iTunesFile(S.box("trkn", S.box("data", []))),                               // empty data atom
            ftyp + S.box("moov", S.box("meta", S.be32(0) + S.box("hdlr", S.be32(0) + S.be32(0) + S.latin1("mdta"))
                + S.box("keys", S.be32(0) + S.be32(0xFFFF_FFFF)) + S.box("ilst", S.box("\0\0\0\u{FF}", [])))),
            ftyp + S.box("moov", S.box("udta", S.box("chpl", [1, 0, 0, 0, 0, 0, 0, 0, 255, 0, 0]))),
            ftyp + S.box("moov", S.box("trak", S.box("tkhd", [0] + [UInt8](repeating: 0xFF, count: 20))
                + S.box("tref", S.box("chap", S.be32(1))))),
        ]
        for bytes in cases {
            let metadata = try S.read(bytes: bytes, name: "h.mp4")
            #expect(metadata.allItems.count < 10)
        }
        // A covr atom whose declared size runs past the file still yields the bytes present.
        let truncated = S.iTunesFile(S.box("\u{A9}nam", S.dataAtom(type: 1, Array("ok".utf8))))
        #expect(try S.read(bytes: truncated).allItems.first?.stringValue == "ok")
    }
}
