// One buffer of audio data: the element of an AudioBufferList.

/// A buffer of audio data holding one or more interleaved channels.
public struct AudioBuffer: @unchecked Sendable {
    /// Interleaved channels in the buffer.
    public var mNumberChannels: UInt32
    /// Bytes of data at `mData`.
    public var mDataByteSize: UInt32
    /// The audio data.
    public var mData: UnsafeMutableRawPointer?

    /// An empty buffer.
    public init() {
        mNumberChannels = 0
        mDataByteSize = 0
        mData = nil
    }

    /// A buffer with every field given.
    public init(mNumberChannels: UInt32, mDataByteSize: UInt32, mData: UnsafeMutableRawPointer?) {
        self.mNumberChannels = mNumberChannels
        self.mDataByteSize = mDataByteSize
        self.mData = mData
    }

    /// A buffer over typed memory holding `numberOfChannels` interleaved channels.
    public init<Element>(_ typedBuffer: UnsafeMutableBufferPointer<Element>, numberOfChannels: Int) {
        self.mNumberChannels = UInt32(numberOfChannels)
        self.mDataByteSize = UInt32(typedBuffer.count * MemoryLayout<Element>.stride)
        self.mData = UnsafeMutableRawPointer(typedBuffer.baseAddress)
    }
}

extension UnsafeMutableBufferPointer {
    /// The buffer's bytes as elements (Apple's CoreAudio overlay): `mDataByteSize` bytes at
    /// `mData`, as many whole elements as they hold.
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData?.assumingMemoryBound(to: Element.self),
                  count: Int(audioBuffer.mDataByteSize) / MemoryLayout<Element>.stride)
    }
}

extension UnsafeBufferPointer {
    /// The buffer's bytes as elements (Apple's CoreAudio overlay), read-only.
    public init(_ audioBuffer: AudioBuffer) {
        self.init(start: audioBuffer.mData.map { UnsafePointer($0.assumingMemoryBound(to: Element.self)) },
                  count: Int(audioBuffer.mDataByteSize) / MemoryLayout<Element>.stride)
    }
}
