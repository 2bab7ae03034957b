// Core Foundation as media code uses it: type checks on CF objects, attribute dictionaries
// written with CFString keys and read back through CF calls or bridged Swift dictionaries.
import AVFoundation

enum CoreFoundationIdioms {
    static func isPixelBuffer(_ object: AnyObject) -> Bool {
        CFGetTypeID(object) == CVPixelBufferGetTypeID()
    }

    static func describe(_ value: CFTypeRef) -> String {
        switch CFGetTypeID(value) {
        case CFStringGetTypeID(): return "string"
        case CFNumberGetTypeID(): return "number"
        case CFBooleanGetTypeID(): return "boolean"
        case CFDictionaryGetTypeID(): return "dictionary"
        case CFArrayGetTypeID(): return "array"
        case CVPixelBufferGetTypeID(): return "pixelbuffer"
        case CGImageGetTypeID(): return "image"
        default: return "other"
        }
    }

    static func run() {
        // Attributes written both ways, read back both ways.
        let cfAttributes = [kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA,
                            kCVPixelBufferWidthKey: 32] as CFDictionary
        let swiftAttributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA]
        var format: Int32 = 0
        let raw = CFDictionaryGetValue(cfAttributes, Unmanaged.passUnretained(kCVPixelBufferPixelFormatTypeKey).toOpaque())
        let gotNumber = raw.map { CFNumberGetValue(unsafeBitCast($0, to: CFNumber.self), .sInt32Type, &format) } ?? false
        let bridged = (cfAttributes as? [String: Any])?[kCVPixelBufferPixelFormatTypeKey as String] as? OSType
        let viaCFKeys = (cfAttributes as? [CFString: Any])?[kCVPixelBufferPixelFormatTypeKey] as? Int
        let fromSwift = (swiftAttributes as CFDictionary as? [String: Any])?[kCVPixelBufferPixelFormatTypeKey as String] as? OSType
        let hasWidth = CFDictionaryContainsKey(cfAttributes, Unmanaged.passUnretained(kCVPixelBufferWidthKey).toOpaque())
        let hasHeight = CFDictionaryContainsKey(cfAttributes, Unmanaged.passUnretained(kCVPixelBufferHeightKey).toOpaque())
        print("cfdict format=\(gotNumber ? FourCharCode(format) : 0) bridged=\(bridged ?? 0) cfkeys=\(viaCFKeys ?? 0)"
              + " swift=\(fromSwift ?? 0) width=\(hasWidth) height=\(hasHeight)")

        var pixelBuffer: CVPixelBuffer?
        CVPixelBufferCreate(kCFAllocatorDefault, 16, 16, kCVPixelFormatType_32BGRA, cfAttributes, &pixelBuffer)
        let values: [CFTypeRef] = [kCVPixelBufferWidthKey, NSNumber(value: 3), kCFBooleanTrue, cfAttributes,
                                   [1, 2] as CFArray, pixelBuffer!]
        print("cftypes \(values.map(describe).joined(separator: ",")) pixelbuffer=\(isPixelBuffer(pixelBuffer!))")

        let flags: CVOptionFlags = 0
        let code: FourCharCode = kCMVideoCodecType_H264
        let data = CFDataCreateMutable(kCFAllocatorDefault, 0)!
        CFDataAppendBytes(data, [1, 2, 3], 3)
        let bytes = CFDataGetBytePtr(data)!
        print("cfmisc flags=\(flags) codec=\(code) data=\(CFDataGetLength(data)):\(bytes[0] + bytes[1] + bytes[2])"
              + " bool=\(CFBooleanGetValue(kCFBooleanTrue)) pool=\(autoreleasepool { 41 + 1 })")
    }
}
