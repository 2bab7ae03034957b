import QuartzCore

/// Whether two numbers agree within `tolerance`.
func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

/// Whether two numbers agree within `tolerance`.
func close(_ a: CGFloat, _ b: Double, _ tolerance: Double = 1e-9) -> Bool { abs(Double(a) - b) <= tolerance }

/// Whether two transforms agree element by element.
func close(_ a: CATransform3D, _ b: CATransform3D, _ tolerance: Double = 1e-9) -> Bool {
    zip(a.rows.joined(), b.rows.joined()).allSatisfy { abs(Double($0) - Double($1)) <= tolerance }
}

/// The length of a transform's first basis row (its x scale).
func xScale(_ t: CATransform3D) -> Double { Double((t.m11 * t.m11 + t.m12 * t.m12 + t.m13 * t.m13).squareRoot()) }

/// A root layer holding `layer`, and the evaluated node of `layer` at `time`.
func evaluated(_ layer: CALayer, at time: Double?) -> RenderLayer {
    let root = layer.superlayer ?? {
        let r = CALayer()
        r.bounds = CGRect(x: 0, y: 0, width: 1280, height: 720)
        r.addSublayer(layer)
        return r
    }()
    let tree = root.renderTree(at: time)
    func find(_ n: RenderLayer) -> RenderLayer? {
        if n.id == ObjectIdentifier(layer) { return n }
        for s in n.sublayers { if let f = find(s) { return f } }
        return nil
    }
    return find(tree)!
}
