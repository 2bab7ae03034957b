// AVAudioMixInputParameters: per-track volume over the asset's timeline (levels set at times and
// linear ramps over time ranges).
import CoreMedia
import Foundation

/// Time-varying parameters for one input of an audio mix: the volume of the track `trackID`.
///
/// Before the first time a volume is set the volume is 1; after the last one, the last volume
/// holds. Within a ramp's time range the volume moves linearly from its start to its end
/// volume; `setVolume(_:at:)` is a step that holds until the next change.
open class AVAudioMixInputParameters: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// One volume change: a ramp, or (zero duration) a step.
    struct VolumeRamp: Equatable {
        var startVolume: Float
        var endVolume: Float
        var timeRange: CMTimeRange
    }

    var storedTrackID: CMPersistentTrackID = kCMPersistentTrackID_Invalid
    var storedAlgorithm: AVAudioTimePitchAlgorithm?
    /// Sorted by start time; at most one per start time.
    var ramps: [VolumeRamp] = []

    /// The track the parameters apply to.
    open var trackID: CMPersistentTrackID { storedTrackID }

    /// The time-pitch algorithm for the track; nil uses the one of the output the mix is set on.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm? { storedAlgorithm }

    public override init() {
        super.init()
    }

    /// The volume ramp in effect at `time`, or else the first one after it.
    ///
    /// - Returns: false when `time` is past the end of the last ramp (or there is none).
    open func getVolumeRamp(for time: CMTime, startVolume: UnsafeMutablePointer<Float>?, endVolume: UnsafeMutablePointer<Float>?,
                            timeRange: UnsafeMutablePointer<CMTimeRange>?) -> Bool {
        guard time.isNumeric else { return false }
        let containing = ramps.last { ramp in
            ramp.timeRange.start <= time && (time < ramp.timeRange.end || (ramp.timeRange.duration == .zero && time == ramp.timeRange.start))
        }
        guard let ramp = containing ?? ramps.first(where: { $0.timeRange.start > time }) else { return false }
        startVolume?.pointee = ramp.startVolume
        endVolume?.pointee = ramp.endVolume
        timeRange?.pointee = ramp.timeRange
        return true
    }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { immutableCopy() }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = AVMutableAudioMixInputParameters()
        copy.copyState(from: self)
        return copy
    }

    func immutableCopy() -> AVAudioMixInputParameters {
        let copy = AVAudioMixInputParameters()
        copy.copyState(from: self)
        return copy
    }

    private func copyState(from other: AVAudioMixInputParameters) {
        storedTrackID = other.storedTrackID
        storedAlgorithm = other.storedAlgorithm
        ramps = other.ramps
    }

    /// Adds a ramp (replacing one that starts at the same time), keeping start order.
    func insert(_ ramp: VolumeRamp) {
        ramps.removeAll { $0.timeRange.start == ramp.timeRange.start }
        let index = ramps.firstIndex { $0.timeRange.start > ramp.timeRange.start } ?? ramps.count
        ramps.insert(ramp, at: index)
    }

    /// The volume changes on the sample indices of `rate`, each gain times `scale` (the track's
    /// preferred volume); nil when every gain is 1.
    func volumeCurve(rate: Int, scale: Float) -> AudioVolumeCurve? {
        AudioVolumeCurve(ramps: ramps.map { ($0.timeRange, $0.startVolume, $0.endVolume) }, scale: scale, rate: rate)
    }
}
