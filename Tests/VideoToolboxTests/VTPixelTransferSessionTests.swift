import Foundation
import Testing
import VideoToolbox

/// Small pixel helpers over the package storage API (the public CVPixelBuffer functions live
/// elsewhere).
enum Pixels {
    static let bgra = OSType(fourCC: "BGRA")
    static let nv12 = OSType(fourCC: "420v")

    static func make(_ format: OSType, _ width: Int, _ height: Int) -> CVPixelBuffer {
        CVBuffer(storage: CVPixelStorage.allocate(width: width, height: height,
                                                  layout: CVPixelFormatLayout.layout(for: format)!)!)
    }

    /// A BGRA buffer painted with `colour(x, y)` = (r, g, b).
    static func bgraImage(_ width: Int, _ height: Int, _ colour: (Int, Int) -> (UInt8, UInt8, UInt8)) -> CVPixelBuffer {
        let buffer = make(bgra, width, height)
        let plane = buffer.storage!.planes[0]
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = colour(x, y)
                let p = plane.baseAddress + y * plane.bytesPerRow + x * 4
                p.storeBytes(of: b, as: UInt8.self)
                (p + 1).storeBytes(of: g, as: UInt8.self)
                (p + 2).storeBytes(of: r, as: UInt8.self)
                (p + 3).storeBytes(of: 255, as: UInt8.self)
            }
        }
        return buffer
    }

    /// (r, g, b, a) of a BGRA pixel.
    static func rgba(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let plane = buffer.storage!.planes[0]
        let p = plane.baseAddress + y * plane.bytesPerRow + x * 4
        return [2, 1, 0, 3].map { Int((p + $0).load(as: UInt8.self)) }
    }

    /// (Y, Cb, Cr) of an NV12 pixel.
    static func ycbcr(_ buffer: CVPixelBuffer, _ x: Int, _ y: Int) -> [Int] {
        let s = buffer.storage!
        let luma = (s.planes[0].baseAddress + y * s.planes[0].bytesPerRow + x).load(as: UInt8.self)
        let c = s.planes[1].baseAddress + (y / 2) * s.planes[1].bytesPerRow + (x / 2) * 2
        return [Int(luma), Int(c.load(as: UInt8.self)), Int((c + 1).load(as: UInt8.self))]
    }

    static func close(_ a: [Int], _ b: [Int], _ tolerance: Int = 2) -> Bool {
        zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    static func attachments(_ buffer: CVPixelBuffer) -> [String: Any] {
        buffer.mutex.lock()
        defer { buffer.mutex.unlock() }
        return buffer.attachmentsByMode[.shouldPropagate] ?? [:]
    }
}

@Suite("VTPixelTransferSession")
struct VTPixelTransferSessionTests {
    func makeSession() throws -> VTPixelTransferSession {
        var session: VTPixelTransferSession?
        #expect(VTPixelTransferSessionCreate(allocator: kCFAllocatorDefault, pixelTransferSessionOut: &session) == noErr)
        return try #require(session)
    }

    @Test("error codes and keys have Apple's values")
    func errorCodes() {
        #expect(kVTPropertyNotSupportedErr == -12900)
        #expect(kVTPropertyReadOnlyErr == -12901)
        #expect(kVTParameterErr == -12902)
        #expect(kVTInvalidSessionErr == -12903)
        #expect(kVTAllocationFailedErr == -12904)
        #expect(kVTPixelTransferNotSupportedErr == -12905)
        #expect(kVTScalingMode_Letterbox == "Letterbox")
        #expect(kVTPixelTransferPropertyKey_ScalingMode == "ScalingMode")
    }

    @Test("BGRA → 420v with scaling gives BT.601 video-range values")
    func convertAndScale() throws {
        let session = try makeSession()
        let red = Pixels.bgraImage(64, 48) { _, _ in (255, 0, 0) }
        let destination = Pixels.make(Pixels.nv12, 32, 24)
        #expect(VTPixelTransferSessionTransferImage(session, from: red, to: destination) == noErr)
        #expect(Pixels.close(Pixels.ycbcr(destination, 10, 10), [81, 90, 240], 1), "\(Pixels.ycbcr(destination, 10, 10))")
        #expect(Pixels.attachments(destination)["CVImageBufferYCbCrMatrix"] as? String == "ITU_R_601_4")

        let back = Pixels.make(Pixels.bgra, 64, 48)
        #expect(VTPixelTransferSessionTransferImage(session, from: destination, to: back) == noErr)
        #expect(Pixels.close(Pixels.rgba(back, 20, 20), [255, 0, 0, 255], 2), "\(Pixels.rgba(back, 20, 20))")
        VTPixelTransferSessionInvalidate(session)
    }

    @Test("DestinationYCbCrMatrix selects BT.709")
    func destinationMatrix() throws {
        let session = try makeSession()
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_DestinationYCbCrMatrix,
                                     value: "ITU_R_709_2") == noErr)
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_DestinationColorPrimaries,
                                     value: "ITU_R_709_2") == noErr)
        let red = Pixels.bgraImage(16, 16) { _, _ in (255, 0, 0) }
        let destination = Pixels.make(Pixels.nv12, 16, 16)
        #expect(VTPixelTransferSessionTransferImage(session, from: red, to: destination) == noErr)
        #expect(Pixels.close(Pixels.ycbcr(destination, 4, 4), [63, 102, 240], 1), "\(Pixels.ycbcr(destination, 4, 4))")
        let attachments = Pixels.attachments(destination)
        #expect(attachments["CVImageBufferYCbCrMatrix"] as? String == "ITU_R_709_2")
        #expect(attachments["CVImageBufferColorPrimaries"] as? String == "ITU_R_709_2")
    }

    @Test("properties: set, copy, defaults and errors")
    func properties() throws {
        let session = try makeSession()
        var value: CFTypeRef?
        #expect(VTSessionCopyProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, allocator: nil,
                                      valueOut: &value) == noErr)
        #expect(value as? String == "Normal")
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, value: kVTScalingMode_Letterbox)
            == noErr)
        var mode: CFString?
        #expect(VTSessionCopyProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, allocator: nil,
                                      valueOut: &mode) == noErr)
        #expect(mode == kVTScalingMode_Letterbox)
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_RealTime, value: kCFBooleanTrue) == noErr)
        var realTime: CFBoolean?
        #expect(VTSessionCopyProperty(session, key: kVTPixelTransferPropertyKey_RealTime, allocator: nil,
                                      valueOut: &realTime) == noErr)
        #expect(realTime?.boolValue == true)

        #expect(VTSessionSetProperty(session, key: "NoSuchKey", value: 1) == kVTPropertyNotSupportedErr)
        #expect(VTSessionCopyProperty(session, key: "NoSuchKey", allocator: nil, valueOut: &value) == kVTPropertyNotSupportedErr)
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, value: "Sideways")
            == kVTParameterErr)
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_DestinationYCbCrMatrix, value: 7)
            == kVTParameterErr)
        #expect(VTSessionSetProperty(NSObject(), key: kVTPixelTransferPropertyKey_ScalingMode, value: nil) == kVTParameterErr)

        let dictionary: [String: Any] = [(kVTPixelTransferPropertyKey_DownsamplingMode as String): kVTDownsamplingMode_Average,
                                         (kVTPixelTransferPropertyKey_ScalingMode as String): kVTScalingMode_Trim]
        #expect(VTSessionSetProperties(session, propertyDictionary: dictionary as CFDictionary) == noErr)
        #expect(VTSessionCopyProperty(session, key: kVTPixelTransferPropertyKey_DownsamplingMode, allocator: nil,
                                      valueOut: &mode) == noErr)
        #expect(mode == kVTDownsamplingMode_Average)
    }

    @Test("errors: invalidated session, unsupported formats, missing pixels")
    func errors() throws {
        let session = try makeSession()
        let source = Pixels.bgraImage(8, 8) { _, _ in (1, 2, 3) }
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: 8 * 64, alignment: 64)
        let address = UInt(bitPattern: bytes)
        let v210 = CVBuffer(storage: CVPixelStorage(
            width: 8, height: 8, pixelFormat: OSType(fourCC: "v210"),
            planes: [CVPixelStorage.Plane(baseAddress: bytes, width: 8, height: 8, bytesPerRow: 64)],
            baseAddress: bytes, dataSize: 512, release: { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }))
        #expect(VTPixelTransferSessionTransferImage(session, from: source, to: v210) == kVTPixelTransferNotSupportedErr)
        #expect(VTPixelTransferSessionTransferImage(session, from: v210, to: source) == kVTPixelTransferNotSupportedErr)
        #expect(VTPixelTransferSessionTransferImage(session, from: CVBuffer(storage: nil), to: source) == kVTParameterErr)
        #expect(VTPixelTransferSessionTransferImage(session, from: source, to: source) == kVTParameterErr)

        VTPixelTransferSessionInvalidate(session)
        let destination = Pixels.make(Pixels.bgra, 8, 8)
        #expect(VTPixelTransferSessionTransferImage(session, from: source, to: destination) == kVTInvalidSessionErr)
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, value: kVTScalingMode_Normal)
            == kVTInvalidSessionErr)
        var value: CFTypeRef?
        #expect(VTSessionCopyProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, allocator: nil,
                                      valueOut: &value) == kVTInvalidSessionErr)
    }

    @Test("attachments: the source's propagating attachments replace the destination's")
    func attachments() throws {
        let session = try makeSession()
        let source = Pixels.bgraImage(16, 16) { _, _ in (9, 9, 9) }
        source.mutex.lock()
        source.attachmentsByMode[.shouldPropagate]?["Custom"] = "yes"
        source.attachmentsByMode[.shouldNotPropagate]?["Private"] = "no"
        source.mutex.unlock()
        let destination = Pixels.make(Pixels.bgra, 16, 16)
        destination.mutex.lock()
        destination.attachmentsByMode[.shouldPropagate]?["Stale"] = "old"
        destination.mutex.unlock()
        #expect(VTPixelTransferSessionTransferImage(session, from: source, to: destination) == noErr)
        let attached = Pixels.attachments(destination)
        #expect(attached["Custom"] as? String == "yes")
        #expect(attached["Private"] == nil && attached["Stale"] == nil)
        #expect(Pixels.rgba(destination, 3, 3) == [9, 9, 9, 255])
    }

    @Test("Letterbox fits the picture and fills the rest with black")
    func letterbox() throws {
        let session = try makeSession()
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, value: kVTScalingMode_Letterbox)
            == noErr)
        let wide = Pixels.bgraImage(64, 32) { _, _ in (200, 50, 50) }
        let square = Pixels.make(Pixels.bgra, 64, 64)
        #expect(VTPixelTransferSessionTransferImage(session, from: wide, to: square) == noErr)
        #expect(Pixels.rgba(square, 32, 4) == [0, 0, 0, 255])
        #expect(Pixels.rgba(square, 32, 60) == [0, 0, 0, 255])
        #expect(Pixels.close(Pixels.rgba(square, 32, 32), [200, 50, 50, 255]))
        #expect(Pixels.close(Pixels.rgba(square, 2, 20), [200, 50, 50, 255]))

        // Into 420v the bars are video-range black.
        let yuv = Pixels.make(Pixels.nv12, 64, 64)
        #expect(VTPixelTransferSessionTransferImage(session, from: wide, to: yuv) == noErr)
        #expect(Pixels.ycbcr(yuv, 10, 2) == [16, 128, 128])
    }

    @Test("Trim fills the destination and cuts the overflow")
    func trim() throws {
        let session = try makeSession()
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode, value: kVTScalingMode_Trim)
            == noErr)
        // Four vertical bands of 16 pixels: the centre 32 columns are green then blue.
        let colours: [(UInt8, UInt8, UInt8)] = [(200, 0, 0), (0, 200, 0), (0, 0, 200), (200, 200, 0)]
        let wide = Pixels.bgraImage(64, 32) { x, _ in colours[x / 16] }
        let square = Pixels.make(Pixels.bgra, 32, 32)
        #expect(VTPixelTransferSessionTransferImage(session, from: wide, to: square) == noErr)
        #expect(Pixels.close(Pixels.rgba(square, 4, 16), [0, 200, 0, 255]), "\(Pixels.rgba(square, 4, 16))")
        #expect(Pixels.close(Pixels.rgba(square, 27, 16), [0, 0, 200, 255]), "\(Pixels.rgba(square, 27, 16))")
    }

    @Test("CropSourceToCleanAperture uses the source's clean aperture")
    func cropToCleanAperture() throws {
        let session = try makeSession()
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_ScalingMode,
                                     value: kVTScalingMode_CropSourceToCleanAperture) == noErr)
        let source = Pixels.bgraImage(64, 64) { x, y in
            (16..<48).contains(x) && (16..<48).contains(y) ? (0, 180, 0) : (180, 0, 0)
        }
        source.mutex.lock()
        source.attachmentsByMode[.shouldPropagate]?["CVImageBufferCleanAperture"] =
            ["Width": 32, "Height": 32, "HorizontalOffset": 0, "VerticalOffset": 0] as [String: Any]
        source.mutex.unlock()
        let destination = Pixels.make(Pixels.bgra, 32, 32)
        #expect(VTPixelTransferSessionTransferImage(session, from: source, to: destination) == noErr)
        for (x, y) in [(0, 0), (31, 31), (16, 16), (0, 31)] {
            #expect(Pixels.close(Pixels.rgba(destination, x, y), [0, 180, 0, 255], 3),
                    "\(x),\(y): \(Pixels.rgba(destination, x, y))")
        }
    }

    @Test("Average downsampling averages")
    func averageDownsampling() throws {
        let session = try makeSession()
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_DownsamplingMode,
                                     value: kVTDownsamplingMode_Average) == noErr)
        let checker = Pixels.bgraImage(64, 64) { x, y in (x + y) % 2 == 0 ? (200, 200, 200) : (0, 0, 0) }
        let small = Pixels.make(Pixels.bgra, 16, 16)
        #expect(VTPixelTransferSessionTransferImage(session, from: checker, to: small) == noErr)
        #expect(Pixels.close(Pixels.rgba(small, 0, 0), [100, 100, 100, 255], 1), "\(Pixels.rgba(small, 0, 0))")
        #expect(Pixels.close(Pixels.rgba(small, 15, 9), [100, 100, 100, 255], 1))
    }

    @Test("1920×1080 420v → BGRA timing", arguments: [false, true])
    func timing(realTime: Bool) throws {
        let session = try makeSession()
        #expect(VTSessionSetProperty(session, key: kVTPixelTransferPropertyKey_RealTime, value: realTime) == noErr)
        let source = Pixels.make(Pixels.nv12, 1920, 1080)
        let s = source.storage!
        for y in 0..<1080 { memset(s.planes[0].baseAddress + y * s.planes[0].bytesPerRow, Int32(16 + y % 200), 1920) }
        for y in 0..<540 { memset(s.planes[1].baseAddress + y * s.planes[1].bytesPerRow, Int32(100 + y % 50), 1920) }
        let destination = Pixels.make(Pixels.bgra, 1920, 1080)
        #expect(VTPixelTransferSessionTransferImage(session, from: source, to: destination) == noErr)
        let start = ContinuousClock.now
        for _ in 0..<50 {
            #expect(VTPixelTransferSessionTransferImage(session, from: source, to: destination) == noErr)
        }
        let perFrame = (ContinuousClock.now - start) / 50
        print("TIMING 1920x1080 420v→BGRA realTime=\(realTime): \(perFrame) per frame")
        // Mid-grey luma with neutral-ish chroma converts the same either way, within rounding.
        let y = 60, row = s.planes[0].baseAddress + y * s.planes[0].bytesPerRow
        let luma = Int(row.load(as: UInt8.self))
        let c = s.planes[1].baseAddress + (y / 2) * s.planes[1].bytesPerRow
        let cb = Double(c.load(as: UInt8.self)) - 128, cr = Double((c + 1).load(as: UInt8.self)) - 128
        let l = 1.164 * Double(luma - 16)
        let expected = [l + 1.793 * cr, l - 0.213 * cb - 0.533 * cr, l + 2.112 * cb].map { Int(max(0, min(255, $0)).rounded()) }
        #expect(Pixels.close(Pixels.rgba(destination, 10, y), expected + [255], 3), "\(Pixels.rgba(destination, 10, y)) vs \(expected)")
        #expect(perFrame < .seconds(1))
    }
}
