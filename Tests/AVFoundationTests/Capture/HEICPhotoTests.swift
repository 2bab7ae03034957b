// HEVC photos from AVCapturePhotoOutput on the 640×480 test pattern camera: settings with
// AVVideoCodecType.hevc give a HEIC `fileDataRepresentation()` carrying the capture's EXIF —
// read by exiftool and decoded by libheif's heif-convert (independent readers) and by our
// CGImageSource — and the output's codec and file type lists in Apple's order.
@testable import AVFoundation
import Foundation
import ImageIO
import Testing
import TestSupport

extension CaptureTests {
    @Suite("AVCapturePhotoOutput HEVC")
    struct HEICPhotoTests {
        static var hasTools: Bool {
            FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-convert")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool")
        }

        @Test func hevcSettingsAndCapabilities() {
            let settings = AVCapturePhotoSettings(format: [AVVideoCodecKey: AVVideoCodecType.hevc])
            #expect(settings.processedFileType == .heic)
            #expect(AVCapturePhotoSettings(format: [AVVideoCodecKey: "hvc1"]).processedFileType == .heic)
            let output = AVCapturePhotoOutput()
            #expect(output.availablePhotoCodecTypes == [.hevc, .jpeg])
            #expect(output.availablePhotoFileTypes == [.heic, .jpg])
            #expect(output.supportedPhotoCodecTypes(for: .heic) == [.hevc])
            #expect(output.supportedPhotoCodecTypes(for: .jpg) == [.jpeg])
            #expect(output.supportedPhotoCodecTypes(for: .mov).isEmpty)
        }

        @Test func qualityKeySetsTheCompression() throws {
            let output = AVCapturePhotoOutput()
            let (session, _) = try makeStillSession(output)
            session.startRunning()
            defer { session.stopRunning() }
            func photoSize(_ format: [String: Any]) throws -> Int {
                let delegate = PhotoOnlyDelegate()
                output.capturePhoto(with: AVCapturePhotoSettings(format: format), delegate: delegate)
                try #require(delegate.done.wait(timeout: .now() + 20) == .success, "no photo in 20 s")
                return try #require(delegate.photo?.fileDataRepresentation()).count
            }
            let coarse = try photoSize([AVVideoCodecKey: AVVideoCodecType.hevc, AVVideoQualityKey: 0.05])
            let fine = try photoSize([AVVideoCodecKey: AVVideoCodecType.hevc,
                                      AVVideoCompressionPropertiesKey: [AVVideoQualityKey: 1.0]])
            #expect(coarse < fine, "\(coarse) vs \(fine) bytes")
            let coarseJPEG = try photoSize([AVVideoCodecKey: AVVideoCodecType.jpeg, AVVideoQualityKey: 0.05])
            let fineJPEG = try photoSize([AVVideoCodecKey: AVVideoCodecType.jpeg, AVVideoQualityKey: 1.0])
            #expect(coarseJPEG < fineJPEG, "\(coarseJPEG) vs \(fineJPEG) bytes")
        }

        @Test(.enabled(if: HEICPhotoTests.hasTools))
        func hevcPhotoIsAHEICWithExif() throws {
            let output = AVCapturePhotoOutput()
            let (session, _) = try makeStillSession(output)
            session.startRunning()
            defer { session.stopRunning() }
            let settings = AVCapturePhotoSettings(format: [AVVideoCodecKey: AVVideoCodecType.hevc])
            settings.metadata = [kCGImagePropertyExifDictionary as String: ["UserComment": "hevc photo"]]
            #expect(((settings.metadata[kCGImagePropertyExifDictionary as String] as? [String: Any])?["UserComment"] as? String) == "hevc photo")
            let recorder = PhotoRecorder()
            output.capturePhoto(with: settings, delegate: recorder)
            try #require(recorder.finished.wait(timeout: .now() + 20) == .success, "no photo in 20 s")
            #expect(recorder.calls == ["willBegin", "willCapture", "didCapture", "didFinishProcessing", "didFinishCapture"])
            #expect(recorder.error == nil)
            let photo = try #require(recorder.photo)
            #expect(photo.resolvedSettings.photoDimensions == CMVideoDimensions(width: 640, height: 480))
            #expect(photo.pixelBuffer == nil && !photo.isRawPhoto)
            let data = try #require(photo.fileDataRepresentation())
            #expect(String(decoding: data[4 ..< 12], as: UTF8.self) == "ftypheic")

            // Our reader.
            let source = try #require(CGImageSourceCreateWithData(data as CFData, nil))
            #expect(CGImageSourceGetType(source) as String? == "public.heic")
            let image = try #require(CGImageSourceCreateImageAtIndex(source, 0, nil))
            #expect(image.width == 640 && image.height == 480)
            let properties = try #require(CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any])
            let exif = try #require(properties[kCGImagePropertyExifDictionary as String] as? [String: Any])
            #expect(exif[kCGImagePropertyExifPixelXDimension as String] as? Int == 640)
            #expect(exif[kCGImagePropertyExifDateTimeOriginal as String] != nil)

            // exiftool and libheif.
            let dir = try TestTools.temporaryDirectory("heic-photo")
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("photo.heic"), png = dir.appendingPathComponent("photo.png")
            try data.write(to: file)
            let text = try TestTools.runText("exiftool", ["-s", "-n", file.path]).output
            var tags: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                tags[line[..<colon].trimmingCharacters(in: .whitespaces)] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            #expect(tags["FileType"] == "HEIC", "\(tags)")
            #expect(tags["ExifImageWidth"] == "640" && tags["ExifImageHeight"] == "480", "\(tags)")
            #expect(tags["ImageWidth"] == "640" && tags["ImageHeight"] == "480", "\(tags)")
            #expect(tags["Make"] != nil && tags["Model"] != nil && tags["DateTimeOriginal"] != nil, "\(tags)")
            #expect(tags["UserComment"] == "hevc photo", "\(tags)")
            #expect(try TestTools.run("/usr/bin/heif-convert", [file.path, png.path]).status == 0)
            let theirs = try #require(CGImageSourceCreateWithURL(png as CFURL, nil).flatMap { CGImageSourceCreateImageAtIndex($0, 0, nil) })
            #expect(theirs.width == 640 && theirs.height == 480)
            // The same picture as ours (the test pattern), decoded independently.
            let a = [UInt8](image.dataProvider!.data! as Data), b = [UInt8](theirs.dataProvider!.data! as Data)
            var sum = 0, n = 0
            for y in stride(from: 0, to: 480, by: 3) {
                for x in stride(from: 0, to: 640, by: 3) {
                    for c in 0 ..< 3 {
                        sum += abs(Int(a[y * image.bytesPerRow + x * 4 + c]) - Int(b[y * theirs.bytesPerRow + x * (theirs.bitsPerPixel / 8) + c]))
                        n += 1
                    }
                }
            }
            #expect(Double(sum) / Double(n) < 2, "libheif and we differ by \(Double(sum) / Double(n))")
            #expect(photo.cgImageRepresentation()?.width == 640)
        }
    }
}
