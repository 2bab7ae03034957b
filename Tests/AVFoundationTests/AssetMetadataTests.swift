// An asset's metadata, chapters and media selection through the public API only, as an Apple
// developer writes it, on files tagged by independent tools (ffmpeg, AtomicParsley, mutagen)
// and compared with ffprobe's view of the same tags.
import AVFoundation
import Foundation
import Testing

enum AssetMetadataFixtures {
    /// A PNG written by ffmpeg (an 8×8 red square).
    static func png(in directory: URL) throws -> (url: URL, bytes: Data) {
        let url = directory.appendingPathComponent("cover.png")
        let result = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=red:s=8x8", "-frames:v", "1",
                                                      url.path])
        guard result.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return (url, try Data(contentsOf: url))
    }

    /// An ffmetadata file with three chapters: [0, 1) "Intro", [1, 2.5) "Middle — 中", [2.5, 4) "End".
    static func chapterFile(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("chapters.txt")
        let text = """
        ;FFMETADATA1
        title=Chaptered
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=1000
        title=Intro
        [CHAPTER]
        TIMEBASE=1/1000
        START=1000
        END=2500
        title=Middle — 中
        [CHAPTER]
        TIMEBASE=1/1000
        START=2500
        END=4000
        title=End

        """
        try Data(text.utf8).write(to: url)
        return url
    }

    static let chapterTitles = ["Intro", "Middle — 中", "End"]
    static let chapterRanges = [(0, 1000), (1000, 2500), (2500, 4000)].map { start, end in
        CMTimeRange(start: CMTime(value: CMTimeValue(start), timescale: 1000), end: CMTime(value: CMTimeValue(end), timescale: 1000))
    }

    /// ffprobe's format tags of a file.
    static func probeTags(_ url: URL) throws -> [String: String] {
        let output = try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path]).output
        let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return (json?["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }

    /// ffprobe's chapters: (start, end, title).
    static func probeChapters(_ url: URL) throws -> [(start: Double, end: Double, title: String?)] {
        let output = try AssetFixtures.run("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", url.path]).output
        let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return (json?["chapters"] as? [[String: Any]] ?? []).map { chapter in
            (Double(chapter["start_time"] as? String ?? "") ?? -1, Double(chapter["end_time"] as? String ?? "") ?? -1,
             (chapter["tags"] as? [String: String])?["title"])
        }
    }

    static func first(_ items: [AVMetadataItem], _ identifier: AVMetadataIdentifier) -> AVMetadataItem? {
        AVMetadataItem.metadataItems(from: items, filteredByIdentifier: identifier).first
    }

    /// The value of the first item with a common key (in any key space), as a string.
    static func common(_ items: [AVMetadataItem], _ key: AVMetadataKey) -> String? {
        AVMetadataItem.metadataItems(from: items, withKey: key, keySpace: .common).first?.stringValue
    }
}

@Suite("AVAsset metadata")
struct AssetMetadataTests {
    typealias F = AssetMetadataFixtures

    @Test("M4A tagged by ffmpeg: common and iTunes items equal ffprobe's tags, non-Latin title exact")
    func ffmpegTaggedM4A() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("tagged.m4a", [
            "-f", "lavfi", "-i", "sine=f=440:d=1", "-metadata", "title=日本語のタイトル", "-metadata", "artist=Artist A",
            "-metadata", "album=Album B", "-metadata", "track=3/12", "-metadata", "comment=A comment", "-c:a", "aac",
        ])
        let probe = try F.probeTags(url)
        let asset = AVURLAsset(url: url)
        let (common, formats, all) = try await asset.load(.commonMetadata, .availableMetadataFormats, .metadata)
        #expect(formats.contains(.iTunesMetadata))
        #expect(F.common(common, .commonKeyTitle) == probe["title"])
        #expect(F.common(common, .commonKeyTitle) == "日本語のタイトル")
        #expect(F.common(common, .commonKeyArtist) == probe["artist"])
        #expect(F.common(common, .commonKeyAlbumName) == probe["album"])
        // Common items keep their native identity.
        let title = try #require(F.first(common, .commonIdentifierTitle))
        #expect(title.identifier == .iTunesMetadataSongName)
        #expect(title.keySpace == .iTunes)
        #expect(try await title.load(.stringValue) == "日本語のタイトル")

        let iTunes = try await asset.loadMetadata(for: .iTunesMetadata)
        #expect(iTunes.count == all.filter { $0.keySpace == .iTunes }.count)
        #expect(F.first(iTunes, .iTunesMetadataUserComment)?.stringValue == probe["comment"])
        #expect(F.first(iTunes, .iTunesMetadataArtist)?.stringValue == "Artist A")
        // trkn: four big-endian UInt16 [0, number, count, 0].
        #expect(F.first(iTunes, .iTunesMetadataTrackNumber)?.dataValue == Data([0, 0, 0, 3, 0, 12, 0, 0]))
        #expect(try await asset.loadMetadata(for: .id3Metadata).isEmpty)
        #expect(asset.metadata(forFormat: .iTunesMetadata).count == iTunes.count)
        #expect(asset.lyrics == nil)
    }

    @Test("M4A tagged by AtomicParsley: title, artist, album and artwork exact, trkn/disk/genre as iTunes items")
    func atomicParsleyM4A() async throws {
        guard AssetFixtures.hasFFmpeg, FileManager.default.isExecutableFile(atPath: "/usr/bin/AtomicParsley") else {
            Issue.record("AtomicParsley is missing; run scripts/setup.sh"); return
        }
        let url = try AssetFixtures.generate("plain.m4a", ["-f", "lavfi", "-i", "sine=d=1", "-map_metadata", "-1", "-c:a", "aac"])
        let cover = try F.png(in: url.deletingLastPathComponent())
        let tagged = try AssetFixtures.run("AtomicParsley", [url.path, "--title", "日本語", "--artist", "X", "--album", "Ålbum",
                                                             "--tracknum", "3/12", "--disk", "1/2", "--genre", "Rock",
                                                             "--artwork", cover.url.path, "--lyrics", "la la", "--overWrite"])
        try #require(tagged.status == 0)

        let asset = AVURLAsset(url: url)
        let common = try await asset.load(.commonMetadata)
        #expect(F.common(common, .commonKeyTitle) == "日本語")
        #expect(F.common(common, .commonKeyArtist) == "X")
        #expect(F.common(common, .commonKeyAlbumName) == "Ålbum")
        let artwork = try #require(AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierArtwork).first)
        #expect(artwork.identifier == .iTunesMetadataCoverArt)
        #expect(artwork.dataValue == cover.bytes)
        #expect(try await artwork.load(.dataValue) == cover.bytes)

        let iTunes = asset.metadata(forFormat: .iTunesMetadata)
        #expect(F.first(iTunes, .iTunesMetadataTrackNumber)?.dataValue == Data([0, 0, 0, 3, 0, 12, 0, 0]))
        #expect(F.first(iTunes, .iTunesMetadataDiscNumber)?.dataValue == Data([0, 0, 0, 1, 0, 2]))
        // AtomicParsley stores a standard genre as 'gnre': a big-endian UInt16, the ID3 index + 1
        // (Rock = 17), which the book reads as data.
        let genre = try #require(F.first(iTunes, .iTunesMetadataPredefinedGenre))
        #expect(genre.dataValue == Data([0, 18]), "\(genre)")
        #expect(asset.lyrics == "la la")
        #expect(try await asset.load(.lyrics) == "la la")
        // ffprobe agrees on the text tags.
        let probe = try F.probeTags(url)
        #expect(probe["title"] == "日本語")
        #expect(probe["artist"] == "X")
    }

    @Test("MOV: QuickTime user data (ffmpeg's default) and QuickTime metadata (use_metadata_tags)")
    func quickTimeFormats() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let udta = try AssetFixtures.generate("udta.mov", [
            "-f", "lavfi", "-i", "testsrc=s=64x48:d=1", "-metadata", "title=Üser Data", "-metadata", "artist=Ar", "-c:v", "mpeg4",
        ])
        let asset = AVURLAsset(url: udta)
        let formats = try await asset.load(.availableMetadataFormats)
        #expect(formats.contains(.quickTimeUserData))
        let user = asset.metadata(forFormat: .quickTimeUserData)
        #expect(F.first(user, .quickTimeUserDataFullName)?.stringValue == "Üser Data")
        #expect(F.common(asset.commonMetadata, .commonKeyTitle) == (try F.probeTags(udta))["title"])

        let mdta = try AssetFixtures.generate("mdta.mov", [
            "-f", "lavfi", "-i", "testsrc=s=64x48:d=1", "-metadata", "com.apple.quicktime.title=Meta Títle",
            "-metadata", "com.apple.quicktime.artist=Ar2", "-metadata", "com.example.rating=5",
            "-movflags", "use_metadata_tags", "-c:v", "mpeg4",
        ])
        let quick = AVURLAsset(url: mdta)
        let items = try await quick.loadMetadata(for: .quickTimeMetadata)
        #expect(F.first(items, .quickTimeMetadataTitle)?.stringValue == "Meta Títle")
        #expect(F.first(items, AVMetadataIdentifier("mdta/com.example.rating"))?.stringValue == "5")
        let common = try await quick.load(.commonMetadata)
        #expect(F.common(common, .commonKeyTitle) == "Meta Títle")
        #expect(F.common(common, .commonKeyArtist) == "Ar2")
        let probe = try F.probeTags(mdta)
        #expect(probe["com.apple.quicktime.title"] == "Meta Títle")
        #expect(probe["com.example.rating"] == "5")
    }

    @Test("MP3 with ID3v2.4 written by mutagen: text frames, APIC, COMM, TXXX")
    func id3FromMutagen() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("plain.mp3", ["-f", "lavfi", "-i", "sine=d=1", "-map_metadata", "-1", "-write_xing", "0",
                                                           "-id3v2_version", "0", "-c:a", "libmp3lame"])
        let cover = try F.png(in: url.deletingLastPathComponent())
        let script = """
        import sys
        from mutagen.id3 import ID3, TIT2, TPE1, TALB, TRCK, APIC, COMM, TXXX
        t = ID3()
        t.add(TIT2(encoding=3, text='Заголовок'))
        t.add(TPE1(encoding=1, text='Artiste é'))
        t.add(TALB(encoding=0, text='Album'))
        t.add(TRCK(encoding=3, text='3/12'))
        t.add(APIC(encoding=3, mime='image/png', type=3, desc='Cover', data=open(sys.argv[2], 'rb').read()))
        t.add(COMM(encoding=3, lang='eng', desc='', text='User comment'))
        t.add(TXXX(encoding=3, desc='MyKey', text='MyValue'))
        t.save(sys.argv[1], v2_version=4)
        """
        let result = try AssetFixtures.run("python3", ["-c", script, url.path, cover.url.path])
        try #require(result.status == 0, "mutagen failed")

        let asset = AVURLAsset(url: url)
        #expect(try await asset.load(.availableMetadataFormats) == [.id3Metadata])
        let common = try await asset.load(.commonMetadata)
        #expect(F.common(common, .commonKeyTitle) == "Заголовок")
        #expect(F.common(common, .commonKeyArtist) == "Artiste é")
        #expect(F.common(common, .commonKeyAlbumName) == "Album")
        let artwork = try #require(AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierArtwork).first)
        #expect(artwork.identifier == .id3MetadataAttachedPicture)
        #expect(artwork.dataValue == cover.bytes)

        let id3 = try await asset.loadMetadata(for: .id3Metadata)
        #expect(F.first(id3, .id3MetadataTitleDescription)?.stringValue == "Заголовок")
        #expect(F.first(id3, .id3MetadataTrackNumber)?.stringValue == "3/12")
        let comment = try #require(F.first(id3, .id3MetadataComments))
        #expect(try await comment.load(.stringValue) == "User comment")
        let text = try #require(F.first(id3, .id3MetadataUserText))
        #expect(text.stringValue == "MyValue")
        #expect(try await text.load(.extraAttributes)?[.info] as? String == "MyKey")
        // ffprobe reads the same frames.
        let probe = try F.probeTags(url)
        #expect(probe["title"] == "Заголовок")
        #expect(probe["MyKey"] == "MyValue")
    }

    @Test("chapters of an MP4 made by ffmpeg from [CHAPTER] sections: titles, starts and durations exact")
    func mp4Chapters() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let directory = try AssetFixtures.tempDirectory()
        let url = directory.appendingPathComponent("chapters.m4a")
        let made = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=4",
                                                    "-i", try F.chapterFile(in: directory).path, "-map", "0", "-map_metadata", "1",
                                                    "-map_chapters", "1", "-c:a", "aac", url.path])
        try #require(made.status == 0)
        let asset = AVURLAsset(url: url)
        let locales = try await asset.load(.availableChapterLocales)
        #expect(!locales.isEmpty)
        let groups = try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["en"])
        try #require(groups.count == 3)
        let probe = try F.probeChapters(url)
        for (index, group) in groups.enumerated() {
            let title = AVMetadataItem.metadataItems(from: group.items, filteredByIdentifier: .commonIdentifierTitle).first
            #expect(title?.stringValue == F.chapterTitles[index])
            #expect(group.timeRange == F.chapterRanges[index], "\(index): \(group.timeRange)")
            #expect(title?.time == group.timeRange.start)
            #expect(title?.duration == group.timeRange.duration)
            #expect(abs(group.timeRange.start.seconds - probe[index].start) < 0.001)
            #expect(abs(group.timeRange.end.seconds - probe[index].end) < 0.001)
        }
        let byLocale = try await asset.loadChapterMetadataGroups(withTitleLocale: locales[0])
        #expect(byLocale.count == 3)
        #expect(asset.chapterMetadataGroups(withTitleLocale: locales[0], containingItemsWithCommonKeys: [.commonKeyArtwork]).count == 3)
        #expect(asset.chapterMetadataGroups(bestMatchingPreferredLanguages: ["fr", "en-US"]).count == 3)
        // The file's own title is still file-level metadata.
        #expect(F.common(asset.commonMetadata, .commonKeyTitle) == "Chaptered")
    }

    @Test("chapters of an MKV (from the demuxer): titles and times exact")
    func matroskaChapters() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let directory = try AssetFixtures.tempDirectory()
        let url = directory.appendingPathComponent("chapters.mkv")
        let made = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=4",
                                                    "-i", try F.chapterFile(in: directory).path, "-map", "0", "-map_metadata", "1",
                                                    "-map_chapters", "1", "-c:a", "libvorbis", url.path])
        try #require(made.status == 0)
        let asset = AVURLAsset(url: url)
        let locales = try await asset.load(.availableChapterLocales)
        try #require(locales.count == 1)
        let groups = asset.chapterMetadataGroups(bestMatchingPreferredLanguages: Locale.preferredLanguages)
        try #require(groups.count == 3)
        for (index, group) in groups.enumerated() {
            #expect(group.items.first?.stringValue == F.chapterTitles[index])
            #expect(group.timeRange == F.chapterRanges[index], "\(index): \(group.timeRange)")
        }
        #expect(F.common(asset.commonMetadata, .commonKeyTitle) == "Chaptered")
        #expect(asset.availableMetadataFormats.count == 1)
    }

    @Test("media selection: an MKV with two audio languages and a subtitle track")
    func mediaSelection() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let directory = try AssetFixtures.tempDirectory()
        let srt = directory.appendingPathComponent("sub.srt")
        try Data("1\n00:00:00,000 --> 00:00:01,000\nHallo\n\n".utf8).write(to: srt)
        let url = directory.appendingPathComponent("languages.mkv")
        let made = try AssetFixtures.run("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=64x48:d=2", "-f", "lavfi", "-i", "sine=d=2",
            "-f", "lavfi", "-i", "sine=f=880:d=2", "-i", srt.path, "-map", "0", "-map", "1", "-map", "2", "-map", "3",
            "-c:v", "mpeg4", "-c:a", "aac", "-c:s", "srt", "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fre",
            "-metadata:s:a:1", "title=Français", "-metadata:s:s:0", "language=ger", url.path,
        ])
        try #require(made.status == 0)
        let asset = AVURLAsset(url: url)
        let characteristics = try await asset.load(.availableMediaCharacteristicsWithMediaSelectionOptions)
        #expect(characteristics.contains(.audible))
        #expect(characteristics.contains(.legible))
        #expect(!characteristics.contains(.visual))

        let audible = try #require(try await asset.loadMediaSelectionGroup(for: .audible))
        #expect(asset.mediaSelectionGroup(forMediaCharacteristic: .audible) === audible)
        #expect(audible.options.map(\.extendedLanguageTag) == ["en", "fr"])
        #expect(audible.options.map { $0.locale?.language.languageCode?.identifier } == ["en", "fr"])
        #expect(audible.options.allSatisfy { $0.mediaType == .audio && $0.hasMediaCharacteristic(.audible) })
        #expect(audible.options[1].displayName == "Français")
        #expect(!audible.allowsEmptySelection)
        #expect(audible.defaultOption === audible.options[0])
        let sorted = AVMediaSelectionGroup.mediaSelectionOptions(from: audible.options,
                                                                filteredAndSortedAccordingToPreferredLanguages: ["fr-CA", "en"])
        #expect(sorted.map(\.extendedLanguageTag) == ["fr", "en"])
        #expect(AVMediaSelectionGroup.mediaSelectionOptions(from: audible.options, with: Locale(identifier: "fr_FR")).count == 1)

        let legible = try #require(asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        #expect(legible.options.count == 1)
        #expect(legible.options.first?.extendedLanguageTag == "de")
        #expect(legible.options.first?.mediaType == .subtitle)
        #expect(legible.allowsEmptySelection)
        #expect(asset.mediaSelectionGroup(forMediaCharacteristic: .visual) == nil)

        let selection = try await asset.load(.preferredMediaSelection)
        #expect(selection.asset === asset)
        #expect(selection.selectedMediaOption(in: audible) === audible.defaultOption)

        // The French track's title is its metadata too.
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        try #require(tracks.count == 2)
        let trackTitles = try await tracks[1].load(.commonMetadata)
        #expect(F.common(trackTitles, .commonKeyTitle) == "Français")
        #expect(try await tracks[1].load(.availableMetadataFormats).count == 1)
    }

    @Test("media selection: an MP4 with two audio languages in one alternate group and a text track")
    func mp4MediaSelection() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let directory = try AssetFixtures.tempDirectory()
        let srt = directory.appendingPathComponent("sub.srt")
        try Data("1\n00:00:00,000 --> 00:00:01,000\nHola\n\n".utf8).write(to: srt)
        let url = directory.appendingPathComponent("languages.mp4")
        let made = try AssetFixtures.run("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=2", "-f", "lavfi", "-i", "sine=f=880:d=2", "-i", srt.path,
            "-map", "0", "-map", "1", "-map", "2", "-c:a", "aac", "-c:s", "mov_text", "-metadata:s:a:0", "language=eng",
            "-metadata:s:a:1", "language=spa", "-metadata:s:s:0", "language=spa", url.path,
        ])
        try #require(made.status == 0)
        let asset = AVURLAsset(url: url)
        let characteristics = try await asset.load(.availableMediaCharacteristicsWithMediaSelectionOptions)
        #expect(Set(characteristics) == [.audible, .legible])
        let audible = try #require(try await asset.loadMediaSelectionGroup(for: .audible))
        #expect(audible.options.map(\.extendedLanguageTag) == ["en", "es"])
        // FFmpeg enables the first track of the group and disables the other.
        #expect(audible.defaultOption === audible.options[0])
        #expect(audible.options.allSatisfy { $0.isPlayable })
        let preferred = AVMediaSelectionGroup.mediaSelectionOptions(from: audible.options,
                                                                   filteredAndSortedAccordingToPreferredLanguages: ["es-MX"])
        #expect(preferred.map(\.extendedLanguageTag) == ["es"])
        let legible = try #require(try await asset.loadMediaSelectionGroup(for: .legible))
        #expect(legible.options.map(\.extendedLanguageTag) == ["es"])
    }

    @Test("damaged metadata costs neither tracks nor duration; the intact items still load")
    func damagedMetadata() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("damaged.m4a", ["-f", "lavfi", "-i", "sine=d=2", "-metadata", "title=Lost",
                                                             "-metadata", "artist=Kept", "-c:a", "aac"])
        var bytes = try Data(contentsOf: url)
        // The title's 'data' atom claims far more bytes than its parent holds.
        let ilst = try #require(bytes.range(of: Data("ilst".utf8)))
        let data = try #require(bytes.range(of: Data("data".utf8), in: ilst.upperBound..<bytes.endIndex))
        bytes.replaceSubrange(data.lowerBound - 4..<data.lowerBound, with: [0xFF, 0xFF, 0xFF, 0xF0])
        try bytes.write(to: url)
        let probe = try F.probeTags(url)
        let asset = AVURLAsset(url: url)
        let (tracks, duration, common) = try await asset.load(.tracks, .duration, .commonMetadata)
        #expect(tracks.count == 1)
        #expect(abs(duration.seconds - 2) < 0.1)
        #expect(F.common(common, .commonKeyArtist) == probe["artist"])
        #expect(F.common(common, .commonKeyTitle) == nil || F.common(common, .commonKeyTitle) == "Lost")
    }

    @Test("an MP4 with one audio track has no audible selection group")
    func singleAudioTrack() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("one.m4a", ["-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac"])
        let asset = AVURLAsset(url: url)
        #expect(try await asset.load(.availableMediaCharacteristicsWithMediaSelectionOptions).isEmpty)
        #expect(try await asset.loadMediaSelectionGroup(for: .audible) == nil)
        #expect(try await asset.load(.availableChapterLocales).isEmpty)
        #expect(try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["en"]).isEmpty)
    }

    @Test("classic loading: the metadata keys load, then the synchronous properties answer")
    func classicKeys() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("classic.m4a", ["-f", "lavfi", "-i", "sine=d=1", "-metadata", "title=Classic",
                                                             "-metadata", "date=2021-05-06T07:08:09Z", "-c:a", "aac"])
        let asset = AVURLAsset(url: url)
        let keys = ["metadata", "commonMetadata", "availableMetadataFormats", "availableChapterLocales", "creationDate"]
        for key in keys {
            var error: NSError?
            #expect(asset.statusOfValue(forKey: key, error: &error) == .unknown)
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            asset.loadValuesAsynchronously(forKeys: keys) { done.resume() }
        }
        for key in keys {
            var error: NSError?
            #expect(asset.statusOfValue(forKey: key, error: &error) == .loaded, "\(key)")
            #expect(error == nil)
        }
        #expect(F.common(asset.commonMetadata, .commonKeyTitle) == "Classic")
        #expect(asset.availableMetadataFormats == [.iTunesMetadata])
        #expect(asset.metadata.count >= 2)
        #expect(asset.availableChapterLocales.isEmpty)
        if case .loaded(let formats) = asset.status(of: .availableMetadataFormats) {
            #expect(formats == [.iTunesMetadata])
        } else {
            Issue.record("availableMetadataFormats is not loaded")
        }
        let date = try #require(asset.creationDate)
        #expect(date.stringValue?.hasPrefix("2021") == true)
        let items: [AVMetadataItem]? = await withCheckedContinuation { done in
            asset.loadMetadata(for: .iTunesMetadata) { items, _ in done.resume(returning: items) }
        }
        #expect(items?.count == asset.metadata(forFormat: .iTunesMetadata).count)
    }

    @Test("a missing file: every metadata key fails with the error tracks fail with, nothing crashes")
    func missingFile() async throws {
        let asset = AVURLAsset(url: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).m4a"))
        var tracksError: NSError?
        do { _ = try await asset.load(.tracks) } catch { tracksError = error as NSError }
        let expected = try #require(tracksError)
        for attempt in 0..<3 {
            do {
                switch attempt {
                case 0: _ = try await asset.load(.commonMetadata)
                case 1: _ = try await asset.loadMetadata(for: .iTunesMetadata)
                default: _ = try await asset.load(.availableMediaCharacteristicsWithMediaSelectionOptions)
                }
                Issue.record("\(attempt): loaded")
            } catch {
                #expect((error as NSError).domain == expected.domain)
                #expect((error as NSError).code == expected.code)
            }
        }
        var error: NSError?
        #expect(asset.statusOfValue(forKey: "commonMetadata", error: &error) == .failed)
        #expect(error?.code == expected.code)
        #expect(asset.metadata.isEmpty)
        #expect(asset.availableChapterLocales.isEmpty)
        #expect(asset.creationDate == nil)
    }

    @Test("a metadata item's keys are always loaded; an unknown key fails")
    func itemLoading() async throws {
        let item = AVMutableMetadataItem()
        item.keySpace = .common
        item.key = AVMetadataKey.commonKeyTitle.rawValue as NSString
        item.value = "Título" as NSString
        #expect(try await item.load(.stringValue) == "Título")
        let (string, number) = try await item.load(.stringValue, .numberValue)
        #expect(string == "Título")
        #expect(number == nil)
        var error: NSError?
        #expect(item.statusOfValue(forKey: "value", error: &error) == .loaded)
        #expect(item.statusOfValue(forKey: "noSuchKey", error: &error) == .failed)
        #expect(error != nil)
        if case .loaded(let value) = item.status(of: .stringValue) { #expect(value == "Título") } else { Issue.record("not loaded") }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            item.loadValuesAsynchronously(forKeys: ["value"]) { done.resume() }
        }
    }

    @Test("avtool info --json shows the tags by key space and the chapters")
    func avtoolInfo() throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let tool = AssetFixtures.root.appendingPathComponent(".build/debug/avtool")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else { Issue.record("avtool is not built (swift build --build-tests builds it)"); return }
        let directory = try AssetFixtures.tempDirectory()
        let url = directory.appendingPathComponent("tool.m4a")
        let made = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=4",
                                                    "-i", try F.chapterFile(in: directory).path, "-map", "0", "-map_metadata", "1",
                                                    "-map_chapters", "1", "-metadata", "artist=Tool Ärtist", "-c:a", "aac", url.path])
        try #require(made.status == 0)
        let result = try AssetFixtures.run(tool.path, ["info", "--json", url.path])
        try #require(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let metadata = try #require(json["metadata"] as? [String: [[String: Any]]])
        let iTunes = try #require(metadata["itsk"])
        #expect(iTunes.contains { $0["identifier"] as? String == "itsk/%A9nam" && $0["value"] as? String == "Chaptered"
            && $0["commonKey"] as? String == "title" })
        #expect(iTunes.contains { $0["identifier"] as? String == "itsk/%A9ART" && $0["value"] as? String == "Tool Ärtist" })
        let chapters = try #require(json["chapters"] as? [[String: Any]])
        #expect(chapters.compactMap { $0["title"] as? String } == F.chapterTitles)
        #expect(chapters.compactMap { $0["start"] as? Double } == [0, 1, 2.5])
        #expect(chapters.compactMap { $0["duration"] as? Double } == [1, 1.5, 1.5])

        let text = try AssetFixtures.run(tool.path, ["info", url.path])
        #expect(text.output.contains("Metadata (itsk):"))
        #expect(text.output.contains("itsk/%A9ART [artist]: Tool Ärtist"))
        #expect(text.output.contains("Chaptered"))
        #expect(text.output.contains("Middle — 中"))
    }
}
