// TestPatternGenerator: the `testsrc` virtual camera's pictures — NV12 colour bars with a moving
// box, the frame number and the host-time strip, drawn with pixman (no per-pixel Swift).
internal import CPixman
import CoreMedia
import CoreVideo
import Foundation
import Synchronization

/// Draws the test pattern into `'420v'` (NV12, video range) pixel buffers of one size.
///
/// The colour bars are drawn once in BGRA with pixman and converted to NV12 once
/// (`PixelConverter`). Each frame copies that background plane by plane (`memcpy`) and fills,
/// with `pixman_image_fill_boxes` on the luma plane and on the interleaved chroma plane (both
/// seen as `a8` images), the moving box, the frame number in seven-segment digits and the
/// 64-block host-time strip (`TestPatternLayout`, read back by `HostTimeStrip.read`). Every box
/// is on even coordinates, so its chroma is set to neutral exactly where its luma is.
///
/// Frames come from a pool of `poolCapacity` buffers (`kCVPixelBufferPoolAllocationThresholdKey`):
/// a consumer holding them all stops the generator (`makeFrame` returns nil) until it lets one go.
/// Thread-safe: one frame is drawn at a time.
// Invariant: owns the background and pool buffers; the background is only read, by one drawing at a time (`drawing`).
package final class TestPatternGenerator: @unchecked Sendable {
    package let layout: TestPatternLayout
    /// How many frames may be out at once.
    package let poolCapacity: Int
    private let background: CVPixelBuffer
    private let pool: CVPixelBufferPool
    /// Held while a frame is drawn (no state: it serialises the drawing).
    private let drawing = Mutex(())

    /// The eight bars, left to right (BGRA, 75 % intensity as in SMPTE bars; white at 100 %).
    private static let bars: [(r: UInt16, g: UInt16, b: UInt16)] = [
        (0xFFFF, 0xFFFF, 0xFFFF), (0xBFBF, 0xBFBF, 0), (0, 0xBFBF, 0xBFBF), (0, 0xBFBF, 0),
        (0xBFBF, 0, 0xBFBF), (0xBFBF, 0, 0), (0, 0, 0xBFBF), (0x2020, 0x2020, 0x2020),
    ]

    /// A generator for `width`×`height` pictures (even sides, at least 128×96).
    package init(width: Int, height: Int, poolCapacity: Int = 6) throws(LiveSourceError) {
        guard let layout = TestPatternLayout(width: width, height: height) else {
            throw .unsupportedFormat("the test pattern needs even sides of at least 128×96, not \(width)×\(height)")
        }
        self.layout = layout
        self.poolCapacity = poolCapacity
        do {
            let bgra = try PixelConverter.allocatePixelBuffer(pixelFormat: kCVPixelFormatType_32BGRA, width: width, height: height)
            try Self.drawBars(into: bgra)
            background = try PixelConverter.allocatePixelBuffer(pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
                                                                width: width, height: height)
            try PixelConverter.shared.transfer(from: bgra, to: background)
        } catch {
            throw .failed("cannot draw the test pattern's bars: \(error)")
        }
        guard let made = CVPixelBufferPool.make(pixelFormat: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, width: width, height: height) else {
            throw .failed("cannot make a pool of \(width)×\(height) pixel buffers")
        }
        pool = made
    }

    /// Frame `frameNumber` stamped with `pts`, in a buffer from the pool; nil when all
    /// `poolCapacity` buffers are held.
    /// `light` (0…1) brightens the bars, as a torch lights a scene (see `render`).
    package func makeFrame(frameNumber: UInt64, pts: CMTime, light: Float = 0) throws(LiveSourceError) -> CVPixelBuffer? {
        let aux = [kCVPixelBufferPoolAllocationThresholdKey as String: NSNumber(value: poolCapacity)] as NSDictionary
        var buffer: CVPixelBuffer?
        let status = CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &buffer)
        if status == kCVReturnWouldExceedAllocationThreshold { return nil }
        guard status == kCVReturnSuccess, let buffer else { throw .failed("cannot get a pixel buffer from the pool (\(status))") }
        try render(frameNumber: frameNumber, pts: pts, into: buffer, light: light)
        return buffer
    }

    /// Draws frame `frameNumber` stamped with `pts` into `buffer` (`'420v'` of the layout's size).
    /// A `light` above 0 (a virtual camera's torch level) adds up to 64 to the bars' luma
    /// (pixman `ADD` of a solid over the luma plane, saturating), before the panel, box and
    /// strip are drawn, so they read back the same.
    package func render(frameNumber: UInt64, pts: CMTime, into buffer: CVPixelBuffer, light: Float = 0) throws(LiveSourceError) {
        guard CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
              CVPixelBufferGetWidth(buffer) == layout.width, CVPixelBufferGetHeight(buffer) == layout.height else {
            throw .unsupportedFormat("the pattern draws into '420v' \(layout.width)×\(layout.height) buffers")
        }
        try drawing.withLock { _ throws(LiveSourceError) in
            guard CVPixelBufferLockBaseAddress(buffer, []) == kCVReturnSuccess else { throw .failed("cannot lock a pixel buffer") }
            defer { _ = CVPixelBufferUnlockBaseAddress(buffer, []) }
            _ = CVPixelBufferLockBaseAddress(background, .readOnly)
            defer { _ = CVPixelBufferUnlockBaseAddress(background, .readOnly) }
            for plane in 0..<2 { copyPlane(plane, to: buffer) }
            guard let luma = planeImage(buffer, 0), let chroma = planeImage(buffer, 1) else {
                throw .failed("pixman cannot draw on this pixel buffer's planes")
            }
            defer {
                pixman_image_unref(luma)
                pixman_image_unref(chroma)
            }
            if light > 0 { Self.brighten(luma, by: UInt16(min(1, light) * 64), width: layout.width, height: layout.height) }
            draw(frameNumber: frameNumber, nanoseconds: HostTimeStrip.nanoseconds(pts), luma: luma, chroma: chroma)
        }
        CVBufferSetAttachment(buffer, kCVImageBufferYCbCrMatrixKey,
                              (layout.height < 720 ? kCVImageBufferYCbCrMatrix_ITU_R_601_4 : kCVImageBufferYCbCrMatrix_ITU_R_709_2),
                              .shouldPropagate)
    }

    private func draw(frameNumber: UInt64, nanoseconds: UInt64, luma: OpaquePointer, chroma: OpaquePointer) {
        var black: [TestPatternLayout.Box] = [layout.panel]
        var white: [TestPatternLayout.Box] = [layout.movingBox(frame: frameNumber)]
        var number = frameNumber
        for k in stride(from: TestPatternLayout.digitCount - 1, through: 0, by: -1) {
            let mask = TestPatternLayout.segmentMasks[Int(number % 10)]
            number /= 10
            for (s, box) in layout.segments(ofDigit: k).enumerated() where mask & (1 << UInt8(s)) != 0 { white.append(box) }
        }
        for i in 0..<TestPatternLayout.bitCount {
            if nanoseconds & (1 << UInt64(i)) != 0 { white.append(layout.block(i)) } else { black.append(layout.block(i)) }
        }
        Self.fill(luma, black, value: TestPatternLayout.black)
        Self.fill(luma, white, value: TestPatternLayout.white)
        let neutral = [layout.panel, layout.movingBox(frame: frameNumber), layout.strip].map {
            TestPatternLayout.Box(x: $0.x, y: $0.y / 2, width: $0.width, height: $0.height / 2)
        }
        Self.fill(chroma, neutral, value: TestPatternLayout.neutralChroma)
    }

    /// Copies plane `plane` of the background into `buffer` (both locked).
    private func copyPlane(_ plane: Int, to buffer: CVPixelBuffer) {
        guard let from = CVPixelBufferGetBaseAddressOfPlane(background, plane),
              let to = CVPixelBufferGetBaseAddressOfPlane(buffer, plane) else { return }
        let fromStride = CVPixelBufferGetBytesPerRowOfPlane(background, plane)
        let toStride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
        let rows = CVPixelBufferGetHeightOfPlane(buffer, plane)
        if fromStride == toStride {
            memcpy(to, from, fromStride * rows)
        } else {
            let rowBytes = min(fromStride, toStride)
            for row in 0..<rows { memcpy(to + row * toStride, from + row * fromStride, rowBytes) }
        }
    }

    /// Plane `plane` of a locked NV12 buffer as an `a8` pixman image (the chroma plane as one
    /// byte per sample, twice as wide as its 2-byte pixels).
    private func planeImage(_ buffer: CVPixelBuffer, _ plane: Int) -> OpaquePointer? {
        guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, plane) else { return nil }
        let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
        guard stride % 4 == 0, Int(bitPattern: base) % 4 == 0 else { return nil }
        return pixman_image_create_bits(PIXMAN_a8, Int32(layout.width), Int32(CVPixelBufferGetHeightOfPlane(buffer, plane)),
                                        base.assumingMemoryBound(to: UInt32.self), Int32(stride))
    }

    /// Sets every pixel of `boxes` to `value` in an `a8` image.
    private static func fill(_ image: OpaquePointer, _ boxes: [TestPatternLayout.Box], value: UInt8) {
        guard !boxes.isEmpty else { return }
        let v = UInt16(value) << 8 | UInt16(value)
        var colour = pixman_color_t(red: v, green: v, blue: v, alpha: v)
        let rects = boxes.map {
            pixman_box32_t(x1: Int32($0.x), y1: Int32($0.y), x2: Int32($0.x + $0.width), y2: Int32($0.y + $0.height))
        }
        rects.withUnsafeBufferPointer { _ = pixman_image_fill_boxes(PIXMAN_OP_SRC, image, &colour, Int32($0.count), $0.baseAddress) }
    }

    /// Adds `amount` to every sample of the `a8` image (saturating at 255).
    private static func brighten(_ image: OpaquePointer, by amount: UInt16, width: Int, height: Int) {
        guard amount > 0 else { return }
        let v = amount << 8 | amount
        var colour = pixman_color_t(red: v, green: v, blue: v, alpha: v)
        guard let solid = pixman_image_create_solid_fill(&colour) else { return }
        defer { pixman_image_unref(solid) }
        pixman_image_composite32(PIXMAN_OP_ADD, solid, nil, image, 0, 0, 0, 0, 0, 0, Int32(width), Int32(height))
    }

    /// Draws the eight vertical bars into a BGRA buffer.
    private static func drawBars(into buffer: CVPixelBuffer) throws {
        guard CVPixelBufferLockBaseAddress(buffer, []) == kCVReturnSuccess,
              let base = CVPixelBufferGetBaseAddress(buffer) else { throw LiveSourceError.failed("cannot lock a pixel buffer") }
        defer { _ = CVPixelBufferUnlockBaseAddress(buffer, []) }
        let width = CVPixelBufferGetWidth(buffer), height = CVPixelBufferGetHeight(buffer)
        guard let image = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(width), Int32(height),
                                                   base.assumingMemoryBound(to: UInt32.self),
                                                   Int32(CVPixelBufferGetBytesPerRow(buffer))) else {
            throw LiveSourceError.failed("pixman cannot draw on a \(width)×\(height) BGRA buffer")
        }
        defer { pixman_image_unref(image) }
        for (i, bar) in bars.enumerated() {
            var colour = pixman_color_t(red: bar.r, green: bar.g, blue: bar.b, alpha: 0xFFFF)
            var box = pixman_box32_t(x1: Int32(i * width / bars.count), y1: 0, x2: Int32((i + 1) * width / bars.count), y2: Int32(height))
            _ = pixman_image_fill_boxes(PIXMAN_OP_SRC, image, &colour, 1, &box)
        }
    }
}
