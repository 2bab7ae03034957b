import Foundation
import Testing
@testable import AVFoundation

/// The ordering and hand-off rules of batches served by several seekers, driven by hand so the
/// interleavings that are rare under real decoding happen every time.
@Suite("Parallel image batches")
struct ImageGeneratorBatchTests {
    private static let image: CGImage = {
        let provider = CGDataProvider(data: Data(repeating: 0, count: 4) as CFData)!
        return CGImage(width: 1, height: 1, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 4,
                       space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipLast.rawValue),
                       provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent)!
    }()

    private func results(_ positions: [Int]) -> [(Int, Result<GeneratedImage, any Error>)] {
        positions.map { ($0, .success(GeneratedImage(image: Self.image, actualTime: CMTime(value: Int64($0), timescale: 1)))) }
    }

    @Test func laterRunFinishingFirstWaitsAndNothingIsLost() {
        let runs = [[0, 1], [2], [3, 4]]
        let batch = ParallelBatch(runCount: runs.count)
        #expect(batch.claimRun(cancelled: false) == 0)
        #expect(batch.claimRun(cancelled: false) == 1)
        #expect(batch.claimRun(cancelled: false) == 2)
        #expect(batch.claimRun(cancelled: false) == nil)
        var reported: [Int] = []
        // Runs 2 and 1 finish before run 0: nothing may be reported yet…
        batch.finish(run: 2, results: results(runs[2]), unserved: []) { reported += $0.map(\.0) }
        batch.finish(run: 1, results: results(runs[1]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported.isEmpty)
        // …and when run 0 finishes, everything comes out, in order.
        batch.finish(run: 0, results: results(runs[0]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported == [0, 1, 2, 3, 4])
        #expect(batch.unserved(runs: runs).isEmpty)
    }

    @Test func cancellationStopsNewRunsAndReportsTheRestAsUnserved() {
        let runs = [[0], [1], [2]]
        let batch = ParallelBatch(runCount: runs.count)
        #expect(batch.claimRun(cancelled: false) == 0)
        var reported: [Int] = []
        batch.finish(run: 0, results: results(runs[0]), unserved: []) { reported += $0.map(\.0) }
        #expect(batch.claimRun(cancelled: true) == nil)
        #expect(batch.isStopped)
        #expect(reported == [0])
        #expect(batch.unserved(runs: runs).sorted() == [1, 2])
    }
}
