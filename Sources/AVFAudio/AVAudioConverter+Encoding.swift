// AVAudioConverter from PCM to a compressed format — AAC, Apple Lossless, FLAC, Opus, µ-law,
// A-law — through the pipeline's audio encoder (EncoderAudio), packets delivered in an
// AVAudioCompressedBuffer with their descriptions.
import CoreAudioTypes
import Foundation
internal import MediaEngine

/// The encoding side of a converter: the encoder (made at the first conversion, so that
/// `bitRate` can be set before) and the packets made but not yet delivered.
final class ConverterEncoding {
    let codec: EncoderAudio.Codec
    var bitRate: Int
    var encoder: EncoderAudio?
    var pending: [EncodedPacket] = []
    var ended = false

    init(codec: EncoderAudio.Codec, bitRate: Int) {
        self.codec = codec
        self.bitRate = bitRate
    }

    /// The engine codec for a compressed output format (nil: not one the pipeline encodes).
    static func codec(for format: AVAudioFormat) -> EncoderAudio.Codec? {
        WriterAudioSettings.compressedCodec(for: format.streamDescription.pointee.mFormatID)
    }
}

extension AVAudioConverter {
    /// The encoder for the output format, made on first use with the converter's bit rate.
    func makeEncoder(_ encoding: ConverterEncoding, input: AudioPCMFormat) throws -> EncoderAudio {
        if let encoder = encoding.encoder { return encoder }
        let channels = Int(outputFormat.channelCount)
        var settings = EncoderAudio.Settings(codec: encoding.codec, sampleRate: Int(outputFormat.sampleRate.rounded()),
                                             channels: AudioChannelSet(count: channels))
        if EncoderAudio.bitRateRange(encoding.codec, sampleRate: settings.sampleRate, channels: channels) != nil {
            settings.bitRate = encoding.bitRate
        }
        settings.resamplerQuality = AudioResampler.Quality(audioQuality: sampleRateConverterQuality)
        settings.channelMap = resamplerChannelMap
        settings.dither = dither
        do throws(MediaError) {
            let made = try EncoderAudio(input: input, settings: settings)
            encoding.encoder = made
            return made
        } catch {
            throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "Cannot encode \(inputFormat) to \(outputFormat): \(error)", url: nil)
        }
    }

    /// The codec's magic cookie once the encoder exists: an MPEG-4 ES descriptor around the
    /// AudioSpecificConfig for AAC (Apple's form), the codec's own configuration otherwise.
    func encoderCookie(_ encoding: ConverterEncoding) -> Data? {
        guard let encoder = encoding.encoder else { return nil }
        let extradata = encoder.extradata
        guard !extradata.isEmpty else { return nil }
        if encoding.codec == .aac { return StreamInfo.esds(audioSpecificConfig: extradata, bitRate: encoding.bitRate) }
        return extradata
    }

    /// Fills `output` with packets encoded from what the block supplies.
    func encode(into output: AVAudioCompressedBuffer, encoding: ConverterEncoding, input: AudioPCMFormat,
                inputBlock: AVAudioConverterInputBlock) throws -> AVAudioConverterOutputStatus {
        let encoder = try makeEncoder(encoding, input: input)
        output.packetCount = 0
        output.byteLength = 0
        var offset = 0
        while Int(output.packetCount) < Int(output.packetCapacity) {
            if let packet = encoding.pending.first {
                guard offset + packet.size <= Int(output.byteCapacity), packet.size <= output.maximumPacketSize else {
                    if output.packetCount == 0 {
                        throw AVAudioFile.error(kAudioConverterErr_InvalidOutputSize,
                                                "A \(packet.size)-byte packet does not fit the buffer (maximumPacketSize \(output.maximumPacketSize)).", url: nil)
                    }
                    break
                }
                packet.withUnsafeBytes { (output.data + offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                output.packetDescriptions?[Int(output.packetCount)] = AudioStreamPacketDescription(
                    mStartOffset: Int64(offset), mVariableFramesInPacket: 0, mDataByteSize: UInt32(packet.size))
                offset += packet.size
                output.packetCount += 1
                output.byteLength = UInt32(offset)
                encoding.pending.removeFirst()
                continue
            }
            if encoding.ended { break }
            let frames = AVAudioPacketCount(max(encoder.frameSize, 1024))
            var status = AVAudioConverterInputStatus.noDataNow
            let supplied = inputBlock(frames, &status)
            switch status {
            case .haveData:
                guard let buffer = supplied as? AVAudioPCMBuffer, buffer.format.isEqual(inputFormat) else {
                    throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "The input block returned a buffer not in the input format.", url: nil)
                }
                let n = Int(buffer.frameLength)
                do {
                    encoding.pending += try buffer.withEngineBytes(frames: n) { try encoder.append(bytes: $0, frameCount: n) }
                } catch {
                    throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "Encoding failed: \(error)", url: nil)
                }
            case .noDataNow:
                return output.packetCount > 0 ? .haveData : .inputRanDry
            case .endOfStream:
                encoding.ended = true
                do throws(MediaError) { encoding.pending += try encoder.finish() } catch {
                    throw AVAudioFile.error(kAudioConverterErr_FormatNotSupported, "Encoding failed: \(error)", url: nil)
                }
            }
        }
        if output.packetCount > 0 { return .haveData }
        return encoding.ended ? .endOfStream : .inputRanDry
    }
}
