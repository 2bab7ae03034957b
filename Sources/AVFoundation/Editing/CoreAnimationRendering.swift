// CoreAnimationRendering: the video composition's Core Animation tool at work for one consumer —
// after the compositor, the tool's layer tree is evaluated at the frame's movie time (the composed
// frame as the video layers' contents) and drawn by QuartzCore's LayerRenderer into a new 32-bit
// BGRA frame; in the additional-layer form, the tree drawn alone is a source track's frame.
import CoreGraphics
import CoreMedia
import CoreVideo
import Foundation
internal import MediaEngine
import QuartzCore

/// Renders an `AVVideoCompositionCoreAnimationTool`'s layers for one consumer (one export, reader
/// output or image generator). Used from the consumer's one thread.
final class CoreAnimationRendering {
    let tool: AVVideoCompositionCoreAnimationTool
    let width: Int
    let height: Int
    /// Draws the trees; keeps unchanged subtrees (a watermark, a title between its animations)
    /// as surfaces from one frame to the next.
    private let renderer = LayerRenderer()
    private let pool: CVPixelBufferPool
    /// Where composed frames in another format are converted to BGRA for the video layers.
    private var bgraPool: (pool: CVPixelBufferPool, width: Int, height: Int)?
    /// Where Y'CbCr frames are copied to be drawn over in a region.
    private var copyPool: (pool: CVPixelBufferPool, format: OSType)?

    /// The tool's renderer for frames of `width`×`height` (the render context's size).
    init(tool: AVVideoCompositionCoreAnimationTool, width: Int, height: Int) throws {
        self.tool = tool
        self.width = width
        self.height = height
        pool = try Self.makePool(width: width, height: height)
    }

    /// The track ID of the additional layer's frames (nil in the post-processing form).
    var additionalTrackID: CMPersistentTrackID? {
        tool.additionalLayer != nil && tool.additionalTrackID != kCMPersistentTrackID_Invalid ? tool.additionalTrackID : nil
    }

    /// The output frame for the composed frame `composed` at movie time `time`: the animation
    /// layer's tree drawn over black with `composed` in the video layers. Without an animation
    /// layer (the additional-layer form) the frame is `composed` itself.
    ///
    /// The common case costs little: when the video layer shows the frame unchanged over the
    /// whole canvas and nothing else is visible (a title before it fades in), the frame is
    /// handed on as it is; when the rest of the tree draws inside a rectangle (a watermark, a
    /// lower third), a Y'CbCr frame is copied and only that rectangle is converted to BGRA,
    /// drawn over and converted back — so a static watermark does not cost two whole-frame
    /// conversions per frame.
    func postProcess(_ composed: CVPixelBuffer, at time: CMTime) throws -> CVPixelBuffer {
        guard let root = tool.animationLayer else { return composed }
        let ids = Set(tool.videoLayers.map(ObjectIdentifier.init))
        let seconds = Self.seconds(time)
        func tree(_ frame: CVPixelBuffer) -> RenderLayer {
            var overrides: [ObjectIdentifier: RenderLayer.Contents] = [:]
            for id in ids { overrides[id] = .pixelBuffer(frame) }
            return root.renderTree(at: seconds, contentsOverrides: overrides)
        }
        let evaluated = tree(composed)
        let canvas = CGSize(width: width, height: height)
        let sameSize = CVPixelBufferGetWidth(composed) == width && CVPixelBufferGetHeight(composed) == height
        if sameSize {
            switch LayerRenderer.overlayExtent(of: evaluated, videoLayers: ids, canvas: canvas) {
            case .none:
                return composed
            case .region(let rect):
                if let out = try drawRegion(rect, of: evaluated, over: composed, videoLayers: ids) { return out }
            case .everywhere:
                break
            }
        }
        let format = CVPixelBufferGetPixelFormatType(composed)
        return try draw(format == kCVPixelFormatType_32BGRA ? evaluated : tree(try bgra(composed)))
    }

    /// The Y'CbCr 4:2:0 layouts the region path draws into in place.
    private static let planar420: Set<OSType> = [kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                                 kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
                                                 kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange]

    /// A copy of the Y'CbCr frame `composed` with `tree` (its video layers hidden: they show
    /// `composed` itself) drawn over the even-aligned rectangle around `rect` (canvas space, y up);
    /// nil when the frame's layout is not one the region path handles.
    private func drawRegion(_ rect: CGRect, of tree: RenderLayer, over composed: CVPixelBuffer,
                            videoLayers: Set<ObjectIdentifier>) throws -> CVPixelBuffer? {
        let format = CVPixelBufferGetPixelFormatType(composed)
        guard Self.planar420.contains(format), width % 2 == 0, height % 2 == 0 else { return nil }
        // Rows from the top, widened to even edges (whole chroma samples); columns widened to
        // multiples of 16 (libswscale's converters work in runs of pixels and leave a ragged
        // last run of a narrow view wrong).
        let x0 = max(0, Int(rect.minX.rounded(.down)) & ~15), x1 = min(width, (Int(rect.maxX.rounded(.up)) + 15) & ~15)
        let top = max(0, (height - Int(rect.maxY.rounded(.up))) & ~1)
        let bottom = min(height, (height - Int(rect.minY.rounded(.down)) + 1) & ~1)
        guard x1 > x0, bottom > top else { return composed }
        let out = try copy(composed)
        var hidden = tree
        hidden.sublayers = hidden.sublayers.map { layer in
            var l = layer
            if videoLayers.contains(l.id) { l.isHidden = true }
            return l
        }
        var made: CVPixelBuffer?
        guard CVPixelBufferCreate(nil, x1 - x0, bottom - top, kCVPixelFormatType_32BGRA, nil, &made) == kCVReturnSuccess,
              let patch = made else { throw VideoCompositionSession.invalid("Cannot allocate a region for the Core Animation tool.") }
        do {
            var options = PixelConverter.Options()
            options.fast = true
            try withRegion(of: composed, x: x0, y: top, width: x1 - x0, height: bottom - top) { view in
                try PixelConverter.shared.transfer(from: view, to: patch, options: options)
            }
            CVPixelBufferLockBaseAddress(patch, [])
            if let context = CGContext(data: CVPixelBufferGetBaseAddress(patch), width: x1 - x0, height: bottom - top,
                                       bitsPerComponent: 8, bytesPerRow: CVPixelBufferGetBytesPerRow(patch),
                                       space: CGColorSpaceCreateDeviceRGB(),
                                       bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue) {
                // Canvas space (y up) → the patch: its bottom row is canvas row `bottom`.
                context.translateBy(x: CGFloat(-x0), y: CGFloat(-(height - bottom)))
                renderer.draw(hidden, in: context)
            }
            CVPixelBufferUnlockBaseAddress(patch, [])
            try withRegion(of: out, x: x0, y: top, width: x1 - x0, height: bottom - top) { view in
                try PixelConverter.shared.transfer(from: patch, to: view, options: options)
            }
        } catch let error as AVError {
            throw error
        } catch {
            throw VideoCompositionSession.invalid("Cannot draw the Core Animation tool's layers over a frame (\(error)).")
        }
        return out
    }

    /// Calls `body` with a pixel buffer that views the rectangle (x, y, width, height; top-left
    /// origin, even) of `buffer`'s planes without copying (valid inside `body` only).
    private func withRegion(of buffer: CVPixelBuffer, x: Int, y: Int, width w: Int, height h: Int,
                            _ body: (CVPixelBuffer) throws -> Void) throws {
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        let planes = CVPixelBufferGetPlaneCount(buffer)
        guard planes >= 2 else { throw VideoCompositionSession.invalid("A composed frame has no planes to draw a region of.") }
        var bases: [UnsafeMutableRawPointer?] = []
        var widths: [Int] = [], heights: [Int] = [], strides: [Int] = []
        for plane in 0..<planes {
            guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane) else {
                throw VideoCompositionSession.invalid("A composed frame's plane has no memory.")
            }
            let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
            // Luma: one byte a pixel; NV12 chroma: two bytes per two pixels; planar chroma: one
            // byte per two pixels — every chroma plane has half the rows.
            let chroma = plane > 0
            let column = chroma && planes > 2 ? x / 2 : x  // bytes into the row
            let row = chroma ? y / 2 : y
            bases.append(base.advanced(by: row * stride + column))
            widths.append(chroma ? w / 2 : w)
            heights.append(chroma ? h / 2 : h)
            strides.append(stride)
        }
        var view: CVPixelBuffer?
        let status = bases.withUnsafeMutableBufferPointer { b in
            widths.withUnsafeMutableBufferPointer { wp in
                heights.withUnsafeMutableBufferPointer { hp in
                    strides.withUnsafeMutableBufferPointer { sp in
                        CVPixelBufferCreateWithPlanarBytes(nil, w, h, CVPixelBufferGetPixelFormatType(buffer), nil, 0, planes,
                                                           b.baseAddress!, wp.baseAddress!, hp.baseAddress!, sp.baseAddress!,
                                                           nil, nil, nil, &view)
                    }
                }
            }
        }
        guard status == kCVReturnSuccess, let view else {
            throw VideoCompositionSession.invalid("Cannot view a region of a composed frame (\(status)).")
        }
        if let attachments = CVBufferCopyAttachments(buffer, .shouldPropagate) as? [String: Any] {
            CVBufferSetAttachments(view, attachments as NSDictionary, .shouldPropagate)
        }
        try body(view)
    }

    /// A pooled copy of `buffer` (same format and size), its planes copied row by row.
    private func copy(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        let format = CVPixelBufferGetPixelFormatType(buffer)
        if copyPool.map({ $0.format != format }) ?? true {
            copyPool = (try Self.makePool(width: width, height: height, format: format), format)
        }
        var made: CVPixelBuffer?
        guard let pool = copyPool?.pool, CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made) == kCVReturnSuccess, let out = made else {
            throw VideoCompositionSession.invalid("Cannot allocate a frame for the Core Animation tool.")
        }
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        CVPixelBufferLockBaseAddress(out, [])
        defer {
            CVPixelBufferUnlockBaseAddress(out, [])
            CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
        }
        for plane in 0..<CVPixelBufferGetPlaneCount(buffer) {
            guard let from = CVPixelBufferGetBaseAddressOfPlane(buffer, plane),
                  let to = CVPixelBufferGetBaseAddressOfPlane(out, plane) else { continue }
            let a = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane), b = CVPixelBufferGetBytesPerRowOfPlane(out, plane)
            let rows = CVPixelBufferGetHeightOfPlane(buffer, plane)
            if a == b {
                to.copyMemory(from: from, byteCount: a * rows)
            } else {
                let bytes = min(a, b)
                for row in 0..<rows { to.advanced(by: row * b).copyMemory(from: from.advanced(by: row * a), byteCount: bytes) }
            }
        }
        if let attachments = CVBufferCopyAttachments(buffer, .shouldPropagate) as? [String: Any] {
            CVBufferSetAttachments(out, attachments as NSDictionary, .shouldPropagate)
        }
        return out
    }

    /// The additional layer drawn alone at movie time `time` (transparent where it draws
    /// nothing), as its track's frame.
    func additionalFrame(at time: CMTime) throws -> CVPixelBuffer? {
        guard let layer = tool.additionalLayer else { return nil }
        return try draw(layer.renderTree(at: Self.seconds(time)), over: false)
    }

    /// Movie time in seconds, as layer time.
    static func seconds(_ time: CMTime) -> CFTimeInterval {
        time.isNumeric ? time.seconds : 0
    }

    /// `tree` drawn into a new frame (over opaque black when `over`, else over transparent).
    private func draw(_ tree: RenderLayer, over black: Bool = true) throws -> CVPixelBuffer {
        var made: CVPixelBuffer?
        guard CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made) == kCVReturnSuccess, let out = made else {
            throw VideoCompositionSession.invalid("Cannot allocate a frame for the Core Animation tool.")
        }
        CVPixelBufferLockBaseAddress(out, [])
        defer { CVPixelBufferUnlockBaseAddress(out, []) }
        guard let base = CVPixelBufferGetBaseAddress(out),
              let context = CGContext(data: base, width: width, height: height, bitsPerComponent: 8,
                                      bytesPerRow: CVPixelBufferGetBytesPerRow(out), space: CGColorSpaceCreateDeviceRGB(),
                                      bitmapInfo: CGImageAlphaInfo.premultipliedFirst.rawValue | CGBitmapInfo.byteOrder32Little.rawValue)
        else { throw VideoCompositionSession.invalid("Cannot draw into a frame for the Core Animation tool.") }
        let all = CGRect(x: 0, y: 0, width: width, height: height)
        if black {
            context.setFillColor(gray: 0, alpha: 1)
            context.fill(all)
        } else {
            context.clear(all)
        }
        renderer.draw(tree, in: context)
        return out
    }

    /// `buffer` as 32-bit BGRA: itself when it is, else converted (once per frame, into a pool).
    private func bgra(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        guard CVPixelBufferGetPixelFormatType(buffer) != kCVPixelFormatType_32BGRA else { return buffer }
        let w = CVPixelBufferGetWidth(buffer), h = CVPixelBufferGetHeight(buffer)
        if bgraPool.map({ $0.width != w || $0.height != h }) ?? true {
            bgraPool = (try Self.makePool(width: w, height: h), w, h)
        }
        var made: CVPixelBuffer?
        guard let pool = bgraPool?.pool, CVPixelBufferPoolCreatePixelBuffer(nil, pool, &made) == kCVReturnSuccess, let out = made else {
            throw VideoCompositionSession.invalid("Cannot allocate a frame for the Core Animation tool.")
        }
        do {
            var options = PixelConverter.Options()
            options.fast = true
            try PixelConverter.shared.transfer(from: buffer, to: out, options: options)
        } catch {
            throw VideoCompositionSession.invalid("Cannot convert a composed frame for the Core Animation tool (\(error)).")
        }
        return out
    }

    private static func makePool(width: Int, height: Int, format: OSType = kCVPixelFormatType_32BGRA) throws -> CVPixelBufferPool {
        var made: CVPixelBufferPool?
        let attributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: format),
                                         kCVPixelBufferWidthKey as String: NSNumber(value: width),
                                         kCVPixelBufferHeightKey as String: NSNumber(value: height)]
        guard CVPixelBufferPoolCreate(nil, nil, attributes as NSDictionary, &made) == kCVReturnSuccess, let made else {
            throw VideoCompositionSession.invalid("Cannot allocate \(width)×\(height) frames for the Core Animation tool.")
        }
        return made
    }
}
