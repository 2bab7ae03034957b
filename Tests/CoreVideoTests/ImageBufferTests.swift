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
          arguments: [(kCVImageBufferColorPrimaries_ITU_R_709_2 as String, kCVImageBufferTransferFunction_ITU_R_709_2 as String,
                       CGColorSpace.itur_709 as String),
                      (kCVImageBufferColorPrimaries_ITU_R_709_2 as String, kCVImageBufferTransferFunction_sRGB as String,
                       CGColorSpace.sRGB as String),
                      (kCVImageBufferColorPrimaries_ITU_R_2020 as String, kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ as String,
                       CGColorSpace.itur_2020 as String),
                      (kCVImageBufferColorPrimaries_P3_D65 as String, kCVImageBufferTransferFunction_sRGB as String,
                       CGColorSpace.displayP3 as String)])
    func colorSpaceFromAttachments(_ primaries: String, _ transfer: String, _ expected: String) throws {
        let pb = try #require(makeBuffer(8, 8, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange).buffer)
        CVBufferSetAttachment(pb, kCVImageBufferColorPrimariesKey, primaries as CFString, .shouldPropagate)
        CVBufferSetAttachment(pb, kCVImageBufferTransferFunctionKey, transfer as CFString, .shouldPropagate)
        let attachments = try #require(CVBufferCopyAttachments(pb, .shouldPropagate))
        let space = try #require(CVImageBufferCreateColorSpaceFromAttachments(attachments)).takeRetainedValue()
        #expect(space.name as String? == expected)
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
            ((kCVImageBufferCGColorSpaceKey as String), "CGColorSpace"), ((kCVImageBufferCleanApertureKey as String), "CVCleanAperture"),
            ((kCVImageBufferCleanApertureWidthKey as String), "Width"), ((kCVImageBufferCleanApertureHorizontalOffsetKey as String), "HorizontalOffset"),
            ((kCVImageBufferFieldCountKey as String), "CVFieldCount"), ((kCVImageBufferFieldDetailKey as String), "CVFieldDetail"),
            ((kCVImageBufferPixelAspectRatioKey as String), "CVPixelAspectRatio"),
            ((kCVImageBufferPixelAspectRatioHorizontalSpacingKey as String), "HorizontalSpacing"),
            ((kCVImageBufferDisplayDimensionsKey as String), "CVDisplayDimensions"), ((kCVImageBufferGammaLevelKey as String), "CVImageBufferGammaLevel"),
            ((kCVImageBufferYCbCrMatrixKey as String), "CVImageBufferYCbCrMatrix"), ((kCVImageBufferYCbCrMatrix_ITU_R_601_4 as String), "ITU_R_601_4"),
            ((kCVImageBufferYCbCrMatrix_SMPTE_240M_1995 as String), "SMPTE_240M_1995"), ((kCVImageBufferYCbCrMatrix_ITU_R_2020 as String), "ITU_R_2020"),
            ((kCVImageBufferColorPrimariesKey as String), "CVImageBufferColorPrimaries"), ((kCVImageBufferColorPrimaries_EBU_3213 as String), "EBU_3213"),
            ((kCVImageBufferColorPrimaries_SMPTE_C as String), "SMPTE_C"), ((kCVImageBufferColorPrimaries_P3_D65 as String), "P3_D65"),
            ((kCVImageBufferColorPrimaries_DCI_P3 as String), "DCI_P3"),
            ((kCVImageBufferTransferFunctionKey as String), "CVImageBufferTransferFunction"),
            ((kCVImageBufferTransferFunction_UseGamma as String), "UseGamma"), ((kCVImageBufferTransferFunction_sRGB as String), "IEC_sRGB"),
            ((kCVImageBufferTransferFunction_ITU_R_2100_HLG as String), "ITU_R_2100_HLG"),
            ((kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ as String), "SMPTE_ST_2084_PQ"), ((kCVImageBufferTransferFunction_Linear as String), "Linear"),
            ((kCVImageBufferChromaLocationTopFieldKey as String), "CVImageBufferChromaLocationTopField"),
            ((kCVImageBufferChromaLocationBottomFieldKey as String), "CVImageBufferChromaLocationBottomField"),
            ((kCVImageBufferChromaLocation_Left as String), "Left"), ((kCVImageBufferChromaLocation_DV420 as String), "DV 4:2:0"),
        ]
        for (value, string) in expected { #expect(value == string) }
    }
}
