// Sizes read from a file never make an image or a buffer far larger than the media (issue 24,
// item 7): a 480×272 H.264 track whose 'pasp' box claims pixels 684 times wider than tall made
// `avtool thumbnails` build two 328,320×272 images (357 MB each). The fixture is made here with
// the ffmpeg CLI and patched in memory; no media is committed.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite struct HostileSizeTests {
    /// A 2 s 480×272 H.264 MP4 whose pixel aspect ratio ('pasp' box) is set to `h`:`v`.
    static func movie(pasp h: UInt32, _ v: UInt32) throws -> URL {
        let source = try AssetFixtures.generate("source.mp4", [
            "-f", "lavfi", "-i", "testsrc=size=480x272:rate=25:duration=2", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        var bytes = [UInt8](try Data(contentsOf: source))
        let box = try #require(HostileMutator.boxes(bytes).first { $0.type == "pasp" }, "ffmpeg wrote no pasp box")
        HostileMutator.write32(&bytes, box.payload, h)
        HostileMutator.write32(&bytes, box.payload + 4, v)
        let url = source.deletingLastPathComponent().appendingPathComponent("pasp-\(h)-\(v).mp4")
        try Data(bytes).write(to: url)
        return url
    }

    /// The hostile ratio is dropped: the track's size, the generated images and the decoded
    /// buffers' display size are the decoded frame's 480×272, not 328,320×272.
    @Test func aHugePixelAspectRatioDoesNotWidenImages() async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let url = try Self.movie(pasp: 684, 1)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        #expect(try await track.load(.naturalSize) == CGSize(width: 480, height: 272))
        let format = try #require(try await track.load(.formatDescriptions).first)
        #expect(format.presentationDimensions() == CGSize(width: 480, height: 272))

        for mode in [AVAssetImageGenerator.ApertureMode.cleanAperture, .productionAperture, .encodedPixels] {
            let generator = AVAssetImageGenerator(asset: asset)
            generator.apertureMode = mode
            let image = try await generator.image(at: CMTime(value: 1, timescale: 1)).image
            #expect(image.width == 480 && image.height == 272, "\(mode.rawValue): \(image.width)×\(image.height)")
            // The memory the image holds is the frame's, not hundreds of times more.
            #expect(image.bytesPerRow * image.height <= 480 * 4 * 272 * 2, "\(image.bytesPerRow) × \(image.height) bytes")
        }

        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        reader.add(output)
        #expect(reader.startReading())
        let sample = try #require(output.copyNextSampleBuffer())
        let buffer = try #require(CMSampleBufferGetImageBuffer(sample))
        #expect(CVPixelBufferGetWidth(buffer) == 480 && CVPixelBufferGetHeight(buffer) == 272)
        #expect(CVImageBufferGetDisplaySize(buffer) == CGSize(width: 480, height: 272))
        reader.cancelReading()
    }

    /// A real ratio still counts: 4:3 pixels show a 480×272 frame 640 wide.
    @Test func aRealPixelAspectRatioStillWidensImages() async throws {
        guard AssetFixtures.hasFFmpeg else { Issue.record("ffmpeg is missing; run scripts/setup.sh"); return }
        let url = try Self.movie(pasp: 4, 3)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let asset = AVURLAsset(url: url)
        let track = try #require(try await asset.loadTracks(withMediaType: .video).first)
        #expect(try await track.load(.naturalSize) == CGSize(width: 640, height: 272))
        let image = try await AVAssetImageGenerator(asset: asset).image(at: .zero).image
        #expect(image.width == 640 && image.height == 272)
    }
}
