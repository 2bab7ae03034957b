// AVCaptureVideoDataOutput on the test pattern camera: frames at the preset's size and the
// connection's rate (AT-C1), late frames dropped (AT-C2), held buffers stalling delivery,
// portrait rotation (AT-S2), mirroring and the settings' rules.
@testable import AVFoundation
import Foundation
import Synchronization
import Testing

extension CaptureTests {
    @Suite("AVCaptureVideoDataOutput")
    struct VideoDataOutputTests {
        @Test func defaultsAndSettings() {
            let output = AVCaptureVideoDataOutput()
            #expect(output.alwaysDiscardsLateVideoFrames)
            #expect(output.sampleBufferDelegate == nil && output.sampleBufferCallbackQueue == nil)
            let format = (output.videoSettings[kCVPixelBufferPixelFormatTypeKey as String] as? NSNumber)?.uint32Value
            #expect(format == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(output.availableVideoPixelFormatTypes.contains(kCVPixelFormatType_32BGRA))
            #expect(output.availableVideoCodecTypes.isEmpty)
            output.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: Int(kCVPixelFormatType_32BGRA)]
            #expect((output.videoSettings[kCVPixelBufferPixelFormatTypeKey as String] as? NSNumber)?.uint32Value == kCVPixelFormatType_32BGRA)
            output.videoSettings = nil
            #expect((output.videoSettings[kCVPixelBufferPixelFormatTypeKey as String] as? NSNumber)?.uint32Value
                    == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(output.connections.isEmpty)
        }

        /// AT-C1: .medium, BGRA, videoMinFrameDuration 1/15 on a 30 fps camera, 5 s.
        @Test func mediumPresetAtFifteenFramesPerSecond() throws {
            CaptureCameras.install()
            let camera = try #require(AVCaptureDevice.default(for: .video))
            let recorder = FrameRecorder()
            let (session, output) = try makeSession(camera: camera, preset: .medium, recorder: recorder) { _, connection in
                #expect(connection.isVideoMinFrameDurationSupported)
                connection.videoMinFrameDuration = CMTime(value: 1, timescale: 15)
            }
            session.startRunning()
            usleep(5_000_000)
            session.stopRunning()
            #expect(!session.isRunning)
            let count = recorder.count
            usleep(500_000)
            #expect(recorder.count == count, "frames after stopRunning returned")
            #expect((60...80).contains(count), "\(count) frames in 5 s")
            print("AT-C1: \(count) frames of 480×360 BGRA in 5 s at videoMinFrameDuration 1/15 on a 30 fps camera")
            let frames = recorder.frames
            #expect(frames.allSatisfy { $0.width == 480 && $0.height == 360 && $0.pixelFormat == kCVPixelFormatType_32BGRA })
            #expect(frames.allSatisfy { $0.exifWidth == 480 && $0.exifHeight == 360 && $0.mediaType == kCMMediaType_Video })
            #expect(frames.allSatisfy { $0.duration == CMTime(value: 1, timescale: 30) })
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.pts < $1.pts })
            // Decimated: no two frames closer than a source frame apart.
            #expect(zip(frames, frames.dropFirst()).allSatisfy { ($1.pts - $0.pts).seconds > 1.5 / 30 })
            #expect(recorder.maxInFlight == 1)
            // Capture times are on the host clock, recent.
            let now = CMClockGetTime(CMClockGetHostTimeClock())
            #expect(frames.last.map { (now - $0.pts).seconds } ?? 99 < 5)
            let settings = try #require(output.recommendedVideoSettingsForAssetWriter(writingTo: .mov))
            #expect((settings[AVVideoWidthKey] as? NSNumber)?.intValue == 480)
        }

        /// AT-C2: a delegate taking 200 ms gets about 5 frames a second; the others are
        /// reported late. Keeping late frames delivers them in order instead.
        @Test func slowDelegateGetsTheNewestFramesAndDropsTheRest() throws {
            let camera = try CaptureCameras.vgaCamera()
            let recorder = FrameRecorder()
            recorder.setDelay(0.2)
            let (session, output) = try makeSession(camera: camera, preset: .vga640x480, recorder: recorder)
            session.startRunning()
            usleep(5_000_000)
            session.stopRunning()
            let count = recorder.count
            #expect((20...30).contains(count), "\(count) frames in 5 s with a 200 ms delegate")
            let drops = recorder.drops
            #expect(drops.count >= 60, "\(drops.count) drops")
            #expect(drops.allSatisfy { $0 == (kCMSampleBufferDroppedFrameReason_FrameWasLate as String) })
            let frames = recorder.frames
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.pts < $1.pts })
            #expect(recorder.maxInFlight == 1)
            // No backlog: each delivered frame is the newest, a frame or so old, not 200 ms.
            let ages = recorder.latencies.sorted()
            #expect(ages[ages.count / 2] < 0.1, "\(ages)")
            print("AT-C2: \(count) frames delivered in 5 s to a 200 ms delegate, \(drops.count) dropped as FrameWasLate, "
                  + "median age at delivery \(Int(ages[ages.count / 2] * 1000)) ms")

            // Keeping late frames: all delivered in order, a backlog of at most 8 waits.
            let keeper = FrameRecorder()
            keeper.setDelay(0.05)
            output.alwaysDiscardsLateVideoFrames = false
            output.setSampleBufferDelegate(keeper, queue: keeper.queue)
            session.startRunning()
            usleep(2_000_000)
            session.stopRunning()
            let kept = keeper.frames
            #expect(kept.count >= 20)
            #expect(zip(kept, kept.dropFirst()).allSatisfy { $0.pts < $1.pts })
            #expect(keeper.drops.allSatisfy { $0 == (kCMSampleBufferDroppedFrameReason_OutOfBuffers as String) })
        }

        @Test func holdingEveryBufferStallsDeliveryUntilReleased() throws {
            let camera = try CaptureCameras.vgaCamera()
            let recorder = FrameRecorder()
            recorder.setHolding(true)
            let (session, _) = try makeSession(camera: camera, preset: .vga640x480, recorder: recorder)
            session.startRunning()
            defer { session.stopRunning() }
            #expect(waitUntil(10) { recorder.drops.contains(kCMSampleBufferDroppedFrameReason_OutOfBuffers as String) })
            let stalled = recorder.count
            #expect(stalled <= AVCaptureVideoDataOutput.poolCapacity)
            usleep(500_000)
            #expect(recorder.count == stalled)
            recorder.setHolding(false)
            #expect(waitUntil(10) { recorder.count >= stalled + 5 })
        }

        /// AT-S2: portrait (90°) turns 640×480 pictures into 480×640 ones.
        @Test func portraitRotationTurnsThePixels() throws {
            let camera = try CaptureCameras.vgaCamera()
            let recorder = FrameRecorder()
            let (session, _) = try makeSession(camera: camera, preset: .high, pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                               recorder: recorder) { _, connection in
                #expect(connection.isVideoRotationAngleSupported(90))
                #expect(!connection.isVideoRotationAngleSupported(45))
                connection.videoRotationAngle = 90
                connection.automaticallyAdjustsVideoMirroring = false
                connection.isVideoMirrored = true
            }
            session.startRunning()
            #expect(waitUntil(10) { recorder.count >= 5 })
            session.stopRunning()
            #expect(recorder.frames.allSatisfy { $0.width == 480 && $0.height == 640 })
            #expect(recorder.frames.allSatisfy { $0.exifWidth == 480 && $0.exifHeight == 640 })
        }

        /// macOS's size keys and the other pixel formats.
        @Test func sizeKeysAndOtherPixelFormats() throws {
            let camera = try CaptureCameras.vgaCamera()
            for format in [kCVPixelFormatType_422YpCbCr8_yuvs, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange] {
                let recorder = FrameRecorder()
                let (session, output) = try makeSession(camera: camera, preset: .vga640x480, recorder: recorder) { output, _ in
                    output.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: format),
                                            kCVPixelBufferWidthKey as String: 320, kCVPixelBufferHeightKey as String: 240]
                }
                #expect((output.videoSettings[kCVPixelBufferWidthKey as String] as? NSNumber)?.intValue == 320)
                session.startRunning()
                #expect(waitUntil(10) { recorder.count >= 3 })
                session.stopRunning()
                #expect(recorder.frames.allSatisfy { $0.width == 320 && $0.height == 240 && $0.pixelFormat == format })
            }
        }

        /// What part of the camera's picture fills the output: the centre crop to the preset's
        /// aspect, narrowed by the device's zoom.
        @Test func presetAndZoomCrops() throws {
            let wide = CaptureVideoGeometry(sourceWidth: 1280, sourceHeight: 720, width: 640, height: 480, device: nil)
            #expect(wide.crop == .init(x: 160, y: 0, width: 960, height: 720))
            let tall = CaptureVideoGeometry(sourceWidth: 640, sourceHeight: 480, width: 1280, height: 720, device: nil)
            #expect(tall.crop == .init(x: 0, y: 60, width: 640, height: 360))
            let same = CaptureVideoGeometry(sourceWidth: 640, sourceHeight: 480, width: 480, height: 360, device: nil)
            #expect(same.crop == .init(x: 0, y: 0, width: 640, height: 480))
            #expect(same.zoomedCrop == same.crop)
            let camera = try CaptureCameras.vgaCamera()
            let zoomed = CaptureVideoGeometry(sourceWidth: 640, sourceHeight: 480, width: 640, height: 480, device: camera.core)
            try camera.lockForConfiguration()
            defer {
                camera.videoZoomFactor = 1
                camera.unlockForConfiguration()
            }
            camera.videoZoomFactor = 2
            #expect(zoomed.zoomedCrop == .init(x: 160, y: 120, width: 320, height: 240))
            camera.videoZoomFactor = 16
            #expect(zoomed.zoomedCrop == .init(x: 300, y: 224, width: 40, height: 30))
        }

        /// The pixel move behind rotation and mirroring, on a picture with one marked corner.
        @Test(arguments: [(0, false, 0, 0), (90, false, 1, 0), (180, false, 3, 1), (270, false, 0, 3), (90, true, 0, 0), (0, true, 3, 0)])
        func rotationMovesTheTopLeftPixel(angle: Int, mirrored: Bool, x: Int, y: Int) throws {
            // 4×2 BGRA picture, pixel (0, 0) white, the rest black.
            var source: CVPixelBuffer?
            CVPixelBufferCreate(nil, 4, 2, kCVPixelFormatType_32BGRA, nil, &source)
            let picture = try #require(source)
            CVPixelBufferLockBaseAddress(picture, [])
            let base = try #require(CVPixelBufferGetBaseAddress(picture))
            let stride = CVPixelBufferGetBytesPerRow(picture)
            for row in 0..<2 { memset(base + row * stride, 0, 16) }
            memset(base, 0xFF, 4)
            CVPixelBufferUnlockBaseAddress(picture, [])
            let turned = angle % 180 != 0
            var destination: CVPixelBuffer?
            CVPixelBufferCreate(nil, turned ? 2 : 4, turned ? 4 : 2, kCVPixelFormatType_32BGRA, nil, &destination)
            let out = try #require(destination)
            #expect(AVCaptureVideoDataOutput.remap(picture, into: out, angle: angle, mirrored: mirrored))
            CVPixelBufferLockBaseAddress(out, .readOnly)
            defer { CVPixelBufferUnlockBaseAddress(out, .readOnly) }
            let outBase = try #require(CVPixelBufferGetBaseAddress(out))
            let outStride = CVPixelBufferGetBytesPerRow(out)
            var white: [(Int, Int)] = []
            for row in 0..<CVPixelBufferGetHeight(out) {
                for column in 0..<CVPixelBufferGetWidth(out) where outBase.load(fromByteOffset: row * outStride + column * 4, as: UInt8.self) == 0xFF {
                    white.append((column, row))
                }
            }
            #expect(white.count == 1)
            #expect(white.first.map { $0 == (x, y) } == true, "\(white)")
        }
    }
}
