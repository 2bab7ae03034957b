// Containers as the asset writer lays them out: fast start, movie fragments (and files cut while
// they were written), file metadata, file types.
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct AssetWriterContainerTests {
    static var h264: [String: Any] {
        [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 160, AVVideoHeightKey: 120,
         AVVideoCompressionPropertiesKey: [AVVideoMaxKeyFrameIntervalKey: 15]]
    }

    /// The top-level ISO-BMFF boxes of a file, in order.
    static func topLevelBoxes(_ url: URL) throws -> [(type: String, offset: Int, size: Int)] {
        let data = try Data(contentsOf: url)
        var boxes: [(String, Int, Int)] = []
        var offset = 0
        while offset + 8 <= data.count {
            var size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= data.count { size = data[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) } }
            if size == 0 { size = data.count - offset }
            guard size >= 8 else { break }
            boxes.append((type, offset, size))
            offset += size
        }
        return boxes
    }

    @Test func fastStartPutsTheMovieHeaderFirst() async throws {
        let url = try WriterFixtures.outputURL("faststart.mp4")
        try await WriterFixtures.writeFrames(to: url, settings: Self.h264, count: 10, width: 160, height: 120) { writer, _ in
            writer.shouldOptimizeForNetworkUse = true
        }
        let types = try Self.topLevelBoxes(url).map(\.type)
        let moov = try #require(types.firstIndex(of: "moov")), mdat = try #require(types.firstIndex(of: "mdat"))
        #expect(moov < mdat)
        #expect(try WriterFixtures.stream(url)["nb_frames"] == "10")
    }

    @Test func withoutFastStartTheMediaDataComesFirst() async throws {
        let url = try WriterFixtures.outputURL("plain.mp4")
        try await WriterFixtures.writeFrames(to: url, settings: Self.h264, count: 10, width: 160, height: 120)
        let types = try Self.topLevelBoxes(url).map(\.type)
        let moov = try #require(types.firstIndex(of: "moov")), mdat = try #require(types.firstIndex(of: "mdat"))
        #expect(mdat < moov)
    }

    @Test func fragmentedMovieCutAnywhereStaysReadableToItsLastCompleteFragment() async throws {
        let url = try WriterFixtures.outputURL("fragments.mov")
        try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: Self.h264, count: 90, width: 160, height: 120) { writer, _ in
            writer.movieFragmentInterval = CMTime(value: 1, timescale: 2)
        }
        let boxes = try Self.topLevelBoxes(url)
        let fragments = boxes.filter { $0.type == "moof" }
        #expect(fragments.count >= 5, "\(boxes.map(\.type))")
        #expect(boxes.first { $0.type == "moov" }!.offset < boxes.first { $0.type == "moof" }!.offset)
        #expect(try WriterFixtures.framePresentationTimes(url).count == 90)

        // Samples per fragment, from each moof's track run; a fragment is its moof and the mdat after it.
        let data = try Data(contentsOf: url)
        let samplesPerFragment = fragments.map { moof -> Int in
            let box = data[moof.offset..<moof.offset + moof.size]
            guard let trun = box.range(of: Data("trun".utf8)) else { return 0 }
            return data[trun.upperBound + 4..<trun.upperBound + 8].reduce(0) { $0 << 8 | Int($1) }
        }
        #expect(samplesPerFragment.reduce(0, +) == 90)
        let mdats = boxes.filter { $0.type == "mdat" }
        // Cut points spread over the whole file (deterministic), plus the awkward places.
        let first = fragments[0].offset
        var cuts = (1...9).map { first + (data.count - first) * $0 / 10 + $0 * 7 }
        cuts.append(fragments[2].offset)                          // exactly at a fragment boundary
        cuts.append(fragments[2].offset + 20)                     // inside a fragment's header boxes
        cuts.append(fragments[3].offset + fragments[3].size - 8)  // inside a track run
        cuts.append(mdats[3].offset + 100)                        // inside a fragment's media data
        cuts.append(data.count - 1)                               // one byte short
        for cut in cuts {
            // FFmpeg 5.1's QuickTime demuxer (ffprobe's and ours) reads every fragment header when
            // it opens a file and gives up on one cut inside its track run: such a file is read
            // from its last complete box, as a recovery tool cuts it.
            let insideFragmentHeader = fragments.contains { $0.offset < cut && cut < $0.offset + $0.size }
            let readable = insideFragmentHeader ? boxes.filter { $0.offset + $0.size <= cut }.last.map { $0.offset + $0.size } ?? cut : cut
            let truncated = try WriterFixtures.outputURL("cut-\(cut).mov")
            try data.prefix(readable).write(to: truncated)
            let completeFragments = mdats.filter { $0.offset + $0.size <= cut }.count
            let complete = samplesPerFragment.prefix(completeFragments).reduce(0, +)
            // ffprobe reads every frame of the complete fragments (frames of a cut one may or may not decode).
            let frames = try WriterFixtures.framePresentationTimes(truncated)
            #expect(frames.count >= complete, "cut at \(cut): \(frames.count) frames, \(completeFragments) complete fragments")
            for (i, t) in frames.prefix(complete).enumerated() { #expect(abs(t - Double(i) / 30) < 1e-6, "cut at \(cut)") }
            // Our own reader needs no recovery cut: the file as it was cut off reads cleanly, every
            // frame of the complete fragments and nothing of the cut one, and the reader completes.
            let asCut = try WriterFixtures.outputURL("as-cut-\(cut).mov")
            try data.prefix(cut).write(to: asCut)
            let times = try await Self.readStoredPresentationTimes(asCut)
            #expect(times.count == complete, "cut at \(cut): read \(times.count) samples, \(complete) in complete fragments")
            for (i, t) in times.enumerated() { #expect(abs(t - Double(i) / 30) < 1e-6, "cut at \(cut)") }
            // So does our asset: it opens and has its video track, as long as the complete fragments.
            let asset = AVURLAsset(url: truncated)
            let tracks = try await asset.loadTracks(withMediaType: .video)
            #expect(tracks.count == 1, "cut at \(cut)")
            if let track = tracks.first, complete > 0 {
                let range = try await track.load(.timeRange)
                #expect(range.duration.seconds >= Double(complete) / 30 - 1e-3, "cut at \(cut): \(range.duration.seconds) s")
            }
        }
    }

    /// The presentation times of every stored sample of the file's video track (30 frames a
    /// second), read through AVAssetReader in decode order and sorted; the reader must complete.
    static func readStoredPresentationTimes(_ url: URL) async throws -> [Double] {
        let asset = AVURLAsset(url: url)
        guard let track = try await asset.loadTracks(withMediaType: .video).first else { return [] }
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        reader.add(output)
        #expect(reader.startReading())
        var times: [Double] = []
        while let sample = output.copyNextSampleBuffer() {
            guard CMSampleBufferGetNumSamples(sample) > 0 else { continue }
            times.append(CMSampleBufferGetPresentationTimeStamp(sample).seconds)
            // Each sample lasts until the next one's decode time, the last one as long as the
            // others (FFmpeg 5.1 alone reports one tick for these movie-fragment samples).
            #expect(abs(CMSampleBufferGetDuration(sample).seconds - 1.0 / 30) < 1e-6,
                    "\(url.lastPathComponent): duration \(CMSampleBufferGetDuration(sample).seconds)")
        }
        #expect(reader.status == .completed, "\(url.lastPathComponent): \(String(describing: reader.error))")
        return times.sorted()
    }

    @Test func aCutInsideAFragmentHeaderDefeatsFFmpegsDemuxer() async throws {
        // The limit the test above works around, pinned down: if FFmpeg learns to skip a cut
        // fragment header, this fails and the workaround can go.
        let url = try WriterFixtures.outputURL("header-cut.mov")
        try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: Self.h264, count: 45, width: 160, height: 120) { writer, _ in
            writer.movieFragmentInterval = CMTime(value: 1, timescale: 2)
        }
        let boxes = try Self.topLevelBoxes(url)
        let second = try #require(boxes.filter { $0.type == "moof" }.dropFirst().first)
        let cut = try WriterFixtures.outputURL("header-cut-short.mov")
        try Data(contentsOf: url).prefix(second.offset + second.size - 8).write(to: cut)
        #expect(try AssetFixtures.run("ffprobe", ["-v", "error", cut.path]).status != 0)
    }

    @Test func fileMetadataIsWrittenAsContainerTags() async throws {
        let url = try WriterFixtures.outputURL("tags.mov")
        try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: Self.h264, count: 3, width: 160, height: 120) { writer, _ in
            let title = AVMutableMetadataItem()
            title.identifier = .commonIdentifierTitle
            title.value = "A Writer's Title" as NSString
            let artist = AVMutableMetadataItem()
            artist.identifier = .commonIdentifierArtist
            artist.value = "Somebody" as NSString
            writer.metadata = [title, artist]
        }
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", url.path]).output
        #expect(out.contains("TAG:title=A Writer's Title"))
        #expect(out.contains("TAG:artist=Somebody"))
        let items = try await AVURLAsset(url: url).load(.commonMetadata)
        #expect(items.contains { $0.commonKey == .commonKeyTitle && $0.stringValue == "A Writer's Title" })
    }

    @Test func m4vAnd3GPFilesAreWritten() async throws {
        for (type, name, brand) in [(AVFileType.m4v, "a.m4v", "M4V"), (.mobile3GPP, "a.3gp", "3gp")] {
            let url = try WriterFixtures.outputURL(name)
            let writer = try await WriterFixtures.writeFrames(to: url, fileType: type, settings: Self.h264, count: 3, width: 160, height: 120)
            #expect(writer.status == .completed)
            let data = try Data(contentsOf: url)
            #expect(String(decoding: data[8..<11], as: UTF8.self) == brand)
        }
    }

    @Test func availableMediaTypesFollowTheFileType() throws {
        let dir = try AssetFixtures.tempDirectory()
        #expect(Set(try AVAssetWriter(outputURL: dir.appendingPathComponent("a.mov"), fileType: .mov).availableMediaTypes) == [.video, .audio])
        #expect(try AVAssetWriter(outputURL: dir.appendingPathComponent("a.wav"), fileType: .wav).availableMediaTypes == [.audio])
        #expect(try AVAssetWriter(outputURL: dir.appendingPathComponent("a.m4a"), fileType: .m4a).availableMediaTypes == [.audio])
    }

    @Test func fileTypesItCannotWriteAreRefused() throws {
        let dir = try AssetFixtures.tempDirectory()
        #expect(throws: AVError.self) { try AVAssetWriter(outputURL: dir.appendingPathComponent("a.jpg"), fileType: .jpg) }
        #expect(throws: AVError.self) { try AVAssetWriter(outputURL: dir.appendingPathComponent("x"), fileType: AVFileType("com.example.none")) }
    }
}
