// AudioResampler: byte-exact repacking into every Apple LPCM layout, rate conversion that loses and
// invents no samples, remixing, clipping, and encoder-sized frames.
import CFFmpeg
import CoreAudioTypes
import Foundation
import Testing
@testable import MediaEngine

@Suite("Audio resampler")
struct AudioResamplerTests {
    static func s16(_ rate: Int = 44100, _ channels: AudioChannelSet = .stereo, interleaved: Bool = true, bigEndian: Bool = false) -> AudioPCMFormat {
        AudioPCMFormat(sampleRate: rate, channels: channels, sampleType: .signedInteger, bitsPerSample: 16,
                       isBigEndian: bigEndian, isInterleaved: interleaved)
    }

    static func bytes<T>(_ values: [T]) -> Data { values.withUnsafeBytes { Data($0) } }

    static func values<T>(_ data: Data, as: T.Type) -> [T] {
        data.withUnsafeBytes { Array($0.bindMemory(to: T.self)) }
    }

    /// Converts `input` bytes in one go and drains.
    static func convert(_ data: Data, frames: Int, from input: AudioPCMFormat, to output: AudioPCMFormat) throws -> Data {
        let resampler = try AudioResampler(input: input, output: output)
        try data.withUnsafeBytes { try resampler.append(bytes: $0, frameCount: frames) }
        try resampler.finish()
        return resampler.read(frameCount: resampler.bufferedFrameCount)
    }

    /// Stereo 16-bit frames: left counts up, right counts down (every value distinct).
    static func ramp(_ frames: Int) -> [Int16] {
        (0..<frames).flatMap { [Int16(truncatingIfNeeded: $0 * 37 - 20000), Int16(truncatingIfNeeded: 20000 - $0 * 53)] }
    }

    @Test("16-bit ↔ float, planar ↔ interleaved, little ↔ big endian: exact round trips")
    func losslessRoundTrips() throws {
        let frames = 1000
        let source = Self.bytes(Self.ramp(frames))
        let formats: [AudioPCMFormat] = [
            .float32Planar(sampleRate: 44100, channels: .stereo),
            AudioPCMFormat(sampleRate: 44100, channels: .stereo, sampleType: .float, bitsPerSample: 64, isInterleaved: true),
            Self.s16(interleaved: false), Self.s16(bigEndian: true), Self.s16(interleaved: false, bigEndian: true),
            AudioPCMFormat(sampleRate: 44100, channels: .stereo, sampleType: .signedInteger, bitsPerSample: 24, isBigEndian: true),
            AudioPCMFormat(sampleRate: 44100, channels: .stereo, sampleType: .signedInteger, bitsPerSample: 32, isInterleaved: false),
            AudioPCMFormat(sampleRate: 44100, channels: .stereo, sampleType: .float, bitsPerSample: 32, isBigEndian: true),
        ]
        for format in formats {
            let there = try Self.convert(source, frames: frames, from: Self.s16(), to: format)
            #expect(there.count == frames * 2 * format.bytesPerSample, "\(format)")
            let back = try Self.convert(there, frames: frames, from: format, to: Self.s16())
            #expect(back == source, "\(format)")
        }
    }

    @Test("non-interleaved output holds each channel's samples one buffer after another")
    func planarLayout() throws {
        let frames = 300
        let samples = Self.ramp(frames)
        let out = try Self.convert(Self.bytes(samples), frames: frames, from: Self.s16(), to: Self.s16(interleaved: false))
        let values = Self.values(out, as: Int16.self)
        let lefts: [Int16] = stride(from: 0, to: samples.count, by: 2).map { samples[$0] }
        let rights: [Int16] = stride(from: 1, to: samples.count, by: 2).map { samples[$0] }
        #expect(Array(values[0..<frames]) == lefts)
        #expect(Array(values[frames...]) == rights)
    }

    @Test("big-endian and 24-bit bytes are laid out as Apple's LPCM flags say")
    func byteLayouts() throws {
        let source = Self.bytes([Int16(0x1234), Int16(-2)])  // one stereo frame
        let mono = AudioChannelSet.stereo
        let be = try Self.convert(source, frames: 1, from: Self.s16(), to: Self.s16(bigEndian: true))
        #expect([UInt8](be) == [0x12, 0x34, 0xFF, 0xFE] as [UInt8])
        let s24 = AudioPCMFormat(sampleRate: 44100, channels: mono, sampleType: .signedInteger, bitsPerSample: 24)
        let le24 = try Self.convert(source, frames: 1, from: Self.s16(), to: s24)
        #expect([UInt8](le24) == [0x00, 0x34, 0x12, 0x00, 0xFE, 0xFF])
        var s24be = s24
        s24be.isBigEndian = true
        let be24 = try Self.convert(source, frames: 1, from: Self.s16(), to: s24be)
        #expect([UInt8](be24) == [0x12, 0x34, 0x00, 0xFF, 0xFE, 0x00])
        let s32be = AudioPCMFormat(sampleRate: 44100, channels: mono, sampleType: .signedInteger, bitsPerSample: 32, isBigEndian: true)
        #expect([UInt8](try Self.convert(source, frames: 1, from: Self.s16(), to: s32be)) == [0x12, 0x34, 0, 0, 0xFF, 0xFE, 0, 0])
    }

    @Test("8-bit: unsigned is offset by 128, signed is two's complement")
    func eightBit() throws {
        let source = Self.bytes([Int16(0), Int16(-32768), Int16(32767), Int16(256)])
        let u8 = AudioPCMFormat(sampleRate: 8000, channels: .stereo, sampleType: .unsignedInteger, bitsPerSample: 8)
        let s8 = AudioPCMFormat(sampleRate: 8000, channels: .stereo, sampleType: .signedInteger, bitsPerSample: 8)
        #expect([UInt8](try Self.convert(source, frames: 2, from: Self.s16(8000), to: u8)) == [128, 0, 255, 129])
        #expect([UInt8](try Self.convert(source, frames: 2, from: Self.s16(8000), to: s8)) == [0, 0x80, 0x7F, 1])
        // And back: 8-bit values become the top byte of 16-bit samples.
        let back = try Self.convert(Data([128, 0, 255, 129]), frames: 2, from: u8, to: Self.s16(8000))
        let expected: [Int16] = [0, -32768, 32512, 256]
        #expect(Self.values(back, as: Int16.self) == expected)
    }

    @Test("float → integer rounds to nearest and clips")
    func clipping() throws {
        let float = AudioPCMFormat(sampleRate: 48000, channels: .mono, sampleType: .float, bitsPerSample: 32)
        let input = Self.bytes([Float(1.5), -2, 0.5, -0.25, 1e-6])
        let out = try Self.convert(input, frames: 5, from: float, to: Self.s16(48000, .mono))
        let expected: [Int16] = [32767, -32768, 16384, -8192, 0]
        #expect(Self.values(out, as: Int16.self) == expected)
    }

    @Test("8000 → 44100 Hz gives every implied sample, in time, after draining")
    func resamplingCount() throws {
        let input = Self.s16(8000, .mono)
        let output = Self.s16(44100, .mono)
        // A 500 Hz sine, one second, fed in uneven pieces.
        let samples = (0..<8000).map { Int16(10000 * sin(2 * Double.pi * 500 * Double($0) / 8000)) }
        let resampler = try AudioResampler(input: input, output: output)
        var offset = 0
        for piece in [1, 999, 3000, 17, 3983] {
            try Self.bytes(Array(samples[offset..<offset + piece])).withUnsafeBytes { try resampler.append(bytes: $0, frameCount: piece) }
            offset += piece
        }
        try resampler.finish()
        #expect(resampler.bufferedFrameCount == 44100)
        let out = Self.values(resampler.read(frameCount: 44100), as: Int16.self)
        // Same sine at the new rate: no delay, no gain change (within the filter's ripple).
        var worst = 0.0
        for i in 200..<43900 {
            let expected = 10000 * sin(2 * Double.pi * 500 * Double(i) / 44100)
            worst = max(worst, abs(Double(out[i]) - expected))
        }
        #expect(worst < 60, "largest error \(worst)")
    }

    @Test("the reverse direction: 44.1 kHz 16-bit stereo into 1024-frame planar-float frames for an encoder")
    func encoderFrames() throws {
        let frames = 2500
        let source = Self.bytes(Self.ramp(frames))
        let fltp = try #require(AudioPCMFormat(sampleFormat: AV_SAMPLE_FMT_FLTP, sampleRate: 44100, channels: .stereo))
        let resampler = try AudioResampler(input: Self.s16(), output: fltp)
        try source.withUnsafeBytes { try resampler.append(bytes: $0, frameCount: frames) }
        try resampler.finish()
        var sizes: [Int] = [], pts: [Int64] = []
        var left: [Float] = []
        while let frame = try resampler.readFrame(frameCount: 1024) {
            #expect(frame.frame.pointee.format == AV_SAMPLE_FMT_FLTP.rawValue)
            #expect(frame.frame.pointee.ch_layout.nb_channels == 2)
            sizes.append(frame.audioFrameCount)
            pts.append(frame.frame.pointee.pts)
            let plane = UnsafeRawPointer(frame.frame.pointee.extended_data[0]!).assumingMemoryBound(to: Float.self)
            left += Array(UnsafeBufferPointer(start: plane, count: frame.audioFrameCount))
        }
        #expect(sizes == [1024, 1024, 452] as [Int])
        #expect(pts == [0, 1024, 2048] as [Int64])
        let ramp = Self.ramp(frames)
        let expectedLeft: [Float] = stride(from: 0, to: ramp.count, by: 2).map { Float(ramp[$0]) / 32768 }
        #expect(left == expectedLeft)
    }

    @Test("mono → stereo copies the channel; stereo → mono averages")
    func remixing() throws {
        let mono = Self.bytes([Int16(1000), -2000, 30000])
        let stereo = try Self.convert(mono, frames: 3, from: Self.s16(44100, .mono), to: Self.s16())
        let copied: [Int16] = [1000, 1000, -2000, -2000, 30000, 30000]
        #expect(Self.values(stereo, as: Int16.self) == copied)
        let pair = Self.bytes([Int16(1000), 3000, -2000, 0, 32767, 32767])
        let down = try Self.convert(pair, frames: 3, from: Self.s16(), to: Self.s16(44100, .mono))
        let averaged: [Int16] = [2000, -1000, 32767]
        #expect(Self.values(down, as: Int16.self) == averaged)
        // Count-only sets behave like FFmpeg's default layouts for the count.
        let counted = try Self.convert(mono, frames: 3, from: Self.s16(44100, AudioChannelSet(count: 1)),
                                       to: Self.s16(44100, AudioChannelSet(count: 2)))
        #expect(counted == stereo)
    }

    @Test("channel orders other than FFmpeg's native order are honoured both ways")
    func channelOrder() throws {
        let swapped = try #require(AudioChannelSet(positions: [1, 0]))  // right, then left
        let source = Self.bytes(Self.ramp(10))
        let out = try Self.convert(source, frames: 10, from: Self.s16(), to: Self.s16(44100, swapped))
        let ramp = Self.ramp(10)
        let swappedRamp: [Int16] = (0..<10).flatMap { [ramp[2 * $0 + 1], ramp[2 * $0]] }
        #expect(Self.values(out, as: Int16.self) == swappedRamp)
        #expect(try Self.convert(out, frames: 10, from: Self.s16(44100, swapped), to: Self.s16()) == source)
        // 5.1 in AAC order (C L R Ls Rs LFE) to FFmpeg's order (L R C LFE Ls Rs): a pure permutation.
        let aacOrder = try #require(AudioChannelSet(positions: [2, 0, 1, 4, 5, 3]))
        let native = try #require(AudioChannelSet(positions: [0, 1, 2, 3, 4, 5]))
        let frame = Self.bytes([Int16(3), 1, 2, 5, 6, 4])
        let reordered = try Self.convert(frame, frames: 1, from: Self.s16(48000, aacOrder), to: Self.s16(48000, native))
        let inOrder: [Int16] = [1, 2, 3, 4, 5, 6]
        #expect(Self.values(reordered, as: Int16.self) == inOrder)
    }

    @Test("AudioStreamBasicDescription ↔ format, with the channel layout's bytes")
    func streamDescriptions() throws {
        let fivePointOne = try #require(AudioChannelSet(positions: [2, 0, 1, 4, 5, 3]))  // AAC order: C L R Ls Rs LFE
        let formats: [AudioPCMFormat] = [
            Self.s16(), Self.s16(interleaved: false, bigEndian: true), .float32Planar(sampleRate: 96000, channels: fivePointOne),
            AudioPCMFormat(sampleRate: 8000, channels: .mono, sampleType: .unsignedInteger, bitsPerSample: 8),
            AudioPCMFormat(sampleRate: 22050, channels: .stereo, sampleType: .signedInteger, bitsPerSample: 24, isBigEndian: true),
        ]
        for format in formats {
            let asbd = format.streamBasicDescription
            #expect(asbd.mBytesPerFrame == UInt32(format.bytesPerFrame))
            let back = try #require(AudioPCMFormat(streamBasicDescription: asbd, channelLayout: format.channels.audioChannelLayout))
            #expect(back == format, "\(format)")
        }
        // The 5.1 layout in AAC order is Apple's AAC_5_1 tag.
        let layout = fivePointOne.audioChannelLayout
        #expect(layout.withUnsafeBytes { $0.load(as: UInt32.self) } == kAudioChannelLayoutTag_AAC_5_1)
        // Formats the engine cannot carry.
        var padded = Self.s16().streamBasicDescription
        padded.mBytesPerFrame = 8
        #expect(AudioPCMFormat(streamBasicDescription: padded) == nil)
        var aac = AudioStreamBasicDescription()
        aac.mFormatID = kAudioFormatMPEG4AAC
        #expect(AudioPCMFormat(streamBasicDescription: aac) == nil)
        #expect(AudioResampler.Quality(audioQuality: 0x60) == .high)
        #expect(AudioResampler.Quality(audioQuality: 0x7F) == .maximum)
        #expect(AudioResampler.Quality(audioQuality: 0) == .minimum)
    }

    @Test("Apple channel layouts ↔ channel sets: tags, bitmaps and descriptions round-trip")
    func channelLayouts() throws {
        func tagged(_ tag: AudioChannelLayoutTag) -> Data {
            var data = Data(count: 32)
            data.withUnsafeMutableBytes { $0.storeBytes(of: tag, as: UInt32.self) }
            return data
        }
        let tags = [kAudioChannelLayoutTag_Mono, kAudioChannelLayoutTag_Stereo, kAudioChannelLayoutTag_MPEG_3_0_B,
                    kAudioChannelLayoutTag_Quadraphonic, kAudioChannelLayoutTag_MPEG_5_0_D, kAudioChannelLayoutTag_MPEG_5_1_A,
                    kAudioChannelLayoutTag_MPEG_5_1_C, kAudioChannelLayoutTag_AAC_6_1, kAudioChannelLayoutTag_MPEG_7_1_B,
                    kAudioChannelLayoutTag_MPEG_7_1_C, kAudioChannelLayoutTag_AudioUnit_7_0_Front]
        for tag in tags {
            let set = try #require(AudioChannelSet(audioChannelLayout: tagged(tag)), "tag \(tag >> 16)")
            #expect(set.count == Int(tag & 0xFFFF))
            #expect(set.positions != nil)
            let data = set.audioChannelLayout
            #expect(data.withUnsafeBytes { $0.load(as: UInt32.self) } == tag, "tag \(tag >> 16)")
            #expect(AudioChannelSet(audioChannelLayout: data) == set)
        }
        // FFmpeg's 5.1 is Apple's MPEG 5.1 A; Apple's 7.1 C is FFmpeg's 7.1 with the side pair before the back pair.
        #expect(AudioChannelSet(mask: 0x3F)?.audioChannelLayout.withUnsafeBytes { $0.load(as: UInt32.self) } == kAudioChannelLayoutTag_MPEG_5_1_A)
        let sevenOne = AudioChannelSet(positions: [0, 1, 2, 3, 9, 10, 4, 5])
        #expect(sevenOne?.audioChannelLayout.withUnsafeBytes { $0.load(as: UInt32.self) } == kAudioChannelLayoutTag_MPEG_7_1_C)
        // Layouts no tag names: a bitmap in native order, else descriptions.
        let wide = try #require(AudioChannelSet(positions: [0, 1, 12]))  // L R Vhl: no tag
        let bitmap = wide.audioChannelLayout
        #expect(bitmap.withUnsafeBytes { $0.load(as: UInt32.self) } == kAudioChannelLayoutTag_UseChannelBitmap)
        #expect(AudioChannelSet(audioChannelLayout: bitmap) == wide)
        let reordered = try #require(AudioChannelSet(positions: [12, 1, 0]))
        let described = reordered.audioChannelLayout
        #expect(described.withUnsafeBytes { $0.load(as: UInt32.self) } == kAudioChannelLayoutTag_UseChannelDescriptions)
        #expect(AudioChannelSet(audioChannelLayout: described) == reordered)
        // Counted layouts and nonsense.
        #expect(AudioChannelSet(audioChannelLayout: tagged(kAudioChannelLayoutTag_DiscreteInOrder | 5)) == AudioChannelSet(count: 5))
        #expect(AudioChannelSet(audioChannelLayout: Data([1, 2, 3])) == nil)
        #expect(AudioChannelSet(audioChannelLayout: tagged(kAudioChannelLayoutTag_UseChannelDescriptions)) == nil)
    }

    @Test("formats that cannot exist are refused")
    func refusals() {
        let bad = [
            AudioPCMFormat(sampleRate: 0, channels: .stereo, sampleType: .float, bitsPerSample: 32),
            AudioPCMFormat(sampleRate: 44100, channels: .stereo, sampleType: .float, bitsPerSample: 16),
            AudioPCMFormat(sampleRate: 44100, channels: .stereo, sampleType: .signedInteger, bitsPerSample: 12),
            AudioPCMFormat(sampleRate: 44100, channels: .stereo, sampleType: .unsignedInteger, bitsPerSample: 16),
            AudioPCMFormat(sampleRate: 44100, channels: AudioChannelSet(count: 65), sampleType: .float, bitsPerSample: 32),
        ]
        for format in bad {
            #expect(throws: MediaError.self, "\(format)") { try AudioResampler(output: format) }
        }
        #expect(AudioChannelSet(positions: [0, 0]) == nil)
        #expect(AudioChannelSet(positions: [64]) == nil)
    }
}
