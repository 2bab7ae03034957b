// A damaged corpus derived from a real file — truncations, bit flips, zeroed ranges and hostile
// MP4 box sizes — through the asset API and `avtool info`: each gives an AVError or honest
// partial information, in bounded time, without touching the input's bytes.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite("Damaged files")
struct DamagedFileTests {
    /// Builds the corpus from bikes.mp4 (ftyp, free, mdat, moov at the end).
    static func corpus() throws -> [(name: String, url: URL)]? {
        guard let source = AssetFixtures.fixture("bikes.mp4") else { return nil }
        let bytes = [UInt8](try Data(contentsOf: source))
        let dir = try AssetFixtures.tempDirectory()
        var files: [(String, [UInt8])] = []
        for fraction in [0.001, 0.1, 0.5, 0.99, 0.998] {
            files.append(("truncated-\(fraction)", Array(bytes.prefix(Int(Double(bytes.count) * fraction)))))
        }
        var flipped = bytes
        for i in stride(from: 200, to: flipped.count, by: 997) { flipped[i] ^= 0xFF }
        files.append(("bitflipped", flipped))
        // Find the movie box.
        var moov = 0, offset = 0
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == "moov" { moov = offset; break }
            guard size >= 8 else { break }
            offset += size
        }
        precondition(moov > 0, "bikes.mp4 has a moov box")
        var zeroedMoov = bytes
        for i in (moov + 200)..<min(bytes.count, moov + 1200) { zeroedMoov[i] = 0 }
        files.append(("zeroed-moov-range", zeroedMoov))
        var zeroedMedia = bytes
        for i in 10_000..<200_000 { zeroedMedia[i] = 0 }
        files.append(("zeroed-media-range", zeroedMedia))
        func withSize(at position: Int, _ size: UInt32, _ base: [UInt8]) -> [UInt8] {
            var b = base
            b[position] = UInt8(size >> 24); b[position + 1] = UInt8(size >> 16 & 0xFF)
            b[position + 2] = UInt8(size >> 8 & 0xFF); b[position + 3] = UInt8(size & 0xFF)
            return b
        }
        files.append(("moov-size-ffffffff", withSize(at: moov, 0xFFFF_FFFF, bytes)))
        files.append(("moov-size-4", withSize(at: moov, 4, bytes)))
        files.append(("moov-size-0", withSize(at: moov, 0, bytes)))
        // The first child of moov (mvhd) claims to be larger than moov itself.
        files.append(("child-larger-than-parent", withSize(at: moov + 8, 0x00FF_FFFF, bytes)))
        files.append(("child-size-3", withSize(at: moov + 8, 3, bytes)))
        files.append(("mdat-size-ffffffff", withSize(at: 40, 0xFFFF_FFFF, bytes)))
        return try files.map { name, data in
            let url = dir.appendingPathComponent("\(name).mp4")
            try Data(data).write(to: url)
            return (name, url)
        }
    }

    private static func digest(_ url: URL) throws -> Int {
        var hasher = Hasher()
        hasher.combine(try Data(contentsOf: url))
        return hasher.finalize()
    }

    @Test("through the asset API: an AVError or partial facts within 30 s, input unchanged")
    func throughAPI() throws {
        guard let files = try Self.corpus() else { return }
        for (name, url) in files {
            let before = try Self.digest(url)
            let asset = AVURLAsset(url: url)
            let done = DispatchSemaphore(value: 0)
            let started = Date()
            asset.loadValuesAsynchronously(forKeys: ["duration", "tracks", "playable"]) { done.signal() }
            guard done.wait(timeout: .now() + 30) == .success else {
                Issue.record("\(name): loading did not finish within 30 s"); continue
            }
            var error: NSError?
            switch asset.statusOfValue(forKey: "tracks", error: &error) {
            case .loaded:
                // Partial information must still be self-consistent; sample scans must terminate.
                for track in asset.tracks {
                    #expect(track.totalSampleDataLength >= 0, "\(name)")
                    _ = track.minFrameDuration
                    _ = track.requiresFrameReordering
                    _ = track.samplePresentationTime(forTrackTime: CMTime(value: 1, timescale: 1))
                }
                let duration = asset.duration
                #expect(!duration.isValid || duration.seconds >= 0, "\(name)")
            case .failed:
                let e = try #require(error, "\(name)")
                #expect(e.domain == AVFoundationErrorDomain, "\(name): \(e)")
                #expect([-11828, -11829].contains(e.code), "\(name): \(e.code)")
            default:
                Issue.record("\(name): unexpected status")
            }
            #expect(Date().timeIntervalSince(started) < 30, "\(name)")
            #expect(try Self.digest(url) == before, "\(name): input modified")
        }
    }

    @Test("through avtool info: exit 0 with facts or 1 with the AVError, never a crash")
    func throughTool() throws {
        let tool = AssetFixtures.root.appendingPathComponent(".build/debug/avtool")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            Issue.record("avtool is not built (swift build --build-tests builds it)"); return
        }
        guard let files = try Self.corpus() else { return }
        for (name, url) in files {
            let before = try Self.digest(url)
            let run = try TestTools.run(tool, ["info", "--json", url.path], deadline: 60, keepingOutput: false)
            if !run.finished { Issue.record("\(name): avtool info did not finish"); continue }
            #expect(run.exited, "\(name): crashed")
            #expect([0, 1].contains(run.status), "\(name): status \(run.status)")
            if run.status == 1 { #expect(run.errors.contains("AVFoundationErrorDomain"), "\(name): \(run.errors)") }
            #expect(try Self.digest(url) == before, "\(name): input modified")
        }
    }
}
