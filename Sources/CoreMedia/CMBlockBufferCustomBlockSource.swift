// Custom allocation and freeing of a block buffer's memory block.

/// Callbacks a block buffer uses to allocate and free its memory block instead of an allocator.
public struct CMBlockBufferCustomBlockSource: @unchecked Sendable {
    /// Must be `kCMBlockBufferCustomBlockSourceVersion` (0).
    public var version: UInt32
    /// Allocates `sizeInBytes` bytes; called at most once, when the block is first needed.
    public var AllocateBlock: (@convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?)?
    /// Frees the block; called exactly once, when the block buffer that owns it is disposed.
    public var FreeBlock: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer, Int) -> Void)?
    /// Passed to both callbacks.
    public var refCon: UnsafeMutableRawPointer?

    /// A source with no callbacks.
    public init() {
        version = 0
        AllocateBlock = nil
        FreeBlock = nil
        refCon = nil
    }

    /// A source with every field given.
    public init(version: UInt32,
                AllocateBlock: (@convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?)?,
                FreeBlock: (@convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer, Int) -> Void)?,
                refCon: UnsafeMutableRawPointer?) {
        self.version = version
        self.AllocateBlock = AllocateBlock
        self.FreeBlock = FreeBlock
        self.refCon = refCon
    }
}

/// The current custom block source version.
public let kCMBlockBufferCustomBlockSourceVersion: UInt32 = 0
