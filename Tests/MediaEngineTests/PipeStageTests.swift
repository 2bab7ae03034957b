import CoreMedia
import Foundation
import Testing
@testable import MediaEngine

/// The pipe's stages (PacketSource → DecodeLoop, and the audio stream reader over them) can be
/// repositioned while running — as a player seeking does — and then give exactly the frames of
/// the new range.
@Suite("Pipe stages")
struct PipeStageTests {
    private static let frameDuration = CMTime(value: 512, timescale: 15360)

    private func videoSource() throws -> (PacketSource, DecodeLoop) {
        let demuxer = try Demuxer(url: NumberedVideo.url)
        let video = try #require(demuxer.streams.first { $0.kind == .video })
        let source = try PacketSource(url: NumberedVideo.url, streamIndex: video.index)
        let loop = DecodeLoop(decoder: try source.makeDecoder(threads: 1), tracksDurations: true,
                              cancellation: source.cancellation)
        return (source, loop)
    }

    private func range(_ first: Int, _ end: Int) -> CMTimeRange {
        CMTimeRange(start: NumberedVideo.time(first), end: NumberedVideo.time(end))
    }

    /// Up to `limit` decoded frames inside `range`, as (frame number drawn in it, time, duration).
    private func frames(_ source: PacketSource, _ loop: DecodeLoop, in range: CMTimeRange,
                        limit: Int = .max) throws -> [(number: Int, time: CMTime, duration: CMTime)] {
        var out: [(number: Int, time: CMTime, duration: CMTime)] = []
        while out.count < limit, let decoded = try loop.next(feed: { () throws(MediaError) -> DemuxerPacket? in try source.next() }) {
            let time = decoded.frame.presentationTime
            guard time >= range.start, time < range.end else { continue }
            let image = try FrameImage.makeCGImage(from: try decoded.frame.makePixelBuffer(), width: 320, height: 240)
            out.append((NumberedVideo.number(in: image), time, decoded.duration))
        }
        return out
    }

    @Test("a packet source and decode loop repositioned mid-range, backwards and within a GOP give the new range's frames exactly")
    func videoRepositionWhileRunning() throws {
        let (source, loop) = try videoSource()
        // Mid-GOP (the keyframes are at 0, 48, 96, …): decoding starts at frame 192's keyframe.
        #expect(try source.position(for: range(200, 230)))
        let started = try frames(source, loop, in: range(200, 230), limit: 5)
        #expect(started.map(\.number) == Array(200 ..< 205))

        // A player seeks back while frames are still buffered in the decoder.
        loop.flush()
        #expect(try source.position(for: range(50, 60)))
        let back = try frames(source, loop, in: range(50, 60))
        #expect(back.map(\.number) == Array(50 ..< 60))
        #expect(back.map(\.time) == (50 ..< 60).map(NumberedVideo.time))
        #expect(back.allSatisfy { $0.duration == Self.frameDuration })

        // Forward again, inside one GOP, from the track's start.
        loop.flush()
        #expect(try source.position(for: range(0, 3)))
        #expect(try frames(source, loop, in: range(0, 3)).map(\.number) == [0, 1, 2])

        // A range after the last frame has nothing.
        loop.flush()
        #expect(try source.position(for: range(NumberedVideo.frameCount + 10, NumberedVideo.frameCount + 20)) == false)
        #expect(try source.next() == nil)
    }

    @Test("positioning at a keyframe's decode index reads from there; peeking ahead does not lose packets")
    func keyframePositionAndPeek() throws {
        let (source, loop) = try videoSource()
        let timeline = try source.loadTimeline()
        let keyframe = try #require(timeline.frames.firstIndex { $0.isKeyframe && $0.pts >= NumberedVideo.time(96).value })
        try source.position(atDecodeIndex: timeline.frames[keyframe].decodeIndex)
        let ahead = try (0 ..< 6).map { try #require(try source.peek($0)) }
        var read: [DemuxerPacket] = []
        for _ in 0 ..< 6 { read.append(try #require(try source.next())) }
        // What `next()` hands out starts at the keyframe, in the order peeked at.
        let firstPeeked = try #require(ahead.firstIndex { source.decodeIndex(of: $0) == timeline.frames[keyframe].decodeIndex })
        #expect(read.prefix(ahead.count - firstPeeked).map(\.rawPTS) == ahead[firstPeeked...].map(\.rawPTS))
        #expect(read[0].isKeyframe)
        #expect(read[0].rawPTS == timeline.frames[keyframe].pts)
        // And decoding from there shows frame 96 first.
        loop.flush()
        try source.position(atDecodeIndex: timeline.frames[keyframe].decodeIndex)
        #expect(try frames(source, loop, in: range(96, 100)).prefix(4).map(\.number) == [96, 97, 98, 99])
    }

    @Test("a cancelled packet source stops the decode loop")
    func cancellation() throws {
        let (source, loop) = try videoSource()
        #expect(try source.position(for: range(10, 40)))
        _ = try frames(source, loop, in: range(10, 40), limit: 2)
        source.cancel()
        #expect(throws: DecodeLoop.Failure.cancelled) {
            while try loop.next(feed: { () throws(MediaError) -> DemuxerPacket? in try source.next() }) != nil {}
        }
    }

    /// 4 s of 48 kHz mono 16-bit WAV whose sample n is (n mod 32768) / 32768.
    static let rampURL: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pipestages-\(getpid())-ramp.wav")
        NumberedVideo.run(["-f", "lavfi", "-i", "aevalsrc=n/32768-floor(n/32768):s=48000:d=4", "-c:a", "pcm_s16le", url.path])
        return url
    }()

    private func audioReader() throws -> AudioStreamReader {
        let demuxer = try Demuxer(url: Self.rampURL)
        let audio = try #require(demuxer.streams.first { $0.kind == .audio })
        return try AudioStreamReader(url: Self.rampURL, streamIndex: audio.index,
                                     output: .float32Planar(sampleRate: 48000, channels: AudioChannelSet(count: 1)))
    }

    private func readAll(_ reader: AudioStreamReader, limit: Int = 1 << 40) throws -> (start: Int64?, data: Data) {
        var start: Int64?
        var data = Data()
        while data.count < limit * 4, let block = try reader.read(maxFrames: 1024) {
            if start == nil { start = block.startIndex }
            data.append(block.data)
        }
        return (start, data)
    }

    @Test("an audio stream reader repositioned while running gives, sample for sample, what a fresh one gives")
    func audioRepositionWhileRunning() throws {
        let reader = try audioReader()
        try reader.start(from: CMTime(value: 2, timescale: 1), to: CMTime(value: 3, timescale: 1))
        let first = try readAll(reader, limit: 3000)
        #expect(first.start == 96000)
        let from = CMTime(value: 3, timescale: 4), to = CMTime(value: 1, timescale: 1)
        try reader.start(from: from, to: to)
        let repositioned = try readAll(reader)
        let fresh = try audioReader()
        try fresh.start(from: from, to: to)
        let expected = try readAll(fresh)
        #expect(repositioned.start == 36000)
        #expect(repositioned.data.count == 12000 * 4)
        #expect(repositioned.start == expected.start)
        #expect(repositioned.data == expected.data)
        // The samples are the ramp's at 0.75 s: sample n is (n mod 32768) / 32768.
        let firstSample = repositioned.data.withUnsafeBytes { $0.load(as: Float.self) }
        #expect(abs(firstSample - Float(36000 % 32768) / 32768) < 1e-4)
    }
}
