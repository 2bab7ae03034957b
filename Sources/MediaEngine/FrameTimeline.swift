// FrameTimeline: which frame to show for a requested time, and where decoding must start to
// reach it. Pure functions over a track's frame timing list (from the packet index).
internal import CFFmpeg
import CoreMedia

/// The frames of one video track in presentation order, with what it costs to decode each.
///
/// Built once from the packet index (timestamps, decode order, keyframe flags) and reused for
/// every request. Answers, without touching the file:
/// - `frameIndex(containing:)`: the frame whose presentation interval `[pts, next pts)` holds a
///   time (clamped to the first and last frames);
/// - `selectFrame(for:toleranceBefore:toleranceAfter:)`: the frame to return for a request;
/// - `startIndex(for:)`: the keyframe decoding must start from to produce a frame;
/// - `canContinue(to:from:)`: whether a decoder that is already part-way through the stream
///   can go on forward or must seek.
package struct FrameTimeline: Sendable {
    /// One frame's timing.
    package struct Frame: Sendable, Equatable {
        /// Presentation timestamp in the stream time base.
        package var pts: Int64
        /// Decode timestamp in the stream time base.
        package var dts: Int64
        /// Position in decode (file) order, from 0.
        package var decodeIndex: Int
        /// Whether decoding can start at this frame.
        package var isKeyframe: Bool

        /// A frame's timing.
        package init(pts: Int64, dts: Int64, decodeIndex: Int, isKeyframe: Bool) {
            self.pts = pts
            self.dts = dts
            self.decodeIndex = decodeIndex
            self.isKeyframe = isKeyframe
        }
    }

    /// The stream time base.
    let timeBase: AVRational
    /// The frames in presentation order (ascending `pts`, no duplicates).
    package let frames: [Frame]
    /// For each frame (presentation order), the presentation index of the keyframe to start
    /// decoding from, or nil when no keyframe precedes it (decode from the first packet).
    private let starts: [Int?]
    /// Presentation indices of the keyframes, ascending.
    private let keyframes: [Int]
    /// Presentation index by decode index.
    private let byDecodeIndex: [Int]
    /// Presentation index by pts.
    private let byTimestamp: [Int64: Int]

    /// A timeline from frame timings in any order. Frames with equal `pts` keep the first in
    /// decode order.
    init(timeBase: AVRational, frames unordered: [Frame]) {
        self.timeBase = timeBase
        var seen = Set<Int64>()
        let frames = unordered.sorted { $0.decodeIndex < $1.decodeIndex }.filter { seen.insert($0.pts).inserted }
            .sorted { $0.pts < $1.pts }
        self.frames = frames
        let keyframes = frames.indices.filter { frames[$0].isKeyframe }
        self.keyframes = keyframes
        var byDecode = [Int](repeating: -1, count: (frames.map(\.decodeIndex).max() ?? -1) + 1)
        var byTimestamp: [Int64: Int] = [:]
        for (i, f) in frames.enumerated() {
            byDecode[f.decodeIndex] = i
            byTimestamp[f.pts] = i
        }
        self.byDecodeIndex = byDecode
        self.byTimestamp = byTimestamp
        // The start of frame i: the latest keyframe in decode order that is decoded no later than
        // i and shown no later than i (a leading picture of an open GOP needs the keyframe before).
        let keysByDecode = keyframes.sorted { frames[$0].decodeIndex < frames[$1].decodeIndex }
        starts = frames.map { frame in
            var lo = 0, hi = keysByDecode.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if frames[keysByDecode[mid]].decodeIndex <= frame.decodeIndex { lo = mid + 1 } else { hi = mid }
            }
            var k = lo - 1
            while k >= 0 && frames[keysByDecode[k]].pts > frame.pts { k -= 1 }
            return k >= 0 ? keysByDecode[k] : nil
        }
    }

    /// Whether the track has no frames.
    package var isEmpty: Bool { frames.isEmpty }

    /// The presentation time of frame `index`.
    package func time(ofFrame index: Int) -> CMTime {
        Decoder.time(frames[index].pts, timeBase: timeBase)
    }

    /// The presentation index of the frame with timestamp `pts`, if there is one.
    package func frameIndex(timestamp pts: Int64) -> Int? { byTimestamp[pts] }

    /// The presentation index of the frame at decode position `decodeIndex`, if known.
    package func frameIndex(decodeIndex: Int) -> Int? {
        guard decodeIndex >= 0, decodeIndex < byDecodeIndex.count, byDecodeIndex[decodeIndex] >= 0 else { return nil }
        return byDecodeIndex[decodeIndex]
    }

    /// The frame whose presentation interval `[pts, next pts)` contains `time`: the first frame
    /// for earlier times, the last for later ones (and for +∞). Nil when the track is empty or
    /// the time is invalid or indefinite.
    package func frameIndex(containing time: CMTime) -> Int? {
        guard !frames.isEmpty, time.isValid, !time.isIndefinite else { return nil }
        if time.flags.rawValue & 0x8 != 0 { return 0 }
        if time.flags.rawValue & 0x4 != 0 { return frames.count - 1 }
        // The last frame whose time is <= `time`.
        var lo = 0, hi = frames.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if CMTimeCompare(self.time(ofFrame: mid), time) <= 0 { lo = mid + 1 } else { hi = mid }
        }
        return max(0, lo - 1)
    }

    /// The presentation index of the keyframe decoding must start from to produce frame
    /// `index`; nil when no keyframe precedes it (start with the first packet).
    package func startIndex(for index: Int) -> Int? { starts[index] }

    /// How many packets are decoded to produce frame `index` from its start.
    package func cost(of index: Int) -> Int {
        let start = starts[index].map { frames[$0].decodeIndex } ?? 0
        return frames[index].decodeIndex - start
    }

    /// The frame to return for a request at `time`: with both tolerances zero, the frame that
    /// contains `time`; otherwise the cheapest frame to decode among those shown within
    /// `[time − before, time + after]` (a keyframe when one is there, the nearest one to `time`),
    /// the frame that contains `time` being always allowed; equal costs go to the frame nearest
    /// `time`, then the earlier.
    package func selectFrame(for time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) -> Int? {
        guard let exact = frameIndex(containing: time) else { return nil }
        let before = Self.tolerance(toleranceBefore), after = Self.tolerance(toleranceAfter)
        if before == .zero && after == .zero { return exact }
        let low = CMTimeSubtract(time, before), high = CMTimeAdd(time, after)
        func inWindow(_ i: Int) -> Bool {
            let t = self.time(ofFrame: i)
            return CMTimeCompare(t, low) >= 0 && CMTimeCompare(t, high) <= 0
        }
        func distance(_ i: Int) -> CMTime { CMTimeAbsoluteValue(CMTimeSubtract(self.time(ofFrame: i), time)) }
        func better(_ a: Int, than b: Int) -> Bool {
            let ca = cost(of: a), cb = cost(of: b)
            if ca != cb { return ca < cb }
            let c = CMTimeCompare(distance(a), distance(b))
            return c != 0 ? c < 0 : a < b
        }
        // Keyframes cost nothing: the nearest one in the window, if any, wins.
        var k = keyframes.partitioningIndex { CMTimeCompare(self.time(ofFrame: $0), time) > 0 }
        var best: Int?
        for candidate in [k - 1, k] where candidate >= 0 && candidate < keyframes.count && inWindow(keyframes[candidate]) {
            if best == nil || better(keyframes[candidate], than: best!) { best = keyframes[candidate] }
        }
        if let best, cost(of: best) == 0 { return best }
        // No keyframe in the window: it lies inside one GOP, so scan its frames.
        best = exact
        k = exact
        while k > 0 && inWindow(k - 1) { k -= 1 }
        while k < frames.count && (inWindow(k) || k <= exact) {
            if inWindow(k) && better(k, than: best!) { best = k }
            k += 1
        }
        return best
    }

    /// How far a decoder has got since its last seek.
    package struct Position: Sendable, Equatable {
        /// Decode index of the packet decoding (re)started from.
        package var startDecodeIndex: Int
        /// Decode index of the next packet it would read.
        package var nextDecodeIndex: Int
        /// Timestamp of the last frame it output, nil if none yet.
        package var lastOutputTimestamp: Int64?

        /// A decoder position.
        package init(startDecodeIndex: Int, nextDecodeIndex: Int, lastOutputTimestamp: Int64?) {
            self.startDecodeIndex = startDecodeIndex
            self.nextDecodeIndex = nextDecodeIndex
            self.lastOutputTimestamp = lastOutputTimestamp
        }
    }

    /// Whether a decoder at `position` (nil: freshly flushed) can produce frame `index` by going
    /// on forward, which is so when the frame has not been passed (not yet read, or read but not
    /// yet output), the keyframe it needs has been read (or is the next packet), and decoding
    /// did not start after that keyframe. Otherwise the caller seeks to `startIndex(for:)`.
    package func canContinue(to index: Int, from position: Position?) -> Bool {
        guard let position else { return false }
        let startDecode = starts[index].map { frames[$0].decodeIndex } ?? 0
        guard startDecode >= position.startDecodeIndex, startDecode <= position.nextDecodeIndex else { return false }
        if frames[index].decodeIndex >= position.nextDecodeIndex { return true }
        return position.lastOutputTimestamp.map { frames[index].pts > $0 } ?? true
    }

    /// A tolerance as used: invalid or negative means zero.
    private static func tolerance(_ t: CMTime) -> CMTime {
        guard t.isValid, !t.isIndefinite, t.flags.rawValue & 0x8 == 0 else { return .zero }
        return CMTimeCompare(t, .zero) < 0 ? .zero : t
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, given that it is false then true.
    fileprivate func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if predicate(self[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
