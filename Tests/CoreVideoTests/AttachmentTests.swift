import Testing
import CoreVideo

@Suite("CVBuffer attachments")
struct AttachmentTests {
    func buffer() throws -> CVPixelBuffer { try #require(makeBuffer(8, 8, kCVPixelFormatType_32BGRA).buffer) }

    @Test("\"MetadataDictionary\" set then copied back is the same object, with its mode")
    func metadataDictionary() throws {
        let pb = try buffer()
        let metadata: NSDictionary = ["Make": "Camera", "ISO": 200]
        CVBufferSetAttachment(pb, "MetadataDictionary" as CFString, metadata, .shouldPropagate)
        var mode = CVAttachmentMode.shouldNotPropagate
        let copied = CVBufferCopyAttachment(pb, "MetadataDictionary" as CFString, &mode)
        #expect(same(copied, metadata))
        #expect(mode == .shouldPropagate)
        #expect((copied as? NSDictionary)?["ISO"] as? Int == 200)
        #expect(CVBufferHasAttachment(pb, "MetadataDictionary" as CFString))
    }

    @Test("the deprecated CVBufferGetAttachment returns the stored object unretained")
    func getAttachmentUnmanaged() throws {
        let pb = try buffer()
        let value = NSNumber(value: 2)
        CVBufferSetAttachment(pb, kCVImageBufferFieldCountKey, value, .shouldNotPropagate)
        var mode = CVAttachmentMode.shouldPropagate
        let unmanaged = try #require(CVBufferGetAttachment(pb, kCVImageBufferFieldCountKey, &mode))
        #expect(same(unmanaged.takeUnretainedValue(), value))
        #expect(mode == .shouldNotPropagate)
        #expect(CVBufferGetAttachment(pb, "missing" as CFString, nil) == nil)
    }

    @Test("CFString constants and `as AnyObject` strings work as values and read back as String")
    func stringValues() throws {
        let pb = try buffer()
        CVBufferSetAttachment(pb, kCVImageBufferYCbCrMatrixKey, kCVImageBufferYCbCrMatrix_ITU_R_709_2, .shouldPropagate)
        CVBufferSetAttachment(pb, kCVImageBufferColorPrimariesKey, "P3_D65" as AnyObject, .shouldPropagate)
        #expect(CVBufferCopyAttachment(pb, kCVImageBufferYCbCrMatrixKey, nil) as? String == "ITU_R_709_2")
        #expect(CVBufferCopyAttachment(pb, kCVImageBufferColorPrimariesKey, nil) as? String == "P3_D65")
        #expect(CVBufferGetAttachment(pb, kCVImageBufferYCbCrMatrixKey, nil)?.takeUnretainedValue() as? String
            == kCVImageBufferYCbCrMatrix_ITU_R_709_2 as String)
        #expect(pb.yCbCrMatrix == "ITU_R_709_2")
        #expect(pb.colorPrimaries == "P3_D65")
        #expect(pb.transferFunction == nil)
    }

    @Test("a key lives in one mode: setting it in the other mode moves it")
    func modesAreExclusive() throws {
        let pb = try buffer()
        CVBufferSetAttachment(pb, "k" as CFString, NSNumber(value: 1), .shouldPropagate)
        CVBufferSetAttachment(pb, "k" as CFString, NSNumber(value: 2), .shouldNotPropagate)
        #expect(CVBufferCopyAttachments(pb, .shouldPropagate) == nil)
        let nonPropagated = try #require(CVBufferCopyAttachments(pb, .shouldNotPropagate))
        #expect(nonPropagated["k"] as? Int == 2)
    }

    @Test("remove one, remove all")
    func removal() throws {
        let pb = try buffer()
        CVBufferSetAttachment(pb, "a" as CFString, NSNumber(value: 1), .shouldPropagate)
        CVBufferSetAttachment(pb, "b" as CFString, NSNumber(value: 2), .shouldNotPropagate)
        CVBufferRemoveAttachment(pb, "a" as CFString)
        #expect(!CVBufferHasAttachment(pb, "a" as CFString))
        #expect(CVBufferHasAttachment(pb, "b" as CFString))
        CVBufferRemoveAttachment(pb, "never-set" as CFString)
        CVBufferRemoveAllAttachments(pb)
        #expect(!CVBufferHasAttachment(pb, "b" as CFString))
        #expect(CVBufferCopyAttachment(pb, "b" as CFString, nil) == nil)
    }

    @Test("CVBufferSetAttachments from a Swift dictionary; Get returns an empty dictionary, Copy nil, when none")
    func bulk() throws {
        let pb = try buffer()
        #expect(CVBufferGetAttachments(pb, .shouldPropagate)?.count == 0)
        #expect(CVBufferCopyAttachments(pb, .shouldPropagate) == nil)
        let values: [String: Any] = [(kCVImageBufferTransferFunctionKey as String): kCVImageBufferTransferFunction_ITU_R_709_2,
                                     (kCVImageBufferFieldCountKey as String): 1]
        CVBufferSetAttachments(pb, values as CFDictionary, .shouldPropagate)
        let copied = try #require(CVBufferCopyAttachments(pb, .shouldPropagate))
        #expect(copied.count == 2)
        #expect(copied[kCVImageBufferTransferFunctionKey] as? String == "ITU_R_709_2")
        #expect(copied[kCVImageBufferFieldCountKey] as? Int == 1)
        #expect(CVBufferGetAttachments(pb, .shouldPropagate)?.count == 2)
        #expect(pb.transferFunction == "ITU_R_709_2")
    }

    @Test("CVBufferPropagateAttachments copies only .shouldPropagate attachments")
    func propagate() throws {
        let source = try buffer()
        let destination = try buffer()
        let propagated = NSNumber(value: 3)
        CVBufferSetAttachment(source, "p" as CFString, propagated, .shouldPropagate)
        CVBufferSetAttachment(source, "n" as CFString, NSNumber(value: 4), .shouldNotPropagate)
        CVBufferSetAttachment(destination, "existing" as CFString, NSNumber(value: 5), .shouldNotPropagate)
        CVBufferPropagateAttachments(source, destination)
        var mode = CVAttachmentMode.shouldNotPropagate
        #expect(same(CVBufferCopyAttachment(destination, "p" as CFString, &mode), propagated))
        #expect(mode == .shouldPropagate)
        #expect(!CVBufferHasAttachment(destination, "n" as CFString))
        #expect(CVBufferHasAttachment(destination, "existing" as CFString))
        CVBufferPropagateAttachments(source, source)
        #expect(CVBufferHasAttachment(source, "p" as CFString))
    }

    @Test("values written as Swift values by other modules are handed out as live objects")
    func swiftValuesStoredDirectly() throws {
        let pb = try buffer()
        pb.mutex.lock()
        pb.attachmentsByMode[.shouldPropagate]?[(kCVImageBufferYCbCrMatrixKey as String)] = "ITU_R_601_4"
        pb.mutex.unlock()
        let first = try #require(CVBufferGetAttachment(pb, kCVImageBufferYCbCrMatrixKey, nil)).takeUnretainedValue()
        let second = try #require(CVBufferCopyAttachment(pb, kCVImageBufferYCbCrMatrixKey, nil))
        #expect(same(first, second))
        #expect(first as? String == "ITU_R_601_4")
    }

    @Test("attachment keys have Apple's strings")
    func bufferKeys() {
        #expect(kCVBufferPropagatedAttachmentsKey == "PropagatedAttachments")
        #expect(kCVBufferNonPropagatedAttachmentsKey == "NonPropagatedAttachments")
        #expect(kCVBufferMovieTimeKey == "QTMovieTime")
        #expect(kCVBufferTimeValueKey == "TimeValue")
        #expect(kCVBufferTimeScaleKey == "TimeScale")
        #expect(CVAttachmentMode.shouldPropagate.rawValue == 1)
    }
}
