// Channel layout tags: the high 16 bits identify the layout, the low 16 bits count its channels.

/// Identifies a predefined channel layout: `(layout << 16) | numberOfChannels`.
public typealias AudioChannelLayoutTag = UInt32

/// The number of channels a layout tag describes (its low 16 bits).
@discardableResult
public func AudioChannelLayoutTag_GetNumberOfChannels(_ inLayoutTag: AudioChannelLayoutTag) -> UInt32 {
    inLayoutTag & 0x0000_FFFF
}

/// The layout is given by the channel descriptions.
public let kAudioChannelLayoutTag_UseChannelDescriptions: AudioChannelLayoutTag = (0 << 16) | 0
/// The layout is given by the channel bitmap.
public let kAudioChannelLayoutTag_UseChannelBitmap: AudioChannelLayoutTag = (1 << 16) | 0
/// One channel.
public let kAudioChannelLayoutTag_Mono: AudioChannelLayoutTag = (100 << 16) | 1
/// Left, right.
public let kAudioChannelLayoutTag_Stereo: AudioChannelLayoutTag = (101 << 16) | 2
/// Stereo for headphones.
public let kAudioChannelLayoutTag_StereoHeadphones: AudioChannelLayoutTag = (102 << 16) | 2
/// Matrix-encoded stereo (Lt, Rt).
public let kAudioChannelLayoutTag_MatrixStereo: AudioChannelLayoutTag = (103 << 16) | 2
/// Mid/side recording.
public let kAudioChannelLayoutTag_MidSide: AudioChannelLayoutTag = (104 << 16) | 2
/// Coincident microphone pair.
public let kAudioChannelLayoutTag_XY: AudioChannelLayoutTag = (105 << 16) | 2
/// Binaural stereo.
public let kAudioChannelLayoutTag_Binaural: AudioChannelLayoutTag = (106 << 16) | 2
/// Ambisonic B format (W, X, Y, Z).
public let kAudioChannelLayoutTag_Ambisonic_B_Format: AudioChannelLayoutTag = (107 << 16) | 4
/// Front left, front right, back left, back right.
public let kAudioChannelLayoutTag_Quadraphonic: AudioChannelLayoutTag = (108 << 16) | 4
/// Five channels in a pentagon.
public let kAudioChannelLayoutTag_Pentagonal: AudioChannelLayoutTag = (109 << 16) | 5
/// Six channels in a hexagon.
public let kAudioChannelLayoutTag_Hexagonal: AudioChannelLayoutTag = (110 << 16) | 6
/// Eight channels in an octagon.
public let kAudioChannelLayoutTag_Octagonal: AudioChannelLayoutTag = (111 << 16) | 8
/// Eight channels at the corners of a cube.
public let kAudioChannelLayoutTag_Cube: AudioChannelLayoutTag = (112 << 16) | 8
/// MPEG 1.0: C.
public let kAudioChannelLayoutTag_MPEG_1_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// MPEG 2.0: L R.
public let kAudioChannelLayoutTag_MPEG_2_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// MPEG 3.0 A: L R C.
public let kAudioChannelLayoutTag_MPEG_3_0_A: AudioChannelLayoutTag = (113 << 16) | 3
/// MPEG 3.0 B: C L R.
public let kAudioChannelLayoutTag_MPEG_3_0_B: AudioChannelLayoutTag = (114 << 16) | 3
/// MPEG 4.0 A: L R C Cs.
public let kAudioChannelLayoutTag_MPEG_4_0_A: AudioChannelLayoutTag = (115 << 16) | 4
/// MPEG 4.0 B: C L R Cs.
public let kAudioChannelLayoutTag_MPEG_4_0_B: AudioChannelLayoutTag = (116 << 16) | 4
/// MPEG 5.0 A: L R C Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_0_A: AudioChannelLayoutTag = (117 << 16) | 5
/// MPEG 5.0 B: L R Ls Rs C.
public let kAudioChannelLayoutTag_MPEG_5_0_B: AudioChannelLayoutTag = (118 << 16) | 5
/// MPEG 5.0 C: L C R Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_0_C: AudioChannelLayoutTag = (119 << 16) | 5
/// MPEG 5.0 D: C L R Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_0_D: AudioChannelLayoutTag = (120 << 16) | 5
/// MPEG 5.1 A: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_1_A: AudioChannelLayoutTag = (121 << 16) | 6
/// MPEG 5.1 B: L R Ls Rs C LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_B: AudioChannelLayoutTag = (122 << 16) | 6
/// MPEG 5.1 C: L C R Ls Rs LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_C: AudioChannelLayoutTag = (123 << 16) | 6
/// MPEG 5.1 D: C L R Ls Rs LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_D: AudioChannelLayoutTag = (124 << 16) | 6
/// MPEG 6.1 A: L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_MPEG_6_1_A: AudioChannelLayoutTag = (125 << 16) | 7
/// MPEG 7.1 A: L R C LFE Ls Rs Lc Rc.
public let kAudioChannelLayoutTag_MPEG_7_1_A: AudioChannelLayoutTag = (126 << 16) | 8
/// MPEG 7.1 B: C Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_MPEG_7_1_B: AudioChannelLayoutTag = (127 << 16) | 8
/// MPEG 7.1 C: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_MPEG_7_1_C: AudioChannelLayoutTag = (128 << 16) | 8
/// Emagic default 7.1: L R Ls Rs C LFE Lc Rc.
public let kAudioChannelLayoutTag_Emagic_Default_7_1: AudioChannelLayoutTag = (129 << 16) | 8
/// SMPTE DTV: L R C LFE Ls Rs Lt Rt.
public let kAudioChannelLayoutTag_SMPTE_DTV: AudioChannelLayoutTag = (130 << 16) | 8
/// ITU 1.0: C.
public let kAudioChannelLayoutTag_ITU_1_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// ITU 2.0: L R.
public let kAudioChannelLayoutTag_ITU_2_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// ITU 2.1: L R Cs.
public let kAudioChannelLayoutTag_ITU_2_1: AudioChannelLayoutTag = (131 << 16) | 3
/// ITU 2.2: L R Ls Rs.
public let kAudioChannelLayoutTag_ITU_2_2: AudioChannelLayoutTag = (132 << 16) | 4
/// ITU 3.0: L R C.
public let kAudioChannelLayoutTag_ITU_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// ITU 3.1: L R C Cs.
public let kAudioChannelLayoutTag_ITU_3_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// ITU 3.2: L R C Ls Rs.
public let kAudioChannelLayoutTag_ITU_3_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// ITU 3.2.1: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_ITU_3_2_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// ITU 3.4.1: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_ITU_3_4_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C
/// Audio Unit 4 channels (quadraphonic).
public let kAudioChannelLayoutTag_AudioUnit_4: AudioChannelLayoutTag = kAudioChannelLayoutTag_Quadraphonic
/// Audio Unit 5 channels (pentagonal).
public let kAudioChannelLayoutTag_AudioUnit_5: AudioChannelLayoutTag = kAudioChannelLayoutTag_Pentagonal
/// Audio Unit 6 channels (hexagonal).
public let kAudioChannelLayoutTag_AudioUnit_6: AudioChannelLayoutTag = kAudioChannelLayoutTag_Hexagonal
/// Audio Unit 8 channels (octagonal).
public let kAudioChannelLayoutTag_AudioUnit_8: AudioChannelLayoutTag = kAudioChannelLayoutTag_Octagonal
/// Audio Unit 5.0: L R Ls Rs C.
public let kAudioChannelLayoutTag_AudioUnit_5_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_B
/// Audio Unit 6.0: L R Ls Rs C Cs.
public let kAudioChannelLayoutTag_AudioUnit_6_0: AudioChannelLayoutTag = (139 << 16) | 6
/// Audio Unit 7.0: L R Ls Rs C Rls Rrs.
public let kAudioChannelLayoutTag_AudioUnit_7_0: AudioChannelLayoutTag = (140 << 16) | 7
/// Audio Unit 7.0 front: L R Ls Rs C Lc Rc.
public let kAudioChannelLayoutTag_AudioUnit_7_0_Front: AudioChannelLayoutTag = (148 << 16) | 7
/// Audio Unit 5.1: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_AudioUnit_5_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// Audio Unit 6.1: L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_AudioUnit_6_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_6_1_A
/// Audio Unit 7.1: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_AudioUnit_7_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C
/// Audio Unit 7.1 front: L R C LFE Ls Rs Lc Rc.
public let kAudioChannelLayoutTag_AudioUnit_7_1_Front: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_A
/// AAC 3.0: C L R.
public let kAudioChannelLayoutTag_AAC_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_B
/// AAC quadraphonic: L R Ls Rs.
public let kAudioChannelLayoutTag_AAC_Quadraphonic: AudioChannelLayoutTag = kAudioChannelLayoutTag_Quadraphonic
/// AAC 4.0: C L R Cs.
public let kAudioChannelLayoutTag_AAC_4_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_B
/// AAC 5.0: C L R Ls Rs.
public let kAudioChannelLayoutTag_AAC_5_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_D
/// AAC 5.1: C L R Ls Rs LFE.
public let kAudioChannelLayoutTag_AAC_5_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_D
/// AAC 6.0: C L R Ls Rs Cs.
public let kAudioChannelLayoutTag_AAC_6_0: AudioChannelLayoutTag = (141 << 16) | 6
/// AAC 6.1: C L R Ls Rs Cs LFE.
public let kAudioChannelLayoutTag_AAC_6_1: AudioChannelLayoutTag = (142 << 16) | 7
/// AAC 7.0: C L R Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_AAC_7_0: AudioChannelLayoutTag = (143 << 16) | 7
/// AAC 7.1: C Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_AAC_7_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_B
/// AAC 7.1 B: C L R Ls Rs Rls Rrs LFE.
public let kAudioChannelLayoutTag_AAC_7_1_B: AudioChannelLayoutTag = (183 << 16) | 8
/// AAC 7.1 C: C L R Ls Rs LFE Vhl Vhr.
public let kAudioChannelLayoutTag_AAC_7_1_C: AudioChannelLayoutTag = (184 << 16) | 8
/// AAC octagonal: C L R Ls Rs Rls Rrs Cs.
public let kAudioChannelLayoutTag_AAC_Octagonal: AudioChannelLayoutTag = (144 << 16) | 8
/// AC-3 1.0.1: C LFE.
public let kAudioChannelLayoutTag_AC3_1_0_1: AudioChannelLayoutTag = (149 << 16) | 2
/// AC-3 3.0: L C R.
public let kAudioChannelLayoutTag_AC3_3_0: AudioChannelLayoutTag = (150 << 16) | 3
/// AC-3 3.1: L C R Cs.
public let kAudioChannelLayoutTag_AC3_3_1: AudioChannelLayoutTag = (151 << 16) | 4
/// AC-3 3.0.1: L C R LFE.
public let kAudioChannelLayoutTag_AC3_3_0_1: AudioChannelLayoutTag = (152 << 16) | 4
/// AC-3 2.1.1: L R Cs LFE.
public let kAudioChannelLayoutTag_AC3_2_1_1: AudioChannelLayoutTag = (153 << 16) | 4
/// AC-3 3.1.1: L C R Cs LFE.
public let kAudioChannelLayoutTag_AC3_3_1_1: AudioChannelLayoutTag = (154 << 16) | 5
/// Channels in the order of their descriptions, with no positions; the low 16 bits count them.
public let kAudioChannelLayoutTag_DiscreteInOrder: AudioChannelLayoutTag = (147 << 16) | 0
/// Higher-order ambisonics, ACN channel order, SN3D normalisation; the low 16 bits count channels.
public let kAudioChannelLayoutTag_HOA_ACN_SN3D: AudioChannelLayoutTag = (190 << 16) | 0
/// Higher-order ambisonics, ACN channel order, N3D normalisation; the low 16 bits count channels.
public let kAudioChannelLayoutTag_HOA_ACN_N3D: AudioChannelLayoutTag = (191 << 16) | 0
/// A layout that is not known; the low 16 bits count the channels.
public let kAudioChannelLayoutTag_Unknown: AudioChannelLayoutTag = 0xFFFF_0000
