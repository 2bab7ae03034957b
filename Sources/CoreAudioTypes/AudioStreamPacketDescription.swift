// Where one packet of a variable-size (compressed) audio stream lies in its buffer.

/// Describes one packet in a buffer of audio data.
public struct AudioStreamPacketDescription: Sendable, Equatable {
    /// Byte offset of the packet from the start of the buffer.
    public var mStartOffset: Int64
    /// Frames in the packet, for formats with a variable frame count; otherwise 0.
    public var mVariableFramesInPacket: UInt32
    /// Bytes in the packet.
    public var mDataByteSize: UInt32

    /// An all-zero description.
    public init() {
        mStartOffset = 0
        mVariableFramesInPacket = 0
        mDataByteSize = 0
    }

    /// A description with every field given.
    public init(mStartOffset: Int64, mVariableFramesInPacket: UInt32, mDataByteSize: UInt32) {
        self.mStartOffset = mStartOffset
        self.mVariableFramesInPacket = mVariableFramesInPacket
        self.mDataByteSize = mDataByteSize
    }
}
