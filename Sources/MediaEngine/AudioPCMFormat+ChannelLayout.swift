// Apple's AudioChannelLayout (layout tag, channel bitmap or per-channel labels) ↔ the engine's
// channel sets (FFmpeg channel-mask positions in buffer order).
import CoreAudioTypes
import Foundation

extension AudioChannelSet {
    // Apple channel labels (CoreAudioBaseTypes.h).
    private static let L: UInt32 = 1, R: UInt32 = 2, C: UInt32 = 3, LFE: UInt32 = 4, Ls: UInt32 = 5, Rs: UInt32 = 6
    private static let Lc: UInt32 = 7, Rc: UInt32 = 8, Cs: UInt32 = 9, Rls: UInt32 = 33, Rrs: UInt32 = 34
    private static let Lt: UInt32 = 38, Rt: UInt32 = 39

    /// The channels of Apple's predefined layouts, in buffer order.
    private static let layoutLabels: [(tag: AudioChannelLayoutTag, labels: [UInt32])] = [
        (kAudioChannelLayoutTag_Mono, [C]),
        (kAudioChannelLayoutTag_Stereo, [L, R]),
        (kAudioChannelLayoutTag_StereoHeadphones, [L, R]),
        (kAudioChannelLayoutTag_Binaural, [L, R]),
        (kAudioChannelLayoutTag_MatrixStereo, [Lt, Rt]),
        (kAudioChannelLayoutTag_MPEG_3_0_A, [L, R, C]),
        (kAudioChannelLayoutTag_MPEG_3_0_B, [C, L, R]),
        (kAudioChannelLayoutTag_ITU_2_1, [L, R, Cs]),
        (kAudioChannelLayoutTag_MPEG_4_0_A, [L, R, C, Cs]),
        (kAudioChannelLayoutTag_MPEG_4_0_B, [C, L, R, Cs]),
        (kAudioChannelLayoutTag_Quadraphonic, [L, R, Ls, Rs]),
        (kAudioChannelLayoutTag_ITU_2_2, [L, R, Ls, Rs]),
        (kAudioChannelLayoutTag_MPEG_5_0_A, [L, R, C, Ls, Rs]),
        (kAudioChannelLayoutTag_MPEG_5_0_B, [L, R, Ls, Rs, C]),
        (kAudioChannelLayoutTag_MPEG_5_0_C, [L, C, R, Ls, Rs]),
        (kAudioChannelLayoutTag_MPEG_5_0_D, [C, L, R, Ls, Rs]),
        (kAudioChannelLayoutTag_Pentagonal, [L, R, Rls, Rrs, C]),
        (kAudioChannelLayoutTag_MPEG_5_1_A, [L, R, C, LFE, Ls, Rs]),
        (kAudioChannelLayoutTag_MPEG_5_1_B, [L, R, Ls, Rs, C, LFE]),
        (kAudioChannelLayoutTag_MPEG_5_1_C, [L, C, R, Ls, Rs, LFE]),
        (kAudioChannelLayoutTag_MPEG_5_1_D, [C, L, R, Ls, Rs, LFE]),
        (kAudioChannelLayoutTag_AudioUnit_6_0, [L, R, Ls, Rs, C, Cs]),
        (kAudioChannelLayoutTag_Hexagonal, [L, R, Rls, Rrs, C, Cs]),
        (kAudioChannelLayoutTag_AAC_6_0, [C, L, R, Ls, Rs, Cs]),
        (kAudioChannelLayoutTag_MPEG_6_1_A, [L, R, C, LFE, Ls, Rs, Cs]),
        (kAudioChannelLayoutTag_AAC_6_1, [C, L, R, Ls, Rs, Cs, LFE]),
        (kAudioChannelLayoutTag_AudioUnit_7_0, [L, R, Ls, Rs, C, Rls, Rrs]),
        (kAudioChannelLayoutTag_AudioUnit_7_0_Front, [L, R, Ls, Rs, C, Lc, Rc]),
        (kAudioChannelLayoutTag_AAC_7_0, [C, L, R, Ls, Rs, Rls, Rrs]),
        (kAudioChannelLayoutTag_MPEG_7_1_A, [L, R, C, LFE, Ls, Rs, Lc, Rc]),
        (kAudioChannelLayoutTag_MPEG_7_1_B, [C, Lc, Rc, L, R, Ls, Rs, LFE]),
        (kAudioChannelLayoutTag_MPEG_7_1_C, [L, R, C, LFE, Ls, Rs, Rls, Rrs]),
        (kAudioChannelLayoutTag_AAC_Octagonal, [C, L, R, Ls, Rs, Rls, Rrs, Cs]),
    ]

    /// The channel-mask position of Apple channel labels, in order; nil when a label has no
    /// speaker position FFmpeg knows. Labels 1…18 are the bits of Apple's channel bitmap, which
    /// are FFmpeg's mask bits (so Apple's surrounds Ls/Rs are FFmpeg's back pair, as in its
    /// "5.1"); in layouts that also have rear surrounds (Rls/Rrs, the back pair), Ls/Rs are the
    /// side pair, as in FFmpeg's "7.1".
    static func positions(ofLabels labels: [UInt32]) -> [Int]? {
        let hasRear = labels.contains(Rls) || labels.contains(Rrs)
        var out: [Int] = []
        for label in labels {
            switch label {
            case Ls where hasRear: out.append(9)
            case Rs where hasRear: out.append(10)
            case 1...18: out.append(Int(label) - 1)
            case Rls: out.append(4)
            case Rrs: out.append(5)
            case 35: out.append(31)     // left wide
            case 36: out.append(32)     // right wide
            case 37: out.append(35)     // LFE 2
            case Lt: out.append(29)     // stereo (matrix-encoded) left
            case Rt: out.append(30)
            default: return nil
            }
        }
        return out
    }

    /// The channels an `AudioChannelLayout` (its bytes, as `AVChannelLayoutKey` carries them)
    /// describes: positioned when the tag, bitmap or labels name speaker positions, counted
    /// otherwise (`DiscreteInOrder`, `Unknown`, Ambisonics…). Nil when the bytes are not a layout.
    package init?(audioChannelLayout data: Data) {
        guard data.count >= 12 else { return nil }
        let word = { (offset: Int) -> UInt32 in
            data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        }
        let tag = word(0), bitmap = word(4), descriptions = Int(word(8))
        switch tag {
        case kAudioChannelLayoutTag_UseChannelDescriptions:
            guard descriptions > 0, descriptions <= 64, data.count >= 12 + 20 * descriptions else { return nil }
            let labels = (0..<descriptions).map { word(12 + 20 * $0) }
            if let positions = AudioChannelSet.positions(ofLabels: labels), let set = AudioChannelSet(positions: positions) {
                self = set
            } else {
                self.init(count: descriptions)
            }
        case kAudioChannelLayoutTag_UseChannelBitmap:
            guard bitmap != 0, let set = AudioChannelSet(mask: UInt64(bitmap & 0x3FFFF)),
                  set.count == bitmap.nonzeroBitCount else { return nil }
            self = set
        default:
            let count = Int(AudioChannelLayoutTag_GetNumberOfChannels(tag))
            guard count > 0, count <= 64 else { return nil }
            if let labels = AudioChannelSet.layoutLabels.first(where: { $0.tag == tag })?.labels,
               let positions = AudioChannelSet.positions(ofLabels: labels), let set = AudioChannelSet(positions: positions) {
                self = set
            } else {
                self.init(count: count)
            }
        }
    }

    /// An `AudioChannelLayout` describing these channels: Apple's tag when one has exactly
    /// these channels in this order, else a channel bitmap (native order, positions Apple's
    /// bitmap has), else one description per channel. Count-only sets of 1 and 2 channels are
    /// mono and stereo; larger ones are `DiscreteInOrder`.
    package var audioChannelLayout: Data {
        func layout(tag: AudioChannelLayoutTag, bitmap: UInt32, labels: [UInt32]) -> Data {
            var data = Data(count: 12 + 20 * max(1, labels.count))
            data.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: tag.littleEndian, toByteOffset: 0, as: UInt32.self)
                raw.storeBytes(of: bitmap.littleEndian, toByteOffset: 4, as: UInt32.self)
                raw.storeBytes(of: UInt32(labels.count).littleEndian, toByteOffset: 8, as: UInt32.self)
                for (i, label) in labels.enumerated() { raw.storeBytes(of: label.littleEndian, toByteOffset: 12 + 20 * i, as: UInt32.self) }
            }
            return data
        }
        guard let positions else {
            switch count {
            case 1: return layout(tag: kAudioChannelLayoutTag_Mono, bitmap: 0, labels: [])
            case 2: return layout(tag: kAudioChannelLayoutTag_Stereo, bitmap: 0, labels: [])
            default: return layout(tag: kAudioChannelLayoutTag_DiscreteInOrder | UInt32(count), bitmap: 0, labels: [])
            }
        }
        if let known = AudioChannelSet.layoutLabels.first(where: { AudioChannelSet.positions(ofLabels: $0.labels) == positions }) {
            return layout(tag: known.tag, bitmap: 0, labels: [])
        }
        if isNativeOrder, mask & ~0x3FFFF == 0 {
            return layout(tag: kAudioChannelLayoutTag_UseChannelBitmap, bitmap: UInt32(mask), labels: [])
        }
        let hasSides = positions.contains(9) || positions.contains(10)
        let labels = positions.map { p -> UInt32 in
            switch p {
            case 4 where hasSides: return AudioChannelSet.Rls
            case 5 where hasSides: return AudioChannelSet.Rrs
            case 0..<18: return UInt32(p + 1)
            case 29: return AudioChannelSet.Lt
            case 30: return AudioChannelSet.Rt
            case 31: return 35
            case 32: return 36
            case 35: return 37
            default: return 0xFFFF_FFFF  // kAudioChannelLabel_Unknown
            }
        }
        return layout(tag: kAudioChannelLayoutTag_UseChannelDescriptions, bitmap: 0, labels: labels)
    }
}

extension AudioPCMFormat {
    /// The linear PCM an `AudioStreamBasicDescription` describes (with its channel layout's
    /// bytes, when there is one); nil for compressed formats and for PCM the engine cannot carry
    /// (unpacked or high-aligned samples, unsigned integers wider than 8 bits, non-integral rates).
    package init?(streamBasicDescription asbd: AudioStreamBasicDescription, channelLayout: Data? = nil) {
        guard asbd.mFormatID == kAudioFormatLinearPCM, asbd.mSampleRate > 0, asbd.mSampleRate == asbd.mSampleRate.rounded(),
              asbd.mSampleRate <= 1_536_000, asbd.mChannelsPerFrame > 0, asbd.mBitsPerChannel > 0,
              asbd.mFramesPerPacket == 1 else { return nil }
        let flags = asbd.mFormatFlags
        let bits = Int(asbd.mBitsPerChannel)
        let interleaved = flags & kAudioFormatFlagIsNonInterleaved == 0
        let channelCount = Int(asbd.mChannelsPerFrame)
        // Samples must fill their bytes exactly.
        let frameBytes = Int(asbd.mBytesPerFrame)
        guard bits % 8 == 0, frameBytes == bits / 8 * (interleaved ? channelCount : 1) else { return nil }
        let type: SampleType
        if flags & kAudioFormatFlagIsFloat != 0 {
            type = .float
        } else if flags & kAudioFormatFlagIsSignedInteger != 0 {
            type = .signedInteger
        } else {
            guard bits == 8 else { return nil }
            type = .unsignedInteger
        }
        var channels = AudioChannelSet(count: channelCount)
        if let channelLayout, let described = AudioChannelSet(audioChannelLayout: channelLayout), described.count == channelCount {
            channels = described
        }
        self.init(sampleRate: Int(asbd.mSampleRate), channels: channels, sampleType: type, bitsPerSample: bits,
                  isBigEndian: flags & kAudioFormatFlagIsBigEndian != 0 && bits > 8, isInterleaved: interleaved)
        if problem != nil { return nil }
    }

    /// Apple's description of this linear PCM: packed samples, the float or signed-integer flag
    /// by sample type (unsigned 8-bit has neither), big-endian and non-interleaved flags as set.
    package var streamBasicDescription: AudioStreamBasicDescription {
        var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
        switch sampleType {
        case .float: flags |= kAudioFormatFlagIsFloat
        case .signedInteger: flags |= kAudioFormatFlagIsSignedInteger
        case .unsignedInteger: break
        }
        if isBigEndian && bitsPerSample > 8 { flags |= kAudioFormatFlagIsBigEndian }
        if !isInterleaved { flags |= kAudioFormatFlagIsNonInterleaved }
        return AudioStreamBasicDescription(mSampleRate: Float64(sampleRate), mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                           mBytesPerPacket: UInt32(bytesPerFrame), mFramesPerPacket: 1, mBytesPerFrame: UInt32(bytesPerFrame),
                                           mChannelsPerFrame: UInt32(channelCount), mBitsPerChannel: UInt32(bitsPerSample), mReserved: 0)
    }
}
