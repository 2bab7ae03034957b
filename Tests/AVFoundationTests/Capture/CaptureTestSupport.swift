// What the capture suites share: the virtual cameras they run on (set in the environment before
// any device query), a recording sample-buffer delegate, and waiting helpers. Every capture suite
// is nested in `CaptureTests`, which runs serialized: one capture session at a time.
import AVFoundation
import Foundation
import Synchronization
import Testing
import TestSupport

/// The capture suites (serialized: they share the virtual cameras and the machine's cores).
@Suite("Capture", .serialized)
struct CaptureTests {}

enum CaptureCameras {
    static let vga = "virtual:testsrc:640x480@30"
    static let hd = "virtual:testsrc:1280x720@30"
    /// A file camera: connected while its file exists (tests make and remove it).
    static let fileCameraURL = FileManager.default.temporaryDirectory
        .appendingPathComponent("avf-capture-core-\(getpid())/camera.mp4")
    static var fileCameraID: String { "virtual:\(fileCameraURL.path)" }
    /// A test pattern camera with every pretend control, facing back.
    static let controlled = "virtual:testsrc:320x240@30?focus&exposure&whitebalance&torch&flash&position=back"

    /// Sets `AVFOUNDATION_VIRTUAL_CAMERAS` to the suites' cameras (read at each device query).
    static func install() {
        setenv("AVFOUNDATION_VIRTUAL_CAMERAS", "testsrc:640x480@30,testsrc:1280x720@30,\(fileCameraURL.path),"
               + "testsrc:320x240@30?position=back&torch&flash&whitebalance&exposure&focus", 1)
    }

    /// The 640×480 test pattern camera.
    static func vgaCamera() throws -> AVCaptureDevice {
        install()
        return try #require(AVCaptureDevice(uniqueID: vga))
    }

    /// Makes the file camera's file: a short 320×240 30 fps clip (a short loop notices removal soon).
    static func makeFileCameraClip() throws {
        try FileManager.default.createDirectory(at: fileCameraURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: fileCameraURL)
        let result = try TestTools.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=0.3",
                                                  "-c:v", "libx264", "-pix_fmt", "yuv420p", fileCameraURL.path])
        try #require(result.status == 0, "ffmpeg could not make the file camera's clip")
    }
}

/// Polls `condition` every 10 ms for up to `seconds`; true when it held.
func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// One delivered frame, as a test sees it.
struct DeliveredFrame: Sendable {
    let pts: CMTime
    let duration: CMTime
    let width: Int
    let height: Int
    let pixelFormat: OSType
    let exifWidth: Int?
    let exifHeight: Int?
    let mediaType: CMMediaType?
}

/// A sample buffer delegate recording what it gets; optionally slow, optionally holding buffers.
final class FrameRecorder: NSObject, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    private struct State {
        var frames: [DeliveredFrame] = []
        var drops: [String] = []
        var inFlight = 0
        var maxInFlight = 0
        var held: [CMSampleBuffer] = []
        var holding = false
        var delay: useconds_t = 0
        var firstPixelBuffer: CVPixelBuffer?
        var latencies: [Double] = []
    }

    private let state = Mutex(State())
    let queue = DispatchQueue(label: "frame recorder")

    var frames: [DeliveredFrame] { state.withLock { $0.frames } }
    var count: Int { state.withLock { $0.frames.count } }
    var drops: [String] { state.withLock { $0.drops } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    /// How old each frame was (host time − PTS, seconds) when its callback began.
    var latencies: [Double] { state.withLock { $0.latencies } }
    var lastPixelBuffer: CVPixelBuffer? { state.withLock { $0.firstPixelBuffer } }

    /// Makes each callback take `seconds`.
    func setDelay(_ seconds: Double) { state.withLock { $0.delay = useconds_t(seconds * 1_000_000) } }
    /// Keeps every sample buffer delivered from now on.
    func setHolding(_ holding: Bool) {
        state.withLock {
            $0.holding = holding
            if !holding { $0.held.removeAll() }
        }
    }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        let age = (CMClockGetTime(CMClockGetHostTimeClock()) - CMSampleBufferGetPresentationTimeStamp(sampleBuffer)).seconds
        let delay = state.withLock { s -> useconds_t in
            s.latencies.append(age)
            s.inFlight += 1
            s.maxInFlight = max(s.maxInFlight, s.inFlight)
            return s.delay
        }
        let image = CMSampleBufferGetImageBuffer(sampleBuffer)
        let exif = CMGetAttachment(sampleBuffer, key: kCGImagePropertyExifDictionary, attachmentModeOut: nil) as? NSDictionary
        let frame = DeliveredFrame(
            pts: CMSampleBufferGetPresentationTimeStamp(sampleBuffer), duration: CMSampleBufferGetDuration(sampleBuffer),
            width: image.map(CVPixelBufferGetWidth) ?? 0, height: image.map(CVPixelBufferGetHeight) ?? 0,
            pixelFormat: image.map(CVPixelBufferGetPixelFormatType) ?? 0,
            exifWidth: (exif?[kCGImagePropertyExifPixelXDimension as String] as? NSNumber)?.intValue,
            exifHeight: (exif?[kCGImagePropertyExifPixelYDimension as String] as? NSNumber)?.intValue,
            mediaType: CMSampleBufferGetFormatDescription(sampleBuffer).map(CMFormatDescriptionGetMediaType))
        if delay > 0 { usleep(delay) }
        state.withLock { s in
            s.frames.append(frame)
            if s.holding { s.held.append(sampleBuffer) }
            if let image { s.firstPixelBuffer = image }
            s.inFlight -= 1
        }
    }

    func captureOutput(_ output: AVCaptureOutput, didDrop sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        let reason = CMGetAttachment(sampleBuffer, key: kCMSampleBufferAttachmentKey_DroppedFrameReason, attachmentModeOut: nil)
        state.withLock { $0.drops.append((reason as? String) ?? (reason as? NSString).map { String($0) } ?? "?") }
    }
}

/// A session running `camera` through a video data output into `recorder`.
func makeSession(camera: AVCaptureDevice, preset: AVCaptureSession.Preset, pixelFormat: OSType = kCVPixelFormatType_32BGRA,
                 recorder: FrameRecorder, configure: (AVCaptureVideoDataOutput, AVCaptureConnection) -> Void = { _, _ in })
    throws -> (AVCaptureSession, AVCaptureVideoDataOutput) {
    let session = AVCaptureSession()
    session.beginConfiguration()
    let input = try AVCaptureDeviceInput(device: camera)
    try #require(session.canAddInput(input))
    session.addInput(input)
    try #require(session.canSetSessionPreset(preset))
    session.sessionPreset = preset
    let output = AVCaptureVideoDataOutput()
    output.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: pixelFormat)]
    output.setSampleBufferDelegate(recorder, queue: recorder.queue)
    try #require(session.canAddOutput(output))
    session.addOutput(output)
    let connection = try #require(output.connection(with: .video))
    configure(output, connection)
    session.commitConfiguration()
    return (session, output)
}
