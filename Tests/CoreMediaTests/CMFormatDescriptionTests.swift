import Testing
@testable import CoreVideo
import CoreMedia

// Parameter sets produced at test-writing time by
// `ffmpeg -f lavfi -i testsrc=size=66x50 -frames:v 1 -pix_fmt yuv420p -c:v libx264 -profile:v main`
// (coded 80×64 macroblocks, cropped to 66×50) and the same with the default yuv444p (High 4:4:4)
// and with libx265.
let mainSPS: [UInt8] = [0x67, 0x4d, 0x40, 0x0a, 0xec, 0xa2, 0x93, 0xc4, 0x44, 0x60, 0x22, 0x00, 0x00, 0x03, 0x00, 0x02,
                        0x00, 0x00, 0x03, 0x00, 0x78, 0x1e, 0x24, 0x4b, 0x2c]
let mainPPS: [UInt8] = [0x68, 0xeb, 0xe3, 0xcb, 0x20]
let high444SPS: [UInt8] = [0x67, 0xf4, 0x00, 0x0a, 0x91, 0x9b, 0x28, 0xa4, 0xf1, 0xf1, 0xf8, 0x08, 0x80, 0x00, 0x00, 0x03,
                           0x00, 0x80, 0x00, 0x00, 0x1e, 0x07, 0x89, 0x12, 0xcb]
let high444PPS: [UInt8] = [0x68, 0xeb, 0xe3, 0xc4, 0x48, 0x44]
let hevcVPS: [UInt8] = [0x40, 0x01, 0x0c, 0x01, 0xff, 0xff, 0x04, 0x08, 0x00, 0x00, 0x03, 0x00, 0x9e, 0x08, 0x00, 0x00,
                        0x03, 0x00, 0x00, 0x1e, 0x95, 0x98, 0x09]
let hevcSPS: [UInt8] = [0x42, 0x01, 0x01, 0x04, 0x08, 0x00, 0x00, 0x03, 0x00, 0x9e, 0x08, 0x00, 0x00, 0x03, 0x00, 0x00,
                        0x1e, 0x90, 0x04, 0x90, 0x73, 0x9e, 0x7c, 0xb2, 0xb3, 0x5c, 0x99, 0x5e, 0x02, 0xdc, 0x08, 0x08,
                        0x00, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x01, 0xe0, 0x80]
let hevcPPS: [UInt8] = [0x44, 0x01, 0xc1, 0x73, 0x18, 0x31, 0x18, 0x90]

func makeBGRA(_ w: Int = 64, _ h: Int = 48) -> CVPixelBuffer {
    CVBuffer(storage: CVPixelStorage.allocate(width: w, height: h, layout: .layout(for: OSType(fourCC: "BGRA"))!)!)
}

private func h264(_ sets: [[UInt8]], nal: Int32 = 4) -> (OSStatus, CMFormatDescription?) {
    var out: CMFormatDescription?
    let buffers = sets.map { s -> UnsafeMutablePointer<UInt8> in
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: s.count)
        p.initialize(from: s, count: s.count)
        return p
    }
    defer { buffers.forEach { $0.deallocate() } }
    let pointers = buffers.map { UnsafePointer($0) }
    let sizes = sets.map(\.count)
    let status = CMVideoFormatDescriptionCreateFromH264ParameterSets(allocator: kCFAllocatorDefault, parameterSetCount: sets.count,
                                                                     parameterSetPointers: pointers, parameterSetSizes: sizes,
                                                                     nalUnitHeaderLength: nal, formatDescriptionOut: &out)
    return (status, out)
}

@Suite struct CMFormatDescriptionTests {
    @Test func mediaTypeAndCodecConstants() {
        #expect(kCMMediaType_Video.fourCCString == "vide")
        #expect(kCMMediaType_Audio.fourCCString == "soun")
        #expect(kCMMediaType_ClosedCaption.fourCCString == "clcp")
        #expect(kCMVideoCodecType_H264.fourCCString == "avc1")
        #expect(kCMVideoCodecType_HEVC.fourCCString == "hvc1")
        #expect(kCMVideoCodecType_AppleProRes4444XQ.fourCCString == "ap4x")
        #expect(kCMVideoCodecType_AppleProRes422Proxy.fourCCString == "apco")
        #expect(kCMVideoCodecType_AV1.fourCCString == "av01")
        #expect(kCMPixelFormat_32ARGB == 32)
        #expect(kCMFormatDescriptionError_InvalidParameter == -12710)
        #expect(kCMFormatDescriptionError_ValueNotAvailable == -12718)
    }

    @Test func extensionKeyStrings() {
        #expect(kCMFormatDescriptionExtension_CleanAperture == "CVCleanAperture")
        #expect(kCMFormatDescriptionExtension_PixelAspectRatio == "CVPixelAspectRatio")
        #expect(kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms == "SampleDescriptionExtensionAtoms")
        #expect(kCMFormatDescriptionExtension_ColorPrimaries == "CVImageBufferColorPrimaries")
        #expect(kCMFormatDescriptionColorPrimaries_ITU_R_709_2 == "ITU_R_709_2")
        #expect(kCMFormatDescriptionTransferFunction_sRGB == "IEC_sRGB")
    }

    @Test func genericCreateAndGetters() throws {
        var fd: CMFormatDescription?
        let ext: NSDictionary = [kCMFormatDescriptionExtension_FormatName: "Test", kCMFormatDescriptionExtension_Depth: 24]
        #expect(CMFormatDescriptionCreate(allocator: nil, mediaType: kCMMediaType_Text, mediaSubType: FourCharCode(fourCC: "tx3g"),
                                          extensions: ext, formatDescriptionOut: &fd) == noErr)
        let d = try #require(fd)
        #expect(CMFormatDescriptionGetMediaType(d) == kCMMediaType_Text)
        #expect(CMFormatDescriptionGetMediaSubType(d).fourCCString == "tx3g")
        #expect(CMFormatDescriptionGetExtension(d, extensionKey: kCMFormatDescriptionExtension_FormatName) as? String == "Test")
        #expect(CMFormatDescriptionGetExtensions(d)?.count == 2)
        #expect(d.mediaType == .text)
        #expect(d.extensions[kCMFormatDescriptionExtension_Depth] as? Int == 24)
    }

    @Test func videoDescriptionAndEquality() {
        var a: CMFormatDescription?, b: CMFormatDescription?, c: CMFormatDescription?
        _ = CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 1920, height: 1080, extensions: nil, formatDescriptionOut: &a)
        _ = CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 1920, height: 1080, extensions: nil, formatDescriptionOut: &b)
        let ext: NSDictionary = [kCMFormatDescriptionExtension_FormatName: "x"]
        _ = CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 1920, height: 1080, extensions: ext, formatDescriptionOut: &c)
        #expect(CMVideoFormatDescriptionGetDimensions(a!) == CMVideoDimensions(width: 1920, height: 1080))
        #expect(CMVideoFormatDescriptionGetCodecType(a!) == kCMVideoCodecType_H264)
        #expect(CMFormatDescriptionEqual(a, otherFormatDescription: b))
        #expect(a == b)
        #expect(!CMFormatDescriptionEqual(a, otherFormatDescription: c))
        #expect(CMFormatDescriptionEqualIgnoringExtensionKeys(a, otherFormatDescription: c,
                                                               extensionKeysToIgnore: kCMFormatDescriptionExtension_FormatName as CFTypeRef,
                                                               sampleDescriptionExtensionAtomKeysToIgnore: nil))
        #expect(CMFormatDescriptionEqual(nil, otherFormatDescription: nil))
        #expect(!CMFormatDescriptionEqual(a, otherFormatDescription: nil))
        #expect(CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: -1, height: 1,
                                               extensions: nil, formatDescriptionOut: &a) == kCMFormatDescriptionError_InvalidParameter)
    }

    @Test func presentationDimensionsAndCleanAperture() throws {
        let ext = CMFormatDescription.Extensions(base: [
            kCMFormatDescriptionExtension_PixelAspectRatio: [kCMFormatDescriptionKey_PixelAspectRatioHorizontalSpacing: 4,
                                                             kCMFormatDescriptionKey_PixelAspectRatioVerticalSpacing: 3] as NSDictionary,
            kCMFormatDescriptionExtension_CleanAperture: [kCMFormatDescriptionKey_CleanApertureWidth: 704,
                                                          kCMFormatDescriptionKey_CleanApertureHeight: 480,
                                                          kCMFormatDescriptionKey_CleanApertureHorizontalOffset: 0,
                                                          kCMFormatDescriptionKey_CleanApertureVerticalOffset: 0] as NSDictionary,
        ])
        let d = try CMFormatDescription(videoCodecType: .h264, width: 720, height: 480, extensions: ext)
        #expect(d.dimensions == CMVideoDimensions(width: 720, height: 480))
        #expect(d.presentationDimensions(usePixelAspectRatio: false, useCleanAperture: false) == CGSize(width: 720, height: 480))
        #expect(d.presentationDimensions(usePixelAspectRatio: true, useCleanAperture: false).width == 960)
        #expect(d.presentationDimensions(usePixelAspectRatio: false, useCleanAperture: true) == CGSize(width: 704, height: 480))
        #expect(d.presentationDimensions() == CGSize(width: 704 * 4.0 / 3.0, height: 480))
        #expect(CMVideoFormatDescriptionGetCleanAperture(d, originIsAtTopLeft: true) == CGRect(x: 8, y: 0, width: 704, height: 480))
    }

    @Test func imageBufferDescription() throws {
        let pb = makeBGRA()
        CMSetAttachment(pb, key: kCMFormatDescriptionExtension_YCbCrMatrix, value: kCMFormatDescriptionYCbCrMatrix_ITU_R_709_2 as CFTypeRef,
                        attachmentMode: kCMAttachmentMode_ShouldPropagate)
        var fd: CMVideoFormatDescription?
        #expect(CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: pb, formatDescriptionOut: &fd) == noErr)
        let d = try #require(fd)
        #expect(CMFormatDescriptionGetMediaSubType(d).fourCCString == "BGRA")
        #expect(d.mediaSubType == "BGRA")
        #expect(d.dimensions == CMVideoDimensions(width: 64, height: 48))
        #expect(CMFormatDescriptionGetExtension(d, extensionKey: kCMFormatDescriptionExtension_YCbCrMatrix) as? String == "ITU_R_709_2")
        #expect(CMVideoFormatDescriptionMatchesImageBuffer(d, imageBuffer: pb))
        #expect(!CMVideoFormatDescriptionMatchesImageBuffer(d, imageBuffer: makeBGRA(32, 48)))
        #expect(try CMFormatDescription(imageBuffer: pb) == d)
    }

    @Test func h264ParameterSetsGiveCroppedSizeAndRoundTrip() throws {
        let (status, fd) = h264([mainSPS, mainPPS])
        #expect(status == noErr)
        let d = try #require(fd)
        #expect(d.mediaSubType == .h264)
        #expect(CMVideoFormatDescriptionGetDimensions(d) == CMVideoDimensions(width: 66, height: 50))
        var count = 0
        var nal: Int32 = 0
        #expect(CMVideoFormatDescriptionGetH264ParameterSetAtIndex(d, parameterSetIndex: 0, parameterSetPointerOut: nil, parameterSetSizeOut: nil,
                                                                   parameterSetCountOut: &count, nalUnitHeaderLengthOut: &nal) == noErr)
        #expect(count == 2 && nal == 4)
        for (i, expected) in [mainSPS, mainPPS].enumerated() {
            var pointer: UnsafePointer<UInt8>?
            var size = 0
            #expect(CMVideoFormatDescriptionGetH264ParameterSetAtIndex(d, parameterSetIndex: i, parameterSetPointerOut: &pointer,
                                                                       parameterSetSizeOut: &size, parameterSetCountOut: nil,
                                                                       nalUnitHeaderLengthOut: nil) == noErr)
            #expect(Array(UnsafeBufferPointer(start: pointer, count: size)) == expected)
        }
        let atoms = CMFormatDescriptionGetExtension(d, extensionKey: kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms) as? NSDictionary
        let avcC = try #require(atoms?["avcC"] as? Data)
        #expect(avcC.prefix(5) == Data([1, 0x4d, 0x40, 0x0a, 0xFF]))
        #expect(d.parameterSets == [Data(mainSPS), Data(mainPPS)])
    }

    @Test func h264High444AndSwiftInit() throws {
        let d = try CMFormatDescription(h264ParameterSets: [Data(high444SPS), Data(high444PPS)], nalUnitHeaderLength: 2)
        #expect(d.dimensions == CMVideoDimensions(width: 66, height: 50))
        var nal: Int32 = 0
        #expect(CMVideoFormatDescriptionGetH264ParameterSetAtIndex(d, parameterSetIndex: 0, parameterSetPointerOut: nil, parameterSetSizeOut: nil,
                                                                   parameterSetCountOut: nil, nalUnitHeaderLengthOut: &nal) == noErr)
        #expect(nal == 2)
    }

    @Test func h264InvalidInputs() {
        #expect(h264([mainSPS]).0 == kCMFormatDescriptionError_InvalidParameter)
        #expect(h264([mainSPS, mainPPS], nal: 3).0 == kCMFormatDescriptionError_InvalidParameter)
        #expect(h264([mainPPS, mainPPS]).0 == kCMFormatDescriptionError_InvalidParameter)
        #expect(h264([[0x67, 0x4d], mainPPS]).0 == kCMFormatDescriptionError_InvalidParameter)  // truncated SPS
        #expect(throws: NSError.self) { try CMFormatDescription(h264ParameterSets: [Data(mainSPS)], nalUnitHeaderLength: 4) }
        var fd: CMFormatDescription?
        _ = CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 2, height: 2, extensions: nil, formatDescriptionOut: &fd)
        var count = 0
        #expect(CMVideoFormatDescriptionGetH264ParameterSetAtIndex(fd!, parameterSetIndex: 0, parameterSetPointerOut: nil, parameterSetSizeOut: nil,
                                                                   parameterSetCountOut: &count, nalUnitHeaderLengthOut: nil)
                == kCMFormatDescriptionError_ValueNotAvailable)
        let (_, good) = h264([mainSPS, mainPPS])
        var pointer: UnsafePointer<UInt8>?
        #expect(CMVideoFormatDescriptionGetH264ParameterSetAtIndex(good!, parameterSetIndex: 2, parameterSetPointerOut: &pointer, parameterSetSizeOut: nil,
                                                                   parameterSetCountOut: nil, nalUnitHeaderLengthOut: nil)
                == kCMFormatDescriptionError_InvalidParameter)
    }

    @Test func hevcParameterSets() throws {
        let d = try CMFormatDescription(hevcParameterSets: [Data(hevcVPS), Data(hevcSPS), Data(hevcPPS)], nalUnitHeaderLength: 4)
        #expect(d.mediaSubType == .hevc)
        #expect(d.dimensions == CMVideoDimensions(width: 66, height: 50))
        var count = 0
        #expect(CMVideoFormatDescriptionGetHEVCParameterSetAtIndex(d, parameterSetIndex: 0, parameterSetPointerOut: nil, parameterSetSizeOut: nil,
                                                                   parameterSetCountOut: &count, nalUnitHeaderLengthOut: nil) == noErr)
        #expect(count == 3)
        var pointer: UnsafePointer<UInt8>?
        var size = 0
        #expect(CMVideoFormatDescriptionGetHEVCParameterSetAtIndex(d, parameterSetIndex: 1, parameterSetPointerOut: &pointer, parameterSetSizeOut: &size,
                                                                   parameterSetCountOut: nil, nalUnitHeaderLengthOut: nil) == noErr)
        #expect(Array(UnsafeBufferPointer(start: pointer, count: size)) == hevcSPS)
        #expect(throws: NSError.self) { try CMFormatDescription(hevcParameterSets: [Data(hevcSPS), Data(hevcPPS)], nalUnitHeaderLength: 4) }
    }

    @Test func audioDescription() throws {
        var asbd = AudioStreamBasicDescription(mSampleRate: 44100, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4, mChannelsPerFrame: 2,
                                               mBitsPerChannel: 16, mReserved: 0)
        var layout = AudioChannelLayout()
        layout.mChannelLayoutTag = kAudioChannelLayoutTag_Stereo
        let cookie: [UInt8] = [1, 2, 3]
        var fd: CMAudioFormatDescription?
        #expect(CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: MemoryLayout<AudioChannelLayout>.size, layout: &layout,
                                               magicCookieSize: 3, magicCookie: cookie, extensions: nil, formatDescriptionOut: &fd) == noErr)
        let d = try #require(fd)
        #expect(d.mediaType == .audio)
        #expect(d.mediaSubType == .linearPCM)
        let p1 = CMAudioFormatDescriptionGetStreamBasicDescription(d)
        let p2 = CMAudioFormatDescriptionGetStreamBasicDescription(d)
        #expect(p1 == p2)  // stable storage
        #expect(p1?.pointee == asbd)
        var layoutSize = 0
        #expect(CMAudioFormatDescriptionGetChannelLayout(d, sizeOut: &layoutSize)?.pointee.mChannelLayoutTag == kAudioChannelLayoutTag_Stereo)
        #expect(layoutSize == 32)
        var cookieSize = 0
        let c = CMAudioFormatDescriptionGetMagicCookie(d, sizeOut: &cookieSize)
        #expect(cookieSize == 3 && c?.load(fromByteOffset: 2, as: UInt8.self) == 3)
        #expect(d.audioStreamBasicDescription?.mSampleRate == 44100)
        asbd.mBytesPerFrame = 0
        #expect(CMAudioFormatDescriptionCreate(allocator: nil, asbd: &asbd, layoutSize: 0, layout: nil, magicCookieSize: 0, magicCookie: nil,
                                               extensions: nil, formatDescriptionOut: &fd) == kCMFormatDescriptionError_InvalidParameter)
        let video = try CMFormatDescription(videoCodecType: .h264, width: 2, height: 2)
        #expect(CMAudioFormatDescriptionGetStreamBasicDescription(video) == nil)
    }
}
