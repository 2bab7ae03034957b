// AVCaptureDevice controls over a camera that has them: a virtual camera with pretend focus,
// exposure, white balance, torch and flash — modes, points of interest, the adjusting
// properties and their observation, one-shot modes ending locked, the torch level.
@testable import AVFoundation
import Foundation
import Synchronization
import Testing

extension CaptureTests {
    @Suite("AVCaptureDevice controls")
    struct DeviceControlTests {
        private func camera() throws -> AVCaptureDevice {
            CaptureCameras.install()
            return try #require(AVCaptureDevice(uniqueID: CaptureCameras.controlled))
        }

        @Test func aCameraWithControlsOffersEveryModeAndFacesWhereItSays() throws {
            let camera = try camera()
            #expect(camera.position == .back)
            let back = AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .back).devices
            #expect(back.map(\.uniqueID) == [CaptureCameras.controlled])
            #expect(AVCaptureDevice.default(.external, for: .video, position: .back) == camera)
            for mode in [AVCaptureDevice.FocusMode.locked, .autoFocus, .continuousAutoFocus] { #expect(camera.isFocusModeSupported(mode)) }
            for mode in [AVCaptureDevice.ExposureMode.locked, .autoExpose, .continuousAutoExposure] { #expect(camera.isExposureModeSupported(mode)) }
            #expect(!camera.isExposureModeSupported(.custom))
            for mode in [AVCaptureDevice.WhiteBalanceMode.locked, .autoWhiteBalance, .continuousAutoWhiteBalance] {
                #expect(camera.isWhiteBalanceModeSupported(mode))
            }
            #expect(camera.isFocusPointOfInterestSupported && camera.isExposurePointOfInterestSupported)
            #expect(camera.hasTorch && camera.isTorchAvailable && camera.hasFlash && camera.isFlashAvailable)
            #expect(camera.isTorchModeSupported(.on) && camera.isTorchModeSupported(.auto))
            // The camera's own modes when opened: continuous, as Apple's cameras start.
            #expect(camera.focusMode == .continuousAutoFocus || camera.focusMode == .locked)
            #expect(camera.exposureMode == .continuousAutoExposure || camera.exposureMode == .locked)
            // A camera without the options keeps fixed controls.
            let plain = try CaptureCameras.vgaCamera()
            #expect(!plain.isFocusModeSupported(.autoFocus) && !plain.hasTorch && plain.position == .unspecified)
        }

        /// The camera's controls are opened once and kept across device queries; a camera
        /// plugged in again gets fresh ones, keeping the modes set before.
        @Test func controlsAreOpenedOnceAndAgainAfterAReconnection() throws {
            let camera = try camera()
            let first = try #require(camera.core.backendControls) as AnyObject
            _ = AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video, position: .unspecified).devices
            _ = AVCaptureDevice.default(for: .video)
            #expect(try #require(camera.core.backendControls) as AnyObject === first, "a query reopened the controls")
            try camera.lockForConfiguration()
            camera.whiteBalanceMode = .locked
            camera.unlockForConfiguration()
            DeviceDirectory.shared.deviceConnectionChanged(uniqueID: camera.uniqueID, connected: false)
            DeviceDirectory.shared.deviceConnectionChanged(uniqueID: camera.uniqueID, connected: true)
            #expect(try #require(camera.core.backendControls) as AnyObject !== first, "reconnected: fresh controls")
            #expect(camera.whiteBalanceMode == .locked, "the mode set before the reconnection is kept")
            #expect(camera.isWhiteBalanceModeSupported(.continuousAutoWhiteBalance))
        }

        @Test func autoFocusAdjustsThenLocksAndObserversSeeIt() throws {
            let camera = try camera()
            let adjusting = Mutex<[Bool]>([])
            let modes = Mutex<[AVCaptureDevice.FocusMode]>([])
            let adjustingToken = camera.observe(\.isAdjustingFocus, options: [.new]) { _, change in
                if let value = change.newValue { adjusting.withLock { $0.append(value) } }
            }
            let modeToken = camera.observe(\.focusMode, options: [.new]) { _, change in
                if let value = change.newValue { modes.withLock { $0.append(value) } }
            }
            try camera.lockForConfiguration()
            camera.focusPointOfInterest = CGPoint(x: 0.25, y: 0.75)
            camera.focusMode = .autoFocus
            camera.unlockForConfiguration()
            #expect(camera.focusPointOfInterest == CGPoint(x: 0.25, y: 0.75))
            // One scan, then locked (Apple: auto focus focuses once and switches to locked).
            #expect(waitUntil(5) { camera.focusMode == .locked && !camera.isAdjustingFocus })
            #expect(adjusting.withLock { $0 } == [true, false])
            #expect(modes.withLock { $0 }.suffix(2) == [.autoFocus, .locked])
            adjustingToken.invalidate()
            modeToken.invalidate()
        }

        @Test func lockingEndsAScanAtOnceAndContinuousModesAdjustThenStay() throws {
            let camera = try camera()
            let adjusting = Mutex<[Bool]>([])
            let token = camera.observe(\.isAdjustingExposure, options: [.new]) { _, change in
                if let value = change.newValue { adjusting.withLock { $0.append(value) } }
            }
            try camera.lockForConfiguration()
            camera.exposurePointOfInterest = CGPoint(x: 0.5, y: 0.5)
            camera.exposureMode = .continuousAutoExposure
            #expect(waitUntil(5) { adjusting.withLock { $0 } == [true, false] })
            #expect(camera.exposureMode == .continuousAutoExposure, "a continuous mode stays")
            camera.exposureMode = .autoExpose
            #expect(waitUntil(5) { camera.isAdjustingExposure })
            camera.exposureMode = .locked
            camera.unlockForConfiguration()
            #expect(waitUntil(5) { adjusting.withLock { $0 }.count == 4 })
            #expect(adjusting.withLock { $0 } == [true, false, true, false])
            // The one-shot exposure was replaced by locked before it finished: it stays locked.
            usleep(400_000)
            #expect(camera.exposureMode == .locked && !camera.isAdjustingExposure)
            token.invalidate()

            try camera.lockForConfiguration()
            camera.whiteBalanceMode = .autoWhiteBalance
            camera.unlockForConfiguration()
            #expect(waitUntil(5) { camera.whiteBalanceMode == .locked && !camera.isAdjustingWhiteBalance })
        }

        @Test func theTorchLightsAtTheLevelAskedAndObserversSeeIt() throws {
            let camera = try camera()
            let levels = Mutex<[Float]>([])
            let token = camera.observe(\.torchLevel, options: [.new]) { _, change in
                if let value = change.newValue { levels.withLock { $0.append(value) } }
            }
            try camera.lockForConfiguration()
            defer { camera.unlockForConfiguration() }
            camera.torchMode = .on
            #expect(camera.torchMode == .on && camera.isTorchActive && camera.torchLevel == 1)
            try camera.setTorchModeOn(level: 0.25)
            #expect(camera.torchLevel == 0.25 && camera.torchMode == .on)
            camera.torchMode = .auto
            #expect(camera.torchMode == .auto && !camera.isTorchActive, "auto: no Linux camera knows the scene is dark")
            camera.torchMode = .off
            #expect(!camera.isTorchActive && camera.torchLevel == 0)
            #expect(levels.withLock { $0 } == [1, 0.25, 0])
            token.invalidate()
        }

        /// A virtual camera's torch lights its picture, so an app watching for the light (a
        /// Morse-code torch app) can be tested.
        @Test func aLitTorchBrightensTheVirtualCamerasPicture() throws {
            let camera = try camera()
            let session = AVCaptureSession()
            let input = try AVCaptureDeviceInput(device: camera)
            try #require(session.canAddInput(input))
            session.addInput(input)
            let output = AVCaptureVideoDataOutput()
            output.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)]
            let recorder = FrameRecorder()
            output.setSampleBufferDelegate(recorder, queue: recorder.queue)
            try #require(session.canAddOutput(output))
            session.addOutput(output)
            session.startRunning()
            defer { session.stopRunning() }
            func meanLumaOfLastFrame(after count: Int) throws -> Double {
                try #require(waitUntil(10) { recorder.count >= count + 3 })
                let buffer = try #require(recorder.lastPixelBuffer)
                CVPixelBufferLockBaseAddress(buffer, .readOnly)
                defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
                let row = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0)).advanced(by: 10 * CVPixelBufferGetBytesPerRowOfPlane(buffer, 0))
                let width = CVPixelBufferGetWidth(buffer)
                let bytes = UnsafeBufferPointer(start: row.assumingMemoryBound(to: UInt8.self), count: width)
                return Double(bytes.reduce(0) { $0 + Int($1) }) / Double(width)
            }
            let dark = try meanLumaOfLastFrame(after: 0)
            try camera.lockForConfiguration()
            camera.torchMode = .on
            camera.unlockForConfiguration()
            let lit = try meanLumaOfLastFrame(after: recorder.count)
            try camera.lockForConfiguration()
            camera.torchMode = .off
            camera.unlockForConfiguration()
            let darkAgain = try meanLumaOfLastFrame(after: recorder.count)
            #expect(lit > dark + 30, "luma \(dark) → \(lit)")
            #expect(abs(darkAgain - dark) < 1, "luma \(darkAgain) after the torch went off, \(dark) before")
        }
    }
}
