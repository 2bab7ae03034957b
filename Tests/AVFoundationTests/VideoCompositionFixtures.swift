// Fixtures and judges for the video composition tests: solid red, green and blue 1280×720 30 fps
// H.264 clips (timescale 600) made with the ffmpeg CLI, assets of tracks made of their segments,
// and pixel probes of pixel buffers, CGImages and ffmpeg's decode of a written file.
@testable import AVFoundation
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Testing
import TestSupport

enum VideoCompositionMedia {
    static let width = 1280, height = 720
    static let frameDuration = CMTime(value: 1, timescale: 30)
    static let dir: URL = try! AssetFixtures.tempDirectory()

    /// The pure colours the clips are made of.
    static let hex = ["red": "0xFF0000", "green": "0x00FF00", "blue": "0x0000FF"]

    /// A `seconds`-long clip of one pure colour ("red", "green", "blue"), made once: H.264,
    /// BT.709 (converted and tagged so), timescale 600, a keyframe a second.
    static func clip(_ colour: String, seconds: Int = 5) -> URL {
        let url = dir.appendingPathComponent("\(colour)-\(seconds)s.mp4")
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = ffmpeg(["-y", "-f", "lavfi", "-i", "color=c=\(hex[colour] ?? colour):s=\(width)x\(height):r=30:d=\(seconds)",
                        "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                        "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-video_track_timescale", "600", url.path])
        }
        return url
    }

    /// Runs ffmpeg and returns its standard output.
    static func ffmpeg(_ args: [String]) -> Data {
        (try? TestTools.run("/usr/bin/ffmpeg", ["-v", "error", "-nostdin"] + args).output) ?? Data()
    }

    static func t(_ seconds: Double) -> CMTime { CMTime(value: Int64((seconds * 600).rounded()), timescale: 600) }
    static func range(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: t(start), end: t(end)) }

    /// The first video track of a file.
    static func videoTrack(_ url: URL) async throws -> AVAssetTrack {
        try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .video).first)
    }

    /// An asset of video tracks made of segments: for each track, (file, source range, target
    /// range) triples; the gaps between them are empty segments.
    static func asset(_ tracks: [[(URL, CMTimeRange, CMTimeRange)]]) async throws -> AVAsset {
        var made: [(trackID: CMPersistentTrackID, segments: [MediaSegment])] = []
        for (i, pieces) in tracks.enumerated() {
            var segments: [MediaSegment] = []
            var cursor = CMTime.zero
            for (url, source, target) in pieces {
                if target.start > cursor { segments.append(MediaSegment(emptyTargetRange: CMTimeRange(start: cursor, end: target.start))) }
                segments.append(MediaSegment(fileTrack: try await videoTrack(url), sourceRange: source, targetRange: target))
                cursor = target.end
            }
            made.append((CMPersistentTrackID(i + 1), segments))
        }
        return AVAsset(segmentedTracks: made)
    }

    /// The B, G, R, A bytes of the pixel at (x, y) of a BGRA buffer.
    static func pixel(_ buffer: CVPixelBuffer, x: Int, y: Int) -> [Int] {
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return [] }
        let p = base.advanced(by: y * CVPixelBufferGetBytesPerRow(buffer) + x * 4).assumingMemoryBound(to: UInt8.self)
        return (0..<4).map { Int(p[$0]) }
    }

    /// R, G, B of the pixel at (x, y) of a BGRA buffer.
    static func rgb(_ buffer: CVPixelBuffer, x: Int, y: Int) -> [Int] {
        let bgra = pixel(buffer, x: x, y: y)
        return bgra.count == 4 ? [bgra[2], bgra[1], bgra[0]] : []
    }

    /// R, G, B of the pixel at (x, y) of an image (BGRX/BGRA as the generator makes them).
    static func rgb(_ image: CGImage, x: Int, y: Int) -> [Int] {
        guard let data = image.dataProvider?.data as Data? else { return [] }
        let offset = y * image.bytesPerRow + x * 4
        return [Int(data[offset + 2]), Int(data[offset + 1]), Int(data[offset])]
    }

    /// R, G, B of pixel (x, y) of the frame at `seconds` of a file, as ffmpeg decodes it.
    static func ffmpegRGB(_ url: URL, at seconds: Double, x: Int, y: Int) -> [Int] {
        let data = ffmpeg(["-ss", String(seconds), "-i", url.path, "-frames:v", "1",
                           "-vf", "crop=2:2:\(x & ~1):\(y & ~1),scale=in_color_matrix=bt709:in_range=tv,format=rgb24",
                           "-f", "rawvideo", "-"])
        return data.count >= 3 ? [Int(data[0]), Int(data[1]), Int(data[2])] : []
    }

    /// Whether `rgb` is within ±`tolerance` of `expected`, channel by channel.
    static func close(_ rgb: [Int], _ expected: [Int], _ tolerance: Int = 8) -> Bool {
        rgb.count == 3 && zip(rgb, expected).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// Fills a BGRA buffer with one colour (through Core Graphics, which fills with pixman).
    static func fill(_ buffer: CVPixelBuffer, red: Int, green: Int, blue: Int) {
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        let context = CGContext(data: CVPixelBufferGetBaseAddress(buffer), width: CVPixelBufferGetWidth(buffer),
                                height: CVPixelBufferGetHeight(buffer), bitsPerComponent: 8,
                                bytesPerRow: CVPixelBufferGetBytesPerRow(buffer), space: CGColorSpaceCreateDeviceRGB(),
                                bitmapInfo: CGBitmapInfo.byteOrder32Little.rawValue | CGImageAlphaInfo.premultipliedFirst.rawValue)
        context?.setFillColor(red: CGFloat(red) / 255, green: CGFloat(green) / 255, blue: CGFloat(blue) / 255, alpha: 1)
        context?.fill(CGRect(x: 0, y: 0, width: CVPixelBufferGetWidth(buffer), height: CVPixelBufferGetHeight(buffer)))
    }
}
