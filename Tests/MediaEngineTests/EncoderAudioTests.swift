// EncoderAudio: linear PCM in any Apple layout to AAC, Apple Lossless, FLAC, Opus, µ-law and
// linear PCM in another layout — exact timestamps, priming before the first frame, the last
// short frame trimmed by its duration, and conversions through the resampler.
import CFFmpeg
import CoreAudioTypes
import Foundation
import Testing
@testable import MediaEngine

@Suite("Audio encoder")
struct EncoderAudioTests {
    typealias Layout = MuxerStreamFormat.PCMLayout

    static func format(_ type: AudioPCMFormat.SampleType, _ bits: Int, rate: Int = 44_100, channels: AudioChannelSet = .stereo,
                       bigEndian: Bool = false, interleaved: Bool = true) -> AudioPCMFormat {
        AudioPCMFormat(sampleRate: rate, channels: channels, sampleType: type, bitsPerSample: bits, isBigEndian: bigEndian,
                       isInterleaved: interleaved)
    }

    /// Interleaved float frames of a 1 kHz sine (right channel at half amplitude).
    static func sine(frames: Int, rate: Int = 44_100, channels: Int = 2) -> [Float] {
        (0..<frames * channels).map { i in
            Float(sin(Double(i / channels) * 2 * .pi * 1000 / Double(rate)) * (i % channels == 0 ? 0.5 : 0.25))
        }
    }

    /// Appends `samples` in chunks of `chunk` frames, finishes, and returns every packet.
    static func encode<T>(_ samples: [T], frames: Int, chunk: Int = 1000, with encoder: EncoderAudio) throws -> [EncodedPacket] {
        let frameBytes = encoder.input.bytesPerFrame
        var packets: [EncodedPacket] = []
        try samples.withUnsafeBytes { raw in
            var first = 0
            while first < frames {
                let n = min(chunk, frames - first)
                packets += try encoder.append(bytes: UnsafeRawBufferPointer(rebasing: raw[first * frameBytes ..< (first + n) * frameBytes]),
                                              frameCount: n)
                first += n
            }
        }
        return packets + (try encoder.finish())
    }

    static func payload(_ packets: [EncodedPacket]) -> Data {
        packets.reduce(into: Data()) { data, p in p.withUnsafeBytes { data.append(contentsOf: $0) } }
    }

    @Test func sameLayoutIsStoredAsItComes() throws {
        let input = Self.format(.signedInteger, 24, channels: AudioChannelSet(count: 1))
        let encoder = try EncoderAudio(input: input, settings: .init(codec: .linearPCM(Layout(bits: 24, isFloat: false, isBigEndian: false)),
                                                                      sampleRate: 44_100, channels: AudioChannelSet(count: 1)), firstPTS: 7)
        let samples: [UInt8] = [1, 2, 3, 4, 5, 6]
        let packets = try samples.withUnsafeBytes { try encoder.append(bytes: $0, frameCount: 2) }
        #expect(packets.count == 1)
        #expect(packets[0].pts == 7)
        #expect(packets[0].duration == 2)
        #expect(packets[0].withUnsafeBytes { Array($0) } == samples)
        #expect(try encoder.finish().isEmpty)
    }

    @Test func byteOrderChangesSwapEverySample() throws {
        let encoder = try EncoderAudio(input: Self.format(.signedInteger, 16, rate: 8000),
                                       settings: .init(codec: .linearPCM(Layout(bits: 16, isFloat: false, isBigEndian: true)),
                                                       sampleRate: 8000, channels: .stereo), firstPTS: 100)
        let samples: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
        let packets = try Self.encode(samples, frames: 2, with: encoder)
        #expect(packets.first?.pts == 100)
        #expect(packets.map(\.duration).reduce(0, +) == 2)
        #expect([UInt8](Self.payload(packets)) == [0x02, 0x01, 0x04, 0x03, 0x06, 0x05, 0x08, 0x07])
    }

    @Test func integersBecomeFloatsExactly() throws {
        let values: [Int16] = [0, 1, -1, 16_384, -32_768, 32_767]
        let encoder = try EncoderAudio(input: Self.format(.signedInteger, 16, channels: AudioChannelSet(count: 1)),
                                       settings: .init(codec: .linearPCM(Layout(bits: 32, isFloat: true, isBigEndian: false)),
                                                       sampleRate: 44_100, channels: AudioChannelSet(count: 1)))
        let data = Self.payload(try Self.encode(values, frames: values.count, with: encoder))
        let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(floats == values.map { Float($0) / 32_768 })
    }

    @Test func nonInterleavedInputIsInterleaved() throws {
        // Left buffer then right buffer.
        let planar: [Int16] = [1, 2, 3, -1, -2, -3]
        let encoder = try EncoderAudio(input: Self.format(.signedInteger, 16, interleaved: false),
                                       settings: .init(codec: .linearPCM(Layout(bits: 16, isFloat: false, isBigEndian: false)),
                                                       sampleRate: 44_100, channels: .stereo))
        let data = try planar.withUnsafeBytes { try encoder.append(bytes: $0, frameCount: 3) } + (try encoder.finish())
        #expect(Self.payload(data).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } == [1, -1, 2, -2, 3, -3])
    }

    @Test func rateConversionMakesTheFramesTheNewRateImplies() throws {
        let frames = 44_100
        let encoder = try EncoderAudio(input: Self.format(.float, 32),
                                       settings: .init(codec: .linearPCM(Layout(bits: 16, isFloat: false, isBigEndian: false)),
                                                       sampleRate: 48_000, channels: AudioChannelSet(count: 1)))
        let packets = try Self.encode(Self.sine(frames: frames), frames: frames, chunk: 4410, with: encoder)
        #expect(packets.map(\.duration).reduce(0, +) == 48_000)
        #expect(Self.payload(packets).count == 48_000 * 2)
        // Contiguous timestamps from 0.
        var next: Int64 = 0
        for p in packets { #expect(p.pts == next); next += p.duration }
    }

    @Test func aacPrimesBeforeTheFirstFrameAndTrimsTheLastPacket() throws {
        let frames = 10_000
        var settings = EncoderAudio.Settings(codec: .aac, sampleRate: 44_100, channels: .stereo)
        settings.bitRate = 128_000
        let encoder = try EncoderAudio(input: Self.format(.float, 32), settings: settings)
        #expect(encoder.frameSize == 1024)
        #expect(encoder.priming == 1024)
        let packets = try Self.encode(Self.sine(frames: frames), frames: frames, chunk: 777, with: encoder)
        #expect(packets.first?.pts == -1024)
        #expect(packets.map(\.duration).reduce(0, +) == Int64(frames + 1024))
        var next: Int64 = -1024
        for p in packets { #expect(p.pts == next); #expect(p.dts == next); next += p.duration }
        #expect(packets.last!.duration < 1024)
        // AudioSpecificConfig: AAC LC (object type 2), 44.1 kHz (index 4), 2 channels.
        #expect([UInt8](encoder.extradata.prefix(2)) == [0x12, 0x10])
    }

    @Test(arguments: [EncoderAudio.Codec.appleLossless, .flac])
    func losslessCodecsKeepTheBitDepthTheSourceHas(_ codec: EncoderAudio.Codec) throws {
        let int16 = try EncoderAudio(input: Self.format(.signedInteger, 16), settings: .init(codec: codec, sampleRate: 44_100, channels: .stereo))
        let float = try EncoderAudio(input: Self.format(.float, 32), settings: .init(codec: codec, sampleRate: 44_100, channels: .stereo))
        var hinted = EncoderAudio.Settings(codec: codec, sampleRate: 44_100, channels: .stereo)
        hinted.bitDepth = 16
        let float16 = try EncoderAudio(input: Self.format(.float, 32), settings: hinted)
        var par = avcodec_parameters_alloc()
        defer { avcodec_parameters_free(&par) }
        #expect(int16.copyParameters(to: par!) >= 0)
        #expect(par!.pointee.bits_per_raw_sample == 16)
        #expect(float.copyParameters(to: par!) >= 0)
        #expect(par!.pointee.bits_per_raw_sample == 24)
        #expect(float16.copyParameters(to: par!) >= 0)
        #expect(par!.pointee.bits_per_raw_sample == 16)
    }

    @Test func opusRunsAt48kHzWithItsPreSkip() throws {
        let frames = 48_000
        let encoder = try EncoderAudio(input: Self.format(.float, 32, rate: 48_000),
                                       settings: .init(codec: .opus, sampleRate: 48_000, channels: .stereo))
        #expect(encoder.priming > 0)
        let packets = try Self.encode(Self.sine(frames: frames, rate: 48_000), frames: frames, chunk: 4800, with: encoder)
        #expect(packets.first?.pts == -Int64(encoder.priming))
        #expect(packets.map(\.duration).reduce(0, +) == Int64(frames + encoder.priming))
    }

    @Test func muLawTakesAnyFrameCount() throws {
        let frames = 3333
        let encoder = try EncoderAudio(input: Self.format(.signedInteger, 16, rate: 8000, channels: AudioChannelSet(count: 1)),
                                       settings: .init(codec: .muLaw, sampleRate: 8000, channels: AudioChannelSet(count: 1)))
        let samples = (0..<frames).map { Int16(truncatingIfNeeded: $0 * 17) }
        let packets = try Self.encode(samples, frames: frames, chunk: 1000, with: encoder)
        #expect(Self.payload(packets).count == frames)
        #expect(packets.map(\.duration).reduce(0, +) == Int64(frames))
    }

    @Test func settingsTheCodecRefusesThrow() {
        // Opus has no 44.1 kHz mode.
        #expect(throws: MediaError.self) {
            _ = try EncoderAudio(input: Self.format(.float, 32), settings: .init(codec: .opus, sampleRate: 44_100, channels: .stereo))
        }
        #expect(EncoderAudio.sampleRates(.aac)?.contains(96_000) == false)
        #expect(EncoderAudio.bitRateRange(.aac, sampleRate: 44_100, channels: 2)?.contains(128_000) == true)
        #expect(EncoderAudio.bitRateRange(.aac, sampleRate: 44_100, channels: 2)?.contains(8_000) == false)
    }
}
