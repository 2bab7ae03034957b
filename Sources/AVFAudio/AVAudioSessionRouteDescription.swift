// AVAudioSessionRouteDescription: the session's inputs and outputs at one moment.
import Foundation

/// The ports audio goes in and out through: on Linux the PulseAudio default source (or the
/// preferred input) and the default sink, as the session's category allows.
public final class AVAudioSessionRouteDescription: NSObject, Sendable {
    /// The input ports (empty when the category does not record, or no source exists).
    public let inputs: [AVAudioSessionPortDescription]
    /// The output ports (empty when the category does not play, or no sink exists).
    public let outputs: [AVAudioSessionPortDescription]

    package init(inputs: [AVAudioSessionPortDescription], outputs: [AVAudioSessionPortDescription]) {
        self.inputs = inputs
        self.outputs = outputs
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionRouteDescription else { return false }
        return other.inputs == inputs && other.outputs == outputs
    }

    public override var hash: Int { inputs.count &* 31 &+ outputs.count }

    public override var description: String {
        "<AVAudioSessionRouteDescription: inputs = \(inputs); outputs = \(outputs)>"
    }
}
