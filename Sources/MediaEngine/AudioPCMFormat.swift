// AudioPCMFormat: linear PCM as Apple describes it (any rate, channel set, sample type, bit depth,
// endianness, interleaving), and the libswresample sample format that carries it.
internal import CFFmpeg
import CoreMedia

/// The channels of a PCM stream, in buffer order.
///
/// A set either names each channel's speaker position — a bit index of FFmpeg's native channel
/// mask (`AV_CH_*`), which for bits 0…17 is also Apple's `AudioChannelBitmap` bit — or only
/// counts them (positions unknown: FFmpeg's default layout for the count is assumed when
/// remixing).
package struct AudioChannelSet: Hashable, Sendable, CustomStringConvertible {
    /// The number of channels.
    package let count: Int
    /// Each channel's position (mask bit index 0…63) in buffer order; nil when only the count is known.
    package let positions: [Int]?

    /// `count` channels whose positions are unknown.
    package init(count: Int) {
        self.count = count
        positions = nil
    }

    /// Channels at `positions` (mask bit indices), in buffer order. Nil when a position repeats
    /// or is out of 0…63.
    package init?(positions: [Int]) {
        guard !positions.isEmpty, positions.allSatisfy({ (0..<64).contains($0) }),
              Set(positions).count == positions.count else { return nil }
        count = positions.count
        self.positions = positions
    }

    /// The channels of a native channel mask, in mask order (`AV_CH_FRONT_LEFT` first).
    package init?(mask: UInt64) {
        self.init(positions: (0..<64).filter { mask & (1 << UInt64($0)) != 0 })
    }

    /// One channel in the centre.
    package static let mono = AudioChannelSet(positions: [2])!
    /// Front left and right.
    package static let stereo = AudioChannelSet(positions: [0, 1])!

    /// The native mask of the positioned channels (0 when positions are unknown).
    package var mask: UInt64 {
        positions?.reduce(UInt64(0)) { $0 | 1 << UInt64($1) } ?? 0
    }

    /// Whether the buffer order is the native (ascending mask bit) order.
    package var isNativeOrder: Bool {
        guard let positions else { return true }
        return positions == positions.sorted()
    }

    /// For each channel in buffer order, its index in native order (identity when positions are unknown).
    var nativeIndices: [Int] {
        guard let positions else { return Array(0..<count) }
        let sorted = positions.sorted()
        return positions.map { sorted.firstIndex(of: $0)! }
    }

    /// The same channels with the positions FFmpeg assumes for the count filled in (its default
    /// layout: mono is centre, stereo front left/right, 5.1 with side surrounds…), in native order.
    package var resolved: AudioChannelSet {
        if positions != nil { return self }
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(count))
        defer { av_channel_layout_uninit(&layout) }
        if layout.order == AV_CHANNEL_ORDER_NATIVE, let set = AudioChannelSet(mask: layout.u.mask), set.count == count {
            return set
        }
        return self
    }

    package var description: String {
        guard let positions else { return "\(count) channels" }
        return "channels \(positions)"
    }
}

/// Linear PCM as Apple's audio settings and `AudioStreamBasicDescription`s describe it.
package struct AudioPCMFormat: Hashable, Sendable, CustomStringConvertible {
    /// How a sample's bits are read.
    package enum SampleType: Hashable, Sendable {
        /// Unsigned integers centred on 2^(bits−1) (8-bit WAV style).
        case unsignedInteger
        /// Two's complement integers.
        case signedInteger
        /// IEEE 754 floating point (32 or 64 bits), nominal range −1…1.
        case float
    }

    /// Frames per second.
    package var sampleRate: Int
    /// The channels, in buffer order.
    package var channels: AudioChannelSet
    /// Integer or float samples.
    package var sampleType: SampleType
    /// Bits per sample: 8, 16, 24 (packed in 3 bytes), 32 or 64 (float only). Unsigned
    /// integers are 8-bit only.
    package var bitsPerSample: Int
    /// Whether multi-byte samples are big-endian.
    package var isBigEndian: Bool
    /// Whether channels alternate within each frame (one buffer) or each has its own buffer.
    package var isInterleaved: Bool

    package init(sampleRate: Int, channels: AudioChannelSet, sampleType: SampleType, bitsPerSample: Int,
                 isBigEndian: Bool = false, isInterleaved: Bool = true) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleType = sampleType
        self.bitsPerSample = bitsPerSample
        self.isBigEndian = isBigEndian
        self.isInterleaved = isInterleaved
    }

    /// 32-bit native float, one buffer per channel: what mixing works in.
    package static func float32Planar(sampleRate: Int, channels: AudioChannelSet) -> AudioPCMFormat {
        AudioPCMFormat(sampleRate: sampleRate, channels: channels, sampleType: .float, bitsPerSample: 32,
                       isBigEndian: false, isInterleaved: false)
    }

    /// The number of channels.
    package var channelCount: Int { channels.count }
    /// Bytes of one sample of one channel.
    package var bytesPerSample: Int { bitsPerSample / 8 }
    /// Bytes of one frame in one buffer (all channels when interleaved, one channel otherwise):
    /// Apple's `mBytesPerFrame`.
    package var bytesPerFrame: Int { isInterleaved ? bytesPerSample * channelCount : bytesPerSample }
    /// The number of buffers (1 when interleaved, one per channel otherwise).
    package var bufferCount: Int { isInterleaved ? 1 : channelCount }

    /// Why the format cannot be produced or consumed, or nil when it can.
    package var problem: String? {
        if sampleRate <= 0 || sampleRate > 1_536_000 { return "sample rate \(sampleRate) Hz is out of range" }
        if channelCount < 1 || channelCount > 64 { return "\(channelCount) channels is out of range (1…64)" }
        switch sampleType {
        case .float where bitsPerSample != 32 && bitsPerSample != 64:
            return "floating-point samples must be 32 or 64 bits, not \(bitsPerSample)"
        case .signedInteger where ![8, 16, 24, 32].contains(bitsPerSample):
            return "integer samples must be 8, 16, 24 or 32 bits, not \(bitsPerSample)"
        case .unsignedInteger where bitsPerSample != 8:
            return "unsigned integer samples must be 8 bits, not \(bitsPerSample)"
        default:
            return nil
        }
    }

    package var description: String {
        let type: String
        switch sampleType {
        case .float: type = "float"
        case .signedInteger: type = "signed"
        case .unsignedInteger: type = "unsigned"
        }
        return "\(sampleRate) Hz, \(channels), \(bitsPerSample)-bit \(type)\(bitsPerSample > 8 ? (isBigEndian ? " BE" : " LE") : "")"
            + (isInterleaved ? ", interleaved" : ", non-interleaved")
    }

    // MARK: FFmpeg

    /// The libswresample sample format that carries this format's samples before (or after)
    /// the byte-level repacking FFmpeg has no format for: 24-bit samples travel as 32-bit
    /// (value in the top 24 bits), signed 8-bit as unsigned 8-bit, big-endian as native.
    var carrierSampleFormat: AVSampleFormat {
        let packed: AVSampleFormat
        switch (sampleType, bitsPerSample) {
        case (.float, 64): packed = AV_SAMPLE_FMT_DBL
        case (.float, _): packed = AV_SAMPLE_FMT_FLT
        case (_, 8): packed = AV_SAMPLE_FMT_U8
        case (_, 16): packed = AV_SAMPLE_FMT_S16
        default: packed = AV_SAMPLE_FMT_S32
        }
        return isInterleaved ? packed : av_get_planar_sample_fmt(packed)
    }

    /// The sample format `AudioRepacker.unpack` delivers this format's samples in: the carrier,
    /// except that signed 8-bit arrives as 16-bit (s × 256, exactly the values libswresample makes
    /// of the unsigned 8-bit carrier internally, so every conversion from it is unchanged).
    var unpackedSampleFormat: AVSampleFormat {
        guard sampleType == .signedInteger, bitsPerSample == 8 else { return carrierSampleFormat }
        return isInterleaved ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S16P
    }

    /// Whether samples need repacking between the carrier format and this one.
    var needsRepacking: Bool {
        bitsPerSample == 24 || (sampleType == .signedInteger && bitsPerSample == 8) || (isBigEndian && bitsPerSample > 8)
            || !channels.isNativeOrder
    }

    /// The format of samples FFmpeg holds in `sampleFormat` (nil for formats Apple's LPCM has no
    /// equivalent of, such as 64-bit integers).
    init?(sampleFormat: AVSampleFormat, sampleRate: Int, channels: AudioChannelSet) {
        let planar = av_sample_fmt_is_planar(sampleFormat) != 0
        let type: SampleType, bits: Int
        switch av_get_packed_sample_fmt(sampleFormat) {
        case AV_SAMPLE_FMT_U8: type = .unsignedInteger; bits = 8
        case AV_SAMPLE_FMT_S16: type = .signedInteger; bits = 16
        case AV_SAMPLE_FMT_S32: type = .signedInteger; bits = 32
        case AV_SAMPLE_FMT_FLT: type = .float; bits = 32
        case AV_SAMPLE_FMT_DBL: type = .float; bits = 64
        default: return nil
        }
        self.init(sampleRate: sampleRate, channels: channels, sampleType: type, bitsPerSample: bits,
                  isBigEndian: false, isInterleaved: !planar)
    }

    /// The frame-size-free description of an encoder's or decoder's input: sample format, rate
    /// and channel layout of a codec context (for the encoders: their `sample_fmts[0]` etc.).
    init?(sampleFormat: AVSampleFormat, sampleRate: Int32, layout: AVChannelLayout) {
        guard let channels = AudioChannelSet(layout) else { return nil }
        self.init(sampleFormat: sampleFormat, sampleRate: Int(sampleRate), channels: channels)
    }
}

extension AudioChannelSet {
    /// The channels of an FFmpeg channel layout (native or custom order with known positions;
    /// unspecified order gives a count-only set).
    init?(_ layout: AVChannelLayout) {
        let count = Int(layout.nb_channels)
        guard count > 0 else { return nil }
        switch layout.order {
        case AV_CHANNEL_ORDER_NATIVE:
            guard let set = AudioChannelSet(mask: layout.u.mask), set.count == count else { return nil }
            self = set
        case AV_CHANNEL_ORDER_CUSTOM:
            guard let map = layout.u.map else { return nil }
            let positions = (0..<count).map { Int(map[$0].id.rawValue) }
            if let set = AudioChannelSet(positions: positions) { self = set } else { self.init(count: count) }
        default:
            self.init(count: count)
        }
    }

    /// An FFmpeg layout in native order for these channels (the default layout for the count
    /// when positions are unknown). The caller uninitialises it.
    func nativeLayout() -> AVChannelLayout {
        var layout = AVChannelLayout()
        let resolved = self.resolved
        if resolved.positions != nil, av_channel_layout_from_mask(&layout, resolved.mask) == 0, Int(layout.nb_channels) == count {
            return layout
        }
        av_channel_layout_uninit(&layout)
        av_channel_layout_default(&layout, Int32(count))
        return layout
    }
}
