// A real V4L2 camera, when this machine has one (/dev/video0): its name, formats, 30 frames with
// rising monotonic PTS, and a control round-trip. Skipped, with the reason, where there is none
// (CI machines and containers: no /dev/video*, no kernel modules to make a virtual one).
import CoreMedia
import CoreVideo
import Foundation
@testable import MediaEngine
import Testing

@Suite("V4L2 camera (needs /dev/video0)", .serialized,
       .enabled(if: FileManager.default.fileExists(atPath: "/dev/video0"),
                "no /dev/video* on this machine: V4L2 live tests skipped (the formats, controls and MJPEG paths are tested on data)"))
struct V4L2LiveTests {
    private func camera() throws -> V4L2CameraDevice {
        try #require(V4L2CameraDevice.cameras().first, "/dev/video0 exists but no node is a streaming capture camera")
    }

    @Test("QUERYCAP names the camera; it has formats; its ID does not name the /dev node")
    func describes() throws {
        let camera = try camera()
        #expect(!camera.localizedName.isEmpty)
        #expect(camera.uniqueID.hasPrefix("v4l2:") && !camera.uniqueID.contains("/dev/video"))
        #expect(!camera.cameraFormats.isEmpty)
        #expect(!camera.videoFormats.isEmpty)
        print("V4L2 camera \(camera.path): \(camera.localizedName) [\(camera.uniqueID)] formats: \(camera.videoFormats)")
    }

    @Test("30 frames of the first format with rising PTS on the host clock")
    func thirtyFrames() throws {
        let camera = try camera()
        let source = V4L2CameraSource(device: camera)
        let format = try #require(source.formats.first)
        let collector = LiveFrameCollector()
        let clock = CMClockGetHostTimeClock()
        let before = CMClockGetTime(clock)
        try source.start(format: format, frameDuration: format.minFrameDuration, clock: clock,
                         deliver: collector.deliver, failed: collector.fail)
        let frames = collector.waitForFrames(30, seconds: 15)
        source.stop()
        #expect(collector.failures.isEmpty, "\(collector.failures.map(\.0))")
        #expect(frames.count >= 30)
        for frame in frames {
            #expect(frame.width == format.width && frame.height == format.height && frame.pixelFormat == format.pixelFormat)
            #expect(frame.pts >= before - CMTime(value: 1, timescale: 1))
        }
        for (a, b) in zip(frames, frames.dropFirst()) { #expect(a.pts < b.pts && a.sequence < b.sequence) }
    }

    @Test("A writable integer control round-trips and is put back")
    func controlRoundTrip() throws {
        let camera = try camera()
        let handle = try V4L2Handle(path: camera.path)
        let controls = handle.controls()
        #expect(!controls.isEmpty)
        guard let control = controls.first(where: { $0.kind == .integer && $0.isWritable && !$0.isInactive && $0.maximum > $0.minimum })
        else {
            print("no writable integer control on \(camera.localizedName); round-trip skipped")
            return
        }
        let original = try handle.value(of: control.id)
        let target = original == control.minimum ? control.minimum + Int64(max(1, control.step)) : control.minimum
        try handle.setValue(target, of: control.id)
        #expect(try handle.value(of: control.id) == target, "\(control.name)")
        try handle.setValue(original, of: control.id)
        #expect(try handle.value(of: control.id) == original)
    }
}
