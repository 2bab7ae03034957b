// AudioReaderSource: the sample source behind reader outputs that decode audio — one track
// converted to linear PCM (AVAssetReaderTrackOutput with audio settings) or several tracks mixed
// (AVAssetReaderAudioMixOutput), honouring an audio mix's volumes, trimmed to the reader's time
// range sample by sample.
import CoreAudioTypes
import CoreMedia
import Foundation
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
/// One track without volume changes is converted straight to the output format. Several tracks
/// (or one with an audio mix's volume changes) are each converted to 32-bit float at the output
/// rate and channel layout, scaled by their volume sample by sample, summed, and converted to the
/// output format — clipping when that is integer. The mix runs from the earliest sample of any
/// track to the last, with silence where a track has none.
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
    private var lanes: [Lane] = []
    private var mixer: AudioResampler?
    private var mixPosition: Int64?
    /// Guards `cancelled` and `openReaders`, which `cancel()` may touch from another thread to
    /// stop a read that blocks; everything else belongs to the reading thread.
    private let cancellation = NSLock()
    private var cancelled = false
    private var openReaders: [AudioStreamReader] = []

    /// Whether the tracks are mixed (several tracks, or volume changes) rather than converted.
    var isMixing: Bool { tracks.count > 1 || curves.contains { $0 != nil } }

    /// A source for `tracks` (one for a track output, one or more for a mix output) delivering
    /// `audioSettings` (linear PCM; nil for the default format: 32-bit float, non-interleaved, at
    /// the tracks' highest sample rate and with the channels of the track that has most).
    ///
    /// The settings must have passed `settingsProblem(_:tracks:outputClass:)`; the files are
    /// opened by `start`.
    init(tracks: [AVAssetTrack], audioSettings: [String: Any]?, audioMix: AVAudioMix?) throws {
        guard !tracks.isEmpty else { throw AVError(.invalidSourceMedia, userInfo: [NSLocalizedFailureReasonErrorKey: "No audio tracks."]) }
        if let track = tracks.first(where: { $0.stream.kind != .audio }) {
            throw AVError(.invalidSourceMedia, userInfo: [NSLocalizedFailureReasonErrorKey: "Track \(track.trackID) is not an audio track."])
        }
        self.tracks = tracks
        let settings = try AudioOutputSettings.parse(audioSettings ?? [:]).get()
        let resolved = settings.resolve(for: tracks.map(\.stream), defaultFormat: audioSettings == nil)
        format = resolved.format
        guard let description = AudioReaderSource.makeFormatDescription(format, layout: resolved.layoutData) else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "Cannot describe \(format)."])
        }
        formatDescription = description
        curves = tracks.map { audioMix?.parameters(forTrackID: $0.trackID)?.volumeCurve }
    }

    // MARK: ReaderSampleSource

    func start(timeRange: CMTimeRange) throws {
        try reset(timeRanges: [timeRange])
    }

    func reset(timeRanges: [CMTimeRange]) throws {
        closeLanes()
        cancellation.withLock { cancelled = false }
        pendingRanges = timeRanges
        try openNextRange()
    }

    func next() throws -> CMSampleBuffer? {
        while !isCancelled {
            if lanes.isEmpty {
                guard !pendingRanges.isEmpty else { return nil }
                try openNextRange()
                continue
            }
            do {
                let block = try isMixing ? mixNext() : lanes[0].read(maxFrames: AudioReaderSource.framesPerBuffer)
                if let block { return try makeSampleBuffer(block) }
            } catch where isCancelled {
                break
            }
            closeLanes()
        }
        closeLanes()
        pendingRanges = []
        return nil
    }

    /// Stops reading; safe to call from another thread while `next()` blocks (it then returns nil).
    func cancel() {
        cancellation.withLock {
            cancelled = true
            for reader in openReaders { reader.cancel() }
            openReaders = []
        }
    }

    private var isCancelled: Bool { cancellation.withLock { cancelled } }

    // MARK: Lanes

    /// One track being read.
    private final class Lane {
        let track: AVAssetTrack
        let reader: AudioStreamReader
        let curve: AudioVolumeCurve?
        /// Float planes of frames read but not yet mixed, the first at `bufferStart`.
        var planes: [[Float]]
        var bufferStart: Int64?
        var ended = false

        init(track: AVAssetTrack, reader: AudioStreamReader, curve: AudioVolumeCurve?, channels: Int) {
            self.track = track
            self.reader = reader
            self.curve = curve
            planes = Array(repeating: [], count: channels)
        }

        var bufferedFrames: Int { planes.first?.count ?? 0 }
        var bufferEnd: Int64? { bufferStart.map { $0 + Int64(bufferedFrames) } }

        func read(maxFrames: Int) throws -> AudioPCMBlock? {
            do {
                return try reader.read(maxFrames: maxFrames)
            } catch {
                throw AVError.from(error, url: track.engine.url)
            }
        }

        /// Reads one more block into the float planes; false at the end of the track.
        func fill() throws -> Bool {
            guard !ended, let block = try read(maxFrames: AudioReaderSource.framesPerBuffer) else {
                ended = true
                return false
            }
            if let end = bufferEnd, end < block.startIndex {
                // A gap in the track's timeline (a later block never starts earlier): silence.
                let gap = Int(block.startIndex - end)
                for c in planes.indices { planes[c].append(contentsOf: repeatElement(0, count: gap)) }
            }
            if bufferStart == nil { bufferStart = block.startIndex }
            block.data.withUnsafeBytes { raw in
                let floats = raw.bindMemory(to: Float.self)
                for c in planes.indices {
                    planes[c].append(contentsOf: floats[(c * block.frameCount)..<((c + 1) * block.frameCount)])
                }
            }
            return true
        }

        /// Forgets the frames before `index`.
        func drop(before index: Int64) {
            guard let start = bufferStart, index > start else { return }
            let n = Int(min(Int64(bufferedFrames), index - start))
            for c in planes.indices { planes[c].removeFirst(n) }
            bufferStart = start + Int64(n)
        }
    }

    private func openNextRange() throws {
        guard !pendingRanges.isEmpty else { return }
        let range = pendingRanges.removeFirst()
        let laneFormat = isMixing ? AudioPCMFormat.float32Planar(sampleRate: format.sampleRate, channels: mixChannels) : format
        var opened: [Lane] = []
        for (track, curve) in zip(tracks, curves) {
            let start = range.start.isNumeric ? range.start : .zero
            var end = range.duration.isNumeric ? range.end : .positiveInfinity
            // FFmpeg applies an edit list's start but decodes whole packets at its end: trim there.
            if track.editListMappings() != nil, let trackEnd = try? track.loadedTimeRange().end, trackEnd.isNumeric {
                end = CMTimeMinimum(end, trackEnd)
            }
            do {
                let reader = try AudioStreamReader(url: track.engine.url, streamIndex: track.stream.index, output: laneFormat)
                try reader.start(from: start, to: end)
                opened.append(Lane(track: track, reader: reader, curve: curve, channels: laneFormat.channelCount))
            } catch {
                throw AVError.from(error, url: track.engine.url)
            }
        }
        lanes = opened
        cancellation.withLock {
            openReaders = opened.map(\.reader)
            if cancelled { for reader in openReaders { reader.cancel() } }
        }
        mixPosition = nil
        if isMixing {
            let mixFormat = AudioPCMFormat.float32Planar(sampleRate: format.sampleRate, channels: mixChannels)
            mixer = try engine { try AudioResampler(input: mixFormat, output: format) }
        }
    }

    private func closeLanes() {
        lanes = []
        cancellation.withLock { openReaders = [] }
        mixer = nil
        mixPosition = nil
    }

    /// The channels the mix is computed in: the output's, in FFmpeg's native order (the final
    /// conversion puts them in the output's order).
    private var mixChannels: AudioChannelSet {
        guard let positions = format.channels.positions else { return format.channels }
        return AudioChannelSet(positions: positions.sorted()) ?? format.channels
    }

    /// The next mixed block: every lane's float samples for the window, times its volume, summed.
    private func mixNext() throws -> AudioPCMBlock? {
        // Know where every lane starts before choosing where the mix starts.
        for lane in lanes where lane.bufferStart == nil && !lane.ended { _ = try lane.fill() }
        if mixPosition == nil {
            guard let first = lanes.compactMap(\.bufferStart).min() else { return try drainMixer(at: nil) }
            mixPosition = first
        }
        let position = mixPosition!
        var windowEnd = position + Int64(AudioReaderSource.framesPerBuffer)
        for lane in lanes {
            while !lane.ended, (lane.bufferEnd ?? .min) < windowEnd { _ = try lane.fill() }
        }
        if lanes.allSatisfy(\.ended) {
            let last = lanes.compactMap(\.bufferEnd).max() ?? position
            windowEnd = min(windowEnd, last)
        }
        let frames = Int(windowEnd - position)
        guard frames > 0 else { return try drainMixer(at: position) }
        let channels = mixChannels.count
        var sum = [Float](repeating: 0, count: frames * channels)
        for lane in lanes {
            guard let start = lane.bufferStart else { continue }
            let from = max(position, start), to = min(windowEnd, lane.bufferEnd ?? start)
            guard to > from else { continue }
            let count = Int(to - from), offset = Int(from - start), out = Int(from - position)
            let gains = lane.curve?.volumes(first: from, count: count, rate: format.sampleRate)
            for c in 0..<channels {
                lane.planes[c].withUnsafeBufferPointer { src in
                    sum.withUnsafeMutableBufferPointer { dst in
                        let d = dst.baseAddress! + c * frames + out, s = src.baseAddress! + offset
                        if let gains {
                            for i in 0..<count { d[i] += s[i] * gains[i] }
                        } else {
                            for i in 0..<count { d[i] += s[i] }
                        }
                    }
                }
            }
        }
        for lane in lanes { lane.drop(before: windowEnd) }
        mixPosition = windowEnd
        guard let mixer else { return nil }
        try engine { try sum.withUnsafeBytes { try mixer.append(bytes: $0, frameCount: frames) } }
        let data = mixer.read(frameCount: mixer.bufferedFrameCount)
        return AudioPCMBlock(startIndex: position, frameCount: frames, data: data)
    }

    /// The end of the mix (the final conversion has no delay, so there is nothing left to drain).
    private func drainMixer(at position: Int64?) throws -> AudioPCMBlock? {
        guard let mixer else { return nil }
        try engine { try mixer.finish() }
        let frames = mixer.bufferedFrameCount
        guard frames > 0, let position else { return nil }
        return AudioPCMBlock(startIndex: position, frameCount: frames, data: mixer.read(frameCount: frames))
    }

    private func engine<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MediaError {
            throw AVError.from(error, url: tracks.first?.engine.url)
        }
    }

    // MARK: Sample buffers

    private func makeSampleBuffer(_ block: AudioPCMBlock) throws -> CMSampleBuffer {
        var blockBuffer: CMBlockBuffer?
        var status = CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: block.data.count, blockAllocator: nil,
                                                        customBlockSource: nil, offsetToData: 0, dataLength: block.data.count,
                                                        flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &blockBuffer)
        guard status == noErr, let blockBuffer else { throw AVError(.outOfMemory) }
        status = block.data.withUnsafeBytes { raw in
            CMBlockBufferReplaceDataBytes(with: raw.baseAddress!, blockBuffer: blockBuffer, offsetIntoDestination: 0, dataLength: raw.count)
        }
        guard status == noErr else { throw AVError(.unknown) }
        var sampleBuffer: CMSampleBuffer?
        status = CMAudioSampleBufferCreateReadyWithPacketDescriptions(
            allocator: nil, dataBuffer: blockBuffer, formatDescription: formatDescription, sampleCount: block.frameCount,
            presentationTimeStamp: CMTime(value: block.startIndex, timescale: Int32(format.sampleRate)),
            packetDescriptions: nil, sampleBufferOut: &sampleBuffer)
        guard status == noErr, let sampleBuffer else {
            throw AVError(.unknown, userInfo: [NSLocalizedFailureReasonErrorKey: "Cannot make an audio sample buffer (\(status))."])
        }
        return sampleBuffer
    }

    /// An audio format description for `format`, with `layout` (AudioChannelLayout bytes).
    static func makeFormatDescription(_ format: AudioPCMFormat, layout: Data) -> CMAudioFormatDescription? {
        var asbd = format.streamBasicDescription
        var description: CMAudioFormatDescription?
        let status = layout.withUnsafeBytes { raw -> OSStatus in
            // The layout's bytes, copied into properly aligned memory.
            let size = max(raw.count, MemoryLayout<AudioChannelLayout>.size)
            let aligned = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<AudioChannelLayout>.alignment)
            defer { aligned.deallocate() }
            aligned.initializeMemory(as: UInt8.self, repeating: 0, count: size)
            aligned.copyMemory(from: raw.baseAddress!, byteCount: raw.count)
            return CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: raw.count,
                                                  layout: aligned.assumingMemoryBound(to: AudioChannelLayout.self),
                                                  magicCookieSize: 0, magicCookie: nil, extensions: nil, formatDescriptionOut: &description)
        }
        return status == noErr ? description : nil
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
