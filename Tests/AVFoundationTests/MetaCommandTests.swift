// `avtool meta FILE --set … -o OUT` goes through a passthrough AVAssetExportSession: the output's
// video packets equal the source's (ffmpeg's framemd5 of the video streams, attached pictures
// aside), the --set items read back in every tool (AtomicParsley for MPEG-4, mutagen, exiftool,
// ffprobe, AVAsset), the source's other items are kept, `NAME=` removes one meaning in every key
// space, and the source is never changed.
import Foundation
import Testing
@testable import AVFoundation

@Suite struct MetaCommandTests {
    typealias F = MetadataWriterFixtures

    /// The video packets as `ffmpeg -i F -map 0:V -c copy -f framemd5 -` lists them (`V`: video
    /// streams that are not attached pictures, so added cover art does not count).
    static func videoFrameMD5(_ url: URL) throws -> String {
        let result = try AssetFixtures.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-map", "0:V", "-c", "copy",
                                                      "-f", "framemd5", "-"])
        #expect(result.status == 0)
        return result.output
    }

    @Test(arguments: ["m4v", "mov"])
    func metaWritesThroughAPassthroughExport(ext: String) async throws {
        guard F.toolsInstalled, let avtool = AssetWriterFaultTests.avtool else { Issue.record("a tool or the avtool binary is missing; run scripts/setup.sh and swift build"); return }
        let source = try F.source(ext, fastStart: false, metadata: ["-metadata", "title=Old title", "-metadata", "album=Kept album",
                                                                     "-metadata", "comment=Removed comment"])
        let directory = source.deletingLastPathComponent()
        let cover = directory.appendingPathComponent("cover.jpg")
        let jpeg = try F.jpeg(in: directory)
        try jpeg.write(to: cover)
        let before = try Data(contentsOf: source)
        let output = directory.appendingPathComponent("tagged.\(ext)")
        let run = try AssetFixtures.run(avtool.path, ["meta", source.path, "--set", "title=\(F.title)", "artist=\(F.artist)",
                                                      "year=2024", "trackNumber=3/12", "location=\(F.location)",
                                                      "artwork=\(cover.path)", "comment=", "-o", output.path])
        #expect(run.status == 0)
        #expect(try Data(contentsOf: source) == before, "the source is unchanged")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasPrefix(".") },
                "no temporary file is left")

        // The video packets are the source's.
        let packets = try Self.videoFrameMD5(source)
        #expect(packets.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 10)
        #expect(try Self.videoFrameMD5(output) == packets)

        // mutagen (iTunes items, in MOV files too).
        let tags = try F.mutagen(output)
        #expect(tags["©nam"] as? [String] == [F.title])
        #expect(tags["©ART"] as? [String] == [F.artist])
        #expect(tags["©alb"] as? [String] == ["Kept album"])
        #expect(tags["©day"] as? [String] == ["2024"])
        #expect(tags["trkn"] as? [[Int]] == [[3, 12]])
        #expect(tags["covr"] as? [[Int]] == [[13, jpeg.count]])
        #expect(tags["©cmt"] == nil)

        // AtomicParsley (it refuses QuickTime movies by their brand).
        if ext != "mov" {
            let parsley = try F.atomicParsley(output)
            #expect(parsley.contains("Atom \"©nam\" contains: \(F.title)"))
            #expect(parsley.contains("Atom \"©ART\" contains: \(F.artist)"))
            #expect(parsley.contains("Atom \"©alb\" contains: Kept album"))
            #expect(parsley.contains("Atom \"trkn\" contains: 3 of 12"))
            #expect(parsley.contains("Atom \"covr\" contains: 1 piece of artwork"))
            #expect(!parsley.contains("©cmt"))
        }

        // exiftool.
        let exif = try F.exiftool(output)
        #expect(exif["ItemList:Title"] as? String == F.title)
        #expect(exif["ItemList:Artist"] as? String == F.artist)
        #expect(exif["ItemList:TrackNumber"] as? String == "3 of 12")
        #expect((exif["UserData:GPSCoordinates"] as? String)?.hasPrefix("35 deg 41' 22.20\" N, 139 deg 41' 30.12\" E") == true)
        #expect(!exif.keys.contains { $0.hasSuffix(":Comment") })
        if ext == "mov" {
            #expect(exif["Keys:Title"] as? String == F.title)
            #expect(exif["UserData:Title"] as? String == F.title)
            #expect(exif["Keys:Artist"] as? String == F.artist)
        }

        // ffprobe.
        let probe = try F.ffprobeTags(output)
        #expect(probe["title"] == F.title)
        #expect(probe["artist"] == F.artist)
        #expect(probe["album"] == "Kept album")
        #expect(probe["track"] == "3/12")
        #expect(probe["location"] == F.location)
        #expect(probe["comment"] == nil)
        #expect(!probe.values.contains("Old title"))

        // Our own reader.
        let asset = AVURLAsset(url: output)
        let common = try await asset.load(.commonMetadata)
        let titles = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierTitle)
        #expect(!titles.isEmpty && titles.allSatisfy { $0.stringValue == F.title })
        let artworks = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierArtwork)
        #expect(!artworks.isEmpty && artworks.allSatisfy { $0.dataValue == jpeg })
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func replacingTheSourceItselfAndRefusingAnExistingOutput() throws {
        guard F.toolsInstalled, let avtool = AssetWriterFaultTests.avtool else { return }
        let source = try F.source("m4v", fastStart: true, metadata: ["-metadata", "title=Old"])
        let packets = try Self.videoFrameMD5(source)
        let before = try Data(contentsOf: source)
        // Without --replace an existing OUT (here the source) is refused and left as it was.
        let refused = try AssetFixtures.run(avtool.path, ["meta", source.path, "--set", "title=New", "-o", source.path])
        #expect(refused.status != 0)
        #expect(try Data(contentsOf: source) == before)
        // With --replace the file is replaced by its tagged copy (written beside it first).
        let replaced = try AssetFixtures.run(avtool.path, ["meta", source.path, "--set", "title=New", "-o", source.path, "--replace"])
        #expect(replaced.status == 0)
        #expect(try F.mutagen(source)["©nam"] as? [String] == ["New"])
        #expect(try Self.videoFrameMD5(source) == packets)
        // A file that is not media fails with the reason and writes nothing.
        let directory = source.deletingLastPathComponent()
        let text = directory.appendingPathComponent("notes.m4v")
        try Data("not a movie".utf8).write(to: text)
        let bad = try AssetFixtures.run(avtool.path, ["meta", text.path, "--set", "title=X", "-o",
                                                      directory.appendingPathComponent("out.m4v").path])
        #expect(bad.status != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.m4v").path))
        try? FileManager.default.removeItem(at: directory)
    }
}
