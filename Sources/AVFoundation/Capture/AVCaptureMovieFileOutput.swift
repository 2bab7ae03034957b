// AVCaptureMovieFileOutput: records the session's video and sound to QuickTime movie files —
// each recording one MovieRecorder, fed from the capture threads through one serial queue.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
import Synchronization
internal import MediaEngine

/// Records video and audio to a QuickTime movie file (`.mp4`/`.m4v` extensions: MPEG-4).
///
/// Takes one video and one audio connection. Video is H.264 (HEVC with
/// `setOutputSettings([AVVideoCodecKey: AVVideoCodecType.hevc], for:)`) at the session preset's
/// size (the active format's for `.inputPriority`) and the device's frame rate, a keyframe every
/// second, no frame reordering; sound is AAC at the microphone's rate and channel count. A
/// connection's `videoRotationAngle` and `isVideoMirrored` (as they are when the recording
/// starts) become the video track's matrix: the pixels are recorded as captured. With a
/// `movieFragmentInterval` (10 s by default) the movie header is on disk at once and a fragment
/// is added every interval, so a recording cut short (a crash, a full disk) stays playable up
/// to its last fragment. `metadata` may be set at any time and is written when the file is
/// finished.
open class AVCaptureMovieFileOutput: AVCaptureFileOutput, @unchecked Sendable {
    private struct State {
        var fragmentInterval = CMTime(value: 10, timescale: 1)
        var metadataItems: [AVMetadataItem]?
        /// Video frames queued for the recorder and not yet appended.
        var backlog = 0
    }
    private let state = Mutex(State())
    /// The output settings set per connection (their values in Sendable form).
    private let settings = Mutex<[ObjectIdentifier: [String: any Sendable]]>([:])
    /// The pixel buffer pool of the recorded size (on the work queue only).
    private var pool: (width: Int, height: Int, pool: CVPixelBufferPool)?
    /// Frames waiting beyond this are dropped (the recorder could not keep up).
    private static let maxBacklog = 15

    public override init() {
        super.init()
    }

    // MARK: Properties

    /// How often a movie fragment is written (default 10 s); `.invalid`: no fragments (the movie
    /// header is written when the recording finishes). Read when a recording starts.
    open var movieFragmentInterval: CMTime {
        get { state.withLock { $0.fragmentInterval } }
        set { state.withLock { $0.fragmentInterval = newValue } }
    }

    /// File-level metadata written into the movie when it is finished; may be set while recording.
    open var metadata: [AVMetadataItem]? {
        get { state.withLock { $0.metadataItems } }
        set {
            state.withLock { $0.metadataItems = newValue }
            activeRecording?.recorder.metadata = newValue ?? []
        }
    }

    /// The video codecs a recording can use: H.264 and HEVC.
    open var availableVideoCodecTypes: [AVVideoCodecType] { [.h264, .hevc] }

    /// Whether changes of the connection's orientation and mirroring are recorded as a timed
    /// metadata track: never (the matrix at the start of the recording applies to the whole file).
    open func recordsVideoOrientationAndMirroringChangesAsMetadataTrack(for connection: AVCaptureConnection) -> Bool { false }

    /// The keys `setOutputSettings(_:for:)` takes for `connection`: the codec and compression
    /// properties for video, the format and bit rate for audio.
    open func supportedOutputSettingsKeys(for connection: AVCaptureConnection) -> [String] {
        switch mediaType(of: connection, selector: "supportedOutputSettingsKeysForConnection:") {
        case .video: return [AVVideoCodecKey, AVVideoCompressionPropertiesKey]
        default: return [AVFormatIDKey, AVSampleRateKey, AVNumberOfChannelsKey, AVChannelLayoutKey, AVEncoderBitRateKey]
        }
    }

    /// The settings a recording from `connection` uses (the defaults merged with what
    /// `setOutputSettings(_:for:)` set).
    open func outputSettings(for connection: AVCaptureConnection) -> [String: Any] {
        let media = mediaType(of: connection, selector: "outputSettingsForConnection:")
        let stored: [String: any Sendable]? = settings.withLock { $0[ObjectIdentifier(connection)] }
        let custom: [String: Any] = stored ?? [:]
        if media == .video {
            let (width, height, fps) = videoShape(of: connection, preset: owningSession?.sessionPreset ?? .high) ?? (0, 0, 30)
            return Self.videoSettings(width: width, height: height, fps: fps, custom: custom)
        }
        let format = audioFormat(of: connection)
        return Self.audioSettings(channels: format?.channelCount ?? 2, sampleRate: format?.sampleRate ?? 48_000, custom: custom)
    }

    /// Sets the settings for `connection`'s recordings (nil: the defaults). Keys outside
    /// `supportedOutputSettingsKeys(for:)`, a codec outside `availableVideoCodecTypes` or an
    /// audio format other than AAC raise.
    open func setOutputSettings(_ outputSettings: [String: Any]?, for connection: AVCaptureConnection) {
        let selector = "setOutputSettings:forConnection:"
        let media = mediaType(of: connection, selector: selector)
        if let outputSettings {
            let supported = supportedOutputSettingsKeys(for: connection)
            if let key = outputSettings.keys.first(where: { !supported.contains($0) }) {
                CaptureException.raise("AVCaptureMovieFileOutput", selector, "Unsupported output settings key \(key) - use -supportedOutputSettingsKeysForConnection:")
            }
            if media == .video, let codec = outputSettings[AVVideoCodecKey] {
                let type = (codec as? AVVideoCodecType) ?? (codec as? String).map(AVVideoCodecType.init(rawValue:))
                guard let type, availableVideoCodecTypes.contains(type) else {
                    CaptureException.raise("AVCaptureMovieFileOutput", selector, "Unsupported video codec \(codec) - use -availableVideoCodecTypes")
                }
            }
            if media == .audio, let format = outputSettings[AVFormatIDKey] {
                let id = (format as? NSNumber)?.uint32Value ?? (format as? UInt32) ?? (format as? Int).map(UInt32.init)
                guard id == kAudioFormatMPEG4AAC else {
                    CaptureException.raise("AVCaptureMovieFileOutput", selector, "Unsupported audio format \(format) - only kAudioFormatMPEG4AAC")
                }
            }
            if media == .audio, let problem = Self.audioSettingsProblem(outputSettings) {
                CaptureException.raise("AVCaptureMovieFileOutput", selector, problem)
            }
        }
        let values = outputSettings.map(SendableDictionary.make)
        settings.withLock { $0[ObjectIdentifier(connection)] = values }
    }

    // MARK: Settings

    private func mediaType(of connection: AVCaptureConnection, selector: String) -> AVMediaType {
        guard connections.contains(where: { $0 === connection }) else {
            CaptureException.raise("AVCaptureMovieFileOutput", selector, "The connection is not one of the output's connections")
        }
        return connection.inputPorts.contains { $0.mediaType == .video } ? .video : .audio
    }

    /// The recorded picture size and frame rate from `connection`'s device under `preset`.
    private func videoShape(of connection: AVCaptureConnection, preset: AVCaptureSession.Preset) -> (Int, Int, Double)? {
        guard let device = connection.inputPorts.first?.input.sourceDevice,
              let choice = CaptureGraph.videoChoice(for: device, preset: preset) else { return nil }
        var duration = device.activeVideoMinFrameDuration
        if !duration.isNumeric || duration <= .zero { duration = choice.format.minFrameDuration }
        let limit = connection.videoMinFrameDuration
        if limit.isNumeric, limit > duration { duration = limit }
        let fps = duration.isNumeric && duration > .zero ? 1 / duration.seconds : 30
        return (choice.width, choice.height, fps)
    }

    private func audioFormat(of connection: AVCaptureConnection) -> LiveAudioFormat? {
        connection.inputPorts.first?.input.sourceDevice?.core.descriptor.audioFormats.first
    }

    private static func videoSettings(width: Int, height: Int, fps: Double, custom: [String: Any]) -> [String: Any] {
        let codec = (custom[AVVideoCodecKey] as? AVVideoCodecType) ?? (custom[AVVideoCodecKey] as? String).map(AVVideoCodecType.init(rawValue:)) ?? .h264
        var result = MovieRecorder.defaultVideoSettings(width: width, height: height, frameRate: fps, codec: codec)
        if let extra = custom[AVVideoCompressionPropertiesKey] as? [String: Any] {
            var properties = result[AVVideoCompressionPropertiesKey] as? [String: Any] ?? [:]
            properties.merge(extra) { _, new in new }
            result[AVVideoCompressionPropertiesKey] = properties
        }
        return result
    }

    /// The recording's AAC settings: the device's rate and channel count unless `custom` asks
    /// for others (`AVSampleRateKey`, `AVNumberOfChannelsKey`, `AVChannelLayoutKey`; the writer's
    /// resampler converts), the default bit rate for those unless `AVEncoderBitRateKey` is given.
    private static func audioSettings(channels: Int, sampleRate: Double, custom: [String: Any]) -> [String: Any] {
        let rate = number(custom[AVSampleRateKey]) ?? sampleRate
        let layoutChannels = layoutData(custom[AVChannelLayoutKey]).flatMap { AudioChannelSet(audioChannelLayout: $0)?.count }
        let count = number(custom[AVNumberOfChannelsKey]).map { Int($0) } ?? layoutChannels ?? channels
        var result = MovieRecorder.defaultAudioSettings(channels: count, sampleRate: rate)
        if let layout = layoutData(custom[AVChannelLayoutKey]) { result[AVChannelLayoutKey] = layout }
        if let bitRate = custom[AVEncoderBitRateKey] { result[AVEncoderBitRateKey] = bitRate }
        return result
    }

    /// Why audio output settings cannot be recorded (the exception's reason), or nil.
    private static func audioSettingsProblem(_ settings: [String: Any]) -> String? {
        let aacRates: [Double] = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
        if let value = settings[AVSampleRateKey] {
            guard let rate = number(value), aacRates.contains(rate) else {
                return "Unsupported AVSampleRateKey value \(value) - AAC takes 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200 or 96000 Hz"
            }
        }
        if let value = settings[AVNumberOfChannelsKey] {
            guard let count = number(value), count == count.rounded(), (1...8).contains(count) else {
                return "Unsupported AVNumberOfChannelsKey value \(value) - AAC takes 1 to 8 channels"
            }
        }
        if let value = settings[AVChannelLayoutKey] {
            guard let set = layoutData(value).flatMap({ AudioChannelSet(audioChannelLayout: $0) }), (1...8).contains(set.count) else {
                return "Unsupported AVChannelLayoutKey value - it must be Data holding an AudioChannelLayout of 1 to 8 channels"
            }
            if let count = settings[AVNumberOfChannelsKey].flatMap(number), Int(count) != set.count {
                return "AVChannelLayoutKey describes \(set.count) channels but AVNumberOfChannelsKey is \(Int(count))"
            }
        }
        if let value = settings[AVEncoderBitRateKey] {
            guard let bits = number(value), bits >= 8_000, bits <= 1_536_000 else {
                return "Unsupported AVEncoderBitRateKey value \(value)"
            }
        }
        return nil
    }

    private static func number(_ value: Any?) -> Double? {
        switch value {
        case let v as NSNumber: return v.doubleValue
        case let v as Double: return v
        case let v as Int: return Double(v)
        case let v as Float: return Double(v)
        case let v as UInt32: return Double(v)
        default: return nil
        }
    }

    private static func layoutData(_ value: Any?) -> Data? {
        (value as? Data) ?? (value as? NSData).map { Data(referencing: $0) }
    }

    /// The track matrix showing pixels of `width`×`height` turned clockwise by `angle` and mirrored.
    static func trackTransform(angle: Int, mirrored: Bool, width: Int, height: Int) -> CGAffineTransform {
        let w = CGFloat(width), h = CGFloat(height)
        var transform: CGAffineTransform
        var displayWidth = w
        switch angle {
        case 90:
            transform = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: h, ty: 0)
            displayWidth = h
        case 180:
            transform = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: w, ty: h)
        case 270:
            transform = CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: w)
            displayWidth = h
        default:
            transform = .identity
        }
        if mirrored {
            transform = transform.concatenating(CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: displayWidth, ty: 0))
        }
        return transform
    }

    // MARK: Recording

    override func recorderConfiguration(for url: URL, session: AVCaptureSession) -> (MovieRecorder.Configuration, Int, Int)? {
        let active = connections.filter(\.isEnabled)
        var configuration = MovieRecorder.Configuration(outputURL: url)
        var size = (0, 0)
        if let video = active.first(where: { $0.inputPorts.contains { $0.mediaType == .video } }),
           let (width, height, _) = videoShape(of: video, preset: session.sessionPreset) {
            configuration.videoSettings = outputSettings(for: video)
            let (angle, mirrored) = video.videoSettingsSnapshot
            configuration.videoTransform = Self.trackTransform(angle: angle, mirrored: mirrored, width: width, height: height)
            size = (width, height)
        }
        if let audio = active.first(where: { $0.inputPorts.contains { $0.mediaType == .audio } }) {
            configuration.audioSettings = outputSettings(for: audio)
        }
        guard configuration.videoSettings != nil || configuration.audioSettings != nil else { return nil }
        let (interval, items) = state.withLock { state in (state.fragmentInterval, state.metadataItems) }
        configuration.movieFragmentInterval = interval
        configuration.metadata = items ?? []
        return (configuration, size.0, size.1)
    }

    // MARK: Sink

    override func connectionLimit(for mediaType: AVMediaType) -> Int { mediaType == .video || mediaType == .audio ? 1 : 0 }

    override func receive(video frame: LiveFrame, from connection: AVCaptureConnection, geometry: CaptureVideoGeometry) {
        guard let recording = activeRecording, recording.width > 0 else { return }
        let queued = state.withLock { state -> Bool in
            guard state.backlog < Self.maxBacklog else { return false }
            state.backlog += 1
            return true
        }
        guard queued else { return }
        let crop = geometry.zoomedCrop
        work.async { [self] in
            defer { state.withLock { $0.backlog -= 1 } }
            guard let sample = sampleBuffer(frame, crop: crop, width: recording.width, height: recording.height) else { return }
            recording.recorder.appendVideo(sample)
        }
    }

    override func receive(audio source: LiveAudioChunk, from connection: AVCaptureConnection) {
        guard let recording = activeRecording else { return }
        let chunk = connection.applyingChannelGains(to: source)
        work.async { [self] in
            // Sound the source lost (a gap before this chunk: a PulseAudio stream settling its
            // latency, an overloaded server) is recorded as silence, so everything after the gap
            // stays in step with the picture; the encoder would otherwise close the gap up.
            if isRecordingPaused {
                recording.audioEnd = nil
            } else if let end = recording.audioEnd, let silence = Self.silence(from: end, to: chunk.pts, format: chunk.format),
                      let sample = silence.makeSampleBuffer() {
                recording.recorder.appendAudio(sample)
            }
            recording.audioEnd = CMTimeAdd(chunk.pts, CMTime(value: CMTimeValue(chunk.frameCount), timescale: CMTimeScale(chunk.format.sampleRate)))
            guard let sample = chunk.makeSampleBuffer() else { return }
            recording.recorder.appendAudio(sample)
        }
    }

    /// Silence filling the gap between the end of the last chunk and the next one's start, when
    /// it is longer than 5 ms and shorter than 5 s (a longer gap is a stall, not lost sound).
    static func silence(from end: CMTime, to next: CMTime, format: LiveAudioFormat) -> LiveAudioChunk? {
        let gap = CMTimeSubtract(next, end)
        guard gap.isNumeric, gap.seconds > 0.005, gap.seconds < 5, format.channelCount > 0 else { return nil }
        let frames = Int((gap.seconds * format.sampleRate).rounded())
        guard frames > 0 else { return nil }
        return LiveAudioChunk(samples: Data(count: frames * format.channelCount * 4), frameCount: frames, format: format,
                              pts: end, isDiscontinuity: true)
    }

    /// The frame's preset crop as a `'420v'` picture of the recorded size, at its capture time.
    private func sampleBuffer(_ frame: LiveFrame, crop: PixelConverter.Rect, width: Int, height: Int) -> CMSampleBuffer? {
        guard let buffer = makeBuffer(width: width, height: height) else { return nil }
        var options = PixelConverter.Options()
        options.sourceRect = crop
        options.fast = true
        do {
            try PixelConverter.shared.transfer(from: frame.pixelBuffer, to: buffer, options: options)
        } catch {
            return nil
        }
        return AVCaptureVideoDataOutput.sampleBuffer(buffer, pts: frame.pts, duration: frame.duration)
    }

    /// A `'420v'` buffer of the size from the output's pool (on the work queue).
    private func makeBuffer(width: Int, height: Int) -> CVPixelBuffer? {
        if pool == nil || pool?.width != width || pool?.height != height {
            guard let made = CVPixelBufferPool.make(pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, width: width,
                                                    height: height) else { return nil }
            pool = (width, height, made)
        }
        guard let pool = pool?.pool else { return nil }
        var buffer: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer) == kCVReturnSuccess else { return nil }
        return buffer
    }
}
