// AVAssetTrack segments from real edit lists: files written by the ffmpeg CLI (AAC priming,
// B-frame composition offsets, an output offset that ffmpeg writes as an empty edit, no edit
// list at all) and the same files with their 'elst' rewritten byte by byte (several edits,
// version 1 boxes, rates, hostile entry counts). Expectations come from the bytes of each file.
import AVFoundation
import Foundation
import Testing

/// Reads and rewrites the boxes of a small MP4 whose 'moov' follows its 'mdat' (ffmpeg's
/// default layout), so that resizing boxes inside 'moov' moves no sample data.
struct MP4Bytes {
    var bytes: [UInt8]

    init(_ url: URL) throws { bytes = [UInt8](try Data(contentsOf: url)) }

    func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[at + $1]) } }
    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) } }
    func type(_ at: Int) -> String { String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) }

    /// The (offset, size) of each box along `path`, choosing the `track`-th 'trak'.
    func find(_ path: [String], track: Int = 0) -> [(offset: Int, size: Int)]? {
        var found: [(offset: Int, size: Int)] = []
        var start = 0, end = bytes.count
        for name in path {
            var offset = start, seen = 0, hit: (Int, Int)?
            while offset + 8 <= end {
                let size = Int(u32(offset))
                guard size >= 8, offset + size <= end else { return nil }
                if type(offset) == name {
                    if name != "trak" || seen == track { hit = (offset, size); break }
                    seen += 1
                }
                offset += size
            }
            guard let hit else { return nil }
            found.append(hit)
            start = hit.0 + 8
            end = hit.0 + hit.1
        }
        return found
    }

    /// Replaces the last box of `path` with `box` (a whole box, header included), fixing the
    /// sizes of its ancestors.
    mutating func replace(_ path: [String], track: Int = 0, with box: [UInt8]) throws {
        let chain = try #require(find(path, track: track))
        let mdat = try #require(find(["mdat"]))
        #expect(mdat[0].offset < chain[0].offset, "moov must follow mdat for a resize to be harmless")
        let last = chain[chain.count - 1]
        let delta = box.count - last.size
        bytes.replaceSubrange(last.offset..<(last.offset + last.size), with: box)
        for ancestor in chain.dropLast() { setU32(ancestor.offset, UInt32(ancestor.size + delta)) }
    }

    mutating func setU32(_ at: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[at + i] = UInt8(value >> (24 - 8 * UInt32(i)) & 0xFF) }
    }

    /// The elst entries of a track: (segment_duration, media_time, rate integer, rate fraction).
    func editList(track: Int = 0) -> (version: UInt8, entries: [(UInt64, Int64, Int16, Int16)])? {
        guard let elst = find(["moov", "trak", "edts", "elst"], track: track)?.last else { return nil }
        let p = elst.offset + 8
        let version = bytes[p]
        var entries: [(UInt64, Int64, Int16, Int16)] = []
        var at = p + 8
        for _ in 0..<Int(u32(p + 4)) {
            if version == 1 {
                entries.append((u64(at), Int64(bitPattern: u64(at + 8)), 0, 0)); at += 16
            } else {
                entries.append((UInt64(u32(at)), Int64(Int32(bitPattern: u32(at + 4))), 0, 0)); at += 8
            }
            entries[entries.count - 1].2 = Int16(bitPattern: UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]))
            entries[entries.count - 1].3 = Int16(bitPattern: UInt16(bytes[at + 2]) << 8 | UInt16(bytes[at + 3]))
            at += 4
        }
        return (version, entries)
    }

    /// The timescale of a full box that stores (version 0) 32-bit or (version 1) 64-bit times
    /// before it: mvhd and mdhd.
    func timescale(_ path: [String], track: Int = 0) -> Int32? {
        guard let box = find(path, track: track)?.last else { return nil }
        let p = box.offset + 8
        return Int32(u32(bytes[p] == 1 ? p + 20 : p + 12))
    }

    /// An 'elst' box.
    static func elst(version: UInt8, entries: [(UInt64, Int64, Int16, Int16)], count: UInt32? = nil) -> [UInt8] {
        var payload: [UInt8] = [version, 0, 0, 0] + be(UInt64(count ?? UInt32(entries.count)), 4)
        for (duration, mediaTime, rateInteger, rateFraction) in entries {
            payload += be(duration, version == 1 ? 8 : 4) + be(UInt64(bitPattern: mediaTime), version == 1 ? 8 : 4)
            payload += be(UInt64(UInt16(bitPattern: rateInteger)), 2) + be(UInt64(UInt16(bitPattern: rateFraction)), 2)
        }
        return be(UInt64(payload.count + 8), 4) + Array("elst".utf8) + payload
    }

    /// The box at the end of `path` rewritten as version 1: the 32-bit fields named by
    /// `widen` (payload offsets after version/flags, in version 0 layout) become 64-bit.
    func widened(_ path: [String], track: Int = 0, widen: Set<Int>) -> [UInt8]? {
        guard let box = find(path, track: track)?.last else { return nil }
        let payload = Array(bytes[(box.offset + 8)..<(box.offset + box.size)])
        guard payload[0] == 0 else { return nil }
        var out: [UInt8] = [1] + payload[1..<4]
        var at = 4
        while at < payload.count {
            if widen.contains(at) {
                out += [0, 0, 0, 0] + payload[at..<(at + 4)]
                at += 4
            } else {
                out.append(payload[at]); at += 1
            }
        }
        return Self.be(UInt64(out.count + 8), 4) + Array(path.last!.utf8) + out
    }

    static func be(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (count - 1 - $0))) }
    }

    func write(_ name: String) throws -> URL {
        let url = try AssetFixtures.tempDirectory().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }
}

@Suite("AVAssetTrack edit lists")
struct AssetEditListTests {
    static func time(_ value: Int64, _ timescale: Int32) -> CMTime { CMTime(value: value, timescale: timescale) }
    static func range(_ start: CMTime, _ duration: CMTime) -> CMTimeRange { CMTimeRange(start: start, duration: duration) }

    static func firstTrack(_ url: URL) async throws -> AVAssetTrack {
        try #require(try await AVURLAsset(url: url).load(.tracks).first)
    }

    static let video = ["-f", "lavfi", "-i", "testsrc=d=2:s=160x120:r=25", "-c:v", "libx264", "-pix_fmt", "yuv420p"]

    @Test("AAC M4A: one edit skipping the encoder priming, source in the media timescale")
    func aacPriming() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("a.m4a", ["-f", "lavfi", "-i", "sine=d=2", "-c:a", "aac"])
        let file = try MP4Bytes(url)
        let list = try #require(file.editList())
        let movieScale = try #require(file.timescale(["moov", "mvhd"]))
        let mediaScale = try #require(file.timescale(["moov", "trak", "mdia", "mdhd"]))
        #expect(list.entries.count == 1 && list.entries[0].1 == 1024 && list.entries[0].2 == 1)
        #expect(String(mediaScale) == (try AssetFixtures.probe(url, "stream=sample_rate", stream: 0)))
        let duration = Self.time(Int64(list.entries[0].0), movieScale)
        #expect(duration == Self.time(2, 1))

        let track = try await Self.firstTrack(url)
        let segments = try await track.load(.segments)
        #expect(segments.count == 1)
        let mapping = try #require(segments.first).timeMapping
        #expect(!segments[0].isEmpty)
        #expect(mapping.source == Self.range(Self.time(1024, mediaScale), duration))
        #expect(mapping.source.start.timescale == mediaScale)
        #expect(mapping.target == Self.range(.zero, duration))
        #expect(try await track.load(.timeRange) == Self.range(.zero, duration))
        #expect(track.segment(forTrackTime: .zero)?.timeMapping == mapping)
        #expect(track.segment(forTrackTime: Self.time(10, 1))?.timeMapping == mapping)  // the closest
        // Track time 0 shows the first sample after the priming; 1 s shows the sample holding
        // media time 1 s + 1024 ticks, which starts at 44 × 1024.
        #expect(try await track.loadSamplePresentationTime(forTrackTime: .zero) == Self.time(1024, mediaScale))
        #expect(track.samplePresentationTime(forTrackTime: Self.time(1, 1)) == Self.time(44 * 1024, mediaScale))
        #expect(!track.samplePresentationTime(forTrackTime: duration).isValid)  // out of range
        #expect(!track.samplePresentationTime(forTrackTime: Self.time(-1, 100)).isValid)
    }

    @Test("H.264 with B-frames: one edit skipping the composition offset")
    func bFrames() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("b.mp4", Self.video + ["-bf", "2"])
        let file = try MP4Bytes(url)
        let list = try #require(file.editList())
        let movieScale = try #require(file.timescale(["moov", "mvhd"]))
        let mediaScale = try #require(file.timescale(["moov", "trak", "mdia", "mdhd"]))
        #expect(list.entries.count == 1 && list.entries[0].1 > 0)
        let offset = Self.time(list.entries[0].1, mediaScale)
        let duration = Self.time(Int64(list.entries[0].0), movieScale)

        let track = try await Self.firstTrack(url)
        let segments = track.segments
        #expect(segments.count == 1)
        #expect(segments.first?.timeMapping == CMTimeMapping(source: Self.range(offset, duration), target: Self.range(.zero, duration)))
        #expect(track.timeRange == Self.range(.zero, duration))
        // 1.05 s of track time is media time 1.05 s + offset, in frame 26 (frames last 1/25 s).
        #expect(track.samplePresentationTime(forTrackTime: Self.time(105, 100)) == Self.time(26, 25) + offset)
        #expect(track.samplePresentationTime(forTrackTime: .zero) == offset)
    }

    @Test("an output offset becomes an empty first edit that delays the track")
    func emptyEdit() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("d.mp4", Self.video + ["-bf", "0", "-output_ts_offset", "1"])
        let file = try MP4Bytes(url)
        let list = try #require(file.editList())
        let movieScale = try #require(file.timescale(["moov", "mvhd"]))
        let mediaScale = try #require(file.timescale(["moov", "trak", "mdia", "mdhd"]))
        #expect(list.entries.count == 2 && list.entries[0].1 == -1 && list.entries[1].1 == 0)
        let empty = Self.time(Int64(list.entries[0].0), movieScale)
        let media = Self.time(Int64(list.entries[1].0), movieScale)
        #expect(empty == Self.time(1, 1) && media == Self.time(2, 1))

        let track = try await Self.firstTrack(url)
        let segments = try await track.load(.segments)
        #expect(segments.count == 2)
        guard segments.count == 2 else { return }
        #expect(segments[0].isEmpty && !segments[1].isEmpty)
        #expect(segments[0].timeMapping.target == Self.range(.zero, empty))
        #expect(!segments[0].timeMapping.source.start.isValid && !segments[0].timeMapping.source.duration.isValid)
        #expect(segments[0].timeMapping.isEmpty)
        #expect(segments[1].timeMapping.source == Self.range(Self.time(0, mediaScale), media))
        #expect(segments[1].timeMapping.target == Self.range(empty, media))
        // Apple: a time range starting after zero means a delayed start; ffprobe agrees.
        let range = try await track.load(.timeRange)
        #expect(range == Self.range(empty, media))
        #expect(range.start > .zero)
        #expect(Double(try AssetFixtures.probe(url, "stream=start_time", stream: 0)) == range.start.seconds)
        // Boundaries: the empty edit is [0, 1); 1 s belongs to the media edit.
        #expect(track.segment(forTrackTime: .zero)?.isEmpty == true)
        #expect(track.segment(forTrackTime: Self.time(999, 1000))?.isEmpty == true)
        #expect(track.segment(forTrackTime: Self.time(1, 1))?.isEmpty == false)
        #expect(try await track.loadSegment(forTrackTime: Self.time(2999, 1000))?.isEmpty == false)
        #expect(track.segment(forTrackTime: Self.time(-5, 1))?.isEmpty == true)  // the closest
        #expect(track.segment(forTrackTime: Self.time(9, 1))?.isEmpty == false)
        #expect(!track.samplePresentationTime(forTrackTime: Self.time(1, 2)).isValid)  // in the empty edit
        #expect(track.samplePresentationTime(forTrackTime: Self.time(1, 1)) == .zero)
        #expect(track.samplePresentationTime(forTrackTime: Self.time(105, 100)) == Self.time(1, 25))
    }

    @Test("no edit list: one segment mapping the media onto the track's time range")
    func noEditList() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("n.mp4", Self.video + ["-bf", "0", "-use_editlist", "0"])
        #expect(try MP4Bytes(url).find(["moov", "trak", "edts"]) == nil)
        let track = try await Self.firstTrack(url)
        let segments = try await track.load(.segments)
        let range = try await track.load(.timeRange)
        #expect(segments.count == 1)
        #expect(segments.first?.timeMapping == CMTimeMapping(source: range, target: range))
        #expect(range == Self.range(.zero, Self.time(2, 1)))

        // The AAC file with its 'edts' renamed 'free'.
        let aac = try AssetFixtures.generate("a.m4a", ["-f", "lavfi", "-i", "sine=d=2", "-c:a", "aac"])
        var file = try MP4Bytes(aac)
        let edts = try #require(file.find(["moov", "trak", "edts"])?.last)
        file.bytes.replaceSubrange((edts.offset + 4)..<(edts.offset + 8), with: Array("free".utf8))
        let stripped = try await Self.firstTrack(try file.write("stripped.m4a"))
        let strippedRange = try await stripped.load(.timeRange)
        #expect(stripped.segments.count == 1)
        #expect(stripped.segments.first?.timeMapping == CMTimeMapping(source: strippedRange, target: strippedRange))
        #expect(strippedRange.duration > .zero)
    }

    @Test("rewritten edit lists: several edits, version 1 boxes, rates")
    func rewritten() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("v.mp4", Self.video + ["-bf", "0"])
        let original = try MP4Bytes(url)
        let movieScale = try #require(original.timescale(["moov", "mvhd"]))
        let mediaScale = try #require(original.timescale(["moov", "trak", "mdia", "mdhd"]))
        #expect(movieScale == 1000 && mediaScale == 12800)
        let ms = { (v: Int64) in Self.time(v, 1000) }
        let media = { (v: Int64) in Self.time(v, 12800) }

        // Empty 0.5 s, then media 0.48–1.48 s (from frame 12), then media 0–0.5 s again, in
        // version 1 boxes throughout (mvhd, tkhd, mdhd, elst).
        var file = original
        try file.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 1, entries: [
            (500, -1, 1, 0), (1000, 6144, 1, 0), (500, 0, 1, 0)]))
        try file.replace(["moov", "mvhd"], with: try #require(file.widened(["moov", "mvhd"], widen: [4, 8, 16])))
        try file.replace(["moov", "trak", "tkhd"], with: try #require(file.widened(["moov", "trak", "tkhd"], widen: [4, 8, 20])))
        try file.replace(["moov", "trak", "mdia", "mdhd"],
                         with: try #require(file.widened(["moov", "trak", "mdia", "mdhd"], widen: [4, 8, 16])))
        #expect(file.editList()?.version == 1)
        #expect(file.timescale(["moov", "mvhd"]) == 1000 && file.timescale(["moov", "trak", "mdia", "mdhd"]) == 12800)
        let multi = try file.write("multi.mp4")
        #expect(try AssetFixtures.run("ffprobe", ["-v", "error", multi.path]).status == 0)
        let asset = AVURLAsset(url: multi)
        let track = try #require(try await asset.load(.tracks).first)
        #expect(track.trackID == 1)
        let segments = try await track.load(.segments)
        #expect(segments.map(\.isEmpty) == [true, false, false])
        guard segments.count == 3 else { return }
        #expect(segments[0].timeMapping.target == Self.range(.zero, ms(500)))
        #expect(segments[1].timeMapping == CMTimeMapping(source: Self.range(media(6144), ms(1000)), target: Self.range(ms(500), ms(1000))))
        #expect(segments[2].timeMapping == CMTimeMapping(source: Self.range(.zero, ms(500)), target: Self.range(ms(1500), ms(500))))
        #expect(try await track.load(.timeRange) == Self.range(ms(500), ms(1500)))
        #expect(track.segment(forTrackTime: ms(1499))?.timeMapping == segments[1].timeMapping)
        #expect(track.segment(forTrackTime: ms(1500))?.timeMapping == segments[2].timeMapping)
        #expect(track.segment(forTrackTime: ms(2000))?.timeMapping == segments[2].timeMapping)  // the end: the closest
        // Track 0.75 s → media 0.73 s, in frame 18 (0.72 s); track 1.6 s → media 0.1 s, in frame 2.
        #expect(track.samplePresentationTime(forTrackTime: ms(750)) == Self.time(18, 25))
        #expect(track.samplePresentationTime(forTrackTime: ms(1600)) == Self.time(2, 25))

        // Rates: 2 (16.16 fixed point 0x00020000) and 0.5 (0x00008000) map a target range onto
        // twice and half its length of media.
        for (integer, fraction, factor) in [(Int16(2), Int16(0), 2.0), (0, Int16(bitPattern: 0x8000), 0.5)] {
            var rated = original
            try rated.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 0, entries: [(1000, 0, integer, fraction)]))
            let ratedTrack = try await Self.firstTrack(try rated.write("rate.mp4"))
            let mapping = try #require(ratedTrack.segments.first).timeMapping
            #expect(ratedTrack.segments.count == 1)
            #expect(mapping.target == Self.range(.zero, ms(1000)))
            #expect(mapping.source == Self.range(.zero, CMTimeMultiplyByFloat64(ms(1000), multiplier: factor)))
        }
    }

    @Test("hostile edit lists fall back to one segment without crashing")
    func hostile() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("h.m4a", ["-f", "lavfi", "-i", "sine=d=2", "-c:a", "aac"])
        let original = try MP4Bytes(url)
        let elst = try #require(original.find(["moov", "trak", "edts", "elst"])?.last)
        var variants: [(String, [UInt8])] = []
        for count: UInt32 in [2, 0xFFFF_FFFF, 0x8000_0000] {  // more entries than the box holds
            var file = original
            file.setU32(elst.offset + 12, count)
            variants.append(("count-\(count)", file.bytes))
        }
        var unknownVersion = original
        unknownVersion.bytes[elst.offset + 8] = 7
        variants.append(("version-7", unknownVersion.bytes))
        var negativeRate = original
        try negativeRate.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 0, entries: [(2000, 1024, -1, 0)]))
        variants.append(("negative-rate", negativeRate.bytes))
        var badMediaTime = original
        try badMediaTime.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 0, entries: [(2000, -7, 1, 0)]))
        variants.append(("media-time-minus-7", badMediaTime.bytes))
        var onlyEmpty = original
        try onlyEmpty.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 0, entries: [(2000, -1, 1, 0)]))
        variants.append(("only-empty", onlyEmpty.bytes))
        var huge = original
        try huge.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 1, entries: [
            (UInt64.max, 0, 1, 0), (UInt64(Int64.max), 0, 1, 0)]))
        variants.append(("huge-durations", huge.bytes))
        var overflow = original
        try overflow.replace(["moov", "trak", "edts", "elst"], with: MP4Bytes.elst(version: 1, entries: [
            (UInt64(Int64.max), 0, 1, 0), (UInt64(Int64.max), 0, 1, 0)]))
        variants.append(("overflowing-sum", overflow.bytes))
        // The elst box cut short: its size covers the header and half an entry.
        var truncated = original
        truncated.setU32(elst.offset, 8 + 8 + 6)
        variants.append(("elst-cut-short", truncated.bytes))

        let dir = try AssetFixtures.tempDirectory()
        var opened = 0
        for (name, bytes) in variants {
            let file = dir.appendingPathComponent("\(name).m4a")
            try Data(bytes).write(to: file)
            let asset = AVURLAsset(url: file)
            guard let track = try? await asset.load(.tracks).first else { continue }  // FFmpeg may reject it
            opened += 1
            let segments = try await track.load(.segments)
            let range = try await track.load(.timeRange)
            #expect(segments.count == 1, "\(name)")
            #expect(segments.first?.timeMapping == CMTimeMapping(source: range, target: range), "\(name)")
            _ = track.segment(forTrackTime: Self.time(1, 1))
            _ = track.samplePresentationTime(forTrackTime: Self.time(1, 1))
        }
        #expect(opened >= variants.count - 2, "FFmpeg opened \(opened) of \(variants.count)")
    }

    @Test("containers without edit lists keep one segment")
    func otherContainers() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("m.mkv", Self.video + ["-bf", "2"])
        let track = try await Self.firstTrack(url)
        let range = try await track.load(.timeRange)
        #expect(track.segments.count == 1)
        #expect(track.segments.first?.timeMapping == CMTimeMapping(source: range, target: range))
    }
}
