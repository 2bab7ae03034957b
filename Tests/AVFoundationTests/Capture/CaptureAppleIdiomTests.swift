// A camera manager written the way Apple's sample code (AVCam, "Capturing video frames") writes
// one — session queue, authorization check, discovery with fallbacks, begin/commit, a video data
// output on its own queue — compiled and run unchanged on a virtual camera.
import AVFoundation
import Foundation
import Synchronization
import Testing

/// The camera manager of a sample app.
private final class CameraManager: NSObject, AVCaptureVideoDataOutputSampleBufferDelegate, @unchecked Sendable {
    enum SetupResult { case success, notAuthorized, configurationFailed }

    let session = AVCaptureSession()
    private let sessionQueue = DispatchQueue(label: "session queue")
    private let videoDataOutputQueue = DispatchQueue(label: "video data output queue")
    private let videoDataOutput = AVCaptureVideoDataOutput()
    private var setupResult: SetupResult = .success
    private var videoDeviceInput: AVCaptureDeviceInput?
    private let sizes = Mutex<[CGSize]>([])
    private var keyValueObservations: [NSKeyValueObservation] = []
    let runningChanges = Mutex<[Bool]>([])

    var frameSizes: [CGSize] { sizes.withLock { $0 } }

    func configure(completion: @escaping @Sendable (SetupResult) -> Void) {
        switch AVCaptureDevice.authorizationStatus(for: .video) {
        case .authorized:
            break
        case .notDetermined:
            sessionQueue.suspend()
            AVCaptureDevice.requestAccess(for: .video) { granted in
                if !granted { self.setupResult = .notAuthorized }
                self.sessionQueue.resume()
            }
        default:
            setupResult = .notAuthorized
        }
        sessionQueue.async {
            self.configureSession()
            completion(self.setupResult)
        }
    }

    private func configureSession() {
        guard setupResult == .success else { return }
        session.beginConfiguration()
        session.sessionPreset = .vga640x480
        do {
            var defaultVideoDevice: AVCaptureDevice?
            if let backCameraDevice = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .back) {
                defaultVideoDevice = backCameraDevice
            } else if let frontCameraDevice = AVCaptureDevice.default(.builtInWideAngleCamera, for: .video, position: .front) {
                defaultVideoDevice = frontCameraDevice
            } else {
                defaultVideoDevice = AVCaptureDevice.DiscoverySession(deviceTypes: [.external], mediaType: .video,
                                                                      position: .unspecified).devices.first
            }
            guard let videoDevice = defaultVideoDevice else {
                setupResult = .configurationFailed
                session.commitConfiguration()
                return
            }
            let videoDeviceInput = try AVCaptureDeviceInput(device: videoDevice)
            if session.canAddInput(videoDeviceInput) {
                session.addInput(videoDeviceInput)
                self.videoDeviceInput = videoDeviceInput
            } else {
                setupResult = .configurationFailed
                session.commitConfiguration()
                return
            }
        } catch {
            setupResult = .configurationFailed
            session.commitConfiguration()
            return
        }
        if session.canAddOutput(videoDataOutput) {
            session.addOutput(videoDataOutput)
            videoDataOutput.alwaysDiscardsLateVideoFrames = true
            videoDataOutput.videoSettings = [kCVPixelBufferPixelFormatTypeKey as String: Int(kCVPixelFormatType_32BGRA)]
            videoDataOutput.setSampleBufferDelegate(self, queue: videoDataOutputQueue)
            if let connection = videoDataOutput.connection(with: .video), connection.isVideoRotationAngleSupported(90) {
                connection.videoRotationAngle = 90
            }
        } else {
            setupResult = .configurationFailed
        }
        session.commitConfiguration()
    }

    func start() {
        sessionQueue.async {
            guard self.setupResult == .success else { return }
            let observation = self.session.observe(\.isRunning, options: .new) { [weak self] _, change in
                guard let isRunning = change.newValue else { return }
                self?.runningChanges.withLock { $0.append(isRunning) }
            }
            self.keyValueObservations.append(observation)
            self.session.startRunning()
        }
    }

    func stop(completion: @escaping @Sendable () -> Void) {
        sessionQueue.async {
            self.session.stopRunning()
            self.keyValueObservations.forEach { $0.invalidate() }
            self.keyValueObservations.removeAll()
            completion()
        }
    }

    func captureOutput(_ output: AVCaptureOutput, didOutput sampleBuffer: CMSampleBuffer, from connection: AVCaptureConnection) {
        guard let pixelBuffer = CMSampleBufferGetImageBuffer(sampleBuffer) else { return }
        CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
        let size = CGSize(width: CVPixelBufferGetWidth(pixelBuffer), height: CVPixelBufferGetHeight(pixelBuffer))
        sizes.withLock { $0.append(size) }
    }
}

extension CaptureTests {
    @Suite("Capture as Apple's sample code writes it")
    struct AppleIdiomTests {
        @Test func cameraManagerWithASessionQueue() throws {
            CaptureCameras.install()
            let manager = CameraManager()
            // Synchronous waits: the test must not hold a thread of the (small) cooperative pool.
            let configured = DispatchSemaphore(value: 0)
            let result = Mutex<CameraManager.SetupResult?>(nil)
            manager.configure { outcome in
                result.withLock { $0 = outcome }
                configured.signal()
            }
            #expect(configured.wait(timeout: .now() + 60) == .success)
            #expect(result.withLock { $0 } == .success)
            manager.start()
            #expect(waitUntil(10) { manager.frameSizes.count >= 5 })
            let stopped = DispatchSemaphore(value: 0)
            manager.stop { stopped.signal() }
            #expect(stopped.wait(timeout: .now() + 60) == .success)
            #expect(manager.frameSizes.allSatisfy { $0 == CGSize(width: 480, height: 640) })
            #expect(manager.runningChanges.withLock { $0 } == [true, false])
            #expect(!manager.session.isRunning)
        }
    }
}
