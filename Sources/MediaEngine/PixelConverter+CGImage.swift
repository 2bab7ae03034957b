// Pixel buffers ↔ CGImages, through the public CGImage API and libswscale.
internal import CFFmpeg
import CoreGraphics
import CoreVideo

extension PixelConverter {
    /// A CGImage of `buffer`'s picture, as `VTCreateCGImageFromCVPixelBuffer` gives: 8-bit BGRA
    /// (`byteOrder32Little`), `premultipliedFirst` when the format has alpha and `noneSkipFirst`
    /// otherwise. Y'CbCr and other layouts are converted to BGRA first (opaque). The image owns a
    /// copy of the pixels. Its colour space follows the buffer's primaries attachment (sRGB when
    /// there is none or it is unknown).
    package func makeCGImage(from buffer: CVPixelBuffer) throws(PixelConversionError) -> CGImage {
        guard let s = buffer.storage else { throw .invalidBuffer }
        guard let layout = CVPixelFormatLayout.layout(for: s.pixelFormat) else { throw .unsupportedPixelFormat(s.pixelFormat) }
        let bytesPerRow = s.width * 4
        let count = bytesPerRow * s.height
        guard let bytes = malloc(count) else { throw .allocationFailed }
        if s.pixelFormat == OSType(fourCC: "BGRA") {
            for row in 0..<s.height {
                memcpy(bytes + row * bytesPerRow, s.planes[0].baseAddress + row * s.planes[0].bytesPerRow, bytesPerRow)
            }
        } else {
            let image = PixelImage(format: AV_PIX_FMT_BGRA, width: s.width, height: s.height, fullRange: true,
                                   matrix: .defaultMatrix(height: s.height),
                                   data: [bytes.assumingMemoryBound(to: UInt8.self)], linesize: [Int32(bytesPerRow)])
            do {
                try convert(buffer, into: image)
            } catch {
                free(bytes)
                throw error
            }
        }
        let data = Data(bytesNoCopy: bytes, count: count, deallocator: .free)
        let alpha: CGImageAlphaInfo = layout.hasAlpha ? .premultipliedFirst : .noneSkipFirst
        let info = CGBitmapInfo(rawValue: CGBitmapInfo.byteOrder32Little.rawValue | alpha.rawValue)
        guard let image = CGImage(width: s.width, height: s.height, bitsPerComponent: 8, bitsPerPixel: 32,
                                  bytesPerRow: bytesPerRow, space: PixelFormatColor.colorSpace(of: buffer), bitmapInfo: info,
                                  provider: CGDataProvider(bytes: data), decode: nil, shouldInterpolate: true,
                                  intent: .defaultIntent)
        else { throw .allocationFailed }
        return image
    }

    /// A new pixel buffer of `pixelFormat` (at `width`×`height`, default the image's size)
    /// holding `image` converted. Reads 8-bit RGBA/ARGB/BGRA/ABGR in any of the alpha placements
    /// (skipped alpha becomes opaque), 24-bit RGB, 8-bit grey, and 16-bit RGBA/RGB. Premultiplied
    /// components are copied as they are.
    package func makePixelBuffer(from image: CGImage, pixelFormat: OSType, width: Int? = nil, height: Int? = nil)
        throws(PixelConversionError) -> CVPixelBuffer {
        guard let format = Self.avPixelFormat(for: image) else { throw .unsupportedImageLayout }
        let buffer = try Self.allocatePixelBuffer(pixelFormat: pixelFormat, width: width ?? image.width,
                                                  height: height ?? image.height)
        if PixelFormat.isYCbCr(pixelFormat) {
            PixelFormatColor.setAttachment(PixelFormatColor.matrixKey,
                                           PixelFormatColor.Matrix.defaultMatrix(height: height ?? image.height).rawValue,
                                           on: buffer)
        }
        let bytes = image.bytes
        guard bytes.count >= image.bytesPerRow * (image.height - 1) + (image.width * image.bitsPerPixel + 7) / 8 else {
            throw .invalidBuffer
        }
        var failure: PixelConversionError?
        let deep: Set<OSType> = [OSType(fourCC: "b64a"), OSType(fourCC: "x420"), OSType(fourCC: "xf20")]
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { failure = .invalidBuffer; return }
            var source = PixelImage(format: format, width: image.width, height: image.height, fullRange: true,
                                    matrix: .defaultMatrix(height: image.height),
                                    data: [UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))],
                                    linesize: [Int32(image.bytesPerRow)])
            // 16-bit RGB into an 8-bit destination: round to 8 bits here (`narrow16`), as
            // libswscale's 16-bit RGB input path is off by one for some values.
            var narrowed: PixelImageStorage?
            do throws(PixelConversionError) {
                if image.bitsPerComponent == 16, !deep.contains(pixelFormat) {
                    let components = image.bitsPerPixel / 16
                    guard let temp = PixelImageStorage(format: components == 4 ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24,
                                                       width: image.width, height: image.height, fullRange: true,
                                                       matrix: source.matrix) else { throw .allocationFailed }
                    try narrow16(source: base, sourceBytesPerRow: image.bytesPerRow,
                                 bigEndian: format == AV_PIX_FMT_RGBA64BE || format == AV_PIX_FMT_RGB48BE,
                                 destination: temp.image.data[0]!, destinationBytesPerRow: Int(temp.image.linesize[0]),
                                 count: image.width * components, height: image.height)
                    source = temp.image
                    narrowed = temp
                }
                try convert(source, into: buffer)
            } catch {
                failure = error
            }
            withExtendedLifetime(narrowed) {}
        }
        if let failure { throw failure }
        return buffer
    }

    /// The FFmpeg pixel format with `image`'s memory layout; nil for layouts not handled.
    static func avPixelFormat(for image: CGImage) -> AVPixelFormat? {
        let alpha = image.alphaInfo
        let order = image.byteOrderInfo
        let first = [.premultipliedFirst, .first, .noneSkipFirst].contains(alpha)
        let last = [.premultipliedLast, .last, .noneSkipLast].contains(alpha)
        let skip = alpha == .noneSkipFirst || alpha == .noneSkipLast
        guard image.bitmapInfo.rawValue & CGBitmapInfo.floatComponents.rawValue == 0 else { return nil }
        switch (image.bitsPerComponent, image.bitsPerPixel) {
        case (8, 32):
            switch order {
            case .order32Little:
                if first { return skip ? AV_PIX_FMT_BGR0 : AV_PIX_FMT_BGRA }
                if last { return skip ? AV_PIX_FMT_0BGR : AV_PIX_FMT_ABGR }
            case .orderDefault, .order32Big:
                if first { return skip ? AV_PIX_FMT_0RGB : AV_PIX_FMT_ARGB }
                if last { return skip ? AV_PIX_FMT_RGB0 : AV_PIX_FMT_RGBA }
            default: break
            }
            return nil
        case (8, 24):
            return alpha == .none && image.colorSpace?.model != .monochrome ? AV_PIX_FMT_RGB24 : nil
        case (8, 8):
            return alpha == .none && (image.colorSpace?.model ?? .monochrome) == .monochrome ? AV_PIX_FMT_GRAY8 : nil
        case (16, 64):
            guard alpha == .premultipliedLast || alpha == .last else { return nil }
            switch order {
            case .orderDefault, .order16Big: return AV_PIX_FMT_RGBA64BE
            case .order16Little: return AV_PIX_FMT_RGBA64LE
            default: return nil
            }
        case (16, 48):
            guard alpha == .none else { return nil }
            switch order {
            case .orderDefault, .order16Big: return AV_PIX_FMT_RGB48BE
            case .order16Little: return AV_PIX_FMT_RGB48LE
            default: return nil
            }
        default:
            return nil
        }
    }


}
