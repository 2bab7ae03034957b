// `avtool bench --only sync`: audio/video sync as a person sees and hears it. A clip with a white
// flash and a 1 kHz beep at the start of every second plays in each player (`avtool play`,
// `ffplay`, `mpv`) while ffmpeg records the player's window from the X screen (x11grab, 60 fps)
// and the sound from the default sink's monitor, in one process on one clock. For each second the
// offset is the beep's onset minus the flash's first grabbed frame (positive: the sound is late);
// reported per player: mean, range and drift (least-squares slope, ms per minute).
//
// The instrument is not perfect and the same for every player: a flash is grabbed up to one grab
// interval (16.7 ms) after it was drawn, and a null sink's monitor hands out sound in blocks, which
// shows as a sawtooth of about ±10 ms in every player's offsets. Compare players in one run.
import Foundation

func benchSync(in dir: URL, seconds: Double) throws {
    let services = ToolCaptureServices()
    if let problem = services.start() {
        print("sync: skipped — \(problem)")
        return
    }
    defer { services.stop() }
    let length = max(5, Int(seconds.rounded()))
    let clip = dir.appendingPathComponent("sync-flash-beep-\(length)s.mp4")
    if !FileManager.default.fileExists(atPath: clip.path) {
        try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y",
                               "-f", "lavfi", "-i", "color=c=black:s=640x360:r=30:d=\(length)",
                               "-f", "lavfi", "-i", "sine=f=1000:r=48000:d=\(length)",
                               "-filter_complex", "[0:v]drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='lt(mod(t,1),0.03)'[v];"
                                   + "[1:a]volume=volume=0:enable='gte(mod(t,1),0.03)'[a]",
                               "-map", "[v]", "-map", "[a]", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
                               "-c:a", "aac", "-b:a", "128k", clip.path])
    }
    let avtool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let players: [(label: String, command: [String])] = [
        ("ours (avtool play)", [avtool, "play", clip.path, "--quiet"]),
        ("ffplay", ["ffplay", "-v", "error", "-autoexit", "-left", "0", "-top", "0", "-noborder", clip.path]),
        ("mpv (--vo=x11)", ["mpv", "--no-config", "--vo=x11", "--ao=pulse", "--geometry=+0+0", "--no-border", "--msg-level=all=error", clip.path]),
    ]
    print("sync, \(length) s flash + beep each second         mean ms   min ms   max ms   drift ms/min   seconds")
    for (label, command) in players {
        let recording = dir.appendingPathComponent("sync-\(label.split(separator: " ")[0]).mkv")
        guard let offsets = try record(command, into: recording) else {
            print("\(label): did not run")
            continue
        }
        guard offsets.count >= 3 else {
            print("\(label): only \(offsets.count) flash/beep pairs were recorded (\(recording.path))")
            continue
        }
        let values = offsets.map(\.offset)
        let mean = values.reduce(0, +) / Double(values.count)
        print(label.padding(toLength: 44, withPad: " ", startingAt: 0)
              + String(format: "%8.1f %8.1f %8.1f %14.1f %9d", mean, values.min()!, values.max()!, drift(offsets), offsets.count))
    }
}

/// Plays with `command` while recording the screen's top-left 640×360 and the default monitor;
/// the offsets (ms) of each second's beep from its flash, at the flash's time (s). Nil when the
/// player did not start.
private func record(_ command: [String], into recording: URL) throws -> [(time: Double, offset: Double)]? {
    try? FileManager.default.removeItem(at: recording)
    let recorder = Process()
    recorder.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    let display = ProcessInfo.processInfo.environment["DISPLAY"] ?? ":0"
    recorder.arguments = ["-v", "error", "-y", "-copyts",
                          "-thread_queue_size", "512", "-f", "x11grab", "-framerate", "60", "-video_size", "640x360",
                          "-draw_mouse", "0", "-i", "\(display)+0,0",
                          "-thread_queue_size", "512", "-f", "pulse", "-fragment_size", "768", "-i", "@DEFAULT_MONITOR@",
                          "-c:v", "libx264", "-preset", "ultrafast", "-qp", "30", "-c:a", "pcm_s16le", recording.path]
    let input = Pipe()
    recorder.standardInput = input
    recorder.standardOutput = FileHandle.nullDevice
    recorder.standardError = FileHandle.nullDevice
    try recorder.run()
    usleep(1_500_000)
    let ran = (try? measuredRun(command)) != nil
    usleep(1_000_000)
    input.fileHandleForWriting.write(Data("q".utf8))
    recorder.waitUntilExit()
    guard ran else { return nil }
    let flashes = onsets(probeColumns(["-f", "lavfi", "-i", "movie=\(recording.path),crop=64:64:288:148,signalstats",
                                       "-show_entries", "frame=pts_time:frame_tags=lavfi.signalstats.YAVG"]),
                         above: 128, quiet: 0.5)
    let beeps = onsets(probeColumns(["-f", "lavfi", "-i",
                                     "amovie=\(recording.path),asetpts=N/SR/TB+STARTPTS,asetnsamples=n=48:p=0,"
                                         + "astats=metadata=1:reset=1:measure_overall=none:measure_perchannel=RMS_level",
                                     "-show_entries", "frame=pts_time:frame_tags=lavfi.astats.1.RMS_level"]),
                       above: -30, quiet: 0.5)
    // The first second's flash is the first picture, which every player shows before it starts
    // playing: it says when the window opened, not when the clock passed 0. It is left out.
    return flashes.dropFirst().compactMap { flash in
        guard let beep = beeps.min(by: { abs($0 - flash) < abs($1 - flash) }), abs(beep - flash) < 0.3 else { return nil }
        return (flash, (beep - flash) * 1000)
    }
}

/// `ffprobe … -of csv=p=0` rows as (time, value); "-inf" levels as -200.
private func probeColumns(_ arguments: [String]) -> [(Double, Double)] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
    process.arguments = ["-v", "error"] + arguments + ["-of", "csv=p=0"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return [] }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
        let parts = line.split(separator: ",")
        guard parts.count >= 2, let t = Double(parts[0]) else { return nil }
        return (t, parts[1] == "-inf" ? -200 : Double(parts[1]) ?? -200)
    }
}

/// The times the value rises above `above` after at least `quiet` seconds below it.
private func onsets(_ rows: [(Double, Double)], above: Double, quiet: Double) -> [Double] {
    var out: [Double] = []
    var lastAbove = -Double.infinity
    for (t, v) in rows where v > above {
        if t - lastAbove > quiet { out.append(t) }
        lastAbove = t
    }
    return out
}

/// The least-squares slope of the offsets over time, in ms per minute.
private func drift(_ points: [(time: Double, offset: Double)]) -> Double {
    let n = Double(points.count)
    let mt = points.map(\.time).reduce(0, +) / n, mo = points.map(\.offset).reduce(0, +) / n
    let num = points.map { ($0.time - mt) * ($0.offset - mo) }.reduce(0, +)
    let den = points.map { ($0.time - mt) * ($0.time - mt) }.reduce(0, +)
    return den > 0 ? num / den * 60 : 0
}
