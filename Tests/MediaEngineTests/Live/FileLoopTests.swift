// File virtual cameras: a 1 s 30 fps clip looped three times is 90 pictures exactly 1/30 s apart
// across the seams; an image repeats at the asked rate; the live source paces and stops.
import CoreMedia
import CoreVideo
import Foundation
@testable import MediaEngine
import Synchronization
import Testing
import TestSupport

@Suite(.enabled(if: TestTools.hasFFmpeg, "needs the ffmpeg CLI to make the clips"))
struct FileLoopTests {
    /// Makes `name` in a fresh directory with ffmpeg from a lavfi source.
    static func make(_ name: String, _ args: [String]) throws -> URL {
        let dir = try TestTools.temporaryDirectory("file-loop")
        let url = dir.appendingPathComponent(name)
        let (status, _) = try TestTools.run("ffmpeg", ["-v", "error", "-nostdin", "-y"] + args + [url.path])
        try #require(status == 0, "ffmpeg could not make \(name)")
        return url
    }

    static func clip(_ codec: [String] = ["-c:v", "libx264", "-pix_fmt", "yuv420p"], ext: String = "mp4") throws -> URL {
        try make("clip.\(ext)", ["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=1"] + codec)
    }

    @Test(arguments: [(["-c:v", "libx264", "-pix_fmt", "yuv420p"], "mp4"), (["-c:v", "mpeg4", "-q:v", "4"], "mov")])
    func loopedThreeTimesGivesNinetyPicturesWithNoGapAtTheSeams(codec: [String], ext: String) throws {
        let url = try Self.clip(codec, ext: ext)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let reader = try FileLoopReader(url: url)
        var times: [CMTime] = []
        while times.count < 90 {
            let picture = try reader.next()
            #expect(picture.duration == CMTime(value: 1, timescale: 30))
            #expect(CVPixelBufferGetPixelFormatType(picture.pixelBuffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(CVPixelBufferGetWidth(picture.pixelBuffer) == 320 && CVPixelBufferGetHeight(picture.pixelBuffer) == 240)
            times.append(picture.mediaTime)
        }
        #expect(reader.loopCount == 2)
        for (k, time) in times.enumerated() {
            #expect(time == CMTime(value: Int64(k), timescale: 30), "picture \(k) at \(time.seconds)")
        }
        // The 91st starts the fourth pass, 3 s in.
        #expect(try reader.next().mediaTime == CMTime(value: 3, timescale: 1))
    }

    @Test func picturesAreScaledToTheAskedSize() throws {
        let url = try Self.clip()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let formats = try FileLoopReader.formats(of: url)
        #expect(formats.map { "\($0.width)x\($0.height)" } == ["320x240", "192x144"])
        #expect(formats.allSatisfy { $0.maxFrameRate == 30 && $0.minFrameRate == 1 })
        let reader = try FileLoopReader(url: url, width: 192, height: 144)
        let picture = try reader.next()
        #expect(CVPixelBufferGetWidth(picture.pixelBuffer) == 192 && CVPixelBufferGetHeight(picture.pixelBuffer) == 144)
        #expect(CVPixelBufferGetPixelFormatType(picture.pixelBuffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
    }

    @Test func anImageRepeatsAtTheAskedRate() throws {
        let url = try Self.make("still.png", ["-f", "lavfi", "-i", "testsrc=size=320x240", "-frames:v", "1"])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let rate = CMTime(value: 1, timescale: 15)
        let reader = try FileLoopReader(url: url, imageFrameDuration: rate)
        var pictures: [FileLoopReader.Picture] = []
        for _ in 0..<5 { pictures.append(try reader.next()) }
        #expect(pictures.map(\.mediaTime) == (0..<5).map { CMTimeMultiply(rate, multiplier: Int32($0)) })
        #expect(pictures.allSatisfy { $0.duration == rate && $0.pixelBuffer === pictures[0].pixelBuffer })
    }

    @Test func badFilesFailWithAClearError() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/clip.mp4")
        #expect(throws: LiveSourceError.disconnected("/nonexistent/clip.mp4 does not exist")) { try FileLoopReader(url: missing) }
        let dir = try TestTools.temporaryDirectory("file-loop")
        defer { try? FileManager.default.removeItem(at: dir) }
        let junk = dir.appendingPathComponent("junk.mp4")
        try Data("not a movie".utf8).write(to: junk)
        #expect(throws: LiveSourceError.self) { try FileLoopReader(url: junk) }
        #expect(FileLoopSource(url: junk).formats.isEmpty)
    }

    @Test func liveSourceStampsHostTimesOnTheLoopedTimeline() throws {
        let url = try Self.clip()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let camera = try #require(VirtualDevices.parse(url.path).cameras.first)
        #expect(camera.uniqueID == "virtual:\(url.path)")
        #expect(camera.isConnected)
        let source = camera.makeSource()
        let format = try #require(source.formats.first)
        struct Seen { var pts: CMTime; var sequence: UInt64; var duration: CMTime }
        let frames = Mutex<[Seen]>([])
        let enough = DispatchSemaphore(value: 0)
        // 15 fps from a 30 fps file: every other picture, past the seam at 1 s.
        let frameDuration = CMTime(value: 1, timescale: 15)
        try source.start(format: format, frameDuration: frameDuration, clock: CMClockGetHostTimeClock(), deliver: { frame in
            let seen = Seen(pts: frame.pts, sequence: frame.sequence, duration: frame.duration)
            if frames.withLock({ $0.append(seen); return $0.count }) == 20 { enough.signal() }
        }, failed: { error in Issue.record("the file camera failed: \(error)") })
        // A guard against a hang, not a timing check: the frames come within a second.
        let arrived = enough.wait(timeout: .now() + 60) == .success
        source.stop()
        try #require(arrived, "no frames in a minute; got \(frames.withLock { $0.count })")
        let got = frames.withLock { $0 }
        let count = got.count
        for (a, b) in zip(got, got.dropFirst()) {
            // Frames the pump dropped as late leave gaps of whole intervals, never less.
            let steps = Int32(b.sequence - a.sequence)
            #expect(steps >= 1)
            #expect(b.pts - a.pts == CMTimeMultiply(frameDuration, multiplier: steps))
        }
        #expect(got.allSatisfy { $0.duration == frameDuration })
        usleep(50_000)
        #expect(frames.withLock { $0.count } == count)
    }

    @Test func removingTheFileStopsTheSourceAtTheSeam() throws {
        let url = try Self.make("short.mp4", ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=30:duration=0.2",
                                              "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let source = FileLoopSource(url: url)
        let format = try #require(source.formats.first)
        let failure = Mutex<LiveSourceError?>(nil)
        let failed = DispatchSemaphore(value: 0)
        try source.start(format: format, frameDuration: format.minFrameDuration, clock: CMClockGetHostTimeClock(),
                         deliver: { _ in }, failed: { error in
            failure.withLock { $0 = error }
            failed.signal()
        })
        try FileManager.default.removeItem(at: url)
        let stopped = failed.wait(timeout: .now() + 60) == .success
        source.stop()
        try #require(stopped, "the source did not stop in a minute after its file was removed")
        #expect(failure.withLock { $0 } == .disconnected("\(url.path) was removed"))
    }
}
