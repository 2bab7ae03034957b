// CMBlockBuffer: a contiguous range of data offsets over possibly non-contiguous memory blocks.
// References to other block buffers are flattened into the blocks they reference (the memory
// blocks are shared objects, so lazily allocated memory is shared too).

/// Feature and control flags of block buffer functions.
public typealias CMBlockBufferFlags = UInt32

/// Allocate memory blocks now rather than on demand.
public let kCMBlockBufferAssureMemoryNowFlag: CMBlockBufferFlags = 1 << 0
/// CMBlockBufferCreateContiguous: always copy, even when the range is already contiguous.
public let kCMBlockBufferAlwaysCopyDataFlag: CMBlockBufferFlags = 1 << 1
/// Do not flatten references to other block buffers.
public let kCMBlockBufferDontOptimizeDepthFlag: CMBlockBufferFlags = 1 << 2
/// Allow references to empty block buffers.
public let kCMBlockBufferPermitEmptyReferenceFlag: CMBlockBufferFlags = 1 << 3

/// Success.
public let kCMBlockBufferNoErr: OSStatus = 0
/// The block buffer structure could not be allocated.
public let kCMBlockBufferStructureAllocationFailedErr: OSStatus = -12700
/// A memory block could not be allocated.
public let kCMBlockBufferBlockAllocationFailedErr: OSStatus = -12701
/// The custom block source is invalid.
public let kCMBlockBufferBadCustomBlockSourceErr: OSStatus = -12702
/// An offset is out of range.
public let kCMBlockBufferBadOffsetParameterErr: OSStatus = -12703
/// A length is out of range.
public let kCMBlockBufferBadLengthParameterErr: OSStatus = -12704
/// A pointer parameter is invalid.
public let kCMBlockBufferBadPointerParameterErr: OSStatus = -12705
/// The block buffer is empty.
public let kCMBlockBufferEmptyBBufErr: OSStatus = -12706
/// A memory block has not been allocated.
public let kCMBlockBufferUnallocatedBlockErr: OSStatus = -12707
/// The destination is too small.
public let kCMBlockBufferInsufficientSpaceErr: OSStatus = -12708

/// One memory block, shared by every buffer segment that refers to it.
final class CMBlockBufferMemory: @unchecked Sendable {
    /// How the block is obtained and released.
    enum Source {
        /// malloc on demand; free() at disposal.
        case system
        /// Caller memory that is never freed (kCFAllocatorNull).
        case none
        /// The custom block source's callbacks.
        case custom(CMBlockBufferCustomBlockSource)
        /// Memory owned elsewhere; the closure releases it.
        case release(@Sendable () -> Void)
    }

    private let lock = NSLock()
    private var pointer: UnsafeMutableRawPointer?
    let capacity: Int
    private let source: Source

    init(pointer: UnsafeMutableRawPointer?, capacity: Int, source: Source) {
        self.pointer = pointer
        self.capacity = capacity
        self.source = source
    }

    /// The block's address, if allocated.
    var address: UnsafeMutableRawPointer? {
        lock.lock()
        defer { lock.unlock() }
        return pointer
    }

    /// Allocates the block if needed.
    func assure() -> OSStatus {
        lock.lock()
        defer { lock.unlock() }
        if pointer != nil { return noErr }
        switch source {
        case .system: pointer = malloc(capacity)
        case .custom(let s): pointer = s.AllocateBlock?(s.refCon, capacity)
        case .none, .release: return kCMBlockBufferBlockAllocationFailedErr
        }
        return pointer == nil ? kCMBlockBufferBlockAllocationFailedErr : noErr
    }

    deinit {
        switch source {
        case .system: free(pointer)
        case .none: break
        case .custom(let s): if let p = pointer { s.FreeBlock?(s.refCon, p, capacity) }
        case .release(let r): r()
        }
    }
}

/// A range of one memory block.
struct CMBlockBufferSegment {
    let memory: CMBlockBufferMemory
    let offset: Int
    let length: Int
}

/// A block buffer: data offsets 0..<dataLength over one or more memory blocks.
public final class CMBlockBuffer: @unchecked Sendable, Hashable, CustomStringConvertible {
    private let lock = NSLock()
    private var _segments: [CMBlockBufferSegment] = []
    /// Attachments (CMAttachmentBearer).
    let attachments = AttachmentStorage()

    init(segments: [CMBlockBufferSegment] = []) { _segments = segments }

    /// Wraps memory owned elsewhere without copying (e.g. a demuxed packet); `release` runs once
    /// when the block buffer (and every buffer referencing it) is gone.
    package convenience init(wrapping pointer: UnsafeMutableRawPointer, length: Int, release: @escaping @Sendable () -> Void) {
        let memory = CMBlockBufferMemory(pointer: pointer, capacity: length, source: .release(release))
        self.init(segments: [CMBlockBufferSegment(memory: memory, offset: 0, length: length)])
    }

    /// A snapshot of the segments.
    var segments: [CMBlockBufferSegment] {
        lock.lock()
        defer { lock.unlock() }
        return _segments
    }

    func append(_ more: [CMBlockBufferSegment]) {
        lock.lock()
        _segments += more
        lock.unlock()
    }

    /// Total bytes.
    var length: Int { segments.reduce(0) { $0 + $1.length } }

    /// The segments covering `offset..<offset+length`, trimmed to that range.
    func segments(in offset: Int, _ length: Int) -> [CMBlockBufferSegment] {
        var out: [CMBlockBufferSegment] = []
        var position = 0
        let end = offset + length
        for s in segments {
            let sEnd = position + s.length
            defer { position = sEnd }
            guard sEnd > offset, position < end else { continue }
            let start = max(offset, position), stop = min(end, sEnd)
            out.append(CMBlockBufferSegment(memory: s.memory, offset: s.offset + start - position, length: stop - start))
        }
        return out
    }

    /// Allocates every unallocated block.
    func assureAll() -> OSStatus {
        for s in segments {
            let status = s.memory.assure()
            if status != noErr { return status }
        }
        return noErr
    }

    /// Calls `body` with each piece of `offset..<offset+length` and its position in the range.
    func forEachPiece(_ offset: Int, _ length: Int, _ body: (UnsafeMutableRawPointer, Int, Int) -> Void) -> OSStatus {
        let pieces = segments(in: offset, length)
        guard pieces.allSatisfy({ $0.memory.address != nil }) else { return kCMBlockBufferUnallocatedBlockErr }
        var done = 0
        for p in pieces {
            body(p.memory.address! + p.offset, p.length, done)
            done += p.length
        }
        return noErr
    }

    /// Identity.
    public static func == (lhs: CMBlockBuffer, rhs: CMBlockBuffer) -> Bool { lhs === rhs }
    /// Identity hash.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// A summary.
    public var description: String { "<CMBlockBuffer dataLength=\(length) blocks=\(segments.count)>" }
}
