// The `thumbnails` case of `avtool bench`: ten exact thumbnails from a long-GOP 1080p video, one
// `avtool thumbnails --exact` process against ten `ffmpeg -ss T -i FILE -frames:v 1 OUT.png` runs.
import AVFoundation

/// Times ten exact 1080p thumbnails: `avtool thumbnails FILE --times … --exact` (the whole
/// process, start-up and indexing included) against ten `ffmpeg -ss T -i FILE -frames:v 1
/// OUT.png` runs (ffmpeg's default accurate input seeking decodes from the keyframe before T, so
/// both sides produce the same exact frames). The input, made once in `dir` with ffmpeg, is 60 s
/// of 1920×1080 30 fps H.264 (`testsrc2`, libx264 veryfast, B-frames) with a keyframe every 10 s
/// (`-g 300 -keyint_min 300 -sc_threshold 0`); the times sit at varied places inside the GOPs.
/// Prints one report line and returns the best-of-`repeats` seconds of each side.
@discardableResult
func benchThumbnails(in dir: URL, repeats: Int) throws -> (ours: Double, ffmpeg: Double) {
    let video = dir.appendingPathComponent("gop300-1080p30-60s.mp4")
    if !FileManager.default.fileExists(atPath: video.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=60",
                               "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
                               "-g", "300", "-keyint_min", "300", "-sc_threshold", "0", video.path])
    }
    let times = (0 ..< 10).map { 2.7 + 5.9 * Double($0) }   // 2.7 s … 55.8 s
    let timeList = times.map { String(format: "%.3f", $0) }
    let ourDir = dir.appendingPathComponent("thumbs-ours"), theirDir = dir.appendingPathComponent("thumbs-ffmpeg")
    try FileManager.default.createDirectory(at: theirDir, withIntermediateDirectories: true)
    let avtool = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    var ours = Double.infinity, theirs = Double.infinity
    for _ in 0 ..< max(1, repeats) {
        try? FileManager.default.removeItem(at: ourDir)
        var t0 = DispatchTime.now().uptimeNanoseconds
        try runTool(avtool.path, ["thumbnails", video.path, "--times", timeList.joined(separator: ","), "--exact",
                                  "-o", ourDir.path], absolute: true)
        ours = min(ours, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        t0 = DispatchTime.now().uptimeNanoseconds
        for (i, t) in timeList.enumerated() {
            try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-ss", t, "-i", video.path, "-frames:v", "1",
                                   theirDir.appendingPathComponent("ff-\(i).png").path])
        }
        theirs = min(theirs, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
    }
    print("10 exact thumbnails, 1080p, 10 s GOPs".padding(toLength: 44, withPad: " ", startingAt: 0)
          + String(format: "%7.3f s   %7.3f s   %5.2f×", ours, theirs, ours / theirs))
    return (ours, theirs)
}

/// Runs a tool quietly (found on PATH unless `absolute`); throws when it fails.
func runTool(_ tool: String, _ args: [String], absolute: Bool = false) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: absolute ? tool : "/usr/bin/env")
    p.arguments = absolute ? args : [tool] + args
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { throw DemoError("\(tool) \(args.joined(separator: " ")) failed") }
}
