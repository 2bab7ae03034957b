// AVOutputSettingsAssistant: ready-made output settings for asset writer inputs.
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization

/// Builds video and audio output settings for a preset, refined by what is known of the source.
///
/// Video: the preset's codec and size (never larger than a known source, keeping its aspect
/// ratio), an average bit rate scaled to the picture size and frame rate, the expected frame
/// rate, a profile (H.264 High, HEVC Main) and BT.709 colour. Audio: AAC, 2 channels (or the
/// source's), 44.1 kHz (or less when the source is), 128 kbit/s per stereo pair, with a channel
/// layout. The file type is a QuickTime movie.
open class AVOutputSettingsAssistant: NSObject, @unchecked Sendable {
    private struct Preset {
        var codec: AVVideoCodecType
        var width: Int
        var height: Int
        /// Bits per second at 30 frames per second and the full preset size.
        var bitRate: Int
    }

    private static let presets: [AVOutputSettingsPreset: Preset] = [
        .preset640x480: Preset(codec: .h264, width: 640, height: 480, bitRate: 2_000_000),
        .preset960x540: Preset(codec: .h264, width: 960, height: 540, bitRate: 3_500_000),
        .preset1280x720: Preset(codec: .h264, width: 1280, height: 720, bitRate: 7_000_000),
        .preset1920x1080: Preset(codec: .h264, width: 1920, height: 1080, bitRate: 12_000_000),
        .preset3840x2160: Preset(codec: .h264, width: 3840, height: 2160, bitRate: 45_000_000),
        .hevc1920x1080: Preset(codec: .hevc, width: 1920, height: 1080, bitRate: 7_000_000),
        .hevc3840x2160: Preset(codec: .hevc, width: 3840, height: 2160, bitRate: 27_000_000),
    ]

    /// The presets an assistant can be created with (the alpha presets are not: HEVC with alpha
    /// cannot be encoded here).
    open class func availableOutputSettingsPresets() -> [AVOutputSettingsPreset] {
        [.preset640x480, .preset960x540, .preset1280x720, .preset1920x1080, .preset3840x2160, .hevc1920x1080, .hevc3840x2160]
    }

    private let preset: Preset
    /// What is known of the source.
    private struct Source {
        var videoFormat: CMFormatDescription?
        var audioFormat: CMFormatDescription?
        var averageFrameDuration = CMTime(value: 1, timescale: 30)
        var minFrameDuration = CMTime(value: 1, timescale: 30)
    }
    private let source = Mutex(Source())

    /// An assistant for `presetIdentifier`; nil for presets this framework cannot produce.
    public convenience init?(preset presetIdentifier: AVOutputSettingsPreset) {
        guard let preset = AVOutputSettingsAssistant.presets[presetIdentifier] else { return nil }
        self.init(resolved: preset)
    }

    private init(resolved preset: Preset) {
        self.preset = preset
        super.init()
    }

    /// The type of file to write: a QuickTime movie.
    open var outputFileType: AVFileType { .mov }

    /// The format of the source video (nil: unknown). Setting it keeps `videoSettings` from
    /// enlarging the picture.
    open var sourceVideoFormat: CMVideoFormatDescription? {
        get { source.withLock { $0.videoFormat } }
        set { source.withLock { $0.videoFormat = newValue } }
    }

    /// The format of the source audio (nil: unknown).
    open var sourceAudioFormat: CMAudioFormatDescription? {
        get { source.withLock { $0.audioFormat } }
        set { source.withLock { $0.audioFormat = newValue } }
    }

    /// The average duration of a source frame (default 1/30 s).
    open var sourceVideoAverageFrameDuration: CMTime {
        get { source.withLock { $0.averageFrameDuration } }
        set {
            if !newValue.isNumeric {
                WriterError.raise("AVOutputSettingsAssistant", "setSourceVideoAverageFrameDuration:",
                                  "invalid parameter not satisfying: CMTIME_IS_NUMERIC(sourceVideoAverageFrameDuration)")
            }
            if newValue <= .zero {
                WriterError.raise("AVOutputSettingsAssistant", "setSourceVideoAverageFrameDuration:",
                                  "invalid parameter not satisfying: CMTIME_COMPARE_INLINE(sourceVideoAverageFrameDuration, >, kCMTimeZero)")
            }
            source.withLock { $0.averageFrameDuration = newValue }
        }
    }

    /// The shortest duration of a source frame (default 1/30 s); gives the expected frame rate.
    open var sourceVideoMinFrameDuration: CMTime {
        get { source.withLock { $0.minFrameDuration } }
        set { source.withLock { $0.minFrameDuration = newValue } }
    }

    /// Settings for an `AVAssetWriterInput` of video.
    open var videoSettings: [String: Any]? {
        let (format, average, minimum) = source.withLock { ($0.videoFormat, $0.averageFrameDuration, $0.minFrameDuration) }
        var width = Double(preset.width), height = Double(preset.height)
        if let format {
            // Fit the source inside the preset size, never enlarging it.
            let d = CMVideoFormatDescriptionGetDimensions(format)
            let sw = Double(d.width), sh = Double(d.height)
            if sw > 0, sh > 0 {
                let scale = min(1, min(width / sw, height / sh))
                width = (sw * scale / 2).rounded() * 2
                height = (sh * scale / 2).rounded() * 2
            }
        }
        var compression: [String: Any] = [:]
        let frameRate = minimum.isNumeric && minimum > .zero ? 1 / minimum.seconds : 30
        compression[AVVideoExpectedSourceFrameRateKey] = NSNumber(value: frameRate)
        let averageRate = average.isNumeric && average > .zero ? 1 / average.seconds : 30
        let area = (width * height) / Double(preset.width * preset.height)
        let bitRate = Double(preset.bitRate) * area * min(2, max(0.5, averageRate / 30))
        compression[AVVideoAverageBitRateKey] = NSNumber(value: Int(bitRate.rounded()))
        compression[AVVideoMaxKeyFrameIntervalDurationKey] = NSNumber(value: 2)
        compression[AVVideoProfileLevelKey] = preset.codec == .hevc ? "HEVC_Main_AutoLevel" : AVVideoProfileLevelH264HighAutoLevel
        return [
            AVVideoCodecKey: preset.codec,
            AVVideoWidthKey: NSNumber(value: Int(width)),
            AVVideoHeightKey: NSNumber(value: Int(height)),
            AVVideoCompressionPropertiesKey: compression,
            AVVideoColorPropertiesKey: [AVVideoColorPrimariesKey: AVVideoColorPrimaries_ITU_R_709_2,
                                        AVVideoTransferFunctionKey: AVVideoTransferFunction_ITU_R_709_2,
                                        AVVideoYCbCrMatrixKey: AVVideoYCbCrMatrix_ITU_R_709_2],
        ]
    }

    /// Settings for an `AVAssetWriterInput` of audio: AAC LC at 64 kb/s per channel, 44.1 kHz
    /// (or the source's lower rate) and the source's channel count (at most 8), with a channel
    /// layout. The writer applies them (`canApply(outputSettings:forMediaType:)` is true for the
    /// preset's file type).
    open var audioSettings: [String: Any]? {
        let format = source.withLock { $0.audioFormat }
        var sampleRate = 44_100.0
        var channels = 2
        if let format, let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(format)?.pointee {
            if asbd.mSampleRate > 0 { sampleRate = min(sampleRate, asbd.mSampleRate) }
            if asbd.mChannelsPerFrame > 0 { channels = min(8, Int(asbd.mChannelsPerFrame)) }
        }
        return [
            AVFormatIDKey: NSNumber(value: kAudioFormatMPEG4AAC),
            AVSampleRateKey: NSNumber(value: sampleRate),
            AVNumberOfChannelsKey: NSNumber(value: channels),
            AVEncoderBitRateKey: NSNumber(value: 64_000 * channels),
            AVChannelLayoutKey: AVOutputSettingsAssistant.layoutData(channels: channels),
        ]
    }

    /// An `AudioChannelLayout` (tag only) for `channels` as `Data`.
    static func layoutData(channels: Int) -> Data {
        let tag: AudioChannelLayoutTag
        switch channels {
        case 1: tag = kAudioChannelLayoutTag_Mono
        case 2: tag = kAudioChannelLayoutTag_Stereo
        case 6: tag = kAudioChannelLayoutTag_MPEG_5_1_A
        default: tag = kAudioChannelLayoutTag_DiscreteInOrder | AudioChannelLayoutTag(channels)
        }
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = tag
        return withUnsafeBytes(of: &layout) { Data($0) }
    }
}
