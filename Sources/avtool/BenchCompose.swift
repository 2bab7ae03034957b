// The compose case of `avtool bench`: the book's 15 Seconds timeline with transitions — three
// 1280×720 30 fps H.264 clips of 5 s joined by 1 s dissolves (13 s), 13 s of music ducked under a
// 3 s voice-over at 2 s — exported by `avtool compose` (Preset1280x720) beside the one ffmpeg
// command that makes the same output (xfade + volume/adelay/amix filtergraph, the same x264 and
// AAC settings). Whole processes each; prints wall time, the ratio and each side's peak memory.
import AVFoundation
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Makes the clips, music and voice-over once in `dir`, then times both sides `repeats` times.
@discardableResult
func benchCompose(in dir: URL, repeats: Int) throws -> (ours: Double, ffmpeg: Double) {
    let (media, timeline) = try composeBenchMedia(in: dir)
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let out = dir.appendingPathComponent("compose-out")
    try? FileManager.default.removeItem(at: out)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }
    let ourFile = out.appendingPathComponent("ours.mp4").path, theirFile = out.appendingPathComponent("ffmpeg.mp4").path
    let ours = [me.path, "compose", timeline.path, "-o", ourFile, "-p", "Preset1280x720", "--replace", "--quiet"]
    let theirs = ffmpegComposeCommand(media: media, output: theirFile)
    var best = (ours: Double.infinity, ffmpeg: Double.infinity, ourPeak: 0, theirPeak: 0)
    for _ in 0..<max(1, repeats) {
        let a = try measuredRun(ours)
        let b = try measuredRun(theirs)
        best.ours = min(best.ours, a.seconds)
        best.ffmpeg = min(best.ffmpeg, b.seconds)
        best.ourPeak = max(best.ourPeak, a.peakKiB)
        best.theirPeak = max(best.theirPeak, b.peakKiB)
    }
    print("compose 15 Seconds, 3 dissolves+ducking, 720p".padding(toLength: 44, withPad: " ", startingAt: 0)
          + String(format: "%7.3f s   %7.3f s   %5.2f×", best.ours, best.ffmpeg, best.ours / best.ffmpeg))
    print("  peak memory: ours \(best.ourPeak / 1024) MiB, ffmpeg \(best.theirPeak / 1024) MiB")
    return (best.ours, best.ffmpeg)
}

/// The titles case: the same timeline exported (a) as it is, (b) with one title faded in and out
/// (the book's keyframe fade, text only), (c) with a static watermark (a 160×160 PNG at 0.8);
/// beside ffmpeg's same filtergraph with (d) `drawtext` faded by an `alpha` expression and (e)
/// `overlay` of the same PNG. Prints each time, the ratios (b)/(a), (c)/(a), (b)/(d), (c)/(e)
/// and the peak memories.
func benchComposeTitles(in dir: URL, repeats: Int) throws {
    let (media, plain) = try composeBenchMedia(in: dir)
    let mark = media.appendingPathComponent("watermark.png")
    if !FileManager.default.fileExists(atPath: mark.path) { try saveDemoLogo(to: mark) }
    let base = try String(contentsOf: plain, encoding: .utf8)
    func variant(_ name: String, _ extra: String) throws -> URL {
        let url = media.appendingPathComponent("fifteen-seconds-\(name).json")
        let text = base.replacingOccurrences(of: "\"frameRate\": 30", with: "\"frameRate\": 30,\n  " + extra)
        try Data(text.utf8).write(to: url)
        return url
    }
    let titled = try variant("title", #""titles": [ {"text": "Learning AV Foundation", "large": true, "start": 1, "duration": 3} ]"#)
    let marked = try variant("watermark", #""watermark": {"image": "watermark.png", "opacity": 0.8}"#)
    let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    let out = dir.appendingPathComponent("titles-out")
    try? FileManager.default.removeItem(at: out)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: out) }
    func ours(_ timeline: URL) -> [String] {
        [me.path, "compose", timeline.path, "-o", out.appendingPathComponent("ours.mp4").path, "-p", "Preset1280x720", "--replace", "--quiet"]
    }
    // The title's opacity as the keyframe fade makes it: 0 → 1 over [1, 1.6], 1 to 3.4, → 0 by 4.
    let alpha = "if(lt(t,1),0,if(lt(t,1.6),(t-1)/0.6,if(lt(t,3.4),1,if(lt(t,4),(4-t)/0.6,0))))"
    let drawtext = ",drawtext=text='Learning AV Foundation':font='Gill Sans':fontsize=64:fontcolor=white"
        + ":x=(w-text_w)/2:y=470-text_h/2:enable='between(t,1,4)':alpha='\(alpha)'"
    let overlay = "[x];[5:v]format=rgba,colorchannelmixer=aa=0.8[mk];[x][mk]overlay=W-w-24:H-h-24"
    let theirFile = out.appendingPathComponent("ffmpeg.mp4").path
    let cases: [(String, [String])] = [
        ("a", ours(plain)), ("b", ours(titled)), ("c", ours(marked)),
        ("d", ffmpegComposeCommand(media: media, output: theirFile, videoTail: drawtext)),
        ("e", ffmpegComposeCommand(media: media, output: theirFile, videoTail: overlay, extraInputs: ["-i", mark.path])),
    ]
    var best: [String: (seconds: Double, cpu: Double, peak: Int)] = [:]
    for _ in 0..<max(1, repeats) {
        for (name, command) in cases {
            let errors = out.appendingPathComponent("\(name).err")
            let r: (seconds: Double, peakKiB: Int, cpu: Double)
            do { r = try measuredRun(command, errors: errors) } catch {
                throw DemoError("\(error)\n" + ((try? String(contentsOf: errors, encoding: .utf8)) ?? ""))
            }
            let old = best[name] ?? (.infinity, .infinity, 0)
            best[name] = (min(old.seconds, r.seconds), min(old.cpu, r.cpu), max(old.peak, r.peakKiB))
        }
    }
    let labels = ["a": "compose 15 Seconds, 720p (a: no title)", "b": "  b: + one faded title (text)", "c": "  c: + static watermark PNG",
                  "d": "  d: ffmpeg + drawtext, alpha fade", "e": "  e: ffmpeg + overlay PNG"]
    for name in ["a", "b", "c", "d", "e"] {
        let r = best[name]!
        print(labels[name]!.padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: "%7.3f s  (cpu %6.2f s)  peak %4d MiB", r.seconds, r.cpu, r.peak / 1024))
    }
    // Wall time is the target's measure; CPU time (user + system of the whole process) is the
    // steadier one on a shared machine, so both ratios are printed.
    func ratio(_ x: String, _ y: String) -> String {
        String(format: "%.3f× (cpu %.3f×)", best[x]!.seconds / best[y]!.seconds, best[x]!.cpu / best[y]!.cpu)
    }
    print("  title b/a \(ratio("b", "a")), target ≤ 1.15×")
    print("  watermark c/a \(ratio("c", "a")), target ≤ 1.05×")
    print("  title vs ffmpeg drawtext b/d \(ratio("b", "d")), target ≤ 1×")
    print("  watermark vs ffmpeg overlay c/e \(ratio("c", "e"))")
}

/// The bench's clips, music, voice-over and 15 Seconds timeline, made once in `dir`.
func composeBenchMedia(in dir: URL) throws -> (media: URL, timeline: URL) {
    let media = dir.appendingPathComponent("compose-media")
    try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
    let clips = ["red": "0", "green": "120", "blue": "240"]
    for (name, hue) in clips.sorted(by: { $0.key < $1.key }) {
        let file = media.appendingPathComponent("\(name).mp4")
        if FileManager.default.fileExists(atPath: file.path) { continue }
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30:d=5",
                               "-vf", "hue=h=\(hue)", "-c:v", "libx264", "-preset", "veryfast", "-g", "30", "-pix_fmt", "yuv420p",
                               "-video_track_timescale", "600", file.path])
    }
    for (name, frequency, seconds) in [("music.m4a", 440, 15), ("voice.m4a", 1000, 3)] {
        let file = media.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: file.path) { continue }
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                               "sine=frequency=\(frequency):sample_rate=48000:d=\(seconds)", "-af", "volume=0.5", "-ac", "2",
                               "-c:a", "aac", "-b:a", "128k", file.path])
    }
    let timeline = media.appendingPathComponent("fifteen-seconds.json")
    try Data("""
    {
      "videos": [ {"file": "red.mp4"}, {"file": "green.mp4"}, {"file": "blue.mp4"} ],
      "transitions": [ {"type": "dissolve", "duration": 1} ],
      "music": [ {"file": "music.m4a", "duration": 13} ],
      "voiceOvers": [ {"file": "voice.m4a", "at": 2} ],
      "renderSize": [1280, 720],
      "frameRate": 30
    }
    """.utf8).write(to: timeline)
    return (media, timeline)
}

/// The one ffmpeg command making the 15 Seconds output: `videoTail` is appended to the video
/// chain after the second xfade (a drawtext, an overlay of input 5), `extraInputs` follow the
/// five media inputs.
func ffmpegComposeCommand(media: URL, output: String, videoTail: String = "", extraInputs: [String] = []) -> [String] {
    // The music's gain as the timeline builds it: ducking 1 → 0.2 over [1.5, 2), 0.2 over [2, 5),
    // back to 1 over [5, 5.5); `eval=frame` evaluates it once per audio frame.
    let duck = "if(lt(t,1.5),1,if(lt(t,2),1-1.6*(t-1.5),if(lt(t,5),0.2,if(lt(t,5.5),0.2+1.6*(t-5),1))))"
    let graph = "[0:v][1:v]xfade=transition=fade:duration=1:offset=4[ab];[ab][2:v]xfade=transition=fade:duration=1:offset=8"
        + videoTail + ",format=yuv420p[v];[3:a]atrim=0:13,volume='\(duck)':eval=frame[m];[4:a]adelay=2000|2000[vo];"
        + "[m][vo]amix=inputs=2:duration=first:normalize=0[a]"
    return ["ffmpeg", "-v", "error", "-nostdin", "-y"] + ["red", "green", "blue"].flatMap { ["-i", media.appendingPathComponent("\($0).mp4").path] }
        + ["-i", media.appendingPathComponent("music.m4a").path, "-i", media.appendingPathComponent("voice.m4a").path] + extraInputs
        + ["-filter_complex", graph, "-map", "[v]", "-map", "[a]", "-r", "30", "-c:v", "libx264", "-preset", "fast", "-profile:v", "high",
           "-b:v", "5M", "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-movflags", "+faststart", output]
}

/// Runs a command (the first element is looked up on PATH) with its output discarded (standard
/// error to `errors` when given); returns its wall time, its CPU time (user + system) and its peak
/// resident memory (the kernel's own account of the child, from wait4; it starts from this
/// process's own peak, which the child's address space inherits at exec — run it from a process
/// that has stayed small). Spawned and reaped directly: Foundation's `Process.waitUntilExit` can
/// miss the exit of a script that leaves daemons running behind it.
@discardableResult
func measuredRun(_ command: [String], errors: URL? = nil) throws -> (seconds: Double, peakKiB: Int, cpu: Double) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    if let errors { posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let started = DispatchTime.now().uptimeNanoseconds
    let spawned = posix_spawnp(&pid, command[0], &actions, nil, &argv, environ)
    guard spawned == 0 else { throw DemoError("cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    // WIFEXITED && WEXITSTATUS == 0, spelled out (the macros do not import).
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
        throw DemoError("\(command.joined(separator: " ")) failed (status \(status))")
    }
    func time(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return (seconds, Int(usage.ru_maxrss), time(usage.ru_utime) + time(usage.ru_stime))
}
