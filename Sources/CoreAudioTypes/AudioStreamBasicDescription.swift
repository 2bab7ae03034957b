// AudioStreamBasicDescription and the format identifiers and flags that fill it, as declared in
// Apple's CoreAudioTypes.h. Values are Apple's (four-character codes big-endian in a UInt32).

/// A four-character code naming an audio data format (`kAudioFormatLinearPCM`, …).
public typealias AudioFormatID = UInt32
/// Format-specific flags of an `AudioStreamBasicDescription` (`kAudioFormatFlagIsFloat`, …).
public typealias AudioFormatFlags = UInt32

/// Describes an audio data stream: sample rate, format, packet/frame geometry.
public struct AudioStreamBasicDescription: Sendable, Equatable {
    /// Frames per second of the stream at normal playback.
    public var mSampleRate: Float64
    /// The format of the data (`kAudioFormatLinearPCM`, `kAudioFormatMPEG4AAC`, …).
    public var mFormatID: AudioFormatID
    /// Format-specific flags.
    public var mFormatFlags: AudioFormatFlags
    /// Bytes in a packet; 0 for variable-size packets.
    public var mBytesPerPacket: UInt32
    /// Frames in a packet (1 for uncompressed audio; 1024 for AAC); 0 for variable.
    public var mFramesPerPacket: UInt32
    /// Bytes from one frame to the next (one sample of every channel, for interleaved PCM).
    public var mBytesPerFrame: UInt32
    /// Channels in each frame.
    public var mChannelsPerFrame: UInt32
    /// Bits of sample data per channel in a frame.
    public var mBitsPerChannel: UInt32
    /// Pads the structure to an 8-byte boundary; must be 0.
    public var mReserved: UInt32

    /// An all-zero description.
    public init() {
        mSampleRate = 0
        mFormatID = 0
        mFormatFlags = 0
        mBytesPerPacket = 0
        mFramesPerPacket = 0
        mBytesPerFrame = 0
        mChannelsPerFrame = 0
        mBitsPerChannel = 0
        mReserved = 0
    }

    /// A description with every field given.
    public init(mSampleRate: Float64, mFormatID: AudioFormatID, mFormatFlags: AudioFormatFlags,
                mBytesPerPacket: UInt32, mFramesPerPacket: UInt32, mBytesPerFrame: UInt32,
                mChannelsPerFrame: UInt32, mBitsPerChannel: UInt32, mReserved: UInt32) {
        self.mSampleRate = mSampleRate
        self.mFormatID = mFormatID
        self.mFormatFlags = mFormatFlags
        self.mBytesPerPacket = mBytesPerPacket
        self.mFramesPerPacket = mFramesPerPacket
        self.mBytesPerFrame = mBytesPerFrame
        self.mChannelsPerFrame = mChannelsPerFrame
        self.mBitsPerChannel = mBitsPerChannel
        self.mReserved = mReserved
    }
}

/// `kAudioStreamAnyRate`: a sample rate of 0 meaning "any rate".
public let kAudioStreamAnyRate: Float64 = 0

// MARK: Format IDs

/// Linear PCM, 'lpcm'.
public let kAudioFormatLinearPCM: AudioFormatID = 0x6C70_636D
/// AC-3, 'ac-3'.
public let kAudioFormatAC3: AudioFormatID = 0x6163_2D33
/// AC-3 packaged for transport over an IEC 60958 digital audio interface, 'cac3'.
public let kAudioFormat60958AC3: AudioFormatID = 0x6361_6333
/// Apple's IMA 4:1 ADPCM, 'ima4'.
public let kAudioFormatAppleIMA4: AudioFormatID = 0x696D_6134
/// MPEG-4 Low Complexity AAC, 'aac '.
public let kAudioFormatMPEG4AAC: AudioFormatID = 0x6161_6320
/// MPEG-4 CELP, 'celp'.
public let kAudioFormatMPEG4CELP: AudioFormatID = 0x6365_6C70
/// MPEG-4 HVXC, 'hvxc'.
public let kAudioFormatMPEG4HVXC: AudioFormatID = 0x6876_7863
/// MPEG-4 TwinVQ, 'twvq'.
public let kAudioFormatMPEG4TwinVQ: AudioFormatID = 0x7477_7671
/// MACE 3:1, 'MAC3'.
public let kAudioFormatMACE3: AudioFormatID = 0x4D41_4333
/// MACE 6:1, 'MAC6'.
public let kAudioFormatMACE6: AudioFormatID = 0x4D41_4336
/// µLaw 2:1, 'ulaw'.
public let kAudioFormatULaw: AudioFormatID = 0x756C_6177
/// aLaw 2:1, 'alaw'.
public let kAudioFormatALaw: AudioFormatID = 0x616C_6177
/// QDesign music, 'QDMC'.
public let kAudioFormatQDesign: AudioFormatID = 0x5144_4D43
/// QDesign2 music, 'QDM2'.
public let kAudioFormatQDesign2: AudioFormatID = 0x5144_4D32
/// QUALCOMM PureVoice, 'Qclp'.
public let kAudioFormatQUALCOMM: AudioFormatID = 0x5163_6C70
/// MPEG-1/2 Layer I, '.mp1'.
public let kAudioFormatMPEGLayer1: AudioFormatID = 0x2E6D_7031
/// MPEG-1/2 Layer II, '.mp2'.
public let kAudioFormatMPEGLayer2: AudioFormatID = 0x2E6D_7032
/// MPEG-1/2 Layer III, '.mp3'.
public let kAudioFormatMPEGLayer3: AudioFormatID = 0x2E6D_7033
/// A stream of IOAudioTimeStamps, 'time'.
public let kAudioFormatTimeCode: AudioFormatID = 0x7469_6D65
/// A stream of MIDIPacketLists, 'midi'.
public let kAudioFormatMIDIStream: AudioFormatID = 0x6D69_6469
/// A side-chain of Float32 parameter values, 'apvs'.
public let kAudioFormatParameterValueStream: AudioFormatID = 0x6170_7673
/// Apple Lossless, 'alac'.
public let kAudioFormatAppleLossless: AudioFormatID = 0x616C_6163
/// MPEG-4 High Efficiency AAC, 'aach'.
public let kAudioFormatMPEG4AAC_HE: AudioFormatID = 0x6161_6368
/// MPEG-4 AAC Low Delay, 'aacl'.
public let kAudioFormatMPEG4AAC_LD: AudioFormatID = 0x6161_636C
/// MPEG-4 AAC Enhanced Low Delay, 'aace'.
public let kAudioFormatMPEG4AAC_ELD: AudioFormatID = 0x6161_6365
/// MPEG-4 AAC Enhanced Low Delay with SBR, 'aacf'.
public let kAudioFormatMPEG4AAC_ELD_SBR: AudioFormatID = 0x6161_6366
/// MPEG-4 AAC Enhanced Low Delay version 2, 'aacg'.
public let kAudioFormatMPEG4AAC_ELD_V2: AudioFormatID = 0x6161_6367
/// MPEG-4 High Efficiency AAC version 2, 'aacp'.
public let kAudioFormatMPEG4AAC_HE_V2: AudioFormatID = 0x6161_6370
/// MPEG-4 Spatial Audio, 'aacs'.
public let kAudioFormatMPEG4AAC_Spatial: AudioFormatID = 0x6161_6373
/// MPEG-D Unified Speech and Audio Coding, 'usac'.
public let kAudioFormatMPEGD_USAC: AudioFormatID = 0x7573_6163
/// AMR narrow band, 'samr'.
public let kAudioFormatAMR: AudioFormatID = 0x7361_6D72
/// AMR wide band, 'sawb'.
public let kAudioFormatAMR_WB: AudioFormatID = 0x7361_7762
/// Audible audio books, 'AUDB'.
public let kAudioFormatAudible: AudioFormatID = 0x4155_4442
/// iLBC narrow band, 'ilbc'.
public let kAudioFormatiLBC: AudioFormatID = 0x696C_6263
/// DVI/Intel IMA ADPCM (WAVE format tag 0x11 in Microsoft's namespace).
public let kAudioFormatDVIIntelIMA: AudioFormatID = 0x6D73_0011
/// Microsoft GSM 6.10 (WAVE format tag 0x31 in Microsoft's namespace).
public let kAudioFormatMicrosoftGSM: AudioFormatID = 0x6D73_0031
/// AES3-2003, 'aes3'.
public let kAudioFormatAES3: AudioFormatID = 0x6165_7333
/// Enhanced AC-3, 'ec-3'.
public let kAudioFormatEnhancedAC3: AudioFormatID = 0x6563_2D33
/// Free Lossless Audio Codec, 'flac'.
public let kAudioFormatFLAC: AudioFormatID = 0x666C_6163
/// Opus, 'opus'.
public let kAudioFormatOpus: AudioFormatID = 0x6F70_7573
/// Apple Positional Audio Codec ('apac').
public let kAudioFormatAPAC: AudioFormatID = 0x6170_6163

// MARK: Format flags

/// Samples are floating point (otherwise integer).
public let kAudioFormatFlagIsFloat: AudioFormatFlags = 1 << 0
/// Samples are big-endian (otherwise little-endian).
public let kAudioFormatFlagIsBigEndian: AudioFormatFlags = 1 << 1
/// Integer samples are signed.
public let kAudioFormatFlagIsSignedInteger: AudioFormatFlags = 1 << 2
/// Sample bits occupy the whole of each channel's bytes.
public let kAudioFormatFlagIsPacked: AudioFormatFlags = 1 << 3
/// Unpacked samples are aligned to the high bits of their bytes.
public let kAudioFormatFlagIsAlignedHigh: AudioFormatFlags = 1 << 4
/// Each channel is in its own buffer (otherwise channels are interleaved).
public let kAudioFormatFlagIsNonInterleaved: AudioFormatFlags = 1 << 5
/// The format cannot be mixed.
public let kAudioFormatFlagIsNonMixable: AudioFormatFlags = 1 << 6
/// Set when every other flag is clear, to distinguish "no flags" from "flags not given".
public let kAudioFormatFlagsAreAllClear: AudioFormatFlags = 0x8000_0000

/// Linear PCM: floating-point samples.
public let kLinearPCMFormatFlagIsFloat: AudioFormatFlags = kAudioFormatFlagIsFloat
/// Linear PCM: big-endian samples.
public let kLinearPCMFormatFlagIsBigEndian: AudioFormatFlags = kAudioFormatFlagIsBigEndian
/// Linear PCM: signed integer samples.
public let kLinearPCMFormatFlagIsSignedInteger: AudioFormatFlags = kAudioFormatFlagIsSignedInteger
/// Linear PCM: packed samples.
public let kLinearPCMFormatFlagIsPacked: AudioFormatFlags = kAudioFormatFlagIsPacked
/// Linear PCM: high-aligned samples.
public let kLinearPCMFormatFlagIsAlignedHigh: AudioFormatFlags = kAudioFormatFlagIsAlignedHigh
/// Linear PCM: non-interleaved channels.
public let kLinearPCMFormatFlagIsNonInterleaved: AudioFormatFlags = kAudioFormatFlagIsNonInterleaved
/// Linear PCM: not mixable.
public let kLinearPCMFormatFlagIsNonMixable: AudioFormatFlags = kAudioFormatFlagIsNonMixable
/// Shift of the fixed-point fraction-bit count within the flags.
public let kLinearPCMFormatFlagsSampleFractionShift: AudioFormatFlags = 7
/// Mask of the fixed-point fraction-bit count within the flags.
public let kLinearPCMFormatFlagsSampleFractionMask: AudioFormatFlags = 0x3F << kLinearPCMFormatFlagsSampleFractionShift
/// Linear PCM: every other flag is clear.
public let kLinearPCMFormatFlagsAreAllClear: AudioFormatFlags = kAudioFormatFlagsAreAllClear

/// Apple Lossless: the source was 16-bit.
public let kAppleLosslessFormatFlag_16BitSourceData: AudioFormatFlags = 1
/// Apple Lossless: the source was 20-bit.
public let kAppleLosslessFormatFlag_20BitSourceData: AudioFormatFlags = 2
/// Apple Lossless: the source was 24-bit.
public let kAppleLosslessFormatFlag_24BitSourceData: AudioFormatFlags = 3
/// Apple Lossless: the source was 32-bit.
public let kAppleLosslessFormatFlag_32BitSourceData: AudioFormatFlags = 4

/// The endianness flag of this machine: 0 on little-endian hosts, `kAudioFormatFlagIsBigEndian` on big-endian ones.
public let kAudioFormatFlagsNativeEndian: AudioFormatFlags = 1.bigEndian == 1 ? kAudioFormatFlagIsBigEndian : 0
/// Native-endian packed floating point.
public let kAudioFormatFlagsNativeFloatPacked: AudioFormatFlags =
    kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
/// The flags of the old "canonical" sample format: native-endian packed 32-bit float (as on macOS).
@available(*, deprecated, message: "The concept of canonical formats is deprecated")
public let kAudioFormatFlagsCanonical: AudioFormatFlags =
    kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
/// The flags of the old audio-unit "canonical" format: the canonical flags, non-interleaved.
@available(*, deprecated, message: "The concept of canonical formats is deprecated")
public let kAudioFormatFlagsAudioUnitCanonical: AudioFormatFlags =
    kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved
