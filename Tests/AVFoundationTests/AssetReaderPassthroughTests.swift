// AVAssetReaderTrackOutput with nil output settings: the samples as stored, judged by FFmpeg's
// own stream copy (`ffmpeg -map 0:v -c copy -f data`, the packets' bytes end to end) and by
// ffprobe's packet list (times, durations, sizes, keyframes).
import AVFoundation
import Foundation
import Testing

@Suite("AVAssetReader passthrough")
struct AssetReaderPassthroughTests {
    /// ffprobe's packets of one stream: pts, dts, duration, size, keyframe.
    static func packets(_ url: URL, _ selector: String) throws -> [(pts: Int64, dts: Int64, duration: Int64, size: Int, key: Bool)] {
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", selector, "-show_entries",
                                                    "packet=pts,dts,duration,size,flags", "-of", "csv=p=0", url.path]).output
        return out.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count >= 5, let pts = Int64(f[0]), let dts = Int64(f[1]), let d = Int64(f[2]), let size = Int(f[3]) else { return nil }
            return (pts, dts, d, size, f[4].hasPrefix("K"))
        }
    }

    /// The stream's packets end to end, as ffmpeg's stream copy writes them.
    static func copiedBytes(_ url: URL, _ map: String) throws -> Data {
        let out = try AssetFixtures.tempDirectory().appendingPathComponent("copy.bin")
        _ = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-i", url.path, "-map", map, "-c", "copy", "-f", "data", out.path])
        return try Data(contentsOf: out)
    }

    static func bytes(of buffer: CMSampleBuffer) -> Data {
        guard let block = buffer.dataBuffer else { return Data() }
        var data = Data(count: CMBlockBufferGetDataLength(block))
        data.withUnsafeMutableBytes { _ = CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
        return data
    }

    static func read(_ url: URL, _ type: AVMediaType, copies: Bool = true,
                     range: CMTimeRange? = nil) async throws -> (AVAssetTrack, [CMSampleBuffer], AVAssetReader) {
        let (asset, track) = try await ReaderFixtures.track(url, type)
        let reader = try AVAssetReader(asset: asset)
        if let range { reader.timeRange = range }
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        output.alwaysCopiesSampleData = copies
        reader.add(output)
        #expect(reader.startReading())
        let buffers = ReaderFixtures.readAll(output)
        #expect(reader.status == .completed)
        return (track, buffers, reader)
    }

    @Test("video samples are FFmpeg's packets byte for byte, with its times and sync flags (copied or not)")
    func videoPackets() async throws {
        guard let url = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let probed = try Self.packets(url, "v")
        let copied = try Self.copiedBytes(url, "0:v")
        for copies in [true, false] {
            let (track, buffers, _) = try await Self.read(url, .video, copies: copies)
            #expect(buffers.count == probed.count)
            #expect(buffers.reduce(Data()) { $0 + Self.bytes(of: $1) } == copied)
            for (buffer, packet) in zip(buffers, probed) {
                #expect(buffer.numSamples == 1)
                #expect(buffer.totalSampleSize == packet.size)
                #expect(buffer.presentationTimeStamp == CMTime(value: packet.pts, timescale: 12800))
                #expect(buffer.decodeTimeStamp == CMTime(value: packet.dts, timescale: 12800))
                #expect(buffer.duration == CMTime(value: packet.duration, timescale: 12800))
                #expect(buffer.imageBuffer == nil)
                #expect(buffer.formatDescription === track.formatDescriptions.first as? CMFormatDescription)
                let attachments = try #require(CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: false) as? [NSDictionary])
                let notSync = (attachments[0][kCMSampleAttachmentKey_NotSync] as? NSNumber)?.boolValue ?? false
                #expect(notSync == !packet.key)
                #expect((attachments[0][kCMSampleAttachmentKey_DependsOnOthers] as? NSNumber)?.boolValue == !packet.key)
            }
        }
    }

    @Test("audio samples carry packet descriptions and the packets' bytes")
    func audioPackets() async throws {
        guard let url = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let probed = try Self.packets(url, "a")
        let copied = try Self.copiedBytes(url, "0:a")
        let (_, buffers, _) = try await Self.read(url, .audio)
        #expect(buffers.count == probed.count)
        #expect(buffers.reduce(Data()) { $0 + Self.bytes(of: $1) } == copied)
        for (buffer, packet) in zip(buffers, probed) {
            #expect(buffer.presentationTimeStamp == CMTime(value: packet.pts, timescale: 48000))
            #expect(buffer.duration == CMTime(value: 1024, timescale: 48000))
            var count = 0
            #expect(CMSampleBufferGetAudioStreamPacketDescriptions(buffer, entryCount: 0, arrayToFill: nil,
                                                                   entriesNeededOut: &count) == noErr)
            #expect(count == MemoryLayout<AudioStreamPacketDescription>.stride)
            var description = AudioStreamPacketDescription()
            #expect(CMSampleBufferGetAudioStreamPacketDescriptions(buffer, entryCount: count, arrayToFill: &description,
                                                                   entriesNeededOut: nil) == noErr)
            #expect(Int(description.mDataByteSize) == packet.size)
            #expect(description.mStartOffset == 0)
        }
    }

    @Test("B-frames: decode order, DTS before PTS, and the non-reference B-frames marked droppable")
    func bFrames() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = ReaderFixtures.numbered
        let probed = try Self.packets(url, "v")
        let (_, buffers, _) = try await Self.read(url, .video)
        #expect(buffers.count == ReaderFixtures.frameCount)
        #expect(buffers.map { $0.presentationTimeStamp.value } == probed.map(\.pts))
        #expect(buffers.map { $0.decodeTimeStamp.value } == probed.map(\.dts))
        #expect(buffers.map(\.presentationTimeStamp) != buffers.map(\.presentationTimeStamp).sorted())
        #expect(try Self.bytes(of: buffers[0]) + Self.bytes(of: buffers[1]) == Self.copiedBytes(url, "0:v").prefix(probed[0].size + probed[1].size))
        // x264 without a B-pyramid: every B-frame is a non-reference picture, every other one a reference.
        var droppable = 0
        for buffer in buffers {
            let attachments = try #require(CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: false) as? [NSDictionary])
            let dependedOn = try #require(attachments[0][kCMSampleAttachmentKey_IsDependedOnByOthers] as? NSNumber)
            if !dependedOn.boolValue { droppable += 1 }
        }
        // 60 frames in GOPs of 24 with three B-frames between references.
        #expect(droppable >= 30 && droppable <= 45)
    }

    @Test("a time range starts at the keyframe before it and ends with the last sample it needs")
    func range() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = ReaderFixtures.numbered
        let probed = try Self.packets(url, "v")
        let range = CMTimeRange(start: ReaderFixtures.time(30), duration: ReaderFixtures.time(5))
        let (_, buffers, _) = try await Self.read(url, .video, range: range)
        // Decode order from the keyframe of frame 24 to the last packet presenting before frame 35.
        let first = try #require(probed.firstIndex { $0.pts == 24 * 512 })
        #expect(probed[first].key)
        let last = try #require(probed.lastIndex { $0.pts < 35 * 512 })
        #expect(buffers.map { $0.presentationTimeStamp.value } == probed[first...last].map(\.pts))
        // Every frame of the range is there.
        let shown = Set(buffers.map { Int($0.presentationTimeStamp.value / 512) })
        #expect(shown.isSuperset(of: 30 ..< 35))
    }

    @Test("AAC in MP4: the priming packet before time zero is trimmed; other tracks' samples too")
    func audioPriming() async throws {
        guard AssetFixtures.hasFFmpeg else { return }
        let url = try AssetFixtures.generate("primed.m4a", ["-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac"])
        let (_, buffers, _) = try await Self.read(url, .audio)
        let probed = try Self.packets(url, "a")
        #expect(buffers.count == probed.count)
        let first = try #require(buffers.first)
        #expect(first.presentationTimeStamp == CMTime(value: -1024, timescale: 44100))
        let trim = CMGetAttachment(first, key: kCMSampleBufferAttachmentKey_TrimDurationAtStart, attachmentModeOut: nil) as? NSDictionary
        #expect(trim.map { CMTimeMakeFromDictionary($0) } == CMTime(value: 1024, timescale: 44100))
        #expect(first.outputPresentationTimeStamp == .zero)
        #expect(CMGetAttachment(buffers[1], key: kCMSampleBufferAttachmentKey_TrimDurationAtStart, attachmentModeOut: nil) == nil)
    }

    @Test("linear PCM (WAV): each buffer holds the packet's frames, every frame of the file once")
    func linearPCM() async throws {
        guard let url = AssetFixtures.fixture("house_lo.wav") else { return }
        let (_, buffers, _) = try await Self.read(url, .audio)
        let copied = try Self.copiedBytes(url, "0:a")
        #expect(buffers.reduce(Data()) { $0 + Self.bytes(of: $1) } == copied)
        #expect(buffers.reduce(0) { $0 + $1.numSamples } == 78331)   // 8-bit mono: one byte per frame
        var next = CMTime.zero
        for buffer in buffers {
            #expect(buffer.presentationTimeStamp == next)
            #expect(buffer.duration == CMTime(value: Int64(buffer.numSamples), timescale: 11025))
            next = buffer.presentationTimeStamp + buffer.duration
        }
    }
}
