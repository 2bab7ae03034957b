// AVAssetExportSession's metadata: the source's items carried over (passthrough and re-encode),
// the session's items replacing those with the same meaning, `metadataItemFilter.forSharing()`
// removing location and the like — read back by ffprobe, exiftool, mutagen and AVAsset.
import AVFoundation
import Foundation
import Testing

enum ExportMetadataFixtures {
    static let title = "Ürümqi 東京 テスト Ωμέγα"

    /// 1 s of H.264 + AAC with a non-Latin title, an artist, a comment and a location: MP4 (iTunes
    /// items) and MOV (QuickTime user data), as ffmpeg writes them.
    static func source(_ ext: String) throws -> URL {
        try AssetFixtures.generate("tagged-source.\(ext)", [
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest",
            "-metadata", "title=\(title)", "-metadata", "artist=Source Artist", "-metadata", "comment=private note",
            "-metadata", "location=+48.8577+002.2950/",
        ])
    }

    static func item(_ identifier: AVMetadataIdentifier, _ value: String) -> AVMetadataItem {
        let item = AVMutableMetadataItem()
        item.identifier = identifier
        item.value = value as NSString
        return item
    }

    /// Our reader's string values for a common key.
    static func common(_ url: URL, _ identifier: AVMetadataIdentifier) async throws -> [String] {
        let items = try await AVURLAsset(url: url).load(.commonMetadata)
        var values: [String] = []
        for item in AVMetadataItem.metadataItems(from: items, filteredByIdentifier: identifier) {
            if let value = try await item.load(.stringValue) { values.append(value) }
        }
        return values
    }
}

@Suite(.serialized) struct ExportSessionMetadataTests {
    typealias F = ExportMetadataFixtures
    typealias W = MetadataWriterFixtures

    @Test(arguments: [AVAssetExportPresetPassthrough, AVAssetExportPreset640x480])
    func theSourcesMetadataIsCarriedOver(_ preset: String) async throws {
        guard W.toolsInstalled else { Issue.record("exiftool or mutagen is missing; run scripts/setup.sh"); return }
        let source = try F.source("mp4")
        let out = try ExportFixtures.output("carried.m4v")
        let session = try await ExportFixtures.export(source, preset: preset, to: out, type: .m4v)
        #expect(session.status == .completed, "\(String(describing: session.error))")
        let tags = try W.ffprobeTags(out)
        #expect(tags["title"] == F.title)
        #expect(tags["artist"] == "Source Artist")
        #expect(tags["comment"] == "private note")
        let mutagen = try W.mutagen(out)
        #expect(mutagen["©nam"] as? [String] == [F.title])
        #expect(mutagen["©ART"] as? [String] == ["Source Artist"])
        let exif = try W.exiftool(out)
        #expect(exif["ItemList:Title"] as? String == F.title)
        #expect(try await F.common(out, .commonIdentifierTitle) == [F.title])
        #expect(try await F.common(out, .commonIdentifierArtist) == ["Source Artist"])
    }

    @Test(arguments: ["mp4", "mov"])
    func sessionItemsReplaceTheSourcesAndForSharingRemovesPrivateOnes(_ ext: String) async throws {
        guard W.toolsInstalled else { Issue.record("exiftool or mutagen is missing; run scripts/setup.sh"); return }
        let source = try F.source(ext)
        // The source has a location and a comment our reader sees.
        let sourceItems = try await AVURLAsset(url: source).load(.metadata)
        let comments: Set<AVMetadataIdentifier> = [.quickTimeUserDataComment, .iTunesMetadataUserComment]
        #expect(sourceItems.contains { $0.identifier.map(comments.contains) == true })
        if ext == "mov" { #expect(sourceItems.contains { $0.commonKey == .commonKeyLocation }) }
        let newTitle = "Новое название — 新しいタイトル"
        let out = try ExportFixtures.output("shared.\(ext)")
        let type: AVFileType = ext == "mov" ? .mov : .mp4
        let session = try await ExportFixtures.export(source, preset: AVAssetExportPresetPassthrough, to: out, type: type) {
            $0.metadata = [F.item(.commonIdentifierTitle, newTitle), F.item(.commonIdentifierAlbumName, "Album Ä")]
            $0.metadataItemFilter = .forSharing()
        }
        #expect(session.status == .completed, "\(String(describing: session.error))")
        // AVAsset: the session's title only (MOV holds it in each key space), the album added,
        // the artist kept; location and the comment gone.
        let titles = try await F.common(out, .commonIdentifierTitle)
        #expect(!titles.isEmpty && titles.allSatisfy { $0 == newTitle }, "\(titles)")
        let albums = try await F.common(out, .commonIdentifierAlbumName)
        #expect(!albums.isEmpty && albums.allSatisfy { $0 == "Album Ä" }, "\(albums)")
        let artists = try await F.common(out, .commonIdentifierArtist)
        #expect(!artists.isEmpty && artists.allSatisfy { $0 == "Source Artist" }, "\(artists)")
        let items = try await AVURLAsset(url: out).load(.metadata)
        #expect(!items.contains { $0.commonKey == .commonKeyLocation })
        #expect(!items.contains { $0.identifier.map(comments.contains) == true })
        // ffprobe and exiftool agree.
        let tags = try W.ffprobeTags(out)
        #expect(tags["title"] == newTitle)
        #expect(tags["album"] == "Album Ä")
        #expect(tags["location"] == nil)
        #expect(tags["comment"] == nil)
        #expect(!tags.values.contains(F.title))
        let exif = try W.exiftool(out)
        #expect(!exif.keys.contains { $0.hasSuffix(":GPSCoordinates") || $0.hasSuffix(":Comment") }, "\(exif.keys.sorted())")
        if type == .mp4 {
            let mutagen = try W.mutagen(out)
            #expect(mutagen["©nam"] as? [String] == [newTitle])
            #expect(mutagen["©alb"] as? [String] == ["Album Ä"])
            #expect(mutagen["©cmt"] == nil)
        }
        // The packets were copied.
        let streams = try W.streamCount(source)
        #expect(try W.packets(out, streams: streams) == W.packets(source, streams: streams))
    }
}
