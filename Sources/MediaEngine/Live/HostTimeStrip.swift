// HostTimeStrip: where the test pattern puts its machine-readable parts — the 64-block host-time
// strip (a frame's PTS in nanoseconds) and the 7-segment frame number — and how to read them back
// from a picture's luma plane, so tests and the benchmark can tell when a frame was captured.
import CoreMedia
import CoreVideo

/// The geometry of the test pattern at one size. Every rectangle has even coordinates and sizes,
/// so each covers whole 2×2 chroma blocks of a 4:2:0 picture.
///
/// - unit `u` = height / 60 (at most width / 48), even, at least 2.
/// - frame number: 8 seven-segment digits, each 4u × 7u, 5u apart, on a black panel at (2u, 2u).
/// - moving box: 6u × 6u, vertically centred, moving u to the right per frame (wrapping).
/// - host-time strip: 64 blocks, each `blockWidth` = width / 64 (even) wide and 2u high, centred,
///   u above the bottom edge; block i is white when bit i of the PTS in nanoseconds is set.
package struct TestPatternLayout: Sendable, Equatable {
    /// A rectangle of whole pixels (top-left origin).
    package struct Box: Sendable, Equatable {
        package var x: Int, y: Int, width: Int, height: Int
        package var centre: (x: Int, y: Int) { (x + width / 2, y + height / 2) }
    }

    package static let digitCount = 8
    package static let bitCount = 64
    /// Black and white in video-range luma, and neutral chroma.
    package static let black: UInt8 = 16, white: UInt8 = 235, neutralChroma: UInt8 = 128

    package let width: Int
    package let height: Int
    package let unit: Int
    package let blockWidth: Int
    package let strip: Box
    package let panel: Box

    /// The layout for a picture of `width`×`height`; nil when the picture is too small (under
    /// 128×96) or a side is odd.
    package init?(width: Int, height: Int) {
        guard width >= 128, height >= 96, width % 2 == 0, height % 2 == 0 else { return nil }
        self.width = width
        self.height = height
        unit = max(2, min(height / 60, width / 48) & ~1)
        blockWidth = (width / TestPatternLayout.bitCount) & ~1
        let stripWidth = blockWidth * TestPatternLayout.bitCount
        strip = Box(x: ((width - stripWidth) / 2) & ~1, y: height - 3 * unit, width: stripWidth, height: 2 * unit)
        panel = Box(x: 2 * unit, y: 2 * unit, width: (5 * TestPatternLayout.digitCount + 1) * unit, height: 9 * unit)
    }

    /// Block `i` of the strip.
    package func block(_ i: Int) -> Box {
        Box(x: strip.x + i * blockWidth, y: strip.y, width: blockWidth, height: strip.height)
    }

    /// The seven segments of digit `k` (0 = most significant), in the order a b c d e f g (top,
    /// top right, bottom right, bottom, bottom left, top left, middle).
    package func segments(ofDigit k: Int) -> [Box] {
        let u = unit, x = panel.x + u + k * 5 * u, y = panel.y + u
        return [Box(x: x + u, y: y, width: 2 * u, height: u),
                Box(x: x + 3 * u, y: y + u, width: u, height: 2 * u),
                Box(x: x + 3 * u, y: y + 4 * u, width: u, height: 2 * u),
                Box(x: x + u, y: y + 6 * u, width: 2 * u, height: u),
                Box(x: x, y: y + 4 * u, width: u, height: 2 * u),
                Box(x: x, y: y + u, width: u, height: 2 * u),
                Box(x: x + u, y: y + 3 * u, width: 2 * u, height: u)]
    }

    /// The segments lit for each decimal digit (bit 0 = segment a … bit 6 = segment g).
    package static let segmentMasks: [UInt8] = [0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F]

    /// The moving box of frame `n`.
    package func movingBox(frame n: UInt64) -> Box {
        let size = 6 * unit, travel = width - size
        let x = Int((n &* UInt64(unit)) % UInt64(travel)) & ~1
        return Box(x: x, y: (height / 2 - 3 * unit) & ~1, width: size, height: size)
    }
}

/// Encodes times into the test pattern's strip and reads strip and frame number back.
package enum HostTimeStrip {
    /// The time in nanoseconds the strip holds for `pts` (rounded; 0 for a time that is not
    /// numeric or is negative).
    package static func nanoseconds(_ pts: CMTime) -> UInt64 {
        guard pts.isNumeric else { return 0 }
        let ns = CMTimeConvertScale(pts, timescale: 1_000_000_000, method: .roundHalfAwayFromZero).value
        return ns < 0 ? 0 : UInt64(ns)
    }

    /// What a picture of the pattern says: its PTS in nanoseconds and its frame number (nil when
    /// a digit cannot be read: the picture is not the pattern, or is cropped or scaled).
    package struct Reading: Sendable, Equatable {
        package var nanoseconds: UInt64
        package var frameNumber: UInt64?
    }

    /// Reads the strip and the frame number from the luma plane (plane 0) of a Y'CbCr picture
    /// with 8-bit luma (`'420v'`, `'420f'`, `'y420'` …) of the pattern at its own size. Reads
    /// the centre pixel of each block and segment (threshold halfway between black and white),
    /// so moderate coding noise does not change the result. Nil for other pictures.
    package static func read(_ buffer: CVPixelBuffer) -> Reading? {
        guard CVPixelBufferIsPlanar(buffer),
              let layout = TestPatternLayout(width: CVPixelBufferGetWidth(buffer), height: CVPixelBufferGetHeight(buffer)),
              CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess else { return nil }
        defer { _ = CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddressOfPlane(buffer, 0) else { return nil }
        let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
        let luma = base.assumingMemoryBound(to: UInt8.self)
        let threshold = (Int(TestPatternLayout.black) + Int(TestPatternLayout.white)) / 2
        func lit(_ box: TestPatternLayout.Box) -> Bool {
            let (x, y) = box.centre
            return Int(luma[y * stride + x]) > threshold
        }
        var ns: UInt64 = 0
        for i in 0..<TestPatternLayout.bitCount where lit(layout.block(i)) { ns |= 1 << UInt64(i) }
        var number: UInt64? = 0
        for k in 0..<TestPatternLayout.digitCount {
            var mask: UInt8 = 0
            for (s, box) in layout.segments(ofDigit: k).enumerated() where lit(box) { mask |= 1 << UInt8(s) }
            guard let digit = TestPatternLayout.segmentMasks.firstIndex(of: mask), let n = number else {
                number = nil
                break
            }
            number = n * 10 + UInt64(digit)
        }
        return Reading(nanoseconds: ns, frameNumber: number)
    }
}
