// AudioLevelMeter: per-channel levels of live sound — the average power of the latest chunk and the
// peak held over the last second, in dBFS — what AVCaptureAudioChannel's averagePowerLevel and
// peakHoldLevel report. The arithmetic runs in VOLK kernels, never a per-sample Swift loop.
internal import CVolk
import Foundation
import Synchronization

/// The levels of one channel, in decibels relative to full scale (1.0): −160 for silence (Apple's
/// floor for its meters; always finite), 0 for a full-scale peak; a float sample above 1.0 reads
/// above 0.
package struct AudioChannelLevel: Sendable, Equatable {
    /// The RMS power of the latest chunk: 20·log10(RMS). A full-scale sine reads −3.01.
    package var averagePowerLevel: Float
    /// The largest |sample| over the hold window (the latest chunks spanning ~1 s): 20·log10(peak).
    package var peakHoldLevel: Float

    package static let silence = AudioChannelLevel(averagePowerLevel: AudioLevelMeter.floor, peakHoldLevel: AudioLevelMeter.floor)
}

/// Meters interleaved Float32 sound chunk by chunk (`process`), for any number of channels; read
/// the levels from any thread (`levels`, `level(ofChannel:)`) — they describe the latest chunk
/// (average) and the hold window ending with it (peak).
///
/// Per chunk of F frames × N channels: the squares of all samples (`volk_32f_x2_multiply_32f`),
/// then the F rows of N squares are folded in halves — the last ⌊rows/2⌋ rows added onto
/// (`volk_32f_x2_add_32f`) or maxed into (`volk_32f_x2_max_32f`) the first ones, contiguous runs
/// of ⌊rows/2⌋·N floats — until one row of N channel sums (and N channel maxima) is left:
/// ⌈log2 F⌉ kernel calls each, no deinterleaving and no per-sample Swift. The pairwise sum is also
/// more accurate than a running one. Average = 10·log10(Σx²/F), peak = 10·log10(max x²).
package final class AudioLevelMeter: Sendable {
    /// The level reported for silence (and anything quieter): −160 dBFS.
    package static let floor: Float = -160

    package let channelCount: Int
    package let sampleRate: Double
    /// How long a peak is held, in frames (the sample-time span of the window).
    package let holdFrames: Int64

    private struct State {
        var current: [AudioChannelLevel]
        /// Per channel, the chunk peaks (squared) that can still become the window's maximum, oldest
        /// first with falling values: (end frame of the chunk, peak²). The front is the held peak.
        var holds: [[(end: Int64, square: Float)]]
        var framesSeen: Int64 = 0
        var squares: [Float] = []
        var maxima: [Float] = []
    }
    private let state: Mutex<State>

    /// A meter for `channelCount` channels at `sampleRate`, holding peaks for `holdDuration` seconds.
    package init(channelCount: Int, sampleRate: Double, holdDuration: Double = 1) {
        precondition(channelCount > 0 && sampleRate > 0, "a meter needs channels and a sample rate")
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        holdFrames = max(1, Int64((holdDuration * sampleRate).rounded()))
        state = Mutex(State(current: Array(repeating: .silence, count: channelCount),
                            holds: Array(repeating: [], count: channelCount)))
    }

    /// The levels of every channel after the latest chunk (silence before the first).
    package var levels: [AudioChannelLevel] { state.withLock { $0.current } }

    /// The levels of one channel (silence for a channel the meter does not have).
    package func level(ofChannel channel: Int) -> AudioChannelLevel {
        state.withLock { $0.current.indices.contains(channel) ? $0.current[channel] : .silence }
    }

    /// Forgets every chunk: levels back to silence, the hold window empty.
    package func reset() {
        state.withLock { state in
            state.current = Array(repeating: .silence, count: channelCount)
            state.holds = Array(repeating: [], count: channelCount)
            state.framesSeen = 0
        }
    }

    /// Meters a captured chunk (its channel count must be the meter's; other chunks are ignored).
    package func process(_ chunk: LiveAudioChunk) {
        guard chunk.format.channelCount == channelCount else { return }
        chunk.samples.withUnsafeBytes { raw in
            let floats = raw.bindMemory(to: Float.self)
            process(interleaved: UnsafeBufferPointer(rebasing: floats.prefix(chunk.frameCount * channelCount)),
                    frameCount: chunk.frameCount)
        }
    }

    /// Meters `frameCount` frames of interleaved samples (`frameCount × channelCount` floats).
    package func process(interleaved samples: UnsafeBufferPointer<Float>, frameCount: Int) {
        let n = channelCount
        guard frameCount > 0, let base = samples.baseAddress, samples.count >= frameCount * n else { return }
        let count = frameCount * n
        state.withLock { state in
            if state.squares.count < count {
                state.squares = [Float](repeating: 0, count: count)
                state.maxima = [Float](repeating: 0, count: count)
            }
            state.squares.withUnsafeMutableBufferPointer { sq in
                state.maxima.withUnsafeMutableBufferPointer { mx in
                    let s = sq.baseAddress!, m = mx.baseAddress!
                    avf_volk_multiply(s, base, base, UInt32(count))
                    m.update(from: s, count: count)
                    var rows = frameCount
                    while rows > 1 {
                        let half = rows / 2
                        let tail = (rows - half) * n
                        avf_volk_accumulate(s, s + tail, UInt32(half * n))
                        avf_volk_max(m, m, m + tail, UInt32(half * n))
                        rows -= half
                    }
                }
            }
            state.framesSeen += Int64(frameCount)
            let windowStart = state.framesSeen - holdFrames
            for channel in 0..<n {
                let meanSquare = state.squares[channel] / Float(frameCount)
                let peakSquare = state.maxima[channel]
                var hold = state.holds[channel]
                while let last = hold.last, last.square <= peakSquare { hold.removeLast() }
                hold.append((state.framesSeen, peakSquare))
                // A chunk stays while any of its frames lies in the window; the newest always does.
                while hold.count > 1, hold[0].end <= windowStart { hold.removeFirst() }
                state.holds[channel] = hold
                state.current[channel] = AudioChannelLevel(averagePowerLevel: Self.decibels(power: meanSquare),
                                                     peakHoldLevel: Self.decibels(power: hold[0].square))
            }
        }
    }

    /// 10·log10(power) (power = amplitude²), −160 for anything at or below 1e-16 (and NaN).
    package static func decibels(power: Float) -> Float {
        guard power > 1e-16 else { return floor }
        return Swift.max(floor, 10 * log10(power))
    }
}
