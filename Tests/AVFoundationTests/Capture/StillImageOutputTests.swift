// AVCaptureStillImageOutput on the 640×480 test pattern camera (AT-C5): the still decodes at the
// preset's size with Exif (read by exiftool, an independent reader), an edited {Exif}
// attachment reaches the representation while the compressed picture stays byte for byte the
// same, isCapturingStillImage is observable, uncompressed settings give a pixel buffer.
@testable import AVFoundation
import Foundation
import ImageIO
import Synchronization
import Testing
import TestSupport

/// A session running the VGA test pattern into `output` at `.vga640x480`.
func makeStillSession(_ output: AVCaptureOutput) throws -> (AVCaptureSession, AVCaptureConnection) {
    let camera = try CaptureCameras.vgaCamera()
    let session = AVCaptureSession()
    session.beginConfiguration()
    let input = try AVCaptureDeviceInput(device: camera)
    try #require(session.canAddInput(input))
    session.addInput(input)
    session.sessionPreset = .vga640x480
    try #require(session.canAddOutput(output))
    session.addOutput(output)
    session.commitConfiguration()
    let connection = try #require(output.connection(with: .video))
    return (session, connection)
}

/// What exiftool reads of `jpeg` (`-s -n` tag: value lines).
func exifTags(_ jpeg: Data) throws -> [String: String] {
    let dir = try TestTools.temporaryDirectory("still-exif")
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("still.jpg")
    try jpeg.write(to: file)
    let text = try TestTools.runText("exiftool", ["-s", "-n", file.path]).output
    var tags: [String: String] = [:]
    for line in text.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        tags[line[..<colon].trimmingCharacters(in: .whitespaces)] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return tags
}

/// The bytes of a JPEG from its first SOS marker to the end (the compressed picture), found by
/// walking the marker segments.
func scanData(_ jpeg: Data) -> Data? {
    let bytes = [UInt8](jpeg)
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    var i = 2
    while i + 4 <= bytes.count {
        guard bytes[i] == 0xFF else { return nil }
        if bytes[i + 1] == 0xDA { return Data(bytes[i...]) }
        let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
        i += 2 + length
    }
    return nil
}

extension CaptureTests {
    @Suite("AVCaptureStillImageOutput")
    struct StillImageOutputTests {
        @Test func defaults() {
            let output = AVCaptureStillImageOutput()
            #expect((output.outputSettings[AVVideoCodecKey] as? AVVideoCodecType) == .jpeg)
            #expect(output.availableImageDataCodecTypes == [.jpeg])
            #expect(output.availableImageDataCVPixelFormatTypes.map(\.uint32Value).contains(kCVPixelFormatType_32BGRA))
            #expect(!output.isCapturingStillImage)
            output.outputSettings = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32BGRA)]
            #expect((output.outputSettings[kCVPixelBufferPixelFormatTypeKey as String] as? NSNumber)?.uint32Value == kCVPixelFormatType_32BGRA)
            output.outputSettings = nil
            #expect((output.outputSettings[AVVideoCodecKey] as? AVVideoCodecType) == .jpeg)
        }

        /// AT-C5.
        @Test func jpegStillWithEditableExif() throws {
            let output = AVCaptureStillImageOutput()
            let (session, connection) = try makeStillSession(output)
            let seen = Mutex<[Bool]>([])
            let observation = output.observe(\.isCapturingStillImage, options: [.new]) { _, change in
                if let value = change.newValue { seen.withLock { $0.append(value) } }
            }
            session.startRunning()
            defer { session.stopRunning() }
            let requested = CMClockGetTime(CMClockGetHostTimeClock())
            let done = DispatchSemaphore(value: 0)
            let result = Mutex<(CMSampleBuffer?, (any Error)?)>((nil, nil))
            output.captureStillImageAsynchronously(from: connection) { sample, error in
                result.withLock { $0 = (sample, error) }
                done.signal()
            }
            try #require(done.wait(timeout: .now() + 10) == .success, "no still in 10 s")
            observation.invalidate()
            let (sample, error) = result.withLock { $0 }
            #expect(error == nil)
            let still = try #require(sample)
            #expect(seen.withLock { $0 } == [true, false])
            #expect(!output.isCapturingStillImage)
            // The frame after the request.
            #expect(CMSampleBufferGetPresentationTimeStamp(still) >= requested - CMTime(value: 1, timescale: 30))
            let format = try #require(CMSampleBufferGetFormatDescription(still))
            #expect(CMFormatDescriptionGetMediaSubType(format) == kCMVideoCodecType_JPEG)
            #expect(CMSampleBufferGetImageBuffer(still) == nil)

            let jpeg = try #require(AVCaptureStillImageOutput.jpegStillImageNSDataRepresentation(still))
            let source = try #require(CGImageSourceCreateWithData(jpeg as CFData, nil))
            let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
            #expect(image.width == 640 && image.height == 480)
            let tags = try exifTags(jpeg)
            #expect(tags["ExifImageWidth"] == "640" && tags["ExifImageHeight"] == "480", "\(tags)")
            #expect(tags["DateTimeOriginal"]?.count == 19, "\(tags)")
            #expect(tags["Make"] == "AVFoundation for Linux", "\(tags)")

            // Edit the attachment: the next representation carries it; the picture is untouched.
            let exif = try #require(CMGetAttachment(still, key: kCGImagePropertyExifDictionary, attachmentModeOut: nil) as? NSMutableDictionary)
            exif["UserComment"] = "edited"
            let edited = try #require(AVCaptureStillImageOutput.jpegStillImageNSDataRepresentation(still))
            #expect(try exifTags(edited)["UserComment"] == "edited")
            let before = try #require(scanData(jpeg)), after = try #require(scanData(edited))
            #expect(before == after)
            #expect(before.count > 1000 && after.suffix(2) == Data([0xFF, 0xD9]))
        }

        @Test func uncompressedStillHoldsAPixelBuffer() throws {
            let output = AVCaptureStillImageOutput()
            output.outputSettings = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: kCVPixelFormatType_32BGRA)]
            let (session, connection) = try makeStillSession(output)
            session.startRunning()
            defer { session.stopRunning() }
            let done = DispatchSemaphore(value: 0)
            let result = Mutex<CMSampleBuffer?>(nil)
            output.captureStillImageAsynchronously(from: connection) { sample, _ in
                result.withLock { $0 = sample }
                done.signal()
            }
            try #require(done.wait(timeout: .now() + 10) == .success, "no still in 10 s")
            let still = try #require(result.withLock { $0 })
            let buffer = try #require(CMSampleBufferGetImageBuffer(still))
            #expect(CVPixelBufferGetWidth(buffer) == 640 && CVPixelBufferGetHeight(buffer) == 480)
            #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_32BGRA)
            // The test pattern is not blank: the buffer holds more than one colour.
            CVPixelBufferLockBaseAddress(buffer, .readOnly)
            defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
            let base = try #require(CVPixelBufferGetBaseAddress(buffer)).assumingMemoryBound(to: UInt32.self)
            let stride = CVPixelBufferGetBytesPerRow(buffer) / 4
            let samples = Set((0..<48).map { base[($0 * 10) * stride + $0 * 13] })
            #expect(samples.count > 3)
        }

        @Test func aStillWhileNotRunningFails() throws {
            let output = AVCaptureStillImageOutput()
            let (session, connection) = try makeStillSession(output)
            defer { withExtendedLifetime(session) {} }
            let done = DispatchSemaphore(value: 0)
            let code = Mutex<Int?>(nil)
            output.captureStillImageAsynchronously(from: connection) { sample, error in
                code.withLock { $0 = (error as? AVError)?.code.rawValue }
                done.signal()
            }
            try #require(done.wait(timeout: .now() + 5) == .success)
            #expect(code.withLock { $0 } == AVError.Code.sessionNotRunning.rawValue)
        }

        @Test func aConnectionOfAnotherOutputStopsTheProgram() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let other = AVCaptureVideoDataOutput()
                let (_, connection) = try makeStillSession(other)
                AVCaptureStillImageOutput().captureStillImageAsynchronously(from: connection) { _, _ in }
            }
            expectExit(result, says: "-[AVCaptureStillImageOutput captureStillImageAsynchronouslyFromConnection:completionHandler:] - inactive/invalid connection passed.")
        }
    }
}
