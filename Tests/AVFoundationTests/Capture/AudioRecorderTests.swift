// AVAudioRecorder as Apple documents it: Apple's errors for a file type or format it cannot
// write, prepareToRecord creating the file, record(forDuration:) giving a file of exactly that
// length and one delegate call, pause then record appending, deleteRecording; and `avtool
// record-audio` against a PulseAudio daemon of the test's own while `avtool play-audio` plays a
// −6 dBFS tone into it: what was heard is in the file at its level in every format the recorder
// writes, the meter reads −6/−9, and a recording killed (SIGKILL) or cut by the server's death
// stays readable.
import AVFoundation
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

private final class RecorderDelegate: NSObject, AVAudioRecorderDelegate, Sendable {
    let finishes = Mutex<[Bool]>([])
    func audioRecorderDidFinishRecording(_ recorder: AVAudioRecorder, successfully flag: Bool) {
        finishes.withLock { $0.append(flag) }
    }
}

@Suite struct AudioRecorderTests {
    static let dir = TestTools.makeTemporaryDirectory("audio-recorder")

    private static var lpcm: [String: Any] { [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100.0,
                                              AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16] }

    private func frames(_ url: URL) throws -> Int {
        let file = try AVAudioFile(forReading: url)
        return Int(file.length)
    }

    private func waitUntil(_ seconds: Double = 20, _ condition: () -> Bool) -> Bool { TestTools.waitUntil(seconds, condition) }

    @Test func fileTypesAndFormatsItCannotWriteThrowAppleErrors() throws {
        #expect {
            _ = try AVAudioRecorder(url: Self.dir.appendingPathComponent("x.m4a"),
                                    settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2,
                                               AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false, AVLinearPCMIsBigEndianKey: true])
        } throws: { ($0 as NSError).domain == NSOSStatusErrorDomain && ($0 as NSError).code == 1_718_449_215 }
        #expect {
            _ = try AVAudioRecorder(url: Self.dir.appendingPathComponent("x.wav"),
                                    settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2])
        } throws: { ($0 as NSError).domain == NSOSStatusErrorDomain && ($0 as NSError).code == 1_718_449_215 }
        #expect {
            _ = try AVAudioRecorder(url: Self.dir.appendingPathComponent("x.unknown"), settings: Self.lpcm)
        } throws: { ($0 as NSError).code == 1_954_115_647 }
        // Nothing was created.
        #expect(!FileManager.default.fileExists(atPath: Self.dir.appendingPathComponent("x.wav").path))
    }

    @Test func prepareCreatesTheFileAndDeleteRemovesIt() throws {
        let url = Self.dir.appendingPathComponent("prepared.caf")
        let recorder = try AVAudioRecorder(url: url, settings: Self.lpcm)
        #expect(recorder.url == url && (recorder.settings[AVSampleRateKey] as? Double) == 44_100)
        #expect(recorder.format.sampleRate == 44_100 && recorder.format.channelCount == 2)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(recorder.prepareToRecord())
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(!recorder.isRecording && recorder.currentTime == 0)
        #expect(recorder.deleteRecording())
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test(.enabled(if: CaptureServices.shouldRun, "capture services not running"))
    func recordForDurationGivesThatLengthAndTellsTheDelegateOnce() throws {
        guard CaptureServicesEnvironment.install() != nil else { return }
        let url = Self.dir.appendingPathComponent("timed.wav")
        let recorder = try AVAudioRecorder(url: url, settings: Self.lpcm)
        let delegate = RecorderDelegate()
        recorder.delegate = delegate
        #expect(recorder.record(forDuration: 0.75))
        #expect(recorder.isRecording)
        #expect(waitUntil { !delegate.finishes.withLock { $0 }.isEmpty })
        Thread.sleep(forTimeInterval: 0.2)
        #expect(delegate.finishes.withLock { $0 } == [true])
        #expect(!recorder.isRecording && recorder.currentTime == 0)
        #expect(try frames(url) == 33_075)
    }

    @Test(.enabled(if: CaptureServices.shouldRun, "capture services not running"))
    func pauseThenRecordAppends() throws {
        guard CaptureServicesEnvironment.install() != nil else { return }
        let url = Self.dir.appendingPathComponent("appended.m4a")
        let recorder = try AVAudioRecorder(url: url, settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0,
                                                                 AVNumberOfChannelsKey: 1])
        #expect(recorder.record())
        #expect(waitUntil { recorder.currentTime >= 0.4 })
        recorder.pause()
        #expect(!recorder.isRecording)
        let paused = recorder.currentTime
        Thread.sleep(forTimeInterval: 0.3)
        #expect(recorder.currentTime == paused)
        // Half a second more, counted from the resume.
        let delegate = RecorderDelegate()
        recorder.delegate = delegate
        #expect(recorder.record(forDuration: 0.5))
        #expect(waitUntil { !delegate.finishes.withLock { $0 }.isEmpty })
        let expected = Int((paused * 44_100).rounded()) + 22_050
        let got = try frames(url)
        #expect(abs(got - expected) <= 1, "\(got) frames, \(expected) expected")
    }

    // MARK: avtool record-audio, against a daemon of the test's own

    /// A daemon with `avtool play-audio` looping a −6 dBFS 1 kHz tone into it.
    private func toneDaemon() throws -> (PrivatePulseDaemon, Process, URL) {
        let avtool = try #require(AssetWriterFaultTests.avtool, "avtool is not built")
        let daemon = try PrivatePulseDaemon()
        let tone = try CaptureServicesEnvironment.makeTone(in: Self.dir)
        let player = Process()
        player.executableURL = avtool
        player.arguments = ["play-audio", "--quiet", "--loop=-1", tone.path]
        player.environment = daemon.environment
        player.standardError = FileHandle.nullDevice
        player.standardOutput = FileHandle.nullDevice
        try player.run()
        // Playing once the sink has an input.
        #expect(waitUntil { !((try? daemon.run("pactl", ["list", "short", "sink-inputs"]).output) ?? "").isEmpty })
        return (daemon, player, avtool)
    }

    private func record(_ avtool: URL, _ daemon: PrivatePulseDaemon, _ arguments: [String]) throws -> Process {
        let tool = Process()
        tool.executableURL = avtool
        tool.arguments = ["record-audio"] + arguments
        tool.environment = daemon.environment
        tool.standardOutput = FileHandle.nullDevice
        tool.standardInput = FileHandle.nullDevice
        return tool
    }

    private func run(_ tool: Process) throws -> (Int32, String) {
        let errors = Pipe()
        tool.standardError = errors
        try tool.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        return (tool.terminationStatus, text.replacingOccurrences(of: "\r", with: "\n"))
    }

    /// ffprobe's codec name and duration of `url`'s first stream.
    private func probe(_ url: URL) throws -> (codec: String, seconds: Double) {
        let out = try TestTools.runText("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,duration", "-of", "csv=p=0", url.path])
        let fields = out.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        return (fields.first.map(String.init) ?? "", fields.count > 1 ? Double(fields[1]) ?? 0 : 0)
    }

    /// The file's mean (RMS) level in dB by ffmpeg's volumedetect: −9 for the −6 dBFS tone.
    private func level(_ url: URL) throws -> Double {
        let text = try TestTools.runText("ffmpeg", ["-nostdin", "-i", url.path, "-af", "volumedetect", "-f", "null", "-"], capture: .standardError)
        let line = try #require(text.output.split(separator: "\n").first { $0.contains("mean_volume:") })
        return Double(line.split(separator: " ").dropLast().last ?? "") ?? 0
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable && TestTools.hasFFmpeg, "pulseaudio or ffmpeg missing"))
    func theToolRecordsWhatIsPlayedInEveryFormat() throws {
        let (daemon, player, avtool) = try toneDaemon()
        defer {
            player.terminate()
            daemon.kill()
        }
        let cases: [(file: String, format: String, codec: String)] = [
            ("tone.wav", "lpcm", "pcm_s16le"), ("tone.aiff", "lpcm", "pcm_s16be"), ("tone.caf", "alac", "alac"),
            ("tone-ima.caf", "ima4", "adpcm_ima_qt"), ("tone.m4a", "aac", "aac"), ("tone-ulaw.wav", "ulaw", "pcm_mulaw"),
        ]
        for c in cases {
            let url = Self.dir.appendingPathComponent(c.file)
            let (status, text) = try run(try record(avtool, daemon, ["-o", url.path, "--format", c.format, "--duration", "1", "--meter"]))
            #expect(status == 0, "\(c.file): \(text)")
            let (codec, seconds) = try probe(url)
            #expect(codec == c.codec && abs(seconds - 1) < 0.03, "\(c.file): \(codec) \(seconds) s")
            let heard = try level(url)
            #expect(abs(heard - -9) < 0.5, "\(c.file) level \(heard)")
            if c.format == "lpcm" {
                // The live meter showed the tone's level: −6 dBFS peak, −9 average.
                #expect(text.contains(" -6.0/ -9.0 dB"), "\(text)")
            }
        }
        // A format the file type cannot hold: Apple's 'fmt?'.
        let (status, text) = try run(try record(avtool, daemon, ["-o", Self.dir.appendingPathComponent("aac.wav").path, "--format", "aac"]))
        #expect(status == 1 && text.contains("1718449215"), "\(text)")
    }

    @Test(.enabled(if: PrivatePulseDaemon.isAvailable && TestTools.hasFFmpeg, "pulseaudio or ffmpeg missing"))
    func aRecordingKilledOrCutStaysReadable() throws {
        let (daemon, player, avtool) = try toneDaemon()
        defer {
            player.terminate()
            daemon.kill()
        }
        // Every file type is readable up to the last flush (every half second): WAV and CAF as
        // they are, AIFF with the sizes patched at each flush, M4A as movie fragments.
        for name in ["killed.wav", "killed.caf", "killed.aiff", "killed.m4a"] {
            let url = Self.dir.appendingPathComponent(name)
            let tool = try record(avtool, daemon, ["-o", url.path, "--quiet"])
            tool.standardError = FileHandle.nullDevice
            try tool.run()
            #expect(waitUntil { FileManager.default.fileExists(atPath: url.path) })
            // Until the file holds at least 0.5 s by ffprobe (no waiting on the clock alone).
            #expect(waitUntil { ((try? probe(url).seconds) ?? 0) >= 0.5 }, "\(name) never held half a second")
            kill(tool.processIdentifier, SIGKILL)
            tool.waitUntilExit()
            let (codec, seconds) = try probe(url)
            #expect(!codec.isEmpty && seconds >= 0.5, "\(name): \(codec) \(seconds) s")
            let heard = try level(url)
            #expect(abs(heard - -9) < 0.5, "\(name) level \(heard)")
            // What our own reader makes of it: the same length, give or take the M4A's priming.
            let file = try AVAudioFile(forReading: url)
            #expect(abs(Double(file.length) / file.fileFormat.sampleRate - seconds) < 0.05, "\(name): \(file.length) frames")
        }
        // Ctrl-C finishes the file.
        let stopped = Self.dir.appendingPathComponent("interrupted.m4a")
        let tool = try record(avtool, daemon, ["-o", stopped.path])
        let errors = Pipe()
        tool.standardError = errors
        try tool.run()
        #expect(waitUntil { ((try? probe(stopped).seconds) ?? 0) >= 0.5 })
        tool.interrupt()
        tool.waitUntilExit()
        #expect(tool.terminationStatus == 0)
        #expect(try probe(stopped).seconds > 0.3)
        // A finished M4A is a plain movie (no fragments, the priming hidden by its edit list),
        // with no partial file left beside it.
        let boxes = try Data(contentsOf: stopped)
        #expect(boxes.range(of: Data("moof".utf8)) == nil && boxes.range(of: Data("elst".utf8)) != nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: Self.dir.path).filter { $0.hasSuffix(".recording") }
        #expect(!left.contains(".interrupted.m4a.recording") && left.contains(".killed.m4a.recording"), "\(left)")
        // The sound server killed mid-record: a clear message, and the file holds what was recorded.
        let cut = Self.dir.appendingPathComponent("cut.wav")
        let last = try record(avtool, daemon, ["-o", cut.path])
        let lastErrors = Pipe()
        last.standardError = lastErrors
        try last.run()
        #expect(waitUntil { ((try? FileManager.default.attributesOfItem(atPath: cut.path)[.size] as? Int) ?? 0) > 100_000 })
        daemon.kill()
        let text = String(decoding: lastErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        last.waitUntilExit()
        #expect(last.terminationStatus == 1 && text.contains("went away"), "\(text)")
        #expect(try probe(cut).seconds > 0.5)
    }
}
