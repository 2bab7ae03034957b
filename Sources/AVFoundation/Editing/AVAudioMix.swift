// AVAudioMix: the per-track input parameters of an audio mix, applied by export and by
// AVAssetReaderAudioMixOutput, sample by sample (see AVAudioMixInputParameters for the volume timeline).
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
