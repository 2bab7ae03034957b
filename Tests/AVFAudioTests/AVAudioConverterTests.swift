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
}
