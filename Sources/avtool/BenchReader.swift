// The reader case of `avtool bench`: every frame of a 60 s 1080p30 H.264 file read through
// AVAssetReader to 420v and to BGRA, against `ffmpeg -i FILE -pix_fmt nv12|bgra -f null -`.
import AVFoundation

/// Times reading every frame of 60 s of 1920×1080 30 fps H.264 (`testsrc2`, libx264 veryfast,
/// made once in `dir` with ffmpeg) through `AVAssetReaderTrackOutput` to 420v and to 32BGRA,
/// in this process, against `ffmpeg -i FILE -pix_fmt nv12 -f null -` and `… -pix_fmt bgra …`
/// (ffmpeg's default threads; its times include its process start). The two sides run
/// alternately, `repeats` times each; the best run of each counts. Prints, per format, the wall
/// clock line and one with the CPU time each side used (which other load on the machine disturbs
/// less), and returns the wall-clock times.
@discardableResult
func benchReader(in dir: URL, repeats: Int) throws -> [(format: String, ours: Double, ffmpeg: Double)] {
    let video = dir.appendingPathComponent("reader-1080p30-60s.mp4")
    if !FileManager.default.fileExists(atPath: video.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=60",
                               "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", video.path])
    }
    var results: [(format: String, ours: Double, ffmpeg: Double)] = []
    for (format, ffmpegFormat) in [(DecodeFormat.v420, "nv12"), (DecodeFormat.bgra, "bgra")] {
        var ours = Double.infinity, theirs = Double.infinity
        var oursCPU = Double.infinity, theirsCPU = Double.infinity
        for _ in 0 ..< max(1, repeats) {
            var t0 = DispatchTime.now().uptimeNanoseconds
            var c0 = cpuSeconds(RUSAGE_SELF.rawValue)
            let stats = try readTrack(url: video, format: format, trackID: nil,
                                      timeRange: CMTimeRange(start: .zero, duration: .positiveInfinity))
            guard stats.frames == 1800 else { throw DemoError("read \(stats.frames) frames, expected 1800") }
            ours = min(ours, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            oursCPU = min(oursCPU, cpuSeconds(RUSAGE_SELF.rawValue) - c0)
            t0 = DispatchTime.now().uptimeNanoseconds
            c0 = cpuSeconds(RUSAGE_CHILDREN.rawValue)
            try runTool("ffmpeg", ["-v", "error", "-nostdin", "-i", video.path, "-pix_fmt", ffmpegFormat, "-f", "null", "-"])
            theirs = min(theirs, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            theirsCPU = min(theirsCPU, cpuSeconds(RUSAGE_CHILDREN.rawValue) - c0)
        }
        print("read 60 s 1080p30 H.264 → \(format.rawValue) (AVAssetReader)".padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: "%7.3f s   %7.3f s   %5.2f×", ours, theirs, ours / theirs))
        print("  the same, CPU time (user + system)".padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: "%7.3f s   %7.3f s   %5.2f×", oursCPU, theirsCPU, oursCPU / theirsCPU))
        results.append((format.rawValue, ours, theirs))
    }
    return results
}

/// CPU time (user + system) used so far by this process (`RUSAGE_SELF`) or its finished children
/// (`RUSAGE_CHILDREN`), in seconds.
private func cpuSeconds(_ who: __rusage_who_t) -> Double {
    var usage = rusage()
    getrusage(who, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
