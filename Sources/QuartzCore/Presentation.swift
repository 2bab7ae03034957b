// Presentation: one layer's values while its animations are applied (a RenderLayer plus the
// values that become text runs or replicator copies), read and written by key path.
import CoreGraphics
import Foundation

/// A layer's presentation values during evaluation.
package struct Presentation: Sendable {
    package var layer: RenderLayer
    /// CATextLayer: the font size and colour that become the runs'.
    package var fontSize: CGFloat = 36
    package var foregroundColor: CGColor?
    /// CAReplicatorLayer: the copies and their delay.
    package var instanceCount: Int = 1
    package var instanceDelay: Double = 0
    /// A running transition and its progress.
    package var transition: (TransitionSpec, Double)?

    package init(layer: RenderLayer) { self.layer = layer }

    /// Key paths whose values switch rather than interpolate.
    static let discreteKeys: Set<String> = ["contents", "hidden", "isHidden", "masksToBounds", "doubleSided",
                                            "isDoubleSided", "instanceCount", "geometryFlipped", "isGeometryFlipped"]

    /// The value at `keyPath`; nil for key paths no animation can change.
    package func value(forKeyPath keyPath: String) -> AnimValue? {
        let l = layer
        switch keyPath {
        case "opacity": return .scalar(Double(l.opacity))
        case "position": return .point(l.position)
        case "position.x": return .scalar(Double(l.position.x))
        case "position.y": return .scalar(Double(l.position.y))
        case "bounds": return .rect(l.bounds)
        case "bounds.size": return .size(l.bounds.size)
        case "bounds.size.width": return .scalar(Double(l.bounds.width))
        case "bounds.size.height": return .scalar(Double(l.bounds.height))
        case "bounds.origin": return .point(l.bounds.origin)
        case "bounds.origin.x": return .scalar(Double(l.bounds.origin.x))
        case "bounds.origin.y": return .scalar(Double(l.bounds.origin.y))
        case "anchorPoint": return .point(l.anchorPoint)
        case "anchorPoint.x": return .scalar(Double(l.anchorPoint.x))
        case "anchorPoint.y": return .scalar(Double(l.anchorPoint.y))
        case "anchorPointZ": return .scalar(Double(l.anchorPointZ))
        case "zPosition": return .scalar(Double(l.zPosition))
        case "backgroundColor": return .color(l.backgroundColor ?? .clear)
        case "borderColor": return .color(l.borderColor ?? .black)
        case "borderWidth": return .scalar(Double(l.borderWidth))
        case "cornerRadius": return .scalar(Double(l.cornerRadius))
        case "shadowColor": return .color(l.shadowColor ?? .black)
        case "shadowOpacity": return .scalar(Double(l.shadowOpacity))
        case "shadowOffset": return .size(l.shadowOffset)
        case "shadowRadius": return .scalar(Double(l.shadowRadius))
        case "shadowPath": return l.shadowPath.map { .path($0) }
        case "contents": return .contents(l.contents)
        case "contentsRect": return .rect(l.contentsRect)
        case "contentsCenter": return .rect(l.contentsCenter)
        case "contentsScale": return .scalar(Double(l.contentsScale))
        case "hidden", "isHidden": return .scalar(l.isHidden ? 1 : 0)
        case "masksToBounds": return .scalar(l.masksToBounds ? 1 : 0)
        case "doubleSided", "isDoubleSided": return .scalar(l.isDoubleSided ? 1 : 0)
        default: break
        }
        if keyPath.hasPrefix("transform") { return Self.transformValue(l.transform, sub: keyPath.dropFirst(9)) }
        if keyPath.hasPrefix("sublayerTransform") {
            return Self.transformValue(l.sublayerTransform, sub: keyPath.dropFirst(17))
        }
        switch l.content {
        case .shape(let s):
            switch keyPath {
            case "path": return s.path.map { .path($0) }
            case "fillColor": return .color(s.fillColor ?? .clear)
            case "strokeColor": return .color(s.strokeColor ?? .clear)
            case "lineWidth": return .scalar(Double(s.lineWidth))
            case "strokeStart": return .scalar(Double(s.strokeStart))
            case "strokeEnd": return .scalar(Double(s.strokeEnd))
            case "lineDashPhase": return .scalar(Double(s.lineDashPhase))
            case "miterLimit": return .scalar(Double(s.miterLimit))
            default: return nil
            }
        case .gradient(let g):
            switch keyPath {
            case "colors": return .array(g.colors.map { .color($0) })
            case "locations": return g.locations.map { .array($0.map { .scalar(Double($0)) }) }
            case "startPoint": return .point(g.startPoint)
            case "endPoint": return .point(g.endPoint)
            default: return nil
            }
        case .text:
            switch keyPath {
            case "fontSize": return .scalar(Double(fontSize))
            case "foregroundColor": return .color(foregroundColor ?? .white)
            default: return nil
            }
        case .replicator(let r):
            switch keyPath {
            case "instanceCount": return .scalar(Double(instanceCount))
            case "instanceDelay": return .scalar(instanceDelay)
            case "instanceTransform": return .transform(r.instanceTransform)
            case "instanceColor": return .color(r.instanceColor ?? .white)
            case "instanceRedOffset": return .scalar(Double(r.instanceRedOffset))
            case "instanceGreenOffset": return .scalar(Double(r.instanceGreenOffset))
            case "instanceBlueOffset": return .scalar(Double(r.instanceBlueOffset))
            case "instanceAlphaOffset": return .scalar(Double(r.instanceAlphaOffset))
            default: return nil
            }
        case .none:
            return nil
        }
    }

    /// Sets the value at `keyPath`; a value of the wrong kind or a non-finite one is ignored.
    package mutating func setValue(_ v: AnimValue, forKeyPath keyPath: String) {
        func f() -> CGFloat? { if case .scalar(let d) = v, d.isFinite { return CGFloat(d) } else { return nil } }
        func pt() -> CGPoint? { if case .point(let p) = v { return p } else { return nil } }
        func sz() -> CGSize? { if case .size(let s) = v { return s } else { return nil } }
        func rc() -> CGRect? { if case .rect(let r) = v { return r } else { return nil } }
        func col() -> CGColor? { if case .color(let c) = v { return c } else { return nil } }
        func pth() -> CGPath? { if case .path(let p) = v { return p } else { return nil } }
        func flag() -> Bool? { f().map { $0 != 0 } }
        switch keyPath {
        case "opacity": if let x = f() { layer.opacity = Float(x) }; return
        case "position": if let x = pt() { layer.position = x }; return
        case "position.x": if let x = f() { layer.position.x = x }; return
        case "position.y": if let x = f() { layer.position.y = x }; return
        case "bounds": if let x = rc() { layer.bounds = x }; return
        case "bounds.size": if let x = sz() { layer.bounds.size = x }; return
        case "bounds.size.width": if let x = f() { layer.bounds.size.width = x }; return
        case "bounds.size.height": if let x = f() { layer.bounds.size.height = x }; return
        case "bounds.origin": if let x = pt() { layer.bounds.origin = x }; return
        case "bounds.origin.x": if let x = f() { layer.bounds.origin.x = x }; return
        case "bounds.origin.y": if let x = f() { layer.bounds.origin.y = x }; return
        case "anchorPoint": if let x = pt() { layer.anchorPoint = x }; return
        case "anchorPoint.x": if let x = f() { layer.anchorPoint.x = x }; return
        case "anchorPoint.y": if let x = f() { layer.anchorPoint.y = x }; return
        case "anchorPointZ": if let x = f() { layer.anchorPointZ = x }; return
        case "zPosition": if let x = f() { layer.zPosition = x }; return
        case "backgroundColor": if let x = col() { layer.backgroundColor = x }; return
        case "borderColor": if let x = col() { layer.borderColor = x }; return
        case "borderWidth": if let x = f() { layer.borderWidth = x }; return
        case "cornerRadius": if let x = f() { layer.cornerRadius = x }; return
        case "shadowColor": if let x = col() { layer.shadowColor = x }; return
        case "shadowOpacity": if let x = f() { layer.shadowOpacity = Float(x) }; return
        case "shadowOffset": if let x = sz() { layer.shadowOffset = x }; return
        case "shadowRadius": if let x = f() { layer.shadowRadius = x }; return
        case "shadowPath": if let x = pth() { layer.shadowPath = x }; return
        case "contents": if case .contents(let c) = v { layer.contents = c }; return
        case "contentsRect": if let x = rc() { layer.contentsRect = x }; return
        case "contentsCenter": if let x = rc() { layer.contentsCenter = x }; return
        case "contentsScale": if let x = f(), x > 0 { layer.contentsScale = x }; return
        case "hidden", "isHidden": if let x = flag() { layer.isHidden = x }; return
        case "masksToBounds": if let x = flag() { layer.masksToBounds = x }; return
        case "doubleSided", "isDoubleSided": if let x = flag() { layer.isDoubleSided = x }; return
        default: break
        }
        if keyPath.hasPrefix("transform") {
            if let t = Self.settingTransform(layer.transform, sub: keyPath.dropFirst(9), v) { layer.transform = t }
            return
        }
        if keyPath.hasPrefix("sublayerTransform") {
            if let t = Self.settingTransform(layer.sublayerTransform, sub: keyPath.dropFirst(17), v) {
                layer.sublayerTransform = t
            }
            return
        }
        switch layer.content {
        case .shape(var s):
            switch keyPath {
            case "path": if let x = pth() { s.path = x }
            case "fillColor": if let x = col() { s.fillColor = x }
            case "strokeColor": if let x = col() { s.strokeColor = x }
            case "lineWidth": if let x = f() { s.lineWidth = x }
            case "strokeStart": if let x = f() { s.strokeStart = x }
            case "strokeEnd": if let x = f() { s.strokeEnd = x }
            case "lineDashPhase": if let x = f() { s.lineDashPhase = x }
            case "miterLimit": if let x = f() { s.miterLimit = x }
            default: return
            }
            layer.content = .shape(s)
        case .gradient(var g):
            switch keyPath {
            case "colors":
                if case .array(let a) = v {
                    let cs = a.compactMap { if case .color(let c) = $0 { return c } else { return nil } }
                    if cs.count == a.count { g.colors = cs }
                }
            case "locations":
                if case .array(let a) = v {
                    let ls = a.compactMap { $0.scalar.map { CGFloat($0) } }
                    if ls.count == a.count { g.locations = ls }
                }
            case "startPoint": if let x = pt() { g.startPoint = x }
            case "endPoint": if let x = pt() { g.endPoint = x }
            default: return
            }
            layer.content = .gradient(g)
        case .text:
            switch keyPath {
            case "fontSize": if let x = f() { fontSize = x }
            case "foregroundColor": if let x = col() { foregroundColor = x }
            default: return
            }
        case .replicator(var r):
            switch keyPath {
            case "instanceCount": if let x = f() { instanceCount = Int(max(0, min(x.rounded(), 10_000))) }
            case "instanceDelay": if let x = f() { instanceDelay = Double(x) }
            case "instanceTransform": if case .transform(let t) = v { r.instanceTransform = t }
            case "instanceColor": if let x = col() { r.instanceColor = x }
            case "instanceRedOffset": if let x = f() { r.instanceRedOffset = Float(x) }
            case "instanceGreenOffset": if let x = f() { r.instanceGreenOffset = Float(x) }
            case "instanceBlueOffset": if let x = f() { r.instanceBlueOffset = Float(x) }
            case "instanceAlphaOffset": if let x = f() { r.instanceAlphaOffset = Float(x) }
            default: return
            }
            layer.content = .replicator(r)
        case .none:
            return
        }
    }

    // MARK: Transform sub-paths

    /// The value of a transform sub-path ("" is the whole transform; ".rotation.z",
    /// ".scale", ".translation.x", …), as Core Animation reads them: rotation angles of the
    /// matrix's rotation about each axis, scale the length of each basis row (".scale": their
    /// mean), translation m41…m43 (".translation": a size of x and y).
    static func transformValue(_ t: CATransform3D, sub: Substring) -> AnimValue? {
        let s = Self.scales(t)
        switch sub {
        case "": return .transform(t)
        case ".rotation", ".rotation.z": return .scalar(atan2(Double(t.m12), Double(t.m11)))
        case ".rotation.x": return .scalar(atan2(Double(t.m23), Double(t.m22)))
        case ".rotation.y": return .scalar(atan2(Double(-t.m13), Double(t.m11)))
        case ".scale": return .scalar((s[0] + s[1] + s[2]) / 3)
        case ".scale.x": return .scalar(s[0])
        case ".scale.y": return .scalar(s[1])
        case ".scale.z": return .scalar(s[2])
        case ".translation": return .size(CGSize(width: t.m41, height: t.m42))
        case ".translation.x": return .scalar(Double(t.m41))
        case ".translation.y": return .scalar(Double(t.m42))
        case ".translation.z": return .scalar(Double(t.m43))
        default: return nil
        }
    }

    private static func scales(_ t: CATransform3D) -> [Double] {
        func n(_ a: CGFloat, _ b: CGFloat, _ c: CGFloat) -> Double { Double((a * a + b * b + c * c).squareRoot()) }
        return [n(t.m11, t.m12, t.m13), n(t.m21, t.m22, t.m23), n(t.m31, t.m32, t.m33)]
    }

    /// `t` with a sub-path set to `v`: rotations rotate by the difference from the current
    /// angle (so an identity model gets exactly the animated rotation, and other transforms keep
    /// their scale and translation), scales rescale the basis rows, translations replace
    /// m41…m43.
    static func settingTransform(_ t: CATransform3D, sub: Substring, _ v: AnimValue) -> CATransform3D? {
        if sub.isEmpty {
            if case .transform(let n) = v { return n }
            return nil
        }
        if sub == ".translation" {
            guard case .size(let s) = v else { return nil }
            var r = t
            r.m41 = s.width; r.m42 = s.height
            return r
        }
        guard let x = v.scalar, x.isFinite, let cur = transformValue(t, sub: sub)?.scalar else { return nil }
        let c = CGFloat(x)
        var r = t
        switch sub {
        case ".rotation", ".rotation.z": return CATransform3DRotate(t, c - CGFloat(cur), 0, 0, 1)
        case ".rotation.x": return CATransform3DRotate(t, c - CGFloat(cur), 1, 0, 0)
        case ".rotation.y": return CATransform3DRotate(t, c - CGFloat(cur), 0, 1, 0)
        case ".scale", ".scale.x", ".scale.y", ".scale.z":
            let s = scales(t)
            func k(_ i: Int) -> CGFloat { s[i] > 0 ? c / CGFloat(s[i]) : 1 }
            switch sub {
            case ".scale": return CATransform3DScale(t, k(0), k(1), k(2))
            case ".scale.x": return CATransform3DScale(t, k(0), 1, 1)
            case ".scale.y": return CATransform3DScale(t, 1, k(1), 1)
            default: return CATransform3DScale(t, 1, 1, k(2))
            }
        case ".translation.x": r.m41 = c
        case ".translation.y": r.m42 = c
        case ".translation.z": r.m43 = c
        default: return nil
        }
        return r
    }
}
