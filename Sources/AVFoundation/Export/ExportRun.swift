// ExportRun: one export on the shared pipes — an AVAssetReader whose track outputs give stored
// samples (passthrough) or decoded pictures and PCM, an AVAssetWriter whose inputs copy or encode
// them, one pump per output/input pair, the progress, and the end (completed, failed, cancelled).
import CoreAudioTypes
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
internal import MediaEngine

/// The configuration an export runs with (a snapshot of the session's properties).
struct ExportConfiguration: @unchecked Sendable {
    var asset: AVAsset
    var preset: ExportPreset
    var outputURL: URL
    var fileType: AVFileType
    var timeRange: CMTimeRange
    var metadata: [AVMetadataItem]
    var fileLengthLimit: Int64
    var optimizeForNetworkUse: Bool
    var audioMix: AVAudioMix?
    var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm
    var directoryForTemporaryFiles: URL?
}

/// What an export writes for one source track (or, for a mix, several audio tracks).
struct ExportTrackPlan: @unchecked Sendable {
    var mediaType: AVMediaType
    var tracks: [AVAssetTrack]
    /// Reader output settings (nil: stored samples).
    var readerSettings: [String: Any]?
    /// Writer input settings (nil: passthrough).
    var writerSettings: [String: Any]?
    var hint: CMFormatDescription?
    var transform: CGAffineTransform = .identity
    var languageCode: String?
    var mediaTimeScale: CMTimeScale = 0
    var useAudioMix = false

    /// One line for `avtool convert --verbose`.
    var summary: String {
        let source = tracks.map { "track \($0.trackID)" }.joined(separator: "+")
        return "\(mediaType.spokenName) \(source): \(settingsSummary)"
    }

    /// The writer settings in one line, or passthrough.
    var settingsSummary: String {
        writerSettings.map(ExportTrackPlan.describe) ?? "passthrough (samples copied)"
    }

    static func describe(_ settings: [String: Any]) -> String {
        settings.keys.sorted().map { key in
            let value = settings[key]
            if let nested = value as? [String: Any] { return "\(key)={\(describe(nested))}" }
            if let codec = value as? AVVideoCodecType { return "\(key)=\(codec.rawValue)" }
            if key == AVFormatIDKey, let id = value as? AudioFormatID { return "\(key)='\(MuxerStreamFormat.fourCC(id))'" }
            return "\(key)=\(value.map { "\($0)" } ?? "nil")"
        }.joined(separator: ", ")
    }
}

extension AVMediaType {
    /// The media type as a word for messages ("audio", "video", "closed caption"), where its raw
    /// value is a four-character code ("soun", "vide", "clcp").
    var spokenName: String {
        switch self {
        case .audio: return "audio"
        case .video: return "video"
        case .text: return "text"
        case .closedCaption: return "closed caption"
        case .subtitle: return "subtitle"
        case .timecode: return "timecode"
        case .metadata: return "metadata"
        case .muxed: return "muxed"
        case .haptic: return "haptic"
        case .depthData: return "depth data"
        case .metadataObject: return "metadata object"
        case .auxiliaryPicture: return "auxiliary picture"
        default: return "'\(rawValue)'"
        }
    }
}

/// Plans an export: which tracks, with which reader and writer settings.
enum ExportPlanner {
    /// The plans for `asset` with `preset` into `fileType`; throws an AVError when the preset
    /// cannot export the asset.
    static func plan(asset: AVAsset, preset: ExportPreset, fileType: AVFileType, audioMix: AVAudioMix?) throws -> [ExportTrackPlan] {
        let tracks = asset.tracks.filter { $0.isEnabled }
        let videoTracks = tracks.filter { $0.mediaType == .video }
        let audioTracks = tracks.filter { $0.mediaType == .audio }
        var plans: [ExportTrackPlan] = []
        guard let container = WriterContainer.all[fileType] else { throw unsupported("The file type \(fileType.rawValue) cannot be written.") }
        if preset.isPassthrough {
            for track in tracks where container.mediaTypes.contains(track.mediaType) {
                guard let format = track.formatDescriptions.first.map({ $0 as! CMFormatDescription }) else { continue }
                if container.canPassThrough(format) != nil { continue }
                var plan = ExportTrackPlan(mediaType: track.mediaType, tracks: [track], hint: format)
                plan.transform = track.preferredTransform
                plan.languageCode = track.languageCode
                plan.mediaTimeScale = track.naturalTimeScale
                plans.append(plan)
            }
            if plans.isEmpty {
                throw unsupported("No track of the asset can be copied into a \(fileType.rawValue) file.")
            }
            return plans
        }
        if case .encode(let codec, let box, let bitRate, let quality, let profile, _) = preset.video, let track = videoTracks.first {
            let stored = track.naturalSize
            let size = ExportPreset.fittedSize(CGSize(width: abs(stored.width), height: abs(stored.height)), box: box)
            var reader: [String: Any] = [
                kCVPixelBufferPixelFormatTypeKey as String: codec == .proRes422 ? kCVPixelFormatType_422YpCbCr8 : OSType(fourCC: "y420"),
            ]
            if size.width != Int(stored.width) || size.height != Int(stored.height) {
                reader[kCVPixelBufferWidthKey as String] = size.width
                reader[kCVPixelBufferHeightKey as String] = size.height
            }
            var properties: [String: Any] = [:]
            if let bitRate { properties[AVVideoAverageBitRateKey] = bitRate }
            if let quality { properties[AVVideoQualityKey] = quality }
            if let profile { properties[AVVideoProfileLevelKey] = profile }
            let fps = track.nominalFrameRate
            if fps > 0, codec != .proRes422 { properties[AVVideoExpectedSourceFrameRateKey] = Double(fps) }
            var writer: [String: Any] = [AVVideoCodecKey: codec, AVVideoWidthKey: size.width, AVVideoHeightKey: size.height]
            if !properties.isEmpty { writer[AVVideoCompressionPropertiesKey] = properties }
            var plan = ExportTrackPlan(mediaType: .video, tracks: [track], readerSettings: reader, writerSettings: writer)
            plan.transform = track.preferredTransform
            plan.languageCode = track.languageCode
            plans.append(plan)
        } else if case .encode = preset.video, !preset.acceptsAudioOnly, videoTracks.isEmpty {
            throw AVError(.operationNotSupportedForPreset, userInfo: [
                NSLocalizedDescriptionKey: "Operation Not Supported",
                NSLocalizedFailureReasonErrorKey: "The preset \(preset.name) needs a video track; the asset has none.",
            ])
        }
        if !audioTracks.isEmpty, container.mediaTypes.contains(.audio) {
            let first = audioTracks[0]
            let asbd = (first.formatDescriptions.first as! CMFormatDescription?)
                .flatMap { CMAudioFormatDescriptionGetStreamBasicDescription($0)?.pointee }
            let sourceRate = asbd?.mSampleRate ?? 48000
            let sourceChannels = Int(asbd?.mChannelsPerFrame ?? 2)
            let mixes = audioMix != nil || audioTracks.count > 1
            switch preset.audio {
            case .none:
                break
            case .aac(let bitRate, let maxChannels):
                let (rate, channels, bitRate) = ExportPreset.aacOutput(bitRate: bitRate, maxChannels: maxChannels,
                                                                       sourceRate: sourceRate, sourceChannels: sourceChannels)
                let reader: [String: Any] = [
                    AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: true, AVLinearPCMBitDepthKey: 32,
                    AVLinearPCMIsNonInterleaved: false, AVLinearPCMIsBigEndianKey: false,
                    AVSampleRateKey: rate, AVNumberOfChannelsKey: channels,
                ]
                let writer: [String: Any] = [
                    AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels, AVEncoderBitRateKey: bitRate,
                ]
                var plan = ExportTrackPlan(mediaType: .audio, tracks: mixes ? audioTracks : [first], readerSettings: reader, writerSettings: writer)
                plan.useAudioMix = mixes
                plan.languageCode = first.languageCode
                plans.append(plan)
            case .lpcm:
                var pcm: [String: Any] = [
                    AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMIsFloatKey: false, AVLinearPCMBitDepthKey: 16,
                    AVLinearPCMIsNonInterleaved: false, AVLinearPCMIsBigEndianKey: false,
                    AVSampleRateKey: sourceRate, AVNumberOfChannelsKey: sourceChannels,
                ]
                if sourceChannels > 2 {
                    // More than stereo needs its layout spelled out: the source's, else the
                    // usual one for the count (5.1: L R C LFE Ls Rs).
                    var size = 0
                    let format = first.formatDescriptions.first as! CMFormatDescription?
                    if let format, let layout = CMAudioFormatDescriptionGetChannelLayout(format, sizeOut: &size), size > 0,
                       AudioChannelSet(audioChannelLayout: Data(bytes: layout, count: size))?.count == sourceChannels {
                        pcm[AVChannelLayoutKey] = Data(bytes: layout, count: size)
                    } else {
                        pcm[AVChannelLayoutKey] = AVOutputSettingsAssistant.layoutData(channels: sourceChannels)
                    }
                }
                var plan = ExportTrackPlan(mediaType: .audio, tracks: mixes ? audioTracks : [first], readerSettings: pcm, writerSettings: pcm)
                plan.useAudioMix = mixes
                plan.languageCode = first.languageCode
                plans.append(plan)
            }
        }
        if plans.isEmpty {
            throw AVError(.operationNotSupportedForPreset, userInfo: [
                NSLocalizedDescriptionKey: "Operation Not Supported",
                NSLocalizedFailureReasonErrorKey: "The preset \(preset.name) has nothing to export from this asset.",
            ])
        }
        for plan in plans {
            if let problem = writerProblem(plan, container: container) {
                throw unsupported("The preset \(preset.name) cannot write the asset's \(plan.mediaType.spokenName) track to a "
                                  + "\(fileType.rawValue) file with settings {\(plan.settingsSummary)}: \(problem)")
            }
        }
        return plans
    }

    /// Why the writer would not take `plan`'s settings for `container`; nil when it takes them
    /// (the question `AVAssetWriter.canApply(outputSettings:forMediaType:)` asks, with its reason).
    static func writerProblem(_ plan: ExportTrackPlan, container: WriterContainer) -> String? {
        guard let settings = plan.writerSettings else { return nil }  // passthrough: checked by canPassThrough
        switch WriterOutputSettings.parse(settings, mediaType: plan.mediaType) {
        case .failure(let error): return error.reason
        case .success(let parsed): return container.canEncode(parsed, hint: plan.hint)
        }
    }

    static func unsupported(_ reason: String) -> AVError {
        AVError(.operationNotSupportedForAsset, userInfo: [NSLocalizedDescriptionKey: "Operation Stopped", NSLocalizedFailureReasonErrorKey: reason])
    }
}

/// Runs one export. `run()` blocks until the export has ended and returns its error (nil:
/// completed); `cancel()` may be called from any thread.
final class ExportRun: @unchecked Sendable {
    let configuration: ExportConfiguration
    private let lock = NSLock()
    private var reader: AVAssetReader?
    private var writer: AVAssetWriter?
    private var activePairs: [ExportPair] = []
    private var cancelled = false
    private var fileLimitReached = false
    private var progressValue: Float = 0
    /// Called with each new progress value (under no lock).
    private let onProgress: @Sendable (Float) -> Void

    init(configuration: ExportConfiguration, onProgress: @escaping @Sendable (Float) -> Void) {
        self.configuration = configuration
        self.onProgress = onProgress
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    func cancel() {
        let (reader, writer, pairs): (AVAssetReader?, AVAssetWriter?, [ExportPair]) = lock.withLock {
            cancelled = true
            return (self.reader, self.writer, activePairs)
        }
        reader?.cancelReading()
        if let writer, writer.status == .writing || writer.status == .unknown { writer.cancelWriting() }
        // Pumps waiting for readiness that will not come end here.
        for pair in pairs { pair.end() }
    }

    static func cancelledError() -> AVError {
        AVError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "Operation Cancelled",
                                                NSLocalizedFailureReasonErrorKey: "The export was cancelled."])
    }

    /// The time range exported: the session's, within the asset.
    static func effectiveRange(_ range: CMTimeRange, duration: CMTime) -> CMTimeRange {
        let full = CMTimeRange(start: .zero, duration: duration.isNumeric ? duration : .positiveInfinity)
        guard range.isValid, range.start.isNumeric else { return full }
        let start = max(range.start.isNumeric ? range.start : .zero, .zero)
        var end = range.duration.isNumeric ? CMTimeAdd(start, range.duration) : full.end
        if full.end.isNumeric, end > full.end { end = full.end }
        return CMTimeRange(start: start, end: end)
    }

    /// Runs the export to its end; nil when it completed. Whatever a cancel interrupted (a reader
    /// cancelled before it started reading, a writer before it started writing) ends cancelled.
    func run() -> (any Error)? {
        let error = runSteps()
        if error != nil, isCancelled {
            if let writer = lock.withLock({ self.writer }), writer.status == .writing { writer.cancelWriting() }
            return ExportRun.cancelledError()
        }
        return error
    }

    private func runSteps() -> (any Error)? {
        let c = configuration
        let url = c.outputURL
        if FileManager.default.fileExists(atPath: url.path) {
            return AVError(.fileAlreadyExists, userInfo: [
                NSLocalizedDescriptionKey: "Cannot Save",
                NSLocalizedFailureReasonErrorKey: "A file already exists at \(url.path).",
                NSURLErrorKey: url,
            ])
        }
        let duration = c.asset.duration
        let range = ExportRun.effectiveRange(c.timeRange, duration: duration)
        guard range.duration > .zero || range.duration.isPositiveInfinity else {
            return AVError(.invalidSourceMedia, userInfo: [NSLocalizedDescriptionKey: "Cannot Export",
                                                           NSLocalizedFailureReasonErrorKey: "The time range to export is empty."])
        }
        let plans: [ExportTrackPlan]
        let reader: AVAssetReader
        let writer: AVAssetWriter
        do {
            plans = try ExportPlanner.plan(asset: c.asset, preset: c.preset, fileType: c.fileType, audioMix: c.audioMix)
            reader = try AVAssetReader(asset: c.asset)
            writer = try AVAssetWriter(outputURL: url, fileType: c.fileType)
        } catch {
            return error
        }
        let whole = range.start == .zero && (range.end == duration || !range.end.isNumeric)
        if !whole { reader.timeRange = range }
        var pairs: [ExportPair] = []
        for plan in plans {
            let output: AVAssetReaderOutput
            if plan.useAudioMix {
                let mix = AVAssetReaderAudioMixOutput(audioTracks: plan.tracks, audioSettings: plan.readerSettings)
                mix.audioMix = c.audioMix
                mix.audioTimePitchAlgorithm = c.audioTimePitchAlgorithm
                output = mix
            } else {
                let trackOutput = AVAssetReaderTrackOutput(track: plan.tracks[0], outputSettings: plan.readerSettings)
                if plan.mediaType == .audio { trackOutput.audioTimePitchAlgorithm = c.audioTimePitchAlgorithm }
                output = trackOutput
            }
            output.alwaysCopiesSampleData = false
            let input = AVAssetWriterInput(mediaType: plan.mediaType, outputSettings: plan.writerSettings, sourceFormatHint: plan.hint)
            input.transform = plan.transform
            input.languageCode = plan.languageCode
            if plan.mediaTimeScale > 0 { input.mediaTimeScale = plan.mediaTimeScale }
            input.expectsMediaDataInRealTime = false
            guard reader.canAdd(output) else {
                return ExportPlanner.unsupported("The \(plan.mediaType.spokenName) track cannot be read for this export.")
            }
            guard writer.canAdd(input) else {
                return ExportPlanner.unsupported("The \(plan.mediaType.spokenName) track with settings {\(plan.settingsSummary)} "
                                                 + "cannot be written to a \(c.fileType.rawValue) file.")
            }
            reader.add(output)
            writer.add(input)
            pairs.append(ExportPair(output: output, input: input))
        }
        writer.metadata = c.metadata
        writer.shouldOptimizeForNetworkUse = c.optimizeForNetworkUse
        if let directory = c.directoryForTemporaryFiles { writer.directoryForTemporaryFiles = directory }
        let proceed: Bool = lock.withLock {
            self.reader = reader
            self.writer = writer
            return !cancelled
        }
        guard proceed else { return ExportRun.cancelledError() }
        guard reader.startReading() else {
            return reader.error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The source cannot be read."])
        }
        guard writer.startWriting() else {
            reader.cancelReading()
            return writer.error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The output cannot be written."])
        }
        writer.startSession(atSourceTime: range.start)

        let group = DispatchGroup()
        let speed = c.preset.speed
        let progressDuration = range.duration.isNumeric ? range.duration : duration
        let allPairs = pairs
        // Every pair is in the group before any pump starts: a pump that finds the source
        // damaged ends all pairs at once (stopAll), and a pair ended before its onEnd was set
        // would never leave the group (the export hung).
        for pair in allPairs {
            group.enter()
            pair.onEnd = { group.leave() }
        }
        for (index, pair) in allPairs.enumerated() {
            let queue = DispatchQueue(label: "AVAssetExportSession.track\(index)")
            pair.input.requestMediaDataWhenReady(on: queue) { [self] in
                Encoder.$speedPreset.withValue(speed) {
                    pump(pair, reader: reader, writer: writer, pairs: allPairs, start: range.start, duration: progressDuration)
                }
            }
        }
        lock.withLock { activePairs = pairs }
        if isCancelled { for pair in pairs { pair.end() } }
        group.wait()

        if isCancelled {
            if writer.status == .writing { writer.cancelWriting() }
            return ExportRun.cancelledError()
        }
        if reader.status == .failed || writer.status == .failed {
            let error = reader.status == .failed ? reader.error : writer.error
            reader.cancelReading()
            if writer.status == .writing { writer.cancelWriting() }
            try? FileManager.default.removeItem(at: url)
            return error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The export failed."])
        }
        var end = range.end
        if lock.withLock({ fileLimitReached }) {
            end = pairs.map { $0.lastEnd ?? range.start }.min() ?? range.start
        }
        // The session ends at the range's end even for the whole asset: stored AAC packets are
        // whole frames, and the end of the movie's edit hides their padding (the source's
        // decoded length is kept, not rounded up to a frame).
        if end.isNumeric, end > range.start {
            writer.endSession(atSourceTime: end)
        }
        let finished = DispatchSemaphore(value: 0)
        writer.finishWriting { finished.signal() }
        finished.wait()
        if isCancelled {
            try? FileManager.default.removeItem(at: url)
            return ExportRun.cancelledError()
        }
        if writer.status != .completed {
            try? FileManager.default.removeItem(at: url)
            return writer.error ?? AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "The export failed."])
        }
        return nil
    }

    /// Moves samples from a pair's output to its input while the input is ready.
    private func pump(_ pair: ExportPair, reader: AVAssetReader, writer: AVAssetWriter, pairs: [ExportPair], start: CMTime, duration: CMTime) {
        guard !pair.ended else { return }
        if isCancelled || writer.status != .writing {
            pair.end()
            return
        }
        var appended = 0
        while pair.input.isReadyForMoreMediaData {
            if isCancelled || lock.withLock({ fileLimitReached }) {
                pair.input.markAsFinished()
                pair.end()
                return
            }
            guard let sample = pair.output.copyNextSampleBuffer() else {
                guard reader.status != .failed else {
                    // The source failed (damaged, truncated or gone while exporting): stop every
                    // pair now. The other inputs may wait for this one (interleaving) and this
                    // one, never finished, would stay ready; cancelling the writer ends both.
                    stopAll(pairs: pairs, writer: writer)
                    return
                }
                pair.input.markAsFinished()
                pair.end()
                return
            }
            let pts = CMSampleBufferGetPresentationTimeStamp(sample)
            let sampleDuration = CMSampleBufferGetDuration(sample)
            guard pair.input.append(sample) else {
                pair.end()
                return
            }
            if pts.isNumeric {
                let sampleEnd = sampleDuration.isNumeric ? CMTimeAdd(pts, sampleDuration) : pts
                pair.lastEnd = max(pair.lastEnd ?? sampleEnd, sampleEnd)
            }
            appended += 1
            if appended % 16 == 0 { report(pairs: pairs, start: start, duration: duration) }
            if configuration.fileLengthLimit > 0, appended % 8 == 0, fileSize() >= configuration.fileLengthLimit * 97 / 100 {
                lock.withLock { fileLimitReached = true }
            }
        }
        report(pairs: pairs, start: start, duration: duration)
    }

    /// Ends every pair after a reading failure: the writer is cancelled (its requesters stop and
    /// its partial file goes) and `runSteps` reports the reader's error.
    private func stopAll(pairs: [ExportPair], writer: AVAssetWriter) {
        if writer.status == .writing { writer.cancelWriting() }
        for pair in pairs { pair.end() }
    }

    private func fileSize() -> Int64 {
        var info = stat()
        return stat(configuration.outputURL.path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Publishes the progress: the least advanced unfinished pair's share of the range, never
    /// falling, below 1 until the file is complete.
    private func report(pairs: [ExportPair], start: CMTime, duration: CMTime) {
        guard duration.isNumeric, duration > .zero else { return }
        var least = 1.0
        for pair in pairs where !pair.ended {
            let done = pair.lastEnd.map { CMTimeSubtract($0, start).seconds / duration.seconds } ?? 0
            least = min(least, done)
        }
        let value = Float(min(0.99, max(0, least)))
        let changed: Bool = lock.withLock {
            guard value > progressValue else { return false }
            progressValue = value
            return true
        }
        if changed { onProgress(value) }
    }
}

/// One reader output feeding one writer input.
final class ExportPair: @unchecked Sendable {
    let output: AVAssetReaderOutput
    let input: AVAssetWriterInput
    private let lock = NSLock()
    private var didEnd = false
    private var storedLastEnd: CMTime?
    var onEnd: (@Sendable () -> Void)?

    init(output: AVAssetReaderOutput, input: AVAssetWriterInput) {
        self.output = output
        self.input = input
    }

    var ended: Bool { lock.withLock { didEnd } }

    /// The latest source time written (sample end).
    var lastEnd: CMTime? {
        get { lock.withLock { storedLastEnd } }
        set { lock.withLock { storedLastEnd = newValue } }
    }

    /// Ends the pair once.
    func end() {
        let first: Bool = lock.withLock {
            guard !didEnd else { return false }
            didEnd = true
            return true
        }
        if first { onEnd?() }
    }
}

extension ExportPreset {
    /// The x264/x265 speed preset the video encoder runs with.
    var speed: String? {
        if case .encode(_, _, _, _, _, let speed) = video { return speed }
        return nil
    }
}

/// What an export would write, for tools (`avtool convert --verbose`); not part of Apple's API,
/// hence behind an SPI.
@_spi(Tools) public enum ExportPlanInspection {
    /// One line per written track: the reader→writer settings, or passthrough.
    public static func plans(asset: AVAsset, presetName: String, fileType: AVFileType) throws -> [String] {
        guard let preset = ExportPreset.named(presetName) else { return [] }
        var lines = try ExportPlanner.plan(asset: asset, preset: preset, fileType: fileType, audioMix: nil).map(\.summary)
        if let speed = preset.speed { lines.append("video encoder speed preset: \(speed)") }
        return lines
    }
}
