import CoreGraphics
import CoreMedia
import Foundation
import Testing
@testable import MediaEngine
import TestSupport

/// A 12 s, 30 fps, 320×240 H.264 MP4 with B-frames (3, pyramid) and a keyframe every 48 frames,
/// whose frames carry their own number: the top 32 rows hold 16 blocks 20 px wide, block k white
/// when bit k of the frame number is set. Made once per test process with the ffmpeg CLI.
enum NumberedVideo {
    static let frameCount = 360
    static let url: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("frameseeker-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent("numbered.mp4")
        run(TestTools.numberedVideoArguments + [url.path])
        return url
    }()

    static func run(_ args: [String]) {
        _ = try? TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + args)
    }

    /// The frame number shown by a BGRA image of the video (any size).
    static func number(in image: CGImage) -> Int {
        let bytes = image.dataProvider!.data! as Data
        let sx = Double(image.width) / 320, sy = Double(image.height) / 240
        var n = 0
        for k in 0 ..< 16 {
            let x = Int((Double(k * 20) + 10) * sx), y = Int(16 * sy)
            if bytes[y * image.bytesPerRow + x * 4 + 1] > 128 { n |= 1 << k }
        }
        return n
    }

    /// The time of frame `n`.
    static func time(_ n: Int) -> CMTime { CMTime(value: Int64(n) * 512, timescale: 15360) }
}

@Suite("FrameSeeker")
struct FrameSeekerTests {
    private func seeker() throws -> FrameSeeker {
        let demuxer = try Demuxer(url: NumberedVideo.url)
        let video = try #require(demuxer.streams.first { $0.kind == .video })
        return try FrameSeeker(url: NumberedVideo.url, streamIndex: video.index)
    }

    private func number(_ output: FrameSeeker.Output) throws -> Int {
        let buffer = try output.frame.makePixelBuffer()
        return NumberedVideo.number(in: try FrameImage.makeCGImage(from: buffer, width: 320, height: 240))
    }

    @Test("the fixture has B-frames and 48-frame GOPs")
    func fixture() throws {
        let seeker = try seeker()
        #expect(seeker.timeline.frames.count == NumberedVideo.frameCount)
        #expect(seeker.timeline.frames.filter(\.isKeyframe).count == 8)
        let reordered = seeker.timeline.frames.enumerated().contains { $0.offset != $0.element.decodeIndex }
        #expect(reordered)
    }

    @Test("every frame, requested exactly in random order, is the right one")
    func everyFrameRandomOrder() throws {
        let seeker = try seeker()
        var rng = SystemRandomNumberGenerator()
        for n in (0 ..< NumberedVideo.frameCount).shuffled(using: &rng).prefix(60) {
            // Mid-interval, exact pts and just before the next frame all show frame n.
            for time in [NumberedVideo.time(n), CMTime(value: Int64(n) * 512 + 256, timescale: 15360),
                         CMTime(value: Int64(n + 1) * 3000 - 1, timescale: 90000)] {
                let out = try seeker.frame(for: .init(time: time))
                #expect(out.time == NumberedVideo.time(n))
                #expect(try number(out) == n)
            }
        }
    }

    @Test("times inside one GOP cost one seek and one decode pass")
    func oneGOP() throws {
        let seeker = try seeker()
        let wanted = [95, 50, 60, 61, 49, 70, 88, 48, 94, 75]
        var seen: [Int: Int] = [:]
        seeker.frames(for: wanted.map { .init(time: NumberedVideo.time($0)) }) { i, outcome in
            if case .success(let out) = outcome { seen[i] = try? number(out) }
            return true
        }
        for (i, n) in wanted.enumerated() { #expect(seen[i] == n) }
        #expect(seeker.seekCount == 1)
        // One GOP of 48 packets, plus the few the threaded decoder reads ahead before it outputs.
        #expect(seeker.packetsDecoded <= 56)
    }

    @Test("a sorted batch over the file seeks at most once per GOP, skipping non-reference frames")
    func batchOneSeekPerGOP() throws {
        let seeker = try seeker()
        let wanted = Array(stride(from: 3, to: NumberedVideo.frameCount, by: 7))
        var seen: [Int: Int] = [:]
        seeker.frames(for: wanted.map { .init(time: NumberedVideo.time($0)) }) { i, outcome in
            if case .success(let out) = outcome { seen[i] = try? number(out) }
            return true
        }
        #expect(seen.count == wanted.count)
        for (i, n) in wanted.enumerated() { #expect(seen[i] == n) }
        #expect(seeker.seekCount <= 8)
        #expect(seeker.packetsDecoded <= NumberedVideo.frameCount)
        #expect(seeker.packetsSkippable > 0)
    }

    @Test("the ends: t = 0, before 0 and past the end give the first and last frames")
    func ends() throws {
        let seeker = try seeker()
        for (time, n) in [(CMTime.zero, 0), (CMTime(value: -5, timescale: 1), 0), (CMTime(value: 12, timescale: 1), 359),
                          (CMTime(value: 3600, timescale: 1), 359), (CMTime(value: 11_999, timescale: 1000), 359)] {
            let out = try seeker.frame(for: .init(time: time))
            #expect(out.frameIndex == n)
            #expect(try number(out) == n)
        }
    }

    @Test("backwards requests seek again and still give the exact frame")
    func backwards() throws {
        let seeker = try seeker()
        for n in [300, 299, 100, 101, 47, 48, 0, 359] {
            #expect(try number(seeker.frame(for: .init(time: NumberedVideo.time(n)))) == n)
        }
    }

    @Test("draining after a run's last frame gives the same frames with fewer packets decoded")
    func drainAtEnd() throws {
        // P frames, reference and non-reference B frames, GOP starts and ends, on single- and
        // multi-threaded decoders.
        let targets = [0, 1, 2, 3, 4, 5, 7, 8, 20, 46, 47, 48, 50, 95, 100, 333, 358, 359]
        for threads in [1, 0] {
            let demuxer = try Demuxer(url: NumberedVideo.url)
            let video = try #require(demuxer.streams.first { $0.kind == .video })
            let fed = try FrameSeeker(url: NumberedVideo.url, streamIndex: video.index, decoderThreads: threads)
            let drained = try FrameSeeker(url: NumberedVideo.url, streamIndex: video.index, decoderThreads: threads)
            for n in targets {
                let request = FrameSeeker.Request(time: NumberedVideo.time(n))
                var a: Int?, b: Int?
                // A fresh seek each time: a request behind the last one, or the first.
                fed.frames(for: [.init(time: NumberedVideo.time(359))]) { _, _ in true }
                drained.frames(for: [.init(time: NumberedVideo.time(359))], drainsAtEnd: true) { _, _ in true }
                let fedStart = fed.packetsDecoded, drainedStart = drained.packetsDecoded
                fed.frames(for: [request]) { _, outcome in a = try? number(outcome.get()); return true }
                drained.frames(for: [request], drainsAtEnd: true) { _, outcome in b = try? number(outcome.get()); return true }
                #expect(a == n, "fed decoder, \(threads) threads, frame \(n)")
                #expect(b == n, "drained decoder, \(threads) threads, frame \(n)")
                #expect(drained.packetsDecoded - drainedStart <= fed.packetsDecoded - fedStart)
            }
            // The drained decoder is reusable: going on forward and backward still works.
            for n in [10, 11, 200, 12, 359, 0] {
                #expect(try number(drained.frame(for: .init(time: NumberedVideo.time(n)))) == n)
            }
        }
    }

    @Test("a batch over several GOPs drains between runs and still gives every frame")
    func batchDrainsBetweenRuns() throws {
        let seeker = try seeker()
        let wanted = [5, 6, 47, 48, 49, 95, 96, 143, 200, 201, 359, 359, 0]
        var seen: [Int: Int] = [:]
        let left = seeker.frames(for: wanted.map { .init(time: NumberedVideo.time($0)) }, drainsAtEnd: true) { i, outcome in
            if case .success(let out) = outcome { seen[i] = try? number(out) }
            return true
        }
        #expect(left.isEmpty)
        for (i, n) in wanted.enumerated() { #expect(seen[i] == n) }
        // Afterwards the seeker serves single requests, forward from a drained decoder.
        for n in [359, 100, 101, 102] {
            #expect(try number(seeker.frame(for: .init(time: NumberedVideo.time(n)))) == n)
        }
    }

    @Test("a run's decode cost counts the packets from its keyframe to its last frame")
    func runCost() throws {
        let seeker = try seeker()
        #expect(seeker.decodeCost(of: [.init(time: NumberedVideo.time(0))]) == 1)
        #expect(seeker.decodeCost(of: [.init(time: NumberedVideo.time(48))]) == 1)
        let late = seeker.decodeCost(of: [.init(time: NumberedVideo.time(49)), .init(time: NumberedVideo.time(94))])
        #expect(late > 40 && late <= 48)
        #expect(seeker.decodeCost(of: []) == 0)
    }

    @Test("cancellation stops a batch")
    func cancellation() throws {
        let seeker = try seeker()
        var served = 0
        let left = seeker.frames(for: (0 ..< 20).map { .init(time: NumberedVideo.time($0 * 10)) }, isCancelled: { served >= 5 }) { _, _ in
            served += 1
            return true
        }
        #expect(served == 5)
        #expect(left.count == 15)
    }
}
