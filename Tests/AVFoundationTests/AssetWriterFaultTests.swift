// Faults and misuse: existing files, unwritable places, a file-size limit, cancellation, and the
// misuse Apple's AVAssetWriter answers with an exception (here: the process stops with Apple's text).
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct AssetWriterFaultTests {
    static var h264: [String: Any] { [AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: 160, AVVideoHeightKey: 120] }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let url = try WriterFixtures.outputURL("existing.mp4")
        try Data("keep me".utf8).write(to: url)
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        writer.add(AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264))
        #expect(!writer.startWriting())
        #expect(writer.status == .failed)
        let error = try #require(writer.error as NSError?)
        #expect(error.domain == AVFoundationErrorDomain)
        #expect(error.code == AVError.Code.fileAlreadyExists.rawValue)
        #expect(error.code == -11823)
        #expect(try Data(contentsOf: url) == Data("keep me".utf8))
    }

    @Test(arguments: ["missing-directory/out.mp4", "a-file/out.mp4"])
    func anUnwritableDestinationFailsStartWriting(_ relative: String) throws {
        let dir = try AssetFixtures.tempDirectory()
        try Data("not a directory".utf8).write(to: dir.appendingPathComponent("a-file"))
        let url = dir.appendingPathComponent(relative)
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        writer.add(AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264))
        #expect(!writer.startWriting())
        #expect(writer.status == .failed)
        let error = try #require(writer.error as NSError?)
        #expect(error.domain == AVFoundationErrorDomain)
        #expect(error.code == AVError.Code.unknown.rawValue)
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.domain == NSPOSIXErrorDomain)
        #expect([Int(ENOENT), Int(ENOTDIR)].contains(underlying.code))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aFileSizeLimitFailsWritingWithDiskFullAndLeavesNoFile() throws {
        guard let avtool = Self.avtool else {
            Issue.record("avtool is not built (swift build --build-tests builds it)")
            return
        }
        let url = try WriterFixtures.outputURL("limited.mp4")
        // 64 KiB may be written; noise frames need far more.
        let result = try AssetFixtures.run("/bin/bash", ["-c", "ulimit -f 64; exec \"$0\" writer write-frames \"$1\" --frames 40",
                                                         avtool.path, url.path])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("status=3"))
        #expect(result.output.contains("error=\(AVFoundationErrorDomain) -11807"), "\(result.output)")
        #expect(result.output.contains("underlying=\(NSPOSIXErrorDomain) \(EFBIG)"), "\(result.output)")
        #expect(result.output.contains("exists=false"))
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    /// The debug avtool next to the test bundle.
    static var avtool: URL? {
        let root = AssetFixtures.root.appendingPathComponent(".build")
        for candidate in ["debug/avtool", "x86_64-unknown-linux-gnu/debug/avtool", "aarch64-unknown-linux-gnu/debug/avtool"] {
            let url = root.appendingPathComponent(candidate)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    @Test func cancelWritingRemovesThePartialFile() async throws {
        let url = try WriterFixtures.outputURL("cancelled.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        for i in 0..<10 {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            #expect(adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: i), withPresentationTime: CMTime(value: Int64(i), timescale: 30)))
        }
        #expect(FileManager.default.fileExists(atPath: url.path))
        writer.cancelWriting()
        #expect(writer.status == .cancelled)
        #expect(writer.error == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!input.isReadyForMoreMediaData)
        #expect(!adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: 10), withPresentationTime: CMTime(value: 10, timescale: 30)))
        await writer.finishWriting()   // Nothing to do: the handler is called, the status stays.
        #expect(writer.status == .cancelled)
    }

    /// The book's transcoding loop (ch. 8) over a source cut off in its media data: the reader
    /// hands out the samples before the damage, then fails with an AVError; the program cancels
    /// the writer, and nothing is left that could pass for a complete file.
    @Test func aSourceThatEndsEarlyLeavesAFailedReaderAndNoFile() async throws {
        let source = try WriterFixtures.outputURL("ends-early-source.mp4")
        let made = try AssetFixtures.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=4",
                                                    "-c:v", "libx264", "-preset", "ultrafast", "-movflags", "+faststart", source.path])
        try #require(made.status == 0, "\(made.output)")
        let whole = try Data(contentsOf: source)
        let cut = try WriterFixtures.outputURL("ends-early-cut.mp4")
        try whole.prefix(whole.count * 6 / 10).write(to: cut)

        let asset = AVURLAsset(url: cut)
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange])
        reader.add(output)
        let url = try WriterFixtures.outputURL("ends-early-out.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        writer.add(input)
        #expect(reader.startReading())
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        var appended = 0
        while let sample = output.copyNextSampleBuffer() {
            while !input.isReadyForMoreMediaData { try await Task.sleep(nanoseconds: 1_000_000) }
            #expect(input.append(sample))
            appended += 1
        }
        // The source ended early: the reader says so, and the program does not finish the file.
        #expect(reader.status == .failed)
        let error = try #require(reader.error as? AVError)
        #expect([AVError.Code.fileFailedToParse, .decodeFailed].contains(error.code), "\(error)")
        #expect(appended > 0 && appended < 120, "\(appended) pictures before the damage")
        writer.cancelWriting()
        #expect(writer.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(try Data(contentsOf: cut) == whole.prefix(whole.count * 6 / 10), "the source is left as it was")
    }

    @Test func cancellingFromAnotherThreadStopsARequestLoop() async throws {
        let url = try WriterFixtures.outputURL("midway.mov")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mov)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        final class State: @unchecked Sendable {
            let lock = NSLock()
            var appended = 0
            var refused = 0
        }
        let state = State()
        let queue = DispatchQueue(label: "producer")
        input.requestMediaDataWhenReady(on: queue) {
            while input.isReadyForMoreMediaData {
                let i = state.lock.withLock { state.appended }
                let ok = adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: i),
                                        withPresentationTime: CMTime(value: Int64(i), timescale: 30))
                state.lock.withLock { if ok { state.appended += 1 } else { state.refused += 1 } }
                if !ok { return }
            }
        }
        while state.lock.withLock({ state.appended }) < 20 { try await Task.sleep(nanoseconds: 2_000_000) }
        writer.cancelWriting()
        queue.sync {}
        let appendedAtCancel = state.lock.withLock { state.appended }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(state.lock.withLock { state.appended } <= appendedAtCancel + 1)
        #expect(writer.status == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aFailedWriterRefusesAppendsAndCallsTheRequesterOnce() async throws {
        // Pictures out of order fail the writer.
        let url = try WriterFixtures.outputURL("order.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264)
        let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
        writer.add(input)
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        #expect(adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: 0), withPresentationTime: CMTime(value: 2, timescale: 30)))
        #expect(adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: 1), withPresentationTime: CMTime(value: 1, timescale: 30)))
        for _ in 0..<200 where writer.status == .writing { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(writer.status == .failed)
        #expect((writer.error as? AVError)?.code == .unknown)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(input.isReadyForMoreMediaData)   // As Apple's: so that an append discovers the failure.
        #expect(!adaptor.append(WriterFixtures.pixelBuffer(width: 160, height: 120, index: 2), withPresentationTime: CMTime(value: 3, timescale: 30)))
        let calls = LockedCounter()
        input.requestMediaDataWhenReady(on: DispatchQueue(label: "once")) { calls.increment() }
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(calls.value == 1)
        await writer.finishWriting()
        #expect(writer.status == .failed)
    }

    @Test func finishingWithoutAnySampleFails() async throws {
        let url = try WriterFixtures.outputURL("empty.mp4")
        let writer = try AVAssetWriter(outputURL: url, fileType: .mp4)
        writer.add(AVAssetWriterInput(mediaType: .video, outputSettings: Self.h264))
        #expect(writer.startWriting())
        writer.startSession(atSourceTime: .zero)
        await writer.finishWriting()
        #expect(writer.status == .failed)
        #expect(writer.error != nil)
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    // MARK: Misuse Apple answers with an exception

    /// A writer (not started) with one 64×64 H.264 input, for the exit tests' child processes.
    static func exitTestWriter(_ fileType: AVFileType = .mp4) throws -> (AVAssetWriter, AVAssetWriterInput) {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("exit-\(UUID().uuidString).\(fileType == .mov ? "mov" : "mp4")")
        let writer = try AVAssetWriter(outputURL: url, fileType: fileType)
        let input = AVAssetWriterInput(mediaType: .video, outputSettings: [AVVideoCodecKey: AVVideoCodecType.h264,
                                                                          AVVideoWidthKey: 64, AVVideoHeightKey: 64])
        writer.add(input)
        return (writer, input)
    }

    /// A 64×64 BGRA picture.
    static func blankPicture() -> CVPixelBuffer {
        var buffer: CVPixelBuffer?
        CVPixelBufferCreate(nil, 64, 64, kCVPixelFormatType_32BGRA, nil, &buffer)
        return buffer!
    }


    @Test func addingAnInputAfterStartWritingStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (writer, input) = try AssetWriterFaultTests.exitTestWriter()
            _ = writer.startWriting()
            writer.add(AVAssetWriterInput(mediaType: .video, outputSettings: input.outputSettings))
        }
        expectExit(result, says: "-[AVAssetWriter addInput:] Cannot call method when status is 1")
    }

    @Test func appendingBeforeStartSessionStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (writer, input) = try AssetWriterFaultTests.exitTestWriter()
            let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
            _ = writer.startWriting()
            _ = adaptor.append(AssetWriterFaultTests.blankPicture(), withPresentationTime: .zero)
        }
        expectExit(result, says: "Must start a session (using -[AVAssetWriter startSessionAtSourceTime:) before appending pixel buffers")
    }

    @Test func appendingASampleBufferBeforeStartSessionStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (writer, input) = try AssetWriterFaultTests.exitTestWriter(.mov)
            _ = writer.startWriting()
            let buffer: CVPixelBuffer? = AssetWriterFaultTests.blankPicture()
            var format: CMVideoFormatDescription?
            CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: buffer!, formatDescriptionOut: &format)
            var timing = CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
            var sample: CMSampleBuffer?
            CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: buffer!, formatDescription: format!,
                                                     sampleTiming: &timing, sampleBufferOut: &sample)
            _ = input.append(sample!)
        }
        expectExit(result, says: "-[AVAssetWriterInput appendSampleBuffer:] Cannot append sample buffer: Must start a session")
    }

    @Test func appendingAfterMarkAsFinishedStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (writer, input) = try AssetWriterFaultTests.exitTestWriter()
            let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input)
            _ = writer.startWriting()
            writer.startSession(atSourceTime: .zero)
            let buffer = AssetWriterFaultTests.blankPicture()
            _ = adaptor.append(buffer, withPresentationTime: .zero)
            input.markAsFinished()
            _ = adaptor.append(buffer, withPresentationTime: CMTime(value: 1, timescale: 30))
        }
        expectExit(result, says: "Cannot call method when status is 2")
    }

    @Test func unsupportedOutputSettingsStopTheProgramAtInit() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // AAC LC has no 96 kHz mode.
            _ = AVAssetWriterInput(mediaType: .audio, outputSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 96_000,
                                                                      AVNumberOfChannelsKey: 2])
        }
        expectExit(result, says: "initWithMediaType:outputSettings:sourceFormatHint:")
        expectExit(result, says: "96000 Hz is not a valid sample rate for Format ID 'aac '")
    }
}

/// A thread-safe counter.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
