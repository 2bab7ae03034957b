// AVMutableAudioMixInputParameters: the setters of an audio mix input's volume timeline.
import CoreMedia
import Foundation

/// Mutable input parameters of an audio mix.
open class AVMutableAudioMixInputParameters: AVAudioMixInputParameters, @unchecked Sendable {
    /// Parameters with no volume changes for `track` (its track ID; `kCMPersistentTrackID_Invalid`
    /// when nil).
    public convenience init(track: AVAssetTrack?) {
        self.init()
        if let track { storedTrackID = track.trackID }
    }

    public override init() {
        super.init()
    }

    /// The track the parameters apply to.
    open override var trackID: CMPersistentTrackID {
        get { storedTrackID }
        set { storedTrackID = newValue }
    }

    /// The time-pitch algorithm for the track; nil uses the one of the output the mix is set on.
    open override var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm? {
        get { storedAlgorithm }
        set {
            if let newValue, !AVAudioTimePitchAlgorithm.known.contains(newValue) {
                preconditionFailure("*** -[AVMutableAudioMixInputParameters setAudioTimePitchAlgorithm:] "
                                    + "\(newValue.rawValue) is not a time pitch algorithm defined in AVAudioProcessingSettings.h")
            }
            storedAlgorithm = newValue
        }
    }

    /// Ramps the volume linearly from `startVolume` to `endVolume` over `timeRange`.
    open func setVolumeRamp(fromStartVolume startVolume: Float, toEndVolume endVolume: Float, timeRange: CMTimeRange) {
        guard timeRange.start.isNumeric, timeRange.duration.isNumeric else {
            preconditionFailure("*** -[AVMutableAudioMixInputParameters setVolumeRampFromStartVolume:toEndVolume:timeRange:] "
                                + "the time range's start and duration must be numeric")
        }
        insert(VolumeRamp(startVolume: startVolume, endVolume: endVolume, timeRange: timeRange))
    }

    /// Sets the volume from `time` on (until the next change).
    open func setVolume(_ volume: Float, at time: CMTime) {
        guard time.isNumeric else {
            preconditionFailure("*** -[AVMutableAudioMixInputParameters setVolume:atTime:] the time must be numeric")
        }
        insert(VolumeRamp(startVolume: volume, endVolume: volume, timeRange: CMTimeRange(start: time, duration: .zero)))
    }
}
