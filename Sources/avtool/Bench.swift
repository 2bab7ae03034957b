// `avtool bench`: each capability timed against the equivalent ffmpeg command on the same input,
// side by side in one run, with the ratio (ours ÷ ffmpeg; below 1 means we are faster).
import ArgumentParser
import AVFoundation

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time our pixel conversion and image encoding against the ffmpeg CLI on the same input.")

    @Option(help: "Frames of 1920×1080 video to convert.")
    var frames: Int = 60

    @Option(help: "Images to encode as PNG.")
    var images: Int = 10

    @Option(help: "Times to repeat each measurement (the best run counts).")
    var repeats: Int = 3

    @Option(help: "Seconds each capture recording lasts.")
    var captureSeconds: Double = 30

    @Option(help: "Seconds each player plays in the play and sync cases.")
    var playSeconds: Double = 60

    @Flag(help: "Skip the exact-thumbnails case (its 60 s 1080p input takes a while to make the first time).")
    var skipThumbnails = false

    @Option(help: ArgumentHelp("Run only these cases (repeatable): basics, compositor, thumbnails, reader, writer, audio, "
                               + "engine (an AVAudioEngine graph rendered offline against one ffmpeg filtergraph), export, speech (avtool say -o against espeak-ng -w), compose, titles (the compose timeline with a title and a watermark), capture (30 s recordings of the screen and a virtual camera; only when asked for), "
                               + "play (1080p30 played by avtool play, ffplay and mpv, and exact seeks; only when asked for), "
                               + "sync (a flash and a beep each second, grabbed from the screen and the sink's monitor, per player; only when asked for), "
                               + "audio-player (AVAudioPlayer's start to the first sound heard, and avtool play-audio against paplay and ffplay; only when asked for), "
                               + "debug (a client package built in debug and in release; only when asked for).",
                               valueName: "case"))
    var only: [String] = []

    /// Whether the case named `name` runs.
    private func runs(_ name: String) -> Bool { only.isEmpty || only.contains(name) }

    func run() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("avtool-bench-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let againstFFmpeg = only.isEmpty || only.contains(where: { $0 != "debug" && $0 != "capture" && $0 != "play" && $0 != "sync" && $0 != "audio-player" })
        if againstFFmpeg { print("benchmark                                   ours        ffmpeg      ratio") }

        if runs("basics") { try benchBasics(in: dir) }
        if runs("speech") { try benchSpeech(in: dir, repeats: repeats) }
        // 10 s at 30 fps with the default --frames 60.
        if runs("compositor") { try benchCompositor(in: dir, frames: frames * 5, repeats: repeats) }
        if !skipThumbnails {
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("avtool-bench-cache")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            if runs("thumbnails") { try benchThumbnails(in: cache, repeats: repeats) }
            if runs("reader") { try benchReader(in: cache, repeats: repeats) }
            if runs("writer") { try benchWriter(in: cache, repeats: repeats) }
            if runs("audio") { try benchWriterAudio(in: cache, repeats: repeats) }
            if runs("engine") { try benchAudioEngine(in: cache, repeats: repeats) }
            if runs("export") { try benchExport(in: cache, repeats: repeats) }
            if only == ["compose"] {
                try benchCompose(in: cache, repeats: repeats)
            } else if runs("compose") {
                // Linux hands a spawned child its parent's peak resident size at exec (ru_maxrss
                // keeps the old address space's high-water mark), and by now this process has read
                // 1080p movies: the compose case measures its children's peaks from a fresh avtool.
                try rerunInFreshProcess(["bench", "--only", "compose", "--repeats", String(repeats)])
            }
            if only == ["titles"] {
                try benchComposeTitles(in: cache, repeats: repeats)
            } else if runs("titles") {
                try rerunInFreshProcess(["bench", "--only", "titles", "--repeats", String(repeats)])
            }
        }
        // Recording runs in real time (a minute per repeat): this case runs only when named.
        if only.contains("capture") { try benchCapture(in: dir, seconds: captureSeconds, repeats: repeats) }
        // Playing runs in real time too: only when named.
        if only.contains("play") {
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("avtool-bench-cache")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            try benchPlay(in: cache, seconds: playSeconds, repeats: repeats)
        }
        // Audio/video sync as seen on the screen and heard on the sink: real time, only when named.
        if only.contains("sync") {
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("avtool-bench-cache")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            try benchSync(in: cache, seconds: playSeconds)
        }
        // Sound start latency, heard on the sink: real time, only when named.
        if only.contains("audio-player") { try benchAudioPlayer(in: dir, repeats: repeats) }
        // Building the client twice takes minutes: this case runs only when named.
        if only.contains("debug") {
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("avtool-bench-cache")
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            try benchDebugBuild(in: cache, repeats: repeats)
        }
        if againstFFmpeg {
            print("(ffmpeg's times include its process start; each figure is the best of \(repeats) runs)")
        }
    }

    /// Pixel conversion, PNG encoding and opening assets.
    private func benchBasics(in dir: URL) throws {
        // 1. 1080p NV12 → BGRA, the reader's hot path. The same raw frames feed both sides.
        let (w, h) = (1920, 1080)
        let nv12 = dir.appendingPathComponent("in.nv12")
        try runFFmpeg(["-f", "lavfi", "-i", "testsrc2=s=\(w)x\(h):r=30", "-frames:v", "\(frames)",
                       "-pix_fmt", "nv12", "-f", "rawvideo", nv12.path])
        let raw = try Data(contentsOf: nv12, options: .alwaysMapped)
        for (label, realTime, flags) in [("420v → BGRA, 1080p (RealTime)", true, "bicubic"),
                                         ("420v → BGRA, 1080p (accurate)", false,
                                          "bicubic+accurate_rnd+full_chroma_int+full_chroma_inp")] {
            let ours = try best(of: repeats) { try convertFrames(raw, width: w, height: h, count: frames, realTime: realTime) }
            let theirs = try best(of: repeats) {
                try runFFmpeg(["-f", "rawvideo", "-pix_fmt", "nv12", "-s", "\(w)x\(h)", "-i", nv12.path,
                               "-sws_flags", flags, "-pix_fmt", "bgra", "-f", "null", "-"])
            }
            report("\(label), \(frames) frames", ours, theirs)
        }

        // 1b. Layouts libswscale 5.1 cannot read directly ('422v' bi-planar 4:2:2, 'b64a' 16-bit
        //     big-endian ARGB), which we route through other layouts: the same frame converted
        //     `frames` times vs ffmpeg converting as many planar 4:2:2 / RGBA64BE frames.
        for (label, format, theirFormat) in [("422v → BGRA, 1080p", kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange, "yuv422p"),
                                              ("b64a → BGRA, 1080p", kCVPixelFormatType_64ARGB, "rgba64be")] {
            let source = try firstFrame(raw, width: w, height: h, as: format)
            var bgra: CVPixelBuffer?
            CVPixelBufferCreate(nil, w, h, kCVPixelFormatType_32BGRA, nil, &bgra)
            guard let bgra else { throw DemoError("no pixel buffer") }
            let ours = try best(of: repeats) { try convert(source, into: bgra, count: frames) }
            let theirRaw = dir.appendingPathComponent("in.\(theirFormat)")
            try runFFmpeg(["-f", "lavfi", "-i", "testsrc2=s=\(w)x\(h):r=30", "-frames:v", "\(frames)",
                           "-pix_fmt", theirFormat, "-f", "rawvideo", theirRaw.path])
            let theirs = try best(of: repeats) {
                try runFFmpeg(["-f", "rawvideo", "-pix_fmt", theirFormat, "-s", "\(w)x\(h)", "-i", theirRaw.path,
                               "-sws_flags", "bicubic", "-pix_fmt", "bgra", "-f", "null", "-"])
            }
            try? FileManager.default.removeItem(at: theirRaw)
            report("\(label), \(frames) frames", ours, theirs)
        }

        // 2. PNG encoding of 1280×720 RGBA images through CGImageDestination vs ffmpeg's png encoder.
        let (iw, ih) = (1280, 720)
        let rgba = dir.appendingPathComponent("in.rgba")
        try runFFmpeg(["-f", "lavfi", "-i", "testsrc2=s=\(iw)x\(ih)", "-frames:v", "\(images)",
                       "-pix_fmt", "rgba", "-f", "rawvideo", rgba.path])
        let pixels = try Data(contentsOf: rgba)
        let pngDir = dir.appendingPathComponent("png")
        try FileManager.default.createDirectory(at: pngDir, withIntermediateDirectories: true)
        let ours = try best(of: repeats) { try encodePNGs(pixels, width: iw, height: ih, count: images, into: pngDir) }
        let theirs = try best(of: repeats) {
            try runFFmpeg(["-f", "rawvideo", "-pix_fmt", "rgba", "-s", "\(iw)x\(ih)", "-i", rgba.path,
                           "-f", "image2", pngDir.appendingPathComponent("ff%03d.png").path])
        }
        report("PNG encode 1280×720 RGBA, \(images) images", ours, theirs)

        // 3. Opening an MP4 and loading duration and tracks (a fresh asset each run) vs ffprobe
        //    reading the same facts.
        let mp4 = dir.appendingPathComponent("open.mp4")
        try runFFmpeg(["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=20", "-f", "lavfi", "-i", "sine=d=20",
                       "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", mp4.path])
        let opens = 20
        let oursOpen = try best(of: repeats) {
            for _ in 0..<opens {
                let asset = AVURLAsset(url: mp4)
                let (duration, tracks) = try blocking { try await asset.load(.duration, .tracks) }
                guard duration.isNumeric, tracks.count == 2 else { throw DemoError("open.mp4 loaded wrong") }
            }
        }
        let theirsOpen = try best(of: repeats) {
            for _ in 0..<opens { try runTool("ffprobe", ["-v", "error", "-show_format", "-show_streams", mp4.path]) }
        }
        report("open MP4 + load duration/tracks, ×\(opens)", oursOpen, theirsOpen)
    }
}


/// Converts `count` NV12 frames from `raw` to BGRA through VTPixelTransferSession.
private func convertFrames(_ raw: Data, width: Int, height: Int, count: Int, realTime: Bool) throws {
    var session: VTPixelTransferSession?
    VTPixelTransferSessionCreate(allocator: nil, pixelTransferSessionOut: &session)
    guard let session else { throw DemoError("no transfer session") }
    VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_RealTime, value: realTime ? kCFBooleanTrue : kCFBooleanFalse)
    var source: CVPixelBuffer?, destination: CVPixelBuffer?
    CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &source)
    CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &destination)
    guard let src = source, let dst = destination else { throw DemoError("no pixel buffers") }
    let frameSize = width * height * 3 / 2
    for i in 0..<count {
        raw.withUnsafeBytes { copyNV12(from: $0.baseAddress! + i * frameSize, into: src) }
        guard VTPixelTransferSessionTransferImage(session, from: src, to: dst) == noErr else {
            throw DemoError("transfer failed")
        }
    }
}

/// Copies one tightly packed NV12 frame (ffmpeg's rawvideo: the luma rows, then the chroma rows,
/// each `width` bytes) into a '420v' buffer of the same size, row by row for its strides.
func copyNV12(from frame: UnsafeRawPointer, into buffer: CVPixelBuffer) {
    let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
    CVPixelBufferLockBaseAddress(buffer, [])
    defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
    for plane in 0..<2 {
        let rows = plane == 0 ? height : height / 2
        let destination = CVPixelBufferGetBaseAddressOfPlane(buffer, plane)!
        let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
        let start = frame + (plane == 0 ? 0 : width * height)
        for y in 0..<rows { memcpy(destination + y * stride, start + y * width, width) }
    }
}

/// The first NV12 frame of `raw` converted to `format` (the source of a conversion benchmark).
private func firstFrame(_ raw: Data, width: Int, height: Int, as format: OSType) throws -> CVPixelBuffer {
    var nv12: CVPixelBuffer?, out: CVPixelBuffer?
    CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &nv12)
    CVPixelBufferCreate(nil, width, height, format, nil, &out)
    guard let nv12, let out else { throw DemoError("no pixel buffers") }
    raw.withUnsafeBytes { copyNV12(from: $0.baseAddress!, into: nv12) }
    try convert(nv12, into: out)
    return out
}

/// Converts `source` into `destination` `count` times (one session).
private func convert(_ source: CVPixelBuffer, into destination: CVPixelBuffer, count: Int = 1) throws {
    var session: VTPixelTransferSession?
    VTPixelTransferSessionCreate(allocator: nil, pixelTransferSessionOut: &session)
    guard let session else { throw DemoError("no transfer session") }
    for _ in 0..<count {
        guard VTPixelTransferSessionTransferImage(session, from: source, to: destination) == noErr else { throw DemoError("transfer failed") }
    }
}

/// Encodes `count` RGBA images from `pixels` as PNG files with CGImageDestination.
private func encodePNGs(_ pixels: Data, width: Int, height: Int, count: Int, into dir: URL) throws {
    let size = width * height * 4
    for i in 0..<count {
        guard let provider = CGDataProvider(data: pixels.subdata(in: i * size..<(i + 1) * size) as CFData),
              let image = CGImage(width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32,
                                  bytesPerRow: width * 4, space: CGColorSpaceCreateDeviceRGB(),
                                  bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
                                  provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent)
        else { throw DemoError("bad image") }
        try save(image, to: dir.appendingPathComponent(String(format: "ours%03d.png", i)), type: .png, properties: nil)
    }
}

/// Runs this avtool again with `arguments` and prints its benchmark rows (not its header and footer).
private func rerunInFreshProcess(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    for line in output.split(separator: "\n") where !line.hasPrefix("benchmark ") && !line.hasPrefix("(ffmpeg's times") {
        print(line)
    }
    guard process.terminationStatus == 0 else { throw DemoError("avtool \(arguments.joined(separator: " ")) failed") }
}

/// The fastest of `n` timed runs, in seconds.
func best(of n: Int, _ body: () throws -> Void) throws -> Double {
    var fastest = Double.infinity
    for _ in 0..<max(1, n) {
        let t0 = DispatchTime.now().uptimeNanoseconds
        try body()
        fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
    }
    return fastest
}

func report(_ label: String, _ ours: Double, _ theirs: Double) {
    print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
          + String(format: "%7.3f s   %7.3f s   %5.2f×", ours, theirs, ours / theirs))
}

/// Runs the ffmpeg CLI quietly (with `-threads` first when given); throws when it fails.
func runFFmpeg(_ args: [String], threads: Int? = 1) throws {
    try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y"] + (threads.map { ["-threads", "\($0)"] } ?? []) + args)
}
