// `avtool bench --only capture`: recording 1920×1080 at 30 fps with AAC sound from the PulseAudio
// default source (the test services' null-sink monitor), through `avtool record`, against the
// same-settings ffmpeg command (`-f x11grab … -f pulse …`, libx264 veryfast without B-frames,
// a keyframe a second, 16 Mb/s, AAC 128 kb/s, fragmented MP4; `-fps_mode passthrough`, so that
// its file holds the frames it captured, as ours does: by default ffmpeg makes an MP4 constant
// rate, duplicating frames over the ones it lost, and its file always has 900). Reported per
// recorder: CPU seconds of the child (user + system, from wait4), wall seconds, frames in the
// file, the frames missing from a steady 30 fps (and how many of those are missing inside,
// between frames, not at the ends), and the sound's start minus the picture's in the file.
// A second case records a virtual camera (the test pattern at 1080p30) — no ffmpeg twin.
//
// It needs an X display and a PulseAudio server: without a display (DISPLAY unset) it starts
// the test services (scripts/capture-services.sh, from the repository) and stops them after.
// While recording, a window of this process shows the moving test pattern full screen, so the
// screen changes every frame (the same for both recorders; its CPU is not counted).
import AVFoundation
import Foundation
internal import MediaEngine

func benchCapture(in dir: URL, seconds: Double, repeats: Int) throws {
    let services = ToolCaptureServices()
    if let problem = services.start() {
        print("capture: skipped — \(problem)")
        return
    }
    defer { services.stop() }
    guard let display = ProcessInfo.processInfo.environment["DISPLAY"] else { return }

    // The animator: the moving test pattern in a full-screen window of this process.
    let source = TestPatternSource(formats: VirtualCamera.formats(width: 1920, height: 1080, minFrameDuration: CMTime(value: 1, timescale: 30)))
    let window = WindowSink(title: "avtool bench: capture", width: 1920, height: 1080, position: (0, 0))
    if let format = source.formats.first {
        try? source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: CMClockGetHostTimeClock(),
                          deliver: { window.show($0.pixelBuffer) }, failed: { _ in })
    }
    defer {
        source.stop()
        window.close()
    }
    let avtool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let expected = Int(seconds * 30)
    print(String(format: "capture, %.0f s of 1080p30 + AAC        CPU s     wall s   frames  missing  inside  A/V start", seconds))

    func line(_ label: String, _ run: (cpu: Double, wall: Double), _ file: URL) {
        let times = frameTimes(file)
        let offset = startTime(file, stream: "a:0").flatMap { a in startTime(file, stream: "v:0").map { a - $0 } }
        print(label.padding(toLength: 38, withPad: " ", startingAt: 0)
              + String(format: "%8.2f  %8.2f  %7d  %7d  %6d  %@", run.cpu, run.wall, times.count, max(0, expected - times.count),
                       interiorGaps(times, frameRate: 30), offset.map { String(format: "%+.3f s", $0) } ?? "—"))
    }

    var oursCPU = Double.infinity, theirsCPU = Double.infinity
    for attempt in 0..<max(1, repeats) {
        let ours = dir.appendingPathComponent("screen-ours-\(attempt).mov")
        let oursRun = try cpuRun([avtool, "record", "--screen", "--preset", "1920x1080", "--duration", String(seconds),
                                          "--quiet", "-o", ours.path])
        line("screen, ours (avtool record)", oursRun, ours)
        oursCPU = min(oursCPU, oursRun.cpu)

        let theirs = dir.appendingPathComponent("screen-ffmpeg-\(attempt).mp4")
        let theirsRun = try cpuRun([
            "ffmpeg", "-v", "error", "-nostdin", "-y",
            "-thread_queue_size", "64", "-f", "x11grab", "-framerate", "30", "-video_size", "1920x1080", "-draw_mouse", "1",
            "-i", display, "-thread_queue_size", "1024", "-f", "pulse", "-fragment_size", "3840", "-i", "default",
            "-t", String(seconds), "-fps_mode", "passthrough", "-c:v", "libx264", "-preset", "veryfast", "-bf", "0", "-g", "30", "-b:v", "16M",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-ar", "48000",
            "-movflags", "+empty_moov+default_base_moof+frag_keyframe", theirs.path,
        ])
        line("screen, ffmpeg x11grab + pulse", theirsRun, theirs)
        theirsCPU = min(theirsCPU, theirsRun.cpu)
    }
    print(String(format: "screen recording CPU ratio (ours ÷ ffmpeg, best runs): %.2f×", oursCPU / theirsCPU))

    // A virtual camera, as a test suite records one (no ffmpeg equivalent: the pattern is ours).
    setenv(VirtualDevices.environmentVariable, "testsrc:1920x1080@30", 1)
    let camera = dir.appendingPathComponent("camera-ours.mov")
    let cameraRun = try cpuRun([avtool, "record", "--camera", "virtual:testsrc:1920x1080@30", "--preset", "1920x1080",
                                        "--duration", String(seconds), "--quiet", "-o", camera.path])
    line("virtual camera 1080p30, ours", cameraRun, camera)
}

/// The presentation times of the video packets, in order, read by ffprobe (fragmented files
/// have no frame count in a header).
private func frameTimes(_ file: URL) -> [Double] {
    (probe(file, ["-select_streams", "v:0", "-show_entries", "packet=pts_time"]) ?? "")
        .split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.sorted()
}

/// Frames missing between the first and the last one: the steps between neighbours longer than
/// one frame, counted in frames (a missing count with no gaps lost frames at the start or end).
private func interiorGaps(_ times: [Double], frameRate: Double) -> Int {
    zip(times, times.dropFirst()).reduce(0) { $0 + max(0, Int((($1.1 - $1.0) * frameRate).rounded()) - 1) }
}

private func startTime(_ file: URL, stream: String) -> Double? {
    Double(probe(file, ["-select_streams", stream, "-show_entries", "stream=start_time"]) ?? "")
}

private func probe(_ file: URL, _ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
    process.arguments = ["-v", "error"] + arguments + ["-of", "csv=p=0", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// `measuredRun`'s CPU and wall seconds.
private func cpuRun(_ command: [String]) throws -> (cpu: Double, wall: Double) {
    let run = try measuredRun(command)
    return (run.cpu, run.seconds)
}
