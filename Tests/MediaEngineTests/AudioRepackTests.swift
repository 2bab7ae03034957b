// AudioRepacker: every LPCM layout FFmpeg has no sample format for (24-bit packed, signed 8-bit,
// big-endian, channel orders other than FFmpeg's) converts to its carrier and back byte-exactly,
// and the carrier holds the bytes an independent per-sample reading of Apple's layout gives.
import Foundation
import Testing
@testable import MediaEngine

@Suite("Audio repacking")
struct AudioRepackTests {
    /// Apple's 5.1 in MPEG_5_1_C order (L C R Ls Rs LFE), not FFmpeg's (L R C LFE Ls Rs).
    static let appleFivePointOne = AudioChannelSet(positions: [0, 2, 1, 4, 5, 3])!

    static func format(_ channels: AudioChannelSet, _ type: AudioPCMFormat.SampleType, _ bits: Int,
                       bigEndian: Bool = false, interleaved: Bool = true) -> AudioPCMFormat {
        AudioPCMFormat(sampleRate: 48000, channels: channels, sampleType: type, bitsPerSample: bits,
                       isBigEndian: bigEndian, isInterleaved: interleaved)
    }

    /// Every repacked layout, stereo and 5.1 in Apple's order, interleaved and not.
    static let repacked: [AudioPCMFormat] = {
        var formats: [AudioPCMFormat] = []
        for interleaved in [true, false] {
            for channels in [AudioChannelSet.stereo, appleFivePointOne] {
                formats += [
                    format(channels, .signedInteger, 24, interleaved: interleaved),
                    format(channels, .signedInteger, 24, bigEndian: true, interleaved: interleaved),
                    format(channels, .signedInteger, 8, interleaved: interleaved),
                    format(channels, .signedInteger, 16, bigEndian: true, interleaved: interleaved),
                    format(channels, .signedInteger, 32, bigEndian: true, interleaved: interleaved),
                    format(channels, .float, 32, bigEndian: true, interleaved: interleaved),
                    format(channels, .float, 64, bigEndian: true, interleaved: interleaved),
                ]
            }
            // Only the channel order differs from FFmpeg's.
            formats.append(format(appleFivePointOne, .signedInteger, 16, interleaved: interleaved))
            formats.append(format(appleFivePointOne, .unsignedInteger, 8, interleaved: interleaved))
            formats.append(format(appleFivePointOne, .float, 32, interleaved: interleaved))
        }
        return formats
    }()

    /// The format FFmpeg has that carries `format` losslessly: native order and endianness,
    /// 24-bit in 32, signed 8-bit in 16, same interleaving.
    static func carrier(of format: AudioPCMFormat) -> AudioPCMFormat {
        let bits = format.bitsPerSample == 24 ? 32 : format.sampleType == .signedInteger && format.bitsPerSample == 8 ? 16 : format.bitsPerSample
        let native = AudioChannelSet(positions: format.channels.positions!.sorted())!
        return AudioPCMFormat(sampleRate: format.sampleRate, channels: native, sampleType: format.sampleType, bitsPerSample: bits,
                              isBigEndian: false, isInterleaved: format.isInterleaved)
    }

    /// Random samples in `format` (floats finite in −1…1, so every byte pattern is a number).
    static func randomBytes(_ format: AudioPCMFormat, frames: Int, seed: UInt64) -> Data {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        let count = frames * format.channelCount
        var data = Data(capacity: count * format.bytesPerSample)
        for _ in 0..<count {
            switch (format.sampleType, format.bitsPerSample) {
            case (.float, 32):
                let bits = Float(Double(next() % 2_000_001) / 1_000_000 - 1).bitPattern
                withUnsafeBytes(of: format.isBigEndian ? bits.byteSwapped : bits) { data.append(contentsOf: $0) }
            case (.float, _):
                let bits = (Double(next() % 2_000_001) / 1_000_000 - 1).bitPattern
                withUnsafeBytes(of: format.isBigEndian ? bits.byteSwapped : bits) { data.append(contentsOf: $0) }
            default:
                for _ in 0..<format.bytesPerSample { data.append(UInt8(truncatingIfNeeded: next())) }
            }
        }
        return data
    }

    /// The carrier bytes of `data` in `format`, read sample by sample from Apple's layout.
    static func expectedCarrier(_ data: Data, format: AudioPCMFormat, frames: Int) -> Data {
        let target = carrier(of: format)
        let channels = format.channelCount
        let inBytes = format.bytesPerSample, outBytes = target.bytesPerSample
        let source = [UInt8](data)
        var out = [UInt8](repeating: 0, count: frames * channels * outBytes)
        let sorted = format.channels.positions!.sorted()
        for c in 0..<channels {
            let j = sorted.firstIndex(of: format.channels.positions![c])!
            for f in 0..<frames {
                let i = format.isInterleaved ? (f * channels + c) * inBytes : (c * frames + f) * inBytes
                let o = format.isInterleaved ? (f * channels + j) * outBytes : (j * frames + f) * outBytes
                var sample = Array(source[i..<(i + inBytes)])
                if format.isBigEndian { sample.reverse() }  // now little-endian
                switch (format.bitsPerSample, format.sampleType) {
                case (24, _): sample = [0] + sample                 // top three bytes of 32
                case (8, .signedInteger): sample = [0] + sample     // s × 256
                default: break
                }
                out.replaceSubrange(o..<(o + outBytes), with: sample)
            }
        }
        return Data(out)
    }

    @Test("every repacked layout → its carrier gives the expected bytes, and back gives the input",
          arguments: repacked)
    func roundTrip(format: AudioPCMFormat) throws {
        for frames in [1, 1001] {
            let source = Self.randomBytes(format, frames: frames, seed: UInt64(frames) &* 977 &+ UInt64(format.bitsPerSample))
            let target = Self.carrier(of: format)
            let unpacked = try AudioResamplerTests.convert(source, frames: frames, from: format, to: target)
            #expect(unpacked == Self.expectedCarrier(source, format: format, frames: frames), "\(format) → \(target)")
            let packed = try AudioResamplerTests.convert(unpacked, frames: frames, from: target, to: format)
            #expect(packed == source, "\(target) → \(format)")
            // Straight through: the format to itself unpacks and packs again.
            #expect(try AudioResamplerTests.convert(source, frames: frames, from: format, to: format) == source, "\(format)")
        }
    }

    /// A timing run, off unless AVF_REPACK_BENCH is set: 60 s of 48 kHz stereo 24-bit big-endian
    /// → 32-bit float and back, in the build under test. It prints the times and checks the round
    /// trip is exact (24-bit values are exact in float).
    @Test("60 s of 24-bit big-endian stereo → float → back (AVF_REPACK_BENCH=1)",
          .enabled(if: ProcessInfo.processInfo.environment["AVF_REPACK_BENCH"] != nil))
    func benchmark() throws {
        let s24be = Self.format(.stereo, .signedInteger, 24, bigEndian: true)
        let float = Self.format(.stereo, .float, 32)
        let frames = 60 * 48000
        let source = Self.randomBytes(s24be, frames: frames, seed: 12)
        let clock = ContinuousClock()
        var floats = Data()
        let there = try clock.measure { floats = try AudioResamplerTests.convert(source, frames: frames, from: s24be, to: float) }
        var back = Data()
        let backTime = try clock.measure { back = try AudioResamplerTests.convert(floats, frames: frames, from: float, to: s24be) }
        print("AVF_REPACK_BENCH 24-bit BE → float: \(there), float → 24-bit BE: \(backTime) (\(frames) stereo frames)")
        #expect(back == source)
    }
}
