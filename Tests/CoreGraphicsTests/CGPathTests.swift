import CoreGraphics
import Foundation
import Testing

@Suite struct CGPathTests {
    @Test func rectElementsAndIsRect() {
        let path = CGPath(rect: CGRect(x: 1, y: 2, width: 3, height: 4), transform: nil)
        var types: [CGPathElementType] = []
        path.applyWithBlock { types.append($0.pointee.type) }
        #expect(types == [.moveToPoint, .addLineToPoint, .addLineToPoint, .addLineToPoint, .closeSubpath])
        var rect = CGRect.zero
        #expect(path.isRect(&rect))
        #expect(rect == CGRect(x: 1, y: 2, width: 3, height: 4))
        #expect(!CGPath(ellipseIn: CGRect(x: 0, y: 0, width: 4, height: 4), transform: nil).isRect(nil))
        #expect(path.currentPoint == CGPoint(x: 1, y: 2))
    }

    @Test func curveBoundsAreExact() {
        let path = CGMutablePath()
        path.move(to: CGPoint(x: 0, y: 0))
        path.addCurve(to: CGPoint(x: 10, y: 0), control1: CGPoint(x: 0, y: 10), control2: CGPoint(x: 10, y: 10))
        #expect(path.boundingBox == CGRect(x: 0, y: 0, width: 10, height: 10))
        let exact = path.boundingBoxOfPath
        #expect(exact.minX == 0 && exact.maxX == 10 && exact.minY == 0)
        #expect(abs(exact.maxY - 7.5) < 1e-12)   // the cubic's peak: 3/4 of the control height
        let quad = CGMutablePath()
        quad.move(to: .zero)
        quad.addQuadCurve(to: CGPoint(x: 10, y: 0), control: CGPoint(x: 5, y: 10))
        #expect(abs(quad.boundingBoxOfPath.height - 5) < 1e-12)
        let circle = CGPath(ellipseIn: CGRect(x: -5, y: -5, width: 10, height: 10), transform: nil)
        let b = circle.boundingBoxOfPath
        #expect(abs(b.minX + 5) < 1e-9 && abs(b.maxY - 5) < 1e-9)
        #expect(CGMutablePath().boundingBox.isNull)
    }

    @Test func containsWithBothRules() {
        // A square inside a square, both wound the same way: winding fills the hole, even-odd not.
        let path = CGMutablePath()
        path.addRect(CGRect(x: 0, y: 0, width: 10, height: 10))
        path.addRect(CGRect(x: 3, y: 3, width: 4, height: 4))
        #expect(path.contains(CGPoint(x: 5, y: 5), using: .winding))
        #expect(!path.contains(CGPoint(x: 5, y: 5), using: .evenOdd))
        #expect(path.contains(CGPoint(x: 1, y: 1), using: .evenOdd))
        #expect(!path.contains(CGPoint(x: 11, y: 5)))
        #expect(!path.contains(CGPoint(x: CGFloat.nan, y: 5)))
        let circle = CGPath(ellipseIn: CGRect(x: 0, y: 0, width: 10, height: 10), transform: nil)
        #expect(circle.contains(CGPoint(x: 5, y: 9.9)))
        #expect(!circle.contains(CGPoint(x: 0.5, y: 0.5)))
        #expect(circle.contains(CGPoint(x: 25, y: 5), transform: CGAffineTransform(translationX: 20, y: 0)))
    }

    @Test func arcsFollowAppleOrientation() {
        // Counter-clockwise from 0 to π/2 in y-up space passes through (cos 45°, sin 45°).
        let ccw = CGMutablePath()
        ccw.addArc(center: .zero, radius: 10, startAngle: 0, endAngle: .pi / 2, clockwise: false)
        #expect(ccw.currentPoint.x.magnitude < 1e-9 && abs(ccw.currentPoint.y - 10) < 1e-9)
        #expect(abs(ccw.boundingBoxOfPath.maxY - 10) < 1e-9 && ccw.boundingBoxOfPath.minY > -1e-9)
        // Clockwise the long way round: through negative y.
        let cw = CGMutablePath()
        cw.addArc(center: .zero, radius: 10, startAngle: 0, endAngle: .pi / 2, clockwise: true)
        #expect(abs(cw.boundingBoxOfPath.minY + 10) < 1e-6)
        #expect(abs(cw.boundingBoxOfPath.minX + 10) < 1e-6)
        // A full circle.
        let full = CGMutablePath()
        full.addArc(center: .zero, radius: 1, startAngle: 0, endAngle: 2 * .pi, clockwise: false)
        #expect(abs(full.boundingBoxOfPath.width - 2) < 1e-6)
    }

    @Test func tangentArcRoundsACorner() {
        let path = CGMutablePath()
        path.move(to: CGPoint(x: 0, y: 0))
        path.addArc(tangent1End: CGPoint(x: 10, y: 0), tangent2End: CGPoint(x: 10, y: 10), radius: 2)
        #expect(abs(path.currentPoint.x - 10) < 1e-9 && abs(path.currentPoint.y - 2) < 1e-9)
        #expect(abs(path.boundingBoxOfPath.maxX - 10) < 1e-9)
    }

    @Test func copiesAndTransforms() throws {
        let path = CGMutablePath()
        path.addRect(CGRect(x: 0, y: 0, width: 2, height: 2))
        var t = CGAffineTransform(scaleX: 3, y: 3)
        let scaled = try #require(path.copy(using: &t))
        #expect(scaled.boundingBox == CGRect(x: 0, y: 0, width: 6, height: 6))
        let mutable = try #require(scaled.mutableCopy())
        mutable.addPath(path, transform: CGAffineTransform(translationX: 10, y: 0))
        #expect(mutable.boundingBox == CGRect(x: 0, y: 0, width: 12, height: 6))
        #expect(path.copy() == path)
        var count = 0
        withUnsafeMutablePointer(to: &count) { pointer in
            mutable.apply(info: pointer) { info, _ in info!.assumingMemoryBound(to: Int.self).pointee += 1 }
        }
        #expect(count == 10)
    }

    @Test func strokedOutlineCoversTheStroke() {
        let line = CGMutablePath()
        line.move(to: CGPoint(x: 0, y: 0))
        line.addLine(to: CGPoint(x: 10, y: 0))
        let butt = line.copy(strokingWithWidth: 4, lineCap: .butt, lineJoin: .miter, miterLimit: 10)
        #expect(butt.boundingBoxOfPath == CGRect(x: 0, y: -2, width: 10, height: 4))
        #expect(butt.contains(CGPoint(x: 5, y: 1.9)) && !butt.contains(CGPoint(x: 5, y: 2.1)))
        let square = line.copy(strokingWithWidth: 4, lineCap: .square, lineJoin: .miter, miterLimit: 10)
        #expect(square.boundingBoxOfPath == CGRect(x: -2, y: -2, width: 14, height: 4))
        // A right-angle corner with a miter join fills the outer corner square.
        let corner = CGMutablePath()
        corner.addLines(between: [CGPoint(x: 0, y: 0), CGPoint(x: 10, y: 0), CGPoint(x: 10, y: 10)])
        let mitered = corner.copy(strokingWithWidth: 2, lineCap: .butt, lineJoin: .miter, miterLimit: 10)
        #expect(mitered.contains(CGPoint(x: 10.9, y: -0.9)))
        let bevelled = corner.copy(strokingWithWidth: 2, lineCap: .butt, lineJoin: .bevel, miterLimit: 10)
        #expect(!bevelled.contains(CGPoint(x: 10.9, y: -0.9)))
    }

    @Test func dashesCutThePath() {
        let line = CGMutablePath()
        line.move(to: .zero)
        line.addLine(to: CGPoint(x: 10, y: 0))
        let dashed = line.copy(dashingWithPhase: 0, lengths: [2, 1])
        var moves: [CGPoint] = []
        dashed.applyWithBlock { if $0.pointee.type == .moveToPoint { moves.append($0.pointee.points[0]) } }
        #expect(moves == [CGPoint(x: 0, y: 0), CGPoint(x: 3, y: 0), CGPoint(x: 6, y: 0), CGPoint(x: 9, y: 0)])
        let shifted = line.copy(dashingWithPhase: 1, lengths: [2, 1])
        var first: CGPoint? = nil
        shifted.applyWithBlock { if first == nil { first = $0.pointee.points[0] } }
        #expect(first == .zero)
        #expect(line.copy(dashingWithPhase: 0, lengths: []) == line)
    }

    @Test func roundedRectClampsCorners() {
        let path = CGPath(roundedRect: CGRect(x: 0, y: 0, width: 10, height: 4), cornerWidth: 50, cornerHeight: 50,
                          transform: nil)
        #expect(path.boundingBoxOfPath.width == 10)
        #expect(!path.contains(CGPoint(x: 0.2, y: 0.2)))
        #expect(path.contains(CGPoint(x: 5, y: 2)))
    }
}
