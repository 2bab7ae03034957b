// Preview geometry (pure): where the picture goes in a layer for each gravity, turn and mirror,
// and the conversions between layer points/rects and the capture device's normalised space.
import AVFoundation
import CoreGraphics
import Foundation
import Testing

@Suite struct PreviewGeometryTests {
    static let gravities: [AVLayerVideoGravity] = [.resize, .resizeAspect, .resizeAspectFill]
    static let rotations = [0, 90, 180, 270]

    private func near(_ a: CGPoint, _ b: CGPoint, _ e: CGFloat = 1e-9) -> Bool { abs(a.x - b.x) < e && abs(a.y - b.y) < e }
    private func near(_ a: CGRect, _ b: CGRect, _ e: CGFloat = 1e-9) -> Bool {
        abs(a.minX - b.minX) < e && abs(a.minY - b.minY) < e && abs(a.width - b.width) < e && abs(a.height - b.height) < e
    }

    @Test func aspectFillOf640x480In1280x720() {
        // Scale max(1280/640, 720/480) = 2 → 1280×960, centred: y from −120. Device rect
        // (0.25, 0.25, 0.5, 0.5) = pixels (160, 120, 320, 240) → ×2 → (320, 240, 640, 480) − 120 in y.
        let g = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 1280, height: 720),
                                gravity: .resizeAspectFill)
        #expect(g.videoRect == CGRect(x: 0, y: -120, width: 1280, height: 960))
        #expect(g.layerRect(fromDeviceRect: CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)) == CGRect(x: 320, y: 120, width: 640, height: 480))
        #expect(g.deviceRect(fromLayerRect: CGRect(x: 320, y: 120, width: 640, height: 480)) == CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
        // The layer's top edge is 1/8 into the picture (120 of 960 layer points).
        #expect(near(g.devicePoint(fromLayerPoint: .zero), CGPoint(x: 0, y: 0.125)))
        #expect(g.letterboxBars.isEmpty)
    }

    @Test func resizeAspectLeavesBars() {
        // 640×480 in 1280×720: scale 1.5 → 960×720, bars of 160 left and right.
        let g = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 1280, height: 720),
                                gravity: .resizeAspect)
        #expect(g.videoRect == CGRect(x: 160, y: 0, width: 960, height: 720))
        #expect(g.letterboxBars == [CGRect(x: 0, y: 0, width: 160, height: 720), CGRect(x: 1120, y: 0, width: 160, height: 720)])
        // Portrait (turned 90°): 480×640 shown in 1280×720 → scale 1.125 → 540×720, bars of 370.
        let p = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 1280, height: 720),
                                gravity: .resizeAspect, rotation: 90)
        #expect(p.videoRect == CGRect(x: 370, y: 0, width: 540, height: 720))
        #expect(p.letterboxBars.map(\.width) == [370, 370])
        // A wide source in a tall layer: bars top and bottom.
        let t = PreviewGeometry(sourceSize: CGSize(width: 1920, height: 1080), layerBounds: CGRect(x: 0, y: 0, width: 360, height: 640),
                                gravity: .resizeAspect)
        #expect(t.videoRect == CGRect(x: 0, y: 218.75, width: 360, height: 202.5))
        #expect(t.letterboxBars == [CGRect(x: 0, y: 0, width: 360, height: 218.75), CGRect(x: 0, y: 421.25, width: 360, height: 218.75)])
        // A point in a bar is outside the device's [0, 1] range.
        #expect(g.devicePoint(fromLayerPoint: CGPoint(x: 80, y: 360)).x < 0)
    }

    @Test func resizeStretches() {
        let g = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 10, y: 20, width: 1280, height: 720),
                                gravity: .resize)
        #expect(g.videoRect == CGRect(x: 10, y: 20, width: 1280, height: 720))
        #expect(g.layerPoint(fromDevicePoint: CGPoint(x: 0.5, y: 0.5)) == CGPoint(x: 650, y: 380))
        #expect(g.letterboxBars.isEmpty)
    }

    @Test func turnsAndMirrorsMoveTheCorners() {
        let layer = CGRect(x: 0, y: 0, width: 480, height: 640)
        // Portrait: the sensor's top-left (0, 0) is shown at the layer's top-right.
        let p = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: layer, gravity: .resize, rotation: 90)
        #expect(p.layerPoint(fromDevicePoint: .zero) == CGPoint(x: 480, y: 0))
        #expect(p.layerPoint(fromDevicePoint: CGPoint(x: 1, y: 0)) == CGPoint(x: 480, y: 640))
        // Tapping the layer's top-left focuses on the sensor's bottom-left (0, 1).
        #expect(p.devicePoint(fromLayerPoint: .zero) == CGPoint(x: 0, y: 1))
        // Mirrored portrait (a front camera): the sensor's top-left is at the layer's top-left.
        let m = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: layer, gravity: .resize, rotation: 90,
                                mirrored: true)
        #expect(m.layerPoint(fromDevicePoint: .zero) == CGPoint(x: 0, y: 0))
        // Upside down.
        let u = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 640, height: 480),
                                rotation: 180)
        #expect(u.layerPoint(fromDevicePoint: CGPoint(x: 0.25, y: 0)) == CGPoint(x: 480, y: 480))
        #expect(u.layerPoint(fromDevicePoint: CGPoint(x: 0, y: 0.25)) == CGPoint(x: 640, y: 360))
        #expect(PreviewGeometry.quarterTurn(-90) == 270 && PreviewGeometry.quarterTurn(450) == 90 && PreviewGeometry.quarterTurn(44) == 0)
    }

    @Test(arguments: gravities, rotations)
    func roundTripsAreIdentity(gravity: AVLayerVideoGravity, rotation: Int) {
        for mirrored in [false, true] {
            for layer in [CGRect(x: 0, y: 0, width: 1280, height: 720), CGRect(x: 13, y: -7, width: 375, height: 812)] {
                let g = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: layer, gravity: gravity,
                                        rotation: rotation, mirrored: mirrored)
                for p in [CGPoint(x: 0, y: 0), CGPoint(x: 1, y: 1), CGPoint(x: 0.3, y: 0.8), CGPoint(x: 0.9, y: 0.1)] {
                    let there = g.layerPoint(fromDevicePoint: p)
                    #expect(near(g.devicePoint(fromLayerPoint: there), p), "\(gravity) \(rotation) \(mirrored) \(p)")
                }
                for q in [CGPoint(x: layer.midX, y: layer.midY), CGPoint(x: layer.minX + 5, y: layer.maxY - 9)] {
                    #expect(near(g.layerPoint(fromDevicePoint: g.devicePoint(fromLayerPoint: q)), q, 1e-9))
                }
                let r = CGRect(x: 0.1, y: 0.2, width: 0.3, height: 0.4)
                #expect(near(g.deviceRect(fromLayerRect: g.layerRect(fromDeviceRect: r)), r), "\(gravity) \(rotation) \(mirrored)")
                // The whole picture maps onto the video rect.
                #expect(near(g.layerRect(fromDeviceRect: CGRect(x: 0, y: 0, width: 1, height: 1)), g.videoRect))
            }
        }
    }

    @Test func drawingForARendererThatTurnsAboutTheCentre() {
        let g = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 480, height: 640),
                                gravity: .resizeAspect, rotation: 90, mirrored: true)
        let d = g.drawing
        // Shown 480×640 fills the layer; the unrotated 640×480 rect shares its centre.
        #expect(d.destination == CGRect(x: -80, y: 80, width: 640, height: 480))
        #expect(d.angle == 270 && d.flipHorizontally)
        let plain = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 640, height: 480))
        #expect(plain.drawing.destination == CGRect(x: 0, y: 0, width: 640, height: 480) && plain.drawing.angle == 0)
    }

    @Test func degenerateSizesDoNotTrap() {
        let g = PreviewGeometry(sourceSize: .zero, layerBounds: CGRect(x: 0, y: 0, width: 100, height: 100))
        #expect(g.videoRect.width == 0)
        #expect(g.devicePoint(fromLayerPoint: CGPoint(x: 5, y: 5)) == .zero)
        let e = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: .zero)
        #expect(e.videoRect.isEmpty)
    }

    @Test func transformedMetadataObjectsMoveIntoTheLayer() throws {
        let g = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 1280, height: 720),
                                gravity: .resizeAspectFill)
        let code = AVMetadataMachineReadableCodeObject(
            type: .qr, time: CMTime(value: 1, timescale: 30), duration: CMTime(value: 1, timescale: 30),
            bounds: CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5),
            corners: [CGPoint(x: 0.25, y: 0.25), CGPoint(x: 0.25, y: 0.75), CGPoint(x: 0.75, y: 0.75), CGPoint(x: 0.75, y: 0.25)],
            stringValue: "payload")
        let moved = try #require(g.layerObject(for: code) as? AVMetadataMachineReadableCodeObject)
        #expect(moved.bounds == CGRect(x: 320, y: 120, width: 640, height: 480))
        #expect(moved.corners == [CGPoint(x: 320, y: 120), CGPoint(x: 320, y: 600), CGPoint(x: 960, y: 600), CGPoint(x: 960, y: 120)])
        #expect(moved.stringValue == "payload" && moved.type == .qr && moved.time == code.time)
        // A face turns its roll with the picture.
        let face = AVMetadataFaceObject(faceID: 7, rollAngle: 30, yawAngle: nil, time: .zero, duration: .invalid,
                                        bounds: CGRect(x: 0, y: 0, width: 0.5, height: 0.5))
        let turned = PreviewGeometry(sourceSize: CGSize(width: 640, height: 480), layerBounds: CGRect(x: 0, y: 0, width: 480, height: 640),
                                     gravity: .resize, rotation: 90)
        let movedFace = try #require(turned.layerObject(for: face) as? AVMetadataFaceObject)
        #expect(movedFace.faceID == 7 && movedFace.rollAngle == 120 && !movedFace.hasYawAngle)
        #expect(movedFace.bounds == CGRect(x: 240, y: 0, width: 240, height: 320))
    }
}
