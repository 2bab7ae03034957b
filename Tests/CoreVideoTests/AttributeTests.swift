import Testing
import CoreVideo

@Suite("Pixel buffer attributes")
struct AttributeTests {
    /// The forms a CFNumber takes in ported Swift code.
    enum NumberForm: CaseIterable, Sendable {
        case int, int32, uint32, double, nsNumber
        func value(_ n: Int) -> Any {
            switch self {
            case .int: return n
            case .int32: return Int32(n)
            case .uint32: return UInt32(n)
            case .double: return Double(n)
            case .nsNumber: return NSNumber(value: n)
            }
        }
    }

    @Test("BytesPerRowAlignment is honoured whatever number type carries it", arguments: NumberForm.allCases)
    func rowAlignment(_ form: NumberForm) throws {
        let buffer = try #require(makeBuffer(10, 3, kCVPixelFormatType_32BGRA,
                                             [kCVPixelBufferBytesPerRowAlignmentKey as String: form.value(256)]).buffer)
        #expect(CVPixelBufferGetBytesPerRow(buffer) % 256 == 0)
        #expect(Int(bitPattern: CVPixelBufferGetBaseAddress(buffer)) % 16 == 0)
    }

    @Test("BytesPerRowAlignment applies to every plane; PlaneAlignment to plane starts")
    func planeAlignment() throws {
        let buffer = try #require(makeBuffer(30, 20, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                             [(kCVPixelBufferBytesPerRowAlignmentKey as String): 128,
                                              (kCVPixelBufferPlaneAlignmentKey as String): 4096]).buffer)
        for i in 0..<2 {
            #expect(CVPixelBufferGetBytesPerRowOfPlane(buffer, i) % 128 == 0)
            #expect(Int(bitPattern: CVPixelBufferGetBaseAddressOfPlane(buffer, i)) % 4096 == 0)
        }
    }

    @Test("attributes as an NSDictionary with NSString keys work the same")
    func nsDictionaryAttributes() throws {
        let attributes = NSMutableDictionary()
        attributes[NSString(string: (kCVPixelBufferBytesPerRowAlignmentKey as String))] = NSNumber(value: 512)
        attributes[NSString(string: (kCVPixelBufferIOSurfacePropertiesKey as String))] = NSDictionary()
        var pb: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 7, 7, kCVPixelFormatType_OneComponent8, attributes, &pb) == kCVReturnSuccess)
        #expect(CVPixelBufferGetBytesPerRow(try #require(pb)) % 512 == 0)
    }

    @Test("the width, height and format arguments override the attribute keys")
    func argumentsOverride() throws {
        let buffer = try #require(makeBuffer(12, 6, kCVPixelFormatType_32BGRA,
                                             [(kCVPixelBufferWidthKey as String): 999, (kCVPixelBufferHeightKey as String): 999,
                                              (kCVPixelBufferPixelFormatTypeKey as String): [kCVPixelFormatType_24RGB]]).buffer)
        #expect(CVPixelBufferGetWidth(buffer) == 12)
        #expect(CVPixelBufferGetHeight(buffer) == 6)
        #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_32BGRA)
    }

    @Test("extended pixels are reported and padded around the image")
    func extendedPixels() throws {
        let buffer = try #require(makeBuffer(32, 16, kCVPixelFormatType_32BGRA,
                                             [(kCVPixelBufferExtendedPixelsLeftKey as String): 8, (kCVPixelBufferExtendedPixelsRightKey as String): 8,
                                              (kCVPixelBufferExtendedPixelsTopKey as String): Int32(4),
                                              (kCVPixelBufferExtendedPixelsBottomKey as String): NSNumber(value: 4)]).buffer)
        var l = -1, r = -1, t = -1, b = -1
        CVPixelBufferGetExtendedPixels(buffer, &l, &r, &t, &b)
        #expect(l == 8 && r == 8 && t == 4 && b == 4)
        CVPixelBufferGetExtendedPixels(buffer, nil, nil, nil, nil)
        #expect(CVPixelBufferGetWidth(buffer) == 32)
        #expect(CVPixelBufferGetBytesPerRow(buffer) >= 48 * 4)
        #expect(CVPixelBufferGetDataSize(buffer) >= CVPixelBufferGetBytesPerRow(buffer) * 24)
    }

    @Test("CVPixelBufferFillExtendedPixels replicates edge pixels into the padding")
    func fillExtendedPixelsPacked() throws {
        let buffer = try #require(makeBuffer(4, 3, kCVPixelFormatType_32BGRA,
                                             [(kCVPixelBufferExtendedPixelsLeftKey as String): 2, (kCVPixelBufferExtendedPixelsRightKey as String): 3,
                                              (kCVPixelBufferExtendedPixelsTopKey as String): 2, (kCVPixelBufferExtendedPixelsBottomKey as String): 1]).buffer)
        _ = CVPixelBufferLockBaseAddress(buffer, [])
        let base = try #require(CVPixelBufferGetBaseAddress(buffer))
        let bpr = CVPixelBufferGetBytesPerRow(buffer)
        func pixel(_ x: Int, _ y: Int) -> UInt32 { base.load(fromByteOffset: y * bpr + x * 4, as: UInt32.self) }
        for y in 0..<3 { for x in 0..<4 { base.storeBytes(of: UInt32(y * 10 + x + 1), toByteOffset: y * bpr + x * 4, as: UInt32.self) } }
        #expect(CVPixelBufferFillExtendedPixels(buffer) == kCVReturnSuccess)
        #expect(pixel(-1, 0) == 1 && pixel(-2, 1) == 11)
        #expect(pixel(4, 2) == 24 && pixel(6, 0) == 4)
        #expect(pixel(-2, -2) == 1)      // top-left corner
        #expect(pixel(1, -1) == 2)       // above the first row
        #expect(pixel(6, 3) == 24)       // bottom-right corner
        #expect(pixel(2, 1) == 13)       // the image itself is untouched
        _ = CVPixelBufferUnlockBaseAddress(buffer, [])
    }

    @Test("CVPixelBufferFillExtendedPixels pads each plane of a bi-planar buffer")
    func fillExtendedPixelsPlanar() throws {
        let buffer = try #require(makeBuffer(8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                             [(kCVPixelBufferExtendedPixelsLeftKey as String): 4, (kCVPixelBufferExtendedPixelsRightKey as String): 4,
                                              (kCVPixelBufferExtendedPixelsTopKey as String): 2, (kCVPixelBufferExtendedPixelsBottomKey as String): 2]).buffer)
        let y = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
        let c = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
        y.storeBytes(of: 77, as: UInt8.self)
        c.storeBytes(of: 0x4050, as: UInt16.self)
        #expect(CVPixelBufferFillExtendedPixels(buffer) == kCVReturnSuccess)
        let yRow = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
        let cRow = CVPixelBufferGetBytesPerRowOfPlane(buffer, 1)
        #expect((y - 4).load(as: UInt8.self) == 77)
        #expect((y - 2 * yRow - 4).load(as: UInt8.self) == 77)
        #expect((c - 4).load(as: UInt16.self) == 0x4050)
        #expect((c - cRow - 4).load(as: UInt16.self) == 0x4050)
    }

    @Test("malformed attributes fail with kCVReturnInvalidPixelBufferAttributes", arguments: 0..<3)
    func malformed(_ index: Int) {
        let attributes: [[String: Any]] = [[(kCVPixelBufferExtendedPixelsLeftKey as String): -4],
                                           [(kCVPixelBufferBytesPerRowAlignmentKey as String): "wide"],
                                           [(kCVPixelBufferPixelFormatTypeKey as String): "BGRA"]]
        let (status, buffer) = makeBuffer(8, 8, kCVPixelFormatType_32BGRA, attributes[index])
        #expect(status == kCVReturnInvalidPixelBufferAttributes)
        #expect(buffer == nil)
    }

    @Test("compatibility keys are accepted")
    func compatibilityKeys() throws {
        let attributes: [String: Any] = [kCVPixelBufferCGImageCompatibilityKey as String: true,
                                         kCVPixelBufferCGBitmapContextCompatibilityKey as String: kCFBooleanTrue as Any,
                                         kCVPixelBufferMetalCompatibilityKey as String: true,
                                         kCVPixelBufferOpenGLCompatibilityKey as String: false,
                                         kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any]()]
        #expect(makeBuffer(16, 16, kCVPixelFormatType_32BGRA, attributes).status == kCVReturnSuccess)
    }
}
