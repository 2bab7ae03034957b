// AVAssetExportSession when the source goes bad while exporting: it ends `.failed` with an
// AVError, leaves no output and never hangs.
import AVFoundation
import Foundation
import Testing

@Suite(.serialized) struct ExportSessionFaultTests {
    /// 8 s of 1280×720 H.264 + AAC, movie header first (so a truncation cuts media, not the header).
    static let longSource: URL? = try? AssetFixtures.generate("long.mp4", [
        "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=8",
        "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=48000:duration=8",
        "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", "-movflags", "+faststart",
    ])

    @Test func aSourceTruncatedWhileExportingFailsWithNoOutputAndNoHang() async throws {
        let original = try #require(Self.longSource)
        let directory = try AssetFixtures.tempDirectory()
        let source = directory.appendingPathComponent("source.mp4")
        try FileManager.default.copyItem(at: original, to: source)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int)
        let out = directory.appendingPathComponent("out.mp4")
        let session = try #require(AVAssetExportSession(asset: AVURLAsset(url: source), presetName: AVAssetExportPreset640x480))
        session.outputURL = out
        session.outputFileType = .mp4
        let ended = CallCounter()
        session.exportAsynchronously { ended.increment() }
        // Once the export has written its first samples (reading is paced by the encoder, far
        // from the middle of the file), cut the source in half.
        var waited = 0
        while session.progress == 0, session.status != .failed, session.status != .completed, waited < 60_000 {
            try await Task.sleep(nanoseconds: 1_000_000)
            waited += 1
        }
        #expect(session.status == .exporting)
        #expect(session.progress < 0.3, "progress \(session.progress) before truncating")
        #expect(truncate(source.path, off_t(size / 2)) == 0)
        // Deadline: the export must end within 60 s (it takes a few seconds uncut).
        waited = 0
        while ended.count == 0, waited < 600 {
            try await Task.sleep(nanoseconds: 100_000_000)
            waited += 1
        }
        if ended.count == 0 {
            session.cancelExport()
            Issue.record("the export did not end within 60 s of the truncation")
            return
        }
        #expect(ended.count == 1)
        #expect(session.status == .failed)
        let error = try #require(session.error as NSError?)
        #expect(error.domain == AVFoundationErrorDomain)
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers == ["source.mp4"], "\(leftovers)")
    }
}
