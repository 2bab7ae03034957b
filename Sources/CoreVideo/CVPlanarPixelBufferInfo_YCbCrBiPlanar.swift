// The descriptor at the base address of a bi-planar Y'CbCr buffer ('420v', '420f', ...).

/// The descriptor at the base address of a bi-planar Y'CbCr pixel buffer, big-endian.
public struct CVPlanarPixelBufferInfo_YCbCrBiPlanar: Sendable, Equatable {
    /// The luma plane.
    public var componentInfoY: CVPlanarComponentInfo
    /// The interleaved CbCr plane.
    public var componentInfoCbCr: CVPlanarComponentInfo

    /// A zeroed descriptor.
    public init() {
        componentInfoY = CVPlanarComponentInfo()
        componentInfoCbCr = CVPlanarComponentInfo()
    }

    /// A descriptor with the given components.
    public init(componentInfoY: CVPlanarComponentInfo, componentInfoCbCr: CVPlanarComponentInfo) {
        self.componentInfoY = componentInfoY
        self.componentInfoCbCr = componentInfoCbCr
    }
}
