// VTCreateCGImageFromCVPixelBuffer: a CGImage of a pixel buffer's picture.
import CoreGraphics
import CoreVideo
internal import MediaEngine

/// Creates a CGImage of `pixelBuffer`'s picture: 8-bit BGRA (`byteOrder32Little`), with
/// `premultipliedFirst` alpha for formats with alpha and `noneSkipFirst` for the others;
/// Y'CbCr is converted with the buffer's matrix (BT.601 under 720 rows, BT.709 otherwise when
/// unattached). `options` is reserved, as on Apple platforms, and ignored.
@discardableResult
public func VTCreateCGImageFromCVPixelBuffer(_ pixelBuffer: CVPixelBuffer, options: CFDictionary?,
                                             imageOut: UnsafeMutablePointer<CGImage?>) -> OSStatus {
    do {
        imageOut.pointee = try PixelConverter.shared.makeCGImage(from: pixelBuffer)
        return noErr
    } catch {
        imageOut.pointee = nil
        return error.osStatus
    }
}
