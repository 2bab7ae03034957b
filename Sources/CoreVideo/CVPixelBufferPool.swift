// CVPixelBufferPool: a recycling set of identically laid-out pixel buffers.
//
// Every buffer of a pool shares one plan (size, format, row and plane alignment, extended
// pixels). When the last reference to a pool buffer goes, its memory returns to the pool and the
// next CVPixelBufferPoolCreatePixelBuffer hands it out again (most recently returned first).
// Buffers may outlive their pool: their memory is then simply freed.

/// Pool attribute key: the number of buffers the pool keeps when aging out unused ones (a number).
nonisolated(unsafe) public let kCVPixelBufferPoolMinimumBufferCountKey: CFString = "MinimumBufferCount"
/// Pool attribute key: seconds an unused buffer may stay in the pool before it is freed
/// (a number; default 1; 0 keeps unused buffers until CVPixelBufferPoolFlush).
nonisolated(unsafe) public let kCVPixelBufferPoolMaximumBufferAgeKey: CFString = "MaximumBufferAge"
/// Auxiliary attribute key for CVPixelBufferPoolCreatePixelBufferWithAuxAttributes: do not allocate a
/// new buffer when the pool already holds at least this many (a number).
nonisolated(unsafe) public let kCVPixelBufferPoolAllocationThresholdKey: CFString = "BufferPoolAllocationThreshold"
/// Notification posted (on `NotificationCenter.default`, with the pool as object) when a buffer
/// returns to a pool that refused an allocation for exceeding its allocation threshold.
nonisolated(unsafe) public let kCVPixelBufferPoolFreeBufferNotification: CFString = "BufferPoolFreeBufferNotification"

/// A pool of reusable pixel buffers with one size and format.
public final class CVPixelBufferPool: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The layout every buffer of the pool has.
    package let plan: CVPixelStorage.Plan
    private let poolAttributes: NSDictionary
    private let pixelBufferAttributes: NSDictionary
    private let minimumBufferCount: Int
    private let maximumBufferAge: Double

    /// Guards `freeBlocks`, `outstanding` and `refusedAllocation`.
    private let lock = NSLock()
    /// Unused blocks (addresses) with the time each came back.
    private var freeBlocks: [(address: UInt, returned: Double)] = []
    /// Buffers handed out and not yet returned.
    private var outstanding = 0
    /// Whether an allocation was refused (threshold) since the last free-buffer notification.
    private var refusedAllocation = false

    private init(plan: CVPixelStorage.Plan, poolAttributes: NSDictionary, pixelBufferAttributes: NSDictionary,
                 minimumBufferCount: Int, maximumBufferAge: Double) {
        self.plan = plan
        self.poolAttributes = poolAttributes
        self.pixelBufferAttributes = pixelBufferAttributes
        self.minimumBufferCount = minimumBufferCount
        self.maximumBufferAge = maximumBufferAge
    }

    deinit {
        for block in freeBlocks { plan.freeBlock(UnsafeMutableRawPointer(bitPattern: block.address)!) }
    }

    /// Builds a pool, or returns the CVReturn error explaining why not.
    fileprivate static func make(poolAttributes: NSDictionary?, pixelBufferAttributes: NSDictionary?)
        -> Result<CVPixelBufferPool, PoolError> {
        var minimum = 0
        var age = 1.0
        if let poolAttributes {
            let values = CVPixelBufferAttributeReader.stringKeyed(poolAttributes)
            if let v = values[(kCVPixelBufferPoolMinimumBufferCountKey as String)] {
                guard let n = CVPixelBufferAttributeReader.integer(v), n >= 0 else {
                    return .failure(PoolError(code: kCVReturnInvalidPoolAttributes))
                }
                minimum = n
            }
            if let v = values[(kCVPixelBufferPoolMaximumBufferAgeKey as String)] {
                guard let seconds = CVPixelBufferAttributeReader.double(v), seconds >= 0, seconds.isFinite else {
                    return .failure(PoolError(code: kCVReturnInvalidPoolAttributes))
                }
                age = seconds
            }
        }
        let attributes = CVPixelBufferAttributeReader(pixelBufferAttributes)
        guard attributes.isValid, let width = attributes.width, let height = attributes.height, width > 0, height > 0,
              !attributes.pixelFormats.isEmpty
        else { return .failure(PoolError(code: kCVReturnInvalidPixelBufferAttributes)) }
        guard let layout = attributes.pixelFormats.lazy.compactMap(CVPixelFormatLayout.layout(for:)).first
        else { return .failure(PoolError(code: kCVReturnInvalidPixelFormat)) }
        guard let plan = CVPixelStorage.Plan(width: width, height: height, layout: layout,
                                             alignment: attributes.effectiveRowAlignment,
                                             planeAlignment: attributes.effectivePlaneAlignment,
                                             extendedPixels: attributes.extendedPixels)
        else { return .failure(PoolError(code: kCVReturnInvalidSize)) }
        return .success(CVPixelBufferPool(plan: plan,
                                          poolAttributes: (poolAttributes?.copy() as? NSDictionary) ?? NSDictionary(),
                                          pixelBufferAttributes: (pixelBufferAttributes?.copy() as? NSDictionary) ?? NSDictionary(),
                                          minimumBufferCount: minimum, maximumBufferAge: age))
    }

    /// A CVReturn failure as an Error, for `Result`.
    fileprivate struct PoolError: Error { let code: CVReturn }

    private static var now: Double { ProcessInfo.processInfo.systemUptime }

    /// Frees unused blocks older than the maximum age, keeping the minimum count. Call locked.
    private func purgeAgedLocked(now: Double) {
        guard maximumBufferAge > 0 else { return }
        while let oldest = freeBlocks.first, now - oldest.returned > maximumBufferAge,
              outstanding + freeBlocks.count > minimumBufferCount {
            freeBlocks.removeFirst()
            plan.freeBlock(UnsafeMutableRawPointer(bitPattern: oldest.address)!)
        }
    }

    /// Hands out a buffer: a recycled block when one is free, else a new one unless that would
    /// reach `threshold` buffers.
    fileprivate func makeBuffer(threshold: Int?) -> Result<CVPixelBuffer, PoolError> {
        lock.lock()
        purgeAgedLocked(now: CVPixelBufferPool.now)
        let address: UInt
        if let recycled = freeBlocks.popLast() {
            address = recycled.address
        } else {
            if let threshold, outstanding >= threshold {
                refusedAllocation = true
                lock.unlock()
                return .failure(PoolError(code: kCVReturnWouldExceedAllocationThreshold))
            }
            guard let block = plan.allocateBlock() else {
                lock.unlock()
                return .failure(PoolError(code: kCVReturnPoolAllocationFailed))
            }
            address = UInt(bitPattern: block)
        }
        outstanding += 1
        lock.unlock()
        let block = UnsafeMutableRawPointer(bitPattern: address)!
        let plan = self.plan
        let storage = plan.storage(over: block, release: { [weak self] in
            if let pool = self {
                pool.recycle(address)
            } else {
                plan.freeBlock(UnsafeMutableRawPointer(bitPattern: address)!)
            }
        })
        return .success(CVPixelBuffer(storage: storage))
    }

    /// Takes a block back from a buffer that went away.
    private func recycle(_ address: UInt) {
        lock.lock()
        outstanding -= 1
        freeBlocks.append((address, CVPixelBufferPool.now))
        let notify = refusedAllocation
        refusedAllocation = false
        lock.unlock()
        if notify {
            NotificationCenter.default.post(name: Notification.Name((kCVPixelBufferPoolFreeBufferNotification as String)), object: self)
        }
    }

    /// Frees unused buffers: all of them with `.excessBuffers`, else those past the maximum age.
    fileprivate func flush(_ options: CVPixelBufferPoolFlushFlags) {
        lock.lock()
        if options.contains(.excessBuffers) {
            for block in freeBlocks { plan.freeBlock(UnsafeMutableRawPointer(bitPattern: block.address)!) }
            freeBlocks.removeAll()
        } else {
            purgeAgedLocked(now: CVPixelBufferPool.now)
        }
        lock.unlock()
    }

    /// The attributes given at creation (copies).
    fileprivate var attributes: (pool: NSDictionary, pixelBuffer: NSDictionary) { (poolAttributes, pixelBufferAttributes) }

    /// Buffers currently handed out and unused buffers held, for diagnostics and tests.
    package var bufferCounts: (outstanding: Int, free: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (outstanding, freeBlocks.count)
    }

    /// Identity equality, as for Core Foundation objects.
    public static func == (lhs: CVPixelBufferPool, rhs: CVPixelBufferPool) -> Bool { lhs === rhs }
    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// A short description: size, format, buffer counts.
    public var description: String {
        let counts = bufferCounts
        return "<CVPixelBufferPool \(Unmanaged.passUnretained(self).toOpaque()) width=\(plan.width) "
            + "height=\(plan.height) pixelFormat=\(plan.layout.pixelFormat.fourCCString) "
            + "outstanding=\(counts.outstanding) free=\(counts.free)>"
    }
}

extension CVPixelBufferPool {
    /// A pool of `width`×`height` buffers of `pixelFormat` with default attributes, or nil when
    /// the format or size cannot be pooled — what the engine's and capture's stages make their
    /// frames in (package: not Apple API).
    package static func make(pixelFormat: OSType, width: Int, height: Int) -> CVPixelBufferPool? {
        let attributes: NSDictionary = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: pixelFormat),
                                        kCVPixelBufferWidthKey as String: NSNumber(value: width),
                                        kCVPixelBufferHeightKey as String: NSNumber(value: height)]
        var pool: CVPixelBufferPool?
        guard CVPixelBufferPoolCreate(nil, nil, attributes, &pool) == kCVReturnSuccess else { return nil }
        return pool
    }
}

/// Creates a pool whose buffers have the size and format given in `pixelBufferAttributes`
/// (`kCVPixelBufferWidthKey`, `kCVPixelBufferHeightKey` and `kCVPixelBufferPixelFormatTypeKey` are
/// required; the first supported format of an array is used). Returns
/// kCVReturnInvalidPixelBufferAttributes when they are missing or malformed,
/// kCVReturnInvalidPixelFormat when no listed format is supported, and
/// kCVReturnInvalidPoolAttributes for malformed pool attributes.
@discardableResult
public func CVPixelBufferPoolCreate(_ allocator: CFAllocator?, _ poolAttributes: CFDictionary?,
                                    _ pixelBufferAttributes: CFDictionary?,
                                    _ poolOut: UnsafeMutablePointer<CVPixelBufferPool?>) -> CVReturn {
    switch CVPixelBufferPool.make(poolAttributes: poolAttributes, pixelBufferAttributes: pixelBufferAttributes) {
    case .success(let pool):
        poolOut.pointee = pool
        return kCVReturnSuccess
    case .failure(let error):
        return error.code
    }
}

/// Creates a buffer from the pool, reusing the memory of a released buffer when one is free.
@discardableResult
public func CVPixelBufferPoolCreatePixelBuffer(_ allocator: CFAllocator?, _ pixelBufferPool: CVPixelBufferPool,
                                               _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>) -> CVReturn {
    CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(allocator, pixelBufferPool, nil, pixelBufferOut)
}

/// Creates a buffer from the pool, honouring `kCVPixelBufferPoolAllocationThresholdKey` in
/// `auxAttributes`: when no released buffer is free and the pool already holds that many buffers,
/// returns kCVReturnWouldExceedAllocationThreshold instead of allocating.
@discardableResult
public func CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(_ allocator: CFAllocator?,
                                                                _ pixelBufferPool: CVPixelBufferPool,
                                                                _ auxAttributes: CFDictionary?,
                                                                _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>)
    -> CVReturn {
    var threshold: Int?
    if let auxAttributes,
       let v = CVPixelBufferAttributeReader.stringKeyed(auxAttributes)[(kCVPixelBufferPoolAllocationThresholdKey as String)] {
        guard let n = CVPixelBufferAttributeReader.integer(v) else { return kCVReturnInvalidArgument }
        threshold = n
    }
    switch pixelBufferPool.makeBuffer(threshold: threshold) {
    case .success(let buffer):
        pixelBufferOut.pointee = buffer
        return kCVReturnSuccess
    case .failure(let error):
        return error.code
    }
}

/// The pool attributes given at creation (an empty dictionary when none were).
@discardableResult
public func CVPixelBufferPoolGetAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? { pool.attributes.pool }

/// The pixel buffer attributes given at creation.
@discardableResult
public func CVPixelBufferPoolGetPixelBufferAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? {
    pool.attributes.pixelBuffer
}

/// Frees the pool's unused buffers: with `.excessBuffers` all of them, otherwise those unused
/// for longer than `kCVPixelBufferPoolMaximumBufferAgeKey` (keeping the minimum count).
public func CVPixelBufferPoolFlush(_ pool: CVPixelBufferPool, _ options: CVPixelBufferPoolFlushFlags) {
    pool.flush(options)
}
