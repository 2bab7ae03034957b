// AudioVolumeCurve: an audio mix input's volume timeline as plain numbers, evaluated sample by
// sample by the reader's audio mix output.

/// A volume timeline in seconds, evaluated for runs of consecutive samples.
struct AudioVolumeCurve: Sendable {
    struct Segment: Sendable {
        var start: Double
        var end: Double
        var startVolume: Float
        var endVolume: Float
    }

    /// Sorted by start.
    let segments: [Segment]

    /// The volume at `time` seconds.
    func volume(at time: Double) -> Float {
        guard let index = segments.lastIndex(where: { $0.start <= time }) else { return 1 }
        let s = segments[index]
        if time < s.end, s.end > s.start {
            return s.startVolume + (s.endVolume - s.startVolume) * Float((time - s.start) / (s.end - s.start))
        }
        return s.endVolume
    }

    /// The volumes of `count` samples, the first at output index `first` of a `rate`-Hz timeline.
    func volumes(first: Int64, count: Int, rate: Int) -> [Float] {
        (0..<count).map { volume(at: Double(first + Int64($0)) / Double(rate)) }
    }
}
