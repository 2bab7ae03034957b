// LayerState: every mutable value of one CALayer (and of its subclasses), kept in the layer's
// one Mutex so an evaluation on another thread reads a consistent snapshot.
import CoreGraphics
import Foundation

/// One animation attached to a layer: its key, the frozen copy `animation(forKey:)` returns,
/// and its evaluation value.
struct AttachedAnimation: Sendable {
    var key: String?
    nonisolated(unsafe) var animation: CAAnimation
    var spec: AnimationSpec?
    var removedOnCompletion: Bool
}

/// A layer's mutable state. Sendable so it can live in the layer's Mutex: the fields marked
/// `nonisolated(unsafe)` hold objects that are not Sendable and are only read or written with
/// the lock held (a snapshot copied out is read on the evaluating thread, as Apple's render
/// server reads committed values).
struct LayerState: Sendable {
    /// Where the layer's local time comes from instead of its parent's time through its timing
    /// (AVSynchronizedLayer: the player item's time); nil: the usual Core Animation timing.
    var timeSource: (@Sendable () -> CFTimeInterval?)?
    var bounds = CGRect.zero
    var position = CGPoint.zero
    var anchorPoint = CGPoint(x: 0.5, y: 0.5)
    var anchorPointZ: CGFloat = 0
    var zPosition: CGFloat = 0
    var transform = CATransform3DIdentity
    var sublayerTransform = CATransform3DIdentity
    var opacity: Float = 1
    var isHidden = false
    var backgroundColor: CGColor?
    var borderWidth: CGFloat = 0
    var borderColor: CGColor? = .black
    var cornerRadius: CGFloat = 0
    var cornerCurve: CALayerCornerCurve = .circular
    var maskedCorners: CACornerMask = [.layerMinXMinYCorner, .layerMaxXMinYCorner, .layerMinXMaxYCorner, .layerMaxXMaxYCorner]
    var masksToBounds = false
    nonisolated(unsafe) var mask: CALayer?
    nonisolated(unsafe) var contents: Any?
    var contentsGravity: CALayerContentsGravity = .resize
    var contentsRect = CGRect(x: 0, y: 0, width: 1, height: 1)
    var contentsCenter = CGRect(x: 0, y: 0, width: 1, height: 1)
    var contentsScale: CGFloat = 1
    var contentsFormat: CALayerContentsFormat = .RGBA8Uint
    var minificationFilter: CALayerContentsFilter = .linear
    var minificationFilterBias: Float = 0
    var magnificationFilter: CALayerContentsFilter = .linear
    var isOpaque = false
    var isGeometryFlipped = false
    var isDoubleSided = true
    var allowsEdgeAntialiasing = false
    var edgeAntialiasingMask: CAEdgeAntialiasingMask = [.layerLeftEdge, .layerRightEdge, .layerBottomEdge, .layerTopEdge]
    var allowsGroupOpacity = true
    var shouldRasterize = false
    var rasterizationScale: CGFloat = 1
    var drawsAsynchronously = false
    var shadowColor: CGColor? = .black
    var shadowOpacity: Float = 0
    var shadowOffset = CGSize(width: 0, height: -3)
    var shadowRadius: CGFloat = 3
    var shadowPath: CGPath?
    var name: String?
    nonisolated(unsafe) var style: [AnyHashable: Any]?
    nonisolated(unsafe) var actions: [String: any CAAction]?
    nonisolated(unsafe) weak var delegate: (any CALayerDelegate)?
    var needsDisplayOnBoundsChange = false
    var needsDisplay = false
    var needsLayout = false
    /// The layer's backing store drawn by `display()` (its `contents` afterwards).
    var drawnContents: CGImage?

    // Hierarchy.
    nonisolated(unsafe) var sublayers: [CALayer]?
    nonisolated(unsafe) weak var superlayer: CALayer?

    // Timing (CAMediaTiming on layers).
    var timing = TimingValues()

    var animations: [AttachedAnimation] = []
    /// Extra values stored with `setValue(_:forKey:)` under keys that are not properties.
    nonisolated(unsafe) var extra: [String: Any] = [:]

    // The presentation layer's model, for `model()`.
    nonisolated(unsafe) weak var modelLayer: CALayer?

    /// Set on the root of a tree a live renderer hosts (implicit actions are on in it).
    var hostsLiveRendering = false

    // Subclasses' values.
    var text = TextState()
    var shape = ShapeState()
    var gradient = GradientState()
    var replicator = ReplicatorState()
}

struct TextState: Sendable {
    nonisolated(unsafe) var string: Any?
    nonisolated(unsafe) var font: CFTypeRef?
    var fontSize: CGFloat = 36
    var foregroundColor: CGColor? = .white
    var isWrapped = false
    var truncationMode: CATextLayerTruncationMode = .none
    var alignmentMode: CATextLayerAlignmentMode = .natural
    var allowsFontSubpixelQuantization = false
}

struct ShapeState: Sendable {
    var path: CGPath?
    var fillColor: CGColor? = .black
    var fillRule: CAShapeLayerFillRule = .nonZero
    var strokeColor: CGColor?
    var lineWidth: CGFloat = 1
    var lineCap: CAShapeLayerLineCap = .butt
    var lineJoin: CAShapeLayerLineJoin = .miter
    var miterLimit: CGFloat = 10
    nonisolated(unsafe) var lineDashPattern: [NSNumber]?
    var lineDashPhase: CGFloat = 0
    var strokeStart: CGFloat = 0
    var strokeEnd: CGFloat = 1
}

struct GradientState: Sendable {
    nonisolated(unsafe) var colors: [Any]?
    nonisolated(unsafe) var locations: [NSNumber]?
    var startPoint = CGPoint(x: 0.5, y: 0)
    var endPoint = CGPoint(x: 0.5, y: 1)
    var type: CAGradientLayerType = .axial
}

struct ReplicatorState: Sendable {
    var instanceCount = 1
    var preservesDepth = false
    var instanceDelay: CFTimeInterval = 0
    var instanceTransform = CATransform3DIdentity
    var instanceColor: CGColor?
    var instanceRedOffset: Float = 0
    var instanceGreenOffset: Float = 0
    var instanceBlueOffset: Float = 0
    var instanceAlphaOffset: Float = 0
}
