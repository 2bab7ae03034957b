// RenderLayer: the seam between the layer model and the renderer. The model (CALayer and its
// subclasses, with their animations) is evaluated at one time into a tree of these values — the
// presentation tree — and the renderer (LayerRenderer) draws that tree. Values, not layers: the
// renderer runs on an export's or a preview's thread while the app may go on changing its
// layers, and two frames' trees compare equal where nothing changed (so a static subtree is
// drawn once and cached).
import CoreGraphics
import CoreVideo

/// One layer's presentation values at a time, with its sublayers' (back to front, in the order
/// the renderer draws them: sublayers sorted by zPosition, stable).
package struct RenderLayer: Equatable, Sendable {
    /// What the layer draws besides its background, border and contents.
    package enum Content: Equatable, Sendable {
        case none
        case text(RenderText)
        case shape(RenderShape)
        case gradient(RenderGradient)
        /// A CAReplicatorLayer: its sublayers are drawn `count` times, each copy with the
        /// transform accumulated `copy` times, its time delayed by `k·instanceDelay` (already
        /// evaluated: `instances[k]` holds copy k's sublayers), its colour multiplied by
        /// the instance colour plus k offsets.
        case replicator(RenderReplicator)
    }

    /// What fills the layer's contents rectangle.
    package enum Contents: Equatable, Sendable {
        case image(CGImage)
        case pixelBuffer(CVPixelBuffer)

        package static func == (lhs: Contents, rhs: Contents) -> Bool {
            switch (lhs, rhs) {
            case (.image(let a), .image(let b)): return a === b
            case (.pixelBuffer(let a), .pixelBuffer(let b)): return a === b
            default: return false
            }
        }
    }

    /// The model layer's identity (stable across frames; cache keys).
    package var id: ObjectIdentifier

    // Geometry (Core Animation's: bounds in the layer's own space, position of the anchor point
    // in the superlayer's space).
    package var bounds: CGRect
    package var position: CGPoint
    package var zPosition: CGFloat = 0
    package var anchorPoint = CGPoint(x: 0.5, y: 0.5)
    package var anchorPointZ: CGFloat = 0
    package var transform = CATransform3DIdentity
    package var sublayerTransform = CATransform3DIdentity
    /// Whether the layer's own geometry is flipped (`isGeometryFlipped`): its sublayers' y grows
    /// downwards from its bounds' top edge.
    package var isGeometryFlipped = false
    /// Whether the contents are drawn flipped vertically: the result of the flips along the path
    /// from the root (`contentsAreFlipped()`).
    package var contentsAreFlipped = false

    // Appearance.
    package var opacity: Float = 1
    package var isHidden = false
    package var masksToBounds = false
    package var backgroundColor: CGColor?
    package var cornerRadius: CGFloat = 0
    /// `maskedCorners` raw value (all four: 15).
    package var maskedCorners: UInt = 15
    package var borderWidth: CGFloat = 0
    package var borderColor: CGColor?
    package var allowsEdgeAntialiasing = false
    package var isDoubleSided = true

    // Contents.
    package var contents: Contents?
    /// `contentsGravity` raw value ("resize", "resizeAspect", "center", "top", …).
    package var contentsGravity = "resize"
    package var contentsRect = CGRect(x: 0, y: 0, width: 1, height: 1)
    package var contentsCenter = CGRect(x: 0, y: 0, width: 1, height: 1)
    package var contentsScale: CGFloat = 1
    /// `minificationFilter`/`magnificationFilter` raw values ("linear", "nearest", "trilinear").
    package var minificationFilter = "linear"
    package var magnificationFilter = "linear"

    // Shadow.
    package var shadowColor: CGColor?
    package var shadowOpacity: Float = 0
    package var shadowOffset = CGSize(width: 0, height: -3)
    package var shadowRadius: CGFloat = 3
    package var shadowPath: CGPath?

    package var content: Content = .none
    /// The mask layer (its alpha masks this layer and its sublayers), in this layer's space.
    package var mask: [RenderLayer] = []
    package var sublayers: [RenderLayer] = []

    package init(id: ObjectIdentifier, bounds: CGRect, position: CGPoint) {
        self.id = id
        self.bounds = bounds
        self.position = position
    }
}

/// One run of text with its own attributes (a CATextLayer's string or an attributed string's
/// runs).
package struct RenderTextRun: Equatable, Sendable {
    package var text: String
    /// A font name as Apple code names it ("Helvetica", "GillSans-Bold", "Avenir-Heavy"): mapped
    /// to a fontconfig family, weight and style by the text rasteriser.
    package var fontName: String
    package var fontSize: CGFloat
    package var color: CGColor?
    package var underline = false
    package var strikethrough = false
    package var kern: CGFloat = 0
    package init(text: String, fontName: String, fontSize: CGFloat, color: CGColor?) {
        self.text = text
        self.fontName = fontName
        self.fontSize = fontSize
        self.color = color
    }
}

/// A CATextLayer's text.
package struct RenderText: Equatable, Sendable {
    package var runs: [RenderTextRun]
    package var isWrapped = false
    /// `alignmentMode` raw value: "natural", "left", "right", "center", "justified".
    package var alignment = "natural"
    /// `truncationMode` raw value: "none", "start", "end", "middle".
    package var truncation = "none"
    package init(runs: [RenderTextRun]) { self.runs = runs }
}

/// A CAShapeLayer's path and how it is painted.
package struct RenderShape: Equatable, Sendable {
    package var path: CGPath?
    package var fillColor: CGColor?
    /// "non-zero" or "even-odd".
    package var fillRule = "non-zero"
    package var strokeColor: CGColor?
    package var lineWidth: CGFloat = 1
    /// "butt", "round", "square".
    package var lineCap = "butt"
    /// "miter", "round", "bevel".
    package var lineJoin = "miter"
    package var miterLimit: CGFloat = 10
    package var lineDashPattern: [CGFloat] = []
    package var lineDashPhase: CGFloat = 0
    package var strokeStart: CGFloat = 0
    package var strokeEnd: CGFloat = 1
    package init() {}
}

/// A CAGradientLayer's gradient.
package struct RenderGradient: Equatable, Sendable {
    package var colors: [CGColor]
    /// nil: evenly spread.
    package var locations: [CGFloat]?
    /// Unit-square points (0,0 is the bounds' origin corner in the layer's own space).
    package var startPoint = CGPoint(x: 0.5, y: 0)
    package var endPoint = CGPoint(x: 0.5, y: 1)
    /// "axial", "radial", "conic".
    package var type = "axial"
    package init(colors: [CGColor]) { self.colors = colors }
}

/// A CAReplicatorLayer's copies.
package struct RenderReplicator: Equatable, Sendable {
    package var instanceTransform = CATransform3DIdentity
    /// Each copy's sublayers, evaluated at its delayed time; copy 0 first.
    package var instances: [[RenderLayer]] = []
    package var instanceColor: CGColor?
    package var instanceRedOffset: Float = 0
    package var instanceGreenOffset: Float = 0
    package var instanceBlueOffset: Float = 0
    package var instanceAlphaOffset: Float = 0
    package var preservesDepth = false
    package init() {}
}
