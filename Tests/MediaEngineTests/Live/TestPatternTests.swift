// The test pattern: NV12 '420v' frames whose frame number and host-time strip read back exactly,
// bars in the background, the box moving; and the testsrc source delivering them live.
import CoreMedia
import CoreVideo
import Foundation
@testable import MediaEngine
import Synchronization
import Testing

@Suite struct TestPatternTests {
    static let sizes = [(640, 480), (1920, 1080)]

    @Test(arguments: sizes) func frameReadsBackItsNumberAndPTS(width: Int, height: Int) throws {
        let generator = try TestPatternGenerator(width: width, height: height)
        let frameDuration = CMTime(value: 1, timescale: 30)
        // A host time well past a day of uptime, so every bit of the strip's upper bytes is used.
        let anchor = CMTime(value: 98_765_432_101_234, timescale: 1_000_000_000)
        for n: UInt64 in [0, 1, 7, 29, 30, 123, 4_567, 89_012_345, 99_999_999] {
            let pts = anchor + CMTimeMultiply(frameDuration, multiplier: Int32(n % 100_000))
            let buffer = try #require(try generator.makeFrame(frameNumber: n, pts: pts))
            #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            #expect(CVPixelBufferGetWidth(buffer) == width && CVPixelBufferGetHeight(buffer) == height)
            let reading = try #require(HostTimeStrip.read(buffer))
            #expect(reading.nanoseconds == HostTimeStrip.nanoseconds(pts), "frame \(n)")
            #expect(reading.frameNumber == n)
        }
        // All 64 bits round-trip, including the top one.
        let buffer = try #require(try generator.makeFrame(frameNumber: 0, pts: CMTime(value: Int64.max, timescale: 1_000_000_000)))
        #expect(HostTimeStrip.read(buffer)?.nanoseconds == UInt64(Int64.max))
    }

    /// Makes 120 1080p frames from the pool as the source does, checks that each reads back,
    /// and prints the mean cost (docs/ARCHITECTURE.md "Live stages" quotes it; nothing timed is
    /// asserted).
    @Test func patternCostAt1080pIsPrinted() throws {
        let generator = try TestPatternGenerator(width: 1920, height: 1080)
        let frames = 120
        var drawing = 0.0
        for n in 0..<frames {
            let pts = CMTime(value: Int64(n) * 33_333_333 + 5_000_000_000, timescale: 1_000_000_000)
            let start = CMClockGetTime(CMClockGetHostTimeClock())
            let buffer = try #require(try generator.makeFrame(frameNumber: UInt64(n), pts: pts))
            drawing += (CMClockGetTime(CMClockGetHostTimeClock()) - start).seconds
            let reading = HostTimeStrip.read(buffer)
            #expect(reading == HostTimeStrip.Reading(nanoseconds: HostTimeStrip.nanoseconds(pts), frameNumber: UInt64(n)))
        }
        print("TestPatternGenerator 1920x1080: \(String(format: "%.3f", drawing / Double(frames) * 1000)) ms per frame over \(frames) frames")
    }

    @Test func barsAreInTheBackgroundAndTheBoxMoves() throws {
        let generator = try TestPatternGenerator(width: 640, height: 480)
        let a = try #require(try generator.makeFrame(frameNumber: 10, pts: .zero))
        let b = try #require(try generator.makeFrame(frameNumber: 11, pts: .zero))
        let layout = generator.layout
        func luma(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> UInt8 {
            CVPixelBufferLockBaseAddress(buffer, .readOnly)
            defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
            let base = CVPixelBufferGetBaseAddressOfPlane(buffer, 0)!.assumingMemoryBound(to: UInt8.self)
            return base[y * CVPixelBufferGetBytesPerRowOfPlane(buffer, 0) + x]
        }
        func chroma(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> (UInt8, UInt8) {
            CVPixelBufferLockBaseAddress(buffer, .readOnly)
            defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
            let base = CVPixelBufferGetBaseAddressOfPlane(buffer, 1)!.assumingMemoryBound(to: UInt8.self)
            let i = (y / 2) * CVPixelBufferGetBytesPerRowOfPlane(buffer, 1) + (x / 2) * 2
            return (base[i], base[i + 1])
        }
        // Bars (sampled above the strip, below the box): white first, a dark bar last; the
        // yellow bar (second) has low Cb, the blue one (seventh) high Cb.
        let y = layout.height / 2 + 6 * layout.unit
        #expect(luma(a, layout.width / 16, y) > 200)
        #expect(luma(a, layout.width - layout.width / 16, y) < 50)
        #expect(chroma(a, 3 * layout.width / 16, y).0 < 64)
        #expect(chroma(a, 13 * layout.width / 16, y).0 > 192)
        // The box is white with neutral chroma and one unit further right in the next frame.
        let boxA = layout.movingBox(frame: 10), boxB = layout.movingBox(frame: 11)
        #expect(boxB.x == boxA.x + layout.unit)
        #expect(luma(a, boxA.centre.x, boxA.centre.y) == TestPatternLayout.white)
        #expect(chroma(a, boxA.centre.x, boxA.centre.y) == (128, 128))
        #expect(luma(b, boxB.x + boxB.width - 1, boxB.centre.y) == TestPatternLayout.white)
        #expect(luma(a, boxB.x + boxB.width - 1, boxB.centre.y) != TestPatternLayout.white)
    }

    @Test func poolExhaustionStopsTheGeneratorUntilABufferComesBack() throws {
        let generator = try TestPatternGenerator(width: 320, height: 240, poolCapacity: 3)
        var held: [CVPixelBuffer] = []
        for n: UInt64 in 0..<3 { held.append(try #require(try generator.makeFrame(frameNumber: n, pts: .zero))) }
        #expect(try generator.makeFrame(frameNumber: 3, pts: .zero) == nil)
        held.removeFirst()
        #expect(try generator.makeFrame(frameNumber: 3, pts: .zero) != nil)
    }

    @Test func tooSmallOrOddSizesAreRefused() {
        #expect(throws: LiveSourceError.self) { try TestPatternGenerator(width: 64, height: 48) }
        #expect(throws: LiveSourceError.self) { try TestPatternGenerator(width: 641, height: 480) }
    }

    /// A format the camera does not list, or a frame duration outside its range, is refused
    /// before anything runs; so is the same for a file camera.
    @Test func startRefusesFormatsAndRatesTheSourceDoesNotOffer() throws {
        let camera = try #require(VirtualDevices.parse("testsrc:320x240@30").cameras.first)
        let source = camera.makeSource()
        let format = try #require(source.formats.first)
        var other = format
        other.width = 321
        let noCall: @Sendable (LiveFrame) -> Void = { _ in Issue.record("a refused start delivered a frame") }
        let noFailure: @Sendable (LiveSourceError) -> Void = { _ in Issue.record("a refused start reported a failure") }
        #expect(throws: LiveSourceError.unsupportedFormat("\(other) is not a format of this camera")) {
            try source.start(format: other, frameDuration: format.minFrameDuration, clock: CMClockGetHostTimeClock(),
                             deliver: noCall, failed: noFailure)
        }
        for duration in [CMTime(value: 1, timescale: 60), CMTime(value: 2, timescale: 1), CMTime.invalid] {
            #expect(throws: LiveSourceError.unsupportedFormat("a frame duration of \(duration.seconds) s is outside \(format)")) {
                try source.start(format: format, frameDuration: duration, clock: CMClockGetHostTimeClock(),
                                 deliver: noCall, failed: noFailure)
            }
        }
        source.stop()
    }

    @Test func sourceDeliversStrictlyIncreasingFramesThatCarryTheirPTS() throws {
        let camera = try #require(VirtualDevices.parse("testsrc:320x240@100").cameras.first)
        let source = camera.makeSource()
        let format = try #require(source.formats.first)
        #expect(format.width == 320 && format.height == 240 && format.maxFrameRate == 100)
        // Only what the frames say is kept: holding the buffers would exhaust the source's pool
        // (6 buffers) and stop it — the back-pressure the pool exists for.
        struct Seen { var pts: CMTime; var sequence: UInt64; var duration: CMTime; var reading: HostTimeStrip.Reading? }
        let frames = Mutex<[Seen]>([])
        let enough = DispatchSemaphore(value: 0)
        try source.start(format: format, frameDuration: format.minFrameDuration, clock: CMClockGetHostTimeClock(),
                         deliver: { frame in
            let seen = Seen(pts: frame.pts, sequence: frame.sequence, duration: frame.duration,
                            reading: HostTimeStrip.read(frame.pixelBuffer))
            let count = frames.withLock { $0.append(seen); return $0.count }
            if count == 10 { enough.signal() }
        }, failed: { error in Issue.record("the pattern failed: \(error)") })
        // A guard against a hang, not a timing check: the frames come within a second.
        let arrived = enough.wait(timeout: .now() + 60) == .success
        source.stop()
        try #require(arrived, "no frames in a minute; got \(frames.withLock { $0.count })")
        let got = frames.withLock { $0 }
        let afterStop = got.count
        #expect(got.count >= 10)
        for (a, b) in zip(got, got.dropFirst()) {
            #expect(b.pts > a.pts)
            #expect(b.sequence > a.sequence)
        }
        for frame in got {
            #expect(frame.reading?.nanoseconds == HostTimeStrip.nanoseconds(frame.pts))
            #expect(frame.reading?.frameNumber == frame.sequence)
            #expect(frame.duration == CMTime(value: 1, timescale: 100))
        }
        // Capture times are host times (the clock the frames were stamped on), not media times.
        #expect(got[0].pts.seconds > 0)
        #expect(got[0].pts <= CMClockGetTime(CMClockGetHostTimeClock()))
        // Nothing is delivered after stop() returned.
        usleep(50_000)
        #expect(frames.withLock { $0.count } == afterStop)
    }
}
