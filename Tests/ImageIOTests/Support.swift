import Foundation
import ImageIO
import TestSupport

/// Runs a command-line tool; its standard output, or nil when it exits non-zero.
func runTool(_ path: String, _ arguments: [String]) -> Data? {
    guard let (status, output) = try? TestTools.run(path, arguments), status == 0 else { return nil }
    return output
}

/// ffmpeg's own decode of an image file, as raw pixels of `pixFmt`.
func ffmpegDecode(_ url: URL, pixFmt: String = "rgba") -> [UInt8]? {
    runTool("/usr/bin/ffmpeg", ["-v", "error", "-i", url.path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", pixFmt, "-"])
        .map { [UInt8]($0) }
}

/// `ffprobe` facts about the first video stream: codec_name, width, height, pix_fmt.
func ffprobe(_ url: URL) -> [String: String] {
    guard let out = runTool("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                 "stream=codec_name,width,height,pix_fmt", "-of", "default=nw=1", url.path])
    else { return [:] }
    var facts: [String: String] = [:]
    for line in String(decoding: out, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1)
        if parts.count == 2 { facts[String(parts[0])] = String(parts[1]) }
    }
    return facts
}

/// Runs ffmpeg to make a file; true on success.
func ffmpegMake(_ arguments: [String]) -> Bool {
    runTool("/usr/bin/ffmpeg", ["-v", "error", "-y"] + arguments) != nil
}

/// A fresh temporary directory, removed by the caller.
func makeTempDirectory() -> URL {
    TestTools.makeTemporaryDirectory("imageio")
}

/// A CGImage over `bytes` with the given layout.
func makeImage(width: Int, height: Int, bitsPerComponent: Int = 8, bitsPerPixel: Int, bytesPerRow: Int? = nil,
               space: CGColorSpace = CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo, bytes: [UInt8]) -> CGImage? {
    CGImage(width: width, height: height, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
            bytesPerRow: bytesPerRow ?? width * bitsPerPixel / 8, space: space, bitmapInfo: bitmapInfo,
            provider: CGDataProvider(data: Data(bytes) as CFData)!, decode: nil, shouldInterpolate: true,
            intent: .defaultIntent)
}

/// Straight-alpha RGBA gradient pixels: red across, green down, blue diagonal, alpha varying.
func gradientRGBA(width: Int, height: Int) -> [UInt8] {
    var px = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0 ..< height {
        for x in 0 ..< width {
            let i = (y * width + x) * 4
            px[i] = UInt8(x * 255 / max(width - 1, 1))
            px[i + 1] = UInt8(y * 255 / max(height - 1, 1))
            px[i + 2] = UInt8((x * 3 + y * 5) % 256)
            px[i + 3] = UInt8(255 - (x * 7 + y * 3) % 256)
        }
    }
    return px
}

/// Opaque RGB gradient pixels (3 bytes each).
func gradientRGB(width: Int, height: Int) -> [UInt8] {
    var px: [UInt8] = []
    for y in 0 ..< height {
        for x in 0 ..< width {
            px += [UInt8(x * 255 / max(width - 1, 1)), UInt8(y * 255 / max(height - 1, 1)), UInt8((x * 3 + y * 5) % 256)]
        }
    }
    return px
}

/// An image's pixels as packed RGBA8 (opaque layouts get alpha 255; grey is replicated).
func rgbaPixels(of image: CGImage) -> [UInt8] {
    guard let data = image.dataProvider?.data as Data? else { return [] }
    let bytes = [UInt8](data)
    let bpp = image.bitsPerPixel / 8
    var out: [UInt8] = []
    out.reserveCapacity(image.width * image.height * 4)
    for y in 0 ..< image.height {
        for x in 0 ..< image.width {
            let i = y * image.bytesPerRow + x * bpp
            switch bpp {
            case 1: out += [bytes[i], bytes[i], bytes[i], 255]
            case 2: out += [bytes[i], bytes[i], bytes[i], bytes[i + 1]]
            case 3: out += [bytes[i], bytes[i + 1], bytes[i + 2], 255]
            default:
                let a: UInt8 = image.alphaInfo == .last ? bytes[i + 3] : 255
                out += [bytes[i], bytes[i + 1], bytes[i + 2], a]
            }
        }
    }
    return out
}

/// PSNR in dB between two equally long byte arrays.
func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return 0 }
    var sum = 0.0
    for i in 0 ..< a.count {
        let d = Double(a[i]) - Double(b[i])
        sum += d * d
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

/// Encodes `image` as `type` into memory through CGImageDestination.
func encode(_ image: CGImage, type: String, properties: [String: Any]? = nil) -> Data? {
    let data = NSMutableData()
    guard let dest = CGImageDestinationCreateWithData(data as CFMutableData, type as CFString, 1, nil) else { return nil }
    CGImageDestinationAddImage(dest, image, properties.map { NSDictionary(dictionary: $0) })
    guard CGImageDestinationFinalize(dest) else { return nil }
    return data as Data
}
