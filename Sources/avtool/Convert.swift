// `avtool convert`: Apple's avconvert on AVAssetExportSession — a source, an output, a preset,
// an optional time range — with a progress bar on a terminal.
import ArgumentParser
@_spi(Tools) import AVFoundation
import Dispatch
import Foundation

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert or trim a media file with an export preset (avconvert's options).")

    @Option(name: [.customShort("s"), .long], help: "The source media file.")
    var source: String?

    @Option(name: [.customShort("o"), .long], help: "The output file (its extension picks the file type).")
    var output: String?

    @Option(name: [.customShort("p"), .long],
            help: "The preset: a short name (Preset1280x720, PresetPassthrough, PresetAppleM4A…) or the full AVAssetExportPreset… name.")
    var preset: String?

    @Option(help: "Where the exported range starts, in seconds.")
    var start: Double?

    @Option(help: "How long the exported range is, in seconds.")
    var duration: Double?

    @Flag(help: "Replace an existing output file.")
    var replace = false

    @Flag(name: .customLong("disableFastStart"), help: "Do not put the movie header first.")
    var disableFastStart = false

    @Flag(name: .customLong("list-presets"), help: "List the presets (those compatible with --source when given).")
    var listPresets = false

    @Flag(name: [.customShort("v"), .long], help: "Print the encoder settings used.")
    var verbose = false

    @Flag(help: "Print no progress.")
    var quiet = false

    /// A preset name as avconvert accepts it: the full name, or without its `AVAssetExport` prefix.
    static func presetName(_ given: String) -> String? {
        let all = AVAssetExportSession.allExportPresets()
        if all.contains(given) { return given }
        let full = "AVAssetExport" + given
        if all.contains(full) { return full }
        return all.first { $0.lowercased() == given.lowercased() || $0.lowercased() == full.lowercased() }
    }

    static func shortName(_ preset: String) -> String {
        preset.hasPrefix("AVAssetExport") ? String(preset.dropFirst("AVAssetExport".count)) : preset
    }

    /// The file type for an output extension.
    static func fileType(forExtension ext: String) -> AVFileType? {
        switch ext.lowercased() {
        case "mov", "qt": return .mov
        case "mp4": return .mp4
        case "m4v": return .m4v
        case "m4a": return .m4a
        case "3gp": return .mobile3GPP
        case "3g2": return .mobile3GPP2
        case "caf": return .caf
        case "wav": return .wav
        case "aif", "aiff": return .aiff
        case "aifc": return .aifc
        default: return nil
        }
    }

    func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("avtool convert: \(message)\n".utf8))
        return ExitCode(1)
    }

    func run() throws {
        if listPresets {
            if let source {
                let asset = AVURLAsset(url: URL(fileURLWithPath: source))
                for name in AVAssetExportSession.exportPresets(compatibleWith: asset) { print(Self.shortName(name)) }
            } else {
                for name in AVAssetExportSession.allExportPresets() { print(Self.shortName(name)) }
            }
            return
        }
        guard let source else { throw fail("a source is required (-s FILE)") }
        guard let output else { throw fail("an output is required (-o FILE)") }
        guard let given = preset else { throw fail("a preset is required (-p NAME); --list-presets lists them") }
        guard let name = Self.presetName(given) else { throw fail("unknown preset \(given); --list-presets lists them") }
        let sourceURL = URL(fileURLWithPath: source)
        guard FileManager.default.fileExists(atPath: sourceURL.path) else { throw fail("\(source): no such file") }
        let outputURL = URL(fileURLWithPath: output)
        guard let fileType = Self.fileType(forExtension: outputURL.pathExtension) else {
            throw fail("cannot tell the file type of \(output) from its extension (use .mov, .mp4, .m4v, .m4a…)")
        }
        let asset = AVURLAsset(url: sourceURL)
        guard let session = AVAssetExportSession(asset: asset, presetName: name) else { throw fail("unknown preset \(given)") }
        guard session.supportedFileTypes.contains(fileType) else {
            let types = session.supportedFileTypes.map(\.rawValue).joined(separator: ", ")
            if types.isEmpty { throw fail("\(Self.shortName(name)) cannot export \(source): \(exportRefusalText(asset))") }
            throw fail("\(Self.shortName(name)) cannot write \(fileType.rawValue) from \(source) (it can write: \(types))")
        }
        if start != nil || duration != nil {
            let from = CMTime(seconds: max(0, start ?? 0), preferredTimescale: 600_000)
            let length = duration.map { CMTime(seconds: $0, preferredTimescale: 600_000) } ?? .positiveInfinity
            if let duration, duration <= 0 { throw fail("--duration must be positive") }
            session.timeRange = CMTimeRange(start: from, duration: length)
        }
        session.outputURL = outputURL
        session.outputFileType = fileType
        session.shouldOptimizeForNetworkUse = !disableFastStart
        if replace, FileManager.default.fileExists(atPath: outputURL.path) {
            do { try FileManager.default.removeItem(at: outputURL) } catch { throw fail("cannot replace \(output): \(error.localizedDescription)") }
        }
        if verbose {
            print("source: \(source)")
            print("preset: \(name)")
            print("output: \(output) (\(fileType.rawValue)), fast start \(disableFastStart ? "off" : "on")")
            if let plans = try? ExportPlanInspection.plans(asset: asset, presetName: name, fileType: fileType) {
                for line in plans { print("  \(line)") }
            }
        }
        let showBar = !quiet && isatty(STDOUT_FILENO) != 0
        let done = DispatchSemaphore(value: 0)
        let began = Date()
        session.exportAsynchronously { done.signal() }
        while done.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            if showBar { Self.drawBar(session.progress) }
        }
        if showBar { Self.drawBar(session.progress); print("") }
        switch session.status {
        case .completed:
            let size = (try? FileManager.default.attributesOfItem(atPath: outputURL.path)[.size] as? Int64) ?? 0
            if !quiet {
                print(String(format: "%@  %.1f MB in %.2f s", output, Double(size) / 1_000_000, Date().timeIntervalSince(began)))
            }
        default:
            if let loading = assetLoadingError(asset) { throw fail("cannot read \(source): \(errorText(loading))") }
            throw fail(errorText(session.error ?? AVError(.exportFailed)))
        }
    }

    static func drawBar(_ progress: Float) {
        let width = 40
        let filled = Int((Float(width) * progress).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        print(String(format: "\r[%@] %3d%%", bar, Int((progress * 100).rounded(.down))), terminator: "")
        fflush(nil)
    }
}
