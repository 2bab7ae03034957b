// The generic planar descriptor at the base address of a planar pixel buffer.

/// The planar descriptor at the base address of a planar pixel buffer: one
/// `CVPlanarComponentInfo` per plane, of which C declares the first.
public struct CVPlanarPixelBufferInfo: Sendable, Equatable {
    /// The first plane's component info (C declares `componentInfo[1]`; later planes follow it).
    public var componentInfo: CVPlanarComponentInfo

    /// A zeroed descriptor.
    public init() { componentInfo = CVPlanarComponentInfo() }

    /// A descriptor with the given first component.
    public init(componentInfo: CVPlanarComponentInfo) { self.componentInfo = componentInfo }
}
