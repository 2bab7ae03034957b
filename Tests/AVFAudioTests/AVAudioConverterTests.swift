// AVAudioConverter between PCM formats: sample types and interleaving exactly, sample rates
// through the input block with Apple's statuses.
import AVFAudio
import Foundation
import Testing

@Suite struct AVAudioConverterTests {
    @Test func int16InterleavedToTheStandardFormatIsExact() throws {
        let from = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let to = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let converter = try #require(AVAudioConverter(from: from, to: to))
        #expect(converter.inputFormat == from && converter.outputFormat == to)
        let input = try #require(AVAudioPCMBuffer(pcmFormat: from, frameCapacity: 1000))
        input.frameLength = 1000
        for i in 0..<1000 {
            input.int16ChannelData![0][2 * i] = Int16(truncatingIfNeeded: i * 31)
            input.int16ChannelData![0][2 * i + 1] = Int16(truncatingIfNeeded: -i * 17)
        }
        let output = try #require(AVAudioPCMBuffer(pcmFormat: to, frameCapacity: 1000))
        try converter.convert(to: output, from: input)
        #expect(output.frameLength == 1000)
        var exact = true
        for i in 0..<1000 {
            exact = exact && output.floatChannelData![0][i] == Float(Int16(truncatingIfNeeded: i * 31)) / 32768
            exact = exact && output.floatChannelData![1][i] == Float(Int16(truncatingIfNeeded: -i * 17)) / 32768
        }
        #expect(exact)
        // Too small an output, and a rate change, are refused here.
        let small = try #require(AVAudioPCMBuffer(pcmFormat: to, frameCapacity: 10))
        #expect(throws: (any Error).self) { try converter.convert(to: small, from: input) }
        let other = try #require(AVAudioConverter(from: from, to: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!))
        let wide = try #require(AVAudioPCMBuffer(pcmFormat: other.outputFormat, frameCapacity: 2000))
        #expect(throws: (any Error).self) { try other.convert(to: wide, from: input) }
        // Encoding takes the input block form: convert(to:from:) is PCM to PCM.
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2]))
        let encoder = try #require(AVAudioConverter(from: from, to: aac))
        #expect(throws: (any Error).self) { try encoder.convert(to: output, from: input) }
    }

    @Test func aRateChangeThroughTheInputBlock() throws {
        let from = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        let to = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        let converter = try #require(AVAudioConverter(from: from, to: to))
        // One second of 1 kHz in ten buffers, then the end.
        var sent = 0
        var out: [Float] = []
        var statuses: [AVAudioConverterOutputStatus] = []
        let output = try #require(AVAudioPCMBuffer(pcmFormat: to, frameCapacity: 4096))
        var rounds = 0
        while rounds < 100 {
            rounds += 1
            var error: NSError?
            let status = converter.convert(to: output, error: &error) { packets, inputStatus in
                guard sent < 48_000 else {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                let n = min(Int(packets), 4_800, 48_000 - sent)
                let buffer = AVAudioPCMBuffer(pcmFormat: from, frameCapacity: AVAudioFrameCount(n))!
                buffer.frameLength = AVAudioFrameCount(n)
                for i in 0..<n { buffer.floatChannelData![0][i] = Float(0.5 * sin(2 * Double.pi * 1000 * Double(sent + i) / 48_000)) }
                sent += n
                inputStatus.pointee = .haveData
                return buffer
            }
            #expect(error == nil && status != .error)
            statuses.append(status)
            out += UnsafeBufferPointer(start: output.floatChannelData![0], count: Int(output.frameLength))
            if status == .endOfStream { break }
        }
        #expect(statuses.last == .endOfStream && statuses.dropLast().allSatisfy { $0 == .haveData })
        #expect(abs(out.count - 44_100) <= 64, "\(out.count) frames for one second at 44.1 kHz")
        // Still 1 kHz at the new rate: about 2000 rising and falling zero crossings a second.
        var crossings = 0
        for i in 1..<min(out.count, 44_100) where (out[i - 1] < 0) != (out[i] < 0) { crossings += 1 }
        #expect(abs(crossings - 2000) <= 4, "\(crossings) zero crossings")
        #expect(abs((out[1000..<40_000].max() ?? 0) - 0.5) < 0.01)
        // After the end, more calls say so; reset starts a new stream.
        var error: NSError?
        #expect(converter.convert(to: output, error: &error) { _, s in s.pointee = .endOfStream; return nil } == .endOfStream)
        converter.reset()
        #expect(converter.convert(to: output, error: &error) { _, s in s.pointee = .noDataNow; return nil } == .inputRanDry)
    }

    /// Converts one buffer of `from` (channel c filled by `fill(c, i)`) with `converter` and
    /// returns the output's channels.
    static func convert(_ converter: AVAudioConverter, frames: Int, fill: (Int, Int) -> Float) throws -> [[Float]] {
        let input = try #require(AVAudioPCMBuffer(pcmFormat: converter.inputFormat, frameCapacity: AVAudioFrameCount(frames)))
        input.frameLength = AVAudioFrameCount(frames)
        for c in 0..<Int(converter.inputFormat.channelCount) {
            for i in 0..<frames { input.floatChannelData![c][i] = fill(c, i) }
        }
        let output = try #require(AVAudioPCMBuffer(pcmFormat: converter.outputFormat, frameCapacity: AVAudioFrameCount(frames)))
        try converter.convert(to: output, from: input)
        #expect(Int(output.frameLength) == frames)
        return (0..<Int(converter.outputFormat.channelCount)).map { Array(UnsafeBufferPointer(start: output.floatChannelData![$0], count: frames)) }
    }

    /// Apple's channel mapping: with fewer output channels the first inputs are kept (not
    /// mixed) unless `downmix` is set; with more, the extra outputs are silent; `channelMap`
    /// routes any input to any output, negative entries silent.
    @Test func channelsAreRemappedAsAppleDocumentsIt() throws {
        let stereo = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let mono = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
        let left: (Int, Int) -> Float = { c, i in c == 0 ? Float(i % 100) / 200 : -0.25 }
        let down = try #require(AVAudioConverter(from: stereo, to: mono))
        #expect(down.channelMap == [0] && !down.downmix && !down.dither)
        let kept = try Self.convert(down, frames: 1000, fill: left)
        #expect(kept[0] == (0..<1000).map { Float($0 % 100) / 200 }, "stereo to mono keeps the left channel exactly")
        let mixing = try #require(AVAudioConverter(from: stereo, to: mono))
        mixing.downmix = true
        let mixed = try Self.convert(mixing, frames: 1000, fill: left)
        #expect(zip(mixed[0], 0..<1000).allSatisfy { abs($0 - (Float($1 % 100) / 200 - 0.25) / 2) < 1e-6 }, "downmix averages")
        let up = try #require(AVAudioConverter(from: mono, to: stereo))
        #expect(up.channelMap == [0, -1])
        let upped = try Self.convert(up, frames: 500, fill: { _, i in Float(i) / 1000 })
        #expect(upped[0] == (0..<500).map { Float($0) / 1000 } && upped[1].allSatisfy { $0 == 0 })
        up.channelMap = [0, 0]
        let both = try Self.convert(up, frames: 500, fill: { _, i in Float(i) / 1000 })
        #expect(both[0] == both[1] && both[1] == (0..<500).map { Float($0) / 1000 })
        // Swapping the channels of interleaved 16-bit stereo is exact.
        let int16 = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let swap = try #require(AVAudioConverter(from: stereo, to: int16))
        swap.channelMap = [1, 0]
        let input = try #require(AVAudioPCMBuffer(pcmFormat: stereo, frameCapacity: 100))
        input.frameLength = 100
        for i in 0..<100 {
            input.floatChannelData![0][i] = Float(i) / 128
            input.floatChannelData![1][i] = -Float(i) / 256
        }
        let output = try #require(AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 100))
        try swap.convert(to: output, from: input)
        let samples = Array(UnsafeBufferPointer(start: output.int16ChannelData![0], count: 200))
        let expected: [Int16] = (0..<100).flatMap { (i: Int) -> [Int16] in [Int16(-i * 128), Int16(i * 256)] }
        #expect(samples == expected)
    }
}
