// The file types audio is written to — libavformat's muxer for each and the audio each holds:
// one set of rules for AVAssetWriter's audio (through AVFoundation's WriterContainer) and for
// AVAudioFile and AVAudioRecorder.
import CoreAudioTypes
import CoreMedia
import Foundation
package import MediaEngine

/// An audio-capable file type and what it can hold.
package struct AudioFileContainer: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case mov, mp4, m4v, m4a, threeGPP, threeGPP2, caf, wav, aiff, aifc
    }

    package let kind: Kind
    /// libavformat's muxer.
    package let muxer: String
    /// The file type's name in messages (AVFileType's raw value).
    package let typeName: String

    package init(_ kind: Kind) {
        self.kind = kind
        switch kind {
        case .mov: (muxer, typeName) = ("mov", "com.apple.quicktime-movie")
        case .mp4: (muxer, typeName) = ("mp4", "public.mpeg-4")
        case .m4v: (muxer, typeName) = ("ipod", "com.apple.m4v-video")
        case .m4a: (muxer, typeName) = ("ipod", "com.apple.m4a-audio")
        case .threeGPP: (muxer, typeName) = ("3gp", "public.3gpp")
        case .threeGPP2: (muxer, typeName) = ("3g2", "public.3gpp2")
        case .caf: (muxer, typeName) = ("caf", "com.apple.coreaudio-format")
        case .wav: (muxer, typeName) = ("wav", "com.microsoft.waveform-audio")
        case .aiff: (muxer, typeName) = ("aiff", "public.aiff-audio")
        case .aifc: (muxer, typeName) = ("aiff", "public.aifc-audio")
        }
    }

    /// The audio file type for a file name extension (AVAudioFile, AVAudioRecorder).
    package static func forExtension(_ ext: String) -> AudioFileContainer? {
        switch ext.lowercased() {
        case "wav", "wave": return AudioFileContainer(.wav)
        case "aif", "aiff": return AudioFileContainer(.aiff)
        case "aifc": return AudioFileContainer(.aifc)
        case "caf": return AudioFileContainer(.caf)
        case "m4a", "m4r", "m4b": return AudioFileContainer(.m4a)
        case "mp4": return AudioFileContainer(.mp4)
        case "mov", "qt": return AudioFileContainer(.mov)
        case "3gp": return AudioFileContainer(.threeGPP)
        case "3g2": return AudioFileContainer(.threeGPP2)
        default: return nil
        }
    }

    /// The audio file type for an `AudioFileTypeID` ('WAVE', 'AIFF', 'AIFC', 'caff', 'm4af', 'mp4f', 'MooV', '3gpp', '3gp2').
    package static func forAudioFileType(_ type: UInt32) -> AudioFileContainer? {
        switch MuxerStreamFormat.fourCC(type) {
        case "WAVE": return AudioFileContainer(.wav)
        case "AIFF": return AudioFileContainer(.aiff)
        case "AIFC": return AudioFileContainer(.aifc)
        case "caff": return AudioFileContainer(.caf)
        case "m4af": return AudioFileContainer(.m4a)
        case "mp4f": return AudioFileContainer(.mp4)
        case "MooV": return AudioFileContainer(.mov)
        case "3gpp": return AudioFileContainer(.threeGPP)
        case "3gp2": return AudioFileContainer(.threeGPP2)
        default: return nil
        }
    }

    /// Whether the file type is QuickTime's family (movie header, edit lists).
    package var isQuickTime: Bool {
        switch kind {
        case .mov, .mp4, .m4v, .m4a, .threeGPP, .threeGPP2: return true
        case .caf, .wav, .aiff, .aifc: return false
        }
    }

    /// Why `codec` cannot be stored in this file type (nil: it can).
    package func canStore(_ codec: EncoderAudio.Codec) -> String? {
        if case .linearPCM(let layout) = codec { return canStore(layout) }
        let ok: Bool
        switch (kind, codec) {
        case (.mov, .aac), (.mov, .appleLossless), (.mov, .muLaw), (.mov, .aLaw): ok = true
        case (.mp4, .aac), (.mp4, .appleLossless), (.mp4, .opus): ok = true
        case (.m4a, .aac), (.m4a, .appleLossless), (.m4v, .aac), (.m4v, .appleLossless): ok = true
        case (.threeGPP, .aac), (.threeGPP2, .aac): ok = true
        case (.caf, .appleLossless), (.caf, .flac), (.caf, .muLaw), (.caf, .aLaw): ok = true
        case (.wav, .muLaw), (.wav, .aLaw), (.aifc, .muLaw), (.aifc, .aLaw): ok = true
        case (.caf, .appleIMA4), (.mov, .appleIMA4): ok = true
        default: ok = false
        }
        return ok ? nil : "AVAssetWriter does not support encoding audio to \(codec) in file type \(typeName)"
    }

    /// The layout 8-bit PCM is stored in (WAV: unsigned; the others: signed).
    package func storedLayout(_ layout: MuxerStreamFormat.PCMLayout) -> MuxerStreamFormat.PCMLayout {
        guard layout.bits == 8, !layout.isFloat else { return layout }
        var stored = layout
        stored.isSigned = kind != .wav
        return stored
    }

    /// Why `requested` linear PCM cannot be stored in this file type (nil: it can).
    package func canStore(_ requested: MuxerStreamFormat.PCMLayout) -> String? {
        let layout = storedLayout(requested)
        if layout.isNonInterleaved { return "AVLinearPCMIsNonInterleaved must be NO for file type \(typeName)" }
        let ok: Bool
        switch kind {
        case .mov, .caf: ok = true
        case .wav: ok = !layout.isBigEndian
        case .aiff: ok = !layout.isFloat && (layout.isBigEndian || layout.bits == 8)
        case .aifc: ok = layout.isBigEndian || layout.bits == 8 || (layout.bits == 16 && !layout.isFloat)
        default: ok = false
        }
        return ok ? nil : "AVAssetWriter does not support \(layout) linear PCM in file type \(typeName)"
    }

    /// The compressed audio formats stored as they are (passthrough; the writer also asks the
    /// muxer's own codec table, `MuxerStreamFormat.muxer(_:stores:)`).
    package var passThroughFormats: [AudioFormatID] {
        switch kind {
        case .mov, .caf: return [kAudioFormatMPEG4AAC, kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2, kAudioFormatAppleLossless,
                                 kAudioFormatMPEGLayer3, kAudioFormatAC3, kAudioFormatEnhancedAC3, kAudioFormatULaw, kAudioFormatALaw]
        case .mp4, .m4v, .m4a, .threeGPP, .threeGPP2:
            return [kAudioFormatMPEG4AAC, kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2, kAudioFormatAppleLossless,
                    kAudioFormatMPEGLayer3, kAudioFormatAC3, kAudioFormatEnhancedAC3]
        case .wav: return [kAudioFormatULaw, kAudioFormatALaw, kAudioFormatMPEGLayer3]
        case .aifc: return [kAudioFormatULaw, kAudioFormatALaw]
        case .aiff: return []
        }
    }

    /// The sample entry of big-endian integer PCM in AIFC ('twos', 'in24', 'in32'); nil elsewhere.
    package func pcmCodecTag(_ layout: MuxerStreamFormat.PCMLayout) -> FourCharCode? {
        guard kind == .aifc, layout.isBigEndian, !layout.isFloat else { return nil }
        switch layout.bits {
        case 16: return FourCharCode(fourCC: "twos")
        case 24: return FourCharCode(fourCC: "in24")
        case 32: return FourCharCode(fourCC: "in32")
        default: return nil
        }
    }
}
