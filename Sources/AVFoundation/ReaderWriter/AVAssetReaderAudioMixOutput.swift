// AVAssetReaderAudioMixOutput: reads the mix of one or more audio tracks as linear PCM.
import CoreMedia
import Foundation

/// Reads audio samples that result from mixing the audio of one or more tracks of the reader's
/// asset, as linear PCM (the audio settings' format, or 32-bit float non-interleaved at the
/// tracks' sample rate when there are none). An audio mix sets each track's volume over the
/// asset's timeline; each track is also scaled by its `preferredVolume`.
open class AVAssetReaderAudioMixOutput: AVAssetReaderOutput, @unchecked Sendable {
    /// The tracks mixed.
    public let audioTracks: [AVAssetTrack]
    /// The linear PCM settings the output delivers; nil for the default uncompressed format.
    public let audioSettings: [String: Any]?
    private var storedAudioMix: AVAudioMix?
    private var storedAlgorithm: AVAudioTimePitchAlgorithm = .spectral
    private var readingStarted = false

    /// An output mixing `audioTracks` (all of media type audio) into `audioSettings` (linear PCM
    /// keys only; `AVSampleRateConverterAudioQualityKey` is not supported).
    public init(audioTracks: [AVAssetTrack], audioSettings: [String: Any]?) {
        let method = "*** -[AVAssetReaderAudioMixOutput initWithAudioTracks:audioSettings:]"
        guard !audioTracks.isEmpty else {
            preconditionFailure("\(method) invalid parameter not satisfying: audioTracks.count > 0")
        }
        if let problem = AudioReaderSource.settingsProblem(audioSettings, tracks: audioTracks, outputClass: "AVAssetReaderAudioMixOutput") {
            preconditionFailure("\(method) \(problem)")
        }
        self.audioTracks = audioTracks
        self.audioSettings = audioSettings
        super.init(mediaType: .audio)
    }

    /// How the volume of each track changes over the asset's timeline (a copy is kept). Cannot
    /// be set after reading has started.
    open var audioMix: AVAudioMix? {
        get { storedAudioMix }
        set {
            precondition(!readingStarted, "*** -[AVAssetReaderAudioMixOutput setAudioMix:] cannot be called after reading has started")
            storedAudioMix = newValue?.copy() as? AVAudioMix
        }
    }

    /// The processing algorithm for scaled audio edits (default `.spectral`), for tracks whose
    /// audio mix input parameters name none: all but `.varispeed` keep pitch.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { storedAlgorithm }
        set {
            precondition(AVAudioTimePitchAlgorithm.known.contains(newValue),
                         "*** -[AVAssetReaderAudioMixOutput setAudioTimePitchAlgorithm:] \(newValue.rawValue) is not a time pitch algorithm defined in AVAudioProcessingSettings.h")
            storedAlgorithm = newValue
        }
    }

    /// The tracks mixed: the reader checks they belong to its asset.
    override var sourceTracks: [AVAssetTrack] { audioTracks }

    override func makeSource(timeRange: CMTimeRange) throws -> any ReaderSampleSource {
        readingStarted = true
        return try AudioReaderSource(tracks: audioTracks, audioSettings: audioSettings, audioMix: storedAudioMix,
                                     timePitchAlgorithm: storedAlgorithm, appliesPreferredVolume: true)
    }
}
