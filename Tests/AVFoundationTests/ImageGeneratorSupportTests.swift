import AVFoundation
import Foundation
import Testing
import TestSupport

/// Test media for the image generator, made once per process in a temporary directory with the
/// ffmpeg CLI (a test tool here, never part of the library).
enum GeneratorMedia {
    static let dir: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("imagegen-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// 12 s, 30 fps, 320×240 H.264 MP4 with B-frames (3, pyramid) and 48-frame GOPs; each
    /// frame shows its own number as 16 blocks 20 px wide in the top 32 rows (block k white
    /// when bit k is set).
    static let numbered: URL = {
        let url = dir.appendingPathComponent("numbered.mp4")
        ffmpeg(TestTools.numberedVideoArguments + [url.path])
        return url
    }()

    /// The numbered video with a 90° rotation in its track matrix (stream copy).
    static let rotated: URL = {
        let url = dir.appendingPathComponent("rotated.mp4")
        ffmpeg(["-i", numbered.path, "-c", "copy", "-metadata:s:v:0", "rotate=90", url.path])
        return url
    }()

    /// A 2 s AAC-only M4A.
    static let audioOnly: URL = {
        let url = dir.appendingPathComponent("audio.m4a")
        ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:a", "aac", url.path])
        return url
    }()

    /// The numbered video cut off at 40% of its bytes.
    static let truncated: URL = {
        let url = dir.appendingPathComponent("truncated.mp4")
        let data = try! Data(contentsOf: numbered)
        try! data.prefix(data.count * 2 / 5).write(to: url)
        return url
    }()

    /// The numbered video with its middle third overwritten by noise (the moov atom is at the
    /// end, untouched, so the file opens and its index is whole).
    static let corrupted: URL = {
        let url = dir.appendingPathComponent("corrupted.mp4")
        var data = try! Data(contentsOf: numbered)
        var rng = SystemRandomNumberGenerator()
        for i in data.count / 3 ..< data.count / 2 { data[i] = UInt8.random(in: 0 ... 255, using: &rng) }
        try! data.write(to: url)
        return url
    }()

    /// 4 KB of text named .mp4.
    static let garbage: URL = {
        let url = dir.appendingPathComponent("garbage.mp4")
        try! Data(String(repeating: "not a movie ", count: 400).utf8).write(to: url)
        return url
    }()

    static let fixtures = TestTools.root.appendingPathComponent(".cache/fixtures")

    /// Runs the ffmpeg CLI quietly; returns its standard output.
    @discardableResult
    static func ffmpeg(_ args: [String], tool: String = "ffmpeg") -> Data {
        (try? TestTools.run(tool, ["-v", "error"] + (tool == "ffmpeg" ? ["-nostdin", "-y"] : []) + args).output) ?? Data()
    }

    /// The time of frame `n` of the numbered video.
    static func time(_ n: Int) -> CMTime { CMTime(value: Int64(n) * 512, timescale: 15360) }

    /// The frame number shown by an image of the numbered video (any size, as encoded).
    static func number(in image: CGImage) -> Int {
        let sx = Double(image.width) / 320, sy = Double(image.height) / 240
        return decodeBits({ k in (Int((Double(k * 20) + 10) * sx), Int(16 * sy)) }, in: image)
    }

    /// Reads 16 bits at the given pixel positions (green channel of BGRA > 128).
    static func decodeBits(_ position: (Int) -> (Int, Int), in image: CGImage) -> Int {
        let bytes = image.dataProvider!.data! as Data
        var n = 0
        for k in 0 ..< 16 {
            let (x, y) = position(k)
            if bytes[y * image.bytesPerRow + x * 4 + 1] > 128 { n |= 1 << k }
        }
        return n
    }
}
