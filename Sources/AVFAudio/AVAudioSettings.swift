// Audio settings keys and values (Apple's AVAudioSettings.h, declared in AVFAudio and re-exported
// by AVFoundation): the dictionary keys readers, writers and recorders take to describe audio.
// Values are Apple's strings; dictionary values are numbers unless noted.

// MARK: Format keys

/// The audio data format (a format ID such as `kAudioFormatLinearPCM`).
public let AVFormatIDKey: String = "AVFormatIDKey"
/// The sample rate in hertz (a floating-point number).
public let AVSampleRateKey: String = "AVSampleRateKey"
/// The number of channels (an integer).
public let AVNumberOfChannelsKey: String = "AVNumberOfChannelsKey"

// MARK: Linear PCM keys

/// The bit depth of linear PCM samples: 8, 16, 24 or 32 (an integer).
public let AVLinearPCMBitDepthKey: String = "AVLinearPCMBitDepthKey"
/// Whether linear PCM samples are big-endian (a Boolean).
public let AVLinearPCMIsBigEndianKey: String = "AVLinearPCMIsBigEndianKey"
/// Whether linear PCM samples are floating point (a Boolean).
public let AVLinearPCMIsFloatKey: String = "AVLinearPCMIsFloatKey"
/// Whether linear PCM channels are in separate buffers (a Boolean).
public let AVLinearPCMIsNonInterleaved: String = "AVLinearPCMIsNonInterleaved"
/// The same key as `AVLinearPCMIsNonInterleaved` (Apple's header defines it as an alias).
public let AVLinearPCMIsNonInterleavedKey: String = AVLinearPCMIsNonInterleaved

// MARK: Audio file type key

/// The audio file type (an `AudioFileTypeID`), for audio recorders.
public let AVAudioFileTypeKey: String = "AVAudioFileTypeKey"

// MARK: Encoder keys

/// The encoder's quality (an `AVAudioQuality` raw value).
public let AVEncoderAudioQualityKey: String = "AVEncoderAudioQualityKey"
/// The encoder's quality for variable bit rate encoding (an `AVAudioQuality` raw value); only
/// used with `AVAudioBitRateStrategy_Variable`.
public let AVEncoderAudioQualityForVBRKey: String = "AVEncoderAudioQualityForVBRKey"
/// The encoder's bit rate in bits per second (an integer). Give either this or
/// `AVEncoderBitRatePerChannelKey`, not both.
public let AVEncoderBitRateKey: String = "AVEncoderBitRateKey"
/// The encoder's bit rate per channel in bits per second (an integer).
public let AVEncoderBitRatePerChannelKey: String = "AVEncoderBitRatePerChannelKey"
/// The encoder's bit rate strategy (one of the `AVAudioBitRateStrategy_…` strings).
public let AVEncoderBitRateStrategyKey: String = "AVEncoderBitRateStrategyKey"
/// The bit depth the encoder should assume for its source, 8 to 32 (an integer).
public let AVEncoderBitDepthHintKey: String = "AVEncoderBitDepthHintKey"

// MARK: Sample rate converter keys

/// The sample rate converter's algorithm (one of the `AVSampleRateConverterAlgorithm_…` strings).
public let AVSampleRateConverterAlgorithmKey: String = "AVSampleRateConverterAlgorithmKey"
/// The sample rate converter's quality (an `AVAudioQuality` raw value).
public let AVSampleRateConverterAudioQualityKey: String = "AVSampleRateConverterAudioQualityKey"

// MARK: Channel layout key

/// The channel layout: `Data` holding an `AudioChannelLayout` (with its channel descriptions).
public let AVChannelLayoutKey: String = "AVChannelLayoutKey"

// MARK: Values

/// A constant bit rate.
public let AVAudioBitRateStrategy_Constant: String = "AVAudioBitRateStrategy_Constant"
/// An average bit rate over the long term.
public let AVAudioBitRateStrategy_LongTermAverage: String = "AVAudioBitRateStrategy_LongTermAverage"
/// A variable bit rate within limits.
public let AVAudioBitRateStrategy_VariableConstrained: String = "AVAudioBitRateStrategy_VariableConstrained"
/// A variable bit rate.
public let AVAudioBitRateStrategy_Variable: String = "AVAudioBitRateStrategy_Variable"

/// The usual sample rate conversion.
public let AVSampleRateConverterAlgorithm_Normal: String = "AVSampleRateConverterAlgorithm_Normal"
/// Sample rate conversion for mastering (higher quality).
public let AVSampleRateConverterAlgorithm_Mastering: String = "AVSampleRateConverterAlgorithm_Mastering"
/// Minimum-phase sample rate conversion.
public let AVSampleRateConverterAlgorithm_MinimumPhase: String = "AVSampleRateConverterAlgorithm_MinimumPhase"

/// Quality levels for encoders and sample rate converters.
public enum AVAudioQuality: Int, Sendable {
    /// The lowest quality.
    case min = 0
    /// Low quality.
    case low = 0x20
    /// Medium quality.
    case medium = 0x40
    /// High quality.
    case high = 0x60
    /// The highest quality.
    case max = 0x7F
}
