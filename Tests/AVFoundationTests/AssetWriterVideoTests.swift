// AVAssetWriter video encoding, judged by ffprobe: codecs and their sample entries, sizes,
// frame counts, timestamps, and the compression properties Apple code sets.
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct AssetWriterVideoTests {
    static var h264: [String: Any] { [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 320, AVVideoHeightKey: 240] }

    @Test func numberedFramesThroughAPixelBufferAdaptorBecomeH264MP4() async throws {
        let url = try WriterFixtures.outputURL("frames.mp4")
        let writer = try await WriterFixtures.writeFrames(to: url, settings: Self.h264, count: 45, width: 320, height: 240)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let stream = try WriterFixtures.stream(url)
        #expect(stream["codec_name"] == "h264")
        #expect(stream["codec_tag_string"] == "avc1")
        #expect(stream["width"] == "320")
        #expect(stream["height"] == "240")
        #expect(stream["nb_frames"] == "45")
        // Timestamps are the ones appended: frame i at i/30 s.
        let times = try WriterFixtures.framePresentationTimes(url)
        #expect(times.count == 45)
        for (i, t) in times.enumerated() { #expect(abs(t - Double(i) / 30) < 1e-6, "frame \(i) at \(t)") }
        // Our own reader agrees.
        let asset = AVURLAsset(url: url)
        let tracks = try await asset.load(.tracks)
        #expect(tracks.count == 1)
        let duration = try await asset.load(.duration)
        #expect(abs(duration.seconds - 1.5) < 0.001)
    }
}

extension AssetWriterVideoTests {
    /// Writes `count` 160×120 frames with `settings` and returns ffprobe's stream fields.
    private func write(_ settings: [String: Any], fileType: AVFileType = .mov, name: String, count: Int = 8,
                       format: OSType = kCVPixelFormatType_32BGRA, width: Int = 160, height: Int = 120,
                       configure: (AVAssetWriter, AVAssetWriterInput) -> Void = { _, _ in }) async throws
        -> (url: URL, stream: [String: String]) {
        let url = try WriterFixtures.outputURL(name)
        let writer = try await WriterFixtures.writeFrames(to: url, fileType: fileType, settings: settings, count: count,
                                                          width: width, height: height, format: format, configure: configure)
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        return (url, try WriterFixtures.stream(url))
    }

    private func settings(_ codec: AVVideoCodecType, _ width: Int = 160, _ height: Int = 120,
                          _ compression: [String: Any]? = nil) -> [String: Any] {
        var s: [String: Any] = [AVVideoCodecKey: codec, AVVideoWidthKey: width, AVVideoHeightKey: height]
        if let compression { s[AVVideoCompressionPropertiesKey] = compression }
        return s
    }

    @Test func hevcIsWrittenWithTheHvc1SampleEntry() async throws {
        let (_, stream) = try await write(settings(.hevc), name: "hevc.mov")
        #expect(stream["codec_name"] == "hevc")
        #expect(stream["codec_tag_string"] == "hvc1")
        #expect(stream["nb_frames"] == "8")
    }

    @Test(arguments: [(AVVideoCodecType.proRes422, "apcn"), (.proRes422HQ, "apch"), (.proRes422LT, "apcs"),
                      (.proRes422Proxy, "apco"), (.proRes4444, "ap4h")])
    func proResProfilesHaveTheirSampleEntries(_ codec: AVVideoCodecType, _ tag: String) async throws {
        let (_, stream) = try await write(settings(codec), name: "prores-\(tag).mov", count: 3)
        #expect(stream["codec_name"] == "prores")
        #expect(stream["codec_tag_string"] == tag)
        #expect(stream["width"] == "160")
    }

    @Test func jpegIsWrittenAsPhotoJPEG() async throws {
        let (_, stream) = try await write(settings(.jpeg, 160, 120, [AVVideoQualityKey: 0.9]), name: "jpeg.mov", count: 4)
        #expect(stream["codec_name"] == "mjpeg")
        #expect(stream["codec_tag_string"] == "jpeg")
        #expect(stream["nb_frames"] == "4")
    }

    @Test func deprecatedCodecStringsAndPlainNumbersAreAccepted() async throws {
        let s: [String: Any] = [AVVideoCodecKey: "avc1", AVVideoWidthKey: NSNumber(value: 160.0), AVVideoHeightKey: 120.0,
                                AVVideoCompressionPropertiesKey: NSDictionary(dictionary: [AVVideoAverageBitRateKey: NSNumber(value: 300_000)])]
        let (_, stream) = try await write(s, fileType: .mp4, name: "strings.mp4")
        #expect(stream["codec_name"] == "h264")
        #expect(stream["width"] == "160")
    }

    @Test func framesWithoutReorderingHaveNoBFrames() async throws {
        let (url, stream) = try await write(settings(.h264, 160, 120, [AVVideoAllowFrameReorderingKey: false]),
                                            fileType: .mp4, name: "noreorder.mp4", count: 20)
        #expect(stream["has_b_frames"] == "0")
        let packets = try WriterFixtures.packets(url)
        #expect(packets.count == 20)
        #expect(packets.allSatisfy { $0.pts == $0.dts })
    }

    @Test func reorderingIsAllowedByDefault() async throws {
        let (url, _) = try await write(settings(.h264), fileType: .mp4, name: "reorder.mp4", count: 20)
        let packets = try WriterFixtures.packets(url)
        #expect(packets.contains { $0.pts != $0.dts })
    }

    @Test func maxKeyFrameIntervalPlacesKeyframes() async throws {
        let (url, _) = try await write(settings(.h264, 160, 120, [AVVideoMaxKeyFrameIntervalKey: 5, AVVideoAllowFrameReorderingKey: false]),
                                       fileType: .mp4, name: "keyint.mp4", count: 20)
        let keys = try WriterFixtures.packets(url).enumerated().filter { $0.element.key }.map(\.offset)
        #expect(keys.first == 0)
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $1 - $0 <= 5 })
        #expect(keys.count >= 4)
    }

    @Test func everyFrameAKeyframeWithInterval1() async throws {
        let (url, _) = try await write(settings(.h264, 160, 120, [AVVideoMaxKeyFrameIntervalKey: 1]), fileType: .mp4,
                                       name: "intra.mp4", count: 6)
        let packets = try WriterFixtures.packets(url)
        #expect(packets.count == 6)
        #expect(packets.allSatisfy { $0.key })
    }

    @Test func profileAndLevelComeFromProfileLevelKey() async throws {
        let (_, stream) = try await write(settings(.h264, 160, 120, [AVVideoProfileLevelKey: AVVideoProfileLevelH264Baseline31]),
                                          fileType: .mp4, name: "baseline.mp4")
        #expect(stream["profile"]?.contains("Baseline") == true)
        #expect(stream["level"] == "31")
        let (_, main) = try await write(settings(.h264, 160, 120, [AVVideoProfileLevelKey: AVVideoProfileLevelH264MainAutoLevel]),
                                        fileType: .mp4, name: "main.mp4")
        #expect(main["profile"] == "Main")
    }

    @Test func qualityChangesTheSize() async throws {
        let (low, _) = try await write(settings(.h264, 160, 120, [AVVideoQualityKey: 0.1]), fileType: .mp4, name: "q1.mp4", count: 10)
        let (high, _) = try await write(settings(.h264, 160, 120, [AVVideoQualityKey: 0.95]), fileType: .mp4, name: "q9.mp4", count: 10)
        let lowSize = try FileManager.default.attributesOfItem(atPath: low.path)[.size] as? Int ?? 0
        let highSize = try FileManager.default.attributesOfItem(atPath: high.path)[.size] as? Int ?? 0
        #expect(highSize > lowSize)
    }

    @Test func averageBitRateIsHonoured() async throws {
        let (url, stream) = try await write(settings(.h264, 320, 240, [AVVideoAverageBitRateKey: 400_000]), fileType: .mp4,
                                            name: "bitrate.mp4", count: 60, width: 320, height: 240)
        #expect(stream["nb_frames"] == "60")
        let rate = Double(stream["bit_rate"] ?? "0") ?? 0
        #expect(rate > 100_000 && rate < 1_000_000, "bit rate \(rate) of \(url.lastPathComponent)")
    }

    @Test func nv12BuffersAreEncodedAndSized() async throws {
        let (url, stream) = try await write(settings(.h264), fileType: .mp4, name: "nv12.mp4", count: 10,
                                            format: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(stream["pix_fmt"] == "yuv420p")
        #expect(stream["nb_frames"] == "10")
        #expect(try WriterFixtures.framePresentationTimes(url).count == 10)
    }

    @Test func sourcesOfAnotherSizeAreScaled() async throws {
        let (_, stream) = try await write(settings(.h264, 160, 120), fileType: .mp4, name: "scaled.mp4", count: 4,
                                          width: 320, height: 180)
        #expect(stream["width"] == "160")
        #expect(stream["height"] == "120")
    }

    @Test func colorPropertiesAreTagged() async throws {
        var s = settings(.h264)
        s[AVVideoColorPropertiesKey] = [AVVideoColorPrimariesKey: AVVideoColorPrimaries_ITU_R_709_2,
                                        AVVideoTransferFunctionKey: AVVideoTransferFunction_ITU_R_709_2,
                                        AVVideoYCbCrMatrixKey: AVVideoYCbCrMatrix_ITU_R_709_2]
        let (_, stream) = try await write(s, fileType: .mp4, name: "color.mp4")
        #expect(stream["color_primaries"] == "bt709")
        #expect(stream["color_transfer"] == "bt709")
        #expect(stream["color_space"] == "bt709")
    }

    /// Live capture times (the host clock in nanoseconds) plus frame durations in 1/30 s overflow
    /// CMTime's timescales; a paused recording leaves seconds between two frames. The track
    /// keeps every frame's time to the 90 kHz tick and the long frame whole.
    @Test func hostClockTimesWithALongPauseKeepTheirSpacing() async throws {
        let url = try WriterFixtures.outputURL("hostclock.mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mov)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings(.h264))
        input.expectsMediaDataInRealTime = true
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: nil)
        writer.add(input)
        #expect(writer.startWriting())
        let base = CMTime(value: 123_456_789_012_345, timescale: 1_000_000_000)
        var times: [CMTime] = []
        for i in 0..<6 { times.append(CMTimeAdd(base, CMTime(value: Int64(i), timescale: 30))) }
        times.append(CMTimeAdd(times[5], CMTime(seconds: 6.5, preferredTimescale: 1_000_000_000)))
        times.append(CMTimeAdd(times[6], CMTime(value: 1, timescale: 30)))
        writer.startSession(atSourceTime: times[0])
        for (i, time) in times.enumerated() {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            let buffer = WriterFixtures.pixelBuffer(width: 160, height: 120, index: i, pool: adaptor.pixelBufferPool)
            #expect(adaptor.append(buffer, withPresentationTime: time))
        }
        input.markAsFinished()
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let stream = try WriterFixtures.stream(url)
        #expect(stream["time_base"] == "1/90000")
        let pts = try WriterFixtures.packets(url).map(\.pts).sorted()
        let expected = times.map { CMTimeConvertScale(CMTimeSubtract($0, times[0]), timescale: 90_000, method: .roundHalfAwayFromZero).value }
        #expect(pts.count == expected.count)
        for (got, want) in zip(pts, expected) { #expect(abs(got - want) <= 1, "\(pts) vs \(expected)") }
    }

    @Test func trackTransformLanguageAndTimescale() async throws {
        let url = try WriterFixtures.outputURL("track.mov")
        try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: settings(.h264), count: 4, width: 160, height: 120) { writer, input in
            input.transform = CGAffineTransform(rotationAngle: .pi / 2)
            input.languageCode = "fra"
            input.mediaTimeScale = 9000
            writer.movieTimeScale = 1000
        }
        let out = try AssetFixtures.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                   "stream=time_base:stream_tags=language:stream_side_data=rotation", "-of", "default=nw=1",
                                                   url.path]).output
        #expect(out.contains("time_base=1/9000"))
        #expect(out.contains("TAG:language=fra"))
        #expect(out.contains("rotation=-90") || out.contains("rotation=90"))
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let transform = try await track.load(.preferredTransform)
        #expect(abs(transform.b - 1) < 1e-4 && abs(transform.c + 1) < 1e-4)
        #expect(try await track.load(.naturalTimeScale) == 9000)
        #expect(try Self.movieTimescale(url) == 1000)
    }

    /// The mvhd timescale of a QuickTime file.
    static func movieTimescale(_ url: URL) throws -> UInt32 {
        let data = try Data(contentsOf: url)
        guard let range = data.range(of: Data("mvhd".utf8)) else { return 0 }
        let version = data[range.upperBound]
        let offset = range.upperBound + 4 + (version == 1 ? 16 : 8)
        return data[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    @Test func sampleBuffersWithTimingStartTheMovieAtTheSession() async throws {
        let url = try WriterFixtures.outputURL("samples.mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mov)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings(.h264, 160, 120, [AVVideoAllowFrameReorderingKey: false]))
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: CMTime(value: 6000, timescale: 600))
        for i in 0..<12 {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            let buffer = WriterFixtures.pixelBuffer(width: 160, height: 120, index: i)
            var format: CMVideoFormatDescription?
            CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: buffer, formatDescriptionOut: &format)
            var timing = CMSampleTimingInfo(duration: CMTime(value: 25, timescale: 600),
                                            presentationTimeStamp: CMTime(value: 6000 + Int64(i) * 25, timescale: 600),
                                            decodeTimeStamp: .invalid)
            var sample: CMSampleBuffer?
            CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: buffer, formatDescription: format!,
                                                     sampleTiming: &timing, sampleBufferOut: &sample)
            #expect(input.append(sample!))
        }
        input.markAsFinished()
        await writer.finishWriting()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let times = try WriterFixtures.framePresentationTimes(url)
        #expect(times.count == 12)
        for (i, t) in times.enumerated() { #expect(abs(t - Double(i) / 24) < 1e-6) }
        let duration = try await AVURLAsset(url: url).load(.duration)
        #expect(abs(duration.seconds - 0.5) < 1e-3)
    }
}

extension AssetWriterVideoTests {
    @Test func trackTitleAndNaturalSizeAreWritten() async throws {
        let url = try WriterFixtures.outputURL("natural.mov")
        try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: settings(.h264), count: 2, width: 160, height: 120) { _, input in
            let title = AVMutableMetadataItem()
            title.identifier = .commonIdentifierTitle
            title.value = "Camera 1" as NSString
            input.metadata = [title]
            input.naturalSize = CGSize(width: 320, height: 120)
        }
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        let size = try await track.load(.naturalSize)
        #expect(size == CGSize(width: 320, height: 120))
        let items = try await track.load(.commonMetadata)
        #expect(items.contains { $0.commonKey == .commonKeyTitle && $0.stringValue == "Camera 1" })
    }

    @Test func theAdaptorsPoolExistsOnceWritingStarts() throws {
        let writer = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("pool.mp4"), fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings(.h264, 320, 240))
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        #expect(adaptor.assetWriterInput === input)
        #expect(adaptor.sourcePixelBufferAttributes?[kCVPixelBufferPixelFormatTypeKey as String] != nil)
        writer.add(input)
        #expect(adaptor.pixelBufferPool == nil)
        #expect(writer.startWriting())
        let pool = try #require(adaptor.pixelBufferPool)
        var buffer: CVPixelBuffer?
        CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer)
        #expect(CVPixelBufferGetPixelFormatType(buffer!) == kCVPixelFormatType_32BGRA)
        #expect(CVPixelBufferGetWidth(buffer!) == 320)
        #expect(CVPixelBufferGetHeight(buffer!) == 240)
        // Without attributes: the encoded size in '420v', which libx264 reads without a copy.
        let other = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("pool2.mp4"), fileType: .mp4)
        let input2 = AVAssetWriterInput(mediaType: .video, outputSettings: settings(.h264, 64, 48))
        let adaptor2 = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input2)
        other.add(input2)
        #expect(other.startWriting())
        var buffer2: CVPixelBuffer?
        CVPixelBufferPoolCreatePixelBuffer(nil, try #require(adaptor2.pixelBufferPool), &buffer2)
        #expect(CVPixelBufferGetPixelFormatType(buffer2!) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(CVPixelBufferGetWidth(buffer2!) == 64)
        writer.cancelWriting()
        other.cancelWriting()
    }

    @Test func framesBeforeTheSessionStartAreEditedOut() async throws {
        let url = try WriterFixtures.outputURL("presession.mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mov)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings(.h264))
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: CMTime(value: 10, timescale: 30))
        for i in 0..<30 {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            #expect(adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: i), withPresentationTime: CMTime(value: Int64(i), timescale: 30)))
        }
        await writer.finishWriting()
        #expect(writer.status == .completed)
        let times = try WriterFixtures.framePresentationTimes(url)
        #expect(times.count == 20)
        for (i, t) in times.enumerated() { #expect(abs(t - Double(i) / 30) < 1e-6) }
        let duration = try await AVURLAsset(url: url).load(.duration)
        #expect(abs(duration.seconds - 20.0 / 30) < 1e-3)
    }

    @Test func anInputRunningAheadWaitsForTheOthersUnlessItIsRealTime() async throws {
        for realTime in [false, true] {
            let writer = try AVAssetWriter(outputURL: try WriterFixtures.outputURL("gate-\(realTime).mov"), fileType: .mov)
            let video = AVAssetWriterInput(mediaType: .video, outputSettings: settings(.h264, 64, 48))
            video.expectsMediaDataInRealTime = realTime
            let audio = AVAssetWriterInput(mediaType: .audio, outputSettings: nil)
            let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: video)
            writer.add(video)
            writer.add(audio)
            #expect(writer.startWriting())
            writer.startSession(atSourceTime: .zero)
            var appended = 0
            // 3 s of video while the audio input has nothing: offline, the video stops being ready
            // about a second ahead of it.
            for i in 0..<90 {
                var waited = 0
                while !video.isReadyForMoreMediaData && waited < 200 {
                    try await Task.sleep(nanoseconds: 1_000_000)
                    waited += 1
                }
                guard video.isReadyForMoreMediaData else { break }
                #expect(adaptor.append(WriterFixtures.pixelBuffer(width: 64, height: 48, index: i),
                                       withPresentationTime: CMTime(value: Int64(i), timescale: 30)))
                appended += 1
            }
            if realTime {
                #expect(appended == 90)
            } else {
                #expect(appended >= 30 && appended <= 33, "\(appended) frames before waiting")
                // Finishing the other input lets it go on.
                audio.markAsFinished()
                try await Task.sleep(nanoseconds: 20_000_000)
                #expect(video.isReadyForMoreMediaData)
            }
            writer.cancelWriting()
        }
    }
}

extension AssetWriterVideoTests {
    @Test func pixelAspectRatioAndEntropyModeAreHonoured() async throws {
        var s = settings(.h264, 160, 120, [AVVideoH264EntropyModeKey: AVVideoH264EntropyModeCAVLC])
        s[AVVideoPixelAspectRatioKey] = [AVVideoPixelAspectRatioHorizontalSpacingKey: 4, AVVideoPixelAspectRatioVerticalSpacingKey: 3]
        let (url, stream) = try await write(s, fileType: .mp4, name: "pasp.mp4")
        #expect(stream["sample_aspect_ratio"] == "4:3")
        let options = try AssetFixtures.run("/usr/bin/strings", [url.path]).output
        #expect(options.contains("cabac=0"))
    }
}

/// The classic "images to a movie" program as Apple developers write it (32ARGB buffers from the
/// adaptor's pool, sizes given as Float, a media queue, the completion handler), unchanged.
private final class ApplesMovieMaker: @unchecked Sendable {
    var frameCount: Int64 = 0
    let done = DispatchSemaphore(value: 0)

    func makeMovie(at url: URL, frames: Int64) throws -> AVAssetWriter {
        let videoWriter = try AVAssetWriter(outputURL: url, fileType: AVFileType.mov)
        let videoSettings: [String: Any] = [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: NSNumber(value: 320),
                                            AVVideoHeightKey: NSNumber(value: 240)]
        let videoWriterInput = AVAssetWriterInput(mediaType: AVMediaType.video, outputSettings: videoSettings)
        let sourceBufferAttributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: Int(kCVPixelFormatType_32ARGB),
                                                     kCVPixelBufferWidthKey as String: Float(320),
                                                     kCVPixelBufferHeightKey as String: Float(240)]
        let pixelBufferAdaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: videoWriterInput,
                                                                      sourcePixelBufferAttributes: sourceBufferAttributes)
        assert(videoWriter.canAdd(videoWriterInput))
        videoWriter.add(videoWriterInput)
        if videoWriter.startWriting() {
            videoWriter.startSession(atSourceTime: CMTime.zero)
            assert(pixelBufferAdaptor.pixelBufferPool != nil)
            let mediaQueue = DispatchQueue(label: "mediaInputQueue")
            videoWriterInput.requestMediaDataWhenReady(on: mediaQueue) {
                let fps: Int32 = 30
                while videoWriterInput.isReadyForMoreMediaData {
                    if self.frameCount == frames {
                        videoWriterInput.markAsFinished()
                        videoWriter.finishWriting { self.done.signal() }
                        break
                    }
                    let presentationTime = CMTimeMake(value: self.frameCount, timescale: fps)
                    var pixelBuffer: CVPixelBuffer? = nil
                    let status: CVReturn = CVPixelBufferPoolCreatePixelBuffer(kCFAllocatorDefault, pixelBufferAdaptor.pixelBufferPool!,
                                                                              &pixelBuffer)
                    if let pixelBuffer = pixelBuffer, status == kCVReturnSuccess {
                        CVPixelBufferLockBaseAddress(pixelBuffer, [])
                        if let data = CVPixelBufferGetBaseAddress(pixelBuffer) {
                            memset(data, Int32(self.frameCount * 8 % 255), CVPixelBufferGetDataSize(pixelBuffer))
                        }
                        CVPixelBufferUnlockBaseAddress(pixelBuffer, [])
                        if !pixelBufferAdaptor.append(pixelBuffer, withPresentationTime: presentationTime) {
                            print("AVAssetWriterInputPixelBufferAdaptor failed to append pixel buffer")
                        }
                    }
                    self.frameCount += 1
                }
            }
        }
        return videoWriter
    }
}

extension AssetWriterVideoTests {
    @Test func applesImagesToMovieProgramRunsUnchanged() throws {
        let url = try WriterFixtures.outputURL("apple.mov")
        let maker = ApplesMovieMaker()
        let writer = try maker.makeMovie(at: url, frames: 24)
        maker.done.wait()
        #expect(writer.status == .completed, "\(String(describing: writer.error))")
        let stream = try WriterFixtures.stream(url)
        #expect(stream["codec_name"] == "h264")
        #expect(stream["width"] == "320")
        #expect(stream["nb_frames"] == "24")
    }
}

extension AssetWriterVideoTests {
    @Test func aTrackStartingAfterTheSessionBeginsWithAnEmptyEdit() async throws {
        let url = try WriterFixtures.outputURL("late.mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mov)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: settings(.h264, 160, 120, [AVVideoAllowFrameReorderingKey: false]))
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for i in 15..<30 {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            #expect(adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: i), withPresentationTime: CMTime(value: Int64(i), timescale: 30)))
        }
        await writer.finishWriting()
        #expect(writer.status == .completed)
        let times = try WriterFixtures.framePresentationTimes(url)
        #expect(times.count == 15)
        #expect(abs((times.first ?? 0) - 0.5) < 1e-6)
        let track = try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
        let range = try await track.load(.timeRange)
        #expect(abs(range.start.seconds - 0.5) < 1e-3)
        #expect(abs(range.end.seconds - 1.0) < 1e-3)
    }
}

extension AssetWriterVideoTests {
    @Test func hevcMain10IsTenBit() async throws {
        let (_, stream) = try await write(settings(.hevc, 160, 120, [AVVideoProfileLevelKey: "HEVC_Main10_AutoLevel"]), name: "main10.mov", count: 3)
        #expect(stream["profile"] == "Main 10")
        #expect(stream["pix_fmt"] == "yuv420p10le")
    }
}
