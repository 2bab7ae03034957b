// Audio mixes applied sample-accurately (book §10 R10.3–R10.5 and acceptance A12) through
// AVAssetReaderAudioMixOutput and export, and scaled audio edits keeping their pitch (Apple's
// Spectral/TimeDomain) or not (Varispeed) — gains and pitches measured with Goertzel on what the
// reader delivers and on ffmpeg's decode of the exported file.
@testable import AVFoundation
import CoreMedia
import Foundation
import Testing
import TestSupport

enum EnvelopeMedia {
    static let rate = 44100
    /// 15 s of "music": a 440 Hz sine at amplitude 0.5, mono 16-bit.
    static let music = AudioReaderMedia.make("a12-music.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t):s=44100:d=15",
                                                              "-c:a", "pcm_s16le"])
    /// 3 s of "voice-over": a 1 kHz sine at amplitude 0.5.
    static let voiceOver = AudioReaderMedia.make("a12-vo.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=44100:d=3",
                                                               "-c:a", "pcm_s16le"])
    /// 9 s of the 440 Hz tone (R10.5's timeline).
    static let nineSeconds = AudioReaderMedia.make("r105-tone.wav", ["-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t):s=44100:d=9",
                                                                   "-c:a", "pcm_s16le"])

    static func time(_ s: Double) -> CMTime { CMTime(value: Int64((s * 44100).rounded()), timescale: 44100) }
    static func range(_ start: Double, _ end: Double) -> CMTimeRange { CMTimeRange(start: time(start), end: time(end)) }

    static func track(_ url: URL) async throws -> AVAssetTrack {
        try #require(try await AVURLAsset(url: url).loadTracks(withMediaType: .audio).first)
    }

    /// The amplitude of `frequency` in `samples[first ..< first + count]` (Goertzel, rectangular
    /// window: exact when the window holds whole cycles of every tone present).
    static func amplitude(_ samples: [Float], frequency: Double, first: Int, count: Int) -> Double {
        guard first >= 0, first + count <= samples.count else { return .nan }
        let w = 2 * Double.pi * frequency / Double(rate)
        var re = 0.0, im = 0.0
        for n in 0..<count {
            let x = Double(samples[first + n])
            re += x * cos(w * Double(n))
            im -= x * sin(w * Double(n))
        }
        return 2 * (re * re + im * im).squareRoot() / Double(count)
    }

    /// The gain of a tone of amplitude 0.5 over the 50 ms centred on `t` (whole cycles of 220,
    /// 440 and 1000 Hz).
    static func gain(_ samples: [Float], _ frequency: Double, at t: Double) -> Double {
        let count = 2205
        return amplitude(samples, frequency: frequency, first: Int((t * Double(rate)).rounded()) - count / 2, count: count) / 0.5
    }

    /// The A12 timeline: music over [0, 15), the voice-over's 3 s at [2, 5).
    static func a12Asset() async throws -> AVAsset {
        let music = try await track(music), vo = try await track(voiceOver)
        return AVAsset(segmentedTracks: [
            (trackID: 1, segments: [MediaSegment(fileTrack: music, sourceRange: range(0, 15), targetRange: range(0, 15))]),
            (trackID: 2, segments: [MediaSegment(emptyTargetRange: range(0, 2)),
                                    MediaSegment(fileTrack: vo, sourceRange: range(0, 3), targetRange: range(2, 5))]),
        ])
    }

    /// R10.7's automation on the music track (track 1): fades in and out over 1.5 s, ducking to
    /// 0.2 over 0.5 s around the voice-over at [2, 5).
    static func a12Mix() -> AVMutableAudioMix {
        let music = AVMutableAudioMixInputParameters()
        music.trackID = 1
        music.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: range(0, 1.5))
        music.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0.2, timeRange: range(1.5, 2))
        music.setVolumeRamp(fromStartVolume: 0.2, toEndVolume: 1, timeRange: range(5, 5.5))
        music.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: range(13.5, 15))
        let mix = AVMutableAudioMix()
        mix.inputParameters = [music]
        return mix
    }

    /// Reads every audio track of `asset` mixed, mono float at 44.1 kHz.
    static func readMix(_ asset: AVAsset, mix: AVAudioMix?, algorithm: AVAudioTimePitchAlgorithm? = nil) async throws -> [Float] {
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: AudioReaderMedia.pcm(bits: 32, float: true, channels: 1))
        output.audioMix = mix
        if let algorithm { output.audioTimePitchAlgorithm = algorithm }
        return try readAll(output, of: reader)
    }

    /// Adds `output` to `reader`, reads it to the end and returns its float samples.
    static func readAll(_ output: AVAssetReaderOutput, of reader: AVAssetReader) throws -> [Float] {
        reader.add(output)
        #expect(reader.startReading())
        var data = Data()
        while let buffer = output.copyNextSampleBuffer() {
            let block = try #require(CMSampleBufferGetDataBuffer(buffer))
            var bytes = Data(count: CMBlockBufferGetDataLength(block))
            _ = bytes.withUnsafeMutableBytes { CMBlockBufferCopyDataBytes(block, atOffset: 0, dataLength: $0.count, destination: $0.baseAddress!) }
            data.append(bytes)
        }
        #expect(reader.status == .completed, "\(String(describing: reader.error))")
        return AudioReaderMedia.floats(data)
    }

    /// Exports `asset` with the AppleM4A preset (AAC) to `name`.m4a and returns ffmpeg's decode of
    /// it, mono float at 44.1 kHz.
    static func exportM4A(_ asset: AVAsset, name: String, configure: (AVAssetExportSession) -> Void = { _ in }) async throws -> [Float] {
        let out = try AssetFixtures.tempDirectory().appendingPathComponent("\(name).m4a")
        try? FileManager.default.removeItem(at: out)
        let session = try #require(AVAssetExportSession(asset: asset, presetName: AVAssetExportPresetAppleM4A))
        session.outputURL = out
        session.outputFileType = .m4a
        configure(session)
        await session.export()
        #expect(session.status == .completed, "\(String(describing: session.error))")
        return AudioReaderMedia.floats(AudioReaderMedia.ffmpeg(["-i", out.path, "-map", "0:a:0", "-ac", "1", "-ar", "44100", "-f", "f32le", "-"]))
    }

    /// Every point A12 names: (time, expected 440 Hz gain).
    static let a12Music: [(Double, Double)] = [
        (0.75, 0.5), (1.5, 1.0), (1.75, 0.6), (2.05, 0.2), (2.5, 0.2), (3.5, 0.2), (4.5, 0.2), (4.95, 0.2),
        (5.25, 0.6), (5.5, 1.0), (6, 1.0), (10, 1.0), (14.25, 0.5), (14.97, 0.02),
    ]

    static func checkA12(_ samples: [Float], tolerance: Double = 0.03) {
        for (t, expected) in a12Music {
            let g = gain(samples, 440, at: t)
            #expect(abs(g - expected) <= tolerance, "440 Hz gain at \(t) s: \(g), expected \(expected)")
        }
        // The voice-over is not attenuated, and is heard only over [2, 5).
        for t in [2.1, 3.0, 4.0, 4.9] {
            let g = gain(samples, 1000, at: t)
            #expect(abs(g - 1) <= tolerance, "1 kHz gain at \(t) s: \(g)")
        }
        for t in [1.0, 5.5, 8.0] { #expect(gain(samples, 1000, at: t) <= tolerance, "1 kHz at \(t) s") }
    }
}

@Suite("Audio mix envelopes and time-pitch", .serialized)
struct AudioMixEnvelopeTests {
    typealias M = EnvelopeMedia

    /// R10.5's parameters: 0.5 at 0; 0.5→0.8 over [2, 4); 0.3 at 7.
    static func r105Parameters(trackID: CMPersistentTrackID) -> AVMutableAudioMixInputParameters {
        let parameters = AVMutableAudioMixInputParameters()
        parameters.trackID = trackID
        parameters.setVolume(0.5, at: .zero)
        parameters.setVolumeRamp(fromStartVolume: 0.5, toEndVolume: 0.8, timeRange: M.range(2, 4))
        parameters.setVolume(0.3, at: M.time(7))
        return parameters
    }

    /// gain(t) from the ramps `getVolumeRamp` reports (walked from time zero), by the rules of
    /// R10.3/R10.4: 1 before any, a ramp interpolates in its range and then holds its end volume.
    static func gain(_ parameters: AVAudioMixInputParameters, at t: Double) -> Float {
        var ramps: [(Float, Float, CMTimeRange)] = []
        var probe = CMTime.zero
        var start: Float = 0, end: Float = 0, range = CMTimeRange.invalid
        while parameters.getVolumeRamp(for: probe, startVolume: &start, endVolume: &end, timeRange: &range), ramps.count < 100 {
            ramps.append((start, end, range))
            probe = range.duration > .zero ? range.end : range.start + CMTime(value: 1, timescale: 1_000_000)
        }
        let time = M.time(t)
        guard let (v0, v1, r) = ramps.last(where: { $0.2.start <= time }) else { return 1 }
        guard (time < r.end), (r.duration > .zero) else { return v1 }
        return v0 + (v1 - v0) * Float((time - r.start).seconds / r.duration.seconds)
    }

    static let r105: [(Double, Float)] = [(1, 0.5), (3, 0.65), (4, 0.8), (5.5, 0.8), (6.9, 0.8), (7, 0.3), (8.5, 0.3)]

    @Test("R10.5: gain(t) from getVolumeRamp is 0.50 at 1 s, 0.65 at 3 s, 0.80 over 4…7 s, 0.30 from 7 s")
    func r105FromGetVolumeRamp() {
        let parameters = Self.r105Parameters(trackID: 1)
        for (t, expected) in Self.r105 {
            #expect(abs(Self.gain(parameters, at: t) - expected) < 1e-6, "gain at \(t) s")
        }
        var start: Float = 0, end: Float = 0, range = CMTimeRange.invalid
        // Inside the ramp: the ramp itself.
        #expect(parameters.getVolumeRamp(for: M.time(3), startVolume: &start, endVolume: &end, timeRange: &range))
        #expect(start == 0.5 && end == 0.8 && range == M.range(2, 4))
        // Past the last change: none.
        #expect(!parameters.getVolumeRamp(for: M.time(8), startVolume: &start, endVolume: &end, timeRange: &range))
    }

    @Test("R10.5 rendered: the mixed 440 Hz tone has gain 0.50, 0.65, 0.80 and 0.30 where the book says")
    func r105Rendered() async throws {
        let tone = try await M.track(M.nineSeconds)
        let asset = AVAsset(segmentedTracks: [(trackID: 1, segments: [MediaSegment(fileTrack: tone, sourceRange: M.range(0, 9),
                                                                                    targetRange: M.range(0, 9))])])
        let mix = AVMutableAudioMix()
        mix.inputParameters = [Self.r105Parameters(trackID: 1)]
        let samples = try await M.readMix(asset, mix: mix)
        #expect(samples.count == 9 * 44100)
        for (t, expected) in [(1.0, 0.5), (3.0, 0.65), (4.5, 0.8), (6.9, 0.8), (7.5, 0.3), (8.5, 0.3)] {
            let g = M.gain(samples, 440, at: t)
            #expect(abs(g - expected) <= 0.03, "gain at \(t) s: \(g), expected \(expected)")
        }
        // Sample-exact: the step at 7 s changes the gain on sample 7·44100 itself; the ramp's
        // samples are the linear interpolation at their own times.
        let source = AssetReaderAudioMixTests.source(M.nineSeconds, stream: 0)
        try #require(source.count == samples.count)
        var worst: Float = 0
        for n in stride(from: 0, to: samples.count, by: 7) {
            let t = Double(n) / 44100
            let g: Float = t < 2 ? 0.5 : t < 4 ? Float(0.5 + 0.3 * (t - 2) / 2) : t < 7 ? 0.8 : 0.3
            worst = max(worst, abs(samples[n] - g * source[n]))
        }
        #expect(worst < 1e-5, "largest difference from gain × source: \(worst)")
        #expect(abs(samples[7 * 44100 - 1] - 0.8 * source[7 * 44100 - 1]) < 1e-6)
        #expect(abs(samples[7 * 44100] - 0.3 * source[7 * 44100]) < 1e-6)
    }

    @Test("A12: fades and ducking on the music through AVAssetReaderAudioMixOutput; the voice-over untouched")
    func a12ThroughTheReader() async throws {
        let samples = try await M.readMix(try await M.a12Asset(), mix: M.a12Mix())
        #expect(samples.count == 15 * 44100)
        M.checkA12(samples)
        // Without the mix both tones play at full volume.
        let plain = try await M.readMix(try await M.a12Asset(), mix: nil)
        #expect(abs(M.gain(plain, 440, at: 3) - 1) <= 0.03)
    }

    @Test("A12 exported (AAC in M4A) and decoded by ffmpeg shows the same envelope")
    func a12ThroughExport() async throws {
        let decoded = try await M.exportM4A(try await M.a12Asset(), name: "a12-mix") { $0.audioMix = M.a12Mix() }
        #expect(abs(decoded.count - 15 * 44100) <= 1024, "\(decoded.count) frames")
        M.checkA12(decoded)
    }

    /// One second of the 440 Hz tone scaled to two seconds.
    static func scaledAsset() async throws -> AVAsset {
        let tone = try await M.track(M.music)
        return AVAsset(segmentedTracks: [(trackID: 1, segments: [MediaSegment(fileTrack: tone, sourceRange: M.range(1, 2),
                                                                              targetRange: M.range(0, 2))])])
    }

    @Test("a 1 s range scaled to 2 s keeps its pitch by default (Spectral), with TimeDomain and LowQualityZeroLatency; exact length",
          arguments: [nil, AVAudioTimePitchAlgorithm.spectral, .timeDomain, .lowQualityZeroLatency])
    func scaledKeepsPitch(_ algorithm: AVAudioTimePitchAlgorithm?) async throws {
        let samples = try await M.readMix(try await Self.scaledAsset(), mix: nil, algorithm: algorithm)
        #expect(samples.count == 2 * 44100)
        for t in [0.05, 0.5, 1.0, 1.5, 1.95] {
            let at440 = M.gain(samples, 440, at: t), at220 = M.gain(samples, 220, at: t)
            // The tone is there at its own pitch (a phase vocoder's level wavers a little).
            #expect(at440 > 0.8 && at440 < 1.1, "440 Hz at \(t) s: \(at440)")
            #expect(at220 < 0.05, "220 Hz at \(t) s: \(at220)")
        }
    }

    @Test("with Varispeed the scaled range plays at half speed: 220 Hz, exact length")
    func scaledVarispeed() async throws {
        let samples = try await M.readMix(try await Self.scaledAsset(), mix: nil, algorithm: .varispeed)
        #expect(samples.count == 2 * 44100)
        for t in [0.05, 0.5, 1.0, 1.5, 1.95] {
            #expect(abs(M.gain(samples, 220, at: t) - 1) <= 0.03, "220 Hz at \(t) s")
            #expect(M.gain(samples, 440, at: t) < 0.05, "440 Hz at \(t) s")
        }
    }

    @Test("an export renders the scaled edit with the session's audioTimePitchAlgorithm (Spectral by default)",
          arguments: [nil, AVAudioTimePitchAlgorithm.varispeed])
    func exportStretches(_ algorithm: AVAudioTimePitchAlgorithm?) async throws {
        let decoded = try await M.exportM4A(try await Self.scaledAsset(), name: "scaled-\(algorithm?.rawValue ?? "default")") { session in
            #expect(session.audioTimePitchAlgorithm == .spectral)
            if let algorithm { session.audioTimePitchAlgorithm = algorithm }
        }
        #expect(abs(decoded.count - 2 * 44100) <= 1024, "\(decoded.count) frames")
        let pitch = algorithm == .varispeed ? 220.0 : 440.0
        #expect(M.gain(decoded, pitch, at: 1) > 0.8, "\(pitch) Hz at 1 s: \(M.gain(decoded, pitch, at: 1))")
        #expect(M.gain(decoded, pitch == 440 ? 220 : 440, at: 1) < 0.05)
    }

    @Test("a track's audio mix input parameters choose its algorithm over the output's")
    func parametersAlgorithmWins() async throws {
        let parameters = AVMutableAudioMixInputParameters()
        parameters.trackID = 1
        parameters.audioTimePitchAlgorithm = .varispeed
        let mix = AVMutableAudioMix()
        mix.inputParameters = [parameters]
        let samples = try await M.readMix(try await Self.scaledAsset(), mix: mix, algorithm: .spectral)
        #expect(samples.count == 2 * 44100)
        #expect(abs(M.gain(samples, 220, at: 1) - 1) <= 0.03)
    }

    @Test("a track output reads a scaled edit with its own audioTimePitchAlgorithm, to the sample")
    func trackOutputStretches() async throws {
        let asset = try await Self.scaledAsset()
        let track = try #require(try await asset.loadTracks(withMediaType: .audio).first)
        for (algorithm, pitch) in [(AVAudioTimePitchAlgorithm.spectral, 440.0), (.varispeed, 220.0)] {
            let reader = try AVAssetReader(asset: asset)
            let output = AVAssetReaderTrackOutput(track: track, outputSettings: AudioReaderMedia.pcm(bits: 32, float: true))
            output.audioTimePitchAlgorithm = algorithm
            let samples = try M.readAll(output, of: reader)
            #expect(samples.count == 2 * 44100, "\(algorithm.rawValue)")
            #expect(M.gain(samples, pitch, at: 1) > 0.9, "\(algorithm.rawValue): \(M.gain(samples, pitch, at: 1)) at \(pitch) Hz")
        }
    }

    // MARK: Through AVMutableComposition (public API only)

    @Test("A12 built as the app builds it: a composition with music and a voice-over at 2 s, the mix on the music track")
    func a12Composition() async throws {
        let composition = AVMutableComposition()
        let music = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        let vo = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        try music.insertTimeRange(M.range(0, 15), of: try await M.track(M.music), at: .zero)
        try vo.insertTimeRange(M.range(0, 3), of: try await M.track(M.voiceOver), at: M.time(2))
        let parameters = AVMutableAudioMixInputParameters(track: music)
        parameters.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: M.range(0, 1.5))
        parameters.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0.2, timeRange: M.range(1.5, 2))
        parameters.setVolumeRamp(fromStartVolume: 0.2, toEndVolume: 1, timeRange: M.range(5, 5.5))
        parameters.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: M.range(13.5, 15))
        let mix = AVMutableAudioMix()
        mix.inputParameters = [parameters]
        let samples = try await M.readMix(composition, mix: mix)
        #expect(samples.count == 15 * 44100)
        M.checkA12(samples)
    }

    @Test("a composition track's preferredVolume scales it in the mix output (times its mix volume) and in an export")
    func preferredVolume() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        try track.insertTimeRange(M.range(0, 2), of: try await M.track(M.nineSeconds), at: .zero)
        track.preferredVolume = 0.25
        let parameters = AVMutableAudioMixInputParameters(track: track)
        parameters.setVolume(0.5, at: M.time(1))
        let mix = AVMutableAudioMix()
        mix.inputParameters = [parameters]
        let samples = try await M.readMix(composition, mix: mix)
        #expect(samples.count == 2 * 44100)
        #expect(abs(M.gain(samples, 440, at: 0.5) - 0.25) <= 0.01)
        #expect(abs(M.gain(samples, 440, at: 1.5) - 0.125) <= 0.01)
        // A track output gives the samples as decoded.
        let reader = try AVAssetReader(asset: composition)
        let plain = try M.readAll(AVAssetReaderTrackOutput(track: track, outputSettings: AudioReaderMedia.pcm(bits: 32, float: true)),
                                  of: reader)
        #expect(abs(M.gain(plain, 440, at: 0.5) - 1) <= 0.01)
        // An export without an audio mix still applies the preferred volume.
        let decoded = try await M.exportM4A(composition, name: "preferred-volume")
        #expect(abs(M.gain(decoded, 440, at: 1) - 0.25) <= 0.03, "exported gain \(M.gain(decoded, 440, at: 1))")
    }

    @Test("scaleTimeRange on a composition's audio: 1 s made 2 s keeps 440 Hz (Spectral), exact length")
    func compositionScale() async throws {
        let composition = AVMutableComposition()
        let track = try #require(composition.addMutableTrack(withMediaType: .audio, preferredTrackID: kCMPersistentTrackID_Invalid))
        try track.insertTimeRange(M.range(1, 2), of: try await M.track(M.music), at: .zero)
        composition.scaleTimeRange(M.range(0, 1), toDuration: M.time(2))
        #expect(composition.duration == M.time(2))
        let samples = try await M.readMix(composition, mix: nil)
        #expect(samples.count == 2 * 44100)
        #expect(M.gain(samples, 440, at: 1) > 0.8 && M.gain(samples, 220, at: 1) < 0.05)
    }
}
