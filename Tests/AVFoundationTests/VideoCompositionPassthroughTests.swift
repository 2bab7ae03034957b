// A passthrough instruction (one opaque, untransformed layer) over a source smaller than the
// render size: Apple draws the source at its own size, top-left, over the background — the
// frame is passed through only when it already is the render size.
import AVFoundation
import Foundation
import Testing
import TestSupport

@Suite struct VideoCompositionPassthroughTests {
    private typealias M = VideoCompositionMedia

    /// A 2 s red 320×240 clip in a composition, and a 640×480 video composition whose one
    /// instruction shows it untouched (a passthrough instruction).
    /// The clip, made once (a static let: tests running side by side never see it half-written).
    static let smallRed: URL = {
        let url = M.dir.appendingPathComponent("red-320x240.mp4")
        _ = M.ffmpeg(["-y", "-f", "lavfi", "-i", "color=c=0xFF0000:s=320x240:r=30:d=2",
                      "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-colorspace", "bt709",
                      "-color_primaries", "bt709", "-color_trc", "bt709", "-c:v", "libx264", "-preset", "ultrafast", url.path])
        return url
    }()

    static func smallRedComposition() async throws -> (AVMutableComposition, AVMutableVideoComposition, CMPersistentTrackID) {
        let source = try await M.videoTrack(Self.smallRed)
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid))
        try track.insertTimeRange(CMTimeRange(start: .zero, duration: CMTime(value: 2, timescale: 1)), of: source, at: .zero)
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = CMTimeRange(start: .zero, duration: CMTime(value: 2, timescale: 1))
        instruction.layerInstructions = [AVMutableVideoCompositionLayerInstruction(assetTrack: track)]
        let video = AVMutableVideoComposition()
        video.renderSize = CGSize(width: 640, height: 480)
        video.frameDuration = CMTime(value: 1, timescale: 30)
        video.instructions = [instruction]
        return (composition, video, track.trackID)
    }

    @Test func theReaderDrawsASmallerSourceAtItsSizeOverTheBackground() async throws {
        let (composition, video, trackID) = try await Self.smallRedComposition()
        #expect((video.instructions.first as? AVVideoCompositionInstruction)?.passthroughTrackID == trackID)
        let reader = try AVAssetReader(asset: composition)
        let output = AVAssetReaderVideoCompositionOutput(videoTracks: composition.tracks(withMediaType: .video),
                                                         videoSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        output.videoComposition = video
        reader.add(output)
        #expect(reader.startReading())
        var frames = 0
        while let sample = output.copyNextSampleBuffer() {
            let buffer = try #require(CMSampleBufferGetImageBuffer(sample))
            #expect(CVPixelBufferGetWidth(buffer) == 640 && CVPixelBufferGetHeight(buffer) == 480)
            if frames == 0 {
                #expect(M.close(M.rgb(buffer, x: 20, y: 20), [255, 0, 0]), "\(M.rgb(buffer, x: 20, y: 20))")
                #expect(M.close(M.rgb(buffer, x: 300, y: 220), [255, 0, 0]))
                #expect(M.close(M.rgb(buffer, x: 330, y: 20), [0, 0, 0]), "right of the source: \(M.rgb(buffer, x: 330, y: 20))")
                #expect(M.close(M.rgb(buffer, x: 600, y: 440), [0, 0, 0]))
            }
            frames += 1
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(frames == 60)
    }

    @Test func theImageGeneratorMakesRenderSizeImages() async throws {
        let (composition, video, _) = try await Self.smallRedComposition()
        let generator = AVAssetImageGenerator(asset: composition)
        generator.videoComposition = video
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let image = try generator.copyCGImage(at: CMTime(value: 1, timescale: 1), actualTime: nil)
        #expect(image.width == 640 && image.height == 480)
        #expect(M.close(M.rgb(image, x: 20, y: 20), [255, 0, 0]))
        #expect(M.close(M.rgb(image, x: 600, y: 440), [0, 0, 0]))
    }
}
