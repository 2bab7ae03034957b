import CoreVideo

/// Creates a pixel buffer with CVPixelBufferCreate, as ported code does.
func makeBuffer(_ width: Int, _ height: Int, _ format: OSType, _ attributes: [String: Any]? = nil)
    -> (status: CVReturn, buffer: CVPixelBuffer?) {
    var buffer: CVPixelBuffer?
    let status = CVPixelBufferCreate(kCFAllocatorDefault, width, height, format, attributes.map { $0 as CFDictionary },
                                     &buffer)
    return (status, buffer)
}

/// What Apple documents for a supported format's planes: per plane, (width, height, bytes per
/// pixel) as functions of the image size.
struct ExpectedFormat: Sendable, CustomStringConvertible {
    let format: OSType
    let name: String
    /// Per plane: width, height, minimum bytes per row for an image of (w, h).
    let planes: @Sendable (Int, Int) -> [(width: Int, height: Int, minRowBytes: Int)]
    var description: String { name }
}

func half(_ v: Int) -> Int { (v + 1) / 2 }

let expectedFormats: [ExpectedFormat] = [
    ExpectedFormat(format: kCVPixelFormatType_32BGRA, name: "32BGRA") { w, h in [(w, h, w * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_32ARGB, name: "32ARGB") { w, h in [(w, h, w * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_32RGBA, name: "32RGBA") { w, h in [(w, h, w * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_32ABGR, name: "32ABGR") { w, h in [(w, h, w * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_24RGB, name: "24RGB") { w, h in [(w, h, w * 3)] },
    ExpectedFormat(format: kCVPixelFormatType_24BGR, name: "24BGR") { w, h in [(w, h, w * 3)] },
    ExpectedFormat(format: kCVPixelFormatType_OneComponent8, name: "L008") { w, h in [(w, h, w)] },
    ExpectedFormat(format: kCVPixelFormatType_64ARGB, name: "b64a") { w, h in [(w, h, w * 8)] },
    ExpectedFormat(format: kCVPixelFormatType_422YpCbCr8, name: "2vuy") { w, h in [(w, h, half(w) * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_422YpCbCr8_yuvs, name: "yuvs") { w, h in [(w, h, half(w) * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, name: "420v") { w, h in
        [(w, h, w), (half(w), half(h), half(w) * 2)] },
    ExpectedFormat(format: kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, name: "420f") { w, h in
        [(w, h, w), (half(w), half(h), half(w) * 2)] },
    ExpectedFormat(format: kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange, name: "422v") { w, h in
        [(w, h, w), (half(w), h, half(w) * 2)] },
    ExpectedFormat(format: kCVPixelFormatType_422YpCbCr8BiPlanarFullRange, name: "422f") { w, h in
        [(w, h, w), (half(w), h, half(w) * 2)] },
    ExpectedFormat(format: kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, name: "x420") { w, h in
        [(w, h, w * 2), (half(w), half(h), half(w) * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_420YpCbCr10BiPlanarFullRange, name: "xf20") { w, h in
        [(w, h, w * 2), (half(w), half(h), half(w) * 4)] },
    ExpectedFormat(format: kCVPixelFormatType_420YpCbCr8Planar, name: "y420") { w, h in
        [(w, h, w), (half(w), half(h), half(w)), (half(w), half(h), half(w))] },
    ExpectedFormat(format: kCVPixelFormatType_420YpCbCr8PlanarFullRange, name: "f420") { w, h in
        [(w, h, w), (half(w), half(h), half(w)), (half(w), half(h), half(w))] },
]

/// A thread-safe counter for callbacks and notifications.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}

/// Whether two optional references are the same object.
func same(_ a: AnyObject?, _ b: AnyObject?) -> Bool {
    guard let a, let b else { return a == nil && b == nil }
    return ObjectIdentifier(a) == ObjectIdentifier(b)
}
