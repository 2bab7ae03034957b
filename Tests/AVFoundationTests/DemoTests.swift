// `avtool demo` end to end (the README's first command), on its short generated clip so the test
// stays fast: it exits 0, every output it lists exists and ffprobe reads it as what the demo says
// (a trim of the requested length starting at 0, a 640×360 H.264 + AAC transcode with its
// non-Latin title, an audio-only M4A, PNG images); a source it cannot read makes it exit non-zero
// with the AVError printed.
import Foundation
import Testing
@testable import AVFoundation

@Suite struct DemoTests {
    /// Runs avtool with a deadline (a hang fails the test instead of stalling the suite).
    static func runDemo(_ avtool: URL, _ args: [String], deadline: TimeInterval = 300) throws -> (status: Int32, output: String, finished: Bool) {
        let p = Process()
        p.executableURL = avtool
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        let done = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in done.signal() }
        try p.run()
        let reader = ResultData()
        let reading = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            reader.data = out.fileHandleForReading.readDataToEndOfFile()
            reading.signal()
        }
        let finished = done.wait(timeout: .now() + deadline) == .success
        if !finished { p.terminate(); done.wait() }
        reading.wait()
        return (p.terminationStatus, String(decoding: reader.data, as: UTF8.self), finished)
    }

    final class ResultData: @unchecked Sendable { var data = Data() }

    static func probe(_ url: URL, _ entries: String, stream: String? = nil) throws -> [String] {
        var args = ["-v", "error"]
        if let stream { args += ["-select_streams", stream] }
        args += ["-show_entries", entries, "-of", "default=nw=1", url.path]
        let result = try AssetFixtures.run("ffprobe", args)
        #expect(result.status == 0, "ffprobe reads \(url.lastPathComponent)")
        return result.output.split(separator: "\n").map(String.init)
    }

    @Test func demoRunsTheWholeChainAndEveryOutputIsValid() throws {
        guard MetadataTestSupport.has("ffmpeg"), MetadataTestSupport.has("ffprobe"), let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        let folder = try AssetFixtures.tempDirectory().appendingPathComponent("demo-output")
        let run = try Self.runDemo(avtool, ["demo", "--generated", "--output", folder.path])
        #expect(run.finished, "the demo ends")
        #expect(run.status == 0, "\(run.output)")
        #expect(!run.output.contains("FAILED"))
        for step in ["Info", "Exact thumbnails", "Decode", "Waveform", "Passthrough trim", "640x480 transcode with metadata",
                     "Audio-only AppleM4A export", "Composed clip"] {
            #expect(run.output.contains("ok     \(step)"), "summary lists \(step) as done")
        }

        // Every output the summary lists exists and is valid.
        let listed = run.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix(folder.path + "/") }
        let names = Set(listed.map { URL(fileURLWithPath: $0).lastPathComponent })
        for name in ["thumbnails-sheet.png", "waveform.png", "trim.mp4", "640x480.mp4", "audio.m4a", "thumbnail-08.png", "composed.mp4",
                     "composed-timeline.png", "composed-title.png", "composed-logo.png"] {
            #expect(names.contains(name), "the summary lists \(name)")
        }
        for path in listed {
            let url = URL(fileURLWithPath: path)
            #expect(FileManager.default.fileExists(atPath: path))
            if url.pathExtension == "png" { #expect(try Self.probe(url, "stream=codec_name") == ["codec_name=png"]) }
        }

        // The trim: H.264 copied, starting at 0, lasting the requested second (generated clip: 1.2 s + 1 s).
        let trim = folder.appendingPathComponent("trim.mp4")
        #expect(try Self.probe(trim, "stream=codec_name,start_time", stream: "v:0") == ["codec_name=h264", "start_time=0.000000"])
        let trimDuration = Double(try Self.probe(trim, "format=duration").first?.replacingOccurrences(of: "duration=", with: "") ?? "") ?? 0
        #expect(abs(trimDuration - 1.0) < 0.05)
        #expect(run.output.contains("from 1.200 s (keyframe before it: 1.000 s)"))

        // The transcode: 1280×720 fitted into 640×480 is 640×360, H.264 + AAC, with the metadata.
        let small = folder.appendingPathComponent("640x480.mp4")
        #expect(try Self.probe(small, "stream=codec_name,width,height", stream: "v:0") == ["codec_name=h264", "width=640", "height=360"])
        #expect(try Self.probe(small, "stream=codec_name", stream: "a:0") == ["codec_name=aac"])
        let tags = try Self.probe(small, "format_tags=title,artist,date")
        #expect(tags.contains("TAG:title=ビッグ・バック・バニー（デモ）"))
        #expect(tags.contains("TAG:artist=Blender Foundation"))
        #expect(tags.contains { $0.hasPrefix("TAG:date=20") })

        // The composed clip: three 1.2 s cuts of the 3 s clip joined by 0.4 s transitions (2.8 s),
        // H.264 at the sample's 1280×720 fitted into 960×540, with the ducked music as AAC.
        let composed = folder.appendingPathComponent("composed.mp4")
        #expect(try Self.probe(composed, "stream=codec_name,width,height", stream: "v:0") == ["codec_name=h264", "width=960", "height=540"])
        #expect(try Self.probe(composed, "stream=codec_name", stream: "a:0") == ["codec_name=aac"])
        let composedDuration = Double(try Self.probe(composed, "format=duration").first?.replacingOccurrences(of: "duration=", with: "") ?? "") ?? 0
        #expect(abs(composedDuration - 2.8) <= 0.05, "composed duration \(composedDuration)")
        #expect(run.output.contains("joined by a dissolve and push-left, 2.80 s"))

        // The M4A: audio only, AAC.
        let audio = folder.appendingPathComponent("audio.m4a")
        #expect(try Self.probe(audio, "stream=codec_type,codec_name") == ["codec_name=aac", "codec_type=audio"])
        try? FileManager.default.removeItem(at: folder.deletingLastPathComponent())
    }

    @Test func aFailingStepPrintsItsErrorAndTheDemoExitsNonZero() throws {
        guard let avtool = AssetWriterFaultTests.avtool else { return }
        let directory = try AssetFixtures.tempDirectory()
        let bad = directory.appendingPathComponent("not-media.mp4")
        try Data("this is not a movie".utf8).write(to: bad)
        let run = try Self.runDemo(avtool, ["demo", "--source", bad.path, "--output", directory.appendingPathComponent("out").path])
        #expect(run.finished)
        #expect(run.status != 0)
        #expect(run.output.contains("FAILED Info"))
        #expect(run.output.contains("AVFoundationErrorDomain -11828"), "the AVError is printed")
        #expect(run.output.contains("step(s) failed"))
        try? FileManager.default.removeItem(at: directory)
    }
}
