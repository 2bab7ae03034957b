// Overlay exporters as tutorials and apps write them: a composition of the clip, a video
// composition made with `AVMutableVideoComposition(propertiesOf:)`, a parent layer holding the
// video layer and an overlay (a CATextLayer subtitle with a font named by a string, a watermark
// layer, a fading title with an AVCoreAnimationBeginTimeAtZero-relative animation), wired with
// AVVideoCompositionCoreAnimationTool(postProcessingAsVideoLayer:in:), exported with a preset.
import AVFoundation

enum TitleOverlay {
    static func run(_ source: URL, output: URL) throws {
        let asset = AVURLAsset(url: source)
        guard let videoTrack = asset.tracks(withMediaType: .video).first else {
            print("overlay: no video track")
            return
        }
        let composition = AVMutableComposition()
        guard let track = composition.addMutableTrack(withMediaType: .video, preferredTrackID: kCMPersistentTrackID_Invalid) else {
            return
        }
        try track.insertTimeRange(CMTimeRangeMake(start: .zero, duration: asset.duration), of: videoTrack, at: .zero)
        let size = videoTrack.naturalSize

        // 1 - the subtitle, a string font name as CFTypeRef
        let subtitle = CATextLayer()
        subtitle.font = "Helvetica-Bold" as CFTypeRef
        subtitle.fontSize = 36
        subtitle.frame = CGRect(x: 0, y: 0, width: size.width, height: 60)
        subtitle.string = "Hello, Linux"
        subtitle.alignmentMode = .center
        subtitle.foregroundColor = CGColor(red: 1, green: 1, blue: 1, alpha: 1)

        // 2 - a watermark in the top-right corner (y up: near the top is near size.height)
        let watermark = CALayer()
        watermark.frame = CGRect(x: size.width - 50, y: size.height - 50, width: 40, height: 40)
        watermark.backgroundColor = CGColor(red: 0, green: 0, blue: 1, alpha: 1)
        watermark.opacity = 1

        // 3 - a title that fades in over the first second and stays
        let title = CALayer()
        title.frame = CGRect(x: size.width / 2 - 30, y: size.height / 2 - 30, width: 60, height: 60)
        title.backgroundColor = CGColor(red: 1, green: 1, blue: 0, alpha: 1)
        title.opacity = 0
        let fadeIn = CABasicAnimation(keyPath: "opacity")
        fadeIn.fromValue = 0.0
        fadeIn.toValue = 1.0
        fadeIn.beginTime = AVCoreAnimationBeginTimeAtZero
        fadeIn.duration = 1.0
        fadeIn.fillMode = .forwards
        fadeIn.isRemovedOnCompletion = false
        fadeIn.timingFunction = CAMediaTimingFunction(name: .linear)
        title.add(fadeIn, forKey: "fadeIn")

        let overlayLayer = CALayer()
        overlayLayer.addSublayer(subtitle)
        overlayLayer.addSublayer(watermark)
        overlayLayer.addSublayer(title)
        overlayLayer.frame = CGRect(x: 0, y: 0, width: size.width, height: size.height)
        overlayLayer.masksToBounds = true

        let parentLayer = CALayer()
        let videoLayer = CALayer()
        parentLayer.frame = CGRect(x: 0, y: 0, width: size.width, height: size.height)
        videoLayer.frame = CGRect(x: 0, y: 0, width: size.width, height: size.height)
        parentLayer.addSublayer(videoLayer)
        parentLayer.addSublayer(overlayLayer)

        let videoComposition = AVMutableVideoComposition(propertiesOf: composition)
        videoComposition.renderSize = size
        videoComposition.frameDuration = CMTimeMake(value: 1, timescale: 30)
        videoComposition.animationTool = AVVideoCompositionCoreAnimationTool(postProcessingAsVideoLayer: videoLayer, in: parentLayer)

        guard let exporter = AVAssetExportSession(asset: composition, presetName: AVAssetExportPresetHighestQuality) else { return }
        exporter.outputURL = output
        exporter.outputFileType = .mp4
        exporter.videoComposition = videoComposition
        let done = DispatchSemaphore(value: 0)
        exporter.exportAsynchronously { done.signal() }
        done.wait()
        print("overlay: status=\(exporter.status == .completed ? "completed" : "\(exporter.status.rawValue) \(String(describing: exporter.error))")")
    }
}
