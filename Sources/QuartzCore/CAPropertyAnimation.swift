// CAPropertyAnimation: an animation of one key path of a layer.
import Foundation

/// An animation that animates the value at a key path of its layer.
open class CAPropertyAnimation: CAAnimation {
    /// The key path animated ("opacity", "position.x", "transform.rotation.z", …); unknown key
    /// paths are ignored.
    open var keyPath: String?
    /// Whether the animated value is added to the layer's current value.
    open var isAdditive = false
    /// Whether each repetition builds on the previous one's end value.
    open var isCumulative = false
    /// A function that turns the interpolated values into the property's value (e.g.
    /// `rotateZ`).
    open var valueFunction: CAValueFunction?

    /// An animation of `path`.
    public convenience init(keyPath path: String?) {
        self.init()
        keyPath = path
    }

    override package func makeEmptyCopy() -> CAAnimation { CAPropertyAnimation() }

    override package func copyValues(to c: CAAnimation) {
        super.copyValues(to: c)
        guard let c = c as? CAPropertyAnimation else { return }
        c.keyPath = keyPath; c.isAdditive = isAdditive; c.isCumulative = isCumulative
        c.valueFunction = valueFunction
    }

    /// The key path, with a value function turned into the key path it stands for
    /// (`transform` + `rotateZ` = `transform.rotation.z`).
    package var effectiveKeyPath: String? {
        guard let keyPath, !keyPath.isEmpty else { return nil }
        guard let vf = valueFunction else { return keyPath }
        switch vf.name {
        case .rotateX: return keyPath + ".rotation.x"
        case .rotateY: return keyPath + ".rotation.y"
        case .rotateZ: return keyPath + ".rotation.z"
        case .scaleX: return keyPath + ".scale.x"
        case .scaleY: return keyPath + ".scale.y"
        case .scaleZ: return keyPath + ".scale.z"
        case .translateX: return keyPath + ".translation.x"
        case .translateY: return keyPath + ".translation.y"
        case .translateZ: return keyPath + ".translation.z"
        default: return keyPath
        }
    }
}

/// A function applied to an animation's interpolated values (Core Animation's value functions).
open class CAValueFunction: NSObject {
    /// The function's name.
    public let name: CAValueFunctionName

    /// The value function named `name`, or nil for an unknown name.
    public init?(name: CAValueFunctionName) {
        let known: [CAValueFunctionName] = [.rotateX, .rotateY, .rotateZ, .scale, .scaleX, .scaleY, .scaleZ,
                                            .translate, .translateX, .translateY, .translateZ]
        guard known.contains(name) else { return nil }
        self.name = name
        super.init()
    }
}

/// The names of Core Animation's value functions.
public struct CAValueFunctionName: RawRepresentable, Hashable, Sendable {
    /// The raw name.
    public let rawValue: String
    /// Creates a name from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Rotation about x by the value (radians).
    public static let rotateX = CAValueFunctionName(rawValue: "rotateX")
    /// Rotation about y by the value (radians).
    public static let rotateY = CAValueFunctionName(rawValue: "rotateY")
    /// Rotation about z by the value (radians).
    public static let rotateZ = CAValueFunctionName(rawValue: "rotateZ")
    /// Scale by three values.
    public static let scale = CAValueFunctionName(rawValue: "scale")
    /// Scale x by the value.
    public static let scaleX = CAValueFunctionName(rawValue: "scaleX")
    /// Scale y by the value.
    public static let scaleY = CAValueFunctionName(rawValue: "scaleY")
    /// Scale z by the value.
    public static let scaleZ = CAValueFunctionName(rawValue: "scaleZ")
    /// Translation by three values.
    public static let translate = CAValueFunctionName(rawValue: "translate")
    /// Translation along x by the value.
    public static let translateX = CAValueFunctionName(rawValue: "translateX")
    /// Translation along y by the value.
    public static let translateY = CAValueFunctionName(rawValue: "translateY")
    /// Translation along z by the value.
    public static let translateZ = CAValueFunctionName(rawValue: "translateZ")
}
