// PixelConversionError: why a pixel conversion failed, and the VideoToolbox status it maps to.
import CoreVideo

/// A failed pixel conversion.
package enum PixelConversionError: Error, Sendable, Equatable {
    /// The pixel buffer holds no pixels, or a size or rectangle is empty or out of bounds.
    case invalidBuffer
    /// A Core Video pixel format the engine cannot convert from or to.
    case unsupportedPixelFormat(OSType)
    /// A CGImage layout the engine cannot read (bits per component/pixel, alpha and byte order).
    case unsupportedImageLayout
    /// An FFmpeg pixel format libswscale cannot read or write.
    case unsupportedFFmpegFormat(Int32)
    /// Memory could not be allocated.
    case allocationFailed
    /// An FFmpeg call failed.
    case ffmpeg(FFmpegError)

    /// The VideoToolbox status for this error: `kVTParameterErr` (-12902) for bad buffers,
    /// `kVTAllocationFailedErr` (-12904) when out of memory, `kVTPixelTransferNotSupportedErr`
    /// (-12905) for unsupported formats and failed conversions.
    package var osStatus: OSStatus {
        switch self {
        case .invalidBuffer: return -12902
        case .allocationFailed: return -12904
        case .unsupportedPixelFormat, .unsupportedImageLayout, .unsupportedFFmpegFormat, .ffmpeg: return -12905
        }
    }
}
