import Testing
import CoreVideo

@Suite("CVPixelBufferPool")
struct PoolTests {
    let attributes: [String: Any] = [(kCVPixelBufferWidthKey as String): 64, (kCVPixelBufferHeightKey as String): 48,
                                     (kCVPixelBufferPixelFormatTypeKey as String): kCVPixelFormatType_32BGRA]

    func makePool(_ poolAttributes: [String: Any]? = nil, _ bufferAttributes: [String: Any]? = nil)
        -> (CVReturn, CVPixelBufferPool?) {
        var pool: CVPixelBufferPool?
        let status = CVPixelBufferPoolCreate(kCFAllocatorDefault, poolAttributes.map { $0 as CFDictionary },
                                             (bufferAttributes ?? attributes) as CFDictionary, &pool)
        return (status, pool)
    }

    @Test("buffers have the pool's size and format")
    func createsBuffers() throws {
        let pool = try #require(makePool().1)
        var pb: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &pb) == kCVReturnSuccess)
        let buffer = try #require(pb)
        #expect(CVPixelBufferGetWidth(buffer) == 64)
        #expect(CVPixelBufferGetHeight(buffer) == 48)
        #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_32BGRA)
        #expect(CVPixelBufferGetBytesPerRow(buffer) >= 256)
    }

    @Test("a released buffer's memory is reused by the next buffer")
    func recycles() throws {
        let pool = try #require(makePool().1)
        var pb: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &pb) == kCVReturnSuccess)
        let first = CVPixelBufferGetBaseAddress(try #require(pb))
        CVBufferSetAttachment(pb!, "tag" as CFString, NSNumber(value: 1), .shouldPropagate)
        pb = nil
        #expect(pool.bufferCounts.free == 1)
        var again: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &again) == kCVReturnSuccess)
        let second = try #require(again)
        #expect(CVPixelBufferGetBaseAddress(second) == first)
        #expect(!CVBufferHasAttachment(second, "tag" as CFString))
    }

    @Test("planar pool buffers keep a valid header when recycled")
    func recyclesPlanar() throws {
        let pool = try #require(makePool(nil, [(kCVPixelBufferWidthKey as String): 33, (kCVPixelBufferHeightKey as String): 17,
                                               (kCVPixelBufferPixelFormatTypeKey as String): [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange]]).1)
        for _ in 0..<3 {
            var pb: CVPixelBuffer?
            #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &pb) == kCVReturnSuccess)
            let buffer = try #require(pb)
            let base = try #require(CVPixelBufferGetBaseAddress(buffer))
            let info = base.load(fromByteOffset: 8, as: CVPlanarComponentInfo.self)
            #expect(base + Int(Int32(bigEndian: info.offset)) == CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
            #expect(CVPixelBufferGetWidthOfPlane(buffer, 1) == 17)
        }
    }

    @Test("the allocation threshold refuses new buffers with kCVReturnWouldExceedAllocationThreshold")
    func threshold() throws {
        let pool = try #require(makePool().1)
        let aux = [kCVPixelBufferPoolAllocationThresholdKey: 2] as CFDictionary
        var a: CVPixelBuffer?, b: CVPixelBuffer?, c: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &a) == kCVReturnSuccess)
        #expect(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &b) == kCVReturnSuccess)
        #expect(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &c) == kCVReturnWouldExceedAllocationThreshold)
        #expect(c == nil)
        let recycledAddress = CVPixelBufferGetBaseAddress(a!)
        a = nil
        #expect(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &c) == kCVReturnSuccess)
        #expect(CVPixelBufferGetBaseAddress(c!) == recycledAddress)
        // Without the threshold the pool allocates freely.
        var d: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &d) == kCVReturnSuccess)
        withExtendedLifetime((b, c, d)) {}
    }

    @Test("a buffer returning after a refused allocation posts kCVPixelBufferPoolFreeBufferNotification")
    func freeBufferNotification() throws {
        let pool = try #require(makePool().1)
        let counter = Counter()
        let observer = NotificationCenter.default.addObserver(
            forName: Notification.Name((kCVPixelBufferPoolFreeBufferNotification as String)), object: pool, queue: nil) { _ in
            counter.increment()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let aux = [kCVPixelBufferPoolAllocationThresholdKey: 1] as CFDictionary
        var a: CVPixelBuffer?, b: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &a) == kCVReturnSuccess)
        #expect(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &b) == kCVReturnWouldExceedAllocationThreshold)
        #expect(counter.count == 0)
        a = nil
        #expect(counter.count == 1)
    }

    @Test("buffers outlive their pool")
    func poolDiesFirst() throws {
        var pool = try #require(makePool().1)
        var pb: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &pb) == kCVReturnSuccess)
        weak let weakPool = pool
        pool = try #require(makePool().1)
        #expect(weakPool == nil)
        let buffer = try #require(pb)
        let bytes = CVPixelBufferGetBytesPerRow(buffer) * CVPixelBufferGetHeight(buffer)
        memset(CVPixelBufferGetBaseAddress(buffer)!, 0xAB, bytes)
        #expect(CVPixelBufferGetBaseAddress(buffer)!.load(fromByteOffset: bytes - 1, as: UInt8.self) == 0xAB)
        pb = nil
        withExtendedLifetime(pool) {}
    }

    @Test("flush with .excessBuffers frees every unused buffer")
    func flush() throws {
        let pool = try #require(makePool([(kCVPixelBufferPoolMinimumBufferCountKey as String): 1,
                                          (kCVPixelBufferPoolMaximumBufferAgeKey as String): 0.0]).1)
        var a: CVPixelBuffer?, b: CVPixelBuffer?
        _ = CVPixelBufferPoolCreatePixelBuffer(nil, pool, &a)
        _ = CVPixelBufferPoolCreatePixelBuffer(nil, pool, &b)
        a = nil
        b = nil
        #expect(pool.bufferCounts.free == 2)
        CVPixelBufferPoolFlush(pool, [])
        #expect(pool.bufferCounts.free == 2)   // age 0: unused buffers stay until flushed
        CVPixelBufferPoolFlush(pool, kCVPixelBufferPoolFlushExcessBuffers)
        #expect(pool.bufferCounts.free == 0)
        #expect(CVPixelBufferPoolFlushFlags.excessBuffers.rawValue == 1)
    }

    @Test("unused buffers older than MaximumBufferAge are freed, keeping MinimumBufferCount")
    func aging() async throws {
        let pool = try #require(makePool([(kCVPixelBufferPoolMinimumBufferCountKey as String): 1,
                                          (kCVPixelBufferPoolMaximumBufferAgeKey as String): 0.05]).1)
        var buffers: [CVPixelBuffer?] = [nil, nil, nil]
        for i in 0..<3 { _ = CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffers[i]) }
        buffers = []
        #expect(pool.bufferCounts.free == 3)
        try await Task.sleep(nanoseconds: 150_000_000)
        CVPixelBufferPoolFlush(pool, [])
        #expect(pool.bufferCounts.free == 1)
    }

    @Test("attributes come back from the Get functions")
    func getAttributes() throws {
        let pool = try #require(makePool([(kCVPixelBufferPoolMinimumBufferCountKey as String): 3]).1)
        let poolAttributes = try #require(CVPixelBufferPoolGetAttributes(pool))
        #expect(poolAttributes[kCVPixelBufferPoolMinimumBufferCountKey] as? Int == 3)
        let bufferAttributes = try #require(CVPixelBufferPoolGetPixelBufferAttributes(pool))
        #expect(bufferAttributes[kCVPixelBufferWidthKey] as? Int == 64)
        #expect(bufferAttributes[kCVPixelBufferPixelFormatTypeKey] as? OSType == kCVPixelFormatType_32BGRA)
        #expect(pool.description.contains("BGRA"))
    }

    @Test("the first supported format of a format array is used")
    func formatArray() throws {
        let pool = try #require(makePool(nil, [(kCVPixelBufferWidthKey as String): 16, (kCVPixelBufferHeightKey as String): 16,
                                               (kCVPixelBufferPixelFormatTypeKey as String): [kCVPixelFormatType_64RGBAHalf,
                                                                                  kCVPixelFormatType_420YpCbCr8BiPlanarFullRange]]).1)
        var pb: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, pool, &pb) == kCVReturnSuccess)
        #expect(CVPixelBufferGetPixelFormatType(try #require(pb)) == kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)
    }

    @Test("bad attributes are refused with Core Video's error codes")
    func badAttributes() {
        #expect(makePool(nil, [(kCVPixelBufferHeightKey as String): 16, (kCVPixelBufferPixelFormatTypeKey as String): kCVPixelFormatType_32BGRA]).0
            == kCVReturnInvalidPixelBufferAttributes)
        #expect(makePool(nil, [(kCVPixelBufferWidthKey as String): 16, (kCVPixelBufferHeightKey as String): 16]).0
            == kCVReturnInvalidPixelBufferAttributes)
        #expect(makePool(nil, [(kCVPixelBufferWidthKey as String): 16, (kCVPixelBufferHeightKey as String): 16,
                               (kCVPixelBufferPixelFormatTypeKey as String): kCVPixelFormatType_48RGB]).0 == kCVReturnInvalidPixelFormat)
        #expect(makePool([(kCVPixelBufferPoolMinimumBufferCountKey as String): -1]).0 == kCVReturnInvalidPoolAttributes)
        var pool: CVPixelBufferPool?
        #expect(CVPixelBufferPoolCreate(nil, nil, nil, &pool) == kCVReturnInvalidPixelBufferAttributes)
        #expect(pool == nil)
    }

    @Test("pool keys have Apple's strings")
    func keys() {
        #expect(kCVPixelBufferPoolMinimumBufferCountKey == "MinimumBufferCount")
        #expect(kCVPixelBufferPoolMaximumBufferAgeKey == "MaximumBufferAge")
        #expect(kCVPixelBufferPoolAllocationThresholdKey == "BufferPoolAllocationThreshold")
        #expect(kCVPixelBufferPoolFreeBufferNotification == "BufferPoolFreeBufferNotification")
    }

    @Test("concurrent create / release / attach from many tasks")
    func threadSafety() async throws {
        let pool = try #require(makePool().1)
        await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var made = 0
                    for i in 0..<200 {
                        var pb: CVPixelBuffer?
                        guard CVPixelBufferPoolCreatePixelBuffer(nil, pool, &pb) == kCVReturnSuccess, let buffer = pb else { continue }
                        CVBufferSetAttachment(buffer, "task" as CFString, NSNumber(value: task), .shouldPropagate)
                        _ = CVPixelBufferLockBaseAddress(buffer, [])
                        CVPixelBufferGetBaseAddress(buffer)!.storeBytes(of: UInt32(i), as: UInt32.self)
                        _ = CVPixelBufferUnlockBaseAddress(buffer, [])
                        if (CVBufferCopyAttachment(buffer, "task" as CFString, nil) as? NSNumber)?.intValue == task { made += 1 }
                    }
                    return made
                }
            }
            var total = 0
            for await made in group { total += made }
            #expect(total == 8 * 200)
        }
        #expect(pool.bufferCounts.outstanding == 0)
        #expect(pool.bufferCounts.free <= 8)
    }

    @Test("concurrent attachment writers and readers on one buffer")
    func sharedBufferAttachments() async throws {
        let buffer = try #require(makeBuffer(4, 4, kCVPixelFormatType_32BGRA).buffer)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<300 {
                        CVBufferSetAttachment(buffer, "k\(task)" as CFString, NSNumber(value: i), .shouldPropagate)
                        _ = CVBufferCopyAttachments(buffer, .shouldPropagate)
                        _ = CVBufferGetAttachment(buffer, "k\((task + 1) % 8)" as CFString, nil)
                    }
                }
            }
        }
        #expect(CVBufferCopyAttachments(buffer, .shouldPropagate)?.count == 8)
    }
}
