// AVAudioMix and its input parameters: per-track volume over the asset's timeline (levels set
// at times and linear ramps over time ranges), applied by AVAssetReaderAudioMixOutput.
import CoreMedia
import Foundation

/// The parameters for mixing an asset's audio tracks: one set of input parameters per track
/// whose volume changes. Tracks without input parameters are mixed at volume 1.
open class AVAudioMix: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// The input parameters, at most one set per track (copies: changing the returned objects
    /// does not change the mix).
    open var inputParameters: [AVAudioMixInputParameters] { storedParameters }

    var storedParameters: [AVAudioMixInputParameters] = []

    public override init() {
        super.init()
    }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVAudioMix()
        copy.storedParameters = storedParameters.map { $0.immutableCopy() }
        return copy
    }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = AVMutableAudioMix()
        copy.storedParameters = storedParameters.map { $0.immutableCopy() }
        return copy
    }

    /// The parameters for a track, if the mix has any for it.
    func parameters(forTrackID trackID: CMPersistentTrackID) -> AVAudioMixInputParameters? {
        storedParameters.first { $0.trackID == trackID }
    }
}

/// A mutable audio mix.
open class AVMutableAudioMix: AVAudioMix, @unchecked Sendable {
    /// The input parameters (copied when set).
    open override var inputParameters: [AVAudioMixInputParameters] {
        get { storedParameters }
        set { storedParameters = newValue.map { $0.immutableCopy() } }
    }

    public override init() {
        super.init()
    }
}

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

    /// The volume changes as plain numbers, for applying them sample by sample.
    var volumeCurve: AudioVolumeCurve? {
        guard !ramps.isEmpty else { return nil }
        let segments = ramps.map { ramp in
            AudioVolumeCurve.Segment(start: ramp.timeRange.start.seconds, end: ramp.timeRange.end.seconds,
                                     startVolume: ramp.startVolume, endVolume: ramp.endVolume)
        }
        return AudioVolumeCurve(segments: segments)
    }
}

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

/// A volume timeline in seconds, evaluated for runs of consecutive samples.
struct AudioVolumeCurve: Sendable {
    struct Segment: Sendable {
        var start: Double
        var end: Double
        var startVolume: Float
        var endVolume: Float
    }

    /// Sorted by start.
    let segments: [Segment]

    /// The volume at `time` seconds.
    func volume(at time: Double) -> Float {
        guard let index = segments.lastIndex(where: { $0.start <= time }) else { return 1 }
        let s = segments[index]
        if time < s.end, s.end > s.start {
            return s.startVolume + (s.endVolume - s.startVolume) * Float((time - s.start) / (s.end - s.start))
        }
        return s.endVolume
    }

    /// The volumes of `count` samples, the first at output index `first` of a `rate`-Hz timeline.
    func volumes(first: Int64, count: Int, rate: Int) -> [Float] {
        (0..<count).map { volume(at: Double(first + Int64($0)) / Double(rate)) }
    }
}
