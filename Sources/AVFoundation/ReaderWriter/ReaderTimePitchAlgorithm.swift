// AVAudioTimePitchAlgorithm: how scaled audio edits keep (or change) their pitch.

/// The algorithm used to stretch or compress audio in time for scaled edits (Apple's strings).
public struct AVAudioTimePitchAlgorithm: RawRepresentable, Hashable, Sendable {
    /// The algorithm's name.
    public let rawValue: String
    /// An algorithm from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Low quality, very inexpensive; suitable for brief fast-forward and rewind effects.
    public static let lowQualityZeroLatency = AVAudioTimePitchAlgorithm(rawValue: "LowQualityZeroLatency")
    /// Modest quality, less expensive; suitable for voice.
    public static let timeDomain = AVAudioTimePitchAlgorithm(rawValue: "TimeDomain")
    /// Highest quality, most expensive; preserves the pitch of music.
    public static let spectral = AVAudioTimePitchAlgorithm(rawValue: "Spectral")
    /// High quality, no pitch correction: the pitch follows the rate.
    public static let varispeed = AVAudioTimePitchAlgorithm(rawValue: "Varispeed")

    /// The four algorithms Apple defines.
    static let all: Set<AVAudioTimePitchAlgorithm> = [.lowQualityZeroLatency, .timeDomain, .spectral, .varispeed]
}
