// `avtool play` end to end, as a person uses it: a child process against the test services
// (Xvfb, PulseAudio's null sink), its window grabbed from the X screen and its keys typed with
// xdotool. In the capture suite: it plays into the shared sink and opens windows on the shared
// screen, as the capture tests do.
import Foundation
import Synchronization
import Testing
import TestSupport

/// A running `avtool play`, its standard error collected as it comes.
/// @unchecked Sendable: the Process is only started and waited on by the test that made it.
private final class RunningTool: @unchecked Sendable {
    let process: Process
    private final class Collected: Sendable {
        let data = Mutex(Data())
    }

    private let collected = Collected()

    init(_ arguments: [String], services: CaptureServices, environment: [String: String]? = nil) throws {
        let executable = try #require(AssetWriterFaultTests.avtool, "avtool is not built (swift build --build-tests builds it)")
        let process = Process()
        process.executableURL = executable
        process.arguments = ["play"] + arguments
        process.environment = environment ?? services.environment
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        self.process = process
        let collected = self.collected
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            collected.data.withLock { $0.append(data) }
        }
        try process.run()
    }

    /// What it printed so far, status-line updates as separate lines.
    var text: String { String(decoding: collected.data.withLock { $0 }, as: UTF8.self).replacingOccurrences(of: "\r", with: "\n") }
    var lastStatus: String { text.split(separator: "\n").last.map(String.init) ?? "" }

    /// Waits for the process to end (at most `timeout` s, then kills it); its exit status.
    func wait(timeout: Double = 20) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

extension CaptureTests {
    @Suite("avtool play", .serialized, .enabled(if: CaptureServices.shouldRun,
                                                "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
    struct PlayToolTests {
        /// 4 s of black 320×240 video with silent sound: the controls are the only thing drawn.
        static let black: URL = {
            let url = PlayerMedia.dir.appendingPathComponent("black.mp4")
            if !FileManager.default.fileExists(atPath: url.path) {
                GeneratorMedia.ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=320x240:r=30:d=4",
                                       "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-shortest",
                                       "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", url.path])
            }
            return url
        }()

        @Test func soundOnlyPlaysAndQuitsWhenAsked() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let tool = try RunningTool(["--no-window", "--stats", "--stop-after", "1.5", PlayerMedia.clip(seconds: 4).path],
                                       services: services)
            #expect(tool.wait() == 0, "\(tool.text)")
            #expect(tool.text.contains("playing "))
            let lines = tool.text.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.contains("/ 0:04.0") && $0.contains("dropped 0") }, "\(tool.text)")
            // The summary --stats prints at the end.
            #expect(tool.lastStatus.hasPrefix("avtool: stats: shown "), "\(tool.lastStatus)")
        }

        /// The sound server killed mid-play (SIGKILL, as a crash): the item fails with
        /// `mediaServicesWereReset` saying the server went away, the tool prints it and exits 1 —
        /// no hang, no crash (before, the flushed sound read as a truncated file).
        @Test func soundServerKilledMidPlayIsAClearError() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let daemon = try PrivatePulseDaemon()
            defer { daemon.kill() }
            var environment = services.environment
            environment.merge(daemon.environment) { _, new in new }
            let tool = try RunningTool(["--no-window", "--stats", PlayerMedia.clip(seconds: 4).path], services: services, environment: environment)
            // Playing: a few status lines (about every quarter second).
            #expect(waitUntil(timeout: 10) { tool.text.components(separatedBy: " / 0:04.0").count > 3 }, "\(tool.text)")
            // Its sound goes to the test's own daemon.
            #expect(!(try daemon.run("pactl", ["list", "short", "sink-inputs"]).output.isEmpty))
            daemon.kill()
            #expect(tool.wait(timeout: 10) == 1, "\(tool.text)")
            #expect(tool.text.contains("PulseAudio server went away") && tool.text.contains("-11819"), "\(tool.text)")
        }

        @Test func missingFileSaysSoAndFails() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let tool = try RunningTool(["--no-window", "/nonexistent/movie.mp4"], services: services)
            #expect(tool.wait() == 1)
            #expect(tool.text.contains("no such file"), "\(tool.text)")
        }

        /// Releases keys a previous xdotool may have left down in the X server (a press sent to a
        /// window that closed on it never got its release).
        private func releaseKeys(_ services: CaptureServices) {
            _ = try? TestTools.run("env", ["DISPLAY=\(services.display)", "xdotool", "keyup", "q", "space"])
        }

        @Test func windowShowsThePictureWithControlsAndTakesKeys() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            releaseKeys(services)
            defer { releaseKeys(services) }
            let tool = try RunningTool(["--stop-after", "15", Self.black.path], services: services)
            defer { _ = tool.wait(timeout: 1) }
            // The window opens at the layer's frame: the screen's top-left corner, 320×240.
            #expect(waitUntil { tool.text.contains("0:00.") })
            #expect(waitUntil { tool.lastStatus.contains("0:01.") })
            let window = (x: 0, y: 0, width: 320, height: 240)
            let screenshot = PlayerMedia.dir.appendingPathComponent("avtool-play.png")
            try ScreenJudge.saveScreenshot(services.display, window, to: screenshot.path)
            let pixels = try ScreenJudge.grab(services.display, window)
            func level(_ x: Int, _ y: Int) -> Int { Int(pixels[(y * window.width + x) * 3]) }
            // The picture (black) above the controls; the bar 52 px high, 12 px from the bottom;
            // its scrubber 10 px into it: played part near white, the rest grey.
            #expect(level(160, 60) < 20, "picture at (160, 60): \(level(160, 60))")
            let trackY = 240 - 12 - 52 + 12
            #expect(level(30, trackY) > 200, "played part of the scrubber: \(level(30, trackY)) (screenshot \(screenshot.path))")
            #expect((40...130).contains(level(280, trackY)), "rest of the scrubber: \(level(280, trackY))")
            // Space pauses (the status line says so and the time stands); q quits.
            let id = try TestTools.runText("env", ["DISPLAY=\(services.display)", "xdotool", "search", "--name", "avtool play"])
            let windowID = try #require(id.output.split(separator: "\n").first.map(String.init))
            _ = try TestTools.run("env", ["DISPLAY=\(services.display)", "xdotool", "key", "--window", windowID, "space"])
            #expect(waitUntil { tool.lastStatus.contains("❚❚") }, "\(tool.lastStatus)")
            let paused = tool.lastStatus
            usleep(600_000)
            #expect(tool.lastStatus == paused)
            _ = try TestTools.run("env", ["DISPLAY=\(services.display)", "xdotool", "key", "--window", windowID, "q"])
            #expect(tool.wait(timeout: 5) == 0)
        }

        /// 8 s of mid-grey 640×360 video with chapters at 0, 3 and 6 s, and a SubRip side-car
        /// whose one cue shows from 0 to 8 s.
        static let greyWithChapters: (movie: URL, subtitles: URL) = {
            let dir = PlayerMedia.dir
            let movie = dir.appendingPathComponent("grey-chapters.mp4")
            let subtitles = dir.appendingPathComponent("grey-chapters.srt")
            try? "1\n00:00:00,000 --> 00:00:08,000\nSubtitle check\nsecond line\n\n".write(to: subtitles, atomically: true, encoding: .utf8)
            if !FileManager.default.fileExists(atPath: movie.path) {
                let chapters = dir.appendingPathComponent("grey-chapters.txt")
                var text = ";FFMETADATA1\n"
                for (i, start) in [0, 3000, 6000].enumerated() {
                    text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(start)\nEND=\(start + 3000)\ntitle=Part \(i + 1)\n"
                }
                try? text.write(to: chapters, atomically: true, encoding: .utf8)
                GeneratorMedia.ffmpeg(["-f", "lavfi", "-i", "color=c=0x808080:s=640x360:r=30:d=8",
                                       "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-i", chapters.path,
                                       "-map", "0:v", "-map", "1:a", "-map_metadata", "2", "-shortest",
                                       "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", movie.path])
            }
            return (movie, subtitles)
        }()

        /// Pixels of the caption area (above the control bar, centred): dark (the caption box)
        /// and bright (its text).
        private func captionPixels(_ services: CaptureServices) throws -> (dark: Int, bright: Int) {
            let area = (x: 170, y: 200, width: 300, height: 88)
            let pixels = try ScreenJudge.grab(services.display, area)
            var dark = 0, bright = 0
            for i in stride(from: 0, to: pixels.count, by: 3) {
                let v = Int(pixels[i])
                if v < 60 { dark += 1 } else if v > 200 { bright += 1 }
            }
            return (dark, bright)
        }

        @Test func sideCarSubtitlesShowAndTurnOffAndChaptersJump() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            releaseKeys(services)
            defer { releaseKeys(services) }
            let media = Self.greyWithChapters
            let tool = try RunningTool(["--stop-after", "20", "--sub-file", media.subtitles.path, media.movie.path], services: services)
            defer { _ = tool.wait(timeout: 1) }
            #expect(waitUntil { tool.lastStatus.contains("0:00.") }, "\(tool.text)")
            // The text on its box, above the controls (which show for the first seconds).
            #expect(waitUntil(timeout: 5) { ((try? captionPixels(services))?.bright ?? 0) > 30 })
            let shown = try captionPixels(services)
            let screenshot = PlayerMedia.dir.appendingPathComponent("avtool-play-subtitles.png")
            try ScreenJudge.saveScreenshot(services.display, (x: 0, y: 0, width: 640, height: 360), to: screenshot.path)
            #expect(shown.dark > 2000 && shown.bright > 30, "caption box \(shown) (screenshot \(screenshot.path))")
            let id = try TestTools.runText("env", ["DISPLAY=\(services.display)", "xdotool", "search", "--name", "avtool play"])
            let windowID = try #require(id.output.split(separator: "\n").first.map(String.init))
            // Paused, PgDn goes to the next chapter's start, 3 s.
            _ = try TestTools.run("env", ["DISPLAY=\(services.display)", "xdotool", "key", "--window", windowID, "space"])
            #expect(waitUntil { tool.lastStatus.contains("❚❚") }, "\(tool.lastStatus)")
            _ = try TestTools.run("env", ["DISPLAY=\(services.display)", "xdotool", "key", "--window", windowID, "Next"])
            #expect(waitUntil { tool.lastStatus.contains("0:03.0 /") }, "\(tool.lastStatus)")
            // j: the next subtitle choice after the only track is off — the box goes.
            _ = try TestTools.run("env", ["DISPLAY=\(services.display)", "xdotool", "key", "--window", windowID, "j"])
            #expect(waitUntil(timeout: 5) { ((try? captionPixels(services))?.dark ?? .max) < 200 }, "\((try? captionPixels(services)).map { "\($0)" } ?? "")")
            _ = try TestTools.run("env", ["DISPLAY=\(services.display)", "xdotool", "key", "--window", windowID, "q"])
            #expect(tool.wait(timeout: 5) == 0)
        }
    }
}
