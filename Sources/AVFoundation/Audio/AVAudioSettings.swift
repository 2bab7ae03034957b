// TEMPORARY (writer branch): the audio settings keys AVAssetWriterInput reads, with Apple's
// string values. The full AVAudioSettings.swift from the audio work replaces this file at merge.
import Foundation

/// The audio format (an `AudioFormatID`, e.g. `kAudioFormatLinearPCM`).
public let AVFormatIDKey: String = "AVFormatIDKey"
/// The sample rate in hertz (a floating-point number).
public let AVSampleRateKey: String = "AVSampleRateKey"
/// The number of channels (an integer).
public let AVNumberOfChannelsKey: String = "AVNumberOfChannelsKey"
/// The channel layout (an `AudioChannelLayout` as `Data`).
public let AVChannelLayoutKey: String = "AVChannelLayoutKey"
/// Linear PCM: bits per sample (8, 16, 24 or 32; 32 or 64 for float).
public let AVLinearPCMBitDepthKey: String = "AVLinearPCMBitDepthKey"
/// Linear PCM: whether samples are big-endian (a Boolean).
public let AVLinearPCMIsBigEndianKey: String = "AVLinearPCMIsBigEndianKey"
/// Linear PCM: whether samples are floating point (a Boolean).
public let AVLinearPCMIsFloatKey: String = "AVLinearPCMIsFloatKey"
/// Linear PCM: whether channels are in separate buffers (a Boolean).
public let AVLinearPCMIsNonInterleaved: String = "AVLinearPCMIsNonInterleaved"
/// The encoder's bit rate in bits per second (an integer).
public let AVEncoderBitRateKey: String = "AVEncoderBitRateKey"
/// The encoder's quality (an `AVAudioQuality` raw value).
public let AVEncoderAudioQualityKey: String = "AVEncoderAudioQualityKey"
/// The sample rate converter's quality (an `AVAudioQuality` raw value).
public let AVSampleRateConverterAudioQualityKey: String = "AVSampleRateConverterAudioQualityKey"
