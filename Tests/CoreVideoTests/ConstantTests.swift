import Testing
import CoreVideo

@Suite("Core Video constants")
struct ConstantTests {
    @Test("CVReturn codes have Apple's values")
    func returnCodes() {
        let codes: [(CVReturn, CVReturn)] = [
            (kCVReturnSuccess, 0), (kCVReturnFirst, -6660), (kCVReturnError, -6660), (kCVReturnInvalidArgument, -6661),
            (kCVReturnAllocationFailed, -6662), (kCVReturnUnsupported, -6663), (kCVReturnInvalidDisplay, -6670),
            (kCVReturnDisplayLinkAlreadyRunning, -6671), (kCVReturnDisplayLinkNotRunning, -6672),
            (kCVReturnDisplayLinkCallbacksNotSet, -6673), (kCVReturnInvalidPixelFormat, -6680), (kCVReturnInvalidSize, -6681),
            (kCVReturnInvalidPixelBufferAttributes, -6682), (kCVReturnPixelBufferNotOpenGLCompatible, -6683),
            (kCVReturnPixelBufferNotMetalCompatible, -6684), (kCVReturnWouldExceedAllocationThreshold, -6689),
            (kCVReturnPoolAllocationFailed, -6690), (kCVReturnInvalidPoolAttributes, -6691), (kCVReturnRetry, -6692),
            (kCVReturnLast, -6699),
        ]
        for (code, value) in codes { #expect(code == value) }
    }

    @Test("pixel format types are Apple's four-character codes")
    func pixelFormats() {
        let formats: [(OSType, StaticString)] = [
            (kCVPixelFormatType_32BGRA, "BGRA"), (kCVPixelFormatType_32ABGR, "ABGR"), (kCVPixelFormatType_32RGBA, "RGBA"),
            (kCVPixelFormatType_24BGR, "24BG"), (kCVPixelFormatType_64ARGB, "b64a"), (kCVPixelFormatType_422YpCbCr8, "2vuy"),
            (kCVPixelFormatType_422YpCbCr8_yuvs, "yuvs"), (kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, "420v"),
            (kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, "420f"), (kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange, "422v"),
            (kCVPixelFormatType_422YpCbCr8BiPlanarFullRange, "422f"), (kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, "x420"),
            (kCVPixelFormatType_420YpCbCr10BiPlanarFullRange, "xf20"), (kCVPixelFormatType_420YpCbCr8Planar, "y420"),
            (kCVPixelFormatType_420YpCbCr8PlanarFullRange, "f420"), (kCVPixelFormatType_OneComponent8, "L008"),
            (kCVPixelFormatType_16LE565, "L565"), (kCVPixelFormatType_30RGB, "R10k"), (kCVPixelFormatType_422YpCbCr10, "v210"),
            (kCVPixelFormatType_64RGBAHalf, "RGhA"), (kCVPixelFormatType_128RGBAFloat, "RGfA"),
            (kCVPixelFormatType_DepthFloat32, "fdep"), (kCVPixelFormatType_Lossless_32BGRA, "&BGA"),
            (kCVPixelFormatType_Lossy_420YpCbCr8BiPlanarFullRange, "-8f0"),
        ]
        for (value, code) in formats { #expect(value == OSType(fourCC: code), "\(code)") }
        #expect(kCVPixelFormatType_32ARGB == 0x20)
        #expect(kCVPixelFormatType_24RGB == 0x18)
        #expect(kCVPixelFormatType_16BE555 == 0x10)
        #expect(kCVPixelFormatType_1Monochrome == 1)
        #expect(kCVPixelFormatType_8IndexedGray_WhiteIsZero == 0x28)
    }

    @Test("pixel buffer attribute keys have Apple's strings")
    func attributeKeys() {
        let keys: [(String, String)] = [
            ((kCVPixelBufferPixelFormatTypeKey as String), "PixelFormatType"), ((kCVPixelBufferMemoryAllocatorKey as String), "MemoryAllocator"),
            ((kCVPixelBufferWidthKey as String), "Width"), ((kCVPixelBufferHeightKey as String), "Height"),
            ((kCVPixelBufferExtendedPixelsLeftKey as String), "ExtendedPixelsLeft"), ((kCVPixelBufferExtendedPixelsTopKey as String), "ExtendedPixelsTop"),
            ((kCVPixelBufferExtendedPixelsRightKey as String), "ExtendedPixelsRight"),
            ((kCVPixelBufferExtendedPixelsBottomKey as String), "ExtendedPixelsBottom"),
            ((kCVPixelBufferBytesPerRowAlignmentKey as String), "BytesPerRowAlignment"),
            ((kCVPixelBufferCGBitmapContextCompatibilityKey as String), "CGBitmapContextCompatibility"),
            ((kCVPixelBufferCGImageCompatibilityKey as String), "CGImageCompatibility"),
            ((kCVPixelBufferOpenGLCompatibilityKey as String), "OpenGLCompatibility"), ((kCVPixelBufferPlaneAlignmentKey as String), "PlaneAlignment"),
            ((kCVPixelBufferIOSurfacePropertiesKey as String), "IOSurfaceProperties"),
            ((kCVPixelBufferOpenGLESCompatibilityKey as String), "OpenGLESCompatibility"),
            ((kCVPixelBufferMetalCompatibilityKey as String), "MetalCompatibility"),
        ]
        for (key, string) in keys { #expect(key == string) }
    }
}
