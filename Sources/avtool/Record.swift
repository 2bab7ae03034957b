// `avtool record [--camera ID | --screen] [--microphone ID | --no-audio] [--preset P] [--duration S]
// [--fragment-interval S] [--preview] -o OUT.mov`: records a camera (V4L2 or virtual) or the X
// screen, with sound from a PulseAudio source, into a movie through AVCaptureMovieFileOutput —
// the way an app does. While recording it shows the elapsed time, the file's size and the sound
// level; Ctrl-C (SIGINT) or SIGTERM stops the recording cleanly. The file is crash-safe: it is
// written in fragments (every --fragment-interval seconds, default 10 as Apple's), so a recording
// killed at any moment stays readable up to its last fragment.
//
// Exit status: 0 when the file was finished (also when it stopped at --duration), 1 when the
// recording failed (the error is printed; the file may still be readable, which is said), 2 when
// the devices could not be used.
import ArgumentParser
import AVFoundation
import Foundation
import Synchronization

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a camera or the screen, with sound, to a movie file (Ctrl-C stops).")

    @Option(help: "The camera's unique ID (see `avtool devices`; default: the default camera).")
    var camera: String?

    @Flag(help: "Record the X screen ($DISPLAY) instead of a camera.")
    var screen = false

    @Option(help: "The sound source's unique ID (see `avtool devices`; default: the default source).")
    var microphone: String?

    @Flag(help: "Record no sound.")
    var noAudio = false

    @Option(help: "Session preset: high, medium, low, photo, 320x240, 352x288, 640x480, 960x540, 1280x720, 1920x1080, 3840x2160, inputPriority.")
    var preset: String = "high"

    @Option(help: "Stop after this many seconds (the movie output's maxRecordedDuration).")
    var duration: Double?

    @Option(help: "Seconds between movie fragments (0: one unfragmented movie, not crash-safe).")
    var fragmentInterval: Double = 10

    @Option(help: "Screen capture frame rate.")
    var fps: Double = 30

    @Flag(help: "Show the picture in a window while recording (needs a display).")
    var preview = false

    @Flag(help: "No status line.")
    var quiet = false

    @Option(name: .shortAndLong, help: "The movie to write (.mov or .mp4; must not exist).")
    var output: String

    static let presets: [String: AVCaptureSession.Preset] = [
        "high": .high, "medium": .medium, "low": .low, "photo": .photo, "320x240": .qvga320x240, "352x288": .cif352x288,
        "640x480": .vga640x480, "960x540": .qHD960x540, "1280x720": .hd1280x720, "1920x1080": .hd1920x1080,
        "3840x2160": .hd4K3840x2160, "inputPriority": .inputPriority,
    ]

    func fail(_ text: String, code: Int32 = 2) -> ExitCode {
        FileHandle.standardError.write(Data("avtool: \(text)\n".utf8))
        return ExitCode(code)
    }

    func run() throws {
        let url = URL(fileURLWithPath: output)
        guard let sessionPreset = Self.presets[preset] ?? Self.presets[preset.replacingOccurrences(of: "hd", with: "")] else {
            throw ValidationError("unknown preset \(preset)")
        }
        let session = AVCaptureSession()
        session.beginConfiguration()

        // Picture: a camera or the screen.
        let videoInput: AVCaptureInput
        var videoName: String
        if screen {
            guard let input = AVCaptureScreenInput(displayID: CGMainDisplayID()) else {
                throw fail("no X display to record (DISPLAY is \(ProcessInfo.processInfo.environment["DISPLAY"] ?? "unset"))")
            }
            input.minFrameDuration = CMTime(seconds: 1 / max(1, fps), preferredTimescale: 600)
            input.capturesCursor = true
            videoInput = input
            videoName = "screen \(CGMainDisplayID())"
        } else {
            let device = camera.flatMap { AVCaptureDevice(uniqueID: $0) } ?? (camera == nil ? AVCaptureDevice.default(for: .video) : nil)
            guard let device else {
                throw fail("no camera\(camera.map { " with the unique ID \($0)" } ?? ""): see `avtool devices` (or --screen)")
            }
            do { videoInput = try AVCaptureDeviceInput(device: device) } catch {
                throw fail("\(device.localizedName): \(errorText(error))")
            }
            videoName = device.localizedName
        }
        guard session.canAddInput(videoInput) else { throw fail("\(videoName) cannot be added to a session") }
        session.addInput(videoInput)

        // Sound.
        var audioName = "no sound"
        if !noAudio {
            let device = microphone.flatMap { AVCaptureDevice(uniqueID: $0) } ?? (microphone == nil ? AVCaptureDevice.default(for: .audio) : nil)
            if let device, let input = try? AVCaptureDeviceInput(device: device), session.canAddInput(input) {
                session.addInput(input)
                audioName = device.localizedName
            } else if microphone != nil {
                throw fail("no sound source with the unique ID \(microphone!): see `avtool devices` (or --no-audio)")
            } else {
                FileHandle.standardError.write(Data("avtool: no sound source (no PulseAudio server?): recording without sound\n".utf8))
            }
        }

        if session.canSetSessionPreset(sessionPreset) {
            session.sessionPreset = sessionPreset
        } else {
            throw fail("\(videoName) cannot record at preset \(preset)")
        }

        let movie = AVCaptureMovieFileOutput()
        movie.movieFragmentInterval = fragmentInterval > 0 ? CMTime(seconds: fragmentInterval, preferredTimescale: 600) : .invalid
        if let duration { movie.maxRecordedDuration = CMTime(seconds: duration, preferredTimescale: 600) }
        guard session.canAddOutput(movie) else { throw fail("a movie file output cannot be added") }
        session.addOutput(movie)

        // The preview: a layer on the session, as an app shows one (a 960×540 window at the
        // screen's top-left showing the camera's frames letterboxed; no second capture).
        var previewLayer: AVCaptureVideoPreviewLayer?
        if preview {
            let layer = AVCaptureVideoPreviewLayer(session: session)
            layer.name = "avtool record: \(videoName)"
            layer.frame = CGRect(x: 0, y: 0, width: 960, height: 540)
            layer.videoGravity = .resizeAspect
            previewLayer = layer
        }
        session.commitConfiguration()

        let errors = RuntimeErrors()
        let observer = NotificationCenter.default.addObserver(forName: AVCaptureSession.runtimeErrorNotification, object: session,
                                                              queue: nil) { note in
            errors.add(note.userInfo?[AVCaptureSessionErrorKey] as? NSError)
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        session.startRunning()
        guard session.isRunning else {
            throw fail(errors.first.map { "capture did not start: \(errorText($0))" } ?? "capture did not start")
        }
        if let why = previewLayer?.windowProblem {
            FileHandle.standardError.write(Data("avtool: no preview window: \(why)\n".utf8))
        }
        let recording = RecordingEnd()
        movie.startRecording(to: url, recordingDelegate: recording)

        // Ctrl-C and SIGTERM stop the recording; the delegate then finishes.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let stopQueue = DispatchQueue(label: "avtool.record.signals")
        let sources = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: number, queue: stopQueue)
            source.setEventHandler { movie.stopRecording() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        if !quiet {
            print("recording \(videoName) + \(audioName) at \(preset) to \(output) (Ctrl-C stops)")
            fflush(nil)
        }
        while recording.done.wait(timeout: .now() + 0.5) == .timedOut {
            if !quiet { printStatus(movie) }
        }
        if !quiet { printStatus(movie); print("") }
        session.stopRunning()
        // Releasing the layer closes its window.
        previewLayer = nil

        let seconds = movie.recordedDuration.isNumeric ? movie.recordedDuration.seconds : 0
        if let error = recording.error as NSError? {
            let finished = (error.userInfo[AVErrorRecordingSuccessfullyFinishedKey] as? Bool) ?? false
            let code = AVError.Code(rawValue: error.code)
            // Stopping at the requested duration is what was asked for.
            if finished, code == .maximumDurationReached {
                print(String(format: "recorded %.2f s to %@", seconds, output))
                return
            }
            FileHandle.standardError.write(Data("avtool: \(errorText(error))\(finished ? " (the file was finished and is readable)" : "")\n".utf8))
            throw ExitCode(1)
        }
        print(String(format: "recorded %.2f s to %@", seconds, output))
    }

    /// One status line: elapsed time, size, and each audio channel's level.
    func printStatus(_ movie: AVCaptureMovieFileOutput) {
        let seconds = movie.recordedDuration.isNumeric ? movie.recordedDuration.seconds : 0
        let megabytes = Double(movie.recordedFileSize) / 1_000_000
        var line = String(format: "\r%6.1f s  %7.2f MB", seconds, megabytes)
        if let channels = movie.connection(with: .audio)?.audioChannels, !channels.isEmpty {
            for channel in channels {
                let level = max(-60, min(0, channel.averagePowerLevel))
                let bars = Int(((level + 60) / 60 * 20).rounded())
                line += String(format: "  %@%@ %5.1f dB", String(repeating: "#", count: bars), String(repeating: ".", count: 20 - bars),
                               channel.peakHoldLevel)
            }
        }
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}

/// The recording delegate: remembers how the recording ended.
final class RecordingEnd: NSObject, AVCaptureFileOutputRecordingDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private(set) var error: (any Error)?

    func fileOutput(_ output: AVCaptureFileOutput, didFinishRecordingTo outputFileURL: URL, from connections: [AVCaptureConnection],
                    error: (any Error)?) {
        self.error = error
        done.signal()
    }
}

/// Runtime errors the session posted.
final class RuntimeErrors: Sendable {
    private let list = Mutex<[NSError]>([])
    func add(_ error: NSError?) { if let error { list.withLock { $0.append(error) } } }
    var first: NSError? { list.withLock { $0.first } }
}
