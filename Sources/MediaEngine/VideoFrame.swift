// VideoFrame: decoded FFmpeg frames ↔ Core Video pixel buffers without copying pixels.
internal import CFFmpeg
import CoreVideo

/// Moves pictures between FFmpeg's `AVFrame` and `CVPixelBuffer` by reference.
///
/// - Decoder → pixel buffer (`makePixelBuffer(from:)`): the buffer's planes are the frame's
///   planes. A new frame reference (`av_frame_clone`) is owned by the pixel storage and released
///   (`av_frame_free`) when the last pixel buffer using it goes away, so the decoder can free or
///   reuse its own frame at once. Frames whose format has no Core Video equivalent are
///   converted, and frames with negative line sizes or without reference-counted buffers are
///   copied, into freshly allocated buffers.
/// - Pixel buffer → encoder (`makeFrame(referencing:)`): the frame's planes are the buffer's
///   planes, each wrapped by `av_buffer_create` with a free callback that releases a retain on
///   the pixel buffer, so the buffer lives as long as any frame reference does.
package enum VideoFrame {
    // MARK: AVFrame → CVPixelBuffer

    /// A pixel buffer showing `frame`'s picture, with colour attachments from the frame's
    /// fields. Zero-copy when `canWrapWithoutCopy(frame)`; otherwise converted or copied.
    static func makePixelBuffer(from frame: UnsafePointer<AVFrame>, converter: PixelConverter = .shared)
        throws(PixelConversionError) -> CVPixelBuffer {
        MediaEngine.configure()
        let f = frame.pointee
        guard f.width > 0, f.height > 0, f.format >= 0 else { throw .invalidBuffer }
        let format = AVPixelFormat(rawValue: f.format)
        guard let desc = av_pix_fmt_desc_get(format) else { throw .unsupportedFFmpegFormat(f.format) }
        if desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) != 0 { throw .unsupportedFFmpegFormat(f.format) }
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || format == AV_PIX_FMT_YUVJ420P
        let buffer: CVPixelBuffer
        if let pixelFormat = PixelFormat.pixelFormatType(for: format, fullRange: fullRange),
           let layout = CVPixelFormatLayout.layout(for: pixelFormat) {
            if canWrapWithoutCopy(frame) {
                buffer = try wrap(frame, layout: layout)
            } else {
                buffer = try copy(frame, layout: layout)
            }
        } else {
            let target = fallbackPixelFormat(for: desc.pointee, fullRange: fullRange)
            buffer = try PixelConverter.allocatePixelBuffer(pixelFormat: target, width: Int(f.width), height: Int(f.height))
            let matrix = PixelFormatColor.Matrix(f.colorspace) ?? .defaultMatrix(height: Int(f.height))
            let image = PixelImage(format: format, width: Int(f.width), height: Int(f.height), fullRange: fullRange,
                                   matrix: matrix, data: dataPointers(frame), linesize: lineSizes(frame))
            if PixelFormat.isYCbCr(format) || PixelFormat.isYCbCr(target) {
                PixelFormatColor.setAttachment(PixelFormatColor.matrixKey, matrix.rawValue, on: buffer)
            }
            try converter.convert(image, into: buffer)
        }
        setColorAttachments(from: frame, on: buffer)
        return buffer
    }

    /// Whether `makePixelBuffer(from:)` can share `frame`'s memory: its format has a Core Video
    /// equivalent, every plane is reference counted and every line size is positive.
    static func canWrapWithoutCopy(_ frame: UnsafePointer<AVFrame>) -> Bool {
        let f = frame.pointee
        let format = AVPixelFormat(rawValue: f.format)
        let fullRange = f.color_range == AVCOL_RANGE_JPEG || format == AV_PIX_FMT_YUVJ420P
        guard f.hw_frames_ctx == nil, let pixelFormat = PixelFormat.pixelFormatType(for: format, fullRange: fullRange),
              let layout = CVPixelFormatLayout.layout(for: pixelFormat) else { return false }
        let data = dataPointers(frame), lines = lineSizes(frame), bufs = bufferRefs(frame)
        for i in layout.planes.indices where data[i] == nil || lines[i] <= 0 { return false }
        return bufs[0] != nil
    }

    /// The Core Video format a frame of an unmapped FFmpeg format is converted to: BGRA for RGB
    /// and 4:4:4, OneComponent8 for grey, 10-bit 4:2:0 ('x420'/'xf20') above 8 bits, and 8-bit
    /// 4:2:2 ('422v'/'422f') or 4:2:0 ('420v'/'420f') by subsampling.
    static func fallbackPixelFormat(for desc: AVPixFmtDescriptor, fullRange: Bool) -> OSType {
        let isRGB = desc.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        let hasAlpha = desc.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
        if desc.nb_components <= 2 && !isRGB { return hasAlpha ? OSType(fourCC: "BGRA") : OSType(fourCC: "L008") }
        if isRGB || desc.log2_chroma_w == 0 { return OSType(fourCC: "BGRA") }
        if desc.comp.0.depth > 8 { return fullRange ? OSType(fourCC: "xf20") : OSType(fourCC: "x420") }
        if desc.log2_chroma_h == 0 { return fullRange ? OSType(fourCC: "422f") : OSType(fourCC: "422v") }
        return fullRange ? OSType(fourCC: "420f") : OSType(fourCC: "420v")
    }

    /// Storage over a new reference to the frame's buffers.
    private static func wrap(_ frame: UnsafePointer<AVFrame>, layout: CVPixelFormatLayout)
        throws(PixelConversionError) -> CVPixelBuffer {
        guard let clone = av_frame_clone(frame) else { throw .allocationFailed }
        let reference = FrameReference(clone)
        let width = Int(clone.pointee.width), height = Int(clone.pointee.height)
        let data = dataPointers(clone), lines = lineSizes(clone)
        var planes: [CVPixelStorage.Plane] = []
        var dataSize = 0
        for (i, plane) in layout.planes.enumerated() {
            guard let base = data[i] else { throw .invalidBuffer }
            let rows = plane.height(forImageHeight: height)
            planes.append(CVPixelStorage.Plane(baseAddress: UnsafeMutableRawPointer(base),
                                               width: plane.width(forImageWidth: width), height: rows,
                                               bytesPerRow: Int(lines[i])))
            dataSize += rows * Int(lines[i])
        }
        let storage = CVPixelStorage(width: width, height: height, pixelFormat: layout.pixelFormat, planes: planes,
                                     baseAddress: layout.isPlanar ? nil : planes[0].baseAddress, dataSize: dataSize,
                                     release: { reference.free() })
        return CVBuffer(storage: storage)
    }

    /// A new buffer holding a copy of the frame's planes (for negative line sizes or frames
    /// without reference-counted buffers).
    private static func copy(_ frame: UnsafePointer<AVFrame>, layout: CVPixelFormatLayout)
        throws(PixelConversionError) -> CVPixelBuffer {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let buffer = try PixelConverter.allocatePixelBuffer(pixelFormat: layout.pixelFormat, width: width, height: height)
        guard let storage = buffer.storage else { throw .allocationFailed }
        let data = dataPointers(frame), lines = lineSizes(frame)
        for (i, plane) in layout.planes.enumerated() {
            guard let base = data[i] else { throw .invalidBuffer }
            let bytes = plane.minimumBytesPerRow(forImageWidth: width)
            for row in 0..<plane.height(forImageHeight: height) {
                memcpy(storage.planes[i].baseAddress + row * storage.planes[i].bytesPerRow, base + row * Int(lines[i]), bytes)
            }
        }
        return buffer
    }

    /// Attaches the frame's colour description (matrix, primaries, transfer function, chroma
    /// siting, pixel aspect ratio) as Core Video attachments; unspecified fields attach nothing.
    static func setColorAttachments(from frame: UnsafePointer<AVFrame>, on buffer: CVPixelBuffer) {
        let f = frame.pointee
        var values: [String: Any] = [:]
        if PixelFormat.isYCbCr(AVPixelFormat(rawValue: f.format)), let m = PixelFormatColor.Matrix(f.colorspace) {
            values[PixelFormatColor.matrixKey] = m.rawValue
        }
        if let p = PixelFormatColor.primaries(f.color_primaries) { values[PixelFormatColor.primariesKey] = p }
        if let t = PixelFormatColor.transferFunction(f.color_trc) {
            values[PixelFormatColor.transferFunctionKey] = t
            if t == "UseGamma" {
                values[PixelFormatColor.gammaLevelKey] = NSNumber(value: f.color_trc == AVCOL_TRC_GAMMA28 ? 2.8 : 2.2)
            }
        }
        if let c = PixelFormatColor.chromaLocation(f.chroma_location) {
            values[PixelFormatColor.chromaLocationTopFieldKey] = c
            values[PixelFormatColor.chromaLocationBottomFieldKey] = c
        }
        // The bitstream's ratio, dropped when implausible (see StreamInfo.plausibleAspectRatio):
        // it sizes the buffer's display size (CVImageBufferGetDisplaySize).
        let sar = f.sample_aspect_ratio
        if sar.num > 0, sar.den > 0, sar.num == sar.den || StreamInfo.plausibleAspectRatio(Int(sar.num), Int(sar.den)) != nil {
            values[PixelFormatColor.pixelAspectRatioKey] = ["HorizontalSpacing": NSNumber(value: sar.num),
                                                            "VerticalSpacing": NSNumber(value: sar.den)] as [String: Any]
        }
        buffer.mutex.lock()
        for (k, v) in values { buffer.attachmentsByMode[.shouldPropagate, default: [:]][k] = v }
        buffer.mutex.unlock()
    }

    // MARK: CVPixelBuffer → AVFrame

    /// A new frame whose planes are `buffer`'s planes (no copy). Each plane's `AVBufferRef` holds
    /// a retain on the pixel buffer, released by its free callback; the buffers are read-only.
    /// Free the frame with `av_frame_free`. Formats without an FFmpeg layout (`b64a`) throw.
    static func makeFrame(referencing buffer: CVPixelBuffer) throws(PixelConversionError)
        -> UnsafeMutablePointer<AVFrame> {
        MediaEngine.configure()
        guard let storage = buffer.storage else { throw .invalidBuffer }
        guard let mapping = PixelFormat.mapping(for: storage.pixelFormat) else {
            throw .unsupportedPixelFormat(storage.pixelFormat)
        }
        guard let frame = av_frame_alloc() else { throw .allocationFailed }
        frame.pointee.format = Int32(mapping.avFormat.rawValue)
        frame.pointee.width = Int32(storage.width)
        frame.pointee.height = Int32(storage.height)
        let isYCbCr = PixelFormat.isYCbCr(storage.pixelFormat)
        if isYCbCr {
            frame.pointee.color_range = mapping.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
            let matrix = PixelFormatColor.attachedMatrix(of: buffer) ?? .defaultMatrix(height: storage.height)
            frame.pointee.colorspace = matrix.avColorSpace
            frame.pointee.chroma_location = PixelFormatColor.avChromaLocation(
                PixelFormatColor.attachment(PixelFormatColor.chromaLocationTopFieldKey, of: buffer) as? String)
        }
        frame.pointee.color_primaries = PixelFormatColor.avPrimaries(
            PixelFormatColor.attachment(PixelFormatColor.primariesKey, of: buffer) as? String)
        let gamma = (PixelFormatColor.attachment(PixelFormatColor.gammaLevelKey, of: buffer) as? NSNumber)?.doubleValue
        frame.pointee.color_trc = PixelFormatColor.avTransferFunction(
            PixelFormatColor.attachment(PixelFormatColor.transferFunctionKey, of: buffer) as? String, gamma: gamma)
        for (i, plane) in storage.planes.enumerated() {
            let opaque = Unmanaged.passRetained(buffer).toOpaque()
            let base = plane.baseAddress.assumingMemoryBound(to: UInt8.self)
            guard let ref = av_buffer_create(base, plane.bytesPerRow * plane.height, releasePixelBuffer, opaque,
                                             Int32(AV_BUFFER_FLAG_READONLY)) else {
                Unmanaged<CVBuffer>.fromOpaque(opaque).release()
                var owned: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&owned)
                throw .allocationFailed
            }
            withUnsafeMutableBytes(of: &frame.pointee.buf) {
                $0.storeBytes(of: ref, toByteOffset: i * MemoryLayout<UnsafeMutablePointer<AVBufferRef>?>.stride,
                              as: UnsafeMutablePointer<AVBufferRef>?.self)
            }
            withUnsafeMutableBytes(of: &frame.pointee.data) {
                $0.storeBytes(of: base, toByteOffset: i * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                              as: UnsafeMutablePointer<UInt8>?.self)
            }
            withUnsafeMutableBytes(of: &frame.pointee.linesize) {
                $0.storeBytes(of: Int32(plane.bytesPerRow), toByteOffset: i * MemoryLayout<Int32>.stride, as: Int32.self)
            }
        }
        return frame
    }

    // MARK: Field access

    /// The frame's eight data pointers.
    static func dataPointers(_ frame: UnsafePointer<AVFrame>) -> [UnsafeMutablePointer<UInt8>?] {
        withUnsafeBytes(of: frame.pointee.data) { raw in
            (0..<Int(AV_NUM_DATA_POINTERS)).map {
                raw.load(fromByteOffset: $0 * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride,
                         as: UnsafeMutablePointer<UInt8>?.self)
            }
        }
    }

    /// The frame's eight line sizes.
    static func lineSizes(_ frame: UnsafePointer<AVFrame>) -> [Int32] {
        withUnsafeBytes(of: frame.pointee.linesize) { raw in
            (0..<Int(AV_NUM_DATA_POINTERS)).map { raw.load(fromByteOffset: $0 * MemoryLayout<Int32>.stride, as: Int32.self) }
        }
    }

    /// The frame's eight buffer references.
    static func bufferRefs(_ frame: UnsafePointer<AVFrame>) -> [UnsafeMutablePointer<AVBufferRef>?] {
        withUnsafeBytes(of: frame.pointee.buf) { raw in
            (0..<Int(AV_NUM_DATA_POINTERS)).map {
                raw.load(fromByteOffset: $0 * MemoryLayout<UnsafeMutablePointer<AVBufferRef>?>.stride,
                         as: UnsafeMutablePointer<AVBufferRef>?.self)
            }
        }
    }
}

/// A frame reference owned by pixel storage; freed once, when the storage goes away.
private final class FrameReference: @unchecked Sendable {
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let lock = NSLock()

    init(_ frame: UnsafeMutablePointer<AVFrame>) { self.frame = frame }

    func free() {
        lock.withLock { av_frame_free(&frame) }
    }
}

/// The `av_buffer_create` free callback of planes that reference a pixel buffer: drops the
/// retain taken when the frame was made.
private func releasePixelBuffer(_ opaque: UnsafeMutableRawPointer?, _ data: UnsafeMutablePointer<UInt8>?) {
    guard let opaque else { return }
    Unmanaged<CVBuffer>.fromOpaque(opaque).release()
}
