// `avtool writer` (hidden): the asset writer driven from the command line — the writer benchmark
// on its own, a small writing program the fault tests run under resource limits, and a real-time
// recording of the test pattern (the crash-safety tests kill it; the capture CPU measurement).
import ArgumentParser
import AVFoundation
internal import MediaEngine
import Synchronization

struct WriterTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "writer", abstract: "Asset writer checks (for tests and benchmarks).", shouldDisplay: false,
        subcommands: [WriteFrames.self, Bench.self, RecordPattern.self])

    /// Writes numbered H.264 frames and reports how writing ended.
    struct WriteFrames: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write-frames",
            abstract: "Write numbered frames to a movie; print the writer's status and error (exit 2 when it failed).")

        @Argument(help: "The output file (must not exist).")
        var output: String

        @Option(help: "Frames to write.")
        var frames: Int = 60

        @Option(help: "Frame width.")
        var width: Int = 320

        @Option(help: "Frame height.")
        var height: Int = 240

        @Option(help: "Movie fragment interval in seconds (0: none).")
        var fragmentInterval: Double = 0

        @Option(help: "Picture content: noise (incompressible, files grow fast) or bars (moving, compressible).")
        var content: Content = .noise

        enum Content: String, ExpressibleByArgument { case noise, bars }

        func run() throws {
            // A file-size limit must end in an error, not in SIGXFSZ killing the process.
            signal(SIGXFSZ, SIG_IGN)
            let url = URL(fileURLWithPath: output)
            let writer = try AVAssetWriter(outputURL: url, fileType: url.pathExtension == "mov" ? .mov : .mp4)
            if fragmentInterval > 0 {
                writer.movieFragmentInterval = CMTime(seconds: fragmentInterval, preferredTimescale: 600)
            }
            let input = AVAssetWriterInput(mediaType: .video, outputSettings: [
                AVVideoCodecKey: AVVideoCodecType.h264, AVVideoWidthKey: width, AVVideoHeightKey: height,
                AVVideoCompressionPropertiesKey: [AVVideoQualityKey: 1.0]])
            let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: [
                kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)])
            writer.add(input)
            if writer.startWriting(), let pool = adaptor.pixelBufferPool {
                writer.startSession(atSourceTime: .zero)
                var appended = 0
                for i in 0..<frames {
                    while !input.isReadyForMoreMediaData && writer.status == .writing { usleep(500) }
                    var made: CVPixelBuffer?
                    CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made)
                    guard let buffer = made else { break }
                    if content == .noise { noise(buffer, seed: i) } else { bars(buffer, frame: i) }
                    guard adaptor.append(buffer, withPresentationTime: CMTime(value: Int64(i), timescale: 30)) else { break }
                    appended += 1
                }
                let done = DispatchSemaphore(value: 0)
                writer.finishWriting { done.signal() }
                done.wait()
                print("appended=\(appended)")
            }
            print("status=\(writer.status.rawValue)")
            if let error = writer.error as NSError? {
                print("error=\(error.domain) \(error.code) \(error.localizedDescription)")
                if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError {
                    print("underlying=\(underlying.domain) \(underlying.code)")
                }
            }
            print("exists=\(FileManager.default.fileExists(atPath: url.path))")
            print("peakResidentKB=\(peakResidentKilobytes())")
            if writer.status != .completed { throw ExitCode(2) }
        }

        /// Fills the buffer with bars that move one step a frame, and neutral chroma.
        private func bars(_ buffer: CVPixelBuffer, frame: Int) {
            CVPixelBufferLockBaseAddress(buffer, [])
            defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
            for plane in 0..<CVPixelBufferGetPlaneCount(buffer) {
                let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane)!.assumingMemoryBound(to: UInt8.self)
                let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
                for y in 0..<CVPixelBufferGetHeightOfPlane(buffer, plane) {
                    let row = base + y * stride
                    for x in 0..<stride { row[x] = plane == 0 ? UInt8(truncatingIfNeeded: ((x + frame * 4) / 16) * 40 + y / 4) : 128 }
                }
            }
        }

        /// Fills the buffer with pseudo-random bytes (incompressible, so files grow fast).
        private func noise(_ buffer: CVPixelBuffer, seed: Int) {
            CVPixelBufferLockBaseAddress(buffer, [])
            defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
            var state = UInt64(seed &+ 1) &* 0x9E37_79B9_7F4A_7C15
            for plane in 0..<CVPixelBufferGetPlaneCount(buffer) {
                let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane)!.assumingMemoryBound(to: UInt64.self)
                let count = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane) * CVPixelBufferGetHeightOfPlane(buffer, plane) / 8
                for i in 0..<count {
                    state ^= state << 13; state ^= state >> 7; state ^= state << 17
                    base[i] = state
                }
            }
        }
    }

    /// The writer benchmark alone.
    struct Bench: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Time the asset writer against the ffmpeg CLI.")

        @Option(help: "Times to repeat each measurement (the best run counts).")
        var repeats: Int = 3

        @Option(help: "Pixel formats to time (420v, BGRA).")
        var formats: [String] = ["420v", "BGRA"]

        @Option(help: "Sides to time (ours, ffmpeg), e.g. to profile one alone.")
        var sides: [String] = ["ours", "ffmpeg"]

        func run() throws {
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("avtool-bench-cache")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            print("benchmark                                   ours        ffmpeg      ratio")
            try benchWriter(in: cache, repeats: repeats, formats: Set(formats), sides: Set(sides))
        }
    }
}

extension WriterTool {
    /// Records the test pattern (or raw NV12 frames) and a sine tone in real time through the
    /// capture movie recorder, as the movie file output will.
    struct RecordPattern: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "record-pattern",
            abstract: "Record a real-time test pattern and tone through the movie recorder; print how it ended.")

        @Argument(help: "The output file (must not exist; .mov or .mp4).")
        var output: String

        @Option(help: "Seconds to record.")
        var duration: Double = 5

        @Option(help: "Movie fragment interval in seconds (0: none).")
        var fragmentInterval: Double = 10

        @Option(help: "Frame width.")
        var width: Int = 640

        @Option(help: "Frame height.")
        var height: Int = 480

        @Option(help: "Frames per second.")
        var fps: Int = 30

        @Option(help: "Loop these raw NV12 frames (width×height each) instead of drawing the pattern.")
        var raw: String?

        func run() throws {
            signal(SIGXFSZ, SIG_IGN)
            let url = URL(fileURLWithPath: output)
            var configuration = MovieRecorder.Configuration(outputURL: url)
            configuration.videoSettings = MovieRecorder.defaultVideoSettings(width: width, height: height, frameRate: Double(fps))
            configuration.audioSettings = MovieRecorder.defaultAudioSettings(channels: 2)
            configuration.movieFragmentInterval = fragmentInterval > 0 ? CMTime(seconds: fragmentInterval, preferredTimescale: 1000) : .invalid
            let done = DispatchSemaphore(value: 0)
            let outcome = Mutex<String>("")
            let recorder = try MovieRecorder(configuration: configuration) { error in
                if let error = error as NSError? {
                    let finished = (error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool).map(String.init) ?? "nil"
                    outcome.withLock { $0 = "error=\(error.domain) \(error.code) finished=\(finished)" }
                } else {
                    outcome.withLock { $0 = "error=none" }
                }
                done.signal()
            }
            guard recorder.start() else {
                done.wait()
                print(outcome.withLock { $0 })
                throw ExitCode(2)
            }
            let frames = try rawFrames()
            let generator = frames.isEmpty ? try TestPatternGenerator(width: width, height: height, poolCapacity: 12) : nil
            let clock = CMClockGetHostTimeClock()
            let frameDuration = CMTime(value: 1, timescale: Int32(fps))
            let start = CMClockGetTime(clock)
            let tone = ToneMaker(sampleRate: 48_000, channels: 2)
            var audioFrames: Int64 = 0
            var formatDescription: CMVideoFormatDescription?
            var unavailable = 0
            var i: Int64 = 0
            while true {
                let due = CMTimeAdd(start, CMTimeMultiply(frameDuration, multiplier: Int32(i)))
                let wait = CMTimeSubtract(due, CMClockGetTime(clock)).seconds
                if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
                if CMTimeSubtract(due, start).seconds >= duration { break }
                let buffer: CVPixelBuffer?
                if frames.isEmpty {
                    buffer = try generator?.makeFrame(frameNumber: UInt64(i), pts: due)
                } else {
                    buffer = frames[Int(i) % frames.count]
                }
                if let buffer {
                    if formatDescription == nil {
                        CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: buffer, formatDescriptionOut: &formatDescription)
                    }
                    var timing = CMSampleTimingInfo(duration: frameDuration, presentationTimeStamp: due, decodeTimeStamp: .invalid)
                    var sample: CMSampleBuffer?
                    CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: buffer, formatDescription: formatDescription!,
                                                             sampleTiming: &timing, sampleBufferOut: &sample)
                    if let sample { recorder.appendVideo(sample) }
                    if i == 0 { FileHandle.standardOutput.write(Data("recording\n".utf8)) }
                } else {
                    unavailable += 1
                }
                // The tone up to the end of this frame, from the first frame's time.
                let until = Int64((CMTimeSubtract(CMTimeAdd(due, frameDuration), start).seconds * 48_000).rounded())
                if until > audioFrames, let chunk = tone.sampleBuffer(firstFrame: audioFrames, count: Int(until - audioFrames), start: start) {
                    recorder.appendAudio(chunk)
                    audioFrames = until
                }
                i += 1
                if recorder.currentState == .finished { break }
            }
            recorder.finish()
            done.wait()
            let dropped = recorder.droppedSampleCounts
            print("frames=\(i) droppedVideo=\(dropped.video + unavailable) (input not ready \(dropped.video), no pixel buffer \(unavailable)) droppedAudio=\(dropped.audio) fragments=\(recorder.fragmentsWritten)")
            print(outcome.withLock { $0 })
        }

        /// The raw NV12 frames of `raw`, in '420v' pixel buffers; none without `raw`.
        private func rawFrames() throws -> [CVPixelBuffer] {
            guard let raw else { return [] }
            let data = try Data(contentsOf: URL(fileURLWithPath: raw), options: .alwaysMapped)
            let frameBytes = width * height * 3 / 2
            guard frameBytes > 0, data.count >= frameBytes else { throw ValidationError("\(raw) holds no \(width)x\(height) NV12 frame") }
            var frames: [CVPixelBuffer] = []
            for f in 0..<(data.count / frameBytes) {
                var made: CVPixelBuffer?
                CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &made)
                guard let buffer = made else { throw ValidationError("cannot make a pixel buffer") }
                CVPixelBufferLockBaseAddress(buffer, [])
                data.withUnsafeBytes { bytes in
                    var offset = f * frameBytes
                    for plane in 0..<2 {
                        let rows = plane == 0 ? height : height / 2
                        let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane)!
                        let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
                        for y in 0..<rows {
                            memcpy(base + y * stride, bytes.baseAddress! + offset, width)
                            offset += width
                        }
                    }
                }
                CVPixelBufferUnlockBaseAddress(buffer, [])
                frames.append(buffer)
            }
            return frames
        }
    }
}

/// A 440 Hz sine tone as Float32 interleaved linear PCM sample buffers.
struct ToneMaker {
    let sampleRate: Double
    let channels: Int
    let format: CMAudioFormatDescription

    init(sampleRate: Double, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
        var asbd = AudioStreamBasicDescription(mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: UInt32(4 * channels), mFramesPerPacket: 1,
                                               mBytesPerFrame: UInt32(4 * channels), mChannelsPerFrame: UInt32(channels),
                                               mBitsPerChannel: 32, mReserved: 0)
        var out: CMAudioFormatDescription?
        CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0,
                                       magicCookie: nil, extensions: nil, formatDescriptionOut: &out)
        format = out!
    }

    /// Frames `firstFrame..<firstFrame+count` of the tone, presented from `start`.
    func sampleBuffer(firstFrame: Int64, count: Int, start: CMTime) -> CMSampleBuffer? {
        var samples = [Float](repeating: 0, count: count * channels)
        let step = 2 * Double.pi * 440 / sampleRate
        for n in 0..<count {
            let value = Float(0.25 * sin(step * Double(firstFrame + Int64(n))))
            for c in 0..<channels { samples[n * channels + c] = value }
        }
        let bytes = samples.count * 4
        var block: CMBlockBuffer?
        CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: bytes, blockAllocator: nil, customBlockSource: nil,
                                           offsetToData: 0, dataLength: bytes, flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &block)
        guard let block else { return nil }
        _ = samples.withUnsafeBytes { CMBlockBufferReplaceDataBytes(with: $0.baseAddress!, blockBuffer: block, offsetIntoDestination: 0, dataLength: bytes) }
        var sample: CMSampleBuffer?
        let pts = CMTimeAdd(start, CMTime(value: firstFrame, timescale: Int32(sampleRate)))
        CMAudioSampleBufferCreateReadyWithPacketDescriptions(allocator: nil, dataBuffer: block, formatDescription: format, sampleCount: count,
                                                             presentationTimeStamp: pts, packetDescriptions: nil, sampleBufferOut: &sample)
        return sample
    }
}
