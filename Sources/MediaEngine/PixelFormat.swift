// PixelFormat: Core Video pixel format codes ↔ FFmpeg pixel formats. The range (video or full)
// is part of Apple's code ('420v' vs '420f') but a separate field of FFmpeg frames, so it is
// carried next to the FFmpeg format.
internal import CFFmpeg
import CoreVideo

/// The mapping between Core Video pixel format types and FFmpeg's `AVPixelFormat`.
///
/// | Core Video | FFmpeg | range |
/// |---|---|---|
/// | `BGRA` 32BGRA | `AV_PIX_FMT_BGRA` | full |
/// | 32 (32ARGB) | `AV_PIX_FMT_ARGB` | full |
/// | `RGBA` | `AV_PIX_FMT_RGBA` | full |
/// | `ABGR` | `AV_PIX_FMT_ABGR` | full |
/// | 24 (24RGB) | `AV_PIX_FMT_RGB24` | full |
/// | `24BG` | `AV_PIX_FMT_BGR24` | full |
/// | `L008` OneComponent8 | `AV_PIX_FMT_GRAY8` | full |
/// | `2vuy` | `AV_PIX_FMT_UYVY422` | video |
/// | `yuvs` | `AV_PIX_FMT_YUYV422` | video |
/// | `420v` / `420f` | `AV_PIX_FMT_NV12` | video / full |
/// | `422v` / `422f` | `AV_PIX_FMT_NV16` | video / full |
/// | `x420` / `xf20` | `AV_PIX_FMT_P010LE` | video / full |
/// | `y420` / `f420` | `AV_PIX_FMT_YUV420P` | video / full |
///
/// `b64a` (64ARGB: 16-bit big-endian A, R, G, B) has no FFmpeg 5.1 equivalent — FFmpeg's 16-bit
/// RGB formats put alpha last — so it is unmapped here; `PixelConverter` reaches it by reversing
/// each pixel's bytes to and from `AV_PIX_FMT_BGRA64LE`. Likewise libswscale 5.1 cannot read or
/// write NV16, so the converter passes `422v`/`422f` through `AV_PIX_FMT_YUV422P`, its chroma
/// (de)interleaved as NV24 (see PixelRepack.swift).
package enum PixelFormat {
    /// One mapped format: FFmpeg's layout and whether samples use the full range.
    package struct Mapping: Sendable, Equatable {
        /// FFmpeg's pixel format with the same memory layout.
        var avFormat: AVPixelFormat
        /// True for full range (0–255 luma, or RGB), false for video range (16–235 luma).
        package var fullRange: Bool
    }

    /// The FFmpeg pixel format (and range) laid out exactly like `pixelFormat`; nil when FFmpeg
    /// has no identical layout (`b64a`) or the code is not a supported format.
    package static func mapping(for pixelFormat: OSType) -> Mapping? {
        switch pixelFormat {
        case OSType(fourCC: "BGRA"): return Mapping(avFormat: AV_PIX_FMT_BGRA, fullRange: true)
        case 0x0000_0020: return Mapping(avFormat: AV_PIX_FMT_ARGB, fullRange: true)
        case OSType(fourCC: "RGBA"): return Mapping(avFormat: AV_PIX_FMT_RGBA, fullRange: true)
        case OSType(fourCC: "ABGR"): return Mapping(avFormat: AV_PIX_FMT_ABGR, fullRange: true)
        case 0x0000_0018: return Mapping(avFormat: AV_PIX_FMT_RGB24, fullRange: true)
        case OSType(fourCC: "24BG"): return Mapping(avFormat: AV_PIX_FMT_BGR24, fullRange: true)
        case OSType(fourCC: "L008"): return Mapping(avFormat: AV_PIX_FMT_GRAY8, fullRange: true)
        case OSType(fourCC: "2vuy"): return Mapping(avFormat: AV_PIX_FMT_UYVY422, fullRange: false)
        case OSType(fourCC: "yuvs"): return Mapping(avFormat: AV_PIX_FMT_YUYV422, fullRange: false)
        case OSType(fourCC: "420v"): return Mapping(avFormat: AV_PIX_FMT_NV12, fullRange: false)
        case OSType(fourCC: "420f"): return Mapping(avFormat: AV_PIX_FMT_NV12, fullRange: true)
        case OSType(fourCC: "422v"): return Mapping(avFormat: AV_PIX_FMT_NV16, fullRange: false)
        case OSType(fourCC: "422f"): return Mapping(avFormat: AV_PIX_FMT_NV16, fullRange: true)
        case OSType(fourCC: "x420"): return Mapping(avFormat: AV_PIX_FMT_P010LE, fullRange: false)
        case OSType(fourCC: "xf20"): return Mapping(avFormat: AV_PIX_FMT_P010LE, fullRange: true)
        case OSType(fourCC: "y420"): return Mapping(avFormat: AV_PIX_FMT_YUV420P, fullRange: false)
        case OSType(fourCC: "f420"): return Mapping(avFormat: AV_PIX_FMT_YUV420P, fullRange: true)
        default: return nil
        }
    }

    /// The FFmpeg pixel format laid out like `pixelFormat`, nil when there is none.
    static func avPixelFormat(for pixelFormat: OSType) -> AVPixelFormat? {
        mapping(for: pixelFormat)?.avFormat
    }

    /// The Core Video pixel format type laid out like `format` with the given range; nil when
    /// Core Video has no such format. `AV_PIX_FMT_YUVJ420P` (FFmpeg's full-range 4:2:0 tag) maps
    /// to `f420` whatever `fullRange` says. Packed 4:2:2 Y'CbCr has only video-range codes.
    static func pixelFormatType(for format: AVPixelFormat, fullRange: Bool) -> OSType? {
        switch format {
        case AV_PIX_FMT_BGRA: return OSType(fourCC: "BGRA")
        case AV_PIX_FMT_ARGB: return 0x0000_0020
        case AV_PIX_FMT_RGBA: return OSType(fourCC: "RGBA")
        case AV_PIX_FMT_ABGR: return OSType(fourCC: "ABGR")
        case AV_PIX_FMT_RGB24: return 0x0000_0018
        case AV_PIX_FMT_BGR24: return OSType(fourCC: "24BG")
        case AV_PIX_FMT_GRAY8: return OSType(fourCC: "L008")
        case AV_PIX_FMT_UYVY422: return fullRange ? nil : OSType(fourCC: "2vuy")
        case AV_PIX_FMT_YUYV422: return fullRange ? nil : OSType(fourCC: "yuvs")
        case AV_PIX_FMT_NV12: return fullRange ? OSType(fourCC: "420f") : OSType(fourCC: "420v")
        case AV_PIX_FMT_NV16: return fullRange ? OSType(fourCC: "422f") : OSType(fourCC: "422v")
        case AV_PIX_FMT_P010LE: return fullRange ? OSType(fourCC: "xf20") : OSType(fourCC: "x420")
        case AV_PIX_FMT_YUV420P: return fullRange ? OSType(fourCC: "f420") : OSType(fourCC: "y420")
        case AV_PIX_FMT_YUVJ420P: return OSType(fourCC: "f420")
        default: return nil
        }
    }

    /// Whether samples of `pixelFormat` use the full range (true for RGB and grey formats).
    package static func isFullRange(_ pixelFormat: OSType) -> Bool {
        CVPixelFormatLayout.layout(for: pixelFormat)?.isFullRange ?? true
    }

    /// Whether `pixelFormat` stores Y'CbCr.
    package static func isYCbCr(_ pixelFormat: OSType) -> Bool {
        CVPixelFormatLayout.layout(for: pixelFormat)?.isYCbCr ?? false
    }

    /// Whether an FFmpeg format stores Y'CbCr (not RGB, not grey, not a hardware surface).
    static func isYCbCr(_ format: AVPixelFormat) -> Bool {
        guard let desc = av_pix_fmt_desc_get(format) else { return false }
        let flags = desc.pointee.flags
        return flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0
            && desc.pointee.nb_components >= 3
    }

    /// Every Core Video pixel format the engine converts between.
    package static var supportedPixelFormatTypes: [OSType] {
        CVPixelFormatLayout.supportedPixelFormats
    }
}
