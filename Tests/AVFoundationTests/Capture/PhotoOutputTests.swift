// AVCapturePhotoOutput on the 640×480 test pattern camera: the delegate's calls in Apple's order,
// a JPEG photo at the session's size with Exif (exiftool), settings' metadata written in, an
// uncompressed photo's pixel buffer, unique settings identifiers and Apple's exceptions.
@testable import AVFoundation
import Foundation
import ImageIO
import Synchronization
import Testing
import TestSupport

/// A photo delegate recording its calls.
final class PhotoRecorder: NSObject, AVCapturePhotoCaptureDelegate, @unchecked Sendable {
    private let state = Mutex<(calls: [String], ids: [Int64], photo: AVCapturePhoto?, error: String?)>(([], [], nil, nil))
    let finished = DispatchSemaphore(value: 0)

    var calls: [String] { state.withLock { $0.calls } }
    var ids: [Int64] { state.withLock { $0.ids } }
    var photo: AVCapturePhoto? { state.withLock { $0.photo } }
    var error: String? { state.withLock { $0.error } }

    private func record(_ call: String, _ id: Int64) { state.withLock { $0.calls.append(call); $0.ids.append(id) } }

    func photoOutput(_ output: AVCapturePhotoOutput, willBeginCaptureFor resolvedSettings: AVCaptureResolvedPhotoSettings) {
        record("willBegin", resolvedSettings.uniqueID)
    }
    func photoOutput(_ output: AVCapturePhotoOutput, willCapturePhotoFor resolvedSettings: AVCaptureResolvedPhotoSettings) {
        record("willCapture", resolvedSettings.uniqueID)
    }
    func photoOutput(_ output: AVCapturePhotoOutput, didCapturePhotoFor resolvedSettings: AVCaptureResolvedPhotoSettings) {
        record("didCapture", resolvedSettings.uniqueID)
    }
    func photoOutput(_ output: AVCapturePhotoOutput, didFinishProcessingPhoto photo: AVCapturePhoto, error: (any Error)?) {
        record("didFinishProcessing", photo.resolvedSettings.uniqueID)
        state.withLock { $0.photo = photo }
    }
    func photoOutput(_ output: AVCapturePhotoOutput, didFinishCaptureFor resolvedSettings: AVCaptureResolvedPhotoSettings,
                     error: (any Error)?) {
        record("didFinishCapture", resolvedSettings.uniqueID)
        state.withLock { $0.error = error.map { "\($0)" } }
        finished.signal()
    }
}

/// A delegate implementing only the photo callback (the others have default implementations).
final class PhotoOnlyDelegate: NSObject, AVCapturePhotoCaptureDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    private let got = Mutex<AVCapturePhoto?>(nil)
    var photo: AVCapturePhoto? { got.withLock { $0 } }
    func photoOutput(_ output: AVCapturePhotoOutput, didFinishProcessingPhoto photo: AVCapturePhoto, error: (any Error)?) {
        got.withLock { $0 = photo }
        done.signal()
    }
}

extension CaptureTests {
    @Suite("AVCapturePhotoOutput")
    struct PhotoOutputTests {
        @Test func settingsDefaultsAndIdentifiers() {
            let a = AVCapturePhotoSettings(), b = AVCapturePhotoSettings()
            #expect(a.uniqueID != b.uniqueID)
            #expect((a.format?[AVVideoCodecKey] as? AVVideoCodecType) == .jpeg)
            #expect(a.processedFileType == .jpg)
            #expect(a.flashMode == .off)
            #expect(a.metadata.isEmpty)
            a.flashMode = .auto
            a.metadata = ["{Exif}": ["UserComment": "x"]]
            let c = AVCapturePhotoSettings(from: a)
            #expect(c.uniqueID != a.uniqueID && c.flashMode == .auto && c.metadata.count == 1)
            let copy = a.copy() as! AVCapturePhotoSettings
            #expect(copy.uniqueID == a.uniqueID)
            let raw = AVCapturePhotoSettings(format: [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32BGRA)])
            #expect(raw.processedFileType == nil && raw.uniqueID != c.uniqueID)
            let output = AVCapturePhotoOutput()
            #expect(output.availablePhotoCodecTypes == [.hevc, .jpeg])
            #expect(output.availablePhotoFileTypes == [.heic, .jpg])
            #expect(output.supportedFlashModes == [.off])
            #expect(output.availablePhotoPixelFormatTypes.contains(kCVPixelFormatType_32BGRA))
            #expect(output.maxPhotoDimensions == CMVideoDimensions())
        }

        @Test func jpegPhotoInAppleOrderWithExif() throws {
            let output = AVCapturePhotoOutput()
            let (session, _) = try makeStillSession(output)
            #expect(output.maxPhotoDimensions == CMVideoDimensions(width: 640, height: 480))
            session.startRunning()
            defer { session.stopRunning() }
            let settings = AVCapturePhotoSettings()
            settings.metadata = [kCGImagePropertyExifDictionary as String: ["UserComment": "from the settings"]]
            let recorder = PhotoRecorder()
            let requested = CMClockGetTime(CMClockGetHostTimeClock())
            output.capturePhoto(with: settings, delegate: recorder)
            try #require(recorder.finished.wait(timeout: .now() + 10) == .success, "no photo in 10 s")
            #expect(recorder.calls == ["willBegin", "willCapture", "didCapture", "didFinishProcessing", "didFinishCapture"])
            #expect(recorder.ids.allSatisfy { $0 == settings.uniqueID })
            #expect(recorder.error == nil)
            let photo = try #require(recorder.photo)
            #expect(photo.resolvedSettings.photoDimensions == CMVideoDimensions(width: 640, height: 480))
            #expect(!photo.isRawPhoto && photo.pixelBuffer == nil && photo.photoCount == 1)
            #expect(photo.timestamp >= requested - CMTime(value: 1, timescale: 30))
            let data = try #require(photo.fileDataRepresentation())
            let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
            let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
            #expect(image.width == 640 && image.height == 480)
            let tags = try exifTags(data)
            #expect(tags["ExifImageWidth"] == "640" && tags["ExifImageHeight"] == "480", "\(tags)")
            #expect(tags["UserComment"] == "from the settings", "\(tags)")
            #expect(tags["Model"] != nil && tags["DateTimeOriginal"] != nil, "\(tags)")
            let cg = try #require(photo.cgImageRepresentation())
            #expect(cg.width == 640 && cg.height == 480)
            let exif = photo.metadata[kCGImagePropertyExifDictionary as String] as? [String: Any]
            #expect((exif?[kCGImagePropertyExifPixelXDimension as String] as? NSNumber)?.intValue == 640)
        }

        /// A camera with a flash offers every flash mode; `.on` fires (resolved settings, Exif
        /// Flash 9), `.off` does not (16); a camera without one offers `.off` only (Exif 32).
        @Test func flashModesFollowTheCamerasFlash() throws {
            CaptureCameras.install()
            let camera = try #require(AVCaptureDevice(uniqueID: CaptureCameras.controlled))
            let session = AVCaptureSession()
            let input = try AVCaptureDeviceInput(device: camera)
            try #require(session.canAddInput(input))
            session.addInput(input)
            let output = AVCapturePhotoOutput()
            #expect(output.supportedFlashModes == [.off], "not connected yet")
            try #require(session.canAddOutput(output))
            session.addOutput(output)
            #expect(output.supportedFlashModes == [.off, .on, .auto])
            session.startRunning()
            defer { session.stopRunning() }
            for (mode, fired, exifFlash) in [(AVCaptureDevice.FlashMode.on, true, "9"), (.off, false, "16")] {
                let settings = AVCapturePhotoSettings()
                settings.flashMode = mode
                let recorder = PhotoRecorder()
                output.capturePhoto(with: settings, delegate: recorder)
                try #require(recorder.finished.wait(timeout: .now() + 10) == .success, "no photo in 10 s")
                let photo = try #require(recorder.photo)
                #expect(photo.resolvedSettings.isFlashEnabled == fired)
                #expect(try exifTags(try #require(photo.fileDataRepresentation()))["Flash"] == exifFlash)
            }
            let (plain, _) = try makeStillSession(AVCapturePhotoOutput())
            let plainOutput = try #require(plain.outputs.first as? AVCapturePhotoOutput)
            #expect(plainOutput.supportedFlashModes == [.off])
            plain.startRunning()
            defer { plain.stopRunning() }
            let recorder = PhotoRecorder()
            plainOutput.capturePhoto(with: AVCapturePhotoSettings(), delegate: recorder)
            try #require(recorder.finished.wait(timeout: .now() + 10) == .success, "no photo in 10 s")
            #expect(try exifTags(try #require(recorder.photo?.fileDataRepresentation()))["Flash"] == "32")
        }

        @Test func uncompressedPhotoHoldsAPixelBuffer() throws {
            let output = AVCapturePhotoOutput()
            let (session, connection) = try makeStillSession(output)
            connection.videoRotationAngle = 90
            session.startRunning()
            defer { session.stopRunning() }
            let delegate = PhotoOnlyDelegate()
            let settings = AVCapturePhotoSettings(format: [kCVPixelBufferPixelFormatTypeKey as String:
                                                           NSNumber(value: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)])
            output.capturePhoto(with: settings, delegate: delegate)
            try #require(delegate.done.wait(timeout: .now() + 10) == .success, "no photo in 10 s")
            let photo = try #require(delegate.photo)
            let buffer = try #require(photo.pixelBuffer)
            // Turned a quarter: portrait.
            #expect(CVPixelBufferGetWidth(buffer) == 480 && CVPixelBufferGetHeight(buffer) == 640)
            #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(photo.resolvedSettings.photoDimensions == CMVideoDimensions(width: 480, height: 640))
            #expect(photo.fileDataRepresentation() == nil)
            #expect(photo.cgImageRepresentation()?.width == 480)
        }

        @Test func reusingSettingsStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let output = AVCapturePhotoOutput()
                let (session, _) = try makeStillSession(output)
                session.startRunning()
                let settings = AVCapturePhotoSettings()
                let delegate = PhotoOnlyDelegate()
                output.capturePhoto(with: settings, delegate: delegate)
                _ = delegate.done.wait(timeout: .now() + 10)
                output.capturePhoto(with: settings.copy() as! AVCapturePhotoSettings, delegate: delegate)
            }
            expectExit(result, says: "-[AVCapturePhotoOutput capturePhotoWithSettings:delegate:] Settings may not be re-used")
        }

        @Test func aPhotoWithoutAConnectionStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                AVCapturePhotoOutput().capturePhoto(with: AVCapturePhotoSettings(), delegate: PhotoOnlyDelegate())
            }
            expectExit(result, says: "-[AVCapturePhotoOutput capturePhotoWithSettings:delegate:] No active and enabled video connection")
        }
    }
}
