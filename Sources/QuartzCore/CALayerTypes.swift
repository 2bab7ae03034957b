// The option sets and names CALayer's properties use.
import Foundation

/// Which corners `cornerRadius` rounds.
public struct CACornerMask: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: UInt
    /// Creates a mask from raw bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// The corner at the bounds' minimum x and minimum y.
    public static let layerMinXMinYCorner = CACornerMask(rawValue: 1)
    /// The corner at maximum x, minimum y.
    public static let layerMaxXMinYCorner = CACornerMask(rawValue: 2)
    /// The corner at minimum x, maximum y.
    public static let layerMinXMaxYCorner = CACornerMask(rawValue: 4)
    /// The corner at maximum x, maximum y.
    public static let layerMaxXMaxYCorner = CACornerMask(rawValue: 8)
}

/// Which edges of a layer are antialiased when `allowsEdgeAntialiasing` is on.
public struct CAEdgeAntialiasingMask: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: UInt32
    /// Creates a mask from raw bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The left edge.
    public static let layerLeftEdge = CAEdgeAntialiasingMask(rawValue: 1)
    /// The right edge.
    public static let layerRightEdge = CAEdgeAntialiasingMask(rawValue: 2)
    /// The bottom edge.
    public static let layerBottomEdge = CAEdgeAntialiasingMask(rawValue: 4)
    /// The top edge.
    public static let layerTopEdge = CAEdgeAntialiasingMask(rawValue: 8)
}

/// Where a layer's contents are placed within its bounds.
public struct CALayerContentsGravity: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a gravity from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Centred, unscaled.
    public static let center = CALayerContentsGravity(rawValue: "center")
    /// Top edge centred.
    public static let top = CALayerContentsGravity(rawValue: "top")
    /// Bottom edge centred.
    public static let bottom = CALayerContentsGravity(rawValue: "bottom")
    /// Left edge centred.
    public static let left = CALayerContentsGravity(rawValue: "left")
    /// Right edge centred.
    public static let right = CALayerContentsGravity(rawValue: "right")
    /// Top-left corner.
    public static let topLeft = CALayerContentsGravity(rawValue: "topLeft")
    /// Top-right corner.
    public static let topRight = CALayerContentsGravity(rawValue: "topRight")
    /// Bottom-left corner.
    public static let bottomLeft = CALayerContentsGravity(rawValue: "bottomLeft")
    /// Bottom-right corner.
    public static let bottomRight = CALayerContentsGravity(rawValue: "bottomRight")
    /// Stretched to fill the bounds (the default).
    public static let resize = CALayerContentsGravity(rawValue: "resize")
    /// Scaled to fit, keeping the aspect ratio.
    public static let resizeAspect = CALayerContentsGravity(rawValue: "resizeAspect")
    /// Scaled to fill, keeping the aspect ratio (cropped).
    public static let resizeAspectFill = CALayerContentsGravity(rawValue: "resizeAspectFill")
}

/// How contents are sampled when scaled.
public struct CALayerContentsFilter: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a filter from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Bilinear (the default).
    public static let linear = CALayerContentsFilter(rawValue: "linear")
    /// Nearest neighbour.
    public static let nearest = CALayerContentsFilter(rawValue: "nearest")
    /// Trilinear (mipmapped; drawn as linear here).
    public static let trilinear = CALayerContentsFilter(rawValue: "trilinear")
}

/// The pixel format of a layer's drawn backing store.
public struct CALayerContentsFormat: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a format from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// 8 bits per component RGBA (the default).
    public static let RGBA8Uint = CALayerContentsFormat(rawValue: "RGBA8")
    /// 16-bit float RGBA.
    public static let RGBA16Float = CALayerContentsFormat(rawValue: "RGBAh")
    /// 8-bit greyscale.
    public static let gray8Uint = CALayerContentsFormat(rawValue: "Gray8")
}

/// The curve of rounded corners.
public struct CALayerCornerCurve: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a curve from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Quarter circles (the default).
    public static let circular = CALayerCornerCurve(rawValue: "circular")
    /// Continuous curvature (drawn as circular here).
    public static let continuous = CALayerCornerCurve(rawValue: "continuous")
}

/// The methods a layer's delegate may implement. Each has a default that does what Apple does
/// when the delegate does not implement it.
public protocol CALayerDelegate: AnyObject {
    /// Updates the layer's contents; the default draws through `draw(_:in:)` into a bitmap.
    func display(_ layer: CALayer)
    /// Draws the layer's contents into `ctx` (bounds coordinates, y up).
    func draw(_ layer: CALayer, in ctx: CGContext)
    /// Called before the layer is drawn.
    func layerWillDraw(_ layer: CALayer)
    /// Lays out the layer's sublayers.
    func layoutSublayers(of layer: CALayer)
    /// The action for `event` (nil: keep looking; `NSNull()`: no action).
    func action(for layer: CALayer, forKey event: String) -> (any CAAction)?
}

extension CALayerDelegate {
    /// Draws the layer's backing store through `draw(in:)`.
    public func display(_ layer: CALayer) { layer.drawBackingStore() }
    /// Draws nothing.
    public func draw(_ layer: CALayer, in ctx: CGContext) {}
    /// Does nothing.
    public func layerWillDraw(_ layer: CALayer) {}
    /// Does nothing.
    public func layoutSublayers(of layer: CALayer) {}
    /// No opinion (nil).
    public func action(for layer: CALayer, forKey event: String) -> (any CAAction)? { nil }
}

extension NSNull: CAAction {
    /// Does nothing: `NSNull` as an action means "no action".
    public func run(forKey event: String, object anObject: Any, arguments dict: [AnyHashable: Any]?) {}
}
