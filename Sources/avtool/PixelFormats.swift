// `avtool pixel-formats`: the Core Video pixel formats this build holds and converts.
import ArgumentParser
import AVFoundation

struct PixelFormats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pixel-formats",
        abstract: "List the CVPixelBuffer formats supported, with their plane layout at a given size.")

    @Option(help: "Frame size to describe, WxH.")
    var size: String = "1920x1080"

    func run() throws {
        guard let (w, h) = parseSize(size) else { throw ValidationError("--size wants WxH, e.g. 1920x1080") }
        print("format  name                                      planes  bytes/row (per plane)")
        for (code, name) in supportedPixelFormats {
            var buffer: CVPixelBuffer?
            guard CVPixelBufferCreate(nil, w, h, code, nil, &buffer) == kCVReturnSuccess, let pb = buffer else { continue }
            let planes = max(1, CVPixelBufferGetPlaneCount(pb))
            let rows = CVPixelBufferIsPlanar(pb)
                ? (0..<planes).map { String(CVPixelBufferGetBytesPerRowOfPlane(pb, $0)) }.joined(separator: ", ")
                : String(CVPixelBufferGetBytesPerRow(pb))
            print(fourCC(code).padding(toLength: 8, withPad: " ", startingAt: 0)
                  + name.padding(toLength: 42, withPad: " ", startingAt: 0)
                  + String(planes).padding(toLength: 8, withPad: " ", startingAt: 0) + rows)
        }
    }
}

/// The pixel formats the demo and `pixel-formats` walk through, with their Core Video names.
let supportedPixelFormats: [(OSType, String)] = [
    (kCVPixelFormatType_32BGRA, "kCVPixelFormatType_32BGRA"),
    (kCVPixelFormatType_32ARGB, "kCVPixelFormatType_32ARGB"),
    (kCVPixelFormatType_32RGBA, "kCVPixelFormatType_32RGBA"),
    (kCVPixelFormatType_32ABGR, "kCVPixelFormatType_32ABGR"),
    (kCVPixelFormatType_24RGB, "kCVPixelFormatType_24RGB"),
    (kCVPixelFormatType_24BGR, "kCVPixelFormatType_24BGR"),
    (kCVPixelFormatType_OneComponent8, "kCVPixelFormatType_OneComponent8"),
    (kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, "kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange"),
    (kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, "kCVPixelFormatType_420YpCbCr8BiPlanarFullRange"),
    (kCVPixelFormatType_420YpCbCr8Planar, "kCVPixelFormatType_420YpCbCr8Planar"),
    (kCVPixelFormatType_420YpCbCr8PlanarFullRange, "kCVPixelFormatType_420YpCbCr8PlanarFullRange"),
    (kCVPixelFormatType_422YpCbCr8, "kCVPixelFormatType_422YpCbCr8"),
    (kCVPixelFormatType_422YpCbCr8_yuvs, "kCVPixelFormatType_422YpCbCr8_yuvs"),
    (kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange, "kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange"),
    (kCVPixelFormatType_422YpCbCr8BiPlanarFullRange, "kCVPixelFormatType_422YpCbCr8BiPlanarFullRange"),
    (kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, "kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange"),
    (kCVPixelFormatType_420YpCbCr10BiPlanarFullRange, "kCVPixelFormatType_420YpCbCr10BiPlanarFullRange"),
]

/// "WxH" → (W, H).
func parseSize(_ s: String) -> (Int, Int)? {
    let parts = s.lowercased().split(separator: "x").compactMap { Int($0) }
    guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
    return (parts[0], parts[1])
}

/// A four-character code as text ("BGRA", "420v"); small numeric codes (32ARGB = 32) as numbers.
func fourCC(_ code: OSType) -> String {
    let bytes = [UInt8(code >> 24 & 0xFF), UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)]
    if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
    return String(code)
}
