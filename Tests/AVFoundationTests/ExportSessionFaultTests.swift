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
        // Once the export has written its first samples (reading is paced by the encoder, far
        // from the middle of the file), cut the source in half. A thread of its own watches, so
        // a busy Swift concurrency pool cannot delay the cut.
        let seenProgress = ValueLog()
        let cut = DispatchSemaphore(value: 0)
        let watcher = Thread {
            var polls = 0
            while session.progress == 0, session.status != .failed, session.status != .completed, polls < 120_000 {
                usleep(500)
                polls += 1
            }
            seenProgress.append(session.status == .exporting ? session.progress : -1)
            _ = truncate(source.path, off_t(size / 2))
            cut.signal()
        }
        let done = DispatchSemaphore(value: 0)
        // The watcher runs before the export starts, so it cannot begin watching after the
        // export has already gone past the point it waits for.
        watcher.start()
        session.exportAsynchronously {
            ended.increment()
            done.signal()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                cut.wait()
                continuation.resume()
            }
        }
        let progressAtCut = try #require(seenProgress.values.first)
        #expect(progressAtCut > 0 && progressAtCut < 0.3, "progress \(progressAtCut) when the source was cut (-1: not exporting)")
        // Deadline: the export must end within 60 s of the cut (it takes a few seconds uncut).
        let endedInTime = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: done.wait(timeout: .now() + 60) == .success)
            }
        }
        if !endedInTime {
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
