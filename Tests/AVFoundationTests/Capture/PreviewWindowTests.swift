// The preview layer's picture on the test services' Xvfb, judged by what a person would see: the
// 640×480 test pattern camera (eight vertical colour bars, white on the left to dark grey on the
// right) previewed in a 640×240 layer; the X screen is read back by an independent tool
// (ffmpeg's x11grab) and each sampled pixel named by the nearest bar colour (or black). Checked:
// letterboxing with .resizeAspect (black bars left and right), .resize and .resizeAspectFill,
// the bars' order reversed when the connection mirrors, turned into horizontal stripes when the
// connection's orientation is portrait, the device's zoom crop, the last frame kept after the session stops and the
// window gone (xwininfo) when the layer is released — while a video data output on the same
// camera keeps getting its frames; and `avtool record --preview` showing its camera through a
// layer while it records.
@testable import AVFoundation
import Foundation
import MediaEngine
import Synchronization
import Testing
import TestSupport

/// `videoOrientation` is deprecated (Apple's replacement is `videoRotationAngle`), but apps use
/// it; set through this protocol the tests use it without a deprecation warning.
protocol VideoOrientationSetting: AnyObject {
    var videoOrientation: AVCaptureVideoOrientation { get set }
}

extension AVCaptureConnection: VideoOrientationSetting {}

enum ScreenJudge {
    /// The pattern's bars as drawn (RGB, 75 % SMPTE-like; white 100 %, the last a dark grey), and
    /// black for letterbox bars.
    static let colours: [(name: String, rgb: (Int, Int, Int))] = [
        ("white", (255, 255, 255)), ("yellow", (191, 191, 0)), ("cyan", (0, 191, 191)), ("green", (0, 191, 0)),
        ("magenta", (191, 0, 191)), ("red", (191, 0, 0)), ("blue", (0, 0, 191)), ("grey", (32, 32, 32)), ("black", (0, 0, 0)),
    ]
    static let barNames = colours.prefix(8).map(\.name)

    /// The screen's pixels in `rect` as RGB rows, read by ffmpeg's x11grab.
    static func grab(_ display: String, _ rect: (x: Int, y: Int, width: Int, height: Int)) throws -> [UInt8] {
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-f", "x11grab", "-video_size", "\(rect.width)x\(rect.height)",
                                               "-i", "\(display)+\(rect.x),\(rect.y)", "-frames:v", "1",
                                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard run.status == 0, run.output.count == rect.width * rect.height * 3 else {
            throw Failure(description: "x11grab gave \(run.output.count) bytes (status \(run.status))")
        }
        return [UInt8](run.output)
    }

    /// Saves the screen's `rect` as a PNG (for a person to look at).
    static func saveScreenshot(_ display: String, _ rect: (x: Int, y: Int, width: Int, height: Int), to path: String) throws {
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-y", "-f", "x11grab", "-video_size", "\(rect.width)x\(rect.height)",
                                               "-i", "\(display)+\(rect.x),\(rect.y)", "-frames:v", "1", path])
        guard run.status == 0 else { throw Failure(description: "x11grab could not save \(path)") }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The name of the colour nearest the pixel at (x, y), or "other r,g,b" when none is close.
    static func name(_ rgb: [UInt8], width: Int, _ x: Int, _ y: Int) -> String {
        let i = (y * width + x) * 3
        let (r, g, b) = (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
        let nearest = colours.min { a, b2 in distance(a.rgb, (r, g, b)) < distance(b2.rgb, (r, g, b)) }!
        return distance(nearest.rgb, (r, g, b)) <= 40 * 40 * 3 ? nearest.name : "other \(r),\(g),\(b)"
    }

    private static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        (a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1) + (a.2 - b.2) * (a.2 - b.2)
    }

    /// Grabs until every sample names its colour (a frame, a resize or a redraw may land a moment
    /// later), for up to 5 s; returns the samples that never did.
    static func expect(_ display: String, window: (x: Int, y: Int, width: Int, height: Int),
                       _ samples: [(x: Int, y: Int, colour: String)]) throws -> [String] {
        var failures: [String] = []
        let deadline = Date().addingTimeInterval(5)
        repeat {
            let rgb = try grab(display, window)
            failures = samples.compactMap {
                let seen = name(rgb, width: window.width, $0.x, $0.y)
                return seen == $0.colour ? nil : "(\($0.x),\($0.y)) is \(seen), not \($0.colour)"
            }
            if failures.isEmpty { return [] }
            usleep(100_000)
        } while Date() < deadline
        return failures
    }

    /// Whether an X window titled `title` exists (xwininfo lists the whole tree).
    static func windowExists(_ display: String, title: String) throws -> Bool {
        let run = try TestTools.runText("xwininfo", ["-display", display, "-root", "-tree"])
        guard run.status == 0 else { throw Failure(description: "xwininfo failed (status \(run.status))") }
        return run.output.contains("\"\(title)\"")
    }
}

extension CaptureTests {
    @Suite("AVCaptureVideoPreviewLayer window (Xvfb)", .enabled(if: CaptureServices.shouldRun,
                                                              "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
    struct PreviewWindowTests {
        /// Where the layer's window goes on the 1920×1080 screen (clear of the window sink tests').
        static let window = (x: 1200, y: 600, width: 640, height: 240)

        /// A running session with the 640×480 camera, a video data output and a layer of
        /// `window`'s frame; nil (after recording why) without the services.
        func start(camera uniqueID: String = CaptureCameras.vga)
            throws -> (session: AVCaptureSession, layer: AVCaptureVideoPreviewLayer, frames: FrameRecorder, display: String)? {
            guard let services = CaptureServicesEnvironment.install() else { return nil }
            unsetenv("AVFOUNDATION_PREVIEW")
            CaptureCameras.install()
            let session = AVCaptureSession()
            session.beginConfiguration()
            session.addInput(try AVCaptureDeviceInput(device: try #require(AVCaptureDevice(uniqueID: uniqueID))))
            session.sessionPreset = .vga640x480
            let output = AVCaptureVideoDataOutput()
            let frames = FrameRecorder()
            output.setSampleBufferDelegate(frames, queue: frames.queue)
            session.addOutput(output)
            let layer = AVCaptureVideoPreviewLayer(session: session)
            layer.name = "PreviewWindowTests \(getpid())"
            let w = Self.window
            layer.frame = CGRect(x: w.x, y: w.y, width: w.width, height: w.height)
            session.commitConfiguration()
            session.startRunning()
            try #require(session.isRunning)
            try #require(waitUntil(5) { layer.isPreviewing }, "frames never reached the layer")
            try #require(layer.hasWindow, "no window: \(layer.windowProblem ?? "?")")
            return (session, layer, frames, services.display)
        }

        /// The bar centres across a picture spanning x0..<x0+width at row y, left to right.
        func bars(x0: Int, width: Int, y: Int, names: [String] = ScreenJudge.barNames) -> [(x: Int, y: Int, colour: String)] {
            names.enumerated().map { (x: x0 + (2 * $0.offset + 1) * width / 16, y: y, colour: $0.element) }
        }

        @Test func theCamerasPictureIsLetterboxedStretchedAndFilledInTheLayersWindow() throws {
            guard let (session, layer, frames, display) = try start() else { return }
            defer { session.stopRunning() }
            let w = Self.window
            // .resizeAspect: 4:3 in 640×240 is 320×240 in the middle (x 160–480), black bars on
            // both sides; the bars at 30 % of the height (clear of the pattern's counter panel,
            // moving box and time strip).
            #expect(layer.videoGravity == .resizeAspect)
            var failures = try ScreenJudge.expect(display, window: w, bars(x0: 160, width: 320, y: 72) + [
                (20, 120, "black"), (140, 60, "black"), (500, 120, "black"), (620, 200, "black"),
            ])
            #expect(failures.isEmpty, "letterboxed: \(failures)")
            try ScreenJudge.saveScreenshot(display, w, to: "/tmp/avf-preview-layer-letterbox.png")

            // .resize: stretched over the whole window.
            layer.videoGravity = .resize
            failures = try ScreenJudge.expect(display, window: w, bars(x0: 0, width: 640, y: 72) + [
                // The counter panel (black, top-left of the pattern) is squeezed into the top rows.
                (100, 20, "black"),
            ])
            #expect(failures.isEmpty, "stretched: \(failures)")

            // .resizeAspectFill: 640×480 at full width, 120 rows cut off above and below, so the
            // top rows show bars where the stretched picture showed the panel.
            layer.videoGravity = .resizeAspectFill
            failures = try ScreenJudge.expect(display, window: w, bars(x0: 0, width: 640, y: 200) + [(100, 20, "yellow")])
            #expect(failures.isEmpty, "filled: \(failures)")

            // The preview took nothing from the output on the same camera.
            #expect(frames.count > 5, "\(frames.count) frames to the data output")
        }

        @Test func theConnectionMirrorsAndTurnsThePicture() throws {
            guard let (session, layer, _, display) = try start() else { return }
            defer { session.stopRunning() }
            let w = Self.window
            let connection = try #require(layer.connection)
            layer.videoGravity = .resize
            var failures = try ScreenJudge.expect(display, window: w, bars(x0: 0, width: 640, y: 150))
            #expect(failures.isEmpty, "plain: \(failures)")

            // Mirrored: white is on the right, grey on the left.
            connection.automaticallyAdjustsVideoMirroring = false
            connection.isVideoMirrored = true
            failures = try ScreenJudge.expect(display, window: w, bars(x0: 0, width: 640, y: 150, names: ScreenJudge.barNames.reversed()))
            #expect(failures.isEmpty, "mirrored: \(failures)")

            // Portrait (a quarter turn clockwise): the picture is 3:4, 180×240 in the middle of
            // the window with .resizeAspect (x 230–410); the bars are horizontal stripes, white
            // (the camera's left edge) at the top.
            connection.isVideoMirrored = false
            layer.videoGravity = .resizeAspect
            (connection as any VideoOrientationSetting).videoOrientation = .portrait
            #expect(connection.videoRotationAngle == 90)
            let stripes = ScreenJudge.barNames.enumerated().map { (x: 356, y: 15 + 30 * $0.offset, colour: $0.element) }
            failures = try ScreenJudge.expect(display, window: w, stripes + [(100, 120, "black"), (540, 120, "black")])
            #expect(failures.isEmpty, "portrait: \(failures)")
            try ScreenJudge.saveScreenshot(display, w, to: "/tmp/avf-preview-layer-portrait.png")

            // Changing the layer's bounds resizes the window: 240×320 (3:4) is filled by the picture.
            layer.frame = CGRect(x: w.x, y: w.y, width: 240, height: 320)
            let tall = (x: w.x, y: w.y, width: 240, height: 320)
            let tallStripes = ScreenJudge.barNames.enumerated().map { (x: 168, y: 20 + 40 * $0.offset, colour: $0.element) }
            failures = try ScreenJudge.expect(display, window: tall, tallStripes)
            #expect(failures.isEmpty, "resized: \(failures)")
        }

        /// The device zoomed 2×: the session's picture is the centre 320×240 of the camera's
        /// (x 160–480: bars 2–5, cyan to red, a quarter of the width each) — the camera's own
        /// buffer drawn from a source rectangle, no cropped copy.
        @Test func theWindowShowsTheZoomedCrop() throws {
            guard let (session, layer, _, display) = try start() else { return }
            defer { session.stopRunning() }
            let w = Self.window
            layer.videoGravity = .resize
            let device = try #require((session.inputs.first as? AVCaptureDeviceInput)?.device)
            try device.lockForConfiguration()
            device.videoZoomFactor = 2
            device.unlockForConfiguration()
            defer {
                try? device.lockForConfiguration()
                device.videoZoomFactor = 1
                device.unlockForConfiguration()
            }
            let zoomed = ScreenJudge.barNames[2 ... 5].enumerated().map { (x: 80 + 160 * $0.offset, y: 72, colour: $0.element) }
            let failures = try ScreenJudge.expect(display, window: w, zoomed)
            #expect(failures.isEmpty, "zoomed: \(failures)")
        }

        /// What the screen shows is the live camera: a second session records the window's
        /// area with `AVCaptureScreenInput`, and each screen frame's copy of the pattern's
        /// host-time strip (the capture time of the camera frame shown) is read back — it must
        /// advance, and never be later than the screen frame itself. The delay from camera
        /// capture to screen is printed (no timing assertion).
        @Test func theScreenShowsTheLiveCameraAndHowLate() throws {
            guard let (session, layer, _, display) = try start() else { return }
            defer { session.stopRunning() }
            // 640×480 at (1200, 560): the pattern at its own size, so the strip reads as drawn.
            layer.videoGravity = .resize
            layer.frame = CGRect(x: 1200, y: 560, width: 640, height: 480)
            let fullBars = bars(x0: 0, width: 640, y: 144)
            let failures = try ScreenJudge.expect(display, window: (x: 1200, y: 560, width: 640, height: 480), fullBars)
            try #require(failures.isEmpty, "the window did not take the layer's new frame: \(failures)")
            let screen = try #require(AVCaptureScreenInput(displayID: CGMainDisplayID()))
            screen.cropRect = CGRect(x: 1200, y: 1080 - 560 - 480, width: 640, height: 480)  // bottom-left origin
            screen.minFrameDuration = CMTime(value: 1, timescale: 30)
            screen.capturesCursor = false
            let recorder = StripReader()
            let output = AVCaptureVideoDataOutput()
            output.setSampleBufferDelegate(recorder, queue: recorder.queue)
            let screenSession = AVCaptureSession()
            screenSession.addInput(screen)
            screenSession.addOutput(output)
            screenSession.startRunning()
            defer { screenSession.stopRunning() }
            #expect(waitUntil(10) { recorder.readings.count >= 60 }, "\(recorder.readings.count) strips read")
            screenSession.stopRunning()
            let readings = recorder.readings.suffix(from: min(10, recorder.readings.count))
            try #require(readings.count >= 20, "\(readings.count) strips read from the screen")
            // Never a frame from the future: the camera captured it before the screen showed it.
            // A screen frame is stamped with the time it was due and grabbed just after; now that
            // the window shows a picture within a millisecond (MIT-SHM), one drawn in between can
            // be in it — so "before" allows those few milliseconds.
            #expect(readings.allSatisfy { $0.delay >= -0.005 }, "\(readings.map(\.delay))")
            // The picture moves on: many different camera frames were seen.
            #expect(Set(readings.map(\.captured)).count >= readings.count / 3)
            let delays = readings.map(\.delay).sorted()
            print(String(format: "preview: camera capture → X screen: median %.1f ms, 90th percentile %.1f ms, max %.1f ms (%d screen frames)",
                         delays[delays.count / 2] * 1000, delays[delays.count * 9 / 10] * 1000, delays.last! * 1000, delays.count))
        }

        @Test func stoppingKeepsTheLastFrameAndReleasingTheLayerClosesTheWindow() throws {
            let w = Self.window
            var display = "", title = ""
            do {
                guard let (session, layer, _, shownOn) = try start() else { return }
                display = shownOn
                title = try #require(layer.name)
                #expect(try ScreenJudge.windowExists(display, title: title))
                session.stopRunning()
                #expect(waitUntil(5) { !layer.isPreviewing })
                // The preview stops updating but still shows the last picture.
                let failures = try ScreenJudge.expect(display, window: w, bars(x0: 160, width: 320, y: 72))
                #expect(failures.isEmpty, "after stopping: \(failures)")
                #expect(try ScreenJudge.windowExists(display, title: title))
                // Running again: the same window shows frames again.
                session.startRunning()
                #expect(waitUntil(5) { layer.isPreviewing })
                session.stopRunning()
            }
            // The layer is released: its window is gone.
            #expect(waitUntil(5) { (try? ScreenJudge.windowExists(display, title: title)) == false }, "the window is still there")
        }

        @Test func avtoolRecordPreviewShowsTheCameraWhileRecording() throws {
            guard let services = CaptureServicesEnvironment.install() else { return }
            let executable = try #require(AssetWriterFaultTests.avtool, "avtool is not built (swift build --build-tests builds it)")
            let directory = try TestTools.temporaryDirectory("preview-record")
            defer { try? FileManager.default.removeItem(at: directory) }
            let movie = directory.appendingPathComponent("previewed.mov")
            let errorsFile = directory.appendingPathComponent("errors.txt")
            _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            process.arguments = ["record", "--camera", CaptureCameras.vga, "--preset", "640x480", "--no-audio", "--duration", "4",
                                 "--preview", "--quiet", "-o", movie.path]
            var environment = services.environment
            environment["AVFOUNDATION_VIRTUAL_CAMERAS"] = "testsrc:640x480@30"
            environment.removeValue(forKey: "AVFOUNDATION_PREVIEW")
            process.environment = environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: errorsFile)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }

            // The layer's 960×540 window at the screen's top-left: 4:3 letterboxed into 720×540
            // (x 120–840), the bars at 30 % of the height.
            let shown = waitUntil(10) { (try? TestTools.runText("xwininfo", ["-display", services.display, "-root", "-tree"]))?
                .output.contains("\"avtool record: ") == true }
            #expect(shown, "no avtool record window")
            let window = (x: 0, y: 0, width: 960, height: 540)
            let bars = ScreenJudge.barNames.enumerated().map { (x: 120 + (2 * $0.offset + 1) * 720 / 16, y: 162, colour: $0.element) }
            let failures = try ScreenJudge.expect(services.display, window: window, bars + [(60, 270, "black"), (900, 270, "black")])
            #expect(failures.isEmpty, "avtool's preview: \(failures)")

            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            #expect(!process.isRunning && process.terminationStatus == 0)
            let errors = (try? String(contentsOf: errorsFile, encoding: .utf8)) ?? ""
            #expect(!errors.contains("no preview window"), "\(errors)")
            let (status, streams) = try TestTools.runText("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,width,height",
                                                                      "-of", "csv=p=0", movie.path])
            #expect(status == 0 && streams.trimmingCharacters(in: .whitespacesAndNewlines) == "video,640,480", "\(streams)")
        }
    }
}

/// Reads the test pattern's host-time strip out of screen frames.
final class StripReader: NSObject, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    struct Reading: Sendable {
        /// When the camera captured the frame shown (host time, seconds).
        let captured: UInt64
        /// Screen frame time minus capture time, seconds.
        let delay: Double
    }

    let queue = DispatchQueue(label: "strip reader")
    private let state = Mutex<[Reading]>([])
    var readings: [Reading] { state.withLock { $0 } }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        guard let image = CMSampleBufferGetImageBuffer(sampleBuffer), let reading = HostTimeStrip.read(image) else { return }
        let screenTime = CMSampleBufferGetPresentationTimeStamp(sampleBuffer).seconds
        let captured = Double(reading.nanoseconds) / 1e9
        state.withLock { $0.append(Reading(captured: reading.nanoseconds, delay: screenTime - captured)) }
    }
}
