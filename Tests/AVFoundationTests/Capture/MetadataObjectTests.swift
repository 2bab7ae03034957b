// The metadata object classes: Apple's type strings, the values objects carry, and the exception
// Apple raises when a face's absent angle is read.
import AVFoundation
import CoreGraphics
import Foundation
import Testing

@Suite struct MetadataObjectTests {
    @Test func objectTypesAreApplesStrings() {
        let expected: [(AVMetadataObject.ObjectType, String)] = [
            (.qr, "org.iso.QRCode"), (.ean13, "org.gs1.EAN-13"), (.ean8, "org.gs1.EAN-8"), (.upce, "org.gs1.UPC-E"),
            (.code39, "org.iso.Code39"), (.code39Mod43, "org.iso.Code39Mod43"), (.code93, "com.intermec.Code93"),
            (.code128, "org.iso.Code128"), (.pdf417, "org.iso.PDF417"), (.aztec, "org.iso.Aztec"),
            (.interleaved2of5, "org.ansi.Interleaved2of5"), (.itf14, "org.gs1.ITF14"), (.dataMatrix, "org.iso.DataMatrix"),
            (.codabar, "Codabar"), (.gs1DataBar, "org.gs1.GS1DataBar"), (.gs1DataBarExpanded, "org.gs1.GS1DataBarExpanded"),
            (.gs1DataBarLimited, "org.gs1.GS1DataBarLimited"), (.microQR, "org.iso.MicroQR"),
            (.microPDF417, "org.iso.MicroPDF417"), (.face, "face"),
        ]
        for (type, raw) in expected {
            #expect(type.rawValue == raw)
            #expect(AVMetadataObject.ObjectType(rawValue: raw) == type)
        }
        #expect(AVLayerVideoGravity.resizeAspect.rawValue == "AVLayerVideoGravityResizeAspect")
        #expect(AVLayerVideoGravity.resizeAspectFill.rawValue == "AVLayerVideoGravityResizeAspectFill")
        #expect(AVLayerVideoGravity.resize.rawValue == "AVLayerVideoGravityResize")
    }

    @Test func codeObjectCarriesItsValues() {
        let corners = [CGPoint(x: 0.1, y: 0.2), CGPoint(x: 0.1, y: 0.6), CGPoint(x: 0.5, y: 0.6), CGPoint(x: 0.5, y: 0.2)]
        let code = AVMetadataMachineReadableCodeObject(type: .ean13, time: CMTime(value: 3, timescale: 30),
                                                       duration: CMTime(value: 1, timescale: 30),
                                                       bounds: CGRect(x: 0.1, y: 0.2, width: 0.4, height: 0.4),
                                                       corners: corners, stringValue: "0123456789104")
        let object: AVMetadataObject = code
        #expect(object.type == .ean13)
        #expect(object.time == CMTime(value: 3, timescale: 30) && object.duration == CMTime(value: 1, timescale: 30))
        #expect(object.bounds == CGRect(x: 0.1, y: 0.2, width: 0.4, height: 0.4))
        #expect(code.corners == corners && code.stringValue == "0123456789104")
        #expect((object as? AVMetadataMachineReadableCodeObject) === code)
        #expect(code.description.contains("org.gs1.EAN-13") && code.description.contains("0123456789104"))
        let binary = AVMetadataMachineReadableCodeObject(type: .qr, time: .zero, duration: .invalid, bounds: .zero, corners: [],
                                                         stringValue: nil)
        #expect(binary.stringValue == nil)
    }

    @Test func faceObjectAngles() {
        let face = AVMetadataFaceObject(faceID: 3, rollAngle: 90, yawAngle: 315, time: .zero, duration: .invalid,
                                        bounds: CGRect(x: 0.4, y: 0.4, width: 0.2, height: 0.2))
        #expect(face.type == .face && face.faceID == 3)
        #expect(face.hasRollAngle && face.rollAngle == 90)
        #expect(face.hasYawAngle && face.yawAngle == 315)
        let none = AVMetadataFaceObject(faceID: 4, rollAngle: nil, yawAngle: nil, time: .zero, duration: .invalid, bounds: .zero)
        #expect(!none.hasRollAngle && !none.hasYawAngle)
    }

    @Test func readingAnAbsentRollAngleStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let face = AVMetadataFaceObject(faceID: 1, rollAngle: nil, yawAngle: 10, time: .zero, duration: .invalid, bounds: .zero)
            _ = face.rollAngle
        }
        let text = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(text.contains("-[AVMetadataFaceObject rollAngle]"), "\(text)")
    }

    @Test func readingAnAbsentYawAngleStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let face = AVMetadataFaceObject(faceID: 1, rollAngle: 10, yawAngle: nil, time: .zero, duration: .invalid, bounds: .zero)
            _ = face.yawAngle
        }
        let text = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(text.contains("-[AVMetadataFaceObject yawAngle]"), "\(text)")
    }
}
