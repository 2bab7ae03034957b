// CALayer: Core Animation's layer — geometry, appearance, contents, hierarchy, timing and
// animations. Every mutable value lives in one Mutex (LayerState), so the app may change a
// layer on its thread while an export or a preview evaluates the tree on another
// (CALayer+Render.swift). CALayer is not Sendable (a client subclass with its own `var`s would
// have to restate an unchecked conformance): a tree reaches another thread inside its owner
// (the video composition holding an animation tool, the preview layer).
import CoreGraphics
import Foundation
import Synchronization

/// A layer: a rectangle with contents, appearance and sublayers, placed by its position,
/// anchor point and transform in its superlayer's space, and animated by its animations.
open class CALayer: NSObject, CAMediaTiming {
    /// All of the layer's mutable values.
    let state = Mutex(LayerState())

    // MARK: Creation

    /// A new layer with Apple's default values.
    public override init() {
        super.init()
        let defaults = Self.collectDefaults(Self.self)
        if !defaults.isEmpty { for (k, v) in defaults { setValue(v, forKey: k) } }
    }

    /// A copy of `layer`'s values (not its sublayers or animations): how presentation layers
    /// are made. Subclasses override it to copy their own values.
    public init(layer: Any) {
        super.init()
        if let other = layer as? CALayer {
            var s = other.state.withLock { $0 }
            s.sublayers = nil
            s.superlayer = nil
            s.animations = []
            s.mask = nil
            s.hostsLiveRendering = false
            state.withLock { $0 = s }
        }
    }

    /// Decoding is not supported: nil.
    public required init?(coder: NSCoder) { return nil }

    /// The default value of the property `key` (nil: the built-in default).
    open class func defaultValue(forKey key: String) -> Any? { nil }

    /// Whether changing `key` requires the layer to redraw (false).
    open class func needsDisplay(forKey key: String) -> Bool { false }

    /// Whether `key` is archived (true).
    open func shouldArchiveValue(forKey key: String) -> Bool { true }

    private static func collectDefaults(_ cls: CALayer.Type) -> [(String, Any)] {
        // Only client subclasses can override defaultValue(forKey:); ours return nil.
        guard cls != CALayer.self, cls != CATextLayer.self, cls != CAShapeLayer.self, cls != CAGradientLayer.self,
              cls != CAReplicatorLayer.self, cls != CATransformLayer.self else { return [] }
        return LayerKeys.all.compactMap { k in cls.defaultValue(forKey: k).map { (k, $0) } }
    }

    // MARK: State access

    func get<T>(_ kp: KeyPath<LayerState, T>) -> T {
        // The key path is a constant; the value read is returned to the caller as Apple's
        // getters return the model value.
        nonisolated(unsafe) let kp = kp
        return state.withLock { s -> T in
            nonisolated(unsafe) let v = s[keyPath: kp]
            return v
        }
    }

    /// Sets a value; `key` names the animatable property for implicit actions.
    func set<T>(_ kp: WritableKeyPath<LayerState, T>, _ value: T, key: String? = nil) {
        let live = key != nil && isInLiveTree
        let old: AnimValue? = live ? renderValue(forKeyPath: key!) : nil
        state.withLock { $0[keyPath: kp] = value }
        if live, let key, let old { implicitAction(key: key, from: old) }
    }

    // MARK: Geometry

    /// The layer's bounds in its own coordinate space.
    open var bounds: CGRect {
        get { get(\.bounds) }
        set {
            guard newValue.origin.x.isFinite, newValue.origin.y.isFinite, newValue.width.isFinite, newValue.height.isFinite
            else { return }
            let redraw = get(\.needsDisplayOnBoundsChange) && newValue.size != bounds.size
            set(\.bounds, newValue, key: "bounds")
            if redraw { setNeedsDisplay() }
            setNeedsLayout()
        }
    }

    /// Where the anchor point is in the superlayer's space.
    open var position: CGPoint {
        get { get(\.position) }
        set { if newValue.x.isFinite && newValue.y.isFinite { set(\.position, newValue, key: "position") } }
    }

    /// The layer's position along z (sublayers are drawn in increasing zPosition).
    open var zPosition: CGFloat {
        get { get(\.zPosition) }
        set { if newValue.isFinite { set(\.zPosition, newValue, key: "zPosition") } }
    }

    /// The point of the bounds (unit coordinates) that `position` places and transforms turn
    /// about (default (0.5, 0.5)).
    open var anchorPoint: CGPoint {
        get { get(\.anchorPoint) }
        set { if newValue.x.isFinite && newValue.y.isFinite { set(\.anchorPoint, newValue, key: "anchorPoint") } }
    }

    /// The anchor point's z.
    open var anchorPointZ: CGFloat {
        get { get(\.anchorPointZ) }
        set { if newValue.isFinite { set(\.anchorPointZ, newValue, key: "anchorPointZ") } }
    }

    /// The layer's transform, about its anchor point.
    open var transform: CATransform3D {
        get { get(\.transform) }
        set { if newValue.isFinite { set(\.transform, newValue, key: "transform") } }
    }

    /// A transform applied to the sublayers (about this layer's anchor point).
    open var sublayerTransform: CATransform3D {
        get { get(\.sublayerTransform) }
        set { if newValue.isFinite { set(\.sublayerTransform, newValue, key: "sublayerTransform") } }
    }

    /// The layer's rectangle in its superlayer's space: the bounding box of its bounds through
    /// its transform. Setting it sets `position` and the bounds' size (as with an identity
    /// transform).
    open var frame: CGRect {
        get {
            let s = state.withLock { ($0.bounds, $0.position, $0.anchorPoint, $0.transform) }
            return Self.frame(bounds: s.0, position: s.1, anchorPoint: s.2, transform: s.3)
        }
        set {
            guard newValue.origin.x.isFinite, newValue.origin.y.isFinite, newValue.width.isFinite,
                  newValue.height.isFinite else { return }
            let r = newValue.standardized
            let ap = anchorPoint
            var b = bounds
            b.size = r.size
            bounds = b
            position = CGPoint(x: r.minX + ap.x * r.width, y: r.minY + ap.y * r.height)
        }
    }

    static func frame(bounds: CGRect, position: CGPoint, anchorPoint: CGPoint, transform: CATransform3D) -> CGRect {
        let w = bounds.width, h = bounds.height
        if CATransform3DIsIdentity(transform) {
            return CGRect(x: position.x - anchorPoint.x * w, y: position.y - anchorPoint.y * h, width: w, height: h)
        }
        let ax = anchorPoint.x * w, ay = anchorPoint.y * h
        let corners = [CGPoint(x: -ax, y: -ay), CGPoint(x: w - ax, y: -ay), CGPoint(x: -ax, y: h - ay),
                       CGPoint(x: w - ax, y: h - ay)].map { transform.apply(to: $0) }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let minX = xs.min()!, minY = ys.min()!
        return CGRect(x: position.x + minX, y: position.y + minY, width: xs.max()! - minX, height: ys.max()! - minY)
    }

    /// The transform as an affine transform (its x–y part).
    open func affineTransform() -> CGAffineTransform { CATransform3DGetAffineTransform(transform) }

    /// Sets the transform from an affine transform.
    open func setAffineTransform(_ m: CGAffineTransform) { transform = CATransform3DMakeAffineTransform(m) }

    /// Whether the layer's geometry is flipped vertically for its sublayers.
    open var isGeometryFlipped: Bool {
        get { get(\.isGeometryFlipped) }
        set { set(\.isGeometryFlipped, newValue) }
    }

    /// Whether the contents are drawn flipped: the flips of this layer and its ancestors.
    open func contentsAreFlipped() -> Bool {
        var flipped = false
        var l: CALayer? = self
        while let c = l {
            if c.isGeometryFlipped { flipped.toggle() }
            l = c.superlayer
        }
        return flipped
    }

    // MARK: Appearance

    /// The layer's opacity, 0…1 (default 1).
    open var opacity: Float {
        get { get(\.opacity) }
        set { if newValue.isFinite { set(\.opacity, newValue, key: "opacity") } }
    }

    /// Whether the layer is hidden.
    open var isHidden: Bool {
        get { get(\.isHidden) }
        set { set(\.isHidden, newValue, key: "hidden") }
    }

    /// The background colour (nil: none).
    open var backgroundColor: CGColor? {
        get { get(\.backgroundColor) }
        set { set(\.backgroundColor, newValue, key: "backgroundColor") }
    }

    /// The border's width (default 0).
    open var borderWidth: CGFloat {
        get { get(\.borderWidth) }
        set { if newValue.isFinite { set(\.borderWidth, newValue, key: "borderWidth") } }
    }

    /// The border's colour (default opaque black).
    open var borderColor: CGColor? {
        get { get(\.borderColor) }
        set { set(\.borderColor, newValue, key: "borderColor") }
    }

    /// The radius of the rounded corners (default 0).
    open var cornerRadius: CGFloat {
        get { get(\.cornerRadius) }
        set { if newValue.isFinite { set(\.cornerRadius, newValue, key: "cornerRadius") } }
    }

    /// The curve of the rounded corners.
    open var cornerCurve: CALayerCornerCurve {
        get { get(\.cornerCurve) }
        set { set(\.cornerCurve, newValue) }
    }

    /// Which corners are rounded (default all four).
    open var maskedCorners: CACornerMask {
        get { get(\.maskedCorners) }
        set { set(\.maskedCorners, newValue) }
    }

    /// Whether sublayers and contents are clipped to the bounds.
    open var masksToBounds: Bool {
        get { get(\.masksToBounds) }
        set { set(\.masksToBounds, newValue, key: "masksToBounds") }
    }

    /// A layer whose alpha masks this layer (in this layer's space).
    open var mask: CALayer? {
        get { get(\.mask) }
        set {
            if let newValue { newValue.removeFromSuperlayer() }
            set(\.mask, newValue)
        }
    }

    /// Whether the layer is fully opaque (a hint; no effect on drawing here).
    open var isOpaque: Bool {
        get { get(\.isOpaque) }
        set { set(\.isOpaque, newValue) }
    }

    /// Whether the back of the layer is drawn when it faces away (default true).
    open var isDoubleSided: Bool {
        get { get(\.isDoubleSided) }
        set { set(\.isDoubleSided, newValue, key: "doubleSided") }
    }

    /// Whether edges are antialiased when transformed (default false).
    open var allowsEdgeAntialiasing: Bool {
        get { get(\.allowsEdgeAntialiasing) }
        set { set(\.allowsEdgeAntialiasing, newValue) }
    }

    /// Which edges are antialiased.
    open var edgeAntialiasingMask: CAEdgeAntialiasingMask {
        get { get(\.edgeAntialiasingMask) }
        set { set(\.edgeAntialiasingMask, newValue) }
    }

    /// Whether opacity applies to the layer and its sublayers as a group (default true).
    open var allowsGroupOpacity: Bool {
        get { get(\.allowsGroupOpacity) }
        set { set(\.allowsGroupOpacity, newValue) }
    }

    /// Whether the layer is rendered to a bitmap before compositing (a hint here).
    open var shouldRasterize: Bool {
        get { get(\.shouldRasterize) }
        set { set(\.shouldRasterize, newValue) }
    }

    /// The scale of the rasterised bitmap.
    open var rasterizationScale: CGFloat {
        get { get(\.rasterizationScale) }
        set { set(\.rasterizationScale, newValue) }
    }

    /// Whether drawing is deferred to a background thread (a hint here).
    open var drawsAsynchronously: Bool {
        get { get(\.drawsAsynchronously) }
        set { set(\.drawsAsynchronously, newValue) }
    }

    // MARK: Shadow

    /// The shadow's colour (default opaque black).
    open var shadowColor: CGColor? {
        get { get(\.shadowColor) }
        set { set(\.shadowColor, newValue, key: "shadowColor") }
    }

    /// The shadow's opacity (default 0: no shadow).
    open var shadowOpacity: Float {
        get { get(\.shadowOpacity) }
        set { if newValue.isFinite { set(\.shadowOpacity, newValue, key: "shadowOpacity") } }
    }

    /// The shadow's offset (default (0, −3)).
    open var shadowOffset: CGSize {
        get { get(\.shadowOffset) }
        set { if newValue.width.isFinite && newValue.height.isFinite { set(\.shadowOffset, newValue, key: "shadowOffset") } }
    }

    /// The shadow's blur radius (default 3).
    open var shadowRadius: CGFloat {
        get { get(\.shadowRadius) }
        set { if newValue.isFinite { set(\.shadowRadius, newValue, key: "shadowRadius") } }
    }

    /// The shadow's shape (nil: the layer's alpha).
    open var shadowPath: CGPath? {
        get { get(\.shadowPath) }
        set { set(\.shadowPath, newValue, key: "shadowPath") }
    }

    // MARK: Contents

    /// The layer's contents: a CGImage or a CVPixelBuffer (other objects are kept but not
    /// drawn).
    open var contents: Any? {
        get { get(\.contents) }
        set {
            set(\.contents, newValue, key: "contents")
            state.withLock { $0.drawnContents = nil }
        }
    }

    /// Where the contents go in the bounds (default `.resize`).
    open var contentsGravity: CALayerContentsGravity {
        get { get(\.contentsGravity) }
        set { set(\.contentsGravity, newValue) }
    }

    /// The part of the contents drawn, in unit coordinates (default (0, 0, 1, 1)).
    open var contentsRect: CGRect {
        get { get(\.contentsRect) }
        set { set(\.contentsRect, newValue, key: "contentsRect") }
    }

    /// The stretchable centre of the contents, in unit coordinates (default (0, 0, 1, 1)).
    open var contentsCenter: CGRect {
        get { get(\.contentsCenter) }
        set { set(\.contentsCenter, newValue, key: "contentsCenter") }
    }

    /// Pixels per point of the contents (default 1).
    open var contentsScale: CGFloat {
        get { get(\.contentsScale) }
        set { if newValue.isFinite && newValue > 0 { set(\.contentsScale, newValue) } }
    }

    /// The format of the drawn backing store.
    open var contentsFormat: CALayerContentsFormat {
        get { get(\.contentsFormat) }
        set { set(\.contentsFormat, newValue) }
    }

    /// The filter used when contents are shrunk (default `.linear`).
    open var minificationFilter: CALayerContentsFilter {
        get { get(\.minificationFilter) }
        set { set(\.minificationFilter, newValue) }
    }

    /// The mipmap bias of the minification filter.
    open var minificationFilterBias: Float {
        get { get(\.minificationFilterBias) }
        set { set(\.minificationFilterBias, newValue) }
    }

    /// The filter used when contents are enlarged (default `.linear`).
    open var magnificationFilter: CALayerContentsFilter {
        get { get(\.magnificationFilter) }
        set { set(\.magnificationFilter, newValue) }
    }

    // MARK: Identity and actions

    /// The layer's name.
    open var name: String? {
        get { get(\.name) }
        set { set(\.name, newValue) }
    }

    /// Default property values (looked up by `action(forKey:)` under "actions" too).
    open var style: [AnyHashable: Any]? {
        get { get(\.style) }
        set { set(\.style, newValue) }
    }

    /// Actions by key (`NSNull()` disables one).
    open var actions: [String: any CAAction]? {
        get { get(\.actions) }
        set { set(\.actions, newValue) }
    }

    /// The layer's delegate (weak).
    open weak var delegate: (any CALayerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    // MARK: CAMediaTiming

    /// When the layer's time starts, in its superlayer's time.
    open var beginTime: CFTimeInterval {
        get { get(\.timing.beginTime) }
        set { set(\.timing.beginTime, newValue) }
    }

    /// The layer's duration (not used for layers here: a layer is always active).
    open var duration: CFTimeInterval {
        get { get(\.timing.duration) }
        set { set(\.timing.duration, newValue) }
    }

    /// How fast the layer's time runs relative to its superlayer's (0 freezes it).
    open var speed: Float {
        get { Float(get(\.timing.speed)) }
        set { set(\.timing.speed, Double(newValue)) }
    }

    /// An offset added to the layer's local time.
    open var timeOffset: CFTimeInterval {
        get { get(\.timing.timeOffset) }
        set { set(\.timing.timeOffset, newValue) }
    }

    /// The layer's repeat count (not used for layers here).
    open var repeatCount: Float {
        get { Float(get(\.timing.repeatCount)) }
        set { set(\.timing.repeatCount, Double(newValue)) }
    }

    /// The layer's repeat duration (not used for layers here).
    open var repeatDuration: CFTimeInterval {
        get { get(\.timing.repeatDuration) }
        set { set(\.timing.repeatDuration, newValue) }
    }

    /// Whether the layer's time autoreverses (not used for layers here).
    open var autoreverses: Bool {
        get { get(\.timing.autoreverses) }
        set { set(\.timing.autoreverses, newValue) }
    }

    /// The layer's fill mode (not used for layers here).
    open var fillMode: CAMediaTimingFillMode {
        get { get(\.timing.fillMode) }
        set { set(\.timing.fillMode, newValue) }
    }

    // MARK: Live hosting

    /// Set by a live renderer (the capture preview, a player window) on the root of the tree it
    /// hosts: implicit actions run only in such trees (they are off for standalone layers and
    /// for trees rendered offline, e.g. by an export).
    package var hostsLiveRendering: Bool {
        get { get(\.hostsLiveRendering) }
        set { state.withLock { $0.hostsLiveRendering = newValue } }
    }

    /// Whether the layer's root hosts live rendering.
    var isInLiveTree: Bool {
        var l: CALayer = self
        while let s = l.superlayer { l = s }
        return l.hostsLiveRendering
    }

    // MARK: Hierarchy
    // CALayer's layer tree: sublayers, superlayer, adding, inserting, replacing and removing.

    /// The sublayers, back to front (setting it replaces them all).
    open var sublayers: [CALayer]? {
        get { get(\.sublayers) }
        set {
            for old in get(\.sublayers) ?? [] { old.state.withLock { $0.superlayer = nil } }
            state.withLock { $0.sublayers = nil }
            for l in newValue ?? [] { addSublayer(l) }
            if newValue != nil && (newValue ?? []).isEmpty { state.withLock { $0.sublayers = [] } }
        }
    }

    /// The layer this one is a sublayer of.
    open var superlayer: CALayer? { state.withLock { $0.superlayer } }

    /// Appends `layer` to the sublayers (removing it from its previous superlayer first).
    open func addSublayer(_ layer: CALayer) {
        insertSublayer(layer, at: UInt32.max)
    }

    /// Inserts `layer` into the sublayers at `idx` (clamped to the count).
    open func insertSublayer(_ layer: CALayer, at idx: UInt32) {
        guard layer !== self else { return }
        // A layer cannot become a sublayer of its own descendant.
        var a: CALayer? = self
        while let c = a { if c === layer { return }; a = c.superlayer }
        layer.removeFromSuperlayer()
        state.withLock { s in
            var subs = s.sublayers ?? []
            subs.insert(layer, at: min(Int(idx), subs.count))
            s.sublayers = subs
        }
        layer.state.withLock { $0.superlayer = self }
        setNeedsLayout()
    }

    /// Inserts `layer` just below `sibling` (at the back, index 0, when `sibling` is nil or not
    /// a sublayer).
    open func insertSublayer(_ layer: CALayer, below sibling: CALayer?) {
        let subs = sublayers ?? []
        let i = sibling.flatMap { s in subs.firstIndex { $0 === s } } ?? 0
        insertSublayer(layer, at: UInt32(i))
        fixIndex(layer, sibling, after: false)
    }

    /// Inserts `layer` just above `sibling` (at the front when `sibling` is nil or not a
    /// sublayer).
    open func insertSublayer(_ layer: CALayer, above sibling: CALayer?) {
        let subs = sublayers ?? []
        let i = sibling.flatMap { s in subs.firstIndex { $0 === s } }.map { $0 + 1 } ?? subs.count
        insertSublayer(layer, at: UInt32(i))
        fixIndex(layer, sibling, after: true)
    }

    /// After an insert that moved `layer` within this layer, puts it right next to `sibling`.
    private func fixIndex(_ layer: CALayer, _ sibling: CALayer?, after: Bool) {
        guard let sibling else { return }
        state.withLock { s in
            guard var subs = s.sublayers, let li = subs.firstIndex(where: { $0 === layer }) else { return }
            subs.remove(at: li)
            guard let si = subs.firstIndex(where: { $0 === sibling }) else { subs.insert(layer, at: li); s.sublayers = subs; return }
            subs.insert(layer, at: after ? si + 1 : si)
            s.sublayers = subs
        }
    }

    /// Replaces the sublayer `oldLayer` with `newLayer` (nothing when `oldLayer` is not a
    /// sublayer).
    open func replaceSublayer(_ oldLayer: CALayer, with newLayer: CALayer) {
        guard let i = (sublayers ?? []).firstIndex(where: { $0 === oldLayer }) else { return }
        if oldLayer === newLayer { return }
        oldLayer.removeFromSuperlayer()
        insertSublayer(newLayer, at: UInt32(i))
    }

    /// Removes the layer from its superlayer's sublayers (or from being its superlayer's mask).
    open func removeFromSuperlayer() {
        guard let parent = superlayer else {
            return
        }
        parent.state.withLock { s in
            s.sublayers?.removeAll { $0 === self }
            if s.mask === self { s.mask = nil }
        }
        state.withLock { $0.superlayer = nil }
        parent.setNeedsLayout()
    }

    // MARK: Animations
    // CALayer's animations: adding (a copy, with the begin-time rule), looking up and removing
    // them, actions (implicit animations, in live trees only), and presentation/model layers.

    /// Adds a copy of `anim` under `key` (replacing an animation with the same key; a nil key
    /// adds it anonymously). A copy whose `beginTime` is 0 starts now: its begin time becomes
    /// the layer's current local time (from `CACurrentMediaTime()`), so it is never seen in a
    /// movie-time render — use `AVCoreAnimationBeginTimeAtZero` for movie time 0.
    open func add(_ anim: CAAnimation, forKey key: String?) {
        guard let copy = anim.copy() as? CAAnimation else { return }
        if copy.beginTime == 0 {
            copy.beginTime = convertTime(CACurrentMediaTime(), from: nil)
        }
        if let t = copy as? CATransition {
            t.capturedTree = renderTree(at: nil)
        }
        let entry = AttachedAnimation(key: key, animation: copy, spec: copy.makeSpec(),
                                      removedOnCompletion: copy.isRemovedOnCompletion)
        var replaced: CAAnimation?
        state.withLock { s in
            if let key, let i = s.animations.firstIndex(where: { $0.key == key }) {
                replaced = s.animations[i].animation
                s.animations.remove(at: i)
            }
            s.animations.append(entry)
        }
        if isInLiveTree {
            if let replaced { replaced.delegate?.animationDidStop(replaced, finished: false) }
            copy.delegate?.animationDidStart(copy)
        }
    }

    /// The animation added under `key` (the layer's copy; do not change it).
    open func animation(forKey key: String) -> CAAnimation? {
        state.withLock { s in s.animations.first { $0.key == key }?.animation }
    }

    /// The keys of the animations added with a key, in the order they were added (nil when
    /// there are none).
    open func animationKeys() -> [String]? {
        let keys = state.withLock { s in s.animations.compactMap(\.key) }
        return keys.isEmpty ? nil : keys
    }

    /// Removes the animation under `key`.
    open func removeAnimation(forKey key: String) {
        let removed = state.withLock { s -> [CAAnimation] in
            let r = s.animations.filter { $0.key == key }.map(\.animation)
            s.animations.removeAll { $0.key == key }
            return r
        }
        if isInLiveTree { for a in removed { a.delegate?.animationDidStop(a, finished: false) } }
    }

    /// Removes every animation.
    open func removeAllAnimations() {
        let removed = state.withLock { s -> [CAAnimation] in
            let r = s.animations.map(\.animation)
            s.animations = []
            return r
        }
        if isInLiveTree { for a in removed { a.delegate?.animationDidStop(a, finished: false) } }
    }

    /// A copy of the layer holding its values as currently displayed (at
    /// `CACurrentMediaTime()`, animations applied), with presentation copies of its sublayers.
    /// The copy is made with `init(layer:)` of the nearest QuartzCore class (a client subclass's
    /// own stored values are not copied).
    open func presentation() -> Self? {
        presentationCopy(at: CACurrentMediaTime()) as? Self
    }

    /// The model layer a presentation layer was made from (self for a model layer).
    open func model() -> Self {
        (state.withLock { $0.modelLayer } as? Self) ?? self
    }

    func presentationCopy(at time: Double) -> CALayer {
        let tree = renderTree(at: time)
        return Self.presentationLayer(from: tree, model: self)
    }

    private static func presentationLayer(from tree: RenderLayer, model: CALayer) -> CALayer {
        let copy: CALayer
        switch model {
        case let m as CATextLayer: copy = CATextLayer(layer: m)
        case let m as CAShapeLayer: copy = CAShapeLayer(layer: m)
        case let m as CAGradientLayer: copy = CAGradientLayer(layer: m)
        case let m as CAReplicatorLayer: copy = CAReplicatorLayer(layer: m)
        case let m as CATransformLayer: copy = CATransformLayer(layer: m)
        default: copy = CALayer(layer: model)
        }
        copy.state.withLock { s in
            s.modelLayer = model
            s.bounds = tree.bounds; s.position = tree.position; s.zPosition = tree.zPosition
            s.anchorPoint = tree.anchorPoint; s.anchorPointZ = tree.anchorPointZ
            s.transform = tree.transform; s.sublayerTransform = tree.sublayerTransform
            s.opacity = tree.opacity; s.isHidden = tree.isHidden; s.masksToBounds = tree.masksToBounds
            s.backgroundColor = tree.backgroundColor; s.cornerRadius = tree.cornerRadius
            s.borderWidth = tree.borderWidth; s.borderColor = tree.borderColor; s.isDoubleSided = tree.isDoubleSided
            s.contentsRect = tree.contentsRect; s.contentsCenter = tree.contentsCenter
            s.shadowColor = tree.shadowColor; s.shadowOpacity = tree.shadowOpacity
            s.shadowOffset = tree.shadowOffset; s.shadowRadius = tree.shadowRadius; s.shadowPath = tree.shadowPath
            switch tree.contents {
            case .image(let i)?: s.contents = i
            case .pixelBuffer(let b)?: s.contents = b
            case nil: s.contents = nil
            }
            switch tree.content {
            case .shape(let sh):
                s.shape.path = sh.path; s.shape.fillColor = sh.fillColor; s.shape.strokeColor = sh.strokeColor
                s.shape.lineWidth = sh.lineWidth; s.shape.strokeStart = sh.strokeStart; s.shape.strokeEnd = sh.strokeEnd
                s.shape.lineDashPhase = sh.lineDashPhase; s.shape.miterLimit = sh.miterLimit
            case .gradient(let g):
                s.gradient.colors = g.colors; s.gradient.locations = g.locations?.map { NSNumber(value: Double($0)) }
                s.gradient.startPoint = g.startPoint; s.gradient.endPoint = g.endPoint
            case .text(let t):
                if let r = t.runs.first { s.text.fontSize = r.fontSize; s.text.foregroundColor = r.color }
            case .replicator(let r):
                s.replicator.instanceTransform = r.instanceTransform; s.replicator.instanceColor = r.instanceColor
            case .none: break
            }
        }
        let models = model.sublayers ?? []
        var subs: [CALayer] = []
        for child in tree.sublayers {
            if let m = models.first(where: { ObjectIdentifier($0) == child.id }) {
                subs.append(presentationLayer(from: child, model: m))
            }
        }
        copy.state.withLock { $0.sublayers = subs.isEmpty ? nil : subs }
        for s in subs { s.state.withLock { $0.superlayer = copy } }
        return copy
    }

    // MARK: Actions

    /// The action for `event`: the delegate's answer, then `actions`, then `style`'s
    /// "actions", then `defaultAction(forKey:)`; `NSNull` anywhere means none.
    open func action(forKey event: String) -> (any CAAction)? {
        if let d = delegate, let a = d.action(for: self, forKey: event) { return a is NSNull ? nil : a }
        if let a = actions?[event] { return a is NSNull ? nil : a }
        if let st = style?["actions"] as? [String: Any], let a = st[event] as? any CAAction { return a is NSNull ? nil : a }
        return Self.defaultAction(forKey: event)
    }

    /// The default action for `event`: nil (implicit animations are made by the layer when
    /// no action is found, in live trees).
    open class func defaultAction(forKey event: String) -> (any CAAction)? { nil }

    /// A property changed in a live tree: runs its action, or the implicit animation (a basic
    /// animation from the old presentation value over the transaction's duration).
    func implicitAction(key: String, from old: AnimValue) {
        guard !CATransaction.disableActions() else { return }
        if let d = delegate, let a = d.action(for: self, forKey: key) {
            if !(a is NSNull) { a.run(forKey: key, object: self, arguments: nil) }
            return
        }
        if let a = actions?[key] {
            if !(a is NSNull) { a.run(forKey: key, object: self, arguments: nil) }
            return
        }
        if let a = Self.defaultAction(forKey: key) {
            a.run(forKey: key, object: self, arguments: nil)
            return
        }
        let anim = CABasicAnimation(keyPath: key)
        anim.fromValue = old
        anim.duration = CATransaction.animationDuration()
        anim.timingFunction = CATransaction.animationTimingFunction()
        add(anim, forKey: key)
    }

    // MARK: Display
    // CALayer's drawing and layout cycle: setNeedsDisplay, display, draw(in:) into a bitmap backing
    // store, and setNeedsLayout/layoutIfNeeded/layoutSublayers.

    /// Marks the layer's contents as needing to be redrawn (before the next evaluation).
    open func setNeedsDisplay() { state.withLock { $0.needsDisplay = true } }

    /// Marks a part of the contents as needing to be redrawn (the whole layer is redrawn).
    open func setNeedsDisplay(_ r: CGRect) { setNeedsDisplay() }

    /// Whether the layer is marked as needing to be redrawn.
    open func needsDisplay() -> Bool { get(\.needsDisplay) }

    /// Redraws the layer now if it is marked as needing it.
    open func displayIfNeeded() {
        let needed = state.withLock { s -> Bool in
            let n = s.needsDisplay
            s.needsDisplay = false
            return n
        }
        if needed { display() }
    }

    /// Whether a change of the bounds' size marks the layer as needing to be redrawn.
    open var needsDisplayOnBoundsChange: Bool {
        get { get(\.needsDisplayOnBoundsChange) }
        set { set(\.needsDisplayOnBoundsChange, newValue) }
    }

    /// Updates the contents: the delegate's `display(_:)`, or else draws the backing store
    /// through `draw(in:)`.
    open func display() {
        if let d = delegate { d.display(self) } else { drawBackingStore() }
    }

    /// Draws the layer's contents into `ctx` (bounds coordinates, y up): the delegate's
    /// `draw(_:in:)`; subclasses override it.
    open func draw(in ctx: CGContext) {
        delegate?.draw(self, in: ctx)
    }

    /// Draws the layer and its sublayers into `ctx` in the layer's own coordinate space (its
    /// bounds map onto the context's user space; its position and transform are not applied), from
    /// the model values: animations are ignored, as Apple documents.
    open func render(in ctx: CGContext) {
        var tree = renderTree(at: nil)
        let b = tree.bounds
        tree.position = CGPoint(x: b.minX + tree.anchorPoint.x * b.width, y: b.minY + tree.anchorPoint.y * b.height)
        tree.zPosition = 0
        tree.transform = CATransform3DIdentity
        LayerRenderer(cachesStaticSubtrees: false).draw(tree, in: ctx)
    }

    /// Draws `draw(in:)` into a BGRA premultiplied bitmap of bounds × contentsScale (y up) and
    /// makes it the contents.
    package func drawBackingStore() {
        let (b, scale) = state.withLock { ($0.bounds, $0.contentsScale) }
        let w = Int((b.width * scale).rounded(.up)), h = Int((b.height * scale).rounded(.up))
        guard w > 0, h > 0, w <= 16384, h <= 16384,
              let space = CGColorSpace(name: CGColorSpace.sRGB),
              let ctx = CGContext(data: nil, width: w, height: h, bitsPerComponent: 8, bytesPerRow: 0, space: space,
                                  bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        else {
            state.withLock { $0.contents = nil; $0.drawnContents = nil }
            return
        }
        ctx.scaleBy(x: scale, y: scale)
        ctx.translateBy(x: -b.minX, y: -b.minY)
        delegate?.layerWillDraw(self)
        draw(in: ctx)
        let image = ctx.makeImage()
        state.withLock { $0.contents = image; $0.drawnContents = image }
    }

    // MARK: Layout

    /// Marks the layer as needing layout.
    open func setNeedsLayout() { state.withLock { $0.needsLayout = true } }

    /// Whether the layer is marked as needing layout.
    open func needsLayout() -> Bool { get(\.needsLayout) }

    /// Lays out the layer now if it is marked as needing it (then its sublayers).
    open func layoutIfNeeded() {
        let needed = state.withLock { s -> Bool in
            let n = s.needsLayout
            s.needsLayout = false
            return n
        }
        if needed { layoutSublayers() }
        for s in sublayers ?? [] { s.layoutIfNeeded() }
    }

    /// Lays out the sublayers: the delegate's `layoutSublayers(of:)`; subclasses override it.
    open func layoutSublayers() { delegate?.layoutSublayers(of: self) }

    /// The layer's preferred size: its bounds' size.
    open func preferredFrameSize() -> CGSize { bounds.size }

    // MARK: Geometry
    // CALayer's coordinate conversions (points, rectangles and times between layers), hit testing
    // and containment. Each layer's transform to its superlayer's plane is flattened to z = 0 as
    // Core Animation renders (a 3D transform is projected), so conversions compose and invert as
    // 2D projective maps.

    /// The map from this layer's bounds coordinates to its superlayer's (position, anchor point,
    /// transform; the superlayer's sublayerTransform and geometry flip), flattened to z = 0.
    func toSuperlayerTransform() -> CATransform3D {
        let s = state.withLock { ($0.bounds, $0.position, $0.anchorPoint, $0.anchorPointZ, $0.transform) }
        let ap = CGPoint(x: s.0.minX + s.2.x * s.0.width, y: s.0.minY + s.2.y * s.0.height)
        var m = CATransform3DMakeTranslation(-ap.x, -ap.y, -s.3)
        m = CATransform3DConcat(m, s.4)
        m = CATransform3DConcat(m, CATransform3DMakeTranslation(s.1.x, s.1.y, s.3))
        if let p = superlayer {
            let ps = p.state.withLock { ($0.bounds, $0.anchorPoint, $0.sublayerTransform, $0.isGeometryFlipped) }
            if !CATransform3DIsIdentity(ps.2) {
                let pap = CGPoint(x: ps.0.minX + ps.1.x * ps.0.width, y: ps.0.minY + ps.1.y * ps.0.height)
                m = CATransform3DConcat(m, CATransform3DMakeTranslation(-pap.x, -pap.y, 0))
                m = CATransform3DConcat(m, ps.2)
                m = CATransform3DConcat(m, CATransform3DMakeTranslation(pap.x, pap.y, 0))
            }
            if ps.3 {
                var flip = CATransform3DMakeScale(1, -1, 1)
                flip.m42 = ps.0.minY + ps.0.maxY
                m = CATransform3DConcat(m, flip)
            }
        }
        return Self.flatten(m)
    }

    /// `m` with z dropped (points stay in the z = 0 plane; perspective kept).
    static func flatten(_ m: CATransform3D) -> CATransform3D {
        var f = m
        f.m13 = 0; f.m23 = 0; f.m43 = 0
        f.m31 = 0; f.m32 = 0; f.m34 = 0; f.m33 = 1
        return f
    }

    /// The map from this layer's coordinates to its root's, and the root.
    func toRootTransform() -> (CATransform3D, CALayer) {
        var m = CATransform3DIdentity
        var l: CALayer = self
        while let p = l.superlayer {
            m = CATransform3DConcat(m, l.toSuperlayerTransform())
            l = p
        }
        return (m, l)
    }

    /// The map from `other`'s coordinates to this layer's (nil `other`: the root's).
    func transform(from other: CALayer?) -> CATransform3D {
        // Layers in different trees convert as if both roots shared one space.
        let mine = toRootTransform().0
        let theirs = other?.toRootTransform().0 ?? CATransform3DIdentity
        return CATransform3DConcat(theirs, CATransform3DInvert(mine))
    }

    /// `p` in `l`'s coordinates converted to this layer's.
    open func convert(_ p: CGPoint, from l: CALayer?) -> CGPoint {
        transform(from: l).apply(to: p)
    }

    /// `p` in this layer's coordinates converted to `l`'s.
    open func convert(_ p: CGPoint, to l: CALayer?) -> CGPoint {
        guard let l else { return toRootTransform().0.apply(to: p) }
        return l.convert(p, from: self)
    }

    /// `r` in `l`'s coordinates converted to this layer's (the bounding box of its corners).
    open func convert(_ r: CGRect, from l: CALayer?) -> CGRect {
        Self.boundingBox(r, transform(from: l))
    }

    /// `r` in this layer's coordinates converted to `l`'s.
    open func convert(_ r: CGRect, to l: CALayer?) -> CGRect {
        guard let l else { return Self.boundingBox(r, toRootTransform().0) }
        return l.convert(r, from: self)
    }

    static func boundingBox(_ r: CGRect, _ m: CATransform3D) -> CGRect {
        guard !r.isNull else { return r }
        let pts = [CGPoint(x: r.minX, y: r.minY), CGPoint(x: r.maxX, y: r.minY), CGPoint(x: r.minX, y: r.maxY),
                   CGPoint(x: r.maxX, y: r.maxY)].map { m.apply(to: $0) }
        let xs = pts.map(\.x), ys = pts.map(\.y)
        return CGRect(x: xs.min()!, y: ys.min()!, width: xs.max()! - xs.min()!, height: ys.max()! - ys.min()!)
    }

    /// A time in `l`'s local time converted to this layer's (nil `l`: absolute time).
    open func convertTime(_ t: CFTimeInterval, from l: CALayer?) -> CFTimeInterval {
        let absolute = l?.absoluteTime(fromLocal: t) ?? t
        return localTime(fromAbsolute: absolute)
    }

    /// A time in this layer's local time converted to `l`'s (nil `l`: absolute time).
    open func convertTime(_ t: CFTimeInterval, to l: CALayer?) -> CFTimeInterval {
        let absolute = absoluteTime(fromLocal: t)
        return l?.localTime(fromAbsolute: absolute) ?? absolute
    }

    /// Makes the layer's local time (and so its subtree's) come from `source` rather than from
    /// its parent: how AVSynchronizedLayer follows a player item. nil restores normal timing.
    package func setTimeSource(_ source: (@Sendable () -> CFTimeInterval?)?) {
        state.withLock { $0.timeSource = source }
    }

    /// The layer's local time at root parent time `t` (each layer's timing applied top-down).
    func localTime(fromAbsolute t: Double) -> Double {
        var chain: [TimingValues] = []
        var l: CALayer? = self
        while let c = l { chain.append(c.get(\.timing)); l = c.superlayer }
        return chain.reversed().reduce(t) { $1.localTime($0) }
    }

    func absoluteTime(fromLocal t: Double) -> Double {
        var time = t
        var l: CALayer? = self
        while let c = l { time = c.get(\.timing).parentTime(time); l = c.superlayer }
        return time
    }

    /// The farthest descendant (or the layer itself) containing `p`, given in the superlayer's
    /// coordinates; nil when `p` is outside the layer's bounds or the layer is hidden.
    open func hitTest(_ p: CGPoint) -> CALayer? {
        guard !isHidden else { return nil }
        let local = CATransform3DInvert(toSuperlayerTransform()).apply(to: p)
        guard contains(local) else { return nil }
        let subs = (sublayers ?? []).enumerated().sorted { a, b in
            a.element.zPosition != b.element.zPosition ? a.element.zPosition < b.element.zPosition : a.offset < b.offset
        }
        for (_, s) in subs.reversed() {
            if let hit = s.hitTest(local) { return hit }
        }
        return self
    }

    /// Whether `p` (in the layer's coordinates) is inside its bounds.
    open func contains(_ p: CGPoint) -> Bool { bounds.contains(p) }

    // MARK: KeyValue
    // Key-value coding for CALayer's properties (swift-corelibs-foundation's NSObject has none):
    // `value(forKey:)`, `setValue(_:forKey:)`, `value(forKeyPath:)` for the animatable keys and
    // their sub-paths ("position.x", "transform.rotation.z", …). Other keys are stored and returned
    // as Apple's CALayer does for undeclared keys.

    /// The value of the property `key` (Apple's key names: "opacity", "hidden",
    /// "geometryFlipped", …; numbers and Booleans as NSNumber, as Apple boxes them); values
    /// stored under unknown keys are returned as set.
    open func value(forKey key: String) -> Any? {
        switch key {
        case "bounds": return bounds
        case "position": return position
        case "zPosition": return NSNumber(value: Double(zPosition))
        case "anchorPoint": return anchorPoint
        case "anchorPointZ": return NSNumber(value: Double(anchorPointZ))
        case "transform": return transform
        case "sublayerTransform": return sublayerTransform
        case "frame": return frame
        case "opacity": return NSNumber(value: opacity)
        case "hidden", "isHidden": return NSNumber(value: isHidden)
        case "backgroundColor": return backgroundColor
        case "borderWidth": return NSNumber(value: Double(borderWidth))
        case "borderColor": return borderColor
        case "cornerRadius": return NSNumber(value: Double(cornerRadius))
        case "masksToBounds": return NSNumber(value: masksToBounds)
        case "contents": return contents
        case "contentsRect": return contentsRect
        case "contentsCenter": return contentsCenter
        case "contentsScale": return NSNumber(value: Double(contentsScale))
        case "contentsGravity": return contentsGravity
        case "shadowColor": return shadowColor
        case "shadowOpacity": return NSNumber(value: shadowOpacity)
        case "shadowOffset": return shadowOffset
        case "shadowRadius": return NSNumber(value: Double(shadowRadius))
        case "shadowPath": return shadowPath
        case "name": return name
        case "geometryFlipped", "isGeometryFlipped": return NSNumber(value: isGeometryFlipped)
        case "doubleSided", "isDoubleSided": return NSNumber(value: isDoubleSided)
        case "allowsEdgeAntialiasing": return NSNumber(value: allowsEdgeAntialiasing)
        case "sublayers": return sublayers
        case "mask": return mask
        default:
            if let v = subclassValue(forKey: key) { return v }
            return state.withLock { $0.extra[key] }
        }
    }

    /// Sets the property `key` from `value` (numbers as any Swift numeric type or NSNumber,
    /// geometry as values or NSValue); a value of the wrong type is ignored. Unknown keys store
    /// the value.
    open func setValue(_ value: Any?, forKey key: String) {
        let v = AnimValue(value)
        func f() -> CGFloat? { v?.scalar.map { CGFloat($0) } }
        func b() -> Bool? { (value as? Bool) ?? v?.scalar.map { $0 != 0 } }
        func pt() -> CGPoint? { if case .point(let p)? = v { return p } else { return nil } }
        func sz() -> CGSize? { if case .size(let p)? = v { return p } else { return nil } }
        func rc() -> CGRect? { if case .rect(let p)? = v { return p } else { return nil } }
        func tr() -> CATransform3D? { if case .transform(let p)? = v { return p } else { return nil } }
        func col() -> CGColor?? { value == nil ? .some(nil) : (value as? CGColor).map { .some($0) } }
        switch key {
        case "bounds": if let x = rc() { bounds = x }
        case "position": if let x = pt() { position = x }
        case "zPosition": if let x = f() { zPosition = x }
        case "anchorPoint": if let x = pt() { anchorPoint = x }
        case "anchorPointZ": if let x = f() { anchorPointZ = x }
        case "transform": if let x = tr() { transform = x }
        case "sublayerTransform": if let x = tr() { sublayerTransform = x }
        case "frame": if let x = rc() { frame = x }
        case "opacity": if let x = f() { opacity = Float(x) }
        case "hidden", "isHidden": if let x = b() { isHidden = x }
        case "backgroundColor": if let x = col() { backgroundColor = x }
        case "borderWidth": if let x = f() { borderWidth = x }
        case "borderColor": if let x = col() { borderColor = x }
        case "cornerRadius": if let x = f() { cornerRadius = x }
        case "masksToBounds": if let x = b() { masksToBounds = x }
        case "contents": contents = value
        case "contentsRect": if let x = rc() { contentsRect = x }
        case "contentsCenter": if let x = rc() { contentsCenter = x }
        case "contentsScale": if let x = f() { contentsScale = x }
        case "contentsGravity":
            if let x = value as? CALayerContentsGravity { contentsGravity = x }
            else if let x = value as? String { contentsGravity = CALayerContentsGravity(rawValue: x) }
        case "shadowColor": if let x = col() { shadowColor = x }
        case "shadowOpacity": if let x = f() { shadowOpacity = Float(x) }
        case "shadowOffset": if let x = sz() { shadowOffset = x }
        case "shadowRadius": if let x = f() { shadowRadius = x }
        case "shadowPath": shadowPath = value as? CGPath
        case "name": name = value as? String
        case "geometryFlipped", "isGeometryFlipped": if let x = b() { isGeometryFlipped = x }
        case "doubleSided", "isDoubleSided": if let x = b() { isDoubleSided = x }
        case "allowsEdgeAntialiasing": if let x = b() { allowsEdgeAntialiasing = x }
        default:
            if setSubclassValue(value, forKey: key) { return }
            state.withLock { $0.extra[key] = value }
        }
    }

    /// The value at a key path: a key, or an animatable key with a sub-path ("position.x",
    /// "bounds.size.width", "transform.rotation.z", "transform.scale", …).
    open func value(forKeyPath keyPath: String) -> Any? {
        guard keyPath.contains(".") else { return value(forKey: keyPath) }
        return renderValue(forKeyPath: keyPath)?.object
    }

    /// Sets the value at a key path (sub-paths of the animatable keys set that component).
    open func setValue(_ value: Any?, forKeyPath keyPath: String) {
        guard keyPath.contains(".") else { setValue(value, forKey: keyPath); return }
        guard let v = AnimValue(value) else { return }
        var p = Presentation(layer: modelRenderLayer())
        p.setValue(v, forKeyPath: keyPath)
        let l = p.layer
        if keyPath.hasPrefix("position") { position = l.position }
        else if keyPath.hasPrefix("bounds") { bounds = l.bounds }
        else if keyPath.hasPrefix("anchorPoint") { anchorPoint = l.anchorPoint }
        else if keyPath.hasPrefix("transform") { transform = l.transform }
        else if keyPath.hasPrefix("sublayerTransform") { sublayerTransform = l.sublayerTransform }
        else if keyPath.hasPrefix("shadowOffset") { shadowOffset = l.shadowOffset }
    }

    /// The model value at an animatable key path.
    func renderValue(forKeyPath keyPath: String) -> AnimValue? {
        var p = Presentation(layer: modelRenderLayer())
        fillPresentationExtras(&p, state.withLock { $0 })
        return p.value(forKeyPath: keyPath)
    }

    /// A subclass's own keys (CATextLayer, CAShapeLayer, …); nil when `key` is not one.
    func subclassValue(forKey key: String) -> Any? { nil }

    /// Sets a subclass's own key; false when `key` is not one.
    func setSubclassValue(_ value: Any?, forKey key: String) -> Bool { false }
}

/// The layer keys `value(forKey:)`, `setValue(_:forKey:)` and `defaultValue(forKey:)` know.
enum LayerKeys {
    static let all = ["bounds", "position", "zPosition", "anchorPoint", "anchorPointZ", "transform",
                      "sublayerTransform", "opacity", "hidden", "backgroundColor", "borderWidth", "borderColor",
                      "cornerRadius", "masksToBounds", "contents", "contentsRect", "contentsCenter", "contentsScale",
                      "contentsGravity", "shadowColor", "shadowOpacity", "shadowOffset", "shadowRadius", "shadowPath",
                      "name", "geometryFlipped", "doubleSided", "frame", "allowsEdgeAntialiasing",
                      "string", "font", "fontSize", "foregroundColor", "path", "fillColor", "strokeColor",
                      "lineWidth", "strokeStart", "strokeEnd", "lineDashPhase", "miterLimit", "colors", "locations",
                      "startPoint", "endPoint", "instanceCount", "instanceDelay", "instanceTransform", "instanceColor"]
}
