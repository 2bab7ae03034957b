// AVAudioTimePitchAlgorithm (Apple's AVAudioProcessingSettings.h): how audio pitch is handled
// when audio plays at a rate other than 1 or through scaled edits.

/// An algorithm that sets the audio pitch as the rate changes.
public struct AVAudioTimePitchAlgorithm: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Low quality, very cheap; rates 1/2, 1, 2 only (deprecated by Apple).
    public static let lowQualityZeroLatency = AVAudioTimePitchAlgorithm(rawValue: "LowQualityZeroLatency")
    /// Modest quality, suitable for voice; rates 1/32 to 32.
    public static let timeDomain = AVAudioTimePitchAlgorithm(rawValue: "TimeDomain")
    /// The highest quality, suitable for music; rates 1/32 to 32.
    public static let spectral = AVAudioTimePitchAlgorithm(rawValue: "Spectral")
    /// High quality without pitch correction: the pitch follows the rate; rates 1/32 to 32.
    public static let varispeed = AVAudioTimePitchAlgorithm(rawValue: "Varispeed")

    /// The algorithms Apple defines; setting any other value raises an exception on Apple.
    package static let known: Set<AVAudioTimePitchAlgorithm> = [.lowQualityZeroLatency, .timeDomain, .spectral, .varispeed]
}
