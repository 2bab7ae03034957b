// `avtool devices`, `avtool record` and `avtool scan` end to end, as child processes against the
// test services (Xvfb, PulseAudio with its null sink) and virtual cameras: the device list in
// JSON, a 2 s recording of a camera with sound and of the screen judged by ffprobe, Ctrl-C
// stopping a recording cleanly with a readable file, and a QR code read from a camera.
import Foundation
import Testing
import TestSupport

extension CaptureTests {
    @Suite("avtool devices, record, scan", .enabled(if: CaptureServices.shouldRun,
                                                   "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
    struct CaptureToolTests {
        /// Runs avtool with the services' environment plus `extra`; returns status and output.
        private func avtool(_ arguments: [String], extra: [String: String] = [:], deadline: TimeInterval = 60,
                            interruptAfter: TimeInterval? = nil, services given: CaptureServices? = nil,
                            after: (seconds: TimeInterval, action: () -> Void)? = nil)
            throws -> (status: Int32, output: String, errors: String, signalled: Bool) {
            let services = try given ?? CaptureServices.current.get()
            let executable = try #require(AssetWriterFaultTests.avtool, "avtool is not built (swift build --build-tests builds it)")
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.environment = services.environment.merging(extra) { _, new in new }
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            let outData = DataBox(), errData = DataBox()
            let group = DispatchGroup()
            for (pipe, box) in [(output, outData), (errors, errData)] {
                group.enter()
                DispatchQueue.global().async {
                    box.set(pipe.fileHandleForReading.readDataToEndOfFile())
                    group.leave()
                }
            }
            try process.run()
            let started = Date()
            var interrupted = false
            while process.isRunning && Date().timeIntervalSince(started) < deadline {
                if let after = interruptAfter, !interrupted, Date().timeIntervalSince(started) >= after {
                    kill(process.processIdentifier, SIGINT)
                    interrupted = true
                }
                if let after, !interrupted, Date().timeIntervalSince(started) >= after.seconds {
                    after.action()
                    interrupted = true
                }
                usleep(20_000)
            }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            group.wait()
            return (process.terminationStatus, String(decoding: outData.data, as: UTF8.self), String(decoding: errData.data, as: UTF8.self),
                    process.terminationReason == .uncaughtSignal)
        }

        private func streams(_ url: URL) throws -> [String] {
            let (status, text) = try TestTools.runText("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", url.path])
            #expect(status == 0)
            return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        }

        private func duration(_ url: URL, stream: String) throws -> Double {
            let (_, text) = try TestTools.runText("ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=duration",
                                                             "-of", "csv=p=0", url.path])
            return Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }

        @Test func devicesListsTheVirtualCameraTheMicrophoneAndTheScreenAsJSON() throws {
            let run = try avtool(["devices", "--json"], extra: ["AVFOUNDATION_VIRTUAL_CAMERAS": "testsrc:640x480@30"])
            #expect(run.status == 0, "\(run.errors)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
            let devices = try #require(json["devices"] as? [[String: Any]])
            let camera = try #require(devices.first { $0["uniqueID"] as? String == "virtual:testsrc:640x480@30" })
            #expect(camera["mediaTypes"] as? [String] == ["vide"])
            let formats = try #require(camera["formats"] as? [[String: Any]])
            #expect(formats.contains { $0["width"] as? Int == 640 && $0["height"] as? Int == 480 && $0["pixelFormat"] as? String == "420v" })
            let rates = try #require(formats.first?["frameRates"] as? [[String: Double]])
            #expect(rates.first?["maxFrameRate"] == 30)
            #expect((camera["controls"] as? [String: Any])?["hasTorch"] as? Bool == false)
            let microphone = try #require(devices.first { $0["uniqueID"] as? String == "pulse:avf_null.monitor" })
            #expect(microphone["default"] as? Bool == true)
            #expect(microphone["mediaTypes"] as? [String] == ["soun"])
            let screens = try #require(json["screens"] as? [[String: Any]])
            #expect(screens.first?["width"] as? Int == 1920 && screens.first?["height"] as? Int == 1080)
        }

        @Test func recordWritesACameraWithSoundForTheRequestedDuration() throws {
            let directory = try TestTools.temporaryDirectory("capture-tool")
            defer { try? FileManager.default.removeItem(at: directory) }
            let movie = directory.appendingPathComponent("camera.mov")
            let run = try avtool(["record", "--camera", "virtual:testsrc:640x480@30", "--preset", "640x480", "--duration", "2",
                                  "-o", movie.path], extra: ["AVFOUNDATION_VIRTUAL_CAMERAS": "testsrc:640x480@30"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("recorded 2.00 s"), "\(run.output)")
            #expect(run.output.contains(" dB"), "the status line shows the sound level: \(run.output)")
            #expect(try streams(movie) == ["video", "audio"])
            #expect(abs(try duration(movie, stream: "v:0") - 2.0) <= 1.0 / 30 + 0.001)
            #expect(abs(try duration(movie, stream: "a:0") - 2.0) <= 0.1)
        }

        @Test func recordWritesTheScreen() throws {
            let directory = try TestTools.temporaryDirectory("capture-tool")
            defer { try? FileManager.default.removeItem(at: directory) }
            let movie = directory.appendingPathComponent("screen.mov")
            let run = try avtool(["record", "--screen", "--no-audio", "--duration", "1", "--quiet", "-o", movie.path])
            #expect(run.status == 0, "\(run.errors)")
            #expect(try streams(movie) == ["video"])
            let (_, size) = try TestTools.runText("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", movie.path])
            #expect(size.trimmingCharacters(in: .whitespacesAndNewlines) == "1920,1080")
        }

        @Test func ctrlCStopsARecordingCleanlyWithAReadableFile() throws {
            let directory = try TestTools.temporaryDirectory("capture-tool")
            defer { try? FileManager.default.removeItem(at: directory) }
            let movie = directory.appendingPathComponent("interrupted.mov")
            let run = try avtool(["record", "--camera", "virtual:testsrc:640x480@30", "--preset", "640x480", "--quiet", "-o", movie.path],
                                 extra: ["AVFOUNDATION_VIRTUAL_CAMERAS": "testsrc:640x480@30"], interruptAfter: 2.5)
            #expect(!run.signalled, "SIGINT is handled: the recording stops, the process exits")
            #expect(run.status == 0, "\(run.errors)")
            #expect(try streams(movie) == ["video", "audio"])
            let seconds = try duration(movie, stream: "v:0")
            #expect(seconds > 0.5 && seconds < 3, "recorded \(seconds) s before Ctrl-C")
            let (status, _) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", movie.path, "-f", "null", "-"])
            #expect(status == 0)
        }

        @Test func recordRefusesAnExistingFileAndAnUnknownCamera() throws {
            let directory = try TestTools.temporaryDirectory("capture-tool")
            defer { try? FileManager.default.removeItem(at: directory) }
            let existing = directory.appendingPathComponent("existing.mov")
            try Data("keep me".utf8).write(to: existing)
            let run = try avtool(["record", "--camera", "virtual:testsrc:640x480@30", "--duration", "1", "--quiet", "-o", existing.path],
                                 extra: ["AVFOUNDATION_VIRTUAL_CAMERAS": "testsrc:640x480@30"])
            #expect(run.status == 1)
            #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
            let unknown = try avtool(["record", "--camera", "v4l2:nothing", "-o", directory.appendingPathComponent("x.mov").path])
            #expect(unknown.status == 2)
            #expect(unknown.errors.contains("no camera"))
        }

        /// A device that goes away mid-recording — PulseAudio killed, the X server gone — ends the
        /// recording with deviceWasDisconnected and a finished, readable file. Each case runs on
        /// services of its own (the suite's are shared), killed with SIGKILL 2.5 s in.
        @Test(arguments: ["AVF_PULSE_PID", "AVF_XVFB_PID"])
        func aRecordingWhoseDeviceGoesAwayIsFinishedAndReadable(_ victim: String) throws {
            let directory = try TestTools.temporaryDirectory("capture-tool-gone")
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("services.env")
            let script = TestTools.root.appendingPathComponent("scripts/capture-services.sh").path
            // Spawned and reaped directly: Foundation's Process can miss the exit of a script that
            // leaves daemons running behind it.
            func services(_ command: String) throws -> Int32 {
                let environment = ProcessInfo.processInfo.environment.merging([CaptureServices.fileVariable: file.path]) { _, new in new }
                var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
                var argv: [UnsafeMutablePointer<CChar>?] = [String](["/bin/bash", script, command]).map { strdup($0) } + [nil]
                defer { for p in envp + argv { free(p) } }
                var actions = posix_spawn_file_actions_t()
                posix_spawn_file_actions_init(&actions)
                defer { posix_spawn_file_actions_destroy(&actions) }
                posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                var pid: pid_t = 0
                guard posix_spawn(&pid, "/bin/bash", &actions, nil, &argv, &envp) == 0 else { return -1 }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return (status >> 8) & 0xff
            }
            try #require(try services("start") == 0, "private capture services start")
            defer { _ = try? services("stop") }
            let own = try CaptureServices.read(file).get()
            let text = try String(contentsOf: file, encoding: .utf8)
            let pid = try #require(text.split(separator: "\n").first { $0.hasPrefix(victim + "=") }
                .flatMap { pid_t($0.dropFirst(victim.count + 1).trimmingCharacters(in: CharacterSet(charactersIn: "'"))) })
            let movie = directory.appendingPathComponent("gone.mov")
            let source = victim == "AVF_XVFB_PID" ? ["--screen"] : ["--camera", "virtual:testsrc:640x480@30", "--preset", "640x480"]
            let run = try avtool(["record"] + source + ["--duration", "10", "--quiet", "-o", movie.path],
                                 extra: ["AVFOUNDATION_VIRTUAL_CAMERAS": "testsrc:640x480@30"], services: own,
                                 after: (2.5, { kill(pid, SIGKILL) }))
            #expect(run.status == 1)
            #expect(run.errors.contains("-11808"), "deviceWasDisconnected: \(run.errors)")
            #expect(run.errors.contains("the file was finished and is readable"), "\(run.errors)")
            #expect(try streams(movie) == ["video", "audio"])
            let seconds = try duration(movie, stream: "v:0")
            #expect(seconds > 1.5 && seconds < 4, "recorded \(seconds) s before the device went")
            let (status, _) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", movie.path, "-f", "null", "-"])
            #expect(status == 0)
        }

        @Test func scanReadsAQRCodeFromACamera() throws {
            let directory = try TestTools.temporaryDirectory("capture-tool")
            defer { try? FileManager.default.removeItem(at: directory) }
            let png = directory.appendingPathComponent("code.png")
            let (status, _) = try TestTools.run("qrencode", ["-s", "8", "-m", "4", "-o", png.path, "avtool scan test"])
            try #require(status == 0, "qrencode (apt package qrencode) makes the code")
            let run = try avtool(["scan", "--once", "--duration", "20"], extra: ["AVFOUNDATION_VIRTUAL_CAMERAS": png.path])
            #expect(run.status == 0, "\(run.errors)")
            let fields = run.output.split(separator: "\n").first?.split(separator: "\t").map(String.init) ?? []
            #expect(fields.count == 3)
            #expect(fields.first == "qr")
            #expect(fields.dropFirst().first == "avtool scan test")
            #expect(fields.last?.split(separator: " ").count == 4, "four corners")
        }
    }
}

/// Bytes one reader thread collects.
private final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Data()
    func set(_ data: Data) { lock.withLock { stored = data } }
    var data: Data { lock.withLock { stored } }
}
