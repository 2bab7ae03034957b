// AudioTimeStretcher: a scaled audio edit's time stretch that keeps pitch (Apple's Spectral,
// TimeDomain and LowQualityZeroLatency time-pitch algorithms), through Rubber Band's real-time
// stretcher: planar float PCM in, the same channels and rate out, `ratio` times as long.
internal import CRubberBand
import Foundation

/// Stretches planar 32-bit float PCM by a fixed ratio without changing its pitch.
///
/// Rubber Band runs in its real-time mode (no study pass, so memory stays flat with the length of
/// the edit): the stretcher is primed with its preferred start pad of silence and its start delay
/// is dropped from the output, so output frame `k` lines up with input time `k / ratio`. Callers
/// count frames: the stretcher's output length is only about `ratio` times the input's.
package final class AudioTimeStretcher: @unchecked Sendable {
    // @unchecked Sendable: owns a Rubber Band state (a C handle) that one thread at a time uses (its owner's lock).
    private let state: RubberBandState
    private let channels: Int
    private let maxFrames: Int
    /// Output frames still to drop (the stretcher's start delay).
    private var toSkip: Int
    private let outputPlanes: UnsafeMutablePointer<Float>
    /// `maxFrames` zeros: the start pad, and what follows the input's end until its tail is out.
    private let silence: UnsafeMutablePointer<Float>
    private let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private let inputPointers: UnsafeMutablePointer<UnsafePointer<Float>?>
    package private(set) var isFinal = false

    /// The Rubber Band options standing for an Apple time-pitch algorithm (nil: `.varispeed`,
    /// which is resampling, not stretching). Spectral, the offline default, gets the finer R3
    /// engine; TimeDomain the faster R2 engine; LowQualityZeroLatency the faster engine with
    /// short windows. All keep pitch; channels are stretched together so stereo stays coherent.
    package static func options(for algorithm: AVAudioTimePitchAlgorithm) -> Int32? {
        let common = Int32(RubberBandOptionProcessRealTime.rawValue | RubberBandOptionThreadingNever.rawValue
                           | RubberBandOptionChannelsTogether.rawValue)
        switch algorithm {
        case .varispeed: return nil
        case .timeDomain: return common | Int32(RubberBandOptionEngineFaster.rawValue)
        case .lowQualityZeroLatency: return common | Int32(RubberBandOptionEngineFaster.rawValue | RubberBandOptionWindowShort.rawValue)
        default: return common | Int32(RubberBandOptionEngineFiner.rawValue)
        }
    }

    /// A stretcher making `ratio` times as many frames of `channels`-channel PCM at `sampleRate`,
    /// fed blocks of at most `maxFrames` frames; `pitchScale` other than 1 also shifts the pitch
    /// (`1 / ratio` with it is varispeed: the sound as if played faster or slower).
    package init(options: Int32, sampleRate: Int, channels: Int, ratio: Double, maxFrames: Int, pitchScale: Double = 1) {
        self.channels = channels
        self.maxFrames = maxFrames
        state = rubberband_new(UInt32(sampleRate), UInt32(channels), options, ratio, pitchScale)
        rubberband_set_max_process_size(state, UInt32(maxFrames))
        outputPlanes = .allocate(capacity: channels * maxFrames)
        outputPlanes.initialize(repeating: 0, count: channels * maxFrames)
        outputPointers = .allocate(capacity: channels)
        inputPointers = .allocate(capacity: channels)
        silence = .allocate(capacity: maxFrames)
        silence.initialize(repeating: 0, count: maxFrames)
        for c in 0..<channels { (outputPointers + c).initialize(to: outputPlanes + c * maxFrames) }
        inputPointers.initialize(repeating: nil, count: channels)
        toSkip = Int(rubberband_get_start_delay(state))
        // Prime with silence so the first real frame is not faded in; its delay is dropped above.
        processSilence(frameCount: Int(rubberband_get_preferred_start_pad(state)))
    }

    /// Feeds `frameCount` frames of silence (not final): after the input's end, this pushes the
    /// last real frames through the stretcher's latency while the caller still needs frames.
    package func processSilence(frameCount: Int) {
        var left = frameCount
        for c in 0..<channels { inputPointers[c] = UnsafePointer(silence) }
        while left > 0 {
            let n = min(left, maxFrames)
            rubberband_process(state, inputPointers, UInt32(n), 0)
            left -= n
        }
    }

    deinit {
        rubberband_delete(state)
        outputPlanes.deallocate()
        outputPointers.deallocate()
        inputPointers.deallocate()
        silence.deallocate()
    }

    /// Feeds `frameCount` planar frames (`data`: channel after channel); `final` after the last.
    package func process(_ data: Data, frameCount: Int, final: Bool) {
        data.withUnsafeBytes { raw in
            let floats = raw.bindMemory(to: Float.self).baseAddress
            var done = 0
            repeat {
                let n = min(frameCount - done, maxFrames)
                for c in 0..<channels {
                    // No frames (a bare final call): point at silence, never at nil.
                    inputPointers[c] = floats.map { $0 + c * frameCount + done } ?? UnsafePointer(silence)
                }
                rubberband_process(state, inputPointers, UInt32(n), final && done + n == frameCount ? 1 : 0)
                done += n
            } while done < frameCount
        }
        if final { isFinal = true }
    }

    /// Up to `maxFrames` stretched frames (planar), or nil when none are ready yet (or, after
    /// the final input, none are left).
    package func retrieve(maxFrames wanted: Int) -> (data: Data, frameCount: Int)? {
        while true {
            let available = Int(rubberband_available(state))
            guard available > 0 else { return nil }
            let n = min(available, wanted, maxFrames)
            let got = Int(rubberband_retrieve(state, outputPointers, UInt32(n)))
            guard got > 0 else { return nil }
            if toSkip > 0 {
                let skipped = min(toSkip, got)
                toSkip -= skipped
                if skipped == got { continue }
                return planes(from: skipped, count: got - skipped)
            }
            return planes(from: 0, count: got)
        }
    }

    private func planes(from first: Int, count: Int) -> (data: Data, frameCount: Int) {
        var data = Data(count: channels * count * MemoryLayout<Float>.size)
        data.withUnsafeMutableBytes { raw in
            let out = raw.bindMemory(to: Float.self).baseAddress!
            for c in 0..<channels {
                memcpy(out + c * count, outputPlanes + c * maxFrames + first, count * MemoryLayout<Float>.size)
            }
        }
        return (data, count)
    }
}
