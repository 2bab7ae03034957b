// AVCaptureMetadataOutput on file cameras showing codes made at test time by qrencode and zint
// (independent encoders): the QR payload with 4 corners inside its bounds, only enabled types
// reported, EAN-13 with its check digit, the rect of interest, and Apple's exceptions.
@testable import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

/// A picture of a code as a 640×480 PNG file camera.
enum CodeCameras {
    static var toolsInstalled: Bool {
        ["/usr/bin/qrencode", "/usr/bin/zint", "/usr/bin/ffmpeg"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("avf-capture-codes-\(getpid())")

    /// Runs `tool` to write a code PNG, pads it (white) to 640×480 at `x`,`y` (centred when nil)
    /// with the ffmpeg CLI into `name`.png, and makes that file the only virtual camera.
    static func camera(_ name: String, _ tool: String, _ arguments: (String) -> [String],
                       x: String = "(ow-iw)/2", y: String = "(oh-ih)/2") throws -> AVCaptureDevice {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let code = directory.appendingPathComponent("\(name)-code.png")
        let picture = directory.appendingPathComponent("\(name).png")
        let made = try TestTools.run(tool, arguments(code.path), capture: .standardError)
        try #require(made.status == 0, "\(tool): \(String(decoding: made.output, as: UTF8.self))")
        let padded = try TestTools.run("ffmpeg", ["-v", "error", "-y", "-i", code.path, "-vf",
                                                  "pad=640:480:\(x):\(y):color=white,format=rgb24", picture.path])
        try #require(padded.status == 0, "ffmpeg could not pad the code")
        setenv("AVFOUNDATION_VIRTUAL_CAMERAS", picture.path, 1)
        return try #require(AVCaptureDevice(uniqueID: "virtual:\(picture.path)"))
    }

    static func qr(_ text: String, x: String = "(ow-iw)/2") throws -> AVCaptureDevice {
        try camera("qr", "qrencode", { ["-s", "6", "-m", "4", "-o", $0, text] }, x: x)
    }

    static func ean13(_ digits: String) throws -> AVCaptureDevice {
        try camera("ean13", "zint", { ["-b", "13", "--scale=2", "-d", digits, "-o", $0] })
    }
}

/// A metadata delegate recording what it gets.
final class MetadataRecorder: NSObject, AVCaptureMetadataOutputObjectsDelegate, @unchecked Sendable {
    private let state = Mutex<[[AVMetadataObject]]>([])
    let queue = DispatchQueue(label: "metadata recorder")

    var calls: [[AVMetadataObject]] { state.withLock { $0 } }
    var codes: [AVMetadataMachineReadableCodeObject] { calls.flatMap { $0.compactMap { $0 as? AVMetadataMachineReadableCodeObject } } }

    func metadataOutput(_ output: AVCaptureMetadataOutput, didOutput metadataObjects: [AVMetadataObject],
                        from connection: AVCaptureConnection) {
        dispatchPrecondition(condition: .onQueue(queue))
        state.withLock { $0.append(metadataObjects) }
    }
}

extension CaptureTests {
    @Suite("AVCaptureMetadataOutput", .enabled(if: CodeCameras.toolsInstalled, "qrencode, zint or ffmpeg missing: run scripts/setup.sh"))
    struct MetadataOutputTests {
        /// A running session with `camera` → a metadata output reporting `types` into `recorder`.
        func run(_ camera: AVCaptureDevice, types: [AVMetadataObject.ObjectType], recorder: MetadataRecorder,
                 rectOfInterest: CGRect? = nil, seconds: Double = 1.5) throws -> AVCaptureMetadataOutput {
            // The other suites' cameras come back when this test is done.
            defer { CaptureCameras.install() }
            let session = AVCaptureSession()
            let input = try AVCaptureDeviceInput(device: camera)
            try #require(session.canAddInput(input))
            session.addInput(input)
            let output = AVCaptureMetadataOutput()
            #expect(output.availableMetadataObjectTypes.isEmpty, "available before being connected")
            try #require(session.canAddOutput(output))
            session.addOutput(output)
            #expect(output.connection(with: .video) != nil)
            #expect(output.availableMetadataObjectTypes.contains(.qr) && output.availableMetadataObjectTypes.contains(.ean13))
            #expect(!output.availableMetadataObjectTypes.contains(.face))
            #expect(output.metadataObjectTypes.isEmpty)
            output.setMetadataObjectsDelegate(recorder, queue: recorder.queue)
            output.metadataObjectTypes = types
            if let rectOfInterest { output.rectOfInterest = rectOfInterest }
            session.startRunning()
            _ = waitUntil(seconds) { !recorder.calls.isEmpty && rectOfInterest == nil }
            session.stopRunning()
            let count = recorder.calls.count
            usleep(300_000)
            #expect(recorder.calls.count == count, "delegate calls after stopRunning returned")
            return output
        }

        @Test func defaults() {
            let output = AVCaptureMetadataOutput()
            #expect(output.rectOfInterest == CGRect(x: 0, y: 0, width: 1, height: 1))
            #expect(output.metadataObjectTypes.isEmpty)
            #expect(output.availableMetadataObjectTypes.isEmpty)
            #expect(output.metadataObjectsDelegate == nil && output.metadataObjectsCallbackQueue == nil)
            output.metadataObjectTypes = nil
            #expect(output.metadataObjectTypes == [])
        }

        @Test func readsAQRCodeWithItsCornersInsideItsBounds() throws {
            let camera = try CodeCameras.qr("https://example.org/capture?q=13")
            let recorder = MetadataRecorder()
            let before = CMClockGetTime(CMClockGetHostTimeClock())
            _ = try run(camera, types: [.qr], recorder: recorder)
            let codes = recorder.codes
            let code = try #require(codes.first, "no QR code reported")
            #expect(code.type == .qr)
            #expect(code.stringValue == "https://example.org/capture?q=13")
            #expect(code.corners.count == 4)
            let unit = CGRect(x: 0, y: 0, width: 1, height: 1)
            #expect(unit.contains(code.bounds.origin) && code.bounds.maxX <= 1 && code.bounds.maxY <= 1)
            let slack = code.bounds.insetBy(dx: -0.001, dy: -0.001)
            #expect(code.corners.allSatisfy(slack.contains), "\(code.corners) outside \(code.bounds)")
            // Centred on the 640×480 picture; qrencode -s 6 -m 4 of this text is well under half of it.
            #expect(abs(code.bounds.midX - 0.5) < 0.02 && abs(code.bounds.midY - 0.5) < 0.02, "\(code.bounds)")
            #expect(code.bounds.width > 0.1 && code.bounds.width < 0.6)
            // The frame's capture time, on the host clock.
            #expect(code.time > before && code.time.isNumeric)
            #expect(code.duration.isNumeric && code.duration.seconds > 0)
            #expect(codes.allSatisfy { $0.stringValue == code.stringValue })
        }

        @Test func onlyEnabledTypesAreReported() throws {
            let camera = try CodeCameras.qr("not an EAN")
            let recorder = MetadataRecorder()
            _ = try run(camera, types: [.ean13], recorder: recorder, seconds: 1.5)
            #expect(recorder.calls.isEmpty, "\(recorder.calls)")
            // The same picture with QR enabled is reported (the camera did deliver).
            let control = MetadataRecorder()
            _ = try run(try CodeCameras.qr("not an EAN"), types: [.ean13, .qr], recorder: control)
            #expect(control.codes.first?.stringValue == "not an EAN")
        }

        @Test func readsAnEAN13WithItsCheckDigit() throws {
            let camera = try CodeCameras.ean13("501234567890")
            let recorder = MetadataRecorder()
            _ = try run(camera, types: [.ean13, .qr], recorder: recorder)
            let code = try #require(recorder.codes.first, "no EAN-13 reported")
            #expect(code.type == .ean13)
            #expect(code.stringValue == "5012345678900")
            #expect(code.corners.count == 4)
        }

        @Test func codesOutsideTheRectOfInterestAreNotReported() throws {
            // The code sits in the picture's left third; only the right half is searched.
            let camera = try CodeCameras.qr("left side", x: "40")
            let recorder = MetadataRecorder()
            _ = try run(camera, types: [.qr], recorder: recorder, rectOfInterest: CGRect(x: 0.5, y: 0, width: 0.5, height: 1))
            #expect(recorder.calls.isEmpty, "\(recorder.calls)")
            // The left half finds it, at the left.
            let left = MetadataRecorder()
            _ = try run(try CodeCameras.qr("left side", x: "40"), types: [.qr], recorder: left,
                        rectOfInterest: CGRect(x: 0, y: 0, width: 0.5, height: 1), seconds: 1.5)
            let code = try #require(left.codes.first)
            #expect(code.stringValue == "left side" && code.bounds.maxX < 0.5)
        }

        /// Stopping the session from inside the delegate call returns (no wait on its own
        /// queue), and no call follows.
        @Test func stoppingFromTheDelegateCall() throws {
            let camera = try CodeCameras.qr("stop here")
            defer { CaptureCameras.install() }
            let session = AVCaptureSession()
            session.addInput(try AVCaptureDeviceInput(device: camera))
            let output = AVCaptureMetadataOutput()
            session.addOutput(output)
            let stopper = StoppingRecorder(session: session)
            output.setMetadataObjectsDelegate(stopper, queue: stopper.queue)
            output.metadataObjectTypes = [.qr]
            session.startRunning()
            #expect(waitUntil(10) { !session.isRunning }, "the session did not stop from the callback")
            usleep(300_000)
            #expect(stopper.count == 1)
        }

        @Test func anUnavailableTypeStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                let session = AVCaptureSession()
                session.addInput(try AVCaptureDeviceInput(device: AVCaptureDevice.default(for: .video)!))
                let output = AVCaptureMetadataOutput()
                session.addOutput(output)
                output.metadataObjectTypes = [.face]
            }
            expectExit(result, says: "-[AVCaptureMetadataOutput setMetadataObjectTypes:] Unsupported type found - use -availableMetadataObjectTypes")
        }

        @Test func aTypeBeforeConnectingStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                AVCaptureMetadataOutput().metadataObjectTypes = [.qr]
            }
            expectExit(result, says: "Unsupported type found")
        }
    }
}

/// A metadata delegate that stops its session on the first call.
final class StoppingRecorder: NSObject, AVCaptureMetadataOutputObjectsDelegate, @unchecked Sendable {
    private let calls = Mutex(0)
    private weak var session: AVCaptureSession?
    let queue = DispatchQueue(label: "stopping recorder")
    var count: Int { calls.withLock { $0 } }

    init(session: AVCaptureSession) { self.session = session }

    func metadataOutput(_ output: AVCaptureMetadataOutput, didOutput metadataObjects: [AVMetadataObject],
                        from connection: AVCaptureConnection) {
        calls.withLock { $0 += 1 }
        session?.stopRunning()
    }
}
