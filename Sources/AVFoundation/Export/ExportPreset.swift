// The export presets: Apple's preset names and what each one writes (codec, size rule, bit rate,
// encoder speed, audio). docs/PRESETS.md documents the same table for users.
import CoreAudioTypes
import CoreGraphics
import CoreMedia
import Foundation
internal import MediaEngine

/// A preset that exports at a low quality suitable for sharing over a cellular network.
public let AVAssetExportPresetLowQuality: String = "AVAssetExportPresetLowQuality"
/// A preset that exports at a medium quality suitable for sharing over Wi-Fi.
public let AVAssetExportPresetMediumQuality: String = "AVAssetExportPresetMediumQuality"
/// A preset that exports H.264 video at the highest quality, at the source's size.
public let AVAssetExportPresetHighestQuality: String = "AVAssetExportPresetHighestQuality"
/// A preset that exports HEVC video at the highest quality, at the source's size.
public let AVAssetExportPresetHEVCHighestQuality: String = "AVAssetExportPresetHEVCHighestQuality"
/// A preset that exports H.264 video fitted inside 640 × 480.
public let AVAssetExportPreset640x480: String = "AVAssetExportPreset640x480"
/// A preset that exports H.264 video fitted inside 960 × 540.
public let AVAssetExportPreset960x540: String = "AVAssetExportPreset960x540"
/// A preset that exports H.264 video fitted inside 1280 × 720.
public let AVAssetExportPreset1280x720: String = "AVAssetExportPreset1280x720"
/// A preset that exports H.264 video fitted inside 1920 × 1080.
public let AVAssetExportPreset1920x1080: String = "AVAssetExportPreset1920x1080"
/// A preset that exports H.264 video fitted inside 3840 × 2160.
public let AVAssetExportPreset3840x2160: String = "AVAssetExportPreset3840x2160"
/// A preset that exports HEVC video fitted inside 1920 × 1080.
public let AVAssetExportPresetHEVC1920x1080: String = "AVAssetExportPresetHEVC1920x1080"
/// A preset that exports HEVC video fitted inside 3840 × 2160.
public let AVAssetExportPresetHEVC3840x2160: String = "AVAssetExportPresetHEVC3840x2160"
/// A preset that exports audio only, as AAC in an Apple M4A file.
public let AVAssetExportPresetAppleM4A: String = "AVAssetExportPresetAppleM4A"
/// A preset that copies the source's samples without re-encoding them.
public let AVAssetExportPresetPassthrough: String = "AVAssetExportPresetPassthrough"
/// A preset that exports Apple ProRes 422 video and linear PCM audio in a QuickTime movie.
public let AVAssetExportPresetAppleProRes422LPCM: String = "AVAssetExportPresetAppleProRes422LPCM"

/// What a preset writes.
struct ExportPreset: Sendable {
    enum Video: Sendable {
        /// No video track is written.
        case none
        /// Encoded with `codec`, fitted inside `box` (nil: the source's size), never upscaled.
        case encode(codec: AVVideoCodecType, box: (width: Int, height: Int)?, bitRate: Int?, quality: Double?,
                    profile: String?, speed: String?)
    }

    enum Audio: Sendable {
        /// No audio track is written.
        case none
        /// AAC at `bitRate` (lowered to what the encoder takes at the output's rate and channel
        /// count), at most `channels` channels, standard AAC rates kept, others 48 kHz
        /// (`aacOutput(bitRate:maxChannels:sourceRate:sourceChannels:)`).
        case aac(bitRate: Int, channels: Int)
        /// 16-bit linear PCM at the source's rate and channels.
        case lpcm
    }

    let name: String
    let video: Video
    let audio: Audio
    let fileTypes: [AVFileType]
    /// Whether a source with no video track can use it (then an audio-only file is written, as
    /// Apple's quality and size presets do).
    let acceptsAudioOnly: Bool

    static let movieTypes: [AVFileType] = [.mov, .mp4, .m4v]

    private static func h264(_ name: String, _ box: (Int, Int)?, _ bitRate: Int?, quality: Double? = nil,
                             profile: String = AVVideoProfileLevelH264HighAutoLevel, audio: Int = 128_000,
                             speed: String = "fast") -> ExportPreset {
        ExportPreset(name: name,
                     video: .encode(codec: .h264, box: box.map { (width: $0.0, height: $0.1) }, bitRate: bitRate, quality: quality,
                                    profile: profile, speed: speed),
                     audio: .aac(bitRate: audio, channels: 2), fileTypes: movieTypes, acceptsAudioOnly: true)
    }

    private static func hevc(_ name: String, _ box: (Int, Int)?, _ bitRate: Int?, quality: Double? = nil) -> ExportPreset {
        ExportPreset(name: name,
                     video: .encode(codec: .hevc, box: box.map { (width: $0.0, height: $0.1) }, bitRate: bitRate, quality: quality,
                                    profile: nil, speed: "fast"),
                     audio: .aac(bitRate: 160_000, channels: 2), fileTypes: movieTypes, acceptsAudioOnly: true)
    }

    /// Every preset, in the order `allExportPresets()` lists them.
    static let all: [ExportPreset] = [
        h264(AVAssetExportPresetLowQuality, (224, 168), 256_000, profile: AVVideoProfileLevelH264BaselineAutoLevel, audio: 64_000),
        h264(AVAssetExportPresetMediumQuality, (480, 360), 1_000_000, profile: AVVideoProfileLevelH264MainAutoLevel, audio: 96_000),
        h264(AVAssetExportPresetHighestQuality, nil, nil, quality: 0.75, audio: 192_000, speed: "medium"),
        hevc(AVAssetExportPresetHEVCHighestQuality, nil, nil, quality: 0.75),
        h264(AVAssetExportPreset640x480, (640, 480), 1_500_000),
        h264(AVAssetExportPreset960x540, (960, 540), 2_500_000),
        h264(AVAssetExportPreset1280x720, (1280, 720), 5_000_000),
        h264(AVAssetExportPreset1920x1080, (1920, 1080), 10_000_000),
        h264(AVAssetExportPreset3840x2160, (3840, 2160), 40_000_000),
        hevc(AVAssetExportPresetHEVC1920x1080, (1920, 1080), 6_000_000),
        hevc(AVAssetExportPresetHEVC3840x2160, (3840, 2160), 20_000_000),
        ExportPreset(name: AVAssetExportPresetAppleM4A, video: .none, audio: .aac(bitRate: 128_000, channels: 2),
                     fileTypes: [.m4a], acceptsAudioOnly: true),
        ExportPreset(name: AVAssetExportPresetAppleProRes422LPCM,
                     video: .encode(codec: .proRes422, box: nil, bitRate: nil, quality: nil, profile: nil, speed: nil),
                     audio: .lpcm, fileTypes: [.mov], acceptsAudioOnly: false),
        ExportPreset(name: AVAssetExportPresetPassthrough, video: .none, audio: .none, fileTypes: [], acceptsAudioOnly: true),
    ]

    static func named(_ name: String) -> ExportPreset? { all.first { $0.name == name } }

    var isPassthrough: Bool { name == AVAssetExportPresetPassthrough }

    /// The encoded size for a source of `size` (stored picture dimensions): fitted inside the
    /// box turned like the source, the aspect ratio kept, never larger than the source, even.
    static func fittedSize(_ size: CGSize, box: (width: Int, height: Int)?) -> (width: Int, height: Int) {
        let w = max(2, Double(size.width)), h = max(2, Double(size.height))
        var scale = 1.0
        if let box {
            let (bw, bh) = h > w ? (Double(box.height), Double(box.width)) : (Double(box.width), Double(box.height))
            scale = min(1, bw / w, bh / h)
        }
        func even(_ v: Double) -> Int { max(2, Int((v / 2).rounded()) * 2) }
        return (even(w * scale), even(h * scale))
    }

    /// The output sample rate for AAC: the rates the AAC encoder takes (8, 11.025, 12, 16, 22.05,
    /// 24, 32, 44.1 and 48 kHz) are kept; anything else (96 kHz, 88.2 kHz, 7.35 kHz, odd rates)
    /// becomes 48 kHz.
    static func aacSampleRate(source: Double) -> Double {
        let rates = EncoderAudio.sampleRates(.aac) ?? [48_000]
        return source.rounded() == source && rates.contains(Int(source)) ? source : 48_000
    }

    /// What an AAC preset writes for a source of `sourceRate` Hz with `sourceChannels` channels:
    /// the rate `aacSampleRate(source:)` gives, at most `maxChannels` channels (a 5.1 source is
    /// mixed down to stereo, a mono one stays mono), and the preset's `bitRate` brought inside the
    /// range the encoder takes at that rate and channel count (AAC carries at most 6144 bits per
    /// channel in a 1024-sample frame, so 128 kb/s mono needs at least 21.3 kHz: an 11.025 kHz
    /// mono source is written at 66.15 kb/s).
    static func aacOutput(bitRate: Int, maxChannels: Int, sourceRate: Double, sourceChannels: Int)
        -> (sampleRate: Double, channels: Int, bitRate: Int) {
        let rate = aacSampleRate(source: sourceRate.isFinite && sourceRate > 0 ? sourceRate : 48_000)
        let channels = max(1, min(maxChannels, sourceChannels))
        var bits = bitRate
        if let range = EncoderAudio.bitRateRange(.aac, sampleRate: Int(rate), channels: channels) {
            bits = min(max(bits, range.lowerBound), range.upperBound)
        }
        return (rate, channels, bits)
    }
}
