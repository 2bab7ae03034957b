// AVVideoCompositionCoreAnimationTool in the image generator, the video composition reader output
// and export: the book's A15/A17 title behaviour measured in the rendered frames (a title's
// keyframe fade at 0.5/1.3/1.6–3.4/4.0 s, AVCoreAnimationBeginTimeAtZero at frame 0, a begin time
// of 0 never seen, geometry flipping, a static watermark in every frame, a layer rotating about z,
// the additional-layer track) and an export judged by ffmpeg's own decode.
@testable import AVFoundation
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import QuartzCore
import Testing
import TestSupport

@Suite("Core Animation tool", .serialized)
struct CoreAnimationToolTests {
    typealias M = VideoCompositionMedia
    static let white = CGColor(red: 1, green: 1, blue: 1, alpha: 1)
    static let black = CGColor(red: 0, green: 0, blue: 0, alpha: 1)

    /// A red clip's first `seconds` as a one-track composition with a video composition over it.
    static func redComposition(seconds: Double = 5) async throws -> (AVAsset, AVMutableVideoComposition) {
        let asset = try await M.asset([[(M.clip("red"), M.range(0, seconds), M.range(0, seconds))]])
        let composition = try await AVMutableVideoComposition.videoComposition(withPropertiesOf: asset)
        composition.renderSize = CGSize(width: M.width, height: M.height)
        composition.frameDuration = M.frameDuration
        return (asset, composition)
    }

    /// The book's set-up: a parent and a video layer both covering the frame, the overlay added
    /// after the video layer.
    static func tool(overlay: CALayer, flipped: Bool = false) -> (AVVideoCompositionCoreAnimationTool, CALayer) {
        let parent = CALayer()
        let video = CALayer()
        parent.frame = CGRect(x: 0, y: 0, width: M.width, height: M.height)
        video.frame = parent.frame
        parent.addSublayer(video)
        parent.addSublayer(overlay)
        parent.isGeometryFlipped = flipped
        return (AVVideoCompositionCoreAnimationTool(postProcessingAsVideoLayer: video, in: parent), parent)
    }

    /// A white square of 200×200 centred in the frame.
    static func square() -> CALayer {
        let layer = CALayer()
        layer.frame = CGRect(x: 540, y: 260, width: 200, height: 200)
        layer.backgroundColor = white
        return layer
    }

    /// The frame at `seconds` through the image generator (exact times).
    static func frame(_ asset: AVAsset, _ composition: AVVideoComposition, at seconds: Double) async throws -> CGImage {
        let generator = AVAssetImageGenerator(asset: asset)
        generator.videoComposition = composition
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        return try await generator.image(at: M.t(seconds)).image
    }

    /// The A15 fade: opacity [0, 1, 1, 0] at key times [0, 0.2, 0.8, 1] from 1.0 s for 3 s.
    static func fade(begin: CFTimeInterval = 1.0, duration: CFTimeInterval = 3.0) -> CAKeyframeAnimation {
        let fade = CAKeyframeAnimation(keyPath: "opacity")
        fade.values = [0.0, 1.0, 1.0, 0.0]
        fade.keyTimes = [0, 0.2, 0.8, 1]
        fade.beginTime = begin
        fade.duration = duration
        fade.isRemovedOnCompletion = false
        return fade
    }

    /// The title's opacity seen in the middle of the square over red: the green channel (0 in
    /// red, 255 in white) over 255.
    static func opacity(_ image: CGImage) -> Double {
        Double(M.rgb(image, x: 640, y: 360)[1]) / 255
    }

    @Test func aKeyframeFadedTitleFollowsTheBooksTimes() async throws {
        let (asset, composition) = try await Self.redComposition()
        let title = CALayer()
        title.frame = CGRect(x: 0, y: 0, width: M.width, height: M.height)
        title.opacity = 0
        title.addSublayer(Self.square())
        title.add(Self.fade(), forKey: "fade")
        composition.animationTool = Self.tool(overlay: title).0
        let expected: [(Double, Double)] = [(0.5, 0), (1.3, 0.5), (1.6, 1), (2.5, 1), (3.4, 1), (4.2, 0)]
        for (t, want) in expected {
            let image = try await Self.frame(asset, composition, at: t)
            let seen = Self.opacity(image)
            #expect(abs(seen - want) <= 0.08, "opacity \(seen) at \(t) s, expected \(want)")
            // Outside the title the video shows unchanged.
            #expect(M.close(M.rgb(image, x: 100, y: 100), [255, 0, 0]))
        }
    }

    @Test func beginTimeAtZeroShowsAtTheFirstFrameWhileZeroMeansNow() async throws {
        let (asset, composition) = try await Self.redComposition(seconds: 2)
        let atZero = Self.square()
        atZero.opacity = 0
        let show = CABasicAnimation(keyPath: "opacity")
        show.fromValue = 1.0
        show.toValue = 1.0
        show.beginTime = AVCoreAnimationBeginTimeAtZero
        show.duration = 1
        show.isRemovedOnCompletion = false
        atZero.add(show, forKey: nil)
        let now = CALayer()
        now.frame = CGRect(x: 100, y: 100, width: 100, height: 100)
        now.backgroundColor = Self.white
        now.opacity = 0
        let late = CABasicAnimation(keyPath: "opacity")
        late.fromValue = 1.0
        late.toValue = 1.0
        late.beginTime = 0  // Core Animation makes this "now" on the host clock: never in the movie
        late.duration = 1
        late.isRemovedOnCompletion = false
        now.add(late, forKey: nil)
        let holder = CALayer()
        holder.frame = CGRect(x: 0, y: 0, width: M.width, height: M.height)
        holder.addSublayer(atZero)
        holder.addSublayer(now)
        composition.animationTool = Self.tool(overlay: holder).0
        let image = try await Self.frame(asset, composition, at: 0)
        #expect(M.close(M.rgb(image, x: 640, y: 360), [255, 255, 255]))
        #expect(M.close(M.rgb(image, x: 150, y: 720 - 150), [255, 0, 0]))
    }

    @Test func geometryFlippingLaysOutFromTheTop() async throws {
        let (asset, composition) = try await Self.redComposition(seconds: 1)
        let bar = CALayer()
        bar.frame = CGRect(x: 0, y: 0, width: M.width, height: 100)
        bar.backgroundColor = Self.white
        composition.animationTool = Self.tool(overlay: bar).0
        var image = try await Self.frame(asset, composition, at: 0.5)
        #expect(M.close(M.rgb(image, x: 640, y: 700), [255, 255, 255]))  // y up: the bar is at the bottom
        #expect(M.close(M.rgb(image, x: 640, y: 20), [255, 0, 0]))
        let flippedBar = CALayer()
        flippedBar.frame = bar.frame
        flippedBar.backgroundColor = Self.white
        composition.animationTool = Self.tool(overlay: flippedBar, flipped: true).0
        image = try await Self.frame(asset, composition, at: 0.5)
        #expect(M.close(M.rgb(image, x: 640, y: 20), [255, 255, 255]))  // flipped: at the top
        #expect(M.close(M.rgb(image, x: 640, y: 700), [255, 0, 0]))
    }

    @Test func aStaticWatermarkIsInEveryFrameOfTheReaderOutput() async throws {
        let (asset, composition) = try await Self.redComposition(seconds: 1)
        let mark = CALayer()
        mark.frame = CGRect(x: 1180, y: 20, width: 80, height: 40)
        mark.backgroundColor = Self.white
        composition.animationTool = Self.tool(overlay: mark).0
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderVideoCompositionOutput(videoTracks: try await asset.loadTracks(withMediaType: .video),
                                                         videoSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        output.videoComposition = composition
        reader.add(output)
        #expect(reader.startReading())
        var frames = 0
        while let sample = output.copyNextSampleBuffer() {
            let buffer = try #require(CMSampleBufferGetImageBuffer(sample))
            #expect(M.close(M.rgb(buffer, x: 1220, y: 680), [255, 255, 255]))
            #expect(M.close(M.rgb(buffer, x: 640, y: 360), [255, 0, 0]))
            frames += 1
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(frames == 30)
    }

    @Test func aLayerRotatingAboutZTurnsWithMovieTime() async throws {
        // A17: a bar from the centre to the right, turning 2π every 3 s, forever.
        let (asset, composition) = try await Self.redComposition(seconds: 4)
        let holder = CALayer()
        holder.frame = CGRect(x: 340, y: 60, width: 600, height: 600)
        let bar = CALayer()
        bar.frame = CGRect(x: 300, y: 290, width: 300, height: 20)
        bar.backgroundColor = Self.white
        holder.addSublayer(bar)
        let spin = CABasicAnimation(keyPath: "transform.rotation.z")
        spin.fromValue = 0.0
        spin.toValue = 2 * Double.pi
        spin.duration = 3
        spin.repeatCount = .greatestFiniteMagnitude
        spin.beginTime = AVCoreAnimationBeginTimeAtZero
        spin.isRemovedOnCompletion = false
        holder.add(spin, forKey: "spin")
        composition.animationTool = Self.tool(overlay: holder).0
        for (t, rightSide) in [(0.0, true), (1.5, false), (3.0, true)] {
            let image = try await Self.frame(asset, composition, at: t)
            let right = M.rgb(image, x: 640 + 200, y: 360), left = M.rgb(image, x: 640 - 200, y: 360)
            #expect(M.close(rightSide ? right : left, [255, 255, 255]), "at \(t) s")
            #expect(M.close(rightSide ? left : right, [255, 0, 0]), "at \(t) s")
        }
    }

    @Test func anAdditionalLayerIsATrackTheInstructionsShow() async throws {
        let (asset, composition) = try await Self.redComposition(seconds: 1)
        let trackID = asset.unusedTrackID()
        let overlay = Self.square()
        composition.animationTool = AVVideoCompositionCoreAnimationTool(additionalLayer: overlay, asTrackID: trackID)
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = CMTimeRange(start: .zero, duration: M.t(1))
        let layerOnTop = AVMutableVideoCompositionLayerInstruction()
        layerOnTop.trackID = trackID
        let video = AVMutableVideoCompositionLayerInstruction(assetTrack: try #require(try await asset.loadTracks(withMediaType: .video).first))
        instruction.layerInstructions = [layerOnTop, video]
        composition.instructions = [instruction]
        let image = try await Self.frame(asset, composition, at: 0.5)
        #expect(M.close(M.rgb(image, x: 640, y: 360), [255, 255, 255]))
        #expect(M.close(M.rgb(image, x: 100, y: 100), [255, 0, 0]))
    }

    @Test func hostileLayersNeitherCrashNorHangTheReader() async throws {
        // A 16k × 16k layer turned in perspective, a 100,000-point path, NaN and infinite
        // animation values, an unknown key path, an empty string and an unknown font: the
        // frames still come, and the video shows where nothing valid covers it.
        let (asset, composition) = try await Self.redComposition(seconds: 1)
        let holder = CALayer()
        holder.frame = CGRect(x: 0, y: 0, width: M.width, height: M.height)
        let huge = CALayer()
        huge.frame = CGRect(x: -8000, y: -8000, width: 16384, height: 16384)
        huge.backgroundColor = CGColor(red: 0, green: 0, blue: 1, alpha: 0.5)
        var perspective = CATransform3DIdentity
        perspective.m34 = -1 / 1000
        huge.transform = CATransform3DRotate(perspective, .pi / 2.2, 0, 1, 0)
        holder.addSublayer(huge)
        let scribble = CAShapeLayer()
        let path = CGMutablePath()
        path.move(to: .zero)
        for k in 1...100_000 { path.addLine(to: CGPoint(x: Double(k % 1280), y: Double((k * 7) % 720))) }
        scribble.path = path
        scribble.strokeColor = Self.white
        scribble.lineWidth = 0.5
        scribble.frame = CGRect(x: 0, y: 0, width: 10, height: 10)
        holder.addSublayer(scribble)
        let bad = CABasicAnimation(keyPath: "position.x")
        bad.toValue = Double.nan
        bad.duration = 1
        bad.beginTime = AVCoreAnimationBeginTimeAtZero
        scribble.add(bad, forKey: "nan")
        let unknown = CABasicAnimation(keyPath: "no.such.key")
        unknown.toValue = 3
        holder.add(unknown, forKey: nil)
        let infinite = CABasicAnimation(keyPath: "opacity")
        infinite.toValue = Double.infinity
        holder.add(infinite, forKey: nil)
        let empty = CATextLayer()
        empty.string = ""
        empty.frame = CGRect(x: 0, y: 0, width: 100, height: 100)
        holder.addSublayer(empty)
        let strange = CATextLayer()
        strange.string = "Fallback"
        strange.font = "NoSuchFont-Black" as CFTypeRef
        strange.frame = CGRect(x: 100, y: 600, width: 400, height: 80)
        holder.addSublayer(strange)
        composition.animationTool = Self.tool(overlay: holder).0
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderVideoCompositionOutput(videoTracks: try await asset.loadTracks(withMediaType: .video),
                                                         videoSettings: [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA])
        output.videoComposition = composition
        reader.add(output)
        #expect(reader.startReading())
        var frames = 0, inked = false
        while let sample = output.copyNextSampleBuffer() {
            frames += 1
            if frames == 15, let buffer = CMSampleBufferGetImageBuffer(sample) {
                // The fallback font drew white text somewhere in its box.
                for x in stride(from: 100, to: 500, by: 2) where M.rgb(buffer, x: x, y: 720 - 640).allSatisfy({ $0 > 200 }) {
                    inked = true
                }
                for y in stride(from: 720 - 680, to: 720 - 600, by: 2) where M.rgb(buffer, x: 200, y: y).allSatisfy({ $0 > 200 }) {
                    inked = true
                }
            }
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        #expect(frames == 30)
        #expect(inked, "the text in an unknown font drew nothing")
    }

    @Test func anExportCarriesTheTitleAsFfmpegDecodesIt() async throws {
        let (asset, composition) = try await Self.redComposition(seconds: 5)
        let title = CALayer()
        title.frame = CGRect(x: 0, y: 0, width: M.width, height: M.height)
        title.opacity = 0
        title.addSublayer(Self.square())
        title.add(Self.fade(), forKey: "fade")
        composition.animationTool = Self.tool(overlay: title).0
        let url = M.dir.appendingPathComponent("title-export-\(UUID().uuidString).mp4")
        let export = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPreset1280x720))
        export.videoComposition = composition
        try await export.export(to: url, as: .mp4)
        for (t, want) in [(0.5, 0.0), (1.3, 0.5), (2.5, 1.0), (4.5, 0.0)] {
            let rgb = M.ffmpegRGB(url, at: t, x: 640, y: 360)
            #expect(rgb.count == 3 && abs(Double(rgb[1]) / 255 - want) <= 0.08, "\(rgb) at \(t) s")
        }
        try? FileManager.default.removeItem(at: url)
    }
}
