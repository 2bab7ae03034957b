// The file types the asset writer writes: libavformat's muxer for each, the media types and
// codecs each holds, and whether it has edit lists.
import CoreAudioTypes
import CoreMedia
import Foundation
internal import MediaEngine

/// One writable file type.
struct WriterContainer: Sendable {
    let fileType: AVFileType
    /// libavformat's muxer.
    let muxer: String
    /// The media types inputs may carry.
    let mediaTypes: [AVMediaType]
    /// QuickTime family: edit lists, fast start, fragments, movie timescale, track matrices.
    let isQuickTime: Bool

    /// The containers, by file type.
    static let all: [AVFileType: WriterContainer] = {
        let av: [AVMediaType] = [.video, .audio]
        let entries = [
            WriterContainer(fileType: .mov, muxer: "mov", mediaTypes: av, isQuickTime: true),
            WriterContainer(fileType: .mp4, muxer: "mp4", mediaTypes: av, isQuickTime: true),
            WriterContainer(fileType: .m4v, muxer: "ipod", mediaTypes: av, isQuickTime: true),
            WriterContainer(fileType: .m4a, muxer: "ipod", mediaTypes: [.audio], isQuickTime: true),
            WriterContainer(fileType: .mobile3GPP, muxer: "3gp", mediaTypes: av, isQuickTime: true),
            WriterContainer(fileType: .mobile3GPP2, muxer: "3g2", mediaTypes: av, isQuickTime: true),
            WriterContainer(fileType: .caf, muxer: "caf", mediaTypes: [.audio], isQuickTime: false),
            WriterContainer(fileType: .wav, muxer: "wav", mediaTypes: [.audio], isQuickTime: false),
            WriterContainer(fileType: .aiff, muxer: "aiff", mediaTypes: [.audio], isQuickTime: false),
            WriterContainer(fileType: .aifc, muxer: "aiff", mediaTypes: [.audio], isQuickTime: false),
        ]
        return Dictionary(uniqueKeysWithValues: entries.map { ($0.fileType, $0) })
    }()

    /// Why the writer cannot encode `settings` into this container; nil when it can. Audio that
    /// leaves out keys the encoder needs is accepted only with a source format `hint` to fill them.
    /// (`AVAssetWriter.canApply`/`canAdd` and the export planner ask this one question.)
    func canEncode(_ settings: WriterOutputSettings, hint: CMFormatDescription?) -> String? {
        switch settings {
        case .video(let v):
            guard let codec = v.codec else { return "AVAssetWriter cannot encode video with codec '\(v.codecType.rawValue)'" }
            return canStore(codec)
        case .audio(let a):
            if let missing = a.missingKey, hint == nil { return missing }
            guard let codec = a.codec else { return "AVAssetWriter cannot encode audio to '\(MuxerStreamFormat.fourCC(a.formatID))'" }
            return canStore(codec)
        }
    }

    /// Whether video encoded with `codec` can be stored.
    func canStore(_ codec: Encoder.VideoCodec) -> String? {
        switch (fileType, codec) {
        case (.mov, _): return nil
        case (.mp4, .h264), (.mp4, .hevc), (.m4v, .h264), (.m4v, .hevc), (.mobile3GPP, .h264), (.mobile3GPP2, .h264): return nil
        default: return "AVAssetWriter does not support encoding video with \(codec.sampleEntryName) to file type \(fileType.rawValue)"
        }
    }

    /// Whether audio encoded as `codec` can be stored; the reason when not. The table is what
    /// Apple's writer takes for each file type, less what FFmpeg's muxers cannot write (AAC in
    /// CAF; FLAC and Opus in QuickTime movies and iTunes audio; FLAC in MPEG-4, experimental;
    /// Opus in CAF, whose packet table FFmpeg writes without the pre-skip, so the audio would
    /// start 312 frames late).
    func canStore(_ codec: EncoderAudio.Codec) -> String? {
        if case .linearPCM(let layout) = codec { return canStore(layout) }
        let ok: Bool
        switch (fileType, codec) {
        case (.mov, .aac), (.mov, .appleLossless), (.mov, .muLaw), (.mov, .aLaw): ok = true
        case (.mp4, .aac), (.mp4, .appleLossless), (.mp4, .opus): ok = true
        case (.m4a, .aac), (.m4a, .appleLossless), (.m4v, .aac), (.m4v, .appleLossless): ok = true
        case (.mobile3GPP, .aac), (.mobile3GPP2, .aac): ok = true
        case (.caf, .appleLossless), (.caf, .flac), (.caf, .muLaw), (.caf, .aLaw): ok = true
        case (.wav, .muLaw), (.wav, .aLaw), (.aifc, .muLaw), (.aifc, .aLaw): ok = true
        default: ok = false
        }
        return ok ? nil : "AVAssetWriter does not support encoding audio to \(codec) in file type \(fileType.rawValue)"
    }

    /// The layout linear PCM requested as `layout` is stored in: 8-bit samples are unsigned in
    /// WAVE files and signed elsewhere, as each format defines them.
    func storedLayout(_ layout: MuxerStreamFormat.PCMLayout) -> MuxerStreamFormat.PCMLayout {
        guard layout.bits == 8, !layout.isFloat else { return layout }
        var stored = layout
        stored.isSigned = fileType != .wav
        return stored
    }

    /// Whether linear PCM in `layout` can be stored; the reason when not.
    func canStore(_ requested: MuxerStreamFormat.PCMLayout) -> String? {
        let layout = storedLayout(requested)
        if layout.isNonInterleaved { return "AVLinearPCMIsNonInterleaved must be NO for file type \(fileType.rawValue)" }
        let ok: Bool
        switch fileType {
        case .mov, .caf: ok = true
        case .wav: ok = !layout.isBigEndian
        case .aiff: ok = !layout.isFloat && (layout.isBigEndian || layout.bits == 8)
        case .aifc: ok = layout.isBigEndian || layout.bits == 8 || (layout.bits == 16 && !layout.isFloat)
        default: ok = false
        }
        return ok ? nil : "AVAssetWriter does not support \(layout) linear PCM in file type \(fileType.rawValue)"
    }

    /// Whether samples described by `description` can be copied into this container.
    func canPassThrough(_ description: CMFormatDescription) -> String? {
        let subtype = CMFormatDescriptionGetMediaSubType(description)
        let name = MuxerStreamFormat.fourCC(subtype)
        switch CMFormatDescriptionGetMediaType(description) {
        case kCMMediaType_Video:
            guard mediaTypes.contains(.video), let codec = MuxerStreamFormat.videoCodecName(for: subtype) else {
                return "AVAssetWriter does not support passthrough of media with type 'vide' and subtype '\(name)' to file type \(fileType.rawValue)"
            }
            if fileType != .mov && codec != "h264" && codec != "hevc" {
                return "AVAssetWriter does not support passthrough of media with type 'vide' and subtype '\(name)' to file type \(fileType.rawValue)"
            }
            return nil
        case kCMMediaType_Audio:
            guard let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(description)?.pointee,
                  MuxerStreamFormat.canPassThroughAudio(asbd) else {
                return "AVAssetWriter does not support passthrough of media with type 'soun' and subtype '\(name)' to file type \(fileType.rawValue)"
            }
            if let pcm = MuxerStreamFormat.PCMLayout(asbd) {
                if pcm.bits == 8 && storedLayout(pcm).isSigned != pcm.isSigned {
                    return "AVAssetWriter does not support passthrough of \(pcm) linear PCM to file type \(fileType.rawValue)"
                }
                return canStore(pcm)
            }
            let allowed: [AudioFormatID]
            switch fileType {
            case .mov, .caf: allowed = [kAudioFormatMPEG4AAC, kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2, kAudioFormatAppleLossless,
                                        kAudioFormatMPEGLayer3, kAudioFormatAC3, kAudioFormatEnhancedAC3, kAudioFormatULaw, kAudioFormatALaw]
            case .mp4, .m4v, .m4a, .mobile3GPP, .mobile3GPP2:
                allowed = [kAudioFormatMPEG4AAC, kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2, kAudioFormatAppleLossless,
                           kAudioFormatMPEGLayer3, kAudioFormatAC3, kAudioFormatEnhancedAC3]
            case .wav: allowed = [kAudioFormatULaw, kAudioFormatALaw, kAudioFormatMPEGLayer3]
            case .aifc: allowed = [kAudioFormatULaw, kAudioFormatALaw]
            default: allowed = []
            }
            return allowed.contains(asbd.mFormatID) ? nil
                : "AVAssetWriter does not support passthrough of media with type 'soun' and subtype '\(name)' to file type \(fileType.rawValue)"
        default:
            return "AVAssetWriter does not support passthrough of media with subtype '\(name)' to file type \(fileType.rawValue)"
        }
    }

    /// The sample entry type the muxer must write for linear PCM in `layout` (AIFC's form), nil
    /// to let it choose.
    func pcmCodecTag(_ layout: MuxerStreamFormat.PCMLayout) -> FourCharCode? {
        guard fileType == .aifc, layout.isBigEndian, !layout.isFloat else { return nil }
        switch layout.bits {
        case 16: return FourCharCode(fourCC: "twos")
        case 24: return FourCharCode(fourCC: "in24")
        case 32: return FourCharCode(fourCC: "in32")
        default: return nil
        }
    }
}

extension Encoder.VideoCodec {
    /// Apple's codec type name, for messages.
    var sampleEntryName: String { MuxerStreamFormat.fourCC(sampleEntry) }
}
