// V4L2 without a camera: the shim's constants are the kernel's, fourcc codes map to the Core
// Video formats frames are delivered in, frame intervals become frame-duration ranges, stepwise
// sizes become standard sizes, node capabilities decide what is a camera and its unique ID, and
// the MJPEG decoder a camera's JPEG frames go through gives '420v' pictures of the right colours.
import CoreMedia
import CoreVideo
import Foundation
@testable import MediaEngine
import Testing
import TestSupport

@Suite("V4L2 formats and constants")
struct V4L2FormatTests {
    @Test("The shim's request codes, fourccs and control IDs are the kernel's values")
    func shimConstants() {
        #expect(V4L2Constant.queryCapabilities == 0x8068_5600)
        #expect(V4L2Constant.enumerateFormats == 0xC040_5602)
        #expect(V4L2Constant.setFormat == 0xC0D0_5605)
        #expect(V4L2Constant.requestBuffers == 0xC014_5608)
        #expect(V4L2Constant.queueBuffer == 0xC058_560F)
        #expect(V4L2Constant.dequeueBuffer == 0xC058_5611)
        #expect(V4L2Constant.streamOn == 0x4004_5612)
        #expect(V4L2Constant.queryExtendedControl == 0xC0E8_5667)
        #expect(V4L2Constant.setControl == 0xC008_561C)
        #expect(V4L2Constant.setParameters == 0xC0CC_5616)
        #expect(V4L2Constant.fourCCYUYV == 0x5659_5559)
        #expect(V4L2Constant.fourCCMJPEG == 0x4750_4A4D)
        #expect(V4L2Constant.fourCCNV12 == 0x3231_564E)
        #expect(V4L2ControlID.brightness == 0x0098_0900)
        #expect(V4L2ControlID.autoWhiteBalance == 0x0098_090C)
        #expect(V4L2ControlID.whiteBalanceTemperature == 0x0098_091A)
        #expect(V4L2ControlID.exposureAuto == 0x009A_0901)
        #expect(V4L2ControlID.exposureAbsolute == 0x009A_0902)
        #expect(V4L2ControlID.exposureAutoPriority == 0x009A_0903)
        #expect(V4L2ControlID.focusAbsolute == 0x009A_090A)
        #expect(V4L2ControlID.focusAuto == 0x009A_090C)
        #expect(V4L2ControlID.zoomAbsolute == 0x009A_090D)
        #expect(V4L2ControlID.autoFocusStart == 0x009A_091C)
        #expect(V4L2ControlID.autoFocusStatus == 0x009A_091E)
        #expect(V4L2ControlID.cameraOrientation == 0x009A_0922)
        #expect(V4L2ControlID.flashLEDMode == 0x009C_0901)
        #expect(V4L2ControlID.flashTorchIntensity == 0x009C_0908)
        #expect(V4L2ControlID.exposureManual == 1 && V4L2ControlID.exposureAperturePriority == 3)
        #expect(V4L2ControlID.flashModeTorch == 2)
    }

    @Test("fourcc ↔ Core Video pixel format table")
    func fourCCTable() {
        #expect(V4L2FourCC("YUYV") == .yuyv && V4L2FourCC.yuyv.description == "YUYV")
        #expect(V4L2FourCC("MJPG") == .mjpeg && V4L2FourCC("NV12") == .nv12 && V4L2FourCC("UYVY") == .uyvy)
        #expect(V4L2FourCC("YU12") == .yu12 && V4L2FourCC("GREY") == .grey && V4L2FourCC("H264") == .h264)
        let table: [(V4L2FourCC, OSType, Bool)] = [
            (.yuyv, OSType(fourCC: "yuvs"), true), (.uyvy, OSType(fourCC: "2vuy"), true), (.nv12, OSType(fourCC: "420v"), true),
            (.yu12, OSType(fourCC: "y420"), true), (.grey, OSType(fourCC: "L008"), true), (.mjpeg, OSType(fourCC: "420v"), false),
            (.jpeg, OSType(fourCC: "420v"), false),
        ]
        for (fourCC, osType, zeroCopy) in table {
            #expect(fourCC.delivery?.pixelFormat == osType, "\(fourCC)")
            #expect(fourCC.delivery?.zeroCopy == zeroCopy, "\(fourCC)")
            // Every delivered format has a Core Video layout (so buffers can be made).
            #expect(CVPixelFormatLayout.layout(for: osType) != nil)
        }
        #expect(V4L2FourCC.h264.delivery == nil)
        #expect(V4L2FourCC.native(for: OSType(fourCC: "yuvs")) == .yuyv)
        #expect(V4L2FourCC.native(for: OSType(fourCC: "420v")) == .nv12)
        #expect(V4L2FourCC.native(for: OSType(fourCC: "BGRA")) == nil)
    }

    @Test("Frame intervals become frame-duration and rate ranges")
    func intervals() throws {
        let discrete = V4L2FrameIntervals.discrete([(1, 30), (1, 15), (1, 5)])
        let range = try #require(discrete.durationRange)
        #expect(range.min == CMTime(value: 1, timescale: 30) && range.max == CMTime(value: 1, timescale: 5))
        #expect(discrete.durations == [CMTime(value: 1, timescale: 30), CMTime(value: 1, timescale: 15), CMTime(value: 1, timescale: 5)])
        let ntsc = V4L2FrameIntervals.discrete([(1001, 30000)])
        let format = try #require(V4L2CameraFormat(fourCC: .yuyv, size: V4L2Size(width: 640, height: 480), intervals: ntsc).liveFormat)
        #expect(format.minFrameDuration == CMTime(value: 1001, timescale: 30000))
        #expect(abs(format.maxFrameRate - 29.97) < 0.001 && format.maxFrameRate == format.minFrameRate)
        #expect(format.pixelFormat == OSType(fourCC: "yuvs"))
        let stepwise = V4L2FrameIntervals.stepwise(min: (1, 60), max: (1, 1))
        let live = try #require(V4L2CameraFormat(fourCC: .nv12, size: V4L2Size(width: 1280, height: 720), intervals: stepwise).liveFormat)
        #expect(live.maxFrameRate == 60 && live.minFrameRate == 1)
        #expect(V4L2FrameIntervals.discrete([(0, 0)]).durationRange == nil)
        #expect(V4L2CameraFormat(fourCC: .h264, size: V4L2Size(width: 640, height: 480), intervals: discrete).liveFormat == nil)
    }

    @Test("A driver's discrete intervals are the only rates offered; a stepwise range offers every rate in it")
    func discreteRates() throws {
        let discrete = V4L2FrameIntervals.discrete([(1, 15), (1, 30), (1, 5), (1, 30)])
        let live = try #require(V4L2CameraFormat(fourCC: .yuyv, size: V4L2Size(width: 640, height: 480), intervals: discrete).liveFormat)
        #expect(live.discreteFrameDurations == [CMTime(value: 1, timescale: 30), CMTime(value: 1, timescale: 15), CMTime(value: 1, timescale: 5)])
        #expect(live.supports(frameDuration: CMTime(value: 1, timescale: 15)))
        #expect(live.supports(frameDuration: CMTime(value: 2, timescale: 60)), "the same interval in another timescale")
        #expect(!live.supports(frameDuration: CMTime(value: 1, timescale: 20)), "between two rates: not offered")
        #expect(!live.supports(frameDuration: .invalid))
        #expect(live.description == "'yuvs' 640x480 @ {30 15 5} fps")
        let stepwise = try #require(V4L2CameraFormat(fourCC: .nv12, size: V4L2Size(width: 640, height: 480),
                                                     intervals: .stepwise(min: (1, 30), max: (1, 5))).liveFormat)
        #expect(stepwise.discreteFrameDurations.isEmpty && stepwise.supports(frameDuration: CMTime(value: 1, timescale: 20)))
        let ntsc = try #require(V4L2CameraFormat(fourCC: .yuyv, size: V4L2Size(width: 640, height: 480),
                                                 intervals: .discrete([(1001, 30000)])).liveFormat)
        #expect(ntsc.discreteFrameDurations.isEmpty, "one interval is a range of one rate")
        #expect(ntsc.supports(frameDuration: CMTime(value: 1001, timescale: 30000)))
    }

    @Test("Stepwise and continuous sizes offer the standard sizes the steps reach, and the largest")
    func stepwiseSizes() {
        let sizes = V4L2FrameSizes.stepwise(min: V4L2Size(width: 160, height: 120), max: V4L2Size(width: 1920, height: 1080),
                                            step: V4L2Size(width: 16, height: 8)).sizes
        let pairs = sizes.map { "\($0.width)x\($0.height)" }
        #expect(pairs.contains("640x480") && pairs.contains("1280x720") && pairs.contains("1920x1080"))
        #expect(pairs.contains("176x144"), "176 − 160 is one step of 16, 144 − 120 three of 8")
        #expect(!pairs.contains("2560x1440") && !pairs.contains("3840x2160"))
        let odd = V4L2FrameSizes.stepwise(min: V4L2Size(width: 100, height: 100), max: V4L2Size(width: 1000, height: 700),
                                          step: V4L2Size(width: 300, height: 300)).sizes
        #expect(odd == [V4L2Size(width: 1000, height: 700)])
        let list = [V4L2Size(width: 640, height: 480), V4L2Size(width: 320, height: 240)]
        #expect(V4L2FrameSizes.discrete(list).sizes == list)
    }

    @Test("Camera nodes: capture + streaming, not metadata or M2M; unique IDs from the bus")
    func capabilities() {
        // Real values: a uvcvideo camera's two nodes (video, metadata) and a codec's M2M node.
        let video = V4L2Capabilities(driver: "uvcvideo", card: "HD Pro Webcam C920", busInfo: "usb-0000:00:14.0-2",
                                     deviceCaps: 0x0420_0001)
        let metadata = V4L2Capabilities(driver: "uvcvideo", card: "HD Pro Webcam C920", busInfo: "usb-0000:00:14.0-2",
                                        deviceCaps: 0x0480_0000)
        let codec = V4L2Capabilities(driver: "bcm2835-codec", card: "bcm2835-codec-decode", busInfo: "platform:bcm2835-codec",
                                     deviceCaps: 0x0420_4000)
        #expect(video.isCamera && !metadata.isCamera && !codec.isCamera)
        #expect(video.uniqueID == "v4l2:usb-0000:00:14.0-2" && video.isUSB)
        #expect(codec.uniqueID == "v4l2:platform:bcm2835-codec:bcm2835-codec-decode" && !codec.isUSB)
        let device = V4L2CameraDevice(path: "/dev/video0", capabilities: video, cameraFormats: [
            V4L2CameraFormat(fourCC: .yuyv, size: V4L2Size(width: 640, height: 480), intervals: .discrete([(1, 30), (1, 15)])),
            V4L2CameraFormat(fourCC: .mjpeg, size: V4L2Size(width: 1920, height: 1080), intervals: .discrete([(1, 30)])),
            V4L2CameraFormat(fourCC: .h264, size: V4L2Size(width: 1920, height: 1080), intervals: .discrete([(1, 30)])),
        ], usbModel: "usb:046d:082d")
        #expect(device.deviceKind == .camera && device.isExternal && device.localizedName == "HD Pro Webcam C920")
        #expect(device.modelID == "usb:046d:082d")
        #expect(device.videoFormats.map(\.description) == ["'yuvs' 640x480 @ {30 15} fps", "'420v' 1920x1080 @ 30.0-30.0 fps"])
        #expect(device.cameraFormat(for: device.videoFormats[1])?.fourCC == .mjpeg)
    }

    @Test("Camera buffers become pixel buffers over the same memory, honouring bytesperline; release requeues once")
    func zeroCopyWrapping() throws {
        final class Counter: @unchecked Sendable {
            let lock = NSLock()
            var count = 0
            func bump() { lock.withLock { count += 1 } }
        }
        // NV12 640×480 with 704-byte lines (padding), luma 0x51, chroma (0x5A, 0xF0): pure red in BT.601 video range.
        let (width, height, line) = (640, 480, 704)
        let length = line * height * 3 / 2
        let memory = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 64)
        defer { memory.deallocate() }
        memset(memory, 0x51, line * height)
        let chroma = (memory + line * height).assumingMemoryBound(to: UInt8.self)
        for i in stride(from: 0, to: line * height / 2, by: 2) { chroma[i] = 0x5A; chroma[i + 1] = 0xF0 }
        let released = Counter()
        do {
            let wrapped = V4L2Stream.wrapFrame(base: memory, length: length, fourCC: .nv12, width: width, height: height,
                                               bytesPerLine: line, release: { released.bump() })
            let buffer = try #require(wrapped)
            #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, 0) == memory)
            #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, 1) == memory + line * height)
            #expect(CVPixelBufferGetBytesPerRowOfPlane(buffer, 0) == line && CVPixelBufferGetBytesPerRowOfPlane(buffer, 1) == line)
            let rgb = try PixelConverter.shared.makePixelBuffer(from: buffer, pixelFormat: kCVPixelFormatType_32BGRA)
            CVPixelBufferLockBaseAddress(rgb, .readOnly)
            let p = CVPixelBufferGetBaseAddress(rgb)!.assumingMemoryBound(to: UInt8.self) + 100 * CVPixelBufferGetBytesPerRow(rgb) + 400
            #expect(p[2] > 240 && p[1] < 16 && p[0] < 16, "red, got B \(p[0]) G \(p[1]) R \(p[2])")
            CVPixelBufferUnlockBaseAddress(rgb, .readOnly)
            #expect(released.count == 0, "not requeued while a client holds the frame")
        }
        #expect(released.count == 1, "requeued once when the last reference went")
        // YUYV with its own line length; a buffer too short for the format is refused.
        let wrappedYUYV = V4L2Stream.wrapFrame(base: memory, length: length, fourCC: .yuyv, width: 320, height: 240,
                                               bytesPerLine: 704, release: {})
        let yuyv = try #require(wrappedYUYV)
        #expect(CVPixelBufferGetPixelFormatType(yuyv) == OSType(fourCC: "yuvs") && CVPixelBufferGetBytesPerRow(yuyv) == 704)
        #expect(V4L2Stream.wrapFrame(base: memory, length: 1000, fourCC: .yuyv, width: 320, height: 240, bytesPerLine: 640,
                                     release: {}) == nil)
        #expect(V4L2Stream.wrapFrame(base: memory, length: length, fourCC: .mjpeg, width: 320, height: 240, bytesPerLine: 640,
                                     release: {}) == nil)
    }

    @Test("Capture nodes sharing a bus (IR + colour sensor) get unique IDs from their card names, then #n")
    func sharedBus() {
        func node(_ n: Int, _ card: String, bus: String = "usb-0000:00:14.0-5") -> V4L2CameraDevice {
            V4L2CameraDevice(path: "/dev/video\(n)", capabilities: V4L2Capabilities(driver: "uvcvideo", card: card, busInfo: bus,
                                                                                   deviceCaps: 0x0420_0001), cameraFormats: [])
        }
        let ids = V4L2CameraDevice.disambiguated([
            node(0, "Integrated Camera: Integrated C"), node(2, "Integrated Camera: Integrated I"),
            node(4, "USB Camera", bus: "usb-0000:00:14.0-1"), node(6, "Twin"), node(8, "Twin"),
        ]).map(\.uniqueID)
        #expect(ids == ["v4l2:usb-0000:00:14.0-5:Integrated Camera: Integrated C", "v4l2:usb-0000:00:14.0-5:Integrated Camera: Integrated I",
                        "v4l2:usb-0000:00:14.0-1", "v4l2:usb-0000:00:14.0-5:Twin", "v4l2:usb-0000:00:14.0-5:Twin#2"])
        #expect(Set(ids).count == ids.count)
    }

    @Test("Starting a camera whose node is gone fails with .disconnected, not a crash")
    func goneNode() throws {
        let caps = V4L2Capabilities(driver: "uvcvideo", card: "Gone", busInfo: "usb-0000:00:14.0-9", deviceCaps: 0x0420_0001)
        let device = V4L2CameraDevice(path: "/nonexistent/video9", capabilities: caps, cameraFormats: [
            V4L2CameraFormat(fourCC: .yuyv, size: V4L2Size(width: 640, height: 480), intervals: .discrete([(1, 30)])),
        ])
        #expect(!device.isConnected)
        let source = try #require(device.makeVideoSource())
        let format = try #require(source.formats.first)
        do {
            try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 30), clock: CMClockGetHostTimeClock(),
                             deliver: { _ in }, failed: { _ in })
            Issue.record("started a camera that does not exist")
        } catch {
            if case .disconnected = error {} else { Issue.record("expected .disconnected, got \(error)") }
        }
        // A frame duration outside the format's range is refused before the node is touched.
        #expect(throws: LiveSourceError.self) {
            try source.start(format: format, frameDuration: CMTime(value: 1, timescale: 60), clock: CMClockGetHostTimeClock(),
                             deliver: { _ in }, failed: { _ in })
        }
    }

    @Test("No camera nodes in an empty directory")
    func noNodes() throws {
        let directory = try TestTools.temporaryDirectory("v4l2")
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(V4L2CameraDevice.cameras(directory: directory.path).isEmpty)
        // A node that is not a device is skipped, not a crash.
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("video0").path, contents: Data([1, 2, 3]))
        #expect(V4L2CameraDevice.cameras(directory: directory.path).isEmpty)
    }

    @Test("The MJPEG decoder gives '420v' pictures of the JPEG's colours, from a bounded pool")
    func mjpegDecoding() throws {
        try #require(TestTools.hasFFmpeg, "ffmpeg CLI needed to make the JPEG")
        let directory = try TestTools.temporaryDirectory("mjpeg")
        defer { try? FileManager.default.removeItem(at: directory) }
        let jpeg = directory.appendingPathComponent("red.jpg")
        // A webcam-like JPEG: 4:2:2, full range, pure red at 1280×720.
        let result = try TestTools.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=1280x720", "-frames:v", "1",
                                                  "-pix_fmt", "yuvj422p", "-q:v", "2", "-y", jpeg.path])
        try #require(result.status == 0)
        let data = try Data(contentsOf: jpeg)
        let decoder = try MJPEGFrameDecoder(width: 1280, height: 720, poolCapacity: 2)
        var held: [CVPixelBuffer] = []
        for _ in 0..<2 {
            let buffer = try #require(data.withUnsafeBytes { decoder.decode($0) })
            #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(CVPixelBufferGetWidth(buffer) == 1280 && CVPixelBufferGetHeight(buffer) == 720)
            let rgb = try PixelConverter.shared.makePixelBuffer(from: buffer, pixelFormat: kCVPixelFormatType_32BGRA)
            CVPixelBufferLockBaseAddress(rgb, .readOnly)
            let p = CVPixelBufferGetBaseAddress(rgb)!.assumingMemoryBound(to: UInt8.self) + 360 * CVPixelBufferGetBytesPerRow(rgb) + 640 * 4
            #expect(p[2] > 240 && p[1] < 16 && p[0] < 16, "red, got B \(p[0]) G \(p[1]) R \(p[2])")
            CVPixelBufferUnlockBaseAddress(rgb, .readOnly)
            held.append(buffer)
        }
        // Both pooled buffers held: the next frame has nowhere to go.
        #expect(data.withUnsafeBytes { decoder.decode($0) } == nil)
        held.removeAll()
        #expect(data.withUnsafeBytes { decoder.decode($0) } != nil)
        // Garbage and a JPEG of another size are refused, not a crash.
        #expect(Data([0xFF, 0xD8, 0xFF, 0x00, 1, 2, 3]).withUnsafeBytes { decoder.decode($0) } == nil)
        let small = try MJPEGFrameDecoder(width: 320, height: 240)
        #expect(data.withUnsafeBytes { small.decode($0) } == nil)
    }
}
