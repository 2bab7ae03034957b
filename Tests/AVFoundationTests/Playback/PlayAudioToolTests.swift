// What a person hears from `avtool play-audio` (AVAudioPlayer): each test runs the tool against a
// PulseAudio daemon of its own, records its null sink's monitor with parec, and compares the
// recording with ffmpeg's decode of the file — the sound itself (correlation above 0.99), two
// files started together on one sample, pan, gapless loops, rate 2 keeping the pitch, volume
// and a fade.
import Foundation
import Glibc
import Testing
import TestSupport

@Suite(.enabled(if: PrivatePulseDaemon.isAvailable && TestTools.hasFFmpeg, "pulseaudio or ffmpeg missing: scripts/setup.sh installs them"))
struct PlayAudioToolTests {
    static let dir = TestTools.makeTemporaryDirectory("play-audio-tool")

    static func make(_ name: String, _ args: [String]) -> URL { TestTools.ffmpegFixture(name, in: dir, args) }

    /// Two seconds of two different pink noises (left, right), 48 kHz float.
    static let noise = make("noise.wav", ["-f", "lavfi", "-i", "anoisesrc=d=2:c=pink:r=48000:a=0.3:s=1",
                                          "-f", "lavfi", "-i", "anoisesrc=d=2:c=pink:r=48000:a=0.3:s=2",
                                          "-filter_complex", "[0][1]amerge=inputs=2", "-c:a", "pcm_f32le"])
    /// The left noise in the left channel only, and the same noise in the right channel only.
    static let leftOnly = make("left.wav", ["-i", noise.path, "-af", "pan=stereo|c0=c0|c1=0*c0", "-c:a", "pcm_f32le"])
    static let rightOnly = make("right.wav", ["-i", noise.path, "-af", "pan=stereo|c0=0*c0|c1=c0", "-c:a", "pcm_f32le"])
    /// Half a second of noise, for loops.
    static let burst = make("burst.wav", ["-f", "lavfi", "-i", "anoisesrc=d=0.5:c=pink:r=48000:a=0.3:s=3", "-ac", "2", "-c:a", "pcm_f32le"])
    /// Half a second of noise as AAC in an M4A (priming and padding hidden by its edit list),
    /// without perceptual noise substitution: PNS bands are decoded from a random generator
    /// whose state a seek changes, so each pass of a loop (and FFmpeg's own `-ss 0`) would
    /// differ from a fresh decode by design.
    static let burstAAC = make("burst.m4a", ["-i", burst.path, "-c:a", "aac", "-b:a", "192k", "-aac_pns", "0"])
    /// Two seconds of 1 kHz at half scale.
    static let tone = make("tone.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=48000:c=stereo:d=2", "-c:a", "pcm_f32le"])

    /// Runs `avtool play-audio arguments` against a daemon of the test's own and returns its exit
    /// status, what it printed and the sink's sound (interleaved stereo at 48 kHz).
    private func play(_ arguments: [String]) throws -> (status: Int32, text: String, left: [Float], right: [Float]) {
        let avtool = try #require(AssetWriterFaultTests.avtool, "avtool is not built (swift build --build-tests builds it)")
        let daemon = try PrivatePulseDaemon()
        defer { daemon.kill() }
        // A low-latency stream of silence keeps the null sink rendering in small steps (idle, it
        // renders 2 s blocks), as scripts/capture-services.sh does.
        let keepalive = try daemon.launch("pacat", ["--playback", "--device=\(daemon.sink)", "--latency-msec=20", "--raw",
                                                    "--format=s16le", "--rate=48000", "--channels=2", "/dev/zero"])
        defer { keepalive.terminate() }
        let recording = Self.dir.appendingPathComponent("rec-\(UUID().uuidString).raw")
        defer { if ProcessInfo.processInfo.environment["KEEP_REC"] == nil { try? FileManager.default.removeItem(at: recording) } }
        let recorder = try daemon.launch("parec", ["--device=\(daemon.monitor)", "--format=float32le", "--channels=2",
                                                   "--rate=48000", "--raw", recording.path])
        // Recording once the monitor's frames reach the file (a fresh daemon takes a while).
        let recordingBegan = Date().addingTimeInterval(20)
        while ((try? FileManager.default.attributesOfItem(atPath: recording.path)[.size] as? Int) ?? 0) < 48_000 * 8 / 10,
              Date() < recordingBegan { usleep(20_000) }
        let tool = Process()
        tool.executableURL = avtool
        tool.arguments = ["play-audio"] + arguments
        tool.environment = daemon.environment
        let errors = Pipe()
        tool.standardError = errors
        tool.standardOutput = FileHandle.nullDevice
        tool.standardInput = FileHandle.nullDevice
        try tool.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        let status = tool.terminationStatus
        Thread.sleep(forTimeInterval: 0.3)
        recorder.terminate()
        let deadline = Date().addingTimeInterval(3)
        while recorder.isRunning, Date() < deadline { usleep(20_000) }
        if recorder.isRunning { kill(recorder.processIdentifier, SIGKILL) }
        recorder.waitUntilExit()
        let data = try Data(contentsOf: recording)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let frames = samples.count / 2
        return (status, text, (0..<frames).map { samples[2 * $0] }, (0..<frames).map { samples[2 * $0 + 1] })
    }

    /// ffmpeg's decode of `url`: (left, right) at 48 kHz.
    private func decode(_ url: URL) throws -> (left: [Float], right: [Float]) {
        let data = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "f32le", "-ac", "2", "-ar", "48000", "-"]).output
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let frames = samples.count / 2
        return ((0..<frames).map { samples[2 * $0] }, (0..<frames).map { samples[2 * $0 + 1] })
    }

    private func dot(_ a: [Float], _ aStart: Int, _ b: [Float], _ bStart: Int, _ count: Int) -> Double {
        var sum = 0.0
        for i in 0..<count where aStart + i >= 0 && aStart + i < a.count && bStart + i < b.count { sum += Double(a[aStart + i] * b[bStart + i]) }
        return sum
    }

    /// Where `reference` starts in `heard`: the first loud sample of each, refined to the best
    /// match within ±2400 samples (in steps of 4, then sample by sample).
    private func offset(of reference: [Float], in heard: [Float]) -> Int? {
        guard let r = reference.firstIndex(where: { abs($0) > 0.05 }), let h = heard.firstIndex(where: { abs($0) > 0.05 }) else { return nil }
        let guess = h - r
        let coarse = stride(from: guess - 2400, through: guess + 2400, by: 4).max {
            dot(heard, $0, reference, 0, 2048) < dot(heard, $1, reference, 0, 2048)
        }!
        return (coarse - 4...coarse + 4).max { dot(heard, $0, reference, 0, 4800) < dot(heard, $1, reference, 0, 4800) }
    }

    /// The correlation coefficient of `count` samples of `heard` from `start` with `reference` from `from`.
    private func correlation(_ heard: [Float], _ start: Int, _ reference: [Float], from: Int = 0, count: Int) -> Double {
        guard start >= 0, start + count <= heard.count, from + count <= reference.count else { return 0 }
        let a = Array(heard[start..<start + count]), b = Array(reference[from..<from + count])
        let ma = a.reduce(0, +) / Float(count), mb = b.reduce(0, +) / Float(count)
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in 0..<count {
            let x = Double(a[i] - ma), y = Double(b[i] - mb)
            ab += x * y
            aa += x * x
            bb += y * y
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    private func rms(_ x: ArraySlice<Float>) -> Double {
        x.isEmpty ? 0 : (x.reduce(0.0) { $0 + Double($1 * $1) } / Double(x.count)).squareRoot()
    }

    @Test func whatIsHeardIsTheFile() throws {
        let heard = try play(["--quiet", Self.noise.path])
        #expect(heard.status == 0, "\(heard.text)")
        let reference = try decode(Self.noise)
        let start = try #require(offset(of: reference.left, in: heard.left), "nothing heard")
        let count = reference.left.count - 10
        let left = correlation(heard.left, start, reference.left, count: count)
        let right = correlation(heard.right, start, reference.right, count: count)
        #expect(left > 0.99 && right > 0.99, "correlation \(left), \(right)")
        // The start is heard too (play() starts once the output's latency has passed, not cutting it).
        let first = correlation(heard.left, start, reference.left, count: 4800)
        #expect(first > 0.99, "the first 0.1 s: \(first)")
    }

    @Test func twoFilesStartedTogetherStartOnTheSameSample() throws {
        let heard = try play(["--quiet", Self.leftOnly.path, Self.rightOnly.path])
        #expect(heard.status == 0, "\(heard.text)")
        let start = try #require(heard.left.firstIndex { abs($0) > 0.05 })
        // The lag of the right channel (the second player) against the left (the first).
        let lag = (-48...48).max { dot(heard.left, start + $0, heard.right, start, 24_000) < dot(heard.left, start + $1, heard.right, start, 24_000) }!
        #expect(abs(lag) <= 1, "the second player is \(lag) samples off")
        #expect(correlation(heard.right, start + lag, heard.left, from: start, count: 48_000) > 0.99)
    }

    @Test func panLeftSilencesTheRight() throws {
        let heard = try play(["--quiet", "--pan=-1", Self.noise.path])
        let reference = try decode(Self.noise)
        let start = try #require(offset(of: reference.left, in: heard.left), "nothing heard")
        #expect(correlation(heard.left, start, reference.left, count: 48_000) > 0.99)
        #expect(heard.right.allSatisfy { abs($0) < 1e-4 })
    }

    @Test func loopsFollowEachOtherWithoutAGap() throws {
        let heard = try play(["--quiet", "--loop", "2", Self.burst.path])
        let reference = try decode(Self.burst)
        let start = try #require(offset(of: reference.left, in: heard.left), "nothing heard")
        let length = reference.left.count
        // Each pass starts exactly where the previous ended: a gap or overlap of one sample would
        // shift it and break the match.
        for pass in 0..<3 {
            let c = correlation(heard.left, start + pass * length, reference.left, count: length - 10)
            #expect(c > 0.99, "pass \(pass): \(c)")
        }
        #expect(rms(heard.left[min(heard.left.count, start + 3 * length + 10)...]) < 1e-4, "sound after the third pass")
    }

    @Test func aacLoopsFollowEachOtherWithoutAGap() throws {
        let heard = try play(["--quiet", "--loop", "2", Self.burstAAC.path])
        let reference = try decode(Self.burstAAC)
        let start = try #require(offset(of: reference.left, in: heard.left), "nothing heard")
        // FFmpeg 5.1's CLI drops the encoder's priming but keeps its end padding (576 frames
        // here); the file's edit list says 24 000 frames, and loops are that long.
        #expect(reference.left.count >= 24_000)
        let length = 24_000
        for pass in 0..<3 {
            let c = correlation(heard.left, start + pass * length, reference.left, count: length - 10)
            #expect(c > 0.99, "pass \(pass): \(c)")
        }
    }

    @Test func rateTwoHalvesTheTimeAndKeepsThePitch() throws {
        let heard = try play(["--quiet", "--rate", "2", Self.tone.path])
        let loud = heard.left.indices.filter { abs(heard.left[$0]) > 0.1 }
        let first = try #require(loud.first), last = try #require(loud.last)
        let seconds = Double(last - first) / 48_000
        #expect(seconds > 0.9 && seconds < 1.05, "sounded \(seconds) s")
        // Zero crossings over 0.4 s from 0.1 s in.
        let window = heard.left[(first + 4_800)..<(first + 24_000)]
        let crossings = zip(window, window.dropFirst()).filter { ($0.0 < 0) != ($0.1 < 0) }.count
        let frequency = Double(crossings) / 2 / 0.4
        #expect(abs(frequency - 1000) < 20, "\(frequency) Hz")
    }

    @Test func volumeScalesAndAFadeRises() throws {
        let half = try play(["--quiet", "--volume", "0.5", Self.tone.path])
        let first = try #require(half.left.firstIndex { abs($0) > 0.01 })
        let level = rms(half.left[(first + 4_800)..<(first + 48_000)])
        #expect(abs(level - 0.5 * 0.5 / 2.0.squareRoot()) < 0.005, "rms \(level)")

        let faded = try play(["--quiet", "--fade-in", "1", Self.tone.path])
        let start = try #require(faded.left.firstIndex { abs($0) > 1e-5 })
        let early = faded.left[start..<(start + 2_400)].map(abs).max() ?? 0
        let middle = faded.left[(start + 24_000)..<(start + 26_400)].map(abs).max() ?? 0
        let late = faded.left[(start + 67_200)..<(start + 72_000)].map(abs).max() ?? 0
        #expect(early < 0.2 && middle > early + 0.05 && middle < late - 0.05 && abs(late - 0.5) < 0.02,
                "peaks \(early), \(middle), \(late)")
    }

    @Test func theSoundServerDyingInterruptsPlayback() throws {
        let avtool = try #require(AssetWriterFaultTests.avtool, "avtool is not built (swift build --build-tests builds it)")
        let daemon = try PrivatePulseDaemon()
        defer { daemon.kill() }
        let tool = Process()
        tool.executableURL = avtool
        tool.arguments = ["play-audio", "--loop=-1", Self.tone.path]
        tool.environment = daemon.environment
        let errors = Pipe()
        tool.standardError = errors
        tool.standardOutput = FileHandle.nullDevice
        tool.standardInput = FileHandle.nullDevice
        try tool.run()
        // Playing once the sink has an input; then the server dies (SIGKILL, as a crash).
        let deadline = Date().addingTimeInterval(20)
        while ((try? daemon.run("pactl", ["list", "short", "sink-inputs"]).output) ?? "").isEmpty, Date() < deadline { usleep(50_000) }
        daemon.kill()
        // A tool that plays on regardless is stopped after 20 s (and fails below).
        let running = tool
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) { if running.isRunning { running.terminate() } }
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 1 && text.contains("sound server went away"), "\(tool.terminationStatus): \(text)")
    }

    @Test func aFileThatIsNoSoundIsAClearError() throws {
        let text = Self.dir.appendingPathComponent("not-sound.wav")
        try Data("plain text, not a sound".utf8).write(to: text)
        let heard = try play([text.path])
        #expect(heard.status == 1)
        #expect(heard.text.contains("not-sound.wav") && heard.text.contains("1954115647"), "\(heard.text)")
    }
}
