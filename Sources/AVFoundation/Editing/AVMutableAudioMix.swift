// AVMutableAudioMix: an audio mix whose input parameters can be set.
import Foundation

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
