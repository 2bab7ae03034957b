// A passthrough export session never offers a file type its muxer then refuses (issue 24, item
// 6): MP3 audio was offered .m4a (FFmpeg's ipod muxer has no sample entry for it, so the export
// failed writing the header), HEVC video .3gp. Every offered type must export.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite struct ExportOfferedTypesTests {
    static func exportEveryOfferedType(_ source: URL) async throws -> [AVFileType] {
        let asset = AVURLAsset(url: source)
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough))
        let offered = await session.compatibleFileTypes
        #expect(offered == session.supportedFileTypes)
        #expect(!offered.isEmpty)
        let work = try AssetFixtures.tempDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        for type in offered {
            #expect(await AVAssetExportSession.compatibility(ofExportPreset: AVAssetExportPresetPassthrough, with: asset, outputFileType: type))
            let out = work.appendingPathComponent("out-\(type.rawValue)")
            let export = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetPassthrough))
            do {
                try await export.export(to: out, as: type)
            } catch {
                Issue.record("\(type.rawValue) was offered for \(source.lastPathComponent) but failed: \(error)")
            }
        }
        return offered
    }

    @Test func mp3AudioIsOfferedOnlyContainersThatTakeIt() async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let mp3 = try AssetFixtures.generate("tone.mp3", ["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "libmp3lame", "-b:a", "64k"])
        defer { try? FileManager.default.removeItem(at: mp3.deletingLastPathComponent()) }
        let offered = try await Self.exportEveryOfferedType(mp3)
        #expect(!offered.contains(.m4a), "\(offered)")
        #expect(offered.contains(.mov) && offered.contains(.mp4), "\(offered)")
    }

    @Test func hevcVideoIsOfferedOnlyContainersThatTakeIt() async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let hevc = try AssetFixtures.generate("hevc.mp4", ["-f", "lavfi", "-i", "testsrc=size=64x48:rate=10:duration=1",
                                                           "-c:v", "libx265", "-x265-params", "log-level=none", "-tag:v", "hvc1", "-pix_fmt", "yuv420p"])
        defer { try? FileManager.default.removeItem(at: hevc.deletingLastPathComponent()) }
        let offered = try await Self.exportEveryOfferedType(hevc)
        #expect(!offered.contains(.mobile3GPP) && !offered.contains(.mobile3GPP2), "\(offered)")
        #expect(offered.contains(.mov) && offered.contains(.mp4), "\(offered)")
    }
}
