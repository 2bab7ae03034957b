// AudioLevelMeter on synthetic signals: a full-scale sine reads 0 dB peak and −3.01 dB average,
// −6 dB amplitude reads −6 / −9.03, silence −160 (finite), channels are metered apart, odd frame
// counts and many channels fold correctly, and a peak is held for one second of sound then let go.
import CoreMedia
import Foundation
@testable import MediaEngine
import Testing

@Suite struct AudioLevelMeterTests {
    /// `frames` frames of interleaved sines, channel c with amplitude `amplitudes[c]`, 1 kHz at 48 kHz.
    private func sine(frames: Int, amplitudes: [Float], start: Int = 0, rate: Double = 48_000) -> [Float] {
        let n = amplitudes.count
        var samples = [Float](repeating: 0, count: frames * n)
        for f in 0..<frames {
            let value = sin(2 * Double.pi * 1000 * Double(start + f) / rate)
            for c in 0..<n { samples[f * n + c] = amplitudes[c] * Float(value) }
        }
        return samples
    }

    private func meter(_ meter: AudioLevelMeter, _ samples: [Float], frames: Int) {
        samples.withUnsafeBufferPointer { meter.process(interleaved: $0, frameCount: frames) }
    }

    @Test func fullScaleSineReadsZeroPeakAndMinusThreeAverage() {
        let m = AudioLevelMeter(channelCount: 1, sampleRate: 48_000)
        #expect(m.levels == [.silence])
        meter(m, sine(frames: 480, amplitudes: [1]), frames: 480)
        let level = m.level(ofChannel: 0)
        #expect(abs(level.peakHoldLevel - 0) < 0.001, "\(level)")
        #expect(abs(level.averagePowerLevel - (-3.0103)) < 0.005, "\(level)")
    }

    @Test func minusSixDecibelSineAndTwoDifferentChannels() {
        let m = AudioLevelMeter(channelCount: 2, sampleRate: 48_000)
        // Left at −6 dBFS, right at −20 dBFS.
        meter(m, sine(frames: 480, amplitudes: [0.501187, 0.1]), frames: 480)
        let left = m.level(ofChannel: 0), right = m.level(ofChannel: 1)
        #expect(abs(left.peakHoldLevel - (-6)) < 0.005, "\(left)")
        #expect(abs(left.averagePowerLevel - (-9.0103)) < 0.01, "\(left)")
        #expect(abs(right.peakHoldLevel - (-20)) < 0.005, "\(right)")
        #expect(abs(right.averagePowerLevel - (-23.0103)) < 0.01, "\(right)")
        #expect(m.level(ofChannel: 2) == .silence)
    }

    @Test func silenceIsMinus160AndFinite() {
        let m = AudioLevelMeter(channelCount: 2, sampleRate: 48_000)
        meter(m, [Float](repeating: 0, count: 960), frames: 480)
        for level in m.levels {
            #expect(level.averagePowerLevel == -160 && level.peakHoldLevel == -160)
            #expect(level.averagePowerLevel.isFinite)
        }
        // Below the floor too (1e-9 amplitude = −180 dB).
        meter(m, [Float](repeating: 1e-9, count: 960), frames: 480)
        #expect(m.levels.allSatisfy { $0.averagePowerLevel == -160 && $0.peakHoldLevel == -160 })
        #expect(AudioLevelMeter.decibels(power: .nan) == -160)
    }

    @Test func oddFrameCountsAndSixChannelsFoldCorrectly() {
        // 441 frames (odd at every halving step but the last few), six channels with a known
        // peak planted in each at a different frame, the rest constant.
        let frames = 441, channels = 6
        var samples = [Float](repeating: 0.25, count: frames * channels)
        let peaks: [Float] = [0.9, -0.8, 0.7, -0.6, 0.5, 0.4]
        for c in 0..<channels { samples[((c * 73 + 11) % frames) * channels + c] = peaks[c] }
        let m = AudioLevelMeter(channelCount: channels, sampleRate: 44_100)
        meter(m, samples, frames: frames)
        for c in 0..<channels {
            let level = m.level(ofChannel: c)
            #expect(abs(level.peakHoldLevel - 20 * log10(abs(peaks[c]))) < 0.001, "channel \(c): \(level)")
            let meanSquare = (Float(frames - 1) * 0.0625 + peaks[c] * peaks[c]) / Float(frames)
            #expect(abs(level.averagePowerLevel - 10 * log10(meanSquare)) < 0.001, "channel \(c): \(level)")
        }
    }

    @Test func peaksAreHeldForOneSecondThenLetGo() {
        let m = AudioLevelMeter(channelCount: 1, sampleRate: 48_000)
        meter(m, sine(frames: 480, amplitudes: [0.5]), frames: 480)
        let loud = m.level(ofChannel: 0).peakHoldLevel
        #expect(abs(loud - 20 * log10(0.5)) < 0.005)
        let silence = [Float](repeating: 0, count: 480)
        // 99 chunks of silence: the loud chunk's last frame is still inside the last second.
        for _ in 0..<99 { meter(m, silence, frames: 480) }
        #expect(m.level(ofChannel: 0).peakHoldLevel == loud)
        #expect(m.level(ofChannel: 0).averagePowerLevel == -160)
        // The 100th pushes it out.
        meter(m, silence, frames: 480)
        #expect(m.level(ofChannel: 0).peakHoldLevel == -160)
        // A quieter peak after a louder one is held once the louder one leaves.
        meter(m, sine(frames: 480, amplitudes: [1]), frames: 480)
        meter(m, sine(frames: 480, amplitudes: [0.25]), frames: 480)
        #expect(abs(m.level(ofChannel: 0).peakHoldLevel) < 0.001)
        for _ in 0..<99 { meter(m, silence, frames: 480) }
        #expect(abs(m.level(ofChannel: 0).peakHoldLevel - 20 * log10(0.25)) < 0.005)
        m.reset()
        #expect(m.levels == [.silence])
    }

    @Test func metersChunksOfItsChannelCount() {
        let m = AudioLevelMeter(channelCount: 2, sampleRate: 48_000)
        let samples = sine(frames: 480, amplitudes: [1, 1])
        let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
        let format = LiveAudioFormat(sampleRate: 48_000, channelCount: 2)
        m.process(LiveAudioChunk(samples: data, frameCount: 480, format: format, pts: .zero, isDiscontinuity: true))
        #expect(abs(m.level(ofChannel: 1).peakHoldLevel) < 0.001)
        // A mono chunk is not this meter's: ignored.
        m.reset()
        m.process(LiveAudioChunk(samples: data, frameCount: 960, format: LiveAudioFormat(sampleRate: 48_000, channelCount: 1),
                                 pts: .zero, isDiscontinuity: true))
        #expect(m.levels == [.silence, .silence])
    }
}
