// Audio settings dictionaries as Apple code passes them (Int, Double or NSNumber values,
// AudioChannelLayout bytes) → checked, typed settings: one validation, used by AVAssetWriterInput,
// AVAudioFile and AVAudioRecorder, with Apple's rules and messages.
import CoreAudioTypes
import Foundation
package import MediaEngine

/// Reads values the way Apple's frameworks accept them in settings dictionaries.
package enum WriterValue {
    package static func int(_ value: Any?) -> Int? {
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

    package static func double(_ value: Any?) -> Double? {
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

    package static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let v as Bool: return v
        case let v as NSNumber: return v.boolValue
        case let v as Int: return v != 0
        default: return nil
        }
    }

    package static func string(_ value: Any?) -> String? {
        switch value {
        case let v as String: return v
        case let v as NSString: return v as String
        case let v as any RawRepresentable<String>: return v.rawValue
        default: return nil
        }
    }

    package static func dictionary(_ value: Any?) -> [String: Any]? {
        switch value {
        case let v as [String: Any]: return v
        case let v as NSDictionary:
            var out: [String: Any] = [:]
            for (k, val) in v { if let key = string(k) { out[key] = val } }
            return out
        case let v as [AnyHashable: Any]:
            // Keys typed CFString (`[kVTCompressionPropertyKey_…: …]`) whatever CFString is.
            var out: [String: Any] = [:]
            for (k, val) in v {
                guard let key = string(k.base) else { return nil }
                out[key] = val
            }
            return out
        default: return nil
        }
    }

    package static func array(_ value: Any?) -> [Any]? {
        switch value {
        case let v as [Any]: return v
        case let v as NSArray: return v.map { $0 }
        default: return nil
        }
    }

    package static func data(_ value: Any?) -> Data? {
        switch value {
        case let v as Data: return v
        case let v as NSData: return Data(referencing: v)
        default: return nil
        }
    }
}
/// Audio output settings, checked.
package struct WriterAudioSettings {
    package var formatID: AudioFormatID
    /// Nil: the source's (only with a source format hint; Apple requires it otherwise).
    package var sampleRate: Double?
    package var channels: Int?
    /// Linear PCM: the sample layout to store.
    package var pcm: MuxerStreamFormat.PCMLayout?
    /// The `AVChannelLayoutKey` bytes, checked against the channel count.
    package var channelLayout: Data?
    /// Bits per second for the whole stream (`AVEncoderBitRateKey`, or the per-channel key
    /// times the channel count).
    package var bitRate: Int?
    package var bitRatePerChannel: Int?
    /// `AVEncoderBitRateStrategyKey`.
    package var strategy: String?
    /// `AVEncoderAudioQualityKey` / `AVEncoderAudioQualityForVBRKey` (AVAudioQuality raw values).
    package var quality: Int?
    package var vbrQuality: Int?
    /// `AVEncoderBitDepthHintKey` (Apple Lossless).
    package var bitDepthHint: Int?
    /// Why the dictionary does not fully specify the output ("Missing required key …"): Apple
    /// raises with it when no source format hint fills the gap.
    package var missingKey: String?

    /// The engine codec for the format ID; nil for formats this build cannot encode.
    package var codec: EncoderAudio.Codec? {
        formatID == kAudioFormatLinearPCM ? pcm.map { .linearPCM($0) } : Self.compressedCodec(for: formatID)
    }

    /// The engine's encoder for a compressed format ID (nil: linear PCM, or one it lacks).
    package static func compressedCodec(for formatID: AudioFormatID) -> EncoderAudio.Codec? {
        switch formatID {
        case kAudioFormatMPEG4AAC: return .aac
        case kAudioFormatAppleLossless: return .appleLossless
        case kAudioFormatFLAC: return .flac
        case kAudioFormatOpus: return .opus
        case kAudioFormatULaw: return .muLaw
        case kAudioFormatALaw: return .aLaw
        case kAudioFormatAppleIMA4: return .appleIMA4
        default: return nil
        }
    }

    /// The channel count the settings state (the key, else the layout's).
    package var statedChannelCount: Int? {
        channels ?? channelLayout.flatMap { AudioChannelSet(audioChannelLayout: $0)?.count }
    }

    /// The output channels for `count` channels: the layout's positions when given.
    package func channelSet(count: Int) -> AudioChannelSet {
        if let channelLayout, let set = AudioChannelSet(audioChannelLayout: channelLayout), set.count == count { return set }
        return AudioChannelSet(count: count)
    }

    /// The total bit rate asked for with `channels` channels.
    package func totalBitRate(channels: Int) -> Int? {
        bitRate ?? bitRatePerChannel.map { $0 * channels }
    }

    /// The encoder settings for a source of `sourceRate` Hz and `sourceChannels` channels
    /// (used for what the dictionary leaves out).
    package func encoderSettings(codec: EncoderAudio.Codec, sourceRate: Double, sourceChannels: Int) -> EncoderAudio.Settings {
        var rate = Int((sampleRate ?? sourceRate).rounded())
        if sampleRate == nil, let allowed = EncoderAudio.sampleRates(codec) {
            rate = allowed.min(by: { abs($0 - rate) < abs($1 - rate) }) ?? rate
        }
        let range = EncoderAudio.channelCounts(codec)
        let count = statedChannelCount ?? min(max(sourceChannels, range.lowerBound), range.upperBound)
        var s = EncoderAudio.Settings(codec: codec, sampleRate: rate, channels: channelSet(count: count))
        s.bitRate = totalBitRate(channels: count)
        s.variableBitRate = strategy == AVAudioBitRateStrategy_Variable
        s.quality = vbrQuality ?? quality
        s.bitDepth = bitDepthHint
        if let quality { s.resamplerQuality = AudioResampler.Quality(audioQuality: quality) }
        return s
    }
}

extension WriterAudioSettings {
    /// The keys every audio format takes; the others depend on the format.
    static let commonAudioKeys: Set<String> = [AVFormatIDKey, AVSampleRateKey, AVNumberOfChannelsKey, AVChannelLayoutKey,
                                                       AVSampleRateConverterAlgorithmKey, AVSampleRateConverterAudioQualityKey]

    /// Checks audio settings as Apple's AVAudioSettings validation does, in its order and with
    /// its messages; what this build cannot encode is `.unsupported`.
    /// `forWriterInput`: AVAssetWriterInput's rules (it refuses `AVSampleRateConverterAudioQualityKey`,
    /// which audio files and recorders take).
    package static func parse(_ s: [String: Any], forWriterInput: Bool = true) -> Result<WriterAudioSettings, WriterSettingsError> {
        if forWriterInput, s[AVSampleRateConverterAudioQualityKey] != nil {
            return .failure(.invalid("AVAssetWriterInput does not support AVSampleRateConverterAudioQualityKey"))
        }
        guard let formatRaw = WriterValue.int(s[AVFormatIDKey]), formatRaw > 0, formatRaw <= Int(UInt32.max) else {
            return .failure(.invalid("AVFormatIDKey must be an audio format ID"))
        }
        var a = WriterAudioSettings(formatID: AudioFormatID(formatRaw))
        let formatName = MuxerStreamFormat.fourCC(a.formatID)
        if s[AVEncoderBitRateKey] != nil && s[AVEncoderBitRatePerChannelKey] != nil {
            return .failure(.invalid("Cannot specify both AVEncoderBitRateKey and AVEncoderBitRatePerChannelKey"))
        }
        // The writer input's rule; AVAudioFile and AVAudioRecorder take either alone (integer
        // samples of that depth; float samples of 32 bits).
        if forWriterInput, (s[AVLinearPCMIsFloatKey] == nil) != (s[AVLinearPCMBitDepthKey] == nil) {
            return .failure(.invalid("If one of AVLinearPCMIsFloatKey and AVLinearPCMBitDepthKey is specified, both must be specified"))
        }
        if let raw = s[AVEncoderBitDepthHintKey] {
            guard let n = WriterValue.int(raw), [16, 20, 24, 32].contains(n) else {
                return .failure(.invalid("Bit depth hint can only be one of: 16, 20, 24, 32"))
            }
            a.bitDepthHint = n
        }
        let strategies = [AVAudioBitRateStrategy_Constant, AVAudioBitRateStrategy_LongTermAverage,
                          AVAudioBitRateStrategy_VariableConstrained, AVAudioBitRateStrategy_Variable]
        if let raw = s[AVEncoderBitRateStrategyKey] {
            guard let strategy = WriterValue.string(raw), strategies.contains(strategy) else {
                return .failure(.invalid("Bit rate strategy can only be one of: \(strategies.joined(separator: ", "))"))
            }
            a.strategy = strategy
        }
        if let raw = s[AVEncoderAudioQualityForVBRKey] {
            guard let q = WriterValue.int(raw) else {
                return .failure(.invalid("Value for AVEncoderAudioQualityForVBRKey must be an instance of NSNumber"))
            }
            guard a.strategy == AVAudioBitRateStrategy_Variable else {
                return .failure(.invalid("Cannot specify a value for AVEncoderAudioQualityForVBRKey without also specifying AVAudioBitRateStrategy_Variable for AVEncoderBitRateStrategyKey"))
            }
            a.vbrQuality = min(max(q, 0), 127)
        }
        if let raw = s[AVEncoderAudioQualityKey] {
            guard let q = WriterValue.int(raw) else { return .failure(.invalid("Value for AVEncoderAudioQualityKey must be an instance of NSNumber")) }
            a.quality = min(max(q, 0), 127)
        }
        if let raw = s[AVNumberOfChannelsKey] {
            guard let n = WriterValue.int(raw), n > 0 else { return .failure(.invalid("Channel count must be positive")) }
            guard n <= 64 else { return .failure(.unsupported("\(n) channels are more than this AV Foundation handles (64)")) }
            a.channels = n
        }
        if let raw = s[AVChannelLayoutKey] {
            guard let data = WriterValue.data(raw), let set = AudioChannelSet(audioChannelLayout: data) else {
                return .failure(.invalid("AudioChannelLayout is invalid"))
            }
            if let n = a.channels, n != set.count {
                return .failure(.invalid("AudioChannelLayout channel count does not match AVNumberOfChannelsKey channel count"))
            }
            a.channelLayout = data
        }
        if let raw = s[AVSampleRateKey] {
            guard let rate = WriterValue.double(raw), rate.isFinite, rate >= 8000, rate <= 192_000 else {
                let shown = WriterValue.double(raw) ?? 0
                return .failure(.invalid(String(format: "Invalid value %.2f for AVSampleRateKey; sample rate must be between 8.0 and 192.0 kHz inclusive", shown)))
            }
            a.sampleRate = rate
        }
        if let raw = s[AVEncoderBitRateKey] {
            guard let n = WriterValue.int(raw) ?? WriterValue.double(raw).map({ Int($0) }), n > 0 else {
                return .failure(.invalid("AVEncoderBitRateKey must be a positive number"))
            }
            a.bitRate = n
        }
        if let raw = s[AVEncoderBitRatePerChannelKey] {
            guard let n = WriterValue.int(raw) ?? WriterValue.double(raw).map({ Int($0) }), n > 0 else {
                return .failure(.invalid("AVEncoderBitRatePerChannelKey must be a positive number"))
            }
            a.bitRatePerChannel = n
        }
        // Keys the format does not take.
        let pcmKeys = [AVLinearPCMBitDepthKey, AVLinearPCMIsBigEndianKey, AVLinearPCMIsFloatKey, AVLinearPCMIsNonInterleaved]
        let allowed: Set<String>
        switch a.formatID {
        case kAudioFormatAppleLossless: allowed = [AVEncoderBitDepthHintKey]
        case kAudioFormatLinearPCM: allowed = Set(pcmKeys)
        default:
            allowed = [AVEncoderAudioQualityKey, s[AVEncoderBitRatePerChannelKey] != nil ? AVEncoderBitRatePerChannelKey : AVEncoderBitRateKey,
                       AVEncoderBitRateStrategyKey, AVEncoderAudioQualityForVBRKey]
        }
        let extra = Set(s.keys).subtracting(commonAudioKeys).subtracting(allowed)
        if !extra.isEmpty {
            return .failure(.invalid("The following keys are not allowed when format ID is '\(formatName)': \(extra.sorted().joined(separator: ", "))"))
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
        guard let codec = a.codec else {
            return .failure(.unsupported("AVAssetWriter cannot encode audio to format ID '\(formatName)' (linear PCM, AAC, Apple Lossless, FLAC, Opus, µ-law and A-law are supported)"))
        }
        guard codec.isAvailable else { return .failure(.unsupported("This FFmpeg has no encoder for format ID '\(formatName)'")) }
        if let rate = a.sampleRate, let rates = EncoderAudio.sampleRates(codec), !rates.contains(Int(rate)) || rate.rounded() != rate {
            return .failure(.invalid(String(format: "%g", rate) + " Hz is not a valid sample rate for Format ID '\(formatName)'.  Use kAudioFormatProperty_AvailableEncodeSampleRates (<AudioToolbox/AudioFormat.h>) to enumerate available rates for a given format."))
        }
        if let n = a.statedChannelCount, !EncoderAudio.channelCounts(codec).contains(n) {
            return .failure(.invalid("\(n) is not a valid channel count for Format ID '\(formatName)'.  Use kAudioFormatProperty_AvailableEncodeNumberChannels (<AudioToolbox/AudioFormat.h>) to enumerate available channel counts for a given format."))
        }
        if let rate = a.sampleRate, let n = a.statedChannelCount, let total = a.totalBitRate(channels: n),
           let range = EncoderAudio.bitRateRange(codec, sampleRate: Int(rate), channels: n), !range.contains(total) {
            return .failure(.unsupported("\(total) bit/s is not a valid bit rate for Format ID '\(formatName)' at \(String(format: "%g", rate)) Hz with \(n) channel\(n == 1 ? "" : "s") (\(range.lowerBound)…\(range.upperBound) bit/s are)"))
        }
        // Fully specified: what Apple requires when no source format hint fills the gaps.
        var required = [AVFormatIDKey, AVSampleRateKey]
        if !(1...2).contains(a.channels ?? 0) { required.append(AVChannelLayoutKey) }
        if a.formatID == kAudioFormatAppleLossless { required.append(AVEncoderBitDepthHintKey) }
        if a.formatID == kAudioFormatLinearPCM { required += pcmKeys }
        a.missingKey = required.first { s[$0] == nil }.map { "Missing required key \($0)" }
        return .success(a)
    }
}

/// Why output settings cannot be used.
package enum WriterSettingsError: Error, Equatable {
    /// Apple's frameworks raise an exception for this dictionary.
    case invalid(String)
    /// A valid dictionary this writer cannot honour (`canApply` answers false).
    case unsupported(String)

    package var reason: String {
        switch self {
        case .invalid(let r), .unsupported(let r): return r
        }
    }
}

/// NSNumber inspection without Core Foundation.
enum CFNumberLike {
    static func isInteger(_ n: NSNumber) -> Bool {
        let type = String(cString: n.objCType)
        return !["f", "d"].contains(type)
    }
}

