// AVAssetReaderAudioMixOutput and AVAudioMix: several tracks summed with their volumes and ramps
// sample by sample, clipped into integer formats, and the audio mix classes as Apple documents them.
import AVFoundation
import Foundation
import Testing

@Suite("AVAssetReaderAudioMixOutput and AVAudioMix")
struct AssetReaderAudioMixTests {
    /// Two mono tracks of one second at 44.1 kHz: 440 Hz and 1000 Hz at half scale.
    static let twoTones = AudioReaderMedia.make("two-tones.mov", [
        "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t):s=44100:d=1",
        "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*1000*t):s=44100:d=1",
        "-map", "0", "-map", "1", "-c:a", "pcm_s16le"])
    /// Two loud tracks in phase (0.9 of full scale each): their sum leaves the integer range.
    static let loud = AudioReaderMedia.make("loud.mov", [
        "-f", "lavfi", "-i", "aevalsrc=0.9*sin(2*PI*100*t):s=44100:d=0.2",
        "-f", "lavfi", "-i", "aevalsrc=0.9*sin(2*PI*100*t):s=44100:d=0.2",
        "-map", "0", "-map", "1", "-c:a", "pcm_s16le"])
    /// A mono 22.05 kHz track of one second and a stereo 44.1 kHz track of half a second.
    static let mixedFormats = AudioReaderMedia.make("mixed-formats.mkv", [
        "-f", "lavfi", "-i", "aevalsrc=0.3*sin(2*PI*300*t):s=22050:d=1",
        "-f", "lavfi", "-i", "aevalsrc=0.2*sin(2*PI*500*t)|0.1*sin(2*PI*800*t):s=44100:d=0.5",
        "-map", "0", "-map", "1", "-c:a", "pcm_s16le"])

    /// The samples of audio stream `index` of `url` as 32-bit floats (interleaved).
    static func source(_ url: URL, stream index: Int, rate: Int? = nil, channels: Int? = nil) -> [Float] {
        var args = ["-i", url.path, "-map", "0:a:\(index)"]
        if let rate { args += ["-ar", "\(rate)"] }
        if let channels { args += ["-ac", "\(channels)"] }
        return AudioReaderMedia.floats(AudioReaderMedia.ffmpeg(args + ["-f", "f32le", "-"]))
    }

    @Test("two tones mixed with a fixed volume on one and a ramp on the other, sample by sample")
    func volumesAndRamp() async throws {
        let a = Self.source(Self.twoTones, stream: 0), b = Self.source(Self.twoTones, stream: 1)
        try #require(a.count == 44100 && b.count == 44100)
        let result = try await AudioReaderMedia.read(Self.twoTones, settings: nil) { output, tracks in
            let first = AVMutableAudioMixInputParameters(track: tracks[0])
            first.setVolume(0.5, at: .zero)
            let second = AVMutableAudioMixInputParameters(track: tracks[1])
            second.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1,
                                 timeRange: CMTimeRange(start: CMTime(value: 1, timescale: 4), duration: CMTime(value: 1, timescale: 2)))
            let mix = AVMutableAudioMix()
            mix.inputParameters = [first, second]
            output.audioMix = mix
        }
        #expect(result.status == .completed)
        #expect(result.frames == 44100)
        #expect(result.firstTime == .zero)
        let asbd = try #require(result.asbd)
        #expect(asbd.mChannelsPerFrame == 1 && asbd.mSampleRate == 44100)
        let mixed = AudioReaderMedia.floats(result.data)
        var worst: Float = 0
        for i in 0..<44100 {
            let t = Double(i) / 44100
            // Volume 1 before the ramp's start (no earlier change), then the ramp, then its end volume.
            let g2: Float = t < 0.25 ? 1 : t < 0.75 ? Float((t - 0.25) / 0.5) : 1
            worst = max(worst, abs(mixed[i] - (0.5 * a[i] + g2 * b[i])))
        }
        #expect(worst < 1e-5, "largest difference \(worst)")
    }

    @Test("without an audio mix the tracks are summed at volume 1")
    func plainSum() async throws {
        let a = Self.source(Self.twoTones, stream: 0), b = Self.source(Self.twoTones, stream: 1)
        let result = try await AudioReaderMedia.read(Self.twoTones, settings: AudioReaderMedia.pcm(bits: 32, float: true))
        let mixed = AudioReaderMedia.floats(result.data)
        #expect(mixed.count == 44100)
        #expect(zip(mixed, zip(a, b)).allSatisfy { $0 == $1.0 + $1.1 })
    }

    @Test("a sum past full scale clips when the output is integer, and does not wrap around")
    func clipping() async throws {
        let a = Self.source(Self.loud, stream: 0), b = Self.source(Self.loud, stream: 1)
        let result = try await AudioReaderMedia.read(Self.loud, settings: AudioReaderMedia.pcm())
        #expect(result.status == .completed)
        let mixed = AudioReaderMedia.int16s(result.data)
        #expect(mixed.count == a.count)
        var clipped = 0
        for i in mixed.indices {
            let sum = a[i] + b[i]
            if sum >= 1 { #expect(mixed[i] == 32767); clipped += 1 } else if sum < -1 { #expect(mixed[i] == -32768); clipped += 1 } else {
                #expect(abs(Int(mixed[i]) - Int((sum * 32768).rounded())) <= 1)
            }
        }
        #expect(clipped > 1000)
    }

    @Test("tracks of different rates, channels and lengths: the richest format, the longest duration")
    func differentFormats() async throws {
        let result = try await AudioReaderMedia.read(Self.mixedFormats, settings: AudioReaderMedia.pcm(bits: 32, float: true))
        #expect(result.status == .completed)
        let asbd = try #require(result.asbd)
        #expect(asbd.mSampleRate == 44100 && asbd.mChannelsPerFrame == 2)
        #expect(result.frames == 44100)
        let mixed = AudioReaderMedia.floats(result.data)
        // After the stereo track ends, only the mono track (upsampled, on both sides) remains.
        let mono = Self.source(Self.mixedFormats, stream: 0, rate: 44100)
        var worst: Float = 0
        for i in 23000..<43000 {
            worst = max(worst, abs(mixed[2 * i] - mono[i]), abs(mixed[2 * i + 1] - mono[i]))
        }
        #expect(worst < 0.01, "largest difference from the mono track alone: \(worst)")
        // Before that, both: the stereo track's sides differ.
        let stereo = Self.source(Self.mixedFormats, stream: 1)
        for i in stride(from: 1000, to: 20000, by: 997) {
            #expect(abs(mixed[2 * i] - (mono[i] + stereo[2 * i])) < 0.01)
            #expect(abs(mixed[2 * i + 1] - (mono[i] + stereo[2 * i + 1])) < 0.01)
        }
    }

    @Test("the output keeps a copy of the audio mix; later changes to the original do nothing")
    func audioMixIsCopied() async throws {
        let a = Self.source(Self.twoTones, stream: 0)
        let result = try await AudioReaderMedia.read(Self.twoTones, settings: nil) { output, tracks in
            let silent = AVMutableAudioMixInputParameters(track: tracks[1])
            silent.setVolume(0, at: .zero)
            let mix = AVMutableAudioMix()
            mix.inputParameters = [silent]
            output.audioMix = mix
            silent.setVolume(1, at: .zero)
            mix.inputParameters = []
            #expect(output.audioMix?.inputParameters.count == 1)
        }
        #expect(AudioReaderMedia.floats(result.data) == a)
    }

    @Test("a time range trims the mix to the sample")
    func mixTimeRange() async throws {
        let full = try await AudioReaderMedia.read(Self.twoTones, settings: AudioReaderMedia.pcm())
        let range = CMTimeRange(start: CMTime(value: 10_001, timescale: 44100), duration: CMTime(value: 12_345, timescale: 44100))
        let part = try await AudioReaderMedia.read(Self.twoTones, settings: AudioReaderMedia.pcm(), timeRange: range)
        #expect(part.frames == 12_345)
        #expect(part.firstTime == CMTime(value: 10_001, timescale: 44100))
        #expect(part.data == full.data.subdata(in: 20_002 ..< 20_002 + 2 * 12_345))
    }

    @Test("the output's Apple-declared properties")
    func outputProperties() async throws {
        let tracks = try await AVURLAsset(url: Self.twoTones).loadTracks(withMediaType: .audio)
        let settings = AudioReaderMedia.pcm()
        let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: settings)
        #expect(output.audioTracks.map(\.trackID) == tracks.map(\.trackID))
        #expect(output.audioSettings?[AVLinearPCMBitDepthKey] as? Int == 16)
        #expect(output.audioMix == nil)
        #expect(output.audioTimePitchAlgorithm == .spectral)
        output.audioTimePitchAlgorithm = .varispeed
        #expect(output.audioTimePitchAlgorithm == .varispeed)
        #expect(output.mediaType == .audio)
        #expect(AVAudioTimePitchAlgorithm.spectral.rawValue == "Spectral")
        #expect(AVFormatIDKey == "AVFormatIDKey" && AVLinearPCMIsNonInterleaved == "AVLinearPCMIsNonInterleaved")
        #expect(AVAudioQuality.high.rawValue == 0x60)
    }

    @Test("compressed output and unsupported keys are refused as Apple refuses them: an exception at creation")
    func settingsRefused() async throws {
        let compressed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let tracks = try await AVURLAsset(url: AudioReaderMedia.stereo).loadTracks(withMediaType: .audio)
            _ = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: [AVFormatIDKey: kAudioFormatMPEG4AAC])
        }
        let message = String(decoding: try #require(compressed).standardErrorContent, as: UTF8.self)
        #expect(message.contains("AVAssetReaderAudioMixOutput initWithAudioTracks:audioSettings:] AVAssetReaderAudioMixOutput does not currently support compressed output"))
        let quality = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let tracks = try await AVURLAsset(url: AudioReaderMedia.stereo).loadTracks(withMediaType: .audio)
            _ = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: [AVFormatIDKey: kAudioFormatLinearPCM,
                                                                                  AVSampleRateConverterAudioQualityKey: AVAudioQuality.high.rawValue])
        }
        #expect(String(decoding: try #require(quality).standardErrorContent, as: UTF8.self).contains("AVSampleRateConverterAudioQualityKey is not supported"))
    }

    // MARK: AVAudioMix

    @Test("volume ramps as Apple's header describes them: steps hold, ramps interpolate, false past the last")
    func volumeRamps() {
        let parameters = AVMutableAudioMixInputParameters()
        #expect(parameters.trackID == kCMPersistentTrackID_Invalid)
        parameters.trackID = 7
        parameters.setVolume(1, at: .zero)
        let ramp = CMTimeRange(start: CMTime(value: 4, timescale: 1), duration: CMTime(value: 5, timescale: 1))
        parameters.setVolumeRamp(fromStartVolume: 0.5, toEndVolume: 0.2, timeRange: ramp)
        var start: Float = -1, end: Float = -1, range = CMTimeRange.invalid
        #expect(parameters.getVolumeRamp(for: .zero, startVolume: &start, endVolume: &end, timeRange: &range))
        #expect(start == 1 && end == 1 && range == CMTimeRange(start: .zero, duration: .zero))
        // Between the step and the ramp: the first ramp that starts later.
        #expect(parameters.getVolumeRamp(for: CMTime(value: 2, timescale: 1), startVolume: &start, endVolume: &end, timeRange: &range))
        #expect(start == 0.5 && end == 0.2 && range == ramp)
        #expect(parameters.getVolumeRamp(for: CMTime(value: 6, timescale: 1), startVolume: nil, endVolume: nil, timeRange: &range))
        #expect(range == ramp)
        #expect(!parameters.getVolumeRamp(for: CMTime(value: 10, timescale: 1), startVolume: &start, endVolume: &end, timeRange: &range))
        // A later ramp starting at the same time replaces the earlier one.
        parameters.setVolumeRamp(fromStartVolume: 0.1, toEndVolume: 0.9, timeRange: ramp)
        #expect(parameters.getVolumeRamp(for: CMTime(value: 5, timescale: 1), startVolume: &start, endVolume: &end, timeRange: nil))
        #expect(start == 0.1 && end == 0.9)
    }

    @Test("mixes and parameters copy as NSCopying/NSMutableCopying say")
    func copying() async throws {
        let tracks = try await AVURLAsset(url: Self.twoTones).loadTracks(withMediaType: .audio)
        let parameters = AVMutableAudioMixInputParameters(track: tracks[1])
        #expect(parameters.trackID == tracks[1].trackID)
        #expect(AVMutableAudioMixInputParameters(track: nil).trackID == kCMPersistentTrackID_Invalid)
        parameters.audioTimePitchAlgorithm = .timeDomain
        let mix = AVMutableAudioMix()
        #expect(mix.inputParameters.isEmpty)
        mix.inputParameters = [parameters]
        let frozen = try #require(mix.copy() as? AVAudioMix)
        #expect(!(frozen is AVMutableAudioMix))
        #expect(frozen.inputParameters.first?.trackID == tracks[1].trackID)
        #expect(frozen.inputParameters.first?.audioTimePitchAlgorithm == .timeDomain)
        #expect(!(frozen.inputParameters.first is AVMutableAudioMixInputParameters))
        let thawed = try #require(frozen.mutableCopy() as? AVMutableAudioMix)
        thawed.inputParameters = []
        #expect(frozen.inputParameters.count == 1)
        let editable = try #require(frozen.inputParameters[0].mutableCopy() as? AVMutableAudioMixInputParameters)
        editable.setVolume(0.25, at: .zero)
        var volume: Float = 0
        #expect(editable.getVolumeRamp(for: .zero, startVolume: &volume, endVolume: nil, timeRange: nil) && volume == 0.25)
        #expect(!frozen.inputParameters[0].getVolumeRamp(for: .zero, startVolume: nil, endVolume: nil, timeRange: nil))
    }
}
