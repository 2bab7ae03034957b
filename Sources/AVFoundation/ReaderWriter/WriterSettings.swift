// Output settings dictionaries as Apple code passes them (AVVideoCodecType or String, Int,
// Double or NSNumber, nested dictionaries) → the writer's typed settings.
import CoreAudioTypes
import Foundation
import MediaEngine

/// Reads values the way Apple's frameworks accept them in settings dictionaries.
enum WriterValue {
    static func int(_ value: Any?) -> Int? {
        switch value {
        case let v as Int: return v
        case let v as Int32: return Int(v)
        case let v as Int64: return Int(exactly: v)
        case let v as UInt32: return Int(v)
        case let v as Double: return v.isFinite && v.rounded() == v ? Int(exactly: v) : nil
        case let v as Float: return v.isFinite && v.rounded() == v ? Int(exactly: v) : nil
        case let v as CGFloat: return v.isFinite && v.rounded() == v ? Int(exactly: Double(v)) : nil
        case let v as NSNumber: return CFNumberLike.isInteger(v) ? v.intValue : int(v.doubleValue)
        default: return nil
        }
    }

    static func double(_ value: Any?) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as CGFloat: return Double(v)
        case let v as Int: return Double(v)
        case let v as Int32: return Double(v)
        case let v as Int64: return Double(v)
        case let v as UInt32: return Double(v)
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let v as Bool: return v
        case let v as NSNumber: return v.boolValue
        case let v as Int: return v != 0
        default: return nil
        }
    }

    static func string(_ value: Any?) -> String? {
        switch value {
        case let v as String: return v
        case let v as NSString: return v as String
        case let v as AVVideoCodecType: return v.rawValue
        default: return nil
        }
    }

    static func dictionary(_ value: Any?) -> [String: Any]? {
        switch value {
        case let v as [String: Any]: return v
        case let v as NSDictionary:
            var out: [String: Any] = [:]
            for (k, val) in v { if let key = string(k) { out[key] = val } }
            return out
        default: return nil
        }
    }

    static func data(_ value: Any?) -> Data? {
        switch value {
        case let v as Data: return v
        case let v as NSData: return Data(referencing: v)
        default: return nil
        }
    }
}

/// NSNumber inspection without Core Foundation.
private enum CFNumberLike {
    static func isInteger(_ n: NSNumber) -> Bool {
        let type = String(cString: n.objCType)
        return !["f", "d"].contains(type)
    }
}

/// Video output settings, checked.
struct WriterVideoSettings {
    var codecType: AVVideoCodecType
    /// Nil: taken from the source format hint or the first picture.
    var width: Int?
    var height: Int?
    var scaling: Encoder.Scaling = .resizeAspect
    var averageBitRate: Int?
    var quality: Double?
    var maxKeyFrameInterval: Int?
    var maxKeyFrameIntervalDuration: Double?
    var allowFrameReordering: Bool?
    var profile: String?
    var level: Int32?
    var expectedFrameRate: Double?
    var entropyCABAC: Bool?
    var pixelAspect: (horizontal: Int32, vertical: Int32)?
    var color = EncoderColor()

    /// The engine codec; nil for codec types this build cannot encode ('muxa').
    var codec: Encoder.VideoCodec? {
        switch codecType {
        case .h264: return .h264
        case .hevc: return .hevc
        case .jpeg: return .jpeg
        case .proRes422Proxy: return .proRes(profile: 0)
        case .proRes422LT: return .proRes(profile: 1)
        case .proRes422: return .proRes(profile: 2)
        case .proRes422HQ: return .proRes(profile: 3)
        case .proRes4444: return .proRes(profile: 4)
        case .proRes4444XQ: return .proRes(profile: 5)
        default: return nil
        }
    }
}

/// Audio output settings, checked.
struct WriterAudioSettings {
    var formatID: AudioFormatID
    /// Nil: the source's.
    var sampleRate: Double?
    var channels: Int?
    /// Linear PCM: the sample layout to store.
    var pcm: MuxerStreamFormat.PCMLayout?
    var channelLayout: Data?
    var bitRate: Int?
}

/// An input's output settings.
enum WriterOutputSettings {
    case video(WriterVideoSettings)
    case audio(WriterAudioSettings)

    /// Parses `settings` for `mediaType`. The failure is the reason Apple's frameworks raise an
    /// exception with for such a dictionary.
    static func parse(_ settings: [String: Any], mediaType: AVMediaType) -> Result<WriterOutputSettings, WriterSettingsError> {
        if settings[AVVideoCodecKey] != nil || settings[AVVideoWidthKey] != nil || settings[AVVideoCompressionPropertiesKey] != nil {
            guard mediaType == .video else { return .failure(.invalid("Output settings must match supplied media type")) }
            return parseVideo(settings).map { .video($0) }
        }
        if settings[AVFormatIDKey] != nil {
            guard mediaType == .audio else { return .failure(.invalid("Output settings must match supplied media type")) }
            return parseAudio(settings).map { .audio($0) }
        }
        if mediaType == .video, settings[kCVPixelBufferPixelFormatTypeKey as String] != nil {
            return .failure(.unsupported("AVAssetWriter currently does not support writing uncompressed video in a specific format."))
        }
        if mediaType == .video { return .failure(.invalid("Video output settings must include AVVideoCodecKey")) }
        if mediaType == .audio { return .failure(.invalid("Audio output settings must include AVFormatIDKey")) }
        return .failure(.invalid("Output settings are not supported for media type \(mediaType.rawValue)"))
    }

    private static func parseVideo(_ s: [String: Any]) -> Result<WriterVideoSettings, WriterSettingsError> {
        if s[AVVideoScalingModeKey].flatMap(WriterValue.string) == AVVideoScalingModeFit {
            return .failure(.invalid("AVAssetWriterInput does not currently support AVVideoScalingModeFit"))
        }
        if s["AVVideoDecompressionPropertiesKey"] != nil {
            return .failure(.invalid("AVAssetWriterInput does not support AVVideoDecompressionPropertiesKey"))
        }
        guard let codecValue = s[AVVideoCodecKey] else { return .failure(.invalid("Video output settings must include AVVideoCodecKey")) }
        guard let codec = WriterValue.string(codecValue) else {
            return .failure(.invalid("AVVideoCodecKey must be an AVVideoCodecType or a string"))
        }
        var v = WriterVideoSettings(codecType: AVVideoCodecType(codec))
        for (key, dimension) in [(AVVideoWidthKey, \WriterVideoSettings.width), (AVVideoHeightKey, \WriterVideoSettings.height)] {
            guard let raw = s[key] else { continue }
            guard let n = WriterValue.int(raw) ?? WriterValue.double(raw).map({ Int($0.rounded()) }), n > 0, n < 1 << 16 else {
                return .failure(.invalid("\(key) must be a positive number"))
            }
            v[keyPath: dimension] = n
        }
        if let mode = s[AVVideoScalingModeKey] {
            switch WriterValue.string(mode) {
            case AVVideoScalingModeResize: v.scaling = .resize
            case AVVideoScalingModeResizeAspect: v.scaling = .resizeAspect
            case AVVideoScalingModeResizeAspectFill: v.scaling = .resizeAspectFill
            default: return .failure(.invalid("unknown AVVideoScalingModeKey value \(mode)"))
            }
        }
        if let aspect = s[AVVideoPixelAspectRatioKey] {
            guard let d = WriterValue.dictionary(aspect),
                  let h = WriterValue.int(d[AVVideoPixelAspectRatioHorizontalSpacingKey]),
                  let vs = WriterValue.int(d[AVVideoPixelAspectRatioVerticalSpacingKey]), h > 0, vs > 0,
                  h <= Int(Int32.max), vs <= Int(Int32.max) else {
                return .failure(.invalid("AVVideoPixelAspectRatioKey needs positive horizontal and vertical spacings"))
            }
            v.pixelAspect = (Int32(h), Int32(vs))
        }
        if let colorValue = s[AVVideoColorPropertiesKey] {
            guard let c = WriterValue.dictionary(colorValue) else { return .failure(.invalid("AVVideoColorPropertiesKey must be a dictionary")) }
            let primaries = WriterValue.string(c[AVVideoColorPrimariesKey])
            let transfer = WriterValue.string(c[AVVideoTransferFunctionKey])
            let matrix = WriterValue.string(c[AVVideoYCbCrMatrixKey])
            guard primaries != nil, transfer != nil, matrix != nil else {
                return .failure(.invalid("AVVideoColorPropertiesKey must specify AVVideoColorPrimariesKey, AVVideoTransferFunctionKey and AVVideoYCbCrMatrixKey"))
            }
            v.color = EncoderColor(primaries: primaries, transferFunction: transfer, matrix: matrix)
        }
        if let propsValue = s[AVVideoCompressionPropertiesKey] {
            guard let p = WriterValue.dictionary(propsValue) else {
                return .failure(.invalid("AVVideoCompressionPropertiesKey must be a dictionary"))
            }
            func positiveInt(_ key: String) -> Result<Int?, WriterSettingsError> {
                guard let raw = p[key] else { return .success(nil) }
                guard let n = WriterValue.int(raw) ?? WriterValue.double(raw).map({ Int($0.rounded()) }), n > 0 else {
                    return .failure(.invalid("compression property \(key) must be a positive number"))
                }
                return .success(n)
            }
            func positiveDouble(_ key: String) -> Result<Double?, WriterSettingsError> {
                guard let raw = p[key] else { return .success(nil) }
                guard let d = WriterValue.double(raw), d.isFinite, d > 0 else {
                    return .failure(.invalid("compression property \(key) must be a positive number"))
                }
                return .success(d)
            }
            do {
                v.averageBitRate = try positiveInt(AVVideoAverageBitRateKey).get()
                v.maxKeyFrameInterval = try positiveInt(AVVideoMaxKeyFrameIntervalKey).get()
                v.maxKeyFrameIntervalDuration = try positiveDouble(AVVideoMaxKeyFrameIntervalDurationKey).get()
                v.expectedFrameRate = try positiveDouble(AVVideoExpectedSourceFrameRateKey).get()
            } catch {
                return .failure(error)
            }
            if let raw = p[AVVideoQualityKey] {
                guard let q = WriterValue.double(raw), q >= 0, q <= 1 else {
                    return .failure(.invalid("compression property Quality must be a number from 0.0 to 1.0"))
                }
                v.quality = q
            }
            if let raw = p[AVVideoAllowFrameReorderingKey] {
                guard let b = WriterValue.bool(raw) else { return .failure(.invalid("compression property AllowFrameReordering must be a Boolean")) }
                v.allowFrameReordering = b
            }
            if let raw = p[AVVideoH264EntropyModeKey] {
                switch WriterValue.string(raw) {
                case AVVideoH264EntropyModeCABAC: v.entropyCABAC = true
                case AVVideoH264EntropyModeCAVLC: v.entropyCABAC = false
                default: return .failure(.invalid("unknown H264EntropyMode value \(raw)"))
                }
            }
            if let raw = p[AVVideoProfileLevelKey] {
                guard let name = WriterValue.string(raw), let parsed = profileLevel(name, codec: v.codecType) else {
                    return .failure(.invalid("unknown ProfileLevel value \(raw) for codec \(codec)"))
                }
                v.profile = parsed.profile
                v.level = parsed.level
            }
        }
        return .success(v)
    }

    /// ("high", 41) for "H264_High_4_1"; ("main", nil) for "H264_Main_AutoLevel" or
    /// "HEVC_Main_AutoLevel"; nil when the name is not a profile/level of `codec`.
    static func profileLevel(_ name: String, codec: AVVideoCodecType) -> (profile: String, level: Int32?)? {
        let parts = name.split(separator: "_").map(String.init)
        guard parts.count >= 3 else { return nil }
        let family = parts[0], profileName = parts[1].lowercased()
        let levelParts = parts[2...]
        var level: Int32?
        if levelParts.first != "AutoLevel" {
            guard levelParts.count == 2, let major = Int32(levelParts.first!), let minor = Int32(levelParts.last!),
                  (1...6).contains(major), (0...9).contains(minor) else { return nil }
            level = major * 10 + minor
        }
        switch (family, codec) {
        case ("H264", .h264):
            guard ["baseline", "main", "high"].contains(profileName) else { return nil }
            return (profileName, level)
        case ("HEVC", .hevc):
            guard ["main", "main10"].contains(profileName), level == nil else { return nil }
            return (profileName, nil)
        default:
            return nil
        }
    }

    private static func parseAudio(_ s: [String: Any]) -> Result<WriterAudioSettings, WriterSettingsError> {
        if s[AVSampleRateConverterAudioQualityKey] != nil {
            return .failure(.invalid("AVAssetWriterInput does not support AVSampleRateConverterAudioQualityKey"))
        }
        guard let formatRaw = WriterValue.int(s[AVFormatIDKey]), formatRaw > 0, formatRaw <= Int(UInt32.max) else {
            return .failure(.invalid("AVFormatIDKey must be an audio format ID"))
        }
        var a = WriterAudioSettings(formatID: AudioFormatID(formatRaw))
        if let raw = s[AVSampleRateKey] {
            guard let rate = WriterValue.double(raw), rate.isFinite, rate >= 1, rate <= 768_000 else {
                return .failure(.invalid("AVSampleRateKey must be a positive sample rate"))
            }
            a.sampleRate = rate
        }
        if let raw = s[AVNumberOfChannelsKey] {
            guard let n = WriterValue.int(raw), n > 0, n <= 64 else {
                return .failure(.invalid("AVNumberOfChannelsKey must be a number of channels from 1 to 64"))
            }
            a.channels = n
        }
        if let raw = s[AVChannelLayoutKey] {
            guard let data = WriterValue.data(raw), data.count >= 12 else {
                return .failure(.invalid("AVChannelLayoutKey must be an AudioChannelLayout as Data"))
            }
            a.channelLayout = data
        }
        if let raw = s[AVEncoderBitRateKey] {
            guard let n = WriterValue.int(raw) ?? WriterValue.double(raw).map({ Int($0) }), n > 0 else {
                return .failure(.invalid("AVEncoderBitRateKey must be a positive number"))
            }
            a.bitRate = n
        }
        if a.formatID == kAudioFormatLinearPCM {
            let isFloat = WriterValue.bool(s[AVLinearPCMIsFloatKey]) ?? false
            let bits = WriterValue.int(s[AVLinearPCMBitDepthKey]) ?? (isFloat ? 32 : 16)
            let valid = isFloat ? [32, 64].contains(bits) : [8, 16, 24, 32].contains(bits)
            guard valid else {
                return .failure(.invalid("AVLinearPCMBitDepthKey \(bits) is not valid for \(isFloat ? "floating-point" : "integer") samples"))
            }
            a.pcm = MuxerStreamFormat.PCMLayout(bits: bits, isFloat: isFloat,
                                                isBigEndian: WriterValue.bool(s[AVLinearPCMIsBigEndianKey]) ?? false,
                                                isSigned: bits > 8, isNonInterleaved: WriterValue.bool(s[AVLinearPCMIsNonInterleaved]) ?? false)
        }
        return .success(a)
    }
}

/// Why output settings cannot be used.
enum WriterSettingsError: Error, Equatable {
    /// Apple's frameworks raise an exception for this dictionary.
    case invalid(String)
    /// A valid dictionary this writer cannot honour (`canApply` answers false).
    case unsupported(String)

    var reason: String {
        switch self {
        case .invalid(let r), .unsupported(let r): return r
        }
    }
}

/// The four-character code spelled by `text` ("vide" → 'vide'); 0 unless it has four ASCII characters.
func writerFourCharCode(_ text: String) -> FourCharCode {
    let bytes = Array(text.utf8)
    guard bytes.count == 4 else { return 0 }
    return bytes.reduce(0) { $0 << 8 | FourCharCode($1) }
}
