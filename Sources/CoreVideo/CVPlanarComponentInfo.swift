// The descriptor Apple's planar pixel buffers carry at their base address.

/// Where one plane lives, as stored (big-endian) at the base address of a planar pixel buffer.
///
/// Read the fields with `.bigEndian` (e.g. `Int(info.componentInfoY.offset.bigEndian)`); prefer
/// CVPixelBufferGetBaseAddressOfPlane / CVPixelBufferGetBytesPerRowOfPlane.
public struct CVPlanarComponentInfo: Sendable, Equatable {
    /// Offset from the buffer's base address to the plane's first pixel, big-endian.
    public var offset: Int32
    /// Bytes per row of the plane, big-endian.
    public var rowBytes: UInt32

    /// A zeroed component info.
    public init() {
        offset = 0
        rowBytes = 0
    }

    /// A component info with the given (already big-endian) fields.
    public init(offset: Int32, rowBytes: UInt32) {
        self.offset = offset
        self.rowBytes = rowBytes
    }
}
