// `avtool compose` end to end on the book's 15 Seconds numbers (A11–A13): three solid-colour
// clips joined by 1 s transitions (13 s), 15 s of 440 Hz music trimmed to the video with fades,
// a 3 s 1 kHz voice-over at 2 s ducking the music. The output is judged by ffprobe and by
// ffmpeg's own decode: duration and frame rate, pure clip colours outside transitions, the
// transition frames (dissolve midpoint, push halves, wipe rows), the music's gain envelope
// measured with Goertzel at 440 Hz and the voice-over's level at 1 kHz; `--dump` shows the
// book's instruction ranges; bad timelines fail with a message and write nothing.
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct ComposeToolTests {
    /// Clips and sounds made once per run: 640×360 so the exports stay quick in a debug build.
    static let media: URL? = {
        guard TestTools.hasFFmpeg, let dir = try? TestTools.temporaryDirectory("compose-media") else { return nil }
        for (name, colour) in [("red", "red"), ("green", "0x00FF00"), ("blue", "blue")] {
            let r = try? TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=640x360:r=30:d=5",
                                                  "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "30",
                                                  "-video_track_timescale", "600", dir.appendingPathComponent("\(name).mp4").path])
            guard r?.status == 0 else { return nil }
        }
        for (name, frequency, seconds) in [("music.wav", 440, 15), ("voice.wav", 1000, 3)] {
            let r = try? TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                                                  "sine=frequency=\(frequency):sample_rate=48000:d=\(seconds)", "-af", "volume=0.5",
                                                  "-c:a", "pcm_s16le", dir.appendingPathComponent(name).path])
            guard r?.status == 0 else { return nil }
        }
        return dir
    }()

    static func timeline(_ transition: String, in dir: URL, music: String = #"{"file": "music.wav", "fadeIn": 1.5, "fadeOut": 1.5}"#) throws -> URL {
        let url = dir.appendingPathComponent("timeline-\(transition).json")
        try Data("""
        {
          "videos": [ {"file": "red.mp4"}, {"file": "green.mp4"}, {"file": "blue.mp4"} ],
          "transitions": [ {"type": "\(transition)", "duration": 1} ],
          "music": [ \(music) ],
          "voiceOvers": [ {"file": "voice.wav", "at": 2} ],
          "renderSize": [640, 360], "frameRate": 30
        }
        """.utf8).write(to: url)
        return url
    }

    /// The RGB of pixel (x, y) of the frame shown at `seconds`, decoded by ffmpeg.
    static func pixel(_ movie: URL, at seconds: Double, x: Int, y: Int) throws -> (Int, Int, Int) {
        let (status, data) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-ss", String(seconds), "-i", movie.path,
                                                          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard status == 0, data.count >= 640 * 360 * 3 else { return (-1, -1, -1) }
        let i = (y * 640 + x) * 3
        return (Int(data[i]), Int(data[i + 1]), Int(data[i + 2]))
    }

    /// The RGB bytes of the row `fromBottom` rows above the bottom of a PNG, decoded by ffmpeg.
    static func sheetRow(_ png: URL, fromBottom: Int) throws -> Data {
        let (status, data) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", png.path, "-vf",
                                                          "crop=iw:1:0:ih-\(fromBottom)", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return status == 0 ? data : Data()
    }

    static func close(_ a: (Int, Int, Int), _ b: (Int, Int, Int), _ tolerance: Int = 10) -> Bool {
        abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
    }

    static func compose(_ avtool: URL, _ args: [String]) throws -> TestTools.TimedRun {
        try TestTools.run(avtool, ["compose"] + args, deadline: 300)
    }

    @Test func dissolveTimelineExportsTheBooksNumbers() throws {
        guard let dir = Self.media, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        let out = dir.appendingPathComponent("dissolve.mp4")
        let sheet = dir.appendingPathComponent("dissolve.png")
        let run = try Self.compose(avtool, [try Self.timeline("dissolve", in: dir).path, "-o", out.path, "--dump", "--sheet", sheet.path,
                                            "--replace", "--quiet"])
        #expect(run.finished && run.status == 0, "\(run.output)\(run.errors)")

        // The dump: tracks A and B with empty segments, the book's instruction ranges, ramps.
        let dump = run.output
        for line in ["composition: 13.000 s, 4 tracks", "track 1 video (A)", "track 2 video (B)", "(voice-over)", "(music)",
                     "[5.000, 8.000)        empty", "[0.000, 4.000)        track 1", "[4.000, 5.000)        track 1 over track 2",
                     "[5.000, 8.000)        track 2", "[8.000, 9.000)        track 2 over track 1", "[9.000, 13.000)       track 1",
                     "opacity 1.00 → 0.00 over [4.000, 5.000)", "[1.500, 2.000)        1.00 → 0.20", "validation: ok"] {
            #expect(dump.contains(line), "dump shows \(line)\n\(dump)")
        }
        let (status, png) = try TestTools.runText("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width", "-of", "csv=p=0", sheet.path])
        #expect(status == 0 && png.hasPrefix("png,1600"), "the sheet is a 1600 px PNG: \(png)")
        // The sheet's strip of composed frames (its last 90 rows above the 26 px bottom border)
        // shows, over each time of the 13 s axis (16 px margins), the frame of that time: the
        // clips' colours, and each dissolve blended under its own box ([4, 5): red and green;
        // [8, 9): green and blue) — not the next clip's frame.
        let strip = try Self.sheetRow(sheet, fromBottom: 26 + 45)
        func stripColour(at seconds: Double) -> (Int, Int, Int) {
            let x = Int((16 + seconds * 1568 / 13).rounded())
            return strip.count >= 3 * (x + 1) ? (Int(strip[3 * x]), Int(strip[3 * x + 1]), Int(strip[3 * x + 2])) : (-1, -1, -1)
        }
        for (seconds, colour) in [(2.0, (255, 0, 0)), (6.5, (0, 255, 0)), (11.0, (0, 0, 255))] {
            #expect(Self.close(stripColour(at: seconds), colour, 16), "the sheet's strip at \(seconds) s: \(stripColour(at: seconds))")
        }
        let (r1, g1, b1) = stripColour(at: 4.5), (r2, g2, b2) = stripColour(at: 8.5)
        #expect((70...185).contains(r1) && (70...185).contains(g1) && b1 < 30, "the strip under the first dissolve: \((r1, g1, b1))")
        #expect(r2 < 30 && (70...185).contains(g2) && (70...185).contains(b2), "the strip under the second dissolve: \((r2, g2, b2))")

        // The movie: 13 s at 30 fps, 640×360, video + audio.
        let duration = Double(try TestTools.probe(out, "format=duration").value) ?? 0
        #expect(abs(duration - 13) <= 1.0 / 30 + 0.03, "duration \(duration)")
        #expect(try TestTools.probe(out, "stream=avg_frame_rate", stream: 0).value == "30/1")
        #expect(try TestTools.probe(out, "stream=width,height", stream: 0).value == "640\n360")
        #expect(try TestTools.probe(out, "stream=nb_frames", stream: 0).value == "390")
        // Pure clips outside the transitions, an even mix at the dissolve's midpoint.
        #expect(Self.close(try Self.pixel(out, at: 2, x: 320, y: 180), (255, 0, 0)))
        #expect(Self.close(try Self.pixel(out, at: 6.5, x: 320, y: 180), (0, 255, 0)))
        #expect(Self.close(try Self.pixel(out, at: 11, x: 320, y: 180), (0, 0, 255)))
        let middle = try Self.pixel(out, at: 4.5, x: 320, y: 180)
        #expect(Self.close(middle, (128, 128, 0), 12), "dissolve midpoint \(middle)")

        // The sound: 440 Hz music under the fades and ducking, the 1 kHz voice-over untouched.
        let (pcmStatus, pcm) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", out.path, "-vn", "-ac", "1", "-ar", "48000",
                                                            "-f", "f32le", "-"])
        #expect(pcmStatus == 0)
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        func amplitude(_ frequency: Double, at seconds: Double) -> Double {
            let n = 1200, start = Int(seconds * 48000) - n / 2  // 25 ms around the time: whole periods of 440 Hz and 1 kHz
            guard start >= 0, start + n <= samples.count else { return -1 }
            let w = 2 * Double.pi * frequency / 48000
            var re = 0.0, im = 0.0
            for k in 0..<n { let s = Double(samples[start + k]); re += s * cos(w * Double(k)); im -= s * sin(w * Double(k)) }
            return 2 * (re * re + im * im).squareRoot() / Double(n)
        }
        // Gain × the sources' amplitude: lavfi's sine is 1/8 of full scale, then halved (a linear
        // ramp averages to its centre over the window).
        let level = 0.5 / 8
        for (t, gain) in [(0.75, 0.5), (1.5, 1.0), (1.75, 0.6), (3.0, 0.2), (4.5, 0.2), (5.25, 0.6), (7.0, 1.0), (12.25, 0.5)] {
            let measured = amplitude(440, at: t) / level
            #expect(abs(measured - gain) <= 0.03, "music gain at \(t) s: \(measured), expected \(gain)")
        }
        #expect(abs(amplitude(1000, at: 3.5) / level - 1) <= 0.03, "the voice-over is not attenuated")
        #expect(amplitude(1000, at: 6) / level < 0.01, "the voice-over ends at 5 s")
    }

    @Test(arguments: [("push-left", (320 - 160, 180), (255, 0, 0), (480, 180), (0, 255, 0)),
                      ("wipe", (320, 90), (0, 255, 0), (320, 270), (255, 0, 0))])
    func transitionFramesAtTheMidpoint(_ kind: String, _ p1: (Int, Int), _ c1: (Int, Int, Int), _ p2: (Int, Int), _ c2: (Int, Int, Int)) throws {
        guard let dir = Self.media, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        let out = dir.appendingPathComponent("\(kind).mp4")
        let run = try Self.compose(avtool, [try Self.timeline(kind, in: dir).path, "-o", out.path, "-p", "Preset640x480", "--replace", "--quiet"])
        #expect(run.finished && run.status == 0, "\(run.output)\(run.errors)")
        // Push: at 4.5 s the left half is the outgoing red clip, the right half the incoming
        // green one. Wipe: rows above the middle are the incoming green clip, rows below still red.
        let a = try Self.pixel(out, at: 4.5, x: p1.0, y: p1.1), b = try Self.pixel(out, at: 4.5, x: p2.0, y: p2.1)
        #expect(Self.close(a, c1), "\(kind) at 4.5 s, (\(p1.0), \(p1.1)): \(a)")
        #expect(Self.close(b, c2), "\(kind) at 4.5 s, (\(p2.0), \(p2.1)): \(b)")
        #expect(Self.close(try Self.pixel(out, at: 6.5, x: 320, y: 180), (0, 255, 0)))
    }

    @Test func badTimelinesFailWithAReasonAndWriteNothing() throws {
        guard let dir = Self.media, let avtool = AssetWriterFaultTests.avtool else {
            Issue.record("ffmpeg or the avtool binary is missing; run scripts/setup.sh and swift build"); return
        }
        let cases: [(String, String)] = [
            (#"{"videos": [ {"file": "missing.mp4"} ]}"#, "missing.mp4: no such file"),
            (#"{"videos": [ {"file": "red.mp4"}, {"file": "green.mp4"} ], "transitions": [ {"type": "dissolve", "duration": 6} ]}"#,
             "shorter than the transitions"),
            (#"{"videos": [ {"file": "red.mp4"}, {"file": "green.mp4"} ], "transitions": [ {"type": "spin"} ]}"#, "unknown transition"),
            (#"{"videos": [ {"file": "music.wav"} ]}"#, "has no video track"),
            (#"{"videos": [ {"file": "red.mp4", "start": 9} ]}"#, "after the end"),
            (#"{"videos": "#, "not valid JSON"),
        ]
        for (index, (json, reason)) in cases.enumerated() {
            let url = dir.appendingPathComponent("bad-\(index).json")
            try Data(json.utf8).write(to: url)
            let out = dir.appendingPathComponent("bad-\(index).mp4")
            let run = try Self.compose(avtool, [url.path, "-o", out.path, "--quiet"])
            #expect(run.finished && run.exited && run.status == 1, "case \(index) exits 1: \(run.errors)")
            #expect(run.errors.contains(reason), "case \(index) says why: \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: out.path), "case \(index) writes nothing")
        }
        // An existing output is not replaced without --replace.
        let existing = dir.appendingPathComponent("existing.mp4")
        try Data("keep".utf8).write(to: existing)
        let run = try Self.compose(avtool, [try Self.timeline("dissolve", in: dir).path, "-o", existing.path, "--quiet"])
        #expect(run.status == 1 && run.errors.contains("exists"))
        #expect(try Data(contentsOf: existing) == Data("keep".utf8))
    }
}
