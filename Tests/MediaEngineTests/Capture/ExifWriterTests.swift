// ExifWriter: Exif built from ImageIO-style {TIFF}/{Exif} dictionaries and spliced into JPEGs the
// ffmpeg CLI made, judged by exiftool (and ffmpeg decoding the same pixels); the compressed
// picture — the bytes from SOS to EOI — must come through untouched.
import Foundation
@testable import MediaEngine
import Testing
import TestSupport

@Suite("Exif writer", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") && TestTools.hasFFmpeg,
                               "exiftool or ffmpeg missing: run scripts/setup.sh"))
struct ExifWriterTests {
    /// A 640×480 baseline JPEG from ffmpeg's encoder (it writes a JFIF APP0 and no Exif).
    static func jpeg(in dir: URL, name: String = "in.jpg") throws -> URL {
        let url = dir.appendingPathComponent(name)
        let run = try TestTools.run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=1",
                                               "-frames:v", "1", "-q:v", "3", "-y", url.path], capture: .standardError)
        try #require(run.status == 0, "\(String(decoding: run.output, as: UTF8.self))")
        return url
    }

    /// exiftool's reading of a file: tag name → value (numbers as numbers, -n).
    static func exiftool(_ url: URL, _ extra: [String] = [], numeric: Bool = true) throws -> [String: Any] {
        let run = try TestTools.run("exiftool", ["-j"] + (numeric ? ["-n"] : []) + extra + [url.path])
        let array = try JSONSerialization.jsonObject(with: run.output) as? [[String: Any]]
        return try #require(array?.first)
    }

    /// The bytes from the first SOS marker to the end.
    static func entropyCoded(_ data: Data) -> Data? {
        let b = [UInt8](data)
        var p = 2
        while p + 4 <= b.count, b[p] == 0xFF {
            if b[p + 1] == 0xDA { return Data(b[p...]) }
            p += 2 + (Int(b[p + 2]) << 8 | Int(b[p + 3]))
        }
        return nil
    }

    static func exifSegmentCount(_ data: Data) -> Int {
        let b = [UInt8](data)
        var p = 2, count = 0
        while p + 10 <= b.count, b[p] == 0xFF, b[p + 1] != 0xDA {
            if b[p + 1] == 0xE1, Array(b[(p + 4) ..< (p + 10)]) == Array("Exif\0\0".utf8) { count += 1 }
            p += 2 + (Int(b[p + 2]) << 8 | Int(b[p + 3]))
        }
        return count
    }

    static var tiff: [String: Any] { ["Make": "Linux", "Model": "Virtual camera testsrc", "Orientation": 6,
                                      "DateTime": "2026:11:26 01:02:03", "Software": "AVFoundation for Linux"] }
    static var exif: [String: Any] { [
        "PixelXDimension": 640, "PixelYDimension": NSNumber(value: 480), "DateTimeOriginal": "2026:11:26 01:02:03",
        "DateTimeDigitized": "2026:11:26 01:02:03", "UserComment": "edited", "ExposureTime": 1.0 / 30,
        "FNumber": 2.8, "ISOSpeedRatings": [100], "FocalLength": 4.25, "ExposureBiasValue": -0.5,
        "Flash": 16, "WhiteBalance": 0, "LensModel": "Fixed", "SubsecTimeOriginal": "042",
        "ExifVersion": [2, 3, 2], "NotAnExifKey": "ignored", "FNumberWrongType": "x",
    ] }

    @Test func exiftoolReadsWhatWasWrittenAndThePictureIsUntouched() throws {
        let dir = try TestTools.temporaryDirectory("exif")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.jpeg(in: dir)
        let original = try Data(contentsOf: input)
        let written = try ExifWriter.settingExif(tiff: Self.tiff, exif: Self.exif, in: original)
        let output = dir.appendingPathComponent("out.jpg")
        try written.write(to: output)

        let tags = try Self.exiftool(output)
        #expect(tags["Make"] as? String == "Linux")
        #expect(tags["Model"] as? String == "Virtual camera testsrc")
        #expect(tags["Orientation"] as? Int == 6)
        #expect(tags["ModifyDate"] as? String == "2026:11:26 01:02:03")
        #expect(tags["Software"] as? String == "AVFoundation for Linux")
        #expect(tags["ExifImageWidth"] as? Int == 640)
        #expect(tags["ExifImageHeight"] as? Int == 480)
        #expect(tags["DateTimeOriginal"] as? String == "2026:11:26 01:02:03")
        #expect(tags["CreateDate"] as? String == "2026:11:26 01:02:03")
        #expect(tags["UserComment"] as? String == "edited")
        #expect(abs((tags["ExposureTime"] as? Double ?? 0) - 1.0 / 30) < 1e-9)
        #expect(tags["FNumber"] as? Double == 2.8)
        #expect(tags["ISO"] as? Int == 100)
        #expect(tags["FocalLength"] as? Double == 4.25)
        #expect(tags["ExposureCompensation"] as? Double == -0.5)
        #expect(tags["Flash"] as? Int == 16)
        #expect(tags["LensModel"] as? String == "Fixed")
        #expect("\(tags["ExifVersion"] ?? "")" == "0232")
        #expect("\(tags["SubSecTimeOriginal"] ?? "")" == "042")
        // The JFIF segment is still there, and exiftool finds nothing to complain about.
        #expect(tags["JFIFVersion"] != nil)
        let validation = try Self.exiftool(output, ["-validate", "-warning", "-a"], numeric: false)
        #expect(validation["Validate"] as? String == "OK", "\(validation)")

        // Not recompressed: the entropy-coded data and everything after it are the same bytes,
        // and ffmpeg decodes the same picture.
        #expect(Self.entropyCoded(written) == Self.entropyCoded(original))
        #expect(Self.entropyCoded(written) != nil)
        let hashes = try [input, output].map { url in
            // -noautorotate: ffmpeg turns JPEGs by their Exif orientation (6 here) otherwise.
            try TestTools.runText("ffmpeg", ["-v", "error", "-noautorotate", "-i", url.path, "-f", "md5", "-"]).output
        }
        #expect(hashes[0] == hashes[1] && hashes[0].hasPrefix("MD5="))
    }

    @Test func writingAgainReplacesTheExifSegment() throws {
        let dir = try TestTools.temporaryDirectory("exif-again")
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try Data(contentsOf: try Self.jpeg(in: dir))
        let once = try ExifWriter.settingExif(tiff: Self.tiff, exif: Self.exif, in: original)
        var changed = Self.exif
        changed["UserComment"] = "ünïcödé comment"
        let twice = try ExifWriter.settingExif(tiff: ["Make": "Other"], exif: changed, in: once)
        #expect(Self.exifSegmentCount(once) == 1)
        #expect(Self.exifSegmentCount(twice) == 1)
        let output = dir.appendingPathComponent("twice.jpg")
        try twice.write(to: output)
        let tags = try Self.exiftool(output)
        #expect(tags["UserComment"] as? String == "ünïcödé comment")
        #expect(tags["Make"] as? String == "Other")
        #expect(tags["Model"] == nil)  // replaced, not merged
        #expect(Self.entropyCoded(twice) == Self.entropyCoded(original))
    }

    @Test func orientationOnlyIsASingleTagIFD() {
        // What ImageIO's destination writes for kCGImagePropertyOrientation (ImageMetadataWriter).
        let bytes = ExifWriter.tiffStructure(tiff: ["Orientation": 3], exif: nil)
        #expect(bytes == [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00,
                          0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
                          0x00, 0x00, 0x00, 0x00])
    }

    @Test func badInputIsRefused() throws {
        #expect(throws: ExifWriter.WriteError.notJPEG) {
            try ExifWriter.settingExif(tiff: [:], exif: [:], in: Data("not a jpeg".utf8))
        }
        // A JPEG cut inside its header segments.
        let dir = try TestTools.temporaryDirectory("exif-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try Data(contentsOf: try Self.jpeg(in: dir))
        #expect(throws: ExifWriter.WriteError.notJPEG) {
            try ExifWriter.settingExif(tiff: [:], exif: [:], in: original.prefix(30))
        }
        // More than one APP1 segment can hold.
        let huge = String(repeating: "x", count: 70_000)
        #expect(throws: ExifWriter.WriteError.self) {
            try ExifWriter.settingExif(tiff: [:], exif: ["UserComment": huge], in: original)
        }
        // Values that do not fit their field are left out, not trapped on.
        let odd = try ExifWriter.settingExif(tiff: ["Orientation": 70_000], exif: ["ExposureTime": -1.0, "FNumber": Double.infinity,
                                                                              "PixelXDimension": -5, "FocalLength": 1e30],
                                             in: original)
        let output = dir.appendingPathComponent("odd.jpg")
        try odd.write(to: output)
        let tags = try Self.exiftool(output)
        #expect(tags["Orientation"] == nil && tags["ExposureTime"] == nil && tags["FNumber"] == nil)
        #expect(tags["ExifImageWidth"] == nil && tags["FocalLength"] == nil)
    }
}
