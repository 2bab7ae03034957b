// `avtool writer` (hidden): the asset writer driven from the command line — the writer benchmark
// on its own, and a small writing program the fault tests run under resource limits.
import ArgumentParser
import AVFoundation

struct WriterTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "writer", abstract: "Asset writer checks (for tests and benchmarks).", shouldDisplay: false,
        subcommands: [WriteFrames.self, Bench.self])

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
