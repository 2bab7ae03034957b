// CAShapeLayer: a layer that fills and strokes a path.
import CoreGraphics
import Foundation

/// The rule deciding which parts of a path are inside.
public struct CAShapeLayerFillRule: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a rule from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Non-zero winding (the default).
    public static let nonZero = CAShapeLayerFillRule(rawValue: "non-zero")
    /// Even-odd.
    public static let evenOdd = CAShapeLayerFillRule(rawValue: "even-odd")
}

/// The shape of a stroke's ends.
public struct CAShapeLayerLineCap: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a cap from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Square, at the end point (the default).
    public static let butt = CAShapeLayerLineCap(rawValue: "butt")
    /// Rounded.
    public static let round = CAShapeLayerLineCap(rawValue: "round")
    /// Square, extended by half the width.
    public static let square = CAShapeLayerLineCap(rawValue: "square")
}

/// The shape of a stroke's corners.
public struct CAShapeLayerLineJoin: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a join from its raw name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Sharp (the default, up to `miterLimit`).
    public static let miter = CAShapeLayerLineJoin(rawValue: "miter")
    /// Rounded.
    public static let round = CAShapeLayerLineJoin(rawValue: "round")
    /// Cut off.
    public static let bevel = CAShapeLayerLineJoin(rawValue: "bevel")
}

/// A layer that draws a path: filled (default opaque black) and optionally stroked.
open class CAShapeLayer: CALayer {
    /// The path, in the layer's coordinates.
    open var path: CGPath? {
        get { get(\.shape.path) }
        set { set(\.shape.path, newValue, key: "path") }
    }

    /// The fill colour (default opaque black; nil: not filled).
    open var fillColor: CGColor? {
        get { get(\.shape.fillColor) }
        set { set(\.shape.fillColor, newValue, key: "fillColor") }
    }

    /// The fill rule (default `.nonZero`).
    open var fillRule: CAShapeLayerFillRule {
        get { get(\.shape.fillRule) }
        set { set(\.shape.fillRule, newValue) }
    }

    /// The stroke colour (default nil: not stroked).
    open var strokeColor: CGColor? {
        get { get(\.shape.strokeColor) }
        set { set(\.shape.strokeColor, newValue, key: "strokeColor") }
    }

    /// The stroke width (default 1).
    open var lineWidth: CGFloat {
        get { get(\.shape.lineWidth) }
        set { if newValue.isFinite { set(\.shape.lineWidth, newValue, key: "lineWidth") } }
    }

    /// The stroke's end caps (default `.butt`).
    open var lineCap: CAShapeLayerLineCap {
        get { get(\.shape.lineCap) }
        set { set(\.shape.lineCap, newValue) }
    }

    /// The stroke's joins (default `.miter`).
    open var lineJoin: CAShapeLayerLineJoin {
        get { get(\.shape.lineJoin) }
        set { set(\.shape.lineJoin, newValue) }
    }

    /// The miter limit (default 10).
    open var miterLimit: CGFloat {
        get { get(\.shape.miterLimit) }
        set { if newValue.isFinite { set(\.shape.miterLimit, newValue, key: "miterLimit") } }
    }

    /// The dash lengths (nil: solid).
    open var lineDashPattern: [NSNumber]? {
        get { get(\.shape.lineDashPattern) }
        set { set(\.shape.lineDashPattern, newValue) }
    }

    /// Where the dash pattern starts (default 0).
    open var lineDashPhase: CGFloat {
        get { get(\.shape.lineDashPhase) }
        set { if newValue.isFinite { set(\.shape.lineDashPhase, newValue, key: "lineDashPhase") } }
    }

    /// Where along the path the stroke starts, 0…1 (default 0).
    open var strokeStart: CGFloat {
        get { get(\.shape.strokeStart) }
        set { if newValue.isFinite { set(\.shape.strokeStart, newValue, key: "strokeStart") } }
    }

    /// Where along the path the stroke ends, 0…1 (default 1).
    open var strokeEnd: CGFloat {
        get { get(\.shape.strokeEnd) }
        set { if newValue.isFinite { set(\.shape.strokeEnd, newValue, key: "strokeEnd") } }
    }

    override func subclassValue(forKey key: String) -> Any? {
        switch key {
        case "path": return path
        case "fillColor": return fillColor
        case "strokeColor": return strokeColor
        case "lineWidth": return NSNumber(value: Double(lineWidth))
        case "strokeStart": return NSNumber(value: Double(strokeStart))
        case "strokeEnd": return NSNumber(value: Double(strokeEnd))
        case "lineDashPhase": return NSNumber(value: Double(lineDashPhase))
        case "miterLimit": return NSNumber(value: Double(miterLimit))
        case "lineDashPattern": return lineDashPattern
        default: return nil
        }
    }

    override func setSubclassValue(_ value: Any?, forKey key: String) -> Bool {
        let d = AnimValue(value)?.scalar.map { CGFloat($0) }
        switch key {
        case "path": path = value as? CGPath
        case "fillColor": fillColor = value as? CGColor
        case "strokeColor": strokeColor = value as? CGColor
        case "lineWidth": if let d { lineWidth = d }
        case "strokeStart": if let d { strokeStart = d }
        case "strokeEnd": if let d { strokeEnd = d }
        case "lineDashPhase": if let d { lineDashPhase = d }
        case "miterLimit": if let d { miterLimit = d }
        case "lineDashPattern": lineDashPattern = value as? [NSNumber]
        default: return false
        }
        return true
    }
}
