// AudioReaderSource: the sample source behind reader outputs that decode audio — one track
// converted to linear PCM (AVAssetReaderTrackOutput with audio settings) or several tracks mixed
// (AVAssetReaderAudioMixOutput), honouring an audio mix's volumes, trimmed to the reader's time
// range sample by sample.
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization
internal import MediaEngine

/// Decodes audio tracks into linear PCM sample buffers.
///
/// Output: `CMSampleBuffer`s of up to `framesPerBuffer` frames, each with a
/// `CMAudioFormatDescription` made from the output's `AudioStreamBasicDescription` and channel
/// layout, a `CMBlockBuffer` holding the samples (non-interleaved channels one after another, so
/// `CMSampleBufferGetAudioBufferListWithRetainedBlockBuffer` gives one buffer per channel), and
/// one timing entry: each sample lasts 1/sample rate, the first at `index/sample rate` (timescale
/// = the sample rate). Only samples whose times fall in the reader's time range are delivered.
///
/// Each track is read in the asset's timeline by an `AudioSegmentReader` (its segments walked,
/// sample-exactly). One track without volume changes is converted straight to the output format.
/// Several tracks (or one with an audio mix's volume changes, or a mix output's track whose
/// preferred volume is not 1) go through the `AudioMixer` stage: each read as 32-bit float at the
/// output rate and channel layout, scaled by its volume, summed, and converted to the output
/// format — clipping when that is integer. The mix runs from the earliest sample of any track to
/// the last, with silence where a track has none. Scaled segments are rendered with each track's
/// time-pitch algorithm: its audio mix input parameters' when set, else the output's.
final class AudioReaderSource: ReaderSampleSource {
    /// Frames per sample buffer at most (Apple documents no size; this bounds memory).
    static let framesPerBuffer = 8192

    let tracks: [AVAssetTrack]
    /// The PCM the output delivers.
    let format: AudioPCMFormat
    /// The description every sample buffer carries.
    let formatDescription: CMAudioFormatDescription
    private let curves: [AudioVolumeCurve?]
    private var pendingRanges: [CMTimeRange] = []
    /// One reader per track, made once and repositioned for every range (a seek reuses the
    /// demuxers and decoders).
    private let readers: [AudioSegmentReader]
    /// Whether the readers are positioned on a range being read.
    private var reading = false
    private var mixer: AudioMixer?
    /// Set by `cancel()` from any thread; cleared by the next `reset`.
    private let cancelled = Atomic<Bool>(false)

    /// Whether the tracks are mixed (several tracks, or volume changes) rather than converted.
    var isMixing: Bool { tracks.count > 1 || curves.contains { $0 != nil } }

    /// A source for `tracks` (one for a track output, one or more for a mix output) delivering
    /// `audioSettings` (linear PCM; nil for the default format: 32-bit float, non-interleaved, at
    /// the tracks' highest sample rate and with the channels of the track that has most).
    ///
    /// The settings must have passed `settingsProblem(_:tracks:outputClass:)`; the files are
    /// opened by `start`. A mix output (`appliesPreferredVolume`) scales each track by its
    /// `preferredVolume`, as playback and export do; a track output delivers samples as decoded.
    init(tracks: [AVAssetTrack], audioSettings: [String: Any]?, audioMix: AVAudioMix?,
         timePitchAlgorithm: AVAudioTimePitchAlgorithm = .spectral, appliesPreferredVolume: Bool = false) throws {
        guard !tracks.isEmpty else { throw AVError(.invalidSourceMedia, userInfo: [NSLocalizedFailureReasonErrorKey: "No audio tracks."]) }
        if let track = tracks.first(where: { $0.stream.kind != .audio }) {
            throw AVError(.invalidSourceMedia, userInfo: [NSLocalizedFailureReasonErrorKey: "Track \(track.trackID) is not an audio track."])
        }
        self.tracks = tracks
        let settings = try AudioOutputSettings.parse(audioSettings ?? [:]).get()
        let resolved = settings.resolve(for: tracks.map(\.stream), defaultFormat: audioSettings == nil)
        format = resolved.format
        guard let description = PCMSampleBuffers.formatDescription(format, layout: resolved.layoutData) else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "Cannot describe \(format)."])
        }
        formatDescription = description
        let rate = format.sampleRate
        curves = tracks.map { track in
            let scale = appliesPreferredVolume ? track.preferredVolume : 1
            guard let parameters = audioMix?.parameters(forTrackID: track.trackID) else {
                return AudioVolumeCurve(ramps: [], scale: scale, rate: rate)
            }
            return parameters.volumeCurve(rate: rate, scale: scale)
        }
        let algorithms = tracks.map { audioMix?.parameters(forTrackID: $0.trackID)?.audioTimePitchAlgorithm ?? timePitchAlgorithm }
        let readerFormat = tracks.count > 1 || curves.contains { $0 != nil } ? AudioMixer.mixFormat(for: format) : format
        readers = zip(tracks, algorithms).map { track, algorithm in
            AudioSegmentReader(segments: track.mediaSegments, output: readerFormat, algorithm: algorithm)
        }
    }

    // MARK: ReaderSampleSource

    func start(timeRange: CMTimeRange) throws {
        try reset(timeRanges: [timeRange])
    }

    func reset(timeRanges: [CMTimeRange]) throws {
        closeRange()
        cancelled.store(false, ordering: .relaxed)
        pendingRanges = timeRanges
        try openNextRange()
    }

    func next() throws -> CMSampleBuffer? {
        while !isCancelled {
            if !reading {
                guard !pendingRanges.isEmpty else { return nil }
                try openNextRange()
                continue
            }
            do {
                let block = try mixer.map { try $0.next() } ?? readers[0].read(maxFrames: AudioReaderSource.framesPerBuffer)
                if let block { return try makeSampleBuffer(block) }
            } catch where isCancelled {
                break
            }
            closeRange()
        }
        closeRange()
        pendingRanges = []
        return nil
    }

    /// Stops reading; safe to call from another thread while `next()` blocks (it then returns nil).
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
        for reader in readers { reader.cancel() }
    }

    private var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    // MARK: Readers

    /// Positions every track's reader on the next range, and makes the mixer over them when
    /// mixing.
    private func openNextRange() throws {
        guard !pendingRanges.isEmpty else { return }
        let range = pendingRanges.removeFirst()
        for reader in readers { try reader.reposition(to: range) }
        reading = true
        if isCancelled { for reader in readers { reader.cancel() } }
        if isMixing {
            mixer = try AudioMixer(inputs: Array(zip(readers, curves)), output: format, framesPerBuffer: AudioReaderSource.framesPerBuffer)
        }
    }

    private func closeRange() {
        reading = false
        mixer = nil
    }

    // MARK: Sample buffers

    private func makeSampleBuffer(_ block: AudioPCMBlock) throws -> CMSampleBuffer {
        guard let sampleBuffer = PCMSampleBuffers.sampleBuffer(block.data, frameCount: block.frameCount, description: formatDescription,
                                                               pts: CMTime(value: block.startIndex, timescale: Int32(format.sampleRate))) else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "Cannot make an audio sample buffer."])
        }
        return sampleBuffer
    }

}

// MARK: - Audio settings

/// The linear PCM audio settings a reader output was given, checked.
struct AudioOutputSettings {
    var sampleRate: Int?
    var channelCount: Int?
    var layout: (channels: AudioChannelSet, data: Data)?
    var bitDepth: Int?
    var isFloat: Bool?
    var isBigEndian: Bool?
    var isNonInterleaved: Bool?

    /// The keys a linear PCM reader output accepts.
    static let acceptedKeys: Set<String> = [
        AVFormatIDKey, AVSampleRateKey, AVNumberOfChannelsKey, AVChannelLayoutKey, AVLinearPCMBitDepthKey,
        AVLinearPCMIsFloatKey, AVLinearPCMIsBigEndianKey, AVLinearPCMIsNonInterleaved, AVSampleRateConverterAlgorithmKey,
    ]

    /// Checks `settings`; the failure is the message Apple's exception carries.
    static func parse(_ settings: [String: Any]) -> Result<AudioOutputSettings, AVError> {
        switch check(settings) {
        case .success(let parsed): return .success(parsed)
        case .failure(let message):
            return .failure(AVError(.unsupportedOutputSettings, userInfo: [NSLocalizedFailureReasonErrorKey: message]))
        }
    }

    static func check(_ settings: [String: Any], outputClass: String = "AVAssetReaderOutput") -> Result<AudioOutputSettings, SettingsProblem> {
        var out = AudioOutputSettings()
        if settings[AVSampleRateConverterAudioQualityKey] != nil {
            return .failure(SettingsProblem("AVSampleRateConverterAudioQualityKey is not supported"))
        }
        if let key = settings.keys.sorted().first(where: { !acceptedKeys.contains($0) }) {
            return .failure(SettingsProblem("audio settings key \(key) is not supported for linear PCM output"))
        }
        if let value = settings[AVFormatIDKey] {
            guard let id = number(value).flatMap({ UInt32(exactly: $0) }) else {
                return .failure(SettingsProblem("the value for AVFormatIDKey must be a format ID"))
            }
            guard id == kAudioFormatLinearPCM else {
                return .failure(SettingsProblem("\(outputClass) does not currently support compressed output (AVFormatIDKey must be kAudioFormatLinearPCM)"))
            }
        }
        if let value = settings[AVSampleRateKey] {
            guard let rate = number(value), rate.isFinite, rate >= 1, rate <= 1_536_000, rate == rate.rounded() else {
                return .failure(SettingsProblem("the value for AVSampleRateKey must be a whole number of hertz from 1 to 1536000"))
            }
            out.sampleRate = Int(rate)
        }
        if let value = settings[AVNumberOfChannelsKey] {
            guard let count = number(value), count == count.rounded(), count >= 1, count <= 64 else {
                return .failure(SettingsProblem("the value for AVNumberOfChannelsKey must be a channel count from 1 to 64"))
            }
            out.channelCount = Int(count)
        }
        if let value = settings[AVChannelLayoutKey] {
            guard let data = (value as? Data) ?? (value as? NSData).map({ Data(referencing: $0) }),
                  let channels = AudioChannelSet(audioChannelLayout: data) else {
                return .failure(SettingsProblem("the value for AVChannelLayoutKey must be Data holding an AudioChannelLayout"))
            }
            if let count = out.channelCount, count != channels.count {
                return .failure(SettingsProblem("AVChannelLayoutKey describes \(channels.count) channels but AVNumberOfChannelsKey is \(count)"))
            }
            out.layout = (channels, data)
        }
        for (key, path) in [(AVLinearPCMIsFloatKey, \AudioOutputSettings.isFloat), (AVLinearPCMIsBigEndianKey, \.isBigEndian),
                            (AVLinearPCMIsNonInterleaved, \.isNonInterleaved)] {
            guard let value = settings[key] else { continue }
            guard let flag = boolean(value) else { return .failure(SettingsProblem("the value for \(key) must be a Boolean")) }
            out[keyPath: path] = flag
        }
        if let value = settings[AVLinearPCMBitDepthKey] {
            guard let bits = number(value), [8, 16, 24, 32, 64].contains(bits) else {
                return .failure(SettingsProblem("the value for AVLinearPCMBitDepthKey must be 8, 16, 24 or 32"))
            }
            out.bitDepth = Int(bits)
        }
        if out.isFloat == true, let bits = out.bitDepth, bits != 32 && bits != 64 {
            return .failure(SettingsProblem("floating-point linear PCM must be 32 or 64 bits deep, not \(bits)"))
        }
        if out.isFloat != true, out.bitDepth == 64 {
            return .failure(SettingsProblem("integer linear PCM must be 8, 16, 24 or 32 bits deep, not 64"))
        }
        if let value = settings[AVSampleRateConverterAlgorithmKey] {
            let known = [AVSampleRateConverterAlgorithm_Normal, AVSampleRateConverterAlgorithm_Mastering,
                         AVSampleRateConverterAlgorithm_MinimumPhase]
            guard let name = value as? String ?? (value as? NSString).map({ String(describing: $0) }), known.contains(name) else {
                return .failure(SettingsProblem("the value for AVSampleRateConverterAlgorithmKey must be an AVSampleRateConverterAlgorithm constant"))
            }
        }
        return .success(out)
    }

    /// The output format for these settings and the tracks' streams, with its channel layout.
    /// Missing keys take Apple's defaults: the source's sample rate and channels, 16-bit
    /// (32-bit when float) little-endian interleaved integers; with no settings at all,
    /// `defaultFormat`: 32-bit float, non-interleaved.
    func resolve(for streams: [StreamInfo], defaultFormat: Bool) -> (format: AudioPCMFormat, layoutData: Data) {
        let sourceRate = streams.map(\.sampleRate).max() ?? 44100
        let widest = streams.max { $0.channelCount < $1.channelCount }
        let sourceChannels: AudioChannelSet = widest.map { stream in
            if stream.channelMask != 0, let set = AudioChannelSet(mask: stream.channelMask), set.count == stream.channelCount { return set }
            return AudioChannelSet(count: max(1, stream.channelCount)).resolved
        } ?? .stereo
        let channels: AudioChannelSet
        if let layout {
            channels = layout.channels
        } else if let count = channelCount, count != sourceChannels.count {
            channels = AudioChannelSet(count: count).resolved
        } else {
            channels = sourceChannels
        }
        let float = isFloat ?? defaultFormat
        let bits = bitDepth ?? (float ? 32 : 16)
        let format = AudioPCMFormat(sampleRate: sampleRate ?? (sourceRate > 0 ? sourceRate : 44100), channels: channels,
                                    sampleType: float ? .float : (bits == 8 ? .unsignedInteger : .signedInteger), bitsPerSample: bits,
                                    isBigEndian: isBigEndian ?? false, isInterleaved: !(isNonInterleaved ?? defaultFormat))
        return (format, layout?.data ?? channels.audioChannelLayout)
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let v as Int: return Double(v)
        case let v as Int32: return Double(v)
        case let v as UInt32: return Double(v)
        case let v as Int64: return Double(v)
        case let v as UInt: return Double(v)
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    private static func boolean(_ value: Any) -> Bool? {
        switch value {
        case let v as Bool: return v
        case let v as NSNumber: return v.boolValue
        default: return number(value).map { $0 != 0 }
        }
    }
}

/// Why audio settings cannot be used: the text of the exception Apple raises.
struct SettingsProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

extension AudioReaderSource {
    /// Why `settings` cannot configure an audio reader output for `tracks` (the reason Apple's
    /// initializer raises an exception for), or nil when they can. Outputs call this in their
    /// initializers and stop with the message; `outputClass` names the output in it
    /// ("AVAssetReaderTrackOutput does not currently support compressed output").
    static func settingsProblem(_ settings: [String: Any]?, tracks: [AVAssetTrack], outputClass: String) -> String? {
        if let track = tracks.first(where: { $0.mediaType != .audio }) {
            return "track \(track.trackID) has media type \(track.mediaType.rawValue); audio output requires tracks of media type AVMediaTypeAudio"
        }
        guard let settings else { return nil }
        switch AudioOutputSettings.check(settings, outputClass: outputClass) {
        case .success: return nil
        case .failure(let problem): return problem.message
        }
    }
}
