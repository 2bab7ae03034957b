import CFFmpeg
import CoreMedia
import Foundation
import Synchronization
import Testing
@testable import MediaEngine
import TestSupport

// FrameSeeker may leave H.264 reference B-pictures that no requested frame depends on undecoded
// (`skipsUnneededReferences`). These tests decode the same frames with the switch on and off,
// on streams encoded many different ways, and require the same pictures byte for byte.

// Frames are picked with TestSupport's SplitMix64, so every run picks the same ones.

/// The H.264 streams the tests run on: 4 s of moving test pattern at 30 fps, 320×240, with a
/// keyframe every 40 frames (three GOPs) unless stated, each encoded another way.
enum SkippingClip: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// `-preset veryfast` defaults: 3 B-frames, normal pyramid (one reference B per mini-GOP),
    /// one reference for P-frames. The common case.
    case veryfast
    case ref4Pyramid
    case strictPyramid
    case bframes8Ref6
    case weightedVeryfast
    case weightedMedium
    case temporalDirect
    case slices4
    case noPyramid
    case interlaced
    case ref16Bframes16
    /// The veryfast clip remuxed to MPEG-TS (Annex B bitstream).
    case mpegTS
    case baseline

    var testDescription: String {
        switch self {
        case .veryfast: "veryfast defaults (bframes=3, b-pyramid=normal, ref=1)"
        case .ref4Pyramid: "ref=4, bframes=3, b-pyramid=normal"
        case .strictPyramid: "b-pyramid=strict"
        case .bframes8Ref6: "bframes=8, b-adapt=2, ref=6"
        case .weightedVeryfast: "weightb=1, weightp=2 over fades (veryfast)"
        case .weightedMedium: "weightb=1, weightp=2 over fades (medium)"
        case .temporalDirect: "direct=temporal"
        case .slices4: "slices=4"
        case .noPyramid: "b-pyramid=none"
        case .interlaced: "interlaced=1 (MBAFF)"
        case .ref16Bframes16: "keyint=30, ref=16, bframes=16"
        case .mpegTS: "veryfast defaults remuxed to MPEG-TS"
        case .baseline: "baseline profile (no B-frames)"
        }
    }

    /// Seeds this clip's choice of frames.
    var seed: UInt64 { 0x5EED_0000 &+ UInt64(Self.allCases.firstIndex(of: self)!) }

    /// Decoder threads for the comparison: every other clip decodes on one thread, the rest
    /// with frame threads on every core.
    var decoderThreads: Int { Self.allCases.firstIndex(of: self)! % 2 == 0 ? 1 : 0 }

    static let width = 320, height = 240

    /// The file, made on first use (once per test process); nil when the installed ffmpeg
    /// cannot make it.
    var url: URL? { SkippingFixtures.shared.url(for: self) }

    /// The ffmpeg arguments that make the clip (everything but the output path).
    fileprivate var ffmpegArguments: [String] {
        let source = "testsrc2=s=\(Self.width)x\(Self.height):r=30:d=4"
        let fades = "\(source),fade=t=in:st=0:d=1.5,fade=t=out:st=2.5:d=1.5"
        let gop = "keyint=40:min-keyint=40:scenecut=0"
        func x264(_ params: String, input: String = source, preset: String = "veryfast", profile: [String] = []) -> [String] {
            ["-f", "lavfi", "-i", input, "-c:v", "libx264", "-preset", preset] + profile
                + ["-pix_fmt", "yuv420p", "-x264-params", params, "-f", "mp4"]
        }
        switch self {
        case .veryfast: return x264(gop)
        case .ref4Pyramid: return x264("\(gop):ref=4:bframes=3:b-pyramid=normal")
        case .strictPyramid: return x264("\(gop):b-pyramid=strict")
        case .bframes8Ref6: return x264("\(gop):bframes=8:b-adapt=2:ref=6")
        case .weightedVeryfast: return x264("\(gop):weightb=1:weightp=2", input: fades)
        case .weightedMedium: return x264("\(gop):weightb=1:weightp=2", input: fades, preset: "medium")
        case .temporalDirect: return x264("\(gop):direct=temporal")
        case .slices4: return x264("\(gop):slices=4")
        case .noPyramid: return x264("\(gop):b-pyramid=none")
        case .interlaced: return x264("\(gop):interlaced=1")
        case .ref16Bframes16: return x264("keyint=30:min-keyint=30:scenecut=0:ref=16:bframes=16")
        case .mpegTS: return []  // made from .veryfast
        case .baseline: return x264(gop, profile: ["-profile:v", "baseline"])
        }
    }
}

/// Makes each clip once per test process, in a temporary directory. Different clips may be made
/// at the same time.
private final class SkippingFixtures: Sendable {
    static let shared = SkippingFixtures()

    /// One clip's file: not made yet (nil), or made (the URL, nil when it could not be).
    private final class Slot: Sendable {
        let made = Mutex<URL??>(nil)
    }

    private let directory: URL
    private let slots: [SkippingClip: Slot]

    private init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("refskip-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        slots = Dictionary(uniqueKeysWithValues: SkippingClip.allCases.map { ($0, Slot()) })
    }

    func url(for clip: SkippingClip) -> URL? {
        slots[clip]!.made.withLock { made in
            if let made { return made }
            let url = make(clip)
            made = .some(url)
            return url
        }
    }

    private func make(_ clip: SkippingClip) -> URL? {
        if clip == .mpegTS {
            let ts = directory.appendingPathComponent("\(clip.rawValue).ts")
            return url(for: .veryfast).flatMap { Self.ffmpeg(["-i", $0.path, "-c", "copy", "-f", "mpegts", ts.path]) ? ts : nil }
        }
        let mp4 = directory.appendingPathComponent("\(clip.rawValue).mp4")
        return Self.ffmpeg(clip.ffmpegArguments + [mp4.path]) ? mp4 : nil
    }

    /// Runs the ffmpeg CLI; true when it succeeded and wrote a non-empty file (the last argument).
    static func ffmpeg(_ args: [String]) -> Bool {
        guard let (status, _) = try? TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + args), status == 0, let out = args.last,
              let size = (try? FileManager.default.attributesOfItem(atPath: out))?[.size] as? Int else { return false }
        return size > 0
    }
}

/// The bytes of a decoded 8-bit 4:2:0 picture, plane by plane, without row padding.
struct PlanarPicture: Equatable {
    var planes: [[UInt8]]

    init(_ decoded: DecodedFrame) throws {
        let frame = decoded.frame
        try #require(frame.pointee.format == AV_PIX_FMT_YUV420P.rawValue, "the test handles 8-bit 4:2:0 only")
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let data = VideoFrame.dataPointers(frame), linesize = VideoFrame.lineSizes(frame)
        planes = try (0 ..< 3).map { i in
            let w = i == 0 ? width : (width + 1) / 2, h = i == 0 ? height : (height + 1) / 2
            let base = try #require(data[i])
            var bytes = [UInt8]()
            bytes.reserveCapacity(w * h)
            for y in 0 ..< h {
                bytes.append(contentsOf: UnsafeBufferPointer(start: base + y * Int(linesize[i]), count: w))
            }
            return bytes
        }
    }

    /// Picture number `index` of a file of packed yuv420p pictures of `width`×`height`.
    init(raw: Data, index: Int, width: Int, height: Int) {
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        let start = index * (width * height + 2 * cw * ch)
        let y = start, u = y + width * height, v = u + cw * ch
        planes = [Array(raw[y ..< u]), Array(raw[u ..< v]), Array(raw[v ..< v + cw * ch])]
    }

    /// How many bytes differ, per plane.
    func differences(from other: PlanarPicture) -> [Int] {
        zip(planes, other.planes).map { a, b in
            a.count != b.count ? max(a.count, b.count) : zip(a, b).reduce(0) { $0 + ($1.0 != $1.1 ? 1 : 0) }
        }
    }
}

@Suite("FrameSeeker reference skipping")
struct ReferenceSkippingTests {
    /// One step of a request plan: a batch through `frames(for:)` or a single `frame(for:)`.
    private enum Step {
        case batch([Int], drainsAtEnd: Bool)
        case single(Int)
    }

    /// What one request gave.
    private struct Observation {
        var wanted: Int
        var frameIndex: Int?
        var time: CMTime?
        var picture: PlanarPicture?
        var failure: String?
    }

    private static func seeker(_ url: URL, skipping: Bool, threads: Int = 0) throws -> FrameSeeker {
        let demuxer = try Demuxer(url: url)
        let video = try #require(demuxer.streams.first { $0.kind == .video })
        let seeker = try FrameSeeker(url: url, streamIndex: video.index, decoderThreads: threads)
        seeker.skipsUnneededReferences = skipping
        return seeker
    }

    private static func clipURL(_ clip: SkippingClip) throws -> URL {
        guard let url = clip.url else {
            try Test.cancel("the installed ffmpeg/libx264 cannot make the \(clip.testDescription) clip")
        }
        return url
    }

    private static func observe(_ out: Result<FrameSeeker.Output, FrameSeekerError>, wanted: Int) -> Observation {
        switch out {
        case .success(let out):
            do {
                return Observation(wanted: wanted, frameIndex: out.frameIndex, time: out.time, picture: try PlanarPicture(out.frame))
            } catch {
                return Observation(wanted: wanted, frameIndex: out.frameIndex, time: out.time, failure: "\(error)")
            }
        case .failure(let error):
            return Observation(wanted: wanted, failure: "\(error)")
        }
    }

    /// Serves `plan` (frames by presentation index, requested at their exact times) with `seeker`.
    private static func run(_ plan: [Step], on seeker: FrameSeeker) -> [Observation] {
        var observations: [Observation] = []
        for step in plan {
            switch step {
            case .single(let n):
                let out = Result { () throws(FrameSeekerError) in
                    try seeker.frame(for: .init(time: seeker.timeline.time(ofFrame: n)))
                }
                observations.append(observe(out, wanted: n))
            case .batch(let frames, let drainsAtEnd):
                var served = [Observation?](repeating: nil, count: frames.count)
                let left = seeker.frames(for: frames.map { .init(time: seeker.timeline.time(ofFrame: $0)) },
                                         drainsAtEnd: drainsAtEnd) { i, out in
                    served[i] = observe(out, wanted: frames[i])
                    return true
                }
                #expect(left.isEmpty, "a batch left requests unserved")
                observations += frames.indices.map { served[$0] ?? Observation(wanted: frames[$0], failure: "not served") }
            }
        }
        return observations
    }

    /// Requires `candidate` to have given exactly what `reference` gave: the requested frames,
    /// at the same times, with the same bytes.
    private static func expectSame(_ candidate: [Observation], as reference: [Observation], _ label: String) {
        #expect(candidate.count == reference.count, "\(label): different number of results")
        for (c, r) in zip(candidate, reference) {
            #expect(r.failure == nil, "\(label), frame \(r.wanted), reference seeker: \(r.failure ?? "")")
            #expect(c.failure == nil, "\(label), frame \(c.wanted): \(c.failure ?? "")")
            #expect(r.frameIndex == r.wanted, "\(label): reference seeker gave frame \(r.frameIndex ?? -1) for \(r.wanted)")
            #expect(c.frameIndex == r.frameIndex, "\(label): frame \(c.frameIndex ?? -1) for \(c.wanted)")
            #expect(c.time == r.time, "\(label), frame \(c.wanted): different time")
            if let a = c.picture, let b = r.picture, a != b {
                Issue.record("\(label), frame \(c.wanted): pictures differ (bytes per plane Y/U/V: \(a.differences(from: b)))")
            }
        }
    }

    /// The presentation indices of the keyframes.
    private static func keyframes(_ timeline: FrameTimeline) -> [Int] {
        timeline.frames.indices.filter { timeline.frames[$0].isKeyframe }
    }

    /// The I- and P-frames (presentation indices): the frames shown after every frame decoded
    /// before them. B-frames are shown before a frame decoded earlier.
    private static func anchors(_ timeline: FrameTimeline) -> Set<Int> {
        let byDecode = timeline.frames.indices.sorted { timeline.frames[$0].decodeIndex < timeline.frames[$1].decodeIndex }
        var anchors = Set<Int>(), latest = Int64.min
        for i in byDecode where timeline.frames[i].pts > latest {
            anchors.insert(i)
            latest = timeline.frames[i].pts
        }
        return anchors
    }

    /// Presentation indices of the GOP starting at keyframe number `gop` (clamped).
    private static func gop(_ number: Int, of timeline: FrameTimeline) -> Range<Int> {
        let keys = keyframes(timeline)
        let k = min(number, keys.count - 1)
        return keys[k] ..< (k + 1 < keys.count ? keys[k + 1] : timeline.frames.count)
    }

    /// Late frames of a GOP, where skipping pays: its last two I/P frames and the B-frame just
    /// before its last I/P frame.
    private static func lateTargets(in gop: Range<Int>, of timeline: FrameTimeline) -> [Int] {
        let anchors = anchors(timeline)
        let gopAnchors = gop.filter { anchors.contains($0) }
        guard let last = gopAnchors.last else { return [] }
        var targets = Array(gopAnchors.suffix(2))
        if let b = (gop.lowerBound ..< last).last(where: { !anchors.contains($0) }) { targets.append(b) }
        return targets
    }

    @Test("the fixtures are H.264 with long GOPs; reordered where they have B-frames", arguments: SkippingClip.allCases)
    func fixture(_ clip: SkippingClip) throws {
        let url = try Self.clipURL(clip)
        let demuxer = try Demuxer(url: url)
        let video = try #require(demuxer.streams.first { $0.kind == .video })
        #expect(video.codecName == "h264")
        let seeker = try Self.seeker(url, skipping: true)
        let frames = seeker.timeline.frames
        #expect(frames.count == 120)
        #expect(Self.keyframes(seeker.timeline).count == (clip == .ref16Bframes16 ? 4 : 3))
        let reordered = frames.enumerated().contains { $0.offset != $0.element.decodeIndex }
        #expect(reordered == (clip != .baseline))
    }

    @Test("skipping unneeded references changes no pixel: a whole GOP, single frames, several GOPs",
          arguments: SkippingClip.allCases)
    func samePixels(_ clip: SkippingClip) throws {
        let url = try Self.clipURL(clip)
        let off = try Self.seeker(url, skipping: false, threads: clip.decoderThreads)
        let on = try Self.seeker(url, skipping: true, threads: clip.decoderThreads)
        let timeline = off.timeline
        let count = timeline.frames.count
        var rng = SplitMix64(seed: clip.seed)

        // Every frame of the second GOP in random order in one batch; 20 single requests
        // anywhere (forward, backward, repeated); a batch of frames across every GOP, with the
        // late frames of each GOP and the last frame, drained at the end.
        var plan: [Step] = [.batch(Array(Self.gop(1, of: timeline)).shuffled(using: &rng), drainsAtEnd: false)]
        plan += (0 ..< 20).map { _ in .single(Int.random(in: 0 ..< count, using: &rng)) }
        var spanning = (0 ..< 24).map { _ in Int.random(in: 0 ..< count, using: &rng) }
        for g in Self.keyframes(timeline).indices {
            spanning += Self.lateTargets(in: Self.gop(g, of: timeline), of: timeline)
        }
        spanning.append(count - 1)
        plan.append(.batch(spanning.shuffled(using: &rng), drainsAtEnd: true))

        let reference = Self.run(plan, on: off)
        Self.expectSame(Self.run(plan, on: on), as: reference, "skipping on, \(clip.decoderThreads) decoder threads")
        #expect(off.packetsSkippedAsUnneededReferences == 0)
    }

    @Test("late frames of a GOP skip reference B-pictures on the common x264 stream, with the same pixels")
    func skippingHappens() throws {
        let url = try Self.clipURL(.veryfast)
        let probe = try Self.seeker(url, skipping: false)
        let timeline = probe.timeline
        for g in 0 ..< 2 {
            let gop = Self.gop(g, of: timeline)
            let targets = Self.lateTargets(in: gop, of: timeline)
            #expect(targets.count == 3)
            // Each late frame alone, from a fresh seek.
            for n in targets {
                let on = try Self.seeker(url, skipping: true), off = try Self.seeker(url, skipping: false)
                let got = Self.run([.single(n)], on: on)
                Self.expectSame(got, as: Self.run([.single(n)], on: off), "GOP \(g), frame \(n)")
                #expect(on.packetsSkippedAsUnneededReferences > 0, "GOP \(g), frame \(n): no reference picture was skipped")
                #expect(off.packetsSkippedAsUnneededReferences == 0)
            }
            // The late frames together in one batch.
            let on = try Self.seeker(url, skipping: true), off = try Self.seeker(url, skipping: false)
            Self.expectSame(Self.run([.batch(targets, drainsAtEnd: false)], on: on),
                            as: Self.run([.batch(targets, drainsAtEnd: false)], on: off), "GOP \(g), late frames batch")
            #expect(on.packetsSkippedAsUnneededReferences > 0, "GOP \(g), late frames batch: no reference picture was skipped")
        }
    }

    @Test("streams the planner must leave alone skip nothing and stay exact",
          arguments: [SkippingClip.noPyramid, .baseline, .interlaced])
    func nothingToSkip(_ clip: SkippingClip) throws {
        let url = try Self.clipURL(clip)
        let off = try Self.seeker(url, skipping: false), on = try Self.seeker(url, skipping: true)
        let timeline = off.timeline
        var plan: [Step] = []
        for g in 0 ..< 2 {
            plan += Self.lateTargets(in: Self.gop(g, of: timeline), of: timeline).map { .single($0) }
        }
        plan.append(.batch([39, 79, 119], drainsAtEnd: true))
        Self.expectSame(Self.run(plan, on: on), as: Self.run(plan, on: off), "skipping on")
        // No reference B-pictures (none made, or no B-frames at all), or interlaced coding.
        #expect(on.packetsSkippedAsUnneededReferences == 0)
    }

    @Test("frames match the ffmpeg command-line decoder bit for bit")
    func matchesFFmpegCLI() throws {
        let url = try Self.clipURL(.veryfast)
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("refskip-\(getpid())-veryfast.yuv")
        defer { try? FileManager.default.removeItem(at: raw) }
        try #require(SkippingFixtures.ffmpeg(["-i", url.path, "-map", "0:v:0", "-fps_mode", "passthrough",
                                              "-f", "rawvideo", "-pix_fmt", "yuv420p", raw.path]))
        let decoded = try Data(contentsOf: raw)
        let on = try Self.seeker(url, skipping: true), off = try Self.seeker(url, skipping: false)
        let timeline = on.timeline
        let (w, h) = (SkippingClip.width, SkippingClip.height)
        let size = w * h * 3 / 2
        #expect(decoded.count == timeline.frames.count * size)
        // The picture changes every frame, so a picture decoded from wrong references would show.
        let still = (1 ..< decoded.count / size).filter {
            decoded[($0 - 1) * size ..< $0 * size].elementsEqual(decoded[$0 * size ..< ($0 + 1) * size])
        }
        #expect(still.isEmpty, "frames identical to the one before: \(still)")

        var rng = SplitMix64(seed: 0xFF_4D_50_45_47)
        var targets = Self.lateTargets(in: Self.gop(0, of: timeline), of: timeline)
            + Self.lateTargets(in: Self.gop(1, of: timeline), of: timeline)
        targets += (0 ..< 4).map { _ in Int.random(in: 0 ..< timeline.frames.count, using: &rng) }
        targets.shuffle(using: &rng)
        let plan = targets.map { Step.single($0) }
        for (label, observations) in [("skipping on", Self.run(plan, on: on)), ("skipping off", Self.run(plan, on: off))] {
            #expect(observations.count == targets.count)
            for o in observations {
                #expect(o.failure == nil, "\(label), frame \(o.wanted): \(o.failure ?? "")")
                #expect(o.frameIndex == o.wanted)
                let picture = try #require(o.picture)
                let expected = PlanarPicture(raw: decoded, index: o.wanted, width: w, height: h)
                #expect(picture == expected,
                        "\(label), frame \(o.wanted): differs from ffmpeg (bytes per plane Y/U/V: \(picture.differences(from: expected)))")
            }
        }
    }
}
