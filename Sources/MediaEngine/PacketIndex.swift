// PacketIndex: every packet of one stream (timing, size, position, sync flag) found by scanning
// the container without decoding, with the queries exact seeking needs.
internal import CFFmpeg
import CoreMedia

/// The packets of one stream in decode order, with their presentation order, built once by
/// reading the container (no decoding). Times are in the stream's time base.
package struct PacketIndex: Sendable {
    /// One packet.
    package struct Entry: Sendable, Equatable {
        /// Presentation timestamp (stream time base). Filled from the DTS or the previous packet
        /// when the container gives none.
        package var pts: Int64
        /// Decode timestamp (stream time base).
        package var dts: Int64
        /// Duration (stream time base); derived from the next presentation time when absent.
        package var duration: Int64
        /// Payload size in bytes.
        package var size: Int32
        /// Byte offset in the file; -1 when unknown.
        package var position: Int64
        /// Whether decoding can start at this packet.
        package var isKeyframe: Bool
        /// Whether no other packet depends on this one.
        package var isDiscardable: Bool
    }

    /// The FFmpeg stream index.
    package let streamIndex: Int
    /// The time base of every timestamp in the index.
    let timeBase: AVRational
    /// The packets in decode (file) order.
    package let entries: [Entry]
    /// Decode indices sorted by presentation time (ties in decode order).
    package let presentationOrder: [Int]
    /// For each decode index, its position in `presentationOrder`.
    package let presentationPosition: [Int]
    /// False when scanning stopped early at damaged data; the index then covers what was readable.
    package let isComplete: Bool

    init(streamIndex: Int, timeBase: AVRational, entries raw: [Entry], isComplete: Bool) {
        self.streamIndex = streamIndex
        self.timeBase = timeBase
        self.isComplete = isComplete
        var entries = raw
        let order = entries.indices.sorted { (entries[$0].pts, $0) < (entries[$1].pts, $1) }
        // Durations the container did not give: the gap to the next presentation time.
        var known: Int64 = 0
        for e in entries where e.duration > 0 { known = e.duration; break }
        for (p, d) in order.enumerated() where entries[d].duration <= 0 {
            if p + 1 < order.count {
                let gap = entries[order[p + 1]].pts.saturatingSubtracting(entries[d].pts)
                entries[d].duration = gap > 0 ? gap : known
            } else {
                entries[d].duration = known
            }
        }
        var position = [Int](repeating: 0, count: entries.count)
        for (p, d) in order.enumerated() { position[d] = p }
        self.entries = entries
        self.presentationOrder = order
        self.presentationPosition = position
    }

    /// The number of packets.
    package var count: Int { entries.count }

    /// The presentation time of the packet at a decode index.
    package func presentationTime(ofDecodeIndex i: Int) -> CMTime { StreamInfo.time(entries[i].pts, timeBase) }
    /// The decode time of the packet at a decode index.
    package func decodeTime(ofDecodeIndex i: Int) -> CMTime { StreamInfo.time(entries[i].dts, timeBase) }
    /// The duration of the packet at a decode index.
    package func duration(ofDecodeIndex i: Int) -> CMTime { StreamInfo.time(entries[i].duration, timeBase) }

    /// The decode index of the packet shown at presentation position `p` (0 = first shown).
    package func decodeIndex(forPresentationIndex p: Int) -> Int { presentationOrder[p] }
    /// The presentation position of the packet at decode index `d`.
    package func presentationIndex(forDecodeIndex d: Int) -> Int { presentationPosition[d] }

    /// The presentation range covered by the packets: first presentation time to the end of the
    /// last one.
    package var presentationTimeRange: CMTimeRange {
        guard let first = presentationOrder.first, let last = presentationOrder.last else { return .zero }
        let start = entries[first].pts
        // Times from the file: near the Int64 limits the end is clamped, not wrapped.
        let end = entries[last].pts.saturatingAdding(max(0, entries[last].duration))
        return CMTimeRange(start: StreamInfo.time(start, timeBase), duration: StreamInfo.time(max(0, end.saturatingSubtracting(start)), timeBase))
    }

    /// The sum of the packet sizes in bytes.
    package var totalSize: Int64 { entries.reduce(0) { $0 + Int64($1.size) } }

    /// Whether presentation order differs from decode order (B-frames).
    package var requiresFrameReordering: Bool {
        presentationOrder.enumerated().contains { $0.offset != $0.element }
    }

    /// The shortest packet duration (presentation-time gaps), `.invalid` when there are no packets.
    package var minimumFrameDuration: CMTime {
        var best: Int64 = .max
        for e in entries where e.duration > 0 { best = min(best, e.duration) }
        return best == .max ? .invalid : StreamInfo.time(best, timeBase)
    }

    /// Converts a CMTime to this index's time base, rounding toward −∞.
    private func units(_ time: CMTime) -> Int64? {
        guard time.isNumeric, timeBase.num > 0, timeBase.den > 0 else { return nil }
        let scaled = CMTimeConvertScale(time, timescale: timeBase.den, method: .roundTowardNegativeInfinity)
        guard scaled.isNumeric else { return nil }
        let q = scaled.value / Int64(timeBase.num)
        return scaled.value < 0 && scaled.value % Int64(timeBase.num) != 0 ? q - 1 : q
    }

    /// The presentation position of the packet whose presentation interval [pts, next pts)
    /// contains `time`; nil before the first packet or at/after the end of the last one.
    package func presentationIndex(containing time: CMTime) -> Int? {
        guard let t = units(time), !presentationOrder.isEmpty else { return nil }
        // Last presentation position whose pts <= t.
        var lo = 0, hi = presentationOrder.count - 1, found = -1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if entries[presentationOrder[mid]].pts <= t { found = mid; lo = mid + 1 } else { hi = mid - 1 }
        }
        guard found >= 0 else { return nil }
        if found == presentationOrder.count - 1 {
            let last = entries[presentationOrder[found]]
            return t < last.pts.saturatingAdding(max(1, last.duration)) ? found : nil
        }
        return found
    }

    /// The decode index of the packet whose presentation interval contains `time`.
    package func decodeIndex(containing time: CMTime) -> Int? {
        presentationIndex(containing: time).map { presentationOrder[$0] }
    }

    /// The decode indices of all keyframes.
    package var keyframeIndices: [Int] { entries.indices.filter { entries[$0].isKeyframe } }
}
