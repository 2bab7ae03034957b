// The SDL2 window sink on the test services' Xvfb: a picture of four coloured quadrants shown in
// a window, the X screen read back by an independent tool (ffmpeg's x11grab) and the window's
// pixels checked — stretched, letterboxed, turned and mirrored, NV12 and BGRA; then the cases
// without a display (no DISPLAY, a display nobody serves, AVFOUNDATION_PREVIEW=off), which must
// end headless with a reason, never in a crash.
import CoreGraphics
import CoreVideo
import Foundation
@testable import MediaEngine
import Testing
import TestSupport

enum WindowFixtures {
    /// (B, G, R) of the quadrants: top-left red, top-right green, bottom-left blue, bottom-right white.
    static let red: [UInt8] = [0, 0, 255], green: [UInt8] = [0, 255, 0], blue: [UInt8] = [255, 0, 0], white: [UInt8] = [255, 255, 255]
    static let black: [UInt8] = [0, 0, 0]

    /// A `width`×`height` BGRA picture of the four quadrants.
    static func quadrants(width: Int = 160, height: Int = 120) -> CVPixelBuffer {
        var made: CVPixelBuffer?
        CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &made)
        let buffer = made!
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = CVPixelBufferGetBaseAddress(buffer)!
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        for y in 0 ..< height {
            let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
            for x in 0 ..< width {
                let c = y < height / 2 ? (x < width / 2 ? red : green) : (x < width / 2 ? blue : white)
                row[4 * x] = c[0]; row[4 * x + 1] = c[1]; row[4 * x + 2] = c[2]; row[4 * x + 3] = 255
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        return buffer
    }

    /// The services' display, set as this process's DISPLAY when the run did not export it
    /// (scripts/test.sh does; a hand-started `capture-services.sh start` may not).
    static let display: String? = {
        guard let services = try? CaptureServices.current.get() else { return nil }
        if ProcessInfo.processInfo.environment["DISPLAY"] != services.display { setenv("DISPLAY", services.display, 1) }
        return services.display
    }()

    /// The screen's pixels in `rect` as RGB rows, read by ffmpeg's x11grab.
    static func grab(_ display: String, _ rect: (x: Int, y: Int, width: Int, height: Int)) throws -> [UInt8] {
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-f", "x11grab", "-video_size", "\(rect.width)x\(rect.height)",
                                               "-i", "\(display)+\(rect.x),\(rect.y)", "-frames:v", "1",
                                               "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard run.status == 0, run.output.count == rect.width * rect.height * 3 else {
            throw CodeFixtures.Failure("x11grab gave \(run.output.count) bytes (status \(run.status))")
        }
        return [UInt8](run.output)
    }

    /// Whether the grabbed pixel at (x, y) is `bgr` within `tolerance` per channel.
    static func matches(_ rgb: [UInt8], width: Int, _ x: Int, _ y: Int, _ bgr: [UInt8], tolerance: Int = 12) -> Bool {
        let i = (y * width + x) * 3
        return abs(Int(rgb[i]) - Int(bgr[2])) <= tolerance && abs(Int(rgb[i + 1]) - Int(bgr[1])) <= tolerance
            && abs(Int(rgb[i + 2]) - Int(bgr[0])) <= tolerance
    }

    /// Grabs until every expected pixel matches (the X server may draw a moment after the
    /// present), at most ~3 s; returns the pixels that never matched.
    static func expectPixels(_ display: String, window: (x: Int, y: Int, width: Int, height: Int),
                             _ expected: [(x: Int, y: Int, bgr: [UInt8])]) throws -> [String] {
        var failures: [String] = []
        for _ in 0 ..< 30 {
            let rgb = try grab(display, window)
            failures = expected.filter { !matches(rgb, width: window.width, $0.x, $0.y, $0.bgr) }.map {
                let i = ($0.y * window.width + $0.x) * 3
                return "(\($0.x),\($0.y)) is RGB \(rgb[i]),\(rgb[i + 1]),\(rgb[i + 2]) not BGR \($0.bgr)"
            }
            if failures.isEmpty { return [] }
            usleep(100_000)
        }
        return failures
    }
}

@Suite("Window sink (SDL2 on Xvfb)", .serialized,
       .enabled(if: CaptureServices.shouldRun, "capture services not running: scripts/capture-services.sh start, or run scripts/test.sh"))
struct WindowSinkTests {
    private func display() -> String? {
        if let display = WindowFixtures.display { return display }
        if case .failure(let reason) = CaptureServices.current { Issue.record("scripts/test.sh started this run, but: \(reason)") }
        return nil
    }

    /// Quadrant centres of a picture filling `rect` (x, y, w, h) in window pixels.
    private func quadrantCentres(_ r: (x: Int, y: Int, w: Int, h: Int)) -> [(Int, Int)] {
        [(r.x + r.w / 4, r.y + r.h / 4), (r.x + 3 * r.w / 4, r.y + r.h / 4),
         (r.x + r.w / 4, r.y + 3 * r.h / 4), (r.x + 3 * r.w / 4, r.y + 3 * r.h / 4)]
    }

    @Test func showsABGRAPictureStretchedOverTheWindow() throws {
        guard let display = display() else { return }
        let window = (x: 40, y: 40, width: 320, height: 240)
        let sink = WindowSink(title: "WindowSinkTests BGRA", width: window.width, height: window.height,
                              position: (window.x, window.y))
        defer { sink.close() }
        try #require(sink.state == .showing, "\(sink.state)")
        sink.show(WindowFixtures.quadrants())
        #expect(sink.waitUntilPresented(count: 1, timeout: 5))
        #expect(sink.windowSize == CGSize(width: 320, height: 240))
        let c = quadrantCentres((0, 0, 320, 240))
        let failures = try WindowFixtures.expectPixels(display, window: window, [
            (c[0].0, c[0].1, WindowFixtures.red), (c[1].0, c[1].1, WindowFixtures.green),
            (c[2].0, c[2].1, WindowFixtures.blue), (c[3].0, c[3].1, WindowFixtures.white),
        ])
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func showsAnNV12PictureLetterboxedTurnedAndMirrored() throws {
        guard let display = display() else { return }
        let window = (x: 400, y: 40, width: 320, height: 240)
        // '420v' from the BGRA quadrants (ffmpeg's converter), 160×120 → a 160×120 box in the
        // middle of the window (letterbox bars all round, black).
        let nv12 = try PixelConverter().makePixelBuffer(from: WindowFixtures.quadrants(),
                                                        pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        let box = CGRect(x: 80, y: 60, width: 160, height: 120)
        let sink = WindowSink(title: "WindowSinkTests NV12", width: window.width, height: window.height,
                              position: (window.x, window.y), placement: { _, _ in .init(destination: box) })
        defer { sink.close() }
        try #require(sink.state == .showing, "\(sink.state)")
        sink.show(nv12)
        #expect(sink.waitUntilPresented(count: 1, timeout: 5))
        var c = quadrantCentres((80, 60, 160, 120))
        var failures = try WindowFixtures.expectPixels(display, window: window, [
            (c[0].0, c[0].1, WindowFixtures.red), (c[1].0, c[1].1, WindowFixtures.green),
            (c[2].0, c[2].1, WindowFixtures.blue), (c[3].0, c[3].1, WindowFixtures.white),
            (20, 120, WindowFixtures.black), (300, 120, WindowFixtures.black), (160, 20, WindowFixtures.black),
            (160, 220, WindowFixtures.black),
        ])
        #expect(failures.isEmpty, "letterboxed: \(failures)")

        // Half a turn: the bottom-right (white) quadrant is now top-left.
        sink.setPlacement { _, _ in .init(destination: box, angle: 180) }
        sink.show(nv12)
        #expect(sink.waitUntilPresented(count: 2, timeout: 5))
        failures = try WindowFixtures.expectPixels(display, window: window, [
            (c[0].0, c[0].1, WindowFixtures.white), (c[1].0, c[1].1, WindowFixtures.blue),
            (c[2].0, c[2].1, WindowFixtures.green), (c[3].0, c[3].1, WindowFixtures.red),
        ])
        #expect(failures.isEmpty, "turned 180°: \(failures)")

        // Mirrored: left and right swap.
        sink.setPlacement { _, _ in .init(destination: box, flipHorizontally: true) }
        sink.show(nv12)
        #expect(sink.waitUntilPresented(count: 3, timeout: 5))
        failures = try WindowFixtures.expectPixels(display, window: window, [
            (c[0].0, c[0].1, WindowFixtures.green), (c[1].0, c[1].1, WindowFixtures.red),
            (c[2].0, c[2].1, WindowFixtures.white), (c[3].0, c[3].1, WindowFixtures.blue),
        ])
        #expect(failures.isEmpty, "mirrored: \(failures)")

        // A quarter turn clockwise of a 160×120 picture drawn into a 120×160 box: the
        // destination is the unrotated rect about the same centre (as PreviewGeometry.drawing
        // gives it). Top-left of the shown picture is the source's bottom-left (blue).
        let turned = CGRect(x: 80, y: 60, width: 160, height: 120)
        sink.setPlacement { _, _ in .init(destination: turned, angle: 90) }
        sink.show(nv12)
        #expect(sink.waitUntilPresented(count: 4, timeout: 5))
        c = quadrantCentres((100, 40, 120, 160))
        failures = try WindowFixtures.expectPixels(display, window: window, [
            (c[0].0, c[0].1, WindowFixtures.blue), (c[1].0, c[1].1, WindowFixtures.red),
            (c[2].0, c[2].1, WindowFixtures.white), (c[3].0, c[3].1, WindowFixtures.green),
            (40, 120, WindowFixtures.black), (280, 120, WindowFixtures.black),
        ])
        #expect(failures.isEmpty, "turned 90°: \(failures)")
    }

    @Test func anOverlayIsDrawnSourceOverThePictureAndCanBeRemoved() throws {
        guard let display = display() else { return }
        let window = (x: 40, y: 320, width: 320, height: 240)
        let sink = WindowSink(title: "WindowSinkTests overlay", width: window.width, height: window.height,
                              position: (window.x, window.y))
        defer { sink.close() }
        try #require(sink.state == .showing, "\(sink.state)")
        sink.show(WindowFixtures.quadrants())
        #expect(sink.waitUntilPresented(count: 1, timeout: 5))
        // A premultiplied overlay: left half transparent, a right-half band of opaque black
        // (rows 0–59) and of 50 % white (premultiplied 128,128,128,128) below it.
        var made: CVPixelBuffer?
        CVPixelBufferCreate(nil, 320, 240, kCVPixelFormatType_32BGRA, nil, &made)
        let overlay = try #require(made)
        CVPixelBufferLockBaseAddress(overlay, [])
        let base = try #require(CVPixelBufferGetBaseAddress(overlay))
        let stride = CVPixelBufferGetBytesPerRow(overlay)
        for y in 0 ..< 240 {
            let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
            for x in 0 ..< 320 {
                let p: [UInt8] = x < 160 ? [0, 0, 0, 0] : (y < 60 ? [0, 0, 0, 255] : [128, 128, 128, 128])
                for c in 0 ..< 4 { row[4 * x + c] = p[c] }
            }
        }
        CVPixelBufferUnlockBaseAddress(overlay, [])
        sink.setOverlay(overlay)
        let c = quadrantCentres((0, 0, 320, 240))
        // Left: the picture unchanged; top right: black; bottom right: white over white stays
        // white, the green quadrant's lower rows (y 60–119) become half green + half white.
        var failures = try WindowFixtures.expectPixels(display, window: window, [
            (c[0].0, c[0].1, WindowFixtures.red), (c[2].0, c[2].1, WindowFixtures.blue),
            (240, 30, WindowFixtures.black), (c[3].0, c[3].1, WindowFixtures.white),
            (240, 90, [128, 255, 128]),
        ])
        #expect(failures.isEmpty, "with the overlay: \(failures)")
        sink.setOverlay(nil)
        failures = try WindowFixtures.expectPixels(display, window: window, [
            (c[1].0, c[1].1, WindowFixtures.green), (240, 30, WindowFixtures.green),
        ])
        #expect(failures.isEmpty, "overlay removed: \(failures)")
    }

    @Test func newestFrameWinsAndClosingIsClean() throws {
        guard display() != nil else { return }
        let sink = WindowSink(title: "WindowSinkTests close", width: 64, height: 64, position: (760, 40))
        try #require(sink.state == .showing, "\(sink.state)")
        for _ in 0 ..< 50 { sink.show(WindowFixtures.quadrants(width: 32, height: 32)) }
        #expect(sink.receivedCount == 50)
        #expect(sink.waitUntilPresented(count: 1, timeout: 5))
        #expect(sink.presentedCount <= 50)
        sink.close()
        #expect(sink.state == .closed)
        sink.show(WindowFixtures.quadrants(width: 32, height: 32))  // ignored, no crash
        sink.close()  // twice is harmless
        // SDL stopped with the last window and starts again for the next.
        let again = WindowSink(title: "WindowSinkTests again", width: 64, height: 64, position: (760, 40))
        #expect(again.state == .showing, "\(again.state)")
        again.close()
    }
}

/// Without a display: exit tests, so that each child process has its own environment and SDL.
@Suite("Window sink without a display")
struct WindowSinkHeadlessTests {
    @Test func noDisplayVariableMeansHeadless() async {
        await #expect(processExitsWith: .success) {
            unsetenv("DISPLAY")
            unsetenv("WAYLAND_DISPLAY")
            let sink = WindowSink(title: "headless", width: 64, height: 64)
            guard case .headless(let why) = sink.state, why.contains("DISPLAY") else { fatalError("state \(sink.state)") }
            sink.show(WindowFixtures.quadrants(width: 16, height: 16))
            precondition(sink.receivedCount == 1 && sink.presentedCount == 0)
            precondition(!sink.waitUntilPresented(count: 1, timeout: 0.1))
            sink.close()
            precondition(sink.state == .closed)
        }
    }

    @Test func aDisplayNobodyServesMeansHeadless() async {
        await #expect(processExitsWith: .success) {
            setenv("DISPLAY", ":4321", 1)
            unsetenv("WAYLAND_DISPLAY")
            let sink = WindowSink(title: "headless", width: 64, height: 64)
            guard case .headless(let why) = sink.state, why.hasPrefix("no display:") else { fatalError("state \(sink.state)") }
            sink.show(WindowFixtures.quadrants(width: 16, height: 16))
            sink.close()
            // A second sink asks again, and gets the same answer.
            let second = WindowSink(title: "headless 2", width: 64, height: 64)
            guard case .headless = second.state else { fatalError("second state \(second.state)") }
        }
    }

    @Test func previewOffMeansHeadless() async {
        await #expect(processExitsWith: .success) {
            setenv("AVFOUNDATION_PREVIEW", "off", 1)
            let sink = WindowSink(title: "headless", width: 64, height: 64)
            guard case .headless(let why) = sink.state, why.contains("AVFOUNDATION_PREVIEW=off") else {
                fatalError("state \(sink.state)")
            }
        }
    }
}
