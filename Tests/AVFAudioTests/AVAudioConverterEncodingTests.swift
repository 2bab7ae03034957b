// AVAudioConverter encoding PCM to AAC and Apple Lossless: packets with their descriptions and the
// codec's magic cookie; the AAC packets, framed as ADTS, decode with ffmpeg to the tone in place.
import AVFAudio
import Foundation
import Testing
import TestSupport

@Suite struct AVAudioConverterEncodingTests {
    static let dir = TestTools.makeTemporaryDirectory("avfaudio-encode")

    /// Converts `seconds` of a 440 Hz tone (standard format, `rate`, `channels`; at 0.5, or at
    /// `levels[c]` in channel c) with `converter` into packets (the bytes of each).
    static func encode(_ converter: AVAudioConverter, seconds: Double, levels: [Double]? = nil) throws -> [Data] {
        let from = converter.inputFormat
        let total = Int(seconds * from.sampleRate)
        var sent = 0
        var packets: [Data] = []
        let output = AVAudioCompressedBuffer(format: converter.outputFormat, packetCapacity: 8,
                                             maximumPacketSize: converter.maximumOutputPacketSize)
        for _ in 0..<10_000 {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { frames, inputStatus in
                guard sent < total else {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                let n = min(Int(frames), total - sent)
                let buffer = AVAudioPCMBuffer(pcmFormat: from, frameCapacity: AVAudioFrameCount(n))!
                buffer.frameLength = AVAudioFrameCount(n)
                for c in 0..<Int(from.channelCount) {
                    let level = levels?[c] ?? 0.5
                    for i in 0..<n { buffer.floatChannelData![c][i] = Float(level * sin(2 * Double.pi * 440 * Double(sent + i) / from.sampleRate)) }
                }
                sent += n
                inputStatus.pointee = .haveData
                return buffer
            }
            try #require(status != .error, "\(String(describing: error))")
            let descriptions = try #require(output.packetDescriptions)
            for p in 0..<Int(output.packetCount) {
                let d = descriptions[p]
                packets.append(Data(bytes: output.data + Int(d.mStartOffset), count: Int(d.mDataByteSize)))
            }
            if status == .endOfStream { break }
        }
        return packets
    }

    /// An ADTS header for an AAC LC packet of `size` bytes.
    static func adts(size: Int, rateIndex: Int, channels: Int) -> Data {
        let length = size + 7
        return Data([0xFF, 0xF1, UInt8(1 << 6 | rateIndex << 2 | channels >> 2), UInt8((channels & 3) << 6 | length >> 11),
                     UInt8((length >> 3) & 0xFF), UInt8((length & 7) << 5 | 0x1F), 0xFC])
    }

    @Test func aacPacketsDecodeToTheTone() throws {
        let from = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let to = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 48_000.0, AVNumberOfChannelsKey: 2]))
        let converter = try #require(AVAudioConverter(from: from, to: to))
        converter.bitRate = 160_000
        #expect(converter.bitRate == 160_000 && converter.maximumOutputPacketSize >= 1_536)
        let packets = try Self.encode(converter, seconds: 1)
        // 48000 frames plus the encoder's 1024 of priming, in 1024-frame packets.
        #expect(packets.count >= 47 && packets.count <= 49, "\(packets.count) packets")
        #expect(packets.allSatisfy { !$0.isEmpty && $0.count <= converter.maximumOutputPacketSize })
        // The cookie: an ES descriptor holding the AudioSpecificConfig of AAC LC, 48 kHz, stereo (0x11 0x90).
        let cookie = try #require(converter.magicCookie)
        #expect(cookie.first == 0x03 && cookie.range(of: Data([0x11, 0x90])) != nil)
        var adts = Data()
        for packet in packets { adts += Self.adts(size: packet.count, rateIndex: 3, channels: 2) + packet }
        let url = Self.dir.appendingPathComponent("tone.aac")
        try adts.write(to: url)
        let decoded = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "f32le", "-"]).output
        let interleaved = decoded.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let samples = stride(from: 0, to: interleaved.count, by: 2).map { interleaved[$0] }   // the left channel
        #expect(samples.count >= 48_000)
        // After the priming (1024 frames) the tone is there at its level.
        let peak = samples[4_000..<40_000].map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.05, "peak \(peak)")
        var crossings = 0
        for i in 1_025..<(1_025 + 48_000) where i < samples.count && (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
        #expect(abs(crossings - 880) <= 6, "\(crossings) zero crossings for 440 Hz")
    }

    @Test func appleLosslessPacketsAndWhatIsRefused() throws {
        let from = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 1, interleaved: true))
        let to = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 1]))
        #expect(try #require(AVAudioConverter(from: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!, to: to)).bitRate == 0)
        let converter = try #require(AVAudioConverter(from: from, to: to))
        var sent = 0
        let output = AVAudioCompressedBuffer(format: to, packetCapacity: 4, maximumPacketSize: converter.maximumOutputPacketSize)
        var packets = 0
        for _ in 0..<100 {
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { frames, s in
                guard sent < 44_100 else { s.pointee = .endOfStream; return nil }
                let n = min(Int(frames), 44_100 - sent)
                let b = AVAudioPCMBuffer(pcmFormat: from, frameCapacity: AVAudioFrameCount(n))!
                b.frameLength = AVAudioFrameCount(n)
                for i in 0..<n { b.int16ChannelData![0][i] = Int16(truncatingIfNeeded: (sent + i) * 37) }
                sent += n
                s.pointee = .haveData
                return b
            }
            packets += Int(output.packetCount)
            if status == .endOfStream { break }
        }
        #expect(packets == 11, "44100 frames in 4096-frame ALAC packets: \(packets)")
        #expect(converter.magicCookie.map { $0.count >= 24 } == true)
        // A rate the codec does not take, and formats the pipeline does not encode, give nil.
        let aacAt7k = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 7_000.0, AVNumberOfChannelsKey: 1]))
        #expect(AVAudioConverter(from: AVAudioFormat(standardFormatWithSampleRate: 7_000, channels: 1)!, to: aacAt7k) == nil)
        let mp3 = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEGLayer3, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 1]))
        #expect(AVAudioConverter(from: from, to: mp3) == nil)
    }

    /// Decodes ADTS-framed AAC packets (`rateIndex` 4: 44.1 kHz) with ffmpeg to mono float samples.
    static func decodeADTS(_ packets: [Data], rateIndex: Int, name: String) throws -> [Float] {
        var stream = Data()
        for packet in packets { stream += adts(size: packet.count, rateIndex: rateIndex, channels: 1) + packet }
        let url = dir.appendingPathComponent(name)
        try stream.write(to: url)
        let decoded = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "f32le", "-ac", "1", "-"]).output
        return decoded.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Encoding with a rate and channel change, as Apple's converter does it: stereo at 48 kHz to
    /// AAC mono at 44.1 kHz keeps the left channel (the default channel map, not a mix), the tone
    /// at its pitch; `downmix` mixes the two instead, and a channel map picks the right one.
    @Test func aRateAndChannelChangeWhileEncodingRemapsLikeApple() throws {
        let from = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let to = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 1]))
        func peakAndCrossings(_ configure: (AVAudioConverter) -> Void, name: String) throws -> (peak: Float, crossings: Int, packets: Int) {
            let converter = try #require(AVAudioConverter(from: from, to: to))
            #expect(converter.channelMap == [0])
            configure(converter)
            // The left channel at 0.5, the right at 0.2.
            let packets = try Self.encode(converter, seconds: 1, levels: [0.5, 0.2])
            let samples = try Self.decodeADTS(packets, rateIndex: 4, name: name)
            #expect(samples.count >= 44_100, "\(samples.count) samples")
            var crossings = 0
            for i in 1_025..<min(samples.count, 1_025 + 44_100) where (samples[i - 1] < 0) != (samples[i] < 0) { crossings += 1 }
            return (samples[4_000..<40_000].map(abs).max() ?? 0, crossings, packets.count)
        }
        let remapped = try peakAndCrossings({ _ in }, name: "remapped.aac")
        // 44100 frames and the priming in 1024-frame packets; the left channel's level and pitch.
        #expect(remapped.packets >= 44 && remapped.packets <= 46, "\(remapped.packets) packets")
        #expect(abs(remapped.peak - 0.5) < 0.05, "peak \(remapped.peak): the left channel, not a mix")
        #expect(abs(remapped.crossings - 880) <= 6, "\(remapped.crossings) zero crossings for 440 Hz")
        let mixed = try peakAndCrossings({ $0.downmix = true }, name: "mixed.aac")
        #expect(abs(mixed.peak - 0.35) < 0.05, "peak \(mixed.peak): the average of 0.5 and 0.2")
        let right = try peakAndCrossings({ $0.channelMap = [1] }, name: "right.aac")
        #expect(abs(right.peak - 0.2) < 0.03, "peak \(right.peak): the right channel")
    }
}
