import Foundation
import Testing
import CoreGraphics

let rgba: UInt32 = CGImageAlphaInfo.premultipliedLast.rawValue

func makeImage(_ bytes: [UInt8], width: Int, height: Int, bitsPerComponent: Int = 8, bitsPerPixel: Int = 32,
               bytesPerRow: Int? = nil, space: CGColorSpace = CGColorSpaceCreateDeviceRGB(),
               info: UInt32 = rgba, interpolate: Bool = true) -> CGImage? {
    CGImage(width: width, height: height, bitsPerComponent: bitsPerComponent, bitsPerPixel: bitsPerPixel,
            bytesPerRow: bytesPerRow ?? width * bitsPerPixel / 8, space: space,
            bitmapInfo: CGBitmapInfo(rawValue: info), provider: CGDataProvider(data: Data(bytes) as CFData)!,
            decode: nil, shouldInterpolate: interpolate, intent: .defaultIntent)
}

func pixels(_ image: CGImage) -> [UInt8] { [UInt8](image.dataProvider!.data! as Data) }

@Suite struct CGImageTests {
    @Test func validImageKeepsItsParameters() throws {
        let image = try #require(makeImage([UInt8](repeating: 7, count: 16), width: 2, height: 2))
        #expect(image.width == 2 && image.height == 2 && image.bitsPerComponent == 8 && image.bitsPerPixel == 32)
        #expect(image.bytesPerRow == 8 && image.alphaInfo == .premultipliedLast && image.byteOrderInfo == .orderDefault)
        #expect(image.pixelFormatInfo == .packed && !image.isMask && image.shouldInterpolate)
        #expect(image.renderingIntent == .defaultIntent && image.colorSpace?.model == .rgb)
        #expect(pixels(image) == [UInt8](repeating: 7, count: 16))
    }

    @Test func rejectsBadGeometry() {
        let bytes = [UInt8](repeating: 0, count: 64)
        #expect(makeImage(bytes, width: 2, height: 2, bytesPerRow: 7) == nil)           // row too short
        #expect(makeImage([UInt8](repeating: 0, count: 15), width: 2, height: 2) == nil) // provider too short
        #expect(makeImage(bytes, width: 2, height: 2, bitsPerComponent: 3) == nil)       // nonsense bpc
        #expect(makeImage(bytes, width: 2, height: 2, bitsPerPixel: 16) == nil)          // too few bits for RGBA
        #expect(makeImage(bytes, width: 0, height: 2) == nil)
        #expect(makeImage(bytes, width: 2, height: -1) == nil)
        #expect(makeImage(bytes, width: 2, height: 2, info: 9) == nil)                   // undefined alpha info
        #expect(makeImage(bytes, width: 2, height: 2, info: rgba | CGBitmapInfo.floatComponents.rawValue) == nil)
        #expect(makeImage(bytes, width: Int.max / 2, height: 2, bytesPerRow: 64) == nil) // overflow, no crash
        #expect(makeImage(bytes, width: 2, height: 2, bytesPerRow: Int.max) == nil)
        #expect(makeImage(bytes, width: 3, height: 2, bitsPerPixel: 24, info: CGImageAlphaInfo.none.rawValue) != nil)
    }

    @Test func lastRowMayBeShortOfBytesPerRow() {
        // Two rows of 2 RGBA pixels with 12-byte stride: the provider needs 12 + 8 bytes.
        #expect(makeImage([UInt8](repeating: 0, count: 20), width: 2, height: 2, bytesPerRow: 12) != nil)
        #expect(makeImage([UInt8](repeating: 0, count: 19), width: 2, height: 2, bytesPerRow: 12) == nil)
    }

    @Test func croppingCopiesTheRightPixels() throws {
        let gray = CGColorSpaceCreateDeviceGray()
        let image = try #require(makeImage(Array(0..<12), width: 4, height: 3, bitsPerPixel: 8, space: gray,
                                           info: CGImageAlphaInfo.none.rawValue))
        let crop = try #require(image.cropping(to: CGRect(x: 1, y: 1, width: 2, height: 2)))
        #expect(crop.width == 2 && crop.height == 2 && crop.bytesPerRow == 2)
        #expect(pixels(crop) == [5, 6, 9, 10])
        // A fractional rect is made integral first.
        let integral = try #require(image.cropping(to: CGRect(x: 0.5, y: 0.5, width: 1, height: 1)))
        #expect(pixels(integral) == [0, 1, 4, 5])
        // Partly outside: clipped to the image.
        let clipped = try #require(image.cropping(to: CGRect(x: 3, y: 2, width: 10, height: 10)))
        #expect(clipped.width == 1 && clipped.height == 1 && pixels(clipped) == [11])
        #expect(image.cropping(to: CGRect(x: 10, y: 10, width: 2, height: 2)) == nil)
        #expect(image.cropping(to: .null) == nil)
        #expect(image.cropping(to: CGRect(x: 1, y: 1, width: 0, height: 0)) == nil)
        #expect(CGImageCreateWithImageInRect(image, CGRect(x: 0, y: 2, width: 4, height: 1)).map(pixels) == [8, 9, 10, 11])
    }

    @Test func croppingRGBAAndSubBytePixels() throws {
        let image = try #require(makeImage(Array(0..<16), width: 2, height: 2))
        #expect(try pixels(#require(image.cropping(to: CGRect(x: 1, y: 0, width: 1, height: 2)))) == [4, 5, 6, 7, 12, 13, 14, 15])
        // 1-bit greyscale, 8 pixels in one byte: 1011_0010.
        let bits = try #require(makeImage([0b1011_0010], width: 8, height: 1, bitsPerComponent: 1, bitsPerPixel: 1,
                                          space: CGColorSpaceCreateDeviceGray(), info: 0))
        let part = try #require(bits.cropping(to: CGRect(x: 2, y: 0, width: 4, height: 1)))
        #expect(pixels(part) == [0b1100_0000])
    }

    @Test func copies() throws {
        let image = try #require(makeImage(Array(0..<16), width: 2, height: 2))
        let copy = try #require(image.copy())
        #expect(copy !== image && copy.width == 2 && pixels(copy) == pixels(image) && copy.bitmapInfo == image.bitmapInfo)
        let p3 = try #require(CGColorSpace(name: CGColorSpace.displayP3))
        let tagged = try #require(image.copy(colorSpace: p3))
        #expect(tagged.colorSpace?.name == CGColorSpace.displayP3 && pixels(tagged) == pixels(image))
        #expect(image.copy(colorSpace: CGColorSpaceCreateDeviceGray()) == nil)
        #expect(CGImageCreateCopyWithColorSpace(image, CGColorSpaceCreateDeviceCMYK()) == nil)
        #expect(CGImageCreateCopy(image)?.height == 2)
    }

    @Test func decodeArrayIsCopied() throws {
        let decode: [CGFloat] = [1, 0]
        let image = try #require(CGImage(width: 1, height: 1, bitsPerComponent: 8, bitsPerPixel: 8, bytesPerRow: 1,
                                         space: CGColorSpaceCreateDeviceGray(), bitmapInfo: [],
                                         provider: CGDataProvider(data: Data([9]) as CFData)!, decode: decode,
                                         shouldInterpolate: false, intent: .perceptual))
        let stored = try #require(image.decode)
        #expect(stored[0] == 1 && stored[1] == 0)
        #expect(CGImageGetDecode(image) == stored)
        #expect(CGImageGetRenderingIntent(image) == .perceptual && !CGImageGetShouldInterpolate(image))
    }

    @Test func cGetters() throws {
        let info = CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue
        let image = try #require(CGImageCreate(2, 1, 8, 32, 8, CGColorSpaceCreateDeviceRGB(), CGBitmapInfo(rawValue: info),
                                               CGDataProviderCreateWithCFData(Data(count: 8) as CFData), nil, true,
                                               .defaultIntent))
        #expect(CGImageGetWidth(image) == 2 && CGImageGetHeight(image) == 1)
        #expect(CGImageGetBitsPerComponent(image) == 8 && CGImageGetBitsPerPixel(image) == 32)
        #expect(CGImageGetBytesPerRow(image) == 8 && CGImageGetColorSpace(image)?.model == .rgb)
        #expect(CGImageGetAlphaInfo(image) == .premultipliedFirst && CGImageGetByteOrderInfo(image) == .order32Little)
        #expect(CGImageGetBitmapInfo(image).rawValue == info && CGImageGetPixelFormatInfo(image) == .packed)
        #expect(CGImageGetDataProvider(image) != nil && CGImageGetDecode(image) == nil)
        #expect(!CGImageIsMask(image) && CGImageGetWidth(nil) == 0)
    }
}

/// Counts release callbacks through the info pointer.
let countRelease: CGDataProviderReleaseDataCallback = { info, _, _ in
    info!.assumingMemoryBound(to: Int.self).pointee += 1
}

@Suite struct CGDataProviderTests {
    @Test func directProviderUsesBytesInPlaceAndReleasesOnce() throws {
        let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        counter.initialize(to: 0)
        defer { counter.deallocate() }
        let content = (0..<64).map { UInt8($0 * 3) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyMemory(from: content, byteCount: 64)
        do {
            let provider = try #require(CGDataProvider(dataInfo: counter, data: buffer, size: 64, releaseData: countRelease))
            #expect(provider.info == UnsafeMutableRawPointer(counter))
            let image = try #require(CGImage(width: 4, height: 4, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 16,
                                             space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: CGBitmapInfo(rawValue: rgba),
                                             provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent))
            #expect(pixels(image) == content)
            // The bytes are used in place: a change to the buffer shows through.
            buffer.storeBytes(of: 1, toByteOffset: 0, as: UInt8.self)
            #expect(pixels(image)[0] == 1)
            #expect(counter.pointee == 0)
        }
        #expect(counter.pointee == 1)
    }

    @Test func emptyDirectProviderStillReleasesOnce() {
        let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        counter.initialize(to: 0)
        defer { counter.deallocate() }
        let byte = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { byte.deallocate() }
        do {
            let provider = CGDataProviderCreateWithData(counter, byte, 0, countRelease)
            #expect(provider?.data?.length == 0)
        }
        #expect(counter.pointee == 1)
    }

    @Test func copyDataAndCFData() throws {
        let provider = try #require(CGDataProviderCreateWithCFData(Data([1, 2, 3]) as CFData))
        #expect(CGDataProviderCopyData(provider).map { $0 as Data } == Data([1, 2, 3]))
        #expect(provider.data as Data? == Data([1, 2, 3]))
        #expect(CGDataProviderCreateWithData(nil, nil, 3, nil) == nil)
    }
}
