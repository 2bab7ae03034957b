import QuartzCore
import Testing

@Suite struct CAMediaTimingFunctionTests {
    // Reference values: the cubic Bézier solved by 200-step bisection with the decimal control
    // points; the functions hold Float control points (as Apple's), hence the 1e-8 tolerance.
    @Test func namedFunctionsMatchTheirCurves() {
        let cases: [(CAMediaTimingFunctionName, [Double])] = [
            (.default, [0.40851059135539586, 0.802403387584857, 0.9604589783489741]),
            (.easeIn, [0.09346465071882484, 0.31535681257253945, 0.62186186917489]),
            (.easeOut, [0.37813813082510966, 0.6846431874274606, 0.9065353492811752]),
            (.easeInEaseOut, [0.1291619310473198, 0.5, 0.8708380689526802]),
            (.linear, [0.25, 0.5, 0.75]),
        ]
        for (name, values) in cases {
            let f = CAMediaTimingFunction(name: name)
            for (x, y) in zip([0.25, 0.5, 0.75], values) {
                #expect(close(f.curve.evaluate(x), y, 1e-8), "\(name.rawValue) at \(x)")
            }
            #expect(f.curve.evaluate(0) == 0 && f.curve.evaluate(1) == 1)
        }
    }

    @Test func controlPointsAreReported() {
        let f = CAMediaTimingFunction(controlPoints: 0.42, 0, 0.58, 1)
        var v: [Float] = [0, 0]
        f.getControlPoint(at: 1, values: &v)
        #expect(v == [0.42, 0])
        f.getControlPoint(at: 3, values: &v)
        #expect(v == [1, 1])
    }

    @Test func invalidControlPointsDoNotTrap() {
        let f = CAMediaTimingFunction(controlPoints: .nan, 2, -1, .infinity)
        let y = f.curve.evaluate(0.5)
        #expect(y.isFinite)
        #expect(f.curve.evaluate(.nan) == 0)
    }
}
