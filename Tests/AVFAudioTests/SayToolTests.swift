// `avtool say`: files ffprobe reads with the voice's rate and a real duration, macOS's voice
// list, the same speech as the espeak-ng CLI with the same voice, and clear errors.
import Foundation
import Testing
import TestSupport

@Suite("avtool say") struct SayToolTests {
    static let tool = TestTools.root.appendingPathComponent(".build/debug/avtool")

    static func say(_ args: [String]) throws -> TestTools.TimedRun {
        try #require(FileManager.default.isExecutableFile(atPath: tool.path), "avtool is not built (swift build --build-tests builds it)")
        let run = try TestTools.run(tool, ["say"] + args, deadline: 120)
        #expect(run.finished && run.exited, "avtool say \(args) did not finish cleanly")
        return run
    }

    /// The samples of a WAV file: its `data` chunk (FFmpeg's muxer puts a LIST chunk before it).
    static func dataChunk(_ wav: Data) -> Data? {
        let bytes = [UInt8](wav)
        var at = 12
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            if bytes[at..<(at + 4)].elementsEqual("data".utf8) { return Data(bytes[(at + 8)..<min(bytes.count, at + 8 + size)]) }
            at += 8 + size + (size & 1)
        }
        return nil
    }

    @Test func writesAWAVFileFFprobeReads() throws {
        let dir = try TestTools.temporaryDirectory("say")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("x.wav")
        let run = try Self.say(["-v", "en-us", "-o", out.path, "Hello AV Foundation. How are you?"])
        #expect(run.status == 0, "\(run.errors)")
        #expect(try TestTools.probe(out, "stream=sample_rate", stream: 0).value == "22050")
        #expect(try TestTools.probe(out, "stream=codec_name", stream: 0).value == "pcm_s16le")
        let duration = try #require(Double(try TestTools.probe(out, "format=duration").value))
        #expect(duration > 1 && duration < 10)
        // The same samples as espeak-ng's own CLI with that voice and rate.
        let theirs = dir.appendingPathComponent("espeak.wav")
        #expect(try TestTools.run("espeak-ng", ["-v", "en-us", "-w", theirs.path, "Hello AV Foundation. How are you?"]).status == 0)
        let ours = try #require(Self.dataChunk(try Data(contentsOf: out)))
        let reference = try #require(Self.dataChunk(try Data(contentsOf: theirs)))
        #expect(ours.count > 22050 && ours == reference, "speech differs from espeak-ng -w")
    }

    @Test func dataFormatRateAndOtherContainers() throws {
        let dir = try TestTools.temporaryDirectory("say")
        defer { try? FileManager.default.removeItem(at: dir) }
        let float = dir.appendingPathComponent("f.caf")
        #expect(try Self.say(["--data-format", "LEF32@44100", "-o", float.path, "Testing one two."]).status == 0)
        #expect(try TestTools.probe(float, "stream=sample_rate", stream: 0).value == "44100")
        #expect(try TestTools.probe(float, "stream=codec_name", stream: 0).value == "pcm_f32le")
        let aiff = dir.appendingPathComponent("a.aiff")
        #expect(try Self.say(["-o", aiff.path, "Testing one two."]).status == 0)
        #expect(try TestTools.probe(aiff, "stream=codec_name", stream: 0).value == "pcm_s16be")
        let m4a = dir.appendingPathComponent("a.m4a")
        #expect(try Self.say(["-o", m4a.path, "Testing one two."]).status == 0)
        #expect(try TestTools.probe(m4a, "stream=codec_name", stream: 0).value == "aac")
        // A faster rate gives a shorter file.
        let slow = dir.appendingPathComponent("slow.wav"), fast = dir.appendingPathComponent("fast.wav")
        #expect(try Self.say(["-r", "100", "-o", slow.path, "Testing one two three four."]).status == 0)
        #expect(try Self.say(["-r", "400", "-o", fast.path, "Testing one two three four."]).status == 0)
        let sizes = try [slow, fast].map { try Data(contentsOf: $0).count }
        #expect(sizes[0] > 2 * sizes[1])
        // Text from a file.
        let text = dir.appendingPathComponent("t.txt")
        try Data("From a file.".utf8).write(to: text)
        let fromFile = dir.appendingPathComponent("file.wav")
        #expect(try Self.say(["-f", text.path, "-o", fromFile.path]).status == 0)
        #expect(try Data(contentsOf: fromFile).count > 22050)
    }

    /// Speaking aloud with no sound server: the null output keeps time and say ends when the
    /// delegate hears the end (its progress meter reaches 100 %).
    @Test func speaksAloudWithNoSoundServer() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.tool.path), "avtool is not built")
        let process = Process()
        process.executableURL = Self.tool
        process.arguments = ["say", "--progress", "One two three."]
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = "unix:/nonexistent/avf-speech-tests"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("Progress: 100%"), "\(text)")
        #expect(!process.isRunning && process.terminationStatus == 0)
    }

    @Test func listsVoicesAsMacOSDoes() throws {
        let run = try Self.say(["-v", "?"])
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n")
        #expect(lines.count > 10)
        // "English (America)   en_US    # Hello! My name is English (America)."
        let us = try #require(lines.first { $0.hasPrefix("English (America) ") })
        #expect(us.contains(" en_US ") && us.contains("# "))
        #expect(lines.allSatisfy { $0.contains(" # ") })
    }

    @Test func badInputFailsWithAReason() throws {
        let dir = try TestTools.temporaryDirectory("say")
        defer { try? FileManager.default.removeItem(at: dir) }
        let unknown = try Self.say(["-v", "Nobody", "-o", dir.appendingPathComponent("x.wav").path, "hi"])
        #expect(unknown.status != 0 && unknown.errors.contains("Nobody"))
        let badFormat = try Self.say(["--data-format", "XYZ", "-o", dir.appendingPathComponent("x.wav").path, "hi"])
        #expect(badFormat.status != 0 && badFormat.errors.contains("data-format"))
        let badType = try Self.say(["-o", dir.appendingPathComponent("x.xyz").path, "hi"])
        #expect(badType.status != 0 && badType.errors.contains("x.xyz"))
        let missing = try Self.say(["-f", dir.appendingPathComponent("none.txt").path, "-o", dir.appendingPathComponent("y.wav").path])
        #expect(missing.status != 0 && missing.errors.contains("none.txt"))
        let badRate = try Self.say(["-r", "-5", "hi"])
        #expect(badRate.status != 0)
    }
}
