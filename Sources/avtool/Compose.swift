// `avtool compose TIMELINE.json -o OUT`: the book's "15 Seconds" app as a command. The timeline
// (docs/COMPOSE.md) is built into an AVMutableComposition, an AVMutableVideoComposition and an
// AVMutableAudioMix through the public API, checked with the video composition's validation,
// and exported with AVAssetExportSession and a progress bar. `--dump` prints what was built and
// `--sheet` draws it (the AVCompositionDebugViewer of Linux).
import ArgumentParser
import AVFoundation
import Dispatch
import Foundation

struct Compose: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a timeline (video clips, transitions, music, voice-overs) into a composition and export it.",
        discussion: "The timeline format is described in docs/COMPOSE.md.")

    @Argument(help: "The timeline JSON file.")
    var timeline: String

    @Option(name: [.customShort("o"), .long], help: "The output movie (.mp4, .m4v or .mov).")
    var output: String?

    @Option(name: [.customShort("p"), .long], help: "The export preset (default HighestQuality; see `avtool convert --list-presets`).")
    var preset: String = "AVAssetExportPresetHighestQuality"

    @Flag(help: "Print the composition's tracks and segments, the video composition's instructions and the audio mix's ramps.")
    var dump = false

    @Option(help: "Draw the composition as a timeline picture (PNG).")
    var sheet: String?

    @Option(help: "Write the one rendered frame at this time (seconds) to -o as a PNG instead of exporting a movie.")
    var frame: Double?

    @Flag(help: "Replace an existing output file.")
    var replace = false

    @Flag(help: "Print no progress.")
    var quiet = false

    func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("avtool compose: \(message)\n".utf8))
        return ExitCode(1)
    }

    func run() throws {
        guard output != nil || dump || sheet != nil else { throw fail("nothing to do: give -o OUT, --dump or --sheet PNG") }
        let timelineURL = URL(fileURLWithPath: timeline)
        let built: ComposedTimeline
        do {
            let model = try ComposeTimeline.load(timelineURL)
            built = try ComposeBuilder.build(model, relativeTo: timelineURL.deletingLastPathComponent())
        } catch {
            throw fail(error is ComposeError ? "\(error)" : errorText(error))
        }
        let problems = ComposeValidation.problems(built)
        if dump { print(ComposeDump.text(built, problems: problems), terminator: "") }
        if let sheet {
            do { try ComposeSheet.draw(built, to: URL(fileURLWithPath: sheet)) } catch { throw fail("cannot draw \(sheet): \(errorText(error))") }
        }
        guard problems.isEmpty else { throw fail("the video composition is not valid:\n  " + problems.joined(separator: "\n  ")) }
        guard let output else {
            if frame != nil { throw fail("--frame needs -o FRAME.png") }
            return
        }
        if let frame {
            let url = URL(fileURLWithPath: output)
            guard url.pathExtension.lowercased() == "png" else { throw fail("with --frame the output is a PNG (-o FRAME.png)") }
            guard frame >= 0, composeTime(frame) < built.composition.duration else {
                throw fail(String(format: "--frame %.3f is outside the timeline (0–%.3f s)", frame, built.composition.duration.seconds))
            }
            if FileManager.default.fileExists(atPath: url.path), !replace { throw fail("\(url.path) exists (--replace replaces it)") }
            do { try Self.writeFrame(built, at: frame, to: url) } catch { throw fail(error is ComposeError ? "\(error)" : errorText(error)) }
            if !quiet { print(String(format: "%@  the frame at %.3f s", url.path, frame)) }
            return
        }
        try export(built, to: URL(fileURLWithPath: output))
    }

    private func export(_ built: ComposedTimeline, to url: URL) throws {
        guard let name = Convert.presetName(preset) else { throw fail("unknown preset \(preset); `avtool convert --list-presets` lists them") }
        guard let fileType = Convert.fileType(forExtension: url.pathExtension), [.mp4, .m4v, .mov].contains(fileType) else {
            throw fail("the output must be a movie (.mp4, .m4v or .mov)")
        }
        if FileManager.default.fileExists(atPath: url.path) {
            guard replace else { throw fail("\(url.path) exists (--replace replaces it)") }
            do { try FileManager.default.removeItem(at: url) } catch { throw fail("cannot replace \(url.path): \(error.localizedDescription)") }
        }
        let began = Date()
        do {
            try Self.exportComposition(built, to: url, fileType: fileType, presetName: name, showProgress: !quiet && isatty(STDOUT_FILENO) != 0)
        } catch {
            throw fail(error is ComposeError ? "\(error)" : errorText(error))
        }
        if !quiet {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0
            print(String(format: "%@  %.3f s, %.1f MB in %.2f s", url.path, built.layout.duration.seconds,
                         Double(size) / 1_000_000, Date().timeIntervalSince(began)))
        }
    }

    /// The frame at `seconds` rendered through the video composition (with its animation tool)
    /// by AVAssetImageGenerator at exactly that time, written by CGImageDestination as a PNG.
    static func writeFrame(_ built: ComposedTimeline, at seconds: Double, to url: URL) throws {
        let generator = AVAssetImageGenerator(asset: built.composition)
        generator.videoComposition = built.videoComposition
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let box = UncheckedBox(generator)
        let time = composeTime(seconds)
        let image = try blocking { UncheckedBox(try await box.value.image(at: time).image) }.value
        try? FileManager.default.removeItem(at: url)
        guard let destination = CGImageDestinationCreateWithURL(url as CFURL, UTType.png.identifier as CFString, 1, nil) else {
            throw ComposeError("cannot write \(url.path)")
        }
        CGImageDestinationAddImage(destination, image, nil)
        guard CGImageDestinationFinalize(destination) else { throw ComposeError("writing \(url.path) failed") }
    }

    /// Exports the composition with its video composition and audio mix, polling the progress
    /// every 0.1 s as the book does (a bar on a terminal).
    static func exportComposition(_ built: ComposedTimeline, to url: URL, fileType: AVFileType, presetName: String,
                                  showProgress: Bool) throws {
        guard let session = AVAssetExportSession(asset: built.composition, presetName: presetName) else {
            throw ComposeError("unknown preset \(presetName)")
        }
        session.outputURL = url
        session.outputFileType = fileType
        session.videoComposition = built.videoComposition
        session.audioMix = built.audioMix
        session.shouldOptimizeForNetworkUse = true
        let done = DispatchSemaphore(value: 0)
        session.exportAsynchronously { done.signal() }
        while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if showProgress { Convert.drawBar(session.progress) }
        }
        if showProgress { Convert.drawBar(session.progress); print("") }
        guard session.status == .completed else { throw session.error ?? AVError(.exportFailed) }
    }
}

/// The video composition's own validation, collected as text.
enum ComposeValidation {
    final class Collector: NSObject, AVVideoCompositionValidationHandling, @unchecked Sendable {
        var problems: [String] = []

        func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingInvalidValueForKey key: String) -> Bool {
            problems.append("invalid value for \(key)")
            return true
        }

        func videoComposition(_ videoComposition: AVVideoComposition, shouldContinueValidatingAfterFindingEmptyTimeRange timeRange: CMTimeRange) -> Bool {
            problems.append("no instruction covers \(ComposeDump.range(timeRange))")
            return true
        }

        func videoComposition(_ videoComposition: AVVideoComposition,
                              shouldContinueValidatingAfterFindingInvalidTimeRangeIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol) -> Bool {
            problems.append("instruction \(ComposeDump.range(videoCompositionInstruction.timeRange)) has an invalid time range")
            return true
        }

        func videoComposition(_ videoComposition: AVVideoComposition,
                              shouldContinueValidatingAfterFindingInvalidTrackIDIn videoCompositionInstruction: any AVVideoCompositionInstructionProtocol,
                              layerInstruction: AVVideoCompositionLayerInstruction, asset: AVAsset) -> Bool {
            problems.append("instruction \(ComposeDump.range(videoCompositionInstruction.timeRange)) names track \(layerInstruction.trackID), which the composition does not have")
            return true
        }
    }

    static func problems(_ built: ComposedTimeline) -> [String] {
        let collector = Collector()
        let range = CMTimeRange(start: .zero, duration: built.composition.duration)
        let valid = built.videoComposition.isValid(for: built.composition, timeRange: range, validationDelegate: collector)
        return valid || !collector.problems.isEmpty ? collector.problems : ["the video composition is not valid"]
    }
}
