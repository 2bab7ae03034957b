// AVAudioConverter decoding: compressed packets in AVAudioCompressedBuffers (with the format's
// magic cookie) back to PCM — AAC and Apple Lossless packets our converter encoded, µ-law packets
// of one size without descriptions — at the input's rate or another, as Apple's converter does.
import AVFAudio
import Foundation
import Testing
import TestSupport

@Suite struct AVAudioConverterDecodingTests {
    /// Encodes a second of the 440 Hz tone to `settings`: the packets and the encoder's format
    /// (with its magic cookie).
    private func encoded(_ settings: [String: Any]) throws -> (packets: [Data], format: AVAudioFormat) {
        let from = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let to = try #require(AVAudioFormat(settings: settings))
        let encoder = try #require(AVAudioConverter(from: from, to: to))
        let packets = try AVAudioConverterEncodingTests.encode(encoder, seconds: 1)
        to.magicCookie = encoder.magicCookie
        return (packets, to)
    }

    /// Decodes `packets` of `format` to `output` with a converter, handing over `perCall`
    /// packets at a time; the left channel's samples.
    private func decode(_ packets: [Data], format: AVAudioFormat, to output: AVAudioFormat, perCall: Int = 3) throws -> [Float] {
        let converter = try #require(AVAudioConverter(from: format, to: output))
        #expect(converter.inputFormat === format && converter.outputFormat === output)
        var next = 0
        var left: [Float] = []
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: output, frameCapacity: 4096))
        for _ in 0..<10_000 {
            var error: NSError?
            let status = converter.convert(to: buffer, error: &error) { _, inputStatus in
                guard next < packets.count else {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                let batch = packets[next..<min(packets.count, next + perCall)]
                let size = batch.map(\.count).max() ?? 1
                let compressed = AVAudioCompressedBuffer(format: format, packetCapacity: AVAudioPacketCount(batch.count), maximumPacketSize: size)
                var offset = 0
                for (i, packet) in batch.enumerated() {
                    packet.withUnsafeBytes { (compressed.data + offset).copyMemory(from: $0.baseAddress!, byteCount: packet.count) }
                    compressed.packetDescriptions![i] = AudioStreamPacketDescription(mStartOffset: Int64(offset), mVariableFramesInPacket: 0,
                                                                                     mDataByteSize: UInt32(packet.count))
                    offset += packet.count
                }
                compressed.packetCount = AVAudioPacketCount(batch.count)
                compressed.byteLength = UInt32(offset)
                next += batch.count
                inputStatus.pointee = .haveData
                return compressed
            }
            try #require(status != .error, "\(String(describing: error))")
            left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
            if status == .endOfStream { break }
        }
        return left
    }

    private func crossings(_ x: ArraySlice<Float>) -> Int { zip(x, x.dropFirst()).filter { ($0.0 < 0) != ($0.1 < 0) }.count }

    @Test func aacPacketsDecodeToTheTone() throws {
        let (packets, format) = try encoded([AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2])
        #expect(format.magicCookie != nil)
        let pcm = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let left = try decode(packets, format: format, to: pcm)
        // Every packet is 1024 frames: the first is the encoder's priming.
        #expect(left.count == packets.count * 1024, "\(left.count) frames from \(packets.count) packets")
        let middle = left[22_050..<(22_050 + 4410)]
        #expect(abs(crossings(middle) - 88) <= 2, "\(crossings(middle)) crossings in 0.1 s")
        #expect(abs((middle.map(abs).max() ?? 0) - 0.5) < 0.03)
    }

    @Test func appleLosslessDecodesExactlyAndAtAnotherRate() throws {
        let (packets, format) = try encoded([AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2,
                                             AVEncoderBitDepthHintKey: 24])
        let pcm = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let left = try decode(packets, format: format, to: pcm, perCall: 1)
        #expect(left.count >= 44_100)
        // Lossless at 24 bits: the tone within one step of 24-bit quantisation.
        var worst: Float = 0
        for i in 0..<44_100 {
            let expected = Float(0.5 * sin(2 * Double.pi * 440 * Double(i) / 44_100))
            worst = max(worst, abs(left[i] - expected))
        }
        #expect(worst < 1e-6, "\(worst)")
        // To 22.05 kHz mono: half the frames, the same pitch.
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 22_050, channels: 1))
        let low = try decode(packets, format: format, to: mono)
        #expect(abs(low.count - 22_050) <= 2048, "\(low.count)")
        #expect(abs(crossings(low[4410..<(4410 + 2205)]) - 88) <= 2)
    }

    @Test func muLawPacketsOfOneSizeNeedNoDescriptions() throws {
        var asbd = AudioStreamBasicDescription(mSampleRate: 8000, mFormatID: kAudioFormatULaw, mFormatFlags: 0, mBytesPerPacket: 1,
                                               mFramesPerPacket: 1, mBytesPerFrame: 1, mChannelsPerFrame: 1, mBitsPerChannel: 8, mReserved: 0)
        let format = try #require(AVAudioFormat(streamDescription: &asbd))
        let pcm = try #require(AVAudioFormat(standardFormatWithSampleRate: 8000, channels: 1))
        let converter = try #require(AVAudioConverter(from: format, to: pcm))
        // µ-law 0xFF is 0, 0x80 the largest positive value, 0x00 the largest negative one.
        let input = AVAudioCompressedBuffer(format: format, packetCapacity: 3)
        input.data.storeBytes(of: (0xFF, 0x80, 0x00) as (UInt8, UInt8, UInt8), as: (UInt8, UInt8, UInt8).self)
        input.packetCount = 3
        input.byteLength = 3
        let output = try #require(AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: 16))
        var given = false
        var error: NSError?
        let status = converter.convert(to: output, error: &error) { _, inputStatus in
            if given {
                inputStatus.pointee = .endOfStream
                return nil
            }
            given = true
            inputStatus.pointee = .haveData
            return input
        }
        #expect(status == .haveData || status == .endOfStream, "\(String(describing: error))")
        #expect(output.frameLength == 3)
        let samples = Array(UnsafeBufferPointer(start: output.floatChannelData![0], count: 3))
        #expect(samples[0] == 0 && samples[1] > 0.97 && samples[2] < -0.97, "\(samples)")
    }

    @Test func aFormatNothingDecodesGivesNoConverter() throws {
        var asbd = AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: 0x7A7A_7A7A, mFormatFlags: 0, mBytesPerPacket: 0,
                                               mFramesPerPacket: 1024, mBytesPerFrame: 0, mChannelsPerFrame: 2, mBitsPerChannel: 0, mReserved: 0)
        let format = try #require(AVAudioFormat(streamDescription: &asbd))
        #expect(AVAudioConverter(from: format, to: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!) == nil)
    }
}
