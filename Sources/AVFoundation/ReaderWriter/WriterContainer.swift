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

    /// The audio rules of this file type (shared with AVAudioFile).
    var audio: AudioFileContainer { AudioFileContainer(Self.audioKind[fileType]!) }

    private static let audioKind: [AVFileType: AudioFileContainer.Kind] = [
        .mov: .mov, .mp4: .mp4, .m4v: .m4v, .m4a: .m4a, .mobile3GPP: .threeGPP, .mobile3GPP2: .threeGPP2,
        .caf: .caf, .wav: .wav, .aiff: .aiff, .aifc: .aifc,
    ]

    func canStore(_ codec: EncoderAudio.Codec) -> String? { audio.canStore(codec) }
    func storedLayout(_ layout: MuxerStreamFormat.PCMLayout) -> MuxerStreamFormat.PCMLayout { audio.storedLayout(layout) }
    func canStore(_ requested: MuxerStreamFormat.PCMLayout) -> String? { audio.canStore(requested) }

    /// Whether samples described by `description` can be copied into this container.
    func canPassThrough(_ description: CMFormatDescription) -> String? {
        let subtype = CMFormatDescriptionGetMediaSubType(description)
        let name = MuxerStreamFormat.fourCC(subtype)
        switch CMFormatDescriptionGetMediaType(description) {
        case kCMMediaType_Video:
            guard mediaTypes.contains(.video), let codec = MuxerStreamFormat.videoCodecName(for: subtype) else {
                return "AVAssetWriter does not support passthrough of media with type 'vide' and subtype '\(name)' to file type \(fileType.rawValue)"
            }
            if fileType != .mov && codec != "h264" && codec != "hevc" || !MuxerStreamFormat.muxer(muxer, stores: description) {
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
            // The muxer must have a sample entry for it too (FFmpeg's ipod muxer, .m4a and .m4v,
            // has none for MP3 or E-AC-3; its 3gp muxer none for MP3, AC-3 or Apple Lossless).
            let allowed = audio.passThroughFormats
            return allowed.contains(asbd.mFormatID) && MuxerStreamFormat.muxer(muxer, stores: description) ? nil
                : "AVAssetWriter does not support passthrough of media with type 'soun' and subtype '\(name)' to file type \(fileType.rawValue)"
        default:
            return "AVAssetWriter does not support passthrough of media with subtype '\(name)' to file type \(fileType.rawValue)"
        }
    }

    /// The sample entry type the muxer must write for linear PCM in `layout` (AIFC's form), nil
    /// to let it choose.
    func pcmCodecTag(_ layout: MuxerStreamFormat.PCMLayout) -> FourCharCode? { audio.pcmCodecTag(layout) }
}

extension Encoder.VideoCodec {
    /// Apple's codec type name, for messages.
    var sampleEntryName: String { MuxerStreamFormat.fourCC(sampleEntry) }
}
