// Sublayers over the preview (AVCaptureVideoPreviewLayer is a CALayer): what an app adds — a
// recording dot, a focus box placed with layerRectConverted(fromMetadataOutputRect:), the outline
// of a QR code the camera sees placed with transformedMetadataObject(for:) — drawn over the
// camera's picture in the preview window, laid out from the layer's top-left corner, read back
// from the X screen by ffmpeg's x11grab; removing them removes them from the window.
@testable import AVFoundation
import Foundation
import QuartzCore
import Testing
import TestSupport

extension CaptureTests.PreviewWindowTests {
    static let magenta = CGColor(red: 1, green: 0, blue: 1, alpha: 1)

    /// Whether the grabbed window pixel (x, y) is magenta (within 40 a channel).
    static func isMagenta(_ rgb: [UInt8], width: Int, _ x: Int, _ y: Int) -> Bool {
        let i = (y * width + x) * 3
        return rgb[i] > 215 && rgb[i + 1] < 40 && rgb[i + 2] > 215
    }

    /// Grabs the window until `check` holds (the overlay follows the next frame), up to 5 s.
    static func eventually(_ display: String, _ window: (x: Int, y: Int, width: Int, height: Int),
                           _ check: ([UInt8]) -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        repeat {
            if check(try ScreenJudge.grab(display, window)) { return true }
            usleep(100_000)
        } while Date() < deadline
        return false
    }

    @Test func sublayersAreDrawnOverThePictureFromTheTopLeft() throws {
        guard let (session, layer, _, display) = try start() else { return }
        defer { session.stopRunning() }
        let w = Self.window
        // A recording dot in the left letterbox bar (black there), 20 px from the top.
        let dot = CALayer()
        dot.frame = CGRect(x: 20, y: 20, width: 40, height: 40)
        dot.backgroundColor = Self.magenta
        dot.cornerRadius = 20
        // A focus box around the middle quarter of the picture (the picture is x 160–480).
        let box = CALayer()
        box.frame = layer.layerRectConverted(fromMetadataOutputRect: CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
        #expect(box.frame == CGRect(x: 240, y: 60, width: 160, height: 120))
        box.borderWidth = 4
        box.borderColor = Self.magenta
        CATransaction.begin()
        CATransaction.setDisableActions(true)
        layer.addSublayer(dot)
        layer.addSublayer(box)
        CATransaction.commit()
        let drawn = try Self.eventually(display, (w.x, w.y, w.width, w.height)) { rgb in
            Self.isMagenta(rgb, width: w.width, 40, 40) && !Self.isMagenta(rgb, width: w.width, 40, 200)
                && Self.isMagenta(rgb, width: w.width, 241, 120) && Self.isMagenta(rgb, width: w.width, 320, 61)
                && !Self.isMagenta(rgb, width: w.width, 320, 120)
        }
        #expect(drawn, "the dot and the focus box never showed where they were put")
        try? ScreenJudge.saveScreenshot(display, (w.x, w.y, w.width, w.height), to: "/tmp/preview-sublayers.png")
        // The picture still shows inside the box (the bars at 30 % of the height).
        let inside = try ScreenJudge.expect(display, window: (w.x, w.y, w.width, w.height), [(x: 260, y: 72, colour: "cyan"), (x: 300, y: 72, colour: "green")])
        #expect(inside.isEmpty, "\(inside)")
        CATransaction.begin()
        CATransaction.setDisableActions(true)
        dot.removeFromSuperlayer()
        box.removeFromSuperlayer()
        CATransaction.commit()
        let gone = try Self.eventually(display, (w.x, w.y, w.width, w.height)) { rgb in
            !Self.isMagenta(rgb, width: w.width, 40, 40) && !Self.isMagenta(rgb, width: w.width, 241, 120)
        }
        #expect(gone, "removed sublayers stayed in the window")
    }

    @Test func anOutlineFollowsTheQRCodeTheCameraSees() throws {
        guard CodeCameras.toolsInstalled, let services = CaptureServicesEnvironment.install() else { return }
        unsetenv("AVFOUNDATION_PREVIEW")
        defer { CaptureCameras.install() }
        // The code on the right half of the camera's picture.
        let camera = try CodeCameras.qr("https://example.org/preview-outline", x: "(ow-iw)*3/4")
        let session = AVCaptureSession()
        session.addInput(try AVCaptureDeviceInput(device: camera))
        let output = AVCaptureMetadataOutput()
        session.addOutput(output)
        let recorder = MetadataRecorder()
        output.setMetadataObjectsDelegate(recorder, queue: recorder.queue)
        output.metadataObjectTypes = [.qr]
        let layer = AVCaptureVideoPreviewLayer(session: session)
        layer.name = "PreviewSublayerTests QR \(getpid())"
        let w = (x: 1200, y: 300, width: 640, height: 480)
        layer.frame = CGRect(x: w.x, y: w.y, width: w.width, height: w.height)
        session.startRunning()
        defer { session.stopRunning() }
        try #require(waitUntil(5) { !recorder.codes.isEmpty }, "no code seen")
        try #require(layer.hasWindow, "no window: \(layer.windowProblem ?? "?")")
        let code = try #require(recorder.codes.last)
        let seen = try #require(layer.transformedMetadataObject(for: code) as? AVMetadataMachineReadableCodeObject)
        // The outline: a shape layer through the corners, as capture apps draw it.
        let outline = CAShapeLayer()
        let path = CGMutablePath()
        path.addLines(between: seen.corners)
        path.closeSubpath()
        outline.path = path
        outline.fillColor = nil
        outline.strokeColor = Self.magenta
        outline.lineWidth = 6
        CATransaction.begin()
        CATransaction.setDisableActions(true)
        layer.addSublayer(outline)
        CATransaction.commit()
        let b = seen.bounds
        #expect(b.midX > 320, "the code is on the right: \(b)")
        let drawn = try Self.eventually(services.display, w) { rgb in
            Self.isMagenta(rgb, width: w.width, Int(b.minX.rounded()), Int(b.midY)) &&
                Self.isMagenta(rgb, width: w.width, Int(b.maxX.rounded()) - 1, Int(b.midY)) &&
                Self.isMagenta(rgb, width: w.width, Int(b.midX), Int(b.minY.rounded())) &&
                !Self.isMagenta(rgb, width: w.width, Int(b.midX), Int(b.midY)) &&
                !Self.isMagenta(rgb, width: w.width, 100, Int(b.midY))
        }
        try? ScreenJudge.saveScreenshot(services.display, w, to: "/tmp/preview-qr-outline.png")
        #expect(drawn, "the outline is not around the code at \(b)")
    }
}
