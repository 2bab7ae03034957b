// DebugClient TASK ARGS…: runs one task the way a user's program would and prints its time in
// seconds on standard output. Tasks:
//   decode MOVIE                 every frame of the first video track as 32BGRA (AVAssetReader)
//   thumbnails MOVIE             ten exact frames (AVAssetImageGenerator, zero tolerance)
//   images-to-movie DIR OUT      every image file in DIR (sorted), drawn with CGContext into
//                                1280×720 buffers from the adaptor's pool, written as H.264
//   export MOVIE OUT             AVAssetExportSession, AVAssetExportPreset640x480, MP4
//   titled-export MOVIE OUT      the same export with a Core Animation title, shape and watermark
//   png-premultiplied            a 1280×720 premultiplied BGRA image encoded as PNG 5 times
//                                (ImageIO un-premultiplies it first)
//   turn-thumbnails              10 thumbnails "with transform" of an 8-bit grey and a 24-bit RGB
//                                1600×1200 PNG carrying EXIF orientation 6 (decoded once, cached)
//   draw-deep                    a 1280×720 16-bit RGBA, 32-bit float RGBA and 4-bit indexed image
//                                each drawn 3 times into a 1280×720 BGRA CGContext
//   crop-bits                    20 crops at odd offsets of a 4096×4096 1-bit and 4-bit image
//   extend-edges                 CVPixelBufferFillExtendedPixels 30 times on 1920×1080 BGRA and
//                                420v buffers with 32 extended pixels on each side
//   alpha-thumbnails MOVIE       10 exact thumbnails of a movie with alpha (PNG in QuickTime)
// Tasks that first make their inputs reset the clock after (`workStarts()`), so only the work is timed.
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

/// When the timed work began: tasks that make their inputs first call `workStarts()` after.
nonisolated(unsafe) var workStart = Date()
func workStarts() { workStart = Date() }

/// Deterministic bytes.
func noise(_ count: Int, seed: UInt32) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var state = seed
    bytes.withUnsafeMutableBytes { raw in
        let words = raw.bindMemory(to: UInt32.self)
        for i in 0 ..< words.count {
            state = state &* 1_664_525 &+ 1_013_904_223
            words[i] = state
        }
    }
    return bytes
}

func makeImage(_ bytes: [UInt8], width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int,
               space: CGColorSpace, info: UInt32) -> CGImage {
    guard let image = CGImage(width: width, height: height, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
                              bytesPerRow: (width * bitsPerPixel + 7) / 8, space: space, bitmapInfo: CGBitmapInfo(rawValue: info),
                              provider: CGDataProvider(data: Data(bytes) as CFData)!, decode: nil,
                              shouldInterpolate: true, intent: .defaultIntent)
    else { fail("bad image layout") }
    return image
}

func pngPremultiplied() throws -> Int {
    let (w, h) = (1280, 720)
    var bytes = noise(w * h * 4, seed: 1)
    for i in stride(from: 0, to: bytes.count, by: 4) {
        let a = bytes[i + 3]
        for k in 0 ..< 3 { bytes[i + k] = UInt8(UInt16(bytes[i + k]) * UInt16(a) / 255) }
        // Smooth enough for deflate to matter little: a gradient under the noise.
        bytes[i] = UInt8((Int(bytes[i]) + i / 4 % w / 5) / 2)
    }
    let image = makeImage(bytes, width: w, height: h, bitsPerComponent: 8, bitsPerPixel: 32, space: CGColorSpaceCreateDeviceRGB(),
                          info: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
    workStarts()
    var written = 0
    for _ in 0 ..< 5 {
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data as CFMutableData, "public.png" as CFString, 1, nil)
        else { fail("no PNG destination") }
        CGImageDestinationAddImage(destination, image, nil)
        guard CGImageDestinationFinalize(destination), data.length > 0 else { fail("PNG encode failed") }
        written += 1
    }
    return written
}

func turnThumbnails() throws -> Int {
    let (w, h) = (1600, 1200)
    var sources: [CGImageSource] = []
    for (bits, space) in [(8, CGColorSpaceCreateDeviceGray()), (24, CGColorSpaceCreateDeviceRGB())] {
        let image = makeImage(noise(w * h * bits / 8, seed: UInt32(bits)), width: w, height: h, bitsPerComponent: 8,
                              bitsPerPixel: bits, space: space, info: CGImageAlphaInfo.none.rawValue)
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data as CFMutableData, "public.png" as CFString, 1, nil)
        else { fail("no PNG destination") }
        CGImageDestinationAddImage(destination, image, [kCGImagePropertyOrientation as String: 6] as CFDictionary)
        guard CGImageDestinationFinalize(destination),
              let source = CGImageSourceCreateWithData(data as CFData, nil),
              CGImageSourceCreateImageAtIndex(source, 0, nil) != nil   // decoded once, cached
        else { fail("PNG round trip failed") }
        sources.append(source)
    }
    let options = [kCGImageSourceCreateThumbnailFromImageAlways as String: true,
                   kCGImageSourceCreateThumbnailWithTransform as String: true] as CFDictionary
    workStarts()
    var made = 0
    for _ in 0 ..< 5 {
        for source in sources {
            guard let thumbnail = CGImageSourceCreateThumbnailAtIndex(source, 0, options), thumbnail.width == h
            else { fail("no turned thumbnail") }
            made += 1
        }
    }
    return made
}

func drawDeep() throws -> Int {
    let (w, h) = (1280, 720)
    let rgb = CGColorSpaceCreateDeviceRGB()
    let deep = makeImage(noise(w * h * 8, seed: 3), width: w, height: h, bitsPerComponent: 16, bitsPerPixel: 64, space: rgb,
                         info: CGImageAlphaInfo.last.rawValue | CGBitmapInfo.byteOrder16Big.rawValue)
    var floats = [Float](repeating: 0, count: w * h * 4)
    for i in 0 ..< floats.count { floats[i] = Float(i % 977) / 977 }
    let float = makeImage(floats.withUnsafeBytes { [UInt8]($0) }, width: w, height: h, bitsPerComponent: 32, bitsPerPixel: 128,
                          space: rgb, info: CGImageAlphaInfo.premultipliedLast.rawValue | CGBitmapInfo.floatComponents.rawValue
                              | CGBitmapInfo.byteOrder32Little.rawValue)
    let table = noise(16 * 3, seed: 4)
    guard let indexedSpace = CGColorSpace(indexedBaseSpace: rgb, last: 15, colorTable: table) else { fail("no indexed space") }
    let indexed = makeImage(noise(w * h / 2, seed: 5), width: w, height: h, bitsPerComponent: 4, bitsPerPixel: 4,
                            space: indexedSpace, info: CGImageAlphaInfo.none.rawValue)
    guard let context = CGContext(data: nil, width: w, height: h, bitsPerComponent: 8, bytesPerRow: w * 4, space: rgb,
                                  bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
    else { fail("no context") }
    workStarts()
    var drawn = 0
    for _ in 0 ..< 3 {
        for image in [deep, float, indexed] {
            context.clear(CGRect(x: 0, y: 0, width: w, height: h))
            context.draw(image, in: CGRect(x: 0, y: 0, width: w, height: h))
            drawn += 1
        }
    }
    return drawn
}

func cropBits() throws -> Int {
    let side = 4096
    let gray = CGColorSpaceCreateDeviceGray()
    let images = [1, 4].map { bits in
        makeImage(noise(side * side * bits / 8, seed: UInt32(bits)), width: side, height: side, bitsPerComponent: bits,
                  bitsPerPixel: bits, space: gray, info: CGImageAlphaInfo.none.rawValue)
    }
    workStarts()
    var cropped = 0
    for i in 0 ..< 10 {
        for image in images {
            guard let crop = image.cropping(to: CGRect(x: 1 + 2 * i, y: i, width: 4000 - 3 * i, height: 4000)),
                  crop.width == 4000 - 3 * i else { fail("crop failed") }
            cropped += 1
        }
    }
    return cropped
}

func extendEdges() throws -> Int {
    var buffers: [CVPixelBuffer] = []
    for format in [kCVPixelFormatType_32BGRA, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange] {
        var buffer: CVPixelBuffer?
        let attributes = [kCVPixelBufferExtendedPixelsLeftKey as String: 32, kCVPixelBufferExtendedPixelsRightKey as String: 32,
                          kCVPixelBufferExtendedPixelsTopKey as String: 32, kCVPixelBufferExtendedPixelsBottomKey as String: 32]
        guard CVPixelBufferCreate(kCFAllocatorDefault, 1920, 1080, format, attributes as CFDictionary, &buffer) == kCVReturnSuccess,
              let buffer else { fail("no pixel buffer") }
        buffers.append(buffer)
    }
    workStarts()
    var filled = 0
    for _ in 0 ..< 30 {
        for buffer in buffers {
            CVPixelBufferLockBaseAddress(buffer, [])
            guard CVPixelBufferFillExtendedPixels(buffer) == kCVReturnSuccess else { fail("fill failed") }
            CVPixelBufferUnlockBaseAddress(buffer, [])
            filled += 1
        }
    }
    return filled
}

let arguments = CommandLine.arguments.dropFirst()
guard let task = arguments.first else {
    fail("usage: DebugClient decode|thumbnails|images-to-movie|export|titled-export|png-premultiplied|turn-thumbnails|"
         + "draw-deep|crop-bits|extend-edges|alpha-thumbnails ARGS")
}
let paths = arguments.dropFirst().map { URL(fileURLWithPath: $0) }
do {
    let count: Int
    switch (task, paths.count) {
    case ("decode", 1): count = try decode(paths[0])
    case ("thumbnails", 1): count = try thumbnails(paths[0])
    case ("images-to-movie", 2): count = try imagesToMovie(paths[0], paths[1])
    case ("export", 2): count = try export(paths[0], paths[1])
    case ("titled-export", 2): count = try titledExport(paths[0], paths[1])
    case ("png-premultiplied", 0): count = try pngPremultiplied()
    case ("turn-thumbnails", 0): count = try turnThumbnails()
    case ("draw-deep", 0): count = try drawDeep()
    case ("crop-bits", 0): count = try cropBits()
    case ("extend-edges", 0): count = try extendEdges()
    case ("alpha-thumbnails", 1): count = try thumbnails(paths[0])
    default: fail("unknown task or wrong arguments: \(task)")
    }
    guard count > 0 else { fail("\(task) produced nothing") }
} catch {
    fail("\(task): \(error)")
}
print(String(format: "%.4f", Date().timeIntervalSince(workStart)))
