// A movie of one, two or three HEVC pictures is always written (issue 24, item 6). libx265 takes
// its decode times from the picture its B-frame delay waits for, which an encode of fewer
// pictures never sends: the decode times were whatever its memory held, and the muxer refused
// one write in five or so ("pts/dts pair unsupported"). The encoder's packets now get the decode
// times it means when its own are impossible.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite struct AssetWriterShortHEVCTests {
    @Test(arguments: [1, 2, 3], [Int32(30), 600])
    func aFewHEVCPicturesAreAlwaysWritten(count: Int, fps: Int32) async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        // Several times: whether the decode times were garbage depended on the heap.
        for round in 0 ..< 6 {
            let settings: [String: Any] = [AVVideoCodecKey: AVVideoCodecType.hevc, AVVideoWidthKey: 160, AVVideoHeightKey: 120]
            let url = try WriterFixtures.outputURL("hevc-\(count)-\(fps)-\(round).mov")
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let writer = try await WriterFixtures.writeFrames(to: url, fileType: .mov, settings: settings, count: count,
                                                              width: 160, height: 120, fps: fps)
            #expect(writer.status == .completed, "\(count) pictures at \(fps) fps: \(String(describing: writer.error))")
            guard writer.status == .completed else { continue }
            let stream = try WriterFixtures.stream(url)
            #expect(stream["codec_name"] == "hevc")
            #expect(stream["nb_frames"] == "\(count)", "\(stream)")
        }
    }
}
