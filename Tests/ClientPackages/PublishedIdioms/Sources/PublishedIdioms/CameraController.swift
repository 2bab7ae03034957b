// A camera controller written the way Learning AV Foundation's "Kamera" app and Apple's AVCam
// write one: a session with camera, microphone, movie and photo outputs; tap to focus and to
// expose (locking exposure once it settles, observed with KVO); the torch; a photo; a short
// movie; switching between the back and front cameras. Nothing here is Linux-specific: it runs
// on the virtual cameras the environment names.
import AVFoundation
import Foundation

final class CameraController: NSObject, AVCaptureFileOutputRecordingDelegate, AVCapturePhotoCaptureDelegate, @unchecked Sendable {
    let captureSession = AVCaptureSession()
    private let movieOutput = AVCaptureMovieFileOutput()
    private let photoOutput = AVCapturePhotoOutput()
    private var activeVideoInput: AVCaptureDeviceInput?
    private var exposureObservation: NSKeyValueObservation?
    private let done = DispatchSemaphore(value: 0)
    private var photoData: Data?
    private var recordingError: Error?

    var activeCamera: AVCaptureDevice? { activeVideoInput?.device }

    func setupSession() throws -> Bool {
        captureSession.sessionPreset = .high
        guard let videoDevice = AVCaptureDevice.default(for: .video) else { return false }
        let videoInput = try AVCaptureDeviceInput(device: videoDevice)
        if captureSession.canAddInput(videoInput) {
            captureSession.addInput(videoInput)
            activeVideoInput = videoInput
        }
        if let audioDevice = AVCaptureDevice.default(for: .audio) {
            let audioInput = try AVCaptureDeviceInput(device: audioDevice)
            if captureSession.canAddInput(audioInput) { captureSession.addInput(audioInput) }
        }
        if captureSession.canAddOutput(photoOutput) { captureSession.addOutput(photoOutput) }
        if captureSession.canAddOutput(movieOutput) { captureSession.addOutput(movieOutput) }
        return true
    }

    func startSession() {
        if !captureSession.isRunning { captureSession.startRunning() }
    }

    func stopSession() {
        if captureSession.isRunning { captureSession.stopRunning() }
    }

    // MARK: Switching cameras

    private func camera(with position: AVCaptureDevice.Position) -> AVCaptureDevice? {
        let discovery = AVCaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera, .external],
                                                         mediaType: .video, position: position)
        return discovery.devices.first
    }

    var cameraCount: Int {
        AVCaptureDevice.DiscoverySession(deviceTypes: [.builtInWideAngleCamera, .external], mediaType: .video,
                                         position: .unspecified).devices.count
    }

    func switchCameras() -> Bool {
        guard cameraCount > 1, let current = activeCamera else { return false }
        let position: AVCaptureDevice.Position = current.position == .back ? .front : .back
        guard let device = camera(with: position), let videoInput = try? AVCaptureDeviceInput(device: device) else { return false }
        captureSession.beginConfiguration()
        if let activeVideoInput { captureSession.removeInput(activeVideoInput) }
        if captureSession.canAddInput(videoInput) {
            captureSession.addInput(videoInput)
            activeVideoInput = videoInput
        } else if let activeVideoInput {
            captureSession.addInput(activeVideoInput)
        }
        captureSession.commitConfiguration()
        return activeVideoInput === videoInput
    }

    // MARK: Focus and exposure

    var cameraSupportsTapToFocus: Bool { activeCamera?.isFocusPointOfInterestSupported ?? false }

    func focus(at point: CGPoint) throws {
        guard let device = activeCamera, device.isFocusPointOfInterestSupported, device.isFocusModeSupported(.autoFocus) else { return }
        try device.lockForConfiguration()
        device.focusPointOfInterest = point
        device.focusMode = .autoFocus
        device.unlockForConfiguration()
    }

    var cameraSupportsTapToExpose: Bool { activeCamera?.isExposurePointOfInterestSupported ?? false }

    /// Exposes at `point`, then locks the exposure once the camera has settled (the book's KVO trick).
    func expose(at point: CGPoint, locked: @escaping @Sendable () -> Void) throws {
        guard let device = activeCamera else { return }
        let exposureMode = AVCaptureDevice.ExposureMode.continuousAutoExposure
        guard device.isExposurePointOfInterestSupported, device.isExposureModeSupported(exposureMode) else { return }
        try device.lockForConfiguration()
        device.exposurePointOfInterest = point
        device.exposureMode = exposureMode
        if device.isExposureModeSupported(.locked) {
            exposureObservation = device.observe(\.isAdjustingExposure, options: [.new]) { [weak self] device, change in
                guard change.newValue == false, device.isExposureModeSupported(.locked) else { return }
                self?.exposureObservation?.invalidate()
                if (try? device.lockForConfiguration()) != nil {
                    device.exposureMode = .locked
                    device.unlockForConfiguration()
                }
                locked()
            }
        }
        device.unlockForConfiguration()
    }

    // MARK: Torch

    var cameraHasTorch: Bool { activeCamera?.hasTorch ?? false }

    var torchMode: AVCaptureDevice.TorchMode {
        get { activeCamera?.torchMode ?? .off }
        set {
            guard let device = activeCamera, device.torchMode != newValue, device.isTorchModeSupported(newValue) else { return }
            if (try? device.lockForConfiguration()) != nil {
                device.torchMode = newValue
                device.unlockForConfiguration()
            }
        }
    }

    // MARK: Photo

    func capturePhoto() -> Data? {
        let settings = AVCapturePhotoSettings(format: [AVVideoCodecKey: AVVideoCodecType.jpeg])
        photoOutput.capturePhoto(with: settings, delegate: self)
        _ = done.wait(timeout: .now() + 10)
        return photoData
    }

    func photoOutput(_ output: AVCapturePhotoOutput, didFinishProcessingPhoto photo: AVCapturePhoto, error: Error?) {
        photoData = error == nil ? photo.fileDataRepresentation() : nil
    }

    func photoOutput(_ output: AVCapturePhotoOutput, didFinishCaptureFor resolvedSettings: AVCaptureResolvedPhotoSettings, error: Error?) {
        done.signal()
    }

    // MARK: Movie

    func recordMovie(to url: URL, seconds: Double) -> Error? {
        movieOutput.startRecording(to: url, recordingDelegate: self)
        Thread.sleep(forTimeInterval: seconds)
        movieOutput.stopRecording()
        _ = done.wait(timeout: .now() + 10)
        return recordingError
    }

    func fileOutput(_ output: AVCaptureFileOutput, didFinishRecordingTo outputFileURL: URL,
                    from connections: [AVCaptureConnection], error: Error?) {
        recordingError = error
        done.signal()
    }

    /// Runs the controller through what the app's buttons do and prints what happened.
    static func run(directory: URL) throws {
        let controller = CameraController()
        guard try controller.setupSession() else {
            print("camera error=no camera")
            exit(1)
        }
        controller.startSession()
        let camera = controller.activeCamera
        print("camera position=\(camera?.position.rawValue ?? -1) count=\(controller.cameraCount) running=\(controller.captureSession.isRunning)")

        // Tap to focus: one scan, then the camera locks its focus.
        try controller.focus(at: CGPoint(x: 0.25, y: 0.5))
        let focusDeadline = Date().addingTimeInterval(5)
        while camera?.focusMode != .locked && Date() < focusDeadline { Thread.sleep(forTimeInterval: 0.01) }
        let focusPoint = camera?.focusPointOfInterest ?? .zero
        print("focus mode=\(camera?.focusMode.rawValue ?? -1) point=\(focusPoint.x),\(focusPoint.y)")

        // Tap to expose: continuous until settled, then locked by the observer.
        let exposed = DispatchSemaphore(value: 0)
        try controller.expose(at: CGPoint(x: 0.75, y: 0.5)) { exposed.signal() }
        _ = exposed.wait(timeout: .now() + 5)
        print("exposure mode=\(camera?.exposureMode.rawValue ?? -1)")

        controller.torchMode = .on
        let torchOn = camera?.isTorchActive ?? false
        controller.torchMode = .off
        print("torch has=\(controller.cameraHasTorch) on=\(torchOn) off=\(!(camera?.isTorchActive ?? true))")

        let photo = controller.capturePhoto()
        let photoURL = directory.appendingPathComponent("photo.jpg")
        try photo?.write(to: photoURL)
        print("photo bytes=\((photo?.count ?? 0) > 1000)")

        let movieURL = directory.appendingPathComponent("movie.mov")
        let error = controller.recordMovie(to: movieURL, seconds: 2)
        print("movie error=\(error.map { "\($0)" } ?? "none")")

        let switched = controller.switchCameras()
        print("switched \(switched) position=\(controller.activeCamera?.position.rawValue ?? -1)")
        controller.stopSession()
        print("stopped running=\(controller.captureSession.isRunning)")
    }
}
