// The descriptor at the base address of a three-plane Y'CbCr buffer ('y420', 'f420').

/// The descriptor at the base address of a tri-planar Y'CbCr pixel buffer, big-endian.
public struct CVPlanarPixelBufferInfo_YCbCrPlanar: Sendable, Equatable {
    /// The luma plane.
    public var componentInfoY: CVPlanarComponentInfo
    /// The Cb plane.
    public var componentInfoCb: CVPlanarComponentInfo
    /// The Cr plane.
    public var componentInfoCr: CVPlanarComponentInfo

    /// A zeroed descriptor.
    public init() {
        componentInfoY = CVPlanarComponentInfo()
        componentInfoCb = CVPlanarComponentInfo()
        componentInfoCr = CVPlanarComponentInfo()
    }

    /// A descriptor with the given components.
    public init(componentInfoY: CVPlanarComponentInfo, componentInfoCb: CVPlanarComponentInfo,
                componentInfoCr: CVPlanarComponentInfo) {
        self.componentInfoY = componentInfoY
        self.componentInfoCb = componentInfoCb
        self.componentInfoCr = componentInfoCr
    }
}
