// Output settings dictionaries as Apple code passes them (AVVideoCodecType or String, Int,
// Double or NSNumber, nested dictionaries) → the writer's typed settings.
import CoreAudioTypes
import Foundation
internal import MediaEngine



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
    /// `kVTCompressionPropertyKey_RealTime` (nil: the input's `expectsMediaDataInRealTime`).
    var realTime: Bool?
    /// `kVTCompressionPropertyKey_PrioritizeEncodingSpeedOverQuality`.
    var prioritizeSpeed = false
    /// `kVTCompressionPropertyKey_DataRateLimits`: the tightest (bytes, seconds) pair as a peak
    /// rate in bits per second and the buffer it is measured over, in bits.
    var dataRateLimit: (bitsPerSecond: Int, bufferBits: Int)?
    /// `AVVideoAverageNonDroppableFrameRateKey`: frames per second that are not droppable (I and P).
    var nonDroppableFrameRate: Double?
    /// H.264 Constrained High: High without B-frames.
    var constrainedHigh = false
    /// `kVTCompressionPropertyKey_ConstantBitRate`: bits per second, every second.
    var constantBitRate: Int?
    /// `kVTCompressionPropertyKey_MinAllowedFrameQP` / `_MaxAllowedFrameQP`.
    var minQP: Int?
    var maxQP: Int?
    /// `kVTCompressionPropertyKey_AllowOpenGOP`.
    var openGOP: Bool?
    /// `kVTCompressionPropertyKey_HDRMetadataInsertionMode` is not `None`.
    var insertHDRMetadata = true
    /// `kVTCompressionPropertyKey_MasteringDisplayColorVolume` (24 bytes) and
    /// `_ContentLightLevelInfo` (4 bytes), big-endian as SMPTE ST 2086 / CEA-861.3 lay them out.
    var masteringDisplay: Data?
    var contentLightLevel: Data?

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
            return WriterAudioSettings.parse(settings).map { .audio($0) }
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
            if let error = parseCompressionProperties(p, into: &v) { return .failure(error) }
        }
        return .success(v)
    }

    /// The compression property keys (Video Toolbox's names; the AVVideo…Key constants have the
    /// same strings) the writer knows, by what it does with them.
    enum CompressionKey {
        /// Honoured for every codec that has the notion (bit rate, keyframes, colour, …).
        static let honoured: Set<String> = [
            "AverageBitRate", "Quality", "MaxKeyFrameInterval", "MaxKeyFrameIntervalDuration", "AllowFrameReordering",
            "ExpectedFrameRate", "ProfileLevel", "H264EntropyMode", "RealTime", "AllowTemporalCompression", "DataRateLimits",
            "ConstantBitRate",
            "AverageNonDroppableFrameRate", "ColorPrimaries", "TransferFunction", "YCbCrMatrix", "PixelAspectRatio",
            "HDRMetadataInsertionMode", "MasteringDisplayColorVolume", "ContentLightLevelInfo", "MinAllowedFrameQP",
            "MaxAllowedFrameQP", "AllowOpenGOP", "PrioritizeEncodingSpeedOverQuality",
        ]
        /// Hints about the source that change nothing in the output here (as on Apple, where they
        /// tune the encoder's effort).
        static let hints: Set<String> = ["ExpectedDuration", "SourceFrameCount", "MaximizePowerEfficiency", "MaximumRealTimeFrameRate"]
        /// Real Video Toolbox keys FFmpeg's encoders cannot honour: `canApply` answers false.
        static let unsupported: Set<String> = [
            "MaxFrameDelayCount", "MaxH264SliceBytes", "BaseLayerFrameRateFraction", "CleanAperture",
            "FieldCount", "FieldDetail", "ICCProfile", "GammaLevel", "Depth", "TargetQualityForAlpha", "ReferenceBufferCount",
            "SpatialAdaptiveQPLevel", "PreserveDynamicHDRMetadata", "AlphaChannelMode", "VariableBitRate", "VBVMaxBitRate",
            "VBVBufferDuration",
        ]
        /// Properties an encoder reports, never takes.
        static let readOnly: Set<String> = ["NumberOfPendingFrames", "UsingHardwareAcceleratedVideoEncoder"]
        /// Keys that only apply to H.264.
        static let h264Only: Set<String> = ["H264EntropyMode", "MaxH264SliceBytes"]
    }

    /// Reads `AVVideoCompressionPropertiesKey`'s dictionary into `v`; the error Apple's frameworks
    /// give for it (an exception for what no encoder takes, `canApply` false for what this one
    /// cannot do), or nil.
    static func parseCompressionProperties(_ p: [String: Any], into v: inout WriterVideoSettings) -> WriterSettingsError? {
        let codecName = v.codecType.rawValue
        for key in p.keys.sorted() {
            if CompressionKey.readOnly.contains(key) {
                return .invalid("Compression property \(key) is read-only")
            }
            let known = CompressionKey.honoured.contains(key) || CompressionKey.hints.contains(key) || CompressionKey.unsupported.contains(key)
            if !known || (CompressionKey.h264Only.contains(key) && v.codecType != .h264) {
                return .invalid("Compression property \(key) is not supported for video codec type \(codecName)")
            }
        }
        if let key = p.keys.sorted().first(where: { CompressionKey.unsupported.contains($0) }) {
            return .unsupported("Compression property \(key) is not supported by this AV Foundation's \(codecName) encoder")
        }
        func positiveInt(_ key: String) throws(WriterSettingsError) -> Int? {
            guard let raw = p[key] else { return nil }
            guard let n = WriterValue.int(raw) ?? WriterValue.double(raw).map({ Int($0.rounded()) }), n > 0 else {
                throw .invalid("compression property \(key) must be a positive number")
            }
            return n
        }
        func positiveDouble(_ key: String) throws(WriterSettingsError) -> Double? {
            guard let raw = p[key] else { return nil }
            guard let d = WriterValue.double(raw), d.isFinite, d > 0 else {
                throw .invalid("compression property \(key) must be a positive number")
            }
            return d
        }
        func bool(_ key: String) throws(WriterSettingsError) -> Bool? {
            guard let raw = p[key] else { return nil }
            guard let b = WriterValue.bool(raw) else { throw .invalid("compression property \(key) must be a Boolean") }
            return b
        }
        func data(_ key: String, count: Int) throws(WriterSettingsError) -> Data? {
            guard let raw = p[key] else { return nil }
            guard let d = WriterValue.data(raw), d.count == count else {
                throw .invalid("compression property \(key) must be \(count) bytes of data")
            }
            return d
        }
        do {
            v.averageBitRate = try positiveInt(AVVideoAverageBitRateKey)
            v.constantBitRate = try positiveInt("ConstantBitRate")
            v.maxKeyFrameInterval = try positiveInt(AVVideoMaxKeyFrameIntervalKey)
            v.maxKeyFrameIntervalDuration = try positiveDouble(AVVideoMaxKeyFrameIntervalDurationKey)
            v.expectedFrameRate = try positiveDouble(AVVideoExpectedSourceFrameRateKey)
            v.nonDroppableFrameRate = try positiveDouble(AVVideoAverageNonDroppableFrameRateKey)
            _ = try positiveDouble("ExpectedDuration")
            _ = try positiveInt("SourceFrameCount")
            _ = try positiveDouble("MaximumRealTimeFrameRate")
            v.allowFrameReordering = try bool(AVVideoAllowFrameReorderingKey)
            v.realTime = try bool("RealTime")
            v.prioritizeSpeed = try bool("PrioritizeEncodingSpeedOverQuality") ?? false
            v.openGOP = try bool("AllowOpenGOP")
            _ = try bool("MaximizePowerEfficiency")
            if try bool("AllowTemporalCompression") == false { v.maxKeyFrameInterval = 1 }
            v.minQP = try positiveInt("MinAllowedFrameQP")
            v.maxQP = try positiveInt("MaxAllowedFrameQP")
            v.masteringDisplay = try data("MasteringDisplayColorVolume", count: 24)
            v.contentLightLevel = try data("ContentLightLevelInfo", count: 4)
        } catch {
            return error
        }
        if v.masteringDisplay != nil || v.contentLightLevel != nil, v.codecType != .hevc {
            return .unsupported("HDR metadata (MasteringDisplayColorVolume, ContentLightLevelInfo) is written for HEVC only")
        }
        if v.constantBitRate != nil, v.averageBitRate != nil || p["DataRateLimits"] != nil {
            return .unsupported("Compression property ConstantBitRate cannot be combined with AverageBitRate or DataRateLimits")
        }
        if let low = v.minQP, let high = v.maxQP, low > high {
            return .invalid("compression property MinAllowedFrameQP must not exceed MaxAllowedFrameQP")
        }
        if let raw = p[AVVideoQualityKey] {
            guard let q = WriterValue.double(raw), q >= 0, q <= 1 else {
                return .invalid("compression property Quality must be a number from 0.0 to 1.0")
            }
            v.quality = q
        }
        if let raw = p[AVVideoH264EntropyModeKey] {
            switch WriterValue.string(raw) {
            case AVVideoH264EntropyModeCABAC: v.entropyCABAC = true
            case AVVideoH264EntropyModeCAVLC: v.entropyCABAC = false
            default: return .invalid("unknown H264EntropyMode value \(raw)")
            }
        }
        if let raw = p["HDRMetadataInsertionMode"] {
            switch WriterValue.string(raw) {
            case "None": v.insertHDRMetadata = false
            case "Auto", "RequestSDRRangePreservation": v.insertHDRMetadata = true
            default: return .invalid("unknown HDRMetadataInsertionMode value \(raw)")
            }
        }
        if let raw = p["DataRateLimits"] {
            // Pairs of (bytes, seconds); the tightest pair bounds the peak rate.
            guard let values = WriterValue.array(raw)?.map(WriterValue.double), !values.isEmpty, values.count % 2 == 0,
                  values.allSatisfy({ ($0 ?? 0) > 0 && $0!.isFinite }) else {
                return .invalid("compression property DataRateLimits must hold pairs of a byte count and a duration in seconds")
            }
            let pairs = stride(from: 0, to: values.count, by: 2).map { (bytes: values[$0]!, seconds: values[$0 + 1]!) }
            let tightest = pairs.min { $0.bytes / $0.seconds < $1.bytes / $1.seconds }!
            v.dataRateLimit = (Int((tightest.bytes * 8 / tightest.seconds).rounded()), Int((tightest.bytes * 8).rounded()))
        }
        if let aspect = p["PixelAspectRatio"], v.pixelAspect == nil {
            guard let d = WriterValue.dictionary(aspect),
                  let h = WriterValue.int(d[AVVideoPixelAspectRatioHorizontalSpacingKey]),
                  let vs = WriterValue.int(d[AVVideoPixelAspectRatioVerticalSpacingKey]), h > 0, vs > 0,
                  h <= Int(Int32.max), vs <= Int(Int32.max) else {
                return .invalid("compression property PixelAspectRatio needs positive horizontal and vertical spacings")
            }
            v.pixelAspect = (Int32(h), Int32(vs))
        }
        // Colour tags given as compression properties (Video Toolbox's way); the
        // AVVideoColorPropertiesKey dictionary wins where both are given.
        for (key, path) in [("ColorPrimaries", \EncoderColor.primaries), ("TransferFunction", \EncoderColor.transferFunction),
                            ("YCbCrMatrix", \EncoderColor.matrix)] {
            guard let raw = p[key] else { continue }
            guard let value = WriterValue.string(raw) else { return .invalid("compression property \(key) must be a string") }
            if v.color[keyPath: path] == nil { v.color[keyPath: path] = value }
        }
        if let raw = p[AVVideoProfileLevelKey] {
            guard let name = WriterValue.string(raw), let parsed = profileLevel(name, codec: v.codecType) else {
                return .invalid("unknown ProfileLevel value \(raw) for codec \(codecName)")
            }
            guard let profile = parsed.profile else {
                return .unsupported("The profile \(name) is not supported by this AV Foundation's \(codecName) encoder")
            }
            v.profile = profile
            v.level = parsed.level
            v.constrainedHigh = name.hasPrefix("H264_ConstrainedHigh_")
        }
        return nil
    }

    /// The encoder profile for a ProfileLevel value: ("high", 41) for "H264_High_4_1"; ("main",
    /// nil) for "H264_Main_AutoLevel" or "HEVC_Main_AutoLevel"; ("baseline", nil) for
    /// "H264_ConstrainedBaseline_AutoLevel" (x264's Baseline is Constrained Baseline); ("high",
    /// nil) for "H264_ConstrainedHigh_AutoLevel" (with B-frames off); ("main422-10", nil) for
    /// "HEVC_Main42210_AutoLevel". A nil profile: a real profile of `codec` that libx264/libx265
    /// cannot write (H.264 Extended, HEVC Monochrome). Nil: not a profile/level of `codec`.
    static func profileLevel(_ name: String, codec: AVVideoCodecType) -> (profile: String?, level: Int32?)? {
        let parts = name.split(separator: "_").map(String.init)
        guard parts.count >= 3 else { return nil }
        let family = parts[0], profileName = parts[1]
        let levelParts = parts[2...]
        var level: Int32?
        if levelParts.first != "AutoLevel" {
            guard levelParts.count == 2, let major = Int32(levelParts.first!), let minor = Int32(levelParts.last!),
                  (1...6).contains(major), (0...9).contains(minor) else { return nil }
            level = major * 10 + minor
        } else if levelParts.count != 1 {
            return nil
        }
        switch (family, codec) {
        case ("H264", .h264):
            switch profileName {
            case "Baseline", "Main", "High": return (profileName.lowercased(), level)
            case "ConstrainedBaseline" where level == nil: return ("baseline", nil)
            case "ConstrainedHigh" where level == nil: return ("high", nil)
            case "Extended": return (nil, level)
            default: return nil
            }
        case ("HEVC", .hevc):
            guard level == nil else { return nil }
            switch profileName {
            case "Main": return ("main", nil)
            case "Main10": return ("main10", nil)
            case "Main42210": return ("main422-10", nil)
            case "Monochrome", "Monochrome10": return (nil, nil)
            default: return nil
            }
        default:
            return nil
        }
    }
}

/// The four-character code spelled by `text` ("vide" → 'vide'); 0 unless it has four ASCII characters.
func writerFourCharCode(_ text: String) -> FourCharCode {
    let bytes = Array(text.utf8)
    guard bytes.count == 4 else { return 0 }
    return bytes.reduce(0) { $0 << 8 | FourCharCode($1) }
}
