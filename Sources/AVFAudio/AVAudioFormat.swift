// AVAudioFormat: an audio stream's format — an AudioStreamBasicDescription, an optional channel
// layout and (for compressed formats) a magic cookie, with Apple's common PCM formats.
import CoreAudioTypes
import CoreMedia
import Foundation
import Synchronization

/// The PCM sample formats AV Foundation's audio classes work in.
public enum AVAudioCommonFormat: UInt, Sendable {
    /// A format other than the ones below (compressed, or PCM of another kind).
    case otherFormat = 0
    /// Native-endian 32-bit floating point.
    case pcmFormatFloat32 = 1
    /// Native-endian 64-bit floating point.
    case pcmFormatFloat64 = 2
    /// Signed native-endian 16-bit integers.
    case pcmFormatInt16 = 3
    /// Signed native-endian 32-bit integers.
    case pcmFormatInt32 = 4
}

/// An audio format. The standard format is deinterleaved native-endian 32-bit float.
open class AVAudioFormat: NSObject, @unchecked Sendable {
    // @unchecked Sendable: owns the stream description's memory (`asbd`, immutable after init); the cookie is in a Mutex.
    private let asbd: UnsafeMutablePointer<AudioStreamBasicDescription>
    /// The channel layout (nil for mono and stereo formats made without one).
    public let channelLayout: AVAudioChannelLayout?
    /// The codec's magic cookie for compressed formats (nil when there is none).
    open var magicCookie: Data? {
        get { cookie.withLock { $0 } }
        set { cookie.withLock { $0 = newValue } }
    }
    private let cookie = Mutex<Data?>(nil)

    // MARK: Initializers

    /// A format from a stream description; nil when it is not valid (no sample rate, no
    /// channels) or has more than two channels (those need a layout).
    public convenience init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>) {
        guard asbd.pointee.mChannelsPerFrame <= 2 else { return nil }
        self.init(checked: asbd.pointee, layout: nil)
    }

    /// A format from a stream description and a layout; nil when the layout's channel count
    /// differs from the description's.
    public convenience init?(streamDescription asbd: UnsafePointer<AudioStreamBasicDescription>, channelLayout layout: AVAudioChannelLayout?) {
        if let layout, layout.channelCount != asbd.pointee.mChannelsPerFrame { return nil }
        guard layout != nil || asbd.pointee.mChannelsPerFrame <= 2 else { return nil }
        self.init(checked: asbd.pointee, layout: layout)
    }

    /// The standard format (deinterleaved float32) with `channels` (1 or 2) at `sampleRate`.
    public convenience init?(standardFormatWithSampleRate sampleRate: Double, channels: AVAudioChannelCount) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, channels: channels, interleaved: false)
    }

    /// The standard format with `layout`'s channels at `sampleRate`.
    public convenience init(standardFormatWithSampleRate sampleRate: Double, channelLayout layout: AVAudioChannelLayout) {
        self.init(commonFormat: .pcmFormatFloat32, sampleRate: sampleRate, interleaved: false, channelLayout: layout)
    }

    /// A common PCM format with `channels` (1 or 2: more need a layout); nil otherwise.
    public convenience init?(commonFormat format: AVAudioCommonFormat, sampleRate: Double, channels: AVAudioChannelCount, interleaved: Bool) {
        guard channels >= 1, channels <= 2, let asbd = Self.pcmDescription(format, sampleRate: sampleRate, channels: channels,
                                                                           interleaved: interleaved) else { return nil }
        self.init(checked: asbd, layout: nil)
    }

    /// A common PCM format with `layout`'s channels.
    public convenience init(commonFormat format: AVAudioCommonFormat, sampleRate: Double, interleaved: Bool,
                            channelLayout layout: AVAudioChannelLayout) {
        let asbd = Self.pcmDescription(format, sampleRate: sampleRate, channels: layout.channelCount, interleaved: interleaved)
            ?? Self.pcmDescription(.pcmFormatFloat32, sampleRate: sampleRate, channels: layout.channelCount, interleaved: interleaved)!
        self.init(checked: asbd, layout: layout)!
    }

    /// A format from an audio settings dictionary (`AVFormatIDKey`, `AVSampleRateKey`,
    /// `AVNumberOfChannelsKey`, the `AVLinearPCM…` keys, `AVChannelLayoutKey`); nil when the
    /// settings do not describe one.
    public convenience init?(settings: [String: Any]) {
        guard let rate = Self.number(settings[AVSampleRateKey])?.doubleValue, rate > 0,
              let channels = Self.number(settings[AVNumberOfChannelsKey])?.uint32Value, channels > 0 else { return nil }
        let formatID = Self.number(settings[AVFormatIDKey])?.uint32Value ?? kAudioFormatLinearPCM
        var layout: AVAudioChannelLayout?
        if let data = settings[AVChannelLayoutKey] as? Data, data.count >= MemoryLayout<AudioChannelLayout>.size - MemoryLayout<AudioChannelDescription>.size {
            layout = data.withUnsafeBytes { raw in
                let aligned = UnsafeMutableRawPointer.allocate(byteCount: max(raw.count, MemoryLayout<AudioChannelLayout>.size),
                                                               alignment: MemoryLayout<AudioChannelLayout>.alignment)
                defer { aligned.deallocate() }
                aligned.initializeMemory(as: UInt8.self, repeating: 0, count: max(raw.count, MemoryLayout<AudioChannelLayout>.size))
                aligned.copyMemory(from: raw.baseAddress!, byteCount: raw.count)
                return AVAudioChannelLayout(layout: aligned.assumingMemoryBound(to: AudioChannelLayout.self))
            }
            if layout?.channelCount != channels { layout = nil }
        }
        guard layout != nil || channels <= 2 else { return nil }
        var asbd = AudioStreamBasicDescription()
        asbd.mSampleRate = rate
        asbd.mFormatID = formatID
        asbd.mChannelsPerFrame = channels
        if formatID == kAudioFormatLinearPCM {
            let bits = Self.number(settings[AVLinearPCMBitDepthKey])?.uint32Value ?? 16
            let isFloat = Self.number(settings[AVLinearPCMIsFloatKey])?.boolValue ?? false
            let bigEndian = Self.number(settings[AVLinearPCMIsBigEndianKey])?.boolValue ?? false
            let nonInterleaved = Self.number(settings[AVLinearPCMIsNonInterleaved])?.boolValue ?? false
            guard [8, 16, 24, 32, 64].contains(bits), !isFloat || bits == 32 || bits == 64 else { return nil }
            asbd.mFormatFlags = (isFloat ? kAudioFormatFlagIsFloat : (bits > 8 ? kAudioFormatFlagIsSignedInteger : 0))
                | kAudioFormatFlagIsPacked | (bigEndian ? kAudioFormatFlagIsBigEndian : 0)
                | (nonInterleaved ? kAudioFormatFlagIsNonInterleaved : 0)
            asbd.mBitsPerChannel = bits
            let sampleBytes = bits / 8
            asbd.mBytesPerFrame = nonInterleaved ? sampleBytes : sampleBytes * channels
            asbd.mBytesPerPacket = asbd.mBytesPerFrame
            asbd.mFramesPerPacket = 1
        } else {
            asbd.mFramesPerPacket = Self.framesPerPacket(formatID)
        }
        self.init(checked: asbd, layout: layout)
    }

    /// The format a Core Media audio format description describes (its layout and cookie too).
    public convenience init(cmAudioFormatDescription formatDescription: CMAudioFormatDescription) {
        let asbd = CMAudioFormatDescriptionGetStreamBasicDescription(formatDescription)?.pointee ?? AudioStreamBasicDescription()
        var size = 0
        let layout = CMAudioFormatDescriptionGetChannelLayout(formatDescription, sizeOut: &size).map(AVAudioChannelLayout.init(layout:))
        self.init(checked: asbd, layout: layout.flatMap { $0.channelCount == asbd.mChannelsPerFrame ? $0 : nil }, force: true)!
        var cookieSize = 0
        if let cookie = CMAudioFormatDescriptionGetMagicCookie(formatDescription, sizeOut: &cookieSize), cookieSize > 0 {
            magicCookie = Data(bytes: cookie, count: cookieSize)
        }
    }

    private init?(checked description: AudioStreamBasicDescription, layout: AVAudioChannelLayout?, force: Bool = false) {
        guard force || (description.mSampleRate > 0 && description.mChannelsPerFrame > 0) else { return nil }
        asbd = .allocate(capacity: 1)
        asbd.initialize(to: description)
        channelLayout = layout
        super.init()
    }

    deinit { asbd.deallocate() }

    // MARK: Properties

    /// The stream description (valid as long as this object lives).
    open var streamDescription: UnsafePointer<AudioStreamBasicDescription> { UnsafePointer(asbd) }
    /// Frames per second.
    open var sampleRate: Double { asbd.pointee.mSampleRate }
    /// The number of channels.
    open var channelCount: AVAudioChannelCount { asbd.pointee.mChannelsPerFrame }
    /// Whether the channels are interleaved (always true for one channel).
    open var isInterleaved: Bool {
        asbd.pointee.mChannelsPerFrame == 1 || asbd.pointee.mFormatFlags & kAudioFormatFlagIsNonInterleaved == 0
    }

    /// The common format this is, or `.otherFormat`.
    open var commonFormat: AVAudioCommonFormat {
        let d = asbd.pointee
        guard d.mFormatID == kAudioFormatLinearPCM, d.mFormatFlags & kAudioFormatFlagIsBigEndian == kAudioFormatFlagsNativeEndian,
              d.mFormatFlags & kAudioFormatFlagIsPacked != 0 || d.mBitsPerChannel % 8 == 0 else { return .otherFormat }
        let isFloat = d.mFormatFlags & kAudioFormatFlagIsFloat != 0
        let signed = d.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0
        switch (isFloat, signed, d.mBitsPerChannel) {
        case (true, _, 32): return .pcmFormatFloat32
        case (true, _, 64): return .pcmFormatFloat64
        case (false, true, 16): return .pcmFormatInt16
        case (false, true, 32): return .pcmFormatInt32
        default: return .otherFormat
        }
    }

    /// Whether this is the standard format: deinterleaved native-endian float32.
    open var isStandard: Bool { commonFormat == .pcmFormatFloat32 && (!isInterleaved || channelCount == 1) }

    /// The format as an audio settings dictionary.
    open var settings: [String: Any] {
        let d = asbd.pointee
        var out: [String: Any] = [AVFormatIDKey: NSNumber(value: d.mFormatID), AVSampleRateKey: NSNumber(value: d.mSampleRate),
                                  AVNumberOfChannelsKey: NSNumber(value: d.mChannelsPerFrame)]
        if d.mFormatID == kAudioFormatLinearPCM {
            out[AVLinearPCMBitDepthKey] = NSNumber(value: d.mBitsPerChannel)
            out[AVLinearPCMIsFloatKey] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsFloat != 0)
            out[AVLinearPCMIsBigEndianKey] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0)
            out[AVLinearPCMIsNonInterleaved] = NSNumber(value: d.mFormatFlags & kAudioFormatFlagIsNonInterleaved != 0)
        }
        if let channelLayout { out[AVChannelLayoutKey] = channelLayout.layoutData }
        return out
    }

    /// The format as a Core Media audio format description.
    open var formatDescription: CMAudioFormatDescription {
        var description: CMAudioFormatDescription?
        let layoutData = channelLayout?.layoutData
        let status: OSStatus = (layoutData ?? Data()).withUnsafeBytes { raw in
            (magicCookie ?? Data()).withUnsafeBytes { cookie in
                CMAudioFormatDescriptionCreate(allocator: nil, asbd: asbd, layoutSize: channelLayout == nil ? 0 : raw.count,
                                               layout: channelLayout?.layout, magicCookieSize: cookie.count,
                                               magicCookie: cookie.isEmpty ? nil : cookie.baseAddress, extensions: nil,
                                               formatDescriptionOut: &description)
            }
        }
        precondition(status == noErr && description != nil, "AVAudioFormat: cannot describe \(self)")
        return description!
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioFormat else { return false }
        let a = asbd.pointee, b = other.asbd.pointee
        return a.mSampleRate == b.mSampleRate && a.mFormatID == b.mFormatID && a.mFormatFlags == b.mFormatFlags
            && a.mBytesPerPacket == b.mBytesPerPacket && a.mFramesPerPacket == b.mFramesPerPacket
            && a.mBytesPerFrame == b.mBytesPerFrame && a.mChannelsPerFrame == b.mChannelsPerFrame
            && a.mBitsPerChannel == b.mBitsPerChannel
            && (channelLayout == nil && other.channelLayout == nil || channelLayout?.isEqual(other.channelLayout) == true)
    }

    open override var hash: Int { Int(asbd.pointee.mSampleRate) ^ Int(asbd.pointee.mChannelsPerFrame) << 20 ^ Int(asbd.pointee.mFormatID) }

    open override var description: String {
        let d = asbd.pointee
        let kind: String
        switch commonFormat {
        case .pcmFormatFloat32: kind = "Float32"
        case .pcmFormatFloat64: kind = "Float64"
        case .pcmFormatInt16: kind = "Int16"
        case .pcmFormatInt32: kind = "Int32"
        case .otherFormat: kind = d.mFormatID == kAudioFormatLinearPCM ? "\(d.mBitsPerChannel)-bit PCM" : Self.fourCC(d.mFormatID)
        }
        return "<AVAudioFormat: \(d.mChannelsPerFrame) ch, \(Int(d.mSampleRate)) Hz, \(kind)\(isInterleaved || d.mChannelsPerFrame == 1 ? "" : ", deinterleaved")>"
    }

    // MARK: Helpers

    /// The stream description of a common PCM format (nil for `.otherFormat`).
    static func pcmDescription(_ format: AVAudioCommonFormat, sampleRate: Double, channels: UInt32,
                               interleaved: Bool) -> AudioStreamBasicDescription? {
        let (bits, flags): (UInt32, AudioFormatFlags)
        switch format {
        case .pcmFormatFloat32: (bits, flags) = (32, kAudioFormatFlagsNativeFloatPacked)
        case .pcmFormatFloat64: (bits, flags) = (64, kAudioFormatFlagsNativeFloatPacked)
        case .pcmFormatInt16: (bits, flags) = (16, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked | kAudioFormatFlagsNativeEndian)
        case .pcmFormatInt32: (bits, flags) = (32, kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked | kAudioFormatFlagsNativeEndian)
        case .otherFormat: return nil
        }
        let deinterleaved = !interleaved && channels > 1
        let frameBytes = bits / 8 * (deinterleaved ? 1 : channels)
        return AudioStreamBasicDescription(mSampleRate: sampleRate, mFormatID: kAudioFormatLinearPCM,
                                           mFormatFlags: flags | (deinterleaved ? kAudioFormatFlagIsNonInterleaved : 0),
                                           mBytesPerPacket: frameBytes, mFramesPerPacket: 1, mBytesPerFrame: frameBytes,
                                           mChannelsPerFrame: channels, mBitsPerChannel: bits, mReserved: 0)
    }

    /// Frames per packet of the compressed formats the pipeline knows (0: variable or unknown).
    static func framesPerPacket(_ formatID: AudioFormatID) -> UInt32 {
        switch formatID {
        case kAudioFormatMPEG4AAC: return 1024
        case kAudioFormatMPEG4AAC_HE, kAudioFormatMPEG4AAC_HE_V2: return 2048
        case kAudioFormatAppleLossless: return 4096
        case kAudioFormatAppleIMA4: return 64
        case kAudioFormatULaw, kAudioFormatALaw: return 1
        case kAudioFormatMPEGLayer3: return 1152
        default: return 0
        }
    }

    static func number(_ value: Any?) -> NSNumber? {
        switch value {
        case let n as NSNumber: return n
        case let i as Int: return NSNumber(value: i)
        case let d as Double: return NSNumber(value: d)
        case let f as Float: return NSNumber(value: f)
        case let u as UInt32: return NSNumber(value: u)
        case let b as Bool: return NSNumber(value: b)
        default: return nil
        }
    }

    static func fourCC(_ code: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8((code >> UInt32($0)) & 0xFF) }
        return bytes.allSatisfy { $0 >= 32 && $0 < 127 } ? "'" + String(decoding: bytes, as: UTF8.self) + "'" : String(code)
    }
}
