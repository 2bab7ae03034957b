// AudioGainKernel: the audio mixers' per-sample arithmetic (the reader's AudioMixer and the
// output's AudioMixOutput) — a run of samples times a constant
// gain or a linear gain ramp, added into the mix — in VOLK's SIMD kernels (C), never a Swift loop,
// so mixing is as fast in a client's debug build as in a release one.
internal import CVolk

/// Gain-and-sum over float vectors for one mixer: owns the scratch space its kernels need.
package final class AudioGainKernel {
    package let capacity: Int
    /// 0, 1, 2, … capacity − 1: a ramp's gains are `start + step·index`, two kernel calls.
    private let indices: UnsafeMutablePointer<Float>
    /// Gains, then gained samples, of the current run.
    private let scratch: UnsafeMutablePointer<Float>

    /// A kernel for runs of up to `capacity` samples.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        indices = .allocate(capacity: self.capacity)
        scratch = .allocate(capacity: self.capacity)
        // Once per mixer: the only per-element Swift loop, over at most one buffer's frames.
        for i in 0..<self.capacity { (indices + i).initialize(to: Float(i)) }
        scratch.initialize(repeating: 0, count: self.capacity)
    }

    deinit {
        indices.deallocate()
        scratch.deallocate()
    }

    /// `sum[i] += source[i] · (start + step·i)` for `i` in `0..<count` (`count` ≤ the capacity):
    /// a constant gain when `step` is 0 (no multiply at all for gain 1; nothing for gain 0).
    package func add(_ source: UnsafePointer<Float>, into sum: UnsafeMutablePointer<Float>, count: Int, start: Float, step: Float) {
        precondition(count <= capacity, "AudioGainKernel: run longer than its capacity")
        guard count > 0 else { return }
        let n = UInt32(count)
        if step == 0 {
            if start == 1 {
                avf_volk_accumulate(sum, source, n)
            } else if start != 0 {
                avf_volk_scale(scratch, source, start, n)
                avf_volk_accumulate(sum, scratch, n)
            }
            return
        }
        avf_volk_scale(scratch, indices, step, n)
        avf_volk_offset(scratch, scratch, start, n)
        avf_volk_multiply(scratch, scratch, source, n)
        avf_volk_accumulate(sum, scratch, n)
    }
}
