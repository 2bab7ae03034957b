// The Core Foundation functions and names of CoreFoundationCompat, with Apple's semantics on the
// bridged Foundation objects.
import AVFoundation
import Foundation
import Testing

private func pointer(_ object: AnyObject) -> UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) }

@Suite("Core Foundation compatibility")
struct CoreFoundationCompatTests {
    // MARK: CFString

    @Test("CFString is an object that bridges to and from String")
    func cfStringBridges() {
        let literal: CFString = "abc"
        let swift = "PixelFormatType"
        #expect(literal as String == "abc")
        #expect(("abc" as CFString).isEqual(literal))
        #expect(kCVPixelBufferPixelFormatTypeKey as String == "PixelFormatType")
        #expect((swift as CFString).isEqual(kCVPixelBufferPixelFormatTypeKey))
        let retained = Unmanaged.passRetained(kCMSampleAttachmentKey_NotSync)
        #expect(retained.takeRetainedValue() === kCMSampleAttachmentKey_NotSync)
    }

    @Test("values stored under CFString keys are found with String keys and the other way round")
    func mixedKeys() {
        let fromCF = [kCVPixelBufferPixelFormatTypeKey: 32, kCVPixelBufferWidthKey: 8] as CFDictionary
        #expect(fromCF.object(forKey: "PixelFormatType") as? Int == 32)
        #expect((fromCF as? [String: Any])?[kCVPixelBufferPixelFormatTypeKey as String] as? Int == 32)
        #expect((fromCF as? [CFString: Any])?[kCVPixelBufferWidthKey] as? Int == 8)
        let fromSwift = [kCVPixelBufferPixelFormatTypeKey as String: 32] as CFDictionary
        #expect(fromSwift.object(forKey: kCVPixelBufferPixelFormatTypeKey) as? Int == 32)
        #expect((fromSwift as? [CFString: Any])?[kCVPixelBufferPixelFormatTypeKey] as? Int == 32)
        let set: Set<CFString> = [kCVPixelBufferWidthKey]
        #expect(set.contains("Width" as CFString))
    }

    // MARK: Type identifiers

    @Test("CFGetTypeID gives each type's own identifier")
    func typeIDs() throws {
        #expect(CFGetTypeID("text" as CFString) == CFStringGetTypeID())
        #expect(CFGetTypeID(NSMutableString(string: "x")) == CFStringGetTypeID())
        #expect(CFGetTypeID(["a": 1] as CFDictionary) == CFDictionaryGetTypeID())
        #expect(CFGetTypeID(NSMutableDictionary()) == CFDictionaryGetTypeID())
        #expect(CFGetTypeID([1, 2] as CFArray) == CFArrayGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: 3)) == CFNumberGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: 2.5)) == CFNumberGetTypeID())
        #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: false)) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(NSData()) == CFDataGetTypeID())
        #expect(CFGetTypeID(NSURL(fileURLWithPath: "/tmp")) == CFURLGetTypeID())

        var pixelBuffer: CVPixelBuffer?
        CVPixelBufferCreate(kCFAllocatorDefault, 4, 4, kCVPixelFormatType_32BGRA, nil, &pixelBuffer)
        let buffer = try #require(pixelBuffer)
        #expect(CFGetTypeID(buffer) == CVPixelBufferGetTypeID())
        var pool: CVPixelBufferPool?
        CVPixelBufferPoolCreate(kCFAllocatorDefault, nil,
                                [kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA, kCVPixelBufferWidthKey: 4,
                                 kCVPixelBufferHeightKey: 4] as CFDictionary, &pool)
        let madePool = try #require(pool)
        #expect(CFGetTypeID(madePool) == CVPixelBufferPoolGetTypeID())
        var format: CMFormatDescription?
        CMVideoFormatDescriptionCreateForImageBuffer(allocator: nil, imageBuffer: buffer, formatDescriptionOut: &format)
        let description = try #require(format)
        #expect(CFGetTypeID(description) == CMFormatDescriptionGetTypeID())
        var sample: CMSampleBuffer?
        var timing = CMSampleTimingInfo(duration: .invalid, presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
        CMSampleBufferCreateReadyWithImageBuffer(allocator: nil, imageBuffer: buffer, formatDescription: description,
                                                 sampleTiming: &timing, sampleBufferOut: &sample)
        let madeSample = try #require(sample)
        #expect(CFGetTypeID(madeSample) == CMSampleBufferGetTypeID())
        var block: CMBlockBuffer?
        CMBlockBufferCreateWithMemoryBlock(allocator: nil, memoryBlock: nil, blockLength: 16, blockAllocator: nil,
                                           customBlockSource: nil, offsetToData: 0, dataLength: 16, flags: 0, blockBufferOut: &block)
        let madeBlock = try #require(block)
        #expect(CFGetTypeID(madeBlock) == CMBlockBufferGetTypeID())
        var image: CGImage?
        VTCreateCGImageFromCVPixelBuffer(buffer, options: nil, imageOut: &image)
        let madeImage = try #require(image)
        #expect(CFGetTypeID(madeImage) == CGImageGetTypeID())
        #expect(CFGetTypeID(CGColorSpaceCreateDeviceRGB()) == CGColorSpaceGetTypeID())
        let encoded = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(encoded, UTType.png.identifier as CFString, 1, nil))
        #expect(CFGetTypeID(destination) == CGImageDestinationGetTypeID())
        CGImageDestinationAddImage(destination, madeImage, nil)
        #expect(CGImageDestinationFinalize(destination))
        let source = try #require(CGImageSourceCreateWithData(encoded, nil))
        #expect(CFGetTypeID(source) == CGImageSourceGetTypeID())

        let all = [CFStringGetTypeID(), CFDictionaryGetTypeID(), CFArrayGetTypeID(), CFNumberGetTypeID(),
                   CFBooleanGetTypeID(), CFDataGetTypeID(), CVPixelBufferGetTypeID(), CVPixelBufferPoolGetTypeID(),
                   CMSampleBufferGetTypeID(), CMFormatDescriptionGetTypeID(), CMBlockBufferGetTypeID(),
                   CGImageGetTypeID(), CGColorSpaceGetTypeID(), CGColorGetTypeID(), CGContextGetTypeID(),
                   CGDataProviderGetTypeID(), CGImageSourceGetTypeID(), CGImageDestinationGetTypeID()]
        #expect(Set(all).count == all.count)
        #expect(CFCopyTypeIDDescription(CVPixelBufferGetTypeID()) as String? == "CVPixelBuffer")
        #expect(CFCopyTypeIDDescription(CFStringGetTypeID()) as String? == "CFString")
        final class NotCF {}
        #expect(CFGetTypeID(NotCF()) == 0)
    }

    // MARK: Arrays and dictionaries

    @Test("CFArrayGetValueAtIndex points at the object the array holds")
    func arrayValues() {
        let first = NSMutableDictionary(), second = NSMutableDictionary()
        let array = NSArray(array: [first, second])
        #expect(CFArrayGetCount(array) == 2)
        #expect(CFArrayGetValueAtIndex(array, 1) == pointer(second))
        #expect(unsafeBitCast(CFArrayGetValueAtIndex(array, 0), to: CFDictionary.self) === first)
        // An array bridged from Swift holds bridged dictionaries; the pointer stays the same.
        let bridged = [["NotSync": true], [:]] as CFArray
        #expect(CFArrayGetValueAtIndex(bridged, 0) == CFArrayGetValueAtIndex(bridged, 0))
        let dict = unsafeBitCast(CFArrayGetValueAtIndex(bridged, 0), to: CFDictionary.self)
        #expect(dict.count == 1)
    }

    @Test("CFDictionaryGetValue and CFDictionaryContainsKey look keys up by their objects")
    func dictionaryValues() {
        let value = NSString(string: "ITU_R_709_2")
        let dict = [kCVImageBufferYCbCrMatrixKey: value, "NotSync" as CFString: true] as CFDictionary
        #expect(CFDictionaryGetCount(dict) == 2)
        #expect(CFDictionaryGetValue(dict, pointer(kCVImageBufferYCbCrMatrixKey)) == pointer(value))
        // An equal key that is another object finds the same entry.
        let equalKey = NSString(string: kCVImageBufferYCbCrMatrixKey as String)
        withExtendedLifetime(equalKey) {
            #expect(equalKey !== kCVImageBufferYCbCrMatrixKey)
            #expect(CFDictionaryGetValue(dict, pointer(equalKey)) == pointer(value))
        }
        #expect(CFDictionaryGetValue(dict, pointer(kCMSampleAttachmentKey_NotSync)) == pointer(kCFBooleanTrue))
        #expect(CFDictionaryGetValue(dict, pointer(kCVImageBufferColorPrimariesKey)) == nil)
        #expect(CFDictionaryContainsKey(dict, pointer(kCMSampleAttachmentKey_NotSync)))
        #expect(!CFDictionaryContainsKey(dict, pointer(kCVImageBufferColorPrimariesKey)))

        let mutable = NSMutableDictionary()
        CFDictionarySetValue(mutable, pointer(kCMSampleAttachmentKey_DependsOnOthers), pointer(kCFBooleanFalse))
        #expect((mutable as? [String: Any])?[kCMSampleAttachmentKey_DependsOnOthers as String] as? Bool == false)
        CFDictionaryRemoveValue(mutable, pointer(kCMSampleAttachmentKey_DependsOnOthers))
        #expect(mutable.count == 0)
    }

    @Test("the sync-attachment idiom reads a sample's NotSync flag")
    func syncAttachmentIdiom() throws {
        var format: CMFormatDescription?
        CMVideoFormatDescriptionCreate(allocator: nil, codecType: kCMVideoCodecType_H264, width: 16, height: 16,
                                       extensions: nil, formatDescriptionOut: &format)
        var timing = CMSampleTimingInfo(duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: .zero,
                                        decodeTimeStamp: .invalid)
        var size = 4
        var out: CMSampleBuffer?
        CMSampleBufferCreate(allocator: nil, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                             formatDescription: format, sampleCount: 1, sampleTimingEntryCount: 1, sampleTimingArray: &timing,
                             sampleSizeEntryCount: 1, sampleSizeArray: &size, sampleBufferOut: &out)
        let sample = try #require(out)
        #expect(CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: false) == nil)
        let attachments = try #require(CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: true))
        let dict = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFDictionary.self)
        let key = Unmanaged.passUnretained(kCMSampleAttachmentKey_NotSync).toOpaque()
        #expect(CFDictionaryGetValue(dict, key) == nil)
        sample.sampleAttachments[0][.notSync] = true
        let notSync = try #require(CFDictionaryGetValue(dict, key))
        #expect(CFBooleanGetValue(unsafeBitCast(notSync, to: CFBoolean.self)))
        let overlay = (CMSampleBufferGetSampleAttachmentsArray(sample, createIfNecessary: false) as? [[CFString: Any]])?
            .first?[kCMSampleAttachmentKey_NotSync] as? Bool
        #expect(overlay == true)
    }

    // MARK: Booleans, numbers, data

    @Test("Booleans are the CF singletons a stored Bool becomes")
    func booleans() {
        #expect(CFBooleanGetValue(kCFBooleanTrue))
        #expect(!CFBooleanGetValue(kCFBooleanFalse))
        let stored = ["flag": true] as NSDictionary
        #expect(stored.object(forKey: "flag") as? Bool == true)
        let key: CFString = "flag"
        withExtendedLifetime(key) {
            #expect(CFDictionaryGetValue(stored, pointer(key)) == pointer(kCFBooleanTrue))
        }
    }

    @Test("CFNumberGetValue converts and says when the conversion lost information")
    func numbers() {
        var int8: Int8 = 0, int32: Int32 = 0, double: Double = 0, float: Float = 0
        #expect(!CFNumberGetValue(NSNumber(value: 300), .sInt8Type, &int8))
        #expect(CFNumberGetValue(NSNumber(value: 300), .sInt32Type, &int32) && int32 == 300)
        #expect(!CFNumberGetValue(NSNumber(value: 2.5), .sInt32Type, &int32) && int32 == 2)
        #expect(CFNumberGetValue(NSNumber(value: 2.5), .float64Type, &double) && double == 2.5)
        #expect(CFNumberGetValue(NSNumber(value: 0.25), .floatType, &float) && float == 0.25)
        #expect(CFNumberIsFloatType(NSNumber(value: 2.5)))
        #expect(!CFNumberIsFloatType(NSNumber(value: 7)))
        #expect(CFNumberType.cgFloatType.rawValue == 16 && CFNumberType.sInt32Type.rawValue == 3)
    }

    @Test("CFData functions create, grow and expose bytes")
    func data() throws {
        let mutable = try #require(CFDataCreateMutable(kCFAllocatorDefault, 0))
        #expect(CFDataGetLength(mutable) == 0)
        CFDataAppendBytes(mutable, [1, 2, 3], 3)
        CFDataAppendBytes(mutable, [4], 1)
        #expect(CFDataGetLength(mutable) == 4)
        let bytes = try #require(CFDataGetBytePtr(mutable))
        #expect((0..<4).map { bytes[$0] } == [1, 2, 3, 4])
        CFDataGetMutableBytePtr(mutable)[0] = 9
        #expect(mutable as Data == Data([9, 2, 3, 4]))
        CFDataSetLength(mutable, 6)
        #expect(mutable as Data == Data([9, 2, 3, 4, 0, 0]))
        var source: [UInt8] = [5, 6]
        let copy = try #require(CFDataCreate(nil, &source, 2))
        source[0] = 0
        #expect(copy as Data == Data([5, 6]))
    }

    // MARK: autoreleasepool

    struct Failure: Error {}

    @Test("autoreleasepool returns the body's value and rethrows its error")
    func autoreleasePool() {
        #expect(autoreleasepool { 6 * 7 } == 42)
        #expect(throws: Failure.self) { try autoreleasepool { () throws -> Int in throw Failure() } }
        var ran = 0
        for _ in 0..<3 { autoreleasepool { ran += 1 } }
        #expect(ran == 3)
    }

    // MARK: UTType C functions

    @Test("the UTType C functions give Apple's identifiers and tags, owned by the caller")
    func legacyUTTypeFunctions() {
        #expect(UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "mp4" as CFString, nil)?
            .takeRetainedValue() as String? == "public.mpeg-4")
        #expect(UTTypeCreatePreferredIdentifierForTag(kUTTagClassMIMEType, "audio/mpeg" as CFString, kUTTypeAudio)?
            .takeRetainedValue() as String? == "public.mp3")
        let dynamic = UTTypeCreatePreferredIdentifierForTag(kUTTagClassFilenameExtension, "zzq" as CFString, nil)?
            .takeRetainedValue()
        #expect((dynamic as String?)?.hasPrefix("dyn.") == true)
        #expect(UTTypeIsDynamic(dynamic ?? ""))
        #expect(UTTypeCopyPreferredTagWithClass("public.mpeg-4" as CFString, kUTTagClassFilenameExtension)?
            .takeRetainedValue() as String? == "mp4")
        #expect(UTTypeCopyPreferredTagWithClass(kUTTypeQuickTimeMovie, kUTTagClassMIMEType)?.takeRetainedValue()
            as String? == "video/quicktime")
        #expect(UTTypeCopyPreferredTagWithClass("public.movie" as CFString, kUTTagClassFilenameExtension) == nil)
        #expect(UTTypeCopyAllTagsWithClass(kUTTypeJPEG, kUTTagClassFilenameExtension)?.takeRetainedValue()
            as? [String] == ["jpeg", "jpg", "jpe"])
        #expect(UTTypeConformsTo(kUTTypeMPEG4Audio, kUTTypeAudio))
        #expect(!UTTypeConformsTo(kUTTypeMP3, kUTTypeMovie))
        #expect(UTTypeIsDeclared(kUTTypeMP3))
    }

    @Test("URLs take the preferred extension of a content type unless they already have one of it")
    func urlConformingTo() {
        let dir = URL(fileURLWithPath: "/tmp/out")
        #expect(dir.appendingPathComponent("clip", conformingTo: .mpeg4Movie).path == "/tmp/out/clip.mp4")
        #expect(dir.appendingPathComponent("clip.MOV", conformingTo: .movie).path == "/tmp/out/clip.MOV")
        #expect(dir.appendingPathComponent("song.mp3", conformingTo: .mpeg4Audio).path == "/tmp/out/song.mp3.m4a")
        #expect(dir.appendingPathComponent("data", conformingTo: .movie).path == "/tmp/out/data")
        var url = dir
        url.appendPathComponent("take", conformingTo: .wav)
        #expect(url.lastPathComponent == "take.wav")
        #expect(dir.appendingPathComponent("a").appendingPathExtension(for: .aiff).lastPathComponent == "a.aiff")
        #expect(UTType.m3uPlaylist.conforms(to: .playlist) && UTType.midi.conforms(to: .audio))
    }
}
