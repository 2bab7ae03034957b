// AVAssetReaderTrackOutput: the samples of one track, as stored or decoded.
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization

/// Reads the media data of one track of the reader's asset.
///
/// - `outputSettings` nil: the samples as stored, in decode order — compressed sample buffers
///   with the track's format description, exact decode and presentation times and durations, and
///   sync/dependency attachments (audio: packet descriptions), byte for byte the container's.
/// - Video settings (Core Video pixel buffer attributes: `kCVPixelBufferPixelFormatTypeKey` with
///   one format or an array of them, `kCVPixelBufferWidthKey`/`HeightKey` to scale, row alignment…;
///   `AVVideoDecompressionPropertiesKey` and `AVVideoColorPropertiesKey` are accepted): decoded
///   pictures in presentation order, as `CVPixelBuffer`s with a format description made for them.
/// - Audio settings (linear PCM): decoded audio.
///
/// Settings a track output cannot honour raise an exception when the output is created.
open class AVAssetReaderTrackOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The track the output reads.
    public let track: AVAssetTrack
    /// The settings the output was created with; nil vends the samples as stored.
    public let outputSettings: [String: Any]?
    private let videoSettings: ReaderVideoSettings?
    private let pitchAlgorithm = Mutex(AVAudioTimePitchAlgorithm.spectral)

    /// An output reading `track` with `outputSettings` (nil: the samples as stored).
    public init(track: AVAssetTrack, outputSettings: [String: Any]?) {
        self.track = track
        self.outputSettings = outputSettings
        let method = "*** -[AVAssetReaderTrackOutput initWithTrack:outputSettings:]"
        var parsedVideo: ReaderVideoSettings?
        if let outputSettings {
            switch track.mediaType {
            case .video:
                switch ReaderVideoSettings.parse(outputSettings) {
                case .success(let parsed): parsedVideo = parsed
                case .failure(let problem): raiseReaderException(.invalidArgument, "\(method) \(problem.reason)")
                }
            case .audio:
                if let problem = Self.audioSettingsProblem(outputSettings)
                    ?? AudioReaderSource.settingsProblem(outputSettings, tracks: [track], outputClass: "AVAssetReaderTrackOutput") {
                    raiseReaderException(.invalidArgument, "\(method) \(problem)")
                }
            default:
                raiseReaderException(.invalidArgument,
                                     "\(method) Cannot provide output settings for a track of media type \(track.mediaType.rawValue); "
                                         + "pass nil to read its samples as stored")
            }
        }
        videoSettings = parsedVideo
        super.init(mediaType: track.mediaType)
    }

    /// The algorithm for scaled audio edits read as linear PCM (default `.spectral`, Apple's
    /// default for offline processing): all but `.varispeed` keep pitch. Only Apple's four
    /// constants are accepted, before reading starts.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { pitchAlgorithm.withLock { $0 } }
        set {
            if hasStartedReading {
                raiseReaderException(.invalidArgument,
                                     "*** -[AVAssetReaderTrackOutput setAudioTimePitchAlgorithm:] cannot be called after reading has started")
            }
            guard AVAudioTimePitchAlgorithm.known.contains(newValue) else {
                raiseReaderException(.invalidArgument,
                                     "*** -[AVAssetReaderTrackOutput setAudioTimePitchAlgorithm:] "
                                         + "invalid time pitch algorithm \(newValue.rawValue)")
            }
            pitchAlgorithm.withLock { $0 = newValue }
        }
    }

    override var sourceTracks: [AVAssetTrack] { [track] }

    override func makeSource(timeRange: CMTimeRange) throws -> any ReaderSampleSource {
        let copies = alwaysCopiesSampleData
        guard let outputSettings else {
            return try SegmentWalkingSource.make(segments: track.mediaSegments, cutsFrames: false) {
                ReaderPassthroughSource(source: $0, copiesSampleData: copies, cancellation: $1)
            }
        }
        if let videoSettings {
            return try SegmentWalkingSource.make(segments: track.mediaSegments, cutsFrames: true) {
                ReaderVideoSource(source: $0, settings: videoSettings, copiesSampleData: copies, cancellation: $1)
            }
        }
        return try AudioReaderSource(tracks: [track], audioSettings: outputSettings, audioMix: nil, timePitchAlgorithm: audioTimePitchAlgorithm)
    }

    /// Why audio settings ask for something a track output cannot produce (compressed audio,
    /// video keys); nil when the audio source is to judge them.
    static func audioSettingsProblem(_ settings: [String: Any]) -> String? {
        if let format = settings["AVFormatIDKey"] {
            let id = ReaderVideoSettings.integer(format).flatMap { UInt32(exactly: $0) }
            if id != kAudioFormatLinearPCM { return "AVAssetReaderTrackOutput does not currently support compressed output" }
        }
        let video = settings.keys.filter { ReaderVideoSettings.pixelBufferKeys.contains($0) || $0.hasPrefix("AVVideo") }.sorted()
        if !video.isEmpty {
            return "Output settings dictionary contains one or more invalid keys: \(video.joined(separator: ", "))"
        }
        return nil
    }
}
