// Options for CVPixelBufferPoolFlush.

/// Options for CVPixelBufferPoolFlush.
public struct CVPixelBufferPoolFlushFlags: OptionSet, Sendable, Hashable {
    /// The raw option bits (`CVOptionFlags`).
    public let rawValue: UInt64
    /// Options from raw bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    /// Free every unused buffer, whatever its age.
    public static let excessBuffers = CVPixelBufferPoolFlushFlags(rawValue: 1)
}

/// The C name of `CVPixelBufferPoolFlushFlags.excessBuffers`.
public let kCVPixelBufferPoolFlushExcessBuffers = CVPixelBufferPoolFlushFlags.excessBuffers
