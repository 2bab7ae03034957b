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

    @Test func longestRunsAreClaimedFirstWithinTheWindowAndReportedInOrder() {
        let runs = [[0], [1], [2, 3], [4], [5], [6, 7]]
        let batch = ParallelBatch(costs: [258, 135, 189, 243, 120, 174], window: 4)
        var reported: [Int] = []
        // The longest runs among the first four go first.
        #expect(batch.claimRun(cancelled: false) == 0)
        #expect(batch.claimRun(cancelled: false) == 3)
        #expect(batch.claimRun(cancelled: false) == 2)
        // Run 3 finishes before 0 to 2: it waits.
        batch.finish(run: 3, results: results(runs[3]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported.isEmpty)
        #expect(batch.claimRun(cancelled: false) == 1)
        batch.finish(run: 0, results: results(runs[0]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported == [0])
        // The window moved on by one (runs 1 to 4): only run 4 is left in it.
        #expect(batch.claimRun(cancelled: false) == 4)
        batch.finish(run: 1, results: results(runs[1]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported == [0, 1])
        #expect(batch.claimRun(cancelled: false) == 5)
        #expect(batch.claimRun(cancelled: false) == nil)
        batch.finish(run: 5, results: results(runs[5]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported == [0, 1])
        batch.finish(run: 2, results: results(runs[2]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported == [0, 1, 2, 3, 4])
        batch.finish(run: 4, results: results(runs[4]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported == [0, 1, 2, 3, 4, 5, 6, 7])
        #expect(batch.unserved(runs: runs).isEmpty)
    }

    @Test func aSeekerWaitsWhileTheWindowIsFullAndGoesOnWhenReportingMoves() {
        let runs = [[0], [1], [2]]
        let batch = ParallelBatch(costs: [1, 1, 1], window: 2)
        #expect(batch.claimRun(cancelled: false) == 0)
        #expect(batch.claimRun(cancelled: false) == 1)
        // A second seeker (a plain thread, as the batch's workers are) finds the window full.
        let claimed = ClaimBox()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            claimed.value = batch.claimRun(cancelled: false)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + .milliseconds(100)) == .timedOut)
        var reported: [Int] = []
        batch.finish(run: 0, results: results(runs[0]), unserved: []) { reported += $0.map(\.0) }
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(claimed.value == 2)
        batch.finish(run: 2, results: results(runs[2]), unserved: []) { reported += $0.map(\.0) }
        batch.finish(run: 1, results: results(runs[1]), unserved: []) { reported += $0.map(\.0) }
        #expect(reported == [0, 1, 2])
    }

    @Test func nothingAfterARunCutShortIsReported() {
        let runs = [[0, 1], [2], [3]]
        let batch = ParallelBatch(costs: [1, 1, 1], window: 3)
        for k in 0 ..< 3 { #expect(batch.claimRun(cancelled: false) == k) }
        var reported: [Int] = []
        batch.finish(run: 2, results: results(runs[2]), unserved: []) { reported += $0.map(\.0) }
        batch.finish(run: 1, results: results(runs[1]), unserved: []) { reported += $0.map(\.0) }
        // Run 0 was cancelled after its first frame.
        batch.finish(run: 0, results: results([0]), unserved: [1]) { reported += $0.map(\.0) }
        #expect(reported == [0])
        #expect(batch.unserved(runs: runs).sorted() == [1, 2, 3])
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

/// A claimed run handed back from another thread (read after a semaphore).
private final class ClaimBox: @unchecked Sendable {
    var value: Int?
}
