// AVAudioFile reading: formats, length, every sample as ffmpeg decodes it, seeking by frame, the
// end, and Apple's errors for a missing or non-audio file.
import AVFAudio
import Foundation
import Testing
import TestSupport

@Suite(.serialized) struct AVAudioFileTests {
    static let dir = TestTools.makeTemporaryDirectory("avfaudio-file")

    /// `name` made by ffmpeg from `args` (once).
    static func make(_ name: String, _ args: [String]) throws -> URL {
        let url = dir.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: url.path) {
            let (status, _) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + args + [url.path])
            try #require(status == 0)
        }
        return url
    }

    /// ffmpeg's decode of `url` as interleaved float32.
    static func reference(_ url: URL) throws -> [Float] {
        let data = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-i", url.path, "-f", "f32le", "-"]).output
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// One second of 440 Hz left, 660 Hz right, 16-bit at 44.1 kHz.
    static func stereoWAV() throws -> URL {
        try make("tones.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)|0.25*sin(2*PI*660*t):s=44100:d=1", "-c:a", "pcm_s16le"])
    }

    @Test func aWAVReadsEverySampleInTheStandardFormat() throws {
        let url = try Self.stereoWAV()
        let file = try AVAudioFile(forReading: url)
        #expect(file.url == url && file.length == 44_100 && file.framePosition == 0)
        #expect(file.fileFormat.commonFormat == .pcmFormatInt16 && file.fileFormat.isInterleaved)
        #expect(file.fileFormat.sampleRate == 44_100 && file.fileFormat.channelCount == 2)
        #expect(file.processingFormat.isStandard && file.processingFormat.channelCount == 2 && file.processingFormat.sampleRate == 44_100)
        let expected = try Self.reference(url)
        try #require(expected.count == 2 * 44_100)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096))
        var left: [Float] = [], right: [Float] = []
        while true {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { break }
            let n = Int(buffer.frameLength)
            left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: n)
            right += UnsafeBufferPointer(start: buffer.floatChannelData![1], count: n)
        }
        #expect(file.framePosition == 44_100)
        #expect(left.count == 44_100 && right.count == 44_100)
        var worst: Float = 0
        for i in 0..<min(left.count, right.count, 44_100) {
            worst = max(worst, abs(left[i] - expected[2 * i]), abs(right[i] - expected[2 * i + 1]))
        }
        #expect(worst < 1e-6, "largest difference \(worst)")
    }

    @Test func framePositionSeeksAndFrameCountLimitsARead() throws {
        let url = try Self.stereoWAV()
        let expected = try Self.reference(url)
        let file = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt16, interleaved: true)
        #expect(file.processingFormat.commonFormat == .pcmFormatInt16 && file.processingFormat.isInterleaved)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1000))
        file.framePosition = 22_050
        try file.read(into: buffer, frameCount: 100)
        #expect(buffer.frameLength == 100 && file.framePosition == 22_150)
        let samples = buffer.int16ChannelData![0]
        var worst: Float = 0
        for i in 0..<200 { worst = max(worst, abs(Float(samples[i]) / 32768 - expected[2 * 22_050 + i])) }
        #expect(worst < 1e-6, "largest difference \(worst)")
        // The last frames, then nothing.
        file.framePosition = 44_000
        try file.read(into: buffer)
        #expect(buffer.frameLength == 100)
        try file.read(into: buffer)
        #expect(buffer.frameLength == 0 && file.framePosition == 44_100)
        // A buffer of another format is refused.
        let other = try #require(AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!, frameCapacity: 10))
        #expect(throws: (any Error).self) { try file.read(into: other) }
    }

    @Test func compressedFilesReadAtTheirLengthWithoutPriming() throws {
        let url = try Self.make("tone.m4a", ["-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=2", "-c:a", "aac", "-b:a", "128k"])
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatMPEG4AAC)
        #expect(file.fileFormat.channelCount == 1 && file.processingFormat.sampleRate == 48_000)
        #expect(file.length == 96_000)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 96_000 + 4096))
        try file.read(into: buffer)
        #expect(buffer.frameLength == 96_000)
        let expected = try Self.reference(url)
        let samples = UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
        let worst = zip(samples, expected).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-4, "largest difference from ffmpeg's decode: \(worst)")
    }

    /// Gapless information in the file, as Apple's readers honour it: an MP3's LAME header and
    /// an M4A without an edit list whose iTunSMPB tag gives the priming, the padding and the
    /// length. Both read at exactly the length encoded, the tone's first sample first.
    @Test func gaplessInformationGivesTheExactLength() throws {
        let tone = ["-f", "lavfi", "-i", "sine=frequency=441:sample_rate=44100:duration=1"]
        let mp3 = try Self.make("lame.mp3", tone + ["-c:a", "libmp3lame", "-b:a", "128k"])
        let m4a = try Self.make("itunsmpb.m4a", tone + ["-c:a", "aac", "-use_editlist", "0"])
        // ffmpeg's AAC encoder: 1024 frames of priming, 44100 frames, 956 of padding to 45 packets.
        let smpb = " 00000000 00000400 000003BC 000000000000AC44" + String(repeating: " 00000000", count: 8)
        _ = try TestTools.run("python3", ["-c", """
            from mutagen.mp4 import MP4, MP4FreeForm
            f = MP4('\(m4a.path)'); f['----:com.apple.iTunes:iTunSMPB'] = [MP4FreeForm(b'\(smpb)')]; f.save()
            """])
        for url in [mp3, m4a] {
            let file = try AVAudioFile(forReading: url)
            #expect(file.length == 44_100, "\(url.lastPathComponent): \(file.length) frames")
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 44_100 + 4096))
            try file.read(into: buffer)
            #expect(buffer.frameLength == 44_100, "\(url.lastPathComponent): read \(buffer.frameLength) frames")
            // The tone starts at the first frame: sin(2π·441·n/44100) rises from 0 (the codec's
            // error is small against the 0.125 amplitude at 1/100 of a period… checked over 20 frames).
            let samples = UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
            var error: Float = 0
            for n in 1..<20 {
                let expected = Float(0.125 * sin(2 * Double.pi * 441 * Double(n) / 44_100))
                error = max(error, abs(samples[n] - expected))
            }
            #expect(error < 0.02, "\(url.lastPathComponent): the tone is \(error) from where it starts")
            // Frame positions count from that first frame: a seek lands on the tone's frame.
            file.framePosition = 22_050
            let part = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 100))
            try file.read(into: part)
            var seekError: Float = 0
            for n in 0..<Int(part.frameLength) {
                let expected = Float(0.125 * sin(2 * Double.pi * 441 * Double(22_050 + n) / 44_100))
                seekError = max(seekError, abs(part.floatChannelData![0][n] - expected))
            }
            #expect(part.frameLength == 100 && seekError < 0.02, "\(url.lastPathComponent): \(seekError) after a seek")
            // The player says the same length.
            #expect(try AVAudioPlayer(contentsOf: url).duration == 1.0)
        }
    }

    @Test func missingAndNonAudioFilesThrowAppleErrors() throws {
        let missing = Self.dir.appendingPathComponent("nothing-here.wav")
        #expect {
            try AVAudioFile(forReading: missing)
        } throws: { error in
            let e = error as NSError
            return e.domain == "com.apple.coreaudio.avfaudio" && e.code == -43
        }
        let text = Self.dir.appendingPathComponent("not-audio.wav")
        try Data("not a sound".utf8).write(to: text)
        #expect {
            try AVAudioFile(forReading: text)
        } throws: { error in
            let e = error as NSError
            return e.domain == "com.apple.coreaudio.avfaudio" && e.code == 1_954_115_647
        }
    }
}
