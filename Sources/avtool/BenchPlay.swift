// `avtool bench --only play`: playing 1080p30 H.264 + AAC at 1× into a window under X and to the
// PulseAudio default sink, through `avtool play`, against `ffplay` and `mpv` on the same file in
// the same run (each for the same wall time, each in its own window, sound to the same sink).
// Reported per player: CPU seconds of the child (user + system, from wait4), pictures shown and
// dropped as each player counts them (ours: --stats; ffplay: its status line's fd=; mpv: its
// frame-drop-count), and our time to the first picture. Then exact seeks: random zero-tolerance
// seeks of an AVPlayer on a file with 10 s GOPs, against the image generator's exact thumbnails
// at the same times (the same decode work: keyframe, then every frame up to the time).
//
// It needs an X display and a PulseAudio server: without a display (DISPLAY unset) it starts
// the test services (scripts/capture-services.sh, from the repository) and stops them after.
import AVFoundation
import Foundation

func benchPlay(in dir: URL, seconds: Double, repeats: Int) throws {
    let services = ToolCaptureServices()
    if let problem = services.start() {
        print("play: skipped — \(problem)")
        return
    }
    defer { services.stop() }
    let video = dir.appendingPathComponent("play-1080p30-60s.mp4")
    if !FileManager.default.fileExists(atPath: video.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=60",
                               "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=60",
                               "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "60",
                               "-c:a", "aac", "-b:a", "128k", video.path])
    }
    let avtool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let length = String(format: "%.1f", seconds)
    print(String(format: "play, %.0f s of 1080p30 + AAC at 1×         CPU s     wall s    shown  dropped  first picture", seconds))

    func line(_ label: String, _ run: (seconds: Double, peakKiB: Int, cpu: Double), shown: Int?, dropped: Int?, first: Double?) {
        func column(_ value: Int?) -> String {
            let text = value.map(String.init) ?? "—"
            return String(repeating: " ", count: max(0, 7 - text.count)) + text
        }
        print(label.padding(toLength: 40, withPad: " ", startingAt: 0)
              + String(format: "%8.2f  %8.2f  ", run.cpu, run.seconds) + column(shown) + "  " + column(dropped) + "  "
              + (first.map { String(format: "%.0f ms", $0) } ?? "—"))
    }

    var ours = Double.infinity, ffplay = Double.infinity, mpv = Double.infinity
    for attempt in 0..<max(1, repeats) {
        let log = dir.appendingPathComponent("play-ours-\(attempt).log")
        let run = try measuredRun([avtool, "play", video.path, "--stop-after", length, "--stats", "--quiet"], errors: log)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        line("ours (avtool play)", run, shown: number(after: "shown ", in: text), dropped: number(after: "dropped ", in: text),
             first: number(after: "first picture ", in: text).map(Double.init))
        ours = min(ours, run.cpu)

        let ffLog = dir.appendingPathComponent("play-ffplay-\(attempt).log")
        if let ffRun = try? measuredRun(["ffplay", "-v", "error", "-stats", "-autoexit", "-t", length, "-window_title", "ffplay",
                                         video.path], errors: ffLog) {
            let ffText = (try? String(contentsOf: ffLog, encoding: .utf8)) ?? ""
            line("ffplay", ffRun, shown: nil, dropped: lastNumber(after: "fd=", in: ffText), first: nil)
            ffplay = min(ffplay, ffRun.cpu)
        } else {
            print("ffplay: did not run (is it installed? Debian's ffmpeg package has it)")
        }

        let mpvLog = dir.appendingPathComponent("play-mpv-\(attempt).log")
        // mpv prints its status (and so its drop count) only to a terminal: CPU and wall time only.
        if let mpvRun = try? measuredRun(["mpv", "--no-config", "--vo=x11", "--ao=pulse", "--length=\(length)", "--msg-level=all=error",
                                          video.path], errors: mpvLog) {
            line("mpv (--vo=x11)", mpvRun, shown: nil, dropped: nil, first: nil)
            mpv = min(mpv, mpvRun.cpu)
        } else if attempt == 0 {
            print("mpv: did not run (apt install mpv to compare with it)")
        }
    }
    if ffplay.isFinite { print(String(format: "playback CPU ratio (ours ÷ ffplay, best runs): %.2f×", ours / ffplay)) }
    if mpv.isFinite { print(String(format: "playback CPU ratio (ours ÷ mpv, best runs): %.2f×", ours / mpv)) }

    try benchExactSeeks(in: dir)
}

/// Random zero-tolerance seeks of a player (each until its completion handler) against exact
/// thumbnails of the image generator at the same times, on 1080p with a keyframe every 10 s.
private func benchExactSeeks(in dir: URL) throws {
    let video = dir.appendingPathComponent("gop300-1080p30-60s.mp4")
    if !FileManager.default.fileExists(atPath: video.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=60",
                               "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
                               "-g", "300", "-keyint_min", "300", "-sc_threshold", "0", video.path])
    }
    var generator = SystemRandomNumberGenerator()
    let times = (0..<10).map { _ in CMTime(value: Int64.random(in: 30...1770, using: &generator), timescale: 30) }
    let item = AVPlayerItem(url: video)
    let player = AVPlayer(playerItem: item)
    let deadline = Date().addingTimeInterval(30)
    while item.status == .unknown, Date() < deadline { usleep(10_000) }
    guard item.status == .readyToPlay else {
        print("exact seeks: the item did not become ready")
        return
    }
    var seekTotal = 0.0
    for time in times {
        let done = DispatchSemaphore(value: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        player.seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero) { _ in done.signal() }
        while done.wait(timeout: .now() + 0.001) == .timedOut { RunLoop.main.run(until: Date().addingTimeInterval(0.001)) }
        seekTotal += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
    let generator2 = AVAssetImageGenerator(asset: AVURLAsset(url: video))
    generator2.requestedTimeToleranceBefore = .zero
    generator2.requestedTimeToleranceAfter = .zero
    var thumbTotal = 0.0
    for time in times {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try? generator2.copyCGImage(at: time, actualTime: nil)
        thumbTotal += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
    let seekMean = seekTotal / Double(times.count) * 1000, thumbMean = thumbTotal / Double(times.count) * 1000
    print(String(format: "exact seek, 1080p, 10 s GOPs (mean of 10)     player %6.0f ms   image generator %6.0f ms   ratio %.2f×",
                 seekMean, thumbMean, seekMean / thumbMean))
}

/// The number after the first `marker` in `text`.
private func number(after marker: String, in text: String) -> Int? {
    guard let range = text.range(of: marker) else { return nil }
    return Int(text[range.upperBound...].prefix { $0.isNumber })
}

/// The number after the last `marker` in `text` (status lines repeat).
private func lastNumber(after marker: String, in text: String) -> Int? {
    guard let range = text.range(of: marker, options: .backwards) else { return nil }
    return Int(text[range.upperBound...].drop { $0 == " " }.prefix { $0.isNumber })
}
