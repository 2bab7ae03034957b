// Channel labels: the role of one channel in a layout.

/// Identifies the role of a channel (`kAudioChannelLabel_Left`, …).
public typealias AudioChannelLabel = UInt32

/// Unknown role.
public let kAudioChannelLabel_Unknown: AudioChannelLabel = 0xFFFF_FFFF
/// Unused channel.
public let kAudioChannelLabel_Unused: AudioChannelLabel = 0
/// The channel is placed by its coordinates.
public let kAudioChannelLabel_UseCoordinates: AudioChannelLabel = 100
/// Left.
public let kAudioChannelLabel_Left: AudioChannelLabel = 1
/// Right.
public let kAudioChannelLabel_Right: AudioChannelLabel = 2
/// Center.
public let kAudioChannelLabel_Center: AudioChannelLabel = 3
/// Low-frequency effects.
public let kAudioChannelLabel_LFEScreen: AudioChannelLabel = 4
/// Left surround.
public let kAudioChannelLabel_LeftSurround: AudioChannelLabel = 5
/// Right surround.
public let kAudioChannelLabel_RightSurround: AudioChannelLabel = 6
/// Left center.
public let kAudioChannelLabel_LeftCenter: AudioChannelLabel = 7
/// Right center.
public let kAudioChannelLabel_RightCenter: AudioChannelLabel = 8
/// Center surround.
public let kAudioChannelLabel_CenterSurround: AudioChannelLabel = 9
/// Left surround direct.
public let kAudioChannelLabel_LeftSurroundDirect: AudioChannelLabel = 10
/// Right surround direct.
public let kAudioChannelLabel_RightSurroundDirect: AudioChannelLabel = 11
/// Top center surround.
public let kAudioChannelLabel_TopCenterSurround: AudioChannelLabel = 12
/// Vertical height left.
public let kAudioChannelLabel_VerticalHeightLeft: AudioChannelLabel = 13
/// Vertical height center.
public let kAudioChannelLabel_VerticalHeightCenter: AudioChannelLabel = 14
/// Vertical height right.
public let kAudioChannelLabel_VerticalHeightRight: AudioChannelLabel = 15
/// Top back left.
public let kAudioChannelLabel_TopBackLeft: AudioChannelLabel = 16
/// Top back center.
public let kAudioChannelLabel_TopBackCenter: AudioChannelLabel = 17
/// Top back right.
public let kAudioChannelLabel_TopBackRight: AudioChannelLabel = 18
/// Rear surround left.
public let kAudioChannelLabel_RearSurroundLeft: AudioChannelLabel = 33
/// Rear surround right.
public let kAudioChannelLabel_RearSurroundRight: AudioChannelLabel = 34
/// Left wide.
public let kAudioChannelLabel_LeftWide: AudioChannelLabel = 35
/// Right wide.
public let kAudioChannelLabel_RightWide: AudioChannelLabel = 36
/// Second low-frequency effects channel.
public let kAudioChannelLabel_LFE2: AudioChannelLabel = 37
/// Matrix-encoded left total.
public let kAudioChannelLabel_LeftTotal: AudioChannelLabel = 38
/// Matrix-encoded right total.
public let kAudioChannelLabel_RightTotal: AudioChannelLabel = 39
/// Hearing-impaired mix.
public let kAudioChannelLabel_HearingImpaired: AudioChannelLabel = 40
/// Narration.
public let kAudioChannelLabel_Narration: AudioChannelLabel = 41
/// Mono.
public let kAudioChannelLabel_Mono: AudioChannelLabel = 42
/// Dialog-centric mix.
public let kAudioChannelLabel_DialogCentricMix: AudioChannelLabel = 43
/// Center surround direct.
public let kAudioChannelLabel_CenterSurroundDirect: AudioChannelLabel = 44
/// Haptic.
public let kAudioChannelLabel_Haptic: AudioChannelLabel = 45
/// Ambisonic W.
public let kAudioChannelLabel_Ambisonic_W: AudioChannelLabel = 200
/// Ambisonic X.
public let kAudioChannelLabel_Ambisonic_X: AudioChannelLabel = 201
/// Ambisonic Y.
public let kAudioChannelLabel_Ambisonic_Y: AudioChannelLabel = 202
/// Ambisonic Z.
public let kAudioChannelLabel_Ambisonic_Z: AudioChannelLabel = 203
/// Mid/side: mid.
public let kAudioChannelLabel_MS_Mid: AudioChannelLabel = 204
/// Mid/side: side.
public let kAudioChannelLabel_MS_Side: AudioChannelLabel = 205
/// XY: X.
public let kAudioChannelLabel_XY_X: AudioChannelLabel = 206
/// XY: Y.
public let kAudioChannelLabel_XY_Y: AudioChannelLabel = 207
/// Headphones left.
public let kAudioChannelLabel_HeadphonesLeft: AudioChannelLabel = 301
/// Headphones right.
public let kAudioChannelLabel_HeadphonesRight: AudioChannelLabel = 302
/// Click track.
public let kAudioChannelLabel_ClickTrack: AudioChannelLabel = 304
/// Foreign language.
public let kAudioChannelLabel_ForeignLanguage: AudioChannelLabel = 305
/// A discrete channel with no role.
public let kAudioChannelLabel_Discrete: AudioChannelLabel = 400
/// Discrete channel 0 (`kAudioChannelLabel_Discrete_N` = `(1 << 16) | N`).
public let kAudioChannelLabel_Discrete_0: AudioChannelLabel = (1 << 16) | 0
/// Discrete channel 1.
public let kAudioChannelLabel_Discrete_1: AudioChannelLabel = (1 << 16) | 1
/// Discrete channel 2.
public let kAudioChannelLabel_Discrete_2: AudioChannelLabel = (1 << 16) | 2
/// Discrete channel 3.
public let kAudioChannelLabel_Discrete_3: AudioChannelLabel = (1 << 16) | 3
