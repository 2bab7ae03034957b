// What every test target shares (issue 11: once, instead of copies in each test file): running
// command-line tools (the ffmpeg CLI makes fixtures, ffprobe judges results), fresh temporary
// directories, ffprobe queries, the repository's fixture paths and the numbered test video.
import Foundation

package enum TestTools {
    /// The repository root (this file is Tests/TestSupport/TestTools.swift).
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A downloaded fixture's place (.cache/fixtures; scripts/setup.sh downloads them), whether
    /// or not it is there.
    package static func fixturePath(_ name: String) -> URL { root.appendingPathComponent(".cache/fixtures/\(name)") }

    /// Whether the ffmpeg CLI is installed.
    package static var hasFFmpeg: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") }

    /// What a run keeps of the tool's output streams (the other goes to /dev/null).
    package enum Capture: Sendable { case standardOutput, standardError }

    /// Runs a tool — a path, or a name looked up on PATH — and returns its exit status and the
    /// captured stream (standard output unless told).
    @discardableResult
    package static func run(_ tool: String, _ arguments: [String], capture: Capture = .standardOutput) throws
        -> (status: Int32, output: Data) {
        let process = Process()
        if tool.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        let pipe = Pipe()
        switch capture {
        case .standardOutput:
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
        case .standardError:
            process.standardError = pipe
            process.standardOutput = FileHandle.nullDevice
        }
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// What a run with a deadline gave: the exit status, both output streams as text, whether
    /// it finished in time (else it was terminated) and whether it exited rather than crashed.
    package struct TimedRun: Sendable {
        package var status: Int32
        package var output: String
        package var errors: String
        package var finished: Bool
        package var exited: Bool
    }

    /// Runs an executable, terminating it after `seconds`; its standard output is discarded
    /// unless `keepingOutput` (the pipe holds 64 KiB until the run ends).
    package static func run(_ executable: URL, _ arguments: [String], deadline seconds: TimeInterval,
                            keepingOutput: Bool = true) throws -> TimedRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = keepingOutput ? output : FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let finished = !process.isRunning
        if !finished { process.terminate() }
        let out = keepingOutput ? String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) : ""
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return TimedRun(status: process.terminationStatus, output: out, errors: err, finished: finished,
                        exited: process.terminationReason == .exit)
    }

    /// `run` with the captured stream as text.
    @discardableResult
    package static func runText(_ tool: String, _ arguments: [String], capture: Capture = .standardOutput) throws
        -> (status: Int32, output: String) {
        let (status, data) = try run(tool, arguments, capture: capture)
        return (status, String(decoding: data, as: UTF8.self))
    }

    /// A fresh temporary directory named `<prefix>-<UUID>`, removed by the caller.
    package static func temporaryDirectory(_ prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `temporaryDirectory` for callers that let a later write fail instead: the directory's
    /// URL even when it could not be made.
    /// `name` in `dir`, made by ffmpeg from `args` once: written aside and renamed, so tests
    /// running side by side never read it half-written.
    package static func ffmpegFixture(_ name: String, in dir: URL, _ args: [String]) -> URL {
        let url = dir.appendingPathComponent(name)
        guard !FileManager.default.fileExists(atPath: url.path) else { return url }
        let partial = dir.appendingPathComponent("partial-\(UUID().uuidString)-\(name)")
        _ = try? run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + args + [partial.path])
        _ = try? FileManager.default.moveItem(at: partial, to: url)
        return url
    }

    /// Whether `condition` holds within `seconds` (checked every 10 ms).
    package static func waitUntil(_ seconds: Double = 20, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    package static func makeTemporaryDirectory(_ prefix: String) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// ffprobe's value(s) for one entry ("stream=width", "format=duration" …), of one stream when
    /// given, one per line, trimmed.
    package static func probe(_ url: URL, _ entry: String, stream: Int? = nil) throws -> (status: Int32, value: String) {
        var args = ["-v", "error"]
        if let stream { args += ["-select_streams", "\(stream)"] }
        args += ["-show_entries", entry, "-of", "default=nw=1:nk=1", url.path]
        let (status, output) = try runText("ffprobe", args)
        return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The ffmpeg arguments of the numbered test video: 12 s, 30 fps, 320×240 H.264 with
    /// B-frames (3, pyramid) and a keyframe every 48 frames, whose frames carry their own number
    /// — the top 32 rows hold 16 blocks 20 px wide, block k white when bit k of the frame number
    /// is set. The output path follows.
    package static let numberedVideoArguments: [String] = {
        let geq = "geq=lum='if(lt(Y\\,32)\\,255*mod(floor(N/pow(2\\,floor(X/20)))\\,2)\\,mod(X+Y+3*N\\,200)+28)'"
        return ["-f", "lavfi", "-i", "nullsrc=s=320x240:r=30:d=12,format=gray,\(geq),format=yuv420p",
                "-c:v", "libx264", "-preset", "veryfast",
                "-x264-params", "bframes=3:b-adapt=0:keyint=48:min-keyint=48:scenecut=0"]
    }()
}
