// Timings of the conversions that pass through layouts libswscale 5.1 cannot read or write
// directly ('422v'/'422f', 'b64a', 16-bit CGImages), printed and never asserted. Runs only when
// PIXEL_REPACK_BENCH is set; run it in a debug build (what `swift run` gives users).
import CoreGraphics
import CoreVideo
import Foundation
import Testing
@testable import MediaEngine

@Suite("Pixel repack timing (PIXEL_REPACK_BENCH=1)")
struct PixelRepackBenchmarkTests {
    static let width = 1920, height = 1080, rounds = 20

    /// The mean wall time of `rounds` runs of `body`, in milliseconds, after one warm-up run.
    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        try body()
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<rounds { try body() }
        let elapsed = clock.now - start
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000 / Double(rounds)
    }

    @Test("1080p conversions through 422v, b64a and a 16-bit CGImage",
          .enabled(if: ProcessInfo.processInfo.environment["PIXEL_REPACK_BENCH"] != nil))
    func conversions() throws {
        let converter = PixelConverter(threads: 1)
        let bars = PixelFixtures.bars(grey: false)
        let pairs: [(TestFormat, TestFormat)] = [(.nv16v, .bgra), (.bgra, .nv16v), (.nv16f, .i420f), (.argb64, .bgra),
                                                 (.bgra, .argb64), (.argb64, .p010v)]
        for (from, to) in pairs {
            let source = PixelFixtures.make(from, width: Self.width, height: Self.height, colour: bars)
            let destination = PixelFixtures.allocate(to, width: Self.width, height: Self.height)
            let ms = try Self.milliseconds { try converter.transfer(from: source, to: destination) }
            print("repack-bench: \(from) → \(to) \(Self.width)×\(Self.height): \(String(format: "%.2f", ms)) ms")
        }
        let layout = ImageLayout.all.first { $0.bitsPerComponent == 16 }!
        let image = try #require(layout.image(width: Self.width, height: Self.height) { x, y in
            let c = bars(x, y)
            return (UInt8(c.r), UInt8(c.g), UInt8(c.b))
        })
        let ms = try Self.milliseconds { _ = try converter.makePixelBuffer(from: image, pixelFormat: TestFormat.bgra.osType) }
        print("repack-bench: \(layout) CGImage → BGRA \(Self.width)×\(Self.height): \(String(format: "%.2f", ms)) ms")
    }
}
