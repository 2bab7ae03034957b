// AVFAudio: Apple's audio framework (formats, buffers, files, converters, players, engines),
// re-exported by AVFoundation. AVAudioTypes.h's counts and positions.
@_exported import CoreAudioTypes
@_exported import CoreMedia

/// A number of sample frames.
public typealias AVAudioFrameCount = UInt32
/// A position in an audio file or stream, in sample frames.
public typealias AVAudioFramePosition = Int64
/// A number of packets of compressed audio.
public typealias AVAudioPacketCount = UInt32
/// A number of audio channels.
public typealias AVAudioChannelCount = UInt32
/// An audio node's bus number.
public typealias AVAudioNodeBus = Int
