// CAGradientLayer: a layer that fills its bounds with a colour gradient.
import CoreGraphics
import Foundation

/// The shape of a gradient.
public struct CAGradientLayerType: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a type from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Along the line from `startPoint` to `endPoint` (the default).
    public static let axial = CAGradientLayerType(rawValue: "axial")
    /// An ellipse centred on `startPoint` reaching `endPoint`.
    public static let radial = CAGradientLayerType(rawValue: "radial")
    /// Around `startPoint`, starting towards `endPoint`.
    public static let conic = CAGradientLayerType(rawValue: "conic")
}

/// A layer that draws a gradient of `colors` at `locations` from `startPoint` to `endPoint`
/// (unit coordinates of the bounds).
open class CAGradientLayer: CALayer {
    /// The colours (CGColor), in order.
    open var colors: [Any]? {
        get { get(\.gradient.colors) }
        set { set(\.gradient.colors, newValue, key: "colors") }
    }

    /// Where each colour sits, 0…1 (nil: evenly spread).
    open var locations: [NSNumber]? {
        get { get(\.gradient.locations) }
        set { set(\.gradient.locations, newValue, key: "locations") }
    }

    /// The start point (default (0.5, 0)).
    open var startPoint: CGPoint {
        get { get(\.gradient.startPoint) }
        set { set(\.gradient.startPoint, newValue, key: "startPoint") }
    }

    /// The end point (default (0.5, 1)).
    open var endPoint: CGPoint {
        get { get(\.gradient.endPoint) }
        set { set(\.gradient.endPoint, newValue, key: "endPoint") }
    }

    /// The gradient's shape (default `.axial`).
    open var type: CAGradientLayerType {
        get { get(\.gradient.type) }
        set { set(\.gradient.type, newValue) }
    }

    override func subclassValue(forKey key: String) -> Any? {
        switch key {
        case "colors": return colors
        case "locations": return locations
        case "startPoint": return startPoint
        case "endPoint": return endPoint
        default: return nil
        }
    }

    override func setSubclassValue(_ value: Any?, forKey key: String) -> Bool {
        switch key {
        case "colors": colors = value as? [Any]
        case "locations": locations = value as? [NSNumber]
        case "startPoint": if case .point(let p)? = AnimValue(value) { startPoint = p }
        case "endPoint": if case .point(let p)? = AnimValue(value) { endPoint = p }
        default: return false
        }
        return true
    }
}
