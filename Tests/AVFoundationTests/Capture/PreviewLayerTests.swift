// AVCaptureVideoPreviewLayer's geometry on a session with the 640×480 test pattern camera: the
// A2 mapping (aspect fill in 1280×720), letterboxing with aspect fit, point conversions that
// undo each other, CALayer-style frame and bounds, metadata objects moved into the layer.
@testable import AVFoundation
import Foundation
import Testing

extension CaptureTests {
    @Suite("AVCaptureVideoPreviewLayer")
    struct PreviewLayerTests {
        func vgaSession() throws -> AVCaptureSession {
            let session = AVCaptureSession()
            session.beginConfiguration()
            session.addInput(try AVCaptureDeviceInput(device: try CaptureCameras.vgaCamera()))
            session.sessionPreset = .vga640x480
            session.commitConfiguration()
            return session
        }

        @Test func defaultsAndLayerGeometry() throws {
            let layer = AVCaptureVideoPreviewLayer()
            #expect(layer.session == nil && layer.connection == nil)
            #expect(layer.videoGravity == .resizeAspect)
            #expect(layer.frame == .zero && layer.bounds == .zero)
            layer.frame = CGRect(x: 10, y: 20, width: 300, height: 200)
            #expect(layer.bounds == CGRect(x: 0, y: 0, width: 300, height: 200))
            #expect(layer.position == CGPoint(x: 160, y: 120))
            layer.bounds = CGRect(x: 0, y: 0, width: 100, height: 100)
            #expect(layer.frame == CGRect(x: 110, y: 70, width: 100, height: 100))
            let session = try vgaSession()
            #expect(AVCaptureVideoPreviewLayer(session: session).session === session)
            #expect(AVCaptureVideoPreviewLayer(sessionWithNoConnection: session).session === session)
        }

        /// A2: 640×480 aspect-fill in 1280×720 maps (0.25, 0.25, 0.5, 0.5) to (320, 120, 640, 480).
        @Test func aspectFillMapsMetadataRectsLikeApple() throws {
            let layer = AVCaptureVideoPreviewLayer(session: try vgaSession())
            layer.frame = CGRect(x: 0, y: 0, width: 1280, height: 720)
            layer.videoGravity = .resizeAspectFill
            let rect = layer.layerRectConverted(fromMetadataOutputRect: CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5))
            #expect(abs(rect.minX - 320) < 1e-9 && abs(rect.minY - 120) < 1e-9 && abs(rect.width - 640) < 1e-9
                    && abs(rect.height - 480) < 1e-9, "\(rect)")
            let back = layer.metadataOutputRectConverted(fromLayerRect: rect)
            #expect(abs(back.minX - 0.25) < 1e-9 && abs(back.width - 0.5) < 1e-9, "\(back)")
            // The layer's top edge is 120 points into the picture (cropped).
            #expect(abs(layer.captureDevicePointConverted(fromLayerPoint: CGPoint(x: 640, y: 0)).y - 0.125) < 1e-9)
        }

        @Test func aspectFitLetterboxesAndPointsRoundTrip() throws {
            let layer = AVCaptureVideoPreviewLayer(session: try vgaSession())
            layer.frame = CGRect(x: 0, y: 0, width: 1280, height: 720)
            // 4:3 in 16:9: 960×720 centred, bars 160 wide.
            let full = layer.layerRectConverted(fromMetadataOutputRect: CGRect(x: 0, y: 0, width: 1, height: 1))
            #expect(full == CGRect(x: 160, y: 0, width: 960, height: 720), "\(full)")
            for gravity in [AVLayerVideoGravity.resize, .resizeAspect, .resizeAspectFill] {
                layer.videoGravity = gravity
                for p in [CGPoint(x: 0.1, y: 0.9), CGPoint(x: 0.5, y: 0.5), CGPoint(x: 0.73, y: 0.2)] {
                    let q = layer.captureDevicePointConverted(fromLayerPoint: layer.layerPointConverted(fromCaptureDevicePoint: p))
                    #expect(abs(q.x - p.x) < 1e-9 && abs(q.y - p.y) < 1e-9, "\(gravity) \(p) → \(q)")
                }
            }
        }

        @Test func metadataObjectsMoveIntoTheLayer() throws {
            let layer = AVCaptureVideoPreviewLayer(session: try vgaSession())
            layer.frame = CGRect(x: 0, y: 0, width: 640, height: 480)
            let code = AVMetadataMachineReadableCodeObject(
                type: .qr, time: .zero, duration: .invalid, bounds: CGRect(x: 0.25, y: 0.25, width: 0.5, height: 0.5),
                corners: [CGPoint(x: 0.25, y: 0.25), CGPoint(x: 0.25, y: 0.75), CGPoint(x: 0.75, y: 0.75), CGPoint(x: 0.75, y: 0.25)],
                stringValue: "moved")
            let moved = try #require(layer.transformedMetadataObject(for: code) as? AVMetadataMachineReadableCodeObject)
            #expect(moved.bounds == CGRect(x: 160, y: 120, width: 320, height: 240))
            #expect(moved.corners.first == CGPoint(x: 160, y: 120) && moved.stringValue == "moved")
        }
    }
}
