// HeifCodec: HEIC pictures through libavcodec — encoding a CGImage with libx265 as intra-coded
// 4:2:0 8-bit pictures (one, or a grid of tiles) for HeifWriter, and decoding a HEIF file's
// image items with libavcodec's hevc decoder, tiles composed into one picture by plane copies
// (av_image_copy_plane) and the clean aperture cropped by av_frame_apply_cropping. No pixel
// is touched in Swift.
internal import CFFmpeg
import CoreGraphics
import Foundation

extension ImageCodec {
    /// The HEIC quality used when none is given (as for JPEG).
    package static let defaultHEICQuality = 0.75

    // MARK: Encoding

    /// `image` coded with HEVC (libx265, every picture intra), in full-range BT.601 Y'CbCr
    /// 4:2:0 (sRGB primaries and transfer), as JPEG stores colour. `quality` 0…1 maps onto x265's
    /// constant rate factor (1 → 16, finest; 0 → 50). With `tileSize`, the picture is cut into a
    /// grid of `tileSize`² tiles, as Apple's cameras write theirs (512). Nil for layouts the
    /// engine cannot read or when the encoder fails.
    package static func encodeHEVCPicture(_ image: CGImage, quality: Double? = nil, tileSize: Int? = nil) -> HeifPicture? {
        MediaEngine.configure()
        guard let layout = ImagePixelLayout(image: image), image.width > 0, image.height > 0,
              image.width <= 1 << 16, image.height <= 1 << 16 else { return nil }
        var q = min(max(quality ?? defaultHEICQuality, 0), 1)
        if q.isNaN { q = defaultHEICQuality }
        let w = image.width, h = image.height
        // Coded pictures: even sizes for 4:2:0 (a single picture is cropped back by clap).
        let tile = tileSize.map { max(64, ($0 + 7) / 8 * 8) }
        let columns = tile.map { (w + $0 - 1) / $0 } ?? 1, rows = tile.map { (h + $0 - 1) / $0 } ?? 1
        guard rows <= 256, columns <= 256 else { return nil }
        let codedW = tile ?? (w + 1) / 2 * 2, codedH = tile ?? (h + 1) / 2 * 2
        guard let source = frame(from: image, layout: layout) else { return nil }
        defer { freeFrame(source) }
        guard let canvas = makeFrame(format: AV_PIX_FMT_YUV420P, width: codedW * columns, height: codedH * rows) else { return nil }
        defer { freeFrame(canvas) }
        // Padding (outside the picture) is mid grey: it is cropped away, and flat costs no bits.
        for plane in 0 ..< 3 {
            guard let p = plane == 0 ? canvas.pointee.data.0 : plane == 1 ? canvas.pointee.data.1 : canvas.pointee.data.2 else { return nil }
            let stride = Int(plane == 0 ? canvas.pointee.linesize.0 : plane == 1 ? canvas.pointee.linesize.1 : canvas.pointee.linesize.2)
            let planeRows = plane == 0 ? Int(canvas.pointee.height) : (Int(canvas.pointee.height) + 1) / 2
            memset(p, 128, stride * planeRows)
        }
        guard convertIntoCanvas(source, canvas: canvas, width: w, height: h) else { return nil }

        guard let codec = avcodec_find_encoder_by_name("libx265"), let ctx = avcodec_alloc_context3(codec) else { return nil }
        defer { freeContext(ctx) }
        ctx.pointee.width = Int32(codedW)
        ctx.pointee.height = Int32(codedH)
        ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        ctx.pointee.max_b_frames = 0
        ctx.pointee.thread_count = 1
        ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        ctx.pointee.color_range = AVCOL_RANGE_JPEG
        ctx.pointee.colorspace = AVCOL_SPC_SMPTE170M
        ctx.pointee.color_primaries = AVCOL_PRI_BT709
        ctx.pointee.color_trc = AVCOL_TRC_IEC61966_2_1
        ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        // Below crf ≈ 16 the 4:2:0 chroma, not the coding, bounds fidelity: 1 → 16, 0.9 → 19.4,
        // 0.75 → 24.5, 0.5 → 33, 0 → 50. At one quality value the file is smaller than our JPEG's
        // and closer to the source (as Apple's HEIC photos are to its JPEGs).
        let crf = 16 + (1 - q) * 34
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", "fast", 0)
        av_dict_set(&options, "crf", String(format: "%.2f", crf), 0)
        // Still pictures: every picture a forced IDR (an intra-only GOP would make x265 signal the
        // Main Intra range-extensions profile; forced IDRs keep the Main profile Apple's files
        // have), no lookahead, no encoder banner SEI, quiet.
        av_dict_set(&options, "forced-idr", "1", 0)
        av_dict_set(&options, "x265-params",
                    "log-level=error:info=0:bframes=0:open-gop=0:rc-lookahead=0:scenecut=0:repeat-headers=0", 0)
        guard avcodec_open2(ctx, codec, &options) >= 0, let extradata = ctx.pointee.extradata, ctx.pointee.extradata_size > 0,
              let hvcC = HeifWriter.hvcC(annexB: Array(UnsafeBufferPointer(start: extradata, count: Int(ctx.pointee.extradata_size))))
        else { return nil }

        guard let view = av_frame_alloc(), let packet = av_packet_alloc() else { return nil }
        defer { freeFrame(view); freePacket(packet) }
        var coded: [Int64: [UInt8]] = [:]
        func drain() -> Bool {
            while true {
                let r = avcodec_receive_packet(ctx, packet)
                if r == cffmpeg_averror_eagain() || r == cffmpeg_averror_eof() { return true }
                guard r >= 0 else { return false }
                if let d = packet.pointee.data {
                    coded[packet.pointee.pts, default: []] += HeifWriter.lengthPrefixedSlices(annexB: Array(UnsafeBufferPointer(start: d, count: Int(packet.pointee.size))))
                }
                av_packet_unref(packet)
            }
        }
        for index in 0 ..< rows * columns {
            // A frame over the tile's part of the canvas (the encoder copies it).
            let x = index % columns * codedW, y = index / columns * codedH
            view.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            view.pointee.width = Int32(codedW)
            view.pointee.height = Int32(codedH)
            view.pointee.data.0 = canvas.pointee.data.0! + y * Int(canvas.pointee.linesize.0) + x
            view.pointee.data.1 = canvas.pointee.data.1! + y / 2 * Int(canvas.pointee.linesize.1) + x / 2
            view.pointee.data.2 = canvas.pointee.data.2! + y / 2 * Int(canvas.pointee.linesize.2) + x / 2
            view.pointee.linesize = canvas.pointee.linesize
            view.pointee.pts = Int64(index)
            view.pointee.pict_type = AV_PICTURE_TYPE_I
            view.pointee.color_range = AVCOL_RANGE_JPEG
            guard avcodec_send_frame(ctx, view) >= 0, drain() else { return nil }
            view.pointee.data = (nil, nil, nil, nil, nil, nil, nil, nil)
        }
        guard avcodec_send_frame(ctx, nil) >= 0, drain() else { return nil }
        let tiles = (0 ..< rows * columns).map { coded[Int64($0)] ?? [] }
        guard tiles.allSatisfy({ !$0.isEmpty }) else { return nil }
        return HeifPicture(tiles: tiles, hvcC: hvcC, codedWidth: codedW, codedHeight: codedH,
                           grid: tile == nil ? nil : (rows, columns), width: w, height: h,
                           colour: (primaries: 1, transfer: 13, matrix: 6, fullRange: true))
    }

    /// Converts `source` (packed RGB) into the top-left `width`×`height` of the planar canvas,
    /// as full-range BT.601 Y'CbCr.
    private static func convertIntoCanvas(_ source: UnsafeMutablePointer<AVFrame>, canvas: UnsafeMutablePointer<AVFrame>,
                                          width: Int, height: Int) -> Bool {
        let srcFormat = AVPixelFormat(rawValue: source.pointee.format)
        guard let sws = sws_getContext(Int32(width), Int32(height), srcFormat, Int32(width), Int32(height), AV_PIX_FMT_YUV420P,
                                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nil, nil, nil) else { return false }
        defer { sws_freeContext(sws) }
        let coefficients = sws_getCoefficients(SWS_CS_ITU601)
        _ = sws_setColorspaceDetails(sws, coefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16)
        let srcData = [UnsafePointer(source.pointee.data.0), nil, nil, nil]
        let srcStride = [source.pointee.linesize.0, 0, 0, 0]
        let dstData = [canvas.pointee.data.0, canvas.pointee.data.1, canvas.pointee.data.2, nil]
        let dstStride = [canvas.pointee.linesize.0, canvas.pointee.linesize.1, canvas.pointee.linesize.2, 0]
        return sws_scale(sws, srcData, srcStride, 0, Int32(height), dstData, dstStride) > 0
    }

    /// `image` as a HEIC file (one coded picture; a 512-pixel tile grid past 8192 pixels a side),
    /// with a thumbnail item at most `thumbnailSize` pixels a side when asked for.
    package static func encodeHEIC(_ image: CGImage, quality: Double? = nil, orientation: Int = 1, exifTIFF: [UInt8]? = nil,
                                   thumbnailSize: Int? = nil) -> Data? {
        let tiled = image.width > 8192 || image.height > 8192
        guard let picture = encodeHEVCPicture(image, quality: quality, tileSize: tiled ? 512 : nil) else { return nil }
        var thumbnail: HeifPicture?
        if let limit = thumbnailSize, limit > 0 {
            let scale = min(1, Double(limit) / Double(max(image.width, image.height)))
            let w = max(1, Int((Double(image.width) * scale).rounded())), h = max(1, Int((Double(image.height) * scale).rounded()))
            guard let small = scale < 1 ? resized(image, width: w, height: h) : image,
                  let coded = encodeHEVCPicture(small, quality: quality) else { return nil }
            thumbnail = coded
        }
        return HeifWriter.file(picture, orientation: orientation, exifTIFF: exifTIFF, thumbnail: thumbnail)
    }

    // MARK: Decoding

    /// Decodes image item `id` of a HEIF file (an 'hvc1' item, or a 'grid' of them) into a
    /// CGImage of its clean aperture, before rotation and mirroring (which are reported as its
    /// orientation, as ImageIO does). Nil for missing or damaged items.
    static func decodeHEIF(_ file: [UInt8], container: HeifContainer, item id: UInt32) -> CGImage? {
        guard let geometry = container.geometry(of: id, in: file), let item = container.item(id) else { return nil }
        let coded: [UInt32]
        var grid: HeifContainer.Grid?
        if item.type == "grid" {
            guard let g = container.grid(id, in: file) else { return nil }
            coded = container.referenced(from: id, type: "dimg")
            guard coded.count == g.rows * g.columns else { return nil }
            grid = g
        } else {
            coded = [id]
        }
        guard let frames = decodeHEVCItems(file, container: container, items: coded) else { return nil }
        defer { frames.forEach { freeFrame($0) } }
        var picture: UnsafeMutablePointer<AVFrame>
        var composed: UnsafeMutablePointer<AVFrame>?
        defer { if let composed { freeFrame(composed) } }
        if let grid {
            guard let c = compose(frames, grid: grid) else { return nil }
            composed = c
            picture = c
        } else {
            picture = frames[0]
        }
        guard Int(picture.pointee.width) >= geometry.width, Int(picture.pointee.height) >= geometry.height else { return nil }
        if let crop = geometry.crop {
            picture.pointee.crop_left = Int(crop.x)
            picture.pointee.crop_top = Int(crop.y)
            picture.pointee.crop_right = Int(picture.pointee.width) - crop.x - crop.width
            picture.pointee.crop_bottom = Int(picture.pointee.height) - crop.y - crop.height
            guard av_frame_apply_cropping(picture, Int32(AV_FRAME_CROP_UNALIGNED)) >= 0 else { return nil }
        } else if grid == nil {
            // A coded picture larger than its ispe (it should not be) shows its top-left.
            picture.pointee.width = Int32(geometry.width)
            picture.pointee.height = Int32(geometry.height)
        }
        // Colour: the item's nclx, else what the stream says (BT.601 when it says nothing).
        let nclx = container.property(of: id) { p -> (Int, Bool)? in
            if case .nclx(_, _, let m, let full) = p { (m, full) } else { nil }
        } ?? coded.first.flatMap { tile in
            container.property(of: tile) { p -> (Int, Bool)? in if case .nclx(_, _, let m, let full) = p { (m, full) } else { nil } }
        }
        let matrixCode = nclx?.0 ?? Int(picture.pointee.colorspace.rawValue)
        let matrix: Int32
        switch matrixCode {
        case 1: matrix = SWS_CS_ITU709
        case 4: matrix = SWS_CS_FCC
        case 7: matrix = SWS_CS_SMPTE240M
        case 9, 10: matrix = SWS_CS_BT2020
        default: matrix = SWS_CS_ITU601
        }
        return makeImage(from: picture, format: .heic, matrix: matrix, fullRange: nclx?.1)
    }

    /// The decoded pictures of coded items, in order (one hevc decoder per distinct hvcC).
    private static func decodeHEVCItems(_ file: [UInt8], container: HeifContainer, items: [UInt32]) -> [UnsafeMutablePointer<AVFrame>]? {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_HEVC) else { return nil }
        var results = [UnsafeMutablePointer<AVFrame>?](repeating: nil, count: items.count)
        var failed = false
        defer { if failed { results.forEach { if let f = $0 { freeFrame(f) } } } }
        var start = 0
        while start < items.count {
            guard let config = container.hvcC(of: items[start]), config.count >= 23 else { failed = true; return nil }
            // The run of items sharing this configuration goes through one decoder.
            var end = start + 1
            while end < items.count, container.hvcC(of: items[end]) == config { end += 1 }
            guard let ctx = avcodec_alloc_context3(codec) else { failed = true; return nil }
            defer { freeContext(ctx) }
            guard let extradata = av_mallocz(config.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else { failed = true; return nil }
            config.withUnsafeBytes { extradata.copyMemory(from: $0.baseAddress!, byteCount: config.count) }
            ctx.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
            ctx.pointee.extradata_size = Int32(config.count)
            // Frame threads decode tiles side by side; a single picture gets slice threads.
            ctx.pointee.thread_count = end - start > 1 ? 0 : 1
            guard avcodec_open2(ctx, codec, nil) >= 0, let packet = av_packet_alloc() else { failed = true; return nil }
            defer { freePacket(packet) }
            func drain() -> Bool {
                while true {
                    guard let frame = av_frame_alloc() else { return false }
                    let r = avcodec_receive_frame(ctx, frame)
                    if r < 0 {
                        freeFrame(frame)
                        return r == cffmpeg_averror_eagain() || r == cffmpeg_averror_eof()
                    }
                    let index = Int(frame.pointee.best_effort_timestamp)
                    if index >= start, index < end, results[index] == nil { results[index] = frame } else { freeFrame(frame) }
                }
            }
            for index in start ..< end {
                guard let bytes = container.data(of: items[index], in: file), !bytes.isEmpty, bytes.count < Int(Int32.max),
                      av_new_packet(packet, Int32(bytes.count)) >= 0 else { failed = true; return nil }
                bytes.withUnsafeBytes { packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
                packet.pointee.pts = Int64(index)
                packet.pointee.dts = Int64(index)
                packet.pointee.flags |= AV_PKT_FLAG_KEY
                var sent = avcodec_send_packet(ctx, packet)
                var tries = 0
                while sent == cffmpeg_averror_eagain(), tries < 1000 {
                    // The decoder's queue is full: take what it has decoded, then offer the packet again.
                    guard drain() else { break }
                    sent = avcodec_send_packet(ctx, packet)
                    tries += 1
                }
                av_packet_unref(packet)
                guard sent >= 0, drain() else { failed = true; return nil }
            }
            _ = avcodec_send_packet(ctx, nil)
            guard drain() else { failed = true; return nil }
            start = end
        }
        let frames = results.compactMap { $0 }
        guard frames.count == items.count else { failed = true; return nil }
        // Every picture of a grid has one size and format.
        let first = frames[0]
        guard frames.allSatisfy({ $0.pointee.width == first.pointee.width && $0.pointee.height == first.pointee.height
                                    && $0.pointee.format == first.pointee.format }) else { failed = true; return nil }
        return frames
    }

    /// The tiles laid out row by row into one picture of the grid's output size.
    private static func compose(_ tiles: [UnsafeMutablePointer<AVFrame>], grid: HeifContainer.Grid) -> UnsafeMutablePointer<AVFrame>? {
        let tileW = Int(tiles[0].pointee.width), tileH = Int(tiles[0].pointee.height)
        let format = AVPixelFormat(rawValue: tiles[0].pointee.format)
        // The tiles cover the output, and no row or column of them lies wholly outside it.
        guard tileW * grid.columns >= grid.outputWidth, tileH * grid.rows >= grid.outputHeight,
              tileW * (grid.columns - 1) < grid.outputWidth, tileH * (grid.rows - 1) < grid.outputHeight,
              let desc = av_pix_fmt_desc_get(format),
              let canvas = makeFrame(format: format, width: tileW * grid.columns, height: tileH * grid.rows) else { return nil }
        let planes = Int(av_pix_fmt_count_planes(format))
        let log2H = Int(desc.pointee.log2_chroma_h)
        func plane(_ f: UnsafeMutablePointer<AVFrame>, _ i: Int) -> (UnsafeMutablePointer<UInt8>?, Int32) {
            switch i {
            case 0: return (f.pointee.data.0, f.pointee.linesize.0)
            case 1: return (f.pointee.data.1, f.pointee.linesize.1)
            case 2: return (f.pointee.data.2, f.pointee.linesize.2)
            default: return (f.pointee.data.3, f.pointee.linesize.3)
            }
        }
        for (index, tile) in tiles.enumerated() {
            let x = index % grid.columns * tileW, y = index / grid.columns * tileH
            for i in 0 ..< planes {
                let chroma = i == 1 || i == 2
                let py = chroma ? y >> log2H : y
                let rows = chroma ? -((-tileH) >> log2H) : tileH
                let bytes = Int(av_image_get_linesize(format, Int32(tileW), Int32(i)))
                // Bytes before column x of this plane (the function subsamples chroma itself).
                let offset = Int(av_image_get_linesize(format, Int32(x), Int32(i)))
                let (dst, dstStride) = plane(canvas, i), (src, srcStride) = plane(tile, i)
                guard let dst, let src, bytes > 0 else { freeFrame(canvas); return nil }
                av_image_copy_plane(dst + py * Int(dstStride) + offset, dstStride, src, srcStride, Int32(bytes), Int32(rows))
            }
        }
        canvas.pointee.width = Int32(grid.outputWidth)
        canvas.pointee.height = Int32(grid.outputHeight)
        canvas.pointee.color_range = tiles[0].pointee.color_range
        canvas.pointee.colorspace = tiles[0].pointee.colorspace
        return canvas
    }
}

extension ImageCodec {
    /// The thumbnail item ('thmb' reference) of image `index` of a HEIF file, decoded; nil when
    /// the file has none (or for other formats, whose embedded thumbnails are not read).
    package static func decodeEmbeddedThumbnail(_ data: Data, header: ImageHeader, index: Int) -> CGImage? {
        MediaEngine.configure()
        guard header.format == .heic, header.isComplete, let heif = header.heif, index >= 0,
              index < heif.topLevelImages.count,
              let thumbnail = heif.referring(to: heif.topLevelImages[index], type: "thmb").first else { return nil }
        return decodeHEIF([UInt8](data), container: heif, item: thumbnail)
    }
}
