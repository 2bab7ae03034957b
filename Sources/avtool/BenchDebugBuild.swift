// The `debug` case of `avtool bench`: how much slower our frameworks are in a client's debug
// build. Users run their tools with `swift run`, which compiles this package without
// optimisation; Apple's frameworks are always optimised, so ours must not depend on -O. The case
// builds Benchmarks/DebugClient (a separate package that uses only `import AVFoundation`, as
// published code does) once with `-c debug` and once with `-c release`, runs the same tasks
// through both and prints debug time, release time and their ratio.
import AVFoundation

/// Builds the client twice (scratch paths `.build-debugclient/{debug,release}` in the package
/// root, git-ignored) and times, best of `repeats`: decoding 10 s of 720p30 H.264 to 32BGRA
/// through AVAssetReader, ten exact thumbnails through AVAssetImageGenerator, writing 150
/// 640×360 JPEG images drawn with CGContext into 1280×720 pool buffers as H.264
/// (AVAssetWriterInputPixelBufferAdaptor), and an AVAssetExportPreset640x480 export, plain and with
/// a fading text title, a turning shape and a watermark drawn by AVVideoCompositionCoreAnimationTool; then
/// the per-pixel paths moved into libraries (issue 24): a PNG of a premultiplied image, EXIF turns of 8- and
/// 24-bit images, drawing 16-bit, float and indexed images, sub-byte crops, extended-pixel fills and
/// thumbnails of a movie with alpha. The movie inputs are made once in `dir` with ffmpeg. Figures are the client's own timing of each task (process
/// start-up excluded). Prints one line per task; returns (task, debug, release) seconds.
@discardableResult
func benchDebugBuild(in dir: URL, repeats: Int) throws -> [(task: String, debug: Double, release: Double)] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let client = root.appendingPathComponent("Benchmarks/DebugClient")
    guard FileManager.default.fileExists(atPath: client.appendingPathComponent("Package.swift").path) else {
        throw DemoError("the debug case needs the source checkout avtool was built from (\(client.path) is missing)")
    }
    // Inputs.
    let movie = dir.appendingPathComponent("debug-720p30-10s.mp4")
    if !FileManager.default.fileExists(atPath: movie.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=10",
                               "-f", "lavfi", "-i", "sine=d=10", "-c:v", "libx264", "-preset", "veryfast",
                               "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", movie.path])
    }
    let images = dir.appendingPathComponent("debug-images-640x360")
    if (try? FileManager.default.contentsOfDirectory(atPath: images.path).count) != 150 {
        try? FileManager.default.removeItem(at: images)
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30",
                               "-frames:v", "150", "-q:v", "3", images.appendingPathComponent("img%03d.jpg").path])
    }
    let alphaMovie = dir.appendingPathComponent("debug-alpha-720p-2s.mov")
    if !FileManager.default.fileExists(atPath: alphaMovie.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=2,format=rgba",
                               "-c:v", "png", "-pix_fmt", "rgba", alphaMovie.path])
    }
    let out = dir.appendingPathComponent("debug-out-\(getpid())")
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }

    // The two builds of the client.
    var executables: [String: URL] = [:]
    for configuration in ["debug", "release"] {
        let scratch = root.appendingPathComponent(".build-debugclient/\(configuration)")
        try runTool("swift", ["build", "-c", configuration, "--package-path", client.path, "--scratch-path", scratch.path])
        executables[configuration] = scratch.appendingPathComponent("\(configuration)/DebugClient")
    }

    let tasks: [(label: String, arguments: [String])] = [
        ("decode 720p30 10 s → 32BGRA", ["decode", movie.path]),
        ("10 exact thumbnails, 720p", ["thumbnails", movie.path]),
        ("images-to-movie 150 × 640×360 → 720p", ["images-to-movie", images.path, out.appendingPathComponent("movie.mp4").path]),
        ("export Preset640x480, 10 s 720p", ["export", movie.path, out.appendingPathComponent("export.mp4").path]),
        ("… with titles (Core Animation tool)", ["titled-export", movie.path, out.appendingPathComponent("titled.mp4").path]),
        // The per-pixel paths issue 24 moved into pixman and VOLK, one task each.
        ("PNG of a premultiplied 720p image × 5", ["png-premultiplied"]),
        ("EXIF turn, 8- and 24-bit 1600×1200 × 5", ["turn-thumbnails"]),
        ("draw 16-bit, float, 4-bit indexed × 3", ["draw-deep"]),
        ("crop 1- and 4-bit 4096² images × 10", ["crop-bits"]),
        ("fill extended pixels, 1080p BGRA+420v × 30", ["extend-edges"]),
        ("10 thumbnails of a movie with alpha", ["alpha-thumbnails", alphaMovie.path]),
    ]
    // Wall time is what a user waits for, but on a busy machine a multithreaded task's wall time
    // swings with the load; the CPU time (user + system, whole process) is steadier, so both
    // ratios are printed.
    print("debug build of a client                     debug       release     ratio   cpu ratio")
    var results: [(String, Double, Double)] = []
    for task in tasks {
        var wall: [String: Double] = [:], cpu: [String: Double] = [:]
        for configuration in ["debug", "release"] {
            var fastest = Double.infinity, leastCPU = Double.infinity
            for _ in 0..<max(1, repeats) {
                let run = try timedRun(executables[configuration]!, task.arguments)
                fastest = min(fastest, run.wall)
                leastCPU = min(leastCPU, run.cpu)
            }
            wall[configuration] = fastest
            cpu[configuration] = leastCPU
        }
        let debug = wall["debug"]!, release = wall["release"]!
        print(task.label.padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: "%7.3f s   %7.3f s   %5.2f×   %5.2f×", debug, release, debug / release,
                       cpu["debug"]! / cpu["release"]!))
        results.append((task.label, debug, release))
    }
    return results
}

/// Runs the client; returns the seconds it reports on its standard output (the task alone) and
/// the CPU seconds (user + system) the whole process used.
private func timedRun(_ executable: URL, _ arguments: [String]) throws -> (wall: Double, cpu: Double) {
    let before = childCPUSeconds()
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0,
          let seconds = Double(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw DemoError("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed") }
    return (seconds, childCPUSeconds() - before)
}

/// User + system seconds of every child process reaped so far.
private func childCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
