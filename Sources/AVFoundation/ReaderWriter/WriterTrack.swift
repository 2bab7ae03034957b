// WriterTrack: one input's worker — configures its stream from the first sample, turns samples
// into packets (video encoding, audio encoding, passthrough) with exact timestamps, and gives each
// packet its duration before it reaches the muxer.
import CoreAudioTypes
import CoreMedia
import CoreVideo
import Dispatch
import Foundation
internal import MediaEngine

/// The engine side of one AVAssetWriterInput. Worker state is touched only on `queue`; the
/// readiness fields (`pending`, `markedFinished`, `appendedEnd`) under the engine's lock.
final class WriterTrack: @unchecked Sendable {
    let index: Int
    weak var input: AVAssetWriterInput?
    unowned let engine: WriterEngine
    let queue: DispatchQueue

    /// The input's configuration, snapshotted at startWriting.
    let config: WriterTrackConfiguration
    /// The most samples queued before the input stops being ready.
    let capacity: Int

    // Readiness (engine lock).
    var pending = 0
    var markedFinished = false
    var appendedEnd: CMTime?

    // Set once on the worker, read by other tracks' workers writing the header (engine lock).
    private var configured = false
    /// Every queued sample has been handled after markAsFinished (engine lock).
    private var drained = false
    /// Whether the track's stream is described (its first sample arrived).
    var isConfigured: Bool { engine.lock.withLock { configured } }

    // Worker state (queue).
    private var sampleCount = 0
    private var encoder: Encoder?
    private var audioEncoder: EncoderAudio?
    private var audioInput: AudioPCMFormat?
    private var passthroughFormat: CMFormatDescription?
    private var timescale: Int32 = 600
    private var streamOptions = Muxer.StreamOptions(timescale: 600)
    private var held: EncodedPacket?
    private var lastPTS: CMTime?
    private var lastFrameDuration: CMTime = .invalid
    private var lastInterval: CMTime = .invalid
    /// The video encoder's first decode timestamp and earliest presentation timestamp (track
    /// units), for the last packet's duration.
    private var encodedDecodeStart: Int64?
    private var encodedPresentationStart: Int64?
    private var audioFramesPerPacket = 0
    var streamIndex: Int?

    init(index: Int, input: AVAssetWriterInput, engine: WriterEngine) {
        self.index = index
        self.input = input
        self.engine = engine
        queue = DispatchQueue(label: "AVAssetWriterInput.\(index)")
        let config = input.configurationSnapshot()
        self.config = config
        if let limit = config.pendingSampleLimit, limit > 0 {
            capacity = limit
        } else if config.mediaType == .video, config.settings != nil {
            capacity = config.realTime ? 8 : 4
        } else {
            capacity = 64
        }
    }

    /// Finished, and drained, without any sample: the track is left out of the file.
    var finishedWithoutSamples: Bool { engine.lock.withLock { drained && !configured } }

    var url: URL { engine.url }

    /// Frees the encoders once writing is over.
    func releaseCodecs() {
        queue.async { [self] in
            encoder = nil
            audioEncoder = nil
        }
    }

    // MARK: Samples

    func process(_ item: WriterItem) throws {
        guard let start = engine.sessionStart else { return }
        switch item {
        case .pixelBuffer(let buffer, let pts):
            try encodePicture(buffer, pts: pts, duration: .invalid, start: start)
        case .sampleBuffer(let sample):
            if config.mediaType == .video, config.settings != nil {
                guard let image = CMSampleBufferGetImageBuffer(sample) else { return }
                try encodePicture(image, pts: CMSampleBufferGetPresentationTimeStamp(sample),
                                  duration: CMSampleBufferGetDuration(sample), start: start)
            } else if config.mediaType == .audio, case .audio(let audio)? = config.settings {
                try encodeAudio(sample, settings: audio, start: start)
            } else {
                try passThrough(sample, start: start)
            }
        }
    }

    /// Drains the encoder and writes the held packet with the track's last duration.
    func finishStream() throws {
        if let audioEncoder {
            do {
                for packet in try audioEncoder.finish() { try submit(packet) }
            } catch let error as MediaError {
                throw AVError.from(error, writingTo: url, encoding: true)
            }
        }
        if let encoder {
            do {
                try encoder.finish()
                for packet in try encoder.receivePackets() { try submit(packet, ownDuration: false) }
            } catch let error as MediaError {
                throw AVError.from(error, writingTo: url, encoding: true)
            }
        }
        if let last = held {
            held = nil
            if last.duration <= 0 { last.duration = max(1, finalDecodeDuration(of: last)) }
            try engine.write(last, track: self)
        }
        engine.lock.withLock { drained = true }
    }

    /// The duration of the last packet, in track units.
    private func finalDuration() -> Int64 {
        var duration = lastFrameDuration
        if let end = engine.sessionEnd, let last = lastPTS, end > last { duration = CMTimeSubtract(end, last) }
        if !duration.isNumeric || duration <= .zero { duration = lastInterval }
        if duration.isNumeric, duration > .zero { return toTrack(duration) }
        if case .video(let v)? = config.settings, let fps = v.expectedFrameRate, fps > 0 { return max(1, Int64((Double(timescale) / fps).rounded())) }
        return max(1, Int64(timescale / 30))
    }

    /// The duration of the last packet in decode order, in track units. Without frame
    /// reordering it is the last frame's (`finalDuration()`). With it, the decode time left so
    /// that the media's sample durations add up to its presentation span (the first frame's
    /// time to the last frame's end): players take the media's length from that sum — FFmpeg's
    /// mov demuxer gives it as the stream's and the movie's duration — and where frames last
    /// unevenly (a frame cut at an edit, a frame shown through a gap) the encoder's reorder
    /// delay at the start differs from the last frame's duration, so that frame's length alone
    /// would leave the media short of its presentation (or reaching past it).
    private func finalDecodeDuration(of last: EncodedPacket) -> Int64 {
        let shown = finalDuration()
        guard let dts = last.dts, let firstDTS = encodedDecodeStart, let firstPTS = encodedPresentationStart,
              let lastPTS, let start = engine.sessionStart else { return shown }
        let end = trackTime(lastPTS, start: start).addingReportingOverflow(shown)
        let span = end.partialValue.subtractingReportingOverflow(firstPTS)
        let decoded = dts.subtractingReportingOverflow(firstDTS)
        let left = span.partialValue.subtractingReportingOverflow(decoded.partialValue)
        guard !end.overflow, !span.overflow, !decoded.overflow, !left.overflow, left.partialValue > 0 else { return shown }
        return left.partialValue
    }

    /// A time as a count of track units (rounded to nearest).
    private func toTrack(_ time: CMTime) -> Int64 {
        CMTimeConvertScale(time, timescale: timescale, method: .roundHalfAwayFromZero).value
    }

    /// The track timestamp of source time `time`.
    private func trackTime(_ time: CMTime, start: CMTime) -> Int64 {
        toTrack(CMTimeSubtract(time, start))
    }

    /// The timescale for video whose first session-relative time is `offset`: its own when fine
    /// enough, else a multiple of 600 (Apple's customary video timescale). Timescales above
    /// 1 MHz — host-clock capture times in nanoseconds, or CMTime's largest timescale where a
    /// sum of such times with frame durations overflowed — become 90 kHz: a frame lasting
    /// more than 2^32 ticks (4.3 s at 1 GHz: a paused live recording) cannot be written in a
    /// 32-bit sample table entry.
    static func videoTimescale(for offset: CMTime) -> Int32 {
        let ts = Int64(max(1, offset.timescale))
        if ts > 1_000_000 { return 90_000 }
        if ts >= 600 { return Int32(ts) }
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        let lcm = ts / gcd(ts, 600) * 600
        return lcm <= Int64(Int32.max) ? Int32(lcm) : 600
    }

    /// Holds `packet` until the next one gives it a duration; writes the one held before.
    /// `ownDuration` false: the packet's duration is replaced by the decode time to the next one
    /// (encoders report a nominal frame duration, not the appended timing).
    private func submit(_ packet: EncodedPacket, ownDuration: Bool = true) throws {
        if !ownDuration {
            packet.duration = 0
            if encodedDecodeStart == nil { encodedDecodeStart = packet.dts }
            if let pts = packet.pts, encodedPresentationStart.map({ pts < $0 }) ?? true { encodedPresentationStart = pts }
        }
        if let previous = held {
            if previous.duration <= 0 {
                let a = previous.dts ?? previous.pts ?? 0, b = packet.dts ?? packet.pts ?? a
                // Times from a source file (a fragment starting near 2^63 in a timescale of 1)
                // may be too far apart for a duration: that is an error, not a trap.
                let (gap, overflow) = b.subtractingReportingOverflow(a)
                guard !overflow else {
                    throw WriterError.invalidMedia("Two consecutive samples are too far apart in time (\(a) and \(b) in the track's timescale of \(timescale)).", url: url)
                }
                previous.duration = max(1, gap)
            }
            try engine.write(previous, track: self)
        }
        held = packet
    }

    // MARK: Video encoding

    private func encodePicture(_ buffer: CVPixelBuffer, pts: CMTime, duration: CMTime, start: CMTime) throws {
        guard case .video(let video)? = config.settings else { return }
        if let end = engine.sessionEnd, pts >= end { return }
        if let last = lastPTS, pts <= last {
            throw WriterError.invalidMedia("Pictures must be appended in increasing presentation time order: \(pts.seconds) s follows \(last.seconds) s.", url: url)
        }
        if !isConfigured {
            timescale = config.mediaTimeScale > 0 ? config.mediaTimeScale : WriterTrack.videoTimescale(for: CMTimeSubtract(pts, start))
            try configureEncoder(video, first: buffer)
        }
        if let last = lastPTS { lastInterval = CMTimeSubtract(pts, last) }
        lastPTS = pts
        lastFrameDuration = duration
        guard let encoder else { return }
        do {
            try encoder.encode(buffer, pts: trackTime(pts, start: start))
            sampleCount += 1
            for packet in try encoder.receivePackets() { try submit(packet, ownDuration: false) }
        } catch let error as MediaError {
            throw AVError.from(error, writingTo: url, encoding: true)
        }
    }

    private func configureEncoder(_ video: WriterVideoSettings, first buffer: CVPixelBuffer) throws {
        guard let codec = video.codec else { throw WriterError.unsupported("Encoding to \(video.codecType.rawValue) is not supported.", url: url) }
        let hintSize = config.hint.map { CMVideoFormatDescriptionGetDimensions($0) }
        let width = video.width ?? hintSize.map { Int($0.width) } ?? CVPixelBufferGetWidth(buffer)
        let height = video.height ?? hintSize.map { Int($0.height) } ?? CVPixelBufferGetHeight(buffer)
        var s = Encoder.VideoSettings(codec: codec, width: width, height: height, timescale: timescale,
                                      sourcePixelFormat: CVPixelBufferGetPixelFormatType(buffer))
        s.averageBitRate = video.averageBitRate
        s.quality = video.quality
        s.maxKeyFrameInterval = video.maxKeyFrameInterval
        s.maxKeyFrameIntervalDuration = video.maxKeyFrameIntervalDuration
        s.allowFrameReordering = video.allowFrameReordering
        s.profile = video.profile
        s.level = video.level
        s.expectedFrameRate = video.expectedFrameRate
        s.realTime = video.realTime ?? config.realTime
        if video.prioritizeSpeed { s.realTime = true }
        s.speedPreset = config.encoderSpeedPreset
        s.scaling = video.scaling
        s.entropyCABAC = video.entropyCABAC
        s.pixelAspect = video.pixelAspect
        s.dataRateLimit = video.dataRateLimit
        if let cbr = video.constantBitRate {
            // Constant bit rate: the average is the peak, over a one-second buffer.
            s.averageBitRate = cbr
            s.dataRateLimit = (cbr, cbr)
            s.constantBitRate = true
        }
        s.minQP = video.minQP
        s.maxQP = video.maxQP
        s.openGOP = video.openGOP
        if video.constrainedHigh { s.maxBFrames = 0 }
        if let rate = video.nonDroppableFrameRate {
            // B-frames fill the gap between the frame rate and the non-droppable rate.
            let fps = video.expectedFrameRate ?? 30
            s.maxBFrames = min(s.maxBFrames ?? 16, max(0, Int((fps / rate).rounded()) - 1))
        }
        var color = video.color
        if color.primaries == nil { color.primaries = attachment(kCVImageBufferColorPrimariesKey, of: buffer) }
        if color.transferFunction == nil { color.transferFunction = attachment(kCVImageBufferTransferFunctionKey, of: buffer) }
        if color.matrix == nil, PixelFormat.isYCbCr(CVPixelBufferGetPixelFormatType(buffer)) {
            color.matrix = attachment(kCVImageBufferYCbCrMatrixKey, of: buffer)
        }
        s.color = color
        // HDR10 metadata goes into HDR streams (PQ or HLG) unless the insertion mode is None, as
        // Video Toolbox decides from the output colour space.
        if video.insertHDRMetadata, [AVVideoTransferFunction_SMPTE_ST_2084_PQ, AVVideoTransferFunction_ITU_R_2100_HLG].contains(color.transferFunction) {
            s.masteringDisplay = video.masteringDisplay
            s.contentLightLevel = video.contentLightLevel
        }
        do {
            encoder = try Encoder(video: s)
        } catch {
            throw AVError.from(error, writingTo: url, encoding: true)
        }
        streamOptions = makeStreamOptions()
        streamOptions.codecTag = codec.sampleEntry
        if config.naturalSize.width > 0, config.naturalSize.height > 0, video.pixelAspect == nil, codec != .jpeg {
            // The track header's display size: stretch the width by naturalSize's aspect.
            let num = Int64((Double(config.naturalSize.width) * Double(height) * 1000).rounded())
            let den = Int64((Double(config.naturalSize.height) * Double(width) * 1000).rounded())
            if num > 0, den > 0, num != den {
                var r = AVRationalLike(num: num, den: den)
                r.reduce()
                streamOptions.displayAspect = (Int32(clamping: r.num), Int32(clamping: r.den))
            }
        }
        try markConfigured()
    }

    private func attachment(_ key: CFString, of buffer: CVPixelBuffer) -> String? {
        let value = CVBufferCopyAttachment(buffer, key, nil)
        return (value as? String) ?? (value as? NSString).map { $0 as String }
    }

    private func makeStreamOptions() -> Muxer.StreamOptions {
        var o = Muxer.StreamOptions(timescale: timescale)
        o.language = config.language
        o.transform = engine.container.isQuickTime ? config.transform : .identity
        o.metadata = config.metadata
        return o
    }

    private func markConfigured() throws {
        engine.lock.withLock { configured = true }
        try engine.writeHeaderIfReady()
    }

    /// Adds this track's stream to `muxer` (the header is being written).
    func addStream(to muxer: Muxer) throws -> Int {
        if let encoder { return try muxer.addStream(encodedBy: encoder, options: streamOptions) }
        if let audioEncoder { return try muxer.addStream(encodedBy: audioEncoder, options: streamOptions) }
        guard let passthroughFormat else { throw MediaError.invalidArgument(message: "track has no format") }
        return try muxer.addStream(formatDescription: passthroughFormat, options: streamOptions)
    }

    // MARK: Audio encoding

    /// Encodes a buffer of linear PCM: the first one configures the encoder (what the settings
    /// leave out comes from its format); the session trims frames before its start and from
    /// its end; frames are taken as one contiguous stream from the first one written.
    private func encodeAudio(_ sample: CMSampleBuffer, settings audio: WriterAudioSettings, start: CMTime) throws {
        guard let format = CMSampleBufferGetFormatDescription(sample),
              let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee else {
            throw WriterError.invalidMedia("An audio sample buffer has no audio format description.", url: url)
        }
        guard asbd.mFormatID == kAudioFormatLinearPCM else {
            throw WriterError.unsupported("Input buffer must be in an uncompressed format when outputSettings is not nil (got '\(MuxerStreamFormat.fourCC(asbd.mFormatID))').", url: url)
        }
        var layoutSize = 0
        let layout = CMAudioFormatDescriptionGetChannelLayout(format, sizeOut: &layoutSize).map { Data(bytes: $0, count: layoutSize) }
        guard let inputFormat = AudioPCMFormat(streamBasicDescription: asbd, channelLayout: layout) else {
            throw WriterError.unsupported("Linear PCM with \(asbd.mBitsPerChannel)-bit samples in \(asbd.mBytesPerFrame)-byte frames at \(asbd.mSampleRate) Hz cannot be read.", url: url)
        }
        let inputRate = Int32(inputFormat.sampleRate)
        // Frame positions in the input's rate, relative to the session start.
        let inputFrame = { (time: CMTime) -> Int64 in
            CMTimeConvertScale(CMTimeSubtract(time, start), timescale: inputRate, method: .roundHalfAwayFromZero).value
        }
        let frameCount = CMSampleBufferGetNumSamples(sample)
        let pts = CMSampleBufferGetPresentationTimeStamp(sample)
        let startFrame = inputFrame(pts)
        var first = Int64(0), last = Int64(frameCount)
        // Sample times may come from a damaged file: clamp instead of overflowing.
        if startFrame < 0 { first = min(last, Int64(0).saturatingSubtracting(startFrame)) }
        if let end = engine.sessionEnd { last = min(last, max(first, inputFrame(end).saturatingSubtracting(startFrame))) }
        if !isConfigured {
            guard last > first else { return }
            try configureAudioEncoder(audio, input: inputFormat, firstInputFrame: startFrame.saturatingAdding(first))
        }
        guard let audioEncoder, let audioInput else { return }
        guard inputFormat == audioInput else {
            throw WriterError.unsupported("The audio format changed while writing (from \(audioInput) to \(inputFormat)); one format per input is supported.", url: url)
        }
        guard last > first, let block = CMSampleBufferGetDataBuffer(sample) else { return }
        let planeBytes = frameCount * inputFormat.bytesPerFrame
        guard CMBlockBufferGetDataLength(block) >= planeBytes * inputFormat.bufferCount else {
            throw WriterError.invalidMedia("An audio sample buffer holds fewer bytes than its frames need.", url: url)
        }
        // The kept frames of each buffer (one when interleaved), one after another.
        let n = Int(last - first), frameBytes = inputFormat.bytesPerFrame
        var bytes = [UInt8](repeating: 0, count: n * frameBytes * inputFormat.bufferCount)
        for plane in 0..<inputFormat.bufferCount {
            let status = bytes.withUnsafeMutableBytes {
                CMBlockBufferCopyDataBytes(block, atOffset: plane * planeBytes + Int(first) * frameBytes, dataLength: n * frameBytes,
                                           destination: $0.baseAddress! + plane * n * frameBytes)
            }
            guard status == noErr else { throw WriterError.invalidMedia("Cannot read an audio sample buffer's data (\(status)).", url: url) }
        }
        let packets: [EncodedPacket]
        do {
            packets = try bytes.withUnsafeBytes { (raw) throws(MediaError) -> [EncodedPacket] in
                try audioEncoder.append(bytes: raw, frameCount: n)
            }
        } catch let error as MediaError {
            throw AVError.from(error, writingTo: url, encoding: true)
        }
        sampleCount += 1
        for packet in packets { try submit(packet) }
    }

    private func configureAudioEncoder(_ audio: WriterAudioSettings, input: AudioPCMFormat, firstInputFrame: Int64) throws {
        var codec = audio.codec
        if case .linearPCM(let layout)? = codec { codec = .linearPCM(engine.container.storedLayout(layout)) }
        guard let codec else {
            throw WriterError.unsupported("Encoding audio to '\(MuxerStreamFormat.fourCC(audio.formatID))' is not supported.", url: url)
        }
        let settings = audio.encoderSettings(codec: codec, sourceRate: Double(input.sampleRate), sourceChannels: input.channelCount)
        if let range = EncoderAudio.bitRateRange(codec, sampleRate: settings.sampleRate, channels: settings.channels.count),
           let rate = settings.bitRate, !range.contains(rate) {
            throw WriterError.unsupported("\(rate) bit/s is not a valid bit rate for \(codec) at \(settings.sampleRate) Hz with \(settings.channels.count) channels.", url: url)
        }
        // The first frame's place in the output rate.
        let scaled = Int128(firstInputFrame) * Int128(settings.sampleRate) + Int128(input.sampleRate) / 2
        guard input.sampleRate > 0, let firstPTS = Int64(exactly: scaled / Int128(input.sampleRate)) else {
            throw WriterError.invalidMedia("The first audio sample's time cannot be represented at \(settings.sampleRate) Hz.", url: url)
        }
        do throws(MediaError) {
            audioEncoder = try EncoderAudio(input: input, settings: settings, firstPTS: firstPTS)
        } catch {
            if case .invalidArgument = error {
                throw WriterError.unsupported("Cannot encode \(input) to \(codec): \(error.message)", url: url)
            }
            throw AVError.from(error, writingTo: url, encoding: true)
        }
        audioInput = input
        timescale = Int32(settings.sampleRate)
        streamOptions = makeStreamOptions()
        if case .linearPCM(let layout) = codec { streamOptions.codecTag = engine.container.pcmCodecTag(layout) }
        try markConfigured()
    }

    // MARK: Passthrough

    private func passThrough(_ sample: CMSampleBuffer, start: CMTime) throws {
        guard let format = CMSampleBufferGetFormatDescription(sample) ?? config.hint else {
            throw WriterError.invalidMedia("A sample buffer appended for passthrough has no format description.", url: url)
        }
        if !isConfigured {
            let description = config.hint ?? format
            if let reason = engine.container.canPassThrough(description) { throw WriterError.unsupported(reason, url: url) }
            passthroughFormat = description
            if config.mediaType == .audio, let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee {
                guard asbd.mSampleRate >= 1, asbd.mSampleRate < Double(Int32.max) else {
                    throw WriterError.unsupported("The audio format description has no sample rate.", url: url)
                }
                timescale = config.mediaTimeScale > 0 ? config.mediaTimeScale : Int32(asbd.mSampleRate.rounded())
                audioFramesPerPacket = Int(asbd.mFramesPerPacket)
            } else {
                let pts = CMSampleBufferGetPresentationTimeStamp(sample)
                timescale = config.mediaTimeScale > 0 ? config.mediaTimeScale
                    : WriterTrack.videoTimescale(for: pts.isNumeric ? CMTimeSubtract(pts, start) : CMTime(value: 0, timescale: 600))
            }
            streamOptions = makeStreamOptions()
            if config.mediaType == .video { streamOptions.codecTag = CMFormatDescriptionGetMediaSubType(description) }
            if config.mediaType == .audio, let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee,
               let layout = MuxerStreamFormat.PCMLayout(asbd) {
                streamOptions.codecTag = engine.container.pcmCodecTag(layout)
            }
            try markConfigured()
        } else if let passthroughFormat, !WriterTrack.describeSameStream(passthroughFormat, format) {
            throw WriterError.unsupported("The format of the samples changed while writing; one format per track is supported.", url: url)
        }
        let count = CMSampleBufferGetNumSamples(sample)
        guard count > 0, let block = CMSampleBufferGetDataBuffer(sample) else { return }
        let timings = (try? sample.sampleTimingInfos()) ?? []
        var sizes = (try? sample.sampleSizes()) ?? []
        let packetDescriptions = config.mediaType == .audio ? ((try? sample.audioStreamPacketDescriptions()) ?? []) : []
        if !packetDescriptions.isEmpty { sizes = packetDescriptions.map { Int($0.mDataByteSize) } }
        let packetCount = packetDescriptions.isEmpty ? (sizes.count == 1 && count > 1 ? 1 : count) : packetDescriptions.count
        if sizes.count == 1 && packetCount > 1 { sizes = Array(repeating: sizes[0], count: packetCount) }
        guard sizes.count == packetCount else {
            throw WriterError.invalidMedia("A sample buffer appended for passthrough has no sample sizes.", url: url)
        }
        let attachments = CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: false) as? [Any]
        let pts0 = CMSampleBufferGetPresentationTimeStamp(sample)
        // Audio whose end is trimmed (the last AAC packet of a track, whose encoder padding the
        // source's edit hid): the last packet lasts only what is shown, as encoders write it.
        let trimAtEnd = config.mediaType == .audio
            ? CMTimeMakeFromDictionary(CMGetAttachment(sample, key: kCMSampleBufferAttachmentKey_TrimDurationAtEnd,
                                                       attachmentModeOut: nil) as? CFDictionary)
            : .invalid
        var offset = packetDescriptions.first.map { Int($0.mStartOffset) } ?? 0
        for i in 0..<packetCount {
            if let d = packetDescriptions.count > i ? packetDescriptions[i] : nil { offset = Int(d.mStartOffset) }
            let size = sizes[i]
            guard size > 0, offset >= 0, size <= CMBlockBufferGetDataLength(block) - offset else {
                throw WriterError.invalidMedia("A sample's data lies outside its sample buffer.", url: url)
            }
            // Timing: per sample when given, else spread evenly from the buffer's time.
            var pts: CMTime, dts: CMTime, duration: CMTime
            if timings.count == packetCount {
                (pts, dts, duration) = (timings[i].presentationTimeStamp, timings[i].decodeTimeStamp, timings[i].duration)
            } else if let t = timings.first, timings.count == 1 {
                let step = audioFramesPerPacket > 0 && config.mediaType == .audio
                    ? CMTime(value: Int64(audioFramesPerPacket), timescale: timescale) : t.duration
                pts = step.isNumeric ? CMTimeAdd(t.presentationTimeStamp, CMTimeMultiply(step, multiplier: Int32(i))) : t.presentationTimeStamp
                dts = t.decodeTimeStamp.isNumeric && step.isNumeric ? CMTimeAdd(t.decodeTimeStamp, CMTimeMultiply(step, multiplier: Int32(i))) : .invalid
                duration = step
            } else {
                (pts, dts, duration) = (pts0, .invalid, .invalid)
            }
            guard pts.isNumeric else { throw WriterError.invalidMedia("A sample has no presentation time.", url: url) }
            if i == packetCount - 1, trimAtEnd.isNumeric, trimAtEnd > .zero, duration.isNumeric, trimAtEnd < duration {
                duration = CMTimeSubtract(duration, trimAtEnd)
            }
            if let end = engine.sessionEnd, pts >= end { offset += size; continue }
            if !engine.container.isQuickTime, duration.isNumeric, CMTimeAdd(pts, duration) <= start { offset += size; continue }
            var isSync = true
            if let list = attachments, i < list.count, let dict = list[i] as? [String: Any] {
                isSync = !((dict[kCMSampleAttachmentKey_NotSync as String] as? NSNumber)?.boolValue ?? (dict[kCMSampleAttachmentKey_NotSync as String] as? Bool ?? false))
            }
            var data = [UInt8](repeating: 0, count: size)
            let status = data.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(block, atOffset: offset, dataLength: size, destination: $0.baseAddress!) }
            guard status == noErr else { throw WriterError.invalidMedia("Cannot read a sample's data (\(status)).", url: url) }
            offset += size
            let packet: EncodedPacket
            do {
                packet = try data.withUnsafeBytes { (raw) throws -> EncodedPacket in
                    try EncodedPacket(copying: raw, pts: trackTime(pts, start: start),
                                      dts: dts.isNumeric ? trackTime(dts, start: start) : trackTime(pts, start: start),
                                      duration: duration.isNumeric && duration > .zero ? toTrack(duration) : 0,
                                      isKeyframe: isSync, timescale: timescale)
                }
            } catch let error as MediaError {
                throw AVError.from(error, writingTo: url)
            }
            if let last = lastPTS { lastInterval = CMTimeSubtract(pts, last) }
            if lastPTS.map({ pts > $0 }) ?? true { lastPTS = pts }
            lastFrameDuration = duration
            sampleCount += 1
            try submit(packet)
        }
    }
}

extension WriterTrack {
    /// Whether samples of `b` can go on in a stream set up for `a`: the same codec, size or
    /// audio format, and codec configuration (avcC/hvcC/av1C atom, magic cookie). Other
    /// extensions (colour tags, names) may differ.
    static func describeSameStream(_ a: CMFormatDescription, _ b: CMFormatDescription) -> Bool {
        if CMFormatDescriptionEqual(a, otherFormatDescription: b) { return true }
        guard CMFormatDescriptionGetMediaType(a) == CMFormatDescriptionGetMediaType(b),
              CMFormatDescriptionGetMediaSubType(a) == CMFormatDescriptionGetMediaSubType(b) else { return false }
        if CMFormatDescriptionGetMediaType(a) == kCMMediaType_Video {
            let da = CMVideoFormatDescriptionGetDimensions(a), db = CMVideoFormatDescriptionGetDimensions(b)
            guard da.width == db.width, da.height == db.height else { return false }
            let atoms = { (d: CMFormatDescription) in
                (CMFormatDescriptionGetExtensions(d) as? [String: Any])?[(kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms as String)]
                    .flatMap(WriterValue.dictionary)?.compactMapValues(WriterValue.data)
            }
            return atoms(a) == atoms(b)
        }
        guard let sa = CMAudioFormatDescriptionGetStreamBasicDescription(a)?.pointee,
              let sb = CMAudioFormatDescriptionGetStreamBasicDescription(b)?.pointee,
              sa.mSampleRate == sb.mSampleRate, sa.mChannelsPerFrame == sb.mChannelsPerFrame, sa.mFormatFlags == sb.mFormatFlags,
              sa.mBitsPerChannel == sb.mBitsPerChannel, sa.mFramesPerPacket == sb.mFramesPerPacket else { return false }
        let cookie = { (d: CMFormatDescription) -> Data in
            var size = 0
            let bytes = CMAudioFormatDescriptionGetMagicCookie(d, sizeOut: &size).map { Data(bytes: $0, count: size) } ?? Data()
            // AAC: the decoder configuration, not the ES descriptor around it (whose bit rates
            // differ between files coded alike).
            guard sa.mFormatID == kAudioFormatMPEG4AAC else { return bytes }
            return MuxerStreamFormat.audioSpecificConfig(fromESDS: bytes) ?? bytes
        }
        return cookie(a) == cookie(b)
    }
}

/// A rational for reducing aspect ratios.
private struct AVRationalLike {
    var num: Int64
    var den: Int64
    mutating func reduce() {
        func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
        let g = gcd(num, den)
        if g > 1 { num /= g; den /= g }
        while num > Int64(Int32.max) || den > Int64(Int32.max) { num /= 2; den /= 2 }
    }
}
