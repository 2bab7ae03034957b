// AudioVolumeCurve: an audio mix input's volume timeline (times the track's preferred volume) on
// one sample rate's timeline, cut into runs of samples whose gain is constant or linear — what the
// mixer's vector kernels take.
import CoreMedia

/// A volume timeline on the sample indices of one rate (R10.2–R10.4 of the book, Apple's header):
/// volume 1 before the first change; a ramp jumps to its start volume at its first sample,
/// interpolates linearly (sample `n` at time `n / rate`) and holds its end volume until the next
/// change starts; the last volume holds to the end. Every gain is multiplied by `scale`.
struct AudioVolumeCurve: Sendable {
    struct Segment: Sendable {
        /// Start and end in seconds (for the interpolation).
        var start: Double
        var end: Double
        var startVolume: Float
        var endVolume: Float
        /// The first sample at or after `start`, and the first at or after `end`.
        var firstSample: Int64
        var endSample: Int64
    }

    /// Samples `[offset, offset + count)` of a window whose gain is `start + step·i` for the
    /// run's `i`-th sample.
    struct Run: Equatable, Sendable {
        var offset: Int
        var count: Int
        var start: Float
        var step: Float
    }

    /// Sorted by start.
    let segments: [Segment]
    let scale: Float
    let rate: Int

    /// The curve of `ramps` (sorted by start: setVolume is a ramp of zero duration) at `rate`
    /// Hz, scaled by `scale`; nil when every gain is 1.
    init?(ramps: [(timeRange: CMTimeRange, startVolume: Float, endVolume: Float)], scale: Float, rate: Int) {
        guard !ramps.isEmpty || scale != 1 else { return nil }
        func sample(_ time: CMTime) -> Int64 {
            guard time.isNumeric else { return time > .zero ? .max : .min }
            return CMTimeConvertScale(time, timescale: Int32(rate), method: .roundTowardPositiveInfinity).value
        }
        segments = ramps.map { ramp in
            Segment(start: ramp.timeRange.start.seconds, end: ramp.timeRange.end.seconds,
                    startVolume: ramp.startVolume, endVolume: ramp.endVolume,
                    firstSample: sample(ramp.timeRange.start), endSample: sample(ramp.timeRange.end))
        }
        self.scale = scale
        self.rate = rate
    }

    /// The runs of samples `[first, first + count)`, offsets counted from `first`.
    func runs(first: Int64, count: Int) -> [Run] {
        var runs: [Run] = []
        let end = first + Int64(count)
        var n = first
        var next = segments.firstIndex { $0.firstSample > n } ?? segments.count
        while n < end {
            // The segment in effect at n is the last one starting at or before it.
            let nextStart = next < segments.count ? segments[next].firstSample : .max
            var upTo = min(end, nextStart)
            var start = scale, step: Float = 0
            if next > 0 {
                let s = segments[next - 1]
                if n < s.endSample, s.end > s.start {
                    upTo = min(upTo, s.endSample)
                    let slope = Double(s.endVolume - s.startVolume) / (s.end - s.start)
                    start = scale * Float(Double(s.startVolume) + slope * (Double(n) / Double(rate) - s.start))
                    step = scale * Float(slope / Double(rate))
                } else {
                    start = scale * s.endVolume
                }
            }
            if let last = runs.last, last.step == 0, step == 0, last.start == start {
                runs[runs.count - 1].count += Int(upTo - n)
            } else {
                runs.append(Run(offset: Int(n - first), count: Int(upTo - n), start: start, step: step))
            }
            n = upTo
            while next < segments.count, segments[next].firstSample <= n { next += 1 }
        }
        return runs
    }
}
