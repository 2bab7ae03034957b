// BlackFrame: fills a pixel buffer of any format the converter writes with black — what a video
// composition shows where no instruction applies, as Apple's does.
import CoreVideo
import Foundation
internal import MediaEngine

enum BlackFrame {
    /// Fills `buffer` with opaque black: a small video-range Y'CbCr black picture (set with
    /// `memset`, plane by plane) converted into it by the shared converter, which writes every
    /// layout it knows, alpha opaque.
    static func fill(_ buffer: CVPixelBuffer) throws {
        var small: CVPixelBuffer?
        guard CVPixelBufferCreate(nil, 16, 16, kCVPixelFormatType_420YpCbCr8Planar, nil, &small) == kCVReturnSuccess,
              let small else { throw PixelConversionError.allocationFailed }
        CVPixelBufferLockBaseAddress(small, [])
        for plane in 0..<CVPixelBufferGetPlaneCount(small) {
            guard let base = CVPixelBufferGetBaseAddressOfPlane(small, plane) else { continue }
            memset(base, plane == 0 ? 16 : 128, CVPixelBufferGetBytesPerRowOfPlane(small, plane) * CVPixelBufferGetHeightOfPlane(small, plane))
        }
        CVPixelBufferUnlockBaseAddress(small, [])
        var options = PixelConverter.Options()
        options.propagateAttachments = false
        try PixelConverter.shared.transfer(from: small, to: buffer, options: options)
    }
}
