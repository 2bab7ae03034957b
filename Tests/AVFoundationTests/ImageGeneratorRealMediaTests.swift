import AVFoundation
import Foundation
import Testing

@Suite("AVAssetImageGenerator on real media")
struct ImageGeneratorRealMediaTests {
    /// Frame `n` (presentation order) of `name`, exactly, against ffmpeg's decode of the same
    /// frame converted with the same swscale settings: per channel at most a few levels apart.
    /// Both files are untagged; like Core Video, the engine reads untagged pictures of 720 lines
    /// or more as BT.709 (ffmpeg's default is BT.601), so ffmpeg is told the matrix for those.
    @Test("exact frames match ffmpeg's own decode", arguments: [
        ("bigbuckbunny.mp4", [0, 37, 64, 100, 131]),
        ("bikes.mp4", [0, 1, 55, 149, 248, 249]),
    ])
    func matchesFFmpeg(name: String, frames: [Int]) throws {
        let url = GeneratorMedia.fixtures.appendingPathComponent(name)
        try #require(FileManager.default.fileExists(atPath: url.path), "run scripts/setup.sh to fetch \(name)")
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        for n in frames.shuffled() {
            // Both files are 25 fps in time base 1/12800: frame n starts at n × 512.
            let time = CMTime(value: Int64(n) * 512, timescale: 12800)
            var actual = CMTime.invalid
            let image = try generator.copyCGImage(at: CMTimeAdd(time, CMTime(value: 1, timescale: 1000)), actualTime: &actual)
            #expect(actual == time)
            let matrix = image.height >= 720 ? ",scale=in_color_matrix=bt709" : ""
            let reference = GeneratorMedia.ffmpeg(["-i", url.path, "-vf", "select=eq(n\\,\(n))\(matrix)", "-frames:v", "1",
                                                   "-sws_flags", "bicubic+accurate_rnd+full_chroma_int+full_chroma_inp",
                                                   "-f", "rawvideo", "-pix_fmt", "bgra", "-"])
            let ours = image.dataProvider!.data! as Data
            try #require(reference.count == image.width * image.height * 4, "ffmpeg gave \(reference.count) bytes")
            var worst = 0, total = 0
            for i in stride(from: 0, to: reference.count, by: 4) {
                for c in 0 ..< 3 {
                    let d = abs(Int(ours[i + c]) - Int(reference[i + c]))
                    worst = max(worst, d)
                    total += d
                }
            }
            let mean = Double(total) / Double(reference.count / 4 * 3)
            #expect(worst <= 4, "\(name) frame \(n): worst channel difference \(worst)")
            #expect(mean <= 0.5, "\(name) frame \(n): mean difference \(mean)")
        }
    }
}
