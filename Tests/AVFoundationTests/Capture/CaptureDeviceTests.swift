// AVCaptureDevice over the virtual cameras: discovery, stable identity, formats and frame-rate
// ranges, the configuration lock, controls, zoom ramps and the connection entry point.
@testable import AVFoundation
import Foundation
import Synchronization
import Testing

extension CaptureTests {
    @Suite("AVCaptureDevice")
    struct DeviceTests {
        @Test func discoveryFindsTheVirtualCamerasAsExternalVideoDevices() throws {
            CaptureCameras.install()
            let discovery = AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .unspecified)
            let ids = discovery.devices.map(\.uniqueID)
            #expect(ids.starts(with: [CaptureCameras.vga, CaptureCameras.hd]), "\(ids)")
            // The file camera's file does not exist: not listed.
            #expect(!ids.contains(CaptureCameras.fileCameraID))
            #expect(AVCaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera], mediaType: .video,
                                                     position: .unspecified).devices.isEmpty)
            #expect(AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .audio, position: .unspecified)
                .devices.allSatisfy { !$0.uniqueID.hasPrefix("virtual:") })
            #expect(AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .front).devices.isEmpty)

            let camera = try #require(AVCaptureDevice.default(for: .video))
            #expect(camera.uniqueID == CaptureCameras.vga)
            #expect(camera.deviceType == .external)
            #expect(camera.position == .unspecified)
            #expect(camera.modelID == "virtual")
            #expect(camera.localizedName == "Test Pattern 640x480 @ 30 fps")
            #expect(!camera.manufacturer.isEmpty)
            #expect(camera.hasMediaType(.video))
            #expect(!camera.hasMediaType(.audio))
            #expect(camera.isConnected)
            #expect(AVCaptureDevice.default(.external, for: .video, position: .unspecified) === camera)
        }

        @Test func oneDeviceObjectPerUniqueID() throws {
            let camera = try CaptureCameras.vgaCamera()
            #expect(AVCaptureDevice.default(for: .video) === camera.core.primary)
            let again = try #require(AVCaptureDevice(uniqueID: CaptureCameras.vga))
            #expect(again == camera)
            #expect(again.hash == camera.hash)
            #expect(AVCaptureDevice(uniqueID: "virtual:testsrc:1x1@1") == nil)
            // The shared state: a change through one object shows through the other.
            try again.lockForConfiguration()
            again.activeFormat = again.formats[1]
            again.unlockForConfiguration()
            #expect(camera.activeFormat == camera.formats[1])
            try camera.lockForConfiguration()
            camera.activeFormat = camera.formats[0]
            camera.unlockForConfiguration()
        }

        @Test func formatsDescribeSizesPixelFormatsAndFrameRates() throws {
            let camera = try CaptureCameras.vgaCamera()
            let formats = camera.formats
            let sizes = formats.map { CMVideoFormatDescriptionGetDimensions($0.formatDescription) }
            #expect(sizes.map { "\($0.width)x\($0.height)" } == ["640x480", "480x360", "352x288", "320x240", "192x144"])
            for format in formats {
                #expect(format.mediaType == .video)
                #expect(CMFormatDescriptionGetMediaType(format.formatDescription) == kCMMediaType_Video)
                #expect(CMFormatDescriptionGetMediaSubType(format.formatDescription) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
                let ranges = format.videoSupportedFrameRateRanges
                #expect(ranges.count == 1)
                #expect(ranges.first?.maxFrameRate == 30)
                #expect(ranges.first?.minFrameRate == 1)
                #expect(ranges.first?.minFrameDuration == CMTime(value: 1, timescale: 30))
                #expect(ranges.first?.maxFrameDuration == CMTime(value: 1, timescale: 1))
                let dimensions = CMVideoFormatDescriptionGetDimensions(format.formatDescription)
                #expect(format.supportedMaxPhotoDimensions.first?.width == dimensions.width)
            }
            #expect(camera.activeVideoMinFrameDuration == CMTime(value: 1, timescale: 30))
            #expect(camera.activeVideoMaxFrameDuration == CMTime(value: 1, timescale: 30))
            #expect(camera.supportsSessionPreset(.vga640x480))
            #expect(camera.supportsSessionPreset(.medium))
            #expect(!camera.supportsSessionPreset(.hd1280x720))
            #expect(!camera.supportsSessionPreset(.hd1920x1080))
        }

        @Test func frameDurationsNeedTheLockAndInvalidRestoresTheDefault() throws {
            let camera = try CaptureCameras.vgaCamera()
            let seen = Mutex<[CMTime]>([])
            let token = camera.observe(\.activeVideoMinFrameDuration, options: [.new]) { _, change in
                if let value = change.newValue { seen.withLock { $0.append(value) } }
            }
            try camera.lockForConfiguration()
            camera.activeVideoMinFrameDuration = CMTime(value: 1, timescale: 15)
            #expect(camera.activeVideoMinFrameDuration == CMTime(value: 1, timescale: 15))
            camera.activeVideoMinFrameDuration = .invalid
            camera.unlockForConfiguration()
            #expect(camera.activeVideoMinFrameDuration == CMTime(value: 1, timescale: 30))
            #expect(seen.withLock { $0 } == [CMTime(value: 1, timescale: 15), CMTime(value: 1, timescale: 30)])
            token.invalidate()
        }

        @Test func controlsVirtualCamerasDoNotHave() throws {
            let camera = try CaptureCameras.vgaCamera()
            #expect(!camera.hasTorch)
            #expect(!camera.isTorchAvailable)
            #expect(camera.isTorchModeSupported(.off))
            #expect(!camera.isTorchModeSupported(.on))
            #expect(camera.torchMode == .off)
            #expect(!camera.hasFlash)
            #expect(camera.isFocusModeSupported(.locked))
            #expect(!camera.isFocusModeSupported(.continuousAutoFocus))
            #expect(camera.focusMode == .locked)
            #expect(!camera.isFocusPointOfInterestSupported)
            #expect(camera.focusPointOfInterest == CGPoint(x: 0.5, y: 0.5))
            #expect(!camera.isExposureModeSupported(.continuousAutoExposure))
            #expect(!camera.isWhiteBalanceModeSupported(.continuousAutoWhiteBalance))
            #expect(!camera.isAdjustingFocus && !camera.isAdjustingExposure && !camera.isAdjustingWhiteBalance)
            #expect(AVCaptureDevice.authorizationStatus(for: .video) == .authorized)
        }

        @Test func requestAccessAnswersOnAnotherThread() async {
            #expect(await AVCaptureDevice.requestAccess(for: .video))
            let granted = await withCheckedContinuation { continuation in
                AVCaptureDevice.requestAccess(for: .audio) { continuation.resume(returning: $0) }
            }
            #expect(granted)
        }

        @Test func zoomRampsDoublePerSecondAtRateOne() throws {
            let camera = try CaptureCameras.vgaCamera()
            #expect(camera.minAvailableVideoZoomFactor == 1)
            #expect(camera.maxAvailableVideoZoomFactor == 16)
            let factors = Mutex<[CGFloat]>([])
            let ramping = Mutex<[Bool]>([])
            let zoomToken = camera.observe(\.videoZoomFactor, options: [.new]) { _, change in
                if let value = change.newValue { factors.withLock { $0.append(value) } }
            }
            let rampToken = camera.observe(\.isRampingVideoZoom, options: [.new]) { _, change in
                if let value = change.newValue { ramping.withLock { $0.append(value) } }
            }
            try camera.lockForConfiguration()
            camera.ramp(toVideoZoomFactor: 4, withRate: 1)
            #expect(camera.isRampingVideoZoom)
            #expect(waitUntil(30) { !camera.isRampingVideoZoom })
            #expect(camera.videoZoomFactor == 4)
            let seen = factors.withLock { $0 }
            // 2 s at 60 steps per second: many intermediate values, rising, ending at 4.
            #expect(seen.count >= 10, "\(seen)")
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
            #expect(seen.last == 4)
            #expect(ramping.withLock { $0 } == [true, false])
            // Cancelling leaves the factor where the ramp was.
            camera.ramp(toVideoZoomFactor: 1, withRate: 0.5)
            #expect(waitUntil(10) { camera.videoZoomFactor < 4 }, "the ramp's first step")
            camera.cancelVideoZoomRamp()
            let stopped = camera.videoZoomFactor
            #expect(stopped < 4 && stopped > 1)
            usleep(100_000)
            #expect(camera.videoZoomFactor == stopped)
            camera.videoZoomFactor = 1
            camera.unlockForConfiguration()
            zoomToken.invalidate()
            rampToken.invalidate()
        }

        @Test func watchersReportConnectionChanges() throws {
            CaptureCameras.install()
            try CaptureCameras.makeFileCameraClip()
            defer { try? FileManager.default.removeItem(at: CaptureCameras.fileCameraURL) }
            let camera = try #require(AVCaptureDevice(uniqueID: CaptureCameras.fileCameraID))
            #expect(camera.isConnected)
            #expect(CMVideoFormatDescriptionGetDimensions(camera.formats[0].formatDescription).width == 320)
            let discovery = AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .unspecified)
            #expect(discovery.devices.contains(camera))
            let posted = Mutex<[String]>([])
            let center = NotificationCenter.default
            let gone = center.addObserver(forName: AVCaptureDevice.wasDisconnectedNotification, object: nil, queue: nil) { note in
                posted.withLock { $0.append("gone \((note.object as? AVCaptureDevice)?.uniqueID ?? "?")") }
            }
            let back = center.addObserver(forName: AVCaptureDevice.wasConnectedNotification, object: nil, queue: nil) { note in
                posted.withLock { $0.append("back \((note.object as? AVCaptureDevice)?.uniqueID ?? "?")") }
            }
            let listChanges = Mutex(0)
            let token = discovery.observe(\.devices) { _, _ in listChanges.withLock { $0 += 1 } }
            defer {
                center.removeObserver(gone)
                center.removeObserver(back)
                token.invalidate()
            }
            try FileManager.default.removeItem(at: CaptureCameras.fileCameraURL)
            DeviceDirectory.shared.deviceConnectionChanged(uniqueID: camera.uniqueID, connected: false)
            #expect(!camera.isConnected)
            #expect(!discovery.devices.contains(camera))
            try CaptureCameras.makeFileCameraClip()
            DeviceDirectory.shared.deviceConnectionChanged(uniqueID: camera.uniqueID, connected: true)
            #expect(camera.isConnected)
            #expect(posted.withLock { $0 } == ["gone \(camera.uniqueID)", "back \(camera.uniqueID)"])
            #expect(listChanges.withLock { $0 } == 2)
        }
    }
}
