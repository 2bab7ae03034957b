import CFFmpeg
import CoreMedia
import Testing
@testable import MediaEngine

/// A 30 fps track in time base 1/15360 (512 ticks a frame), GOPs of `gop` frames, each GOP coded
/// I P B B B P B B B … (a B-pyramid's decode order: P, then the middle B (a reference), then the
/// outer two), as x264 with `-bf 3` writes it.
private func makeTimeline(frames count: Int, gop: Int = 12, openGOPLeading: Bool = false) -> FrameTimeline {
    var order: [(pts: Int, key: Bool)] = []
    var g = 0
    while g < count {
        let end = min(g + gop, count)
        order.append((g, true))
        var anchor = g
        while anchor + 1 < end {
            let next = min(anchor + 4, end - 1)
            order.append((next, false))
            let bs = Array(anchor + 1 ..< next)
            if bs.count == 3 { order += [(bs[1], false), (bs[0], false), (bs[2], false)] } else { order += bs.map { ($0, false) } }
            anchor = next
        }
        g = end
    }
    var frames = order.enumerated().map { i, f in
        FrameTimeline.Frame(pts: Int64(f.pts * 512), dts: Int64((i - 2) * 512), decodeIndex: i, isKeyframe: f.key)
    }
    if openGOPLeading {
        // Make the frame shown just before the second keyframe a leading picture decoded after it.
        let key = frames.firstIndex { $0.isKeyframe && $0.pts == Int64(gop * 512) }!
        let leading = frames.firstIndex { $0.pts == Int64((gop - 1) * 512) }!
        let moved = frames.remove(at: leading)
        frames.insert(moved, at: key)
        for i in frames.indices { frames[i].decodeIndex = i }
    }
    return FrameTimeline(timeBase: AVRational(num: 1, den: 15360), frames: frames)
}

private func t(_ value: Int64, _ scale: Int32 = 15360) -> CMTime { CMTime(value: value, timescale: scale) }

@Suite("FrameTimeline")
struct FrameSeekerTimelineTests {
    @Test("the frame containing a time: exact pts, mid-interval, just before the next, ends")
    func containing() {
        let tl = makeTimeline(frames: 60)
        for n in 0 ..< 60 {
            #expect(tl.frameIndex(containing: t(Int64(n * 512))) == n)
            #expect(tl.frameIndex(containing: t(Int64(n * 512 + 256))) == n)
            #expect(tl.frameIndex(containing: t(Int64(n * 512 + 511))) == n)
            // In another timescale: n/30 s + 1/90000 s is still frame n; (n+1)/30 − 1/90000 too.
            #expect(tl.frameIndex(containing: t(Int64(n * 3000 + 1), 90000)) == n)
            #expect(tl.frameIndex(containing: t(Int64((n + 1) * 3000 - 1), 90000)) == n)
        }
        #expect(tl.frameIndex(containing: .zero) == 0)
        #expect(tl.frameIndex(containing: t(-1000)) == 0)
        #expect(tl.frameIndex(containing: t(10_000_000)) == 59)
        #expect(tl.frameIndex(containing: .positiveInfinity) == 59)
        #expect(tl.frameIndex(containing: .negativeInfinity) == 0)
        #expect(tl.frameIndex(containing: .invalid) == nil)
        #expect(tl.frameIndex(containing: .indefinite) == nil)
        #expect(FrameTimeline(timeBase: AVRational(num: 1, den: 30), frames: []).frameIndex(containing: .zero) == nil)
    }

    @Test("decoding starts at the keyframe at or before the frame; cost counts the packets")
    func starts() {
        let tl = makeTimeline(frames: 60)
        for n in 0 ..< 60 {
            #expect(tl.startIndex(for: n) == n / 12 * 12)
        }
        #expect(tl.cost(of: 12) == 0)
        #expect(tl.cost(of: 16) == 1)   // I12 P16
        #expect(tl.cost(of: 13) == 3)   // I12 P16 B14 B13
    }

    @Test("a leading picture of an open GOP starts from the keyframe before")
    func openGOP() {
        let tl = makeTimeline(frames: 36, openGOPLeading: true)
        #expect(tl.startIndex(for: 11) == 0)
        #expect(tl.startIndex(for: 12) == 12)
        #expect(tl.startIndex(for: 13) == 12)
    }

    @Test("zero tolerance returns the exact frame")
    func exact() {
        let tl = makeTimeline(frames: 60)
        for n in 0 ..< 60 {
            #expect(tl.selectFrame(for: t(Int64(n * 512 + 300)), toleranceBefore: .zero, toleranceAfter: .zero) == n)
        }
        #expect(tl.selectFrame(for: t(99_999_999), toleranceBefore: .zero, toleranceAfter: .zero) == 59)
    }

    @Test("infinite tolerance returns the nearest keyframe")
    func nearestKeyframe() {
        let tl = makeTimeline(frames: 60)
        let inf = CMTime.positiveInfinity
        #expect(tl.selectFrame(for: t(5 * 512), toleranceBefore: inf, toleranceAfter: inf) == 0)
        #expect(tl.selectFrame(for: t(7 * 512), toleranceBefore: inf, toleranceAfter: inf) == 12)
        #expect(tl.selectFrame(for: t(6 * 512), toleranceBefore: inf, toleranceAfter: inf) == 0)   // tie: earlier
        #expect(tl.selectFrame(for: t(59 * 512), toleranceBefore: inf, toleranceAfter: inf) == 48)
        // Only before allowed: the keyframe at or before.
        #expect(tl.selectFrame(for: t(11 * 512), toleranceBefore: inf, toleranceAfter: .zero) == 0)
        // Only after allowed: the keyframe at or after.
        #expect(tl.selectFrame(for: t(1 * 512), toleranceBefore: .zero, toleranceAfter: inf) == 12)
        // After allowed but no keyframe after the last: the cheapest later frame (P52 needs I48, P52).
        #expect(tl.selectFrame(for: t(50 * 512), toleranceBefore: .zero, toleranceAfter: inf) == 52)
    }

    @Test("a window without keyframes gives its cheapest frame, within the window")
    func cheapestInWindow() {
        let tl = makeTimeline(frames: 60)
        // Window [13, 15] frames: 13 (cost 3), 14 (cost 2), 15 (cost 4) → 14.
        let w = t(512)
        #expect(tl.selectFrame(for: t(14 * 512), toleranceBefore: w, toleranceAfter: w) == 14)
        // Window [17, 20]: 20 (P, cost 2) is cheapest.
        #expect(tl.selectFrame(for: t(17 * 512), toleranceBefore: .zero, toleranceAfter: t(3 * 512)) == 20)
        // Whatever is picked lies in the window, or is the exact frame.
        for n in 0 ..< 60 {
            for (b, a) in [(0, 100), (100, 0), (300, 300), (900, 2000)] {
                let req = t(Int64(n * 512 + 100))
                let i = tl.selectFrame(for: req, toleranceBefore: t(Int64(b)), toleranceAfter: t(Int64(a)))!
                let time = tl.time(ofFrame: i)
                let inside = CMTimeCompare(time, CMTimeSubtract(req, t(Int64(b)))) >= 0
                    && CMTimeCompare(time, CMTimeAdd(req, t(Int64(a)))) <= 0
                #expect(inside || i == n)
            }
        }
    }

    @Test("a decoder goes on forward inside a GOP and seeks backwards or past the next keyframe")
    func continuing() {
        let tl = makeTimeline(frames: 60)
        #expect(!tl.canContinue(to: 5, from: nil))
        // Started at 0, read I0 P4 B2 B1 B3 P8 (next decode index 6), output up to frame 3.
        let pos = FrameTimeline.Position(startDecodeIndex: 0, nextDecodeIndex: 6, lastOutputTimestamp: 3 * 512)
        #expect(tl.canContinue(to: 4, from: pos))       // read, not yet output
        #expect(tl.canContinue(to: 9, from: pos))       // not read yet, same GOP
        #expect(!tl.canContinue(to: 2, from: pos))      // passed
        #expect(!tl.canContinue(to: 30, from: pos))     // keyframe 24 not reached: seek
        // At the end of the first GOP the next keyframe is the next packet: go on.
        let end = FrameTimeline.Position(startDecodeIndex: 0, nextDecodeIndex: 12, lastOutputTimestamp: 11 * 512)
        #expect(tl.canContinue(to: 13, from: end))
        #expect(!tl.canContinue(to: 25, from: end))
    }
}
