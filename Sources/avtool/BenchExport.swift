// The export cases of `avtool bench`: whole processes each — `avtool convert` against the ffmpeg
// command with the same encoder settings (a 1280×720 transcode), and against `ffmpeg -ss … -t …
// -c copy` (a passthrough trim), and `avtool compose` of three cuts with the passthrough preset
// against `ffmpeg -f concat … -c copy` (the clips' sound is not used by compose: `-an`), on 20 s
// of 1080p30 H.264 + AAC made once in `dir`.
import AVFoundation

/// Times (a) `avtool convert -p Preset1280x720` against `ffmpeg -vf scale=1280:720 -c:v libx264
/// -preset fast -profile:v high -b:v 5M -c:a aac -b:a 128k -ac 2` and (b) `avtool convert -p
/// PresetPassthrough --start 7.3 --duration 5` against `ffmpeg -ss 7.3 -t 5 -i F -c copy`.
/// Prints one line each; returns the best-of-`repeats` times.
@discardableResult
func benchExport(in dir: URL, repeats: Int) throws -> [(label: String, ours: Double, ffmpeg: Double)] {
    let source = dir.appendingPathComponent("export-1080p30-20s.mp4")
    if !FileManager.default.fileExists(atPath: source.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=20",
                               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=20", "-c:v", "libx264", "-preset", "veryfast",
                               "-g", "60", "-c:a", "aac", "-shortest", source.path])
    }
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let out = dir.appendingPathComponent("export-out")
    try? FileManager.default.removeItem(at: out)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }
    // A composition of three cuts of the source (on its 2 s keyframes), exported as passthrough
    // by `avtool compose` against ffmpeg's concat demuxer with the same in and out points.
    let timeline = dir.appendingPathComponent("export-cuts.json")
    let cuts = [(0, 4), (6, 4), (12, 4)]
    let clips = cuts.map { "{\"file\": \"\(source.lastPathComponent)\", \"start\": \($0.0), \"duration\": \($0.1)}" }
    try Data("{\"videos\": [\(clips.joined(separator: ", "))]}".utf8).write(to: timeline)
    let list = dir.appendingPathComponent("export-cuts.txt")
    try Data(cuts.map { "file '\(source.path)'\ninpoint \($0.0)\noutpoint \($0.0 + $0.1)\n" }.joined().utf8).write(to: list)
    let cases: [(label: String, ours: [String], ffmpeg: [String])] = [
        ("convert Preset1280x720, 20 s 1080p30",
         ["convert", "-s", source.path, "-p", "Preset1280x720", "--quiet", "--replace", "-o"],
         ["-v", "error", "-nostdin", "-y", "-i", source.path, "-vf", "scale=1280:720", "-c:v", "libx264", "-preset", "fast",
          "-profile:v", "high", "-b:v", "5M", "-c:a", "aac", "-b:a", "128k", "-ac", "2"]),
        ("passthrough trim 7.3 s + 5 s",
         ["convert", "-s", source.path, "-p", "PresetPassthrough", "--start", "7.3", "--duration", "5", "--quiet", "--replace", "-o"],
         ["-v", "error", "-nostdin", "-y", "-ss", "7.3", "-t", "5", "-i", source.path, "-c", "copy"]),
        ("passthrough composition, 3 cuts of 4 s",
         ["compose", timeline.path, "-p", "PresetPassthrough", "--quiet", "--replace", "-o"],
         ["-v", "error", "-nostdin", "-y", "-f", "concat", "-safe", "0", "-i", list.path, "-an", "-c", "copy"]),
    ]
    var results: [(String, Double, Double)] = []
    for (index, c) in cases.enumerated() {
        var ours = Double.infinity, theirs = Double.infinity
        // A trim takes about 0.1 s, where one scheduling hiccup is a tenth of the figure: it
        // gets three times the runs.
        let runs = index == 0 ? max(1, repeats) : max(9, 3 * repeats)
        for _ in 0..<runs {
            let ourFile = out.appendingPathComponent("ours-\(index).mp4").path
            var t0 = DispatchTime.now().uptimeNanoseconds
            try runTool(me.path, c.ours + [ourFile], absolute: true)
            ours = min(ours, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            t0 = DispatchTime.now().uptimeNanoseconds
            try runTool("ffmpeg", c.ffmpeg + [out.appendingPathComponent("ffmpeg-\(index).mp4").path])
            theirs = min(theirs, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        }
        print(c.label.padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: "%7.3f s   %7.3f s   %5.2f×", ours, theirs, ours / theirs))
        results.append((c.label, ours, theirs))
    }
    return results
}
