import Testing
import CoreVideo

@Suite("CVImageBuffer")
struct ImageBufferTests {
    @Test("encoded, display size and clean rect default to the whole image; not flipped")
    func defaults() throws {
        let pb = try #require(makeBuffer(720, 480, kCVPixelFormatType_422YpCbCr8).buffer)
        #expect(CVImageBufferGetEncodedSize(pb) == CGSize(width: 720, height: 480))
        #expect(CVImageBufferGetDisplaySize(pb) == CGSize(width: 720, height: 480))
        #expect(CVImageBufferGetCleanRect(pb) == CGRect(x: 0, y: 0, width: 720, height: 480))
        #expect(CVImageBufferIsFlipped(pb) == false)
        #expect(CVImageBufferGetColorSpace(pb) == nil)
    }

    @Test("the clean aperture attachment gives the clean rect, centred and offset")
    func cleanAperture() throws {
        let pb = try #require(makeBuffer(720, 480, kCVPixelFormatType_422YpCbCr8).buffer)
        let aperture: NSDictionary = [kCVImageBufferCleanApertureWidthKey: 704, kCVImageBufferCleanApertureHeightKey: 480,
                                      kCVImageBufferCleanApertureHorizontalOffsetKey: 2.0,
                                      kCVImageBufferCleanApertureVerticalOffsetKey: 0]
        CVBufferSetAttachment(pb, kCVImageBufferCleanApertureKey, aperture, .shouldPropagate)
        #expect(CVImageBufferGetCleanRect(pb) == CGRect(x: 10, y: 0, width: 704, height: 480))
        #expect(CVImageBufferGetEncodedSize(pb) == CGSize(width: 720, height: 480))
        #expect(CVImageBufferGetDisplaySize(pb) == CGSize(width: 704, height: 480))
    }

    @Test("the pixel aspect ratio scales the display width")
    func pixelAspectRatio() throws {
        let pb = try #require(makeBuffer(1440, 1080, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange).buffer)
        CVBufferSetAttachment(pb, kCVImageBufferPixelAspectRatioKey,
                              [kCVImageBufferPixelAspectRatioHorizontalSpacingKey: 4,
                               kCVImageBufferPixelAspectRatioVerticalSpacingKey: 3] as NSDictionary, .shouldPropagate)
        #expect(CVImageBufferGetDisplaySize(pb) == CGSize(width: 1920, height: 1080))
    }

    @Test("an attached CGColorSpace is returned by CVImageBufferGetColorSpace")
    func attachedColorSpace() throws {
        let pb = try #require(makeBuffer(8, 8, kCVPixelFormatType_32BGRA).buffer)
        let space = try #require(CGColorSpace(name: CGColorSpace.displayP3))
        CVBufferSetAttachment(pb, kCVImageBufferCGColorSpaceKey, space, .shouldPropagate)
        #expect(same(CVImageBufferGetColorSpace(pb)?.takeUnretainedValue(), space))
    }

    @Test("colour spaces are made from primaries and transfer function attachments",
          arguments: [(kCVImageBufferColorPrimaries_ITU_R_709_2, kCVImageBufferTransferFunction_ITU_R_709_2, CGColorSpace.itur_709),
                      (kCVImageBufferColorPrimaries_ITU_R_709_2, kCVImageBufferTransferFunction_sRGB, CGColorSpace.sRGB),
                      (kCVImageBufferColorPrimaries_ITU_R_2020, kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ, CGColorSpace.itur_2020),
                      (kCVImageBufferColorPrimaries_P3_D65, kCVImageBufferTransferFunction_sRGB, CGColorSpace.displayP3)])
    func colorSpaceFromAttachments(_ primaries: String, _ transfer: String, _ expected: String) throws {
        let pb = try #require(makeBuffer(8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange).buffer)
        CVBufferSetAttachment(pb, kCVImageBufferColorPrimariesKey, primaries, .shouldPropagate)
        CVBufferSetAttachment(pb, kCVImageBufferTransferFunctionKey, transfer, .shouldPropagate)
        let attachments = try #require(CVBufferCopyAttachments(pb, .shouldPropagate))
        let space = try #require(CVImageBufferCreateColorSpaceFromAttachments(attachments)).takeRetainedValue()
        #expect(space.name == expected)
    }

    @Test("no colour information, no colour space")
    func noColorSpace() {
        #expect(CVImageBufferCreateColorSpaceFromAttachments(NSDictionary()) == nil)
        #expect(CVImageBufferCreateColorSpaceFromAttachments([kCVImageBufferColorPrimariesKey: "Unknown"] as NSDictionary) == nil)
    }

    @Test("full range is known from the pixel format")
    func fullRange() throws {
        #expect(try #require(makeBuffer(8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange).buffer).isFullRangeYCbCr == true)
        #expect(try #require(makeBuffer(8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange).buffer).isFullRangeYCbCr == false)
        #expect(try #require(makeBuffer(8, 8, kCVPixelFormatType_32BGRA).buffer).isFullRangeYCbCr == nil)
    }

    @Test("image buffer keys and values have Apple's strings")
    func keyStrings() {
        let expected: [(String, String)] = [
            (kCVImageBufferCGColorSpaceKey, "CGColorSpace"), (kCVImageBufferCleanApertureKey, "CVCleanAperture"),
            (kCVImageBufferCleanApertureWidthKey, "Width"), (kCVImageBufferCleanApertureHorizontalOffsetKey, "HorizontalOffset"),
            (kCVImageBufferFieldCountKey, "CVFieldCount"), (kCVImageBufferFieldDetailKey, "CVFieldDetail"),
            (kCVImageBufferPixelAspectRatioKey, "CVPixelAspectRatio"),
            (kCVImageBufferPixelAspectRatioHorizontalSpacingKey, "HorizontalSpacing"),
            (kCVImageBufferDisplayDimensionsKey, "CVDisplayDimensions"), (kCVImageBufferGammaLevelKey, "CVImageBufferGammaLevel"),
            (kCVImageBufferYCbCrMatrixKey, "CVImageBufferYCbCrMatrix"), (kCVImageBufferYCbCrMatrix_ITU_R_601_4, "ITU_R_601_4"),
            (kCVImageBufferYCbCrMatrix_SMPTE_240M_1995, "SMPTE_240M_1995"), (kCVImageBufferYCbCrMatrix_ITU_R_2020, "ITU_R_2020"),
            (kCVImageBufferColorPrimariesKey, "CVImageBufferColorPrimaries"), (kCVImageBufferColorPrimaries_EBU_3213, "EBU_3213"),
            (kCVImageBufferColorPrimaries_SMPTE_C, "SMPTE_C"), (kCVImageBufferColorPrimaries_P3_D65, "P3_D65"),
            (kCVImageBufferColorPrimaries_DCI_P3, "DCI_P3"),
            (kCVImageBufferTransferFunctionKey, "CVImageBufferTransferFunction"),
            (kCVImageBufferTransferFunction_UseGamma, "UseGamma"), (kCVImageBufferTransferFunction_sRGB, "IEC_sRGB"),
            (kCVImageBufferTransferFunction_ITU_R_2100_HLG, "ITU_R_2100_HLG"),
            (kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ, "SMPTE_ST_2084_PQ"), (kCVImageBufferTransferFunction_Linear, "Linear"),
            (kCVImageBufferChromaLocationTopFieldKey, "CVImageBufferChromaLocationTopField"),
            (kCVImageBufferChromaLocationBottomFieldKey, "CVImageBufferChromaLocationBottomField"),
            (kCVImageBufferChromaLocation_Left, "Left"), (kCVImageBufferChromaLocation_DV420, "DV 4:2:0"),
        ]
        for (value, string) in expected { #expect(value == string) }
    }
}
