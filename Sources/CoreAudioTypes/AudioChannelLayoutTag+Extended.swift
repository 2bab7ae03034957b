// The channel layout tags of Apple's current CoreAudioBaseTypes.h beyond the common ones in
// AudioChannelLayoutTag.swift: DVD, TMH, E-AC-3, DTS, WAVE, Dolby Atmos, Logic, CICP (ISO/IEC 23091-3),
// Ogg and the later MPEG orders, each `(layout << 16) | numberOfChannels` or an alias of an
// equal layout, with the same values as Apple's headers.

/// C.
public let kAudioChannelLayoutTag_DVD_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// L R.
public let kAudioChannelLayoutTag_DVD_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// L R Cs.
public let kAudioChannelLayoutTag_DVD_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_1
/// L R Ls Rs.
public let kAudioChannelLayoutTag_DVD_3: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_2
/// L R LFE.
public let kAudioChannelLayoutTag_DVD_4: AudioChannelLayoutTag = (133 << 16) | 3
/// L R LFE Cs.
public let kAudioChannelLayoutTag_DVD_5: AudioChannelLayoutTag = (134 << 16) | 4
/// L R LFE Ls Rs.
public let kAudioChannelLayoutTag_DVD_6: AudioChannelLayoutTag = (135 << 16) | 5
/// L R C.
public let kAudioChannelLayoutTag_DVD_7: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// L R C Cs.
public let kAudioChannelLayoutTag_DVD_8: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// L R C Ls Rs.
public let kAudioChannelLayoutTag_DVD_9: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// L R C LFE.
public let kAudioChannelLayoutTag_DVD_10: AudioChannelLayoutTag = (136 << 16) | 4
/// L R C LFE Cs.
public let kAudioChannelLayoutTag_DVD_11: AudioChannelLayoutTag = (137 << 16) | 5
/// L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_DVD_12: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// L R C Cs.
public let kAudioChannelLayoutTag_DVD_13: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_8
/// L R C Ls Rs.
public let kAudioChannelLayoutTag_DVD_14: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_9
/// L R C LFE.
public let kAudioChannelLayoutTag_DVD_15: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_10
/// L R C LFE Cs.
public let kAudioChannelLayoutTag_DVD_16: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_11
/// L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_DVD_17: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_12
/// L R Ls Rs LFE.
public let kAudioChannelLayoutTag_DVD_18: AudioChannelLayoutTag = (138 << 16) | 5
/// L R Ls Rs C.
public let kAudioChannelLayoutTag_DVD_19: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_B
/// L R Ls Rs C LFE.
public let kAudioChannelLayoutTag_DVD_20: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_B
/// L R C Vhc Lsd Rsd Ls Rs Vhl Vhr Lw Rw Csd Cs LFE1 LFE2.
public let kAudioChannelLayoutTag_TMH_10_2_std: AudioChannelLayoutTag = (145 << 16) | 16
/// TMH 10.2 standard plus Lc Rc HI VI Haptic.
public let kAudioChannelLayoutTag_TMH_10_2_full: AudioChannelLayoutTag = (146 << 16) | 21
/// L C R Ls Rs Cs.
public let kAudioChannelLayoutTag_EAC_6_0_A: AudioChannelLayoutTag = (155 << 16) | 6
/// L C R Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_EAC_7_0_A: AudioChannelLayoutTag = (156 << 16) | 7
/// L C R Ls Rs LFE Cs.
public let kAudioChannelLayoutTag_EAC3_6_1_A: AudioChannelLayoutTag = (157 << 16) | 7
/// L C R Ls Rs LFE Ts.
public let kAudioChannelLayoutTag_EAC3_6_1_B: AudioChannelLayoutTag = (158 << 16) | 7
/// L C R Ls Rs LFE Vhc.
public let kAudioChannelLayoutTag_EAC3_6_1_C: AudioChannelLayoutTag = (159 << 16) | 7
/// L C R Ls Rs LFE Rls Rrs.
public let kAudioChannelLayoutTag_EAC3_7_1_A: AudioChannelLayoutTag = (160 << 16) | 8
/// L C R Ls Rs LFE Lc Rc.
public let kAudioChannelLayoutTag_EAC3_7_1_B: AudioChannelLayoutTag = (161 << 16) | 8
/// L C R Ls Rs LFE Lsd Rsd.
public let kAudioChannelLayoutTag_EAC3_7_1_C: AudioChannelLayoutTag = (162 << 16) | 8
/// L C R Ls Rs LFE Lw Rw.
public let kAudioChannelLayoutTag_EAC3_7_1_D: AudioChannelLayoutTag = (163 << 16) | 8
/// L C R Ls Rs LFE Vhl Vhr.
public let kAudioChannelLayoutTag_EAC3_7_1_E: AudioChannelLayoutTag = (164 << 16) | 8
/// L C R Ls Rs LFE Cs Ts.
public let kAudioChannelLayoutTag_EAC3_7_1_F: AudioChannelLayoutTag = (165 << 16) | 8
/// L C R Ls Rs LFE Cs Vhc.
public let kAudioChannelLayoutTag_EAC3_7_1_G: AudioChannelLayoutTag = (166 << 16) | 8
/// L C R Ls Rs LFE Ts Vhc.
public let kAudioChannelLayoutTag_EAC3_7_1_H: AudioChannelLayoutTag = (167 << 16) | 8
/// C L R LFE.
public let kAudioChannelLayoutTag_DTS_3_1: AudioChannelLayoutTag = (168 << 16) | 4
/// C L R Cs LFE.
public let kAudioChannelLayoutTag_DTS_4_1: AudioChannelLayoutTag = (169 << 16) | 5
/// Lc Rc L R Ls Rs.
public let kAudioChannelLayoutTag_DTS_6_0_A: AudioChannelLayoutTag = (170 << 16) | 6
/// C L R Rls Rrs Ts.
public let kAudioChannelLayoutTag_DTS_6_0_B: AudioChannelLayoutTag = (171 << 16) | 6
/// C Cs L R Rls Rrs.
public let kAudioChannelLayoutTag_DTS_6_0_C: AudioChannelLayoutTag = (172 << 16) | 6
/// Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_DTS_6_1_A: AudioChannelLayoutTag = (173 << 16) | 7
/// C L R Rls Rrs Ts LFE.
public let kAudioChannelLayoutTag_DTS_6_1_B: AudioChannelLayoutTag = (174 << 16) | 7
/// C Cs L R Rls Rrs LFE.
public let kAudioChannelLayoutTag_DTS_6_1_C: AudioChannelLayoutTag = (175 << 16) | 7
/// Lc C Rc L R Ls Rs.
public let kAudioChannelLayoutTag_DTS_7_0: AudioChannelLayoutTag = (176 << 16) | 7
/// Lc C Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_DTS_7_1: AudioChannelLayoutTag = (177 << 16) | 8
/// Lc Rc L R Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_DTS_8_0_A: AudioChannelLayoutTag = (178 << 16) | 8
/// Lc C Rc L R Ls Cs Rs.
public let kAudioChannelLayoutTag_DTS_8_0_B: AudioChannelLayoutTag = (179 << 16) | 8
/// Lc Rc L R Ls Rs Rls Rrs LFE.
public let kAudioChannelLayoutTag_DTS_8_1_A: AudioChannelLayoutTag = (180 << 16) | 9
/// Lc C Rc L R Ls Cs Rs LFE.
public let kAudioChannelLayoutTag_DTS_8_1_B: AudioChannelLayoutTag = (181 << 16) | 9
/// C L R Ls Rs LFE Cs.
public let kAudioChannelLayoutTag_DTS_6_1_D: AudioChannelLayoutTag = (182 << 16) | 7
/// L R LFE.
public let kAudioChannelLayoutTag_WAVE_2_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_4
/// L R C.
public let kAudioChannelLayoutTag_WAVE_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// L R Ls Rs.
public let kAudioChannelLayoutTag_WAVE_4_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_2
/// L R Rls Rrs.
public let kAudioChannelLayoutTag_WAVE_4_0_B: AudioChannelLayoutTag = (185 << 16) | 4
/// L R C Ls Rs.
public let kAudioChannelLayoutTag_WAVE_5_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// L R C Rls Rrs.
public let kAudioChannelLayoutTag_WAVE_5_0_B: AudioChannelLayoutTag = (186 << 16) | 5
/// L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_WAVE_5_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// L R C LFE Rls Rrs.
public let kAudioChannelLayoutTag_WAVE_5_1_B: AudioChannelLayoutTag = (187 << 16) | 6
/// L R C LFE Cs Ls Rs.
public let kAudioChannelLayoutTag_WAVE_6_1: AudioChannelLayoutTag = (188 << 16) | 7
/// L R C LFE Rls Rrs Ls Rs.
public let kAudioChannelLayoutTag_WAVE_7_1: AudioChannelLayoutTag = (189 << 16) | 8
/// L R C LFE Ls Rs Ltm Rtm.
public let kAudioChannelLayoutTag_Atmos_5_1_2: AudioChannelLayoutTag = (194 << 16) | 8
/// L R C LFE Ls Rs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Atmos_5_1_4: AudioChannelLayoutTag = (195 << 16) | 10
/// L R C LFE Ls Rs Rls Rrs Ltm Rtm.
public let kAudioChannelLayoutTag_Atmos_7_1_2: AudioChannelLayoutTag = (196 << 16) | 10
/// L R C LFE Ls Rs Rls Rrs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Atmos_7_1_4: AudioChannelLayoutTag = (192 << 16) | 12
/// L R C LFE Ls Rs Rls Rrs Lw Rw Vhl Vhr Ltm Rtm Ltr Rtr.
public let kAudioChannelLayoutTag_Atmos_9_1_6: AudioChannelLayoutTag = (193 << 16) | 16
/// C.
public let kAudioChannelLayoutTag_Logic_Mono: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// L R.
public let kAudioChannelLayoutTag_Logic_Stereo: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// L R Ls Rs.
public let kAudioChannelLayoutTag_Logic_Quadraphonic: AudioChannelLayoutTag = kAudioChannelLayoutTag_Quadraphonic
/// L R C Cs.
public let kAudioChannelLayoutTag_Logic_4_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// C L R Cs.
public let kAudioChannelLayoutTag_Logic_4_0_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_B
/// L R Cs C.
public let kAudioChannelLayoutTag_Logic_4_0_C: AudioChannelLayoutTag = (197 << 16) | 4
/// L R C Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// L R Ls Rs C.
public let kAudioChannelLayoutTag_Logic_5_0_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_B
/// L C R Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_0_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_C
/// C L R Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_0_D: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_D
/// L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// L R Ls Rs C LFE.
public let kAudioChannelLayoutTag_Logic_5_1_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_B
/// L C R Ls Rs LFE.
public let kAudioChannelLayoutTag_Logic_5_1_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_C
/// C L R Ls Rs LFE.
public let kAudioChannelLayoutTag_Logic_5_1_D: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_D
/// C L R Ls Rs Cs.
public let kAudioChannelLayoutTag_Logic_6_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_AAC_6_0
/// L R Ls Rs Cs C.
public let kAudioChannelLayoutTag_Logic_6_0_B: AudioChannelLayoutTag = (198 << 16) | 6
/// L R Ls Rs C Cs.
public let kAudioChannelLayoutTag_Logic_6_0_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_AudioUnit_6_0
/// C L R Ls Rs Cs LFE.
public let kAudioChannelLayoutTag_Logic_6_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_AAC_6_1
/// L R Ls Rs Cs C LFE.
public let kAudioChannelLayoutTag_Logic_6_1_B: AudioChannelLayoutTag = (199 << 16) | 7
/// L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_Logic_6_1_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_6_1_A
/// L C R Ls Cs Rs LFE.
public let kAudioChannelLayoutTag_Logic_6_1_D: AudioChannelLayoutTag = (200 << 16) | 7
/// L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_Logic_7_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_AudioUnit_7_1
/// L R Ls Rs Rls Rrs C LFE.
public let kAudioChannelLayoutTag_Logic_7_1_B: AudioChannelLayoutTag = (201 << 16) | 8
/// L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_Logic_7_1_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C
/// L R C LFE Ls Rs Lc Rc.
public let kAudioChannelLayoutTag_Logic_7_1_SDDS_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_A
/// C Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_Logic_7_1_SDDS_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_B
/// L R Ls Rs C LFE Lc Rc.
public let kAudioChannelLayoutTag_Logic_7_1_SDDS_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_Emagic_Default_7_1
/// L R C LFE Ls Rs Ltm Rtm.
public let kAudioChannelLayoutTag_Logic_Atmos_5_1_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_5_1_2
/// L R C LFE Ls Rs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_5_1_4: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_5_1_4
/// L R C LFE Ls Rs Rls Rrs Ltm Rtm.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_7_1_2
/// L R C LFE Ls Rs Rls Rrs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_4_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_7_1_4
/// L R Rls Rrs Ls Rs C LFE Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_4_B: AudioChannelLayoutTag = (202 << 16) | 12
/// L R Rls Rrs Ls Rs C LFE Vhl Vhr Ltm Rtm Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_6: AudioChannelLayoutTag = (203 << 16) | 14
/// C.
public let kAudioChannelLayoutTag_CICP_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_1_0
/// L R.
public let kAudioChannelLayoutTag_CICP_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_2_0
/// L R C.
public let kAudioChannelLayoutTag_CICP_3: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// L R C Cs.
public let kAudioChannelLayoutTag_CICP_4: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// L R C Ls Rs.
public let kAudioChannelLayoutTag_CICP_5: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_CICP_6: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// L R C LFE Ls Rs Lc Rc.
public let kAudioChannelLayoutTag_CICP_7: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_B
/// L R Cs.
public let kAudioChannelLayoutTag_CICP_9: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_1
/// L R Ls Rs.
public let kAudioChannelLayoutTag_CICP_10: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_2
/// L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_CICP_11: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_6_1_A
/// L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_CICP_12: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C
/// Lc Rc C LFE2 Rls Rrs L R Cs LFE3 Lss Rss Vhl Vhr Vhc Ts Ltr Rtr Ltm Rtm Ctr Cb Lb Rb.
public let kAudioChannelLayoutTag_CICP_13: AudioChannelLayoutTag = (204 << 16) | 24
/// L R C LFE Ls Rs Vhl Vhr.
public let kAudioChannelLayoutTag_CICP_14: AudioChannelLayoutTag = (205 << 16) | 8
/// L R C LFE2 Rls Rrs LFE3 Lss Rss Vhl Vhr Ctr.
public let kAudioChannelLayoutTag_CICP_15: AudioChannelLayoutTag = (206 << 16) | 12
/// L R C LFE Ls Rs Vhl Vhr Lts Rts.
public let kAudioChannelLayoutTag_CICP_16: AudioChannelLayoutTag = (207 << 16) | 10
/// L R C LFE Ls Rs Vhl Vhr Vhc Lts Rts Ts.
public let kAudioChannelLayoutTag_CICP_17: AudioChannelLayoutTag = (208 << 16) | 12
/// L R C LFE Ls Rs Lbs Rbs Vhl Vhr Vhc Lts Rts Ts.
public let kAudioChannelLayoutTag_CICP_18: AudioChannelLayoutTag = (209 << 16) | 14
/// L R C LFE Rls Rrs Lss Rss Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_CICP_19: AudioChannelLayoutTag = (210 << 16) | 12
/// L R C LFE Rls Rrs Lss Rss Vhl Vhr Ltr Rtr Leos Reos.
public let kAudioChannelLayoutTag_CICP_20: AudioChannelLayoutTag = (211 << 16) | 14
/// L C R.
public let kAudioChannelLayoutTag_Ogg_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_AC3_3_0
/// L R Rls Rrs.
public let kAudioChannelLayoutTag_Ogg_4_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_WAVE_4_0_B
/// L C R Rls Rrs.
public let kAudioChannelLayoutTag_Ogg_5_0: AudioChannelLayoutTag = (212 << 16) | 5
/// L C R Rls Rrs LFE.
public let kAudioChannelLayoutTag_Ogg_5_1: AudioChannelLayoutTag = (213 << 16) | 6
/// L C R Ls Rs Cs LFE.
public let kAudioChannelLayoutTag_Ogg_6_1: AudioChannelLayoutTag = (214 << 16) | 7
/// L C R Ls Rs Rls Rrs LFE.
public let kAudioChannelLayoutTag_Ogg_7_1: AudioChannelLayoutTag = (215 << 16) | 8
/// L R Rls Rrs C.
public let kAudioChannelLayoutTag_MPEG_5_0_E: AudioChannelLayoutTag = (216 << 16) | 5
/// L R Rls Rrs C LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_E: AudioChannelLayoutTag = (217 << 16) | 6
/// L R Ls Rs C Cs LFE.
public let kAudioChannelLayoutTag_MPEG_6_1_B: AudioChannelLayoutTag = (218 << 16) | 7
/// L R Rls Rrs Ls Rs C LFE.
public let kAudioChannelLayoutTag_MPEG_7_1_D: AudioChannelLayoutTag = (219 << 16) | 8
/// The first tag value reserved for Apple's internal use.
public let kAudioChannelLayoutTag_BeginReserved: AudioChannelLayoutTag = 0xF000_0000
/// The last tag value reserved for Apple's internal use.
public let kAudioChannelLayoutTag_EndReserved: AudioChannelLayoutTag = 0xFFFE_FFFF
