import CFFmpeg
import CoreVideo
import Foundation
import Testing
@testable import MediaEngine

/// Counts the frees of buffers made by `makeCountedBuffer`.
final class FreeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func increment() { lock.withLock { value += 1 } }
}

/// An `AVBufferRef` over `size` fresh bytes whose free callback counts on `counter` and frees them.
private func makeCountedBuffer(size: Int, counter: FreeCounter) -> UnsafeMutablePointer<AVBufferRef> {
    let bytes = malloc(size)!.assumingMemoryBound(to: UInt8.self)
    return av_buffer_create(bytes, size, { opaque, data in
        Unmanaged<FreeCounter>.fromOpaque(opaque!).takeRetainedValue().increment()
        free(data)
    }, Unmanaged.passRetained(counter).toOpaque(), 0)!
}

private func setPlane(_ frame: UnsafeMutablePointer<AVFrame>, _ i: Int, data: UnsafeMutablePointer<UInt8>?, linesize: Int32,
                      buf: UnsafeMutablePointer<AVBufferRef>?) {
    withUnsafeMutableBytes(of: &frame.pointee.data) { $0.storeBytes(of: data, toByteOffset: i * 8, as: UnsafeMutablePointer<UInt8>?.self) }
    withUnsafeMutableBytes(of: &frame.pointee.linesize) { $0.storeBytes(of: linesize, toByteOffset: i * 4, as: Int32.self) }
    withUnsafeMutableBytes(of: &frame.pointee.buf) {
        $0.storeBytes(of: buf, toByteOffset: i * 8, as: UnsafeMutablePointer<AVBufferRef>?.self)
    }
}

@Suite("VideoFrame")
struct FrameWrappingTests {
    /// An NV12 frame with counted buffers: Y = x + y, Cb = 100, Cr = 150.
    private func makeNV12Frame(width: Int, height: Int, counter: FreeCounter,
                               range: AVColorRange = AVCOL_RANGE_JPEG) -> UnsafeMutablePointer<AVFrame> {
        let frame = av_frame_alloc()!
        frame.pointee.format = AV_PIX_FMT_NV12.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.color_range = range
        frame.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointee.color_primaries = AVCOL_PRI_BT709
        frame.pointee.color_trc = AVCOL_TRC_BT709
        frame.pointee.chroma_location = AVCHROMA_LOC_LEFT
        let stride = (width + 63) / 64 * 64
        let y = makeCountedBuffer(size: stride * height, counter: counter)
        let uv = makeCountedBuffer(size: stride * height / 2, counter: counter)
        for row in 0..<height { for x in 0..<width { y.pointee.data[row * stride + x] = UInt8((x + row) & 0xFF) } }
        for row in 0..<height / 2 {
            for x in 0..<width / 2 {
                uv.pointee.data[row * stride + 2 * x] = 100
                uv.pointee.data[row * stride + 2 * x + 1] = 150
            }
        }
        setPlane(frame, 0, data: y.pointee.data, linesize: Int32(stride), buf: y)
        setPlane(frame, 1, data: uv.pointee.data, linesize: Int32(stride), buf: uv)
        return frame
    }

    @Test("a decoded frame becomes a pixel buffer without copying, and outlives the frame")
    func wrapWithoutCopy() throws {
        let counter = FreeCounter()
        var frame: UnsafeMutablePointer<AVFrame>? = makeNV12Frame(width: 64, height: 48, counter: counter)
        let data = VideoFrame.dataPointers(frame!)
        #expect(VideoFrame.canWrapWithoutCopy(frame!))
        var buffer: CVPixelBuffer? = try VideoFrame.makePixelBuffer(from: frame!)
        do {
            let storage = try #require(buffer?.storage)
            #expect(storage.pixelFormat == OSType(fourCCString: "420f"))
            #expect(storage.planes[0].baseAddress == UnsafeMutableRawPointer(data[0]!))
            #expect(storage.planes[1].baseAddress == UnsafeMutableRawPointer(data[1]!))
            #expect(storage.planes[0].bytesPerRow == 64 && storage.planes[1].height == 24 && storage.planes[1].width == 32)
            #expect(storage.baseAddress == nil)
        }
        av_frame_free(&frame)
        #expect(counter.count == 0, "the pixel buffer still references the planes")
        let y = PixelFixtures.samples(buffer!, .nv12f, x: 10, y: 7)
        #expect(y == [17, 100, 150])

        buffer!.mutex.lock()
        let attachments = buffer!.attachmentsByMode[.shouldPropagate] ?? [:]
        buffer!.mutex.unlock()
        #expect(attachments[PixelFormatColor.matrixKey] as? String == "ITU_R_709_2")
        #expect(attachments[PixelFormatColor.primariesKey] as? String == "ITU_R_709_2")
        #expect(attachments[PixelFormatColor.transferFunctionKey] as? String == "ITU_R_709_2")
        #expect(attachments[PixelFormatColor.chromaLocationTopFieldKey] as? String == "Left")

        buffer = nil
        #expect(counter.count == 2, "both planes freed once the pixel buffer is gone")
    }

    @Test("the range chooses 420v or 420f", arguments: [(AVCOL_RANGE_MPEG, "420v"), (AVCOL_RANGE_UNSPECIFIED, "420v"),
                                                       (AVCOL_RANGE_JPEG, "420f")])
    func rangeChoosesFormat(_ range: AVColorRange, _ code: String) throws {
        let counter = FreeCounter()
        var frame: UnsafeMutablePointer<AVFrame>? = makeNV12Frame(width: 16, height: 16, counter: counter, range: range)
        let buffer = try VideoFrame.makePixelBuffer(from: frame!)
        #expect(buffer.storage?.pixelFormat == OSType(fourCCString: code))
        av_frame_free(&frame)
    }

    @Test("negative line sizes are copied")
    func negativeLineSizeIsCopied() throws {
        let counter = FreeCounter()
        var frame: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()!
        let f = frame!
        f.pointee.format = AV_PIX_FMT_BGRA.rawValue
        f.pointee.width = 8
        f.pointee.height = 4
        let buf = makeCountedBuffer(size: 32 * 4, counter: counter)
        for row in 0..<4 { for i in 0..<32 { buf.pointee.data[row * 32 + i] = UInt8(row * 10) } }
        // Bottom-up: the first row shown is the last in memory.
        setPlane(f, 0, data: buf.pointee.data + 3 * 32, linesize: -32, buf: buf)
        #expect(!VideoFrame.canWrapWithoutCopy(f))
        let buffer = try VideoFrame.makePixelBuffer(from: f)
        let storage = try #require(buffer.storage)
        #expect(storage.planes[0].baseAddress != UnsafeMutableRawPointer(buf.pointee.data + 3 * 32))
        #expect(PixelFixtures.samples(buffer, .bgra, x: 0, y: 0) == [30, 30, 30, 30])
        #expect(PixelFixtures.samples(buffer, .bgra, x: 7, y: 3) == [0, 0, 0, 0])
        av_frame_free(&frame)
        #expect(counter.count == 1, "the copy does not keep the frame")
    }

    @Test("formats without a Core Video equivalent are converted")
    func unmappedFormatIsConverted() throws {
        var frame: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()!
        let f = frame!
        f.pointee.format = AV_PIX_FMT_YUV444P.rawValue
        f.pointee.width = 16
        f.pointee.height = 16
        f.pointee.color_range = AVCOL_RANGE_MPEG
        #expect(av_frame_get_buffer(f, 0) >= 0)
        let data = VideoFrame.dataPointers(f), lines = VideoFrame.lineSizes(f)
        // Pure red in BT.601 video range: Y 81, Cb 90, Cr 240.
        for (plane, value) in [(0, UInt8(81)), (1, 90), (2, 240)] {
            for row in 0..<16 { memset(data[plane]! + row * Int(lines[plane]), Int32(value), 16) }
        }
        let buffer = try VideoFrame.makePixelBuffer(from: f)
        #expect(buffer.storage?.pixelFormat == OSType(fourCCString: "BGRA"))
        let p = PixelFixtures.samples(buffer, .bgra, x: 5, y: 5)
        #expect(p[0] >= 253 && p[1] <= 2 && p[2] <= 2 && p[3] == 255, "\(p)")
        av_frame_free(&frame)

        var yuv422: UnsafeMutablePointer<AVFrame>? = av_frame_alloc()!
        yuv422!.pointee.format = AV_PIX_FMT_YUV422P.rawValue
        yuv422!.pointee.width = 16
        yuv422!.pointee.height = 16
        #expect(av_frame_get_buffer(yuv422!, 0) >= 0)
        let d2 = VideoFrame.dataPointers(yuv422!), l2 = VideoFrame.lineSizes(yuv422!)
        for (plane, value, w) in [(0, Int32(120), 16), (1, 110, 8), (2, 140, 8)] {
            for row in 0..<16 { memset(d2[plane]! + row * Int(l2[plane]), value, w) }
        }
        let b422 = try VideoFrame.makePixelBuffer(from: yuv422!)
        #expect(b422.storage?.pixelFormat == OSType(fourCCString: "422v"))
        #expect(PixelFixtures.samples(b422, .nv16v, x: 6, y: 9) == [120, 110, 140])
        av_frame_free(&yuv422)
    }

    @Test("a pixel buffer becomes an AVFrame without copying; the frame keeps it alive")
    func frameReferencesPixelBuffer() throws {
        var buffer: CVPixelBuffer? = PixelFixtures.make(.nv12v, width: 64, height: 32) { x, _ in
            RGB(r: Double(x * 2), g: 100, b: 50)
        }
        PixelFormatColor.setAttachment(PixelFormatColor.matrixKey, "ITU_R_709_2", on: buffer!)
        weak let weakBuffer = buffer
        let storage = buffer!.storage!
        var frame: UnsafeMutablePointer<AVFrame>? = try VideoFrame.makeFrame(referencing: buffer!)
        let data = VideoFrame.dataPointers(frame!), lines = VideoFrame.lineSizes(frame!)
        #expect(frame!.pointee.format == AV_PIX_FMT_NV12.rawValue)
        #expect(frame!.pointee.width == 64 && frame!.pointee.height == 32)
        #expect(frame!.pointee.color_range == AVCOL_RANGE_MPEG)
        #expect(frame!.pointee.colorspace == AVCOL_SPC_BT709)
        for i in 0..<2 {
            #expect(UnsafeMutableRawPointer(data[i]!) == storage.planes[i].baseAddress)
            #expect(Int(lines[i]) == storage.planes[i].bytesPerRow)
        }
        #expect(av_frame_is_writable(frame!) == 0, "the planes are shared read-only")

        buffer = nil
        #expect(weakBuffer != nil, "the frame holds the pixel buffer")
        var second: UnsafeMutablePointer<AVFrame>? = av_frame_clone(frame!)
        av_frame_free(&frame)
        #expect(weakBuffer != nil, "a second reference still holds it")
        av_frame_free(&second)
        #expect(weakBuffer == nil, "released with the last frame reference")
    }

    @Test("b64a and storage-less buffers cannot become frames")
    func frameErrors() {
        let deep = PixelFixtures.make(.argb64, width: 4, height: 4) { _, _ in RGB(r: 1, g: 2, b: 3) }
        #expect(throws: PixelConversionError.unsupportedPixelFormat(OSType(fourCCString: "b64a")!)) {
            _ = try VideoFrame.makeFrame(referencing: deep)
        }
        #expect(throws: PixelConversionError.invalidBuffer) { _ = try VideoFrame.makeFrame(referencing: CVBuffer(storage: nil)) }
        let frame = av_frame_alloc()!
        #expect(throws: PixelConversionError.invalidBuffer) { _ = try VideoFrame.makePixelBuffer(from: frame) }
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
    }
}
