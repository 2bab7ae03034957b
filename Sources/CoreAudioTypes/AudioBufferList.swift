// AudioBufferList: a variable-length structure, as in C — a count followed by that many
// AudioBuffers. The declared type holds one; `allocate(maximumBuffers:)` makes room for more.
import CoreFoundationCompat

/// A list of audio buffers (one per channel for non-interleaved audio).
public struct AudioBufferList: @unchecked Sendable {
    /// How many buffers follow.
    public var mNumberBuffers: UInt32
    /// The first buffer (more may follow in memory).
    public var mBuffers: (AudioBuffer)

    /// A list with no buffers.
    public init() {
        mNumberBuffers = 0
        mBuffers = AudioBuffer()
    }

    /// A list with every field given.
    public init(mNumberBuffers: UInt32, mBuffers: (AudioBuffer)) {
        self.mNumberBuffers = mNumberBuffers
        self.mBuffers = mBuffers
    }

    /// Bytes needed for a list holding `maximumBuffers` buffers.
    public static func sizeInBytes(maximumBuffers: Int) -> Int {
        precondition(maximumBuffers >= 1, "AudioBufferList should contain at least one AudioBuffer")
        return MemoryLayout<AudioBufferList>.size - MemoryLayout<AudioBuffer>.size
            + maximumBuffers * MemoryLayout<AudioBuffer>.stride
    }

    /// Allocates zeroed memory for a list of `maximumBuffers` buffers, with `mNumberBuffers` set.
    /// Free it with `free(_:)` on `unsafeMutablePointer`, as on Apple platforms.
    public static func allocate(maximumBuffers: Int) -> UnsafeMutableAudioBufferListPointer {
        let size = sizeInBytes(maximumBuffers: maximumBuffers)
        guard let raw = calloc(1, size) else { fatalError("AudioBufferList.allocate: out of memory") }
        let list = raw.bindMemory(to: AudioBufferList.self, capacity: 1)
        list.pointee.mNumberBuffers = UInt32(maximumBuffers)
        return UnsafeMutableAudioBufferListPointer(list)
    }
}
