// AVAudioConverter: PCM to PCM — sample rate, channel count and sample format — through the
// pipeline's resampler (libswresample).
import CoreAudioTypes
import Foundation
internal import MediaEngine

/// What the input block says about the data it returns.
public enum AVAudioConverterInputStatus: Int, Sendable {
    /// It returned a buffer.
    case haveData = 0
    /// No data now; more may come later.
    case noDataNow = 1
    /// The input is over.
    case endOfStream = 2
}

/// What a conversion produced.
public enum AVAudioConverterOutputStatus: Int, Sendable {
    /// The output buffer holds data.
    case haveData = 0
    /// The input block had no data now; the output holds what could be made.
    case inputRanDry = 1
    /// The input ended and everything was output.
    case endOfStream = 2
    /// The conversion failed (the error says why).
    case error = 3
}

/// Supplies input to `convert(to:error:withInputFrom:)`: asked for a number of packets (frames
/// for PCM), it returns a buffer and sets the status.
public typealias AVAudioConverterInputBlock = (AVAudioPacketCount, UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer?

/// Converts PCM audio between formats — sample rate, channel count (remapped by `channelMap`,
/// or mixed by libswresample's matrix with `downmix`), sample type and interleaving — or encodes
/// it (at any rate and channel count the codec takes) to AAC, Apple Lossless, FLAC, Opus, µ-law
/// or A-law packets. Not thread-safe (one owner at a time, as Apple's).
open class AVAudioConverter: NSObject {
    /// The format converted from.
    public let inputFormat: AVAudioFormat
    /// The format converted to.
    public let outputFormat: AVAudioFormat
    /// The sample rate converter's quality (an `AVAudioQuality` raw value; default `.max`).
    open var sampleRateConverterQuality: Int = AVAudioQuality.max.rawValue {
        didSet { settingsChanged() }
    }
    /// Where each output channel comes from: output channel `i` is a copy of input channel
    /// `channelMap[i]`, silent when negative. By default (Apple's), the first channels go to the
    /// first channels, extra inputs are dropped and extra outputs are silent. Setting it
    /// overrides `downmix`. Set it before converting.
    open var channelMap: [NSNumber] {
        get { (explicitChannelMap ?? defaultChannelMap).map { NSNumber(value: $0) } }
        set {
            explicitChannelMap = newValue.map(\.intValue)
            settingsChanged()
        }
    }
    /// Whether fewer output channels are a mix of the input's instead of a remapping (default
    /// false: remapped as `channelMap` says).
    open var downmix = false {
        didSet { settingsChanged() }
    }
    /// Whether the converter dithers when it reduces the bit depth (default false).
    open var dither = false {
        didSet { settingsChanged() }
    }
    private let input: AudioPCMFormat
    /// The PCM output (nil when encoding).
    private let output: AudioPCMFormat?
    /// The encoder's state when the output format is compressed.
    private let encoding: ConverterEncoding?
    /// The decoder when the input format is compressed.
    private let decoding: AudioPacketDecoder?
    private var resampler: AudioResampler?
    /// The channel map set by the client (nil: Apple's default, see `channelMap`).
    private var explicitChannelMap: [Int]?
    private var ended = false
    private var cookie: Data?

    /// A converter from `fromFormat` (PCM) to `toFormat`: PCM, or a compressed format the
    /// pipeline encodes (AAC, Apple Lossless, FLAC, Opus, µ-law, A-law); nil otherwise.
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        if fromFormat.enginePCMFormat == nil, let output = toFormat.enginePCMFormat {
            // Decoding: compressed packets (with the format's magic cookie) to PCM, at any rate
            // and channel count the output asks for.
            guard let decoder = try? AudioPacketDecoder(formatDescription: fromFormat.formatDescription, output: output) else { return nil }
            decoding = decoder
            self.output = output
            encoding = nil
            inputFormat = fromFormat
            outputFormat = toFormat
            input = output
            super.init()
            return
        }
        decoding = nil
        guard let input = fromFormat.enginePCMFormat else { return nil }
        if let output = toFormat.enginePCMFormat {
            self.output = output
            encoding = nil
        } else if let codec = ConverterEncoding.codec(for: toFormat), codec.isAvailable,
                  EncoderAudio.channelCounts(codec).contains(Int(toFormat.channelCount)),
                  EncoderAudio.sampleRates(codec).map({ $0.contains(Int(toFormat.sampleRate.rounded())) }) ?? true {
            // Any rate and channel count the codec takes: the encoder's resampler converts.
            output = nil
            let rate = Int(toFormat.sampleRate.rounded()), channels = Int(toFormat.channelCount)
            encoding = ConverterEncoding(codec: codec, bitRate: EncoderAudio.defaultBitRate(codec, sampleRate: rate, channels: channels))
        } else {
            return nil
        }
        inputFormat = fromFormat
        outputFormat = toFormat
        self.input = input
        super.init()
    }

    /// Apple's default channel map: channel i from input channel i, silent past the input's.
    private var defaultChannelMap: [Int] {
        let inputs = Int(inputFormat.channelCount)
        return (0..<Int(outputFormat.channelCount)).map { $0 < inputs ? $0 : -1 }
    }

    /// The map the resampler applies: the client's, else Apple's default remapping when the
    /// channel counts differ and `downmix` is off; nil lets libswresample mix.
    var resamplerChannelMap: [Int]? {
        if let explicitChannelMap { return explicitChannelMap }
        if inputFormat.channelCount == outputFormat.channelCount || downmix { return nil }
        return defaultChannelMap
    }

    /// A setting the resampler or encoder is made with changed: they are made again.
    private func settingsChanged() {
        resampler = nil
        encoding?.encoder = nil
    }

    /// Drops what the converter holds (between streams, or after a seek).
    open func reset() {
        resampler?.reset()
        decoding?.reset()
        ended = false
        encoding?.encoder = nil
        encoding?.pending = []
        encoding?.ended = false
    }

    /// The encoder's bit rate in bits per second (encoding only; set it before converting).
    open var bitRate: Int {
        get { encoding?.bitRate ?? 0 }
        set { encoding?.bitRate = newValue }
    }

    /// The codec's magic cookie (encoding: the encoder's, once a conversion has run).
    open var magicCookie: Data? {
        get { cookie ?? encoding.flatMap(encoderCookie) }
        set { cookie = newValue }
    }

    /// The largest packet the encoder makes, in bytes (the size a compressed buffer needs).
    open var maximumOutputPacketSize: Int {
        guard let encoding else { return Int(outputFormat.streamDescription.pointee.mBytesPerPacket) }
        let channels = Int(outputFormat.channelCount)
        switch encoding.codec {
        case .aac: return 768 * channels
        case .opus: return 1_275 * 3 * max(1, (channels + 1) / 2)
        case .appleLossless, .flac: return 4_096 * channels * 4 + 64
        default: return 8_192 * channels
        }
    }

    private func makeResampler() throws -> AudioResampler {
        if let resampler { return resampler }
        guard let output else {
            throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The output format \(outputFormat) is not PCM.", url: nil)
        }
        do {
            let made = try AudioResampler(input: input, output: output, quality: AudioResampler.Quality(audioQuality: sampleRateConverterQuality),
                                          channelMap: resamplerChannelMap, dither: dither)
            resampler = made
            return made
        } catch {
            throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "Cannot convert \(inputFormat) to \(outputFormat): \(error)", url: nil)
        }
    }

    /// Converts `inputBuffer` into `outputBuffer` — formats of the same sample rate only (a rate
    /// change needs the input block form). The output's capacity must hold the input's frames.
    open func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard inputFormat.sampleRate == outputFormat.sampleRate else {
            throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported,
                                    "convert(to:from:) does not convert sample rates; use convert(to:error:withInputFrom:).", url: nil)
        }
        guard inputBuffer.format.isEqual(inputFormat), outputBuffer.format.isEqual(outputFormat) else {
            throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The buffers' formats are not the converter's.", url: nil)
        }
        guard outputBuffer.frameCapacity >= inputBuffer.frameLength else {
            throw AVAudioFile.error(kAudioConverterErr_InvalidOutputSize, "The output buffer cannot hold \(inputBuffer.frameLength) frames.", url: nil)
        }
        let resampler = try makeResampler()
        let frames = Int(inputBuffer.frameLength)
        do {
            try inputBuffer.withEngineBytes(frames: frames) { try resampler.append(bytes: $0, frameCount: frames) }
        } catch {
            throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The conversion failed: \(error)", url: nil)
        }
        outputBuffer.frameLength = 0
        deliver(from: resampler, into: outputBuffer, upTo: Int(outputBuffer.frameCapacity))
    }

    /// Fills `outputBuffer` (a PCM buffer in the output format) from buffers the block supplies,
    /// converting rates too. Returns `.haveData` when it holds frames, `.inputRanDry` when the
    /// block had nothing now, `.endOfStream` once the input ended and all was output, `.error`
    /// (with `outError` set) on failure.
    open func convert(to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                      withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        func fail(_ error: NSError) -> AVAudioConverterOutputStatus {
            outError?.pointee = error
            return .error
        }
        if let encoding {
            guard let compressed = outputBuffer as? AVAudioCompressedBuffer, compressed.format.isEqual(outputFormat) else {
                return fail(AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The output buffer is not a compressed buffer in the output format.", url: nil))
            }
            do {
                return try encode(into: compressed, encoding: encoding, input: input, inputBlock: inputBlock)
            } catch {
                return fail(error as NSError)
            }
        }
        guard let output = outputBuffer as? AVAudioPCMBuffer, output.format.isEqual(outputFormat) else {
            return fail(AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The output buffer is not a PCM buffer in the output format.", url: nil))
        }
        if let decoding {
            do {
                return try decode(into: output, decoder: decoding, inputBlock: inputBlock)
            } catch {
                return fail(error as NSError)
            }
        }
        let resampler: AudioResampler
        do { resampler = try makeResampler() } catch { return fail(error as NSError) }
        let capacity = Int(output.frameCapacity)
        output.frameLength = 0
        while Int(output.frameLength) < capacity {
            if resampler.bufferedFrameCount > 0 {
                deliver(from: resampler, into: output, upTo: capacity)
                continue
            }
            if ended { break }
            // Frames of input that make about what is still wanted.
            let wanted = capacity - Int(output.frameLength)
            let packets = AVAudioPacketCount(max(1, Int((Double(wanted) * inputFormat.sampleRate / outputFormat.sampleRate).rounded(.up))))
            var status = AVAudioConverterInputStatus.noDataNow
            let supplied = inputBlock(packets, &status)
            switch status {
            case .haveData:
                guard let buffer = supplied as? AVAudioPCMBuffer, buffer.format.isEqual(inputFormat) else {
                    return fail(AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The input block returned a buffer not in the input format.", url: nil))
                }
                let frames = Int(buffer.frameLength)
                do {
                    try buffer.withEngineBytes(frames: frames) { try resampler.append(bytes: $0, frameCount: frames) }
                } catch {
                    return fail(AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The conversion failed: \(error)", url: nil))
                }
            case .noDataNow:
                return output.frameLength > 0 ? .haveData : .inputRanDry
            case .endOfStream:
                ended = true
                do throws(MediaError) { try resampler.finish() } catch {
                    return fail(AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The conversion failed: \(error)", url: nil))
                }
            }
        }
        if output.frameLength > 0 { return .haveData }
        return ended ? .endOfStream : .inputRanDry
    }

    /// Decoding: fills `output` from the packets of the compressed buffers the block supplies.
    private func decode(into output: AVAudioPCMBuffer, decoder: AudioPacketDecoder,
                        inputBlock: AVAudioConverterInputBlock) throws -> AVAudioConverterOutputStatus {
        let capacity = Int(output.frameCapacity)
        output.frameLength = 0
        let framesPerPacket = max(1, Int(inputFormat.streamDescription.pointee.mFramesPerPacket))
        while Int(output.frameLength) < capacity {
            if decoder.bufferedFrameCount > 0 {
                let offset = Int(output.frameLength)
                let (data, n) = decoder.read(frameCount: capacity - offset)
                data.withUnsafeBytes { output.copyEngineBytes($0, total: n, from: 0, frames: n, at: offset) }
                output.frameLength = AVAudioFrameCount(offset + n)
                continue
            }
            if ended { break }
            let wanted = capacity - Int(output.frameLength)
            let packets = AVAudioPacketCount(max(1, Int((Double(wanted) * inputFormat.sampleRate / outputFormat.sampleRate
                                                         / Double(framesPerPacket)).rounded(.up))))
            var status = AVAudioConverterInputStatus.noDataNow
            let supplied = inputBlock(packets, &status)
            switch status {
            case .haveData:
                guard let buffer = supplied as? AVAudioCompressedBuffer else {
                    throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The input block returned a buffer that is not compressed.", url: nil)
                }
                let bytes = UnsafeRawBufferPointer(start: buffer.data, count: Int(buffer.byteLength))
                do throws(MediaError) {
                    if let descriptions = buffer.packetDescriptions {
                        for i in 0..<Int(buffer.packetCount) {
                            let d = descriptions[i]
                            let start = Int(d.mStartOffset), size = Int(d.mDataByteSize)
                            guard start >= 0, size >= 0, start + size <= bytes.count else { continue }
                            try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + size)]),
                                               frames: d.mVariableFramesInPacket > 0 ? Int(d.mVariableFramesInPacket) : framesPerPacket)
                        }
                    } else {
                        // Packets of one size (µ-law, A-law, IMA4): one after another.
                        let size = max(1, Int(inputFormat.streamDescription.pointee.mBytesPerPacket))
                        var start = 0
                        while start + size <= bytes.count {
                            try decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + size)]), frames: framesPerPacket)
                            start += size
                        }
                    }
                } catch {
                    throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The packets could not be decoded: \(error)", url: nil)
                }
            case .noDataNow:
                return output.frameLength > 0 ? .haveData : .inputRanDry
            case .endOfStream:
                ended = true
                do throws(MediaError) { try decoder.finish() } catch {
                    throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The last packets could not be decoded: \(error)", url: nil)
                }
            }
        }
        if output.frameLength > 0 { return .haveData }
        return ended ? .endOfStream : .inputRanDry
    }

    /// Moves what the resampler holds (up to the buffer's room) to the end of `buffer`'s frames.
    private func deliver(from resampler: AudioResampler, into buffer: AVAudioPCMBuffer, upTo capacity: Int) {
        let offset = Int(buffer.frameLength)
        let n = min(resampler.bufferedFrameCount, capacity - offset)
        guard n > 0 else { return }
        let data = resampler.read(frameCount: n)
        data.withUnsafeBytes { buffer.copyEngineBytes($0, total: n, from: 0, frames: n, at: offset) }
        buffer.frameLength = AVAudioFrameCount(offset + n)
    }
}

/// `kAudioConverterErr_FormatNotSupported` ('fmt?').
let kAudioConverterErr_FormatNotSupported: OSStatus = 0x666D_743F
/// `kAudioConverterErr_InvalidOutputSize` ('insz').
let kAudioConverterErr_InvalidOutputSize: OSStatus = 0x696E_737A
