// AVAudioFile writing: PCM, AAC and Apple Lossless files in the types their names say, judged by
// ffprobe and by reading them back; settings a file type cannot hold fail with 'fmt?'.
import AVFAudio
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct AVAudioFileWritingTests {
    static let dir = TestTools.makeTemporaryDirectory("avfaudio-write")

    /// `frames` frames of a 440 Hz (left) and 660 Hz (right) tone at `rate`, in `format`.
    static func tone(_ format: AVAudioFormat, frames: Int, from start: Int = 0) throws -> AVAudioPCMBuffer {
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames)))
        buffer.frameLength = AVAudioFrameCount(frames)
        let rate = format.sampleRate
        for c in 0..<Int(format.channelCount) {
            let f = c == 0 ? 440.0 : 660.0
            for i in 0..<frames {
                let v = 0.5 * sin(2 * Double.pi * f * Double(start + i) / rate)
                if let floats = buffer.floatChannelData { floats[c][i * buffer.stride] = Float(v) }
                if let ints = buffer.int16ChannelData { ints[c][i * buffer.stride] = Int16((v * 32767).rounded()) }
            }
        }
        return buffer
    }

    /// ffprobe's codec name, sample rate, channels and duration of the first audio stream.
    static func probe(_ url: URL) throws -> [String: String] {
        let text = try TestTools.runText("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                     "stream=codec_name,sample_rate,channels:format=duration", "-of", "default=nw=1", url.path])
        var out: [String: String] = [:]
        for line in text.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { out[String(parts[0])] = String(parts[1]) }
        }
        return out
    }

    @Test func sixteenBitWAVFromTheStandardFormat() throws {
        let url = Self.dir.appendingPathComponent("tone.wav")
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2,
                                       AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false, AVLinearPCMIsBigEndianKey: false]
        do {
            let file = try AVAudioFile(forWriting: url, settings: settings)
            #expect(file.processingFormat.isStandard && file.processingFormat.sampleRate == 44_100 && file.processingFormat.channelCount == 2)
            #expect(file.fileFormat.commonFormat == .pcmFormatInt16 && file.fileFormat.isInterleaved)
            for k in 0..<11 { try file.write(from: Self.tone(file.processingFormat, frames: 4_410, from: k * 4_410)) }
            #expect(file.length == 48_510 && file.framePosition == 48_510)
        }   // finished when the object goes away
        let probed = try Self.probe(url)
        #expect(probed["codec_name"] == "pcm_s16le" && probed["sample_rate"] == "44100" && probed["channels"] == "2", "\(probed)")
        #expect(probed["duration"].flatMap(Double.init).map { abs($0 - 1.1) < 0.0001 } == true, "\(probed)")
        let back = try AVAudioFile(forReading: url)
        #expect(back.length == 48_510)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: 48_510))
        try back.read(into: buffer)
        let expected = try Self.tone(back.processingFormat, frames: 48_510)
        var worst: Float = 0
        for c in 0..<2 { for i in 0..<48_510 { worst = max(worst, abs(buffer.floatChannelData![c][i] - expected.floatChannelData![c][i])) } }
        #expect(worst <= 1.0 / 32_768 + 1e-6, "largest difference \(worst)")
    }

    @Test func aacInM4AReadsBackAtItsLength() throws {
        let url = Self.dir.appendingPathComponent("tone.m4a")
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 48_000.0, AVNumberOfChannelsKey: 2,
                                       AVEncoderBitRateKey: 128_000]
        let file = try AVAudioFile(forWriting: url, settings: settings)
        #expect(file.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatMPEG4AAC)
        for k in 0..<20 { try file.write(from: Self.tone(file.processingFormat, frames: 4_800, from: k * 4_800)) }
        file.close()
        #expect(!file.isOpen)
        #expect(throws: (any Error).self) { try file.write(from: Self.tone(file.processingFormat, frames: 10)) }
        let probed = try Self.probe(url)
        #expect(probed["codec_name"] == "aac" && probed["sample_rate"] == "48000" && probed["channels"] == "2", "\(probed)")
        let back = try AVAudioFile(forReading: url)
        #expect(back.length == 96_000, "priming hidden by the edit list: \(back.length)")
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: 100_000))
        try back.read(into: buffer)
        #expect(buffer.frameLength == 96_000)
        // The tone comes back in place: the middle second matches best with no shift (FFmpeg's
        // AAC encoder keeps a pure tone at ~25 dB at this rate; a shift of 3 samples drops below 15).
        let expected = try Self.tone(back.processingFormat, frames: 96_000)
        func snr(lag: Int) -> Double {
            var error = 0.0, power = 0.0
            for i in 24_000..<72_000 {
                let d = Double(buffer.floatChannelData![0][i + lag] - expected.floatChannelData![0][i])
                error += d * d
                power += Double(expected.floatChannelData![0][i] * expected.floatChannelData![0][i])
            }
            return 10 * log10(power / max(error, 1e-12))
        }
        let aligned = snr(lag: 0)
        #expect(aligned > 18 && aligned > snr(lag: 3) + 5 && aligned > snr(lag: -3) + 5, "signal to noise \(aligned) dB")
    }

    @Test func appleLosslessInM4AIsExact() throws {
        let url = Self.dir.appendingPathComponent("lossless.m4a")
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2,
                                       AVEncoderBitDepthHintKey: 16]
        let file = try AVAudioFile(forWriting: url, settings: settings, commonFormat: .pcmFormatInt16, interleaved: true)
        let written = try Self.tone(file.processingFormat, frames: 30_000)
        try file.write(from: written)
        file.close()
        #expect(try Self.probe(url)["codec_name"] == "alac")
        let back = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt16, interleaved: true)
        #expect(back.length == 30_000)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: 30_000))
        try back.read(into: buffer)
        #expect(buffer.frameLength == 30_000)
        let same = memcmp(buffer.int16ChannelData![0], written.int16ChannelData![0], 30_000 * 4) == 0
        #expect(same, "Apple Lossless gives back every sample")
    }

    @Test func settingsTheFileTypeCannotHoldFailWithFmt() throws {
        let url = Self.dir.appendingPathComponent("aac.wav")
        #expect {
            try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2])
        } throws: { error in
            let e = error as NSError
            return e.domain == "com.apple.coreaudio.avfaudio" && e.code == 1_718_449_215
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        // No file type for the name.
        #expect(throws: (any Error).self) {
            try AVAudioFile(forWriting: Self.dir.appendingPathComponent("tone.xyz"),
                            settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 1])
        }
        // AVAudioFileTypeKey chooses the type whatever the name.
        let typed = Self.dir.appendingPathComponent("typed.dat")
        let file = try AVAudioFile(forWriting: typed, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 8_000.0,
                                                                 AVNumberOfChannelsKey: 1, AVAudioFileTypeKey: kAudioFileAIFFType_,
                                                                 AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false,
                                                                 AVLinearPCMIsBigEndianKey: true])
        try file.write(from: Self.tone(file.processingFormat, frames: 800))
        file.close()
        #expect(try Self.probe(typed)["codec_name"] == "pcm_s16be")
    }
}

/// 'AIFF' (AudioToolbox's kAudioFileAIFFType, which this package does not declare).
private let kAudioFileAIFFType_: UInt32 = 0x4149_4646
