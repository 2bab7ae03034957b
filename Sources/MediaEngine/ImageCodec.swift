// ImageCodec: still images in and out of FFmpeg. Decoding goes through libavcodec's image
// decoders (send packet / receive frame) and libswscale into the bitmap layouts Apple's ImageIO
// hands out; encoding converts a CGImage's bytes with libswscale and runs libavcodec's png,
// mjpeg, tiff and bmp encoders.
internal import CFFmpeg
import CoreGraphics
import Foundation

/// Decodes image files into `CGImage`s and encodes `CGImage`s into image files (HEIC through
/// HeifCodec and HeifWriter: libavcodec's hevc decoder and libx265 inside our own boxes).
///
/// Decoded layouts (chosen to match what Apple's `CGImageSourceCreateImageAtIndex` returns):
/// - images with alpha: 8-bit RGBA, `alphaInfo == .last` (not premultiplied), 32 bits per pixel;
///   grey with alpha: 8-bit grey + alpha, `.last`, 16 bits per pixel;
/// - opaque PNG: 8-bit RGB, `.none`, 24 bits per pixel; opaque JPEG, TIFF, GIF, BMP, WebP: 8-bit
///   RGBX, `.noneSkipLast`, 32 bits per pixel;
/// - grey images: 8-bit grey, `.none`, device grey colour space;
/// - 16-bit PNG and TIFF keep 16 bits per component, big-endian (`.byteOrder16Big`).
/// Rows are tightly packed.
package enum ImageCodec {
    /// The JPEG quality used when none is given. Apple does not document its default; 0.75 is
    /// the conventional middle-high setting.
    package static let defaultJPEGQuality = 0.75

    // MARK: Decoding

    /// Decodes image `index` of the file in `data`. Returns nil for unknown, truncated or
    /// corrupt data, an index out of range, or a format FFmpeg cannot decode.
    package static func decode(_ data: Data, index: Int = 0) -> CGImage? {
        MediaEngine.configure()
        guard let header = ImageHeader(data: data) else { return nil }
        return decode(data, header: header, index: index)
    }

    /// Decodes image `index` of `data`, whose headers have already been read.
    package static func decode(_ data: Data, header: ImageHeader, index: Int) -> CGImage? {
        MediaEngine.configure()
        guard header.format.canDecode, header.isComplete, index >= 0, index < header.frameCount else { return nil }
        if header.format == .heic {
            guard let heif = header.heif, index < heif.topLevelImages.count else { return nil }
            return decodeHEIF([UInt8](data), container: heif, item: heif.topLevelImages[index])
        }
        // Sizes stated by the headers must be plausible; formats whose headers were not fully
        // read (width nil) are left to the decoder.
        if let w = header.width, let h = header.height {
            guard w > 0, h > 0, w <= 1 << 16, h <= 1 << 16 else { return nil }
        }
        return decodeFrames(data, header: header, index: index)
    }

    private static func codecID(for format: ImageFormat) -> AVCodecID? {
        switch format {
        case .png: return AV_CODEC_ID_PNG
        case .jpeg: return AV_CODEC_ID_MJPEG
        case .tiff: return AV_CODEC_ID_TIFF
        case .gif: return AV_CODEC_ID_GIF
        case .bmp: return AV_CODEC_ID_BMP
        case .webp: return AV_CODEC_ID_WEBP
        case .heic: return nil
        }
    }

    private static func decodeFrames(_ data: Data, header: ImageHeader, index: Int) -> CGImage? {
        guard let id = codecID(for: header.format), let codec = avcodec_find_decoder(id) else { return nil }
        guard let ctx = avcodec_alloc_context3(codec) else { return nil }
        defer { freeContext(ctx) }
        ctx.pointee.thread_count = 1
        guard avcodec_open2(ctx, codec, nil) >= 0 else { return nil }
        guard let packet = av_packet_alloc() else { return nil }
        defer { freePacket(packet) }
        guard let frame = av_frame_alloc() else { return nil }
        defer { freeFrame(frame) }

        let ranges: [Range<Int>]
        if header.format == .gif, !header.gifFramePackets.isEmpty {
            ranges = Array(header.gifFramePackets.prefix(index + 1))
        } else {
            ranges = [0 ..< data.count]
        }
        var received = 0
        var result: CGImage?
        func drain() -> Bool {
            while true {
                let r = avcodec_receive_frame(ctx, frame)
                if r < 0 { return r == cffmpeg_averror_eagain() || r == cffmpeg_averror_eof() }
                if received == index { result = makeImage(from: frame, format: header.format) }
                received += 1
                av_frame_unref(frame)
            }
        }
        for range in ranges {
            let bytes = data.subdata(in: data.startIndex + range.lowerBound ..< data.startIndex + range.upperBound)
            guard !bytes.isEmpty, bytes.count < Int(Int32.max), av_new_packet(packet, Int32(bytes.count)) >= 0 else {
                return nil
            }
            bytes.withUnsafeBytes { packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
            let sent = avcodec_send_packet(ctx, packet)
            av_packet_unref(packet)
            guard sent >= 0 || sent == cffmpeg_averror_eagain(), drain() else { return nil }
            if result != nil { return result }
        }
        _ = avcodec_send_packet(ctx, nil)
        _ = drain()
        return result
    }

    /// Converts a decoded frame into a CGImage in the layout Apple's ImageIO returns.
    /// `matrix` is the swscale colour space of Y'CbCr sources (BT.601 unless the file says
    /// otherwise); `fullRange` overrides the frame's own range when the container states it.
    static func makeImage(from frame: UnsafeMutablePointer<AVFrame>, format: ImageFormat,
                          matrix: Int32 = SWS_CS_ITU601, fullRange stated: Bool? = nil) -> CGImage? {
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        let source = AVPixelFormat(rawValue: frame.pointee.format)
        guard w > 0, h > 0, let desc = av_pix_fmt_desc_get(source) else { return nil }
        let flags = desc.pointee.flags
        let isPalette = flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0
        let isRGB = flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        var hasAlpha = flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
        if isPalette, let palette = frame.pointee.data.1 {
            hasAlpha = palette.withMemoryRebound(to: UInt32.self, capacity: 256) { p in
                (0 ..< 256).contains { p[$0] >> 24 != 0xFF }
            }
        }
        let isGray = !isPalette && !isRGB && desc.pointee.nb_components <= 2
        let deep = desc.pointee.comp.0.depth > 8 && (format == .png || format == .tiff)

        let target: AVPixelFormat
        let bitsPerPixel: Int
        let alphaInfo: CGImageAlphaInfo
        switch (isGray, hasAlpha, deep) {
        case (true, false, false): (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_GRAY8, 8, .none)
        case (true, true, false): (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_YA8, 16, .last)
        case (true, false, true): (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_GRAY16BE, 16, .none)
        case (true, true, true): (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_YA16BE, 32, .last)
        case (false, true, false): (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_RGBA, 32, .last)
        case (false, true, true): (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_RGBA64BE, 64, .last)
        case (false, false, true): (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_RGB48BE, 48, .none)
        case (false, false, false):
            if format == .png {
                (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_RGB24, 24, .none)
            } else {
                (target, bitsPerPixel, alphaInfo) = (AV_PIX_FMT_RGB0, 32, .noneSkipLast)
            }
        }
        let yuvSource = !isRGB && !isPalette && !isGray
        let fullRange = stated ?? (frame.pointee.color_range == AVCOL_RANGE_JPEG || isJPEGRangeFormat(source))
        guard let out = convert(frame, to: target, width: w, height: h,
                                sourceRange: yuvSource ? (fullRange ? 1 : 0) : nil, matrix: matrix) else { return nil }
        defer { freeFrame(out) }
        let bytesPerRow = w * bitsPerPixel / 8
        let pixels = packedBytes(of: out, rowBytes: bytesPerRow, height: h)
        var info = CGBitmapInfo(alpha: alphaInfo)
        if deep { info.insert(.byteOrder16Big) }
        return CGImage(width: w, height: h, bitsPerComponent: deep ? 16 : 8, bitsPerPixel: bitsPerPixel,
                       bytesPerRow: bytesPerRow, space: isGray ? CGColorSpaceCreateDeviceGray() : CGColorSpaceCreateDeviceRGB(),
                       bitmapInfo: info, provider: CGDataProvider(bytes: pixels), decode: nil,
                       shouldInterpolate: true, intent: .defaultIntent)
    }

    private static func isJPEGRangeFormat(_ f: AVPixelFormat) -> Bool { plainYUV(f) != f }

    /// The plain YUV twin of a deprecated full-range "J" format; other formats unchanged.
    private static func plainYUV(_ f: AVPixelFormat) -> AVPixelFormat {
        switch f {
        case AV_PIX_FMT_YUVJ420P: return AV_PIX_FMT_YUV420P
        case AV_PIX_FMT_YUVJ422P: return AV_PIX_FMT_YUV422P
        case AV_PIX_FMT_YUVJ444P: return AV_PIX_FMT_YUV444P
        case AV_PIX_FMT_YUVJ440P: return AV_PIX_FMT_YUV440P
        case AV_PIX_FMT_YUVJ411P: return AV_PIX_FMT_YUV411P
        default: return f
        }
    }

    // MARK: Conversion helpers

    /// A new frame of `format` holding `source` converted (and scaled to `width`×`height`) by
    /// libswscale. `sourceRange` is set for YUV sources: 1 full range, 0 video range.
    static func convert(_ source: UnsafeMutablePointer<AVFrame>, to format: AVPixelFormat,
                        width: Int, height: Int, sourceRange: Int32?,
                        matrix: Int32 = SWS_CS_ITU601) -> UnsafeMutablePointer<AVFrame>? {
        // The deprecated full-range "J" formats are handed to swscale as their plain twins, with
        // the range given explicitly (swscale otherwise logs a deprecation warning).
        let srcFormat = plainYUV(AVPixelFormat(rawValue: source.pointee.format))
        let savedFormat = source.pointee.format
        source.pointee.format = srcFormat.rawValue
        defer { source.pointee.format = savedFormat }
        guard sws_isSupportedInput(srcFormat) != 0, sws_isSupportedOutput(format) != 0 else { return nil }
        let downscale = width < Int(source.pointee.width) || height < Int(source.pointee.height)
        // Same-size conversions use swscale's defaults (bicubic), as the ffmpeg tool does: chroma is
        // upsampled without smearing colour across block edges.
        let flags = downscale ? SWS_AREA | SWS_ACCURATE_RND : SWS_BICUBIC
        guard let sws = sws_getContext(source.pointee.width, source.pointee.height, srcFormat,
                                       Int32(width), Int32(height), format, flags, nil, nil, nil) else { return nil }
        defer { sws_freeContext(sws) }
        if let sourceRange {
            let coefficients = sws_getCoefficients(matrix)
            _ = sws_setColorspaceDetails(sws, coefficients, sourceRange, coefficients, 1, 0, 1 << 16, 1 << 16)
        }
        guard let out = makeFrame(format: format, width: width, height: height) else { return nil }
        if sws_scale_frame(sws, out, source) < 0 {
            freeFrame(out)
            return nil
        }
        return out
    }

    /// A frame with allocated buffers.
    static func makeFrame(format: AVPixelFormat, width: Int, height: Int) -> UnsafeMutablePointer<AVFrame>? {
        guard let frame = av_frame_alloc() else { return nil }
        frame.pointee.format = format.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        guard av_frame_get_buffer(frame, 0) >= 0 else {
            freeFrame(frame)
            return nil
        }
        return frame
    }

    /// The first plane of a packed frame, rows tightly packed.
    static func packedBytes(of frame: UnsafeMutablePointer<AVFrame>, rowBytes: Int, height: Int) -> Data {
        var out = Data(count: rowBytes * height)
        guard let plane = frame.pointee.data.0 else { return out }
        let stride = Int(frame.pointee.linesize.0)
        out.withUnsafeMutableBytes { dst in
            guard let base = dst.baseAddress else { return }
            for y in 0 ..< height {
                memcpy(base + y * rowBytes, plane + y * stride, rowBytes)
            }
        }
        return out
    }

    /// A frame holding a copy of `image`'s bytes in `layout.pixelFormat`.
    static func frame(from image: CGImage, layout: ImagePixelLayout) -> UnsafeMutablePointer<AVFrame>? {
        guard let frame = makeFrame(format: layout.pixelFormat, width: image.width, height: image.height),
              let plane = frame.pointee.data.0 else { return nil }
        let rowBytes = image.width * image.bitsPerPixel / 8
        let stride = Int(frame.pointee.linesize.0)
        let bytes = image.bytes
        guard rowBytes <= stride, bytes.count >= image.bytesPerRow * (image.height - 1) + rowBytes else {
            freeFrame(frame)
            return nil
        }
        bytes.withUnsafeBytes { src in
            guard let base = src.baseAddress else { return }
            for y in 0 ..< image.height {
                memcpy(plane + y * stride, base + y * image.bytesPerRow, rowBytes)
            }
        }
        return frame
    }

    // MARK: Encoding

    /// Encodes `image` as a `format` file. `quality` (0…1) applies to JPEG; nil means
    /// `defaultJPEGQuality`. Returns nil for layouts the engine cannot read or formats it cannot write.
    ///
    /// PNG keeps alpha (un-premultiplied), grey and 16-bit depth; JPEG is 8-bit full-range
    /// Y'CbCr (4:4:4 at quality 0.9 and above, 4:2:0 below), alpha dropped; TIFF keeps alpha and
    /// depth; BMP is 8-bit BGRA, BGR or grey.
    package static func encode(_ image: CGImage, as format: ImageFormat, quality: Double? = nil) -> Data? {
        MediaEngine.configure()
        if format == .heic { return encodeHEIC(image, quality: quality) }
        guard format.canEncode, let layout = ImagePixelLayout(image: image) else { return nil }
        guard let source = frame(from: image, layout: layout) else { return nil }
        defer { freeFrame(source) }
        let keepsAlpha = layout.hasAlpha && format != .jpeg
        let deep = layout.is16Bit && (format == .png || format == .tiff)

        // Premultiplied colour is divided back by alpha before writing a format that stores alpha.
        var working = source
        var intermediate: UnsafeMutablePointer<AVFrame>?
        defer { if let intermediate { freeFrame(intermediate) } }
        if keepsAlpha && layout.premultiplied {
            let straight: AVPixelFormat = layout.isGray ? (layout.is16Bit ? AV_PIX_FMT_YA16BE : AV_PIX_FMT_YA8)
                : (layout.is16Bit ? AV_PIX_FMT_RGBA64BE : AV_PIX_FMT_RGBA)
            guard let f = convert(source, to: straight, width: image.width, height: image.height, sourceRange: nil) else {
                return nil
            }
            guard let plane = f.pointee.data.0,
                  AlphaUnpremultiply.unpremultiply(plane, width: image.width, height: image.height,
                                                   linesize: Int(f.pointee.linesize.0),
                                                   components: layout.isGray ? 2 : 4, is16Bit: layout.is16Bit)
            else {
                freeFrame(f)
                return nil
            }
            intermediate = f
            working = f
        }

        let target: AVPixelFormat
        let codecID: AVCodecID
        var q = min(max(quality ?? defaultJPEGQuality, 0), 1)
        if q.isNaN { q = defaultJPEGQuality }
        switch format {
        case .png:
            codecID = AV_CODEC_ID_PNG
            switch (layout.isGray, keepsAlpha, deep) {
            case (true, false, false): target = AV_PIX_FMT_GRAY8
            case (true, true, false): target = AV_PIX_FMT_YA8
            case (true, false, true): target = AV_PIX_FMT_GRAY16BE
            case (true, true, true): target = AV_PIX_FMT_YA16BE
            case (false, false, false): target = AV_PIX_FMT_RGB24
            case (false, true, false): target = AV_PIX_FMT_RGBA
            case (false, false, true): target = AV_PIX_FMT_RGB48BE
            case (false, true, true): target = AV_PIX_FMT_RGBA64BE
            }
        case .tiff:
            codecID = AV_CODEC_ID_TIFF
            switch (layout.isGray, keepsAlpha, deep) {
            case (true, false, false): target = AV_PIX_FMT_GRAY8
            case (true, true, false): target = AV_PIX_FMT_YA8
            case (true, false, true): target = AV_PIX_FMT_GRAY16LE
            case (true, true, true): target = AV_PIX_FMT_YA16LE
            case (false, false, false): target = AV_PIX_FMT_RGB24
            case (false, true, false): target = AV_PIX_FMT_RGBA
            case (false, false, true): target = AV_PIX_FMT_RGB48LE
            case (false, true, true): target = AV_PIX_FMT_RGBA64LE
            }
        case .bmp:
            codecID = AV_CODEC_ID_BMP
            target = keepsAlpha ? AV_PIX_FMT_BGRA : layout.isGray ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_BGR24
        case .jpeg:
            codecID = AV_CODEC_ID_MJPEG
            target = q >= 0.9 ? AV_PIX_FMT_YUV444P : AV_PIX_FMT_YUV420P
        default:
            return nil
        }
        // JPEG: RGB → full-range BT.601 Y'CbCr, as JFIF specifies.
        let converted = format == .jpeg ? convertToJPEGYUV(working, target: target)
            : convert(working, to: target, width: image.width, height: image.height, sourceRange: nil)
        guard let encoded = converted else { return nil }
        defer { freeFrame(encoded) }
        return runEncoder(codecID, frame: encoded, jpegQuality: format == .jpeg ? q : nil)
    }

    private static func convertToJPEGYUV(_ source: UnsafeMutablePointer<AVFrame>, target: AVPixelFormat) -> UnsafeMutablePointer<AVFrame>? {
        let srcFormat = AVPixelFormat(rawValue: source.pointee.format)
        let w = source.pointee.width, h = source.pointee.height
        guard let sws = sws_getContext(w, h, srcFormat, w, h, target,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nil, nil, nil) else { return nil }
        defer { sws_freeContext(sws) }
        let coefficients = sws_getCoefficients(SWS_CS_ITU601)
        _ = sws_setColorspaceDetails(sws, coefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16)
        guard let out = makeFrame(format: target, width: Int(w), height: Int(h)) else { return nil }
        if sws_scale_frame(sws, out, source) < 0 {
            freeFrame(out)
            return nil
        }
        out.pointee.color_range = AVCOL_RANGE_JPEG
        return out
    }

    private static func runEncoder(_ id: AVCodecID, frame: UnsafeMutablePointer<AVFrame>, jpegQuality: Double?) -> Data? {
        guard let codec = avcodec_find_encoder(id), let ctx = avcodec_alloc_context3(codec) else { return nil }
        defer { freeContext(ctx) }
        ctx.pointee.width = frame.pointee.width
        ctx.pointee.height = frame.pointee.height
        ctx.pointee.pix_fmt = AVPixelFormat(rawValue: frame.pointee.format)
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        ctx.pointee.thread_count = 1
        if let jpegQuality {
            // Quality 1 → qscale 1 (finest), 0 → 31 (coarsest), linearly.
            let qscale = Int32((1 + (1 - jpegQuality) * 30).rounded())
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = qscale * FF_QP2LAMBDA
            ctx.pointee.qmin = 1
            ctx.pointee.qmax = 31
            ctx.pointee.color_range = AVCOL_RANGE_JPEG
            // Square pixels, so that the encoder writes a JFIF APP0 segment as Apple's does.
            ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
            frame.pointee.quality = ctx.pointee.global_quality
        }
        guard avcodec_open2(ctx, codec, nil) >= 0 else { return nil }
        frame.pointee.pts = 0
        guard avcodec_send_frame(ctx, frame) >= 0, avcodec_send_frame(ctx, nil) >= 0 else { return nil }
        guard let packet = av_packet_alloc() else { return nil }
        defer { freePacket(packet) }
        var out = Data()
        while true {
            let r = avcodec_receive_packet(ctx, packet)
            if r == cffmpeg_averror_eof() { break }
            guard r >= 0 else { return nil }
            if let d = packet.pointee.data { out.append(d, count: Int(packet.pointee.size)) }
            av_packet_unref(packet)
        }
        return out.isEmpty ? nil : out
    }

    // MARK: Scaling

    /// `image` resampled to `width`×`height` by libswscale (area averaging when shrinking,
    /// bicubic when enlarging), in the same layout. Nil for layouts the engine cannot read.
    package static func resized(_ image: CGImage, width: Int, height: Int) -> CGImage? {
        MediaEngine.configure()
        guard width > 0, height > 0, let layout = ImagePixelLayout(image: image),
              let source = frame(from: image, layout: layout) else { return nil }
        defer { freeFrame(source) }
        guard let out = convert(source, to: layout.pixelFormat, width: width, height: height, sourceRange: nil) else {
            return nil
        }
        defer { freeFrame(out) }
        let rowBytes = width * image.bitsPerPixel / 8
        let bytes = packedBytes(of: out, rowBytes: rowBytes, height: height)
        guard let space = image.colorSpace else { return nil }
        return CGImage(width: width, height: height, bitsPerComponent: image.bitsPerComponent,
                       bitsPerPixel: image.bitsPerPixel, bytesPerRow: rowBytes, space: space,
                       bitmapInfo: image.bitmapInfo, provider: CGDataProvider(bytes: bytes), decode: nil,
                       shouldInterpolate: image.shouldInterpolate, intent: image.renderingIntent)
    }

    // MARK: Releasing FFmpeg objects

    static func freeFrame(_ frame: UnsafeMutablePointer<AVFrame>) {
        var p: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&p)
    }

    static func freePacket(_ packet: UnsafeMutablePointer<AVPacket>) {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
    }

    static func freeContext(_ ctx: UnsafeMutablePointer<AVCodecContext>) {
        var p: UnsafeMutablePointer<AVCodecContext>? = ctx
        avcodec_free_context(&p)
    }
}
