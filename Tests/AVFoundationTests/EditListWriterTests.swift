// Multi-entry edit lists written by the engine's box writer (EditListBox.rewrite): a movie the
// ffmpeg CLI wrote (one edit per track, as FFmpeg 5.1's mov muxer writes) gets a track's list
// rewritten to [empty 1 s, media 0–2 s, media 4–5 s]; ffprobe (FFmpeg's own demuxer) and our
// AVURLAsset must both present it as those edits say.
import AVFoundation
import Foundation
import MediaEngine
import Testing

@Suite("Edit lists written with several entries")
struct EditListWriterTests {
    /// Six seconds at 10 fps, a key frame every second, no B-frames: media time t is frame 10·t.
    static let video = ["-f", "lavfi", "-i", "testsrc=d=6:s=160x120:r=10", "-c:v", "libx264", "-bf", "0", "-g", "10",
                        "-pix_fmt", "yuv420p"]

    /// The movie (mvhd) and media (mdhd) timescales of the first track, read with the box reader.
    static func timescales(_ url: URL) throws -> (movie: UInt32, media: UInt32) {
        let reader = ISOBoxReader(bytes: try #require(try MediaFile(url: url).topLevelPayload("moov", maximum: 1 << 20)))
        let root = ISOBox(type: FourCC.code("moov"), payloadStart: 0, end: reader.bytes.count)
        let mvhd = try #require(reader.child("mvhd", of: root))
        let mdhd = try #require(reader.descend(root, ["trak", "mdia", "mdhd"]))
        #expect(reader.fullBox(mvhd)?.version == 0 && reader.fullBox(mdhd)?.version == 0)
        return (try #require(reader.u32(mvhd.payloadStart + 12)), try #require(reader.u32(mdhd.payloadStart + 12)))
    }

    /// ffprobe's values of one entry, one per line.
    static func probe(_ url: URL, _ entries: String) throws -> [String] {
        try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "csv=p=0", url.path])
            .output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The sizes of the packets ffprobe reads, without those FFmpeg marks as discarded (flag D:
    /// read only to decode an edit's first frame, or to end one).
    static func presentedPacketSizes(_ url: URL) throws -> [Int] {
        try probe(url, "packet=size,flags").compactMap { line in
            let fields = line.split(separator: ",")
            return fields.count == 2 && !fields[1].contains("D") ? Int(fields[0]) : nil
        }
    }

    static func seconds(_ time: CMTime) -> Double { CMTimeGetSeconds(time) }

    @Test("[empty 1 s, media 0–2 s, media 4–5 s] plays so in ffprobe and AVURLAsset")
    func threeEdits() async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let url = try AssetFixtures.generate("edits.mp4", Self.video)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let original = try Data(contentsOf: url)
        let (movie, media) = try Self.timescales(url)
        let edits = [EditListEntry.empty(duration: UInt64(movie)),
                     EditListEntry(segmentDuration: 2 * UInt64(movie), mediaTime: 0),
                     EditListEntry(segmentDuration: UInt64(movie), mediaTime: 4 * Int64(media))]
        try EditListBox.rewrite(url, editLists: [1: edits])

        // The media is untouched: ffmpeg's muxer put the movie box last, so it was rewritten in place.
        let rewritten = try Data(contentsOf: url)
        let mdatEnd = try #require(original.range(of: Data("moov".utf8))).lowerBound - 4
        #expect(rewritten.prefix(mdatEnd) == original.prefix(mdatEnd))

        // FFmpeg presents frames 0–19 at 1.0–2.9 s and frames 40–49 at 3.0–3.9 s.
        let expected = (0..<30).map { 1.0 + Double($0) / 10 }
        let frames = try Self.probe(url, "frame=best_effort_timestamp_time").compactMap { Double($0.prefix { $0 != "," }) }
        #expect(frames.count == 30 && zip(frames, expected).allSatisfy { abs($0 - $1) < 0.001 }, "\(frames)")
        let originalSizes = try Self.presentedPacketSizes(try Self.copy(original))
        #expect(originalSizes.count == 60)
        let sizes = try Self.presentedPacketSizes(url)
        #expect(sizes == Array(originalSizes[0..<20] + originalSizes[40..<50]), "\(sizes)")
        #expect(try Self.probe(url, "format=duration").compactMap(Double.init).map { abs($0 - 4) < 0.001 } == [true])

        // AVURLAsset: a 4 s movie whose track has the three segments and presents 1–4 s.
        let asset = AVURLAsset(url: url)
        #expect(try await asset.load(.duration) == CMTime(value: 4 * Int64(movie), timescale: Int32(movie)))
        let track = try #require(try await asset.load(.tracks).first)
        let segments = try await track.load(.segments)
        let second = { (value: Int64) in CMTime(value: value * Int64(movie), timescale: Int32(movie)) }
        let mediaSecond = { (value: Int64) in CMTime(value: value * Int64(media), timescale: Int32(media)) }
        #expect(segments.map(\.isEmpty) == [true, false, false])
        if segments.count == 3 {
            #expect(segments[0].timeMapping.target == CMTimeRange(start: .zero, duration: second(1)))
            #expect(segments[1].timeMapping == CMTimeMapping(source: CMTimeRange(start: .zero, duration: second(2)),
                                                             target: CMTimeRange(start: second(1), duration: second(2))))
            #expect(segments[2].timeMapping == CMTimeMapping(source: CMTimeRange(start: mediaSecond(4), duration: second(1)),
                                                             target: CMTimeRange(start: second(3), duration: second(1))))
        }
        #expect(try await track.load(.timeRange) == CMTimeRange(start: second(1), duration: second(3)))
        #expect(track.samplePresentationTime(forTrackTime: CMTime(value: 35, timescale: 10)) == CMTime(value: 45, timescale: 10))

        // The reader: the decoded frames at the times the edits give them.
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])
        reader.add(output)
        #expect(reader.startReading())
        var times: [Double] = []
        while let sample = output.copyNextSampleBuffer() {
            if CMSampleBufferGetNumSamples(sample) > 0 { times.append(Self.seconds(CMSampleBufferGetPresentationTimeStamp(sample))) }
        }
        #expect(reader.status == .completed)
        #expect(times.count == 30 && zip(times, expected).allSatisfy { abs($0 - $1) < 0.001 }, "\(times)")

        // Passthrough: the stored samples the edits present, each once and at its time. Samples
        // read only to decode an edit's first frames, or presenting outside every edit, carry
        // DoNotDisplay (FFmpeg reads the keyframe at media 2 s with the first edit and marks it
        // discarded; it must not show at 3.0 s beside the second edit's first frame).
        let stored = try AVAssetReader(asset: asset)
        let passthrough = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        stored.add(passthrough)
        #expect(stored.startReading())
        var shown: [Double] = [], hidden: [Double] = []
        while let sample = passthrough.copyNextSampleBuffer() {
            let pts = Self.seconds(CMSampleBufferGetPresentationTimeStamp(sample))
            let attachments = CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: false) as? [NSDictionary]
            if (attachments?.first?[kCMSampleAttachmentKey_DoNotDisplay] as? NSNumber)?.boolValue == true {
                hidden.append(pts)
            } else {
                shown.append(pts)
            }
        }
        #expect(stored.status == .completed)
        #expect(shown.count == 30 && zip(shown.sorted(), expected).allSatisfy { abs($0 - $1) < 0.001 }, "shown \(shown), hidden \(hidden)")
        #expect(hidden.count <= 1 && hidden.allSatisfy { abs($0 - 3) < 0.001 }, "\(hidden)")
    }

    @Test("edit lists are written version 0 when they fit 32 bits, version 1 otherwise, and read back")
    func versionsRoundTrip() throws {
        let small = [EditListEntry.empty(duration: 500), EditListEntry(segmentDuration: 1000, mediaTime: 6144),
                     EditListEntry(segmentDuration: 250, mediaTime: 0, mediaRateInteger: 0, mediaRateFraction: Int16(bitPattern: 0x8000))]
        let large = small + [EditListEntry(segmentDuration: 1 << 33, mediaTime: 1 << 34, mediaRateInteger: 2)]
        for (entries, version, size) in [(small, UInt8(0), 16 + 3 * 12), (large, UInt8(1), 16 + 4 * 20)] {
            let bytes = EditListBox.elst(entries)
            #expect(bytes.count == size)
            let reader = ISOBoxReader(bytes: bytes)
            let elst = try #require(reader.children(from: 0, to: bytes.count).first)
            #expect(FourCC.string(elst.type) == "elst" && reader.fullBox(elst)?.version == version)
            #expect(EditListBox.entries(reader, elst) == entries)
        }
    }

    @Test("a rewrite that names no track of the movie, or gives no entries, is refused and changes nothing")
    func refusals() throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let url = try AssetFixtures.generate("refused.mp4", Self.video)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = try Data(contentsOf: url)
        #expect(throws: BoxError.self) { try EditListBox.rewrite(url, editLists: [7: [EditListEntry(segmentDuration: 1000, mediaTime: 0)]]) }
        #expect(throws: BoxError.self) { try EditListBox.rewrite(url, editLists: [1: []]) }
        #expect(try Data(contentsOf: url) == before)
    }

    /// Writes bytes to a new temporary file.
    static func copy(_ data: Data) throws -> URL {
        let url = try AssetFixtures.tempDirectory().appendingPathComponent("copy.mp4")
        try data.write(to: url)
        return url
    }
}
