import Foundation
import QuartzCore
import Testing

@Suite struct ConcurrencyTests {
    /// The app changes a layer on its thread while another thread evaluates the tree: every
    /// evaluated value is one the app set (each layer's values are read as one snapshot).
    @Test func evaluationWhileMutating() async {
        let root = CALayer()
        let child = CALayer()
        child.bounds = CGRect(x: 0, y: 0, width: 10, height: 10)
        root.addSublayer(child)
        // As an export's thread holds it: the layer crosses to the reader as it is.
        nonisolated(unsafe) let tree = root
        let reader = Task.detached { () -> Set<Float> in
            var seen: Set<Float> = []
            for i in 0..<2000 {
                let node = tree.renderTree(at: Double(i))
                if let s = node.sublayers.first {
                    // Bounds and opacity are set together below, in one step each.
                    seen.insert(s.opacity)
                }
            }
            return seen
        }
        for i in 0..<2000 {
            child.opacity = Float(i % 4) / 4
            child.position = CGPoint(x: i, y: i)
        }
        let seen = await reader.value
        #expect(seen.isSubset(of: [0, 0.25, 0.5, 0.75, 1]))
        #expect(!seen.isEmpty)
    }

    @Test func completionBlockRunsAtTheOutermostCommit() {
        var calls: [String] = []
        CATransaction.begin()
        CATransaction.setCompletionBlock { calls.append("outer") }
        CATransaction.begin()
        CATransaction.setCompletionBlock { calls.append("inner") }
        CATransaction.commit()
        #expect(calls.isEmpty)
        CATransaction.commit()
        #expect(calls == ["outer", "inner"])
    }

    @Test func mediaTimeIsMonotonic() {
        let a = CACurrentMediaTime()
        let b = CACurrentMediaTime()
        #expect(a > 0 && b >= a)
    }
}
