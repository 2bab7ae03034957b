// PixelConverter: converts and scales pictures between any two supported pixel formats with
// libswscale, caching one SwsContext per (source, destination) description.
internal import CFFmpeg
import CoreVideo
import Foundation

/// Converts pixel buffers between formats, sizes, ranges and Y'CbCr matrices with libswscale.
///
/// Contexts are cached by (source format, size, range, matrix → destination format, size, range,
/// matrix, flags). A context is checked out while it scales, so concurrent conversions never
/// share one; the cache keeps at most `capacity` idle contexts, dropping the least recently used.
///
/// Colour: the source matrix is its `kCVImageBufferYCbCrMatrixKey` attachment, or when absent
/// BT.601 for pictures under 720 rows and BT.709 otherwise (`PixelFormatColor.Matrix.defaultMatrix`).
/// The destination matrix is the one requested, else the source's attachment, else the same
/// default for the destination height. Ranges follow the pixel formats ('420v' video, '420f' full).
/// Conversions use `SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP` (unless
/// `Options.fast`) with bicubic (default), bilinear, area or point scaling, and no dithering; fast
/// 32-bit RGB → subsampled Y'CbCr conversions read chroma at full width and, at equal sizes,
/// average it (see `flags(scaling:fast:source:destination:)`).
///
/// Threads: each conversion is split into horizontal bands of the destination scaled in parallel
/// by libswscale's slice threads (the `threads` option, driven through `sws_scale_frame`), up to
/// `threads` of them (default: the active cores, at most 8; fewer for small pictures, see
/// `sliceCount`). The bytes are the same whatever the thread count. Callers that already run one
/// conversion per core ask for 1 thread (`init(threads:)`, or per call).
package final class PixelConverter: @unchecked Sendable {
    /// The resampling filter.
    package enum Scaling: Sendable, Hashable {
        /// Nearest neighbour (`SWS_POINT`).
        case point
        /// Bilinear (`SWS_BILINEAR`).
        case bilinear
        /// Bicubic (`SWS_BICUBIC`), the default.
        case bicubic
        /// Area averaging (`SWS_AREA`), for strong downscaling.
        case area

        var swsFlag: Int32 {
            switch self {
            case .point: return SWS_POINT
            case .bilinear: return SWS_BILINEAR
            case .bicubic: return SWS_BICUBIC
            case .area: return SWS_AREA
            }
        }
    }

    /// A rectangle in pixels.
    package struct Rect: Sendable, Equatable {
        package var x: Int
        package var y: Int
        package var width: Int
        package var height: Int
        package init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// How one transfer is done.
    package struct Options: Sendable {
        /// The resampling filter.
        package var scaling: Scaling = .bicubic
        /// The destination Y'CbCr matrix; nil: the source's attachment, else the size default.
        package var destinationMatrix: PixelFormatColor.Matrix?
        /// The colour primaries to attach to the destination; nil keeps the source's.
        package var destinationColorPrimaries: String?
        /// The transfer function to attach to the destination; nil keeps the source's.
        package var destinationTransferFunction: String?
        /// Copy the source's `.shouldPropagate` attachments to the destination (replacing the
        /// destination's attachments, as VTPixelTransferSession does).
        package var propagateAttachments = true
        /// The part of the source to read; nil: all of it.
        package var sourceRect: Rect?
        /// Where in the destination to write; nil: all of it. The rest is filled with black.
        package var destinationRect: Rect?
        /// Favour speed: drop the accuracy flags so libswscale may use its SIMD fast paths
        /// (about 5× faster for 1080p 420v → BGRA, chroma interpolated less exactly).
        package var fast = false
        /// The most threads to scale with; nil: the converter's `threads`.
        package var threads: Int?

        package init() {}
    }

    private struct Key: Hashable {
        var source: AVPixelFormat.RawValue, sourceWidth: Int, sourceHeight: Int, sourceFull: Bool
        var sourceMatrix: PixelFormatColor.Matrix
        var destination: AVPixelFormat.RawValue, destinationWidth: Int, destinationHeight: Int, destinationFull: Bool
        var destinationMatrix: PixelFormatColor.Matrix
        var flags: Int32
        /// libswscale slice threads (1: none).
        var threads: Int
        /// Avoid libswscale's unscaled special paths (see `checkOut`).
        var forceGeneralScaler: Bool {
            let grey = AV_PIX_FMT_GRAY8.rawValue
            let semiPlanar = [AV_PIX_FMT_NV12.rawValue, AV_PIX_FMT_P010LE.rawValue]
            return (source == grey && semiPlanar.contains(destination)) || (destination == grey && semiPlanar.contains(source))
        }
    }

    /// The converter shared by engine clients that need no private cache.
    package static let shared = PixelConverter()

    /// A shared converter that scales on the calling thread only, for callers that already run
    /// one conversion per core (parallel batches).
    package static let singleThreaded = PixelConverter(threads: 1)

    /// The flags added to every conversion.
    package static let accuracyFlags: Int32 = SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP

    /// The default thread count: the active cores, at most 8.
    package static let defaultThreads = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))

    /// The fewest pixels (of the larger side) one slice thread is given: below it, waking threads
    /// costs more than it saves.
    package static let minimumPixelsPerThread = 128 * 128

    private let lock = NSLock()
    private var idle: [Key: [OpaquePointer]] = [:]
    private var recency: [Key] = []
    private var idleCount = 0
    /// The most idle contexts kept.
    package let capacity: Int
    /// The most threads one conversion uses unless the call says otherwise (1: no threads).
    package let threads: Int

    /// A converter keeping up to `capacity` idle scaling contexts, scaling with up to `threads`
    /// threads per conversion (default `defaultThreads`; 1 for callers that already run one
    /// conversion per core).
    package init(capacity: Int = 8, threads: Int = PixelConverter.defaultThreads) {
        MediaEngine.configure()
        self.capacity = max(1, capacity)
        self.threads = max(1, threads)
    }

    deinit {
        for contexts in idle.values { for c in contexts { sws_freeContext(c) } }
    }

    /// The number of idle cached contexts (for tests and diagnostics).
    package var cachedContextCount: Int { lock.withLock { idleCount } }

    /// The slice thread count libswscale gave each idle cached context (for tests and diagnostics).
    package var cachedThreadCounts: [Int] {
        lock.withLock {
            idle.values.flatMap { $0 }.map { context in
                var threads: Int64 = 1
                _ = av_opt_get_int(UnsafeMutableRawPointer(context), "threads", 0, &threads)
                return Int(threads)
            }
        }
    }

    /// Frees every cached context.
    package func purge() {
        let all = lock.withLock { () -> [OpaquePointer] in
            let all = idle.values.flatMap { $0 }
            idle = [:]
            recency = []
            idleCount = 0
            return all
        }
        for c in all { sws_freeContext(c) }
    }

    // MARK: Core scaling

    /// Converts (and scales) `source` into `destination` with libswscale, with up to `threads`
    /// threads (nil: the converter's `threads`).
    package func scale(_ source: PixelImage, into destination: PixelImage, scaling: Scaling = .bicubic, fast: Bool = false,
                       threads: Int? = nil) throws(PixelConversionError) {
        guard source.width > 0, source.height > 0, destination.width > 0, destination.height > 0 else {
            throw .invalidBuffer
        }
        guard source.data[0] != nil, destination.data[0] != nil else { throw .invalidBuffer }
        guard sws_isSupportedInput(source.format) > 0 else { throw .unsupportedFFmpegFormat(Int32(source.format.rawValue)) }
        guard sws_isSupportedOutput(destination.format) > 0 else {
            throw .unsupportedFFmpegFormat(Int32(destination.format.rawValue))
        }
        let anyYCbCr = PixelFormat.isYCbCr(source.format) || PixelFormat.isYCbCr(destination.format)
        let key = Key(source: source.format.rawValue, sourceWidth: source.width, sourceHeight: source.height,
                      sourceFull: source.fullRange, sourceMatrix: anyYCbCr ? source.matrix : .itu601,
                      destination: destination.format.rawValue, destinationWidth: destination.width,
                      destinationHeight: destination.height, destinationFull: destination.fullRange,
                      destinationMatrix: anyYCbCr ? destination.matrix : .itu601,
                      flags: Self.flags(scaling: scaling, fast: fast, source: source, destination: destination),
                      threads: Self.sliceCount(threads ?? self.threads, source: source, destination: destination, fast: fast))
        let context = try checkOut(key)
        defer { checkIn(context, key) }
        let result = Self.scaleFrame(context, from: source, to: destination)
        if result < 0 { throw .ffmpeg(FFmpegError(code: result)) }
    }

    /// The libswscale flags of one conversion: the scaling filter, plus the accuracy flags unless
    /// `fast`. A fast conversion from 8-bit RGB with 4 bytes a pixel (BGRA, RGBA, ARGB, ABGR, and
    /// their padded twins) to Y'CbCr with horizontally subsampled chroma (4:2:0, 4:2:2) reads the
    /// chroma at full width (`SWS_FULL_CHR_H_INP`): libswscale 5.1's half-width RGB chroma readers
    /// are C code, its full-width ones SIMD. At equal sizes, where the filter only subsamples the
    /// chroma, it averages neighbours (`SWS_AREA`) instead of running bicubic taps over 8 rows.
    /// Together about 40 % less time for 1080p BGRA → 420v or y420 (4.2 → 2.5 ms a frame on one
    /// thread) — the conversion of every recorded screen frame.
    static func flags(scaling: Scaling, fast: Bool, source: PixelImage, destination: PixelImage) -> Int32 {
        guard fast else { return scaling.swsFlag | accuracyFlags }
        // Called for every conversion: a switch, not a set built each time.
        switch source.format {
        case AV_PIX_FMT_BGRA, AV_PIX_FMT_RGBA, AV_PIX_FMT_ARGB, AV_PIX_FMT_ABGR,
             AV_PIX_FMT_BGR0, AV_PIX_FMT_RGB0, AV_PIX_FMT_0RGB, AV_PIX_FMT_0BGR:
            break
        default:
            return scaling.swsFlag
        }
        guard PixelFormat.isYCbCr(destination.format), destination.chromaShift.x > 0 else { return scaling.swsFlag }
        let unscaled = source.width == destination.width && source.height == destination.height
        return (unscaled ? SWS_AREA : scaling.swsFlag) | SWS_FULL_CHR_H_INP
    }

    /// The slice threads for one conversion (`fast`: without the accuracy flags): `requested`,
    /// fewer for small pictures (at least `minimumPixelsPerThread` pixels and 16 destination rows
    /// each), and fewer where libswscale 5.1's unscaled converters would not give one thread's
    /// bytes. It cuts the destination into `n` bands of ⌈height ÷ n⌉ rows rounded up to the
    /// destination's chroma rows, and converts each band as a picture of its own:
    /// - for equal sizes with less vertical chroma subsampling on the destination (4:2:0 → RGB,
    ///   4:2:2, grey), its unscaled converters (the RealTime 4:2:0 → RGB path among them) read a
    ///   band's chroma from row `start >> shift` and pair luma rows from the band's start, so every
    ///   band must start on a source chroma row;
    /// - RealTime, unscaled BGR24 → planar 4:2:0 (`rgb24toyv12`) converts the last two rows of
    ///   each call with C code that rounds unlike its SIMD code: one thread.
    package static func sliceCount(_ requested: Int, source: PixelImage, destination: PixelImage, fast: Bool = false) -> Int {
        let pixels = max(source.width * source.height, destination.width * destination.height)
        var count = max(1, min(requested, pixels / minimumPixelsPerThread, destination.height / 16))
        let unscaled = source.width == destination.width && source.height == destination.height
        let planar420: Set<AVPixelFormat.RawValue> = [AV_PIX_FMT_YUV420P.rawValue, AV_PIX_FMT_YUVJ420P.rawValue,
                                                       AV_PIX_FMT_YUVA420P.rawValue]
        if fast, unscaled, source.format == AV_PIX_FMT_BGR24, planar420.contains(destination.format.rawValue) {
            return 1
        }
        let sourceShift = source.chromaShift.y, destinationShift = destination.chromaShift.y
        if unscaled, sourceShift > destinationShift {
            let destinationAlign = 1 << destinationShift, sourceAlign = 1 << sourceShift
            while count > 1 {
                let rows = (destination.height + count - 1) / count
                let band = (rows + destinationAlign - 1) / destinationAlign * destinationAlign
                if band % sourceAlign == 0 { break }
                count -= 1
            }
        }
        return count
    }

    /// Scales through the frame API (`sws_scale_frame`), the one libswscale 5.1 slice-threads;
    /// `sws_scale` only ever uses the first slice context. The frames borrow the pictures' planes:
    /// each gets a `buf[0]` reference over them with a no-op free, so libswscale neither copies
    /// the source (`av_frame_ref` of a frame without buffers duplicates it) nor allocates a
    /// destination (`sws_frame_start` does when `dst->buf[0]` is unset).
    private static func scaleFrame(_ context: OpaquePointer, from source: PixelImage, to destination: PixelImage) -> Int32 {
        var sourceFrame = av_frame_alloc()
        var destinationFrame = av_frame_alloc()
        defer {
            av_frame_free(&sourceFrame)
            av_frame_free(&destinationFrame)
        }
        guard let sourceFrame, let destinationFrame, borrow(source, into: sourceFrame),
              borrow(destination, into: destinationFrame) else { return cffmpeg_averror(ENOMEM) }
        // Returns the rows written (single-threaded) or 0 (threaded), or an error.
        return sws_scale_frame(context, destinationFrame, sourceFrame)
    }

    /// Points `frame` at `image`'s planes, with a reference that frees nothing; false when the
    /// reference cannot be allocated.
    private static func borrow(_ image: PixelImage, into frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard let first = image.data[0],
              let reference = av_buffer_create(first, 1, { _, _ in }, nil, 0) else { return false }
        frame.pointee.buf.0 = reference
        frame.pointee.format = image.format.rawValue
        frame.pointee.width = Int32(image.width)
        frame.pointee.height = Int32(image.height)
        frame.pointee.color_range = image.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        frame.pointee.data = (image.data[0], image.data[1], image.data[2], image.data[3], nil, nil, nil, nil)
        frame.pointee.linesize = (image.linesize[0], image.linesize[1], image.linesize[2], image.linesize[3], 0, 0, 0, 0)
        return true
    }

    private func checkOut(_ key: Key) throws(PixelConversionError) -> OpaquePointer {
        let cached = lock.withLock { () -> OpaquePointer? in
            guard var list = idle[key], let c = list.popLast() else { return nil }
            idle[key] = list.isEmpty ? nil : list
            idleCount -= 1
            return c
        }
        if let cached { return cached }
        // Ranges are options set before initialisation: libswscale picks its unscaled fast paths
        // at init, and those ignore a range change made afterwards by sws_setColorspaceDetails.
        guard let context = sws_alloc_context() else { throw .allocationFailed }
        var ok = av_opt_set_int(UnsafeMutableRawPointer(context), "srcw", Int64(key.sourceWidth), 0) >= 0
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "srch", Int64(key.sourceHeight), 0) >= 0
        ok = ok && av_opt_set_pixel_fmt(UnsafeMutableRawPointer(context), "src_format", AVPixelFormat(rawValue: key.source), 0) >= 0
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "src_range", key.sourceFull ? 1 : 0, 0) >= 0
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "dstw", Int64(key.destinationWidth), 0) >= 0
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "dsth", Int64(key.destinationHeight), 0) >= 0
        ok = ok && av_opt_set_pixel_fmt(UnsafeMutableRawPointer(context), "dst_format",
                                        AVPixelFormat(rawValue: key.destination), 0) >= 0
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "dst_range", key.destinationFull ? 1 : 0, 0) >= 0
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "sws_flags", Int64(key.flags), 0) >= 0
        // No dither when reducing bit depth (b64a, P010 → 8 bits): rounded values, as exact as
        // the destination allows. Fast (RealTime) conversions between 8-bit formats keep
        // libswscale's default ("auto", which never dithers 8 → 8 bits): "none" turns off its SIMD
        // 4:2:0 → RGB converters, making RealTime y420 → BGRA about 5× slower than the ffmpeg CLI's.
        let depth = { (format: AVPixelFormat.RawValue) in
            av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)).map { Int($0.pointee.comp.0.depth) } ?? 16
        }
        let keepsDefaultDither = key.flags & Self.accuracyFlags == 0 && depth(key.source) <= 8 && depth(key.destination) <= 8
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "sws_dither", keepsDefaultDither ? 1 : 0, 0) >= 0
        // Slice threads (see `scaleFrame`). Each of the `threads` slice contexts is initialised
        // from these options and the source filter below, and sws_setColorspaceDetails reaches
        // them all, so the workarounds here hold for every band. (Error-diffusion dither would
        // force one band; no dither is used.)
        ok = ok && av_opt_set_int(UnsafeMutableRawPointer(context), "threads", Int64(key.threads), 0) >= 0
        guard ok else {
            sws_freeContext(context)
            throw .ffmpeg(.invalidArgument)
        }
        // libswscale 5.1's unscaled copies between grey and NV12/P010 of equal range write no
        // chroma or garbage; a three-tap identity source filter forces the general scaler.
        var initResult: Int32
        if key.forceGeneralScaler, let identity = sws_allocVec(3) {
            identity.pointee.coeff[0] = 0
            identity.pointee.coeff[1] = 1
            identity.pointee.coeff[2] = 0
            var filter = SwsFilter(lumH: identity, lumV: nil, chrH: nil, chrV: nil)
            initResult = sws_init_context(context, &filter, nil)
            sws_freeVec(identity)
        } else {
            initResult = sws_init_context(context, nil, nil)
        }
        if initResult < 0 {
            sws_freeContext(context)
            throw .ffmpeg(FFmpegError(code: initResult))
        }
        // Matrices (ranges unchanged). The return value only says whether the formats involve
        // Y'CbCr at all, so it is not an error.
        _ = sws_setColorspaceDetails(context, sws_getCoefficients(key.sourceMatrix.swsColorspace), key.sourceFull ? 1 : 0,
                                     sws_getCoefficients(key.destinationMatrix.swsColorspace),
                                     key.destinationFull ? 1 : 0, 0, 1 << 16, 1 << 16)
        return context
    }

    private func checkIn(_ context: OpaquePointer, _ key: Key) {
        var evicted: [OpaquePointer] = []
        lock.withLock {
            idle[key, default: []].append(context)
            idleCount += 1
            recency.removeAll { $0 == key }
            recency.append(key)
            while idleCount > capacity, let oldest = recency.first {
                let list = idle.removeValue(forKey: oldest) ?? []
                recency.removeFirst()
                idleCount -= list.count
                evicted += list
            }
        }
        for c in evicted { sws_freeContext(c) }
    }

    // MARK: Pixel buffers

    /// Converts `source` into `destination` (scaling to the destination size, or between the
    /// option rectangles), then sets the destination's attachments.
    package func transfer(from source: CVPixelBuffer, to destination: CVPixelBuffer, options: Options = Options())
        throws(PixelConversionError) {
        guard source !== destination, let s = source.storage, let d = destination.storage else { throw .invalidBuffer }
        guard CVPixelFormatLayout.layout(for: s.pixelFormat) != nil else { throw .unsupportedPixelFormat(s.pixelFormat) }
        guard CVPixelFormatLayout.layout(for: d.pixelFormat) != nil else { throw .unsupportedPixelFormat(d.pixelFormat) }
        let attached = PixelFormatColor.attachedMatrix(of: source)
        let sourceMatrix = attached ?? .defaultMatrix(height: s.height)
        let destinationMatrix = options.destinationMatrix ?? attached ?? .defaultMatrix(height: d.height)
        let fullSource = Rect(x: 0, y: 0, width: s.width, height: s.height)
        let fullDestination = Rect(x: 0, y: 0, width: d.width, height: d.height)
        let sourceRect = options.sourceRect ?? fullSource
        let destinationRect = options.destinationRect ?? fullDestination
        guard Self.isValid(sourceRect, width: s.width, height: s.height),
              Self.isValid(destinationRect, width: d.width, height: d.height) else { throw .invalidBuffer }

        let sourceIsYCbCr = PixelFormat.isYCbCr(s.pixelFormat)
        let destinationIsYCbCr = PixelFormat.isYCbCr(d.pixelFormat)
        let identical = s.pixelFormat == d.pixelFormat && s.width == d.width && s.height == d.height
            && sourceRect == fullSource && destinationRect == fullDestination
            && (!sourceIsYCbCr || sourceMatrix == destinationMatrix)
        if identical {
            Self.copyPlanes(from: s, to: d)
        } else {
            let deep = d.pixelFormat == OSType(fourCC: "b64a") || d.pixelFormat == OSType(fourCC: "x420")
                || d.pixelFormat == OSType(fourCC: "xf20")
            let input = try sourceImage(s, matrix: sourceMatrix, eightBitDestination: !deep)
            let output = try destinationImage(d, matrix: destinationMatrix)
            if destinationRect != fullDestination {
                try fillBlack(output.image, threads: options.threads)
            }
            let from = Self.aligned(sourceRect, for: input.image)
            let to = Self.aligned(destinationRect, for: output.image)
            guard from.width > 0, from.height > 0, to.width > 0, to.height > 0 else { throw .invalidBuffer }
            try scale(input.image.cropped(x: from.x, y: from.y, width: from.width, height: from.height),
                      into: output.image.cropped(x: to.x, y: to.y, width: to.width, height: to.height),
                      scaling: options.scaling, fast: options.fast, threads: options.threads)
            try output.finish()
            withExtendedLifetime(input.keepAlive) {}
        }
        updateAttachments(source: source, destination: destination, options: options,
                          matrix: (sourceIsYCbCr || destinationIsYCbCr || attached != nil) ? destinationMatrix : nil,
                          resized: sourceRect == fullSource && destinationRect == fullDestination
                              ? (Double(d.width) / Double(s.width), Double(d.height) / Double(s.height)) : nil)
    }

    /// Converts a picture described for libswscale (a decoded frame, image bytes) into a pixel
    /// buffer of any supported format, scaling to the buffer's size. Attachments are untouched.
    package func convert(_ image: PixelImage, into destination: CVPixelBuffer, scaling: Scaling = .bicubic,
                         threads: Int? = nil) throws(PixelConversionError) {
        guard let d = destination.storage else { throw .invalidBuffer }
        let matrix = PixelFormatColor.attachedMatrix(of: destination)
            ?? (PixelFormat.isYCbCr(image.format) ? image.matrix : .defaultMatrix(height: d.height))
        let output = try destinationImage(d, matrix: matrix)
        let input = try exactSource(image, into: output.image, threads: threads)
        try scale(input.image, into: output.image, scaling: scaling, threads: threads)
        try output.finish()
        withExtendedLifetime(input.keepAlive) {}
    }

    /// Converts a pixel buffer of any supported format into a picture described for libswscale
    /// (scaling to the picture's size). The picture's matrix is used for its side.
    package func convert(_ source: CVPixelBuffer, into image: PixelImage, scaling: Scaling = .bicubic,
                         threads: Int? = nil) throws(PixelConversionError) {
        guard let s = source.storage else { throw .invalidBuffer }
        let depth = av_pix_fmt_desc_get(image.format).map { Int($0.pointee.comp.0.depth) } ?? 8
        let input = try sourceImage(s, matrix: PixelFormatColor.attachedMatrix(of: source) ?? .defaultMatrix(height: s.height),
                                         eightBitDestination: depth <= 8)
        try scale(input.image, into: image, scaling: scaling, threads: threads)
        withExtendedLifetime(input.keepAlive) {}
    }

    /// A new pixel buffer of `pixelFormat` (at `width`×`height`, default the source size) holding
    /// `source` converted.
    package func makePixelBuffer(from source: CVPixelBuffer, pixelFormat: OSType, width: Int? = nil, height: Int? = nil,
                                 options: Options = Options()) throws(PixelConversionError) -> CVPixelBuffer {
        guard let s = source.storage else { throw .invalidBuffer }
        let destination = try Self.allocatePixelBuffer(pixelFormat: pixelFormat, width: width ?? s.width,
                                                       height: height ?? s.height)
        try transfer(from: source, to: destination, options: options)
        return destination
    }

    /// A new, zeroed pixel buffer.
    package static func allocatePixelBuffer(pixelFormat: OSType, width: Int, height: Int)
        throws(PixelConversionError) -> CVPixelBuffer {
        guard let layout = CVPixelFormatLayout.layout(for: pixelFormat) else { throw .unsupportedPixelFormat(pixelFormat) }
        guard width > 0, height > 0 else { throw .invalidBuffer }
        guard let storage = CVPixelStorage.allocate(width: width, height: height, layout: layout) else {
            throw .allocationFailed
        }
        return CVBuffer(storage: storage)
    }

    /// Fills `image` with opaque black by scaling a black picture over it.
    package func fillBlack(_ image: PixelImage, threads: Int? = nil) throws(PixelConversionError) {
        var black: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        try black.withUnsafeMutableBufferPointer { (bytes) throws(PixelConversionError) in
            let source = PixelImage(format: AV_PIX_FMT_BGRA, width: 2, height: 2, fullRange: true, matrix: image.matrix,
                                    data: [bytes.baseAddress], linesize: [8])
            try scale(source, into: image, scaling: .point, threads: threads)
        }
    }

    // MARK: Helpers

    private static func isValid(_ r: Rect, width: Int, height: Int) -> Bool {
        r.width > 0 && r.height > 0 && r.x >= 0 && r.y >= 0 && r.x + r.width <= width && r.y + r.height <= height
    }

    /// Rounds a rectangle to whole chroma samples of the image's format.
    private static func aligned(_ r: Rect, for image: PixelImage) -> Rect {
        let (sx, sy) = image.chromaShift
        let mx = (1 << sx) - 1, my = (1 << sy) - 1
        let x = r.x & ~mx, y = r.y & ~my
        let right = min(image.width, (r.x + r.width + mx) & ~mx)
        let bottom = min(image.height, (r.y + r.height + my) & ~my)
        return Rect(x: x, y: y, width: right - x, height: bottom - y)
    }

    /// Copies identical layouts plane by plane.
    private static func copyPlanes(from s: CVPixelStorage, to d: CVPixelStorage) {
        guard let layout = CVPixelFormatLayout.layout(for: s.pixelFormat) else { return }
        for (i, plane) in layout.planes.enumerated() where i < s.planes.count && i < d.planes.count {
            let bytes = min(plane.minimumBytesPerRow(forImageWidth: s.width), s.planes[i].bytesPerRow, d.planes[i].bytesPerRow)
            for row in 0..<min(s.planes[i].height, d.planes[i].height) {
                memcpy(d.planes[i].baseAddress + row * d.planes[i].bytesPerRow,
                       s.planes[i].baseAddress + row * s.planes[i].bytesPerRow, bytes)
            }
        }
    }

    private struct Input {
        var image: PixelImage
        var keepAlive: PixelImageStorage?
    }

    private struct Output {
        var image: PixelImage
        var keepAlive: PixelImageStorage?
        var finish: () throws(PixelConversionError) -> Void
    }

    /// The source as libswscale reads it: the buffer's planes, or for the layouts libswscale 5.1
    /// cannot read (see PixelRepack.swift) a copy made by library calls: `b64a` → ARGB rounded to
    /// 8 bits for 8-bit destinations, else → BGRA64LE; `422v`/`422f` → YUV422P over the buffer's
    /// luma with deinterleaved chroma.
    private func sourceImage(_ s: CVPixelStorage, matrix: PixelFormatColor.Matrix, eightBitDestination: Bool = false)
        throws(PixelConversionError) -> Input {
        switch s.pixelFormat {
        case OSType(fourCC: "b64a") where eightBitDestination:
            // To 8-bit destinations, round to 8 bits here: libswscale's 16-bit RGB input path
            // rounds less exactly than its 8-bit one. The bytes stay in A, R, G, B order.
            guard let temp = PixelImageStorage(format: AV_PIX_FMT_ARGB, width: s.width, height: s.height,
                                               fullRange: true, matrix: matrix) else { throw .allocationFailed }
            try narrow16(source: s.planes[0].baseAddress, sourceBytesPerRow: s.planes[0].bytesPerRow, bigEndian: true,
                         destination: temp.image.data[0]!, destinationBytesPerRow: Int(temp.image.linesize[0]),
                         count: s.width * 4, height: s.height)
            return Input(image: temp.image, keepAlive: temp)
        case OSType(fourCC: "b64a"):
            let temp = try Self.bgra64Copy(ofARGB64: s.planes[0].baseAddress, bytesPerRow: s.planes[0].bytesPerRow,
                                           width: s.width, height: s.height, matrix: matrix)
            return Input(image: temp.image, keepAlive: temp)
        case OSType(fourCC: "422v"), OSType(fourCC: "422f"):
            let full = s.pixelFormat == OSType(fourCC: "422f")
            guard let temp = PixelImageStorage(format: AV_PIX_FMT_YUV444P, width: (s.width + 1) / 2, height: s.height,
                                               fullRange: full, matrix: matrix) else { throw .allocationFailed }
            try deinterleaveChroma(luma: s.planes[0].baseAddress, lumaBytesPerRow: s.planes[0].bytesPerRow,
                                   chroma: s.planes[1].baseAddress, chromaBytesPerRow: s.planes[1].bytesPerRow,
                                   into: temp.image)
            return Input(image: Self.planar422(luma: s.planes[0], chroma: temp.image, width: s.width), keepAlive: temp)
        default:
            guard let mapping = PixelFormat.mapping(for: s.pixelFormat) else { throw .unsupportedPixelFormat(s.pixelFormat) }
            let image = PixelImage(format: mapping.avFormat, width: s.width, height: s.height, fullRange: mapping.fullRange,
                                   matrix: matrix, data: s.planes.map { $0.baseAddress.assumingMemoryBound(to: UInt8.self) },
                                   linesize: s.planes.map { Int32($0.bytesPerRow) })
            return Input(image: image, keepAlive: nil)
        }
    }

    /// The destination as libswscale writes it, and what to do afterwards to finish the layouts
    /// libswscale cannot write directly: `b64a` is written as BGRA64LE in place, then each
    /// pixel's bytes reversed; `422v`/`422f` as YUV422P over the buffer's luma, then the chroma
    /// interleaved into the buffer.
    private func destinationImage(_ d: CVPixelStorage, matrix: PixelFormatColor.Matrix)
        throws(PixelConversionError) -> Output {
        switch d.pixelFormat {
        case OSType(fourCC: "b64a"):
            let plane = d.planes[0]
            let image = PixelImage(format: AV_PIX_FMT_BGRA64LE, width: d.width, height: d.height, fullRange: true,
                                   matrix: matrix, data: [plane.baseAddress.assumingMemoryBound(to: UInt8.self)],
                                   linesize: [Int32(plane.bytesPerRow)])
            return Output(image: image, keepAlive: nil) {
                Self.reversePixels64(plane.baseAddress, bytesPerRow: plane.bytesPerRow, width: d.width, height: d.height)
            }
        case OSType(fourCC: "422v"), OSType(fourCC: "422f"):
            let full = d.pixelFormat == OSType(fourCC: "422f")
            guard let temp = PixelImageStorage(format: AV_PIX_FMT_YUV444P, width: (d.width + 1) / 2, height: d.height,
                                               fullRange: full, matrix: matrix) else { throw .allocationFailed }
            let luma = d.planes[0], chroma = d.planes[1]
            return Output(image: Self.planar422(luma: luma, chroma: temp.image, width: d.width), keepAlive: temp) {
                () throws(PixelConversionError) in
                try self.interleaveChroma(temp.image, luma: luma.baseAddress, lumaBytesPerRow: luma.bytesPerRow,
                                          into: chroma.baseAddress, chromaBytesPerRow: chroma.bytesPerRow)
            }
        default:
            guard let mapping = PixelFormat.mapping(for: d.pixelFormat) else { throw .unsupportedPixelFormat(d.pixelFormat) }
            let image = PixelImage(format: mapping.avFormat, width: d.width, height: d.height, fullRange: mapping.fullRange,
                                   matrix: matrix, data: d.planes.map { $0.baseAddress.assumingMemoryBound(to: UInt8.self) },
                                   linesize: d.planes.map { Int32($0.bytesPerRow) })
            return Output(image: image, keepAlive: nil) {}
        }
    }

    /// A YUV422P picture `width` wide over a buffer's luma plane and the Cb and Cr planes of a
    /// planar 4:4:4 picture half as wide.
    private static func planar422(luma: CVPixelStorage.Plane, chroma: PixelImage, width: Int) -> PixelImage {
        PixelImage(format: AV_PIX_FMT_YUV422P, width: width, height: chroma.height, fullRange: chroma.fullRange,
                   matrix: chroma.matrix,
                   data: [luma.baseAddress.assumingMemoryBound(to: UInt8.self), chroma.data[1], chroma.data[2]],
                   linesize: [Int32(luma.bytesPerRow), chroma.linesize[1], chroma.linesize[2]])
    }

    /// Replaces the destination's attachments with the source's propagating ones, then records
    /// the colour description of the converted picture.
    private func updateAttachments(source: CVPixelBuffer, destination: CVPixelBuffer, options: Options,
                                   matrix: PixelFormatColor.Matrix?, resized: (Double, Double)?) {
        var attachments: [String: Any] = [:]
        if options.propagateAttachments {
            source.mutex.lock()
            attachments = source.attachmentsByMode[.shouldPropagate] ?? [:]
            source.mutex.unlock()
        }
        if let matrix { attachments[PixelFormatColor.matrixKey] = matrix.rawValue }
        if let p = options.destinationColorPrimaries { attachments[PixelFormatColor.primariesKey] = p }
        if let t = options.destinationTransferFunction { attachments[PixelFormatColor.transferFunctionKey] = t }
        if let aperture = attachments[PixelFormatColor.cleanApertureKey] {
            if let (sx, sy) = resized, let scaled = Self.scaledCleanAperture(aperture, sx: sx, sy: sy) {
                attachments[PixelFormatColor.cleanApertureKey] = scaled
            } else {
                attachments[PixelFormatColor.cleanApertureKey] = nil
            }
        }
        destination.mutex.lock()
        destination.attachmentsByMode[.shouldPropagate] = attachments
        destination.attachmentsByMode[.shouldNotPropagate] = [:]
        destination.mutex.unlock()
    }

    /// A clean aperture dictionary stretched like the picture.
    private static func scaledCleanAperture(_ value: Any, sx: Double, sy: Double) -> [String: Any]? {
        let dictionary: [String: Any]
        if let d = value as? [String: Any] {
            dictionary = d
        } else if let d = value as? NSDictionary {
            var converted: [String: Any] = [:]
            for (k, v) in d { if let k = k as? String { converted[k] = v } }
            dictionary = converted
        } else {
            return nil
        }
        func number(_ key: String) -> Double? {
            switch dictionary[key] {
            case let n as NSNumber: return n.doubleValue
            case let d as Double: return d
            case let i as Int: return Double(i)
            default: return nil
            }
        }
        guard let w = number("Width"), let h = number("Height") else { return nil }
        var out = dictionary
        out["Width"] = NSNumber(value: w * sx)
        out["Height"] = NSNumber(value: h * sy)
        out["HorizontalOffset"] = NSNumber(value: (number("HorizontalOffset") ?? 0) * sx)
        out["VerticalOffset"] = NSNumber(value: (number("VerticalOffset") ?? 0) * sy)
        return out
    }
}
