// Misuse Apple's capture classes answer with an exception stops the program with Apple's text
// (exit tests: each runs in a child process).
import AVFoundation
import Foundation
import Testing

extension CaptureTests {
    @Suite("Capture exceptions")
    struct ExceptionTests {
        /// Not an exception: another process sees the same unique IDs (they are stable).
        @Test func anotherProcessSeesTheSameUniqueIDs() async {
            await #expect(processExitsWith: .success) {
                CaptureCameras.install()
                let ids = AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .unspecified)
                    .devices.map(\.uniqueID)
                guard ids.starts(with: [CaptureCameras.vga, CaptureCameras.hd]) else { exit(1) }
            }
        }

        @Test func settingTheActiveFormatWithoutTheLockStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                let camera = AVCaptureDevice.default(for: .video)!
                camera.activeFormat = camera.formats[1]
            }
            expectExit(result, says: "-[AVCaptureDevice setActiveFormat:] May not be called without first successfully calling lockForConfiguration:")
        }

        @Test func settingAFocusModeWithoutTheLockStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                AVCaptureDevice.default(for: .video)!.focusMode = .locked
            }
            expectExit(result, says: "-[AVCaptureDevice setFocusMode:] May not be called without first successfully calling lockForConfiguration:")
        }

        @Test func zoomingPastTheMaximumStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                let camera = AVCaptureDevice.default(for: .video)!
                try camera.lockForConfiguration()
                camera.videoZoomFactor = 17
            }
            expectExit(result, says: "-[AVCaptureDevice setVideoZoomFactor:] videoZoomFactor 17")
        }

        @Test func aTorchLevelAboveOneStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                let camera = AVCaptureDevice(uniqueID: CaptureCameras.controlled)!
                try camera.lockForConfiguration()
                try camera.setTorchModeOn(level: 1.5)
            }
            expectExit(result, says: "-[AVCaptureDevice setTorchModeOnWithLevel:error:] The torch level must be in the range (0.0, 1.0]")
        }

        @Test func addingAnInputTwiceStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                let session = AVCaptureSession()
                let input = try AVCaptureDeviceInput(device: AVCaptureDevice.default(for: .video)!)
                session.addInput(input)
                session.addInput(input)
            }
            expectExit(result, says: "-[AVCaptureSession addInput:] Cannot add")
        }

        @Test func anUnreachablePresetStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                let session = AVCaptureSession()
                session.addInput(try AVCaptureDeviceInput(device: AVCaptureDevice.default(for: .video)!))
                session.sessionPreset = .hd1920x1080
            }
            expectExit(result, says: "-[AVCaptureSession setSessionPreset:] Unsupported session preset")
        }

        @Test func mirroringWhileMirroringIsAutomaticStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                CaptureCameras.install()
                let session = AVCaptureSession()
                session.addInput(try AVCaptureDeviceInput(device: AVCaptureDevice.default(for: .video)!))
                let output = AVCaptureVideoDataOutput()
                session.addOutput(output)
                output.connection(with: .video)!.isVideoMirrored = true
            }
            expectExit(result, says: "-[AVCaptureConnection setVideoMirrored:] Cannot be set when automaticallyAdjustsVideoMirroring is YES")
        }
    }
}
