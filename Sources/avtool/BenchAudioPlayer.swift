// `avtool bench --only audio-player`: how soon sound is heard — AVAudioPlayer's play() to the first
// sample at the sink in this process, and a player command's launch to its first sound
// (`avtool play-audio` against PulseAudio's `paplay` and `ffplay -nodisp`), measured on the test
// services' null sink by recording its monitor through the capture pipeline's PulseSource, whose
// chunks carry the host time they were played at.
import AVFoundation
import Foundation
internal import MediaEngine
import Synchronization

/// The monitor's sound as (host time of the first frame, first channel's samples) per chunk.
private final class MonitorOnsets: Sendable {
    private let chunks = Mutex<[(start: Double, samples: [Float])]>([])
    private let source = PulseSource(sourceName: "@DEFAULT_MONITOR@", formats: [LiveAudioFormat(sampleRate: 48_000, channelCount: 1)])

    func start() throws {
        try source.start(format: LiveAudioFormat(sampleRate: 48_000, channelCount: 1), clock: CMClockGetHostTimeClock(),
                         deliver: { [weak self] chunk in
                             let samples = chunk.samples.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
                             self?.chunks.withLock { $0.append((chunk.pts.seconds, samples)) }
                         }, failed: { _ in })
    }

    func stop() { source.stop() }

    /// The host time of the first sample louder than 0.1 after `after`.
    func onset(after: Double) -> Double? {
        for chunk in chunks.withLock({ $0 }) where chunk.start + Double(chunk.samples.count) / 48_000 > after {
            if let i = chunk.samples.firstIndex(where: { abs($0) > 0.1 }) {
                let t = chunk.start + Double(i) / 48_000
                if t > after { return t }
            }
        }
        return nil
    }
}

func benchAudioPlayer(in dir: URL, repeats: Int) throws {
    let services = ToolCaptureServices()
    if let problem = services.start() {
        print("audio-player: skipped — \(problem)")
        return
    }
    defer { services.stop() }
    let tone = dir.appendingPathComponent("player-tone.wav")
    try runTool("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=48000:c=stereo:d=1",
                           "-c:a", "pcm_s16le", tone.path])
    let monitor = MonitorOnsets()
    try monitor.start()
    defer { monitor.stop() }
    // The capture clock's anchoring settles in the first seconds of a recording.
    Thread.sleep(forTimeInterval: 2.5)
    let host = { CMClockGetTime(CMClockGetHostTimeClock()).seconds }

    /// The best (lowest) of `repeats` start latencies of `start`, in milliseconds.
    func latency(_ start: () throws -> Void) throws -> Double? {
        var best: Double?
        for _ in 0..<max(1, repeats) {
            let began = host()
            try start()
            Thread.sleep(forTimeInterval: 0.3)
            if let heard = monitor.onset(after: began) { best = min(best ?? .infinity, (heard - began) * 1000) }
        }
        return best
    }

    func command(_ tool: String, _ arguments: [String]) throws -> () throws -> Void {
        {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        }
    }

    print("audio player start, ms (best of \(repeats))              ours     peer    ratio")
    let player = try AVAudioPlayer(contentsOf: tone)
    let inProcess = try latency {
        player.currentTime = 0
        player.prepareToPlay()
        let t0 = host()
        player.play()
        // play() returns at once: the rest of the second plays on its own.
        Thread.sleep(forTimeInterval: max(0, 1.1 - (host() - t0)))
        player.stop()
    }
    print("AVAudioPlayer play() → first sound".padding(toLength: 52, withPad: " ", startingAt: 0)
          + (inProcess.map { String(format: "%7.1f", $0) } ?? "      —"))
    let avtool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let ours = try latency(try command(avtool, ["play-audio", "--quiet", tone.path]))
    for (label, tool, arguments) in [("launch → sound, vs paplay", "/usr/bin/paplay", [tone.path]),
                                     ("launch → sound, vs ffplay -nodisp", "/usr/bin/ffplay",
                                      ["-v", "error", "-nodisp", "-autoexit", tone.path])] {
        guard FileManager.default.isExecutableFile(atPath: tool) else { continue }
        let theirs = try latency(try command(tool, arguments))
        var line = "avtool play-audio \(label)".padding(toLength: 52, withPad: " ", startingAt: 0)
        line += (ours.map { String(format: "%7.1f", $0) } ?? "      —") + "  " + (theirs.map { String(format: "%7.1f", $0) } ?? "      —")
        if let ours, let theirs, theirs > 0 { line += String(format: "  %6.2f×", ours / theirs) }
        print(line)
    }
}
