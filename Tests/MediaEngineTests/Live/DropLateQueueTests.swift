// DropLateQueue with a consumer held on a semaphore: which items are delivered, which dropped and
// why, with at most one delivery running — counts and order only, nothing timed.
import Dispatch
import Foundation
@testable import MediaEngine
import Synchronization
import Testing

@Suite struct DropLateQueueTests {
    /// What the consumer saw.
    final class Record: Sendable {
        let delivered = Mutex<[Int]>([])
        let dropped = Mutex<[(Int, DropLateQueue<Int>.DropReason)]>([])
        let firstDeliveryStarted = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
    }

    /// A queue whose first delivery blocks until `record.gate` is signalled.
    static func blockedQueue(_ policy: DropLateQueue<Int>.Policy, _ record: Record) -> DropLateQueue<Int> {
        DropLateQueue<Int>(policy: policy, queue: DispatchQueue(label: "consumer"), deliver: { item in
            let first = record.delivered.withLock { $0.isEmpty }
            if first {
                record.firstDeliveryStarted.signal()
                record.gate.wait()
            }
            record.delivered.withLock { $0.append(item) }
        }, drop: { item, reason in record.dropped.withLock { $0.append((item, reason)) } })
    }

    @Test func keepNewestDeliversTheNewestAndDropsTheReplacedAsLate() {
        let record = Record()
        let queue = Self.blockedQueue(.keepNewest(1), record)
        queue.enqueue(0)
        record.firstDeliveryStarted.wait()             // the consumer is now busy with item 0
        for i in 1...10 { queue.enqueue(i) }
        #expect(queue.waitingCount == 1)
        record.gate.signal()
        queue.waitUntilIdle()
        #expect(record.delivered.withLock { $0 } == [0, 10])
        let dropped = record.dropped.withLock { $0 }
        #expect(dropped.map(\.0) == Array(1...9))
        #expect(dropped.allSatisfy { $0.1 == .frameWasLate })
        #expect(DropLateQueue<Int>.DropReason.frameWasLate.rawValue == "FrameWasLate")
        #expect(queue.deliveredCount == 2)
        #expect(queue.droppedCount(.frameWasLate) == 9)
        #expect(queue.maximumInFlight == 1)
    }

    @Test func keepNewestWithRoomForThreeKeepsTheThreeNewestInOrder() {
        let record = Record()
        let queue = Self.blockedQueue(.keepNewest(3), record)
        queue.enqueue(0)
        record.firstDeliveryStarted.wait()
        for i in 1...10 { queue.enqueue(i) }
        record.gate.signal()
        queue.waitUntilIdle()
        #expect(record.delivered.withLock { $0 } == [0, 8, 9, 10])
        #expect(record.dropped.withLock { $0 }.map(\.0) == Array(1...7))
    }

    @Test func fifoKeepsOrderAndDropsTheNewestWhenFull() {
        let record = Record()
        let queue = Self.blockedQueue(.fifo(3), record)
        queue.enqueue(0)
        record.firstDeliveryStarted.wait()
        for i in 1...9 { queue.enqueue(i) }
        record.gate.signal()
        queue.waitUntilIdle()
        #expect(record.delivered.withLock { $0 } == [0, 1, 2, 3])
        let dropped = record.dropped.withLock { $0 }
        #expect(dropped.map(\.0) == Array(4...9))
        #expect(dropped.allSatisfy { $0.1 == .outOfBuffers })
        #expect(DropLateQueue<Int>.DropReason.outOfBuffers.rawValue == "OutOfBuffers")
        // Room again: later items are delivered in order.
        for i in 10...12 { queue.enqueue(i) }
        queue.waitUntilIdle()
        #expect(record.delivered.withLock { $0 } == [0, 1, 2, 3, 10, 11, 12])
    }

    @Test func deliveriesNeverOverlapOnAConcurrentQueue() {
        let running = Mutex(0), overlap = Mutex(false), count = Mutex(0)
        let queue = DropLateQueue<Int>(policy: .fifo(1000), queue: DispatchQueue(label: "c", attributes: .concurrent),
                                       deliver: { _ in
            let n = running.withLock { $0 += 1; return $0 }
            if n > 1 { overlap.withLock { $0 = true } }
            usleep(100)
            running.withLock { $0 -= 1 }
            count.withLock { $0 += 1 }
        })
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for i in 0..<50 { queue.enqueue(t * 100 + i) }
        }
        queue.waitUntilIdle()
        #expect(count.withLock { $0 } == 200)
        #expect(!overlap.withLock { $0 })
        #expect(queue.maximumInFlight == 1)
    }

    @Test func closeDropsWhatWaitsAndEverythingAfter() {
        let record = Record()
        let queue = Self.blockedQueue(.fifo(8), record)
        queue.enqueue(0)
        record.firstDeliveryStarted.wait()
        queue.enqueue(1)
        queue.enqueue(2)
        record.gate.signal()
        queue.close(dropPending: true)
        queue.enqueue(3)
        queue.waitUntilIdle()
        let delivered = record.delivered.withLock { $0 }
        let dropped = record.dropped.withLock { $0 }
        // Item 0 was running; 1 and 2 were delivered before the close or dropped by it; 3 is dropped.
        #expect(delivered.first == 0)
        #expect(Set(delivered + dropped.map(\.0)) == [0, 1, 2, 3])
        #expect(dropped.contains { $0.0 == 3 && $0.1 == .discontinuity })
        #expect(!delivered.contains(3))
    }
}
