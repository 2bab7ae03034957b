// Passthrough (nil output settings): compressed samples copied unchanged, judged packet by packet
// with ffmpeg's framemd5 of the source and of the copy.
import AVFoundation
import Foundation
import MediaEngine
import Testing

@Suite(.serialized) struct AssetWriterPassthroughTests {
    /// The packets of `stream` of `url` as sample buffers (timing, sync flags, format description
    /// from our asset's track), as an AVAssetReader track output without settings vends them.
    static func sampleBuffers(_ url: URL, mediaType: AVMediaType) async throws -> (CMFormatDescription, [CMSampleBuffer]) {
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: mediaType).first)
        let format = try #require(try await track.load(.formatDescriptions).first)
        let demuxer = try Demuxer(url: url)
        let index = try #require(demuxer.streams.firstIndex { $0.kind == (mediaType == .video ? .video : .audio) })
        demuxer.selectStreams([index])
        var buffers: [CMSampleBuffer] = []
        while let packet = try demuxer.readPacket() {
            guard packet.streamIndex == index else { continue }
            var block: CMBlockBuffer?
            CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: packet.size, blockAllocator: nil,
                                               customBlockSource: nil, offsetToData: 0, dataLength: packet.size,
                                               flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
            packet.withUnsafeBytes { bytes in
                _ = CMBlockBufferReplaceDataBytes(with: bytes.baseAddress!, blockBuffer: block!, offsetIntoDestination: 0,
                                                  dataLength: bytes.count)
            }
            var timing = CMSampleTimingInfo(duration: packet.duration, presentationTimeStamp: packet.presentationTime,
                                            decodeTimeStamp: packet.decodeTime)
            var size = packet.size
            var sample: CMSampleBuffer?
            CMSampleBufferCreateReady(allocator: nil, dataBuffer: block, formatDescription: format, sampleCount: 1,
                                      sampleTimingEntryCount: 1, sampleTimingArray: &timing, sampleSizeEntryCount: 1,
                                      sampleSizeArray: &size, sampleBufferOut: &sample)
            let buffer = try #require(sample)
            if !packet.isKeyframe { buffer.sampleAttachments[0][.notSync] = true }
            buffers.append(buffer)
        }
        return (format, buffers)
    }

    /// ffmpeg's per-packet checksums (timestamps, sizes, hashes) of stream `map` copied as is.
    static func framemd5(_ url: URL, _ map: String) throws -> [String] {
        try AssetFixtures.run("ffmpeg", ["-v", "error", "-i", url.path, "-map", map, "-c", "copy", "-f", "framemd5", "-"])
            .output.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") || $0.hasPrefix("#tb") }
    }

    static func write(_ buffers: [CMSampleBuffer], mediaType: AVMediaType, to url: URL, fileType: AVFileType,
                      hint: CMFormatDescription?) async throws -> AVAssetWriter {
        let writer = try AVAssetWriter(outputURL: url, fileType: fileType)
        let input = AVAssetWriterInput(mediaType: mediaType, outputSettings: nil, sourceFormatHint: hint)
        #expect(writer.canAdd(input))
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for buffer in buffers {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 500_000) }
            #expect(input.append(buffer))
        }
        input.markAsFinished()
        await writer.finishWriting()
        return writer
    }

    @Test(arguments: [(AVFileType.mp4, "copy.mp4", true), (.mov, "copy.mov", false)])
    func bigBuckBunnyVideoIsCopiedPacketForPacket(_ type: AVFileType, _ name: String, _ withHint: Bool) async throws {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let (format, buffers) = try await Self.sampleBuffers(source, mediaType: .video)
        let url = try WriterFixtures.outputURL(name)
        let writer = try await Self.write(buffers, mediaType: .video, to: url, fileType: type, hint: withHint ? format : nil)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let original = try Self.framemd5(source, "0:v")
        #expect(original.count > 100)
        #expect(try Self.framemd5(url, "0:v") == original)
        let stream = try WriterFixtures.stream(url)
        #expect(stream["codec_tag_string"] == "avc1")
        #expect(stream["width"] == "1280")
    }

    @Test func bigBuckBunnyAACIsCopiedPacketForPacket() async throws {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let (format, buffers) = try await Self.sampleBuffers(source, mediaType: .audio)
        let url = try WriterFixtures.outputURL("copy.m4a")
        let writer = try await Self.write(buffers, mediaType: .audio, to: url, fileType: .m4a, hint: format)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let original = try Self.framemd5(source, "0:a")
        #expect(original.count > 200)
        #expect(try Self.framemd5(url, "0:a") == original)
        let stream = try WriterFixtures.stream(url, "a")
        #expect(stream["codec_name"] == "aac")
        #expect(stream["sample_rate"] == "48000")
    }

    /// A track that ends inside an AAC packet (44100 frames: the last packet shows 68 of its
    /// 1024): AVAssetReader marks the rest as trimmed at the end, and the writer's copy of the
    /// last packet again lasts 68 frames, so the copy is exactly as long as the source.
    @Test func anAACTrackEndingInsideAPacketKeepsItsLength() async throws {
        let source = try WriterFixtures.outputURL("second.m4a")
        let made = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=1:r=44100", "-c:a", "aac", source.path])
        try #require(made.status == 0, "\(made.output)")
        let asset = AVURLAsset(url: source)
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        let format = try #require(try await track.load(.formatDescriptions).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
        reader.add(output)
        #expect(reader.startReading())
        var buffers: [CMSampleBuffer] = []
        while let buffer = output.copyNextSampleBuffer() { buffers.append(buffer) }
        let last = try #require(buffers.last)
        let trim = CMTimeMakeFromDictionary(CMGetAttachment(last, key: kCMSampleBufferAttachmentKey_TrimDurationAtEnd,
                                                            attachmentModeOut: nil) as? CFDictionary)
        #expect(trim == CMTime(value: 956, timescale: 44100), "\(trim)")
        let url = try WriterFixtures.outputURL("second-copy.m4a")
        let writer = try await Self.write(buffers, mediaType: .audio, to: url, fileType: .m4a, hint: format)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try Self.framemd5(url, "0:a") == (try Self.framemd5(source, "0:a")))
        #expect(try WriterFixtures.stream(url, "a")["duration_ts"] == "44100")
    }

    @Test func passthroughToMPEG4NeedsAFormatHintAsOnApple() throws {
        let writer = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("nohint.mp4"), fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: nil)
        #expect(!writer.canAdd(input))
        let mov = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("nohint.mov"), fileType: .mov)
        #expect(mov.canAdd(input))
    }

    @Test func formatsTheContainerCannotHoldAreRefused() async throws {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let track = try #require(try await AVURLAsset(url: source).loadTracks(withMediaType: .video).first)
        let h264 = try #require(try await track.load(.formatDescriptions).first)
        let wav = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("x.wav"), fileType: .wav)
        #expect(!wav.canAdd(AVAssetWriterInput(mediaType: .video, outputSettings: nil, sourceFormatHint: h264)))
        var prores: CMFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_AppleProRes422, width: 64, height: 64,
                                       extensions: nil, formatDescriptionOut: &prores)
        let mp4 = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("x.mp4"), fileType: .mp4)
        #expect(!mp4.canAdd(AVAssetWriterInput(mediaType: .video, outputSettings: nil, sourceFormatHint: prores)))
        let mov = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("x.mov"), fileType: .mov)
        #expect(mov.canAdd(AVAssetWriterInput(mediaType: .video, outputSettings: nil, sourceFormatHint: prores)))
    }
}

extension AssetWriterPassthroughTests {
    @Test func samplesMayDifferFromTheHintOnlyInDescriptiveExtensions() async throws {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let (format, buffers) = try await Self.sampleBuffers(source, mediaType: .video)
        // A hint with one more extension (a name): same stream.
        var extensions = CMFormatDescriptionGetExtensions(format) as? [String: Any] ?? [:]
        extensions[(kCMFormatDescriptionExtension_FormatName as String)] = "Renamed"
        var hint: CMFormatDescription?
        let d = CMVideoFormatDescriptionGetDimensions(format)
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: CMFormatDescriptionGetMediaSubType(format), width: d.width,
                                       height: d.height, extensions: extensions as NSDictionary, formatDescriptionOut: &hint)
        let url = try WriterFixtures.outputURL("renamed.mp4")
        let writer = try await Self.write(Array(buffers.prefix(30)), mediaType: .video, to: url, fileType: .mp4, hint: hint)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        #expect(try WriterFixtures.stream(url)["nb_frames"] == "30")
    }

    @Test func aFormatChangeMidStreamFailsTheWriter() async throws {
        guard let source = AssetFixtures.fixture("bigbuckbunny.mp4") else { return }
        let (format, buffers) = try await Self.sampleBuffers(source, mediaType: .video)
        var other: CMFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 64, height: 64,
                                       extensions: CMFormatDescriptionGetExtensions(format), formatDescriptionOut: &other)
        var timing = try buffers[5].sampleTimingInfo(at: 0)
        var size = buffers[5].totalSampleSize
        var rebuilt: CMSampleBuffer?
        CMSampleBufferCreateReady(allocator: nil, dataBuffer: buffers[5].dataBuffer, formatDescription: other, sampleCount: 1,
                                  sampleTimingEntryCount: 1, sampleTimingArray: &timing, sampleSizeEntryCount: 1,
                                  sampleSizeArray: &size, sampleBufferOut: &rebuilt)
        let url = try WriterFixtures.outputURL("changed.mov")
        let writer = try await Self.write(Array(buffers.prefix(5)) + [rebuilt!], mediaType: .video, to: url, fileType: .mov, hint: nil)
        #expect(writer.status == .failed)
        #expect((writer.error as? AVError)?.code == .unsupportedOutputSettings)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }
}
