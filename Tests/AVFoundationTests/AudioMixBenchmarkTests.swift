// A timing of the audio mixer, printed and never asserted: ten minutes of two stereo 48 kHz
// tracks read through AVAssetReaderAudioMixOutput with volume ramps on both. Runs only when
// AVF_MIX_BENCH is set (it reads 230 MB of PCM); compare the figure with the ffmpeg command it
// prints, which does the same gains and sum with the volume and amix filters.
import AVFoundation
import Foundation
import Testing

@Suite("Audio mixer timing (AVF_MIX_BENCH=1)")
struct AudioMixBenchmarkTests {
    @Test("ten minutes of two ramped tracks through AVAssetReaderAudioMixOutput",
          .enabled(if: ProcessInfo.processInfo.environment["AVF_MIX_BENCH"] != nil))
    func tenMinuteMix() async throws {
        let url = AudioReaderMedia.make("mix-bench-10min.mov", [
            "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*550*t):s=48000:d=600",
            "-f", "lavfi", "-i", "aevalsrc=0.3*sin(2*PI*1000*t)|0.3*sin(2*PI*1200*t):s=48000:d=600",
            "-map", "0", "-map", "1", "-c:a", "pcm_s16le"])
        let asset = AVURLAsset(url: url)
        let tracks = try await asset.loadTracks(withMediaType: .audio)
        let music = AVMutableAudioMixInputParameters(track: tracks[0])
        let voice = AVMutableAudioMixInputParameters(track: tracks[1])
        // A fade in, a duck every 30 s (0.5 s down, hold, 0.5 s up) and a fade out; the voice at 0.8.
        music.setVolumeRamp(fromStartVolume: 0, toEndVolume: 1, timeRange: Self.range(0, 1.5))
        for start in stride(from: 30.0, to: 570, by: 30) {
            music.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0.2, timeRange: Self.range(start, start + 0.5))
            music.setVolumeRamp(fromStartVolume: 0.2, toEndVolume: 1, timeRange: Self.range(start + 10, start + 10.5))
        }
        music.setVolumeRamp(fromStartVolume: 1, toEndVolume: 0, timeRange: Self.range(598.5, 600))
        voice.setVolume(0.8, at: .zero)
        let mix = AVMutableAudioMix()
        mix.inputParameters = [music, voice]
        let reader = try AVAssetReader(asset: asset)
        let output = AVAssetReaderAudioMixOutput(audioTracks: tracks, audioSettings: nil)
        output.audioMix = mix
        reader.add(output)
        let clock = ContinuousClock()
        let start = clock.now, startCPU = Self.cpuSeconds()
        #expect(reader.startReading())
        var frames = 0
        while let buffer = output.copyNextSampleBuffer() { frames += CMSampleBufferGetNumSamples(buffer) }
        let elapsed = clock.now - start, cpu = Self.cpuSeconds() - startCPU
        #expect(reader.status == .completed)
        #expect(frames == 48000 * 600)
        print("mix-bench: \(frames) frames of 2 stereo tracks mixed in \(elapsed) (\(cpu) s of CPU, all threads)")
        print("mix-bench: compare: time ffmpeg -v error -i \(url.path) -filter_complex "
              + "'[0:a:0]volume=0.8[a];[0:a:1]volume=0.8[b];[a][b]amix=inputs=2:normalize=0' -f f32le -y /dev/null")
    }

    /// User and system CPU time of this process so far (every thread), in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func range(_ start: Double, _ end: Double) -> CMTimeRange {
        CMTimeRange(start: CMTime(seconds: start, preferredTimescale: 48000), end: CMTime(seconds: end, preferredTimescale: 48000))
    }
}
