// The ISO-BMFF metadata writer: what it writes must read back the same in AtomicParsley, mutagen,
// exiftool, ffprobe and our own AVAsset, for MP4/M4V/M4A/MOV with and without fast start, with
// the media packets unchanged; existing metadata is kept unless replaced; damaged files are refused.
import Foundation
import Testing
@testable import AVFoundation

enum MetadataWriterFixtures {
    static let title = "日本語のタイトル 🎬"
    static let artist = "فنان عربي"
    static let album = "Album ✓"
    static let genre = "Jazz"
    static let date = "2024-05-06T10:20:30Z"
    static let location = "+35.6895+139.6917+012.500/"

    /// A small JPEG made by ffmpeg, and the PNG of MetadataTestSupport.
    static func jpeg(in directory: URL) throws -> Data {
        let url = directory.appendingPathComponent("cover.jpg")
        try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=32x24", "-frames:v", "1", url.path])
        return try Data(contentsOf: url)
    }

    static func item(_ identifier: AVMetadataIdentifier, _ value: any NSCopying & NSObjectProtocol, dataType: String? = nil)
        -> AVMetadataItem {
        let item = AVMutableMetadataItem()
        item.identifier = identifier
        item.value = value
        item.dataType = dataType
        return item
    }

    /// The items the agreement tests write.
    static func items(jpeg: Data) -> [AVMetadataItem] {
        [
            item(.commonIdentifierTitle, title as NSString), item(.commonIdentifierArtist, artist as NSString),
            item(.commonIdentifierAlbumName, album as NSString), item(.commonIdentifierType, genre as NSString),
            item(.commonIdentifierCreationDate, date as NSString), item(.commonIdentifierLocation, location as NSString),
            item(.iTunesMetadataTrackNumber, Data([0, 0, 0, 3, 0, 12, 0, 0]) as NSData),
            item(.iTunesMetadataDiscNumber, Data([0, 0, 0, 1, 0, 2]) as NSData),
            item(.iTunesMetadataBeatsPerMin, NSNumber(value: 120)),
            item(.iTunesMetadataDiscCompilation, NSNumber(value: 1)),
            item(.commonIdentifierArtwork, jpeg as NSData, dataType: kCMMetadataBaseDataType_JPEG as String),
            item(.commonIdentifierArtwork, Data(MetadataTestSupport.png) as NSData, dataType: kCMMetadataBaseDataType_PNG as String),
        ]
    }

    /// A 1 s H.264 + AAC (or AAC only for .m4a) file written by the ffmpeg CLI.
    static func source(_ ext: String, fastStart: Bool, metadata: [String] = []) throws -> URL {
        var args = ["-f", "lavfi", "-i", "sine=frequency=440:duration=1"]
        if ext != "m4a" { args += ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p"] }
        args += ["-c:a", "aac", "-shortest"] + metadata
        if fastStart { args += ["-movflags", "+faststart"] }
        return try AssetFixtures.generate("source.\(ext)", args)
    }

    /// Every packet of the file's first `streams` streams: timing, size, flags and an MD5 of its data.
    static func packets(_ url: URL, streams: Int) throws -> [String] {
        try (0..<streams).map { index in
            try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "\(index)", "-show_data_hash", "md5",
                                              "-show_entries", "packet=pts,dts,duration,size,flags,data_hash", "-of", "csv=p=0",
                                              url.path]).output
        }
    }

    static func streamCount(_ url: URL) throws -> Int {
        try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "stream=index", "-of", "csv=p=0", url.path])
            .output.split(separator: "\n").count
    }

    /// mutagen's view of the iTunes items: key → values (covr as [format, length], pairs as arrays).
    static func mutagen(_ url: URL) throws -> [String: Any] {
        let script = """
        import sys, json, mutagen.mp4 as m
        t = m.MP4(sys.argv[1]).tags or {}
        out = {}
        for k, v in t.items():
            if isinstance(v, bool): out[k] = v
            elif k == 'covr': out[k] = [[int(x.imageformat), len(x)] for x in v]
            elif k in ('trkn', 'disk'): out[k] = [list(x) for x in v]
            elif k.startswith('----'): out[k] = [bytes(x).decode('utf-8') for x in v]
            else: out[k] = [x if isinstance(x, (str, int, bool)) else str(x) for x in v]
        print(json.dumps(out))
        """
        let output = try AssetFixtures.run("python3", ["-c", script, url.path]).output
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    }

    static func exiftool(_ url: URL) throws -> [String: Any] {
        let output = try AssetFixtures.run("exiftool", ["-j", "-G1", url.path]).output
        return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])?.first ?? [:]
    }

    static func ffprobeTags(_ url: URL) throws -> [String: String] {
        let output = try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "json", url.path]).output
        let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return (json?["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
    }

    static func atomicParsley(_ url: URL) throws -> String {
        try AssetFixtures.run("/usr/bin/env", ["AtomicParsley", url.path, "-t"]).output
    }

    static var toolsInstalled: Bool {
        ["ffmpeg", "ffprobe", "AtomicParsley", "exiftool", "python3"].allSatisfy(MetadataTestSupport.has)
    }
}

@Suite struct MetadataWriterTests {
    typealias F = MetadataWriterFixtures

    static let cases: [(String, Bool)] = [("m4v", false), ("m4v", true), ("mp4", false), ("mp4", true),
                                          ("m4a", false), ("m4a", true), ("mov", false), ("mov", true)]

    @Test(arguments: cases)
    func everyToolReadsWhatWasWritten(ext: String, fastStart: Bool) async throws {
        guard F.toolsInstalled else { Issue.record("ffmpeg, AtomicParsley, exiftool or mutagen is missing; run scripts/setup.sh"); return }
        let source = try F.source(ext, fastStart: fastStart)
        let directory = source.deletingLastPathComponent()
        let jpeg = try F.jpeg(in: directory)
        let output = directory.appendingPathComponent("tagged.\(ext)")
        let before = try Data(contentsOf: source)
        try ISOBMFFMetadataWriter.write(F.items(jpeg: jpeg), from: source, to: output)
        #expect(try Data(contentsOf: source) == before, "the source is unchanged")

        // Packets unchanged (cover art adds an attached-picture stream after the media streams).
        let streams = try F.streamCount(source)
        let packets = try F.packets(source, streams: streams)
        #expect(packets.allSatisfy { $0.contains(",") && !$0.isEmpty })
        #expect(try F.packets(output, streams: streams) == packets)

        // mutagen (iTunes items, also in MOV files).
        let tags = try F.mutagen(output)
        #expect(tags["©nam"] as? [String] == [F.title])
        #expect(tags["©ART"] as? [String] == [F.artist])
        #expect(tags["©alb"] as? [String] == [F.album])
        #expect(tags["©gen"] as? [String] == [F.genre])
        #expect(tags["©day"] as? [String] == [F.date])
        #expect(tags["trkn"] as? [[Int]] == [[3, 12]])
        #expect(tags["disk"] as? [[Int]] == [[1, 2]])
        #expect(tags["tmpo"] as? [Int] == [120])
        #expect(tags["cpil"] as? Bool == true)
        #expect(tags["covr"] as? [[Int]] == [[13, jpeg.count], [14, MetadataTestSupport.png.count]])

        // AtomicParsley (refuses QuickTime movies by their brand).
        let parsley = try F.atomicParsley(output)
        if ext != "mov" {
            #expect(parsley.contains("Atom \"©nam\" contains: \(F.title)"))
            #expect(parsley.contains("Atom \"©ART\" contains: \(F.artist)"))
            #expect(parsley.contains("Atom \"trkn\" contains: 3 of 12"))
            #expect(parsley.contains("Atom \"disk\" contains: 1 of 2"))
            #expect(parsley.contains("Atom \"tmpo\" contains: 120"))
            #expect(parsley.contains("Atom \"cpil\" contains: true"))
            #expect(parsley.contains("Atom \"©gen\" contains: \(F.genre)"))
            #expect(parsley.contains("Atom \"covr\" contains: 2 pieces of artwork"))
        }

        // exiftool.
        let exif = try F.exiftool(output)
        #expect(exif["ItemList:Title"] as? String == F.title)
        #expect(exif["ItemList:Artist"] as? String == F.artist)
        #expect(exif["ItemList:Album"] as? String == F.album)
        #expect(exif["ItemList:Genre"] as? String == F.genre)
        #expect(exif["ItemList:TrackNumber"] as? String == "3 of 12")
        #expect(exif["ItemList:DiskNumber"] as? String == "1 of 2")
        #expect(exif["ItemList:BeatsPerMinute"] as? Int == 120)
        #expect((exif["UserData:GPSCoordinates"] as? String)?.hasPrefix("35 deg 41' 22.20\" N, 139 deg 41' 30.12\" E") == true)
        if ext == "mov" {
            #expect(exif["Keys:Title"] as? String == F.title)
            #expect(exif["Keys:Artist"] as? String == F.artist)
            #expect(exif["UserData:Title"] as? String == F.title)
            #expect(exif["UserData:Artist"] as? String == F.artist)
            #expect((exif["Keys:GPSCoordinates"] as? String)?.hasPrefix("35 deg 41' 22.20\" N") == true)
        }

        // ffprobe (libavformat's reader).
        let probe = try F.ffprobeTags(output)
        #expect(probe["title"] == F.title)
        #expect(probe["artist"] == F.artist)
        #expect(probe["album"] == F.album)
        #expect(probe["genre"] == F.genre)
        #expect(probe["date"] == F.date)
        #expect(probe["track"] == "3/12")
        #expect(probe["disc"] == "1/2")
        #expect(probe["location"] == F.location)
        if ext == "mov" { #expect(probe["com.apple.quicktime.title"] == F.title) }

        // Our own reader.
        let asset = AVURLAsset(url: output)
        let common = try await asset.load(.commonMetadata)
        let titles = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierTitle)
        #expect(!titles.isEmpty && titles.allSatisfy { $0.stringValue == F.title })
        #expect(titles.count == (ext == "mov" ? 3 : 1))
        let artworks = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierArtwork)
        #expect(Set(artworks.compactMap(\.dataValue)) == [jpeg, Data(MetadataTestSupport.png)])
        let locations = AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierLocation)
        #expect(!locations.isEmpty && locations.allSatisfy { $0.stringValue == F.location })
        let all = try await asset.load(.metadata)
        #expect(MetadataTestSupport.first(all, .iTunesMetadataTrackNumber)?.dataValue == Data([0, 0, 0, 3, 0, 12, 0, 0]))
        #expect(MetadataTestSupport.first(all, .iTunesMetadataBeatsPerMin)?.numberValue == 120)
        let date = try await asset.load(.creationDate)
        #expect(date?.dateValue == MetadataValueCoercion.date(from: F.date))
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func existingItemsAreKeptReplacedAndRemoved() async throws {
        guard F.toolsInstalled else { return }
        let source = try F.source("mp4", fastStart: false, metadata: ["-metadata", "title=Old", "-metadata", "artist=Kept",
                                                                       "-metadata", "comment=Note"])
        let directory = source.deletingLastPathComponent()
        let first = directory.appendingPathComponent("first.mp4")
        try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "New" as NSString)], from: source, to: first)
        var tags = try F.mutagen(first)
        #expect(tags["©nam"] as? [String] == ["New"])
        #expect(tags["©ART"] as? [String] == ["Kept"])
        #expect(tags["©cmt"] as? [String] == ["Note"])

        // The same meaning in another key space replaces it too; an item without value removes.
        let second = directory.appendingPathComponent("second.mp4")
        let removal = AVMutableMetadataItem()
        removal.identifier = .commonIdentifierArtist
        try ISOBMFFMetadataWriter.write([F.item(.iTunesMetadataSongName, "Newer" as NSString), removal,
                                         F.item(.quickTimeMetadataComment, "Changed" as NSString)], from: first, to: second)
        tags = try F.mutagen(second)
        #expect(tags["©nam"] as? [String] == ["Newer"])
        #expect(tags["©ART"] == nil)
        #expect(tags["©cmt"] as? [String] == ["Changed"], "comment is one meaning across key spaces")
        #expect(try F.ffprobeTags(second)["artist"] == nil)

        // Replacing drops everything else.
        let third = directory.appendingPathComponent("third.mp4")
        try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierAlbumName, "Only" as NSString)], mode: .replacing,
                                        from: second, to: third)
        tags = try F.mutagen(third)
        #expect(tags.keys.sorted() == ["©alb"])
        #expect(try F.packets(third, streams: 2) == F.packets(source, streams: 2))
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func quickTimeMovieItemsAreReplacedInEveryKeySpace() async throws {
        guard F.toolsInstalled else { return }
        let source = try F.source("mov", fastStart: true)
        let directory = source.deletingLastPathComponent()
        let first = directory.appendingPathComponent("first.mov")
        try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "One" as NSString),
                                         F.item(.commonIdentifierArtist, "Artist" as NSString)], from: source, to: first)
        let second = directory.appendingPathComponent("second.mov")
        try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "Two" as NSString)], from: first, to: second)
        let exif = try F.exiftool(second)
        #expect(exif["Keys:Title"] as? String == "Two")
        #expect(exif["UserData:Title"] as? String == "Two")
        #expect(exif["ItemList:Title"] as? String == "Two")
        #expect(exif["Keys:Artist"] as? String == "Artist")
        let asset = AVURLAsset(url: second)
        let titles = AVMetadataItem.metadataItems(from: try await asset.load(.commonMetadata), filteredByIdentifier: .commonIdentifierTitle)
        #expect(titles.map(\.stringValue) == ["Two", "Two", "Two"])
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func fragmentedFilesKeepTheirFragments() throws {
        guard F.toolsInstalled else { return }
        // empty_moov without default_base_moof: every tfhd carries an absolute base data offset.
        for flags in ["+frag_keyframe+empty_moov", "+frag_keyframe+delay_moov+default_base_moof"] {
            let source = try AssetFixtures.generate("fragmented.mp4", [
                "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=3", "-c:v", "libx264", "-g", "10",
                "-movflags", flags])
            let output = source.deletingLastPathComponent().appendingPathComponent("tagged.mp4")
            try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, F.title as NSString)], from: source, to: output)
            #expect(try F.packets(output, streams: 1) == F.packets(source, streams: 1), "\(flags)")
            #expect(try F.ffprobeTags(output)["title"] == F.title)
            let decode = try AssetFixtures.run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "framemd5", "-"]).output
            let original = try AssetFixtures.run("ffmpeg", ["-v", "error", "-i", source.path, "-f", "framemd5", "-"]).output
            #expect(decode == original && decode.contains("0,"), "\(flags)")
            try? FileManager.default.removeItem(at: source.deletingLastPathComponent())
        }
    }

    @Test func damagedFilesAreRefusedAndLeftAlone() throws {
        guard F.toolsInstalled else { return }
        let source = try F.source("mp4", fastStart: false)
        let directory = source.deletingLastPathComponent()
        let good = try Data(contentsOf: source)
        let moov = try #require(good.range(of: Data("moov".utf8))).lowerBound - 4
        var cases: [(String, Data)] = [
            ("truncated moov", good.prefix(moov + 200)),
            ("not a media file", Data("hello, this is not a movie at all".utf8)),
            ("empty", Data()),
        ]
        // An absurd size inside the movie box (the first trak claims 2 GiB).
        var absurd = good
        let trak = try #require(good.range(of: Data("trak".utf8), options: [], in: moov..<good.count)).lowerBound - 4
        absurd.replaceSubrange(trak..<(trak + 4), with: [0x7F, 0xFF, 0xFF, 0xF0])
        cases.append(("absurd trak size", absurd))
        // A top-level box that claims more than the file has.
        var huge = good
        huge.replaceSubrange(moov..<(moov + 4), with: [0xFF, 0xFF, 0xFF, 0xF0])
        cases.append(("moov past the end", huge))
        // A chunk offset pointing past the media.
        var offsets = good
        let stco = try #require(good.range(of: Data("stco".utf8), options: [], in: moov..<good.count)).lowerBound
        offsets.replaceSubrange((stco + 12)..<(stco + 16), with: [0x7F, 0, 0, 0])
        cases.append(("chunk offset outside", offsets))

        for (name, bytes) in cases {
            let input = directory.appendingPathComponent("damaged.mp4")
            let output = directory.appendingPathComponent("out.mp4")
            try bytes.write(to: input)
            #expect(throws: (any Error).self, "\(name)") {
                try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "x" as NSString)], from: input, to: output)
            }
            do {
                try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "x" as NSString)], from: input, to: output)
            } catch {
                #expect((error as NSError).domain == AVFoundationErrorDomain, "\(name): \(error)")
            }
            #expect(try Data(contentsOf: input) == bytes, "\(name): the input is unchanged")
            #expect(!FileManager.default.fileExists(atPath: output.path), "\(name): nothing written")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
            #expect(leftovers.isEmpty, "\(name): no temporary file left")
        }
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func anExistingDestinationIsNotReplacedUnlessAsked() throws {
        guard F.toolsInstalled else { return }
        let source = try F.source("m4a", fastStart: false)
        let output = source.deletingLastPathComponent().appendingPathComponent("exists.m4a")
        try Data("keep me".utf8).write(to: output)
        do {
            try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "x" as NSString)], from: source, to: output)
            Issue.record("wrote over an existing file")
        } catch {
            #expect((error as NSError).domain == AVFoundationErrorDomain)
            #expect((error as NSError).code == AVError.Code.fileAlreadyExists.rawValue)
        }
        #expect(try Data(contentsOf: output) == Data("keep me".utf8))
        try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "x" as NSString)], from: source, to: output,
                                        replacingDestination: true)
        #expect(try F.mutagen(output)["©nam"] as? [String] == ["x"])
        // In place over the source itself.
        try ISOBMFFMetadataWriter.write([F.item(.commonIdentifierTitle, "y" as NSString)], from: output, to: output,
                                        replacingDestination: true)
        #expect(try F.mutagen(output)["©nam"] as? [String] == ["y"])
        try? FileManager.default.removeItem(at: source.deletingLastPathComponent())
    }

    @Test func aSmallerMovieBoxLeavesTheMediaInPlace() throws {
        guard F.toolsInstalled else { return }
        let source = try F.source("mp4", fastStart: true, metadata: ["-metadata", "comment=" + String(repeating: "x", count: 400)])
        let output = source.deletingLastPathComponent().appendingPathComponent("smaller.mp4")
        let removal = AVMutableMetadataItem()
        removal.identifier = .iTunesMetadataUserComment
        try ISOBMFFMetadataWriter.write([removal], from: source, to: output)
        // Same size: a free box fills the space the comment took, so every offset is the same.
        #expect(try Data(contentsOf: output).count == Data(contentsOf: source).count)
        let positions = { (url: URL) in
            try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "packet=pos", "-of", "csv=p=0", url.path]).output
        }
        #expect(try positions(output) == positions(source))
        #expect(try F.mutagen(output)["©cmt"] == nil)
        try? FileManager.default.removeItem(at: source.deletingLastPathComponent())
    }

    @Test func writeTargetsReadBackAsTheirCommonKey() {
        for (common, targets) in CommonKeyMapping.writeTargets {
            if let atom = targets.iTunes {
                #expect(CommonKeyMapping.commonKey(forKey: atom, keySpace: .iTunes) == common, "\(atom)")
            }
            if let atom = targets.userData {
                #expect(CommonKeyMapping.commonKey(forKey: atom, keySpace: .quickTimeUserData) == common, "\(atom)")
            }
            if let key = targets.quickTime {
                #expect(CommonKeyMapping.commonKey(forKey: key, keySpace: .quickTimeMetadata) == common, "\(key)")
            }
        }
    }

    @Test func dataAtomsUseTheWellKnownTypes() {
        let text = ISOBMFFMetadataEncoding.iTunesData(atom: "©nam", F.item(.iTunesMetadataSongName, "é" as NSString))
        #expect(text == [0, 0, 0, 18] + Array("data".utf8) + [0, 0, 0, 1, 0, 0, 0, 0, 0xC3, 0xA9])
        let tempo = ISOBMFFMetadataEncoding.iTunesData(atom: "tmpo", F.item(.iTunesMetadataBeatsPerMin, NSNumber(value: 300)))
        #expect(tempo == [0, 0, 0, 18] + Array("data".utf8) + [0, 0, 0, 21, 0, 0, 0, 0, 0x01, 0x2C])
        let track = ISOBMFFMetadataEncoding.iTunesData(atom: "trkn", F.item(.iTunesMetadataTrackNumber, "3/12" as NSString))
        #expect(track == [0, 0, 0, 24] + Array("data".utf8) + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 12, 0, 0])
        let png = ISOBMFFMetadataEncoding.iTunesData(atom: "covr", F.item(.iTunesMetadataCoverArt, Data(MetadataTestSupport.png) as NSData))
        #expect(png.map { Array($0[8..<12]) } == [0, 0, 0, 14])
        #expect(ISOBMFFMetadataEncoding.packedLanguage("ja") == 0x2A0E) // "jpn"
        #expect(ISOBMFFMetadataEncoding.packedLanguage(nil) == 0x55C4)   // "und"
        let entry = ISOBMFFMetadataEncoding.userDataText(F.item(.quickTimeUserDataFullName, "ab" as NSString))
        #expect(entry == [0, 2, 0x55, 0xC4, 0x61, 0x62])
    }
}

@Suite struct AssetWriterMetadataTests {
    typealias F = MetadataWriterFixtures

    static var h264: [String: Any] { [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 64, AVVideoHeightKey: 48] }

    /// The offsets of the top-level boxes of a file, by type.
    static func topLevel(_ url: URL) throws -> [(type: String, offset: Int)] {
        let data = try Data(contentsOf: url)
        var result: [(String, Int)] = []
        var offset = 0
        while offset + 8 <= data.count {
            let size = data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            result.append((String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self), offset))
            guard size >= 8 else { break }
            offset += size
        }
        return result
    }

    static let cases: [(AVFileType, String, Bool, Bool)] = [
        (.mp4, "mp4", false, false), (.mp4, "mp4", true, false), (.m4v, "m4v", true, false),
        (.mov, "mov", false, false), (.mov, "mov", true, false), (.mp4, "mp4", false, true), (.mov, "mov", false, true),
    ]

    @Test(arguments: cases)
    func writerMetadataIsWrittenAsOurBoxes(fileType: AVFileType, ext: String, fastStart: Bool, fragmented: Bool) async throws {
        guard F.toolsInstalled else { return }
        let url = try WriterFixtures.outputURL("written.\(ext)")
        let items = [F.item(.commonIdentifierTitle, F.title as NSString), F.item(.commonIdentifierArtist, F.artist as NSString),
                     F.item(.iTunesMetadataTrackNumber, Data([0, 0, 0, 3, 0, 12, 0, 0]) as NSData),
                     F.item(.commonIdentifierLocation, F.location as NSString)]
        let writer = try await WriterFixtures.writeFrames(to: url, fileType: fileType, settings: Self.h264, count: 30,
                                                          width: 64, height: 48) { writer, _ in
            writer.metadata = items
            writer.shouldOptimizeForNetworkUse = fastStart
            if fragmented { writer.movieFragmentInterval = CMTime(value: 1, timescale: 3) }
        }
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let exif = try F.exiftool(url)
        #expect(exif["ItemList:Title"] as? String == F.title)
        #expect(exif["ItemList:Artist"] as? String == F.artist)
        #expect(exif["ItemList:TrackNumber"] as? String == "3 of 12")
        #expect((exif["UserData:GPSCoordinates"] as? String)?.hasPrefix("35 deg 41' 22.20\" N") == true)
        if ext == "mov" {
            #expect(exif["Keys:Title"] as? String == F.title)
            #expect(exif["UserData:Title"] as? String == F.title)
        } else if !fragmented {
            // (AtomicParsley refuses the 'iso5' brand fragmented files carry, and QuickTime movies.)
            #expect(try F.atomicParsley(url).contains("Atom \"©nam\" contains: \(F.title)"))
        }
        #expect(try F.mutagen(url)["©nam"] as? [String] == [F.title])
        #expect(try F.ffprobeTags(url)["title"] == F.title)

        let boxes = Self.topLevel
        let order = try boxes(url).map(\.type)
        let movie = try #require(order.firstIndex(of: "moov"))
        if fragmented {
            #expect(order.contains("moof") && movie < (order.firstIndex(of: "moof") ?? 0), "\(order)")
        } else {
            let media = try #require(order.firstIndex(of: "mdat"))
            #expect(fastStart ? movie < media : movie > media, "\(order)")
        }
        // Every frame decodes, at the times written.
        #expect(try WriterFixtures.framePresentationTimes(url).count == 30)
        let asset = AVURLAsset(url: url)
        let titles = AVMetadataItem.metadataItems(from: try await asset.load(.commonMetadata), filteredByIdentifier: .commonIdentifierTitle)
        #expect(!titles.isEmpty && titles.allSatisfy { $0.stringValue == F.title })
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    @Test func avtoolMetaWritesAndPrints() throws {
        guard F.toolsInstalled, let avtool = AssetWriterFaultTests.avtool else { return }
        let source = try F.source("m4v", fastStart: true)
        let directory = source.deletingLastPathComponent()
        let jpeg = directory.appendingPathComponent("cover.jpg")
        try F.jpeg(in: directory).write(to: jpeg)
        let output = directory.appendingPathComponent("tagged.m4v")
        let write = try AssetFixtures.run(avtool.path, ["meta", source.path, "--set", "title=\(F.title)", "artist=\(F.artist)",
                                                        "trackNumber=3/12", "discNumber=1/2", "genre=Jazz", "year=2024",
                                                        "location=\(F.location)", "artwork=\(jpeg.path)", "-o", output.path])
        #expect(write.status == 0)
        let tags = try F.mutagen(output)
        #expect(tags["©nam"] as? [String] == [F.title])
        #expect(tags["trkn"] as? [[Int]] == [[3, 12]])
        #expect(tags["disk"] as? [[Int]] == [[1, 2]])
        #expect(tags["©day"] as? [String] == ["2024"])
        #expect((tags["covr"] as? [[Int]])?.first?.first == 13)
        // No overwrite without --replace; removal with NAME=.
        let again = try AssetFixtures.run(avtool.path, ["meta", output.path, "--set", "artist=", "-o", output.path])
        #expect(again.status != 0)
        let removed = try AssetFixtures.run(avtool.path, ["meta", output.path, "--set", "artist=", "-o", output.path, "--replace"])
        #expect(removed.status == 0)
        #expect(try F.mutagen(output)["©ART"] == nil)
        let json = try AssetFixtures.run(avtool.path, ["meta", output.path, "--json"]).output
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let iTunes = (report?["metadata"] as? [String: Any])?["itsk"] as? [[String: Any]] ?? []
        #expect(iTunes.contains { $0["identifier"] as? String == "itsk/%A9nam" && $0["value"] as? String == F.title })
        #expect(iTunes.contains { ($0["value"] as? String)?.hasPrefix("<image/jpeg, ") == true })
        let bad = try AssetFixtures.run(avtool.path, ["meta", source.path, "--set", "nonsense=1", "-o",
                                                      directory.appendingPathComponent("x.m4v").path])
        #expect(bad.status != 0)
        try? FileManager.default.removeItem(at: directory)
    }
}
