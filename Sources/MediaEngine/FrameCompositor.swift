// FrameCompositor: the software video compositor — layers of decoded frames, each transformed,
// cropped and faded, blended front-first over a background colour into one pooled pixel buffer
// at the render size. Every pixel is touched by pixman (transforms with bilinear filtering,
// Porter-Duff OVER/SRC/IN/ADD with a solid opacity mask, fills) or libswscale (Y'CbCr ↔ RGB
// through `PixelConverter`); Swift only plans rectangles, so a debug build composites as fast as
// a release build.
//
// Two paths, chosen per frame:
// - Planes (Y'CbCr): when every visible layer is Y'CbCr in the canvas's matrix and placed by a
//   whole, even translation (cuts, cross-dissolves, wipes, pushes at even offsets — most of an
//   edit) or scaled onto whole pixels inside the frame from an even top-left corner (clips of
//   another size fitted to the render size, picture in picture; libswscale scales the crop, an
//   opaque layer straight into the canvas), the frame is composited on the 8-bit planes of an
//   NV12 canvas (a 420v/420f output itself):
//   the luma plane and the interleaved chroma plane are each read by pixman as `a8` images, an
//   opaque layer is copied (SRC) and a faded one blended as `dst·(1−α) + src·α` (IN with a solid
//   then ADD through the layer as mask). Y'CbCr is an affine function of R'G'B', so this is the
//   blend an RGB compositor computes, without converting to RGB and back. Layers in another
//   Y'CbCr layout or range are first converted by libswscale to the canvas's.
// - RGB: otherwise (rotation, scaling, fractional or odd offsets, RGB sources, another Y'CbCr
//   matrix, a translucent background under an RGB output) each layer is read as a 32-bit
//   premultiplied image (BGRA-family buffers in place, anything else converted by libswscale
//   into a pooled BGRA buffer), sampled through its inverse transform with
//   bilinear filtering — edge pixels clamped (PAD) for axis-aligned placements, soft edges (NONE)
//   for rotated ones — and composited OVER a BGRA canvas with a solid opacity mask; one libswscale
//   conversion then writes a Y'CbCr output.
// Layers hidden behind an opaque layer that covers the whole frame are skipped, and the
// background is filled only when no layer covers the frame.
//
// Speed, measured with `avtool bench --only compositor --repeats 5` (best of 5; a 2-core VM
// shared with other builds, so ±30 %): 300 frames of a 1280×720 two-layer cross-dissolve from
// NV12 inputs as a decoder hands them, decode-free, in a debug and a release build of avtool,
// against ffmpeg's own blend on the same machine in the same run:
//   ffmpeg -f lavfi -i color=red:s=1280x720:r=30:d=10 -f lavfi -i color=green:s=1280x720:r=30:d=10
//          -filter_complex "[0][1]xfade=transition=fade:duration=10:offset=0,format=nv12" -f null -
// minus the same command without the blend (-filter_complex "[0]format=yuv420p,format=nv12[v];
// [1]nullsink" -map "[v]"):
//                                        debug build   release build   ffmpeg xfade
//   dissolve → 420v (planes path)        5100 fps      5400 fps        135–271 fps
//   dissolve → BGRA (planes + 1 convert) 2150 fps      2400 fps
//   push at fractional offsets → 420v    300 fps       420 fps
//     (RGB path: 2 × NV12 → BGRA, 2 bilinear OVERs, 1 BGRA → NV12)
//   1080p scaled to 720p, dissolving in  305 fps       500–900 fps
// (the best of five runs of the bench, 19:33–19:45 UTC 2026-11-25, load average 6–8 from other
// builds: single runs vary by up to 2×, ffmpeg's as much.) Debug and release differ by little:
// the Swift code only plans rectangles; the libraries do the rest in both.
internal import CPixman
import CoreGraphics
import CoreVideo
import Foundation

/// One layer of a composed frame.
package struct CompositorLayer: Sendable {
    /// A decoded frame in any format the engine converts (NV12 `420v`/`420f`, planar `y420`/`f420`,
    /// `BGRA`, `32ARGB`, …). 32-bit RGB buffers are read as premultiplied alpha.
    package var image: CVPixelBuffer
    /// Source pixel coordinates (top-left origin, y down) → render coordinates (same convention):
    /// the track's preferred transform, the layer transform and the render scale, concatenated.
    package var transform: CGAffineTransform
    /// The part of the image shown, in source pixel coordinates (rounded to whole pixels); nil:
    /// the whole image.
    package var cropRectangle: CGRect?
    /// 0…1 (quantised to 1/255).
    package var opacity: Float

    package init(image: CVPixelBuffer, transform: CGAffineTransform = .identity, cropRectangle: CGRect? = nil,
                 opacity: Float = 1) {
        self.image = image
        self.transform = transform
        self.cropRectangle = cropRectangle
        self.opacity = opacity
    }
}

/// Renders frames of layers at one size into one pixel format.
///
/// Threads: one instance may render from several threads at once (composition requests run
/// concurrently): its pools are locked, each render checks out its own pixman scratch state, and
/// the converter checks out its scaling contexts.
///
/// Colour: Y'CbCr sources are read with their `kCVImageBufferYCbCrMatrixKey` (else BT.601 under
/// 720 rows, BT.709 from 720), as `PixelConverter` does; a Y'CbCr output is written with
/// `yCbCrMatrix` (default: the same rule for the render height) and carries it as an attachment.
package final class FrameCompositor: @unchecked Sendable {
    /// The background colour: straight (not premultiplied) components in 0…1.
    package typealias Color = (red: Float, green: Float, blue: Float, alpha: Float)

    package let renderWidth: Int
    package let renderHeight: Int
    /// The output pixel format.
    package let pixelFormat: OSType
    /// The Y'CbCr matrix of Y'CbCr outputs and of the Y'CbCr canvas.
    package let yCbCrMatrix: PixelFormatColor.Matrix

    let converter: PixelConverter
    private let lock = NSLock()
    private var pools: [PoolKey: CVPixelBufferPool] = [:]
    private var idleScratch: [Scratch] = []
    private var backgroundCache: (color: [Float], full: Bool, matrix: PixelFormatColor.Matrix,
                                  yCbCr: (y: UInt8, cb: UInt8, cr: UInt8))?

    /// The output formats: 32-bit RGB (`BGRA`, `32ARGB`, `RGBA`, `ABGR`) and NV12 (`420v`, `420f`)
    /// are composited in place; any other format `PixelConverter` writes is converted once from
    /// the canvas. `converter` defaults to one of the compositor's own, so its scaling contexts
    /// (a handful per source size) are not evicted by other users of the shared one.
    package init(renderWidth: Int, renderHeight: Int, pixelFormat: OSType, yCbCrMatrix: PixelFormatColor.Matrix? = nil,
                 converter: PixelConverter? = nil) throws(PixelConversionError) {
        guard renderWidth > 0, renderHeight > 0, renderWidth <= 16384, renderHeight <= 16384 else { throw .invalidBuffer }
        guard CVPixelFormatLayout.layout(for: pixelFormat) != nil,
              PixelFormat.mapping(for: pixelFormat) != nil || pixelFormat == OSType(fourCC: "b64a")
                || pixelFormat == OSType(fourCC: "422v") || pixelFormat == OSType(fourCC: "422f")
        else { throw .unsupportedPixelFormat(pixelFormat) }
        self.renderWidth = renderWidth
        self.renderHeight = renderHeight
        self.pixelFormat = pixelFormat
        self.yCbCrMatrix = yCbCrMatrix ?? .defaultMatrix(height: renderHeight)
        self.converter = converter ?? PixelConverter(capacity: 16)
        _ = try pool(pixelFormat, width: renderWidth, height: renderHeight)
    }

    // MARK: Rendering

    /// Composites `layers` (front first) over `backgroundColor` into a new buffer from the
    /// compositor's pool. Layers with zero opacity, an empty crop or a degenerate transform are
    /// not drawn; an empty list gives the background.
    package func render(layers: [CompositorLayer], backgroundColor: Color) throws(PixelConversionError) -> CVPixelBuffer {
        let output = try buffer(pixelFormat, width: renderWidth, height: renderHeight)
        try render(layers: layers, backgroundColor: backgroundColor, into: output)
        return output
    }

    /// Composites into `output`, a buffer of the render size and the compositor's pixel format
    /// (a render context's `newPixelBuffer()`, say); every pixel of it is written.
    package func render(layers: [CompositorLayer], backgroundColor: Color, into output: CVPixelBuffer)
        throws(PixelConversionError) {
        guard let o = output.storage, o.width == renderWidth, o.height == renderHeight, o.pixelFormat == pixelFormat,
              layers.allSatisfy({ $0.image !== output }) else { throw .invalidBuffer }
        let canvas = PixelRect(x: 0, y: 0, width: renderWidth, height: renderHeight)
        var placed: [PlacedLayer] = []
        placed.reserveCapacity(layers.count)
        for layer in layers {
            guard let p = try PlacedLayer(layer, canvas: canvas) else { continue }
            placed.append(p)
            if p.coversCanvas { break }
        }
        placed.reverse()   // back to front
        let needsBackground = !(placed.first?.coversCanvas ?? false)
        let scratch = checkOutScratch()
        defer { checkIn(scratch) }
        // A Y'CbCr output is written in its matrix; for an RGB output the planes may use the layers'
        // own, unless a translucent background must show in the output's alpha.
        let outputIsYCbCr = PixelFormat.isYCbCr(pixelFormat)
        let planesMatrix = outputIsYCbCr ? yCbCrMatrix : placed.first?.matrix ?? yCbCrMatrix
        let opaqueEnough = outputIsYCbCr || !needsBackground || backgroundColor.alpha >= 1
        if opaqueEnough, placed.allSatisfy({ $0.suitsPlanes(planesMatrix) }) {
            try renderPlanes(placed, background: needsBackground ? backgroundColor : nil, matrix: planesMatrix, into: output,
                             scratch: scratch)
        } else {
            try renderRGB(placed, background: needsBackground ? backgroundColor : nil, into: output, scratch: scratch)
        }
    }

    // MARK: Passthrough

    /// The frame to show as it is, with no copy, when compositing would only reproduce it: the
    /// front-most visible layer is opaque (a format without alpha, opacity 1), the render size,
    /// untransformed (identity within 1/1000 of a pixel) and uncropped (or cropped to a rectangle
    /// containing the whole image), and its format is one of `acceptedPixelFormats`. Layers behind
    /// it are hidden. Nil otherwise.
    package static func passthroughImage(layers: [CompositorLayer], renderWidth: Int, renderHeight: Int,
                                         acceptedPixelFormats: [OSType]) -> CVPixelBuffer? {
        let canvas = PixelRect(x: 0, y: 0, width: renderWidth, height: renderHeight)
        for layer in layers {
            let placed: PlacedLayer?
            do { placed = try PlacedLayer(layer, canvas: canvas) } catch { return nil }
            guard let p = placed else { continue }
            let s = p.storage
            guard p.coversCanvas, p.translation.map({ $0 == (0, 0) }) ?? false, s.width == renderWidth,
                  s.height == renderHeight, p.crop == PixelRect(x: 0, y: 0, width: s.width, height: s.height),
                  acceptedPixelFormats.contains(s.pixelFormat) else { return nil }
            return layer.image
        }
        return nil
    }

    /// `passthroughImage(layers:renderWidth:renderHeight:acceptedPixelFormats:)` at this
    /// compositor's size, accepting its output format.
    package func passthroughImage(layers: [CompositorLayer]) -> CVPixelBuffer? {
        Self.passthroughImage(layers: layers, renderWidth: renderWidth, renderHeight: renderHeight,
                              acceptedPixelFormats: [pixelFormat])
    }

    // MARK: Pools and scratch state

    private struct PoolKey: Hashable {
        var format: OSType, width: Int, height: Int
    }

    /// The most pools kept (output, canvas and one per source size and format being converted).
    private static let poolLimit = 12

    private func pool(_ format: OSType, width: Int, height: Int) throws(PixelConversionError) -> CVPixelBufferPool {
        let key = PoolKey(format: format, width: width, height: height)
        let existing = lock.withLock { pools[key] }
        if let existing { return existing }
        let attributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: format),
                                         kCVPixelBufferWidthKey as String: NSNumber(value: width),
                                         kCVPixelBufferHeightKey as String: NSNumber(value: height)]
        var made: CVPixelBufferPool?
        guard CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &made) == kCVReturnSuccess, let made else {
            throw .unsupportedPixelFormat(format)
        }
        return lock.withLock {
            if let raced = pools[key] { return raced }
            if pools.count >= Self.poolLimit, let victim = pools.keys.first(where: { $0.format != pixelFormat
                || $0.width != renderWidth || $0.height != renderHeight }) {
                pools[victim] = nil
            }
            pools[key] = made
            return made
        }
    }

    /// A buffer from the pool for `format` at `width`×`height`.
    func buffer(_ format: OSType, width: Int, height: Int) throws(PixelConversionError) -> CVPixelBuffer {
        let pool = try pool(format, width: width, height: height)
        var buffer: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer) == kCVReturnSuccess, let buffer else {
            throw .allocationFailed
        }
        return buffer
    }

    private func checkOutScratch() -> Scratch {
        lock.withLock { idleScratch.popLast() } ?? Scratch()
    }

    private func checkIn(_ scratch: Scratch) {
        lock.withLock { if idleScratch.count < 8 { idleScratch.append(scratch) } }
    }

    /// The background as 8-bit Y'CbCr of the canvas's range and matrix, converted by libswscale
    /// as every other picture is (cached for the last colour).
    func backgroundYCbCr(_ color: Color, fullRange: Bool, matrix: PixelFormatColor.Matrix)
        throws(PixelConversionError) -> (y: UInt8, cb: UInt8, cr: UInt8) {
        let components = [color.red, color.green, color.blue, color.alpha]
        if let cached = lock.withLock({ backgroundCache }), cached.color == components, cached.full == fullRange,
           cached.matrix == matrix {
            return cached.yCbCr
        }
        let rgb = try PixelConverter.allocatePixelBuffer(pixelFormat: OSType(fourCC: "BGRA"), width: 2, height: 2)
        let ycc = try PixelConverter.allocatePixelBuffer(pixelFormat: OSType(fourCC: fullRange ? "420f" : "420v"),
                                                         width: 2, height: 2)
        guard let s = rgb.storage, let d = ycc.storage else { throw .allocationFailed }
        let pixel = Self.premultipliedPixel(color) | 0xFF00_0000   // over black
        for row in 0..<2 {
            let p = (s.planes[0].baseAddress + row * s.planes[0].bytesPerRow).assumingMemoryBound(to: UInt32.self)
            p[0] = pixel
            p[1] = pixel
        }
        var options = PixelConverter.Options()
        options.destinationMatrix = matrix
        options.scaling = .point
        try converter.transfer(from: rgb, to: ycc, options: options)
        let y = d.planes[0].baseAddress.load(as: UInt8.self)
        let cb = d.planes[1].baseAddress.load(as: UInt8.self), cr = d.planes[1].baseAddress.load(fromByteOffset: 1, as: UInt8.self)
        lock.withLock { backgroundCache = (components, fullRange, matrix, (y, cb, cr)) }
        return (y, cb, cr)
    }

    /// A straight colour as one premultiplied 32-bit pixel, A R G B from the high byte down (the
    /// value of a little-endian `BGRA` pixel).
    static func premultipliedPixel(_ color: Color) -> UInt32 {
        func unit(_ v: Float) -> Float { v.isNaN ? 0 : min(max(v, 0), 1) }
        let a = unit(color.alpha)
        func byte(_ v: Float) -> UInt32 { UInt32((v * 255).rounded()) }
        return byte(a) << 24 | byte(unit(color.red) * a) << 16 | byte(unit(color.green) * a) << 8 | byte(unit(color.blue) * a)
    }
}

/// Per-render pixman state: the solid images and the pixman images made over pixel buffer
/// planes, reused while the same memory (pooled and decoder-pooled buffers recycle theirs) comes
/// back with the same geometry. Used by one render at a time.
final class Scratch {
    struct ImageKey: Hashable {
        var address: UInt, format: UInt32, width: Int, height: Int, bytesPerRow: Int
    }

    /// Solid `a8` images: an opacity mask and its complement.
    let alpha: PixmanPicture?
    let complement: PixmanPicture?
    /// A solid premultiplied colour (`a8r8g8b8`): the background of RGB canvases.
    let color: PixmanPicture?
    private var images: [ImageKey: PixmanPicture] = [:]
    /// The most images kept; beyond it the cache starts again.
    private static let imageLimit = 48

    init() {
        alpha = PixmanPicture(solidFormat: PIXMAN_a8)
        complement = PixmanPicture(solidFormat: PIXMAN_a8)
        color = PixmanPicture(solidFormat: PIXMAN_a8r8g8b8)
    }

    /// A pixman image over `bits`, reset to untransformed sampling; nil when pixman cannot address it.
    func image(_ format: pixman_format_code_t, width: Int, height: Int, bits: UnsafeMutableRawPointer,
               bytesPerRow: Int) -> PixmanPicture? {
        let key = ImageKey(address: UInt(bitPattern: bits), format: format.rawValue, width: width, height: height,
                           bytesPerRow: bytesPerRow)
        if let cached = images[key] {
            cached.resetSampling()
            return cached
        }
        guard let made = PixmanPicture(format: format, width: width, height: height, bits: bits, bytesPerRow: bytesPerRow)
        else { return nil }
        if images.count >= Self.imageLimit { images.removeAll(keepingCapacity: true) }
        images[key] = made
        return made
    }
}
