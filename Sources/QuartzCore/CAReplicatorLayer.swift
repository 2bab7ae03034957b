// CAReplicatorLayer: a layer that draws its sublayers several times, each copy transformed,
// delayed and tinted a step further.
import CoreGraphics
import Foundation

/// A layer that draws `instanceCount` copies of its sublayers: copy k with `instanceTransform`
/// applied k times, its time delayed by k·`instanceDelay`, its colour multiplied by
/// `instanceColor` plus k times the offsets.
open class CAReplicatorLayer: CALayer {
    /// How many copies (default 1).
    open var instanceCount: Int {
        get { get(\.replicator.instanceCount) }
        set { set(\.replicator.instanceCount, max(0, newValue), key: "instanceCount") }
    }

    /// Whether the copies keep their depth (flattened when false, the default).
    open var preservesDepth: Bool {
        get { get(\.replicator.preservesDepth) }
        set { set(\.replicator.preservesDepth, newValue) }
    }

    /// The time delay between copies, in seconds (default 0).
    open var instanceDelay: CFTimeInterval {
        get { get(\.replicator.instanceDelay) }
        set { if newValue.isFinite { set(\.replicator.instanceDelay, newValue, key: "instanceDelay") } }
    }

    /// The transform applied between consecutive copies (about the replicator's centre).
    open var instanceTransform: CATransform3D {
        get { get(\.replicator.instanceTransform) }
        set { if newValue.isFinite { set(\.replicator.instanceTransform, newValue, key: "instanceTransform") } }
    }

    /// The colour the first copy is multiplied by (nil: white).
    open var instanceColor: CGColor? {
        get { get(\.replicator.instanceColor) }
        set { set(\.replicator.instanceColor, newValue, key: "instanceColor") }
    }

    /// Added to the red component for each copy.
    open var instanceRedOffset: Float {
        get { get(\.replicator.instanceRedOffset) }
        set { if newValue.isFinite { set(\.replicator.instanceRedOffset, newValue, key: "instanceRedOffset") } }
    }

    /// Added to the green component for each copy.
    open var instanceGreenOffset: Float {
        get { get(\.replicator.instanceGreenOffset) }
        set { if newValue.isFinite { set(\.replicator.instanceGreenOffset, newValue, key: "instanceGreenOffset") } }
    }

    /// Added to the blue component for each copy.
    open var instanceBlueOffset: Float {
        get { get(\.replicator.instanceBlueOffset) }
        set { if newValue.isFinite { set(\.replicator.instanceBlueOffset, newValue, key: "instanceBlueOffset") } }
    }

    /// Added to the alpha component for each copy.
    open var instanceAlphaOffset: Float {
        get { get(\.replicator.instanceAlphaOffset) }
        set { if newValue.isFinite { set(\.replicator.instanceAlphaOffset, newValue, key: "instanceAlphaOffset") } }
    }

    override func subclassValue(forKey key: String) -> Any? {
        switch key {
        case "instanceCount": return NSNumber(value: instanceCount)
        case "instanceDelay": return NSNumber(value: instanceDelay)
        case "instanceTransform": return instanceTransform
        case "instanceColor": return instanceColor
        default: return nil
        }
    }

    override func setSubclassValue(_ value: Any?, forKey key: String) -> Bool {
        let d = AnimValue(value)
        switch key {
        case "instanceCount": if let v = d?.scalar { instanceCount = Int(max(0, min(v, 10_000))) }
        case "instanceDelay": if let v = d?.scalar { instanceDelay = v }
        case "instanceTransform": if case .transform(let t)? = d { instanceTransform = t }
        case "instanceColor": instanceColor = value as? CGColor
        default: return false
        }
        return true
    }
}
