// DebugClient TASK ARGS…: runs one task the way a user's program would and prints its time in
// seconds on standard output. Tasks:
//   decode MOVIE                 every frame of the first video track as 32BGRA (AVAssetReader)
//   thumbnails MOVIE             ten exact frames (AVAssetImageGenerator, zero tolerance)
//   images-to-movie DIR OUT      every image file in DIR (sorted), drawn with CGContext into
//                                1280×720 buffers from the adaptor's pool, written as H.264
//   export MOVIE OUT             AVAssetExportSession, AVAssetExportPreset640x480, MP4
import AVFoundation
import Foundation
import ImageIO

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("DebugClient: \(message)\n".utf8))
    exit(1)
}

func decode(_ url: URL) throws -> Int {
    let asset = AVURLAsset(url: url)
    guard let track = asset.tracks(withMediaType: .video).first else { fail("no video track") }
    let reader = try AVAssetReader(asset: asset)
    let output = AVAssetReaderTrackOutput(track: track, outputSettings: [
        kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
    ])
    reader.add(output)
    guard reader.startReading() else { fail("reader did not start: \(String(describing: reader.error))") }
    var frames = 0
    while let sample = output.copyNextSampleBuffer() {
        if CMSampleBufferGetImageBuffer(sample) != nil { frames += 1 }
    }
    guard reader.status == .completed else { fail("reading failed: \(String(describing: reader.error))") }
    return frames
}

func thumbnails(_ url: URL) throws -> Int {
    let asset = AVURLAsset(url: url)
    let generator = AVAssetImageGenerator(asset: asset)
    generator.requestedTimeToleranceBefore = .zero
    generator.requestedTimeToleranceAfter = .zero
    generator.appliesPreferredTrackTransform = true
    let duration = asset.duration.seconds
    var made = 0
    for i in 0..<10 {
        let time = CMTime(seconds: duration * (Double(i) + 0.37) / 10, preferredTimescale: 600)
        var actual = CMTime.zero
        let image = try generator.copyCGImage(at: time, actualTime: &actual)
        if image.width > 0 { made += 1 }
    }
    return made
}

func imagesToMovie(_ dir: URL, _ out: URL) throws -> Int {
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    var images: [CGImage] = []
    for name in names {
        guard let source = CGImageSourceCreateWithURL(dir.appendingPathComponent(name) as CFURL, nil),
              let image = CGImageSourceCreateImageAtIndex(source, 0, nil) else { continue }
        images.append(image)
    }
    guard !images.isEmpty else { fail("no images in \(dir.path)") }
    let (width, height) = (1280, 720)
    try? FileManager.default.removeItem(at: out)
    let writer = try AVAssetWriter(outputURL: out, fileType: .mp4)
    let input = AVAssetWriterInput(mediaType: .video, outputSettings: [
        AVVideoCodecKey: AVVideoCodecType.h264,
        AVVideoWidthKey: width,
        AVVideoHeightKey: height,
    ])
    input.expectsMediaDataInRealTime = false
    let adaptor = AVAssetWriterInputPixelBufferAdaptor(assetWriterInput: input, sourcePixelBufferAttributes: [
        kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
        kCVPixelBufferWidthKey as String: width,
        kCVPixelBufferHeightKey as String: height,
    ])
    writer.add(input)
    guard writer.startWriting() else { fail("writer did not start: \(String(describing: writer.error))") }
    writer.startSession(atSourceTime: .zero)
    for (i, image) in images.enumerated() {
        guard let pool = adaptor.pixelBufferPool else { fail("no pool") }
        var buffer: CVPixelBuffer?
        CVPixelBufferPoolCreatePixelBuffer(kCFAllocatorDefault, pool, &buffer)
        guard let buffer else { fail("no pixel buffer") }
        CVPixelBufferLockBaseAddress(buffer, [])
        let context = CGContext(data: CVPixelBufferGetBaseAddress(buffer), width: width, height: height,
                                bitsPerComponent: 8, bytesPerRow: CVPixelBufferGetBytesPerRow(buffer),
                                space: CGColorSpaceCreateDeviceRGB(),
                                bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue
                                    | CGBitmapInfo.byteOrder32Little.rawValue)
        guard let context else { fail("no context") }
        context.setFillColor(CGColor(red: 0, green: 0, blue: 0, alpha: 1))
        context.fill(CGRect(x: 0, y: 0, width: width, height: height))
        context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
        CVPixelBufferUnlockBaseAddress(buffer, [])
        while !input.isReadyForMoreMediaData { usleep(1000) }
        guard adaptor.append(buffer, withPresentationTime: CMTime(value: CMTimeValue(i), timescale: 30)) else {
            fail("append failed: \(String(describing: writer.error))")
        }
    }
    input.markAsFinished()
    let done = DispatchSemaphore(value: 0)
    writer.finishWriting { done.signal() }
    done.wait()
    guard writer.status == .completed else { fail("writing failed: \(String(describing: writer.error))") }
    return images.count
}

func export(_ url: URL, _ out: URL) throws -> Int {
    try? FileManager.default.removeItem(at: out)
    guard let session = AVAssetExportSession(asset: AVURLAsset(url: url), presetName: AVAssetExportPreset640x480)
    else { fail("no export session") }
    session.outputURL = out
    session.outputFileType = .mp4
    let done = DispatchSemaphore(value: 0)
    session.exportAsynchronously { done.signal() }
    done.wait()
    guard session.status == .completed else { fail("export failed: \(String(describing: session.error))") }
    return 1
}

/// The same export with Core Animation on top: a title (text over a rounded panel) fading in and
/// out, a turning shape and a static watermark, through AVVideoCompositionCoreAnimationTool.
func titledExport(_ url: URL, _ out: URL) throws -> Int {
    try? FileManager.default.removeItem(at: out)
    let asset = AVURLAsset(url: url)
    let composition = AVMutableVideoComposition(propertiesOf: asset)
    let size = composition.renderSize
    let parent = CALayer(), video = CALayer()
    parent.frame = CGRect(origin: .zero, size: size)
    video.frame = parent.frame
    parent.isGeometryFlipped = true
    parent.addSublayer(video)
    let title = CALayer()
    title.frame = CGRect(x: size.width * 0.2, y: size.height * 0.6, width: size.width * 0.6, height: 90)
    title.backgroundColor = CGColor(red: 0, green: 0, blue: 0, alpha: 0.6)
    title.cornerRadius = 12
    title.opacity = 0
    let text = CATextLayer()
    text.frame = title.bounds.insetBy(dx: 10, dy: 10)
    text.string = "Debug builds stay fast"
    text.font = "Helvetica-Bold" as CFTypeRef
    text.fontSize = 48
    text.alignmentMode = .center
    title.addSublayer(text)
    let fade = CAKeyframeAnimation(keyPath: "opacity")
    fade.values = [0, 1, 1, 0]
    fade.keyTimes = [0, 0.2, 0.8, 1]
    fade.beginTime = AVCoreAnimationBeginTimeAtZero
    fade.duration = 8
    fade.isRemovedOnCompletion = false
    title.add(fade, forKey: "fade")
    parent.addSublayer(title)
    let star = CAShapeLayer()
    let path = CGMutablePath()
    for k in 0..<10 {
        let r: CGFloat = k % 2 == 0 ? 40 : 16, a = CGFloat(k) * .pi / 5
        let p = CGPoint(x: 50 + r * sin(a), y: 50 - r * cos(a))
        if k == 0 { path.move(to: p) } else { path.addLine(to: p) }
    }
    path.closeSubpath()
    star.path = path
    star.fillColor = CGColor(red: 1, green: 0.8, blue: 0, alpha: 1)
    star.frame = CGRect(x: 40, y: 40, width: 100, height: 100)
    let spin = CABasicAnimation(keyPath: "transform.rotation.z")
    spin.toValue = 2 * Double.pi
    spin.duration = 3
    spin.repeatCount = .greatestFiniteMagnitude
    spin.beginTime = AVCoreAnimationBeginTimeAtZero
    spin.isRemovedOnCompletion = false
    star.add(spin, forKey: "spin")
    parent.addSublayer(star)
    let mark = CATextLayer()
    mark.string = "© Linux"
    mark.fontSize = 20
    mark.frame = CGRect(x: size.width - 130, y: size.height - 40, width: 120, height: 30)
    mark.opacity = 0.8
    parent.addSublayer(mark)
    composition.animationTool = AVVideoCompositionCoreAnimationTool(postProcessingAsVideoLayer: video, in: parent)
    guard let session = AVAssetExportSession(asset: asset, presetName: AVAssetExportPreset640x480) else { fail("no export session") }
    session.outputURL = out
    session.outputFileType = .mp4
    session.videoComposition = composition
    let done = DispatchSemaphore(value: 0)
    session.exportAsynchronously { done.signal() }
    done.wait()
    guard session.status == .completed else { fail("titled export failed: \(String(describing: session.error))") }
    return 1
}

let arguments = CommandLine.arguments.dropFirst()
guard let task = arguments.first else { fail("usage: DebugClient decode|thumbnails|images-to-movie|export|titled-export ARGS") }
let paths = arguments.dropFirst().map { URL(fileURLWithPath: $0) }
let start = Date()
do {
    let count: Int
    switch (task, paths.count) {
    case ("decode", 1): count = try decode(paths[0])
    case ("thumbnails", 1): count = try thumbnails(paths[0])
    case ("images-to-movie", 2): count = try imagesToMovie(paths[0], paths[1])
    case ("export", 2): count = try export(paths[0], paths[1])
    case ("titled-export", 2): count = try titledExport(paths[0], paths[1])
    default: fail("unknown task or wrong arguments: \(task)")
    }
    guard count > 0 else { fail("\(task) produced nothing") }
} catch {
    fail("\(task): \(error)")
}
print(String(format: "%.4f", Date().timeIntervalSince(start)))
