// `avtool decode`: reads every sample of a track through AVAssetReader and reports how many there
// were and how fast they came. Also the fuzzing driver: damaged input must end in an AVError,
// never a crash or a hang.
import ArgumentParser
import AVFoundation

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read every sample of a track through AVAssetReader and report count, duration and throughput.")

    @Argument(help: "The media file.")
    var file: String

    @Option(help: ArgumentHelp("What to read: bgra, 420v, y420 (decoded video), lpcm (decoded audio) or stored (the samples "
                               + "as stored). Default: 420v, or lpcm for an audio track."))
    var format: String?

    @Option(help: "The track ID to read (default: the first video track; with lpcm, the first audio track).")
    var track: Int32?

    @Option(help: "Start of the time range to read, in seconds.")
    var start: Double?

    @Option(help: "Duration of the time range to read, in seconds.")
    var duration: Double?

    func validate() throws {
        if let format, DecodeFormat(rawValue: format) == nil {
            throw ValidationError("--format must be one of \(DecodeFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let duration, duration < 0 || !duration.isFinite { throw ValidationError("--duration must be a positive number of seconds") }
        if let start, !start.isFinite { throw ValidationError("--start must be a number of seconds") }
    }

    func run() throws {
        let url = URL(fileURLWithPath: file)
        var range = CMTimeRange(start: .zero, duration: .positiveInfinity)
        if let start { range = CMTimeRange(start: CMTime(seconds: start, preferredTimescale: 90_000), duration: range.duration) }
        if let duration { range = CMTimeRange(start: range.start, duration: CMTime(seconds: duration, preferredTimescale: 90_000)) }
        do {
            let stats = try readTrack(url: url, format: format.flatMap(DecodeFormat.init(rawValue:)), trackID: track, timeRange: range)
            print("track \(stats.trackID) (\(stats.mediaType)), \(stats.format)")
            print("samples:    \(stats.sampleBuffers)")
            print("frames:     \(stats.frames)")
            print(String(format: "duration:   %.3f s (%.3f s to %.3f s)", stats.duration.seconds, stats.first.seconds, stats.end.seconds))
            print(String(format: "data:       %.1f MB", Double(stats.bytes) / 1e6))
            print(String(format: "time:       %.3f s — %.1f frames/s, %.1f MB/s", stats.elapsed,
                         Double(stats.frames) / max(stats.elapsed, 1e-9), Double(stats.bytes) / 1e6 / max(stats.elapsed, 1e-9)))
            print(String(format: "memory:     %.1f MB peak resident", Double(peakResidentKilobytes()) / 1024))
        } catch {
            FileHandle.standardError.write(Data("error: \(errorText(error))\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// What `avtool decode` reads a track as.
enum DecodeFormat: String, CaseIterable {
    case bgra, v420 = "420v", y420, lpcm, stored

    /// The output settings for a track output.
    var outputSettings: [String: Any]? {
        switch self {
        case .bgra: return [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA]
        case .v420: return [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange]
        case .y420: return [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8Planar]
        case .lpcm: return ["AVFormatIDKey": kAudioFormatLinearPCM]
        case .stored: return nil
        }
    }
}

/// What reading a track produced.
struct DecodeStats {
    var trackID: CMPersistentTrackID
    var mediaType: String
    var format: String
    var sampleBuffers = 0
    /// Pictures for video, PCM frames for audio, samples otherwise.
    var frames = 0
    /// Bytes of picture, PCM or sample data.
    var bytes = 0
    var first = CMTime.invalid
    var end = CMTime.invalid
    var elapsed = 0.0
    var duration: CMTime { first.isNumeric && end.isNumeric ? end - first : .zero }
}

/// Reads every sample of one track of `url` through AVAssetReader (see `Decode`). Errors are the
/// reader's (AVErrors), or a missing track.
func readTrack(url: URL, format: DecodeFormat?, trackID: CMPersistentTrackID?, timeRange: CMTimeRange) throws -> DecodeStats {
    let asset = AVURLAsset(url: url)
    let tracks = try blocking { try await asset.load(.tracks) }
    let chosen: AVAssetTrack?
    if let trackID {
        chosen = tracks.first { $0.trackID == trackID }
    } else {
        let type: AVMediaType = format == .lpcm ? .audio : .video
        // Without a format, a file with no video reads its first audio track.
        chosen = tracks.first { $0.mediaType == type }
            ?? (format == nil || format == .stored ? tracks.first { $0.mediaType == .audio } : nil)
    }
    guard let track = chosen else {
        throw AVError(.noSourceTrack, userInfo: [NSLocalizedDescriptionKey: "No such track",
                                                 NSLocalizedFailureReasonErrorKey: trackID.map { "The file has no track \($0)." }
                                                     ?? "The file has no \(format == .lpcm ? "audio" : "video") track."])
    }
    let kind = format ?? (track.mediaType == .audio ? .lpcm : .v420)
    let reader = try AVAssetReader(asset: asset)
    reader.timeRange = timeRange
    let output = AVAssetReaderTrackOutput(track: track, outputSettings: kind.outputSettings)
    output.alwaysCopiesSampleData = false
    reader.add(output)
    var stats = DecodeStats(trackID: track.trackID, mediaType: track.mediaType.rawValue, format: kind.rawValue)
    let started = DispatchTime.now().uptimeNanoseconds
    guard reader.startReading() else { throw reader.error ?? AVError(.unknown) }
    while let buffer = output.copyNextSampleBuffer() {
        stats.sampleBuffers += 1
        let pts = buffer.presentationTimeStamp
        if pts.isNumeric, !stats.first.isNumeric || pts < stats.first { stats.first = pts }
        let end = pts + buffer.duration
        if end.isNumeric, !stats.end.isNumeric || end > stats.end { stats.end = end }
        if let image = buffer.imageBuffer {
            stats.frames += 1
            stats.bytes += CVPixelBufferGetDataSize(image)
        } else {
            stats.frames += buffer.numSamples
            stats.bytes += buffer.totalSampleSize
        }
    }
    stats.elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    if reader.status != .completed { throw reader.error ?? AVError(.unknown) }
    return stats
}

/// The process's peak resident set size so far, in KiB: the kernel's high-water mark of this
/// program's own address space (`VmHWM` in /proc/self/status). Not getrusage's ru_maxrss: Linux
/// starts that from the spawning parent's peak at exec (a test runner or a benchmark that has grown
/// large would make every child look as large).
func peakResidentKilobytes() -> Int {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
       let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
       let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
        return kilobytes
    }
    var usage = rusage()
    return getrusage(RUSAGE_SELF.rawValue, &usage) == 0 ? Int(usage.ru_maxrss) : 0
}
