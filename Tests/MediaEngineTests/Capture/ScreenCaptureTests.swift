// X11 screen capture: the screens of the test services' Xvfb as devices, frames paced at the
// frame duration, and — on a private Xvfb this suite starts, so that no other suite's windows
// are in the way — the pixels: known colours read back, the crop rectangle (bottom-left origin),
// scaling, the cursor drawn in, and the X server killed mid-capture.
import CoreGraphics
#if canImport(Glibc)
import Glibc
#endif
import CoreMedia
import CoreVideo
import Foundation
@testable import MediaEngine
import Synchronization
import Testing
import TestSupport

/// What a source delivered, collected from its thread: per frame its times, sequence number,
/// size, format and the alpha of its centre pixel, and the last frame itself. Only the last
/// buffer is kept: a source's buffers are a bounded pool, and holding them all would stop it.
final class LiveFrameCollector: @unchecked Sendable {
    struct Info {
        let pts: CMTime
        let sequence: UInt64
        let width: Int
        let height: Int
        let pixelFormat: OSType
        let centreAlpha: UInt8?
    }

    private let lock = NSLock()
    private var _frames: [Info] = []
    private var _last: LiveFrame?
    private var _failures: [(LiveSourceError, CMTime)] = []

    var frames: [Info] { lock.withLock { _frames } }
    var lastFrame: LiveFrame? { lock.withLock { _last } }
    var failures: [(LiveSourceError, CMTime)] { lock.withLock { _failures } }

    func deliver(_ frame: LiveFrame) {
        let b = frame.pixelBuffer
        let (w, h) = (CVPixelBufferGetWidth(b), CVPixelBufferGetHeight(b))
        let format = CVPixelBufferGetPixelFormatType(b)
        let alpha = format == kCVPixelFormatType_32BGRA ? bgraPixel(b, w / 2, h / 2).alpha : nil
        let info = Info(pts: frame.pts, sequence: frame.sequence, width: w, height: h, pixelFormat: format, centreAlpha: alpha)
        lock.withLock {
            _frames.append(info)
            _last = frame
        }
    }

    func fail(_ error: LiveSourceError) {
        let now = CMClockGetTime(CMClockGetHostTimeClock())
        lock.withLock { _failures.append((error, now)) }
    }

    /// Waits up to `seconds` for `count` frames (or a failure); returns the frames' infos.
    func waitForFrames(_ count: Int, seconds: Double = 10) -> [Info] {
        let deadline = Date().addingTimeInterval(seconds)
        while frames.count < count, failures.isEmpty, Date() < deadline { usleep(5_000) }
        return frames
    }
}

/// An Xvfb server of this suite's own (a display nobody uses), stopped by `stop()`.
final class PrivateXvfb: @unchecked Sendable {
    let display: String
    private let process: Process

    init(width: Int = 640, height: Int = 480) throws {
        let directory = try TestTools.temporaryDirectory("xvfb")
        let file = directory.appendingPathComponent("display")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // exec: the process is Xvfb itself, so terminating it kills the server.
        process.arguments = ["-c", "exec Xvfb -displayfd 3 -screen 0 \(width)x\(height)x24 -nolisten tcp -noreset 3>'\(file.path)'"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        var number = ""
        while Date() < deadline {
            number = (try? String(contentsOf: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if !number.isEmpty || !process.isRunning { break }
            usleep(20_000)
        }
        guard !number.isEmpty else {
            if process.isRunning { process.terminate() }
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "Xvfb did not start"])
        }
        display = ":\(number)"
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the server (SIGKILL: gone at once, as a crashed server).
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { kill() }
}

/// The BGRA pixel at (x, y) (top-left origin) as 0xRRGGBB and its alpha.
func bgraPixel(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> (rgb: UInt32, alpha: UInt8) {
    CVPixelBufferLockBaseAddress(buffer, .readOnly)
    defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
    let base = CVPixelBufferGetBaseAddress(buffer)!.assumingMemoryBound(to: UInt8.self)
    let p = base + y * CVPixelBufferGetBytesPerRow(buffer) + x * 4
    return (UInt32(p[2]) << 16 | UInt32(p[1]) << 8 | UInt32(p[0]), p[3])
}

@Suite("X11 screen capture: configuration arithmetic")
struct ScreenCaptureConfigurationTests {
    @Test("The crop rectangle has its origin at the bottom-left and is clipped to the screen")
    func cropRegion() {
        var configuration = ScreenCaptureConfiguration()
        #expect(configuration.captureRegion(screenWidth: 1920, screenHeight: 1080) == ScreenRegion(x: 0, y: 0, width: 1920, height: 1080))
        configuration.cropRect = CGRect(x: 0, y: 0, width: 640, height: 480)
        #expect(configuration.captureRegion(screenWidth: 1920, screenHeight: 1080) == ScreenRegion(x: 0, y: 600, width: 640, height: 480))
        configuration.cropRect = CGRect(x: 100, y: 1000, width: 200, height: 200)    // sticks out at the top
        #expect(configuration.captureRegion(screenWidth: 1920, screenHeight: 1080) == ScreenRegion(x: 100, y: 0, width: 200, height: 80))
        configuration.cropRect = CGRect(x: 3000, y: 0, width: 10, height: 10)
        #expect(configuration.captureRegion(screenWidth: 1920, screenHeight: 1080) == nil)
        configuration.cropRect = .zero
        #expect(configuration.captureRegion(screenWidth: 1920, screenHeight: 1080)?.width == 1920)
    }

    @Test("The scale factor scales the output size; zero or negative factors have none")
    func outputSize() throws {
        var configuration = ScreenCaptureConfiguration()
        let region = ScreenRegion(x: 0, y: 0, width: 320, height: 240)
        configuration.scaleFactor = 2
        let doubled = try #require(configuration.outputSize(for: region))
        #expect(doubled.width == 640 && doubled.height == 480)
        configuration.scaleFactor = 0.5
        let halved = try #require(configuration.outputSize(for: region))
        #expect(halved.width == 160 && halved.height == 120)
        configuration.scaleFactor = 0
        #expect(configuration.outputSize(for: region) == nil)
    }

    @Test("Display names parse as XCB parses them; the main display ID is the DISPLAY screen + 1")
    func displayNames() throws {
        let name = try #require(X11DisplayName(":99.1"))
        #expect(name.server == ":99" && name.screen == 1)
        #expect(X11DisplayName("not a display") == nil)
        #expect(X11ScreenDevice.mainDisplayID(display: ":5.2") == 3)
        #expect(X11ScreenDevice.mainDisplayID(display: nil) == 1)
        #expect(CGMainDisplayID() == X11ScreenDevice.mainDisplayID())
        #expect(kCGNullDirectDisplay == 0)
    }

    @Test("Without a reachable X server there are no screens and a source does not start")
    func noDisplay() throws {
        #expect(X11ScreenDevice.screens(display: nil).isEmpty)
        #expect(X11ScreenDevice.screens(display: "").isEmpty)
        #expect(X11ScreenDevice.screens(display: ":4093").isEmpty)
        #expect(X11ScreenDevice.screen(displayID: 1, display: nil) == nil)
        let ghost = X11ScreenDevice(server: ":4093", screenNumber: 0, width: 640, height: 480, vendor: "none")
        let source = X11ScreenSource(device: ghost)
        let format = try #require(source.formats.first)
        #expect(throws: LiveSourceError.self) {
            try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: CMClockGetHostTimeClock(),
                             deliver: { _ in }, failed: { _ in })
        }
    }
}

@Suite("X11 screen capture on the test services' Xvfb", .serialized,
       .enabled(if: CaptureServices.shouldRun, "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
struct ScreenCaptureServicesTests {
    private func display() throws -> String { try CaptureServices.current.get().display }

    @Test("The Xvfb screen is a device: x11:<display>.0, 1920×1080 BGRA, display ID 1")
    func descriptor() throws {
        let display = try display()
        let screens = X11ScreenDevice.screens(display: display)
        let screen = try #require(screens.first)
        let server = try #require(X11DisplayName(display)).server
        #expect(screen.uniqueID == "x11:\(server).0")
        #expect(screen.deviceKind == .screen && !screen.isExternal)
        #expect(screen.width == 1920 && screen.height == 1080)
        #expect(screen.videoFormats.first?.pixelFormat == kCVPixelFormatType_32BGRA)
        #expect(X11ScreenDevice.screen(displayID: 1, display: display) == screen)
        #expect(X11ScreenDevice.screen(displayID: 2, display: display) == nil)
        #expect(screen.makeVideoSource() != nil && screen.makeAudioSource() == nil)
    }

    @Test("One second at 1/30 s gives 27–33 full-screen BGRA frames with rising PTS on the host clock")
    func oneSecondAt30() throws {
        let screen = try #require(X11ScreenDevice.screens(display: try display()).first)
        let source = X11ScreenSource(device: screen)
        let format = try #require(source.formats.first)
        let collector = LiveFrameCollector()
        let clock = CMClockGetHostTimeClock()
        let before = CMClockGetTime(clock)
        try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: clock,
                         deliver: collector.deliver, failed: collector.fail)
        usleep(1_000_000)
        source.stop()
        let after = CMClockGetTime(clock)
        let frames = collector.frames
        #expect((27...33).contains(frames.count), "\(frames.count) frames")
        #expect(collector.failures.isEmpty)
        for frame in frames {
            #expect(frame.width == 1920 && frame.height == 1080)
            #expect(frame.pixelFormat == kCVPixelFormatType_32BGRA)
            #expect(frame.pts >= before && frame.pts <= after)
            #expect(frame.centreAlpha == 255)
        }
        for (a, b) in zip(frames, frames.dropFirst()) {
            #expect(a.pts < b.pts)
            #expect(a.sequence < b.sequence)
        }
        // Nothing arrives after stop().
        let count = collector.frames.count
        usleep(100_000)
        #expect(collector.frames.count == count)
    }

    /// A consumer (or the machine) holding the capture thread for 200 ms loses no frame: the
    /// ticks it missed are captured as soon as it returns, each stamped with the time it was due,
    /// so the frames keep steady intervals.
    @Test("A 200 ms stall of the capture thread loses no frame; frames keep their due times")
    func stallCatchUp() throws {
        let screen = try #require(X11ScreenDevice.screens(display: try display()).first)
        let source = X11ScreenSource(device: screen)
        let format = try #require(source.formats.first)
        let seen = Mutex<[(sequence: UInt64, pts: CMTime)]>([])
        let duration = CMTime(value: 1, timescale: 30)
        try source.start(format: format, frameDuration: duration, clock: CMClockGetHostTimeClock(), deliver: { frame in
            let count = seen.withLock {
                $0.append((frame.sequence, frame.pts))
                return $0.count
            }
            if count == 5 { usleep(200_000) }    // the pixel buffer is not kept: segments come back
        }, failed: { _ in })
        usleep(1_000_000)
        source.stop()
        let frames = seen.withLock { $0 }
        #expect(frames.count >= 25, "\(frames.count) frames")
        for (i, frame) in frames.enumerated() { #expect(frame.sequence == UInt64(i), "frame \(i) is tick \(frame.sequence)") }
        for (a, b) in zip(frames, frames.dropFirst()) { #expect(b.pts - a.pts == duration, "\(a.pts.seconds) → \(b.pts.seconds)") }
    }
}

@Suite("X11 screen capture on a private Xvfb", .serialized,
       .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb"), "Xvfb is not installed (scripts/setup.sh installs it)"))
struct ScreenCapturePixelTests {
    /// Starts `source` at 1/30 s, waits for `count` frames, stops; the last frame.
    private func capture(_ source: X11ScreenSource, count: Int = 3) throws -> LiveFrame? {
        let format = try #require(source.formats.first)
        let collector = LiveFrameCollector()
        try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: CMClockGetHostTimeClock(),
                         deliver: collector.deliver, failed: collector.fail)
        #expect(collector.waitForFrames(count).count >= count)
        source.stop()
        #expect(collector.failures.isEmpty, "\(collector.failures.map(\.0))")
        return collector.lastFrame
    }

    /// A 640×480 private screen: left half red, right half blue, a green 100×50 block at the
    /// bottom-left corner (X's (0, 430)), the pointer in the top-right corner.
    private func paintedScreen() throws -> (PrivateXvfb, X11ScreenDevice, X11TestClient) {
        let xvfb = try PrivateXvfb(width: 640, height: 480)
        let client = try X11TestClient(display: xvfb.display)
        client.fill(x: 0, y: 0, width: 320, height: 480, rgb: 0xFF0000)
        client.fill(x: 320, y: 0, width: 320, height: 480, rgb: 0x0000FF)
        client.fill(x: 0, y: 430, width: 100, height: 50, rgb: 0x00FF00)
        client.warpPointer(x: 639, y: 0)
        let device = try #require(X11ScreenDevice.screens(display: xvfb.display).first)
        return (xvfb, device, client)
    }

    @Test("Frames show what is on the screen, opaque")
    func knownPixels() throws {
        let (xvfb, device, _) = try paintedScreen()
        var configuration = ScreenCaptureConfiguration()
        configuration.capturesCursor = false
        let frame = try #require(try capture(X11ScreenSource(device: device, configuration: configuration))).pixelBuffer
        #expect(CVPixelBufferGetWidth(frame) == 640 && CVPixelBufferGetHeight(frame) == 480)
        #expect(bgraPixel(frame, 10, 10) == (0xFF0000, 255))
        #expect(bgraPixel(frame, 600, 10) == (0x0000FF, 255))
        #expect(bgraPixel(frame, 50, 470) == (0x00FF00, 255))
        #expect(bgraPixel(frame, 150, 470) == (0xFF0000, 255))
        withExtendedLifetime(xvfb) {}
    }

    @Test("cropRect (0, 0, 100, 50) is the bottom-left 100×50 pixels")
    func cropIsBottomLeft() throws {
        let (xvfb, device, _) = try paintedScreen()
        var configuration = ScreenCaptureConfiguration()
        configuration.cropRect = CGRect(x: 0, y: 0, width: 100, height: 50)
        configuration.capturesCursor = false
        let frame = try #require(try capture(X11ScreenSource(device: device, configuration: configuration))).pixelBuffer
        #expect(CVPixelBufferGetWidth(frame) == 100 && CVPixelBufferGetHeight(frame) == 50)
        for (x, y) in [(0, 0), (99, 0), (0, 49), (99, 49), (50, 25)] {
            #expect(bgraPixel(frame, x, y).rgb == 0x00FF00, "(\(x), \(y))")
        }
        // One pixel wider on the right reaches the red half; one taller reaches red above.
        configuration.cropRect = CGRect(x: 0, y: 0, width: 101, height: 51)
        let wider = try #require(try capture(X11ScreenSource(device: device, configuration: configuration))).pixelBuffer
        #expect(bgraPixel(wider, 100, 50).rgb == 0xFF0000 && bgraPixel(wider, 0, 0).rgb == 0xFF0000)
        #expect(bgraPixel(wider, 0, 1).rgb == 0x00FF00)
        withExtendedLifetime(xvfb) {}
    }

    @Test("scaleFactor 0.5 halves each side and keeps the picture")
    func halfScale() throws {
        let (xvfb, device, _) = try paintedScreen()
        var configuration = ScreenCaptureConfiguration()
        configuration.scaleFactor = 0.5
        configuration.capturesCursor = false
        let source = X11ScreenSource(device: device, configuration: configuration)
        #expect(source.formats.first?.width == 320 && source.formats.first?.height == 240)
        let frame = try #require(try capture(source)).pixelBuffer
        #expect(CVPixelBufferGetWidth(frame) == 320 && CVPixelBufferGetHeight(frame) == 240)
        #expect(bgraPixel(frame, 40, 40).rgb == 0xFF0000)
        #expect(bgraPixel(frame, 280, 40).rgb == 0x0000FF)
        #expect(bgraPixel(frame, 20, 230).rgb == 0x00FF00)
        withExtendedLifetime(xvfb) {}
    }

    @Test("capturesCursor draws the pointer where it was moved; without it the screen is untouched")
    func cursor() throws {
        let (xvfb, device, client) = try paintedScreen()
        client.warpPointer(x: 160, y: 240)
        func pixelsChanged(_ frame: CVPixelBuffer) -> Int {
            var changed = 0
            for y in 225..<256 { for x in 145..<176 where bgraPixel(frame, x, y).rgb != 0xFF0000 { changed += 1 } }
            return changed
        }
        var configuration = ScreenCaptureConfiguration()
        configuration.capturesCursor = false
        let plain = try #require(try capture(X11ScreenSource(device: device, configuration: configuration))).pixelBuffer
        #expect(pixelsChanged(plain) == 0)
        configuration.capturesCursor = true
        let withCursor = try #require(try capture(X11ScreenSource(device: device, configuration: configuration))).pixelBuffer
        #expect(pixelsChanged(withCursor) > 20, "the cursor is drawn around (160, 240)")
        // Far from the pointer the picture is the same.
        #expect(bgraPixel(withCursor, 600, 10).rgb == 0x0000FF)
        withExtendedLifetime(xvfb) {}
    }

    @Test("removesDuplicateFrames leaves out frames of an unchanged screen")
    func duplicates() throws {
        let (xvfb, device, _) = try paintedScreen()
        var configuration = ScreenCaptureConfiguration()
        configuration.removesDuplicateFrames = true
        configuration.capturesCursor = false
        let source = X11ScreenSource(device: device, configuration: configuration)
        let format = try #require(source.formats.first)
        let collector = LiveFrameCollector()
        try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: CMClockGetHostTimeClock(),
                         deliver: collector.deliver, failed: collector.fail)
        usleep(400_000)
        source.stop()
        #expect(collector.frames.count == 1, "a still screen gives its first frame only")
        #expect(source.skippedCount >= 5)
        withExtendedLifetime(xvfb) {}
    }

    @Test("The X server killed mid-capture fails the source with .disconnected once, within 1 s")
    func serverKilled() throws {
        let (xvfb, device, _) = try paintedScreen()
        let source = X11ScreenSource(device: device)
        let format = try #require(source.formats.first)
        let collector = LiveFrameCollector()
        try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: CMClockGetHostTimeClock(),
                         deliver: collector.deliver, failed: collector.fail)
        #expect(collector.waitForFrames(3).count >= 3)
        let killedAt = CMClockGetTime(CMClockGetHostTimeClock())
        xvfb.kill()
        let deadline = Date().addingTimeInterval(3)
        while collector.failures.isEmpty, Date() < deadline { usleep(5_000) }
        usleep(200_000)
        source.stop()
        let failures = collector.failures
        #expect(failures.count == 1)
        if let (error, at) = failures.first {
            if case .disconnected = error {} else { Issue.record("expected .disconnected, got \(error)") }
            #expect((at - killedAt).seconds < 1, "failed \((at - killedAt).seconds) s after the kill")
        }
        // No frame after the failure.
        if let last = collector.frames.last, let failedAt = failures.first?.1 { #expect(last.pts <= failedAt) }
    }
}

/// The cost of screen capture, measured on demand (`AVF_MEASURE_SCREEN_CAPTURE=1`; prints, asserts
/// nothing timed): 10 s of 1920×1080 at 30 fps with the cursor, CPU time of this process
/// (user + system, getrusage) per frame. docs/ARCHITECTURE.md quotes it beside ffmpeg's x11grab.
@Suite("X11 screen capture cost", .enabled(if: ProcessInfo.processInfo.environment["AVF_MEASURE_SCREEN_CAPTURE"] == "1"
                                             && CaptureServices.areAvailable, "set AVF_MEASURE_SCREEN_CAPTURE=1 to measure"))
struct ScreenCaptureCostTests {
    @Test func tenSecondsAt1080p30() throws {
        let screen = try #require(X11ScreenDevice.screens(display: try CaptureServices.current.get().display).first)
        let source = X11ScreenSource(device: screen)
        let format = try #require(source.formats.first)
        let collector = LiveFrameCollector()
        func cpu() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        let start = cpu()
        try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: CMClockGetHostTimeClock(),
                         deliver: collector.deliver, failed: collector.fail)
        usleep(10_000_000)
        source.stop()
        let used = cpu() - start
        let frames = collector.frames.count
        #expect(frames > 0)
        print(String(format: "X11ScreenSource 1920x1080@30 for 10 s: %d frames, %.2f s CPU, %.2f ms CPU per frame",
                     frames, used, used / Double(max(1, frames)) * 1000))
    }
}
